/* scan: the shared input every native kernel reads, and the counting loops they share.
 *
 * The engine makes the input once per run and passes it in the environment:
 * LAYERTAX_SCAN_FILE (the file), LAYERTAX_SCAN_BYTES (its size), LAYERTAX_SCAN_COUNT
 * (how many of its bytes are C, G, c or g, counted by the engine with numpy, not by
 * any kernel) and LAYERTAX_SCAN_CEILING_BYTES (the in-RAM buffer of the memory
 * ceiling). Every case compares its count with LAYERTAX_SCAN_COUNT after every sample. */
#ifndef LAYERTAX_SCAN_INPUT_H
#define LAYERTAX_SCAN_INPUT_H

#include "harness.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct scan_input {
    const char *path;
    uint64_t bytes;
    uint64_t expect;
    uint64_t ceiling_bytes;
} scan_input;

/* Reads the environment and checks the file still has the size the engine saw. */
int scan_input_get(lt_ctx *ctx, scan_input *in);

/* LT_OK if got is the expected count, else a failure naming both. */
int scan_check(lt_ctx *ctx, const scan_input *in, uint64_t got);

/* The classic's loop: four comparisons per byte, as written (a scalar loop: the
 * compiler may not vectorize it, so it stays the article's byte loop). */
uint64_t count_plain(const unsigned char *p, size_t n);

/* The classic's branchless form: (ch & 0xDB) == 0x43 holds for exactly C, G, c, g
 * (0xDB clears the two bits, 0x20 and 0x04, in which those four letters differ). */
uint64_t count_mask(const unsigned char *p, size_t n);

/* The mask-and-compare with SSE2 (16 bytes per step) and AVX2 (32). */
uint64_t count_sse2(const unsigned char *p, size_t n);
uint64_t count_avx2(const unsigned char *p, size_t n);

/* The best this CPU has, chosen at run time: AVX2 if present, else SSE2. */
typedef uint64_t (*count_fn)(const unsigned char *p, size_t n);
count_fn count_best(const char **name);

#ifdef __cplusplus
}
#endif

#endif

/* The in-process timing harness every C kernel links with.
 *
 * A kernel supplies a table of cases; lt_main() speaks the kernel protocol
 * (docs/method/protocol.md): it pins the CPU when allowed, measures the clock, sets the
 * case up outside the timed region, calibrates an iteration count so that one
 * sample lasts at least --min-sample-ns, prints one JSON line per sample, and
 * verifies the case's result after every sample. A fast wrong answer is a bug,
 * so a failed verification ends the kernel with a non-zero exit.
 */
#ifndef LAYERTAX_HARNESS_H
#define LAYERTAX_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { LT_OK = 0, LT_FAIL = 1, LT_SKIP = 3 };

typedef struct lt_ctx {
    const char *dir;     /* private work directory from the engine, or NULL */
    const char *case_name; /* the case being run: one setup may serve many cases */
    uint64_t bytes_per_op; /* set by setup for throughput cases (reported as GB/s); 0 if none */
    void *state;         /* owned by the case's setup/teardown */
    uint64_t done_iters; /* iterations run so far (calibration included) */
    char message[512];   /* why a step failed or was skipped */
} lt_ctx;

typedef struct lt_case {
    const char *name;
    const char *description;
    unsigned ops_per_iter; /* operations one iteration performs (e.g. 2 renames) */
    int (*setup)(lt_ctx *ctx);              /* may be NULL; LT_SKIP if unsupported here */
    int (*run)(lt_ctx *ctx, uint64_t iters); /* the timed loop */
    int (*verify)(lt_ctx *ctx);             /* may be NULL only if run checks everything */
    void (*teardown)(lt_ctx *ctx);          /* may be NULL */
} lt_case;

/* Formats ctx->message and returns code, so a case can write
 * `return lt_fail(ctx, LT_FAIL, "rename: %s", strerror(errno));` */
int lt_fail(lt_ctx *ctx, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

int lt_main(int argc, char **argv, const char *kernel,
            const lt_case *cases, size_t ncases);

#define LT_COUNT(a) (sizeof(a) / sizeof((a)[0]))

#ifdef __cplusplus
}
#endif

#endif

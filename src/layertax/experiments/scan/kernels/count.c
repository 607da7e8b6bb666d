/* scan: reading the shared input's description, and the counting loops. */
#define _GNU_SOURCE
#include "scan_input.h"

#include <errno.h>
#include <immintrin.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int env_u64(lt_ctx *ctx, const char *name, uint64_t *out)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v)
        return lt_fail(ctx, LT_FAIL, "%s is not set: scan kernels run under `layertax run scan`", name);
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end)
        return lt_fail(ctx, LT_FAIL, "%s=%s is not a number", name, v);
    *out = x;
    return LT_OK;
}

int scan_input_get(lt_ctx *ctx, scan_input *in)
{
    in->path = getenv("LAYERTAX_SCAN_FILE");
    if (!in->path || !*in->path)
        return lt_fail(ctx, LT_FAIL, "LAYERTAX_SCAN_FILE is not set: scan kernels run under `layertax run scan`");
    int rc = env_u64(ctx, "LAYERTAX_SCAN_BYTES", &in->bytes);
    if (rc == LT_OK)
        rc = env_u64(ctx, "LAYERTAX_SCAN_COUNT", &in->expect);
    if (rc == LT_OK)
        rc = env_u64(ctx, "LAYERTAX_SCAN_CEILING_BYTES", &in->ceiling_bytes);
    if (rc != LT_OK)
        return rc;
    struct stat st;
    if (stat(in->path, &st) != 0)
        return lt_fail(ctx, LT_FAIL, "%s: %s", in->path, strerror(errno));
    if ((uint64_t)st.st_size != in->bytes)
        return lt_fail(ctx, LT_FAIL, "%s changed size: %" PRIu64 " bytes expected, %lld found", in->path,
                       in->bytes, (long long)st.st_size);
    return LT_OK;
}

int scan_check(lt_ctx *ctx, const scan_input *in, uint64_t got)
{
    if (got != in->expect)
        return lt_fail(ctx, LT_FAIL, "counted %" PRIu64 " C/G/c/g bytes, expected %" PRIu64, got, in->expect);
    return LT_OK;
}

#if defined(__clang__)
#define SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable)")
#define NO_VECTORIZE
#else
#define SCALAR_LOOP
#define NO_VECTORIZE __attribute__((optimize("no-tree-vectorize")))
#endif

NO_VECTORIZE uint64_t count_plain(const unsigned char *p, size_t n)
{
    uint64_t count = 0;
    SCALAR_LOOP
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = p[i];
        if (ch == 'c' || ch == 'C' || ch == 'g' || ch == 'G')
            ++count;
    }
    return count;
}

NO_VECTORIZE uint64_t count_mask(const unsigned char *p, size_t n)
{
    uint64_t count = 0;
    SCALAR_LOOP
    for (size_t i = 0; i < n; i++)
        count += (p[i] & 0xDB) == 0x43;
    return count;
}

/* Each byte lane counts matches by subtracting the compare's 0xFF (-1); after at
 * most 255 steps the lanes are summed (psadbw against zero) before they can wrap. */
uint64_t count_sse2(const unsigned char *p, size_t n)
{
    const __m128i mask = _mm_set1_epi8((char)0xDB), want = _mm_set1_epi8(0x43), zero = _mm_setzero_si128();
    uint64_t total = 0;
    size_t i = 0;
    while (n - i >= 16) {
        size_t steps = (n - i) / 16;
        if (steps > 255)
            steps = 255;
        __m128i acc = zero;
        for (size_t s = 0; s < steps; s++, i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_and_si128(v, mask), want));
        }
        __m128i sums = _mm_sad_epu8(acc, zero);
        total += (uint64_t)_mm_cvtsi128_si64(sums) + (uint64_t)_mm_extract_epi16(sums, 4);
    }
    return total + count_mask(p + i, n - i);
}

__attribute__((target("avx2"))) uint64_t count_avx2(const unsigned char *p, size_t n)
{
    const __m256i mask = _mm256_set1_epi8((char)0xDB), want = _mm256_set1_epi8(0x43);
    const __m256i zero = _mm256_setzero_si256();
    uint64_t total = 0;
    size_t i = 0;
    while (n - i >= 64) {
        size_t steps = (n - i) / 64;  /* two vectors per step, two accumulators */
        if (steps > 255)
            steps = 255;
        __m256i a = zero, b = zero;
        for (size_t s = 0; s < steps; s++, i += 64) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(p + i));
            __m256i w = _mm256_loadu_si256((const __m256i *)(p + i + 32));
            a = _mm256_sub_epi8(a, _mm256_cmpeq_epi8(_mm256_and_si256(v, mask), want));
            b = _mm256_sub_epi8(b, _mm256_cmpeq_epi8(_mm256_and_si256(w, mask), want));
        }
        __m256i sums = _mm256_add_epi64(_mm256_sad_epu8(a, zero), _mm256_sad_epu8(b, zero));
        total += (uint64_t)_mm256_extract_epi64(sums, 0) + (uint64_t)_mm256_extract_epi64(sums, 1) +
                 (uint64_t)_mm256_extract_epi64(sums, 2) + (uint64_t)_mm256_extract_epi64(sums, 3);
    }
    return total + count_sse2(p + i, n - i);
}

count_fn count_best(const char **name)
{
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
        *name = "avx2";
        return count_avx2;
    }
    *name = "sse2";
    return count_sse2;
}

/* scan: count the bytes C, G, c, g of one file through each C I/O layer, and the
 * ceilings measured beside them. One operation is one pass over the whole file
 * (the ceilings: over their buffer); bytes_per_op is what one pass reads.
 *
 * The stdio cases rewind their FILE before each pass (which drops its buffer, so
 * every pass reads the file again through read(2)). The mmap cases map the file
 * once at setup with MAP_POPULATE, so a pass is the loop over mapped page-cache
 * pages and nothing else, except mmap-simd-fresh, which maps and unmaps on every
 * pass and so pays the page faults a program that maps its input once pays. */
#define _GNU_SOURCE
#include "harness.h"
#include "scan_input.h"

#include <errno.h>
#include <fcntl.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum io { IO_MEM, IO_PAGECACHE, IO_GETC, IO_GETC_UNLOCKED, IO_FGETC, IO_GETC_THREAD, IO_FREAD, IO_READ,
          IO_MMAP, IO_MMAP_FRESH };

typedef struct state {
    scan_input in;
    enum io io;
    count_fn count;
    size_t block;
    int fd;
    FILE *fp;
    unsigned char *buf;        /* read/fread block, or the ceiling's buffer */
    const unsigned char *map;  /* the mapped file */
    uint64_t got;              /* the last pass's result */
    uint64_t ceiling_sum;      /* mem-read: the buffer's byte sum, computed at setup */
    pthread_t idle;            /* getc-thread: the second thread, blocked on idle_pipe */
    int idle_pipe[2];
    int idle_started;
} state;

static void *idle_thread(void *arg)
{
    char c;
    /* Blocks until teardown writes: alive, but never running. */
    while (read(*(int *)arg, &c, 1) < 0 && errno == EINTR)
        ;
    return NULL;
}

/* mem-read: an anonymous buffer, written first so every page is real memory, and
 * asked for transparent huge pages: the ceiling should be the best one core can
 * read. With 4 KiB pages from here and there it reads ~10% slower on some CPUs than
 * the page cache's physically contiguous folios (AMD coalesces such runs in its TLB),
 * and a ceiling a kernel beats is no ceiling. */
static int setup_ceiling(lt_ctx *ctx, state *s)
{
    size_t n = s->in.ceiling_bytes;
    if (posix_memalign((void **)&s->buf, 2u << 20, n ? n : 1) != 0)
        return lt_fail(ctx, LT_FAIL, "cannot allocate the %zu-byte ceiling buffer", n);
    madvise(s->buf, n, MADV_HUGEPAGE);   /* a hint: without THP the pages stay small */
    uint64_t x = 0x9E3779B97F4A7C15u, sum = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        memcpy(s->buf + i, &x, 8);
        for (int b = 0; b < 8; b++)
            sum += (x >> (8 * b)) & 0xFF;
    }
    for (; i < n; i++) {
        s->buf[i] = (unsigned char)i;
        sum += (unsigned char)i;
    }
    s->ceiling_sum = sum;
    ctx->bytes_per_op = n;
    return LT_OK;
}

__attribute__((target("avx2"))) static uint64_t sum_avx2(const unsigned char *p, size_t n)
{
    const __m256i zero = _mm256_setzero_si256();
    __m256i a = zero, b = zero;
    size_t i = 0;
    for (; n - i >= 64; i += 64) {
        a = _mm256_add_epi64(a, _mm256_sad_epu8(_mm256_load_si256((const __m256i *)(p + i)), zero));
        b = _mm256_add_epi64(b, _mm256_sad_epu8(_mm256_load_si256((const __m256i *)(p + i + 32)), zero));
    }
    __m256i t = _mm256_add_epi64(a, b);
    uint64_t sum = (uint64_t)_mm256_extract_epi64(t, 0) + (uint64_t)_mm256_extract_epi64(t, 1) +
                   (uint64_t)_mm256_extract_epi64(t, 2) + (uint64_t)_mm256_extract_epi64(t, 3);
    for (; i < n; i++)
        sum += p[i];
    return sum;
}

static uint64_t sum_sse2(const unsigned char *p, size_t n)
{
    const __m128i zero = _mm_setzero_si128();
    __m128i a = zero;
    size_t i = 0;
    for (; n - i >= 16; i += 16)
        a = _mm_add_epi64(a, _mm_sad_epu8(_mm_load_si128((const __m128i *)(p + i)), zero));
    uint64_t sum = (uint64_t)_mm_cvtsi128_si64(a) + (uint64_t)_mm_extract_epi16(a, 4) +
                   ((uint64_t)_mm_extract_epi16(a, 5) << 16);
    for (; i < n; i++)
        sum += p[i];
    return sum;
}

static int setup(lt_ctx *ctx)
{
    state *s = calloc(1, sizeof *s);
    if (!s)
        return lt_fail(ctx, LT_FAIL, "out of memory");
    ctx->state = s;
    s->fd = -1;
    int rc = scan_input_get(ctx, &s->in);
    if (rc != LT_OK)
        return rc;
    const char *n = ctx->case_name, *simd_name;
    s->count = count_plain;
    if (strcmp(n, "mem-read") == 0) {
        s->io = IO_MEM;
        return setup_ceiling(ctx, s);
    }
    ctx->bytes_per_op = s->in.bytes;
    if (strcmp(n, "pagecache-read") == 0) { s->io = IO_PAGECACHE; s->block = 1u << 20; }
    else if (strcmp(n, "getc") == 0) s->io = IO_GETC;
    else if (strcmp(n, "getc-unlocked") == 0) s->io = IO_GETC_UNLOCKED;
    else if (strcmp(n, "fgetc") == 0) s->io = IO_FGETC;
    else if (strcmp(n, "getc-thread") == 0) s->io = IO_GETC_THREAD;
    else if (strcmp(n, "fread-64k") == 0) { s->io = IO_FREAD; s->block = 64u << 10; }
    else if (strcmp(n, "read-64k") == 0) { s->io = IO_READ; s->block = 64u << 10; }
    else if (strcmp(n, "read-1m") == 0) { s->io = IO_READ; s->block = 1u << 20; }
    else if (strcmp(n, "read-1m-simd") == 0) { s->io = IO_READ; s->block = 1u << 20; s->count = count_best(&simd_name); }
    else if (strcmp(n, "mmap-loop") == 0) s->io = IO_MMAP;
    else if (strcmp(n, "mmap-mask") == 0) { s->io = IO_MMAP; s->count = count_mask; }
    else if (strcmp(n, "mmap-sse2") == 0) { s->io = IO_MMAP; s->count = count_sse2; }
    else if (strcmp(n, "mmap-simd") == 0) { s->io = IO_MMAP; s->count = count_best(&simd_name); }
    else if (strcmp(n, "mmap-simd-fresh") == 0) { s->io = IO_MMAP_FRESH; s->count = count_best(&simd_name); }
    else
        return lt_fail(ctx, LT_FAIL, "unknown case %s", n);

    s->fd = open(s->in.path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0)
        return lt_fail(ctx, LT_FAIL, "open %s: %s", s->in.path, strerror(errno));
    if (s->block && !(s->buf = malloc(s->block)))
        return lt_fail(ctx, LT_FAIL, "out of memory");
    if (s->io == IO_GETC || s->io == IO_GETC_UNLOCKED || s->io == IO_FGETC || s->io == IO_GETC_THREAD ||
        s->io == IO_FREAD) {
        if (!(s->fp = fdopen(s->fd, "rb")))
            return lt_fail(ctx, LT_FAIL, "fdopen: %s", strerror(errno));
        s->fd = -1; /* owned by the FILE now */
    }
    if (s->io == IO_MMAP && s->in.bytes > 0) {
        void *m = mmap(NULL, s->in.bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, s->fd, 0);
        if (m == MAP_FAILED)
            return lt_fail(ctx, LT_FAIL, "mmap %s: %s", s->in.path, strerror(errno));
        s->map = m;
    }
    if (s->io == IO_GETC_THREAD) {
        if (pipe(s->idle_pipe) != 0)
            return lt_fail(ctx, LT_FAIL, "pipe: %s", strerror(errno));
        if (pthread_create(&s->idle, NULL, idle_thread, &s->idle_pipe[0]) != 0)
            return lt_fail(ctx, LT_FAIL, "pthread_create failed");
        s->idle_started = 1;
    }
    return LT_OK;
}

static int pass(lt_ctx *ctx, state *s)
{
    uint64_t count = 0;
    switch (s->io) {
    case IO_MEM:
        s->got = __builtin_cpu_supports("avx2") ? sum_avx2(s->buf, s->in.ceiling_bytes)
                                                : sum_sse2(s->buf, s->in.ceiling_bytes);
        return LT_OK;
    case IO_GETC:
    case IO_GETC_THREAD: {
        int ch;
        rewind(s->fp);
        while ((ch = getc(s->fp)) != EOF)
            if (ch == 'c' || ch == 'C' || ch == 'g' || ch == 'G')
                ++count;
        break;
    }
    case IO_GETC_UNLOCKED: {
        int ch;
        rewind(s->fp);
        while ((ch = getc_unlocked(s->fp)) != EOF)
            if (ch == 'c' || ch == 'C' || ch == 'g' || ch == 'G')
                ++count;
        break;
    }
    case IO_FGETC: {
        int ch;
        rewind(s->fp);
        while ((ch = fgetc(s->fp)) != EOF)
            if (ch == 'c' || ch == 'C' || ch == 'g' || ch == 'G')
                ++count;
        break;
    }
    case IO_FREAD: {
        size_t got;
        rewind(s->fp);
        while ((got = fread(s->buf, 1, s->block, s->fp)) > 0)
            count += s->count(s->buf, got);
        if (ferror(s->fp))
            return lt_fail(ctx, LT_FAIL, "fread: %s", strerror(errno));
        break;
    }
    case IO_PAGECACHE:
    case IO_READ: {
        ssize_t got;
        uint64_t total = 0;
        if (lseek(s->fd, 0, SEEK_SET) != 0)
            return lt_fail(ctx, LT_FAIL, "lseek: %s", strerror(errno));
        while ((got = read(s->fd, s->buf, s->block)) != 0) {
            if (got < 0) {
                if (errno == EINTR)
                    continue;
                return lt_fail(ctx, LT_FAIL, "read: %s", strerror(errno));
            }
            total += (uint64_t)got;
            if (s->io == IO_READ)
                count += s->count(s->buf, (size_t)got);
        }
        if (s->io == IO_PAGECACHE) {  /* no work on the bytes: the check is that all of them came */
            s->got = total;
            return LT_OK;
        }
        break;
    }
    case IO_MMAP:
        count = s->in.bytes ? s->count(s->map, s->in.bytes) : 0;
        break;
    case IO_MMAP_FRESH:
        if (s->in.bytes) {
            void *m = mmap(NULL, s->in.bytes, PROT_READ, MAP_PRIVATE, s->fd, 0);
            if (m == MAP_FAILED)
                return lt_fail(ctx, LT_FAIL, "mmap: %s", strerror(errno));
            count = s->count(m, s->in.bytes);
            munmap(m, s->in.bytes);
        }
        break;
    }
    s->got = count;
    return LT_OK;
}

static int run(lt_ctx *ctx, uint64_t iters)
{
    state *s = ctx->state;
    for (uint64_t i = 0; i < iters; i++) {
        int rc = pass(ctx, s);
        if (rc != LT_OK)
            return rc;
    }
    return LT_OK;
}

static int verify(lt_ctx *ctx)
{
    state *s = ctx->state;
    if (s->io == IO_MEM)
        return s->got == s->ceiling_sum ? LT_OK
               : lt_fail(ctx, LT_FAIL, "the ceiling buffer summed to %llu, expected %llu",
                         (unsigned long long)s->got, (unsigned long long)s->ceiling_sum);
    if (s->io == IO_PAGECACHE)
        return s->got == s->in.bytes ? LT_OK
               : lt_fail(ctx, LT_FAIL, "read %llu bytes of %llu", (unsigned long long)s->got,
                         (unsigned long long)s->in.bytes);
    return scan_check(ctx, &s->in, s->got);
}

static void teardown(lt_ctx *ctx)
{
    state *s = ctx->state;
    if (!s)
        return;
    if (s->idle_started) {
        if (write(s->idle_pipe[1], "x", 1) == 1)
            pthread_join(s->idle, NULL);
    }
    if (s->map)
        munmap((void *)s->map, s->in.bytes);
    if (s->fp)
        fclose(s->fp);
    if (s->fd >= 0)
        close(s->fd);
    free(s->buf);
    free(s);
}

#define CASE(name, what) {name, what, 1, setup, run, verify, teardown}

static const lt_case cases[] = {
    CASE("mem-read", "ceiling: one core reading an in-RAM buffer (SIMD byte sums), no I/O"),
    CASE("pagecache-read", "ceiling: read(2) of the file in 1 MiB blocks, no work on the bytes"),
    CASE("getc", "getc() per byte (glibc skips the stream lock while one thread runs)"),
    CASE("getc-unlocked", "getc_unlocked() per byte"),
    CASE("fgetc", "fgetc() per byte (a function call, never the macro)"),
    CASE("getc-thread", "getc() per byte with a second (idle) thread alive: the stream lock is taken"),
    CASE("fread-64k", "fread() into 64 KiB blocks, byte loop"),
    CASE("read-64k", "read(2) 64 KiB blocks, byte loop"),
    CASE("read-1m", "read(2) 1 MiB blocks, byte loop"),
    CASE("read-1m-simd", "read(2) 1 MiB blocks, SIMD mask-and-compare"),
    CASE("mmap-loop", "mmap, byte loop with four compares"),
    CASE("mmap-mask", "mmap, branchless (ch & 0xDB) == 'C'"),
    CASE("mmap-sse2", "mmap, SSE2 mask-and-compare (16 bytes a step)"),
    CASE("mmap-simd", "mmap, AVX2 mask-and-compare (run-time dispatch; SSE2 without AVX2)"),
    CASE("mmap-simd-fresh", "mmap and munmap every pass, AVX2: the page faults included"),
};

int main(int argc, char **argv)
{
    return lt_main(argc, argv, "scan-c", cases, LT_COUNT(cases));
}

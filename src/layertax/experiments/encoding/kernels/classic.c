/* encoding, the classic: Pietrek's three calls (GetModuleHandle, GetModuleFileName,
 * GetCurrentDirectory) on Linux, made directly with UTF-8 bytes (the native "W"
 * role) and through a wide-character shim (the converting "A" role) that turns
 * wchar_t arguments into bytes and byte results back into wchar_t, using a
 * per-thread static buffer or heap temporaries, as NT's shims did.
 *
 * One operation = the three calls:
 *   dlopen("libc.so.6", RTLD_NOLOAD) + dlclose  (an already-loaded library by name)
 *   readlink(path)                              (/proc/self/exe: the executable's path;
 *                                                the -nonascii cases read a symlink whose
 *                                                name and target are Chinese and Cyrillic)
 *   getcwd()                                    (the -nonascii cases stand in such a directory)
 *
 * Case names: c-direct[-nonascii], c-shim-{tls,heap}-{wcs,iconv,hand}[-nonascii].
 *
 * The same kernel gives the runtime tables their C baseline, one call per operation:
 * c-getcwd, c-stat (of a file in the directory), c-readlink (of a symlink to it),
 * each also -nonascii. Those operations are the ones the Python (and other) cases make. */
#define _GNU_SOURCE
#include "conv.h"
#include "harness.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

#define LIB "libc.so.6"
#define NONASCII_DIR "工作目录-каталог-é"
#define NONASCII_TARGET "目标文件-цель.bin"
#define NONASCII_LINK "链接-ссылка"
#define ASCII_DIR "workdir-ascii"
#define ASCII_TARGET "target-file.bin"
#define ASCII_LINK "link-name"

typedef struct shim {
    const lt_conv *conv;
    int heap; /* 1: heap temporaries, freed after the call; 0: per-thread static buffers */
} shim;

enum single { NONE, GETCWD, STAT, READLINK };

typedef struct state {
    shim shim;
    int direct, nonascii;
    enum single single;      /* one-call cases (the runtime tables' baseline) */
    char own_link[PATH_MAX]; /* the symlink in the directory (relative) */
    char home[PATH_MAX];     /* the directory the case stands in (created) */
    char old_cwd[PATH_MAX];
    char link[PATH_MAX];     /* what readlink reads */
    char target[PATH_MAX];   /* the -nonascii symlink's target (created) */
    wchar_t wlib[64], wlink[PATH_MAX];
    void *want_handle;
    char want_link[PATH_MAX], want_cwd[PATH_MAX];
    wchar_t want_wlink[PATH_MAX], want_wcwd[PATH_MAX];
    void *got_handle;
    char got_link[PATH_MAX], got_cwd[PATH_MAX];
    wchar_t got_wlink[PATH_MAX], got_wcwd[PATH_MAX];
} state;

static __thread char tls_arg[PATH_MAX], tls_result[PATH_MAX];

/* The argument's bytes: converted into the per-thread buffer or a heap copy sized for it. */
static char *arg_bytes(const shim *s, const wchar_t *w)
{
    size_t cap = s->heap ? wcslen(w) * 4 + 1 : sizeof tls_arg;
    char *buf = s->heap ? malloc(cap) : tls_arg;
    if (!buf)
        return NULL;
    if (s->conv->to_bytes(buf, cap, w) < 0) {
        if (s->heap)
            free(buf);
        errno = EILSEQ;
        return NULL;
    }
    return buf;
}

static void done_with(const shim *s, char *buf)
{
    if (s->heap)
        free(buf);
}

static void *shim_dlopen_noload(const shim *s, const wchar_t *name)
{
    char *b = arg_bytes(s, name);
    if (!b)
        return NULL;
    void *h = dlopen(b, RTLD_NOLOAD | RTLD_LAZY);
    done_with(s, b);
    return h;
}

static long shim_readlink(const shim *s, const wchar_t *path, wchar_t *out, size_t cap)
{
    char *p = arg_bytes(s, path);
    if (!p)
        return -1;
    char *r = s->heap ? malloc(PATH_MAX) : tls_result;
    long n = -1;
    if (r) {
        ssize_t k = readlink(p, r, PATH_MAX - 1);
        if (k >= 0) {
            r[k] = '\0';
            n = s->conv->to_wide(out, cap, r, (size_t)k);
        }
        done_with(s, r);
    }
    done_with(s, p);
    return n;
}

static long shim_getcwd(const shim *s, wchar_t *out, size_t cap)
{
    char *r = s->heap ? malloc(PATH_MAX) : tls_result;
    if (!r)
        return -1;
    long n = -1;
    if (getcwd(r, PATH_MAX))
        n = s->conv->to_wide(out, cap, r, strlen(r));
    done_with(s, r);
    return n;
}

/* Decodes with a converter other than the case's own, so a shim is checked independently. */
static int expect_wide(const state *st, wchar_t *dst, const char *src)
{
    const lt_conv *check = st->shim.conv == &LT_CONV_HAND ? &LT_CONV_WCS : &LT_CONV_HAND;
    return check->to_wide(dst, PATH_MAX, src, strlen(src)) < 0 ? -1 : 0;
}

static int setup(lt_ctx *ctx)
{
    char why[256];
    if (lt_conv_init(why, sizeof why) != 0)
        return lt_fail(ctx, LT_SKIP, "%s", why);
    if (!ctx->dir)
        return lt_fail(ctx, LT_FAIL, "--dir is required: the cases create a directory to stand in");
    state *st = calloc(1, sizeof *st);
    if (!st)
        return lt_fail(ctx, LT_FAIL, "out of memory");
    ctx->state = st;
    const char *name = ctx->case_name;
    st->nonascii = strstr(name, "-nonascii") != NULL;
    st->direct = strncmp(name, "c-direct", 8) == 0;
    st->single = strncmp(name, "c-getcwd", 8) == 0 ? GETCWD : strncmp(name, "c-stat", 6) == 0 ? STAT
               : strncmp(name, "c-readlink", 10) == 0 ? READLINK : NONE;
    if (st->single != NONE) {
        st->direct = 1;
    } else if (!st->direct) {
        char conv[16] = "";
        if (sscanf(name, "c-shim-%*[a-z]-%15[a-z]", conv) != 1 || !(st->shim.conv = lt_conv_by_name(conv)))
            return lt_fail(ctx, LT_FAIL, "unknown case %s", name);
        st->shim.heap = strncmp(name, "c-shim-heap-", 12) == 0;
    }
    if (!getcwd(st->old_cwd, sizeof st->old_cwd))
        return lt_fail(ctx, LT_FAIL, "getcwd: %s", strerror(errno));
    snprintf(st->home, sizeof st->home, "%s/%s", ctx->dir, st->nonascii ? NONASCII_DIR : ASCII_DIR);
    if (mkdir(st->home, 0700) != 0 || chdir(st->home) != 0)
        return lt_fail(ctx, LT_FAIL, "%s: %s", st->home, strerror(errno));
    snprintf(st->target, sizeof st->target, "%.3900s/%s", st->home, st->nonascii ? NONASCII_TARGET : ASCII_TARGET);
    snprintf(st->own_link, sizeof st->own_link, "%s", st->nonascii ? NONASCII_LINK : ASCII_LINK);
    FILE *f = fopen(st->target, "wx");
    if (!f || fclose(f) != 0 || symlink(st->target, st->own_link) != 0)
        return lt_fail(ctx, LT_FAIL, "creating %s: %s", st->own_link, strerror(errno));
    if (st->nonascii || st->single != NONE) {
        snprintf(st->link, sizeof st->link, "%s", st->own_link);
        snprintf(st->want_link, sizeof st->want_link, "%s", st->target);
    } else {
        snprintf(st->link, sizeof st->link, "/proc/self/exe");
        if (!realpath("/proc/self/exe", st->want_link))
            return lt_fail(ctx, LT_FAIL, "realpath(/proc/self/exe): %s", strerror(errno));
    }
    if (!realpath(".", st->want_cwd))
        return lt_fail(ctx, LT_FAIL, "realpath(.): %s", strerror(errno));
    st->want_handle = dlopen(LIB, RTLD_NOLOAD | RTLD_LAZY);
    if (!st->want_handle)
        return lt_fail(ctx, LT_SKIP, "%s is not loaded (not a glibc system?)", LIB);
    /* the shim's wide inputs, and the wide results it must give back */
    if (mbstowcs(st->wlib, LIB, 64) == (size_t)-1 || mbstowcs(st->wlink, st->link, PATH_MAX) == (size_t)-1
        || (!st->direct && (expect_wide(st, st->want_wlink, st->want_link) != 0
                            || expect_wide(st, st->want_wcwd, st->want_cwd) != 0)))
        return lt_fail(ctx, LT_FAIL, "cannot convert the expected paths");
    return LT_OK;
}

static int run_direct(lt_ctx *ctx, state *st, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        void *h = dlopen(LIB, RTLD_NOLOAD | RTLD_LAZY);
        if (!h)
            return lt_fail(ctx, LT_FAIL, "dlopen(%s, RTLD_NOLOAD) failed", LIB);
        st->got_handle = h;
        dlclose(h);
        ssize_t k = readlink(st->link, st->got_link, PATH_MAX - 1);
        if (k < 0)
            return lt_fail(ctx, LT_FAIL, "readlink: %s", strerror(errno));
        st->got_link[k] = '\0';
        if (!getcwd(st->got_cwd, PATH_MAX))
            return lt_fail(ctx, LT_FAIL, "getcwd: %s", strerror(errno));
    }
    return LT_OK;
}

static int run_shim(lt_ctx *ctx, state *st, uint64_t n)
{
    const shim *s = &st->shim;
    for (uint64_t i = 0; i < n; i++) {
        void *h = shim_dlopen_noload(s, st->wlib);
        if (!h)
            return lt_fail(ctx, LT_FAIL, "shim dlopen(%s, RTLD_NOLOAD) failed", LIB);
        st->got_handle = h;
        dlclose(h);
        if (shim_readlink(s, st->wlink, st->got_wlink, PATH_MAX) < 0)
            return lt_fail(ctx, LT_FAIL, "shim readlink: %s", strerror(errno));
        if (shim_getcwd(s, st->got_wcwd, PATH_MAX) < 0)
            return lt_fail(ctx, LT_FAIL, "shim getcwd: %s", strerror(errno));
    }
    return LT_OK;
}

static int run_single(lt_ctx *ctx, state *st, uint64_t n)
{
    struct stat sb;
    for (uint64_t i = 0; i < n; i++) {
        if (st->single == GETCWD) {
            if (!getcwd(st->got_cwd, PATH_MAX))
                return lt_fail(ctx, LT_FAIL, "getcwd: %s", strerror(errno));
        } else if (st->single == STAT) {
            if (stat(st->target, &sb) != 0 || !S_ISREG(sb.st_mode))
                return lt_fail(ctx, LT_FAIL, "stat %s: %s", st->target, strerror(errno));
        } else {
            ssize_t k = readlink(st->link, st->got_link, PATH_MAX - 1);
            if (k < 0)
                return lt_fail(ctx, LT_FAIL, "readlink: %s", strerror(errno));
            st->got_link[k] = '\0';
        }
    }
    return LT_OK;
}

static int run(lt_ctx *ctx, uint64_t n)
{
    state *st = ctx->state;
    if (st->single != NONE)
        return run_single(ctx, st, n);
    return st->direct ? run_direct(ctx, st, n) : run_shim(ctx, st, n);
}

static int verify(lt_ctx *ctx)
{
    state *st = ctx->state;
    /* Only what the case's loop produced: a one-call case checks its one result (stat
     * checks its own in the loop); the three-call cases check all three. */
    int all = st->single == NONE;
    if (all && st->got_handle != st->want_handle)
        return lt_fail(ctx, LT_FAIL, "dlopen returned another handle for %s", LIB);
    if (st->direct) {
        if ((all || st->single == READLINK) && strcmp(st->got_link, st->want_link) != 0)
            return lt_fail(ctx, LT_FAIL, "readlink gave %s, not %s", st->got_link, st->want_link);
        if ((all || st->single == GETCWD) && strcmp(st->got_cwd, st->want_cwd) != 0)
            return lt_fail(ctx, LT_FAIL, "getcwd gave %s, not %s", st->got_cwd, st->want_cwd);
    } else {
        if (wcscmp(st->got_wlink, st->want_wlink) != 0)
            return lt_fail(ctx, LT_FAIL, "the shim's readlink differs from %s", st->want_link);
        if (wcscmp(st->got_wcwd, st->want_wcwd) != 0)
            return lt_fail(ctx, LT_FAIL, "the shim's getcwd differs from %s", st->want_cwd);
    }
    return LT_OK;
}

static void teardown(lt_ctx *ctx)
{
    state *st = ctx->state;
    if (!st)
        return;
    if (st->old_cwd[0] && chdir(st->old_cwd) != 0)
        perror("chdir back");
    if (st->own_link[0]) {
        char link[PATH_MAX + 64];
        snprintf(link, sizeof link, "%.3900s/%.100s", st->home, st->own_link);
        unlink(link);
        unlink(st->target);
    }
    if (st->home[0])
        rmdir(st->home);
    free(st);
}

#define CASE(name, what) {name, what, 1, setup, run, verify, teardown}
#define SHIMS(suffix, where)                                                                              \
    CASE("c-shim-tls-wcs" suffix, "shim, per-thread buffer, wcstombs/mbstowcs" where),                    \
    CASE("c-shim-tls-iconv" suffix, "shim, per-thread buffer, iconv" where),                              \
    CASE("c-shim-tls-hand" suffix, "shim, per-thread buffer, hand-written UTF-8 loop" where),             \
    CASE("c-shim-heap-wcs" suffix, "shim, heap temporaries, wcstombs/mbstowcs" where),                    \
    CASE("c-shim-heap-iconv" suffix, "shim, heap temporaries, iconv" where),                              \
    CASE("c-shim-heap-hand" suffix, "shim, heap temporaries, hand-written UTF-8 loop" where)

static const lt_case CASES[] = {
    CASE("c-direct", "direct: UTF-8 bytes, no conversion"),
    SHIMS("", ""),
    CASE("c-direct-nonascii", "direct, non-ASCII directory and link"),
    SHIMS("-nonascii", ", non-ASCII paths"),
    CASE("c-getcwd", "C getcwd()"),
    CASE("c-stat", "C stat()"),
    CASE("c-readlink", "C readlink()"),
    CASE("c-getcwd-nonascii", "C getcwd(), non-ASCII directory"),
    CASE("c-stat-nonascii", "C stat(), non-ASCII path"),
    CASE("c-readlink-nonascii", "C readlink(), non-ASCII link and target"),
};

int main(int argc, char **argv)
{
    return lt_main(argc, argv, "encoding-classic", CASES, LT_COUNT(CASES));
}

/* callchain: one file renamed to a second name and back, through each layer of
 * the C stack from glibc's rename() down to a bare syscall instruction. */
#define _GNU_SOURCE
#include "file_pair.h"
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Each loop moves a -> b -> a; `call` must return 0 on success (errno set otherwise). */
#define RENAME_LOOP(ctx, iters, call_ab, call_ba)                                       \
    do {                                                                                \
        for (uint64_t i = 0; i < (iters); i++) {                                        \
            if ((call_ab) != 0)                                                         \
                return lt_fail(ctx, LT_FAIL, "a -> b: %s", strerror(errno));            \
            if ((call_ba) != 0)                                                         \
                return lt_fail(ctx, LT_FAIL, "b -> a: %s", strerror(errno));            \
        }                                                                               \
        return LT_OK;                                                                   \
    } while (0)

static int run_rename(lt_ctx *ctx, uint64_t n)
{
    RENAME_LOOP(ctx, n, rename(FP.a, FP.b), rename(FP.b, FP.a));
}

static int run_renameat(lt_ctx *ctx, uint64_t n)
{
    RENAME_LOOP(ctx, n, renameat(AT_FDCWD, FP.a, AT_FDCWD, FP.b),
                renameat(AT_FDCWD, FP.b, AT_FDCWD, FP.a));
}

static int run_renameat2(lt_ctx *ctx, uint64_t n)
{
    RENAME_LOOP(ctx, n, renameat2(AT_FDCWD, FP.a, AT_FDCWD, FP.b, 0),
                renameat2(AT_FDCWD, FP.b, AT_FDCWD, FP.a, 0));
}

static int run_syscall(lt_ctx *ctx, uint64_t n)
{
    RENAME_LOOP(ctx, n, syscall(SYS_renameat2, AT_FDCWD, FP.a, AT_FDCWD, FP.b, 0),
                syscall(SYS_renameat2, AT_FDCWD, FP.b, AT_FDCWD, FP.a, 0));
}

/* No libc at all: the system call instruction itself. On x86-64 it is the same
 * system call glibc's rename() makes (rename, 82), so the two differ only by
 * the wrapper. Returns 0 or sets errno and returns -1, like libc. */
static long raw_rename(const char *from, const char *to)
{
    long ret;
#if defined(__x86_64__)
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "0"((long)SYS_rename), "D"(from), "S"(to)
                     : "rcx", "r11", "memory");
#elif defined(__aarch64__)
    /* aarch64 has no rename system call: renameat2 is what glibc uses there. */
    register long x8 __asm__("x8") = SYS_renameat2;
    register long x0 __asm__("x0") = AT_FDCWD;
    register long x1 __asm__("x1") = (long)from;
    register long x2 __asm__("x2") = AT_FDCWD;
    register long x3 __asm__("x3") = (long)to;
    register long x4 __asm__("x4") = 0;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4) : "memory");
    ret = x0;
#else
    (void)from; (void)to;
    ret = -ENOSYS;
#endif
    if (ret < 0) {
        errno = (int)-ret;
        return -1;
    }
    return 0;
}

static int setup_raw(lt_ctx *ctx)
{
#if !defined(__x86_64__) && !defined(__aarch64__)
    return lt_fail(ctx, LT_SKIP, "no inline system call for this architecture");
#endif
    return file_pair_setup(ctx);
}

static int run_raw(lt_ctx *ctx, uint64_t n)
{
    RENAME_LOOP(ctx, n, raw_rename(FP.a, FP.b), raw_rename(FP.b, FP.a));
}

static const lt_case CASES[] = {
    {"c-rename", "glibc rename()", 2, file_pair_setup, run_rename, file_pair_verify, file_pair_teardown},
    {"c-renameat", "glibc renameat(AT_FDCWD, ...)", 2, file_pair_setup, run_renameat, file_pair_verify, file_pair_teardown},
    {"c-renameat2", "glibc renameat2(..., 0)", 2, file_pair_setup, run_renameat2, file_pair_verify, file_pair_teardown},
    {"c-syscall", "glibc syscall(SYS_renameat2, ...)", 2, file_pair_setup, run_syscall, file_pair_verify, file_pair_teardown},
    {"c-raw-syscall", "inline syscall instruction, no libc", 2, setup_raw, run_raw, file_pair_verify, file_pair_teardown},
};

int main(int argc, char **argv)
{
    return lt_main(argc, argv, "callchain-rename-c", CASES, LT_COUNT(CASES));
}

/* A test kernel: cases whose outcome is known by construction, to check the
 * harness and the scheduler (verification, skips, failures, hangs). */
#define _GNU_SOURCE
#include "harness.h"

#include <stdlib.h>
#include <unistd.h>

static volatile uint64_t counter;

static int run_count(lt_ctx *ctx, uint64_t n)
{
    (void)ctx;
    for (uint64_t i = 0; i < n; i++)
        counter += 3;
    return LT_OK;
}

/* Correct: the counter advanced exactly 3 per iteration run so far. */
static int verify_count(lt_ctx *ctx)
{
    if (counter != 3 * ctx->done_iters)
        return lt_fail(ctx, LT_FAIL, "counter %llu, expected %llu",
                       (unsigned long long)counter, (unsigned long long)(3 * ctx->done_iters));
    return LT_OK;
}

/* Wrong on purpose: a kernel whose result does not check out must fail loudly. */
static int verify_wrong(lt_ctx *ctx)
{
    return lt_fail(ctx, LT_FAIL, "wrong result: expected 42, got 41");
}

static int setup_skip(lt_ctx *ctx)
{
    return lt_fail(ctx, LT_SKIP, "feature X is not available here");
}

static int run_hang(lt_ctx *ctx, uint64_t n)
{
    (void)ctx; (void)n;
    sleep(600);
    return LT_OK;
}

static int run_crash(lt_ctx *ctx, uint64_t n)
{
    (void)ctx; (void)n;
    abort();
}

/* Exactly 102 instructions per iteration, by construction: the whole loop is
 * assembly (100 nops, dec, jnz), so no compiler can change it. Two ops per
 * iteration, so the instruction counter must report 51 per operation. The run
 * checks its own result: the loop counter must have reached zero. */
static int run_asm(lt_ctx *ctx, uint64_t n)
{
    (void)ctx;
    if (n == 0)
        return LT_OK;
#if defined(__x86_64__)
    __asm__ volatile("1:\n\t.rept 100\n\tnop\n\t.endr\n\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#else
    return lt_fail(ctx, LT_SKIP, "the known-count loop is x86-64 assembly");
#endif
    return n == 0 ? LT_OK : lt_fail(ctx, LT_FAIL, "the loop stopped with %llu iterations left", (unsigned long long)n);
}

static const lt_case CASES[] = {
    {"asm102", "102 instructions per iteration, 2 ops (assembly loop)", 2, NULL, run_asm, NULL, NULL},
    {"count", "adds 3 per iteration", 3, NULL, run_count, verify_count, NULL},
    {"wrong", "verification fails", 1, NULL, run_count, verify_wrong, NULL},
    {"skip", "cannot run here", 1, setup_skip, run_count, verify_count, NULL},
    {"hang", "never finishes", 1, NULL, run_hang, NULL, NULL},
    {"crash", "aborts", 1, NULL, run_crash, NULL, NULL},
};

int main(int argc, char **argv)
{
    return lt_main(argc, argv, "probe", CASES, LT_COUNT(CASES));
}

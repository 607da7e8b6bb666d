/* The C timing harness: argument parsing, pinning, clock checks, calibration,
 * the sample loop and JSON-lines output of the kernel protocol. */
#define _GNU_SOURCE
#include "harness.h"
#include "common.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

int lt_fail(lt_ctx *ctx, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->message, sizeof ctx->message, fmt, ap);
    va_end(ap);
    return code;
}

static void report_problem(const char *key, const char *case_name, const char *msg)
{
    printf("{\"case\":");
    lt_json_string(stdout, case_name);
    printf(",\"%s\":", key);
    lt_json_string(stdout, msg);
    printf("}\n");
    fflush(stdout);
    fprintf(stderr, "%s: %s: %s\n", case_name, key, msg);
}

/* --- the built-in empty case: the harness's own overhead per iteration --- */

static uint64_t empty_counter;

static int empty_run(lt_ctx *ctx, uint64_t iters)
{
    (void)ctx;
    for (uint64_t i = 0; i < iters; i++) {
        /* The barrier stops the compiler from folding the loop away. */
        __asm__ volatile("" ::: "memory");
        empty_counter++;
    }
    return LT_OK;
}

static int empty_verify(lt_ctx *ctx)
{
    if (empty_counter != ctx->done_iters)
        return lt_fail(ctx, LT_FAIL, "empty loop ran %llu iterations, expected %llu",
                       (unsigned long long)empty_counter,
                       (unsigned long long)ctx->done_iters);
    return LT_OK;
}

static const lt_case empty_case = {
    "empty", "the harness loop with no work: its overhead per iteration", 1,
    NULL, empty_run, empty_verify, NULL,
};

/* --- clock checks --- */

static uint64_t clock_resolution_ns(void)
{
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) != 0)
        return 0;
    return (uint64_t)res.tv_sec * 1000000000u + (uint64_t)res.tv_nsec;
}

/* The smallest step between two consecutive readings: what one reading costs.
   The minimum is taken without a branch: how often a smaller step turns up depends
   on timing, and under callgrind every taken branch would be an instruction more in
   one run than in the other (the difference method would see it). */
static uint64_t clock_overhead_ns(void)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 2000; i++) {
        uint64_t a = lt_now_ns(), b = lt_now_ns();
        uint64_t step = b - a;
        uint64_t smaller = -(uint64_t)(step < best);   /* all ones if step < best */
        best = (step & smaller) | (best & ~smaller);
    }
    return best;
}

/* --- options --- */

typedef struct options {
    const char *case_name;
    const char *dir;
    long samples;
    uint64_t min_sample_ns;
    uint64_t iters; /* 0: calibrate */
    int cpu;        /* -1: do not pin */
    int raise_priority;
    int list;
} options;

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *out = v;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){NULL, NULL, 5, 10000000u, 0, -1, 0, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n;
        if (strcmp(a, "--list") == 0) { o->list = 1; continue; }
        if (strcmp(a, "--raise-priority") == 0) { o->raise_priority = 1; continue; }
        if (!v) { fprintf(stderr, "missing value for %s\n", a); return -1; }
        i++;
        if (strcmp(a, "--case") == 0) o->case_name = v;
        else if (strcmp(a, "--dir") == 0) o->dir = v;
        else if (strcmp(a, "--samples") == 0 && parse_u64(v, &n) == 0 && n > 0) o->samples = (long)n;
        else if (strcmp(a, "--min-sample-ns") == 0 && parse_u64(v, &n) == 0) o->min_sample_ns = n;
        else if (strcmp(a, "--iters") == 0 && parse_u64(v, &n) == 0) o->iters = n;
        else if (strcmp(a, "--cpu") == 0 && parse_u64(v, &n) == 0) o->cpu = (int)n;
        else { fprintf(stderr, "bad option or value: %s %s\n", a, v); return -1; }
    }
    return 0;
}

/* --- one timed sample --- */

typedef struct sample {
    uint64_t ns;
    long csw_vol, csw_invol;
    long minflt;   /* page faults inside the timed region: first touches that setup missed */
} sample;

static int timed(const lt_case *c, lt_ctx *ctx, uint64_t iters, sample *s)
{
    struct rusage r0, r1;
    getrusage(RUSAGE_THREAD, &r0);
    uint64_t t0 = lt_now_ns();
    int rc = c->run(ctx, iters);
    uint64_t t1 = lt_now_ns();
    getrusage(RUSAGE_THREAD, &r1);
    ctx->done_iters += iters;
    s->ns = t1 - t0;
    s->csw_vol = r1.ru_nvcsw - r0.ru_nvcsw;
    s->csw_invol = r1.ru_nivcsw - r0.ru_nivcsw;
    s->minflt = r1.ru_minflt - r0.ru_minflt;
    if (rc != LT_OK)
        return rc;
    return c->verify ? c->verify(ctx) : LT_OK;
}

/* Grows the iteration count until one sample lasts at least min_ns. */
static int calibrate(const lt_case *c, lt_ctx *ctx, uint64_t min_ns, uint64_t *iters_out)
{
    uint64_t iters = 1;
    for (;;) {
        sample s;
        int rc = timed(c, ctx, iters, &s);
        if (rc != LT_OK)
            return rc;
        if (s.ns >= min_ns)
            break;
        double factor = s.ns ? 1.25 * (double)min_ns / (double)s.ns : 100.0;
        if (factor < 2.0) factor = 2.0;
        if (factor > 100.0) factor = 100.0;
        if (iters > UINT64_MAX / 128)
            return lt_fail(ctx, LT_FAIL, "calibration overflow: the case does no measurable work");
        iters = (uint64_t)((double)iters * factor) + 1;
    }
    *iters_out = iters;
    return LT_OK;
}

int lt_main(int argc, char **argv, const char *kernel, const lt_case *cases, size_t ncases)
{
    options o;
    if (parse_options(argc, argv, &o) != 0)
        return 2;
    if (o.list) {
        printf("{\"case\":\"empty\",\"ops_per_iter\":1}\n");
        for (size_t i = 0; i < ncases; i++)
            printf("{\"case\":\"%s\",\"ops_per_iter\":%u}\n", cases[i].name, cases[i].ops_per_iter);
        return 0;
    }
    if (!o.case_name) {
        fprintf(stderr, "usage: %s --case NAME [--samples S] [--min-sample-ns T] [--iters N] "
                        "[--dir DIR] [--cpu N] [--raise-priority] | --list\n", argv[0]);
        return 2;
    }
    const lt_case *c = strcmp(o.case_name, "empty") == 0 ? &empty_case : NULL;
    for (size_t i = 0; !c && i < ncases; i++)
        if (strcmp(cases[i].name, o.case_name) == 0)
            c = &cases[i];
    if (!c) {
        report_problem("error", o.case_name, "no such case in this kernel");
        return LT_FAIL;
    }

    char pin_why[128], prio[128];
    const char *pinned = lt_pin(o.cpu, pin_why, sizeof pin_why);
    lt_priority(o.raise_priority, prio, sizeof prio);

    lt_ctx ctx = {0};
    ctx.dir = o.dir;
    ctx.case_name = c->name;
    int rc = c->setup ? c->setup(&ctx) : LT_OK;
    if (rc != LT_OK) {
        report_problem(rc == LT_SKIP ? "skip" : "error", c->name, ctx.message);
        return rc;
    }

    printf("{\"kernel\":");
    lt_json_string(stdout, kernel);
    printf(",\"case\":");
    lt_json_string(stdout, c->name);
    printf(",\"description\":");
    lt_json_string(stdout, c->description);
    printf(",\"language\":\"c\",\"compiler\":");
    lt_json_string(stdout, __VERSION__);
#ifdef __GLIBC__
    printf(",\"runtime\":\"glibc %s\"", gnu_get_libc_version());
#else
    printf(",\"runtime\":\"non-glibc libc\"");
#endif
    printf(",\"clock\":\"CLOCK_MONOTONIC\",\"clock_res_ns\":%llu,\"clock_overhead_ns\":%llu",
           (unsigned long long)clock_resolution_ns(), (unsigned long long)clock_overhead_ns());
    if (ctx.bytes_per_op)
        printf(",\"bytes_per_op\":%llu", (unsigned long long)ctx.bytes_per_op);
    printf(",\"ops_per_iter\":%u,\"pinned\":%s,\"pin\":", c->ops_per_iter, pinned);
    lt_json_string(stdout, pin_why);
    printf(",\"priority\":");
    lt_json_string(stdout, prio);
    printf("}\n");
    fflush(stdout);

    uint64_t iters = o.iters;
    if (iters == 0)
        rc = calibrate(c, &ctx, o.min_sample_ns, &iters);
    for (long i = 0; rc == LT_OK && i < o.samples; i++) {
        sample s;
        rc = timed(c, &ctx, iters, &s);
        if (rc != LT_OK)
            break;
        printf("{\"case\":");
        lt_json_string(stdout, c->name);
        printf(",\"iters\":%llu,\"ops\":%llu,\"ns\":%llu,\"csw_vol\":%ld,\"csw_invol\":%ld,\"minflt\":%ld}\n",
               (unsigned long long)iters, (unsigned long long)iters * c->ops_per_iter,
               (unsigned long long)s.ns, s.csw_vol, s.csw_invol, s.minflt);
        fflush(stdout);
    }
    if (rc != LT_OK)
        report_problem(rc == LT_SKIP ? "skip" : "error", c->name, ctx.message);
    if (c->teardown)
        c->teardown(&ctx);
    return rc;
}

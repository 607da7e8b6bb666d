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
#include <sys/stat.h>
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
    const char *with_name;  /* --with: a second case whose samples alternate with the first's */
    const char *dir;
    long samples;
    uint64_t min_sample_ns;
    uint64_t iters; /* 0: calibrate */
    uint64_t with_iters; /* the second case's; 0: calibrate */
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
    *o = (options){NULL, NULL, NULL, 5, 10000000u, 0, 0, -1, 0, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n;
        if (strcmp(a, "--list") == 0) { o->list = 1; continue; }
        if (strcmp(a, "--raise-priority") == 0) { o->raise_priority = 1; continue; }
        if (!v) { fprintf(stderr, "missing value for %s\n", a); return -1; }
        i++;
        if (strcmp(a, "--case") == 0) o->case_name = v;
        else if (strcmp(a, "--with") == 0) o->with_name = v;
        else if (strcmp(a, "--with-iters") == 0 && parse_u64(v, &n) == 0) o->with_iters = n;
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

/* --- one case of the process, and a second one alternating with it (--with) --- */

/* A case as this process runs it: its context and iteration count, and the working directory
   its setup left (a case may chdir into its own directory; with two cases in one process each
   gets its own back before its samples). */
typedef struct arm {
    const lt_case *c;
    lt_ctx ctx;
    uint64_t iters;
    char cwd[4096];
} arm;

static const lt_case *find_case(const char *name, const lt_case *cases, size_t ncases)
{
    if (strcmp(name, "empty") == 0)
        return &empty_case;
    for (size_t i = 0; i < ncases; i++)
        if (strcmp(cases[i].name, name) == 0)
            return &cases[i];
    return NULL;
}

static int set_up(arm *a, const char *dir)
{
    a->ctx.dir = dir;
    a->ctx.case_name = a->c->name;
    int rc = a->c->setup ? a->c->setup(&a->ctx) : LT_OK;
    if (rc == LT_OK && !getcwd(a->cwd, sizeof a->cwd))
        rc = lt_fail(&a->ctx, LT_FAIL, "getcwd after setup: %s", strerror(errno));
    return rc;
}

/* Before a sample of a: its own working directory, outside the timed region. */
static int enter(arm *a)
{
    if (chdir(a->cwd) != 0)
        return lt_fail(&a->ctx, LT_FAIL, "chdir %s: %s", a->cwd, strerror(errno));
    return LT_OK;
}

static int one_sample(arm *a, int alternating)
{
    sample s;
    int rc = alternating ? enter(a) : LT_OK;
    if (rc == LT_OK)
        rc = timed(a->c, &a->ctx, a->iters, &s);
    if (rc != LT_OK)
        return rc;
    printf("{\"case\":");
    lt_json_string(stdout, a->c->name);
    printf(",\"iters\":%llu,\"ops\":%llu,\"ns\":%llu,\"csw_vol\":%ld,\"csw_invol\":%ld,\"minflt\":%ld}\n",
           (unsigned long long)a->iters, (unsigned long long)a->iters * a->c->ops_per_iter,
           (unsigned long long)s.ns, s.csw_vol, s.csw_invol, s.minflt);
    fflush(stdout);
    return LT_OK;
}

static void describe(const char *kernel, const arm *a, const arm *with, const char *pinned,
                     const char *pin_why, const char *prio)
{
    const lt_case *c = a->c;
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
    if (a->ctx.bytes_per_op)
        printf(",\"bytes_per_op\":%llu", (unsigned long long)a->ctx.bytes_per_op);
    printf(",\"ops_per_iter\":%u,\"pinned\":%s,\"pin\":", c->ops_per_iter, pinned);
    lt_json_string(stdout, pin_why);
    printf(",\"priority\":");
    lt_json_string(stdout, prio);
    if (with) {
        printf(",\"with\":");
        lt_json_string(stdout, with->c->name);
    }
    printf("}\n");
    fflush(stdout);
}

/* The second case's private directory: a fresh one inside the first's, so that the two never
   meet in one directory (both may create the same names). */
static int with_dir(const char *dir, char *out, size_t n, lt_ctx *ctx)
{
    if (!dir)
        return LT_OK;
    if (snprintf(out, n, "%s/with", dir) >= (int)n)
        return lt_fail(ctx, LT_FAIL, "--dir is too long");
    if (mkdir(out, 0700) != 0)
        return lt_fail(ctx, LT_FAIL, "mkdir %s: %s", out, strerror(errno));
    return LT_OK;
}

/* What went wrong, for the first case's error or skip line: the second case's message says
   which case it is ("--with NAME: ..."). */
static void report_arm(int rc, const arm *a, const arm *failed)
{
    char message[sizeof failed->ctx.message + 160];
    if (failed == a)
        snprintf(message, sizeof message, "%s", a->ctx.message);
    else
        snprintf(message, sizeof message, "--with %.128s: %s", failed->c->name, failed->ctx.message);
    report_problem(rc == LT_SKIP ? "skip" : "error", a->c->name, message);
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
        fprintf(stderr, "usage: %s --case NAME [--with NAME [--with-iters N]] [--samples S] [--min-sample-ns T] "
                        "[--iters N] [--dir DIR] [--cpu N] [--raise-priority] | --list\n", argv[0]);
        return 2;
    }
    static arm a, w;
    a.c = find_case(o.case_name, cases, ncases);
    if (!a.c) {
        report_problem("error", o.case_name, "no such case in this kernel");
        return LT_FAIL;
    }
    w.c = o.with_name ? find_case(o.with_name, cases, ncases) : NULL;
    if (o.with_name && (!w.c || w.c == a.c)) {
        report_problem("error", o.case_name, w.c ? "--with names the case itself" : "--with: no such case in this kernel");
        return LT_FAIL;
    }
    arm *with = w.c ? &w : NULL;

    char pin_why[128], prio[128];
    const char *pinned = lt_pin(o.cpu, pin_why, sizeof pin_why);
    lt_priority(o.raise_priority, prio, sizeof prio);

    char start_cwd[4096], wdir[4096];
    int rc = getcwd(start_cwd, sizeof start_cwd) ? LT_OK : lt_fail(&a.ctx, LT_FAIL, "getcwd: %s", strerror(errno));
    if (rc == LT_OK)
        rc = set_up(&a, o.dir);
    arm *failed = &a;
    if (rc == LT_OK && with) {
        /* Back where the process started first: a relative --dir names the same place for both. */
        failed = with;
        if (chdir(start_cwd) != 0)
            rc = lt_fail(&w.ctx, LT_FAIL, "chdir %s: %s", start_cwd, strerror(errno));
        if (rc == LT_OK)
            rc = with_dir(o.dir, wdir, sizeof wdir, &w.ctx);
        if (rc == LT_OK)
            rc = set_up(&w, o.dir ? wdir : NULL);
    }
    if (rc != LT_OK) {
        report_arm(rc, &a, failed);
        return rc;
    }

    describe(kernel, &a, with, pinned, pin_why, prio);

    a.iters = o.iters;
    if (a.iters == 0)
        rc = (with ? enter(&a) : LT_OK) == LT_OK ? calibrate(a.c, &a.ctx, o.min_sample_ns, &a.iters) : LT_FAIL;
    if (rc == LT_OK && with) {
        failed = with;
        w.iters = o.with_iters;
        if (w.iters == 0)
            rc = enter(&w) == LT_OK ? calibrate(w.c, &w.ctx, o.min_sample_ns, &w.iters) : LT_FAIL;
    }
    /* Alternating, the pairs run A B, B A, A B, ...: a drift inside the process falls on both alike. */
    for (long i = 0; rc == LT_OK && i < o.samples; i++) {
        arm *first = with && i % 2 ? with : &a, *second = first == &a ? with : &a;
        failed = first;
        rc = one_sample(first, with != NULL);
        if (rc == LT_OK && second) {
            failed = second;
            rc = one_sample(second, 1);
        }
    }
    if (rc != LT_OK)
        report_arm(rc, &a, failed);
    if (with && w.c->teardown)
        w.c->teardown(&w.ctx);
    if (a.c->teardown)
        a.c->teardown(&a.ctx);
    return rc;
}

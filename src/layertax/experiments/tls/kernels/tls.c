/* tls: what reaching per-thread (or locked global) runtime state costs.
 *
 * Two families of cases. State: rand() (glibc keeps one generator behind a lock),
 * rand_r and random_r (the caller holds the state), errno (thread-local, reached through
 * __errno_location), against a plain xorshift with no lookup at all; with one thread,
 * with an idle second thread alive, and with one thread per CPU calling at once.
 * Models: a thread-local counter bumped once per call through each x86-64 TLS access
 * model, against a plain global (no TLS): local-exec (in this program), initial-exec,
 * global-dynamic and TLS descriptors (each in a dlopened library built that way; the
 * experiment checks each library's relocations), pthread_getspecific, and a C++
 * thread_local with a constructor (reached through its wrapper function).
 *
 * Built twice: dynamically and with -static (-DLT_STATIC: case names end in "-static",
 * and the dlopen cases are left out). Every case checks its final value.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#ifdef LT_STATIC
#define NAME(n) n "-static"
#define KERNEL "tls-c-static"
#else
#define NAME(n) n
#define KERNEL "tls-c"
#endif

#define SEED 20051205u
#define MAX_THREADS 64

void tl_ctor_run(uint64_t n);    /* tl_use.cpp */
uint64_t tl_ctor_get(void);

/* ---- running a loop on every CPU at once ---- */

typedef struct {
    void (*fn)(void *arg, uint64_t n);
    void *arg;
    uint64_t n;
    int cpu;                /* where this worker runs: a CPU other than the main thread's */
} job;

static void *worker(void *p)
{
    job *j = p;
    /* The harness pinned the process to one CPU and threads inherit that; each worker
     * takes a CPU of its own, so the threads really run at once instead of queueing. */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(j->cpu, &one);
    sched_setaffinity(0, sizeof one, &one);
    j->fn(j->arg, j->n);
    return NULL;
}

static int nthreads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 2 ? 2 : (n > MAX_THREADS ? MAX_THREADS : (int)n);
}

/* Runs fn(args[i], n) on t threads at once (this one included); 0 on success. */
static int run_parallel(int t, void (*fn)(void *, uint64_t), void *args, size_t arg_size, uint64_t n)
{
    pthread_t tid[MAX_THREADS];
    job jobs[MAX_THREADS];
    int me = sched_getcpu();
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    for (int i = 1; i < t; i++) {
        jobs[i] = (job){fn, (char *)args + i * arg_size, n, (int)((me + i) % (ncpu > 0 ? ncpu : 1))};
        if (pthread_create(&tid[i], NULL, worker, &jobs[i]) != 0) {
            while (--i >= 1)
                pthread_join(tid[i], NULL);
            return -1;
        }
    }
    fn(args, n);
    for (int i = 1; i < t; i++)
        pthread_join(tid[i], NULL);
    return 0;
}

/* ---- the state family ---- */

typedef struct {
    uint64_t sum;
    unsigned seed;          /* rand_r */
    struct random_data rd;  /* random_r */
    char statebuf[128];
    char pad[64];           /* keep threads' sums on separate cache lines */
} slot;

typedef struct {
    int threads;
    slot slots[MAX_THREADS];
    /* the reference: replays the same generator to check what the case summed */
    struct random_data ref;
    char ref_state[128];
    unsigned ref_seeds[MAX_THREADS];
    uint64_t ref_sum, checked_iters;
    uint64_t x;             /* xorshift */
    uint64_t count;         /* errno: iterations run */
    int idle_pipe[2];
    pthread_t idle;
    int idle_alive;
} state_ctx;

static void *idle_thread(void *p)
{
    char c;
    while (read(*(int *)p, &c, 1) < 0 && errno == EINTR) {}
    return NULL;
}

static int state_setup(lt_ctx *ctx)
{
    state_ctx *s = calloc(1, sizeof *s);
    if (!s)
        return lt_fail(ctx, LT_FAIL, "out of memory");
    ctx->state = s;
    const char *c = ctx->case_name;
    s->threads = strstr(c, "-threads") ? nthreads() : 1;
    s->x = 88172645463325252ull;
    srand(SEED);
    if (initstate_r(SEED, s->ref_state, sizeof s->ref_state, &s->ref) != 0)
        return lt_fail(ctx, LT_FAIL, "initstate_r: %s", strerror(errno));
    for (int i = 0; i < s->threads; i++) {
        s->slots[i].seed = SEED + i;
        s->ref_seeds[i] = SEED + i;
        if (initstate_r(SEED, s->slots[i].statebuf, sizeof s->slots[i].statebuf, &s->slots[i].rd) != 0)
            return lt_fail(ctx, LT_FAIL, "initstate_r: %s", strerror(errno));
    }
    if (strstr(c, "idle-thread")) {
        if (pipe(s->idle_pipe) != 0 || pthread_create(&s->idle, NULL, idle_thread, &s->idle_pipe[0]) != 0)
            return lt_fail(ctx, LT_FAIL, "could not start the idle thread");
        s->idle_alive = 1;
    }
    return LT_OK;
}

static void state_teardown(lt_ctx *ctx)
{
    state_ctx *s = ctx->state;
    if (!s)
        return;
    if (s->idle_alive) {
        (void)!write(s->idle_pipe[1], "x", 1);
        pthread_join(s->idle, NULL);
        close(s->idle_pipe[0]);
        close(s->idle_pipe[1]);
    }
    free(s);
    ctx->state = NULL;
}

static void rand_loop(void *arg, uint64_t n)
{
    slot *sl = arg;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++)
        sum += (unsigned)rand();
    sl->sum += sum;
}

static void rand_r_loop(void *arg, uint64_t n)
{
    slot *sl = arg;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++)
        sum += (unsigned)rand_r(&sl->seed);
    sl->sum += sum;
}

static void random_r_loop(void *arg, uint64_t n)
{
    slot *sl = arg;
    uint64_t sum = 0;
    int32_t out;
    for (uint64_t i = 0; i < n; i++) {
        random_r(&sl->rd, &out);
        sum += (unsigned)out;
    }
    sl->sum += sum;
}

static int run_rand(lt_ctx *ctx, uint64_t iters)
{
    state_ctx *s = ctx->state;
    return run_parallel(s->threads, rand_loop, s->slots, sizeof(slot), iters) ? lt_fail(ctx, LT_FAIL, "pthread_create failed") : LT_OK;
}

static int run_rand_r(lt_ctx *ctx, uint64_t iters)
{
    state_ctx *s = ctx->state;
    return run_parallel(s->threads, rand_r_loop, s->slots, sizeof(slot), iters) ? lt_fail(ctx, LT_FAIL, "pthread_create failed") : LT_OK;
}

static int run_random_r(lt_ctx *ctx, uint64_t iters)
{
    random_r_loop(((state_ctx *)ctx->state)->slots, iters);
    return LT_OK;
}

static uint64_t total(const state_ctx *s)
{
    uint64_t t = 0;
    for (int i = 0; i < s->threads; i++)
        t += s->slots[i].sum;
    return t;
}

/* rand and random_r draw from one glibc generator (TYPE_3, seeded SEED): whatever the
 * threads' interleaving, together they drew its first threads x iterations values. */
static int verify_shared_generator(lt_ctx *ctx)
{
    state_ctx *s = ctx->state;
    uint64_t want = ctx->done_iters * (uint64_t)s->threads;
    int32_t out;
    for (; s->checked_iters < want; s->checked_iters++) {
        random_r(&s->ref, &out);
        s->ref_sum += (unsigned)out;
    }
    if (s->ref_sum != total(s))
        return lt_fail(ctx, LT_FAIL, "sum of outputs %llu, the generator's first %llu values sum to %llu",
                       (unsigned long long)total(s), (unsigned long long)want, (unsigned long long)s->ref_sum);
    return LT_OK;
}

static int verify_rand_r(lt_ctx *ctx)
{
    state_ctx *s = ctx->state;
    uint64_t steps = ctx->done_iters - s->checked_iters;
    for (int t = 0; t < s->threads; t++)
        for (uint64_t i = 0; i < steps; i++)
            s->ref_sum += (unsigned)rand_r(&s->ref_seeds[t]);
    s->checked_iters = ctx->done_iters;
    if (s->ref_sum != total(s))
        return lt_fail(ctx, LT_FAIL, "rand_r sums differ from a replay of the same seeds");
    return LT_OK;
}

static int run_xorshift(lt_ctx *ctx, uint64_t iters)
{
    state_ctx *s = ctx->state;
    uint64_t x = s->x, sum = 0;
    for (uint64_t i = 0; i < iters; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sum += (uint32_t)x;
        __asm__ volatile("" : "+r"(x));
    }
    s->x = x;
    s->slots[0].sum += sum;
    return LT_OK;
}

static int verify_xorshift(lt_ctx *ctx)
{
    state_ctx *s = ctx->state;
    uint64_t x = 88172645463325252ull, sum = 0;
    for (uint64_t i = 0; i < ctx->done_iters; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        sum += (uint32_t)x;
    }
    return (x == s->x && sum == s->slots[0].sum) ? LT_OK : lt_fail(ctx, LT_FAIL, "xorshift state differs from a replay");
}

/* One call per access, as the models' cases do: errno's address comes from
 * __errno_location(), which GCC may otherwise compute once for the whole loop. */
static __attribute__((noinline)) int errno_roundtrip(int v)
{
    errno = v;
    __asm__ volatile("" ::: "memory");
    return errno;
}

static int run_errno(lt_ctx *ctx, uint64_t iters)
{
    state_ctx *s = ctx->state;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < iters; i++) {
        sum += (unsigned)errno_roundtrip((int)(i & 0xffff));
        __asm__ volatile("" ::: "memory");
    }
    s->slots[0].sum += sum;
    s->count += iters;
    /* what was written, in closed form: every full block of 65536 sums 0..65535 */
    s->ref_sum += (iters >> 16) * (65535ull * 65536ull / 2) + (iters & 0xffff) * ((iters & 0xffff) - 1) / 2;
    return LT_OK;
}

static int verify_errno(lt_ctx *ctx)
{
    state_ctx *s = ctx->state;
    if (s->count != ctx->done_iters || s->slots[0].sum != s->ref_sum)
        return lt_fail(ctx, LT_FAIL, "errno read back %llu over %llu iterations, %llu was written",
                       (unsigned long long)s->slots[0].sum, (unsigned long long)s->count,
                       (unsigned long long)s->ref_sum);
    return LT_OK;
}

/* ---- the models family: one thread-local counter, bumped once per call ---- */

uint64_t global_counter;                 /* the floor: no TLS at all */
static __thread uint64_t le_counter;     /* defined in this program: local-exec */

static __attribute__((noinline)) void bump_global(void) { global_counter++; }
static __attribute__((noinline)) void bump_le(void) { le_counter++; }
/* The same global reached through a register (base + 0), not a RIP-relative address: on some
 * CPUs the addressing form alone changes what a read-modify-write of memory costs in a loop
 * (docs/guide/tls.md), so the floor is measured both ways. */
static __attribute__((noinline)) void bump_through(uint64_t *counter) { (*counter)++; }

typedef struct {
    void *lib;                           /* dlopened model library */
    void (*run)(uint64_t);
    uint64_t (*get)(void);
    pthread_key_t key;
    int has_key;
    uint64_t start;                      /* the counter's value at setup */
    uint64_t *specific;
} model_ctx;

static const char *model_env(const char *case_name)
{
    if (!strncmp(case_name, "tls-ie", 6)) return "LAYERTAX_TLS_LIB_IE";
    if (!strncmp(case_name, "tls-gd", 6)) return "LAYERTAX_TLS_LIB_GD";
    if (!strncmp(case_name, "tls-desc-dynamic", 16)) return "LAYERTAX_TLS_LIB_DESC_DYN";
    if (!strncmp(case_name, "tls-desc", 8)) return "LAYERTAX_TLS_LIB_DESC";
    return NULL;
}

static int model_setup(lt_ctx *ctx)
{
    model_ctx *m = calloc(1, sizeof *m);
    if (!m)
        return lt_fail(ctx, LT_FAIL, "out of memory");
    ctx->state = m;
    const char *c = ctx->case_name;
    const char *var = model_env(c);
    if (var) {
        const char *path = getenv(var);
        if (!path || !*path)
            return lt_fail(ctx, LT_FAIL, "%s is not set: the tls experiment builds and checks the library", var);
        if (path[0] == '!')   /* the library failed its access-model check: the reason follows */
            return lt_fail(ctx, LT_FAIL, "%s", path + 1);
        m->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!m->lib)
            return lt_fail(ctx, LT_FAIL, "dlopen: %s", dlerror());
        m->run = (void (*)(uint64_t))dlsym(m->lib, "model_run");
        m->get = (uint64_t (*)(void))dlsym(m->lib, "model_get");
        if (!m->run || !m->get)
            return lt_fail(ctx, LT_FAIL, "the model library lacks model_run/model_get");
        m->start = m->get();
        /* Which TLS did the loader give the library? x86-64 keeps static TLS just below the
         * thread pointer (TLS variant II); a dynamic block is malloc'd elsewhere. The two
         * TLSDESC cases must each time the path they name. */
        void *(*addr)(void) = (void *(*)(void))dlsym(m->lib, "model_addr");
        if (!addr)
            return lt_fail(ctx, LT_FAIL, "the model library lacks model_addr");
        uintptr_t tp = (uintptr_t)__builtin_thread_pointer(), at = (uintptr_t)addr();
        int in_static = at < tp && tp - at < ((uintptr_t)1 << 20);
        if (!strcmp(c, "tls-desc-dynamic") && in_static)
            return lt_fail(ctx, LT_FAIL, "the library got static TLS, so its descriptors take the fast path, "
                           "not _dl_tlsdesc_dynamic");
        if (!strcmp(c, "tls-desc") && !in_static)
            return lt_fail(ctx, LT_FAIL, "the library got dynamic TLS, not the static-TLS fast path it claims");
    } else if (!strncmp(c, "pthread-getspecific", 19)) {
        m->specific = calloc(1, sizeof *m->specific);
        if (!m->specific || pthread_key_create(&m->key, NULL) != 0 || pthread_setspecific(m->key, m->specific) != 0)
            return lt_fail(ctx, LT_FAIL, "pthread_key_create/setspecific failed");
        m->has_key = 1;
    } else if (!strncmp(c, "tls-le", 6)) {
        m->start = le_counter;
    } else if (!strncmp(c, "global-var", 10)) {
        m->start = global_counter;
    } else {
        m->start = tl_ctor_get();
    }
    return LT_OK;
}

static void model_teardown(lt_ctx *ctx)
{
    model_ctx *m = ctx->state;
    if (!m)
        return;
    if (m->has_key)
        pthread_key_delete(m->key);
    free(m->specific);
    if (m->lib)
        dlclose(m->lib);
    free(m);
    ctx->state = NULL;
}

static int run_global(lt_ctx *ctx, uint64_t iters)
{
    (void)ctx;
    for (uint64_t i = 0; i < iters; i++) {
        bump_global();
        __asm__ volatile("" ::: "memory");
    }
    return LT_OK;
}

static int run_global_ptr(lt_ctx *ctx, uint64_t iters)
{
    (void)ctx;
    uint64_t *counter = &global_counter;
    for (uint64_t i = 0; i < iters; i++) {
        bump_through(counter);
        __asm__ volatile("" : "+r"(counter) : : "memory");   /* the pointer stays in a register, unknown */
    }
    return LT_OK;
}

static int run_le(lt_ctx *ctx, uint64_t iters)
{
    (void)ctx;
    for (uint64_t i = 0; i < iters; i++) {
        bump_le();
        __asm__ volatile("" ::: "memory");
    }
    return LT_OK;
}

static int run_lib(lt_ctx *ctx, uint64_t iters)
{
    ((model_ctx *)ctx->state)->run(iters);
    return LT_OK;
}

static __attribute__((noinline)) void bump_specific(pthread_key_t key)
{
    (*(uint64_t *)pthread_getspecific(key))++;
}

static int run_specific(lt_ctx *ctx, uint64_t iters)
{
    pthread_key_t key = ((model_ctx *)ctx->state)->key;
    for (uint64_t i = 0; i < iters; i++) {
        bump_specific(key);
        __asm__ volatile("" ::: "memory");
    }
    return LT_OK;
}

static int run_tl_ctor(lt_ctx *ctx, uint64_t iters)
{
    (void)ctx;
    tl_ctor_run(iters);
    return LT_OK;
}

static int verify_model(lt_ctx *ctx)
{
    model_ctx *m = ctx->state;
    const char *c = ctx->case_name;
    uint64_t now;
    if (m->lib)
        now = m->get();
    else if (m->has_key)
        now = *m->specific;
    else if (!strncmp(c, "tls-le", 6))
        now = le_counter;
    else if (!strncmp(c, "global-var", 10))
        now = global_counter;
    else
        now = tl_ctor_get();
    if (now - m->start != ctx->done_iters)
        return lt_fail(ctx, LT_FAIL, "the counter moved by %llu in %llu iterations",
                       (unsigned long long)(now - m->start), (unsigned long long)ctx->done_iters);
    return LT_OK;
}

#define STATE(name, desc, run, verify) {NAME(name), desc, 1, state_setup, run, verify, state_teardown}
#define MODEL(name, desc, run) {NAME(name), desc, 1, model_setup, run, verify_model, model_teardown}

static const lt_case CASES[] = {
    STATE("xorshift", "xorshift64, state in a register", run_xorshift, verify_xorshift),
    STATE("rand", "rand(), one thread", run_rand, verify_shared_generator),
    STATE("rand-idle-thread", "rand(), an idle second thread alive", run_rand, verify_shared_generator),
    STATE("rand-threads", "rand() on every CPU at once", run_rand, verify_shared_generator),
    STATE("rand-r", "rand_r(&seed)", run_rand_r, verify_rand_r),
    STATE("rand-r-threads", "rand_r on every CPU at once", run_rand_r, verify_rand_r),
    STATE("random-r", "random_r(&buf, &out)", run_random_r, verify_shared_generator),
    STATE("errno", "errno written and read back", run_errno, verify_errno),
    MODEL("global-var", "a plain global (no TLS)", run_global),
    MODEL("global-var-ptr", "a plain global through a pointer in a register", run_global_ptr),
    MODEL("tls-le", "__thread in the program: local-exec", run_le),
#ifndef LT_STATIC
    MODEL("tls-ie", "__thread in a library: initial-exec", run_lib),
    MODEL("tls-gd", "dlopened: global-dynamic, __tls_get_addr", run_lib),
    MODEL("tls-desc", "dlopened: TLS descriptors (gnu2)", run_lib),
    MODEL("tls-desc-dynamic", "dlopened: TLS descriptors, dynamic TLS (_dl_tlsdesc_dynamic)", run_lib),
#endif
    MODEL("pthread-getspecific", "pthread_getspecific(key)", run_specific),
    MODEL("cpp-thread-local-ctor", "C++ thread_local with a constructor", run_tl_ctor),
};

int main(int argc, char **argv)
{
    return lt_main(argc, argv, KERNEL, CASES, LT_COUNT(CASES));
}

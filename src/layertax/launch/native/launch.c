/* The launch timer: starts programs (child.h) and times how long they
 * take to reach main and to exit.
 *
 * Usage: launch --spec FILE [--runs N] [--warmup W] [--warmup-ms M] [--seed S]
 *               [--timeout-ms T] [--cpu C] [--stay] [--raise-priority] [--primers P]
 *               [--no-dodge] [--out FILE]
 *        launch --tsc-rate
 *
 * The spec lists the variants to launch, one directive per line:
 *     variant NAME          starts a variant
 *     arg ARG               appends ARG to its argv (the first is the program)
 *     env KEY=VALUE         sets KEY in its environment (added to ours)
 *     ignore-status 1       a non-zero exit status is not a failure
 *     until-output 1        also time its first output (below)
 *
 * In each round every live variant is launched once, in a freshly shuffled order,
 * so drift in the machine hits all variants alike.
 *
 * Warm-up rounds (round -1, not measured) come first: at least W of them, and more
 * until M ms have passed since the first began. A run's first launches start slower
 * than later ones for a time rather than a count (docs/method/launch-timer.md), so a
 * count of rounds alone leaves a short program's first measured ones in that slope. A "warmed" line says how many rounds it took.
 *
 * A launch that follows another variant's is primed: the same variant is launched
 * PRIMERS times first, untimed (only a failure is reported). A program starts slower
 * right after a larger one than right after itself (the caches and pages the other left;
 * docs/method/launch-timer.md), so unprimed, alternation would time each variant in the wake of
 * the others, a state hyperfine's runs, one command at a time, never see.
 * --primers 0 shows it.
 *
 * Pinned, the timer first learns its CPU's periodic interruptions (the kernel's tick and
 * any other series: ticks.h) and starts each timed launch clear of them, when the launch
 * (as long as the variant's latest ones, and a quarter more) fits between two: no tick
 * then lands inside it. A stamped program that runs on past the period (python3: main in
 * 0.8 ms, exit in 8) is started clear until main when that much fits: spawn->main, its
 * figure, then meets none; what runs after main may. The timer waits for room at most
 * 0.5 ms: a launch after a longer pause runs slower (ticks.h). --no-dodge starts every launch at
 * once, as hyperfine does. Every launch's line says whether it was dodged, until what
 * ("dodged_until": exit or main), and how long it had before the next interruption
 * ("clear_ns"), so a result can tell the launches one landed in.
 *
 * The child gets a pipe as file descriptor STAMP_FD (named in LAYERTAX_STAMP_FD); a
 * stamped program writes one 8-byte CLOCK_MONOTONIC reading there at the top of main
 * (or a preloaded stamp library does, as main is called). A second pipe, PHASE_FD
 * (LAYERTAX_PHASE_FD), takes 16-byte (tag, ns) records of the stages before main (see
 * stamp.c and first.c). stdin, stdout and stderr are /dev/null; for a variant timed
 * until its output, stdout and stderr are one pipe whose reading end the kernel signals
 * (O_ASYNC: SIGIO) when bytes arrive, and "output_ns" is when the timer, waiting for
 * SIGCHLD or SIGIO, first found bytes there: the first byte the program wrote to either,
 * plus the timer's wake-up. The pipe is drained as the program writes, so it never
 * blocks on a full pipe.
 *
 * Output, JSON lines: a descriptor, then one line per launch with spawn->main,
 * spawn->exit, the child's rusage and the launch's run-queue wait (the time the
 * timer or the child was ready to run but another task had the CPU, summed, at
 * most spawn->exit). A variant that fails (cannot start, exits non-zero, dies of
 * a signal, or times out) gets one line saying so and is not launched again; the
 * others go on. A "placement" line says the timer left a CPU it found shared with
 * a busy task (placement.h).
 *
 * The lines go to --out FILE (default stdout) in batches, at most every FLUSH_NS:
 * a reader woken by every launch (a pipe to the Python parent, as it was) ran
 * between launches on the timer's CPU, and the launches paid for it.
 * SIGTERM or SIGINT ends the run after the launch under way; every line written
 * so far is flushed, so an interrupted run keeps the launches that finished. The
 * death of the parent sends SIGTERM (PR_SET_PDEATHSIG).
 *
 * Nothing launched is left running. The timer is a child subreaper
 * (PR_SET_CHILD_SUBREAPER): a process a launched program leaves behind, even a
 * daemon that left its process group with setsid(), becomes the timer's child when
 * its parent exits. After each launch is timed (outside the timed interval), the
 * timer kills the launch's process group and every child it has left, until none is
 * left, and counts them; the last line, {"descendants": ...}, says how many it ended
 * and after how many launches. */
#define _GNU_SOURCE
#include "common.h"
#include "placement.h"
#include "child.h"
#include "ticks.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STAMP_FD 200
#define PHASE_FD 201
#define MAX_PHASE 3  /* tags 1..3: first_init, preload_init, libc_start_main */
#define MAX_VARIANTS 256
#define FLUSH_NS 250000000ull  /* at most 4 writes a second: progress, never a wake-up per launch */
#define PRIMERS 2  /* untimed launches before one that follows another variant's (see above) */

extern char **environ;

typedef struct {
    char name[128];
    char **argv;
    size_t argc;
    char **envp;             /* ours plus the variant's, plus LAYERTAX_STAMP_FD */
    size_t envc;
    int ignore_status;
    int until_output;        /* time its first output too (stdout and stderr into a pipe) */
    int dead;                /* failed once: not launched again */
    uint64_t expect_ns;      /* how long its next launch is expected to take (0: not known yet) */
    uint64_t expect_main_ns; /* and until main (0: not known, or the program does not stamp) */
} variant;

static variant variants[MAX_VARIANTS];
static size_t nvariants;
static FILE *out;
static int dev_null = -1;   /* the children's stdin, stdout and stderr */
static volatile sig_atomic_t stop_requested;

static void request_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* Writes the buffered lines if the last write was FLUSH_NS ago (or if forced). */
static void flush_now_and_then(int force)
{
    static uint64_t last;
    uint64_t now = lt_now_ns();
    if (force || now - last >= FLUSH_NS) {
        fflush(out);
        last = now;
    }
}

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "launch: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(2);
}

static void push(char ***list, size_t *n, const char *s)
{
    *list = realloc(*list, (*n + 2) * sizeof **list);
    if (!*list)
        die("%s", "out of memory");
    (*list)[(*n)++] = strdup(s);
    (*list)[*n] = NULL;
}

/* Sets KEY=VALUE in v's environment, replacing an inherited KEY. */
static void setenv_in(variant *v, const char *kv)
{
    size_t keylen = strcspn(kv, "=");
    for (size_t i = 0; i < v->envc; i++) {
        if (strncmp(v->envp[i], kv, keylen) == 0 && v->envp[i][keylen] == '=') {
            free(v->envp[i]);
            v->envp[i] = strdup(kv);
            return;
        }
    }
    push(&v->envp, &v->envc, kv);
}

static void read_spec(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die("cannot read the spec %s", path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    variant *v = NULL;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        if (strncmp(line, "variant ", 8) == 0) {
            if (nvariants == MAX_VARIANTS)
                die("%s", "too many variants");
            v = &variants[nvariants++];
            snprintf(v->name, sizeof v->name, "%s", line + 8);
            for (char **e = environ; *e; e++)
                if (strncmp(*e, "LAYERTAX_STAMP_FD=", 18) != 0 && strncmp(*e, "LAYERTAX_PHASE_FD=", 18) != 0)
                    push(&v->envp, &v->envc, *e);
            char fd[64];
            snprintf(fd, sizeof fd, "LAYERTAX_STAMP_FD=%d", STAMP_FD);
            push(&v->envp, &v->envc, fd);
            snprintf(fd, sizeof fd, "LAYERTAX_PHASE_FD=%d", PHASE_FD);
            push(&v->envp, &v->envc, fd);
        } else if (!v) {
            die("spec: a directive before the first variant: %s", line);
        } else if (strncmp(line, "arg ", 4) == 0) {
            push(&v->argv, &v->argc, line + 4);
        } else if (strncmp(line, "env ", 4) == 0) {
            setenv_in(v, line + 4);
        } else if (strncmp(line, "ignore-status ", 14) == 0) {
            v->ignore_status = atoi(line + 14);
        } else if (strncmp(line, "until-output ", 13) == 0) {
            v->until_output = atoi(line + 13);
        } else if (len > 0) {
            die("spec: unknown directive: %s", line);
        }
    }
    free(line);
    fclose(f);
    if (nvariants == 0)
        die("%s", "spec: no variants");
    for (size_t i = 0; i < nvariants; i++)
        if (variants[i].argc == 0)
            die("spec: variant %s has no program", variants[i].name);
}

/* xorshift64*: the shuffle needs only to be reproducible from --seed. */
static uint64_t rng_state;
static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static void shuffle(size_t *order, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = rng_next() % i;
        size_t t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

static long long tv_ns(struct timeval tv)
{
    return (long long)tv.tv_sec * 1000000000LL + (long long)tv.tv_usec * 1000LL;
}

static int self_schedstat = -1;   /* the timer's own, opened once */
static lt_placement placement;    /* which CPU the timer runs on, and moving off a busy one */
static int stay;                  /* --stay: never move (to see what moving cures) */
static lt_ticks ticks;            /* the pinned CPU's periodic interruptions (none when not pinned) */
static int dodge = 1;             /* start timed launches clear of them (--no-dodge: at once) */

/* Learns the interruptions of the CPU the timer is pinned to; none when it is not pinned. */
static void learn_ticks(void)
{
    if (placement.cpu >= 0)
        lt_ticks_learn(&ticks);
    else
        memset(&ticks, 0, sizeof ticks);
}

/* A launch is expected to take as long as the variant's latest, and a quarter more; a
 * long one raises the estimate at once, short ones lower it slowly. */
static void expect_after(uint64_t *expect_ns, uint64_t took_ns)
{
    uint64_t next = took_ns + took_ns / 4, decayed = *expect_ns - *expect_ns / 16;
    *expect_ns = next > decayed ? next : decayed;
}

/* Waits until a timed launch of v can start clear of interruptions and says until what: its
 * exit when there is room for the whole launch soon enough (ticks.h), else its main when
 * there is room for that, else nothing (it starts at once). */
enum until { UNTIL_NONE, UNTIL_EXIT, UNTIL_MAIN };

static enum until dodge_for(const variant *v)
{
    if (!dodge || !v->expect_ns)
        return UNTIL_NONE;
    if (lt_ticks_dodge(&ticks, v->expect_ns))
        return UNTIL_EXIT;
    return v->expect_main_ns && lt_ticks_dodge(&ticks, v->expect_main_ns) ? UNTIL_MAIN : UNTIL_NONE;
}

/* The child's run-queue wait, read while it is a zombie (before wait4 reaps it). */
static long long child_runq_wait(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    long long waited = lt_runq_wait(fd);
    if (fd >= 0)
        close(fd);
    return waited;
}

/* The timer's children now, as pids (at most max); -1 if they cannot be listed. The kernel's
 * list per thread (/proc/self/task/TID/children); the timer has one thread. */
static int list_children(pid_t *pids, int max)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got < 0)
        return -1;
    buf[got] = '\0';
    int n = 0;
    for (char *p = buf, *end; n < max && *p; p = end) {
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        if (pid > 0)
            pids[n++] = (pid_t)pid;
    }
    return n;
}

static long long ended_total;      /* descendants ended over the run */
static long ended_launches;        /* launches that left one or more */

/* Ends what a launch left running: its process group, then every child the timer has (an
 * orphan of the launch, reparented to this subreaper), again until none is left; reaps them.
 * Returns how many processes it ended. Run after the launch's interval, never inside it. */
static int end_descendants(pid_t group)
{
    static pid_t killed[4096];                   /* signalled already: counted once, however long they take */
    int ended = 0;
    kill(-group, SIGKILL);                       /* the group's members that are not ours yet */
    for (int pass = 0; pass < 1000; pass++) {
        while (waitpid(-1, NULL, WNOHANG) > 0)   /* reap what has died */
            ;
        pid_t pids[256];
        int n = list_children(pids, 256);
        if (n <= 0)
            break;
        for (int i = 0; i < n; i++) {
            int seen = 0;
            for (int k = 0; k < ended && k < 4096 && !seen; k++)
                seen = killed[k] == pids[i];
            if (kill(pids[i], SIGKILL) == 0 && !seen) {
                if (ended < 4096)
                    killed[ended] = pids[i];
                ended++;
            }
        }
        struct timespec brief = {0, 100000};      /* 0.1 ms: let the kills land before looking again */
        nanosleep(&brief, NULL);
    }
    sigset_t chld;                               /* the reaped children's SIGCHLD must not wake the next launch */
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    struct timespec zero = {0, 0};
    while (sigtimedwait(&chld, NULL, &zero) > 0)
        ;
    if (ended) {
        ended_total += ended;
        ended_launches++;
    }
    return ended;
}

/* The pipe a variant timed until its output writes to. Its reading end (ours) does not block
 * and signals the timer (SIGIO, blocked and taken by sigtimedwait) when bytes arrive; the
 * writing end (the child's stdout and stderr) blocks, as a program expects of its output. */
static int output_pipe(int fds[2])
{
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    if (fcntl(fds[0], F_SETOWN, getpid()) != 0 || fcntl(fds[0], F_SETFL, O_NONBLOCK | O_ASYNC) != 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    return 0;
}

/* Closes both ends of a pipe that are still open. */
static void close_pipe(int fds[2])
{
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0) {
            close(fds[i]);
            fds[i] = -1;
        }
}

/* Closes an output pipe (if the launch had one) and takes the SIGIO it may have left pending,
 * so that it does not wake the next launch's wait; launches without one pay nothing. */
static void end_output(int fds[2])
{
    if (fds[0] < 0 && fds[1] < 0)
        return;
    close_pipe(fds);
    sigset_t io;
    sigemptyset(&io);
    sigaddset(&io, SIGIO);
    struct timespec zero = {0, 0};
    while (sigtimedwait(&io, NULL, &zero) > 0)
        ;
}

/* Reads what the pipe holds (and drops it); returns whether there were any bytes. */
static int drain(int fd)
{
    static char sink[65536];
    int any = 0;
    while (read(fd, sink, sizeof sink) > 0)
        any = 1;
    return any;
}

static void report_failure(const variant *v, int round, const char *status)
{
    fprintf(out, "{\"variant\":");
    lt_json_string(out, v->name);
    fprintf(out, ",\"round\":%d,\"status\":", round);
    lt_json_string(out, status);
    fprintf(out, "}\n");
    flush_now_and_then(0);
}

/* Launches v once; prints its line (a primer only its failure); returns 0 if it ran as expected. */
static int launch_once(variant *v, int round, long timeout_ms, int primer)
{
    int pipefd[2] = {-1, -1}, phasefd[2] = {-1, -1}, outfd[2] = {-1, -1};
    if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) != 0 || pipe2(phasefd, O_CLOEXEC | O_NONBLOCK) != 0 ||
        (v->until_output && output_pipe(outfd) != 0)) {
        close_pipe(pipefd);
        close_pipe(phasefd);
        close_pipe(outfd);
        report_failure(v, round, "pipe failed");
        return -1;
    }
    int child_out = v->until_output ? outfd[1] : dev_null;
    /* The child's descriptors: the stamp pipes, and stdio on one /dev/null opened once (as
     * hyperfine does), not three path lookups in every child. */
    const lt_dup dups[] = {{pipefd[1], STAMP_FD}, {phasefd[1], PHASE_FD}, {dev_null, 0}, {child_out, 1}, {child_out, 2}};
    sigset_t woken;                      /* SIGCHLD, and SIGIO for the output pipe */
    sigemptyset(&woken);
    sigaddset(&woken, SIGCHLD);
    sigaddset(&woken, SIGIO);
    pid_t pid = -1;
    enum until until = primer ? UNTIL_NONE : dodge_for(v);
    long long self_wait0 = lt_runq_wait(self_schedstat);
    uint64_t t0 = lt_now_ns();
    int err = lt_spawn(&pid, v->argv[0], v->argv, v->envp, dups, (int)(sizeof dups / sizeof dups[0]));
    if (err != 0) {
        char msg[512];
        snprintf(msg, sizeof msg, "cannot start %s: %s", v->argv[0], strerror(err));
        report_failure(v, round, msg);
        close_pipe(pipefd);
        close_pipe(phasefd);
        end_output(outfd);
        return -1;
    }
    if (outfd[1] >= 0) {
        close(outfd[1]);     /* the child's now: at its exit the pipe reads end-of-file */
        outfd[1] = -1;
    }

    uint64_t deadline = t0 + (uint64_t)timeout_ms * 1000000u, t_exit = 0, t_output = 0;
    int status = 0, timed_out = 0;
    struct rusage ru;
    for (;;) {
        uint64_t now = lt_now_ns();
        if (now >= deadline) { timed_out = 1; break; }
        struct timespec left = {(time_t)((deadline - now) / 1000000000u), (long)((deadline - now) % 1000000000u)};
        int sig = sigtimedwait(&woken, NULL, &left);
        t_exit = lt_now_ns();
        if (sig < 0 && errno == EAGAIN) { timed_out = 1; break; }
        /* Output first: a program that writes and exits at once raises both signals, and
         * SIGCHLD (the lower number) is taken first. */
        if (outfd[0] >= 0 && drain(outfd[0]) && !t_output)
            t_output = t_exit;
        siginfo_t info = {0};   /* exited? (WNOWAIT: left a zombie, so its schedstat can be read) */
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
            break;
    }
    close(pipefd[1]);    /* ours, closed after the interval: the reads below do not block */
    close(phasefd[1]);
    if (timed_out) {
        kill(-pid, SIGKILL);
        wait4(pid, &status, 0, &ru);
        end_descendants(pid);
        close(pipefd[0]);
        close(phasefd[0]);
        end_output(outfd);
        char msg[64];
        snprintf(msg, sizeof msg, "timed out after %ld ms", timeout_ms);
        report_failure(v, round, msg);
        return -1;
    }
    long long self_wait1 = lt_runq_wait(self_schedstat), child_wait = child_runq_wait(pid);
    wait4(pid, &status, 0, &ru);   /* reaps it: the zombie was kept for its schedstat */
    /* Both may wait at once (the timer woken while a busy task runs the child off the CPU):
     * the sum counts that twice, so it is capped at the launch's own spawn->exit. */
    long long runq_wait = self_wait0 >= 0 && self_wait1 >= 0 && child_wait >= 0
                              ? (self_wait1 - self_wait0) + child_wait : -1;
    if (runq_wait > (long long)(t_exit - t0))
        runq_wait = (long long)(t_exit - t0);
    int ended = end_descendants(pid);   /* after the interval, before anything else runs */
    end_output(outfd);
    long long stamp = 0;
    ssize_t got = read(pipefd[0], &stamp, sizeof stamp);
    close(pipefd[0]);
    /* The first record of each tag counts (a child the program forked may add more). */
    uint64_t phases[MAX_PHASE + 1] = {0};
    unsigned long long record[2];
    while (read(phasefd[0], record, sizeof record) == (ssize_t)sizeof record)
        if (record[0] >= 1 && record[0] <= MAX_PHASE && !phases[record[0]] && record[1] >= t0)
            phases[record[0]] = record[1] - t0;
    close(phasefd[0]);
    expect_after(&v->expect_ns, t_exit - t0);
    if (got == (ssize_t)sizeof stamp && (uint64_t)stamp >= t0)
        expect_after(&v->expect_main_ns, (uint64_t)stamp - t0);
    uint64_t clear = lt_ticks_clear(&ticks, t0);   /* from t0, but worked out outside the timed interval */

    char state[64] = "ok";
    int failed = 0;
    if (WIFSIGNALED(status)) {
        snprintf(state, sizeof state, "killed by signal %d", WTERMSIG(status));
        failed = 1;
    } else if (WEXITSTATUS(status) != 0) {
        snprintf(state, sizeof state, "exit status %d", WEXITSTATUS(status));
        failed = !v->ignore_status;
    }
    if (primer) {
        if (failed)
            report_failure(v, round, state);
        return failed ? -1 : 0;
    }
    fprintf(out, "{\"variant\":");
    lt_json_string(out, v->name);
    fprintf(out, ",\"round\":%d,\"pid\":%d,\"status\":", round, (int)pid);
    lt_json_string(out, failed ? state : "ok");
    if (got == (ssize_t)sizeof stamp && (uint64_t)stamp >= t0)
        fprintf(out, ",\"main_ns\":%llu", (unsigned long long)((uint64_t)stamp - t0));
    else
        fprintf(out, ",\"main_ns\":null");
    static const char *const phase_names[MAX_PHASE + 1] = {"", "first_init", "preload_init", "libc_start_main"};
    for (int p = 1; p <= MAX_PHASE; p++) {
        if (phases[p])
            fprintf(out, ",\"%s_ns\":%llu", phase_names[p], (unsigned long long)phases[p]);
        else
            fprintf(out, ",\"%s_ns\":null", phase_names[p]);
    }
    if (t_output)
        fprintf(out, ",\"output_ns\":%llu", (unsigned long long)(t_output - t0));
    else
        fprintf(out, ",\"output_ns\":null");
    if (runq_wait >= 0)
        fprintf(out, ",\"runq_wait_ns\":%lld", runq_wait);
    else
        fprintf(out, ",\"runq_wait_ns\":null");
    if (clear != UINT64_MAX)
        fprintf(out, ",\"clear_ns\":%llu", (unsigned long long)clear);
    else
        fprintf(out, ",\"clear_ns\":null");
    static const char *const until_names[] = {"null", "\"exit\"", "\"main\""};
    fprintf(out, ",\"dodged\":%s,\"dodged_until\":%s", until != UNTIL_NONE ? "true" : "false", until_names[until]);
    fprintf(out, ",\"descendants_ended\":%d", ended);
    fprintf(out, ",\"exit_ns\":%llu,\"exit_status\":%d,\"minflt\":%ld,\"majflt\":%ld,\"utime_ns\":%lld,"
           "\"stime_ns\":%lld,\"csw_vol\":%ld,\"csw_invol\":%ld,\"maxrss_kb\":%ld}\n",
           (unsigned long long)(t_exit - t0), WIFEXITED(status) ? WEXITSTATUS(status) : -1,
           ru.ru_minflt, ru.ru_majflt, tv_ns(ru.ru_utime), tv_ns(ru.ru_stime), ru.ru_nvcsw, ru.ru_nivcsw,
           ru.ru_maxrss);
    int from, to;
    if (!stay && lt_place_note(&placement, runq_wait, t_exit - t0, &from, &to)) {
        learn_ticks();   /* another CPU's interruptions fall at other times */
        fprintf(out, "{\"placement\":{\"round\":%d,\"from\":%d,\"to\":%d,\"waited\":%d,\"of\":%d,\"ticks\":",
                round, from, to, PLACEMENT_CONTENDED, PLACEMENT_WINDOW);
        lt_ticks_json(&ticks, out);
        fprintf(out, "}}\n");
    }
    flush_now_and_then(0);
    return failed ? -1 : 0;
}

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
/* TSC ticks per ns, against CLOCK_MONOTONIC over ~100 ms: glibc's loader
 * statistics count TSC ticks, which are not CPU cycles at the current clock. */
static double tsc_per_ns(void)
{
    uint64_t n0 = lt_now_ns(), c0 = __rdtsc();
    struct timespec pause = {0, 100000000};
    nanosleep(&pause, NULL);
    uint64_t n1 = lt_now_ns(), c1 = __rdtsc();
    return (double)(c1 - c0) / (double)(n1 - n0);
}
#else
static double tsc_per_ns(void) { return 0.0; }
#endif

/* One round: every live variant launched once, in a fresh shuffled order, each after
 * the primers it needs. Returns 0 when no variant is left alive. */
static int run_round(int round, const variant **last, long timeout_ms, long primers)
{
    size_t order[MAX_VARIANTS], n = 0;
    for (size_t i = 0; i < nvariants; i++)
        if (!variants[i].dead)
            order[n++] = i;
    if (n == 0)
        return 0;
    shuffle(order, n);
    for (size_t k = 0; k < n && !stop_requested; k++) {
        variant *v = &variants[order[k]];
        /* The primers: after another variant's launch, they bring the machine back to
         * the state a run of this variant alone would leave (see above). */
        int failed = 0;
        for (long p = 0; *last != v && p < primers && !failed && !stop_requested; p++)
            failed = launch_once(v, round, timeout_ms, 1) != 0;
        if (failed) {
            v->dead = 1;
            continue;
        }
        *last = v;
        if (!stop_requested && launch_once(v, round, timeout_ms, 0) != 0)
            v->dead = 1;
    }
    return 1;
}

int main(int argc, char **argv)
{
    const char *spec = NULL, *out_path = NULL;
    long runs = 30, warmup = 1, warmup_ms = 0, timeout_ms = 10000, primers = PRIMERS;
    int cpu = -1, raise = 0;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--tsc-rate") == 0) {
            double r = tsc_per_ns();
            if (r > 0)
                printf("{\"tsc_per_ns\":%.6f}\n", r);
            else
                printf("{\"tsc_per_ns\":null}\n");
            return 0;
        } else if (strcmp(a, "--raise-priority") == 0) {
            raise = 1;
        } else if (strcmp(a, "--stay") == 0) {
            stay = 1;
        } else if (strcmp(a, "--no-dodge") == 0) {
            dodge = 0;
        } else if (!next) {
            die("missing value after %s", a);
        } else if (strcmp(a, "--spec") == 0) {
            spec = argv[++i];
        } else if (strcmp(a, "--runs") == 0) {
            runs = atol(argv[++i]);
        } else if (strcmp(a, "--warmup") == 0) {
            warmup = atol(argv[++i]);
        } else if (strcmp(a, "--warmup-ms") == 0) {
            warmup_ms = atol(argv[++i]);
        } else if (strcmp(a, "--seed") == 0) {
            seed = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(a, "--timeout-ms") == 0) {
            timeout_ms = atol(argv[++i]);
        } else if (strcmp(a, "--primers") == 0) {
            primers = atol(argv[++i]);
        } else if (strcmp(a, "--cpu") == 0) {
            cpu = atoi(argv[++i]);
        } else if (strcmp(a, "--out") == 0) {
            out_path = argv[++i];
        } else {
            die("unknown option %s", a);
        }
    }
    if (!spec || runs < 1 || warmup < 0 || warmup_ms < 0 || timeout_ms < 1 || primers < 0)
        die("%s", "usage: launch --spec FILE [--runs N>=1] [--warmup W] [--warmup-ms M] [--seed S] "
                  "[--timeout-ms T] [--cpu C] [--stay] [--raise-priority] [--primers P] [--no-dodge] [--out FILE] "
                  "| --tsc-rate");
    read_spec(spec);
    dev_null = open("/dev/null", O_RDWR | O_CLOEXEC);
    self_schedstat = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (dev_null < 0)
        die("%s", "cannot open /dev/null");
    out = out_path ? fopen(out_path, "we") : stdout;   /* "e": O_CLOEXEC, never a child's */
    if (!out)
        die("cannot write %s", out_path);
    static char buffer[1 << 20];
    setvbuf(out, buffer, _IOFBF, sizeof buffer);
    struct sigaction stop = {0};
    stop.sa_handler = request_stop;   /* no SA_RESTART: a wait in progress returns EINTR and re-checks */
    sigaction(SIGTERM, &stop, NULL);
    sigaction(SIGINT, &stop, NULL);
    /* A parent killed outright (SIGKILL) cannot ask us to stop: the kernel sends SIGTERM when
     * it dies, and the run ends as if asked, instead of launching on for minutes with no one
     * to read it. A parent that died before the prctl is caught by its pid changing. */
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    prctl(PR_SET_CHILD_SUBREAPER, 1);     /* what a launch leaves running becomes ours to end */
    if (getppid() != parent)
        request_stop(SIGTERM);
    rng_state = seed ? seed : 0x9E3779B97F4A7C15ULL;

    char pin_why[128], prio[128];
    const char *pinned = lt_place_start(&placement, cpu, pin_why, sizeof pin_why);  /* children inherit it */
    lt_priority(raise, prio, sizeof prio);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigaddset(&chld, SIGIO);
    sigprocmask(SIG_BLOCK, &chld, NULL);  /* so sigtimedwait catches them (SIGIO: an output pipe) */
    int spawn_err = lt_spawn_init();      /* after our handlers: it notes which the child resets */
    if (spawn_err)
        die("cannot prepare the child stack: %s", strerror(spawn_err));
    learn_ticks();

    fprintf(out, "{\"timer\":\"layertax-launch\",\"clock\":\"CLOCK_MONOTONIC\",\"spawn\":\"clone-vfork\","
           "\"stamp_fd\":%d,\"phase_fd\":%d,\"runs\":%ld,\"warmup\":%ld,\"warmup_ms\":%ld,\"timeout_ms\":%ld,\"primers\":%ld,"
           "\"pinned\":%s,\"pin\":",
           STAMP_FD, PHASE_FD, runs, warmup, warmup_ms, timeout_ms, primers, pinned);
    lt_json_string(out, pin_why);
    fprintf(out, ",\"priority\":");
    lt_json_string(out, prio);
    /* The rule for leaving a busy CPU, so a result can count its waited launches by it. */
    fprintf(out, ",\"placement\":{\"min_wait_ns\":%llu,\"window\":%d,\"contended\":%d,\"moves\":%s}",
            PLACEMENT_MIN_WAIT_NS, PLACEMENT_WINDOW, PLACEMENT_CONTENDED, stay ? "false" : "true");
    fprintf(out, ",\"dodge\":%s,\"ticks\":", dodge ? "true" : "false");
    lt_ticks_json(&ticks, out);
    fprintf(out, "}\n");
    flush_now_and_then(1);

    const variant *last = NULL;
    uint64_t warm_start = lt_now_ns(), warm_until = warm_start + (uint64_t)warmup_ms * 1000000ULL;
    long warmed = 0;
    while (!stop_requested && (warmed < warmup || lt_now_ns() < warm_until) && run_round(-1, &last, timeout_ms, primers))
        warmed++;
    fprintf(out, "{\"warmed\":{\"rounds\":%ld,\"ns\":%llu}}\n", warmed,
            (unsigned long long)(lt_now_ns() - warm_start));
    for (long r = 0; r < runs && !stop_requested && run_round((int)r, &last, timeout_ms, primers); r++)
        ;
    fprintf(out, "{\"descendants\":{\"ended\":%lld,\"launches\":%ld}}\n", ended_total, ended_launches);
    flush_now_and_then(1);
    if (out != stdout)
        fclose(out);
    return 0;
}

/* The stamp library: preloaded (LD_PRELOAD) into a program that does not stamp
 * itself, it reports when the program reaches main, and in its phases build
 * (-DLAYERTAX_PHASES, linked with first.c's library) when each stage of start-up
 * before it ends.
 *
 * - main: it interposes __libc_start_main (which the program's _start calls
 *   through the GOT, so a preloaded definition wins) and hands the real one a
 *   wrapper of main that writes one CLOCK_MONOTONIC reading to LAYERTAX_STAMP_FD
 *   and then calls the program's main. So spawn->stamp is spawn->main, every
 *   constructor included, as for a program that stamps itself.
 * - phases (the phases build only), 16-byte (tag, ns) records on LAYERTAX_PHASE_FD:
 *     1 first_init       the first constructor (liblayertax-first, see first.c)
 *     2 preload_init     this library's constructor: glibc runs it after the
 *                        constructors of the program's libraries (a preloaded
 *                        object comes early in the load order, so late in the
 *                        init order), before the program's own
 *     3 libc_start_main  _start called __libc_start_main: every shared object's
 *                        constructors have run; the program's have not
 * A program that does not start through glibc's __libc_start_main (Go, a
 * static binary, another libc) gets no main stamp; a static one ignores
 * LD_PRELOAD altogether.
 *
 * Its own cost is the cost of every figure it stamps, so it is kept as near as it can be
 * to an empty preloaded object (the controls of every run measure it): one object, built without
 * start files, no call into libc but the one dlsym that finds the real __libc_start_main
 * (each call would cost a symbol lookup), raw system calls for the clock and the writes.
 * Every command that uses it measures that cost against an empty program in the same run. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "rawsys.h"

#define PHASE_PRELOAD_INIT 2
#define PHASE_LIBC_START_MAIN 3

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_main_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);

static int stamp_fd = -1, phase_fd = -1;
static main_fn program_main;
static start_main_fn real_start_main;

/* The descriptor named in the environment, made close-on-exec: what the program
 * execs must not stamp for it. */
static int inherited_fd(char **envp, const char *key)
{
    int fd = lt_env_fd(envp, key);
    if (fd < 0 || lt_raw_syscall3(LT_SYS_FCNTL, fd, LT_F_SETFD, LT_FD_CLOEXEC) != 0)
        return -1;
    return fd;
}

static void phase(unsigned long long tag, unsigned long long ns)
{
    if (phase_fd < 0)
        return;
    unsigned long long record[2] = {tag, ns};
    if (lt_raw_syscall3(LT_SYS_WRITE, phase_fd, (long)record, sizeof record) != (long)sizeof record)
        phase_fd = -1;  /* nothing to report to any more */
}

__attribute__((constructor)) static void layertax_stamp_init(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)argv;
#ifdef LAYERTAX_PHASES
    unsigned long long t = lt_raw_now_ns();
    phase_fd = inherited_fd(envp, "LAYERTAX_PHASE_FD");
    phase(PHASE_PRELOAD_INIT, t);
#endif
    stamp_fd = inherited_fd(envp, "LAYERTAX_STAMP_FD");
    /* Looked up now, not in __libc_start_main, so the lookup is not charged to the program's constructors. */
    real_start_main = (start_main_fn)dlsym(RTLD_NEXT, "__libc_start_main");
}

static int stamped_main(int argc, char **argv, char **envp)
{
    unsigned long long t = lt_raw_now_ns();
    if (stamp_fd >= 0 && lt_raw_syscall3(LT_SYS_WRITE, stamp_fd, (long)&t, sizeof t) != (long)sizeof t)
        stamp_fd = -1;
    return program_main(argc, argv, envp);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end)
{
    phase(PHASE_LIBC_START_MAIN, lt_raw_now_ns());
    if (!real_start_main)
        __builtin_trap();  /* cannot happen with glibc; a loud failure beats a silent wrong figure */
    program_main = main;
    return real_start_main(stamped_main, argc, argv, init, fini, rtld_fini, stack_end);
}

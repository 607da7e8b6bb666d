/* The stamp library: preloaded (LD_PRELOAD) into a program that does not stamp
 * itself, it reports when the program reaches main and when each stage of
 * start-up before it ends.
 *
 * - main: it interposes __libc_start_main (which the program's _start calls
 *   through the GOT, so a preloaded definition wins) and hands the real one a
 *   wrapper of main that writes one CLOCK_MONOTONIC reading to LAYERTAX_STAMP_FD
 *   and then calls the program's main. So spawn->stamp is spawn->main, every
 *   constructor included, as for a program that stamps itself.
 * - phases, 16-byte (tag, ns) records on LAYERTAX_PHASE_FD:
 *     1 first_init       the first constructor (liblayertax-first, see first.c)
 *     2 preload_init     this library's constructor: glibc runs it after the
 *                        constructors of the program's libraries (a preloaded
 *                        object comes early in the load order, so late in the
 *                        init order), before the program's own
 *     3 libc_start_main  _start called __libc_start_main: every shared object's
 *                        constructors have run; the program's have not
 * A program that does not start through glibc's __libc_start_main (Go, a
 * static binary, another libc) gets no main stamp; a static one ignores
 * LD_PRELOAD altogether. Its own cost (two objects to map, a few lookups, a
 * dlsym) is measured against an empty program by every command that uses it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define PHASE_PRELOAD_INIT 2
#define PHASE_LIBC_START_MAIN 3

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_main_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);

static int stamp_fd = -1, phase_fd = -1;
static main_fn program_main;
static start_main_fn real_start_main;

static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static int fd_from_env(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return -1;
    int fd = atoi(v);
    /* Not inherited by what the program execs: its children must not stamp for it. */
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
        return -1;
    return fd;
}

static void phase(unsigned long long tag, unsigned long long ns)
{
    if (phase_fd < 0)
        return;
    unsigned long long record[2] = {tag, ns};
    if (write(phase_fd, record, sizeof record) != (ssize_t)sizeof record)
        phase_fd = -1;  /* nothing to report to any more */
}

__attribute__((constructor)) static void layertax_stamp_init(void)
{
    unsigned long long t = now_ns();
    stamp_fd = fd_from_env("LAYERTAX_STAMP_FD");
    phase_fd = fd_from_env("LAYERTAX_PHASE_FD");
    phase(PHASE_PRELOAD_INIT, t);
    /* Looked up now, not in __libc_start_main, so the lookup is not charged to the program's constructors. */
    real_start_main = (start_main_fn)dlsym(RTLD_NEXT, "__libc_start_main");
}

static int stamped_main(int argc, char **argv, char **envp)
{
    unsigned long long t = now_ns();
    if (stamp_fd >= 0 && write(stamp_fd, &t, sizeof t) != (ssize_t)sizeof t)
        stamp_fd = -1;
    return program_main(argc, argv, envp);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end)
{
    phase(PHASE_LIBC_START_MAIN, now_ns());
    if (!real_start_main)
        real_start_main = (start_main_fn)dlsym(RTLD_NEXT, "__libc_start_main");
    if (!real_start_main)
        abort();  /* cannot happen with glibc; a loud failure beats a silent wrong figure */
    program_main = main;
    return real_start_main(stamped_main, argc, argv, init, fini, rtld_fini, stack_end);
}

/* Starting a child for the launch timer: see child.h. */
#define _GNU_SOURCE
#include "child.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define STACK_BYTES (64 * 1024)   /* the child calls a few syscall wrappers, nothing deeper */

/* The kernel's sigaction, not glibc's: glibc refuses its two internal signals (32, 33), and
 * a timer started by GNU make 4.3 (which starts its children with glibc's posix_spawn)
 * inherits both ignored; execve keeps SIG_IGN, so every program launched would too. Of the
 * kernel's struct only the handler is read, its first field on x86-64 and arm64; a zeroed
 * one is SIG_DFL, no flags, an empty mask. */
static long kernel_sigaction(int sig, const unsigned long *act, unsigned long *old)
{
    return syscall(SYS_rt_sigaction, sig, act, old, (size_t)(_NSIG / 8));
}

static char *stack_top;
static int reset[NSIG];           /* the signals the child sets back to SIG_DFL */
static int nreset;

typedef struct {
    const char *path;
    char *const *argv, *const *envp;
    const lt_dup *dups;
    int ndups;
    volatile int error;           /* written by the child (shared memory) when it fails */
} child_args;

int lt_spawn_init(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *base = mmap(NULL, STACK_BYTES + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                      -1, 0);
    if (base == MAP_FAILED)
        return errno;
    if (mprotect(base, page, PROT_NONE) != 0)   /* a guard page: an overflow faults, never writes below */
        return errno;
    memset(base + page, 0, STACK_BYTES);        /* touched now, so no child faults it in a timed launch */
    stack_top = base + page + STACK_BYTES;
    nreset = 0;
    for (int sig = 1; sig < NSIG; sig++) {
        unsigned long old[4] = {0};
        if (sig != SIGKILL && sig != SIGSTOP && kernel_sigaction(sig, NULL, old) == 0 && old[0] != 0)
            reset[nreset++] = sig;              /* caught or ignored (SIG_DFL is 0) */
    }
    return 0;
}

/* The child, on the timer's memory until execve: async-signal-safe calls only. */
static int child_main(void *arg)
{
    child_args *a = arg;
    static const unsigned long dfl[4] = {0};
    for (int i = 0; i < nreset; i++)
        kernel_sigaction(reset[i], dfl, NULL);
    if (setpgid(0, 0) != 0)                     /* its own group: a timeout kills all of it */
        goto failed;
    for (int i = 0; i < a->ndups; i++)
        if (dup2(a->dups[i].from, a->dups[i].to) < 0)   /* dup2 clears O_CLOEXEC on `to` */
            goto failed;
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);      /* the timer blocks SIGCHLD; the program must not */
    execve(a->path, a->argv, a->envp);
failed:
    a->error = errno ? errno : EINVAL;
    _exit(127);
}

int lt_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[],
             const lt_dup *dups, int ndups)
{
    if (!stack_top)
        return EINVAL;
    child_args a = {path, argv, envp, dups, ndups, 0};
    /* Every signal blocked until the child has reset its handlers: none may run in it. */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    pid_t child = clone(child_main, stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
    int err = child < 0 ? errno : a.error;     /* CLONE_VFORK: back here once it has exec'd or exited */
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (child > 0 && err)
        waitpid(child, NULL, 0);
    if (!err)
        *pid = child;
    return err;
}

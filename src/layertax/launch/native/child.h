/* Starting a child for the launch timer: clone(CLONE_VM | CLONE_VFORK), as glibc's
 * posix_spawn does, with only the work the child needs before execve.
 *
 * Everything the child does before execve is inside the timed interval, so it is the
 * timer's own overhead in every figure. glibc 2.36's posix_spawn, asked to reset the
 * signals (POSIX_SPAWN_SETSIGDEF, the only way to reset an inherited SIG_IGN), makes one
 * rt_sigaction call per signal, 64, and maps a fresh stack for each child, which the child
 * then faults in. Here the stack is mapped and touched once, and the child resets only the
 * signals that need it: those the timer catches (a handler must never run in the child,
 * which shares the timer's memory until execve) and those the timer inherited as ignored
 * (execve keeps SIG_IGN; glibc's own 32 and 33 among them, as under GNU make). execve
 * itself resets every other caught signal (bench/timer_vs_bare_loop.py prices what the
 * timer adds to a bare vfork+exec loop). */
#ifndef LAYERTAX_CHILD_H
#define LAYERTAX_CHILD_H

#include <sys/types.h>

typedef struct {
    int from, to;            /* dup2(from, to) in the child: `to` is open across execve */
} lt_dup;

/* Once, after the timer has set its own signal handlers: maps the child stack and notes
 * which signals the child must reset. Returns 0, or an errno value. */
int lt_spawn_init(void);

/* Starts `path` with argv and envp in a process group of its own, its signal mask empty,
 * after the dups. Returns 0 with *pid set, or the errno value of what failed (the child's
 * execve, typically: the child has then been reaped). */
int lt_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[],
             const lt_dup *dups, int ndups);

#endif

/* Where the launch timer runs: pinned to one CPU (its children inherit the pin), and
 * moved when that CPU turns out to be shared with a busy task.
 *
 * Pinning narrows the spread of launch times on an idle machine. But a CPU-bound
 * neighbour on the pinned CPU makes many launches wait a whole scheduler slice for the
 * CPU (docs/method/launch-timer.md). An unpinned process would be moved away by the scheduler,
 * a pinned one cannot be; so the timer watches every launch's run-queue wait (its own
 * and the child's, from /proc/PID/schedstat) and moves itself when its CPU is contended:
 * to the next allowed CPU, and once every allowed CPU has been found contended, nowhere
 * in particular (unpinned: the scheduler places it, as it places hyperfine's children). */
#ifndef LAYERTAX_PLACEMENT_H
#define LAYERTAX_PLACEMENT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* cpu_set_t */
#endif
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#define PLACEMENT_WINDOW 10      /* the latest launches looked at */
#define PLACEMENT_CONTENDED 3    /* how many of them must have waited to call the CPU contended */
#define PLACEMENT_MIN_WAIT_NS 250000ull  /* a wait counts when over this and over a tenth of the launch */

typedef struct {
    cpu_set_t allowed;       /* the affinity the timer was started with */
    int cpu;                 /* the CPU pinned to, or -1 when not pinned */
    int moves;               /* CPUs found contended so far */
    int ncpus;               /* CPUs in `allowed` */
    unsigned recent;         /* bit i: the launch i launches ago waited */
} lt_placement;

/* Pins the timer to cpu (< 0: leaves it unpinned); says what it got in `why`.
 * Returns "true" if pinned, "false" if not (the descriptor's JSON literal). */
const char *lt_place_start(lt_placement *p, int cpu, char *why, size_t n);

/* Notes one launch's run-queue wait (< 0: unknown) and spawn->exit. Returns 1 if the CPU
 * was contended and the timer moved: *from and *to are the CPUs (-1: not pinned). */
int lt_place_note(lt_placement *p, long long runq_wait_ns, uint64_t exit_ns, int *from, int *to);

/* Time a task spent runnable but waiting for a CPU, in ns: the second field of a
 * /proc/PID/schedstat file open at fd (CONFIG_SCHED_INFO). -1 where it cannot be read. */
long long lt_runq_wait(int fd);

#endif

/* The periodic interruptions of the timer's CPU, and launches started clear of them.
 *
 * A busy CPU is interrupted at fixed times: the kernel's tick every 1/HZ s (4 ms here,
 * CONFIG_HZ=250), and on the project's VMs a second series every 10 ms that no guest task
 * shows. Each takes tens of µs from a loop reading the clock, and a short launch it lands
 * in is slower by more than that: such launches make most of the slowest quarter of a
 * short program's (docs/method/launch-timer.md).
 * They are the machine's, not the program's: pyperf's advice, nohz_full, removes the tick
 * from a benchmark's CPU; this does it without root, for launches shorter than the period.
 *
 * lt_ticks_learn spins on the clock for a while and notes every gap (the clock jumping by
 * more than GAP_NS between two readings: the loop was interrupted). A series is a period
 * of the kernel's (1, 10/3, 4 or 10 ms) and a phase such that nearly every point of that
 * grid in the time spun had a gap within TOLERANCE_NS of it; the shortest such period is
 * found first, its gaps set aside, and a second series looked for in the rest. Where no
 * series is found (a tickless CPU, an interruption too short to see), nothing is dodged. */
#ifndef LAYERTAX_TICKS_H
#define LAYERTAX_TICKS_H

#include <stdint.h>
#include <stdio.h>

#define TICKS_MAX_SERIES 2
#define TICKS_LEARN_NS 100000000ull   /* spun to learn them: 100 ms, ten points of a 10 ms series */

typedef struct {
    uint64_t period_ns;
    uint64_t phase_ns;     /* a time (CLOCK_MONOTONIC) at which one of its interruptions fell */
    int hit, points;       /* grid points in the time spun, and how many had a gap */
} lt_series;

typedef struct {
    lt_series series[TICKS_MAX_SERIES];
    int n;
    int gaps;              /* gaps seen while learning */
    uint64_t median_gap_ns;   /* the median length of the gaps on the first series */
} lt_ticks;

#define MAX_GAPS 1024   /* bounds the search (quadratic in the gaps) and the memory */

/* Spins for TICKS_LEARN_NS on the calling thread's CPU and finds its series (t->n may be 0). */
void lt_ticks_learn(lt_ticks *t);

/* The series in gaps seen between start and end (each gap's time and length, in time
 * order; at most MAX_GAPS are looked at): lt_ticks_learn's search, apart for tests. */
void lt_ticks_find(lt_ticks *t, const uint64_t *gaps, const uint64_t *lengths, int n, uint64_t start, uint64_t end);

/* The time from `at` until the next interruption of any series (UINT64_MAX if none). */
uint64_t lt_ticks_clear(const lt_ticks *t, uint64_t at);

/* Whether a launch expected to take expect_ns fits between two interruptions of every series
 * (after TICKS_AFTER_NS, with the guard before the next): 0 too when there is no series. */
int lt_ticks_fits(const lt_ticks *t, uint64_t expect_ns);

/* The earliest time from `at` on at which a launch of expect_ns would start clear of every
 * series: at least TICKS_AFTER_NS after an interruption (its softirq work done) and
 * expect_ns + a guard before the next (UINT64_MAX: none, it does not fit). */
uint64_t lt_ticks_next_start(const lt_ticks *t, uint64_t at, uint64_t expect_ns);

/* Spins until a launch expected to take expect_ns can start clear of every series, for at
 * most TICKS_MAX_WAIT_NS: a launch after a longer pause runs slower, by more than an
 * interruption costs it. Returns 1 if it started clear, 0 if it could not (no series, a
 * launch that does not fit between two, or no room that soon: then it starts at once). */
int lt_ticks_dodge(const lt_ticks *t, uint64_t expect_ns);

/* The series as a JSON object, written to f: {"series":[...],"gaps":N,"median_gap_ns":G,...}. */
void lt_ticks_json(const lt_ticks *t, FILE *f);

#endif

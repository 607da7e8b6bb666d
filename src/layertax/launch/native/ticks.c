/* The periodic interruptions of the timer's CPU (ticks.h says why and how). */
#include "ticks.h"
#include "common.h"

#include <stdlib.h>
#include <string.h>

#define GAP_NS 3000ull          /* a loop reading the clock takes ~30 ns a turn; a jump over this was an interruption */
#define TOLERANCE_NS 20000ull   /* how far from its grid point a gap may fall */
#define MIN_POINTS 5            /* a series needs this many grid points in the time spun */
#define HIT_SHARE 0.8           /* and a gap at this share of them */
#define TICKS_AFTER_NS 60000ull /* after an interruption, its softirq work (RCU: 21-24 µs here) */
#define TICKS_GUARD_NS 20000ull /* room left before the next one */
#define TICKS_MAX_WAIT_NS 500000ull /* the longest wait for room: no slower launch after it (ticks.h) */

/* The kernel's tick periods (CONFIG_HZ 1000, 300, 250, 100), shortest first: a series of
 * 4 ms also fills every second point of an 8 ms grid, so the shortest that fits is the one. */
static const uint64_t PERIODS[] = {1000000ull, 3333333ull, 4000000ull, 10000000ull};

static uint64_t offset(uint64_t at, uint64_t phase, uint64_t period)
{
    return at >= phase ? (at - phase) % period : period - (phase - at) % period;
}

static int near_grid(uint64_t at, uint64_t phase, uint64_t period)
{
    uint64_t off = offset(at, phase, period);
    return off <= TOLERANCE_NS || period - off <= TOLERANCE_NS;
}

/* The phase (one of the gaps) whose grid has a gap near the most of its points; counts
 * grid points, not gaps, so a burst of gaps near one point counts once. */
static lt_series best_series(const uint64_t *gaps, const int *used, int n, uint64_t start, uint64_t end,
                             uint64_t period)
{
    lt_series best = {period, 0, -1, (int)((end - start) / period)};
    static unsigned char seen[TICKS_LEARN_NS / 1000000ull + 3];   /* one per point of the finest grid */
    for (int i = 0; i < n; i++) {
        if (used[i])
            continue;
        memset(seen, 0, sizeof seen);
        /* The grid's first point in [start - period, start): the gaps' points count from it. */
        uint64_t first = gaps[i] - (gaps[i] - (start - period)) / period * period;
        int hit = 0;
        for (int j = 0; j < n; j++) {
            if (used[j] || !near_grid(gaps[j], gaps[i], period))
                continue;
            uint64_t point = (gaps[j] - first + period / 2) / period;
            if (point < sizeof seen && !seen[point]) {
                seen[point] = 1;
                hit++;
            }
        }
        if (hit > best.hit) {
            best.hit = hit;
            best.phase_ns = gaps[i];
        }
    }
    return best;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void lt_ticks_find(lt_ticks *t, const uint64_t *gaps, const uint64_t *lengths, int n, uint64_t start, uint64_t end)
{
    static int used[MAX_GAPS];
    memset(t, 0, sizeof *t);
    if (n > MAX_GAPS)
        n = MAX_GAPS;
    t->gaps = n;
    memset(used, 0, sizeof used);
    while (t->n < TICKS_MAX_SERIES) {
        lt_series found = {0};
        for (size_t p = 0; p < sizeof PERIODS / sizeof PERIODS[0] && !found.period_ns; p++) {
            lt_series s = best_series(gaps, used, n, start, end, PERIODS[p]);
            if (s.points >= MIN_POINTS && s.hit >= HIT_SHARE * s.points)
                found = s;
        }
        if (!found.period_ns)
            break;
        uint64_t on[MAX_GAPS];
        int m = 0;
        for (int j = 0; j < n; j++)
            if (!used[j] && near_grid(gaps[j], found.phase_ns, found.period_ns)) {
                used[j] = 1;
                on[m++] = lengths[j];
            }
        if (t->n == 0 && m > 0) {
            qsort(on, (size_t)m, sizeof on[0], by_value);
            t->median_gap_ns = on[m / 2];
        }
        t->series[t->n++] = found;
    }
}

void lt_ticks_learn(lt_ticks *t)
{
    static uint64_t gaps[MAX_GAPS], lengths[MAX_GAPS];
    uint64_t start = lt_now_ns(), end = start + TICKS_LEARN_NS, last = start, now;
    int n = 0;
    while ((now = lt_now_ns()) < end) {
        if (now - last > GAP_NS && n < MAX_GAPS) {
            gaps[n] = last;
            lengths[n++] = now - last;
        }
        last = now;
    }
    lt_ticks_find(t, gaps, lengths, n, start, end);
}

uint64_t lt_ticks_clear(const lt_ticks *t, uint64_t at)
{
    uint64_t clear = UINT64_MAX;
    for (int i = 0; i < t->n; i++) {
        uint64_t left = t->series[i].period_ns - offset(at, t->series[i].phase_ns, t->series[i].period_ns);
        if (left < clear)
            clear = left;
    }
    return clear;
}

int lt_ticks_fits(const lt_ticks *t, uint64_t expect_ns)
{
    if (t->n == 0)
        return 0;
    for (int i = 0; i < t->n; i++)
        if (TICKS_AFTER_NS + expect_ns + TICKS_GUARD_NS > t->series[i].period_ns)
            return 0;
    return 1;
}

uint64_t lt_ticks_next_start(const lt_ticks *t, uint64_t at, uint64_t expect_ns)
{
    if (!lt_ticks_fits(t, expect_ns))
        return UINT64_MAX;
    /* Each series pushes the start past its own next interruption; two series may push
     * each other a few times before both leave room (bounded: they need not ever). */
    for (int round = 0; round < 64; round++) {
        int moved = 0;
        for (int i = 0; i < t->n; i++) {
            const lt_series *s = &t->series[i];
            uint64_t since = offset(at, s->phase_ns, s->period_ns);
            if (since < TICKS_AFTER_NS) {
                at += TICKS_AFTER_NS - since;
                moved = 1;
            } else if (since + expect_ns + TICKS_GUARD_NS > s->period_ns) {
                at += s->period_ns - since + TICKS_AFTER_NS;
                moved = 1;
            }
        }
        if (!moved)
            return at;
    }
    return UINT64_MAX;
}

int lt_ticks_dodge(const lt_ticks *t, uint64_t expect_ns)
{
    uint64_t begin = lt_now_ns();
    for (;;) {
        uint64_t now = lt_now_ns(), start = lt_ticks_next_start(t, now, expect_ns);
        if (start == now)
            return 1;
        if (start == UINT64_MAX || start - begin > TICKS_MAX_WAIT_NS)
            return 0;
        while (lt_now_ns() < start)   /* a spin, not a sleep: a wake-up is late by more than a window */
            ;
        /* Past the start now; clear still, unless the spin was held up past the room. */
    }
}

void lt_ticks_json(const lt_ticks *t, FILE *f)
{
    fprintf(f, "{\"learn_ns\":%llu,\"gaps\":%d,\"median_gap_ns\":%llu,\"after_ns\":%llu,\"guard_ns\":%llu,"
            "\"max_wait_ns\":%llu,\"series\":[", TICKS_LEARN_NS, t->gaps, (unsigned long long)t->median_gap_ns,
            TICKS_AFTER_NS, TICKS_GUARD_NS, TICKS_MAX_WAIT_NS);
    for (int i = 0; i < t->n; i++)
        fprintf(f, "%s{\"period_ns\":%llu,\"hit\":%d,\"points\":%d}", i ? "," : "",
                (unsigned long long)t->series[i].period_ns, t->series[i].hit, t->series[i].points);
    fputc(']', f);
    fputc('}', f);
}

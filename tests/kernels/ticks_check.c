/* Drives the launch timer's search for periodic interruptions (native/ticks.c) with
 * synthetic gaps, for tests/test_launch_ticks.py: nothing is spun on or timed.
 *
 * Usage: ticks_check < input. The first line is "START END" (the time spun, in ns); each
 * further line one gap, "AT LENGTH". Prints the series found as the timer's descriptor
 * holds them, then, for each "clear AT" line after a line "-", the time from AT to the
 * next interruption of any series, and for each "start AT EXPECT" line the earliest time
 * from AT on at which a launch of EXPECT ns starts clear of them all (or "none"). */
#include "ticks.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    static uint64_t gaps[MAX_GAPS + 100], lengths[MAX_GAPS + 100];
    uint64_t start, end, at, length;
    if (scanf("%" SCNu64 " %" SCNu64, &start, &end) != 2)
        return 2;
    int n = 0;
    char word[16];
    while (n < MAX_GAPS + 100 && scanf("%" SCNu64 " %" SCNu64, &at, &length) == 2) {
        gaps[n] = at;
        lengths[n++] = length;
    }
    lt_ticks t;
    lt_ticks_find(&t, gaps, lengths, n, start, end);
    lt_ticks_json(&t, stdout);
    printf("\n");
    uint64_t expect;
    while (scanf("%15s %" SCNu64, word, &at) == 2) {
        if (strcmp(word, "clear") == 0) {
            printf("%" PRIu64 "\n", lt_ticks_clear(&t, at));
        } else if (strcmp(word, "start") == 0 && scanf("%" SCNu64, &expect) == 1) {
            uint64_t start = lt_ticks_next_start(&t, at, expect);
            if (start == UINT64_MAX)
                printf("none\n");
            else
                printf("%" PRIu64 "\n", start);
        }
    }
    return 0;
}

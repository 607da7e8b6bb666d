/* Drives the launch timer's search for periodic interruptions (native/ticks.c) with
 * synthetic gaps, for tests/test_launch_ticks.py: nothing is spun on or timed.
 *
 * Usage: ticks_check < input. The first line is "START END" (the time spun, in ns); each
 * further line one gap, "AT LENGTH". Prints the series found as the timer's descriptor
 * holds them, then, for each "clear AT" line after a line "-", the time from AT to the
 * next interruption of any series. */
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
    while (scanf("%15s %" SCNu64, word, &at) == 2)
        if (strcmp(word, "clear") == 0)
            printf("%" PRIu64 "\n", lt_ticks_clear(&t, at));
    return 0;
}

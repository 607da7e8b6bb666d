/* Drives the launch timer's placement rule (native/placement.c) with synthetic launches,
 * for tests/test_launch_placement.py: no launch is made and nothing is timed.
 *
 * Usage: placement_check CPU < launches, one "RUNQ_WAIT_NS EXIT_NS" per line.
 * Prints one line per launch: "moved FROM TO" or "stay", then the CPUs this process may
 * now run on ("cpus 0,1"), so the test sees the affinity the children would inherit. */
#define _GNU_SOURCE
#include "placement.h"

#include <stdio.h>

static void print_affinity(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
    const char *sep = " ";
    printf("cpus");
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) {
            printf("%s%d", sep, c);
            sep = ",";
        }
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    int cpu;
    if (sscanf(argv[1], "%d", &cpu) != 1)
        return 2;
    lt_placement p;
    char why[128];
    printf("pinned %s (%s)\n", lt_place_start(&p, cpu, why, sizeof why), why);
    long long wait;
    unsigned long long exit_ns;
    while (scanf("%lld %llu", &wait, &exit_ns) == 2) {
        int from, to;
        if (lt_place_note(&p, wait, exit_ns, &from, &to))
            printf("moved %d %d\n", from, to);
        else
            printf("stay\n");
        print_affinity();
    }
    return 0;
}

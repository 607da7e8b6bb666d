/* Moving the launch timer off a contended CPU: see placement.h. */
#include "placement.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *lt_place_start(lt_placement *p, int cpu, char *why, size_t n)
{
    memset(p, 0, sizeof *p);
    p->cpu = -1;
    if (sched_getaffinity(0, sizeof p->allowed, &p->allowed) != 0) {
        CPU_ZERO(&p->allowed);
        snprintf(why, n, "sched_getaffinity: %s", strerror(errno));
        return "false";
    }
    if (cpu >= 0)   /* started by a parent that keeps itself off cpu, and so kept us off it too */
        CPU_SET(cpu, &p->allowed);
    p->ncpus = CPU_COUNT(&p->allowed);
    const char *pinned = lt_pin(cpu, why, n);
    if (strcmp(pinned, "true") == 0)
        p->cpu = cpu;
    return pinned;
}

/* The allowed CPU after `cpu`, wrapping around. */
static int next_allowed(const lt_placement *p, int cpu)
{
    for (int step = 1; step <= CPU_SETSIZE; step++) {
        int c = (cpu + step) % CPU_SETSIZE;
        if (CPU_ISSET(c, &p->allowed))
            return c;
    }
    return cpu;
}

int lt_place_note(lt_placement *p, long long runq_wait_ns, uint64_t exit_ns, int *from, int *to)
{
    if (p->cpu < 0)   /* not pinned: the scheduler already moves us */
        return 0;
    uint64_t threshold = exit_ns / 10 > PLACEMENT_MIN_WAIT_NS ? exit_ns / 10 : PLACEMENT_MIN_WAIT_NS;
    int waited = runq_wait_ns >= 0 && (uint64_t)runq_wait_ns > threshold;
    p->recent = ((p->recent << 1) | (unsigned)waited) & ((1u << PLACEMENT_WINDOW) - 1);
    if (__builtin_popcount(p->recent) < PLACEMENT_CONTENDED)
        return 0;
    *from = p->cpu;
    p->moves++;
    p->recent = 0;
    if (p->moves >= p->ncpus) {   /* every allowed CPU was contended: let the scheduler choose */
        if (sched_setaffinity(0, sizeof p->allowed, &p->allowed) == 0)
            p->cpu = -1;
    } else {
        int next = next_allowed(p, p->cpu);
        char why[128];
        if (strcmp(lt_pin(next, why, sizeof why), "true") == 0)
            p->cpu = next;
    }
    *to = p->cpu;
    return *from != *to;
}

long long lt_runq_wait(int fd)
{
    char buf[128];
    ssize_t n = fd < 0 ? -1 : pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    unsigned long long on_cpu, waited;
    if (sscanf(buf, "%llu %llu", &on_cpu, &waited) != 2)
        return -1;
    return (long long)waited;
}

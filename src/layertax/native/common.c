/* Small pieces shared by the timing harness and the launch timer. */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

uint64_t lt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void lt_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

const char *lt_pin(int cpu, char *why, size_t n)
{
    if (cpu < 0) { snprintf(why, n, "not requested"); return "false"; }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        snprintf(why, n, "sched_setaffinity: %s", strerror(errno));
        return "false";
    }
    snprintf(why, n, "cpu %d", cpu);
    return "true";
}

void lt_priority(int raise, char *what, size_t n)
{
    if (!raise) { snprintf(what, n, "unchanged (not requested)"); return; }
    if (setpriority(PRIO_PROCESS, 0, -10) == 0)
        snprintf(what, n, "nice -10");
    else
        snprintf(what, n, "unchanged (not permitted: %s)", strerror(errno));
}

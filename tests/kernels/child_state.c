/* What a program launched by the timer starts with, checked from inside it: the exit
 * status has one bit per check that failed (0: all as promised). Built by
 * tests/test_launch_child.py. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The hex mask on a "Name:" line of /proc/self/status, or ~0 if absent. */
static unsigned long long status_mask(const char *name)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long mask = ~0ull;
    size_t n = strlen(name);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, name, n) == 0 && line[n] == ':')
            mask = strtoull(line + n + 1, NULL, 16);
    if (f)
        fclose(f);
    return mask;
}

static int link_is(int fd, const char *prefix)
{
    char path[64], target[256];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n < 0)
        return 0;
    target[n] = '\0';
    return strncmp(target, prefix, strlen(prefix)) == 0;
}

/* Only 0, 1, 2, 200 and 201 open (and the one opendir holds while it reads). */
static int only_expected_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 0;
    int ok = 1;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            int fd = atoi(e->d_name);
            if (fd > 2 && fd != 200 && fd != 201 && fd != dirfd(d))
                ok = 0;
        }
    closedir(d);
    return ok;
}

int main(void)
{
    int failed = 0;
    unsigned long long ignored = status_mask("SigIgn");
    if (ignored != 0) {                  /* every signal at its default, none ignored */
        failed |= 1;
        const char *report = getenv("CHILD_STATE_REPORT");   /* stdio is /dev/null: say it there */
        FILE *f = report ? fopen(report, "a") : NULL;
        if (f) {
            fprintf(f, "SigIgn %llx\n", ignored);
            fclose(f);
        }
    }
    if (status_mask("SigBlk") != 0)
        failed |= 2;                     /* nothing blocked */
    if (getpgrp() != getpid())
        failed |= 4;                     /* a process group of its own */
    if (!link_is(0, "/dev/null") || !link_is(1, "/dev/null") || !link_is(2, "/dev/null"))
        failed |= 8;
    if (!link_is(200, "pipe:") || !link_is(201, "pipe:"))
        failed |= 16;                    /* the stamp pipes */
    const char *fd = getenv("LAYERTAX_STAMP_FD");
    if (!fd || strcmp(fd, "200") != 0)
        failed |= 32;
    if (!only_expected_fds())
        failed |= 64;                    /* nothing of the timer's leaked in */
    return failed;
}

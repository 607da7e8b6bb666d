/* The stamp library: preloaded (LD_PRELOAD) into a program that does not stamp
 * itself, it writes one CLOCK_MONOTONIC reading to the file descriptor named in
 * LAYERTAX_STAMP_FD from its constructor.
 *
 * What the stamp marks: the loader has mapped and relocated every object (with
 * lazy binding, PLT slots are bound later, on first call) and has begun running
 * initialisers. A preloaded library depends only on libc, so its constructor
 * runs right after libc's, before those of the program's other libraries and of
 * the program itself. So spawn->stamp is exec plus loading, and excludes almost
 * all constructors. Its own cost (one more object to map, one constructor) is
 * measured against an empty program and reported beside every figure. */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

__attribute__((constructor)) static void layertax_stamp(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    const char *fd = getenv("LAYERTAX_STAMP_FD");
    if (!fd)
        return;
    long long ns = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    if (write(atoi(fd), &ns, sizeof ns) != (ssize_t)sizeof ns)
        return;  /* nothing to report to: the timer sees no stamp */
}

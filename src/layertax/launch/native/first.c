/* The first constructor: a library with no dependencies at all (not even libc),
 * named as a DT_NEEDED of the stamp library's phases build (stamp.c).
 *
 * Why it runs first: glibc initialises objects so that every object's
 * dependencies are initialised before it, and among objects that do not depend
 * on each other, in the reverse of their load order. An object that depends on
 * nothing and is loaded last (a dependency of the preloaded stamp library comes
 * after the program's own libraries and libc) is initialised before every other
 * object, libc included. So its stamp marks the end of loading and relocation and
 * the start of the constructors. layertax checks the order in each inspect run
 * with LD_DEBUG=files ("calling init: ..." lines) instead of trusting this.
 *
 * With no libc there is no vDSO clock_gettime and no getenv: the clock is read
 * with a raw system call (a few hundred ns, paid once), and the descriptor is
 * found in the environment glibc hands to every initialiser. */
#include "rawsys.h"

#define PHASE_FIRST_INIT 1

#ifdef LT_SYS_WRITE
__attribute__((constructor)) static void layertax_first_init(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)argv;
    unsigned long long record[2] = {PHASE_FIRST_INIT, lt_raw_now_ns()};
    int fd = lt_env_fd(envp, "LAYERTAX_PHASE_FD");
    if (record[1] && fd >= 0)
        lt_raw_syscall3(LT_SYS_WRITE, fd, (long)record, sizeof record);
}
#endif

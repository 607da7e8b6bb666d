/* A program that leaves processes running, as a daemon does: one child leaves the process
 * group with setsid() and forks a grandchild; another child stays in the group. Both sleep
 * for a long time, named by the marker given as argv[1] (their argv[0]), so a test can
 * find any that survive. Exits at once itself. */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *marker = argc > 1 ? argv[1] : "layertax-daemon-marker";
    if (fork() == 0) {
        setsid();
        if (fork() == 0)
            execlp("sleep", marker, "600", (char *)0);
        _exit(0);
    }
    if (fork() == 0)
        execlp("sleep", marker, "600", (char *)0);
    return 0;
}

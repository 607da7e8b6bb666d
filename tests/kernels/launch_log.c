/* A program for the launch timer's tests: appends its tag (argv[2]) to the log file
 * argv[1], so the log holds every launch the timer made, untimed ones too, in order;
 * then exits with status argv[3] (0 if absent). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, argv[2], strlen(argv[2])) != (ssize_t)strlen(argv[2]))
        return 2;
    close(fd);
    return argc > 3 ? atoi(argv[3]) : 0;
}

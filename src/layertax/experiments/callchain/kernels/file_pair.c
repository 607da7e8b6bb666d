#define _GNU_SOURCE
#include "file_pair.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

file_pair FP;

/* Written into the file so verify can tell it is still the same file. */
static const char MARKER[] = "layertax callchain marker\n";

int file_pair_setup(lt_ctx *ctx)
{
    if (!ctx->dir)
        return lt_fail(ctx, LT_FAIL, "--dir is required: rename cases work only in a private directory");
    if (snprintf(FP.a, sizeof FP.a, "%s/layertax-file-a", ctx->dir) >= (int)sizeof FP.a ||
        snprintf(FP.b, sizeof FP.b, "%s/layertax-file-b", ctx->dir) >= (int)sizeof FP.b)
        return lt_fail(ctx, LT_FAIL, "directory path too long");
    int fd = open(FP.a, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0)
        return lt_fail(ctx, LT_FAIL, "create %s: %s", FP.a, strerror(errno));
    ssize_t w = write(fd, MARKER, sizeof MARKER - 1);
    struct stat st;
    int ok = w == (ssize_t)(sizeof MARKER - 1) && fstat(fd, &st) == 0;
    close(fd);
    if (!ok)
        return lt_fail(ctx, LT_FAIL, "write %s: %s", FP.a, strerror(errno));
    FP.inode = st.st_ino;
    if (access(FP.b, F_OK) == 0)
        return lt_fail(ctx, LT_FAIL, "%s already exists", FP.b);
    return LT_OK;
}

int file_pair_verify(lt_ctx *ctx)
{
    struct stat st;
    if (stat(FP.a, &st) != 0)
        return lt_fail(ctx, LT_FAIL, "after the loop %s is missing: %s", FP.a, strerror(errno));
    if (st.st_ino != FP.inode)
        return lt_fail(ctx, LT_FAIL, "%s is a different file (inode %lu, expected %lu)",
                       FP.a, (unsigned long)st.st_ino, (unsigned long)FP.inode);
    if (access(FP.b, F_OK) == 0 || errno != ENOENT)
        return lt_fail(ctx, LT_FAIL, "after the loop %s still exists", FP.b);
    char buf[sizeof MARKER];
    int fd = open(FP.a, O_RDONLY | O_CLOEXEC);
    ssize_t r = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
    if (fd >= 0)
        close(fd);
    if (r != (ssize_t)(sizeof MARKER - 1) || memcmp(buf, MARKER, sizeof MARKER - 1) != 0)
        return lt_fail(ctx, LT_FAIL, "%s lost its contents", FP.a);
    return LT_OK;
}

void file_pair_teardown(lt_ctx *ctx)
{
    (void)ctx;
    unlink(FP.a);
    unlink(FP.b);
}

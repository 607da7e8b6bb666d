/* A file and a second name for it, inside the engine's private directory.
 * Every rename case moves the file from a to b and back; after each sample the
 * file must be at a (same inode, same contents) and b must not exist. */
#ifndef LAYERTAX_FILE_PAIR_H
#define LAYERTAX_FILE_PAIR_H
#include "harness.h"
#include <sys/types.h>

typedef struct file_pair {
    char a[4096];
    char b[4096];
    ino_t inode;
} file_pair;

extern file_pair FP;

int file_pair_setup(lt_ctx *ctx);
int file_pair_verify(lt_ctx *ctx);
void file_pair_teardown(lt_ctx *ctx);

#endif

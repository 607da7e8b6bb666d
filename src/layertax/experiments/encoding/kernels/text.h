/* The deterministic sample texts of the throughput cases (the same generator as text.py). */
#ifndef LAYERTAX_TEXT_H
#define LAYERTAX_TEXT_H

#include <stddef.h>

/* "ascii", "latin" (Latin-1 and Cyrillic, with ASCII), "cjk" (Chinese, some ASCII), "emoji". */
int lt_text_kind(const char *name);

/* Fills buf with exactly size bytes of valid UTF-8 of the given kind: texts up to
 * 64 KiB are generated, longer ones repeat the 64 KiB text (padding with spaces keeps
 * every block on a character boundary). Returns 0, or -1 for an unknown kind or a
 * size above 64 KiB that is not a multiple of it. */
int lt_text_fill(int kind, unsigned char *buf, size_t size);

#endif

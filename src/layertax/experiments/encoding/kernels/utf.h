/* A straightforward UTF-8 <-> UTF-32 converter, written out by hand: the
 * "no library" contender against glibc's mbstowcs/wcstombs and iconv. */
#ifndef LAYERTAX_UTF_H
#define LAYERTAX_UTF_H

#include <stddef.h>
#include <stdint.h>

/* Decodes len bytes of UTF-8 into at most cap code points. Returns the number
 * of code points, or -1 if the input is not valid UTF-8 (overlong forms,
 * surrogates, values above U+10FFFF, stray or missing continuation bytes,
 * a sequence cut short at the end) or does not fit. */
long lt_utf8_decode(const unsigned char *src, size_t len, uint32_t *dst, size_t cap);

/* Encodes n code points as UTF-8 into at most cap bytes. Returns the number of
 * bytes, or -1 for a surrogate or a value above U+10FFFF, or if it does not fit. */
long lt_utf8_encode(const uint32_t *src, size_t n, unsigned char *dst, size_t cap);

#endif

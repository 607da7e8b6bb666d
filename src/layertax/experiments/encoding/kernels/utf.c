/* The hand-written converter (see utf.h). One code point per step; ASCII runs
 * take the one-byte branch, which the branch predictor learns, so ASCII text
 * is its best case, as the 16-characters-at-a-time fast path was NT's. */
#include "utf.h"

long lt_utf8_decode(const unsigned char *src, size_t len, uint32_t *dst, size_t cap)
{
    size_t i = 0, n = 0;
    while (i < len) {
        if (n == cap)
            return -1;
        unsigned c = src[i];
        if (c < 0x80) {
            dst[n++] = c;
            i += 1;
            continue;
        }
        uint32_t cp, min;
        size_t extra;
        if ((c & 0xE0) == 0xC0) {
            cp = c & 0x1F, extra = 1, min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            cp = c & 0x0F, extra = 2, min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            cp = c & 0x07, extra = 3, min = 0x10000;
        } else {
            return -1; /* a continuation byte where a sequence should start, or 0xF8-0xFF */
        }
        if (len - i <= extra)
            return -1; /* cut short */
        for (size_t k = 1; k <= extra; k++) {
            unsigned cc = src[i + k];
            if ((cc & 0xC0) != 0x80)
                return -1;
            cp = (cp << 6) | (cc & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return -1; /* overlong, out of range, or a surrogate */
        dst[n++] = cp;
        i += extra + 1;
    }
    return (long)n;
}

long lt_utf8_encode(const uint32_t *src, size_t n, unsigned char *dst, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t cp = src[i];
        if (cp < 0x80) {
            if (o + 1 > cap)
                return -1;
            dst[o++] = (unsigned char)cp;
        } else if (cp < 0x800) {
            if (o + 2 > cap)
                return -1;
            dst[o++] = (unsigned char)(0xC0 | (cp >> 6));
            dst[o++] = (unsigned char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            if (cp >= 0xD800 && cp <= 0xDFFF)
                return -1;
            if (o + 3 > cap)
                return -1;
            dst[o++] = (unsigned char)(0xE0 | (cp >> 12));
            dst[o++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
            dst[o++] = (unsigned char)(0x80 | (cp & 0x3F));
        } else if (cp <= 0x10FFFF) {
            if (o + 4 > cap)
                return -1;
            dst[o++] = (unsigned char)(0xF0 | (cp >> 18));
            dst[o++] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
            dst[o++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
            dst[o++] = (unsigned char)(0x80 | (cp & 0x3F));
        } else {
            return -1;
        }
    }
    return (long)o;
}

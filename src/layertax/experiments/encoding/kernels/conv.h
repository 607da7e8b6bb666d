/* The three ways a shim converts between wchar_t (UTF-32 on Linux) and the
 * locale's multibyte encoding (UTF-8 here): glibc's wcstombs/mbstowcs, iconv,
 * and the hand-written loop of utf.c. One interface, so each shim can use any. */
#ifndef LAYERTAX_CONV_H
#define LAYERTAX_CONV_H

#include <stddef.h>
#include <wchar.h>

typedef struct lt_conv {
    const char *name;
    /* NUL-terminated wide string -> NUL-terminated UTF-8 in dst; bytes (without the NUL) or -1 */
    long (*to_bytes)(char *dst, size_t cap, const wchar_t *src);
    /* len bytes of UTF-8 -> NUL-terminated wide string in dst; characters or -1 */
    long (*to_wide)(wchar_t *dst, size_t cap, const char *src, size_t len);
} lt_conv;

extern const lt_conv LT_CONV_WCS, LT_CONV_ICONV, LT_CONV_HAND;

/* Selects C.UTF-8 (so wcstombs speaks UTF-8 whatever the user's locale) and opens
 * the iconv descriptors. Returns 0, or -1 with the reason in why. */
int lt_conv_init(char *why, size_t why_len);

/* The converter named name ("wcs", "iconv", "hand"), or NULL. */
const lt_conv *lt_conv_by_name(const char *name);

#endif

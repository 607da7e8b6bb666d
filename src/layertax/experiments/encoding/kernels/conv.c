/* The converters of conv.h. */
#include "conv.h"
#include "utf.h"

#include <errno.h>
#include <iconv.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static iconv_t to_bytes_cd = (iconv_t)-1, to_wide_cd = (iconv_t)-1;

int lt_conv_init(char *why, size_t why_len)
{
    if (!setlocale(LC_ALL, "C.UTF-8")) {
        snprintf(why, why_len, "setlocale(LC_ALL, \"C.UTF-8\") failed: this glibc has no C.UTF-8 locale");
        return -1;
    }
    to_bytes_cd = iconv_open("UTF-8", "WCHAR_T");
    to_wide_cd = iconv_open("WCHAR_T", "UTF-8");
    if (to_bytes_cd == (iconv_t)-1 || to_wide_cd == (iconv_t)-1) {
        snprintf(why, why_len, "iconv_open(UTF-8 <-> WCHAR_T): %s", strerror(errno));
        return -1;
    }
    return 0;
}

static long wcs_to_bytes(char *dst, size_t cap, const wchar_t *src)
{
    size_t n = wcstombs(dst, src, cap);
    if (n == (size_t)-1 || n >= cap)
        return -1;
    return (long)n;
}

static long wcs_to_wide(wchar_t *dst, size_t cap, const char *src, size_t len)
{
    (void)len; /* mbstowcs reads up to the NUL every caller supplies */
    size_t n = mbstowcs(dst, src, cap);
    if (n == (size_t)-1 || n >= cap)
        return -1;
    return (long)n;
}

static long iconv_to_bytes(char *dst, size_t cap, const wchar_t *src)
{
    char *in = (char *)src, *out = dst;
    size_t inleft = wcslen(src) * sizeof(wchar_t), outleft = cap - 1;
    if (iconv(to_bytes_cd, &in, &inleft, &out, &outleft) == (size_t)-1)
        return -1;
    *out = '\0';
    return (long)(out - dst);
}

static long iconv_to_wide(wchar_t *dst, size_t cap, const char *src, size_t len)
{
    char *in = (char *)src, *out = (char *)dst;
    size_t inleft = len, outleft = (cap - 1) * sizeof(wchar_t);
    if (iconv(to_wide_cd, &in, &inleft, &out, &outleft) == (size_t)-1)
        return -1;
    size_t n = (size_t)(out - (char *)dst) / sizeof(wchar_t);
    dst[n] = L'\0';
    return (long)n;
}

/* wchar_t is UTF-32 on Linux, so the hand-written loop works on it directly. */
_Static_assert(sizeof(wchar_t) == sizeof(uint32_t), "wchar_t must be 32 bits");

static long hand_to_bytes(char *dst, size_t cap, const wchar_t *src)
{
    long n = lt_utf8_encode((const uint32_t *)src, wcslen(src), (unsigned char *)dst, cap - 1);
    if (n >= 0)
        dst[n] = '\0';
    return n;
}

static long hand_to_wide(wchar_t *dst, size_t cap, const char *src, size_t len)
{
    long n = lt_utf8_decode((const unsigned char *)src, len, (uint32_t *)dst, cap - 1);
    if (n >= 0)
        dst[n] = L'\0';
    return n;
}

const lt_conv LT_CONV_WCS = {"wcs", wcs_to_bytes, wcs_to_wide};
const lt_conv LT_CONV_ICONV = {"iconv", iconv_to_bytes, iconv_to_wide};
const lt_conv LT_CONV_HAND = {"hand", hand_to_bytes, hand_to_wide};

const lt_conv *lt_conv_by_name(const char *name)
{
    const lt_conv *all[] = {&LT_CONV_WCS, &LT_CONV_ICONV, &LT_CONV_HAND};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

/* encoding, throughput: each converter on its own, on a text of a given kind and
 * size, against memcpy of the same bytes (the physical ceiling, measured in the
 * same run). One operation converts the whole text once; bytes_per_op is the
 * text's UTF-8 size, so every row reads as GB/s of UTF-8 text whichever side it
 * starts from. After each sample the output is converted back (with another
 * converter where one exists) and compared with the text: a round trip.
 *
 * Case names: tp-<converter>-<kind>-<size>, converter one of memcpy, mbstowcs,
 * wcstombs, iconv-u8-u16, iconv-u16-u8, iconv-u8-u32, iconv-u32-u8, hand-decode,
 * hand-encode; kind ascii, latin, cjk, emoji; size 16, 256, 64k, 16m. */
#define _GNU_SOURCE
#include "harness.h"
#include "text.h"
#include "utf.h"

#include <errno.h>
#include <iconv.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

enum conv { MEMCPY, MBSTOWCS, WCSTOMBS, U8_U16, U16_U8, U8_U32, U32_U8, HAND_DECODE, HAND_ENCODE };
static const char *const CONVS[] = {"memcpy", "mbstowcs", "wcstombs", "iconv-u8-u16", "iconv-u16-u8",
                                    "iconv-u8-u32", "iconv-u32-u8", "hand-decode", "hand-encode"};

typedef struct state {
    enum conv conv;
    size_t size, chars;
    unsigned char *u8;       /* the text, NUL-terminated */
    wchar_t *wide;           /* the text as wchar_t (UTF-32), NUL-terminated (wide inputs only) */
    unsigned char *u16;      /* the text as UTF-16LE (the UTF-16 converters only) */
    size_t u16_len;
    unsigned char *out;      /* the converter's output */
    size_t out_cap, out_len;
    unsigned char *check;    /* the round trip's output (UTF-8) */
    size_t check_cap;
    iconv_t cd, back;        /* iconv: there and back */
} state;

static int parse_size(const char *s, size_t *out)
{
    if (strcmp(s, "16") == 0)
        *out = 16;
    else if (strcmp(s, "256") == 0)
        *out = 256;
    else if (strcmp(s, "64k") == 0)
        *out = 65536;
    else if (strcmp(s, "16m") == 0)
        *out = 16u << 20;
    else
        return -1;
    return 0;
}

/* Runs iconv over a whole buffer; the output length, or -1. */
static long iconv_all(iconv_t cd, const void *in, size_t in_len, void *out, size_t cap)
{
    char *ip = (char *)in, *op = out;
    size_t il = in_len, ol = cap;
    iconv(cd, NULL, NULL, NULL, NULL);
    if (iconv(cd, &ip, &il, &op, &ol) == (size_t)-1)
        return -1;
    return (long)(op - (char *)out);
}

static int setup(lt_ctx *ctx)
{
    if (!setlocale(LC_ALL, "C.UTF-8"))
        return lt_fail(ctx, LT_SKIP, "this glibc has no C.UTF-8 locale");
    char conv[32], kind[16], size_s[16];
    if (sscanf(ctx->case_name, "tp-%31[a-z0-9-]", conv) != 1)
        return lt_fail(ctx, LT_FAIL, "unknown case %s", ctx->case_name);
    /* split "<conv>-<kind>-<size>" from the right: conv may contain dashes */
    char *last = strrchr(conv, '-');
    if (!last)
        return lt_fail(ctx, LT_FAIL, "unknown case %s", ctx->case_name);
    snprintf(size_s, sizeof size_s, "%s", last + 1);
    *last = '\0';
    char *mid = strrchr(conv, '-');
    if (!mid)
        return lt_fail(ctx, LT_FAIL, "unknown case %s", ctx->case_name);
    snprintf(kind, sizeof kind, "%s", mid + 1);
    *mid = '\0';
    state *st = calloc(1, sizeof *st);
    if (!st)
        return lt_fail(ctx, LT_FAIL, "out of memory");
    ctx->state = st;
    st->cd = st->back = (iconv_t)-1;
    int k = lt_text_kind(kind);
    st->conv = (enum conv)-1;
    for (int i = 0; i < (int)(sizeof CONVS / sizeof CONVS[0]); i++)
        if (strcmp(CONVS[i], conv) == 0)
            st->conv = (enum conv)i;
    if (k < 0 || (int)st->conv < 0 || parse_size(size_s, &st->size) != 0)
        return lt_fail(ctx, LT_FAIL, "unknown case %s", ctx->case_name);
    size_t n = st->size;
    /* Each converter gets only the buffers it reads and writes, sized for its output: at
     * 16 MiB, first touches of buffers a case never used (a UTF-32 and a UTF-16 copy, and
     * 64 MiB outputs for UTF-8 results) made up most of a process's 0.2-0.5 s, and a
     * round runs 44 such processes. What the timed loop touches is the same as before. */
    int needs_wide = st->conv == WCSTOMBS || st->conv == U32_U8 || st->conv == HAND_ENCODE;
    int needs_u16 = st->conv == U8_U16 || st->conv == U16_U8;
    st->u8 = malloc(n + 1);
    if (!st->u8)
        return lt_fail(ctx, LT_FAIL, "out of memory for %zu bytes", n);
    lt_text_fill(k, st->u8, n);
    st->u8[n] = '\0';
    for (size_t i = 0; i < n; i++)
        st->chars += (st->u8[i] & 0xC0) != 0x80; /* code points, counted independently of any converter */
    if (needs_wide) {
        st->wide = malloc((st->chars + 1) * sizeof(wchar_t));
        if (!st->wide)
            return lt_fail(ctx, LT_FAIL, "out of memory for %zu code points", st->chars);
        long c = lt_utf8_decode(st->u8, n, (uint32_t *)st->wide, st->chars + 1);
        if (c != (long)st->chars)
            return lt_fail(ctx, LT_FAIL, "the sample text does not decode");
        st->wide[c] = L'\0';
    }
    if (needs_u16) {
        st->u16 = malloc(4 * st->chars + 4);   /* at most two UTF-16 units per code point */
        iconv_t to16 = iconv_open("UTF-16LE", "UTF-8");
        if (!st->u16)
            return lt_fail(ctx, LT_FAIL, "out of memory for %zu code points", st->chars);
        if (to16 == (iconv_t)-1)
            return lt_fail(ctx, LT_SKIP, "iconv_open(UTF-16LE, UTF-8): %s", strerror(errno));
        long l16 = iconv_all(to16, st->u8, n, st->u16, 4 * st->chars + 4);
        iconv_close(to16);
        if (l16 < 0)
            return lt_fail(ctx, LT_FAIL, "cannot make the UTF-16 text");
        st->u16_len = (size_t)l16;
    }
    switch (st->conv) {
    case MEMCPY:
        st->out_cap = n;
        break;
    case MBSTOWCS:
    case U8_U32:
    case HAND_DECODE:   /* code points, with room for the terminating L'\0' the checks write */
        st->out_cap = (st->chars + 1) * sizeof(wchar_t);
        break;
    case U8_U16:
        st->out_cap = st->u16_len + 8;
        break;
    default:            /* UTF-8 back from wide, UTF-16 or UTF-32 */
        st->out_cap = n + 8;
    }
    st->check_cap = n + 8;                     /* every round trip ends in UTF-8 */
    st->out = malloc(st->out_cap);
    st->check = malloc(st->check_cap);
    if (!st->out || !st->check)
        return lt_fail(ctx, LT_FAIL, "out of memory for %zu bytes", st->out_cap + st->check_cap);
    /* Touch the output now: malloc hands out untouched pages, and the first conversion into
     * them would otherwise pay a page fault per 4 KiB inside the timed region (at 16 MiB
     * that was 4,096 faults, and a first sample four times slower than the rest). Not zero:
     * GCC turns malloc + memset(0) into calloc, which leaves fresh pages untouched. */
    memset(st->out, 0xA5, st->out_cap);
    const char *pairs[][2] = {[U8_U16] = {"UTF-16LE", "UTF-8"}, [U16_U8] = {"UTF-8", "UTF-16LE"},
                              [U8_U32] = {"UTF-32LE", "UTF-8"}, [U32_U8] = {"UTF-8", "UTF-32LE"}};
    if (st->conv >= U8_U16 && st->conv <= U32_U8) {
        st->cd = iconv_open(pairs[st->conv][0], pairs[st->conv][1]);
        st->back = iconv_open(pairs[st->conv][1], pairs[st->conv][0]);
        if (st->cd == (iconv_t)-1 || st->back == (iconv_t)-1)
            return lt_fail(ctx, LT_SKIP, "iconv_open: %s", strerror(errno));
    }
    ctx->bytes_per_op = n;
    return LT_OK;
}

static int run(lt_ctx *ctx, uint64_t iters)
{
    state *st = ctx->state;
    size_t n = st->size;
    for (uint64_t i = 0; i < iters; i++) {
        long got = -1;
        switch (st->conv) {
        case MEMCPY:
            memcpy(st->out, st->u8, n);
            got = (long)n;
            break;
        case MBSTOWCS: {
            size_t r = mbstowcs((wchar_t *)st->out, (const char *)st->u8, st->out_cap / sizeof(wchar_t));
            got = r == (size_t)-1 ? -1 : (long)r;
            break;
        }
        case WCSTOMBS: {
            size_t r = wcstombs((char *)st->out, st->wide, st->out_cap);
            got = r == (size_t)-1 ? -1 : (long)r;
            break;
        }
        case U8_U16:
        case U8_U32:
            got = iconv_all(st->cd, st->u8, n, st->out, st->out_cap);
            break;
        case U16_U8:
            got = iconv_all(st->cd, st->u16, st->u16_len, st->out, st->out_cap);
            break;
        case U32_U8:
            got = iconv_all(st->cd, st->wide, st->chars * 4, st->out, st->out_cap);
            break;
        case HAND_DECODE:
            got = lt_utf8_decode(st->u8, n, (uint32_t *)st->out, st->out_cap / 4);
            break;
        case HAND_ENCODE:
            got = lt_utf8_encode((const uint32_t *)st->wide, st->chars, st->out, st->out_cap);
            break;
        }
        if (got < 0)
            return lt_fail(ctx, LT_FAIL, "%s failed: %s", CONVS[st->conv], strerror(errno));
        st->out_len = (size_t)got;
    }
    return LT_OK;
}

/* The round trip: the output back to UTF-8 by another route, compared with the text. */
static int verify(lt_ctx *ctx)
{
    state *st = ctx->state;
    size_t n = st->size;
    long back = -1;
    switch (st->conv) {
    case MEMCPY:
    case WCSTOMBS:
    case HAND_ENCODE:
    case U16_U8:
    case U32_U8:
        if (st->out_len != n || memcmp(st->out, st->u8, n) != 0)
            return lt_fail(ctx, LT_FAIL, "%s: the UTF-8 output differs from the text", CONVS[st->conv]);
        return LT_OK;
    case MBSTOWCS:
    case HAND_DECODE:
        if (st->out_len != st->chars)
            return lt_fail(ctx, LT_FAIL, "%s: %zu code points, not %zu", CONVS[st->conv], st->out_len, st->chars);
        if (st->conv == MBSTOWCS) { /* encode back by hand, decode back by glibc: never the same route */
            back = lt_utf8_encode((const uint32_t *)st->out, st->out_len, st->check, st->check_cap);
        } else {
            ((wchar_t *)st->out)[st->out_len] = L'\0';
            size_t r = wcstombs((char *)st->check, (const wchar_t *)st->out, st->check_cap);
            back = r == (size_t)-1 ? -1 : (long)r;
        }
        break;
    case U8_U16:
    case U8_U32:
        back = iconv_all(st->back, st->out, st->out_len, st->check, st->check_cap);
        if (st->conv == U8_U16 && (st->out_len != st->u16_len || memcmp(st->out, st->u16, st->u16_len) != 0))
            return lt_fail(ctx, LT_FAIL, "iconv-u8-u16: the UTF-16 output differs");
        if (st->conv == U8_U32 && st->out_len != st->chars * 4)
            return lt_fail(ctx, LT_FAIL, "iconv-u8-u32: %zu bytes, not %zu", st->out_len, st->chars * 4);
        break;
    }
    if (back != (long)n || memcmp(st->check, st->u8, n) != 0)
        return lt_fail(ctx, LT_FAIL, "%s: the round trip does not give the text back", CONVS[st->conv]);
    return LT_OK;
}

static void teardown(lt_ctx *ctx)
{
    state *st = ctx->state;
    if (!st)
        return;
    if (st->cd != (iconv_t)-1)
        iconv_close(st->cd);
    if (st->back != (iconv_t)-1)
        iconv_close(st->back);
    free(st->u8);
    free(st->wide);
    free(st->u16);
    free(st->out);
    free(st->check);
    free(st);
}

#define KINDS_X(c, s) "tp-" c "-ascii-" s, "tp-" c "-latin-" s, "tp-" c "-cjk-" s, "tp-" c "-emoji-" s
#define SIZES_X(c) KINDS_X(c, "16"), KINDS_X(c, "256"), KINDS_X(c, "64k"), KINDS_X(c, "16m")
static const char *const NAMES[] = {
    SIZES_X("memcpy"), SIZES_X("mbstowcs"), SIZES_X("wcstombs"), SIZES_X("iconv-u8-u16"), SIZES_X("iconv-u16-u8"),
    SIZES_X("iconv-u8-u32"), SIZES_X("iconv-u32-u8"), SIZES_X("hand-decode"), SIZES_X("hand-encode"),
};
#define NCASES (sizeof NAMES / sizeof NAMES[0])

int main(int argc, char **argv)
{
    static lt_case cases[NCASES];
    for (size_t i = 0; i < NCASES; i++)
        cases[i] = (lt_case){NAMES[i], "one conversion of the whole text", 1, setup, run, verify, teardown};
    return lt_main(argc, argv, "encoding-throughput", cases, NCASES);
}

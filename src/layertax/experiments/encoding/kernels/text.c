/* The sample texts (text.h). The generator is xorshift64, so text.py makes the
 * very same bytes for the Python cases. */
#include "text.h"

#include <stdint.h>
#include <string.h>

#define BLOCK 65536

static const char *const KINDS[] = {"ascii", "latin", "cjk", "emoji"};

int lt_text_kind(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(KINDS[i], name) == 0)
            return i;
    return -1;
}

static uint32_t pick(int kind, uint64_t r)
{
    unsigned roll = (unsigned)(r % 100);
    uint64_t v = r >> 16;
    uint32_t ascii = 0x20 + (uint32_t)(v % 95);
    switch (kind) {
    case 1:
        return roll < 30 ? ascii : roll < 65 ? 0xC0 + (uint32_t)(v % 64) : 0x410 + (uint32_t)(v % 64);
    case 2:
        return roll < 10 ? ascii : 0x4E00 + (uint32_t)(v % 0x5200);
    case 3:
        return roll < 10 ? ascii : 0x1F600 + (uint32_t)(v % 80);
    default:
        return ascii;
    }
}

static size_t utf8_len(uint32_t cp)
{
    return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

static void generate(int kind, unsigned char *buf, size_t size)
{
    uint64_t x = 0x9E3779B97F4A7C15ull ^ (uint64_t)(kind + 1);
    size_t o = 0;
    for (;;) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint32_t cp = pick(kind, x);
        size_t n = utf8_len(cp);
        if (o + n > size)
            break;
        if (n == 1) {
            buf[o] = (unsigned char)cp;
        } else if (n == 2) {
            buf[o] = (unsigned char)(0xC0 | (cp >> 6));
            buf[o + 1] = (unsigned char)(0x80 | (cp & 0x3F));
        } else if (n == 3) {
            buf[o] = (unsigned char)(0xE0 | (cp >> 12));
            buf[o + 1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
            buf[o + 2] = (unsigned char)(0x80 | (cp & 0x3F));
        } else {
            buf[o] = (unsigned char)(0xF0 | (cp >> 18));
            buf[o + 1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
            buf[o + 2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
            buf[o + 3] = (unsigned char)(0x80 | (cp & 0x3F));
        }
        o += n;
    }
    memset(buf + o, ' ', size - o);
}

int lt_text_fill(int kind, unsigned char *buf, size_t size)
{
    if (kind < 0 || kind > 3 || (size > BLOCK && size % BLOCK))
        return -1;
    if (size <= BLOCK) {
        generate(kind, buf, size);
        return 0;
    }
    generate(kind, buf, BLOCK);
    for (size_t o = BLOCK; o < size; o += BLOCK)
        memcpy(buf + o, buf, BLOCK);
    return 0;
}

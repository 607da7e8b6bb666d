// Reaches tl_counter (defined in tl_ctor.cpp) through its TLS wrapper, once per call.
#include "tl_counter.h"

static __attribute__((noinline)) void bump()
{
    tl_counter.n++;
}

extern "C" void tl_ctor_run(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        bump();
        __asm__ volatile("" ::: "memory");
    }
}

extern "C" uint64_t tl_ctor_get(void)
{
    return tl_counter.constructed == 0x5eed ? tl_counter.n : UINT64_MAX;
}

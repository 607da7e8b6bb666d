// The C++ thread_local of the tls experiment: a counter with a non-trivial constructor.
#ifndef TL_COUNTER_H
#define TL_COUNTER_H
#include <cstdint>

struct Counter {
    uint64_t n;
    uint64_t constructed;
    Counter();   // defined out of line: the compiler must call it on each thread's first use
};

extern thread_local Counter tl_counter;
#endif

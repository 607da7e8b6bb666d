// Defines the thread_local Counter; it is used from another translation unit
// (tl_use.cpp), so every use there goes through the TLS wrapper function (_ZTW...),
// which checks whether this thread has constructed it yet.
#include "tl_counter.h"

Counter::Counter() : n(0), constructed(0x5eed) {}

thread_local Counter tl_counter;

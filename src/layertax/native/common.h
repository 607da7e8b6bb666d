/* Small pieces shared by the timing harness and the launch timer. */
#ifndef LAYERTAX_COMMON_H
#define LAYERTAX_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

uint64_t lt_now_ns(void);                               /* CLOCK_MONOTONIC in ns */
void lt_json_string(FILE *f, const char *s);            /* s as a JSON string literal */
/* Pins this process to cpu (< 0: do nothing); returns "true"/"false" and says why in `why`. */
const char *lt_pin(int cpu, char *why, size_t n);
/* Raises scheduling priority if asked and allowed; says what it got in `what`. */
void lt_priority(int raise, char *what, size_t n);

#endif

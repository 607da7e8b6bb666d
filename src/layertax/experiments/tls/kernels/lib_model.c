/* A shared library with one thread-local counter, built three ways (-ftls-model and
 * -mtls-dialect from the experiment): initial-exec, global-dynamic through
 * __tls_get_addr, and TLS descriptors. The kernel dlopens it and calls model_run.
 *
 * Each access is its own call to a static noinline function, so the compiler cannot
 * hoist the address lookup out of the loop: every iteration pays the model's full path
 * (the call itself is the same for every model and for the no-TLS floor). */
#include <stdint.h>

__thread uint64_t model_counter;   /* default visibility: global-dynamic unless told otherwise */

static __attribute__((noinline)) void bump(void)
{
    model_counter++;
}

void model_run(uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        bump();
        __asm__ volatile("" ::: "memory");
    }
}

uint64_t model_get(void)
{
    return model_counter;
}

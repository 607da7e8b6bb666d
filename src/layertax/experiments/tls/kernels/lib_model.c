/* A shared library with one thread-local counter, built three ways (-ftls-model and
 * -mtls-dialect from the experiment): initial-exec, global-dynamic through
 * __tls_get_addr, and TLS descriptors. The kernel dlopens it and calls model_run.
 *
 * Each access is its own call to a static noinline function, so the compiler cannot
 * hoist the address lookup out of the loop: every iteration pays the model's full path
 * (the call itself is the same for every model and for the no-TLS floor). */
#include <stdint.h>

__thread uint64_t model_counter;   /* default visibility: global-dynamic unless told otherwise */

#ifdef LAYERTAX_TLS_PAD
/* A TLS block larger than the surplus glibc keeps in static TLS for dlopened libraries
 * (glibc.rtld.optional_static_tls, 512 bytes by default): the loader must give this build
 * dynamic TLS, and its descriptors resolve through _dl_tlsdesc_dynamic. */
__attribute__((used)) __thread char model_pad[LAYERTAX_TLS_PAD];
#endif

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

/* Where this thread's counter lives (the kernel tells static TLS from dynamic by it). */
void *model_addr(void)
{
    return &model_counter;
}

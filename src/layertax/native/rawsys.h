/* Raw system calls for the preloaded libraries (stamp.c, first.c): a call into libc
 * from a preloaded object costs a symbol lookup at its first use (a PLT slot bound
 * lazily), which is a cost the stamp would add to every program it measures; a raw
 * system call costs none. Only what the libraries need: write, fcntl, clock_gettime. */
#ifndef LAYERTAX_RAWSYS_H
#define LAYERTAX_RAWSYS_H

#if defined(__x86_64__)
static inline long lt_raw_syscall3(long n, long a, long b, long c)
{
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return ret;
}
#define LT_SYS_WRITE 1
#define LT_SYS_FCNTL 72
#define LT_SYS_CLOCK_GETTIME 228
#elif defined(__aarch64__)
static inline long lt_raw_syscall3(long n, long a, long b, long c)
{
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
    return x0;
}
#define LT_SYS_WRITE 64
#define LT_SYS_FCNTL 25
#define LT_SYS_CLOCK_GETTIME 113
#endif

#define LT_CLOCK_MONOTONIC 1
#define LT_F_SETFD 2
#define LT_FD_CLOEXEC 1

#ifdef LT_SYS_WRITE
/* CLOCK_MONOTONIC in ns (0 if the call failed). */
static inline unsigned long long lt_raw_now_ns(void)
{
    struct { long sec, nsec; } ts;
    if (lt_raw_syscall3(LT_SYS_CLOCK_GETTIME, LT_CLOCK_MONOTONIC, (long)&ts, 0) != 0)
        return 0;
    return (unsigned long long)ts.sec * 1000000000ULL + (unsigned long long)ts.nsec;
}

/* The number after KEY= in envp (the environment glibc hands every ELF initialiser); -1 if absent. */
static inline int lt_env_fd(char **envp, const char *key)
{
    for (; envp && *envp; envp++) {
        const char *e = *envp;
        unsigned i = 0;
        while (key[i] && e[i] == key[i])
            i++;
        if (key[i] || e[i] != '=')
            continue;
        int fd = 0;
        for (e += i + 1; *e >= '0' && *e <= '9'; e++)
            fd = fd * 10 + (*e - '0');
        return fd;
    }
    return -1;
}
#endif
#endif

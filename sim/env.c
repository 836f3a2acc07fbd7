// env.c: see env.h.
#include "env.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/resource.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../base/common.h"
#include "trace.h"

// OMP_STACKSIZE as libgomp reads it: a size, then B, K, M or G (K when absent), spaces around;
// 0 when it is not one (libgomp then warns and ignores it)
static unsigned long long omp_stack_bytes(const char* s) {
    char* end;
    while (*s == ' ' || *s == '\t') s++;
    if (*s < '0' || *s > '9') return 0;
    errno = 0;
    unsigned long long n = strtoull(s, &end, 10);
    if (errno) return 0;
    while (*end == ' ' || *end == '\t') end++;
    int shift = 10;
    switch (*end) {
        case 'b': case 'B': shift = 0, end++; break;
        case 'k': case 'K': shift = 10, end++; break;
        case 'm': case 'M': shift = 20, end++; break;
        case 'g': case 'G': shift = 30, end++; break;
    }
    while (*end == ' ' || *end == '\t') end++;
    if (*end || n > (ULLONG_MAX >> shift)) return 0;
    return n << shift;
}

// threads: also OpenMP's thread stacks (OMP_STACKSIZE, GOMP_STACKSIZE)
static int check_stack(int threads) {
    const char* names[] = {"OMP_STACKSIZE", "GOMP_STACKSIZE"};  // libgomp reads the second without the first
    for (int i = 0; threads && i < 2; i++) {
        const char* v = getenv(names[i]);
        if (!v) continue;
        unsigned long long b = omp_stack_bytes(v);
        if (b && b < (unsigned long long)STEPQ_STACK_MIN) {
            stepq_error("%s=%s gives each thread %llu KiB of stack; stepq needs at least %ld KiB (unset it, or set "
                        "it to 8M)", names[i], v, b >> 10, STEPQ_STACK_MIN >> 10);
            return STEPQ_ERR;
        }
        break;
    }
    struct rlimit r;
    if (!getrlimit(RLIMIT_STACK, &r) && r.rlim_cur != RLIM_INFINITY && r.rlim_cur < (rlim_t)STEPQ_STACK_MIN) {
        stepq_error("the stack limit (ulimit -s) is %llu KiB; stepq needs at least %ld KiB (ulimit -s 8192)",
                    (unsigned long long)r.rlim_cur >> 10, STEPQ_STACK_MIN >> 10);
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

// an environment variable that stepq would otherwise ignore: set but not a number in [lo, hi],
// by the parsers its reader uses (stepq_trace_chunk_steps, stepq_check_memory), so that what
// passes here is what the reader takes (STEPQ_TRACE_CHUNK=64.0 is refused, not ignored)
static int check_env_number(const char* name, double lo, double hi, int integer) {
    const char* v = getenv(name);
    if (!v) return STEPQ_OK;
    long long i;
    double x;
    if (integer ? stepq_parse_int(&i, v, (long long)lo, (long long)hi) == STEPQ_OK
                : stepq_parse_real(&x, v, lo, hi) == STEPQ_OK)
        return STEPQ_OK;
    stepq_error("%s=%s is not %s in [%.17g, %.17g] (unset it for the default)", name, v,
                integer ? "an integer" : "a number", lo, hi);
    return STEPQ_ERR;
}

int stepq_check_env(int threads) {
#ifdef _OPENMP
    const int n = threads ? omp_get_max_threads() : 1;
    if (n > STEPQ_THREADS_MAX) {
        const char* env = getenv("OMP_NUM_THREADS");
        stepq_error("OMP_NUM_THREADS=%s asks for %d threads; stepq runs at most %d (set it lower, or unset it "
                    "and give --threads N)", env ? env : "?", n, STEPQ_THREADS_MAX);
        return STEPQ_ERR;
    }
#endif
    return check_stack(threads) || check_env_number("STEPQ_TRACE_CHUNK", 1, (double)STEPQ_TRACE_CHUNK_MAX, 1) ||
                   check_env_number("STEPQ_MEMORY_BYTES", 1, STEPQ_MEMORY_BYTES_MAX, 0)
               ? STEPQ_ERR
               : STEPQ_OK;
}

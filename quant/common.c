#include "common.h"

#include <stdarg.h>

void stepq_error(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("stepq: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void* stepq_malloc_check(size_t n, const char* file, int line) {
    void* p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "stepq: out of memory allocating %zu bytes at %s:%d\n"
                        "  hint: run fewer heads or steps, or bin the per-step output\n",
                n, file, line);
        exit(1);
    }
    return p;
}

void* stepq_calloc_check(size_t count, size_t size, const char* file, int line) {
    void* p = calloc(count ? count : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "stepq: out of memory allocating %zu x %zu bytes at %s:%d\n", count,
                size, file, line);
        exit(1);
    }
    return p;
}

// common.h: error reporting and check macros shared by every layer of stepq.
//
// Two kinds of failure, two tools:
// - bad input from the user (a config, a trace, a plan): the function prints one clear message
//   naming the file, line or dataset through stepq_error() and returns STEPQ_ERR; the caller
//   unwinds and the front end exits non-zero after removing any partial output;
// - broken invariants and exhausted resources (malloc): the check macros print file and line
//   and exit(1); the front end's atexit hook still removes partial output.
#ifndef STEPQ_COMMON_H
#define STEPQ_COMMON_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

enum { STEPQ_OK = 0, STEPQ_ERR = -1 };

// prints "stepq: error: <message>\n" on stderr; printf-style
void stepq_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

void* stepq_malloc_check(size_t n, const char* file, int line);
void* stepq_calloc_check(size_t count, size_t size, const char* file, int line);
#define mallocCheck(n) stepq_malloc_check((n), __FILE__, __LINE__)
#define callocCheck(c, s) stepq_calloc_check((c), (s), __FILE__, __LINE__)

// internal invariant: never triggered by user input
#define stepq_assert(cond)                                                              \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "stepq: internal error at %s:%d: %s\n", __FILE__, __LINE__, \
                    #cond);                                                             \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

#endif

// common.h: the ground floor of stepq (method 6.0): error reporting, check macros, the model
// kind, and the one limit on head sizes. It includes nothing of the project.
//
// Two kinds of failure, two tools:
// - bad input from the user (a config, a trace, a plan): the function prints one clear message
//   naming the file, line or dataset through stepq_error() and returns STEPQ_ERR; the caller
//   unwinds and the front end exits non-zero after removing any partial output;
// - broken invariants and exhausted resources (malloc): the check macros print file and line
//   and exit(1); the exit-time hook of h5util.c still removes partial output.
#ifndef STEPQ_COMMON_H
#define STEPQ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { STEPQ_OK = 0, STEPQ_ERR = -1 };

// The largest K and V a head may have: encoders keep a row or a head's row widths on the
// stack. Trace files and plans with larger heads are refused when read.
#define STEPQ_MAX_DIM 4096

// The two delta-rule models (method 1): one gate per head and step (Gated DeltaNet) or one
// per key channel (Kimi Delta Attention). The values are stored in plans and traces by name.
typedef enum { STEPQ_GDN = 0, STEPQ_KDA = 1 } stepq_kind;

// "gdn" or "kda"
const char* stepq_kind_name(int kind);
// STEPQ_GDN or STEPQ_KDA for "gdn" or "kda", -1 for anything else
int stepq_kind_parse(const char* name);

// XXH3, 64 bits (xxHash, libxxhash), of n bytes with a seed: the keys of a calibration's inputs
// and of a journal (chain parts by passing one hash as the next one's seed; start from 0).
// Not cryptographic; it tells inputs apart.
uint64_t stepq_xxh3(uint64_t seed, const void* data, size_t n);
// the XXH3 64 of a whole file (seed 0: what `xxhsum -H3` prints), read in blocks of 1 MiB;
// STEPQ_ERR (message naming it) if it cannot be read
int stepq_file_xxh3(uint64_t* out, const char* path);

// prints "stepq: error: <message>\n" on stderr; printf-style
void stepq_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

void* stepq_malloc_check(size_t n, const char* file, int line);
// Before a large allocation: STEPQ_ERR (message naming `what`, how much it needs and how much the
// machine has) when bytes exceed the machine's physical memory, so a run too big is refused up
// front instead of swapping or dying halfway. STEPQ_MEMORY_BYTES overrides the machine's size.
int stepq_check_memory(double bytes, const char* what);
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

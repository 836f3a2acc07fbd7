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
typedef enum { STEPQ_GDN = 0, STEPQ_KDA = 1, STEPQ_N_KINDS } stepq_kind;

// What follows from a model's kind, in one row per kind (base/common.c). Code asks the row
// (stepq_kind_of, stepq_kind_gates, ...) instead of testing for a kind.
typedef struct {
    const char* name;        // in traces, plans and messages: "gdn", "kda"
    const char* model_type;  // a checkpoint's config.json model_type (fla): "gated_deltanet", "kda"
    const char* unit;        // the unit of bit allocation (method 4.1): "head", "key row"
    int gate_per_key;        // 1: a gate per key channel, G = K gates per head; 0: one per head
    int dual_nrm8;           // dual fit (4.2): nrm(b) = 2^(8-b), one code range for rows of any
                             // width in a head; 0: nrm = 1 (one width per head)
    int dual_odd2;           // dual fit: 2-bit units take the odd levels {-3, -1, 1, 3} with a
                             // row factor per 32 values; 0: ternary rows (qmax 1)
    double pivot_share;      // the paper's share of pivot units (4.3): 32 of 2304 GDN heads,
                             // 512 of 81920 KDA key rows
} stepq_kind_traits;

extern const stepq_kind_traits stepq_kind_table[STEPQ_N_KINDS];

// 1 when kind is a known kind
static inline int stepq_kind_valid(int kind) { return kind >= 0 && kind < STEPQ_N_KINDS; }
// prints "internal error: unknown model kind" and exits (out of line: the accessors stay small)
void stepq_kind_unknown(int kind) __attribute__((noreturn, cold));
// the row of kind; an unknown kind is an internal error here (kinds are checked where read)
static inline const stepq_kind_traits* stepq_kind_of(int kind) {
    if (!stepq_kind_valid(kind)) stepq_kind_unknown(kind);
    return &stepq_kind_table[kind];
}
// gates per head and step of a head with K key rows: 1 (GDN) or K (KDA)
static inline int stepq_kind_gates(int kind, int K) { return stepq_kind_of(kind)->gate_per_key ? K : 1; }
// allocation units per head (method 4.1: a unit is what shares one gate, hence one lifetime):
// 1 (GDN, the head) or K (KDA, each key row)
static inline int stepq_kind_units(int kind, int K) { return stepq_kind_gates(kind, K); }

// "gdn" or "kda"; "unknown" for a value that is no kind (never a kind's name)
const char* stepq_kind_name(int kind);
// The kind whose name is s (with model_type: whose checkpoint model_type is s); -1 for anything
// else. With file and what not NULL an unknown s is also reported, naming both:
// "FILE: WHAT is 'S', expected "gdn" or "kda"".
int stepq_kind_parse(const char* s, int model_type, const char* file, const char* what);

// XXH3, 64 bits (xxHash, libxxhash), of n bytes with a seed: the keys of a calibration's inputs
// and of a journal (chain parts by passing one hash as the next one's seed; start from 0).
// Not cryptographic; it tells inputs apart.
uint64_t stepq_xxh3(uint64_t seed, const void* data, size_t n);
// the XXH3 64 of a whole file (seed 0: what `xxhsum -H3` prints), read in blocks of 1 MiB;
// STEPQ_ERR (message naming it) if it cannot be read
int stepq_file_xxh3(uint64_t* out, const char* path);
// The bytes of the file at path, read to its end (a pipe has no size to ask for), NUL-terminated;
// *n <- how many. NULL with errno set when it cannot be opened or read, is a directory (EISDIR),
// or holds more than max bytes (EFBIG: /dev/zero as a config would otherwise be read forever).
char* stepq_read_file(const char* path, size_t max, size_t* n);
// the most a config (with each file it includes) or a model's config.json may hold
#define STEPQ_CONFIG_MAX ((size_t)16 << 20)

// 1 if s is a SHA-256 in hex as stepq.hf writes it (64 lower-case hex digits): a model's weights
static inline int stepq_is_sha256_hex(const char* s) {
    int n = 0;
    for (; s[n]; n++)
        if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f'))) return 0;
    return n == 64;
}

// prints "stepq: error: <message>\n" on stderr; printf-style. Under an error sink (below) the
// message is kept in the sink instead.
void stepq_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// what every message of this process starts with after "stepq: error: " ("rank 1 of 3: " in an
// MPI run, base/ranks.h); the string must outlive the process's messages
void stepq_error_prefix(const char* prefix);
// Exhausted resources and broken invariants: prints "stepq: <message>\n" and exits(1); under an
// error sink with a jump buffer, keeps the message and longjmps there instead.
void stepq_fatal(const char* fmt, ...) __attribute__((format(printf, 1, 2), noreturn, cold));

// Where this thread's messages go while the library (lib/, include/stepq.h) runs a call: kept, not
// printed, so that a program linking libstepq decides what to show; and a fatal error returns to
// the call's entry (setjmp) instead of ending the program. What the call had allocated is then
// lost (the library's contract: after SQ_ENOMEM or SQ_EINTERNAL, close what you can and stop).
typedef struct {
    char msg[2048];  // the messages of the call, one per line, truncated to fit
    size_t n;
    void* jump;      // a jmp_buf* for stepq_fatal, or NULL (then it prints and exits)
    int fatal;       // 1 once stepq_fatal was reached
} stepq_error_sink;
// sets this thread's sink (NULL: print again); returns the one it replaces
stepq_error_sink* stepq_error_sink_set(stepq_error_sink* sink);
// The sink of the threads that have none of their own: the OpenMP threads a library call's work
// runs on (a calibration's heads, whose trace readers name a bad value as they meet it) keep
// their messages there, one at a time, while it is set (NULL: they print again). Their fatal
// errors still print and exit (a jump cannot cross threads). One call at a time may set it:
// lib/ serialises the calls that do.
void stepq_error_team_sink(stepq_error_sink* sink);

// The one number parsers (options, configs' command-line overrides, the environment): the whole
// string, in [lo, hi]; STEPQ_ERR (no message) otherwise.
int stepq_parse_int(long long* out, const char* s, long long lo, long long hi);
int stepq_parse_real(double* out, const char* s, double lo, double hi);

void* stepq_malloc_check(size_t n, const char* file, int line);
// Before a large allocation: STEPQ_ERR (message naming `what`, how much it needs and how much the
// machine has) when bytes exceed the machine's physical memory, so a run too big is refused up
// front instead of swapping or dying halfway. STEPQ_MEMORY_BYTES overrides the machine's size
// (a number in [1, STEPQ_MEMORY_BYTES_MAX]; another value is ignored here and refused by
// stepq_check_env, sim/env.h).
int stepq_check_memory(double bytes, const char* what);
#define STEPQ_MEMORY_BYTES_MAX 1e18
void* stepq_calloc_check(size_t count, size_t size, const char* file, int line);
#define mallocCheck(n) stepq_malloc_check((n), __FILE__, __LINE__)
#define callocCheck(c, s) stepq_calloc_check((c), (s), __FILE__, __LINE__)

// internal invariant: never triggered by user input
#define stepq_assert(cond)                                                              \
    do {                                                                                \
        if (!(cond)) stepq_fatal("internal error at %s:%d: %s", __FILE__, __LINE__, #cond); \
    } while (0)

#endif

#include "common.h"

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

static _Thread_local stepq_error_sink* sink;
static stepq_error_sink* team;  // the sink of threads without their own (stepq_error_team_sink)
static const char* error_prefix = "";  // "rank R of N: " in an MPI run (base/ranks.c)

void stepq_error_prefix(const char* prefix) { error_prefix = prefix ? prefix : ""; }

stepq_error_sink* stepq_error_sink_set(stepq_error_sink* s) {
    stepq_error_sink* old = sink;
    sink = s;
    return old;
}

void stepq_error_team_sink(stepq_error_sink* s) {
#pragma omp critical(stepq_team_sink)
    team = s;
}

// appends one line to sink s (the first messages win when it is full)
static void sink_put(stepq_error_sink* s, const char* fmt, va_list ap) {
    if (s->n + 1 >= sizeof s->msg) return;
    if (s->n) s->msg[s->n++] = '\n';
    int w = vsnprintf(s->msg + s->n, sizeof s->msg - s->n, fmt, ap);
    if (w > 0) s->n += (size_t)w < sizeof s->msg - s->n ? (size_t)w : sizeof s->msg - 1 - s->n;
    s->msg[s->n] = 0;
}

void stepq_error(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int kept = 0;
    if (sink) {
        sink_put(sink, fmt, ap);
        kept = 1;
    } else {
#pragma omp critical(stepq_team_sink)
        if (team) {
            sink_put(team, fmt, ap);
            kept = 1;
        }
    }
    if (!kept) {
        fprintf(stderr, "stepq: error: %s", error_prefix);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
}

void stepq_fatal(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (sink && sink->jump) {
        sink_put(sink, fmt, ap);
        va_end(ap);
        sink->fatal = 1;
        longjmp(*(jmp_buf*)sink->jump, 1);
    }
    fprintf(stderr, "stepq: %s", error_prefix);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

// Every buffer starts on a cache line (64 bytes): a 128-wide row of floats is then four whole
// lines, and the vector kernels' speed does not depend on where malloc happened to put a state
// (a float32 state 16 bytes off a line made the benchmark's float32 step 1.4x slower, at random).
static void* aligned_block(size_t n) {
    const size_t line = 64;
    if (n > SIZE_MAX - line) return NULL;
    return aligned_alloc(line, (n ? n + line - 1 : line) / line * line);
}

int stepq_parse_int(long long* out, const char* s, long long lo, long long hi) {
    char* end;
    if (!s[0] || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) return STEPQ_ERR;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || errno == ERANGE || v < lo || v > hi) return STEPQ_ERR;
    *out = v;
    return STEPQ_OK;
}

int stepq_parse_real(double* out, const char* s, double lo, double hi) {
    char* end;
    if (!s[0] || s[0] == ' ' || s[0] == '\t') return STEPQ_ERR;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v) || v < lo || v > hi) return STEPQ_ERR;
    *out = v;
    return STEPQ_OK;
}

void* stepq_malloc_check(size_t n, const char* file, int line) {
    void* p = aligned_block(n);
    if (!p) {
        stepq_fatal("out of memory allocating %zu bytes at %s:%d\n"
                    "  hint: run fewer heads or steps, or bin the per-step output",
                    n, file, line);
    }
    return p;
}

int stepq_check_memory(double bytes, const char* what) {
    double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE), env;
    const char* e = getenv("STEPQ_MEMORY_BYTES");
    if (e && stepq_parse_real(&env, e, 1, STEPQ_MEMORY_BYTES_MAX) == STEPQ_OK) have = env;
    if (have <= 0 || bytes <= have) return STEPQ_OK;
    const double G = 1073741824.0, M = 1048576.0;
    const char* unit = have < G ? "MiB" : "GiB";
    double d = have < G ? M : G;
    stepq_error("%s needs %.1f %s of memory; this machine has %.1f %s: run fewer heads, seeds or steps",
                what, bytes / d, unit, have / d, unit);
    return STEPQ_ERR;
}

void* stepq_calloc_check(size_t count, size_t size, const char* file, int line) {
    // calloc's own zero pages for the large arrays (reservoirs, pools): they are not touched
    // until used; the rest aligned like mallocCheck's
    const size_t big = (size_t)64 << 20;
    void* p = NULL;
    if (size && count > SIZE_MAX / size) p = NULL;
    else if (count * size >= big) p = calloc(count, size);
    else if ((p = aligned_block(count * size))) memset(p, 0, count * size);
    if (!p) {
        stepq_fatal("out of memory allocating %zu x %zu bytes at %s:%d", count, size, file, line);
    }
    return p;
}

const stepq_kind_traits stepq_kind_table[STEPQ_N_KINDS] = {
    [STEPQ_GDN] = {.name = "gdn", .model_type = "gated_deltanet", .unit = "head", .gate_per_key = 0,
                   .dual_nrm8 = 0, .dual_odd2 = 1, .pivot_share = 32.0 / 2304},
    [STEPQ_KDA] = {.name = "kda", .model_type = "kda", .unit = "key row", .gate_per_key = 1,
                   .dual_nrm8 = 1, .dual_odd2 = 0, .pivot_share = 512.0 / 81920},
};

void stepq_kind_unknown(int kind) {
    stepq_fatal("internal error: unknown model kind %d", kind);
}

const char* stepq_kind_name(int kind) { return stepq_kind_valid(kind) ? stepq_kind_table[kind].name : "unknown"; }

int stepq_kind_parse(const char* s, int model_type, const char* file, const char* what) {
    for (int k = 0; k < STEPQ_N_KINDS; k++)
        if (!strcmp(s, model_type ? stepq_kind_table[k].model_type : stepq_kind_table[k].name)) return k;
    if (file && what) {
        char expected[256];
        size_t o = 0;
        for (int k = 0; k < STEPQ_N_KINDS; k++)
            o += (size_t)snprintf(expected + o, sizeof expected - o, "%s\"%s\"",
                                  k == 0 ? "" : k + 1 < STEPQ_N_KINDS ? ", " : " or ",
                                  model_type ? stepq_kind_table[k].model_type : stepq_kind_table[k].name);
        stepq_error("%s: %s is '%s', expected %s", file, what, s, expected);
    }
    return -1;
}

uint64_t stepq_xxh3(uint64_t seed, const void* data, size_t n) { return XXH3_64bits_withSeed(data, n, seed); }

int stepq_file_xxh3(uint64_t* out, const char* path) {
    FILE* fp = fopen(path, "rb");
    if (!fp) {
        stepq_error("%s: cannot open to checksum it", path);
        return STEPQ_ERR;
    }
    enum { BLOCK = 1 << 20 };
    unsigned char* buf = mallocCheck(BLOCK);
    XXH3_state_t* st = XXH3_createState();  // reset and update fail only on a NULL state
    stepq_assert(st);
    XXH3_64bits_reset(st);
    size_t got;
    while ((got = fread(buf, 1, BLOCK, fp)) > 0) XXH3_64bits_update(st, buf, got);
    int bad = ferror(fp);
    fclose(fp);
    free(buf);
    uint64_t h = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    if (bad) {
        stepq_error("%s: read error while checksumming it", path);
        return STEPQ_ERR;
    }
    *out = h;
    return STEPQ_OK;
}

char* stepq_read_file(const char* path, size_t max, size_t* n) {
    *n = 0;
    FILE* fp = fopen(path, "rb");
    if (!fp) return NULL;
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        errno = EISDIR;
        return NULL;
    }
    size_t cap = 1 << 16, len = 0, r;
    char* b = mallocCheck(cap + 1);
    while ((r = fread(b + len, 1, cap - len, fp)) > 0) {
        if ((len += r) > max) {
            fclose(fp);
            free(b);
            errno = EFBIG;
            return NULL;
        }
        if (len == cap) {
            char* g = mallocCheck(2 * cap + 1);
            memcpy(g, b, len);
            free(b);
            b = g;
            cap *= 2;
        }
    }
    const int failed = ferror(fp);
    fclose(fp);
    if (failed) {
        free(b);
        errno = EIO;
        return NULL;
    }
    b[len] = 0;
    *n = len;
    return b;
}

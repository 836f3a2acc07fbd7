// fuzzutil.h: what the fuzz targets share: a reader of the fuzzer's bytes (numbers drawn from
// it, zeros once it runs out) and a private temporary file per process.
#ifndef STEPQ_FUZZUTIL_H
#define STEPQ_FUZZUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    const uint8_t* p;
    size_t n, at;
} fz_bytes;

static inline uint8_t fz_u8(fz_bytes* b) { return b->at < b->n ? b->p[b->at++] : 0; }
static inline uint32_t fz_u32(fz_bytes* b) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)fz_u8(b) << (8 * i);
    return v;
}
static inline float fz_f32(fz_bytes* b) {
    uint32_t u = fz_u32(b);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline double fz_f64(fz_bytes* b) {
    uint64_t u = (uint64_t)fz_u32(b) | (uint64_t)fz_u32(b) << 32;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

// "/tmp/stepq_fuzz_<what>_<pid>.<ext>"
static inline const char* fz_tmp(char* buf, size_t n, const char* what, const char* ext) {
    snprintf(buf, n, "/tmp/stepq_fuzz_%s_%ld.%s", what, (long)getpid(), ext);
    return buf;
}

// the test data of the fuzz targets (tests/fuzz/data)
#ifndef STEPQ_FUZZ_DATA
#define STEPQ_FUZZ_DATA "tests/fuzz/data"
#endif

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif

// fuzzutil.h: what the fuzz targets share: a reader of the fuzzer's bytes (numbers drawn from
// it, zeros once it runs out), a private temporary file per process (in /dev/shm where there is one), and an attribute of a
// type and shape the fuzzer picks; CHECK_RC, the libstepq targets' check of a status.
#ifndef STEPQ_FUZZUTIL_H
#define STEPQ_FUZZUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

// a libstepq call's status (include/stepq.h): a named status, never SQ_EINTERNAL, and a message
// with every failure
#define CHECK_RC(rc)                                                                          \
    do {                                                                                      \
        const int r_ = (rc);                                                                  \
        if (r_ < SQ_OK || r_ > SQ_EINTERNAL || r_ == SQ_EINTERNAL) {                          \
            fprintf(stderr, "status %d: %s\n", r_, sq_last_error());                          \
            abort();                                                                          \
        }                                                                                     \
        if (r_ != SQ_OK && !sq_last_error()[0]) abort();                                      \
    } while (0)

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

// "<dir>/stepq_fuzz_<what>_<pid>.<ext>": in memory (/dev/shm) where the machine has it, else /tmp
static inline const char* fz_tmpdir(void) { return access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm"; }
static inline const char* fz_tmp(char* buf, size_t n, const char* what, const char* ext) {
    snprintf(buf, n, "%s/stepq_fuzz_%s_%ld.%s", fz_tmpdir(), what, (long)getpid(), ext);
    return buf;
}

// attribute `name` of loc <- another type or shape, chosen by the fuzzer: a fixed string of up
// to 1021 bytes, a variable-length string, a double or a 64-bit integer, each as a scalar, a
// one-dimensional array of 1 to 5 values or a null dataspace; its values (a string's bytes,
// text or not) from b. The readers must refuse what is not one value of the type they read.
static inline void fz_attr(hid_t loc, const char* name, fz_bytes* b) {
    if (H5Aexists(loc, name) > 0) H5Adelete(loc, name);
    const uint8_t sel = fz_u8(b);
    const int type = sel % 4, shape = (sel / 4) % 3;
    hsize_t n = 1 + fz_u8(b) % 5;
    hid_t sp = shape == 0 ? H5Screate(H5S_SCALAR) : shape == 1 ? H5Screate_simple(1, &n, NULL) : H5Screate(H5S_NULL);
    const size_t cnt = shape == 1 ? (size_t)n : 1;
    const size_t len = 1 + 4 * (size_t)fz_u8(b);  // a fixed string's size
    hid_t t = type == 2 ? H5Tcopy(H5T_NATIVE_DOUBLE) : type == 3 ? H5Tcopy(H5T_NATIVE_INT64) : H5Tcopy(H5T_C_S1);
    if (type == 0) H5Tset_size(t, len);
    if (type == 1) H5Tset_size(t, H5T_VARIABLE);
    unsigned char data[5 * 1024];
    char strs[5][33];
    const char* vl[5];
    for (size_t i = 0; i < sizeof data; i++) data[i] = i < 8 * cnt || (type == 0 && i < len * cnt) ? fz_u8(b) : 0;
    for (size_t i = 0; i < 5; i++) {
        const size_t l = fz_u8(b) % 33;
        for (size_t j = 0; j < l; j++) strs[i][j] = (char)(fz_u8(b) | 1);  // no NUL inside
        strs[i][l < 33 ? l : 32] = 0;
        vl[i] = strs[i];
    }
    hid_t a = H5Acreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0 && shape != 2) H5Awrite(a, t, type == 1 ? (const void*)vl : (const void*)data);
    if (a >= 0) H5Aclose(a);
    H5Tclose(t);
    H5Sclose(sp);
}

// the test data of the fuzz targets (tests/fuzz/data)
#ifndef STEPQ_FUZZ_DATA
#define STEPQ_FUZZ_DATA "tests/fuzz/data"
#endif

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#endif

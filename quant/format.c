// format.c: reference encoders and decoders of the format table (plain loops, the definition).
#include "format.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "common.h"
#include "half.h"

// ---------------------------------------------------------------------------------------------
// bit packing

void stepq_pack_codes(uint8_t* out, const int8_t* codes, size_t n, int b) {
    uint32_t mask = (1u << b) - 1u;
    uint64_t acc = 0;
    int nbits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= (uint64_t)((uint8_t)codes[i] & mask) << nbits;
        nbits += b;
        while (nbits >= 8) {
            out[o++] = (uint8_t)acc;
            acc >>= 8;
            nbits -= 8;
        }
    }
    stepq_assert(nbits == 0);
}

void stepq_unpack_codes(int8_t* codes, const uint8_t* in, size_t n, int b) {
    uint32_t mask = (1u << b) - 1u, sign = 1u << (b - 1);
    uint64_t acc = 0;
    int nbits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        while (nbits < b) {
            acc |= (uint64_t)in[o++] << nbits;
            nbits += 8;
        }
        uint32_t u = (uint32_t)acc & mask;
        acc >>= b;
        nbits -= b;
        codes[i] = (int8_t)((int32_t)(u ^ sign) - (int32_t)sign);  // sign-extend b bits
    }
}

// The widths the formats use, unrolled (n a multiple of 4); the generic loops above stay the
// definition and tests/test_formats.c checks these against them.
static void pack_fast(uint8_t* out, const int8_t* z, size_t n, int b) {
    switch (b) {
    case 8: memcpy(out, z, n); return;
    case 4:
        for (size_t i = 0; i < n; i += 2)
            out[i / 2] = (uint8_t)(((uint8_t)z[i] & 0xfu) | (((uint8_t)z[i + 1] & 0xfu) << 4));
        return;
    case 6:
        for (size_t i = 0, o = 0; i < n; i += 4, o += 3) {
            uint32_t w = ((uint32_t)z[i] & 63u) | (((uint32_t)z[i + 1] & 63u) << 6) |
                         (((uint32_t)z[i + 2] & 63u) << 12) | (((uint32_t)z[i + 3] & 63u) << 18);
            out[o] = (uint8_t)w;
            out[o + 1] = (uint8_t)(w >> 8);
            out[o + 2] = (uint8_t)(w >> 16);
        }
        return;
    default: stepq_pack_codes(out, z, n, b);
    }
}

static inline int8_t sext(uint32_t u, int b) {
    return (int8_t)((int32_t)(u << (32 - b)) >> (32 - b));
}

static void unpack_fast(int8_t* z, const uint8_t* in, size_t n, int b) {
    switch (b) {
    case 8: memcpy(z, in, n); return;
    case 4:
        for (size_t i = 0; i < n; i += 2) {
            z[i] = sext(in[i / 2] & 0xfu, 4);
            z[i + 1] = sext(in[i / 2] >> 4, 4);
        }
        return;
    case 6:
        for (size_t i = 0, o = 0; i < n; i += 4, o += 3) {
            uint32_t w = (uint32_t)in[o] | ((uint32_t)in[o + 1] << 8) | ((uint32_t)in[o + 2] << 16);
            z[i] = sext(w & 63u, 6);
            z[i + 1] = sext((w >> 6) & 63u, 6);
            z[i + 2] = sext((w >> 12) & 63u, 6);
            z[i + 3] = sext((w >> 18) & 63u, 6);
        }
        return;
    default: stepq_unpack_codes(z, in, n, b);
    }
}

// ---------------------------------------------------------------------------------------------
// fp32, fp16, bf16: element-wise

static int all_finite(const float* X, size_t n) {
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad |= !(fabsf(X[i]) <= FLT_MAX);
    return !bad;
}

static size_t fp32_bytes(const stepq_format* f, int K, int V) { (void)f; return (size_t)K * V * 4; }
static size_t half_bytes(const stepq_format* f, int K, int V) { (void)f; return (size_t)K * V * 2; }

static int fp32_encode(uint8_t* P, const float* X, const stepq_format* f, int K, int V) {
    (void)f;
    if (!all_finite(X, (size_t)K * V)) return STEPQ_ERR;
    memcpy(P, X, (size_t)K * V * sizeof(float));
    return STEPQ_OK;
}
static void fp32_decode(float* X, const uint8_t* P, const stepq_format* f, int K, int V) {
    (void)f;
    memcpy(X, P, (size_t)K * V * sizeof(float));
}

// fp16 saturates at +-65504 instead of overflowing to inf (a stored inf would poison every
// later step); within range it is the IEEE cast.
static int fp16_encode(uint8_t* P, const float* X, const stepq_format* f, int K, int V) {
    (void)f;
    size_t n = (size_t)K * V;
    if (!all_finite(X, n)) return STEPQ_ERR;
    for (size_t i = 0; i < n; i++) {
        uint16_t h = stepq_f32_to_f16_sat(X[i]);
        memcpy(P + 2 * i, &h, 2);
    }
    return STEPQ_OK;
}
static void fp16_decode(float* X, const uint8_t* P, const stepq_format* f, int K, int V) {
    (void)f;
    for (size_t i = 0, n = (size_t)K * V; i < n; i++) {
        uint16_t h;
        memcpy(&h, P + 2 * i, 2);
        X[i] = stepq_f16_to_f32(h);
    }
}

static int bf16_encode(uint8_t* P, const float* X, const stepq_format* f, int K, int V) {
    (void)f;
    size_t n = (size_t)K * V;
    if (!all_finite(X, n)) return STEPQ_ERR;
    for (size_t i = 0; i < n; i++) {
        uint16_t h = stepq_f32_to_bf16(X[i]);
        memcpy(P + 2 * i, &h, 2);
    }
    return STEPQ_OK;
}
static void bf16_decode(float* X, const uint8_t* P, const stepq_format* f, int K, int V) {
    (void)f;
    for (size_t i = 0, n = (size_t)K * V; i < n; i++) {
        uint16_t h;
        memcpy(&h, P + 2 * i, 2);
        X[i] = stepq_bf16_to_f32(h);
    }
}

// ---------------------------------------------------------------------------------------------
// int-b: symmetric absmax per key row, one FP16 scale per row (SPEC 6.2; SGLang's INT8 store)

#define STEPQ_MAX_V 4096

static size_t int_bytes(const stepq_format* f, int K, int V) {
    return STEPQ_INT_PACKED_BYTES(f->bits, K, V);
}

static int int_encode(uint8_t* P, const float* X, const stepq_format* f, int K, int V) {
    const int b = f->bits;
    const float qmax = (float)STEPQ_QMAX(b);
    const size_t row_bytes = (size_t)V * b / 8;
    uint8_t* codes_out = P + (size_t)K * 2;
    int8_t z[STEPQ_MAX_V];
    stepq_assert(V <= STEPQ_MAX_V && V % 4 == 0);
    for (int i = 0; i < K; i++) {
        const float* x = X + (size_t)i * V;
        // absmax on the bit patterns: for non-negative floats their order is the integer
        // order, and NaN/Inf are the patterns above FLT_MAX's, so one max finds both
        uint32_t umax = 0;
        for (int j = 0; j < V; j++) {
            uint32_t u = stepq_f32_bits(x[j]) & 0x7fffffffu;
            umax = u > umax ? u : umax;
        }
        if (umax > 0x7f7fffffu) return STEPQ_ERR;
        float amax = stepq_bits_f32(umax);
        // an all-zero row stores scale 0 and zero codes; otherwise the FP16 factor rule
        uint16_t sh = amax > 0.0f ? stepq_f16_factor(amax / qmax) : 0;
        float s = stepq_f16_to_f32(sh);
        float inv = s > 0.0f ? 1.0f / s : 0.0f;
        for (int j = 0; j < V; j++) {
            // clamp, then round: equal to round-then-clamp since qmax is an integer
            float r = x[j] * inv;
            r = r < -qmax ? -qmax : r;
            r = r > qmax ? qmax : r;
            z[j] = (int8_t)stepq_round_even(r);
        }
        memcpy(P + 2 * (size_t)i, &sh, 2);
        pack_fast(codes_out + i * row_bytes, z, (size_t)V, b);
    }
    return STEPQ_OK;
}

static void int_decode(float* X, const uint8_t* P, const stepq_format* f, int K, int V) {
    const int b = f->bits;
    const size_t row_bytes = (size_t)V * b / 8;
    int8_t z[STEPQ_MAX_V];
    for (int i = 0; i < K; i++) {
        uint16_t sh;
        memcpy(&sh, P + 2 * (size_t)i, 2);
        float s = stepq_f16_to_f32(sh);
        unpack_fast(z, P + (size_t)K * 2 + i * row_bytes, (size_t)V, b);
        for (int j = 0; j < V; j++) X[(size_t)i * V + j] = s * (float)z[j];
    }
}

// ---------------------------------------------------------------------------------------------
// the table

const stepq_format stepq_formats[] = {
    {"fp32", 32, 0, "identity: the native float32 state (the reference)", fp32_bytes,
     fp32_encode, fp32_decode},
    {"bf16", 16, 0, "bfloat16 per element, round half to even", half_bytes, bf16_encode,
     bf16_decode},
    {"fp16", 16, 0, "IEEE half per element, round half to even, saturating at 65504", half_bytes,
     fp16_encode, fp16_decode},
    {"int8", 8, 8, "symmetric absmax per key row, FP16 scale per row", int_bytes, int_encode,
     int_decode},
    {"int6", 6, 6, "symmetric absmax per key row, FP16 scale per row, 4 codes in 3 bytes",
     int_bytes, int_encode, int_decode},
    {"int4", 4, 4, "symmetric absmax per key row, FP16 scale per row", int_bytes, int_encode,
     int_decode},
};
const int stepq_n_formats = (int)(sizeof stepq_formats / sizeof stepq_formats[0]);

const stepq_format* stepq_format_find(const char* name) {
    for (int i = 0; i < stepq_n_formats; i++)
        if (strcmp(stepq_formats[i].name, name) == 0) return &stepq_formats[i];
    return NULL;
}

double stepq_format_actual_bits(const stepq_format* f, int K, int V) {
    return 8.0 * (double)f->packed_bytes(f, K, V) / ((double)K * V);
}

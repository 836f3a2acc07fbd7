// rows.c: symmetric absmax per key row with an FP16 scale, each row at its own width, FP16
// rows at width 16 (layout.h, "rows"). int-b (method 6.2, SGLang's INT8 store) is every row at
// b; time-b takes the widths of a lifetime allocation (method 4.3). DAMP (damp.c) and the
// LeapQuant variants (leap.c) build on the same rows.
#include <string.h>

#include "../base/common.h"
#include "format.h"
#include "numerics.h"

size_t stepq_rows_bytes(const uint8_t* bits, int K, int V) {
    size_t n = 0;
    for (int i = 0; i < K; i++) n += STEPQ_ROW_BYTES(bits[i], V);
    return n;
}

// one row of width b < 16: scale + codes; returns STEPQ_ERR on NaN/Inf
static int row_encode(uint8_t* out, const float* x, int b, int V) {
    const float qmax = (float)STEPQ_QMAX(b);
    int8_t z[STEPQ_MAX_DIM];
    // absmax on the bit patterns: for non-negative floats their order is the integer
    // order, and NaN/Inf are the patterns above FLT_MAX's, so one max finds both
    uint32_t umax = 0;
    for (int j = 0; j < V; j++) {
        uint32_t u = stepq_f32_bits(x[j]) & 0x7fffffffu;
        umax = u > umax ? u : umax;
    }
    if (umax > 0x7f7fffffu) return STEPQ_ERR;
    uint16_t sh = stepq_row_scale(stepq_bits_f32(umax), qmax);
    float s = stepq_f16_to_f32(sh);
    float inv = s > 0.0f ? 1.0f / s : 0.0f;
    for (int j = 0; j < V; j++) z[j] = (int8_t)stepq_code(x[j] * inv, qmax);
    memcpy(out, &sh, 2);
    stepq_pack_fast(out + 2, z, (size_t)V, b);
    return STEPQ_OK;
}

static void row_decode(float* x, const uint8_t* in, int b, int V) {
    int8_t z[STEPQ_MAX_DIM];
    uint16_t sh;
    memcpy(&sh, in, 2);
    float s = stepq_f16_to_f32(sh);
    stepq_unpack_fast(z, in + 2, (size_t)V, b);
    for (int j = 0; j < V; j++) x[j] = s * (float)z[j];
}

static int fp16_row_encode(uint8_t* out, const float* x, int V) {
    if (!stepq_all_finite(x, (size_t)V)) return STEPQ_ERR;
    for (int j = 0; j < V; j++) {
        uint16_t h = stepq_f32_to_f16_sat(x[j]);
        memcpy(out + 2 * j, &h, 2);
    }
    return STEPQ_OK;
}

static void fp16_row_decode(float* x, const uint8_t* in, int V) {
    for (int j = 0; j < V; j++) {
        uint16_t h;
        memcpy(&h, in + 2 * j, 2);
        x[j] = stepq_f16_to_f32(h);
    }
}

int stepq_rows_encode(uint8_t* P, const float* X, const uint8_t* bits, int rotate, int K, int V) {
    float tmp[STEPQ_MAX_DIM];
    stepq_assert(V <= STEPQ_MAX_DIM && V % 4 == 0 && (!rotate || (V & (V - 1)) == 0));
    for (int i = 0; i < K; i++) {
        const float* x = X + (size_t)i * V;
        int rc;
        if (bits[i] == STEPQ_PIVOT_BITS) {
            rc = fp16_row_encode(P, x, V);
        } else {
            if (rotate) {
                memcpy(tmp, x, sizeof(float) * V);
                stepq_fwht(tmp, V);
                x = tmp;
            }
            rc = row_encode(P, x, bits[i], V);
        }
        if (rc != STEPQ_OK) return STEPQ_ERR;
        P += STEPQ_ROW_BYTES(bits[i], V);
    }
    return STEPQ_OK;
}

void stepq_rows_decode(float* X, const uint8_t* P, const uint8_t* bits, int rotate, int K, int V) {
    for (int i = 0; i < K; i++) {
        float* x = X + (size_t)i * V;
        if (bits[i] == STEPQ_PIVOT_BITS) {
            fp16_row_decode(x, P, V);
        } else {
            row_decode(x, P, bits[i], V);
            if (rotate) stepq_fwht(x, V);
        }
        P += STEPQ_ROW_BYTES(bits[i], V);
    }
}

void stepq_rows_breakdown(double* out, const stepq_head_plan* hp, int dual, int K, int V) {
    const double n = (double)K * V;
    int coded = 0;
    for (int k = 0; k < STEPQ_N_BITS; k++) out[k] = 0;
    for (int i = 0; i < K; i++) {
        int b = hp->bits[i];
        if (b == STEPQ_PIVOT_BITS) {
            out[STEPQ_BITS_PIVOTS] += 16.0 * V / n;
            continue;
        }
        coded = 1;
        out[STEPQ_BITS_CODES] += (double)b * V / n;
        // a row factor (GDN 2-bit: one per group of 32) or a row scale
        int groups = dual && hp->kind == STEPQ_GDN && b == 2 ? V / STEPQ_GDN2_GROUP : 1;
        out[dual ? STEPQ_BITS_FACTORS : STEPQ_BITS_SCALES] += 16.0 * groups / n;
    }
    if (dual && coded) out[STEPQ_BITS_FACTORS] += 16.0 * V / n;  // the column factors
}

static int rows_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                       float* work, int K, int V) {
    return stepq_rows_encode(P, X, hp->bits, 0, K, V);
}
static void rows_decode(float* X, const uint8_t* P, const stepq_format* f, const stepq_head_plan* hp,
                        int K, int V) {
    stepq_rows_decode(X, P, hp->bits, 0, K, V);
}
static size_t rows_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return stepq_rows_bytes(hp->bits, K, V);
}
static void rows_breakdown(double* out, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    stepq_rows_breakdown(out, hp, 0, K, V);
}

const stepq_family stepq_family_rows = {
    .name = "rows",
    .packed_bytes = rows_bytes,
    .encode = rows_encode,
    .decode = rows_decode,
    .breakdown = rows_breakdown,
};

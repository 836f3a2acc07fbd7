// cast.c: the element-wise family (method 6.2): fp32 (identity, the reference), fp16
// (IEEE half, saturating at +-65504: a stored inf would poison every later step) and bf16
// (round to nearest even). Layout: one element after another (layout.h).
#include <float.h>
#include <math.h>
#include <string.h>

#include "../base/common.h"
#include "format.h"
#include "numerics.h"

int stepq_all_finite(const float* X, size_t n) {
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad |= !(fabsf(X[i]) <= FLT_MAX);
    return !bad;
}

static size_t cast_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return (size_t)K * V * (f->cast.element == STEPQ_ELEM_FP32 ? 4 : 2);
}

static int cast_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                       float* work, int K, int V) {
    size_t n = (size_t)K * V;
    if (!stepq_all_finite(X, n)) return STEPQ_ERR;
    if (f->cast.element == STEPQ_ELEM_FP32) {
        memcpy(P, X, n * sizeof(float));
        return STEPQ_OK;
    }
    int bf = f->cast.element == STEPQ_ELEM_BF16;
    for (size_t i = 0; i < n; i++) {
        uint16_t h = bf ? stepq_f32_to_bf16(X[i]) : stepq_f32_to_f16_sat(X[i]);
        memcpy(P + 2 * i, &h, 2);
    }
    return STEPQ_OK;
}

static void cast_decode(float* X, const uint8_t* P, const stepq_format* f, const stepq_head_plan* hp,
                        int K, int V) {
    size_t n = (size_t)K * V;
    if (f->cast.element == STEPQ_ELEM_FP32) {
        memcpy(X, P, n * sizeof(float));
        return;
    }
    int bf = f->cast.element == STEPQ_ELEM_BF16;
    for (size_t i = 0; i < n; i++) {
        uint16_t h;
        memcpy(&h, P + 2 * i, 2);
        X[i] = bf ? stepq_bf16_to_f32(h) : stepq_f16_to_f32(h);
    }
}

static void cast_breakdown(double* out, const stepq_format* f, const stepq_head_plan* hp, int K,
                           int V) {
    for (int k = 0; k < STEPQ_N_BITS; k++) out[k] = 0;
    out[STEPQ_BITS_CODES] = f->width;
}

const stepq_family stepq_family_cast = {
    .name = "cast",
    .packed_bytes = cast_bytes,
    .encode = cast_encode,
    .decode = cast_decode,
    .breakdown = cast_breakdown,
};

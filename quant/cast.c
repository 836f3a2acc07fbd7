// cast.c: the element-wise family (method 6.2): fp32 (identity, the reference), fp16
// (IEEE half, saturating at +-65504: a stored inf would poison every later step) and bf16
// (round to nearest even). Layout: one element after another (layout.h).
#include <float.h>
#include <math.h>
#include <string.h>

#include "../base/common.h"
#include "format.h"
#include "rowcodec.h"

int stepq_all_finite(const float* X, size_t n) { return rc_all_finite(X, n); }

static size_t cast_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return (size_t)K * V * (f->cast.element == STEPQ_ELEM_FP32 ? 4 : 2);
}

static int cast_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                       float* work, int K, int V) {
    size_t n = (size_t)K * V;
    if (!stepq_all_finite(X, n)) return STEPQ_ERR;
    for (int i = 0; i < K; i++, X += V)
        switch (f->cast.element) {
        case STEPQ_ELEM_FP32: memcpy(P + (size_t)i * V * 4, X, sizeof(float) * V); break;
        case STEPQ_ELEM_FP16: rc_f16_encode_row(P + (size_t)i * V * 2, NULL, X, V); break;
        default: rc_bf16_encode_row(P + (size_t)i * V * 2, NULL, X, V);
        }
    return STEPQ_OK;
}

static void cast_decode(float* X, const uint8_t* P, const stepq_format* f, const stepq_head_plan* hp,
                        int K, int V) {
    for (int i = 0; i < K; i++, X += V)
        switch (f->cast.element) {
        case STEPQ_ELEM_FP32: memcpy(X, P + (size_t)i * V * 4, sizeof(float) * V); break;
        case STEPQ_ELEM_FP16: rc_f16_decode_row(X, P + (size_t)i * V * 2, V); break;
        default: rc_bf16_decode_row(X, P + (size_t)i * V * 2, V);
        }
}

static void cast_breakdown(double* out, const stepq_format* f, const stepq_head_plan* hp, int K,
                           int V) {
    for (int k = 0; k < STEPQ_N_BITS; k++) out[k] = 0;
    out[STEPQ_BITS_CODES] = f->width;
}

static void cast_offsets(uint32_t* off, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    for (int i = 0; i < K; i++) off[i] = (uint32_t)((size_t)i * V * (f->cast.element == STEPQ_ELEM_FP32 ? 4 : 2));
}

const stepq_family stepq_family_cast = {
    .id = STEPQ_FAMILY_CAST,
    .name = "cast",
    .packed_bytes = cast_bytes,
    .encode = cast_encode,
    .decode = cast_decode,
    .breakdown = cast_breakdown,
    .row_offsets = cast_offsets,
    .v_multiple = 1,
};

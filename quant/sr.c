// sr.c: stochastic rounding (method 6.2), as serving engines propose it for recurrent states:
// INT8 and FP8 E4M3 with one FP32 scale per head and value column (vLLM), FP16 without a scale
// (SGLang). A value between two representable neighbours lo < t < hi is stored as hi with
// probability (t - lo) / (hi - lo), so the stored state is unbiased.
//
// The random numbers are a counter-based hash (splitmix64) of an encode counter kept in the
// packed bytes and of the element's index: the same run gives the same bytes whatever the thread
// or head order, and each encode of a head draws new numbers.
//
// Layout: uint64 encode counter, then (int8, fp8) V float32 column scales s_j = amax_j / qmax,
// then K x V codes: int8, E4M3 (sign in bit 7) or FP16.
#include <string.h>

#include "../base/common.h"
#include "format.h"
#include "rowcodec.h"

static int scaled(const stepq_format* f) { return rc_sr_scaled(f->sr.element); }

static size_t sr_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return rc_sr_head_bytes(f->sr.element, V) + (size_t)K * V * rc_sr_code_bytes(f->sr.element);
}

// the element codes are stepq_sr_int8, stepq_sr_fp8 and stepq_f16_sr (quant/numerics.h)
static int sr_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                     float* work, int K, int V) {
    if (!rc_all_finite(X, (size_t)K * V)) return STEPQ_ERR;
    rc_sr_encode_head(P, X, f->sr.element, K, V, work);
    return STEPQ_OK;
}

static void sr_decode(float* X, const uint8_t* P, const stepq_format* f, const stepq_head_plan* hp,
                      int K, int V) {
    for (int i = 0; i < K; i++) rc_sr_decode_row(X + (size_t)i * V, P, f->sr.element, i, V);
}

static void sr_breakdown(double* out, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    const double n = (double)K * V;
    for (int k = 0; k < STEPQ_N_BITS; k++) out[k] = 0;
    out[STEPQ_BITS_CODES] = f->sr.element == STEPQ_ELEM_FP16 ? 16 : 8;
    out[STEPQ_BITS_SCALES] = ((scaled(f) ? 32.0 * V : 0) + 64) / n;  // column scales, counter
}

static void sr_offsets(uint32_t* off, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    size_t head = rc_sr_head_bytes(f->sr.element, V), code = rc_sr_code_bytes(f->sr.element);
    for (int i = 0; i < K; i++) off[i] = (uint32_t)(head + (size_t)i * V * code);
}

const stepq_family stepq_family_sr = {
    .id = STEPQ_FAMILY_SR,
    .name = "sr",
    .packed_bytes = sr_bytes,
    .encode = sr_encode,
    .decode = sr_decode,
    .breakdown = sr_breakdown,
    .row_offsets = sr_offsets,
    .v_multiple = 1,
};

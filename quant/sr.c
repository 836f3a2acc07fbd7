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

static int scaled(const stepq_format* f) { return f->sr.element != STEPQ_ELEM_FP16; }
static float qmax_of(const stepq_format* f) { return f->sr.element == STEPQ_ELEM_INT8 ? 127.0f : 448.0f; }

static size_t sr_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    size_t code = f->sr.element == STEPQ_ELEM_FP16 ? 2 : 1;
    return 8 + (scaled(f) ? 4u * (size_t)V : 0) + (size_t)K * V * code;
}

static int sr_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                     float* work, int K, int V) {
    if (!rc_all_finite(X, (size_t)K * V)) return STEPQ_ERR;
    uint64_t n;
    memcpy(&n, P, 8);
    n++;
    memcpy(P, &n, 8);
    P += 8;
    float* s = work;  // (V) column scales
    if (scaled(f)) {
        const float q = qmax_of(f);
        for (int j = 0; j < V; j++) s[j] = 0;
        for (int i = 0; i < K; i++)
            for (int j = 0; j < V; j++) {
                float a = X[(size_t)i * V + j] < 0 ? -X[(size_t)i * V + j] : X[(size_t)i * V + j];
                s[j] = a > s[j] ? a : s[j];
            }
        for (int j = 0; j < V; j++) s[j] /= q;
        memcpy(P, s, sizeof(float) * V);
        P += 4 * (size_t)V;
    }
    for (size_t e = 0; e < (size_t)K * V; e++) {
        const float x = X[e], u = stepq_sr_uniform(n, e), sj = scaled(f) ? s[e % V] : 1.0f;
        switch (f->sr.element) {
        case STEPQ_ELEM_INT8: {
            float t = sj > 0 ? x / sj : 0, lo = floorf(t);
            float z = u < t - lo ? lo + 1 : lo;
            z = z < -127 ? -127 : z > 127 ? 127 : z;
            P[e] = (uint8_t)(int8_t)z;
            break;
        }
        case STEPQ_ELEM_FP8: {
            float t = sj > 0 ? x / sj : 0;
            uint8_t c = stepq_e4m3_sr(t < 0 ? -t : t, u);
            P[e] = (uint8_t)(c | (t < 0 && c ? 0x80 : 0));
            break;
        }
        default: {
            uint16_t h = stepq_f16_sr(x, u);
            memcpy(P + 2 * e, &h, 2);
        }
        }
    }
    return STEPQ_OK;
}

static void sr_decode(float* X, const uint8_t* P, const stepq_format* f, const stepq_head_plan* hp,
                      int K, int V) {
    P += 8;
    float s[STEPQ_MAX_DIM];
    if (scaled(f)) {
        memcpy(s, P, sizeof(float) * V);
        P += 4 * (size_t)V;
    }
    for (size_t e = 0; e < (size_t)K * V; e++)
        switch (f->sr.element) {
        case STEPQ_ELEM_INT8: X[e] = (float)(int8_t)P[e] * s[e % V]; break;
        case STEPQ_ELEM_FP8: X[e] = stepq_e4m3_decode(P[e]) * s[e % V]; break;
        default: {
            uint16_t h;
            memcpy(&h, P + 2 * e, 2);
            X[e] = stepq_f16_to_f32(h);
        }
        }
}

static void sr_breakdown(double* out, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    const double n = (double)K * V;
    for (int k = 0; k < STEPQ_N_BITS; k++) out[k] = 0;
    out[STEPQ_BITS_CODES] = f->sr.element == STEPQ_ELEM_FP16 ? 16 : 8;
    out[STEPQ_BITS_SCALES] = ((scaled(f) ? 32.0 * V : 0) + 64) / n;  // column scales, counter
}

static void sr_offsets(uint32_t* off, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    size_t head = 8 + (scaled(f) ? 4u * (size_t)V : 0), code = f->sr.element == STEPQ_ELEM_FP16 ? 2 : 1;
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

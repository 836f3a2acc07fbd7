// dual.c: the dual-axis family (method 4.2, 6.2): dsq, space, stepquant and mlife formats, built
// from the fit of dualfit.h.
#include "dualfit.h"

size_t stepq_dual_bytes_head(const stepq_head_plan* hp, int K, int V) { return df_bytes_head(hp, K, V); }

int stepq_dual_encode_head(uint8_t* P, const float* X, const stepq_head_plan* hp, int dsq,
                           float* work, int K, int V) {
    return df_encode_head(P, X, hp, dsq, work, K, V);
}

void stepq_dual_decode_head(float* X, const uint8_t* P, const stepq_head_plan* hp, int K, int V) {
    df_decode_head(X, P, hp, K, V);
}

static void dual_offsets(uint32_t* off, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    dual_shape s = {.bits = hp->bits, .odd2 = hp->kind == STEPQ_GDN, .K = K, .V = V};
    size_t n = df_any_coded(hp->bits, K) ? 2u * (size_t)V : 0;
    for (int i = 0; i < K; i++) {
        off[i] = (uint32_t)n;
        n += df_row_bytes(&s, i);
    }
}

static int dual_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                       float* work, int K, int V) {
    return stepq_dual_encode_head(P, X, hp, f->dual.dsq, work, K, V);
}
static void dual_decode(float* X, const uint8_t* P, const stepq_format* f, const stepq_head_plan* hp,
                        int K, int V) {
    stepq_dual_decode_head(X, P, hp, K, V);
}
static size_t dual_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return stepq_dual_bytes_head(hp, K, V);
}
static void dual_breakdown(double* out, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    stepq_rows_breakdown(out, hp, 1, K, V);
}

const stepq_family stepq_family_dual = {
    .id = STEPQ_FAMILY_DUAL,
    .name = "dual",
    .packed_bytes = dual_bytes,
    .encode = dual_encode,
    .decode = dual_decode,
    .breakdown = dual_breakdown,
    .row_offsets = dual_offsets,
    .v_multiple = STEPQ_GDN2_GROUP,
};

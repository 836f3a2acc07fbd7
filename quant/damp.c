// damp.c: DAMP as the harness reconstructs it (method 6.2; its code is not public): the
// decay-persistent key rows the plan marks (STEPQ_DAMP_FP16_SHARE of them, chosen by
// calibration) are kept in FP16, the others are rotated along V by the orthonormal
// Walsh-Hadamard transform, which spreads a row's outliers over the row, and stored as INT8
// per row. About 9.9 bits per element.
#include "format.h"
#include "rowcodec.h"

void stepq_fwht(float* x, int n) { rc_fwht(x, n); }

static int damp_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                       float* work, int K, int V) {
    return stepq_rows_encode(P, X, hp->bits, 1, K, V);
}
static void damp_decode(float* X, const uint8_t* P, const stepq_format* f, const stepq_head_plan* hp,
                        int K, int V) {
    stepq_rows_decode(X, P, hp->bits, 1, K, V);
}
static size_t damp_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return stepq_rows_bytes(hp->bits, K, V);
}
static void damp_breakdown(double* out, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    stepq_rows_breakdown(out, hp, 0, K, V);
}

const stepq_family stepq_family_damp = {
    .id = STEPQ_FAMILY_DAMP,
    .name = "damp",
    .packed_bytes = damp_bytes,
    .encode = damp_encode,
    .decode = damp_decode,
    .breakdown = damp_breakdown,
    .row_offsets = stepq_rows_offsets,
    .v_multiple = 4,
    .v_pow2 = 1,
};

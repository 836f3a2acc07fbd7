// leap.c: the quantizer-relevant ideas of the LeapQuant post (method 6.8), measured honestly:
// error feedback h_t = f(S_hat + alpha Delta) with Delta = X - S_hat, where the residual
// Delta is stored too (re-quantized per row at leap.residual_bits, or as the FP32 oracle), and
// freeze gating: when ||X_t - S_hat_{t-1}||_F < tau ||S_hat_{t-1}||_F the stored state is kept
// as it is (no new error enters; the update of that step is dropped with it).
//
//   encode: P1 = rows_b(X);  Delta = X - dec(P1);  P2 = rows_r(Delta) or Delta itself
//   decode: S_in = dec(P1) + alpha dec(P2)
// Every stored byte counts: leap6-r4 is 6.125 + 4.125 bits per element.
#include <math.h>
#include <string.h>

#include "../base/common.h"
#include "format.h"
#include "rowcodec.h"

#define ORACLE 32  // residual_bits of the FP32 oracle

static void widths(uint8_t* rows, int b, int K) { memset(rows, b, (size_t)K); }

static size_t base_bytes(const stepq_format* f, int K, int V) {
    return (size_t)K * STEPQ_ROW_BYTES(f->width, V);
}

static size_t leap_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    int r = f->leap.residual_bits;
    return base_bytes(f, K, V) + (r == ORACLE ? (size_t)K * V * 4 : (size_t)K * STEPQ_ROW_BYTES(r, V));
}

static void leap_decode(float* X, const uint8_t* P, const stepq_format* f, const stepq_head_plan* hp,
                        int K, int V) {
    uint8_t rows[STEPQ_MAX_DIM];
    const int r = f->leap.residual_bits;
    size_t base = base_bytes(f, K, V);
    widths(rows, f->width, K);
    stepq_rows_decode(X, P, rows, 0, K, V);
    for (int i = 0; i < K; i++) {  // the residual, one row at a time, added with weight alpha
        float d[STEPQ_MAX_DIM];
        if (r == ORACLE) memcpy(d, P + base + (size_t)i * V * 4, sizeof(float) * V);
        else {
            widths(rows, r, 1);
            stepq_rows_decode(d, P + base + (size_t)i * STEPQ_ROW_BYTES(r, V), rows, 0, 1, V);
        }
        for (int j = 0; j < V; j++) X[(size_t)i * V + j] += f->leap.alpha * d[j];
    }
}

static int leap_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                       float* work, int K, int V) {
    size_t n = (size_t)K * V, base = base_bytes(f, K, V);
    uint8_t rows[STEPQ_MAX_DIM];
    stepq_assert(K <= STEPQ_MAX_DIM && V <= STEPQ_MAX_DIM);
    if (!stepq_all_finite(X, n)) return STEPQ_ERR;
    if (f->leap.tau > 0) {  // freeze gating against the state stored now (P holds it on entry)
        float* prev = work;
        leap_decode(prev, P, f, hp, K, V);
        double sum[2] = {0, 0};
        rc_leap_gate_sums(sum, X, prev, n);
        if (rc_leap_keeps(sum, f->leap.tau)) return STEPQ_OK;
    }
    widths(rows, f->width, K);
    if (stepq_rows_encode(P, X, rows, 0, K, V) != STEPQ_OK) return STEPQ_ERR;
    float* delta = work;
    stepq_rows_decode(delta, P, rows, 0, K, V);
    for (size_t e = 0; e < n; e++) delta[e] = X[e] - delta[e];
    if (f->leap.residual_bits == ORACLE) {
        memcpy(P + base, delta, n * sizeof(float));
        return STEPQ_OK;
    }
    widths(rows, f->leap.residual_bits, K);
    return stepq_rows_encode(P + base, delta, rows, 0, K, V);
}

static void leap_breakdown(double* out, const stepq_format* f, const stepq_head_plan* hp, int K,
                           int V) {
    const double n = (double)K * V;
    const int r = f->leap.residual_bits;
    for (int k = 0; k < STEPQ_N_BITS; k++) out[k] = 0;
    out[STEPQ_BITS_CODES] = f->width;
    out[STEPQ_BITS_SCALES] = 16.0 * K / n;                         // the base state's row scales
    out[STEPQ_BITS_RESIDUAL] = r == ORACLE ? 32 : r + 16.0 * K / n;  // with its own scales
}

// the rows of the base state; a row's residual is at base bytes + i * its own row bytes
static void leap_offsets(uint32_t* off, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    for (int i = 0; i < K; i++) off[i] = (uint32_t)((size_t)i * STEPQ_ROW_BYTES(f->width, V));
}

const stepq_family stepq_family_leap = {
    .id = STEPQ_FAMILY_LEAP,
    .name = "leap",
    .packed_bytes = leap_bytes,
    .encode = leap_encode,
    .decode = leap_decode,
    .breakdown = leap_breakdown,
    .row_offsets = leap_offsets,
    .v_multiple = 4,
};

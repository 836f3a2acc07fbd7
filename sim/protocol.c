// protocol.c: the decode-step protocol of method 2; see protocol.h.
#include "protocol.h"

#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../quant/rowcodec.h"
#include "recurrence.h"

int stepq_qstate_init(stepq_qstate* st, const stepq_format* fmt, const stepq_plan* plan, int ph,
                      int kind, int K, int V) {
    stepq_assert(K <= (int)sizeof st->rows);
    st->packed = NULL;
    st->X = st->work = st->u = NULL;
    st->row_off = NULL;
    if (stepq_format_fits(fmt, K, V) != STEPQ_OK) return STEPQ_ERR;
    st->fmt = fmt;
    st->xd = 0;
    st->K = K;
    st->V = V;
    if (stepq_head_plan_for(&st->hp, st->rows, fmt, plan, ph, kind, K) != STEPQ_OK) return STEPQ_ERR;
    st->bytes = stepq_format_bytes(fmt, &st->hp, K, V);
    st->packed = callocCheck(st->bytes, 1);  // zeros: "no previous state" for freeze gating
    // X and the encoders' scratch in one block, the scratch 2 KiB past a 4 KiB boundary from X.
    // The dual-axis fit reads X and writes y = X / r into the scratch in step; where y lay a few
    // cache lines past X modulo 4096, the CPU took its stores for the next loads of X (4K
    // aliasing), and STEPQuant@6's step took 16.5-17.1 us instead of 15.9, as the heap happened
    // to place the two
    const size_t nx = ((size_t)K * V * sizeof(float) + 4095) / 4096 * 4096 + 2048;
    st->X = callocCheck(nx + sizeof(float) * STEPQ_WORK_FLOATS(K, V), 1);
    st->work = (float*)((char*)st->X + nx);
    st->row_off = mallocCheck(sizeof(uint32_t) * K);
    st->u = callocCheck((size_t)V, sizeof(float));
    fmt->family->row_offsets(st->row_off, fmt, &st->hp, K, V);
    return STEPQ_OK;
}

void stepq_qstate_free(stepq_qstate* st) {
    free(st->packed);
    free(st->X);  // and the scratch after it
    free(st->row_off);
    free(st->u);
    st->packed = NULL;
    st->X = st->work = st->u = NULL;
    st->row_off = NULL;
}

void stepq_qstate_decode(const stepq_qstate* st, float* X) {
    if (st->fmt->replay > 0) memcpy(X, st->X, sizeof(float) * st->K * st->V);
    else stepq_decode(X, st->packed, st->fmt, &st->hp, st->K, st->V);
}

static int encode_decode(stepq_qstate* st, const float* S) {
    if (stepq_encode(st->packed, S, st->fmt, &st->hp, st->work, st->K, st->V) != STEPQ_OK)
        return STEPQ_ERR;
    stepq_decode(st->X, st->packed, st->fmt, &st->hp, st->K, st->V);
    return STEPQ_OK;
}

int stepq_qstate_load(stepq_qstate* st, const float* S) {
    st->count = 0;
    st->xd = 0;
    return encode_decode(st, S);
}

// the encode that ends a step: a replay format keeps the exact state between re-encodes (it
// replays its input ring) and encodes every fmt->replay steps
static int end_step(stepq_qstate* st) {
    if (st->fmt->replay > 0 && ++st->count % st->fmt->replay != 0) {
        if (!stepq_all_finite(st->X, (size_t)st->K * st->V)) return STEPQ_ERR;
        return STEPQ_OK;
    }
    return encode_decode(st, st->X);
}

int stepq_qstate_step(stepq_qstate* st, float* y, float* work, const stepq_step_in* in,
                      double scale, int n_gates) {
    return stepq_qstate_step_keep(st, y, work, in, scale, n_gates, NULL);
}

int stepq_qstate_step_keep(stepq_qstate* st, float* y, float* work, const stepq_step_in* in,
                           double scale, int n_gates, float* X_pre) {
    stepq_step_f32(st->X, y, work, in->q, in->k, in->v, in->g, in->beta, scale, n_gates, st->K,
                   st->V);
    if (X_pre) memcpy(X_pre, st->X, sizeof(float) * st->K * st->V);
    return end_step(st);
}

int stepq_qstate_step_rows(stepq_qstate* st, float* y, float* work, const stepq_step_in* in,
                           double scale, int n_gates, const int8_t* sel, int value, int b) {
    const int K = st->K, V = st->V;
    stepq_step_f32(st->X, y, work, in->q, in->k, in->v, in->g, in->beta, scale, n_gates, K, V);
    return stepq_rows_reencode(st->X, sel, value, b, K, V);
}

int stepq_rows_reencode(float* X, const int8_t* sel, int value, int b, int K, int V) {
    uint8_t packed[2 + STEPQ_MAX_DIM];
    float xq[STEPQ_MAX_DIM];
    for (int i = 0; i < K; i++) {
        if (sel[i] != value) continue;
        if (rc_rows_encode_row(packed, xq, X + (size_t)i * V, b, V) != STEPQ_OK) return STEPQ_ERR;
        memcpy(X + (size_t)i * V, xq, sizeof(float) * V);
    }
    return STEPQ_OK;
}

void stepq_delta_write(float* u, const float* S, const stepq_step_in* in, const float* decay,
                       int K, int V) {
    for (int j = 0; j < V; j++) u[j] = 0;
    for (int i = 0; i < K; i++) {
        float d = decay[i], ki = in->k[i];
        for (int j = 0; j < V; j++) u[j] += ki * (S[(size_t)i * V + j] * d);
    }
    for (int j = 0; j < V; j++) u[j] = in->beta * (in->v[j] - u[j]);
}

int stepq_qstate_step_cut(stepq_qstate* st, float* y, const float* u_ref, const stepq_step_in* in,
                          const float* decay, double scale) {
    const int K = st->K, V = st->V;
    for (int j = 0; j < V; j++) y[j] = 0;
    for (int i = 0; i < K; i++) {
        float d = decay[i], ki = in->k[i], qi = (float)scale * in->q[i];
        float* row = st->X + (size_t)i * V;
        for (int j = 0; j < V; j++) {
            row[j] *= d;
            row[j] += ki * u_ref[j];
            y[j] += qi * row[j];
        }
    }
    return end_step(st);
}

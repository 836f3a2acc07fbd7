#include "protocol.h"

#include <stdlib.h>

#include "../quant/common.h"
#include "recurrence.h"

void stepq_qstate_init(stepq_qstate* st, const stepq_format* fmt, int K, int V) {
    st->fmt = fmt;
    st->K = K;
    st->V = V;
    st->packed = mallocCheck(fmt->packed_bytes(fmt, K, V));
    st->X = callocCheck((size_t)K * V, sizeof(float));
}

void stepq_qstate_free(stepq_qstate* st) {
    free(st->packed);
    free(st->X);
    st->packed = NULL;
    st->X = NULL;
}

static int encode_decode(stepq_qstate* st, const float* S) {
    if (st->fmt->encode(st->packed, S, st->fmt, st->K, st->V) != STEPQ_OK) return STEPQ_ERR;
    st->fmt->decode(st->X, st->packed, st->fmt, st->K, st->V);
    return STEPQ_OK;
}

int stepq_qstate_load(stepq_qstate* st, const float* S) { return encode_decode(st, S); }

int stepq_qstate_step(stepq_qstate* st, float* y, float* work, const stepq_step_in* in,
                      double scale, int n_gates) {
    stepq_step_f32(st->X, y, work, in->q, in->k, in->v, in->g, in->beta, scale, n_gates, st->K,
                   st->V);
    return encode_decode(st, st->X);
}

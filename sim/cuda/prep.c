// prep.c: see prep.h.
#include "prep.h"

#include <string.h>

#include "../../base/common.h"
#include "../recurrence.h"

static int prep_head(float* rec, double* gate_sum, stepq_cursor* c, const stepq_source* src,
                     long t0, long t1, long prefill, int R) {
    const int K = src->K, V = src->V, G = src->n_gates;
    double grad[STEPQ_MAX_DIM];
    for (long t = t0; t < t1; t++, rec += R) {
        stepq_step_in in;
        if (stepq_next_step(c, &in) != STEPQ_OK) return STEPQ_ERR;
        *gate_sum += stepq_mean_log_gate(&in, G);
        memset(rec, 0, sizeof(float) * (size_t)R);
        memcpy(rec, in.q, sizeof(float) * K);
        memcpy(rec + K, in.k, sizeof(float) * K);
        memcpy(rec + 2 * K, in.v, sizeof(float) * V);
        if (t >= prefill) {
            stepq_readout_weights(grad, in.q, in.k, in.g, in.beta, src->scale, G, K);
            for (int i = 0; i < K; i++) rec[2 * K + V + i] = (float)grad[i];
        }
        stepq_decays(rec + 3 * K + V, in.g, G, K);
        rec[4 * K + V] = in.beta;
    }
    return STEPQ_OK;
}

int stepq_cuda_prep(float* rec, double* gate_sum, stepq_cursor* const* cur, int nh,
                    const stepq_source* src, long t0, long t1, long prefill, int TC, int R) {
    stepq_assert(t1 - t0 <= TC && src->K <= STEPQ_MAX_DIM);
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 1)
    for (int h = 0; h < nh; h++)
        if (prep_head(rec + (size_t)h * TC * R, &gate_sum[h], cur[h], src, t0, t1, prefill, R) != STEPQ_OK) {
#pragma omp atomic write
            failed = 1;
        }
    return failed ? STEPQ_ERR : STEPQ_OK;
}

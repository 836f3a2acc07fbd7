// runstate.c: see runstate.h.
#include "runstate.h"

#include <string.h>

#include "../base/common.h"
#include "recurrence.h"

void stepq_runstate_init(stepq_runstate* s, const stepq_backend* be, int K, int V, int G) {
    stepq_assert(be);  // a value the front end chose (sim/backend.h), never a default here
    s->K = K;
    s->V = V;
    s->G = G;
    s->S = callocCheck((size_t)K * V, sizeof(float));
    s->y = callocCheck((size_t)V, sizeof(float));
    s->y_hat = callocCheck((size_t)V, sizeof(float));
    s->work = callocCheck((size_t)V, sizeof(float));
    s->grad = callocCheck((size_t)K, sizeof(double));
    s->omega = callocCheck((size_t)K, sizeof(double));
    s->gsum = callocCheck((size_t)G, sizeof(double));
    s->step = be->step;
}

void stepq_runstate_free(stepq_runstate* s) {
    free(s->S); free(s->y); free(s->y_hat); free(s->work);
    free(s->grad); free(s->omega); free(s->gsum);
    memset(s, 0, sizeof *s);
}

void stepq_runstate_reset(stepq_runstate* s, const float* S0) {
    size_t KV = (size_t)s->K * s->V;
    if (S0) memcpy(s->S, S0, sizeof(float) * KV);
    else memset(s->S, 0, sizeof(float) * KV);
    memset(s->omega, 0, sizeof(double) * s->K);
    memset(s->gsum, 0, sizeof(double) * s->G);
}

void stepq_observe_sums(double* gsum, double* omega, double* grad, const stepq_step_in* in,
                        double scale, int G, int K, int with_omega) {
    for (int i = 0; i < G; i++) gsum[i] += in->g[i];
    if (!with_omega) return;
    stepq_readout_weights(grad, in->q, in->k, in->g, in->beta, scale, G, K);
    for (int i = 0; i < K; i++) omega[i] += grad[i] * grad[i];
}

void stepq_runstate_observe(stepq_runstate* s, const stepq_step_in* in, double scale, int with_omega) {
    stepq_observe_sums(s->gsum, s->omega, s->grad, in, scale, s->G, s->K, with_omega);
}

void stepq_runstate_step(stepq_runstate* s, const stepq_step_in* in, double scale) {
    s->step(s->S, s->y, s->work, in->q, in->k, in->v, in->g, in->beta, scale, s->G, s->K, s->V);
}

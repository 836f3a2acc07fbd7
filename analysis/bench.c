#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../sim/runstate.h"
#include "progress.h"

int stepq_bench_stream(const stepq_source* src, long steps, int repeats) {
    const int K = src->K, V = src->V, G = src->n_gates;
    float* q = mallocCheck(sizeof(float) * steps * K);
    float* k = mallocCheck(sizeof(float) * steps * K);
    float* v = mallocCheck(sizeof(float) * steps * V);
    float* g = mallocCheck(sizeof(float) * steps * G);
    float* beta = mallocCheck(sizeof(float) * steps);
    stepq_runstate rs;
    stepq_runstate_init(&rs, K, V, G);
    double t_gen = 1e30, t_upd = 1e30, sink = 0;
    for (int rep = 0; rep < repeats; rep++) {  // best of repeats for each, measured in turn
        double tg = 0, tu = 0;
        for (int h = 0; h < src->n_heads; h++) {
            stepq_cursor* c = src->open(src, h);
            stepq_step_in in;
            double t0 = stepq_now();
            for (long t = 0; t < steps; t++) {
                src->next(c, &in);
                memcpy(q + t * K, in.q, sizeof(float) * K);
                memcpy(k + t * K, in.k, sizeof(float) * K);
                memcpy(v + t * V, in.v, sizeof(float) * V);
                memcpy(g + t * G, in.g, sizeof(float) * G);
                beta[t] = in.beta;
            }
            tg += stepq_now() - t0;
            src->close(c);
            stepq_runstate_reset(&rs, NULL);
            t0 = stepq_now();
            for (long t = 0; t < steps; t++) {
                stepq_step_in st = {q + t * K, k + t * K, v + t * V, g + t * G, beta[t]};
                stepq_runstate_step(&rs, &st, src->scale);
            }
            tu += stepq_now() - t0;
            sink += rs.y[0];
        }
        t_gen = tg < t_gen ? tg : t_gen;
        t_upd = tu < t_upd ? tu : t_upd;
    }
    double n = (double)steps * src->n_heads;
    printf("%s\n  generate %.0f ns/step (including copying it out), float32 update %.0f ns/step, "
           "generate / update = %.2f   (best of %d, one thread, %ld steps x %d heads; %s)\n",
           src->desc, 1e9 * t_gen / n, 1e9 * t_upd / n, t_gen / t_upd, repeats, steps,
           src->n_heads, sink == sink ? "ok" : "NaN seen");
    free(q); free(k); free(v); free(g); free(beta);
    stepq_runstate_free(&rs);
    return STEPQ_OK;
}

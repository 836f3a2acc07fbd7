// icount.c: one decode step of one 128 x 128 head, the step `stepq bench` times, between two
// marks for tools/icount/icount.py, which counts the instructions it retires under gdb.
//   icount FORMAT      the format's step (read and write halves) through the default backend
//   icount f32step     the float32 step (the bench table's "fp32 step")
// The inputs are bench's: the gdn-qwen-like preset's recorded stream (model seed 0, stream seed 5),
// and for the calibrated formats bench's plan (stepq_bench_plan).
#include <stdio.h>
#include <string.h>

#include "analysis/bench.h"
#include "quant/format.h"
#include "sim/backend.h"
#include "sim/recurrence.h"
#include "sim/synth.h"

enum { K = 128, V = 128, T = 64, WARM = 16 };

static float q[T][K], k[T][K], v[T][V], g[T], beta[T], S0[K * V];

__attribute__((noinline)) void icount_begin(void) { __asm__ volatile(""); }
__attribute__((noinline)) void icount_end(void) { __asm__ volatile(""); }

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: icount FORMAT|f32step\n");
        return 2;
    }
    double scale;
    if (stepq_backend_init() != STEPQ_OK ||
        stepq_synth_record("gdn-qwen-like", 0, 5, T, K, V, &q[0][0], &k[0][0], &v[0][0], g, beta, S0, &scale, stepq_backend_default()) !=
            STEPQ_OK)
        return 1;
    const stepq_backend* be = stepq_backend_default();
    _Alignas(64) static float S[K * V], y[V], u[V], decay[K];
    memcpy(S, S0, sizeof S);
    if (!strcmp(argv[1], "f32step")) {
        for (int t = 0; t <= WARM; t++) {
            if (t == WARM) icount_begin();
            be->step(S, y, u, q[t], k[t], v[t], &g[t], beta[t], scale, 1, K, V);
            if (t == WARM) icount_end();
        }
        return 0;
    }
    const stepq_format* f = stepq_format_find(argv[1]);
    if (!f) {
        fprintf(stderr, "icount: no format '%s' (stepq formats lists them)\n", argv[1]);
        return 2;
    }
    stepq_plan p;
    stepq_bench_plan(&p, 1);
    stepq_qstate qs;
    if (stepq_qstate_init(&qs, f, &p, 0, STEPQ_GDN, K, V) != STEPQ_OK || stepq_qstate_load(&qs, S0) != STEPQ_OK)
        return 1;
    for (int t = 0; t <= WARM; t++) {
        stepq_step_in st = {.q = q[t], .k = k[t], .v = v[t], .g = &g[t], .beta = beta[t]};
        stepq_decays(decay, st.g, 1, K);
        if (t == WARM) icount_begin();
        be->read(&qs, &st, decay, NULL, NULL, NULL);
        const int rc = be->write(&qs, &st, decay, scale, 1, NULL, y, NULL);
        if (t == WARM) icount_end();
        if (rc != STEPQ_OK) return 1;
    }
    stepq_qstate_free(&qs);
    return 0;
}

// fuzz_decode.c: every format's decoder on arbitrary packed bytes. The fuzzer's bytes choose a
// format and a head of a valid plan (tests/fuzz/data, GDN or KDA) and fill the head's packed
// state: codes, scales, row and column factors, FP16 pivot rows, residuals, whatever the
// layout holds, NaN and Inf bit patterns included. The state is decoded, then one decode step
// of the protocol runs on it (decode, update, read out, re-encode) through the active kernels.
// Nothing may read or write outside the state; a non-finite result must come back as an error.
#include <math.h>
#include <stdlib.h>

#include "../../base/common.h"
#include "../../base/h5util.h"
#include "../../quant/format.h"
#include "../../quant/plan.h"
#include "../../sim/backend.h"
#include "../../sim/protocol.h"
#include "../../sim/recurrence.h"
#include "fuzzutil.h"

static stepq_plan plans[2];
static int loaded;

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fz_bytes b = {data, size, 0};
    if (!loaded) {
        h5u_quiet();
        stepq_backend_init();
        char path[512];
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "%s/plan_%s.h5", STEPQ_FUZZ_DATA, k ? "kda" : "gdn");
            if (stepq_plan_read(&plans[k], path) != STEPQ_OK) abort();
        }
        loaded = 1;
    }
    const uint8_t sel = fz_u8(&b);
    const stepq_plan* p = &plans[sel & 1];
    const stepq_format* fmt = &stepq_formats[fz_u8(&b) % stepq_n_formats];
    const int h = (sel >> 1) % p->H, K = p->K, V = p->V, G = stepq_kind_gates(p->kind, K);
    stepq_qstate qs;
    if (stepq_qstate_init(&qs, fmt, p, h, p->kind, K, V) != STEPQ_OK) return 0;
    for (size_t i = 0; i < qs.bytes; i++) qs.packed[i] = b.at < b.n ? fz_u8(&b) : (uint8_t)(i * 131);
    float* X = mallocCheck(sizeof(float) * K * V);
    stepq_qstate_decode(&qs, X);
    if (qs.X) memcpy(qs.X, X, sizeof(float) * K * V);  // the whole-head encoders keep S_hat there
    // one step of the protocol through the active kernels, on inputs drawn from the bytes
    float q[STEPQ_MAX_DIM], k[STEPQ_MAX_DIM], v[STEPQ_MAX_DIM], g[STEPQ_MAX_DIM], decay[STEPQ_MAX_DIM];
    float y[STEPQ_MAX_DIM], pred[STEPQ_MAX_DIM];
    double grad[STEPQ_MAX_DIM];
    for (int i = 0; i < K; i++) q[i] = k[i] = 1.0f / sqrtf((float)K), g[i] = -0.01f * (float)(1 + i % 7);
    for (int j = 0; j < V; j++) v[j] = (float)((int)fz_u8(&b) - 128) / 64.0f;
    stepq_step_in in = {q, k, v, g, 0.5f};
    const stepq_backend* kt = stepq_backend_default();
    float* Sref = callocCheck((size_t)K * V, sizeof(float));
    stepq_readout_weights(grad, q, k, g, in.beta, 1.0 / sqrt(K), G, K);
    stepq_decays(decay, g, G, K);
    kt->read(&qs, &in, decay, grad, Sref, pred);
    stepq_qmeasure m;
    kt->write(&qs, &in, decay, 1.0 / sqrt(K), G, Sref, y, &m);
    free(Sref);
    free(X);
    stepq_qstate_free(&qs);
    return 0;
}

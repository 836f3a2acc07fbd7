// test_session: the head loop driven step by step (sim/session.h) against two independent paths
// on the same inputs: (1) the decode-step protocol of sim/protocol.h written out by hand here
// (decode -> float32 update -> read-out -> encode, with the reference step and codecs), which
// must give the same read-outs and stored states bit for bit (method 6.5: the fused kernels
// compute the reference's numbers); (2) the float64 recurrence, which the float32 reference
// read-out must follow to float32 accuracy. Also: replay formats re-encode only every `replay`
// steps, the cut protocol is refused by name where a backend lacks it, and a non-finite input is
// reported and ends the session.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/protocol.h"
#include "../sim/recurrence.h"
#include "../sim/session.h"
#include "../sim/synth.h"
#include "testutil.h"

enum { H = 3, PREFILL = 12, DECODE = 40 };

static stepq_source* small_source(const char* preset) {
    stepq_synth_params p;
    stepq_synth_preset(&p, preset);
    stepq_source* s = NULL;
    int layer = 0, heads[H] = {0, 1, 2};
    CHECK(stepq_synth_open(&s, &p, 3, 7, &layer, 1, heads, H) == 0, "open %s", preset);
    return s;
}

static void check_preset(const char* preset) {
    stepq_source* src = small_source(preset);
    const int K = src->K, V = src->V, G = src->n_gates;
    const size_t KV = (size_t)K * V;
    const char* names[] = {"int6", "int4", "int6-replay16", "nvfp4"};
    enum { F = 4 };
    stepq_slot slots[F];
    for (int f = 0; f < F; f++) {
        slots[f] = (stepq_slot){.fmt = stepq_format_find(names[f]), .proto = STEPQ_PROTO_NORMAL};
        CHECK(slots[f].fmt != NULL, "format %s", names[f]);
    }
    stepq_session_cfg sc = {.shape = stepq_shape_of(src), .n_heads = H, .slots = slots, .n_slots = F,
                            .prefill = PREFILL, .needs = STEPQ_NEED_MEASURE};
    stepq_session* s = stepq_session_open(&sc);
    CHECK(s != NULL, "%s: session opened", preset);
    if (!s) return;
    // the independent paths, per head: the protocol by hand and the float64 reference
    stepq_qstate qs[H][F];
    double* S64 = calloc((size_t)H * KV, sizeof(double));
    double y64[4096], w64[4096];
    float y[4096], work[4096];
    float* Sref = calloc((size_t)H * KV, sizeof(float));
    stepq_cursor* cur[H];
    for (int h = 0; h < H; h++) {
        cur[h] = src->open(src, h);
        for (int f = 0; f < F; f++)
            CHECK(stepq_qstate_init(&qs[h][f], slots[f].fmt, NULL, 0, src->kind, K, V) == STEPQ_OK, "init");
    }
    int bits_equal = 1, states_equal = 1, ref_close = 1, meas_equal = 1;
    double worst = 0;
    for (long t = 0; t < PREFILL + DECODE; t++) {
        stepq_step_in in[H];
        for (int h = 0; h < H; h++) CHECK(src->next(cur[h], &in[h]) == STEPQ_OK, "next");
        CHECK(stepq_session_step(s, in) == STEPQ_OK, "%s: step %ld", preset, t);
        for (int h = 0; h < H; h++) {
            const stepq_view* v = stepq_session_view(s, h);
            stepq_step_f64(S64 + h * KV, y64, w64, in[h].q, in[h].k, in[h].v, in[h].g, in[h].beta, src->scale, G, K, V);
            stepq_step_f32(Sref + h * KV, y, work, in[h].q, in[h].k, in[h].v, in[h].g, in[h].beta, src->scale, G, K, V);
            double d2 = 0, n2 = 0;
            for (int j = 0; j < V; j++) d2 += (v->y[j] - y64[j]) * (v->y[j] - y64[j]), n2 += y64[j] * y64[j];
            worst = fmax(worst, sqrt(d2 / fmax(n2, 1e-300)));
            ref_close &= sqrt(d2) <= 1e-4 * sqrt(n2) + 1e-6;  // float32 against float64 over 52 steps
            if (t + 1 == PREFILL)
                for (int f = 0; f < F; f++) stepq_qstate_load(&qs[h][f], Sref + h * KV);
            if (t < PREFILL) continue;
            for (int f = 0; f < F; f++) {
                CHECK(stepq_qstate_step(&qs[h][f], y, work, &in[h], src->scale, G) == STEPQ_OK, "by hand");
                bits_equal &= !memcmp(y, v->f[f].y_hat, sizeof(float) * V);
                float* X = malloc(sizeof(float) * KV);
                stepq_qstate_decode(v->f[f].qs, X);
                float* Xh = malloc(sizeof(float) * KV);
                stepq_qstate_decode(&qs[h][f], Xh);
                states_equal &= !memcmp(X, Xh, sizeof(float) * KV);
                double e2 = 0;
                for (size_t e = 0; e < KV; e++) e2 += ((double)Xh[e] - Sref[h * KV + e]) * ((double)Xh[e] - Sref[h * KV + e]);
                // the engine sums each row in float lanes (sim/sums.h): V float roundings of
                // 2^-24 each at most, so within V * 6e-8 of the double sum here
                meas_equal &= fabs(v->f[f].m.err2 - e2) <= V * 6e-8 * e2 + 1e-30;
                free(X);
                free(Xh);
            }
        }
    }
    CHECK(bits_equal, "%s: the session's y_hat differs from the protocol by hand", preset);
    CHECK(states_equal, "%s: the session's stored states differ from the protocol by hand", preset);
    CHECK(ref_close, "%s: the float32 reference is %.3g from float64 (relative)", preset, worst);
    CHECK(meas_equal, "%s: ||S_hat - S||^2 differs from its definition", preset);
    CHECK(stepq_session_steps(s) == PREFILL + DECODE, "steps counted");
    // a replay format keeps the exact state between re-encodes: its error is zero right after
    // the boundary's re-encode only at multiples of 16; int6 re-encodes every step
    const stepq_view* v = stepq_session_view(s, 0);
    CHECK(v->f[2].qs->count == DECODE, "%s: replay count %ld", preset, v->f[2].qs->count);
    // a non-finite input ends the session with a message
    stepq_step_in bad[H];
    float vnan[4096];
    for (int h = 0; h < H; h++) {
        CHECK(src->next(cur[h], &bad[h]) == STEPQ_OK, "next");
        if (h == 1) {
            memcpy(vnan, bad[h].v, sizeof(float) * V);
            vnan[0] = NAN;
            bad[h].v = vnan;
        }
    }
    CHECK(stepq_session_step(s, bad) == STEPQ_ERR, "%s: a NaN input was stepped", preset);
    CHECK(stepq_session_step(s, bad) == STEPQ_ERR, "%s: a failed session stepped again", preset);
    stepq_session_close(s);
    for (int h = 0; h < H; h++) {
        src->close(cur[h]);
        for (int f = 0; f < F; f++) stepq_qstate_free(&qs[h][f]);
    }
    free(S64);
    free(Sref);
    stepq_source_free(src);
}

// what a backend lacks is refused by name before any work
static void check_refusals(void) {
    stepq_source* src = small_source("gdn-qwen-like");
    stepq_slot cut = {.fmt = stepq_format_find("int6"), .proto = STEPQ_PROTO_CUT};
    stepq_backend whole = {.name = "whole-runs-only"};
    stepq_session_cfg sc = {.shape = stepq_shape_of(src), .n_heads = 1, .slots = &cut, .n_slots = 1,
                            .backend = &whole};
    CHECK(stepq_session_open(&sc) == NULL, "a backend without steps opened a session");
    stepq_backend nocut = *stepq_backend_default();
    nocut.write_cut = NULL;
    sc.backend = &nocut;
    CHECK(stepq_session_open(&sc) == NULL, "a backend without the cut protocol ran it");
    stepq_slot planned = {.fmt = stepq_format_find("stepquant6"), .proto = STEPQ_PROTO_NORMAL};
    sc = (stepq_session_cfg){.shape = stepq_shape_of(src), .n_heads = 1, .slots = &planned, .n_slots = 1};
    CHECK(stepq_session_open(&sc) == NULL, "a planned format ran without a plan");
    stepq_source_free(src);
}

int main(void) {
    setenv("STEPQ_QUIET", "1", 1);
    check_preset("gdn-qwen-like");
    check_preset("kda-kimi-like");
    check_refusals();
    return tu_finish("test_session");
}

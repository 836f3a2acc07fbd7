// test_session: the head loop driven step by step (sim/session.h) against two independent paths
// on the same inputs: (1) the decode-step protocol of sim/protocol.h written out by hand here
// (decode -> float32 update -> read-out -> encode, with the reference step and codecs), which
// must give the same read-outs and stored states bit for bit (method 6.5: the fused kernels
// compute the reference's numbers); (2) the float64 recurrence, which the float32 reference
// read-out must follow to float32 accuracy. Also: replay formats re-encode only every `replay`
// steps, the cut protocol is refused by name where a backend lacks it, and a non-finite input is
// reported and ends the session. And the engine without its reference (the language model's
// serving step): a normal and a row-subset slot against the protocol by hand, and what reads the
// reference refused.
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
                            .prefill = PREFILL, .needs = STEPQ_NEED_MEASURE, .backend = stepq_backend_default()};
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

// one head of src natively over PREFILL steps from zero into S, the cursor left after them
static void native_prefill(float* S, stepq_cursor* c, const stepq_source* src) {
    float y[4096], work[4096];
    stepq_step_in in;
    memset(S, 0, sizeof(float) * src->K * src->V);
    for (long t = 0; t < PREFILL; t++) {
        CHECK(src->next(c, &in) == STEPQ_OK, "next");
        stepq_step_f32(S, y, work, in.q, in.k, in.v, in.g, in.beta, src->scale, src->n_gates, src->K, src->V);
    }
}

static int view_boundary(void* ctx, void* tls, const stepq_view* v) {
    ((int*)ctx)[v->S && v->y && v->f[1].live ? 0 : 2]++;
    return STEPQ_OK;
}
static int view_step(void* ctx, void* tls, const stepq_view* v) {
    ((int*)ctx)[v->decoding && !v->S && !v->y ? 1 : 2]++;
    return STEPQ_OK;
}

// The engine without its reference (no_reference, the language model's serving step) begun from
// a native state with prefill 0: its first step encodes the boundary; a normal slot then steps
// as the protocol by hand from stepq_qstate_load, and a row-subset slot with rows_boundary as
// the float32 step followed by stepq_rows_reencode from the state with its rows re-encoded,
// read-outs and states bit for bit; the view has no reference after the boundary.
static void check_no_reference(const char* preset) {
    stepq_source* src = small_source(preset);
    const int K = src->K, V = src->V, G = src->n_gates;
    const size_t KV = (size_t)K * V;
    int8_t* sel = malloc((size_t)K);
    for (int i = 0; i < K; i++) sel[i] = (int8_t)(i % 3 == 1);
    const stepq_slot slots[2] = {{.fmt = stepq_format_find("int6"), .proto = STEPQ_PROTO_NORMAL},
                                 {.fmt = stepq_format_find("int4"), .proto = STEPQ_PROTO_ROWS, .rows = sel,
                                  .rows_stride = 0, .rows_value = 1, .rows_boundary = 1}};
    int views[3] = {0};  // the boundary's with the reference state, decode steps' without, others
    const stepq_observer obs = {.name = "views", .ctx = views, .on_step = view_step, .on_boundary = view_boundary};
    const stepq_headloop_cfg cfg = {.backend = stepq_backend_default(), .slots = slots, .n_slots = 2, .decode = DECODE,
                                    .obs = &obs, .n_obs = 1, .no_reference = 1};
    CHECK(stepq_headloop_check(&cfg, "test") == STEPQ_OK, "%s: a run without the reference refused", preset);
    const stepq_head_shape shape = stepq_shape_of(src);
    stepq_head e;
    stepq_head_init(&e, &cfg, &shape);
    float* S0 = malloc(sizeof(float) * KV);
    float* X = malloc(sizeof(float) * KV);
    float* Xh = malloc(sizeof(float) * KV);
    float y[4096], work[4096];
    stepq_cursor* c = src->open(src, 1);
    native_prefill(S0, c, src);
    CHECK(stepq_head_begin(&e, 1, 0, S0) == STEPQ_OK, "begin");
    stepq_qstate qs;  // the normal slot by hand
    CHECK(stepq_qstate_init(&qs, slots[0].fmt, NULL, 0, src->kind, K, V) == STEPQ_OK, "init");
    CHECK(stepq_qstate_load(&qs, S0) == STEPQ_OK, "load");
    memcpy(X, S0, sizeof(float) * KV);  // the row-subset slot by hand
    CHECK(stepq_rows_reencode(X, sel, 1, 4, K, V) == STEPQ_OK, "boundary rows");
    int normal_equal = 1, rows_equal = 1;
    for (long t = 0; t < DECODE; t++) {
        stepq_step_in in;
        CHECK(src->next(c, &in) == STEPQ_OK, "next");
        CHECK(stepq_head_step(&e, &in) == STEPQ_OK, "%s: step %ld", preset, t);
        CHECK(stepq_qstate_step(&qs, y, work, &in, src->scale, G) == STEPQ_OK, "by hand");
        stepq_qstate_decode(&e.qs[0], Xh);
        normal_equal &= !memcmp(y, e.y_hat, sizeof(float) * V) && !memcmp(Xh, qs.X, sizeof(float) * KV);
        stepq_step_f32(X, y, work, in.q, in.k, in.v, in.g, in.beta, src->scale, G, K, V);
        CHECK(stepq_rows_reencode(X, sel, 1, 4, K, V) == STEPQ_OK, "rows by hand");
        rows_equal &= !memcmp(y, e.y_hat + V, sizeof(float) * V) && !memcmp(X, e.qs[1].X, sizeof(float) * KV);
    }
    CHECK(normal_equal, "%s: without the reference, the normal slot differs from the protocol by hand", preset);
    CHECK(rows_equal, "%s: the row-subset slot differs from the float32 step and stepq_rows_reencode", preset);
    CHECK(views[0] == 1 && views[1] == DECODE && views[2] == 0, "%s: the views: boundary %d (reference state), "
          "%d of %d decode steps without the reference, %d wrong", preset, views[0], views[1], DECODE, views[2]);
    CHECK(stepq_head_end(&e) == STEPQ_OK, "end");
    stepq_head_free(&e);
    stepq_qstate_free(&qs);
    src->close(c);
    free(sel); free(S0); free(X); free(Xh);
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
    // without the reference: nothing that reads it
    const stepq_slot int6 = {.fmt = stepq_format_find("int6"), .proto = STEPQ_PROTO_NORMAL};
    const stepq_observer measure = {.name = "measure", .needs = STEPQ_NEED_MEASURE};
    stepq_headloop_cfg lc = {.backend = stepq_backend_default(), .slots = &int6, .n_slots = 1, .decode = 1, .obs = &measure,
                             .n_obs = 1, .no_reference = 1};
    CHECK(stepq_headloop_check(&lc, "test") == STEPQ_ERR, "a run without the reference measured against it");
    lc = (stepq_headloop_cfg){.backend = stepq_backend_default(), .slots = &cut, .n_slots = 1, .decode = 1,
                              .no_reference = 1};
    CHECK(stepq_headloop_check(&lc, "test") == STEPQ_ERR, "a run without the reference ran the cut protocol");
    lc.slots = &int6;
    CHECK(stepq_headloop_check(&lc, "test") == STEPQ_OK, "a normal slot without the reference refused");
    stepq_slot planned = {.fmt = stepq_format_find("stepquant6"), .proto = STEPQ_PROTO_NORMAL};
    sc = (stepq_session_cfg){.shape = stepq_shape_of(src), .n_heads = 1, .slots = &planned, .n_slots = 1};
    CHECK(stepq_session_open(&sc) == NULL, "a planned format ran without a plan");
    stepq_source_free(src);
}

int main(void) {
    setenv("STEPQ_QUIET", "1", 1);
    check_preset("gdn-qwen-like");
    check_preset("kda-kimi-like");
    check_no_reference("gdn-qwen-like");
    check_no_reference("kda-kimi-like");
    check_refusals();
    return tu_finish("test_session");
}

// test_dsession: the device session of include/stepq.h (sq_dsession_*) on its host backend,
// through the public header alone, as a program linking libstepq sees it. Independent answers:
// - the CPU session (sq_session) on the same inputs and formats: the host backend runs its code,
//   so every read-out and state must equal it bit for bit (method 6.5's contract (b) is the
//   bound a GPU backend would be held to; here nothing looser than equality is earned);
// - the binned measurements against bins summed here in float64 from the CPU session's own
//   read-outs and squared errors, the per-bin step counts against the decode steps fed, an
//   unreached bin NaN; fp32 stores the state itself: its errors are 0;
// - a batch: one session of B H heads equal to B sessions of H heads each, one by one (read-outs,
//   states and measurements, bit for bit: every head's sums are its own);
// - refusals by name: a shape or format the lane kernels do not take, an unknown format or
//   backend, the CUDA backend this libstepq lacks, bins out of range, a read before a decode
//   step, a step's inputs outside the trace reader's rules (the session is finished then: every
//   later call returns that failure), a step past the bins.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/stepq.h"
#include "testutil.h"  // CHECK and its counters (a test helper, not the project's code)
#include "tu_rand.h"   // unif, gauss, unit: the inputs

enum { K = 128, V = 128 };  // the lane kernels' head
#define KV ((size_t)K * V)

// one step's inputs of H heads: q, k (H,K), v (H,V), g (H,G), beta (H)
typedef struct {
    float *q, *k, *v, *g, *beta;
} inputs;

static inputs inputs_new(int H, int G) {
    return (inputs){malloc(sizeof(float) * H * K), malloc(sizeof(float) * H * K), malloc(sizeof(float) * H * V),
                    malloc(sizeof(float) * H * G), malloc(sizeof(float) * H)};
}
static void inputs_free(inputs* in) { free(in->q); free(in->k); free(in->v); free(in->g); free(in->beta); }

static void inputs_draw(inputs* in, int H, int G) { draw_step(in->q, in->k, in->v, in->g, in->beta, H, K, V, G); }

static const char* lane_formats[] = {"fp32", "int8", "int6", "int4"};
#define NF 4

static sq_dsession* dopen(sq_kind kind, int H, long prefill, int bin, int n_bins, const float* S0) {
    sq_dsession_config c = {.kind = kind, .K = K, .V = V, .n_heads = H, .formats = lane_formats, .n_formats = NF,
                            .prefill = prefill, .S0 = S0, .bin = bin, .n_bins = n_bins};
    sq_dsession* d = NULL;
    CHECK(sq_dsession_open(&c, &d) == SQ_OK, "sq_dsession_open: %s", sq_last_error());
    return d;
}

// the device session against the CPU session, T steps after a prefill, bins of `bin` steps
static void check_against_cpu(sq_kind kind, int H, long prefill, int T, int bin) {
    const int G = kind == SQ_KDA ? K : 1, NB = (T + bin - 1) / bin + 1;  // one bin more than reached
    float* S0 = malloc(sizeof(float) * H * KV);
    for (size_t i = 0; i < H * KV; i++) S0[i] = (float)(0.05 * gauss());
    sq_session_config cc = {.kind = kind, .K = K, .V = V, .n_heads = H, .formats = lane_formats, .n_formats = NF,
                            .prefill = prefill, .S0 = S0, .keep_states = 1};
    sq_session* c = NULL;
    CHECK(sq_session_open(&cc, &c) == SQ_OK, "sq_session_open: %s", sq_last_error());
    sq_dsession* d = dopen(kind, H, prefill, bin, NB, S0);
    if (!c || !d) return;
    CHECK(!strcmp(sq_dsession_backend(d), "host"), "the backend without CUDA is %s", sq_dsession_backend(d));
    inputs in = inputs_new(H, G);
    float *y = malloc(sizeof(float) * H * V), *yd = malloc(sizeof(float) * H * V), *yr = malloc(sizeof(float) * H * V);
    float *S = malloc(sizeof(float) * H * KV), *Sd = malloc(sizeof(float) * H * KV);
    double* want = calloc((size_t)NF * NB * 2 * H, sizeof(double));  // (F, NB, state|readout, H)
    double err2[64], ref2[64];
    int same = 1;
    for (long t = 0; t < prefill + T; t++) {
        inputs_draw(&in, H, G);
        CHECK(sq_session_step(c, in.q, in.k, in.v, in.g, in.beta) == SQ_OK, "cpu step: %s", sq_last_error());
        CHECK(sq_dsession_step(d, in.q, in.k, in.v, in.g, in.beta) == SQ_OK, "step %ld: %s", t, sq_last_error());
        if (t < prefill) {
            CHECK(sq_dsession_readout(d, 0, yd) == SQ_EINVAL && strstr(sq_last_error(), "no decode step"),
                  "a read-out in the prefill: %s", sq_last_error());
            continue;
        }
        const int b = (int)((t - prefill) / bin);
        CHECK(sq_session_readout(c, -1, yr) == SQ_OK, "%s", sq_last_error());
        for (int f = -1; f < NF; f++) {
            CHECK(sq_session_readout(c, f, y) == SQ_OK && sq_dsession_readout(d, f, yd) == SQ_OK, "%s",
                  sq_last_error());
            CHECK(sq_session_state(c, f, S) == SQ_OK && sq_dsession_state(d, f, Sd) == SQ_OK, "%s", sq_last_error());
            same &= !memcmp(y, yd, sizeof(float) * H * V) && !memcmp(S, Sd, sizeof(float) * H * KV);
            if (f < 0) continue;
            CHECK(sq_session_errors(c, f, err2, NULL, ref2) == SQ_OK, "%s", sq_last_error());
            for (int h = 0; h < H; h++) {
                double e = 0, r = 0;
                for (int j = 0; j < V; j++) {
                    const double dy = (double)y[h * V + j] - yr[h * V + j];
                    e += dy * dy, r += (double)yr[h * V + j] * yr[h * V + j];
                }
                double* at = want + (((size_t)f * NB + b) * 2) * H;
                at[h] += sqrt(err2[h] / ref2[h]);
                at[H + h] += sqrt(e / r);
            }
        }
    }
    CHECK(same, "the host backend's read-outs or states differ from the CPU session's");
    CHECK(sq_dsession_steps(d) == prefill + T, "%ld steps", sq_dsession_steps(d));
    CHECK(sq_dsession_sync(d) == SQ_OK, "sync: %s", sq_last_error());
    double *st = malloc(sizeof(double) * NB * H), *ro = malloc(sizeof(double) * NB * H);
    long n[64];
    for (int f = 0; f < NF; f++) {
        CHECK(sq_dsession_errors(d, f, st, ro, n) == SQ_OK, "errors: %s", sq_last_error());
        double worst = 0;
        for (int b = 0; b < NB; b++) {
            const long steps = b < NB - 1 ? (T - (long)b * bin < bin ? T - (long)b * bin : bin) : 0;
            CHECK(n[b] == steps, "format %s bin %d holds %ld steps, not %ld", lane_formats[f], b, n[b], steps);
            for (int h = 0; h < H; h++) {
                const double* at = want + (((size_t)f * NB + b) * 2) * H;
                if (!steps) {
                    CHECK(isnan(st[b * H + h]) && isnan(ro[b * H + h]), "an unreached bin is not NaN");
                    continue;
                }
                const double ws = at[h] / steps, wr = at[H + h] / steps;
                if (f == 0) CHECK(st[b * H + h] == 0 && ro[b * H + h] == 0, "fp32's error is not 0");
                worst = fmax(worst, fabs(st[b * H + h] - ws) / fmax(ws, 1e-30));
                worst = fmax(worst, fabs(ro[b * H + h] - wr) / fmax(wr, 1e-30));
            }
        }
        // the state errors are the CPU session's own (1e-12: the division and the mean's
        // rounding); the read-out errors sum each row in float32 lanes (sim/sums.h) where this
        // test sums in float64: 1e-5 is several times float32's rounding over V = 128 terms
        CHECK(worst < 1e-5, "format %s: binned errors off the float64 bins by %g (relative)", lane_formats[f], worst);
    }
    // the quantized paths measure something: int4's state error is above int8's
    CHECK(sq_dsession_errors(d, 1, st, NULL, NULL) == SQ_OK, "%s", sq_last_error());
    const double e8 = st[0];
    CHECK(sq_dsession_errors(d, 3, st, NULL, NULL) == SQ_OK, "%s", sq_last_error());
    CHECK(e8 > 0 && st[0] > 4 * e8, "int8's state error %g, int4's %g", e8, st[0]);
    sq_session_close(c);
    sq_dsession_close(d);
    inputs_free(&in);
    free(S0); free(y); free(yd); free(yr); free(S); free(Sd); free(want); free(st); free(ro);
}

// B sessions of H heads one by one against one session of B H heads
static void check_batch(sq_kind kind, int B, int H, int T) {
    const int G = kind == SQ_KDA ? K : 1, BH = B * H, NB = 2, bin = (T + 1) / 2;
    float* S0 = malloc(sizeof(float) * BH * KV);
    for (size_t i = 0; i < BH * KV; i++) S0[i] = (float)(0.05 * gauss());
    sq_dsession* all = dopen(kind, BH, 0, bin, NB, S0);
    sq_dsession* one[8];
    for (int b = 0; b < B; b++) one[b] = dopen(kind, H, 0, bin, NB, S0 + b * H * KV);
    inputs in = inputs_new(BH, G);
    float *y = malloc(sizeof(float) * BH * V), *y1 = malloc(sizeof(float) * H * V);
    float *S = malloc(sizeof(float) * BH * KV), *S1 = malloc(sizeof(float) * H * KV);
    int same = 1;
    for (int t = 0; t < T; t++) {
        inputs_draw(&in, BH, G);
        CHECK(sq_dsession_step(all, in.q, in.k, in.v, in.g, in.beta) == SQ_OK, "%s", sq_last_error());
        for (int b = 0; b < B; b++) {
            const size_t o = (size_t)b * H;
            CHECK(sq_dsession_step(one[b], in.q + o * K, in.k + o * K, in.v + o * V, in.g + o * G, in.beta + o) ==
                  SQ_OK, "%s", sq_last_error());
        }
        for (int f = -1; f < NF; f++) {
            sq_dsession_readout(all, f, y);
            sq_dsession_state(all, f, S);
            for (int b = 0; b < B; b++) {
                sq_dsession_readout(one[b], f, y1);
                sq_dsession_state(one[b], f, S1);
                same &= !memcmp(y1, y + (size_t)b * H * V, sizeof(float) * H * V) &&
                        !memcmp(S1, S + (size_t)b * H * KV, sizeof(float) * H * KV);
            }
        }
    }
    double *e = malloc(sizeof(double) * NB * BH), *r = malloc(sizeof(double) * NB * BH), e1[64], r1[64];
    for (int f = 0; f < NF; f++) {
        sq_dsession_errors(all, f, e, r, NULL);
        for (int b = 0; b < B; b++) {
            sq_dsession_errors(one[b], f, e1, r1, NULL);
            for (int j = 0; j < NB; j++)
                same &= !memcmp(e1 + j * H, e + j * BH + b * H, sizeof(double) * H) &&
                        !memcmp(r1 + j * H, r + j * BH + b * H, sizeof(double) * H);
        }
    }
    CHECK(same, "a batch of %d x %d heads differs from its %d sessions one by one", B, H, B);
    sq_dsession_close(all);
    for (int b = 0; b < B; b++) sq_dsession_close(one[b]);
    inputs_free(&in);
    free(S0); free(y); free(y1); free(S); free(S1); free(e); free(r);
}

// a refused open: rc, and a message holding `names`
static void refused_open(sq_dsession_config c, int rc, const char* names) {
    sq_dsession* d = (sq_dsession*)&c;  // not NULL: the refusal must set it
    const int got = sq_dsession_open(&c, &d);
    CHECK(got == rc && d == NULL && strstr(sq_last_error(), names), "open refused with %s (%s), not %s naming '%s'",
          sq_status_name(got), sq_last_error(), sq_status_name(rc), names);
}

static void check_refusals(void) {
    const char* one[] = {"int8"};
    const char* other[] = {"int8", "fp16"};
    const char* nope[] = {"int9x"};
    const sq_dsession_config ok = {.kind = SQ_GDN, .K = K, .V = V, .n_heads = 2, .formats = one, .n_formats = 1,
                                   .bin = 1, .n_bins = 4};
    sq_dsession_config c = ok;
    c.K = 64;
    refused_open(c, SQ_EINVAL, "128 x 128");
    c = ok, c.formats = other, c.n_formats = 2;
    refused_open(c, SQ_EINVAL, "format fp16");
    c = ok, c.formats = nope;
    refused_open(c, SQ_ENOFORMAT, "int9x");
    c = ok, c.n_formats = 0;
    refused_open(c, SQ_EINVAL, "0 formats");
    c = ok, c.bin = 0;
    refused_open(c, SQ_EINVAL, "bin 0");
    c = ok, c.n_bins = -1;
    refused_open(c, SQ_EINVAL, "n_bins -1");
    c = ok, c.backend = "cuda";  // refused where libstepq has no CUDA, or no device is there
    sq_dsession* gpu = NULL;
    if (sq_dsession_open(&c, &gpu) == SQ_OK) sq_dsession_close(gpu);
    else CHECK(gpu == NULL && (strstr(sq_last_error(), "backend cuda is not built") ||
                               strstr(sq_last_error(), "no CUDA device")), "backend cuda refused with '%s'", sq_last_error());
    c = ok, c.backend = "gpu";
    refused_open(c, SQ_EINVAL, "'gpu'");
    c = ok, c.n_heads = 0;
    refused_open(c, SQ_EINVAL, "0 heads");
    c = ok, c.kind = 7;
    refused_open(c, SQ_EINVAL, "kind 7");

    // reads before a decode step, errors of a session that measures nothing, NULL arguments
    c = ok, c.n_bins = 0, c.backend = "host";
    sq_dsession* d = NULL;
    CHECK(sq_dsession_open(&c, &d) == SQ_OK, "%s", sq_last_error());
    float y[2 * V];
    double e[8];
    CHECK(sq_dsession_readout(d, 0, y) == SQ_EINVAL && strstr(sq_last_error(), "no decode step"), "%s",
          sq_last_error());
    CHECK(sq_dsession_errors(d, 0, e, NULL, NULL) == SQ_EINVAL && strstr(sq_last_error(), "measures nothing"), "%s",
          sq_last_error());
    CHECK(sq_dsession_step(d, NULL, y, y, y, y) == SQ_EINVAL && strstr(sq_last_error(), "NULL"), "%s",
          sq_last_error());
    CHECK(sq_dsession_readout(d, 0, NULL) == SQ_EINVAL, "a NULL read-out");
    CHECK(sq_dsession_open(NULL, &d) == SQ_EINVAL, "a NULL config");
    sq_dsession_close(d);

    // a step's bad input finishes the session, naming the step and head; later calls repeat it
    inputs in = inputs_new(2, 1);
    d = NULL;
    c = ok;
    CHECK(sq_dsession_open(&c, &d) == SQ_OK, "%s", sq_last_error());
    for (int t = 0; t < 2; t++) {
        inputs_draw(&in, 2, 1);
        CHECK(sq_dsession_step(d, in.q, in.k, in.v, in.g, in.beta) == SQ_OK, "%s", sq_last_error());
    }
    in.q[K + 3] = 2.0f;  // head 1's q of norm above 1
    CHECK(sq_dsession_step(d, in.q, in.k, in.v, in.g, in.beta) == SQ_EINVAL &&
          strstr(sq_last_error(), "sq_dsession_step: step 2, head 1"), "a q of norm 2: %s", sq_last_error());
    inputs_draw(&in, 2, 1);
    CHECK(sq_dsession_step(d, in.q, in.k, in.v, in.g, in.beta) == SQ_EINVAL &&
          strstr(sq_last_error(), "failed before") && strstr(sq_last_error(), "head 1"), "after the failure: %s",
          sq_last_error());
    CHECK(sq_dsession_errors(d, 0, e, NULL, NULL) == SQ_EINVAL && strstr(sq_last_error(), "failed before"), "%s",
          sq_last_error());
    in.v[0] = NAN;
    sq_dsession_close(d);
    CHECK(sq_dsession_open(&c, &d) == SQ_OK, "%s", sq_last_error());
    CHECK(sq_dsession_step(d, in.q, in.k, in.v, in.g, in.beta) == SQ_ENONFINITE && strstr(sq_last_error(), "head 0"),
          "a NaN: %s", sq_last_error());
    sq_dsession_close(d);

    // a step past the bins: refused, naming them
    CHECK(sq_dsession_open(&c, &d) == SQ_OK, "%s", sq_last_error());
    int rc = SQ_OK;
    for (int t = 0; t < 5 && rc == SQ_OK; t++) {
        inputs_draw(&in, 2, 1);
        rc = sq_dsession_step(d, in.q, in.k, in.v, in.g, in.beta);
        CHECK((rc == SQ_OK) == (t < 4), "step %d: %s", t, sq_last_error());
    }
    CHECK(rc == SQ_EINVAL && strstr(sq_last_error(), "past the 4 bins of 1 steps"), "%s", sq_last_error());
    sq_dsession_close(d);
    inputs_free(&in);
}

int main(void) {
    check_against_cpu(SQ_GDN, 3, 4, 20, 6);
    check_against_cpu(SQ_KDA, 2, 0, 9, 4);
    check_batch(SQ_GDN, 3, 2, 7);
    check_batch(SQ_KDA, 2, 1, 5);
    check_refusals();
    return tu_finish("test_dsession");
}

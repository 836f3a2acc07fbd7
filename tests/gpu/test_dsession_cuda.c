// test_dsession_cuda: the cuda backend of the device session (sim/cuda/dsession.h; issue 68) in
// its host emulation, no GPU needed. Independent answers:
// - the bins' arithmetic (what the measurement kernel computes) against sums in float64 in
//   plain order (1e-12 of each: the same products added in another order), and a closed form
//   (S_hat = S + 1, S = 2 everywhere: relative state error 1/2 exactly);
// - the whole session against libstepq's host backend (the CPU session's code) on the same
//   inputs, GDN and KDA, 16 heads, a prefill then 48 decode steps in bins of 16: the reference's
//   read-outs and states within method 6.5's comparison rule (rms ratio 1e-5: the read-out bound
//   of its contract is about 1e-5 of a column's size), fp32's read-outs equal to the reference's
//   and its errors 0 (the same kernel), every other format's bins, means over the heads, within
//   2% of the CPU's (the contract's trajectory rule), and the steps each bin holds;
// - a failure deferred: a step whose input makes a state non-finite is queued without a word,
//   and the next wait names its step and head.
// With --device (device_check.sh) the same session runs on the GPU, its inputs and outputs in
// device memory, against the same host backend and bounds (exit 77 without a device); without it,
// nothing shows a device's launches, streams or arithmetic.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/stepq.h"
#include "../../quant/format.h"
#include "../../sim/cuda/dsession.h"
#include "../testutil.h"
#include "../tu_rand.h"

enum { K = 128, V = 128, H = 16 };
#define KV ((size_t)K * V)
static const char* names[] = {"fp32", "int8", "int6", "int4"};
#define NF 4
static int emu = 1;  // 0: --device

// the session's memory: n bytes (emu: the host's), filled from host memory, and read back
static void* mem(size_t n) {
    void* p = NULL;
    if (emu) return calloc(n, 1);
    CHECK(cudaMalloc(&p, n) == cudaSuccess, "cudaMalloc %zu", n);
    return p;
}
static void mem_free(void* p) {
    if (emu) free(p);
    else cudaFree(p);
}
static void put(void* d, const void* h, size_t n) {
    if (emu) memcpy(d, h, n);
    else CHECK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice) == cudaSuccess, "to the device");
}
static void get(void* h, const void* d, size_t n) {
    if (emu) memcpy(h, d, n);
    else CHECK(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost) == cudaSuccess, "from the device");
}

static void check_bins_arithmetic(void) {
    float *Sh = malloc(sizeof(float) * KV), *S = malloc(sizeof(float) * KV), yh[V], y[V];
    for (size_t i = 0; i < KV; i++) S[i] = (float)gauss(), Sh[i] = S[i] + (float)(0.01 * gauss());
    for (int j = 0; j < V; j++) y[j] = (float)gauss(), yh[j] = y[j] + (float)(0.001 * gauss());
    double e[4], st, ro, w[4] = {0, 0, 0, 0};
    stepq_dsess_measure_host(e, &st, &ro, Sh, S, yh, y, (int)KV, V);
    for (size_t i = 0; i < KV; i++) {
        w[0] += ((double)Sh[i] - S[i]) * ((double)Sh[i] - S[i]);
        w[1] += (double)S[i] * S[i];
    }
    for (int j = 0; j < V; j++) {
        w[2] += ((double)yh[j] - y[j]) * ((double)yh[j] - y[j]);
        w[3] += (double)y[j] * y[j];
    }
    for (int m = 0; m < 4; m++) CHECK(fabs(e[m] - w[m]) <= 1e-12 * w[m], "sum %d: %.17g, float64 %.17g", m, e[m], w[m]);
    CHECK(fabs(st - sqrt(w[0] / w[1])) <= 1e-12 * st && fabs(ro - sqrt(w[2] / w[3])) <= 1e-12 * ro,
          "relative errors %.17g %.17g", st, ro);
    for (size_t i = 0; i < KV; i++) S[i] = 2.0f, Sh[i] = 3.0f;
    stepq_dsess_measure_host(e, &st, &ro, Sh, S, y, y, (int)KV, V);
    CHECK(st == 0.5 && ro == 0.0, "closed form: state %.17g (0.5), read-out %.17g (0)", st, ro);
    free(Sh);
    free(S);
}

// one step's inputs of H heads
typedef struct {
    float q[H * K], k[H * K], v[H * V], g[H * K], beta[H];
} step_in;

static void draw(step_in* in, int G) { draw_step(in->q, in->k, in->v, in->g, in->beta, H, K, V, G); }

static void check_against_host(sq_kind kind) {
    enum { PREFILL = 4, T = 48, BIN = 16, NB = T / BIN };
    const int G = kind == SQ_KDA ? K : 1;
    float* S0 = malloc(sizeof(float) * KV * H);
    for (size_t i = 0; i < KV * H; i++) S0[i] = (float)(0.1 * gauss());
    sq_dsession_config hc = {.kind = kind, .K = K, .V = V, .n_heads = H, .formats = names, .n_formats = NF,
                             .prefill = PREFILL, .S0 = S0, .bin = BIN, .n_bins = NB, .backend = "host"};
    sq_dsession* host = NULL;
    CHECK(sq_dsession_open(&hc, &host) == SQ_OK, "host: %s", sq_last_error());
    const stepq_format* fm[NF];
    for (int f = 0; f < NF; f++) fm[f] = stepq_format_find(names[f]);
    float* dS0 = mem(sizeof(float) * KV * H);
    put(dS0, S0, sizeof(float) * KV * H);
    const stepq_dsess_config dc = {.fmts = fm, .F = NF, .H = H, .kind = kind, .fscale = (float)(1.0 / sqrt(K)),
                                   .prefill = PREFILL, .S0 = dS0, .bin = BIN, .n_bins = NB, .emu = emu};
    stepq_dsess* dev = NULL;
    CHECK(stepq_dsess_open(&dev, &dc) == STEPQ_OK, "emulated session refused");
    if (!host || !dev) return;
    step_in* in = malloc(sizeof *in);
    float *y = malloc(sizeof(float) * H * V), *y2 = malloc(sizeof(float) * H * V);
    float *S = malloc(sizeof(float) * KV * H), *S2 = malloc(sizeof(float) * KV * H);
    double *a = malloc(sizeof(double) * KV * H), *b = malloc(sizeof(double) * KV * H), got = 0;
    step_in* din = mem(sizeof *din);
    float *dy = mem(sizeof(float) * H * V), *dS = mem(sizeof(float) * KV * H);
    for (long t = 0; t < PREFILL + T; t++) {
        draw(in, G);
        CHECK(sq_dsession_step(host, in->q, in->k, in->v, in->g, in->beta) == SQ_OK, "host step: %s", sq_last_error());
        put(din, in, sizeof *in);
        CHECK(stepq_dsess_step(dev, t, din->q, din->k, din->v, din->g, din->beta) == STEPQ_OK, "step %ld", t);
        if (t < PREFILL || (t - PREFILL) % BIN) continue;
        sq_dsession_readout(host, -1, y);  // the reference: within the contract
        stepq_dsess_copy(dev, -1, 0, dy);
        stepq_dsess_sync(dev);
        get(y2, dy, sizeof(float) * H * V);
        for (int i = 0; i < H * V; i++) a[i] = y[i], b[i] = y2[i];
        CHECK(tu_agree(a, b, (size_t)H * V, 1e-5, &got), "step %ld: reference read-outs rms ratio %.3g", t, got);
        sq_dsession_state(host, -1, S);
        stepq_dsess_copy(dev, -1, 1, dS);
        stepq_dsess_sync(dev);
        get(S2, dS, sizeof(float) * KV * H);
        for (size_t i = 0; i < KV * H; i++) a[i] = S[i], b[i] = S2[i];
        CHECK(tu_agree(a, b, KV * H, 1e-5, &got), "step %ld: reference states rms ratio %.3g", t, got);
        stepq_dsess_copy(dev, 0, 0, dy);  // fp32: the reference's kernel, its numbers
        stepq_dsess_sync(dev);
        get(y, dy, sizeof(float) * H * V);
        CHECK(!memcmp(y, y2, sizeof(float) * H * V), "step %ld: fp32's read-outs are not the reference's", t);
    }
    CHECK(stepq_dsess_sync(dev) == STEPQ_OK, "sync: %s", sq_last_error());
    double hs[NB * H], hr[NB * H], ds[NB * H], dr[NB * H], worst = 0;  // the largest gap of a bin's mean
    long hn[NB], dn[NB];
    for (int f = 0; f < NF; f++) {
        CHECK(sq_dsession_errors(host, f, hs, hr, hn) == SQ_OK, "host errors: %s", sq_last_error());
        stepq_dsess_bins(dev, f, ds, dr, dn);
        for (int bb = 0; bb < NB; bb++) {
            double m[4] = {0, 0, 0, 0};  // means over the heads: host state, read-out; emulated state, read-out
            for (int h = 0; h < H; h++)
                m[0] += hs[bb * H + h], m[1] += hr[bb * H + h], m[2] += ds[bb * H + h] / dn[bb], m[3] += dr[bb * H + h] / dn[bb];
            CHECK(dn[bb] == BIN, "%s bin %d holds %ld steps, not %d", names[f], bb, dn[bb], BIN);
            if (f == 0) {
                CHECK(m[2] == 0 && m[3] == 0, "fp32 bin %d: errors %g %g, not 0", bb, m[2], m[3]);
                continue;
            }
            worst = fmax(worst, fmax(fabs(m[2] - m[0]) / m[0], fabs(m[3] - m[1]) / m[1]));
            CHECK(fabs(m[2] - m[0]) <= 0.02 * m[0] && fabs(m[3] - m[1]) <= 0.02 * m[1],
                  "%s %s bin %d: state error %.6g (CPU %.6g), read-out %.6g (CPU %.6g): more than 2%% apart",
                  kind == SQ_KDA ? "KDA" : "GDN", names[f], bb, m[2] / H, m[0] / H, m[3] / H, m[1] / H);
        }
    }
    printf("%s: the binned errors of int8, int6 and int4 at most %.2f%% from the CPU's\n", kind == SQ_KDA ? "KDA" : "GDN",
           100 * worst);
    // a failure deferred: an infinite value makes every state of head 3 non-finite, the step is queued
    in->v[3 * V + 5] = INFINITY;
    put(din, in, sizeof *in);
    CHECK(stepq_dsess_step(dev, PREFILL + T, din->q, din->k, din->v, din->g, din->beta) == STEPQ_OK,
          "the failing step refused at once (a device cannot know it yet)");
    char want[64];
    snprintf(want, sizeof want, "step %d, head 3", PREFILL + T);
    stepq_error_sink sink = {.n = 0};
    stepq_error_sink* was = stepq_error_sink_set(&sink);
    const int rc = stepq_dsess_sync(dev);
    stepq_error_sink_set(was);
    CHECK(rc == STEPQ_ERR && strstr(sink.msg, want), "sync after a non-finite state: %d, '%s' (wanted '%s')", rc,
          sink.msg, want);
    free(in), free(y), free(y2), free(S), free(S2), free(a), free(b), free(S0);
    sq_dsession_close(host);
    stepq_dsess_close(dev);
    mem_free(din), mem_free(dy), mem_free(dS), mem_free(dS0);
}

int main(int argc, char** argv) {
    emu = !(argc > 1 && !strcmp(argv[1], "--device"));
    if (!emu && !stepq_dsess_ready()) {
        printf("test_dsession_cuda --device: no CUDA device of compute capability 8.0 or newer\n");
        return 77;
    }
    check_bins_arithmetic();
    check_against_host(SQ_GDN);
    check_against_host(SQ_KDA);
    return tu_finish("test_dsession_cuda");
}

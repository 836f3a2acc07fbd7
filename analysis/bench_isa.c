// bench_isa.c: the yardsticks of `stepq bench` (bench.h), built once per instruction set like
// sim/kernels.c: a plain two-pass float32 step written the obvious way and compiled with
// contraction into FMA allowed (the "-O3 -march=native" loop a reader would write), and a
// kernel of independent FMA chains that measures one core's arithmetic peak.
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"

#if defined(__AVX512F__)
#define W 16
#elif defined(__AVX2__)
#define W 8
#else
#define W 4
#endif
typedef float vec __attribute__((vector_size(W * sizeof(float))));

// S (K,V), y (V), u (V) scratch: the step of method 1 in its plainest form
static void plain_step(float* restrict S, float* restrict y, float* restrict u, const float* q,
                       const float* k, const float* v, const float* g, float beta, float scale,
                       int n_gates, int K, int V) {
    for (int j = 0; j < V; j++) u[j] = 0;
    for (int i = 0; i < K; i++) {
        float d = expf(g[n_gates == 1 ? 0 : i]);
        for (int j = 0; j < V; j++) {
            S[i * V + j] *= d;
            u[j] += k[i] * S[i * V + j];
        }
    }
    for (int j = 0; j < V; j++) u[j] = beta * (v[j] - u[j]), y[j] = 0;
    for (int i = 0; i < K; i++)
        for (int j = 0; j < V; j++) {
            S[i * V + j] += k[i] * u[j];
            y[j] += scale * q[i] * S[i * V + j];
        }
}

static double thread_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// GFLOP/s of 12 independent chains of a*b + c on the widest vectors, for about `seconds` of
// this thread's CPU time
static double fma_peak(double seconds) {
    vec acc[12], m, c;
    for (int k = 0; k < W; k++) m[k] = 0.999999f, c[k] = 1e-7f;
    for (int a = 0; a < 12; a++)
        for (int k = 0; k < W; k++) acc[a][k] = (float)a;
    long iters = 0;
    double t0 = thread_seconds(), t;
    do {
        for (int n = 0; n < 4096; n++)
            for (int a = 0; a < 12; a++) acc[a] = acc[a] * m + c;
        iters += 4096;
        t = thread_seconds() - t0;
    } while (t < seconds);
    float sink = 0;
    for (int a = 0; a < 12; a++)
        for (int k = 0; k < W; k++) sink += acc[a][k];
    return sink == sink ? 2.0 * 12 * W * (double)iters / t / 1e9 : 0;
}

// one read pass and one read-modify-write pass over S (n floats, a multiple of 4 W): what
// the float32 step moves, with four independent accumulators so that the adds never bound it
static float traffic_pair(float* restrict S, int n, float d) {
    vec a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, dv, cv;
    for (int k = 0; k < W; k++) dv[k] = d, cv[k] = 1e-9f;
    for (int i = 0; i < n; i += 4 * W) {
        vec x0, x1, x2, x3;
        __builtin_memcpy(&x0, S + i, sizeof x0);
        __builtin_memcpy(&x1, S + i + W, sizeof x1);
        __builtin_memcpy(&x2, S + i + 2 * W, sizeof x2);
        __builtin_memcpy(&x3, S + i + 3 * W, sizeof x3);
        a0 += x0, a1 += x1, a2 += x2, a3 += x3;
    }
    for (int i = 0; i < n; i += W) {
        vec x;
        __builtin_memcpy(&x, S + i, sizeof x);
        x = x * dv + cv;
        __builtin_memcpy(S + i, &x, sizeof x);
    }
    vec a = a0 + a1 + a2 + a3;
    float s = 0;
    for (int k = 0; k < W; k++) s += a[k];
    return s;
}

static volatile float bench_sink;

static double step_traffic_ns(int K, int V, double seconds) {
    const int n = K * V;
    float* S = aligned_alloc(64, sizeof(float) * (size_t)n);
    for (int i = 0; i < n; i++) S[i] = 1.0f / (1 + i % 97);
    enum { REPS = 64, MAXR = 4096 };
    double per[MAXR];
    int r = 0;
    float sink = 0;
    double t0 = thread_seconds();
    for (int w = 0; w < REPS; w++) sink += traffic_pair(S, n, 0.999f);  // warm the caches
    do {
        double a = thread_seconds();
        for (int w = 0; w < REPS; w++) sink += traffic_pair(S, n, 0.999f);
        per[r++] = (thread_seconds() - a) / REPS * 1e9;
    } while (r < MAXR && thread_seconds() - t0 < seconds);
    free(S);
    bench_sink = sink;  // keeps the read passes from being elided
    return stepq_bench_median(per, r);
}

const stepq_bench_isa STEPQ_BENCH_NAME = {
    .level = STEPQ_KERNELS_LEVEL,
    .plain_step = plain_step,
    .fma_peak = fma_peak,
    .step_traffic_ns = step_traffic_ns,
};

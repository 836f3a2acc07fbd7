// bench_isa.c: the yardsticks of `stepq bench` (bench.h), built once per instruction set like
// sim/kernels.c: a plain two-pass float32 step written the obvious way and compiled with
// contraction into FMA allowed (the "-O3 -march=native" loop a reader would write), and a
// kernel of independent FMA chains that measures one core's arithmetic peak.
#include <math.h>
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

const stepq_bench_isa STEPQ_BENCH_NAME = {
    .level = STEPQ_KERNELS_LEVEL,
    .plain_step = plain_step,
    .fma_peak = fma_peak,
};

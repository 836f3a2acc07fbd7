// tu_rand.h: the libstepq tests' random inputs (test_libstepq, test_dsession), a test helper, not
// the project's code: xorshift64* in (0, 1), a normal by Box-Muller, a random unit vector. One
// stream per test program, from a fixed seed: every run draws the same inputs.
#ifndef STEPQ_TU_RAND_H
#define STEPQ_TU_RAND_H

#include <math.h>

static unsigned long long rng = 88172645463325252ull;
static double unif(void) {  // xorshift64*, in (0, 1)
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return ((rng * 2685821657736338717ull >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void) { return sqrt(-2 * log(unif())) * cos(6.283185307179586 * unif()); }

// x (n) <- a random direction, of norm 1
static void unit(float* x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        x[i] = (float)gauss();
        s += (double)x[i] * x[i];
    }
    for (int i = 0; i < n; i++) x[i] = (float)(x[i] / sqrt(s));
}

// one step's inputs of H heads of K x V: q, k (H,K) random directions, v (H,V) normal, g (H,G)
// log gates in (-0.3, 0), beta (H) in (0.2, 0.8)
static inline void draw_step(float* q, float* k, float* v, float* g, float* beta, int H, int K, int V, int G) {
    for (int h = 0; h < H; h++) {
        unit(q + h * K, K);
        unit(k + h * K, K);
        for (int j = 0; j < V; j++) v[h * V + j] = (float)gauss();
        for (int i = 0; i < G; i++) g[h * G + i] = (float)(-0.3 * unif());
        beta[h] = (float)(0.2 + 0.6 * unif());
    }
}

#endif

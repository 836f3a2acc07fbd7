// sums.h: the error sums of the runner and the fused kernels, in a fixed order of lanes (the
// definition, method 6.5): 16 float lanes for a row (lane k takes elements k, k+16, ...; the
// lanes are added pairwise in a fixed tree), 8 double lanes for the read-out sums. The order
// does not depend on the vector width, so every build computes the same numbers, and the
// compiler vectorises the loops.
#ifndef STEPQ_SUMS_H
#define STEPQ_SUMS_H

#include <stddef.h>

static inline float stepq_lanes16(float* acc /*(16)*/) {
    for (int w = 8; w >= 1; w /= 2)
        for (int k = 0; k < w; k++) acc[k] += acc[k + w];
    return acc[0];
}

// sum over n of (a - b)^2
static inline float stepq_sq_dist_row(const float* a, const float* b, int n) {
    float acc[16] = {0};
    int j = 0;
    for (; j + 16 <= n; j += 16)
        for (int k = 0; k < 16; k++) {
            float d = a[j + k] - b[j + k];
            acc[k] += d * d;
        }
    for (int k = 0, r = n - j; k < r && k < 16; k++) {  // the tail, at most 15
        float d = a[j + k] - b[j + k];
        acc[k] += d * d;
    }
    return stepq_lanes16(acc);
}

// sum over n of a^2
static inline float stepq_sq_norm_row(const float* a, int n) {
    float acc[16] = {0};
    int j = 0;
    for (; j + 16 <= n; j += 16)
        for (int k = 0; k < 16; k++) acc[k] += a[j + k] * a[j + k];
    for (int k = 0, r = n - j; k < r && k < 16; k++) acc[k] += a[j + k] * a[j + k];
    return stepq_lanes16(acc);
}

// ||A - B||_F^2 and ||A||_F^2 of (K,V) matrices: rows in float lanes, rows summed in double
static inline double stepq_sq_dist(const float* a, const float* b, int K, int V) {
    double s = 0;
    for (int i = 0; i < K; i++) s += stepq_sq_dist_row(a + (size_t)i * V, b + (size_t)i * V, V);
    return s;
}
static inline double stepq_sq_norm(const float* a, int K, int V) {
    double s = 0;
    for (int i = 0; i < K; i++) s += stepq_sq_norm_row(a + (size_t)i * V, V);
    return s;
}

// dy = y_hat - y in double: *dy2 <- sum dy^2, *res2 <- sum (dy - pred)^2 over V, 8 lanes each
static inline void stepq_readout_sums(double* dy2, double* res2, const float* y_hat, const float* y,
                                      const float* pred, int V) {
    double a[8] = {0}, r[8] = {0};
    int j = 0;
    for (; j + 8 <= V; j += 8)
        for (int k = 0; k < 8; k++) {
            double dy = (double)y_hat[j + k] - y[j + k], e = dy - pred[j + k];
            a[k] += dy * dy;
            r[k] += e * e;
        }
    for (int k = 0, n = V - j; k < n && k < 8; k++) {  // the tail, at most 7
        double dy = (double)y_hat[j + k] - y[j + k], e = dy - pred[j + k];
        a[k] += dy * dy;
        r[k] += e * e;
    }
    *dy2 = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
    *res2 = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
}

// pred (V) <- E^T grad with E = X_hat - S (K,V): P1's prediction of the read-out error (method
// 3); products in float, summed over rows in order
static inline void stepq_p1_predict(float* restrict pred, const float* X_hat, const float* S,
                                    const double* grad, int K, int V) {
    for (int j = 0; j < V; j++) pred[j] = 0;
    for (int i = 0; i < K; i++) {
        const float *xr = X_hat + (size_t)i * V, *sr = S + (size_t)i * V;
        float gi = (float)grad[i];
        for (int j = 0; j < V; j++) pred[j] += (xr[j] - sr[j]) * gi;
    }
}

#endif

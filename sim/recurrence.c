// recurrence.c: the CPU reference of method 1. See recurrence_impl.h for the step.
#include "recurrence.h"

#include <math.h>
#include <stddef.h>

#include "sums.h"

#define REAL float
#define STEP_FN stepq_step_f32
#define STEP_NORM_FN stepq_step_norm_f32
#define EXP_FN expf
#include "recurrence_impl.h"
#undef REAL
#undef STEP_FN
#undef STEP_NORM_FN
#undef EXP_FN

#define REAL double
#define STEP_FN stepq_step_f64
#define EXP_FN exp
#include "recurrence_impl.h"
#undef REAL
#undef STEP_FN
#undef EXP_FN

#define PROPAGATE_FN stepq_propagate_f32
#include "propagate_impl.h"
#undef PROPAGATE_FN

#define ERRSTEP_FN stepq_error_step_f64
#include "errstep_impl.h"
#undef ERRSTEP_FN

void stepq_readout_weights(double* grad, const float* q, const float* k, const float* g,
                           float beta, double scale, int n_gates, int K) {
    double kq = 0;
    for (int i = 0; i < K; i++) kq += (double)k[i] * ((double)scale * q[i]);
    const double d_head = exp((double)g[0]);  // GDN: one gate for every row
    for (int i = 0; i < K; i++) {
        double d = n_gates == 1 ? d_head : exp((double)g[i]);
        grad[i] = d * ((double)scale * q[i] - (double)beta * k[i] * kq);
    }
}

void stepq_l2norm(float* x, int n) {
    double ss = 0;
    for (int i = 0; i < n; i++) ss += (double)x[i] * x[i];
    float inv = (float)(1.0 / sqrt(ss + STEPQ_QK_NORM_EPS));
    for (int i = 0; i < n; i++) x[i] *= inv;
}

void stepq_decays(float* d, const float* g, int n_gates, int K) {
    const float d_head = expf(g[0]);
    for (int i = 0; i < K; i++) d[i] = n_gates == 1 ? d_head : expf(g[i]);
}

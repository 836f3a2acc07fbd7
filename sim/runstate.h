// runstate.h: one head's scratch for a run of the recurrence (llama2.c's RunState), allocated
// once per thread and reused head after head by every driver's head loop: the float32 state
// and its read-outs with the step's work vector, the read-out weights of method 3 (P1, P4),
// and the per-unit sums that calibration and the input statistics accumulate.
//
// Legend: K = d_k, V = d_v, G gates per step (1 GDN, K KDA).
#ifndef STEPQ_RUNSTATE_H
#define STEPQ_RUNSTATE_H

#include "backend.h"
#include "stream.h"

typedef struct {
    int K, V, G;
    float* S;       // (K,V) the float32 state, K-first
    float* y;       // (V) its read-out
    float* y_hat;   // (V) a second read-out (the quantized path of the protocol)
    float* work;    // (V) scratch of one step
    double* grad;   // (K) read-out weights A_t^T (scale q_t) of the last observed step
    double* omega;  // (K) sum of grad_i^2 over the observed steps (method 4.1)
    double* gsum;   // (G) sum of the log gates over the observed steps
    stepq_step_fn step;  // the float32 step of the backend it was made with (sim/backend.h)
} stepq_runstate;

// be: whose float32 step the run takes (the front end's choice, passed down)
void stepq_runstate_init(stepq_runstate* s, const stepq_backend* be, int K, int V, int G);
void stepq_runstate_free(stepq_runstate* s);
// S <- S0 (K,V), or zeros when S0 is NULL; omega and gsum <- 0
void stepq_runstate_reset(stepq_runstate* s, const float* S0);
// gsum += the step's log gates; with_omega: grad <- A_t^T (scale q_t) and omega += grad^2
// (sums in double, method 4.1)
void stepq_runstate_observe(stepq_runstate* s, const stepq_step_in* in, double scale, int with_omega);
// the same sums in a caller's arrays: gsum (G) += the log gates; with_omega: grad (K) <- A_t^T
// (scale q_t), omega (K) += grad^2
void stepq_observe_sums(double* gsum, double* omega, double* grad, const stepq_step_in* in,
                        double scale, int G, int K, int with_omega);
// one native float32 step of S on `in`; y <- its read-out
void stepq_runstate_step(stepq_runstate* s, const stepq_step_in* in, double scale);

#endif

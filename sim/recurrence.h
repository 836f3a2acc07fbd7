// recurrence.h: the reference delta-rule recurrence of method 1 (fla convention).
//
// This is the definition: plain loops over a K-first state, each update a contiguous axpy
// over a key row, no allocation. Legend: K = d_k, V = d_v; S (K,V) row i = key channel i.
//
//   D_t = exp(g_t) I (GDN, n_gates = 1) or diag(exp(g_t1..g_tK)) (KDA, n_gates = K)
//   S'  = D_t S_{t-1}                 decay first
//   u   = beta (v - S'^T k)           delta read on the decayed state
//   S_t = S' + k u^T = A_t S_{t-1} + B_t,  A_t = (I - beta k k^T) D_t,  B_t = beta k v^T
//   y_t = S_t^T (scale q)             read-out after the write
#ifndef STEPQ_RECURRENCE_H
#define STEPQ_RECURRENCE_H

#include "../base/common.h"
#include "stream.h"

// One step of one head, float32 state (what fla and SGLang keep). work: (V) scratch.
void stepq_step_f32(float* S, float* y, float* work, const float* q, const float* k,
                    const float* v, const float* g, float beta, double scale, int n_gates, int K,
                    int V);
// The same step returning ||S_t||_F^2 in sim/sums.h's order (stepq_sq_norm of the new state: each
// row summed as it is written, the rows added in double in order)
double stepq_step_norm_f32(float* S, float* y, float* work, const float* q, const float* k,
                           const float* v, const float* g, float beta, double scale, int n_gates, int K,
                           int V);
// The same step with a float64 state: the ground truth. Inputs stay float32 (as stored).
void stepq_step_f64(double* S, double* y, double* work, const float* q, const float* k,
                    const float* v, const float* g, float beta, double scale, int n_gates, int K,
                    int V);

// grad (K) <- A_t^T (scale q) = D_t (q' - beta k (k . q')), q' = scale q: the read-out weight
// of each key row of the previous state (method 3, P1 and P4), in float64.
void stepq_readout_weights(double* grad, const float* q, const float* k, const float* g,
                           float beta, double scale, int n_gates, int K);

// The measured and read-out lifetimes' propagation (method 4.1): rl (K) += (P^T g)^2 with g
// (K) the step's read-out weights, then P (K,K) <- A_t P and m (K) += the squared column norms
// of P (in double); returns the step's largest squared column norm. w (K) double, kP and m_step
// (K) float: scratch. See propagate_impl.h.
float stepq_propagate_f32(float* P, double* m, double* rl, double* w, float* kP, float* m_step,
                          const double* g, const stepq_step_in* in, int G, int K);

// One step of an error injected into the state, carried exactly in float64 (method 3, P2):
// E (K,V) <- A_t E; rows (K, may be NULL) += each new row's ||E_i||^2; returns ||E^T (scale
// q_t)||^2. decay: stepq_decays of the step. See errstep_impl.h.
double stepq_error_step_f64(double* E, double* rows, const stepq_step_in* in, const float* decay,
                            double scale, int K, int V);

// d (K) <- the decay of each key row, exp(g) (GDN: the head's one gate on every row), the
// same expf values the float32 step multiplies by
void stepq_decays(float* d, const float* g, int n_gates, int K);

// x <- x / sqrt(sum x^2 + 1e-6), the L2 normalisation fla applies to q and k (method 1)
// the eps of fla's L2 normalisation of q and k: x / sqrt(sum x^2 + eps) (method 6.1)
#define STEPQ_QK_NORM_EPS 1e-6
void stepq_l2norm(float* x, int n);

#endif

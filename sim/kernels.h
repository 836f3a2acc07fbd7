// kernels.h: the fast paths of the decode step (method 6.5), one table per instruction set,
// chosen once at run time.
//
// "reference" is the definition: sim/recurrence.c's step and the decode-step protocol of
// method 2 (decode the packed state, step it, encode, decode), built for baseline x86-64.
// The fused kernels (sim/kernels.c, built for x86-64-v2, AVX2 and AVX-512) compute the same
// numbers key row by key row: decode a row from its packed bytes, decay it and read it along
// k (pass 1), then decode it again, write, read out and encode it while it is in L1 (pass 2),
// never materialising the float32 state for the formats whose codes are row-local (cast,
// rows, DAMP, LeapQuant without freeze gating; on AVX-512 at most 16 updated rows wait in an L1
// buffer for their scales, computed side by side; the dual-axis fit, NVFP4, FP8 tiles, stochastic
// rounding and LeapQuant's freeze gate need the whole head and encode it from a buffer; the
// replay variant keeps the reference's protocol). Every operation is the reference's, in the
// same order, so read-outs, packed bytes and error sums are equal bit for bit
// (tests/test_kernels.c).
//
// A step of the quantized state, in two halves around the reference's own step:
//   read:  S_hat_{t-1} = decode(P_{t-1}); u_t = beta (v - (D_t S_hat_{t-1})^T k); with grad and
//          S_prev, pred <- P1's prediction E_{t-1}^T grad of the read-out error (method 3)
//   write: X_t = D_t S_hat_{t-1} + k u^T; y_hat = X_t^T (scale q); P_t = encode(X_t); with
//          S_ref, the measure of S_hat_t = decode(P_t): ||S_hat_t - S_ref||_F^2, ||S_hat_t||_F^2
// Legend: K = d_k, V = d_v; decay (K) = stepq_decays of the step.
#ifndef STEPQ_KERNELS_H
#define STEPQ_KERNELS_H

#include "protocol.h"
#include "stream.h"

typedef void (*stepq_step_fn)(float* S, float* y, float* work, const float* q, const float* k,
                              const float* v, const float* g, float beta, double scale,
                              int n_gates, int K, int V);

typedef float (*stepq_propagate_fn)(float* P, double* m, double* rl, double* w, float* kP,
                                    float* m_step, const double* g, const stepq_step_in* in, int G,
                                    int K);

// what the write half measures of S_hat_t against the reference state
typedef struct {
    double err2;   // ||S_hat_t - S_ref||_F^2
    double hat2;   // ||S_hat_t||_F^2 (divergence: its ratio to ||S_ref||_F^2)
} stepq_qmeasure;

typedef struct {
    const char* name;      // "reference", "x86-64-v2", "avx2", "avx512"
    int level;             // what the CPU must support (STEPQ_ISA_*)
    stepq_step_fn step_f32;  // the float32 step of sim/recurrence.h
    stepq_propagate_fn propagate;  // stepq_propagate_f32 of sim/recurrence.h
    // grad, S_prev (K,V) and pred (V) may all be NULL (serving: no measurement)
    void (*qstep_read)(stepq_qstate* qs, const stepq_step_in* in, const float* decay,
                       const double* grad, const float* S_prev, float* pred);
    // S_ref (K,V) may be NULL (then m is not written); STEPQ_ERR if X_t is not finite
    int (*qstep_write)(stepq_qstate* qs, const stepq_step_in* in, const float* decay,
                       double scale, int n_gates, const float* S_ref, float* y_hat,
                       stepq_qmeasure* m);
    // a head's round trip through a codec, Xh (K,V) <- decode(encode(X)) with the packed bytes
    // in P (the calibration's distortions, method 4.3): the dual-axis fit of hp (DSQ's when dsq;
    // work: STEPQ_WORK_FLOATS), and per-row absmax at the widths bits; STEPQ_ERR if X is not
    // finite. The reference is quant/format.h's stepq_dual_* and stepq_rows_*.
    int (*dual_roundtrip)(float* Xh, uint8_t* P, const float* X, const stepq_head_plan* hp, int dsq,
                          float* work, int K, int V);
    int (*rows_roundtrip)(float* Xh, uint8_t* P, const float* X, const uint8_t* bits, int K, int V);
} stepq_kernels;

enum { STEPQ_ISA_BASE, STEPQ_ISA_AVX2, STEPQ_ISA_AVX512 };

extern const stepq_kernels stepq_kernels_reference, stepq_kernels_v2, stepq_kernels_avx2,
    stepq_kernels_avx512;

// every table, widest last; NULL-terminated
extern const stepq_kernels* const stepq_kernels_all[];
// 1 if this CPU runs k
int stepq_kernels_supported(const stepq_kernels* k);
// The kernels this process uses: the widest the CPU supports, unless the environment variable
// STEPQ_KERNELS names one (reference, x86-64-v2, avx2, avx512). STEPQ_ERR (message) for an
// unknown name or one this CPU cannot run; stepq_kernels_active() then uses the default.
int stepq_kernels_init(void);
const stepq_kernels* stepq_kernels_active(void);
// by name, or NULL
const stepq_kernels* stepq_kernels_find(const char* name);

#endif

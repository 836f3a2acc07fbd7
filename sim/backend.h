// backend.h: who steps a state (method 6.5), as one value per backend, on the sim floor: the
// reference protocol, the fused CPU kernels of each instruction set, and the CUDA engine. A
// backend is a table of every stepping entry, with NULL for what it does not do (zfp's
// execution policies); the head loop (sim/headloop.h), the sessions, the language model, the
// calibration, bench and the serving check all step through it, and its lookup by name lives
// here.
//
// "reference" is the definition: sim/recurrence.c's step and the decode-step protocol of
// method 2 (decode the packed state, step it, encode, decode), built for baseline x86-64.
// The fused kernels (sim/kernels.c, built for x86-64-v2, AVX2 and AVX-512) compute the same
// numbers key row by key row: decode a row from its packed bytes, decay it and read it along
// k (pass 1; on AVX-512 the decayed row is kept in X for pass 2, qs->xd), then decode it again
// (or take it from X), write, read out and encode it while it is in L1 (pass 2),
// never materialising the float32 state for the formats whose codes are row-local (cast,
// rows, DAMP, LeapQuant without freeze gating; on AVX-512 at most 16 updated rows wait in an L1
// buffer for their scales, computed side by side; the dual-axis fit, NVFP4, FP8 tiles, stochastic
// rounding and LeapQuant's freeze gate need the whole head and encode it from a buffer; the
// replay variant keeps the reference's protocol). Every operation is the reference's, in the
// same order, so read-outs, packed bytes and error sums are equal bit for bit
// (tests/test_kernels.c). The protocol variants that materialise the state (keeping X_t for an
// observer, method 3's cut protocol, the row-subset protocol) are the reference's in every CPU
// backend.
//
// A step of the quantized state, in two halves around the reference's own step:
//   read:  S_hat_{t-1} = decode(P_{t-1}); u_t = beta (v - (D_t S_hat_{t-1})^T k); with grad and
//          S_prev, pred <- P1's prediction E_{t-1}^T grad of the read-out error (method 3)
//   write: X_t = D_t S_hat_{t-1} + k u^T; y_hat = X_t^T (scale q); P_t = encode(X_t); with
//          S_ref, the measure of S_hat_t = decode(P_t): ||S_hat_t - S_ref||_F^2, ||S_hat_t||_F^2
// Legend: K = d_k, V = d_v; decay (K) = stepq_decays of the step.
#ifndef STEPQ_BACKEND_H
#define STEPQ_BACKEND_H

#include "protocol.h"
#include "runout.h"
#include "stream.h"

typedef void (*stepq_step_fn)(float* S, float* y, float* work, const float* q, const float* k,
                              const float* v, const float* g, float beta, double scale,
                              int n_gates, int K, int V);

// the float32 step that also returns ||S_t||_F^2 in sums.h's order (stepq_step_norm_f32)
typedef double (*stepq_step_norm_fn)(float* S, float* y, float* work, const float* q, const float* k,
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

enum { STEPQ_ISA_BASE, STEPQ_ISA_AVX2, STEPQ_ISA_AVX512 };

typedef struct stepq_backend {
    const char* name;      // "reference", "x86-64-v2", "avx2", "avx512", "cuda": what refusals name
    int isa;               // what the CPU must support (STEPQ_ISA_*)
    // the float32 step of sim/recurrence.h, and stepq_propagate_f32 (calibration, method 4.1)
    stepq_step_fn step;
    stepq_propagate_fn propagate;
    // stepq_error_step_f64: one step of an injected error carried in float64 (the halflife
    // driver; NULL where a backend steps no head loop)
    double (*error_step)(double* E, double* rows, const stepq_step_in* in, const float* decay, double scale,
                         int K, int V);
    // the read half; grad, S_prev (K,V) and pred (V) may all be NULL (serving: no measurement)
    void (*read)(stepq_qstate* qs, const stepq_step_in* in, const float* decay, const double* grad,
                 const float* S_prev, float* pred);
    // the write half; S_ref (K,V) may be NULL (then m is not written); STEPQ_ERR if X_t is not
    // finite
    int (*write)(stepq_qstate* qs, const stepq_step_in* in, const float* decay, double scale,
                 int n_gates, const float* S_ref, float* y_hat, stepq_qmeasure* m);
    // the write half keeping X_t before its encode in X_pre (K,V) and S_hat_t in qs->X (an
    // observer that reads the states), after this table's read of a state whose last write was
    // one of these (qs->X held S_hat_{t-1} before the read)
    int (*write_keep)(stepq_qstate* qs, const stepq_step_in* in, const float* decay, double scale,
                      int n_gates, float* y_hat, float* X_pre);
    // the cut protocol's step (stepq_qstate_step_cut, method 3)
    int (*write_cut)(stepq_qstate* qs, const stepq_step_in* in, const float* decay,
                     const float* u_ref, double scale, float* y_hat);
    // the row-subset protocol's step (stepq_qstate_step_rows: the octile sweep)
    int (*write_rows)(stepq_qstate* qs, const stepq_step_in* in, double scale, int n_gates,
                      float* y_hat, const int8_t* sel, int value, int b);
    // a head's round trip through a codec, Xh (K,V) <- decode(encode(X)) with the packed bytes
    // in P (the calibration's distortions, method 4.3): the dual-axis fit of hp (DSQ's when dsq;
    // work: STEPQ_WORK_FLOATS), and per-row absmax at the widths bits; STEPQ_ERR if X is not
    // finite. The reference is quant/format.h's stepq_dual_* and stepq_rows_*.
    int (*dual_roundtrip)(float* Xh, uint8_t* P, const float* X, const stepq_head_plan* hp, int dsq,
                          float* work, int K, int V);
    int (*rows_roundtrip)(float* Xh, uint8_t* P, const float* X, const uint8_t* bits, int K, int V);
    // a whole run of every head of a source measured as stepq_run_out (method 3, P1): the CPU's
    // is the head loop with its measure (sim/run.c), the CUDA engine's its own
    int (*run_heads)(stepq_run_out* out, const stepq_source* src, const stepq_run_cfg* cfg);
    // the float32 step returning ||S_t||_F^2 in sums.h's order, summed as the rows are written
    // (the head loop's reference step and its norm, method 6.5: the same bits on every CPU
    // backend; NULL where a backend steps no head loop)
    stepq_step_norm_fn step_norm;
    // the language model's products y[s] = W x[s] for n vectors (sim/matvec_impl.h: the same bits
    // on every CPU backend; NULL where a backend does not run the model's forward)
    void (*matvec)(float* const* y, const float* W, const float* const* x, int n, int n_out, int n_in);
    // 1 if the machine runs it now (NULL: always; the CUDA engine: a device is present)
    int (*available)(void);
} stepq_backend;

// the CPU backends, each a table of its own: the reference, and the fused kernels of each
// instruction set (sim/kernels.c)
extern const stepq_backend stepq_backend_reference, stepq_backend_v2, stepq_backend_avx2,
    stepq_backend_avx512;
// every CPU backend, widest last; NULL-terminated
extern const stepq_backend* const stepq_backends_cpu[];

// 1 if this CPU (and, for CUDA, this machine) runs b
int stepq_backend_supported(const stepq_backend* b);
// The CPU backend a run takes when it names none ("cpu"): the widest this CPU supports, unless
// the environment variable STEPQ_KERNELS names one (reference, x86-64-v2, avx2, avx512). The
// front ends (cli/, lib/) choose a run's backend and pass it down as a value; nothing below
// them fetches this (a NULL backend there is a programming error).
const stepq_backend* stepq_backend_default(void);
// STEPQ_ERR (message) when STEPQ_KERNELS names no backend or one this CPU cannot run (the
// default is then the widest supported)
int stepq_backend_init(void);
#define STEPQ_BACKEND_NAMES "cpu, reference, x86-64-v2, avx2, avx512, cuda"
// the backend called name ("cpu": the default; "reference", "x86-64-v2", "avx2", "avx512",
// "cuda"), or NULL with a message naming what is wrong (unknown, not run by this CPU, CUDA not
// built in or no device present)
const stepq_backend* stepq_backend_named(const char* name);
// the same without a message: NULL when unknown (whether supported or not)
const stepq_backend* stepq_backend_find(const char* name);
// The CUDA engine (sim/cuda/engine.h: stepq_backend_cuda) where the program links it: a
// program built with CUDA registers it once before any lookup; until then "cuda" is refused
// as not built in. (The sim floor cannot link the CUDA library, which sits on top of it.)
void stepq_backend_set_cuda(const stepq_backend* cuda);

// the reference protocol's halves and variants, for every CPU table; stepq_ref_measure: m <- the
// measure of a step whose write left S_hat_t in qs->X, against S_ref (nothing where S_ref is NULL)
void stepq_ref_measure(stepq_qmeasure* m, const stepq_qstate* qs, const float* S_ref);
void stepq_ref_read(stepq_qstate* qs, const stepq_step_in* in, const float* decay, const double* grad,
                    const float* S_prev, float* pred);
int stepq_ref_write(stepq_qstate* qs, const stepq_step_in* in, const float* decay, double scale,
                    int n_gates, const float* S_ref, float* y_hat, stepq_qmeasure* m);
int stepq_ref_write_keep(stepq_qstate* qs, const stepq_step_in* in, const float* decay, double scale,
                         int n_gates, float* y_hat, float* X_pre);
int stepq_ref_write_cut(stepq_qstate* qs, const stepq_step_in* in, const float* decay,
                        const float* u_ref, double scale, float* y_hat);
int stepq_ref_write_rows(stepq_qstate* qs, const stepq_step_in* in, double scale, int n_gates,
                         float* y_hat, const int8_t* sel, int value, int b);
// the CPU's whole run (sim/run.c): every head of src through the head loop, measured
int stepq_cpu_run_heads(stepq_run_out* out, const stepq_source* src, const stepq_run_cfg* cfg);

#endif

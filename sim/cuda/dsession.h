// dsession.h: the device half of libstepq's device session on a GPU (backend "cuda" of
// lib/dsession.c; method 6.11): the session's protocol (method 2) over the lane kernels
// (lanes.h; method 6.5), every buffer in device memory and every call queued on the caller's
// stream. C API over sim/cuda/dsession.cu; the library is stepq_cuda. NOT YET RUN ON A DEVICE:
// written and compiled without a GPU (issue 68); its host emulation (emu) is what CI runs.
//
// Per head (H heads of 128 x 128; F formats):
//   the reference   the float32 state, stepped by the FP32 lane kernel (its pool is the K x V
//                   floats of each head: the reference S_t, row-major)
//   format f        its packed state in the lanes layout, stepped by its lane kernel from the
//                   first decode step on; at that step's start (the boundary, method 2) the
//                   reference state is encoded by the CPU's encoders: the one wait of a session
//                   besides those the caller asks for
//   measurements    per decode step and format: S_hat_t decoded as the kernels decode it, then
//                   ||S_hat_t - S_t||_F / ||S_t||_F and ||y_hat_t - y_t|| / ||y_t|| per head (double
//                   sums, each squared denominator floored at 1e-300) added to the step's bin
//   failures        a kernel that meets a non-finite state stores nothing and sets its head's
//                   status; a small kernel keeps the first (step, pool, head) that failed, read
//                   back by the next call that waits (stepq_dsess_sync)
// The inputs q, k (H,K), v (H,V), g (H,G) log gates (G = 1 GDN, K KDA), beta (H) are packed into
// the kernels' records (prep.h's layout, the log gates in the decays' place: lanes_args.G) by a
// kernel of their own; nothing checks them on the device beyond the state's finiteness.
//
// emu: every buffer in host memory and every kernel run by its host form (lanes.cuh's lockstep
// emulation for the lane kernels; plain loops over the threads for this file's), as CI runs it.
#ifndef STEPQ_CUDA_DSESSION_H
#define STEPQ_CUDA_DSESSION_H

#include <stddef.h>

#include "../../quant/format.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stepq_dsess stepq_dsess;

typedef struct {
    const stepq_format* const* fmts;  // (F) formats the lane kernels take (lanes_takes)
    int F, H;
    int kind;                         // STEPQ_GDN or STEPQ_KDA: its gates a head
    float fscale;                     // the read-out scale, as the float32 step forms it
    long prefill;                     // steps of the reference alone before the boundary encode
    const float* S0;                  // (H,K,V) in the session's memory, or NULL for zeros
    int bin, n_bins;                  // decode steps a bin sums; bins held (0: nothing measured)
    void* stream;                     // the caller's cudaStream_t (NULL: the default stream)
    int emu;                          // 1: the host emulation (above)
} stepq_dsess_config;

// 1 where a device of compute capability 8.0 or newer is there, else 0
int stepq_dsess_ready(void);
// STEPQ_ERR (message) for a format the lane kernels do not take or device memory not had
int stepq_dsess_open(stepq_dsess** out, const stepq_dsess_config* c);
void stepq_dsess_close(stepq_dsess* s);
// step `steps` (the steps queued before it) of every head, queued; STEPQ_ERR (message) where the
// boundary encode met a non-finite reference state or a launch failed
int stepq_dsess_step(stepq_dsess* s, long steps, const float* q, const float* k, const float* v, const float* g,
                     const float* beta);
// queued: out <- format f's read-outs (state 0: (H,V)) or S_hat_t (state 1: (H,K,V)) after the
// last step; f = -1: the reference's
void stepq_dsess_copy(const stepq_dsess* s, int f, int state, float* out);
// waits for the queued work; STEPQ_ERR (message naming the step, format and head) where a head's
// state stopped being finite
int stepq_dsess_sync(stepq_dsess* s);
// after a sync, into host memory: format f's sums per bin and head, state then read-out (NB,H)
// each, and the decode steps each bin holds (NB)
void stepq_dsess_bins(const stepq_dsess* s, int f, double* state, double* readout, long* count);

// The bins' arithmetic, the device's code run on the host (for the tests): e (4) <- the sums
// ||Sh - S||^2, ||S||^2, ||yh - y||^2, ||y||^2 of one head (Sh, S (K V), yh, y (V)) in the
// measurement kernel's order (256 threads' strided partial sums in double, then a tree), and
// the relative errors they add to a bin: state_rel, readout_rel
void stepq_dsess_measure_host(double* e, double* state_rel, double* readout_rel, const float* Sh, const float* S,
                              const float* yh, const float* y, int KV, int V);

#ifdef __cplusplus
}
#endif

#endif

// selfcorrect.h: the delta self-correction ablation of method 3, P3. After a native prefill the
// state's quantization error in format F is continued two ways, on the same inputs:
//
//   linear:     inject E_0 = decode(encode(S)) - S once, then exact arithmetic (float64)
//                 normal  E_t = A_t E_{t-1}        (the delta read sees the error)
//                 cut     E_t = D_t E_{t-1}        (the delta read sees the error-free state)
//   nonlinear:  the decode-step protocol of method 2, re-quantizing every step
//                 normal  X_t = A_t S_hat_{t-1} + B_t
//                 cut     X_t = D_t S_hat_{t-1} + k u_ref^T, u_ref the reference's own delta write
//
// and the read-out error of each, ||e_t^T (scale q_t)||^2, accumulated over windows of growing
// length W. The ratio cut / normal is the factor by which self-correction reduces the error.
// A linear continuation scales with E_0, so its ratio cannot tell INT6 from INT8 (only E_0's
// direction matters); the nonlinear one can. Controls: the ratio per head and by half-life
// quarter, and its dependence on W.
//
// Output (HDF5): formats [F], windows [W], seeds [S]; heads/half_life [S,H];
//   linear/{normal,cut} and nonlinear/{normal,cut} [S,F,H,W] accumulated squared read-out
//   errors; */ratio_pooled [S,F,W] = sum_h cut / sum_h normal; */ratio_pooled_mean, _ci95
//   [F,W]; */ratio_quartile [S,F,4,W] pooled within each half-life quarter; a .tsv for the plot.
#ifndef STEPQ_SELFCORRECT_H
#define STEPQ_SELFCORRECT_H

#include "../quant/format.h"
#include "../sim/headloop.h"
#include "../sim/stream.h"
#include "output.h"

typedef struct {
    stepq_source* const* srcs;  // (S) one per seed, the same heads
    const uint64_t* seeds;
    int n_seeds;
    const stepq_format** formats;  // (F) formats that need no plan
    int n_formats;
    long prefill, decode;
    const long* windows;  // (W) increasing window lengths, the last <= decode
    int n_windows;
    const char* output;   // .h5
    const char* table;    // .tsv for the plot, or NULL
    stepq_provenance prov;
    const stepq_backend* backend;  // sim/headloop.h, never NULL
} stepq_selfcorrect_cfg;

int stepq_selfcorrect(const stepq_selfcorrect_cfg* cfg);

#endif

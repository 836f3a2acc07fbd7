// halflife.h: half-life against error, with the controls that tell persistence from magnitude
// (method 3 P5, method 6.3). For every unit (a GDN head, a KDA key row) of every head, after a
// native prefill, through the decode-step protocol in one format (uniform INT6 in the paper):
//
//   half_life    ln 2 / -mean log gate of the unit over the run
//   acc          accumulated error: GDN sum_t ||y_hat - y||^2 (the head's read-out); KDA
//                sum_t ||E_t,i||^2 (row i of the state error; a read-out is not separable by row)
//   d            the one-shot distortion on the run: mean_t of the squared quantization error
//                the step adds, ||eps_t,u||^2, per element
//   persistence  one error injected at the boundary (the format's), continued exactly:
//                GDN sum_t ||E_t^T scale q_t||^2 / the first step's; KDA sum_t ||E_t,i||^2 / ||E_0,i||^2
//
// and per seed Spearman(half-life, acc), (half-life, acc / d), (half-life, persistence), the
// share of each carried by the longest-lived quarter, and the ratio of d between the longest-
// and shortest-lived quarters (long-lived units hold larger states: a raw ranking inherits it).
//
// Output (HDF5): seeds [S]; units/{half_life, acc, d, persistence} [S,U], units/quartile [S,U]
// (half-life quarter), quarter_share_acc [S,4]; summary datasets [S]
// with mean and CI attributes; a .tsv of the first seed's units for the scatter plots.
#ifndef STEPQ_HALFLIFE_H
#define STEPQ_HALFLIFE_H

#include "../quant/format.h"
#include "../sim/headloop.h"
#include "../sim/stream.h"
#include "output.h"

typedef struct {
    stepq_source* const* srcs;  // (S) one per seed
    const uint64_t* seeds;
    int n_seeds;
    const stepq_format* format;  // needs no plan
    long prefill, decode;
    const char* output, *table;
    stepq_provenance prov;
    const stepq_backend* backend;  // sim/headloop.h, never NULL
} stepq_halflife_cfg;

// the per-seed summaries, also for the regime sweep
enum {
    HL_SPEARMAN_ACC, HL_SPEARMAN_NORM, HL_SPEARMAN_PERS, HL_SHARE_ACC, HL_SHARE_NORM,
    HL_SHARE_PERS, HL_D_RATIO, HL_N_SUMMARY
};
extern const char* const stepq_halflife_summary_names[HL_N_SUMMARY];

// sum (S, HL_N_SUMMARY) <- the summaries of each seed; writes the HDF5 file when output is set
int stepq_halflife(double* sum, const stepq_halflife_cfg* cfg);

#endif

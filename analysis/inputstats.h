// inputstats.h: the input statistics of method 5 that the synthetic presets are calibrated to
// (and only these): row/column ridge ratios of sampled states (max over median of the row or
// column RMS), the share of states above 3x on both axes, omega p90/p10 within a head, and the
// spread of half-lives. Native float32 runs; several seeds give confidence intervals.
//
// Output (HDF5): seeds [S]; per seed ridge_row, ridge_col [S,H,NS], omega_p90_p10 [S,H],
// unit_half_life [S,H,G] (G = 1 for GDN, K for KDA), key_participation [S,H] (how many key
// directions the keys fill: the participation ratio of their second moment); summaries [S] and
// their mean and 95% CI as attributes of each summary dataset.
#ifndef STEPQ_INPUTSTATS_H
#define STEPQ_INPUTSTATS_H

#include <stdint.h>

#include "../sim/backend.h"
#include "../sim/stream.h"
#include "output.h"

typedef struct {
    stepq_source** srcs;   // (S) one source per seed, same shape
    const uint64_t* seeds; // (S)
    int n_seeds;
    long steps, warmup, sample_every;
    const char* output;
    stepq_provenance prov;
    const stepq_backend* backend;  // who steps the heads (sim/backend.h), never NULL
} stepq_inputstats_cfg;

// the per-seed summaries, also for the regime sweep
enum {
    IS_RIDGE_ROW, IS_RIDGE_COL, IS_SHARE3, IS_OMEGA, IS_HL_MIN, IS_HL_MAX, IS_HL_ORDERS, IS_KEY_PR,
    IS_N_SUMMARY
};
extern const char* const stepq_inputstats_summary_names[IS_N_SUMMARY];
// summary (IS_N_SUMMARY, S; may be NULL) <- the summaries of each seed; writes the HDF5 file
// when output is set
int stepq_inputstats(double* summary, const stepq_inputstats_cfg* cfg);

#endif

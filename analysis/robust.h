// robust.h: calibration robustness (method 4.1, 4.3). Plans are calibrated on streams of several
// generator regimes (the same model, other stream statistics: the synthetic counterpart of the
// paper's WikiText, C4 and code). Between every two regimes: Spearman of the unit rankings by
// lifetime weight L, measured lifetime M and read-out lifetime R, and of the key rows by omega
// (the paper: 0.98 to 0.99 across corpora). Then every plan runs on every regime's evaluation
// streams: the pooled read-out error of each calibrated format, and its ratio to the regime's own
// plan (1 on the diagonal).
//
// Output (HDF5): regimes [R]; spearman_{lifetime,measured,readout,omega} [R,R]; cross [R,R,S,F]
// (plan of regime a on streams of regime b); cross_mean, cross_ci95 [R,R,F]; a .tsv for the plot.
#ifndef STEPQ_ROBUST_H
#define STEPQ_ROBUST_H

#include "../quant/format.h"
#include "calibrate.h"

typedef struct {
    const char* const* names;       // (R) regime names
    const stepq_calib_cfg* calib;   // (R) each regime's calibration (output ignored)
    stepq_source* const* evals;     // (R, S) each regime's evaluation streams, seed by seed
    const uint64_t* seeds;
    int n_regimes, n_seeds;
    const stepq_format** formats;   // (F) calibrated formats
    int n_formats;
    long prefill, decode;
    const char* output, *table;
    stepq_provenance prov;
    const stepq_backend* backend;  // steps the evaluations (sim/backend.h), never NULL; calib[r].backend calibrates
} stepq_robust_cfg;

int stepq_robust(const stepq_robust_cfg* cfg);

// How much two plans of the same model agree (method 4.1; the paper's 0.98-0.99 across
// corpora): sp (4) <- Spearman of their units' lifetime weights L, measured lifetimes M and
// read-out lifetimes R, and of their key rows' omega, heads matched by (layer, head).
// STEPQ_ERR (message) when their shapes or heads differ.
enum { STEPQ_RANK_L, STEPQ_RANK_M, STEPQ_RANK_R, STEPQ_RANK_OMEGA, STEPQ_N_RANKINGS };
extern const char* const stepq_ranking_names[STEPQ_N_RANKINGS];
int stepq_plan_agreement(double* sp, const stepq_plan* a, const stepq_plan* b);

#endif

// regimes.h: when does lifetime-aware allocation pay? (beyond the paper; method 6.3). A sweep of
// generator regimes of one preset, each point a set of generator knobs (the key concentration
// first: the participation ratio of the keys from ~3 to ~100). At every point, on the same
// evaluation streams, seed by seed:
//   input statistics  key participation ratio, row and column ridges, share above 3x (method 5)
//   half-life         Spearman of half-life against accumulated error, against error over the
//                     one-shot distortion d, and against the persistence of one injected error,
//                     and the longest-lived quarter's shares (the halflife driver's controls)
//   formats           each format's pooled read-out error with a plan calibrated on the point's
//                     own calibration streams, and its ratio to the first format (uniform INT6)
// The map of these against the key participation ratio is the result; a real model is placed on
// it by its own measured key statistics.
//
// Output (HDF5): regimes [R]; inputstats [R,S,IS_N_SUMMARY], halflife [R,S,HL_N_SUMMARY],
// pooled and ratio [R,S,F], with the names of the summaries; means and CIs over seeds
// (*_mean, *_ci95 [R,...]); a .tsv (one row per point) for the plot.
#ifndef STEPQ_REGIMES_H
#define STEPQ_REGIMES_H

#include "../quant/format.h"
#include "calibrate.h"
#include "output.h"

typedef struct {
    const char* const* names;        // (R) point names
    const stepq_calib_cfg* calib;    // (R) each point's calibration (output ignored)
    stepq_source* const* evals;      // (R, S) each point's evaluation streams, seed by seed
    const uint64_t* seeds;
    int n_regimes, n_seeds;
    const stepq_format* const* formats;  // (F) the first is the reference of the ratios
    int n_formats;
    const stepq_format* halflife_format;  // needs no plan (uniform INT6 in the paper)
    long prefill, decode;
    const char* output, *table;
    stepq_provenance prov;
    // steps the statistics, half-lives and evaluations (sim/backend.h), never NULL;
    // calib[r].backend calibrates
    const stepq_backend* backend;
} stepq_regimes_cfg;

int stepq_regimes(const stepq_regimes_cfg* cfg);

#endif

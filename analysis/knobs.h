// knobs.h: sweeps of the calibration knobs the paper never ablates (method 6.6): gamma (row
// influence exponent), rho (row-factor exponent), the horizon H of the lifetime weight, the
// pivot count and the refit rounds. For every value a plan is calibrated with only that knob
// changed, and the calibrated formats (STEPQuant at both budgets) are run on evaluation streams
// of every seed: the pooled relative read-out error, with its 95% interval, against the value;
// the paper's choice is marked.
//
// Output (HDF5): one group per knob with values [V], pooled [V,S,F], pooled_mean and
// pooled_ci95 [V,F] and the paper's value as an attribute; a .tsv (one block per knob).
#ifndef STEPQ_KNOBS_H
#define STEPQ_KNOBS_H

#include "../quant/format.h"
#include "calibrate.h"

typedef struct {
    const char* knob;     // gamma, rho, horizon, pivots, refits
    const double* values; // (n)
    int n;
    double paper;         // the paper's choice (marked), NaN if none
} stepq_knob_sweep;

typedef struct {
    const stepq_calib_cfg* base;    // the calibration every value starts from (output ignored)
    const stepq_knob_sweep* sweeps; // (K)
    int n_sweeps;
    stepq_source* const* evals;     // (S) evaluation streams, one per seed
    const uint64_t* seeds;
    int n_seeds;
    const stepq_format** formats;   // (F)
    int n_formats;
    long prefill, decode;
    const char* output, *table;
    stepq_provenance prov;
    const stepq_backend* backend;  // steps the evaluations (sim/backend.h), never NULL; base->backend calibrates
} stepq_knobs_cfg;

// STEPQ_ERR with a message for a knob name it does not know
int stepq_knobs_check(const char* knob);
int stepq_knobs(const stepq_knobs_cfg* cfg);

#endif

// propagation.h: the propagation experiment (method 3 P1, method 6.3): how the error of each
// state format grows over the decode window, per head, beside the head's lifetime.
//
// Output (HDF5, root attributes carry the config, git revision and seed):
//   formats [F], bits_nominal [F], bits_actual [F]
//   heads/layer, heads/head, heads/mean_log_gate, heads/half_life      [H]
//   decode_step [NB]                           first decode step of each bin
//   err_readout, err_state [F, H, NB]          relative errors, averaged within bins
//   err_readout_quantiles, err_state_quantiles [F, NB, 5]   across heads (p10 ... p90)
//   accumulated_readout_sq [F, H], accumulated_readout_rel [F, H]
//   p1_residual [F, H]                         the P1 check on the run itself
//   seeds [S]; seed_summary/readout_rel_pooled, seed_summary/readout_rel_median [S, F] and
//   their mean and 95% confidence half-width over seeds [F] (the per-head datasets above are
//   those of the first seed)
// and, for gnuplot, a text table beside it (decode step, then 5 quantiles per format).
#ifndef STEPQ_PROPAGATION_H
#define STEPQ_PROPAGATION_H

#include "../quant/format.h"
#include "../sim/stream.h"
#include "../sim/headloop.h"
#include "output.h"

typedef struct {
    stepq_source* const* srcs;  // (S) the same heads with each seed; srcs[0] gives the per-head data
    const uint64_t* seeds;      // (S)
    int n_seeds;
    const stepq_format** formats;
    int n_formats;
    long prefill, decode;
    int bin;
    const stepq_plan* plan;  // for calibrated formats, or NULL
    const char* output;      // .h5
    const char* table;       // .tsv for the plot, or NULL
    const char* report;      // .md: one row per format (bits, errors with intervals, divergence), or NULL
    const char* formats_table;  // .tsv: the same per format, for a bar chart, or NULL
    const char* journal_key;    // record completed heads in "<output>.journal" under this key (journal.h), or NULL
    int resume;                 // read back the heads of an interrupted run's journal
    stepq_provenance prov;
    const stepq_backend* backend;  // sim/headloop.h, never NULL
    int plan_any_model;            // stepq_run_cfg's
} stepq_propagation_cfg;

int stepq_propagation(const stepq_propagation_cfg* cfg);

#endif

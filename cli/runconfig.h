// runconfig.h: what the experiment front ends of cli/ share (experiments.c: calibration,
// propagation, input statistics, `all`, the dispatch; mechanisms.c: the mechanism drivers and
// the language model's). Internal to cli/.
#ifndef STEPQ_RUNCONFIG_H
#define STEPQ_RUNCONFIG_H

#include <stdint.h>

#include "../quant/format.h"
#include "../quant/plan.h"
#include "../sim/backend.h"
#include "../sim/stream.h"
#include "config.h"
#include "plot.h"

// The keys every driver's config shares, read by one function: what it writes, its figure, and
// how it runs (threads and backend, the command line's over the config's).
typedef struct {
    const char *desc, *output;
    const char* plot;              // the gnuplot script, or NULL
    const stepq_backend* backend;  // stepq_backend_from_cfg: the config's key where the driver takes one
    char table[4096], png[4096];   // the plot's table and figure beside output (stepq_sibling)
} stepq_cfg_common;

// c <- the common keys of cf, whose root may hold only keys (NULL-terminated; "backend" among
// them: the driver takes a `backend` key): `description`, `output` (required), `plot`, and
// `threads`, which is applied here (stepq_set_threads). STEPQ_ERR (message) on a key not in
// keys, a wrong type or an unknown or missing backend.
int stepq_cfg_read_common(stepq_cfg_common* c, const stepq_cfgfile* cf, const char* const* keys);

// Calibrates as cf (group g, or the root) says and writes the plan to output; *out receives
// it in memory when not NULL. reuse: keep a plan already at output that was made from the
// same calibration key (same stepq revision, source, segments and settings) instead. be: the
// run's backend (stepq_calib_from_cfg).
int stepq_cfg_calibrate_plan(const stepq_cfgfile* cf, const config_setting_t* g, const char* output,
                             stepq_plan* out, int reuse, const stepq_backend* be);
// seeds (S) of a run: `seeds = [...]`, or the one `seed`; refused empty, repeated, or several
// over one stream (a trace or a model)
int stepq_cfg_seeds(uint64_t** out, int* n, const stepq_cfgfile* cf);
// srcs (S) <- the config's source with each seed (the model of source.model_seed), with extra
// knobs (may be NULL); be: the run's backend (stepq_source_from_cfg); freed by
// stepq_cfg_free_sources; NULL (message printed) on an error
stepq_source** stepq_cfg_sources(const stepq_cfgfile* cf, const uint64_t* seeds, int S,
                                 const config_setting_t* extra, const stepq_backend* be);
stepq_source** stepq_cfg_sources_for(const stepq_cfgfile* cf, const uint64_t* seeds, int S,
                                     const stepq_backend* be);
void stepq_cfg_free_sources(stepq_source** srcs, int S);
// buf <- the formats' names, one space between; returns buf
const char* stepq_format_list(char* buf, size_t n, const stepq_format* const* fmts, int nf);
// v += the variables every plot script takes: formats ("fp32 int8 ...") and source (what ran),
// so that a figure names its source, heads, seeds and formats
void stepq_cfg_plot_vars(stepq_plot_vars* v, const stepq_format* const* fmts, int nf,
                         const stepq_source* src, const uint64_t* seeds, int S);

// the mechanism drivers' front ends (mechanisms.c)
int stepq_run_selfcorrect(const stepq_cfgfile* cf);
int stepq_run_halflife(const stepq_cfgfile* cf);
int stepq_run_octile(const stepq_cfgfile* cf);
int stepq_run_knobs(const stepq_cfgfile* cf);
int stepq_run_robustness(const stepq_cfgfile* cf);
int stepq_run_regimes(const stepq_cfgfile* cf);
int stepq_run_memory(const stepq_cfgfile* cf);
int stepq_run_nll(const stepq_cfgfile* cf);
int stepq_run_generate(const stepq_cfgfile* cf);
int stepq_run_recall(const stepq_cfgfile* cf);
int stepq_run_frontier(const stepq_cfgfile* cf);

#endif

// runout.h: what a run of every head of a source through the decode-step protocol (method 2)
// is given and what it measures (method 3, P1), as data: the configuration and the output of
// analysis/runner.h's stepq_run_heads, and of the CUDA engine that computes the same figures
// (sim/cuda/engine.h). They live on the sim floor so that both can fill them; the helpers
// below are the parts of a run that do not depend on who steps the heads.
//
// Legend: F formats, H heads of the source, K, V head shape, D decode steps, NB bins.
#ifndef STEPQ_RUNOUT_H
#define STEPQ_RUNOUT_H

#include "../quant/format.h"
#include "stream.h"

typedef struct stepq_run_out stepq_run_out;

typedef struct {
    const stepq_format** formats;  // (F)
    int n_formats;
    long prefill;     // native-precision steps before the boundary state is encoded
    long decode;      // steps of the decode-step protocol
    int bin;          // per-head error series averaged over bins of this many decode steps
    int keep_y;       // also keep every read-out and the final states (replay)
    const char* label;  // for progress lines
    const stepq_plan* plan;  // calibration plan for the formats that need one, or NULL
    int plan_any_model;      // 1: a plan naming no model may serve a model's streams (stepq_plan_match)
    // heads a driver already has (a run journal, analysis/journal.h), or NULL: done(ctx, h, out)
    // fills head h's figures from it and returns 1 (the head is not run); keep(ctx, h, out)
    // records head h once it has ended (STEPQ_ERR, with its message, stops the run). A backend
    // that runs every head (CUDA) refuses them.
    int (*done)(void* ctx, int h, stepq_run_out* out);
    int (*keep)(void* ctx, int h, const stepq_run_out* out);
    void* hook_ctx;
    int seed;                       // which of the driver's seeds this run is (an MPI run's units)
    const struct stepq_backend* backend;  // who steps the heads (sim/backend.h), never NULL
    // more observers of every step after measure() (sim/headloop.h: a driver's streamed
    // outputs); a backend that runs whole runs only refuses them
    const struct stepq_observer* extra;
    int n_extra;
} stepq_run_cfg;

struct stepq_run_out {
    int F, H, K, V;
    long T, n_bins;        // T = prefill + decode
    float* err_y;          // (F, H, NB) mean over the bin of ||y_hat - y|| / ||y||
    float* err_S;          // (F, H, NB) mean over the bin of ||S_hat - S||_F / ||S||_F
    double* acc_sq;        // (F, H) sum over decode steps of ||y_hat - y||^2
    double* acc_ref;       // (H) sum over decode steps of ||y||^2
    double* p1_resid;      // (F, H) max over decode of ||(y_hat - y) - E_{t-1}^T g_t|| / ||y||
    double* mean_log_gate; // (H) mean log gate over all steps (KDA: also over channels)
    double* half_life;     // (H) ln 2 / -mean_log_gate, steps
    double* bytes;         // (F, H) packed bytes of each head's state
    long* diverged;        // (F, H) the decode step at which ||S_hat||_F passed 10 ||S||_F, or -1;
                           // a diverged format stops on that head: its later bins and its
                           // accumulated error are NaN, never averaged in
    float* y;              // (F, T, H, V) read-outs, keep_y only
    float* y_ref;          // (T, H, V)
    float* S_final;        // (F, H, K, V) S_hat_T, keep_y only
    float* S_ref_final;    // (H, K, V)
};

void stepq_run_out_free(stepq_run_out* out);

// What every run checks before it steps a head: the source is long enough for prefill + decode,
// every format that needs a plan has one that covers every head of src, and (keep_y) the
// machine holds every read-out and final state. plan_index (H) <- the plan's index of each
// source head (untouched when no format needs a plan). STEPQ_ERR with a message.
int stepq_run_prepare(int* plan_index, const stepq_source* src, const stepq_run_cfg* cfg);
// out <- zeros for a run of cfg on src (keep_y: the read-outs and final states too)
void stepq_run_out_alloc(stepq_run_out* out, const stepq_source* src, const stepq_run_cfg* cfg);
// the bins hold sums of the per-step errors: turn them into means (the last bin may be short);
// a diverged format's bins from its divergence on, and its accumulated error, are NaN
void stepq_run_out_bin_means(stepq_run_out* out, const stepq_run_cfg* cfg);

// STEPQ_OK if each of the n formats holds a state of src's heads (stepq_family_fits); else
// STEPQ_ERR with a message naming the format, what it needs and the source
int stepq_formats_fit(const stepq_format* const* formats, int n, const stepq_source* src);
// the first of formats (n) that needs a calibration plan, or NULL
const stepq_format* stepq_first_planned(const stepq_format* const* formats, int n);
// STEPQ_ERR unless plan covers every head of src with the same kind and shape, and was made
// for src's model: a plan naming no model (model_sha256 "", calibrated on synthetic streams)
// serves a model's streams only with any_model (the user said so: --plan-any-model).
// plan_index (H) <- the plan's index of each head (may be NULL). A NULL plan passes (nothing
// to match).
int stepq_plan_match(int* plan_index, const stepq_plan* plan, const stepq_source* src,
                     const char* plan_path, int any_model);

#endif

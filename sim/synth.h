// synth.h: the synthetic stream source (method 6.1).
//
// A parametric generator shaped like the inputs of a GDN or KDA layer. Its presets are
// calibrated only against the INPUT statistics of method 5 (row/column ridge ratios, share of
// states above 3x on both axes, omega p90/p10 within a head, half-life spread); mechanism
// outcomes are never tuned.
//
// Two seeds, as a real model has weights and text: the model seed draws each head's fixed
// character (gate parameters, key and value channel magnitudes); the stream seed draws what it
// reads (the recurring key directions and their values, every step's inputs). Calibration and
// evaluation use one model and different streams. Both RNGs of a head are seeded from (seed,
// layer, head), so a head's stream is the same whatever subset or thread count it runs in.
#ifndef STEPQ_SYNTH_H
#define STEPQ_SYNTH_H

#include <stddef.h>

#include "backend.h"
#include "stream.h"

typedef struct {
    char name[32];
    int kind;                    // STEPQ_GDN (scalar gate per head) or STEPQ_KDA (per channel)
    int layers, heads, K, V;     // model shape of the preset
    // gates, fla parametrisation g = -exp(A_log) softplus(a_t + dt_bias)
    double hl_min, hl_max;       // half-lives (steps) log-uniform over heads (KDA: head centres)
    double kda_channel_spread;   // KDA: sd of log half-life of channels around the head centre
    double gate_noise;           // sd of a_t, the input-dependent gate pre-activation
    // keys: L2-normalised, drawn around recurring directions of each head
    int n_dirs;                  // recurring key directions per head
    double p_recur;              // probability that a step reuses one of them
    double key_noise;            // noise around a recurring direction, relative
    double key_profile_sigma;    // lognormal sd of key-channel magnitudes (sets omega spread)
    int key_ridges;              // persistent large key channels per head (row ridges)
    double key_ridge_gain;       // their magnitude over the median channel
    // values: persistent large channels and heavy tails
    double val_profile_sigma;
    int val_ridges;              // persistent large value channels (column ridges)
    double val_ridge_gain;
    double val_recur_mix;        // share of a recurring key's value that recurs with it
    double val_tail_dof;         // heavy tails: per-step Student-t scale mixture (dof); 0 = none
    // queries: a recent key plus noise
    int q_lag_max;               // q_t follows k_{t-lag}, lag uniform in [0, q_lag_max)
    double q_noise;
    // write strength beta = sigmoid(beta_mu + beta_sd N)
    double beta_mu, beta_sd;
} stepq_synth_params;

// Preset by name ("gdn-qwen-like", "kda-kimi-like"); STEPQ_ERR for an unknown name.
int stepq_synth_preset(stepq_synth_params* out, const char* name);
// Names of the presets, NULL-terminated.
extern const char* const stepq_synth_preset_names[];

// Sets a knob by its field name (a sweep or an override from a config); STEPQ_ERR if there is
// no such knob or the value does not fit it.
int stepq_synth_set(stepq_synth_params* p, const char* name, double value);
// buf <- the preset's name and shape and every knob's value, exactly (for provenance and for
// the key of a calibration); STEPQ_ERR if it does not fit in n bytes
int stepq_synth_describe(char* buf, size_t n, const stepq_synth_params* p);

// A source over the heads (layers[a], heads[b]) of the preset, all pairs; n_layers = 0 means
// every layer, n_heads_sel = 0 every head. STEPQ_ERR (message printed) on an index out of range.
int stepq_synth_open(stepq_source** out, const stepq_synth_params* p, uint64_t model_seed,
                     uint64_t seed,
                     const int* layers, int n_layers, const int* heads, int n_heads_sel);

// The inputs of T steps of head (layer, head) of a preset whose heads are K x V (model seed 0,
// stream seed 1), for the benchmarks: q, k [T*K], v [T*V], g, beta [T] (one gate per head),
// S0 [K*V] the float32 state after the T steps (realistic magnitudes), *scale the read-out
// scale, stepped by be's float32 step (the caller's backend). STEPQ_ERR (message printed) on an
// unknown preset, a bad index or another head shape.
int stepq_synth_record(const char* preset, int layer, int head, int T, int K, int V, float* q, float* k,
                       float* v, float* g, float* beta, float* S0, double* scale, const stepq_backend* be);

#endif

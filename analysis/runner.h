// runner.h: runs every head of a source through the decode-step protocol (method 2) in several
// formats at once, beside the native float32 reference on the same inputs, and measures how
// the quantization error propagates (method 3, P1). Heads run in parallel (OpenMP); every
// number is a function of the head alone, so results do not depend on the thread count.
//
// Legend: F formats, H heads of the source, K, V head shape, D decode steps, NB bins.
#ifndef STEPQ_RUNNER_H
#define STEPQ_RUNNER_H

#include "../quant/format.h"
#include "../sim/backend.h"
#include "../sim/headloop.h"
#include "../sim/runout.h"  // stepq_run_cfg, stepq_run_out and their helpers
#include "../sim/stream.h"

// STEPQ_ERR (message printed) if a format meets a non-finite state, the source is too short,
// or a format needs a plan that is missing or made for another model shape. cfg->backend's whole
// run (sim/backend.h; never NULL): the CPU's is the head loop with measure()
// as its observer (sim/run.c); the CUDA engine (sim/cuda/engine.h) fills the same figures, with
// no done/keep hooks (a run on the GPU is not resumed) and no extra observers.
int stepq_run_heads(stepq_run_out* out, const stepq_source* src, const stepq_run_cfg* cfg);

// bits per element of format f over all heads, from the packed bytes
double stepq_run_bits(const stepq_run_out* out, int f);

#endif

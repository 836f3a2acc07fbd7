// runner.h: runs every head of a source through the decode-step protocol (method 2) in several
// formats at once, beside the native float32 reference on the same inputs, and measures how
// the quantization error propagates (method 3, P1). Heads run in parallel (OpenMP); every
// number is a function of the head alone, so results do not depend on the thread count.
//
// Legend: F formats, H heads of the source, K, V head shape, D decode steps, NB bins.
#ifndef STEPQ_RUNNER_H
#define STEPQ_RUNNER_H

#include "../quant/format.h"
#include "../sim/headloop.h"
#include "../sim/runout.h"  // stepq_run_cfg, stepq_run_out and their helpers
#include "../sim/stream.h"

// STEPQ_ERR (message printed) if a format meets a non-finite state, the source is too short,
// or a format needs a plan that is missing or made for another model shape. On cfg->backend
// (sim/headloop.h; NULL: the CPU's fused kernels): the head loop with measure() as its observer,
// or a backend's whole run (the CUDA engine, sim/cuda/engine.h, fills the same figures; no
// journal there: a run on the GPU is not resumed).
int stepq_run_heads(stepq_run_out* out, const stepq_source* src, const stepq_run_cfg* cfg);

// the backend called name ("cpu", "reference", "cuda"), or NULL with a message (unknown; cuda
// where stepq was built without CUDA or no device of compute capability 8.0 or newer is present)
const stepq_backend* stepq_backend_named(const char* name);
// bits per element of format f over all heads, from the packed bytes
double stepq_run_bits(const stepq_run_out* out, int f);

#endif

// evaluate.h: the pooled accumulated read-out error of formats on a source, the figure the
// sweeps (robustness, knobs, regimes) compare: sqrt(sum_h sum_t ||y_hat - y||^2 / sum_h sum_t
// ||y||^2) over the heads where the format did not diverge (method 2, 6.3).
#ifndef STEPQ_EVALUATE_H
#define STEPQ_EVALUATE_H

#include "../quant/format.h"
#include "../sim/backend.h"
#include "../sim/stream.h"

// pooled (F) <- each format's pooled relative read-out error; diverged (F, may be NULL) <- the
// heads where it diverged. plan: for the calibrated formats, or NULL; be: who steps the heads
// (sim/backend.h, never NULL). STEPQ_ERR (message) when the run fails.
int stepq_evaluate(double* pooled, int* diverged, const stepq_source* src,
                   const stepq_format* const* formats, int n_formats, const stepq_plan* plan,
                   long prefill, long decode, const char* label, const stepq_backend* be);

#endif

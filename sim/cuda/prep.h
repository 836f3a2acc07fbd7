// prep.h: the host half of the CUDA analysis engine (engine.h): each step's inputs of a batch
// of heads, read from the source and prepared exactly as the CPU runner prepares them, so that
// the device sees the same numbers (method 6.5): the decays expf(g) of sim/recurrence.h's
// stepq_decays and P1's read-out weights of stepq_readout_weights (in double, then rounded to
// float as sim/kernels.c rounds them) are computed here, by the same C code the CPU runs.
// Plain C (no CUDA header): built with the host compiler and OpenMP.
//
// Record of one head and step (R floats, R = bp_rec_floats(K, V), a multiple of 4):
//   q (K) | k (K) | v (V) | grad (K) | decay (K) | beta | padding
// grad is zero during prefill (nothing reads it there).
#ifndef STEPQ_CUDA_PREP_H
#define STEPQ_CUDA_PREP_H

#include "../stream.h"

#ifdef __cplusplus
extern "C" {
#endif

// rec (nh, TC, R) <- steps [t0, t1) of the nh heads read by cursors cur (t1 - t0 <= TC);
// gate_sum (nh) += the mean log gate of each step (sim/run.c's order). STEPQ_ERR where
// the source failed or ended (it said why)
int stepq_cuda_prep(float* rec, double* gate_sum, stepq_cursor* const* cur, int nh,
                    const stepq_source* src, long t0, long t1, long prefill, int TC, int R);

#ifdef __cplusplus
}
#endif

#endif

// frontier.h: which state format gives the least damage per stored bit, and at what speed, on
// one language model (issue 66; method 7). The front end (cli/mechanisms.c) runs the recall
// driver on the held-out recall set and the nll driver on the recall documents and on held-out
// prose, all with one list of formats, each writing its own HDF5 file; the frontier reads those
// files back and sets beside each format:
//   bits      actual bits per state element, from the packed bytes (stepq_format_plan_bits: a
//             mixed-width format's averaged over the plan's heads)
//   damage    extra NLL per byte (nats) over the decode window and in its last bin, on the recall
//             documents and on prose: mean and 95% CI over documents (the nll files' extra_window
//             and extra_mean / extra_ci95)
//   answers   exact-match answers relative to native at distances of 1-2, 2-4 and 4-8 KiB: for
//             each document with records in the range, the share its records answer exactly in
//             the format minus the share natively; mean and 95% CI over those documents (the
//             recall file's per-record data)
//   cost      the decode step over the float32 step (stepq_bench_step_ratios), given by the caller,
//             and, given a GPU run of `stepq bench-gpu`, the serving step over FP32's
//   frontier  per kind of document, the Pareto set in (bits, extra NLL over the window): the
//             formats that no other format dominates (no more bits and no more damage, one of
//             the two strictly less)
// A format's series is its name with its first number taken out (int8, int6, int4: "int";
// leap6-r4, leap4-r4: "leap-r4"): the figure joins the formats of one series.
//
// Output (HDF5): formats, series [F], nominal_bits, bits [F]; window_recall_mean, _ci95,
// last_bin_recall_mean, _ci95, window_prose_mean, _ci95, last_bin_prose_mean, _ci95 [F];
// distance_ranges [NR, 2]; exact_native_mean, _ci95 [NR]; exact_delta_mean, _ci95 [F, NR];
// step_ratio, serving_ratio [F]; pareto_recall, pareto_prose [F] (1: on the frontier); attributes naming the
// three files read. The .tsv beside it (plots/frontier.gp): block 0 the formats, one paragraph
// per series sorted by bits (bits, window mean and CI on recall documents, then on prose, name,
// series index); blocks 1 and 2 the frontiers on recall documents and on prose (bits, mean).
#ifndef STEPQ_FRONTIER_H
#define STEPQ_FRONTIER_H

#include "../quant/format.h"
#include "output.h"

enum { STEPQ_FRONTIER_RANGES = 3 };  // the distance ranges of the answers: 1-2, 2-4, 4-8 KiB

typedef struct {
    const stepq_format* const* formats;  // (F) the list the three files were run with, in order
    int n_formats;
    const stepq_plan* plan;  // the bits of the mixed-width formats (NULL: none in the list)
    int K, V;                // the model's head shape
    const char* recall;      // the recall driver's output
    const char* nll_recall;  // the nll driver's output on the recall documents
    const char* nll_prose;   // and on prose
    const double* step_ratio;  // (F) the step over the float32 step
    const double* serving_ratio;  // (F) the GPU's serving step over FP32's (stepq_frontier_serving), NaN where
                                  // not timed or without a GPU run
    double serving_requests;      // the pool it was timed at (requests; NaN: none)
    const char* serving;          // the GPU benchmark's file, or NULL
    const char* output, *table;
    stepq_provenance prov;
} stepq_frontier_cfg;

int stepq_frontier(const stepq_frontier_cfg* cfg);

// ratio (F) <- the serving step of each format of fmts over FP32's in the output of `stepq
// bench-gpu` at path: 1 / its speedup_vs_fp32 [formats, modes, B] of the fused kernel at the
// largest pool, *requests <- that pool; NaN for a format it does not time. STEPQ_ERR (message
// naming the file) where it is not such a file
int stepq_frontier_serving(double* ratio, double* requests, const char* path, const stepq_format* const* fmts,
                           int F);

#endif

// nll.h: extra negative log-likelihood over decode position on a real model (method 7; the
// paper's strongest evidence, method 5). For each held-out document: a native prefill of P
// bytes, then N forced decode steps (teacher forcing: the document's own next bytes) with every
// recurrent layer's state in format F through the decode-step protocol, beside the native
// float32 run on the same bytes. extra_t = NLL_F(byte t+1) - NLL_native(byte t+1), in nats, in
// bins of B steps; mean and 95% interval over documents.
//
// Output (HDF5): documents [D], formats [F], decode_step [NB] (first step of each bin),
// nll_native [D, N] (nats), extra [D, F, NB] (bin means), extra_mean, extra_ci95 [F, NB],
// bpb_native [D] and bpb [D, F] over the decode window (bits per byte), extra_window [D, F]
// (mean extra NLL over the whole window); a .tsv of the bins for the plot.
//
// With octile_width > 0 the runs of the formats are followed by the octile sweep (method 7.2):
// 3 row orders x 8 octiles, named "omega-1" .. "random-8" (1: lowest), each a run whose states
// stay float32 except one octile of every head's key rows, stored at INT-width after every
// step. Rows are sorted by the plan's omega (calibration texts), by their RMS in the state summed
// over the second half of the document's own prefill, and at random. Written as more rows of
// `formats` and the datasets above, plus octile_width, octile_orders [3], octile_extra_mean and
// octile_extra_ci95 [3, 8] (the whole window's extra NLL, mean and 95% CI over documents) and
// octile_spearman [3] (octile index against that mean); the .tsv octile_table (octile index, then
// per order the mean and CI).
#ifndef STEPQ_NLL_H
#define STEPQ_NLL_H

#include "../quant/format.h"
#include "../sim/lm.h"
#include "output.h"

typedef struct {
    const stepq_lm* model;
    const char* const* documents;  // (D) text files, each at least P + N + 1 bytes
    int n_documents;
    const stepq_format* const* formats;  // (F)
    int n_formats;
    const stepq_plan* plan;  // for the calibrated formats (the model's (layer, head) pairs), or NULL
    const stepq_backend* backend;  // steps the forward, the states in a format and the octile rows (sim/backend.h)
    int octile_width;        // > 0: the octile sweep at this width, 4, 6 or 8 (needs the plan's omega)
    long prefill, decode;
    int bin;
    const char* output, *table;
    const char* octile_table;  // may be NULL
    stepq_provenance prov;
} stepq_nll_cfg;

int stepq_nll(const stepq_nll_cfg* cfg);

#endif

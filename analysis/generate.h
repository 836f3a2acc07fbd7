// generate.h: free-running generation under each state format (method 7.3): the paper sees a
// model's outputs grow longer under coarse state quantization. From each prompt (read natively),
// N bytes are sampled (temperature 1, top-k 20) with every recurrent layer's state in the
// format; every format draws the same random numbers for a (prompt, seed), so only the state
// differs. Measured on each generation: the repeat rate (the share of its 16-byte windows
// that already occurred earlier in it) and the mean and 90th percentile of its line lengths.
//
// Output (HDF5): formats [F], prompts [P], seeds [S]; repeat_rate, line_mean, line_p90
// [F,P,S] with their mean and 95% CI over prompts x seeds [F]; a text file of the first seed's
// generations beside it, and a .tsv for the plot.
#ifndef STEPQ_GENERATE_H
#define STEPQ_GENERATE_H

#include <stdint.h>

#include "../quant/format.h"
#include "../sim/lm.h"
#include "output.h"

typedef struct {
    const stepq_lm* model;
    const char* const* prompts;  // (P) text files; each is read whole as the prompt
    int n_prompts;
    const uint64_t* seeds;
    int n_seeds;
    const stepq_format* const* formats;  // (F)
    int n_formats;
    const stepq_plan* plan;
    const stepq_backend* backend;  // steps the forward and the states in a format (sim/backend.h)
    long length;  // bytes generated
    int top_k;
    const char* output, *table, *samples;
    stepq_provenance prov;
} stepq_generate_cfg;

int stepq_generate(const stepq_generate_cfg* cfg);

#endif

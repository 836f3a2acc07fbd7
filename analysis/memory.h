// memory.h: bit accounting and the serving memory model (method 4.4, 4.5).
//
// Three ways to count the bits of a calibrated state, side by side:
//   paper formula     b_bar + 0.25 + 8 * pivots / units  (factors counted for every unit)
//   reference layout  the bytes of the public reference code's layout with the budget fully
//                     used: codes sum to b_bar * units - 8 * pivots, a pivot stores FP16 values
//                     and no factors (GDN: 6.358 bits at 6 bits)
//   ours              the packed bytes stepq writes for a plan (`stepq memory --plan`)
// and the SGLang pool: 5 slots per request + 1 sentinel, each slot one request's state plus
// its short-convolution state (BF16, a size per slot given by the user).
#ifndef STEPQ_MEMORY_H
#define STEPQ_MEMORY_H

#include "../quant/format.h"
#include "../quant/plan.h"
#include "output.h"

typedef struct {
    const char* name;      // "gdn-qwen-like" ...
    int kind, layers, heads, K, V;
    double conv_mib;       // convolution state per slot, MiB
    double weights_gb;     // model weights, GB (1e9 bytes), for the crossing point (0: none)
    int requests;          // concurrency the pool is priced at
} stepq_memory_model;

// The paper's serving settings (method 4.5) on the shape of a synthetic preset: Qwen at 64
// requests with a 2.8125 MiB BF16 convolution state per slot and 53.8 GB of BF16 weights;
// Kimi at 512 requests, no convolution state counted. STEPQ_ERR for an unknown preset.
int stepq_memory_paper_model(stepq_memory_model* m, const char* preset);

// bits per element: the paper's formula and the reference layout (budget fully used)
double stepq_bits_paper(int budget, long pivots, long units);
double stepq_bits_reference(const stepq_memory_model* m, int budget, long pivots);
// MiB of one request's state at `bits` per element
double stepq_request_mib(const stepq_memory_model* m, double bits);
// GiB of the pool at n requests
double stepq_pool_gib(const stepq_memory_model* m, double bits, int n);
// smallest n at which the pool passes the weights (0 if no weights given)
int stepq_pool_crossing(const stepq_memory_model* m, double bits);

// Prints the whole report for a model; plan (may be NULL) adds the bits of our bytes.
int stepq_memory_report(const stepq_memory_model* m, const stepq_plan* plan);

// Bits per state element of format f on model m without a plan: the packed bytes for formats
// that need none, the reference layout with the paper's pivot share for STEPQuant; NaN (with a
// message) for other calibrated formats, whose widths only a plan knows.
double stepq_memory_format_bits(const stepq_memory_model* m, const stepq_format* f);

// The memory figure (method 4.5): the pool of every model at 1..max_requests concurrent
// requests for every format, and where it passes the model's weights.
typedef struct {
    const stepq_memory_model* models;
    int n_models;
    const stepq_format* const* formats;
    int n_formats;
    int max_requests;
    const char* output;  // HDF5
    const char* table;   // gnuplot table (one block per model), or NULL
    stepq_provenance prov;
} stepq_memory_sweep_cfg;
int stepq_memory_sweep(const stepq_memory_sweep_cfg* c);

#endif

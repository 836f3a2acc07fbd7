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

#include "../quant/plan.h"

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

#endif

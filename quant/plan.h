// plan.h: what calibration freezes for every request (method 4.1, 4.3), as data.
//
// Legend: H heads (layer, head pairs), K key rows, V value columns, G units per head (GDN: 1,
// the head; KDA: K, the key rows), NW candidate widths (stepq_plan_widths: 2, 4, 6, 8, then
// FP16 at index NW-1).
//
// A plan holds the calibration statistics (mean log gate l, lifetime L, measured lifetime M,
// read-out lifetime R,
// omega, w, distortions d) and, for each allocation scheme and budget, the width of every
// unit (16 = an FP16 pivot unit). Formats never see the whole plan: the runner hands each head
// a stepq_head_plan with the widths of its rows and its row-influence factors.
#ifndef STEPQ_PLAN_H
#define STEPQ_PLAN_H

#include <stdint.h>

#include "../base/common.h"
#include "layout.h"

// Per-head view a format encodes with. bits: (K) width per key row (2, 4, 6, 8, or 16 for an
// FP16 pivot row); w: (K) row-influence factors, geometric mean 1 over the head.
typedef struct {
    int kind;             // stepq_kind: codebook normalisation and 2-bit form of the dual fit
    const uint8_t* bits;  // (K)
    const float* w;       // (K)
    float rho;            // row-factor exponent, method 4.2 (0.5)
    int refits;           // weighted least-squares refit rounds of the column factors (1)
} stepq_head_plan;

// Allocation schemes (method 4.3, 6.2, 6.6); each has a bit table per budget.
enum {
    STEPQ_ALLOC_TIME,          // lifetime L, per-row absmax distortions, pivots
    STEPQ_ALLOC_TIME_NOPIVOT,  // the same without pivots
    STEPQ_ALLOC_STEPQ,         // lifetime L, dual-axis distortions, pivots (STEPQuant)
    STEPQ_ALLOC_MLIFE,         // measured lifetime M instead of L (beyond the paper)
    STEPQ_ALLOC_RLIFE,         // read-out lifetime R instead of L (beyond the paper)
    STEPQ_N_ALLOC
};
extern const char* const stepq_alloc_names[STEPQ_N_ALLOC];

#define STEPQ_NW 5
extern const int stepq_plan_widths[STEPQ_NW];  // {2, 4, 6, 8, 16}
#define STEPQ_N_BUDGETS 2
extern const int stepq_plan_budgets[STEPQ_N_BUDGETS];  // {4, 6}

typedef struct {
    int kind;                   // stepq_kind
    int K, V, H, G;
    int *layer, *head;          // (H) labels; a run's heads must all be found here
    double *l, *L, *M, *R;      // (H, G) mean log gate, lifetime weight, measured lifetime,
                                // read-out lifetime (method 4.1)
    double *omega;              // (H, K)
    float *w;                   // (H, K)
    double *d_dual, *d_abs;     // (H, G, NW) distortion per width: dual-axis fit, per-row absmax
    uint8_t *bits[STEPQ_N_ALLOC][STEPQ_N_BUDGETS];  // (H, G) width per unit, 16 = pivot
    uint8_t *damp;              // (H, K) 1 = decay-persistent row kept in FP16 by DAMP
    // knobs it was made with
    double gamma, rho, horizon, damp_fraction;
    int refits, pivots;
    char file[1024];            // where it was read from or written to, for messages
    char model_sha256[65];      // the weights of the model its sources came from (SHA-256, a
                                // captured trace's), or "": plans for it alone are accepted
    char calibration_key[40];   // what it was made from (hex XXH3 64 of the calibration's
                                // config, inputs and stepq revision), "" if not recorded
    double achieved[STEPQ_N_ALLOC][STEPQ_N_BUDGETS];  // sum n_u b_u / sum n_u of each table
    double objective[STEPQ_N_ALLOC][STEPQ_N_BUDGETS]; // sum L_u d_u(b_u) of each table
} stepq_plan;

// The knobs' ranges, for a calibration's config and a plan's attributes alike (a plan whose
// knobs lie outside them is refused as corrupted)
#define STEPQ_KNOB_HORIZON_MIN 1.0
#define STEPQ_KNOB_HORIZON_MAX 1e9
#define STEPQ_KNOB_GAMMA_MAX 10.0     // gamma in [0, 10]
#define STEPQ_KNOB_RHO_MAX 10.0       // rho in [0, 10]
#define STEPQ_KNOB_REFITS_MAX 100     // refits in [0, 100]
#define STEPQ_KNOB_PIVOTS_MAX (1LL << 30)

// the XXH3 64 of a plan's knobs and shape (kind, K, V, H, gamma, rho, horizon, refits, pivots,
// damp_fraction, calibration_key) as its attribute knobs_xxh3 holds it: HDF5 checksums the
// datasets (Fletcher32), not the attributes
uint64_t stepq_plan_knobs_xxh3(const stepq_plan* p);

void stepq_plan_alloc(stepq_plan* p, int kind, int K, int V, int H);
void stepq_plan_free(stepq_plan* p);
// 1 when every format encodes every head the same under plans a and b: the same kind, shape and
// labels, row weights w, rho, refits, bit tables and DAMP rows (what stepq_head_plan_for and
// the DAMP format read of a plan), whatever the calibration's other sums and knobs
int stepq_plan_same_encoding(const stepq_plan* a, const stepq_plan* b);
// the XXH3 64 of what stepq_plan_same_encoding compares: plans that encode alike hash alike
uint64_t stepq_plan_encoding_xxh3(const stepq_plan* p);
// index of a (layer, head) label in the plan, or -1
int stepq_plan_find(const stepq_plan* p, int layer, int head);

// Writes atomically; reads with every check (a plan for another shape or a corrupted plan is
// refused with a message naming the file and what is wrong). attrs: free text stored with it.
int stepq_plan_write(const char* path, stepq_plan* p, const char* config, const char* source);
int stepq_plan_read(stepq_plan* p, const char* path);

// w_i = exp(gamma/2 (log omega_i - mean_head log omega)), method 4.1: w (K) from omega (K)
void stepq_row_influence(float* w, const double* omega, double gamma, int K);
// L = sum_{j<H} exp(2 j l) = expm1(2 H l) / expm1(2 l), method 4.1 (H for l = 0)
double stepq_lifetime_weight(double l, double horizon);

// index of budget b in stepq_plan_budgets, or -1
int stepq_budget_index(int b);

// A head plan with every row at `bits` and w = 1 (rows: (K) storage the plan points to).
void stepq_head_plan_uniform(stepq_head_plan* hp, uint8_t* rows, int bits, int kind, int K);

#endif

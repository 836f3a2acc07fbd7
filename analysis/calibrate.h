// calibrate.h: calibration (method 4.1, 4.3): native-precision runs of a stream source gather,
// per unit, the mean log gate l_u and lifetime weight L_u (horizon H), the measured lifetime
// M_u (the error of each key row propagated through the actual A_t, delta correction
// included: beyond the paper), omega_i and w_i per key row, and a reservoir of state
// snapshots from which the distortion d_u(b) of every candidate width is measured for the
// dual-axis fit and for per-row absmax. Then pivots and bit allocations are chosen for every
// scheme and budget (GDN: exact DP over heads; KDA: Lagrangian + repair over key rows), the
// DAMP rows are marked, and the whole is frozen into a plan file.
#ifndef STEPQ_CALIBRATE_H
#define STEPQ_CALIBRATE_H

#include <stdint.h>

#include "../quant/plan.h"
#include "../sim/stream.h"
#include "output.h"

// The paper's pivot share of the kind's units (method 4.3; the kind's traits row): a
// calibration that names no pivot count keeps this share of its units; the memory model
// prices the paper's plans with it.
static inline double stepq_pivot_share(int kind) { return stepq_kind_of(kind)->pivot_share; }

typedef struct {
    stepq_source** segments;  // (S) sources over the same heads; each a native run from zero
    int n_segments;
    long steps;               // per segment
    double horizon;           // H of L_u (and of M_u, truncated to `steps`)
    double gamma, rho;        // method 4.1, 4.2 (0.25, 0.5)
    int refits;               // weighted LS refits of the column factors (1)
    int snapshot_every;       // 8
    int reservoir;            // 64 snapshots per head
    int pivots;               // pivot units (GDN heads, KDA rows)
    double damp_fraction;     // share of key rows DAMP keeps in FP16 (STEPQ_DAMP_FP16_SHARE)
    uint64_t seed;            // reservoir sampling
    const char* output;       // plan file, or NULL to keep the plan in memory only
    const char* key;          // what the plan was made from (stepq_plan.calibration_key), or NULL
    stepq_provenance prov;
} stepq_calib_cfg;

// Writes the plan (unless c->output is NULL); *out (if not NULL) receives it in memory too
// (caller frees). Quiet when STEPQ_QUIET is set.
int stepq_calibrate(stepq_plan* out, const stepq_calib_cfg* c);

// The pivots and allocations of every scheme and budget from the statistics already in p
// (l, L, M, d_dual, d_abs). d_dual_pivot: (H, G, NW) distortions recomputed with each head's
// pivot rows out of the column fit, for KDA (NULL for GDN, whose pivots are whole heads);
// it is filled by the callback, given the pivot mask (H, G).
typedef void (*stepq_redistort_fn)(double* d_dual /*(H,G,NW)*/, const uint8_t* pivot /*(H,G)*/,
                                   void* ctx);
int stepq_allocate(stepq_plan* p, stepq_redistort_fn redistort, void* ctx);

#endif

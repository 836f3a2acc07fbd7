// octile.h: the row-influence sweep (method 3 P4, method 4.2). Within each head the key rows are
// sorted into 8 groups by omega_i (the expected squared read-out weight of the row), measured
// on a calibration stream of the same model; one group at a time is stored at INT-b (per-row
// absmax) through the decode-step protocol while the other rows stay exact, and the accumulated
// read-out error is measured against the float32 reference. Controls: the same with rows sorted
// by their state magnitude (row RMS on the calibration stream) and in a random order. If omega
// matters beyond magnitude, its octiles rise more steeply than the magnitude's, and the random
// order's are flat.
//
// Output (HDF5): orders ["omega", "magnitude", "random"], seeds [S]; acc [S,3,8,H] and ref [S,H]
// (sums of squared read-out errors and of ||y||^2); rel_pooled [S,3,8]; rel_pooled_mean, _ci95
// [3,8]; spearman [S,3] (octile index against pooled error), top_over_bottom [S,3]; the rows'
// ranking statistics row_omega, row_magnitude [S,H,K] and octile_of_row [S,3,H,K]; a .tsv.
#ifndef STEPQ_OCTILE_H
#define STEPQ_OCTILE_H

#include "../sim/backend.h"
#include "../sim/stream.h"
#include "output.h"

typedef struct {
    stepq_source* const* srcs;      // (S) evaluation streams, one per seed
    stepq_source* const* calib;     // (S) calibration streams of the same model (other seeds)
    const uint64_t* seeds;
    int n_seeds;
    long calib_steps, prefill, decode;
    int width;                      // code width of the octile's rows (4)
    const char* output, *table;
    stepq_provenance prov;
    const stepq_backend* backend;  // who steps the heads (sim/backend.h), never NULL
} stepq_octile_cfg;

int stepq_octile(const stepq_octile_cfg* cfg);

// The sweep's row orders, shared with the language model's (nll.h): the row orders' names and
// count, the number of groups, and the groups themselves.
enum { STEPQ_OCT_OMEGA, STEPQ_OCT_MAGNITUDE, STEPQ_OCT_RANDOM, STEPQ_OCT_ORDERS, STEPQ_OCT_GROUPS = 8 };
extern const char* const stepq_octile_order_names[STEPQ_OCT_ORDERS];
// group (K) <- the octile (0: lowest) of each row sorted ascending by key, ties by row index;
// order (K) is scratch
void stepq_octile_groups(int* group, const double* key, size_t* order, int K);
// group (K) <- equal octiles in a random order drawn from seed
void stepq_octile_random(int* group, int K, unsigned long seed);

#endif

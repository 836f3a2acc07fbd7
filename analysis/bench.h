// bench.h: `stepq bench`, timings measured side by side in one run and printed as ratios
// (method 6.5; no timing ever asserts in a test). Thread CPU time beside wall time: the
// machines are shared. Figures:
//   machine   one core's FMA peak (GFLOP/s) and copy bandwidth (GB/s), measured here
//   step      per format, the full decode step of one 128 x 128 head (decode, update,
//             read-out, encode) with the active kernels and with the reference, beside the
//             plain float32 loop, the reference float32 step and the active one; one thread
//             and all threads
//   serving   every head of a pool of states (100 MB and 400 MB of FP32) stepped once per
//             token: time per head-step, bytes moved, GB/s against the copy bandwidth
//   driver    a propagation run at paper scale per head (2048 + 6144 steps) on a few heads,
//             projected to 2304 heads, on all threads and on one (the threads' speed-up)
//   replay    the whole of `stepq replay` on a synthetic trace written to TMPDIR (trace read and
//             checked, float32 reference, the format's protocol, measurement, output written),
//             one thread, process CPU time per head-step, beside the step table's rows
// Output: a table on stdout and an HDF5 file.
#ifndef STEPQ_BENCH_H
#define STEPQ_BENCH_H

#include "../sim/backend.h"
#include "../sim/stream.h"
#include "output.h"

typedef struct {
    int quick;            // small sizes (the tests)
    const char* output;   // .h5, or NULL
    stepq_provenance prov;
    const stepq_backend* backend;  // the CPU backend timed (the front end's: the default's kernels)
} stepq_bench_cfg;

int stepq_bench(const stepq_bench_cfg* cfg);

// The plan bench's step table times the calibrated formats with (tools/icount counts the same
// step): n heads of 128 x 128 (layer 0, head h), every unit at the budget's width, w = 1, DAMP's
// FP16 share on the first rows. The widths decide the cost.
void stepq_bench_plan(stepq_plan* p, int n);

// ratio (F) <- each format's full decode step over the float32 step (the step table's `/ fp32`:
// thread CPU time, one thread, the active kernels, the rows timed in turn in the same run), on
// the bench's head (one 128 x 128 gdn-qwen-like head) and plan (stepq_bench_plan). quick: the
// bench's quick number of steps; k: the CPU backend whose kernels are timed (the front end's)
void stepq_bench_step_ratios(double* ratio, const stepq_format* const* fmts, int F, int quick,
                             const stepq_backend* k);

// Generation of a source's steps against the float32 update they feed, on one thread:
// for each head, `steps` steps generated (timed), then the same steps replayed through
// be's float32 step from memory (timed). Prints ns/step of each and generation / update.
int stepq_bench_stream(const stepq_source* src, long steps, int repeats, const stepq_backend* be);

// the median of x (n), sorting it in place (the mean of the middle two for an even n)
double stepq_bench_median(double* x, int n);

// The yardsticks built per instruction set (bench_isa.c), as sim/kernels.c is.
typedef struct {
    int level;  // STEPQ_ISA_*
    void (*plain_step)(float* S, float* y, float* u, const float* q, const float* k,
                       const float* v, const float* g, float beta, float scale, int n_gates,
                       int K, int V);
    double (*fma_peak)(double seconds);  // GFLOP/s of one thread
    // The float32 step's memory traffic alone, in thread CPU ns per step (the least time a step
    // can take where the state does not fit L1): a read pass over a K x V float32 state (the
    // step's pass 1, (D S)^T k) then a read-modify-write pass over it (pass 2, the update with
    // its read-out), on the widest vectors with the arithmetic of a row kept to one FMA; the
    // median of repeated pairs over about `seconds`
    double (*step_traffic_ns)(int K, int V, double seconds);
} stepq_bench_isa;
extern const stepq_bench_isa stepq_bench_v2, stepq_bench_avx2, stepq_bench_avx512;

#endif

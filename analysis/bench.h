// bench.h: side-by-side timings printed as ratios in one run (no timing ever asserts in tests).
#ifndef STEPQ_BENCH_H
#define STEPQ_BENCH_H

#include "../sim/stream.h"

// Generation of a source's steps against the float32 update they feed, on one thread:
// for each head, `steps` steps generated (timed), then the same steps replayed through
// stepq_step_f32 from memory (timed). Prints ns/step of each and generation / update.
int stepq_bench_stream(const stepq_source* src, long steps, int repeats);

#endif

#include "progress.h"

#include "ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double stepq_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

double stepq_cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void stepq_progress_start(stepq_progress* p, const char* label, const char* unit, long total) {
    p->label = label;
    p->unit = unit;
    p->total = total;
    p->done = 0;
    p->t0 = p->last = stepq_now();
    p->quiet = getenv("STEPQ_QUIET") != NULL || stepq_rank() != 0;  // rank 0 speaks for an MPI run
}

static void print_line(const stepq_progress* p, double now) {
    double el = now - p->t0, rate = el > 0 ? p->done / el : 0;
    double left = rate > 0 ? (p->total - p->done) / rate : 0;
    fprintf(stderr, "%s: %ld/%ld %s, %.2f %s/s, %.0f s elapsed, %.0f s left\n", p->label, p->done,
            p->total, p->unit, rate, p->unit, el, left);
}

void stepq_progress_tick(stepq_progress* p) { stepq_progress_add(p, 1); }

void stepq_progress_add(stepq_progress* p, long n) {
#pragma omp critical(stepq_progress)
    {
        p->done += n;
        double now = stepq_now();
        if (!p->quiet && now - p->last >= 2.0 && p->done < p->total) {
            p->last = now;
            print_line(p, now);
        }
    }
}

void stepq_progress_end(stepq_progress* p) {
    if (!p->quiet) print_line(p, stepq_now());
}

// progress.h: progress of long runs on stderr (units done, rate, time left), at most about
// once a second, from whichever thread finishes a unit. Silent when STEPQ_QUIET is set, and on
// every rank but 0 of an MPI run (base/ranks.h), whose own units it counts.
#ifndef STEPQ_PROGRESS_H
#define STEPQ_PROGRESS_H

typedef struct {
    const char* label;
    const char* unit;
    long total, done;
    double t0, last;
    int quiet;
} stepq_progress;

void stepq_progress_start(stepq_progress* p, const char* label, const char* unit, long total);
void stepq_progress_tick(stepq_progress* p);  // thread-safe
void stepq_progress_add(stepq_progress* p, long n);  // n units at once; thread-safe
void stepq_progress_end(stepq_progress* p);
double stepq_now(void);      // seconds, monotonic
double stepq_cpu_now(void);  // seconds of CPU time of the process, every thread together

#endif

// stats.h: the small statistics every driver shares, all through GSL: means with a 95%
// confidence interval over seeds, and the quantiles across heads that the plots draw as bands.
#ifndef STEPQ_STATS_H
#define STEPQ_STATS_H

#include <stddef.h>

// mean and half-width of the 95% confidence interval (Student t) of x (n); 0 width if n < 2
void stepq_mean_ci95(double* mean, double* half, const double* x, int n);

// The quantiles the plots draw as a band across heads (p10, p25, median, p75, p90).
#define STEPQ_NQ 5
extern const double stepq_quantile_levels[STEPQ_NQ];
// q (STEPQ_NQ) <- quantiles of the values of x (n) that are not NaN (a diverged format's), on a
// sorted copy; NaN when none is; work: (n) scratch
void stepq_quantiles(double* q, const double* x, size_t n, double* work);

#endif

// stats.h: the small statistics every driver shares, all through GSL: means with a 95%
// confidence interval over seeds, and the quantiles across heads that the plots draw as bands.
#ifndef STEPQ_STATS_H
#define STEPQ_STATS_H

#include <stddef.h>

#include <math.h>

// mean and half-width of the 95% confidence interval (Student t) of x (n); the width is NaN
// when n < 2 (one seed has no interval: never a fake 0)
void stepq_mean_ci95(double* mean, double* half, const double* x, int n);

// num / den where both are finite and den > 0; NaN otherwise: a broken or empty reference never
// reads as zero error (stepq_rel: sqrt of the ratio of two sums of squares)
static inline double stepq_ratio(double num, double den) {
    return isfinite(num) && isfinite(den) && den > 0 ? num / den : NAN;
}
static inline double stepq_rel(double num_sq, double den_sq) { return sqrt(stepq_ratio(num_sq, den_sq)); }

// The quantiles the plots draw as a band across heads (p10, p25, median, p75, p90).
#define STEPQ_NQ 5
extern const double stepq_quantile_levels[STEPQ_NQ];
// q (STEPQ_NQ) <- quantiles of the values of x (n) that are not NaN (a diverged format's), on a
// sorted copy; NaN when none is; work: (n) scratch
void stepq_quantiles(double* q, const double* x, size_t n, double* work);

// Spearman's rank correlation of x and y (n > 1; ties get their mean rank), GSL's
double stepq_spearman(const double* x, const double* y, size_t n);

// the share of sum(val) (n) carried by the units whose key is in the top quarter (the n/4
// largest keys, ties broken by index): how much of the error the longest-lived quarter holds
double stepq_top_quarter_share(const double* key, const double* val, size_t n);

// quartile (0..3) of each of n keys: q (n) <- 0 for the smallest quarter .. 3 the largest
void stepq_quartiles_of(int* q, const double* key, size_t n);

#endif

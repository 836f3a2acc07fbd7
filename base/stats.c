#include "stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <string.h>

void stepq_mean_ci95(double* mean, double* half, const double* x, int n) {
    *mean = gsl_stats_mean(x, 1, (size_t)n);
    *half = n > 1 ? gsl_cdf_tdist_Pinv(0.975, n - 1) * gsl_stats_sd(x, 1, (size_t)n) / sqrt(n) : 0;
}

const double stepq_quantile_levels[STEPQ_NQ] = {0.10, 0.25, 0.50, 0.75, 0.90};

void stepq_quantiles(double* q, const double* x, size_t n, double* work) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i])) work[m++] = x[i];
    gsl_sort(work, 1, m);
    for (int i = 0; i < STEPQ_NQ; i++)
        q[i] = m ? gsl_stats_quantile_from_sorted_data(work, 1, m, stepq_quantile_levels[i]) : NAN;
}

#include "stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void stepq_mean_ci95(double* mean, double* half, const double* x, int n) {
    *mean = gsl_stats_mean(x, 1, (size_t)n);
    *half = n > 1 ? gsl_cdf_tdist_Pinv(0.975, n - 1) * gsl_stats_sd(x, 1, (size_t)n) / sqrt(n) : NAN;
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

double stepq_spearman(const double* x, const double* y, size_t n) {
    double* work = malloc(sizeof(double) * 2 * n);
    if (!work) return NAN;
    double r = gsl_stats_spearman(x, 1, y, 1, n, work);
    free(work);
    return r;
}

// order (n) <- indices sorted by key, ties by index (a stable order)
static void order_by(size_t* order, const double* key, size_t n) {
    gsl_sort_index(order, key, 1, n);  // GSL's heapsort is not stable: restore index order in ties
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && key[order[j]] == key[order[j - 1]] && order[j] < order[j - 1]; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}

void stepq_quartiles_of(int* q, const double* key, size_t n) {
    size_t* order = malloc(sizeof(size_t) * (n ? n : 1));
    if (!order) return;
    order_by(order, key, n);
    for (size_t r = 0; r < n; r++) q[order[r]] = (int)(4 * r / n);
    free(order);
}

double stepq_top_quarter_share(const double* key, const double* val, size_t n) {
    int* q = malloc(sizeof(int) * (n ? n : 1));
    if (!q) return NAN;
    stepq_quartiles_of(q, key, n);
    double top = 0, all = 0;
    for (size_t i = 0; i < n; i++) {
        all += val[i];
        if (q[i] == 3) top += val[i];
    }
    free(q);
    return all > 0 ? top / all : NAN;
}

// testutil.h: the few helpers every test shares. A test counts failed checks and exits
// non-zero if any failed; tolerances are named constants with their origin at the use site.
#ifndef STEPQ_TESTUTIL_H
#define STEPQ_TESTUTIL_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>

static int tu_failures = 0, tu_checks = 0;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        tu_checks++;                                                       \
        if (!(cond)) {                                                     \
            tu_failures++;                                                 \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

static inline int tu_finish(const char* name) {
    printf("%s: %d checks, %d failed\n", name, tu_checks, tu_failures);
    return tu_failures ? 1 : 0;
}

// method 6.5 / fla's rule: a and b agree when max|a-b| <= 1e-6, or else when
// rms(a-b)/rms(a) < ratio; NaN never agrees. Returns the rms ratio (or 0 on the first rule).
static inline int tu_agree(const double* a, const double* b, size_t n, double ratio, double* got) {
    double mx = 0, d2 = 0, a2 = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(a[i]) || isnan(b[i])) { *got = NAN; return 0; }
        double d = a[i] - b[i];
        mx = fmax(mx, fabs(d));
        d2 += d * d;
        a2 += a[i] * a[i];
    }
    *got = a2 > 0 ? sqrt(d2 / a2) : sqrt(d2);
    return mx <= 1e-6 || *got < ratio;
}

// x (n) <- L2-normalised Gaussian vector
static inline void tu_unit(float* x, int n, gsl_rng* r) {
    double s = 0;
    for (int i = 0; i < n; i++) { x[i] = (float)gsl_ran_gaussian(r, 1.0); s += (double)x[i] * x[i]; }
    for (int i = 0; i < n; i++) x[i] = (float)(x[i] / sqrt(s + 1e-6));
}

#endif

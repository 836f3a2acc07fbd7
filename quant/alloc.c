// alloc.c: exact DP and Lagrangian + repair for the multiple-choice knapsack of method 4.3.
#include "alloc.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"

static int gcd(int a, int b) { return b ? gcd(b, a % b) : a; }

int stepq_alloc_dp(int* choice, stepq_alloc_result* res, const double* cost, const int* w, int NC,
                   int U, long long budget) {
    stepq_assert(NC >= 1 && U >= 1 && w[0] > 0);
    int g = w[0];
    for (int k = 1; k < NC; k++) g = gcd(g, w[k]);
    long long B = budget / g;  // widths and budget in units of g
    if (B < (long long)U * (w[0] / g)) {
        stepq_error("bit budget %lld is below the smallest width on every unit (%d x %d)", budget, U, w[0]);
        return STEPQ_ERR;
    }
    long long top = (long long)U * (w[NC - 1] / g);
    if (B > top) B = top;
    size_t S = (size_t)B + 1;
    double* dp = mallocCheck(sizeof(double) * S);
    double* nx = mallocCheck(sizeof(double) * S);
    uint8_t* from = mallocCheck((size_t)U * S);  // choice of unit u to reach s
    for (size_t s = 0; s < S; s++) dp[s] = INFINITY;
    dp[0] = 0;
    for (int u = 0; u < U; u++) {
        for (size_t s = 0; s < S; s++) nx[s] = INFINITY;
        for (int k = 0; k < NC; k++) {  // ascending widths: the smaller wins a tie
            size_t step = (size_t)(w[k] / g);
            double c = cost[(size_t)u * NC + k];
            for (size_t s = step; s < S; s++) {
                double v = dp[s - step] + c;
                if (v < nx[s]) {
                    nx[s] = v;
                    from[(size_t)u * S + s] = (uint8_t)k;
                }
            }
        }
        double* t = dp;
        dp = nx;
        nx = t;
    }
    size_t best = 0;
    for (size_t s = 1; s < S; s++)
        if (dp[s] < dp[best]) best = s;
    res->objective = dp[best];
    res->used = (long long)best * g;
    for (int u = U - 1; u >= 0; u--) {
        int k = from[(size_t)u * S + best];
        choice[u] = k;
        best -= (size_t)(w[k] / g);
    }
    free(dp);
    free(nx);
    free(from);
    return isfinite(res->objective) ? STEPQ_OK : STEPQ_ERR;
}

// every unit's argmin at lambda; returns the bits used
static long long relax(int* choice, const double* cost, const int* n, const int* w, int NC, int U,
                       double lambda) {
    long long used = 0;
    for (int u = 0; u < U; u++) {
        int best = 0;
        double bv = cost[(size_t)u * NC] + lambda * n[u] * w[0];
        for (int k = 1; k < NC; k++) {
            double v = cost[(size_t)u * NC + k] + lambda * n[u] * w[k];
            if (v < bv) { bv = v; best = k; }
        }
        choice[u] = best;
        used += (long long)n[u] * w[best];
    }
    return used;
}

int stepq_alloc_lagrange(int* choice, stepq_alloc_result* res, const double* cost, const int* n,
                         const int* w, int NC, int U, long long budget) {
    stepq_assert(NC >= 1 && U >= 1);
    long long floor_bits = 0;
    for (int u = 0; u < U; u++) floor_bits += (long long)n[u] * w[0];
    if (floor_bits > budget) {
        stepq_error("bit budget %lld is below the smallest width on every unit (%lld)", budget, floor_bits);
        return STEPQ_ERR;
    }
    // a lambda at which every unit takes the smallest width: the largest saving per bit
    double hi = 0;
    for (int u = 0; u < U; u++)
        for (int k = 1; k < NC; k++)
            hi = fmax(hi, (cost[(size_t)u * NC] - cost[(size_t)u * NC + k]) / ((double)n[u] * (w[k] - w[0])));
    hi = hi * 2 + 1e-300;
    double lo = 0;
    if (relax(choice, cost, n, w, NC, U, 0) > budget) {
        for (int it = 0; it < 80; it++) {  // lo infeasible, hi feasible
            double mid = 0.5 * (lo + hi);
            if (relax(choice, cost, n, w, NC, U, mid) > budget) lo = mid;
            else hi = mid;
        }
        lo = hi;
    }
    long long used = relax(choice, cost, n, w, NC, U, lo);
    // repair: the upgrade of best gain per extra bit that still fits, until none does
    for (;;) {
        int bu = -1, bk = -1;
        double br = 0;
        for (int u = 0; u < U; u++) {
            int k0 = choice[u];
            for (int k = k0 + 1; k < NC; k++) {
                long long extra = (long long)n[u] * (w[k] - w[k0]);
                double gain = cost[(size_t)u * NC + k0] - cost[(size_t)u * NC + k];
                if (used + extra > budget || gain <= 0) continue;
                double r = gain / (double)extra;
                if (r > br) { br = r; bu = u; bk = k; }
            }
        }
        if (bu < 0) break;
        used += (long long)n[bu] * (w[bk] - w[choice[bu]]);
        choice[bu] = bk;
    }
    res->used = used;
    res->objective = 0;
    for (int u = 0; u < U; u++) res->objective += cost[(size_t)u * NC + choice[u]];
    return STEPQ_OK;
}

// alloc.h: the bit-allocation solvers of method 4.3, pure functions of tables.
//
//   minimise sum_u cost[u][k_u]   subject to  sum_u n_u w[k_u] <= budget
//
// with cost[u][k] = L_u d_u(w_k) and candidate widths w (ascending). Units are in the order
// layer, head, row. Both solvers break ties towards the smaller width.
#ifndef STEPQ_ALLOC_H
#define STEPQ_ALLOC_H

typedef struct {
    double objective;  // sum of the chosen costs
    long long used;    // sum n_u w[k_u]
} stepq_alloc_result;

// Exact multiple-choice DP for equal-sized units (n_u = 1 each; budget in units of bits):
// dp[s] = least cost at exactly s bits. choice (U) <- index into w. STEPQ_ERR if infeasible.
int stepq_alloc_dp(int* choice, stepq_alloc_result* res, const double* cost /*(U,NC)*/,
                   const int* w /*(NC)*/, int NC, int U, long long budget);

// Lagrangian relaxation: each unit takes argmin_k cost[u][k] + lambda n_u w[k]; lambda is
// bisected (80 iterations) to the last feasible choice; then a repair pass spends what is left
// on the upgrades of best gain per extra bit that still fit. n (U) unit sizes.
int stepq_alloc_lagrange(int* choice, stepq_alloc_result* res, const double* cost /*(U,NC)*/,
                         const int* n /*(U)*/, const int* w /*(NC)*/, int NC, int U,
                         long long budget);

#endif

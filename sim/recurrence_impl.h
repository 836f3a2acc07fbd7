// recurrence_impl.h: body of the reference step, instantiated once per state precision by
// recurrence.c (REAL = float or double), so the float32 path and the float64 ground truth
// are the same lines of code; sim/kernels.c builds it again for wider vectors (STEP_LINKAGE
// static, STEP_FIXED_DIM 128), which changes no operation and so no result.
// IN_T: the type of the inputs (float, as traces store them; the language model's float64 run,
// sim/lm.c, feeds double). STEP_NORM_FN (float states): also the step that returns
// ||S_t||_F^2 in sums.h's order, each row's sum taken as pass 2 writes it (the head loop's
// reference step: the norm without a second pass over the state).
#ifndef STEP_LINKAGE
#define STEP_LINKAGE
#endif
#ifndef IN_T
#define IN_T float
#define STEP_IN_T_DEFAULTED
#endif
#define STEP_BODY_NAME_(f) f##_body
#define STEP_BODY_NAME(f) STEP_BODY_NAME_(f)
#define STEP_BODY STEP_BODY_NAME(STEP_FN)
static inline __attribute__((always_inline)) double STEP_BODY(REAL* restrict S, REAL* restrict y, REAL* restrict work, const IN_T* q, const IN_T* k, const IN_T* v,
             const IN_T* g, IN_T beta, double scale, int n_gates, int K, int V, int norm) {
    // pass 1: decay each key row, then read the decayed state along k
    for (int j = 0; j < V; j++) work[j] = 0;
    const REAL d_head = EXP_FN((REAL)g[0]);  // GDN: one gate for every row
    for (int i = 0; i < K; i++) {
        REAL d = n_gates == 1 ? d_head : EXP_FN((REAL)g[i]);
        REAL ki = (REAL)k[i];
        REAL* row = S + (size_t)i * V;
        for (int j = 0; j < V; j++) {
            row[j] *= d;
            work[j] += ki * row[j];
        }
    }
    for (int j = 0; j < V; j++) work[j] = (REAL)beta * ((REAL)v[j] - work[j]);  // u
    // pass 2: write k u^T and read out with the scaled query (norm: and sum the row's squares)
    double s2 = 0;
    for (int j = 0; j < V; j++) y[j] = 0;
    for (int i = 0; i < K; i++) {
        REAL ki = (REAL)k[i], qi = (REAL)scale * (REAL)q[i];
        REAL* row = S + (size_t)i * V;
        for (int j = 0; j < V; j++) {
            row[j] += ki * work[j];
            y[j] += qi * row[j];
        }
#ifdef STEP_NORM_FN
        if (norm) s2 += stepq_sq_norm_row(row, V);
#endif
    }
    (void)norm;
    return s2;
}
STEP_LINKAGE void STEP_FN(REAL* restrict S, REAL* restrict y, REAL* restrict work, const IN_T* q, const IN_T* k, const IN_T* v,
             const IN_T* g, IN_T beta, double scale, int n_gates, int K, int V) {
#ifdef STEP_FIXED_DIM
    // the fast kernels: the paper's 128 x 128 heads get the same lines with K, V and the gate
    // count as constants, so the loops are unrolled and work and y stay in registers
    if (K == STEP_FIXED_DIM && V == STEP_FIXED_DIM && n_gates == 1) {
        STEP_BODY(S, y, work, q, k, v, g, beta, scale, 1, STEP_FIXED_DIM, STEP_FIXED_DIM, 0);
        return;
    }
    if (K == STEP_FIXED_DIM && V == STEP_FIXED_DIM && n_gates == K) {
        STEP_BODY(S, y, work, q, k, v, g, beta, scale, STEP_FIXED_DIM, STEP_FIXED_DIM, STEP_FIXED_DIM, 0);
        return;
    }
#endif
    STEP_BODY(S, y, work, q, k, v, g, beta, scale, n_gates, K, V, 0);
}
#ifdef STEP_NORM_FN
STEP_LINKAGE double STEP_NORM_FN(REAL* restrict S, REAL* restrict y, REAL* restrict work, const IN_T* q, const IN_T* k,
                                 const IN_T* v, const IN_T* g, IN_T beta, double scale, int n_gates, int K, int V) {
#ifdef STEP_FIXED_DIM
    if (K == STEP_FIXED_DIM && V == STEP_FIXED_DIM && n_gates == 1)
        return STEP_BODY(S, y, work, q, k, v, g, beta, scale, 1, STEP_FIXED_DIM, STEP_FIXED_DIM, 1);
    if (K == STEP_FIXED_DIM && V == STEP_FIXED_DIM && n_gates == K)
        return STEP_BODY(S, y, work, q, k, v, g, beta, scale, STEP_FIXED_DIM, STEP_FIXED_DIM, STEP_FIXED_DIM, 1);
#endif
    return STEP_BODY(S, y, work, q, k, v, g, beta, scale, n_gates, K, V, 1);
}
#endif
#undef STEP_BODY
#ifdef STEP_IN_T_DEFAULTED
#undef IN_T
#undef STEP_IN_T_DEFAULTED
#endif

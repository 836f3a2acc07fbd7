// errstep_impl.h: body of one step of an injected error carried exactly (float64) through the
// recurrence, E <- A_t E with A_t = (I - beta k k^T) D_t (method 3, P2: what the halflife
// driver follows of the boundary's encode error), instantiated by recurrence.c (the reference,
// stepq_error_step_f64) and again by sim/kernels.c for wider vectors (ERRSTEP_LINKAGE static):
// the same operations in the same order (ISO C: no contraction), so the same bits.
//
// E (K,V) <- A_t E; rows (K, may be NULL) += ||E_i||^2 of each new row, its chain of additions
// in index order; returns ||E^T (scale q)||^2, the read-out error this step sees.
// Needs: ERRSTEP_FN (the function's name); ERRSTEP_LINKAGE; ERRSTEP_FIXED_DIM (optional): the
// same lines with K = V constant for the paper's heads.
#ifndef ERRSTEP_LINKAGE
#define ERRSTEP_LINKAGE
#endif
#define ERRSTEP_BODY_NAME_(f) f##_body
#define ERRSTEP_BODY_NAME(f) ERRSTEP_BODY_NAME_(f)
#define ERRSTEP_BODY ERRSTEP_BODY_NAME(ERRSTEP_FN)
static inline __attribute__((always_inline)) double ERRSTEP_BODY(double* restrict E, double* restrict rows,
                                                                 const stepq_step_in* in, const float* decay,
                                                                 double scale, int K, int V) {
    double c[STEPQ_MAX_DIM], y[STEPQ_MAX_DIM];
    for (int j = 0; j < V; j++) c[j] = 0, y[j] = 0;
    for (int i = 0; i < K; i++) {
        const double d = decay[i], ki = in->k[i];
        double* Ei = E + (size_t)i * V;
        for (int j = 0; j < V; j++) {
            Ei[j] *= d;
            c[j] += ki * Ei[j];
        }
    }
    for (int i = 0; i < K; i++) {
        const double bk = (double)in->beta * in->k[i], qi = scale * in->q[i];
        double* Ei = E + (size_t)i * V;
        if (rows) {  // each row's ||e||^2 too (KDA's units), in index order
            double r = 0;
            for (int j = 0; j < V; j++) {
                const double e = Ei[j] - bk * c[j];
                Ei[j] = e;
                y[j] += qi * e;
                r += e * e;
            }
            rows[i] += r;
        } else {  // without the chain of additions, the loop vectorises
            for (int j = 0; j < V; j++) {
                const double e = Ei[j] - bk * c[j];
                Ei[j] = e;
                y[j] += qi * e;
            }
        }
    }
    double s = 0;
    for (int j = 0; j < V; j++) s += y[j] * y[j];
    return s;
}
ERRSTEP_LINKAGE double ERRSTEP_FN(double* restrict E, double* restrict rows, const stepq_step_in* in,
                                  const float* decay, double scale, int K, int V) {
#ifdef ERRSTEP_FIXED_DIM
    if (K == ERRSTEP_FIXED_DIM && V == ERRSTEP_FIXED_DIM)
        return ERRSTEP_BODY(E, rows, in, decay, scale, ERRSTEP_FIXED_DIM, ERRSTEP_FIXED_DIM);
#endif
    return ERRSTEP_BODY(E, rows, in, decay, scale, K, V);
}
#undef ERRSTEP_BODY

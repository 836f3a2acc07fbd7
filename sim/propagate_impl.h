// propagate_impl.h: body of the error propagation of the measured lifetime (method 4.1),
// instantiated by recurrence.c (the reference, stepq_propagate_f32) and again by sim/kernels.c
// for wider vectors (PROPAGATE_LINKAGE static): the same operations in the same order.
//
// P (K,K) <- A_t P with A_t = (I - beta k k^T) D_t; m (K) += the squared column norms of P;
// and first, with g (K) = A_t^T (scale q_t) of this step, r (K) += (P^T g)^2: the read-out error
// this step sees of each unit error injected when P was I (the read-out lifetime). float32 like
// the state (the products only shrink, P2); each step's sums added in double.
// Returns the step's largest squared column norm: once it is below 1e-12 the rest of the
// horizon adds less than horizon * 1e-12 to sums that start at 1, and the caller stops (this
// also keeps P out of the float denormals, whose arithmetic is slow). kP, m_step: (K) scratch.
#ifndef PROPAGATE_LINKAGE
#define PROPAGATE_LINKAGE
#endif
#define PROPAGATE_BODY_NAME_(f) f##_body
#define PROPAGATE_BODY_NAME(f) PROPAGATE_BODY_NAME_(f)
#define PROPAGATE_BODY PROPAGATE_BODY_NAME(PROPAGATE_FN)
static inline __attribute__((always_inline)) float PROPAGATE_BODY(float* restrict P, double* restrict m, double* restrict rl,
                                     double* restrict w, float* restrict kP, float* restrict m_step,
                                     const double* g, const stepq_step_in* in, int G, int K) {
    const float d_head = expf(in->g[0]);
    for (int j = 0; j < K; j++) kP[j] = 0, m_step[j] = 0, w[j] = 0;
    for (int r = 0; r < K; r++) {
        float d = G == 1 ? d_head : expf(in->g[r]), kr = in->k[r];
        float* Pr = P + (size_t)r * K;
        const double gr = g[r];
        for (int j = 0; j < K; j++) {
            w[j] += gr * Pr[j];  // (P^T g)_j, before this step's A_t
            Pr[j] *= d;
            kP[j] += kr * Pr[j];
        }
    }
    for (int j = 0; j < K; j++) rl[j] += w[j] * w[j];
    for (int r = 0; r < K; r++) {
        float bk = in->beta * in->k[r];
        float* Pr = P + (size_t)r * K;
        for (int j = 0; j < K; j++) {
            Pr[j] -= bk * kP[j];
            m_step[j] += Pr[j] * Pr[j];
        }
    }
    float top = 0;
    for (int j = 0; j < K; j++) {
        m[j] += m_step[j];
        top = m_step[j] > top ? m_step[j] : top;
    }
    return top;
}
PROPAGATE_LINKAGE float PROPAGATE_FN(float* restrict P, double* restrict m, double* restrict rl,
                                     double* restrict w, float* restrict kP, float* restrict m_step,
                                     const double* g, const stepq_step_in* in, int G, int K) {
#ifdef PROPAGATE_FIXED_DIM
    // the fast kernels: the same lines with K and G constants for the paper's 128-wide heads
    if (K == PROPAGATE_FIXED_DIM && G == 1) return PROPAGATE_BODY(P, m, rl, w, kP, m_step, g, in, 1, PROPAGATE_FIXED_DIM);
    if (K == PROPAGATE_FIXED_DIM && G == K)
        return PROPAGATE_BODY(P, m, rl, w, kP, m_step, g, in, PROPAGATE_FIXED_DIM, PROPAGATE_FIXED_DIM);
#endif
    return PROPAGATE_BODY(P, m, rl, w, kP, m_step, g, in, G, K);
}
#undef PROPAGATE_BODY

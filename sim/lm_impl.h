// lm_impl.h: the model's forward of one token (method 7), instantiated by lm.c for float
// (REAL = float: native or quantized states) and for double (the float64 check). Weights are
// float32; the double run promotes them exactly. Dot products run in 16 fixed lanes summed in
// a fixed order, so the compiler may vectorise them without changing any result.
//
// Needs: REAL; LM_DELTA(ctx, l, h, S, y, work, q, k, v, g, beta, scale, G, K, V), an int
// expression that steps head h of layer l (natively in S, or its quantized state through ctx)
// and reads it out into y; EXPR, LOGR (log1p) and SQRTR.

// y (n_out) <- W (n_out, n_in) x
static void LM_CAT(matvec_, REAL)(REAL* restrict y, const float* restrict W, const REAL* restrict x, int n_out,
                                  int n_in) {
    for (int o = 0; o < n_out; o++) {
        const float* w = W + (size_t)o * n_in;
        REAL lane[16] = {0};
        int i = 0;
        for (; i + 16 <= n_in; i += 16)
            for (int l = 0; l < 16; l++) lane[l] += (REAL)w[i + l] * x[i + l];
        for (; i < n_in; i++) lane[i & 15] += (REAL)w[i] * x[i];
        for (int s = 8; s >= 1; s /= 2)
            for (int l = 0; l < s; l++) lane[l] += lane[l + s];
        y[o] = lane[0];
    }
}

// y <- x / sqrt(mean(x^2) + eps) * w (RMSNorm; w may be NULL)
static void LM_CAT(rmsnorm_, REAL)(REAL* y, const REAL* x, const float* w, int n, double eps) {
    REAL ss = 0;
    for (int i = 0; i < n; i++) ss += x[i] * x[i];
    REAL r = (REAL)1 / SQRTR(ss / (REAL)n + (REAL)eps);
    for (int i = 0; i < n; i++) y[i] = x[i] * r * (w ? (REAL)w[i] : (REAL)1);
}

static REAL LM_CAT(sigmoid_, REAL)(REAL x) { return (REAL)1 / ((REAL)1 + EXPR(-x)); }
static REAL LM_CAT(silu_, REAL)(REAL x) { return x * LM_CAT(sigmoid_, REAL)(x); }
// torch's softplus: x itself above 20
static REAL LM_CAT(softplus_, REAL)(REAL x) { return x > (REAL)20 ? x : LOGR(EXPR(x)); }

// per-token scratch of one layer
typedef struct {
    REAL *a, *pq, *pk, *pv, *q, *k, *v, *g, *beta, *z, *f, *o, *y, *h1, *h2, *work, *t;
} LM_CAT(scratch_, REAL);

// x (n) <- x / sqrt(sum x^2 + eps): fla's L2 normalisation of q and k (STEPQ_QK_NORM_EPS)
static void LM_CAT(l2norm_, REAL)(REAL* x, int n) {
    REAL ss = 0;
    for (int i = 0; i < n; i++) ss += x[i] * x[i];
    REAL r = (REAL)1 / SQRTR(ss + (REAL)STEPQ_QK_NORM_EPS);
    for (int i = 0; i < n; i++) x[i] *= r;
}

// conv (3, D, W-1) of the layer: p (D) through channel weights w (D, 1, W), SiLU, into out;
// the buffer shifts by one
static void LM_CAT(conv_, REAL)(REAL* out, REAL* buf, const REAL* p, const float* w, int D, int W) {
    for (int c = 0; c < D; c++) {
        REAL* b = buf + (size_t)c * (W - 1);
        const float* wc = w + (size_t)c * W;
        REAL s = (REAL)wc[W - 1] * p[c];
        for (int i = 0; i < W - 1; i++) s += (REAL)wc[i] * b[i];
        for (int i = 0; i + 1 < W - 1; i++) b[i] = b[i + 1];
        b[W - 2] = p[c];
        out[c] = LM_CAT(silu_, REAL)(s);
    }
}

// beta (H) and the gates g (H, or H x K for KDA) of a token from its normed input w->a
static void LM_CAT(gates_, REAL)(const stepq_lm* m, const stepq_lm_layer* L, LM_CAT(scratch_, REAL) * w) {
    const int H = m->heads, K = m->K, V = m->V, D = m->D, hid = m->hidden;
    LM_CAT(matvec_, REAL)(w->beta, L->b_proj, w->a, H, hid);
    for (int h = 0; h < H; h++) w->beta[h] = LM_CAT(sigmoid_, REAL)(w->beta[h]);
    if (m->kind != STEPQ_KDA) {
        LM_CAT(matvec_, REAL)(w->g, L->a_proj, w->a, H, hid);
        for (int h = 0; h < H; h++)
            w->g[h] = -EXPR((REAL)L->A_log[h]) * LM_CAT(softplus_, REAL)(w->g[h] + (REAL)L->dt_bias[h]);
    } else {
        LM_CAT(matvec_, REAL)(w->f, L->f_proj0, w->a, V, hid);
        LM_CAT(matvec_, REAL)(w->g, L->f_proj1, w->f, D, V);
        for (int h = 0; h < H; h++)
            for (int c = 0; c < K; c++)
                w->g[h * K + c] = -EXPR((REAL)L->A_log[h]) *
                                  LM_CAT(softplus_, REAL)(w->g[h * K + c] + (REAL)L->dt_bias[h * K + c]);
    }
}

// what layer l's recurrence sees at this token, into cap (D q, k, v; HG gates; H betas)
static void LM_CAT(capture_, REAL)(stepq_lm_inputs* cap, const LM_CAT(scratch_, REAL) * w, int l, int D, int HG,
                                   int H) {
    for (int i = 0; i < D; i++) {
        cap->q[(size_t)l * D + i] = (float)w->q[i];
        cap->k[(size_t)l * D + i] = (float)w->k[i];
        cap->v[(size_t)l * D + i] = (float)w->v[i];
    }
    for (int i = 0; i < HG; i++) cap->g[(size_t)l * HG + i] = (float)w->g[i];
    for (int h = 0; h < H; h++) cap->beta[(size_t)l * H + h] = (float)w->beta[h];
}

// x (hidden) <- x + the SwiGLU MLP of layer L on RMSNorm(x)
static void LM_CAT(mlp_, REAL)(const stepq_lm* m, const stepq_lm_layer* L, REAL* x, LM_CAT(scratch_, REAL) * w) {
    const int hid = m->hidden;
    LM_CAT(rmsnorm_, REAL)(w->a, x, L->mlp_norm, hid, m->eps);
    LM_CAT(matvec_, REAL)(w->h1, L->gate_proj, w->a, m->inter, hid);
    LM_CAT(matvec_, REAL)(w->h2, L->up_proj, w->a, m->inter, hid);
    for (int i = 0; i < m->inter; i++) w->h1[i] = LM_CAT(silu_, REAL)(w->h1[i]) * w->h2[i];
    LM_CAT(matvec_, REAL)(w->t, L->down_proj, w->h1, hid, m->inter);
    for (int i = 0; i < hid; i++) x[i] += w->t[i];
}

// x (hidden) <- x + the block l of the model at one token
static int LM_CAT(block_, REAL)(const stepq_lm* m, int l, REAL* x, REAL* conv, REAL* S, void* ctx,
                                LM_CAT(scratch_, REAL) * w, stepq_lm_inputs* cap) {
    const stepq_lm_layer* L = &m->L[l];
    const int H = m->heads, K = m->K, V = m->V, D = m->D, hid = m->hidden, W = m->conv;
    const int kda = stepq_kind_of(m->kind)->gate_per_key, G = stepq_kind_gates(m->kind, K);
    LM_CAT(rmsnorm_, REAL)(w->a, x, L->attn_norm, hid, m->eps);
    LM_CAT(matvec_, REAL)(w->pq, L->q_proj, w->a, D, hid);
    LM_CAT(matvec_, REAL)(w->pk, L->k_proj, w->a, D, hid);
    LM_CAT(matvec_, REAL)(w->pv, L->v_proj, w->a, D, hid);
    const size_t cs = (size_t)D * (W - 1);
    LM_CAT(conv_, REAL)(w->q, conv + 0 * cs, w->pq, L->q_conv, D, W);
    LM_CAT(conv_, REAL)(w->k, conv + 1 * cs, w->pk, L->k_conv, D, W);
    LM_CAT(conv_, REAL)(w->v, conv + 2 * cs, w->pv, L->v_conv, D, W);
    for (int h = 0; h < H; h++) {  // per head over its K channels
        LM_CAT(l2norm_, REAL)(w->q + (size_t)h * K, K);
        LM_CAT(l2norm_, REAL)(w->k + (size_t)h * K, K);
    }
    LM_CAT(gates_, REAL)(m, L, w);
    if (cap) LM_CAT(capture_, REAL)(cap, w, l, D, H * G, H);
    const double scale = 1.0 / sqrt((double)K);
    for (int h = 0; h < H; h++) {  // the delta rule, read out after the write
        REAL* y = w->y + (size_t)h * V;
        if (LM_DELTA(ctx, l, h, S + ((size_t)l * H + h) * K * V, y, w->work, w->q + (size_t)h * K,
                     w->k + (size_t)h * K, w->v + (size_t)h * V, w->g + (size_t)h * G, w->beta[h], scale, G, K,
                     V) != STEPQ_OK)
            return STEPQ_ERR;
    }
    // the output gate and o_norm (per head over V, one weight shared by the heads)
    if (!kda) {
        LM_CAT(matvec_, REAL)(w->z, L->g_proj, w->a, D, hid);
        for (int i = 0; i < D; i++) w->z[i] = LM_CAT(silu_, REAL)(w->z[i]);
    } else {
        LM_CAT(matvec_, REAL)(w->f, L->g_proj0, w->a, V, hid);
        LM_CAT(matvec_, REAL)(w->z, L->g_proj1, w->f, D, V);
        for (int i = 0; i < D; i++) w->z[i] = LM_CAT(sigmoid_, REAL)(w->z[i] + (REAL)L->g_bias[i]);
    }
    for (int h = 0; h < H; h++) {
        LM_CAT(rmsnorm_, REAL)(w->o + (size_t)h * V, w->y + (size_t)h * V, L->o_norm, V, m->eps);
        for (int j = 0; j < V; j++) w->o[(size_t)h * V + j] *= w->z[(size_t)h * V + j];
    }
    LM_CAT(matvec_, REAL)(w->t, L->o_proj, w->o, hid, D);
    for (int i = 0; i < hid; i++) x[i] += w->t[i];
    LM_CAT(mlp_, REAL)(m, L, x, w);
    return STEPQ_OK;
}

// lm_impl.h: the model's forward of one token (method 7) for a batch of n sequences of one
// model, instantiated by lm.c for float (REAL = float: native or quantized states) and for
// double (the float64 check, n = 1). Weights are float32; the double run promotes them
// exactly. A weight matrix is read once a token for the whole batch (sim/matvec_impl.h), each
// sequence's product computed as alone, so a sequence's numbers do not depend on the batch it
// runs in.
//
// Needs: REAL; LM_MATVEC(be, y, W, x, n, n_out, n_in), the batch's products (matvec_impl.h's;
// be: the backend the caller passed down, whose products the float forward takes);
// LM_DELTA(ctx, l, h, S, y, work, q, k, v, g, beta, scale, G, K, V), an int expression that
// steps head h of layer l (natively in S, or its quantized state through ctx) and reads it out
// into y; EXPR, LOGR (log1p) and SQRTR.

// y <- x / sqrt(mean(x^2) + eps) * w (RMSNorm; w may be NULL)
static void LM_CAT(rmsnorm_, REAL)(REAL* y, const REAL* x, const float* w, int n, double eps) {
    REAL ss = 0;
    for (int i = 0; i < n; i++) ss += x[i] * x[i];
    REAL r = (REAL)1 / SQRTR(ss / (REAL)n + (REAL)eps);
    for (int i = 0; i < n; i++) y[i] = x[i] * r * (w ? (REAL)w[i] : (REAL)1);
}

static REAL LM_CAT(sigmoid_, REAL)(REAL x) { return (REAL)1 / ((REAL)1 + EXPR(-x)); }
// torch's softplus: x itself above 20
static REAL LM_CAT(softplus_, REAL)(REAL x) { return x > (REAL)20 ? x : LOGR(EXPR(x)); }

// x (n) <- sigmoid(x + b) (b may be NULL) or, silu = 1, x sigmoid(x): the functions above, the
// exponentials of a block first and then its divisions and products as vectors (the same
// operations on each value, so the same bits; one at a time, each value's division waited on
// its exponential)
#define LM_ACT_BLOCK 64
static void LM_CAT(sigmoid_all_, REAL)(REAL* restrict x, const float* restrict b, int n, int silu) {
    for (int c0 = 0; c0 < n; c0 += LM_ACT_BLOCK) {
        const int m = n - c0 < LM_ACT_BLOCK ? n - c0 : LM_ACT_BLOCK;
        REAL* xc = x + c0;
        REAL e[LM_ACT_BLOCK];
        if (b)
            for (int i = 0; i < m; i++) xc[i] += (REAL)b[c0 + i];
        for (int i = 0; i < m; i++) e[i] = EXPR(-xc[i]);
        if (silu)
            for (int i = 0; i < m; i++) xc[i] = xc[i] * ((REAL)1 / ((REAL)1 + e[i]));
        else
            for (int i = 0; i < m; i++) xc[i] = (REAL)1 / ((REAL)1 + e[i]);
    }
}

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

// conv (3, W-1, D) of the layer: p (D) through the taps w (W, D; tap W-1 takes p), SiLU, into
// out; the buffer (W-1 inputs of D, oldest first) shifts by one. Each channel's sum runs in
// PyTorch's order (tap W-1 first, then the oldest input onwards), the channels side by side.
static void LM_CAT(conv_, REAL)(REAL* restrict out, REAL* restrict buf, const REAL* restrict p,
                                const float* restrict w, int D, int W) {
    const float* wl = w + (size_t)(W - 1) * D;
    for (int c = 0; c < D; c++) out[c] = (REAL)wl[c] * p[c];
    for (int i = 0; i < W - 1; i++) {
        const float* wi = w + (size_t)i * D;
        const REAL* b = buf + (size_t)i * D;
        for (int c = 0; c < D; c++) out[c] += (REAL)wi[c] * b[c];
    }
    memmove(buf, buf + D, sizeof(REAL) * (size_t)(W - 2) * D);
    memcpy(buf + (size_t)(W - 2) * D, p, sizeof(REAL) * (size_t)D);
    LM_CAT(sigmoid_all_, REAL)(out, NULL, D, 1);  // SiLU
}

// the batch's product of field `in` of every sequence's scratch by W into field `out`
#define LM_MV(out, W, in, n_out, n_in)                                               \
    do {                                                                             \
        REAL* o_[STEPQ_LM_BATCH] = {0};                                              \
        const REAL* i_[STEPQ_LM_BATCH] = {0};                                        \
        for (int s_ = 0; s_ < n; s_++) o_[s_] = w[s_]->out, i_[s_] = w[s_]->in;      \
        LM_MATVEC(be, o_, W, i_, n, n_out, n_in);                                    \
    } while (0)

// beta (H) and the gates g (H, or H x K for KDA) of a token from its normed input w->a
static void LM_CAT(gates_, REAL)(const stepq_backend* be, const stepq_lm* m, const stepq_lm_layer* L,
                                 LM_CAT(scratch_, REAL) * const* w, int n) {
    const int H = m->heads, K = m->K, V = m->V, D = m->D, hid = m->hidden;
    LM_MV(beta, L->b_proj, a, H, hid);
    if (m->kind != STEPQ_KDA) {
        LM_MV(g, L->a_proj, a, H, hid);
    } else {
        LM_MV(f, L->f_proj0, a, V, hid);
        LM_MV(g, L->f_proj1, f, D, V);
    }
    for (int s = 0; s < n; s++) {
        LM_CAT(scratch_, REAL)* ws = w[s];
        for (int h = 0; h < H; h++) ws->beta[h] = LM_CAT(sigmoid_, REAL)(ws->beta[h]);
        if (m->kind != STEPQ_KDA)
            for (int h = 0; h < H; h++)
                ws->g[h] = -EXPR((REAL)L->A_log[h]) * LM_CAT(softplus_, REAL)(ws->g[h] + (REAL)L->dt_bias[h]);
        else
            for (int h = 0; h < H; h++) {
                const REAL a = -EXPR((REAL)L->A_log[h]);  // the head's, once
                for (int c = 0; c < K; c++)
                    ws->g[h * K + c] = a * LM_CAT(softplus_, REAL)(ws->g[h * K + c] + (REAL)L->dt_bias[h * K + c]);
            }
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

// x[s] (hidden) <- x[s] + the SwiGLU MLP of layer L on RMSNorm(x[s])
static void LM_CAT(mlp_, REAL)(const stepq_backend* be, const stepq_lm* m, const stepq_lm_layer* L, REAL* const* x,
                               LM_CAT(scratch_, REAL) * const* w, int n) {
    const int hid = m->hidden;
    for (int s = 0; s < n; s++) LM_CAT(rmsnorm_, REAL)(w[s]->a, x[s], L->mlp_norm, hid, m->eps);
    LM_MV(h1, L->gate_proj, a, m->inter, hid);
    LM_MV(h2, L->up_proj, a, m->inter, hid);
    for (int s = 0; s < n; s++) {
        LM_CAT(sigmoid_all_, REAL)(w[s]->h1, NULL, m->inter, 1);  // SiLU
        for (int i = 0; i < m->inter; i++) w[s]->h1[i] *= w[s]->h2[i];
    }
    LM_MV(t, L->down_proj, h1, hid, m->inter);
    for (int s = 0; s < n; s++)
        for (int i = 0; i < hid; i++) x[s][i] += w[s]->t[i];
}

// x[s] (hidden) <- x[s] + the block l of the model at one token, for each sequence s of the
// batch (its convolution buffer conv[s], native states S[s], LM_DELTA's ctx[s], scratch w[s],
// capture cap[s] or NULL); fail[s] <- 1 where its recurrence met a non-finite value (the
// others go on)
static void LM_CAT(block_, REAL)(const stepq_backend* be, const stepq_lm* m, int l, int n, REAL* const* x, REAL* const* conv,
                                 REAL* const* S, void* const* ctx, LM_CAT(scratch_, REAL) * const* w,
                                 stepq_lm_inputs* const* cap, int* fail) {
    const stepq_lm_layer* L = &m->L[l];
    const int H = m->heads, K = m->K, V = m->V, D = m->D, hid = m->hidden, W = m->conv;
    const int kda = stepq_kind_of(m->kind)->gate_per_key, G = stepq_kind_gates(m->kind, K);
    const size_t cs = (size_t)D * (W - 1);
    for (int s = 0; s < n; s++) LM_CAT(rmsnorm_, REAL)(w[s]->a, x[s], L->attn_norm, hid, m->eps);
    LM_MV(pq, L->q_proj, a, D, hid);
    LM_MV(pk, L->k_proj, a, D, hid);
    LM_MV(pv, L->v_proj, a, D, hid);
    for (int s = 0; s < n; s++) {
        LM_CAT(scratch_, REAL)* ws = w[s];
        LM_CAT(conv_, REAL)(ws->q, conv[s] + 0 * cs, ws->pq, L->q_conv, D, W);
        LM_CAT(conv_, REAL)(ws->k, conv[s] + 1 * cs, ws->pk, L->k_conv, D, W);
        LM_CAT(conv_, REAL)(ws->v, conv[s] + 2 * cs, ws->pv, L->v_conv, D, W);
        for (int h = 0; h < H; h++) {  // per head over its K channels
            LM_CAT(l2norm_, REAL)(ws->q + (size_t)h * K, K);
            LM_CAT(l2norm_, REAL)(ws->k + (size_t)h * K, K);
        }
    }
    LM_CAT(gates_, REAL)(be, m, L, w, n);
    const double scale = 1.0 / sqrt((double)K);
    for (int s = 0; s < n; s++) {
        LM_CAT(scratch_, REAL)* ws = w[s];
        if (cap[s]) LM_CAT(capture_, REAL)(cap[s], ws, l, D, H * G, H);
        for (int h = 0; h < H; h++) {  // the delta rule, read out after the write
            REAL* y = ws->y + (size_t)h * V;
            if (LM_DELTA(ctx[s], l, h, S[s] + ((size_t)l * H + h) * K * V, y, ws->work, ws->q + (size_t)h * K,
                         ws->k + (size_t)h * K, ws->v + (size_t)h * V, ws->g + (size_t)h * G, ws->beta[h], scale,
                         G, K, V) != STEPQ_OK)
                fail[s] = 1;
        }
    }
    // the output gate and o_norm (per head over V, one weight shared by the heads)
    if (!kda) {
        LM_MV(z, L->g_proj, a, D, hid);
    } else {
        LM_MV(f, L->g_proj0, a, V, hid);
        LM_MV(z, L->g_proj1, f, D, V);
    }
    for (int s = 0; s < n; s++) {
        LM_CAT(scratch_, REAL)* ws = w[s];
        LM_CAT(sigmoid_all_, REAL)(ws->z, kda ? L->g_bias : NULL, D, !kda);  // KDA sigmoid(z + b), GDN SiLU
        for (int h = 0; h < H; h++) {
            LM_CAT(rmsnorm_, REAL)(ws->o + (size_t)h * V, ws->y + (size_t)h * V, L->o_norm, V, m->eps);
            for (int j = 0; j < V; j++) ws->o[(size_t)h * V + j] *= ws->z[(size_t)h * V + j];
        }
    }
    LM_MV(t, L->o_proj, o, hid, D);
    for (int s = 0; s < n; s++)
        for (int i = 0; i < hid; i++) x[s][i] += w[s]->t[i];
    LM_CAT(mlp_, REAL)(be, m, L, x, w, n);
}

// logits[s] <- the head on the final norm of x[s]
static void LM_CAT(head_, REAL)(const stepq_backend* be, const stepq_lm* m, REAL* const* x, REAL* const* logits, LM_CAT(scratch_, REAL) * const* w,
                                int n) {
    for (int s = 0; s < n; s++) LM_CAT(rmsnorm_, REAL)(w[s]->a, x[s], m->norm, m->hidden, m->eps);
    const REAL* a[STEPQ_LM_BATCH];
    for (int s = 0; s < n; s++) a[s] = w[s]->a;
    LM_MATVEC(be, logits, m->lm_head, a, n, m->vocab, m->hidden);
}

#undef LM_MV

// lm.c: the delta-rule language model; see lm.h.
#include "lm.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <sys/stat.h>

#include "../base/common.h"
#include "../base/outfile.h"
#include "recurrence.h"
#include "safetensors.h"
#include "trace.h"

// ---------------------------------------------------------------------------------------------
// config.json

// config.json's text (at most 16 MiB), or NULL
static char* read_text(const char* path) {
    size_t n;
    return stepq_read_file(path, STEPQ_CONFIG_MAX, &n);
}

static int cfg_num(double* out, const cJSON* c, const char* path, const char* key, double lo, double hi) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(c, key);
    if (!cJSON_IsNumber(v) || v->valuedouble < lo || v->valuedouble > hi) {
        stepq_error("%s: '%s' must be a number in [%g, %g]", path, key, lo, hi);
        return STEPQ_ERR;
    }
    *out = v->valuedouble;
    return STEPQ_OK;
}

static int cfg_intkey(int* out, const cJSON* c, const char* path, const char* key, int lo, int hi) {
    double d;
    if (cfg_num(&d, c, path, key, lo, hi)) return STEPQ_ERR;
    if (d != (double)(int)d) {
        stepq_error("%s: '%s' must be an integer", path, key);
        return STEPQ_ERR;
    }
    *out = (int)d;
    return STEPQ_OK;
}

// a key whose value stepq implements only one way: absent, null or that value
static int cfg_only(const cJSON* c, const char* path, const char* key, int want_bool, double want_num,
                    const char* what) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(c, key);
    if (!v || cJSON_IsNull(v)) return STEPQ_OK;
    int ok = want_bool >= 0 ? cJSON_IsBool(v) && cJSON_IsTrue(v) == want_bool
                            : cJSON_IsNumber(v) && v->valuedouble == want_num;
    if (!ok) stepq_error("%s: '%s': stepq implements %s only", path, key, what);
    return ok ? STEPQ_OK : STEPQ_ERR;
}

// a key stepq implements only when absent or null (a hybrid model's attention layers)
static int cfg_null_only(const cJSON* c, const char* path, const char* key, const char* what) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(c, key);
    if (!v || cJSON_IsNull(v)) return STEPQ_OK;
    stepq_error("%s: '%s' is set: stepq implements %s", path, key, what);
    return STEPQ_ERR;
}

// a string key whose value stepq implements one way: absent, null or one of the names (the same
// function under two names: "swish", "silu")
static int cfg_str_only(const cJSON* c, const char* path, const char* key, const char* a, const char* b,
                        const char* what) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(c, key);
    if (!v || cJSON_IsNull(v)) return STEPQ_OK;
    if (cJSON_IsString(v) && (!strcmp(v->valuestring, a) || !strcmp(v->valuestring, b))) return STEPQ_OK;
    stepq_error("%s: '%s' is %s: stepq implements %s only", path, key,
                cJSON_IsString(v) ? v->valuestring : "not a string", what);
    return STEPQ_ERR;
}

static int read_config(stepq_lm* m, const char* path) {
    char* text = read_text(path);
    if (!text) {
        stepq_error("%s: cannot read the model's config: %s", path,
                    errno == EFBIG ? "it holds more than 16 MiB, which no config.json does" : strerror(errno));
        return STEPQ_ERR;
    }
    stepq_note_input(path);
    cJSON* c = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsObject(c)) {
        stepq_error("%s: not a JSON object", path);
        cJSON_Delete(c);
        return STEPQ_ERR;
    }
    const cJSON* mt = cJSON_GetObjectItemCaseSensitive(c, "model_type");
    int rc = STEPQ_OK;
    const int kind = cJSON_IsString(mt) ? stepq_kind_parse(mt->valuestring, 1, path, "'model_type'") : -1;
    if (!cJSON_IsString(mt)) stepq_error("%s: 'model_type' must be a string", path);
    if (kind < 0) rc = STEPQ_ERR;
    else m->kind = kind;
    double eps = 0;
    rc = rc || cfg_intkey(&m->layers, c, path, "num_hidden_layers", 1, 1024) ||
         cfg_intkey(&m->heads, c, path, "num_heads", 1, 1024) ||
         cfg_intkey(&m->K, c, path, "head_dim", 8, STEPQ_MAX_DIM) ||
         cfg_intkey(&m->hidden, c, path, "hidden_size", 1, 1 << 16) ||
         cfg_intkey(&m->inter, c, path, "intermediate_size", 1, 1 << 18) ||
         cfg_intkey(&m->conv, c, path, "conv_size", 2, 64) ||
         cfg_intkey(&m->vocab, c, path, "vocab_size", 256, 256) ||
         cfg_num(&eps, c, path, "norm_eps", 0, 1) ||
         cfg_only(c, path, "expand_v", -1, 1.0, "expand_v = 1 (V = K)") ||
         cfg_only(c, path, "use_short_conv", 1, 0, "short convolutions") ||
         cfg_only(c, path, "tie_word_embeddings", 0, 0, "a separate lm_head") ||
         cfg_only(c, path, "allow_neg_eigval", 0, 0, "beta in (0, 1)") ||
         cfg_only(c, path, "use_l2warp", 0, 0, "no l2warp") ||
         cfg_only(c, path, "safe_gate", 0, 0, "the plain gate") ||
         cfg_only(c, path, "lower_bound", -1, NAN, "no lower bound on the gate") ||
         cfg_str_only(c, path, "hidden_act", "swish", "silu", "the SiLU (swish) MLP") ||
         cfg_str_only(c, path, "output_gate_activation", "swish", "silu", "the SiLU (swish) output gate") ||
         cfg_null_only(c, path, "attn", "delta-rule layers only (no attention layers)") ||
         (m->kind == STEPQ_GDN && cfg_only(c, path, "use_gate", 1, 0, "the output gate"));
    const cJSON* nv = cJSON_GetObjectItemCaseSensitive(c, "num_v_heads");
    if (!rc && nv && !cJSON_IsNull(nv) && !(cJSON_IsNumber(nv) && nv->valuedouble == m->heads)) {
        stepq_error("%s: 'num_v_heads': stepq implements num_v_heads = num_heads (no grouped value heads)", path);
        rc = STEPQ_ERR;
    }
    cJSON_Delete(c);
    m->eps = eps;
    m->V = m->K;
    m->D = m->heads * m->K;
    return rc;
}

// ---------------------------------------------------------------------------------------------
// weights

static float* tensor(const stepq_st_file* f, const char* name, int rank, long long d0, long long d1, long long d2,
                     int* rc) {
    if (*rc) return NULL;
    long long shape[3] = {d0, d1, d2};
    size_t n = 1;
    for (int r = 0; r < rank; r++) n *= (size_t)shape[r];
    float* x = mallocCheck(sizeof(float) * n);
    if (stepq_st_read(f, name, x, rank, shape, "config.json") != STEPQ_OK) {
        free(x);
        *rc = STEPQ_ERR;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) {  // a NaN weight gave "nan bits per byte" rows with exit 0
            stepq_error("%s: tensor '%s' holds %s at element %zu (a weight must be finite)", f->path, name,
                        isnan(x[i]) ? "NaN" : "Inf", i);
            free(x);
            *rc = STEPQ_ERR;
            return NULL;
        }
    return x;
}

// a short convolution's weights (D, 1, W) as read, in place as (W, D): each tap's weights over
// the channels, so the forward runs the channels side by side (lm_impl.h's conv_)
static void taps_first(float* w, int D, int W) {
    if (!w) return;
    float* t = mallocCheck(sizeof(float) * (size_t)D * W);
    for (int c = 0; c < D; c++)
        for (int i = 0; i < W; i++) t[(size_t)i * D + c] = w[(size_t)c * W + i];
    memcpy(w, t, sizeof(float) * (size_t)D * W);
    free(t);
}

static void load_layer(stepq_lm* m, const stepq_st_file* f, int l, int* rc) {
    stepq_lm_layer* L = &m->L[l];
    const int H = m->heads, D = m->D, hid = m->hidden, V = m->V;
    char n[256];
#define T1(field, key, a) (snprintf(n, sizeof n, "model.layers.%d.%s", l, key), L->field = tensor(f, n, 1, a, 0, 0, rc))
#define T2(field, key, a, b) (snprintf(n, sizeof n, "model.layers.%d.%s", l, key), L->field = tensor(f, n, 2, a, b, 0, rc))
#define T3(field, key, a, b, c) (snprintf(n, sizeof n, "model.layers.%d.%s", l, key), L->field = tensor(f, n, 3, a, b, c, rc))
    T1(attn_norm, "attn_norm.weight", hid);
    T2(q_proj, "attn.q_proj.weight", D, hid);
    T2(k_proj, "attn.k_proj.weight", D, hid);
    T2(v_proj, "attn.v_proj.weight", D, hid);
    T3(q_conv, "attn.q_conv1d.weight", D, 1, m->conv);
    T3(k_conv, "attn.k_conv1d.weight", D, 1, m->conv);
    T3(v_conv, "attn.v_conv1d.weight", D, 1, m->conv);
    taps_first(L->q_conv, D, m->conv);
    taps_first(L->k_conv, D, m->conv);
    taps_first(L->v_conv, D, m->conv);
    T2(b_proj, "attn.b_proj.weight", H, hid);
    T1(A_log, "attn.A_log", H);
    if (m->kind == STEPQ_GDN) {
        T2(a_proj, "attn.a_proj.weight", H, hid);
        T1(dt_bias, "attn.dt_bias", H);
        T2(g_proj, "attn.g_proj.weight", D, hid);
    } else {
        T2(f_proj0, "attn.f_proj.0.weight", V, hid);
        T2(f_proj1, "attn.f_proj.1.weight", D, V);
        T1(dt_bias, "attn.dt_bias", D);
        T2(g_proj0, "attn.g_proj.0.weight", V, hid);
        T2(g_proj1, "attn.g_proj.1.weight", D, V);
        T1(g_bias, "attn.g_proj.1.bias", D);
    }
    T1(o_norm, "attn.o_norm.weight", V);
    T2(o_proj, "attn.o_proj.weight", hid, D);
    T1(mlp_norm, "mlp_norm.weight", hid);
    T2(gate_proj, "mlp.gate_proj.weight", m->inter, hid);
    T2(up_proj, "mlp.up_proj.weight", m->inter, hid);
    T2(down_proj, "mlp.down_proj.weight", hid, m->inter);
#undef T1
#undef T2
#undef T3
}

int stepq_lm_load(stepq_lm* m, const char* dir) {
    memset(m, 0, sizeof *m);
    m->dir = strdup(dir);
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", dir);
    if (read_config(m, path)) {
        stepq_lm_free(m);
        return STEPQ_ERR;
    }
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    stepq_st_file f;
    if (stepq_st_open(&f, path)) {
        stepq_lm_free(m);
        return STEPQ_ERR;
    }
    int rc = STEPQ_OK;
    m->embed = tensor(&f, "model.embeddings.weight", 2, m->vocab, m->hidden, 0, &rc);
    m->norm = tensor(&f, "model.norm.weight", 1, m->hidden, 0, 0, &rc);
    m->lm_head = tensor(&f, "lm_head.weight", 2, m->vocab, m->hidden, 0, &rc);
    m->L = callocCheck((size_t)m->layers, sizeof *m->L);
    for (int l = 0; l < m->layers && !rc; l++) load_layer(m, &f, l, &rc);
    stepq_st_close(&f);
    snprintf(m->desc, sizeof m->desc, "model %s (%s: %d layers x %d heads of %d x %d, hidden %d)", dir,
             stepq_kind_name(m->kind), m->layers, m->heads, m->K, m->V, m->hidden);
    uint64_t hc = 0, hw = 0;
    snprintf(path, sizeof path, "%s/config.json", dir);
    if (!rc && !stepq_file_xxh3(&hc, path)) {
        snprintf(path, sizeof path, "%s/model.safetensors", dir);
        if (!stepq_file_xxh3(&hw, path)) m->xxh3 = stepq_xxh3(hc, &hw, sizeof hw);
    }
    if (rc) stepq_lm_free(m);
    return rc;
}

void stepq_lm_free(stepq_lm* m) {
    for (int l = 0; m->L && l < m->layers; l++) {
        stepq_lm_layer* L = &m->L[l];
        float* all[] = {L->attn_norm, L->q_proj, L->k_proj, L->v_proj, L->q_conv, L->k_conv, L->v_conv,
                        L->a_proj, L->f_proj0, L->f_proj1, L->b_proj, L->A_log, L->dt_bias, L->g_proj,
                        L->g_proj0, L->g_proj1, L->g_bias, L->o_norm, L->o_proj, L->mlp_norm,
                        L->gate_proj, L->up_proj, L->down_proj};
        for (size_t i = 0; i < sizeof all / sizeof *all; i++) free(all[i]);
    }
    free(m->L);
    free(m->embed);
    free(m->norm);
    free(m->lm_head);
    free(m->dir);
    memset(m, 0, sizeof *m);
}

void stepq_lm_inputs_alloc(stepq_lm_inputs* in, const stepq_lm* m) {
    const size_t LH = (size_t)m->layers * m->heads, G = (size_t)stepq_kind_gates(m->kind, m->K);
    in->q = mallocCheck(sizeof(float) * LH * m->K);
    in->k = mallocCheck(sizeof(float) * LH * m->K);
    in->v = mallocCheck(sizeof(float) * LH * m->V);
    in->g = mallocCheck(sizeof(float) * LH * G);
    in->beta = mallocCheck(sizeof(float) * LH);
}

void stepq_lm_inputs_free(stepq_lm_inputs* in) {
    free(in->q); free(in->k); free(in->v); free(in->g); free(in->beta);
    memset(in, 0, sizeof *in);
}

// ---------------------------------------------------------------------------------------------
// the forward, for float and for double

#define LM_CAT2(a, b) a##b
#define LM_CAT(a, b) LM_CAT2(a, b)

// the float64 delta rule: the reference step's lines with double inputs
#define REAL double
#define IN_T double
#define STEP_FN lm_delta_f64
#define EXP_FN exp
#define STEP_LINKAGE static
#include "recurrence_impl.h"
#undef STEP_FN
#undef EXP_FN
#undef IN_T

#define MATVEC_FN matvec_f64
#define MATVEC_LINKAGE static
#include "matvec_impl.h"
#undef MATVEC_FN
#undef MATVEC_LINKAGE

#define EXPR exp
#define LOGR log1p
#define SQRTR sqrt
#define LM_MATVEC(be, y, W, x, n, n_out, n_in) matvec_f64(y, W, x, n, n_out, n_in)
#define LM_DELTA(ctx, l, h, S, y, work, q, k, v, g, beta, scale, G, K, V) \
    (lm_delta_f64(S, y, work, q, k, v, g, beta, scale, G, K, V), STEPQ_OK)
#include "lm_impl.h"
#undef REAL
#undef EXPR
#undef LOGR
#undef SQRTR
#undef LM_DELTA
#undef LM_MATVEC

// after the boundary, every head's engine (sim/headloop.h), head l * H + h: one slot (the
// format's, or the octile rows'), no reference (a serving step)
struct stepq_lm_heads {
    stepq_slot slot;
    stepq_headloop_cfg loop;
    stepq_head* e;  // (L*H)
};

// one head of layer l in float32: natively (the backend's float32 step) or through its engine
static int delta_f32(stepq_lm_seq* s, int l, int h, float* S, float* y, float* work, const float* q,
                     const float* k, const float* v, const float* g, float beta, double scale, int G, int K,
                     int V) {
    if (!s->heads) {
        s->be->step(S, y, work, q, k, v, g, beta, scale, G, K, V);
        return STEPQ_OK;
    }
    stepq_head* e = &s->heads->e[(size_t)l * s->m->heads + h];
    const stepq_step_in in = {.q = q, .k = k, .v = v, .g = g, .beta = beta};
    if (stepq_head_step(e, &in) != STEPQ_OK) return STEPQ_ERR;
    memcpy(y, e->y_hat, sizeof(float) * V);  // the slot's read-out
    return STEPQ_OK;
}

#define REAL float
#define EXPR expf
#define LOGR log1pf
#define SQRTR sqrtf
#define LM_MATVEC(be, y, W, x, n, n_out, n_in) (be)->matvec(y, W, x, n, n_out, n_in)
#define LM_DELTA(ctx, l, h, S, y, work, q, k, v, g, beta, scale, G, K, V) \
    delta_f32((stepq_lm_seq*)(ctx), l, h, S, y, work, q, k, v, g, beta, scale, G, K, V)
#include "lm_impl.h"
#undef REAL
#undef EXPR
#undef LOGR
#undef SQRTR
#undef LM_DELTA
#undef LM_MATVEC

// the scratch of one token's layer, in one block of REALs
#define SCRATCH_ALLOC(T, w, m)                                                                       \
    do {                                                                                             \
        const size_t D_ = (size_t)(m)->D, n_ = 4 * (size_t)(m)->hidden + 10 * D_ + 2 * (size_t)(m)->inter + \
                                                 3 * (size_t)(m)->V + (size_t)(m)->heads;             \
        T* p_ = callocCheck(n_, sizeof(T));                                                          \
        (w).a = p_, p_ += (m)->hidden;                                                               \
        (w).t = p_, p_ += (m)->hidden;                                                               \
        (w).pq = p_, p_ += D_;                                                                       \
        (w).pk = p_, p_ += D_;                                                                       \
        (w).pv = p_, p_ += D_;                                                                       \
        (w).q = p_, p_ += D_;                                                                        \
        (w).k = p_, p_ += D_;                                                                        \
        (w).v = p_, p_ += D_;                                                                        \
        (w).g = p_, p_ += D_;                                                                        \
        (w).z = p_, p_ += D_;                                                                        \
        (w).o = p_, p_ += D_;                                                                        \
        (w).y = p_, p_ += D_;                                                                        \
        (w).f = p_, p_ += (m)->V;                                                                    \
        (w).work = p_, p_ += 2 * (size_t)(m)->V;                                                     \
        (w).h1 = p_, p_ += (m)->inter;                                                               \
        (w).h2 = p_, p_ += (m)->inter;                                                               \
        (w).beta = p_;                                                                               \
    } while (0)

void stepq_lm_seq_init(stepq_lm_seq* s, const stepq_lm* m, const stepq_backend* be) {
    stepq_assert(be);  // the front end's choice, passed down (sim/backend.h)
    memset(s, 0, sizeof *s);
    s->m = m;
    s->conv = callocCheck((size_t)m->layers * 3 * m->D * (m->conv - 1), sizeof(float));
    s->S = callocCheck((size_t)m->layers * m->heads * m->K * m->V, sizeof(float));
    s->be = be;
    s->x = callocCheck((size_t)m->hidden, sizeof(float));
    scratch_float* w = mallocCheck(sizeof *w);
    SCRATCH_ALLOC(float, *w, m);
    s->scratch = w;
}

static void free_heads(stepq_lm_seq* s) {
    if (!s->heads) return;
    for (int i = 0; i < s->m->layers * s->m->heads; i++) stepq_head_free(&s->heads->e[i]);
    free(s->heads->e);
    free(s->heads);
    s->heads = NULL;
}

void stepq_lm_seq_free(stepq_lm_seq* s) {
    free_heads(s);
    free(s->conv);
    free(s->S);
    free(s->x);
    if (s->scratch) free(((scratch_float*)s->scratch)->a);
    free(s->scratch);
    memset(s, 0, sizeof *s);
}

void stepq_lm_seq_copy(stepq_lm_seq* dst, const stepq_lm_seq* src) {
    const stepq_lm* m = src->m;
    stepq_assert(!src->heads);
    stepq_lm_seq_init(dst, m, src->be);
    memcpy(dst->conv, src->conv, sizeof(float) * m->layers * 3 * m->D * (m->conv - 1));
    memcpy(dst->S, src->S, sizeof(float) * m->layers * m->heads * m->K * m->V);
}

// The boundary: every head's engine begun from its native state with slot sl (plan: the
// format's, its heads checked by the caller), the boundary itself at the engine's first step
// (prefill 0). STEPQ_ERR if the format does not fit, the backend is refused or a state is not
// finite.
static int begin_heads(stepq_lm_seq* s, const stepq_slot* sl, const stepq_plan* plan, const stepq_backend* be) {
    const stepq_lm* m = s->m;
    const int LH = m->layers * m->heads;
    const size_t KV = (size_t)m->K * m->V;
    stepq_assert(!s->heads);
    if (stepq_format_fits(sl->fmt, m->K, m->V) != STEPQ_OK) return STEPQ_ERR;
    for (int i = 0; i < LH; i++)
        if (!stepq_all_finite(s->S + (size_t)i * KV, KV)) {
            stepq_error("%s: the state of layer %d, head %d is not finite at the boundary", m->desc, i / m->heads,
                        i % m->heads);
            return STEPQ_ERR;
        }
    struct stepq_lm_heads* hs = callocCheck(1, sizeof *hs);
    hs->slot = *sl;
    // decode steps as long as the sequence runs
    hs->loop = (stepq_headloop_cfg){.backend = be, .slots = &hs->slot, .n_slots = 1, .plan = plan,
                                    .decode = LONG_MAX, .no_reference = 1};
    if (stepq_headloop_check(&hs->loop, m->desc) != STEPQ_OK) {
        free(hs);
        return STEPQ_ERR;
    }
    const stepq_head_shape shape = {.kind = m->kind, .K = m->K, .V = m->V, .n_gates = stepq_kind_gates(m->kind, m->K), .scale = 1.0 / sqrt((double)m->K)};
    hs->e = callocCheck((size_t)LH, sizeof *hs->e);
    for (int i = 0; i < LH; i++) {
        stepq_head_init(&hs->e[i], &hs->loop, &shape);
        const int ph = plan ? stepq_plan_find(plan, i / m->heads, i % m->heads) : 0;
        stepq_assert(stepq_head_begin(&hs->e[i], i, ph, s->S + (size_t)i * KV) == STEPQ_OK);  // no observers
    }
    s->heads = hs;
    return STEPQ_OK;
}

int stepq_lm_seq_round_rows(stepq_lm_seq* s, const uint8_t* rows, int width, const stepq_backend* be) {
    const stepq_lm* m = s->m;
    for (size_t i = 0; i < (size_t)m->layers * m->heads * m->K; i++) stepq_assert(rows[i] <= 1);  // marks: 0 or 1
    char name[16];
    snprintf(name, sizeof name, "int%d", width);
    const stepq_format* fmt = stepq_format_find(name);  // the rows' codec: per-row absmax at the width
    if (!fmt || fmt->family != &stepq_family_rows) {
        stepq_error("%s: the octile protocol stores rows as a per-row absmax format does (int4, int6, int8); "
                    "there is no int%d", m->desc, width);
        return STEPQ_ERR;
    }
    const stepq_slot sl = {.fmt = fmt, .proto = STEPQ_PROTO_ROWS, .rows = (const int8_t*)rows,
                           .rows_stride = (size_t)m->K, .rows_value = 1, .rows_boundary = 1};
    return begin_heads(s, &sl, NULL, be);
}

int stepq_lm_seq_quantize(stepq_lm_seq* s, const stepq_format* fmt, const stepq_plan* plan,
                          const stepq_backend* be) {
    const stepq_lm* m = s->m;
    if (plan && (plan->kind != m->kind || plan->K != m->K || plan->V != m->V)) {
        stepq_error("the plan is for a %s model of %d x %d heads, not %s", stepq_kind_name(plan->kind), plan->K,
                    plan->V, m->desc);
        return STEPQ_ERR;
    }
    for (int i = 0; i < m->layers * m->heads && stepq_format_needs_plan(fmt); i++)
        if (!plan || stepq_plan_find(plan, i / m->heads, i % m->heads) < 0) {
            stepq_error("format %s needs a plan with layer %d, head %d of %s", fmt->name, i / m->heads,
                        i % m->heads, m->desc);
            return STEPQ_ERR;
        }
    const stepq_slot sl = {.fmt = fmt, .proto = STEPQ_PROTO_NORMAL};
    return begin_heads(s, &sl, plan, be);
}

int stepq_lm_step_many(stepq_lm_seq* const* seqs, int n, const int* tokens, float* const* logits, int* failed) {
    stepq_assert(n >= 1 && n <= STEPQ_LM_BATCH);
    const stepq_lm* m = seqs[0]->m;
    const stepq_backend* be = seqs[0]->be;
    const size_t cs = (size_t)3 * m->D * (m->conv - 1);
    float *x[STEPQ_LM_BATCH], *conv[STEPQ_LM_BATCH], *S[STEPQ_LM_BATCH];
    void* ctx[STEPQ_LM_BATCH];
    scratch_float* w[STEPQ_LM_BATCH];
    stepq_lm_inputs* cap[STEPQ_LM_BATCH] = {0};
    int fail[STEPQ_LM_BATCH] = {0};
    for (int i = 0; i < n; i++) {
        stepq_assert(seqs[i]->m == m && seqs[i]->be == be);
        x[i] = seqs[i]->x, S[i] = seqs[i]->S, ctx[i] = seqs[i], w[i] = seqs[i]->scratch;
        memcpy(x[i], m->embed + (size_t)tokens[i] * m->hidden, sizeof(float) * m->hidden);
    }
    for (int l = 0; l < m->layers; l++) {
        for (int i = 0; i < n; i++) conv[i] = seqs[i]->conv + l * cs;
        block_float(be, m, l, n, x, conv, S, ctx, w, cap, fail);
    }
    head_float(be, m, x, logits, w, n);
    int rc = STEPQ_OK;
    for (int i = 0; i < n; i++) {
        if (failed) failed[i] = fail[i];
        if (fail[i]) rc = STEPQ_ERR;
    }
    return rc;
}

void stepq_lm_batch_init(stepq_lm_batch* b) { memset(b, 0, sizeof *b); }

void stepq_lm_batch_add(stepq_lm_batch* b, stepq_lm_seq* s, int id) {
    stepq_assert(b->n < STEPQ_LM_BATCH);
    b->seq[b->n] = s;
    b->id[b->n] = id;
    b->logits[b->n++] = mallocCheck(sizeof(float) * s->m->vocab);
}

void stepq_lm_batch_step(stepq_lm_batch* b, int token, int* failed, int* n_failed) {
    int tok[STEPQ_LM_BATCH], bad[STEPQ_LM_BATCH], kept = 0;
    *n_failed = 0;
    if (b->n == 0) return;
    for (int k = 0; k < b->n; k++) tok[k] = token;
    stepq_lm_step_many(b->seq, b->n, tok, b->logits, bad);
    for (int k = 0; k < b->n; k++) {
        if (bad[k]) {
            failed[(*n_failed)++] = b->id[k];
            free(b->logits[k]);
            continue;
        }
        b->seq[kept] = b->seq[k], b->id[kept] = b->id[k], b->logits[kept++] = b->logits[k];
    }
    b->n = kept;
}

void stepq_lm_batch_free(stepq_lm_batch* b) {
    for (int k = 0; k < b->n; k++) free(b->logits[k]);
    b->n = 0;
}

int stepq_lm_batch_runs(int docs, int runs) {
#ifdef _OPENMP
    const int threads = omp_get_max_threads();
#else
    const int threads = 1;
#endif
    // one batch a document where there are documents enough for two on each thread (the
    // weights read once a token for all its runs); else as many as make two units a thread
    int batches = threads == 1 ? 1 : (2 * threads + docs - 1) / (docs > 0 ? docs : 1);
    batches = batches < 1 ? 1 : batches > runs ? runs : batches;
    int per = (runs + batches - 1) / batches;
    return per < 1 ? 1 : per > STEPQ_LM_BATCH ? STEPQ_LM_BATCH : per;
}

int stepq_lm_step(stepq_lm_seq* s, int token, float* logits, stepq_lm_inputs* in) {
    const stepq_lm* m = s->m;
    const size_t cs = (size_t)3 * m->D * (m->conv - 1);
    float *x = s->x, *S = s->S;
    void* ctx = s;
    scratch_float* w = s->scratch;
    int fail = 0;
    memcpy(x, m->embed + (size_t)token * m->hidden, sizeof(float) * m->hidden);
    for (int l = 0; l < m->layers && !fail; l++) {
        float* conv = s->conv + l * cs;
        block_float(s->be, m, l, 1, &x, &conv, &S, &ctx, &w, &in, &fail);
    }
    if (fail) return STEPQ_ERR;
    head_float(s->be, m, &x, &logits, &w, 1);
    return STEPQ_OK;
}

void stepq_lm_forward_f64(const stepq_lm* m, const uint8_t* tokens, long T, double* logits) {
    scratch_double w;
    SCRATCH_ALLOC(double, w, m);
    scratch_double* wp = &w;
    double* conv = callocCheck((size_t)m->layers * 3 * m->D * (m->conv - 1), sizeof(double));
    double* S = callocCheck((size_t)m->layers * m->heads * m->K * m->V, sizeof(double));
    double* x = mallocCheck(sizeof(double) * m->hidden);
    const size_t cs = (size_t)3 * m->D * (m->conv - 1);
    void* ctx = NULL;
    stepq_lm_inputs* cap = NULL;
    int fail = 0;
    for (long t = 0; t < T; t++) {
        for (int i = 0; i < m->hidden; i++) x[i] = m->embed[(size_t)tokens[t] * m->hidden + i];
        for (int l = 0; l < m->layers; l++) {
            double* cl = conv + l * cs;
            block_double(NULL, m, l, 1, &x, &cl, &S, &ctx, &wp, &cap, &fail);
        }
        double* lt = logits + (size_t)t * m->vocab;
        head_double(NULL, m, &x, &lt, &wp, 1);
    }
    free(w.a);
    free(conv);
    free(S);
    free(x);
}

double stepq_lm_nll(const float* logits, int vocab, int next) {
    double mx = -INFINITY, s = 0;
    for (int i = 0; i < vocab; i++) mx = fmax(mx, logits[i]);
    for (int i = 0; i < vocab; i++) s += exp((double)logits[i] - mx);
    return mx + log(s) - logits[next];
}

// ---------------------------------------------------------------------------------------------
// the model as a stream

int stepq_lm_capture(stepq_trace* tr, const stepq_lm* m, const uint8_t* bytes, long T, const stepq_backend* be) {
    const int LH = m->layers * m->heads, K = m->K, V = m->V, G = stepq_kind_gates(m->kind, K);
    memset(tr, 0, sizeof *tr);
    tr->kind = m->kind;
    tr->T = T;
    tr->H = tr->HV = LH;
    tr->K = K;
    tr->V = V;
    tr->scale = 1.0 / sqrt((double)K);
    tr->qk_norm_eps = STEPQ_QK_NORM_EPS;
    tr->q = mallocCheck(sizeof(float) * (size_t)T * LH * K);
    tr->k = mallocCheck(sizeof(float) * (size_t)T * LH * K);
    tr->v = mallocCheck(sizeof(float) * (size_t)T * LH * V);
    tr->g = mallocCheck(sizeof(float) * (size_t)T * LH * G);
    tr->beta = mallocCheck(sizeof(float) * (size_t)T * LH);
    tr->layer = mallocCheck(sizeof(int) * LH);
    tr->head = mallocCheck(sizeof(int) * LH);
    for (int i = 0; i < LH; i++) tr->layer[i] = i / m->heads, tr->head[i] = i % m->heads;
    stepq_lm_seq s;
    stepq_lm_seq_init(&s, m, be);
    stepq_lm_inputs in;
    stepq_lm_inputs_alloc(&in, m);
    float* logits = mallocCheck(sizeof(float) * m->vocab);
    int rc = STEPQ_OK;
    for (long t = 0; t < T && !rc; t++) {  // the inputs come out (L, H, *): value head l * H + h
        rc = stepq_lm_step(&s, bytes[t], logits, &in);
        memcpy(tr->q + (size_t)t * LH * K, in.q, sizeof(float) * LH * K);
        memcpy(tr->k + (size_t)t * LH * K, in.k, sizeof(float) * LH * K);
        memcpy(tr->v + (size_t)t * LH * V, in.v, sizeof(float) * LH * V);
        memcpy(tr->g + (size_t)t * LH * G, in.g, sizeof(float) * LH * G);
        memcpy(tr->beta + (size_t)t * LH, in.beta, sizeof(float) * LH);
    }
    if (rc) stepq_error("%s: a state went non-finite while capturing its stream", m->desc);
    free(logits);
    stepq_lm_inputs_free(&in);
    stepq_lm_seq_free(&s);
    if (rc) stepq_trace_free(tr);
    return rc;
}

int stepq_lm_read_text(uint8_t** bytes, long* n, const char* path) {
    *bytes = NULL;
    *n = 0;
    size_t len;  // read to its end: a pipe (/dev/stdin, <(...)) has no size to ask for
    char* b = stepq_read_file(path, STEPQ_LM_TEXT_MAX, &len);
    if (!b) {
        if (errno == EISDIR) stepq_error("%s: is a directory; give a text file", path);
        else if (errno == EFBIG) stepq_error("%s: holds more than %zu GiB; stepq reads texts of up to that", path, STEPQ_LM_TEXT_MAX >> 30);
        else stepq_error("%s: cannot open the text: %s", path, strerror(errno));
        return STEPQ_ERR;
    }
    if (len == 0) {
        free(b);
        stepq_error("%s: the text is empty", path);
        return STEPQ_ERR;
    }
    *bytes = (uint8_t*)b;
    *n = (long)len;
    stepq_note_input(path);
    return STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------
// the model as a lockstep source: the forward stepped as the heads read it

typedef struct {
    stepq_lm m;
    uint8_t* bytes;  // (T) the text read
    const stepq_backend* be;  // steps the forward (stepq_lm_seq_init)
} lm_impl;

typedef struct {
    stepq_cursor base;
    stepq_lm_seq seq;
    stepq_lm_inputs in;
    float* logits;
} lm_cursor;

static stepq_cursor* lm_open(const stepq_source* src, int h) {
    stepq_assert(h < 0);  // one cursor for every head (a lockstep source)
    const lm_impl* im = src->impl;
    lm_cursor* c = callocCheck(1, sizeof *c);
    c->base.src = src;
    c->base.h = -1;
    stepq_lm_seq_init(&c->seq, &im->m, im->be);
    stepq_lm_inputs_alloc(&c->in, &im->m);
    c->logits = mallocCheck(sizeof(float) * im->m.vocab);
    return &c->base;
}

// one token: every layer's recurrence inputs, value head l * H + h (the layout of the capture)
static int lm_next(stepq_cursor* base, stepq_step_in* out) {
    lm_cursor* c = (lm_cursor*)base;
    const stepq_source* src = base->src;
    const lm_impl* im = src->impl;
    if (base->t >= src->T) return STEPQ_END;
    if (stepq_lm_step(&c->seq, im->bytes[base->t], c->logits, &c->in) != STEPQ_OK) {
        stepq_error("%s: a state went non-finite at token %ld", im->m.desc, base->t);
        return STEPQ_ERR;
    }
    const int K = src->K, V = src->V, G = src->n_gates;
    for (int i = 0; i < src->n_heads; i++)
        out[i] = (stepq_step_in){.q = c->in.q + (size_t)i * K, .k = c->in.k + (size_t)i * K, .v = c->in.v + (size_t)i * V,
                                 .g = c->in.g + (size_t)i * G, .beta = c->in.beta[i]};
    base->t++;
    return STEPQ_OK;
}

static void lm_close(stepq_cursor* base) {
    lm_cursor* c = (lm_cursor*)base;
    stepq_lm_seq_free(&c->seq);
    stepq_lm_inputs_free(&c->in);
    free(c->logits);
    free(c);
}

static void lm_destroy(stepq_source* src) {
    lm_impl* im = src->impl;
    stepq_lm_free(&im->m);
    free(im->bytes);
    free(im);
    free(src->layer);
    free(src->head);
    free(src);
}

stepq_source* stepq_lm_source(stepq_lm* m, const uint8_t* bytes, long T, const stepq_backend* be) {
    stepq_assert(be);
    stepq_source* s = callocCheck(1, sizeof *s);
    lm_impl* im = callocCheck(1, sizeof *im);
    im->be = be;
    im->m = *m;
    memset(m, 0, sizeof *m);
    im->bytes = mallocCheck((size_t)(T > 0 ? T : 1));
    memcpy(im->bytes, bytes, (size_t)T);
    const stepq_lm* mm = &im->m;
    const int LH = mm->layers * mm->heads;
    s->kind = mm->kind;
    s->n_heads = LH;
    s->K = mm->K;
    s->V = mm->V;
    s->n_gates = stepq_kind_gates(mm->kind, mm->K);
    s->T = T;
    s->scale = 1.0 / sqrt((double)mm->K);
    s->qk_norm_eps = STEPQ_QK_NORM_EPS;
    s->layer = mallocCheck(sizeof(int) * LH);
    s->head = mallocCheck(sizeof(int) * LH);
    for (int i = 0; i < LH; i++) s->layer[i] = i / mm->heads, s->head[i] = i % mm->heads;
    snprintf(s->desc, sizeof s->desc, "%s", mm->desc);
    s->lockstep = 1;
    s->open = lm_open;
    s->next = lm_next;
    s->close = lm_close;
    s->destroy = lm_destroy;
    s->impl = im;
    return s;
}

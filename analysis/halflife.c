// halflife.c: half-life against error with its controls; see halflife.h.
#include "halflife.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../base/outfile.h"
#include "../base/ranks.h"
#include "../base/stats.h"
#include "../sim/headloop.h"
#include "../sim/protocol.h"
#include "../sim/recurrence.h"
#include "../sim/runout.h"
#include "../sim/runstate.h"
#include "../base/progress.h"

const char* const stepq_halflife_summary_names[HL_N_SUMMARY] = {
    "spearman_acc", "spearman_acc_over_d", "spearman_persistence", "top_quarter_share_acc",
    "top_quarter_share_acc_over_d", "top_quarter_share_persistence", "d_ratio_long_over_short"};
static const char* const summary_desc[HL_N_SUMMARY] = {
    "Spearman(half-life, accumulated error) over units",
    "Spearman(half-life, accumulated error / one-shot distortion d)",
    "Spearman(half-life, persistence of one injected error)",
    "share of the accumulated error in the longest-lived quarter of units",
    "share of accumulated error / d in the longest-lived quarter",
    "share of persistence in the longest-lived quarter",
    "mean d of the longest-lived quarter over that of the shortest-lived quarter"};

typedef struct {
    const stepq_halflife_cfg* c;
    int S, H, G, U;      // U = units per head: 1 (GDN) or K (KDA)
    double *hl, *acc, *d, *pers;  // (S, H * U)
    int s;               // the seed being run
    // the injected error's step (stepq_error_step_f64) of the backend the heads run on
    double (*error_step)(double* E, double* rows, const stepq_step_in* in, const float* decay, double scale,
                         int K, int V);
} hl_run;

// one thread's sums of the head in flight (the head loop's observer scratch)
typedef struct {
    double* E;     // (K,V) the single injected error, continued exactly
    double *acc, *d, *pers, *e0;  // (U) (U) (U) (K) per unit of the head
    double* gsum;  // (G) the sum of each log gate over the run
    double first;  // GDN: the injected error's read-out at the first decode step
} hl_sums;

// out[i] <- sum over j of (a_ij - b_ij)^2 in double, in index order: the chain of additions of
// one row is the definition; four rows' chains run side by side (their latency, not the
// arithmetic, bound the loop)
static void sq_diff_rows(double* out, const float* a, const float* b, int K, int V) {
    int i = 0;
    for (; i + 4 <= K; i += 4) {
        double s[4] = {0, 0, 0, 0};
        for (int j = 0; j < V; j++)
            for (int r = 0; r < 4; r++) {
                const size_t e = (size_t)(i + r) * V + j;
                const double d = (double)a[e] - b[e];
                s[r] += d * d;
            }
        for (int r = 0; r < 4; r++) out[i + r] = s[r];
    }
    for (; i < K; i++) {
        double s = 0;
        for (int j = 0; j < V; j++) {
            const double d = (double)a[(size_t)i * V + j] - b[(size_t)i * V + j];
            s += d * d;
        }
        out[i] = s;
    }
}

static void* hl_thread_init(void* ctx, const stepq_view* v) {
    const hl_run* r = ctx;
    hl_sums* x = mallocCheck(sizeof *x);
    x->E = mallocCheck(sizeof(double) * v->K * v->V);
    x->acc = mallocCheck(sizeof(double) * r->U);
    x->d = mallocCheck(sizeof(double) * r->U);
    x->pers = mallocCheck(sizeof(double) * r->U);
    x->e0 = mallocCheck(sizeof(double) * v->K);
    x->gsum = mallocCheck(sizeof(double) * v->G);
    return x;
}

static void hl_thread_free(void* tls) {
    hl_sums* x = tls;
    free(x->E); free(x->acc); free(x->d); free(x->pers); free(x->e0); free(x->gsum);
    free(x);
}

static int hl_init_head(void* ctx, void* tls, const stepq_view* v) {
    hl_sums* x = tls;
    for (int i = 0; i < v->G; i++) x->gsum[i] = 0;
    x->first = -1;
    return STEPQ_OK;
}

// the boundary: the format's error E_0 = decode(encode(S)) - S, and each KDA row's size
static int hl_boundary(void* ctx, void* tls, const stepq_view* v) {
    const hl_run* r = ctx;
    hl_sums* x = tls;
    const int K = v->K, V = v->V, U = r->U;
    const float* X = v->f[0].qs->X;
    for (size_t e = 0; e < (size_t)K * V; e++) x->E[e] = (double)X[e] - v->S[e];
    for (int u = 0; u < U; u++) x->acc[u] = x->d[u] = x->pers[u] = 0;
    for (int i = 0; i < K; i++) {  // KDA: each row's injected error
        double e0 = 0;
        for (int j = 0; j < V; j++) e0 += x->E[(size_t)i * V + j] * x->E[(size_t)i * V + j];
        if (U > 1) x->e0[i] = e0;
    }
    return STEPQ_OK;
}

static int hl_step(void* ctx, void* tls, const stepq_view* v) {
    const hl_run* r = ctx;
    hl_sums* x = tls;
    const int K = v->K, V = v->V, U = r->U;
    for (int i = 0; i < v->G; i++) x->gsum[i] += v->in->g[i];
    if (!v->decoding) return STEPQ_OK;
    double ro = r->error_step(x->E, U > 1 ? x->pers : NULL, v->in, v->decay, v->scale, K, V);
    if (U == 1) {
        if (x->first < 0) x->first = ro;
        x->pers[0] += ro;
    }
    const stepq_slot_view* q = &v->f[0];
    if (U == 1)
        for (int j = 0; j < V; j++) x->acc[0] += ((double)q->y_hat[j] - v->y[j]) * ((double)q->y_hat[j] - v->y[j]);
    // eps: what this step's encode added (zero between a replay format's re-encodes); err: the
    // state's error (KDA's rows). Each row's sums in index order; GDN's eps of four rows side by
    // side (sq_diff_rows: the chains of additions, not the arithmetic, bound the loop), summed
    // into its one unit in row order
    if (U > 1) {
        for (int i = 0; i < K; i++) {
            double eps = 0, err = 0;
            for (int j = 0; j < V; j++) {
                size_t e = (size_t)i * V + j;
                double a = (double)q->qs->X[e] - q->X_pre[e], b = (double)q->qs->X[e] - v->S[e];
                eps += a * a;
                err += b * b;
            }
            x->d[i] += eps;
            x->acc[i] += err;
        }
    } else {
        double eps[STEPQ_MAX_DIM];
        sq_diff_rows(eps, q->qs->X, q->X_pre, K, V);
        for (int i = 0; i < K; i++) x->d[0] += eps[i];
    }
    return STEPQ_OK;
}

// head h's units into the run's arrays
static int hl_end_head(void* ctx, void* tls, const stepq_view* v) {
    const hl_run* r = ctx;
    const hl_sums* x = tls;
    const stepq_halflife_cfg* c = r->c;
    const int U = r->U, s = r->s, h = v->h, K = v->K, V = v->V;
    const double steps = (double)(c->prefill + c->decode);
    for (int u = 0; u < U; u++) {
        size_t o = (size_t)s * r->H * U + (size_t)h * U + u;
        double l = (U > 1 ? x->gsum[u] : x->gsum[0]) / steps;
        r->hl[o] = l < 0 ? M_LN2 / -l : INFINITY;
        r->acc[o] = x->acc[u];
        r->d[o] = x->d[u] / (double)c->decode / (U > 1 ? V : (double)K * V);
        r->pers[o] = U > 1 ? (x->e0[u] > 0 ? x->pers[u] / x->e0[u] : NAN)
                           : (x->first > 0 ? x->pers[0] / x->first : NAN);
    }
    return STEPQ_OK;
}

// the summaries of seed s (HL_N_SUMMARY)
static void summarise(double* out, const hl_run* r, int s) {
    const size_t n = (size_t)r->H * r->U, o = (size_t)s * n;
    double* norm = mallocCheck(sizeof(double) * n);
    int* q = mallocCheck(sizeof(int) * n);
    for (size_t i = 0; i < n; i++) norm[i] = stepq_ratio(r->acc[o + i], r->d[o + i]);
    out[HL_SPEARMAN_ACC] = stepq_spearman(r->hl + o, r->acc + o, n);
    out[HL_SPEARMAN_NORM] = stepq_spearman(r->hl + o, norm, n);
    out[HL_SPEARMAN_PERS] = stepq_spearman(r->hl + o, r->pers + o, n);
    out[HL_SHARE_ACC] = stepq_top_quarter_share(r->hl + o, r->acc + o, n);
    out[HL_SHARE_NORM] = stepq_top_quarter_share(r->hl + o, norm, n);
    out[HL_SHARE_PERS] = stepq_top_quarter_share(r->hl + o, r->pers + o, n);
    stepq_quartiles_of(q, r->hl + o, n);
    double dq[4] = {0}, nq[4] = {0};
    for (size_t i = 0; i < n; i++) dq[q[i]] += r->d[o + i], nq[q[i]]++;
    out[HL_D_RATIO] = nq[0] > 0 && dq[0] > 0 ? (dq[3] / nq[3]) / (dq[0] / nq[0]) : NAN;
    free(norm);
    free(q);
}

static int write_table(const stepq_halflife_cfg* c, const hl_run* r) {
    FILE* fp = stepq_text_create(c->table);
    if (!fp) {
        return STEPQ_ERR;
    }
    fprintf(fp, "# halflife: one unit a line (first seed): half_life acc d acc_over_d persistence\n");
    for (size_t i = 0; i < (size_t)r->H * r->U; i++)
        fprintf(fp, "%.6e\t%.6e\t%.6e\t%.6e\t%.6e\n", r->hl[i], r->acc[i], r->d[i],
                stepq_ratio(r->acc[i], r->d[i]), r->pers[i]);
    return stepq_text_commit(fp, c->table);
}

static int write_h5(const stepq_halflife_cfg* c, const hl_run* r, const double* sum) {
    hid_t f = h5u_create(c->output);
    if (f < 0) return STEPQ_ERR;
    const int S = r->S;
    hsize_t dS[1] = {(hsize_t)S}, dSU[2] = {(hsize_t)S, (hsize_t)r->H * r->U};
    hid_t D = H5T_NATIVE_DOUBLE;
    hid_t g = H5Gcreate2(f, "units", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = g < 0 || stepq_write_provenance(f, &c->prov) || h5u_attr_str(f, "format", c->format->name) ||
             h5u_attr_i64(f, "prefill", c->prefill) || h5u_attr_i64(f, "decode", c->decode) ||
             h5u_attr_str(f, "unit", r->U > 1 ? "key row (KDA)" : "head (GDN)") ||
             h5u_write(f, "seeds", H5T_NATIVE_UINT64, c->seeds, 1, dS, NULL, "seed of each run") ||
             h5u_write(g, "half_life", D, r->hl, 2, dSU, "steps", "ln 2 / -mean log gate of each unit [S,U]") ||
             h5u_write(g, "acc", D, r->acc, 2, dSU, "(state or value units)^2",
                       r->U > 1 ? "sum over decode of ||E_t,i||^2, the unit's row of the state error [S,U]"
                                : "sum over decode of ||y_hat - y||^2 [S,U]") ||
             h5u_write(g, "d", D, r->d, 2, dSU, "(state units)^2",
                       "mean over decode of the squared error one encode adds, per element [S,U]") ||
             h5u_write(g, "persistence", D, r->pers, 2, dSU, "steps",
                       "accumulated error of one injected error over its first step's [S,U]");
    // each unit's half-life quarter and each quarter's share of the accumulated error
    const size_t n = (size_t)r->H * r->U;
    int8_t* quart = mallocCheck((size_t)S * n);
    double* share = callocCheck((size_t)S * 4, sizeof(double));
    int* q = mallocCheck(sizeof(int) * n);
    for (int s = 0; s < S; s++) {
        stepq_quartiles_of(q, r->hl + (size_t)s * n, n);
        double all = 0;
        for (size_t i = 0; i < n; i++) {
            quart[(size_t)s * n + i] = (int8_t)q[i];
            share[(size_t)s * 4 + q[i]] += r->acc[(size_t)s * n + i];
            all += r->acc[(size_t)s * n + i];
        }
        for (int k = 0; k < 4; k++) share[(size_t)s * 4 + k] = all > 0 ? share[(size_t)s * 4 + k] / all : NAN;
    }
    hsize_t dS4[2] = {(hsize_t)S, 4};
    rc = rc || h5u_write(g, "quartile", H5T_NATIVE_INT8, quart, 2, dSU, "1",
                         "half-life quarter of each unit (0: shortest-lived) [S,U]") ||
         h5u_write(f, "quarter_share_acc", D, share, 2, dS4, "1",
                   "share of the accumulated error in each half-life quarter (0: shortest-lived) [S,4]");
    free(quart); free(share); free(q);
    double* col = mallocCheck(sizeof(double) * S);
    for (int k = 0; k < HL_N_SUMMARY && !rc; k++) {
        double m, ci;
        for (int s = 0; s < S; s++) col[s] = sum[(size_t)s * HL_N_SUMMARY + k];
        stepq_mean_ci95(&m, &ci, col, S);
        rc = h5u_write(f, stepq_halflife_summary_names[k], D, col, 1, dS, "1", summary_desc[k]);
        hid_t d = rc ? -1 : H5Dopen2(f, stepq_halflife_summary_names[k], H5P_DEFAULT);
        rc = rc || h5u_attr_f64(d, "mean", m) || h5u_attr_f64(d, "ci95_half_width", ci);
        if (d >= 0) H5Dclose(d);
    }
    free(col);
    if (g >= 0) H5Gclose(g);
    if (rc) {
        h5u_abandon(f, c->output);
        return STEPQ_ERR;
    }
    return h5u_commit(f, c->output);
}

static void print_summary(const stepq_halflife_cfg* c, const hl_run* r, const double* sum) {
    const int S = r->S;
    double* col = mallocCheck(sizeof(double) * S);
    printf("halflife: %d heads (%d units), %s, prefill %ld, decode %ld, %d seeds (%s)\n", r->H,
           r->H * r->U, c->format->name, c->prefill, c->decode, S, c->srcs[0]->desc);
    for (int k = 0; k < HL_N_SUMMARY; k++) {
        double m, ci;
        for (int s = 0; s < S; s++) col[s] = sum[(size_t)s * HL_N_SUMMARY + k];
        stepq_mean_ci95(&m, &ci, col, S);
        printf("  %-32s %8.3f +- %.3f   (%s)\n", stepq_halflife_summary_names[k], m, ci, summary_desc[k]);
    }
    printf("(the paper, INT6: Spearman 0.80 over 2304 Qwen heads; longest-lived quarter 52.5%% (Qwen), "
           "78.8%% (KDA) of the error)\n");
    free(col);
}

int stepq_halflife(double* sum, const stepq_halflife_cfg* c) {
    const stepq_source* s0 = c->srcs[0];
    hl_run r = {.c = c, .S = c->n_seeds, .H = s0->n_heads, .G = s0->n_gates, .U = stepq_kind_units(s0->kind, s0->K)};
    const stepq_backend* be = c->backend;
    stepq_assert(be);  // the front end's choice, passed down (sim/backend.h)
    r.error_step = be->error_step ? be->error_step : stepq_error_step_f64;
    if (stepq_formats_fit(&c->format, 1, s0) != STEPQ_OK) return STEPQ_ERR;
    const stepq_slot slot = {.fmt = c->format, .proto = STEPQ_PROTO_NORMAL};
    const stepq_observer obs = {.name = "halflife", .needs = STEPQ_NEED_STATES, .ctx = &r,
                                .thread_init = hl_thread_init, .thread_free = hl_thread_free,
                                .init_head = hl_init_head, .on_step = hl_step,
                                .on_boundary = hl_boundary, .end_head = hl_end_head};
    stepq_progress pr;
    stepq_headloop_cfg hc = {.backend = c->backend, .slots = &slot, .n_slots = 1, .prefill = c->prefill,
                             .decode = c->decode, .obs = &obs, .n_obs = 1, .progress = &pr};
    size_t n = (size_t)r.S * r.H * r.U;
    r.hl = callocCheck(n, sizeof(double));
    r.acc = callocCheck(n, sizeof(double));
    r.d = callocCheck(n, sizeof(double));
    r.pers = callocCheck(n, sizeof(double));
    // an MPI run's units (base/ranks.h): seed s, head h is unit s H + h
    stepq_split sp;
    stepq_split_init(&sp);
    double* bufs[4] = {r.hl, r.acc, r.d, r.pers};
    for (int i = 0; i < 4; i++) stepq_split_add(&sp, bufs[i], sizeof(double) * n);
    hc.split = 1;
    stepq_progress_start(&pr, "halflife", "heads", (long)r.S * r.H);
    int rc = STEPQ_OK;
    for (r.s = 0; r.s < r.S && rc == STEPQ_OK; r.s++) {
        hc.unit0 = (long)r.s * r.H;
        rc = stepq_headloop_run(c->srcs[r.s], &hc);
    }
    rc = stepq_split_end(&sp, rc, "halflife");
    stepq_progress_end(&pr);
    for (int s = 0; s < r.S && !rc; s++) summarise(sum + (size_t)s * HL_N_SUMMARY, &r, s);
    if (!rc && c->output) rc = write_h5(c, &r, sum);
    if (!rc && c->table) rc = write_table(c, &r);
    if (!rc && c->output) print_summary(c, &r, sum);
    free(r.hl); free(r.acc); free(r.d); free(r.pers);
    return rc;
}

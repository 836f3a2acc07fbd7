// calibrate.c: see calibrate.h.
#include "calibrate.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../quant/alloc.h"
#include "../quant/format.h"
#include "../sim/headloop.h"
#include "../sim/backend.h"
#include "../sim/runstate.h"
#include "../base/progress.h"
#include "../base/ranks.h"

// ---------------------------------------------------------------------------------------------
// distortions of one head's snapshots

// err (K) <- per-row mean over V of (X - X_hat)^2, X_hat from the dual fit (dual = 1) or per-row
// absmax (dual = 0) with the given row widths, through the active kernels' codecs (kn)
static void row_errors(double* err, const float* X, const uint8_t* rows, const float* w,
                       const stepq_plan* p, int dual, float* work, uint8_t* packed, float* Xh,
                       const stepq_backend* kn) {
    const int K = p->K, V = p->V;
    // the two quantizers of the table's families: the dual-axis fit (method 4.2) and per-row
    // absmax (time-b), each at the widths of rows
    if (dual) {
        stepq_head_plan hp = {p->kind, rows, w, (float)p->rho, p->refits};
        stepq_assert(kn->dual_roundtrip(Xh, packed, X, &hp, 0, work, K, V) == STEPQ_OK);
    } else {
        stepq_assert(kn->rows_roundtrip(Xh, packed, X, rows, K, V) == STEPQ_OK);
    }
    // each row's sum in order over j; eight rows side by side (eight independent chains
    // instead of one at a time: the same sums)
    int i = 0;
    for (; i + 8 <= K; i += 8) {
        double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int j = 0; j < V; j++)
            for (int r = 0; r < 8; r++) {
                double d = (double)X[(size_t)(i + r) * V + j] - Xh[(size_t)(i + r) * V + j];
                s[r] += d * d;
            }
        for (int r = 0; r < 8; r++) err[i + r] = s[r] / V;
    }
    for (; i < K; i++) {
        double s = 0;
        for (int j = 0; j < V; j++) {
            double d = (double)X[(size_t)i * V + j] - Xh[(size_t)i * V + j];
            s += d * d;
        }
        err[i] = s / V;
    }
}

// d (G, NW) of head h over n snapshots; pivot (K): rows kept out of the fit (NULL: none).
// GDN: mean over (K,V) of w_i^2 err^2, one value per head; KDA: plain mean over V per row.
static void head_distortions(double* d_dual, double* d_abs, const float* snaps, int n,
                             const stepq_plan* p, int h, const uint8_t* pivot) {
    const stepq_backend* kn = stepq_backend_default();
    const int K = p->K, V = p->V, G = p->G;
    const float* w = p->w + (size_t)h * K;
    float* work = mallocCheck(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
    uint8_t* packed = mallocCheck((size_t)K * V * 2 + 2 * (size_t)V + 4);
    float* Xh = mallocCheck(sizeof(float) * K * V);
    double* err = mallocCheck(sizeof(double) * K);
    uint8_t rows[STEPQ_MAX_DIM];
    if (d_dual) memset(d_dual, 0, sizeof(double) * G * STEPQ_NW);
    if (d_abs) memset(d_abs, 0, sizeof(double) * G * STEPQ_NW);
    for (int k = 0; k < STEPQ_NW; k++) {
        int b = stepq_plan_widths[k];
        for (int i = 0; i < K; i++) rows[i] = pivot && pivot[i] ? STEPQ_PIVOT_BITS : (uint8_t)b;
        for (int pass = 0; pass < 2; pass++) {
            double* d = pass ? d_abs : d_dual;
            if (!d || (pass == 1 && pivot)) continue;
            for (int s = 0; s < n; s++) {
                row_errors(err, snaps + (size_t)s * K * V, rows, w, p, pass == 0, work, packed, Xh, kn);
                for (int i = 0; i < K; i++) {
                    if (G == 1) d[k] += (double)w[i] * w[i] * err[i] / K;
                    else d[(size_t)i * STEPQ_NW + k] += err[i];
                }
            }
            for (int u = 0; u < G; u++) d[(size_t)u * STEPQ_NW + k] /= n > 0 ? n : 1;
        }
    }
    free(work); free(packed); free(Xh); free(err);
}

// ---------------------------------------------------------------------------------------------
// one head's native runs

typedef struct {
    const stepq_calib_cfg* c;
    stepq_plan* p;
    float* reservoirs;  // (H, R, K, V) kept for KDA's recomputation with pivots, else NULL
    int* n_snap;        // (H)
} calib_ctx;

// one thread's sums of the head in flight over the segments (the head loop's observer scratch)
typedef struct {
    double *omega, *gsum, *grad;  // (K) (G) (K) summed over the segments (method 4.1)
    double* m;          // (K) measured lifetime sums
    double* rl;         // (K) read-out lifetime sums
    double* w;          // (K) scratch of the propagation
    float* P;           // (K,K) products of A_t applied to unit errors
    float* kP;          // (2K) k^T P and the step's column norms
    float* snaps;       // (R,K,V) the reservoir when no KDA reservoirs are kept
    float* res;         // the reservoir of the head in flight
    gsl_rng* rng;       // its reservoir sampling
    long seen;          // snapshots offered to the reservoir so far
    int live;           // the propagated error is still above 1e-12 in this segment
    stepq_propagate_fn propagate;  // the default CPU backend's (sim/backend.h)
} calib_scratch;

static void* calib_thread_init(void* ctx, const stepq_view* v) {
    const calib_ctx* x = ctx;
    const int K = v->K, V = v->V, R = x->c->reservoir;
    calib_scratch* cs = callocCheck(1, sizeof *cs);
    cs->omega = callocCheck((size_t)K, sizeof(double));
    cs->gsum = callocCheck((size_t)v->G, sizeof(double));
    cs->grad = callocCheck((size_t)K, sizeof(double));
    cs->m = callocCheck((size_t)K, sizeof(double));
    cs->rl = callocCheck((size_t)K, sizeof(double));
    cs->w = callocCheck((size_t)K, sizeof(double));
    cs->P = mallocCheck(sizeof(float) * K * K);
    cs->kP = mallocCheck(sizeof(float) * 2 * K);
    cs->snaps = x->reservoirs ? NULL : mallocCheck(sizeof(float) * R * K * V);
    cs->rng = gsl_rng_alloc(gsl_rng_taus2);
    cs->propagate = stepq_backend_default()->propagate;
    return cs;
}

static void calib_thread_free(void* tls) {
    calib_scratch* cs = tls;
    free(cs->omega); free(cs->gsum); free(cs->grad);
    free(cs->m); free(cs->rl); free(cs->w); free(cs->P); free(cs->kP); free(cs->snaps);
    gsl_rng_free(cs->rng);
    free(cs);
}

// a segment of head h starts from a zero state (the loop's from_zero); the sums start with the
// first segment
static int calib_init_head(void* ctx, void* tls, const stepq_view* v) {
    const calib_ctx* x = ctx;
    calib_scratch* cs = tls;
    const int K = v->K, h = v->h;
    if (v->segment == 0) {
        memset(cs->omega, 0, sizeof(double) * K);
        memset(cs->gsum, 0, sizeof(double) * v->G);
        memset(cs->m, 0, sizeof(double) * K);
        memset(cs->rl, 0, sizeof(double) * K);
        const stepq_source* s0 = x->c->segments[0];
        gsl_rng_set(cs->rng, stepq_head_seed(x->c->seed, s0->layer[h], s0->head[h]));
        cs->seen = 0;
        cs->res = x->reservoirs ? x->reservoirs + (size_t)h * x->c->reservoir * K * v->V : cs->snaps;
    }
    memset(cs->P, 0, sizeof(float) * K * K);
    for (int i = 0; i < K; i++) cs->P[(size_t)i * K + i] = 1, cs->m[i] += 1;  // j = 0 term
    cs->live = 1;
    return STEPQ_OK;
}

static int calib_step(void* ctx, void* tls, const stepq_view* v) {
    const calib_ctx* x = ctx;
    const stepq_calib_cfg* c = x->c;
    calib_scratch* cs = tls;
    const int K = v->K, V = v->V, R = c->reservoir;
    const long t = v->t - 1;
    const long hz = (long)fmin(c->horizon, (double)c->steps);
    stepq_observe_sums(cs->gsum, cs->omega, cs->grad, v->in, v->scale, v->G, K, 1);
    if (cs->live && t + 1 < hz)  // cs->grad: this step's read-out weights
        cs->live = cs->propagate(cs->P, cs->m, cs->rl, cs->w, cs->kP, cs->kP + K, cs->grad, v->in, v->G, K) >= 1e-12f;
    if ((t + 1) % c->snapshot_every == 0) {  // reservoir sampling (algorithm R)
        long slot = cs->seen < R ? cs->seen : (long)gsl_rng_uniform_int(cs->rng, (unsigned long)cs->seen + 1);
        if (slot < R) memcpy(cs->res + (size_t)slot * K * V, v->S, sizeof(float) * K * V);
        cs->seen++;
    }
    return STEPQ_OK;
}

// after the last segment: the head's lifetimes, row influence and distortions into the plan
static int calib_end_head(void* ctx, void* tls, const stepq_view* v) {
    calib_ctx* x = ctx;
    const stepq_calib_cfg* c = x->c;
    calib_scratch* cs = tls;
    if (v->segment < c->n_segments - 1) return STEPQ_OK;
    stepq_plan* p = x->p;
    const int K = p->K, G = p->G, R = c->reservoir, h = v->h;
    const long nsteps = c->steps * c->n_segments;
    int n = cs->seen < R ? (int)cs->seen : R;
    x->n_snap[h] = n;
    for (int i = 0; i < K; i++) p->omega[(size_t)h * K + i] = cs->omega[i] / (double)nsteps;
    stepq_row_influence(p->w + (size_t)h * K, p->omega + (size_t)h * K, p->gamma, K);
    double mall = 0, rall = 0;
    for (int i = 0; i < K; i++) mall += cs->m[i] / c->n_segments, rall += cs->rl[i] / c->n_segments;
    for (int u = 0; u < G; u++) {
        size_t hu = (size_t)h * G + u;
        p->l[hu] = fmin(cs->gsum[u] / (double)nsteps, 0.0);
        p->L[hu] = stepq_lifetime_weight(p->l[hu], c->horizon);
        p->M[hu] = G == 1 ? mall / K : cs->m[u] / c->n_segments;
        p->R[hu] = G == 1 ? rall / K : cs->rl[u] / c->n_segments;
    }
    head_distortions(p->d_dual + (size_t)h * G * STEPQ_NW, p->d_abs + (size_t)h * G * STEPQ_NW,
                     cs->res, n, p, h, NULL);
    return STEPQ_OK;
}

// KDA: distortions again with each head's pivot rows out of the column fit
static void redistort_kda(double* d, const uint8_t* pivot, void* ctx) {
    calib_ctx* x = ctx;
    const stepq_plan* p = x->p;
    const int K = p->K, V = p->V, R = x->c->reservoir;
    // an MPI run: each rank the heads whose snapshots it holds (calibrate's units), then merged
    stepq_split sp;
    stepq_split_init(&sp);
    memset(d, 0, sizeof(double) * p->H * K * STEPQ_NW);
    stepq_split_add(&sp, d, sizeof(double) * p->H * K * STEPQ_NW);
#pragma omp parallel for schedule(dynamic, 1)
    for (int h = 0; h < p->H; h++) {
        if (!stepq_rank_owns(h)) continue;
        const uint8_t* pv = pivot + (size_t)h * K;
        int any = 0;
        for (int i = 0; i < K; i++) any |= pv[i];
        double* dh = d + (size_t)h * K * STEPQ_NW;
        if (!any) {
            memcpy(dh, p->d_dual + (size_t)h * K * STEPQ_NW, sizeof(double) * K * STEPQ_NW);
            continue;
        }
        head_distortions(dh, NULL, x->reservoirs + (size_t)h * R * K * V, x->n_snap[h], p, h, pv);
    }
    stepq_assert(stepq_split_end(&sp, STEPQ_OK, "calibrate: the pivot pass") == STEPQ_OK);
}

// ---------------------------------------------------------------------------------------------
// pivots and allocation

typedef struct {
    const double* weight;  // (U) L, M or R
    const double* d;       // (U, NW)
} scheme_in;

// the widths index of width b
static int widx(int b) {
    for (int k = 0; k < STEPQ_NW; k++)
        if (stepq_plan_widths[k] == b) return k;
    return -1;
}

// Solves one budget over the units not marked in `pivot`: fills bits (U), returns objective
static int solve(uint8_t* bits, double* objective, double* achieved, const scheme_in* in,
                 const uint8_t* pivot, int budget, int U, int kind, int V) {
    int cand[4], NC = 0;
    for (int b = budget == 4 ? 2 : 4; b <= 8; b += 2) cand[NC++] = b;
    int P = 0;
    for (int u = 0; u < U; u++) P += pivot[u] != 0;
    int n = U - P;
    double* cost = mallocCheck(sizeof(double) * (n ? n : 1) * NC);
    int* idx = mallocCheck(sizeof(int) * (n ? n : 1));
    int* choice = mallocCheck(sizeof(int) * (n ? n : 1));
    int* size = mallocCheck(sizeof(int) * (n ? n : 1));
    for (int u = 0, a = 0; u < U; u++) {
        if (pivot[u]) continue;
        idx[a] = u;
        size[a] = V;
        for (int k = 0; k < NC; k++)
            cost[(size_t)a * NC + k] = in->weight[u] * in->d[(size_t)u * STEPQ_NW + widx(cand[k])];
        a++;
    }
    long long units_budget = (long long)budget * U - 8LL * P;  // a pivot counts as an 8-bit unit
    stepq_alloc_result res = {0, 0};
    int rc = n == 0 ? STEPQ_OK
             : kind == STEPQ_GDN
                 ? stepq_alloc_dp(choice, &res, cost, cand, NC, n, units_budget)
                 : stepq_alloc_lagrange(choice, &res, cost, size, cand, NC, n, units_budget * V);
    for (int u = 0; u < U; u++) bits[u] = STEPQ_PIVOT_BITS;
    double obj = 0;
    for (int a = 0; a < n && rc == STEPQ_OK; a++) bits[idx[a]] = (uint8_t)cand[choice[a]];
    for (int u = 0; u < U; u++)
        obj += in->weight[u] * in->d[(size_t)u * STEPQ_NW + widx(bits[u])];
    *objective = obj;
    *achieved = ((double)(kind == STEPQ_GDN ? res.used : res.used / V) + 8.0 * P) / U;
    free(cost); free(idx); free(choice); free(size);
    return rc;
}

// indices of the P largest risks, ties to the earlier unit
static void top_risk(uint8_t* pivot, const double* risk, int U, int P) {
    memset(pivot, 0, (size_t)U);
    for (int k = 0; k < P; k++) {
        int best = -1;
        for (int u = 0; u < U; u++)
            if (!pivot[u] && (best < 0 || risk[u] > risk[best])) best = u;
        if (best >= 0) pivot[best] = 1;
    }
}

int stepq_allocate(stepq_plan* p, stepq_redistort_fn redistort, void* ctx) {
    const int U = p->H * p->G, P = p->pivots;
    uint8_t* none = callocCheck((size_t)U, 1);
    uint8_t* pivot = mallocCheck((size_t)U);
    double* risk = mallocCheck(sizeof(double) * U);
    double* d_piv = mallocCheck(sizeof(double) * U * STEPQ_NW);
    int rc = STEPQ_OK;
    for (int a = 0; a < STEPQ_N_ALLOC && rc == STEPQ_OK; a++) {
        scheme_in in = {a == STEPQ_ALLOC_MLIFE ? p->M : a == STEPQ_ALLOC_RLIFE ? p->R : p->L,
                        a == STEPQ_ALLOC_TIME || a == STEPQ_ALLOC_TIME_NOPIVOT ? p->d_abs : p->d_dual};
        int use_pivots = a != STEPQ_ALLOC_TIME_NOPIVOT && P > 0;
        if (use_pivots && p->kind == STEPQ_KDA) {
            // KDA: risk = L_u (d_u(8) - d_u(fp16)) before any allocation; then the distortions
            // again with the pivots out of the column fit (the dual fit only)
            for (int u = 0; u < U; u++)
                risk[u] = in.weight[u] * (in.d[(size_t)u * STEPQ_NW + widx(8)] -
                                          in.d[(size_t)u * STEPQ_NW + widx(16)]);
            top_risk(pivot, risk, U, P);
            if (in.d == p->d_dual && redistort) {
                redistort(d_piv, pivot, ctx);
                in.d = d_piv;
            }
        }
        for (int b = 0; b < STEPQ_N_BUDGETS && rc == STEPQ_OK; b++) {
            int budget = stepq_plan_budgets[b];
            uint8_t* bits = p->bits[a][b];
            const uint8_t* pv = none;
            if (use_pivots && p->kind == STEPQ_GDN) {
                // GDN: the DP on every head with the full budget; risk = L_u d_u(b_u) at the
                // width it got; the riskiest heads become pivots; the DP again on the others
                rc = solve(bits, &p->objective[a][b], &p->achieved[a][b], &in, none, budget, U,
                           p->kind, p->V);
                for (int u = 0; u < U; u++)
                    risk[u] = in.weight[u] * in.d[(size_t)u * STEPQ_NW + widx(bits[u])];
                top_risk(pivot, risk, U, P);
                pv = pivot;
            } else if (use_pivots) {
                pv = pivot;
            }
            if (rc == STEPQ_OK)
                rc = solve(bits, &p->objective[a][b], &p->achieved[a][b], &in, pv, budget, U,
                           p->kind, p->V);
        }
    }
    free(none); free(pivot); free(risk); free(d_piv);
    return rc;
}

// DAMP: the damp_fraction of key rows with the slowest mean decay (largest l) kept in FP16;
// ties (every row of a GDN head shares its gate) go to the larger omega, then the earlier row
static const stepq_plan* damp_plan;  // qsort has no context argument; set just around the sort

static double row_l(const stepq_plan* p, int r) {
    return p->l[(size_t)(r / p->K) * p->G + (p->G == 1 ? 0 : r % p->K)];
}

static int damp_order(const void* a, const void* b) {
    int ra = *(const int*)a, rb = *(const int*)b;
    double la = row_l(damp_plan, ra), lb = row_l(damp_plan, rb);
    if (la != lb) return la > lb ? -1 : 1;
    double oa = damp_plan->omega[ra], ob = damp_plan->omega[rb];
    if (oa != ob) return oa > ob ? -1 : 1;
    return ra < rb ? -1 : ra > rb;
}

static void mark_damp(stepq_plan* p) {
    const int N = p->H * p->K;
    int n = (int)lround(p->damp_fraction * N);
    int* order = mallocCheck(sizeof(int) * N);
    for (int r = 0; r < N; r++) order[r] = r;
    damp_plan = p;
    qsort(order, (size_t)N, sizeof(int), damp_order);
    damp_plan = NULL;
    memset(p->damp, 0, (size_t)N);
    for (int k = 0; k < n; k++) p->damp[order[k]] = 1;
    free(order);
}

// every segment long enough, with the first one's heads, of a shape the dual-axis fit holds
static int check_segments(const stepq_calib_cfg* c) {
    const stepq_source* s0 = c->segments[0];
    for (int i = 0; i < c->n_segments; i++)
        if (c->segments[i]->T < c->steps || c->segments[i]->n_heads != s0->n_heads) {
            stepq_error("calibration segment %d (%s) is shorter than %ld steps or has other heads",
                        i, c->segments[i]->desc, c->steps);
            return STEPQ_ERR;
        }
    // one model: the plan records it, and traces of another are refused when it is used
    for (int i = 1; i < c->n_segments; i++)
        if (strcmp(c->segments[i]->model_sha256, s0->model_sha256)) {
            stepq_error("calibration segments 0 (%s) and %d (%s) come from different models (weights SHA-256 "
                        "'%.16s' and '%.16s')", s0->desc, i, c->segments[i]->desc, s0->model_sha256,
                        c->segments[i]->model_sha256);
            return STEPQ_ERR;
        }
    // the distortions are measured with the dual-axis fit (method 4.2)
    char what[sizeof s0->desc + 64];
    snprintf(what, sizeof what, "calibration on %s (its dual-axis fit)", s0->desc);
    return stepq_family_fits(&stepq_family_dual, what, s0->K, s0->V);
}

int stepq_calibrate(stepq_plan* out, const stepq_calib_cfg* c) {
    if (check_segments(c) != STEPQ_OK) return STEPQ_ERR;
    const stepq_source* s0 = c->segments[0];
    stepq_plan p;
    stepq_plan_alloc(&p, s0->kind, s0->K, s0->V, s0->n_heads);
    memcpy(p.layer, s0->layer, sizeof(int) * p.H);
    memcpy(p.head, s0->head, sizeof(int) * p.H);
    p.gamma = c->gamma;
    p.rho = c->rho;
    p.horizon = c->horizon;
    p.refits = c->refits;
    p.pivots = c->pivots;
    p.damp_fraction = c->damp_fraction;
    if (c->key) snprintf(p.calibration_key, sizeof p.calibration_key, "%s", c->key);
    snprintf(p.model_sha256, sizeof p.model_sha256, "%s", s0->model_sha256);
    calib_ctx x = {c, &p, NULL, callocCheck((size_t)p.H, sizeof(int))};
    if (p.kind == STEPQ_KDA) {
        double bytes = (double)sizeof(float) * p.H * c->reservoir * p.K * p.V;
        if (stepq_check_memory(bytes, "calibrate: keeping the KDA snapshots for the pivot pass (heads x "
                                      "reservoir x K x V floats)")) {
            free(x.n_snap);
            stepq_plan_free(&p);
            return STEPQ_ERR;
        }
        if (bytes > 8.0 * 1073741824.0)
            fprintf(stderr, "calibrate: keeping %.1f GiB of KDA snapshots for the pivot pass\n", bytes / 1073741824.0);
        x.reservoirs = mallocCheck((size_t)bytes);
    }
    stepq_progress pr;
    stepq_progress_start(&pr, "calibrate", "heads", p.H);
    // every head's native runs through the segments, each from a zero state (method 4.1)
    const stepq_observer obs = {.name = "calibrate", .ctx = &x, .thread_init = calib_thread_init,
                                .thread_free = calib_thread_free, .init_head = calib_init_head,
                                .on_step = calib_step, .end_head = calib_end_head};
    // an MPI run (base/ranks.h): the units are the heads, each through every segment (its
    // reservoir samples across them); a rank keeps the KDA snapshots of its own heads only
    const stepq_headloop_cfg hc = {.prefill = c->steps, .decode = 0, .obs = &obs, .n_obs = 1, .progress = &pr,
                                   .from_zero = 1, .split = 1};
    stepq_split sp;
    stepq_split_init(&sp);
    const size_t HG = (size_t)p.H * p.G, HK = (size_t)p.H * p.K;
    stepq_split_add(&sp, p.omega, sizeof(double) * HK);
    stepq_split_add(&sp, p.w, sizeof(float) * HK);
    double* per_unit[4] = {p.l, p.L, p.M, p.R};
    for (int i = 0; i < 4; i++) stepq_split_add(&sp, per_unit[i], sizeof(double) * HG);
    stepq_split_add(&sp, p.d_dual, sizeof(double) * HG * STEPQ_NW);
    stepq_split_add(&sp, p.d_abs, sizeof(double) * HG * STEPQ_NW);
    stepq_split_add(&sp, x.n_snap, sizeof(int) * p.H);
    int failed = stepq_split_end(
        &sp, stepq_headloop_run_segments((const stepq_source* const*)c->segments, c->n_segments, &hc), "calibrate");
    stepq_progress_end(&pr);
    if (failed) {
        free(x.reservoirs);
        free(x.n_snap);
        stepq_plan_free(&p);
        return STEPQ_ERR;
    }
    if (!getenv("STEPQ_QUIET"))
        fprintf(stderr, "calibrate: pivots and allocations of %d units (%s)\n", p.H * p.G,
                p.kind == STEPQ_GDN ? "exact DP" : "Lagrangian + repair, pivots refitted");
    int rc = stepq_allocate(&p, redistort_kda, &x);
    if (rc == STEPQ_OK) {
        mark_damp(&p);
        if (c->output) rc = stepq_plan_write(c->output, &p, c->prov.config_text, c->prov.source);
    }
    free(x.reservoirs);
    free(x.n_snap);
    if (rc == STEPQ_OK && out) *out = p;
    else stepq_plan_free(&p);
    return rc;
}

// calibrate.c: see calibrate.h.
#include "calibrate.h"

#include <gsl/gsl_rng.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/outfile.h"
#include "../quant/alloc.h"
#include "../quant/format.h"
#include "../sim/headloop.h"
#include "../sim/backend.h"
#include "../sim/runstate.h"
#include "../sim/trace.h"
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
        stepq_head_plan hp = {.kind = p->kind, .bits = rows, .w = w, .rho = (float)p->rho, .refits = p->refits};
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
                             const stepq_plan* p, int h, const uint8_t* pivot, const stepq_backend* kn) {
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
    stepq_propagate_fn propagate;  // the calibration's backend's (sim/backend.h)
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
    cs->propagate = x->c->backend->propagate;
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
                     cs->res, n, p, h, NULL, c->backend);
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
        head_distortions(dh, NULL, x->reservoirs + (size_t)h * R * K * V, x->n_snap[h], p, h, pv, x->c->backend);
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

// the bits a fixed unit takes of the budget: a pivot counts as an 8-bit unit (method 4.3)
static int fixed_cost(uint8_t b) { return b == STEPQ_PIVOT_BITS ? 8 : b; }

// Solves one budget over the units whose `fixed` width is 0; the others keep theirs (an FP16
// pivot, STEPQ_PIVOT_BITS, or a held unit's width): fills bits (U), returns objective
static int solve(uint8_t* bits, double* objective, double* achieved, const scheme_in* in,
                 const uint8_t* fixed, int budget, int U, int kind, int V) {
    int cand[4], NC = 0;
    for (int b = budget == 4 ? 2 : 4; b <= 8; b += 2) cand[NC++] = b;
    int P = 0;
    long long fixed_bits = 0;
    for (int u = 0; u < U; u++) P += fixed[u] != 0, fixed_bits += fixed_cost(fixed[u]);
    int n = U - P;
    double* cost = mallocCheck(sizeof(double) * (n ? n : 1) * NC);
    int* idx = mallocCheck(sizeof(int) * (n ? n : 1));
    int* choice = mallocCheck(sizeof(int) * (n ? n : 1));
    int* size = mallocCheck(sizeof(int) * (n ? n : 1));
    for (int u = 0, a = 0; u < U; u++) {
        if (fixed[u]) continue;
        idx[a] = u;
        size[a] = V;
        for (int k = 0; k < NC; k++)
            cost[(size_t)a * NC + k] = in->weight[u] * in->d[(size_t)u * STEPQ_NW + widx(cand[k])];
        a++;
    }
    long long units_budget = (long long)budget * U - fixed_bits;
    stepq_alloc_result res = {0, 0};
    int rc = n == 0 ? STEPQ_OK
             : kind == STEPQ_GDN
                 ? stepq_alloc_dp(choice, &res, cost, cand, NC, n, units_budget)
                 : stepq_alloc_lagrange(choice, &res, cost, size, cand, NC, n, units_budget * V);
    for (int u = 0; u < U; u++) bits[u] = fixed[u] ? fixed[u] : STEPQ_PIVOT_BITS;
    double obj = 0;
    for (int a = 0; a < n && rc == STEPQ_OK; a++) bits[idx[a]] = (uint8_t)cand[choice[a]];
    for (int u = 0; u < U; u++)
        obj += in->weight[u] * in->d[(size_t)u * STEPQ_NW + widx(bits[u])];
    *objective = obj;
    *achieved = ((double)(kind == STEPQ_GDN ? res.used : res.used / V) + (double)fixed_bits) / U;
    free(cost); free(idx); free(choice); free(size);
    return rc;
}

// the P largest risks marked STEPQ_PIVOT_BITS (the others 0), ties to the earlier unit
static void top_risk(uint8_t* pivot, const double* risk, int U, int P) {
    memset(pivot, 0, (size_t)U);
    for (int k = 0; k < P; k++) {
        int best = -1;
        for (int u = 0; u < U; u++)
            if (!pivot[u] && (best < 0 || risk[u] > risk[best])) best = u;
        if (best >= 0) pivot[best] = STEPQ_PIVOT_BITS;
    }
}

// the weight and distortions scheme a allocates with (method 4.3)
static scheme_in scheme_of(const stepq_plan* p, int a) {
    return (scheme_in){a == STEPQ_ALLOC_MLIFE ? p->M : a == STEPQ_ALLOC_RLIFE ? p->R : p->L,
                       a == STEPQ_ALLOC_TIME || a == STEPQ_ALLOC_TIME_NOPIVOT ? p->d_abs : p->d_dual};
}

int stepq_allocate(stepq_plan* p, stepq_redistort_fn redistort, void* ctx) {
    const int U = p->H * p->G, P = p->pivots;
    uint8_t* none = callocCheck((size_t)U, 1);
    uint8_t* pivot = mallocCheck((size_t)U);
    double* risk = mallocCheck(sizeof(double) * U);
    double* d_piv = mallocCheck(sizeof(double) * U * STEPQ_NW);
    int rc = STEPQ_OK;
    for (int a = 0; a < STEPQ_N_ALLOC && rc == STEPQ_OK; a++) {
        scheme_in in = scheme_of(p, a);
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

int stepq_plan_hold(stepq_plan* p, const stepq_hold* h, uint8_t* held) {
    const int U = p->H * p->G, G = p->G, bi = stepq_budget_index(h->budget);
    stepq_assert(bi >= 0 && h->scheme >= 0 && h->scheme < STEPQ_N_ALLOC);
    uint8_t* bits = p->bits[h->scheme][bi];
    const scheme_in in = scheme_of(p, h->scheme);
    int pivots = 0;
    for (int u = 0; u < U; u++) pivots += bits[u] == STEPQ_PIVOT_BITS;
    if (p->kind == STEPQ_KDA && in.d == p->d_dual && pivots) {
        stepq_error("%s: a hold on the KDA table %s@%d, whose allocation read distortions measured with its %d pivot "
                    "rows out of the fit, which the plan does not keep (hold a table of per-row absmax: time or "
                    "time_nopivot)", p->file[0] ? p->file : "calibrate", stepq_alloc_names[h->scheme], h->budget, pivots);
        return STEPQ_ERR;
    }
    uint8_t* fixed = mallocCheck((size_t)U);
    for (int hd = 0; hd < p->H; hd++) {
        int n_long = 0;  // units whose half-life ln 2 / -l reaches h->half_life (l = 0: infinite)
        for (int u = 0; u < G; u++) {
            const double l = p->l[(size_t)hd * G + u];
            n_long += l == 0 || log(2.0) / -l >= h->half_life;
        }
        const int is_long = 2 * n_long >= G;
        if (held) held[hd] = (uint8_t)is_long;
        for (int u = 0; u < G; u++) {
            const size_t hu = (size_t)hd * G + u;
            fixed[hu] = bits[hu] == STEPQ_PIVOT_BITS ? STEPQ_PIVOT_BITS : is_long ? (uint8_t)h->budget : 0;
        }
    }
    int rc = solve(bits, &p->objective[h->scheme][bi], &p->achieved[h->scheme][bi], &in, fixed, h->budget, U,
                   p->kind, p->V);
    free(fixed);
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

int stepq_hold_long_heads(stepq_plan* p, const stepq_hold* h, int quiet) {
    uint8_t* held = callocCheck((size_t)p->H, 1);
    int rc = stepq_plan_hold(p, h, held);
    if (rc == STEPQ_OK && !getenv("STEPQ_QUIET") && !quiet) {
        const int bi = stepq_budget_index(h->budget);
        fprintf(stderr, "calibrate: %s@%d with the long heads (half-life >= %g steps) held at %d bits:",
                stepq_alloc_names[h->scheme], h->budget, h->half_life, h->budget);
        for (int hd = 0; hd < p->H; hd++)
            if (held[hd]) fprintf(stderr, " %d.%d", p->layer[hd], p->head[hd]);
        fprintf(stderr, "; %.4f bits achieved\n", p->achieved[h->scheme][bi]);
    }
    free(held);
    return rc;
}

// STEPQ_ERR with the message when segment s is not of segment 0's model (i: its index)
static int same_model(const stepq_source* s, const stepq_source* s0, int i) {
    char how[256] = "";
    if (s->kind != s0->kind)
        snprintf(how, sizeof how, "is %s, segment 0 %s", stepq_kind_name(s->kind), stepq_kind_name(s0->kind));
    else if (s->K != s0->K || s->V != s0->V || s->n_heads != s0->n_heads)
        snprintf(how, sizeof how, "has %d heads of %d x %d, segment 0 %d of %d x %d", s->n_heads, s->K, s->V,
                 s0->n_heads, s0->K, s0->V);
    else if (s->scale != s0->scale)
        snprintf(how, sizeof how, "reads out with scale %.9g, segment 0 with %.9g", s->scale, s0->scale);
    else if (strcmp(s->model_sha256, s0->model_sha256))
        snprintf(how, sizeof how, "comes from the model of weights SHA-256 '%.16s', segment 0 from '%.16s'",
                 s->model_sha256, s0->model_sha256);
    for (int h = 0; !how[0] && h < s->n_heads; h++)
        if (s->layer[h] != s0->layer[h] || s->head[h] != s0->head[h])
            snprintf(how, sizeof how, "labels head %d (layer %d, head %d), segment 0 (layer %d, head %d)", h,
                     s->layer[h], s->head[h], s0->layer[h], s0->head[h]);
    if (!how[0]) return STEPQ_OK;
    stepq_error("calibration segment %d (%s) %s (%s): a calibration's segments come from one model and its "
                "heads", i, s->desc, how, s0->desc);
    return STEPQ_ERR;
}

// before any work: the segments of one model, each long enough, of a shape the dual-axis fit holds
static int check_segments(const stepq_calib_cfg* c) {
    const stepq_source* s0 = c->segments[0];
    for (int i = 0; i < c->n_segments; i++) {
        if (same_model(c->segments[i], s0, i) != STEPQ_OK) return STEPQ_ERR;
        if (c->segments[i]->T < c->steps) {
            stepq_error("calibration segment %d (%s) is shorter than the %ld steps asked for", i,
                        c->segments[i]->desc, c->steps);
            return STEPQ_ERR;
        }
    }
    // the distortions are measured with the dual-axis fit (method 4.2)
    char what[sizeof s0->desc + 64];
    snprintf(what, sizeof what, "calibration on %s (its dual-axis fit)", s0->desc);
    return stepq_family_fits(&stepq_family_dual, what, s0->K, s0->V);
}

// a plan for segment 0's heads with the calibration's knobs, its measurements still to be made
static void new_plan(stepq_plan* p, const stepq_calib_cfg* c) {
    const stepq_source* s0 = c->segments[0];
    stepq_plan_alloc(p, s0->kind, s0->K, s0->V, s0->n_heads);
    memcpy(p->layer, s0->layer, sizeof(int) * p->H);
    memcpy(p->head, s0->head, sizeof(int) * p->H);
    p->gamma = c->gamma;
    p->rho = c->rho;
    p->horizon = c->horizon;
    p->refits = c->refits;
    p->pivots = c->pivots;
    p->damp_fraction = c->damp_fraction;
    if (c->key) snprintf(p->calibration_key, sizeof p->calibration_key, "%s", c->key);
    snprintf(p->model_sha256, sizeof p->model_sha256, "%s", s0->model_sha256);
}

// KDA: room for every head's reservoir of snapshots, kept for the pivot pass (redistort_kda);
// STEPQ_ERR when the machine lacks the memory
static int reserve_snapshots(calib_ctx* x, const stepq_plan* p, const stepq_calib_cfg* c) {
    if (p->kind != STEPQ_KDA) return STEPQ_OK;
    double bytes = (double)sizeof(float) * p->H * c->reservoir * p->K * p->V;
    if (stepq_check_memory(bytes, "calibrate: keeping the KDA snapshots for the pivot pass (heads x "
                                  "reservoir x K x V floats)"))
        return STEPQ_ERR;
    if (bytes > 8.0 * 1073741824.0 && !c->quiet)
        fprintf(stderr, "calibrate: keeping %.1f GiB of KDA snapshots for the pivot pass\n", bytes / 1073741824.0);
    x->reservoirs = mallocCheck((size_t)bytes);
    return STEPQ_OK;
}

// every head's native runs through the segments, each from a zero state (method 4.1), into the
// plan's measurements; STEPQ_ERR when a run failed (on any rank)
static int measure_heads(calib_ctx* x, stepq_plan* p, const stepq_calib_cfg* c) {
    stepq_progress pr;
    stepq_progress_start(&pr, "calibrate", "heads", p->H);
    pr.quiet |= c->quiet;
    const stepq_observer obs = {.name = "calibrate", .ctx = x, .thread_init = calib_thread_init,
                                .thread_free = calib_thread_free, .init_head = calib_init_head,
                                .on_step = calib_step, .end_head = calib_end_head};
    // an MPI run (base/ranks.h): the units are the heads, each through every segment (its
    // reservoir samples across them); a rank keeps the KDA snapshots of its own heads only
    const stepq_headloop_cfg hc = {.backend = c->backend, .prefill = c->steps, .decode = 0, .obs = &obs, .n_obs = 1,
                                   .progress = &pr, .from_zero = 1, .split = 1};
    stepq_split sp;
    stepq_split_init(&sp);
    const size_t HG = (size_t)p->H * p->G, HK = (size_t)p->H * p->K;
    stepq_split_add(&sp, p->omega, sizeof(double) * HK);
    stepq_split_add(&sp, p->w, sizeof(float) * HK);
    double* per_unit[4] = {p->l, p->L, p->M, p->R};
    for (int i = 0; i < 4; i++) stepq_split_add(&sp, per_unit[i], sizeof(double) * HG);
    stepq_split_add(&sp, p->d_dual, sizeof(double) * HG * STEPQ_NW);
    stepq_split_add(&sp, p->d_abs, sizeof(double) * HG * STEPQ_NW);
    stepq_split_add(&sp, x->n_snap, sizeof(int) * p->H);
    int failed = stepq_split_end(
        &sp, stepq_headloop_run_segments((const stepq_source* const*)c->segments, c->n_segments, &hc), "calibrate");
    stepq_progress_end(&pr);
    return failed ? STEPQ_ERR : STEPQ_OK;
}

int stepq_calibrate(stepq_plan* out, const stepq_calib_cfg* c) {
    stepq_assert(c->backend);  // the front end's choice, passed down (sim/backend.h)
    if (check_segments(c) != STEPQ_OK) return STEPQ_ERR;
    stepq_plan p;
    new_plan(&p, c);
    calib_ctx x = {.c = c, .p = &p, .reservoirs = NULL, .n_snap = callocCheck((size_t)p.H, sizeof(int))};
    int rc = reserve_snapshots(&x, &p, c);
    if (rc == STEPQ_OK) rc = measure_heads(&x, &p, c);
    if (rc == STEPQ_OK) {
        if (!getenv("STEPQ_QUIET") && !c->quiet)
            fprintf(stderr, "calibrate: pivots and allocations of %d units (%s)\n", p.H * p.G,
                    p.kind == STEPQ_GDN ? "exact DP" : "Lagrangian + repair, pivots refitted");
        rc = stepq_allocate(&p, redistort_kda, &x);  // method 4.3
    }
    if (rc == STEPQ_OK && c->hold.budget) rc = stepq_hold_long_heads(&p, &c->hold, c->quiet);
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

// ---------------------------------------------------------------------------------------------
// a calibration as the front ends describe it

#define KNOB(k, isint, d, l, h, what)                                                                  \
    {.key = #k, .integer = isint, .offset = offsetof(stepq_calib_settings, k), .def = d, .lo = l, .hi = h, \
     .help = what}
const stepq_calib_knob stepq_calib_knobs[STEPQ_CALIB_NKNOBS + 1] = {
    KNOB(steps, 1, 2048, 1, 1LL << 40, "steps of each segment, each from a zero state (method 4.1)"),
    KNOB(horizon, 0, 2048, STEPQ_KNOB_HORIZON_MIN, STEPQ_KNOB_HORIZON_MAX,
         "the horizon H of the lifetimes L_u, M_u and R_u (method 4.1)"),
    KNOB(gamma, 0, 0.25, 0, STEPQ_KNOB_GAMMA_MAX, "the row influence w_i = exp(gamma/2 (log omega_i - mean)) (method 4.1)"),
    KNOB(rho, 0, 0.5, 0, STEPQ_KNOB_RHO_MAX, "the row-factor exponent of the dual-axis fit (method 4.2)"),
    KNOB(refits, 1, 1, 0, STEPQ_KNOB_REFITS_MAX, "weighted least-squares refits of the column factors (method 4.2)"),
    KNOB(snapshot_every, 1, 8, 1, 1LL << 30, "steps between the state snapshots offered to the reservoir (method 4.1)"),
    KNOB(reservoir, 1, 64, 1, 1 << 20, "state snapshots kept per head by reservoir sampling (method 4.1)"),
    KNOB(pivots, 1, -1, -1, STEPQ_KNOB_PIVOTS_MAX, "FP16 pivot units (method 4.3); -1: pivot_fraction of the units"),
    KNOB(pivot_fraction, 0, -1, -1, 1, "the share of units made pivots; -1: the paper's (GDN 32/2304, KDA 512/81920)"),
    KNOB(damp_fraction, 0, STEPQ_DAMP_FP16_SHARE, 0, 1, "the share of key rows DAMP keeps in FP16 (method 6.2)"),
    KNOB(seed, 1, 1, 0, 1LL << 62, "the seed of the reservoir sampling (one stream per (layer, head))"),
    {.key = NULL}};
#undef KNOB

void stepq_calib_defaults(stepq_calib_settings* s) {
    memset(s, 0, sizeof *s);
    for (const stepq_calib_knob* k = stepq_calib_knobs; k->key; k++) {
        char* at = (char*)s + k->offset;
        if (k->integer) *(long long*)at = (long long)k->def;
        else *(double*)at = k->def;
    }
}

const char* stepq_calib_name(const stepq_calib_names* names, const stepq_calib_knob* k) {
    const char* name = names->name[k - stepq_calib_knobs];
    return name ? name : k->key;
}

// what a message on knob k begins with: where the user set it, else the caller
static const char* calib_who(const stepq_calib_names* names, const stepq_calib_knob* k) {
    const char* at = names->at[k - stepq_calib_knobs];
    return at ? at : names->who;
}

const stepq_calib_knob* stepq_calib_knob_of(const char* key) {
    const stepq_calib_knob* k = stepq_calib_knobs;
    while (strcmp(k->key, key)) k++;
    return k;
}

int stepq_calib_settings_check(const stepq_calib_settings* s, const stepq_calib_names* names) {
    for (const stepq_calib_knob* k = stepq_calib_knobs; k->key; k++) {
        const char* at = (const char*)s + k->offset;
        const double v = k->integer ? (double)*(const long long*)at : *(const double*)at;
        if (at == (const char*)&s->steps && v == 0) continue;  // the shortest trace's, once they are open
        if (!(v >= k->lo && v <= k->hi)) {  // NaN too
            stepq_error("%s: %s %.17g is outside [%.17g, %.17g] (%s)", calib_who(names, k), stepq_calib_name(names, k),
                        v, k->lo, k->hi, k->help);
            return STEPQ_ERR;
        }
    }
    return STEPQ_OK;
}

int stepq_calib_check_snapshots(const stepq_calib_settings* s, const stepq_calib_names* names) {
    // a snapshot is offered every snapshot_every steps of a segment (calib_step): none at all, and
    // every distortion of the plan would be zero, its allocations chosen on nothing (method 4.1)
    if (s->snapshot_every <= s->steps) return STEPQ_OK;
    const stepq_calib_knob *every = stepq_calib_knob_of("snapshot_every"), *steps = stepq_calib_knob_of("steps");
    const char* steps_at = names->at[steps - stepq_calib_knobs];
    stepq_error("%s: %s %lld is more than the %lld steps of each segment (%s%s%s): the calibration would take no "
                "state snapshot and measure no distortion; give %s at most %lld (method 4.1)",
                calib_who(names, every), stepq_calib_name(names, every), s->snapshot_every, s->steps,
                stepq_calib_name(names, steps), steps_at ? ", " : "", steps_at ? steps_at : "",
                stepq_calib_name(names, every), s->steps);
    return STEPQ_ERR;
}

void stepq_calib_build_free(stepq_calib_build* b) {
    for (int i = 0; b->c.segments && i < b->c.n_segments; i++) stepq_source_free(b->c.segments[i]);
    free(b->c.segments);
    b->c.segments = NULL;
    free(b->command);
    b->command = NULL;
}

// appends printf-style to the key's text; STEPQ_ERR once it no longer fits
static int text_add(char* text, size_t n, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
static int text_add(char* text, size_t n, const char* fmt, ...) {
    const size_t o = strlen(text);
    va_list ap;
    va_start(ap, fmt);
    const int w = vsnprintf(text + o, n - o, fmt, ap);
    va_end(ap);
    if (w >= 0 && (size_t)w < n - o) return STEPQ_OK;
    stepq_error("calibrate: the description of the calibration's segments exceeds %zu bytes (fewer or shorter "
                "paths)", n);
    return STEPQ_ERR;
}

int stepq_calib_trace_segments(stepq_calib_build* b, const char* const* paths, int n, int normalize, char* text,
                               size_t text_n) {
    b->c.segments = callocCheck((size_t)n, sizeof *b->c.segments);
    b->c.n_segments = n;
    for (int i = 0; i < n; i++) {
        uint64_t h;
        // the key names each trace by its resolved path: the same file by a relative or an
        // absolute path, or through a link, gives the same key
        char real[PATH_MAX];
        const char* name = realpath(paths[i], real) ? real : paths[i];
        if (stepq_trace_open(&b->c.segments[i], paths[i], normalize) != STEPQ_OK ||
            stepq_input_xxh3(&h, paths[i]) != STEPQ_OK ||
            text_add(text, text_n, "segment: trace %s xxh3 %016" PRIx64 "%s\n", name, h,
                     normalize ? ", q and k normalised on reading" : "") != STEPQ_OK)
            return STEPQ_ERR;
    }
    return STEPQ_OK;
}

void stepq_calib_finish(stepq_calib_build* b, const stepq_calib_settings* s, char* text, size_t text_n,
                        const char* output, stepq_provenance prov, const stepq_backend* be) {
    stepq_assert(be);  // the front end's choice, passed down (sim/backend.h)
    const stepq_source* s0 = b->c.segments[0];
    const int units = s0->n_heads * stepq_kind_units(s0->kind, s0->K);
    const double pfrac = s->pivot_fraction < 0 ? stepq_pivot_share(s0->kind) : s->pivot_fraction;
    const long long pivots = s->pivots < 0 ? (long long)lround(pfrac * units) : s->pivots;
    snprintf(b->desc, sizeof b->desc, "%s; %d segments of %lld steps", s0->desc, b->c.n_segments, s->steps);
    b->c.steps = s->steps;
    b->c.horizon = s->horizon;
    b->c.gamma = s->gamma;
    b->c.rho = s->rho;
    b->c.refits = (int)s->refits;
    b->c.snapshot_every = (int)s->snapshot_every;
    b->c.reservoir = (int)s->reservoir;
    b->c.pivots = (int)pivots;
    b->c.damp_fraction = s->damp_fraction;
    b->c.seed = (uint64_t)s->seed;
    b->c.output = output;
    b->c.backend = be;
    prov.source = b->desc;
    b->c.prov = prov;
    const size_t o = strlen(text);
    snprintf(text + o, text_n - o,
             "\nsteps=%lld horizon=%.17g gamma=%.17g rho=%.17g refits=%lld snapshot_every=%lld "
             "reservoir=%lld pivots=%lld damp_fraction=%.17g seed=%lld\n",
             s->steps, s->horizon, s->gamma, s->rho, s->refits, s->snapshot_every, s->reservoir, pivots,
             s->damp_fraction, s->seed);
    snprintf(b->key, sizeof b->key, "%016" PRIx64, stepq_xxh3(0, text, strlen(text)));
    b->c.key = b->key;
}

// b->command <- the command line of this calibration with every setting spelled out
static void trace_command(stepq_calib_build* b, const char* const* paths, int n, int normalize,
                          const stepq_calib_settings* s, const char* output) {
    size_t len = 512 + strlen(output ? output : "");
    for (int i = 0; i < n; i++) len += strlen(paths[i]) + 1;
    for (const stepq_calib_knob* k = stepq_calib_knobs; k->key; k++) len += strlen(k->key) + 40;
    char* c = mallocCheck(len);
    size_t o = (size_t)snprintf(c, len, "stepq calibrate --trace");
    for (int i = 0; i < n; i++) o += (size_t)snprintf(c + o, len - o, " %s", paths[i]);
    o += (size_t)snprintf(c + o, len - o, " --out %s", output ? output : "-");
    for (const stepq_calib_knob* k = stepq_calib_knobs; k->key; k++) {
        const char* at = (const char*)s + k->offset;
        o += (size_t)snprintf(c + o, len - o, " --");
        for (const char* p = k->key; *p; p++) c[o++] = *p == '_' ? '-' : *p;
        if (k->integer) o += (size_t)snprintf(c + o, len - o, " %lld", *(const long long*)at);
        else o += (size_t)snprintf(c + o, len - o, " %.17g", *(const double*)at);
    }
    if (normalize) snprintf(c + o, len - o, " --normalize");
    b->command = c;
}

int stepq_calib_from_traces(stepq_calib_build* b, const char* const* paths, int n, int normalize,
                            const stepq_calib_settings* s, const char* output, const stepq_calib_names* names,
                            const stepq_backend* be) {
    memset(b, 0, sizeof *b);
    if (n < 1) {
        stepq_error("%s: no trace to calibrate on (give one or more trace files)", names->who);
        return STEPQ_ERR;
    }
    stepq_calib_settings set = *s;
    stepq_calib_names named = *names;  // steps 0: named by what it stands for
    if (s->steps == 0)
        named.name[stepq_calib_knob_of("steps") - stepq_calib_knobs] = "every step of the shortest trace";
    char* text = mallocCheck(STEPQ_CALIB_TEXT_MAX);
    snprintf(text, STEPQ_CALIB_TEXT_MAX, "stepq %s\n", stepq_git_revision());
    int rc = stepq_calib_trace_segments(b, paths, n, normalize, text, STEPQ_CALIB_TEXT_MAX);
    if (!rc && set.steps == 0) {  // every step of the shortest trace
        set.steps = b->c.segments[0]->T;
        for (int i = 1; i < n; i++)
            if (b->c.segments[i]->T < set.steps) set.steps = b->c.segments[i]->T;
    }
    rc = rc || stepq_calib_settings_check(&set, &named) || stepq_calib_check_snapshots(&set, &named);
    if (!rc) {
        trace_command(b, paths, n, normalize, &set, output);
        stepq_calib_finish(b, &set, text, STEPQ_CALIB_TEXT_MAX, output,
                           (stepq_provenance){.experiment = "calibrate", .config_text = b->command,
                                              .seed = (uint64_t)set.seed},
                           be);
        rc = check_segments(&b->c);  // before any work: what stepq_calibrate would refuse later
    }
    free(text);
    if (rc) stepq_calib_build_free(b);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

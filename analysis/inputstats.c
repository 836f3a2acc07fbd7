#include "inputstats.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../base/ranks.h"
#include "../base/stats.h"
#include "../sim/headloop.h"
#include "../sim/runstate.h"
#include "../base/progress.h"

// max over median of the RMS of rows (by_row) or columns of S (K,V); work: (max(K,V))
static double ridge_ratio(const float* S, int K, int V, int by_row, double* work) {
    int n = by_row ? K : V, m = by_row ? V : K;
    for (int a = 0; a < n; a++) {
        double s = 0;
        for (int b = 0; b < m; b++) {
            double x = by_row ? S[(size_t)a * V + b] : S[(size_t)b * V + a];
            s += x * x;
        }
        work[a] = sqrt(s / m);
    }
    gsl_sort(work, 1, (size_t)n);
    double med = gsl_stats_median_from_sorted_data(work, 1, (size_t)n);
    return stepq_ratio(work[n - 1], med);
}

// participation ratio of the key second moment C = sum_t k_t k_t^T (K, K): the number of
// directions the keys fill, (sum lambda)^2 / sum lambda^2 = tr(C)^2 / ||C||_F^2 (method 5):
// 1 when every key is one direction, K when they fill the space evenly
static double participation(const double* C, int K) {
    double tr = 0, fro = 0;
    for (int i = 0; i < K; i++) tr += C[(size_t)i * K + i];
    for (size_t i = 0; i < (size_t)K * K; i++) fro += C[i] * C[i];
    return fro > 0 ? tr * tr / fro : NAN;
}

typedef struct {
    int H, NS, G;
    double *row, *col;     // (H, NS)
    double *omega_ratio;   // (H)
    double *unit_hl;       // (H, G)
    double *key_pr;        // (H)
} seed_stats;

// one thread's sums of the head in flight (the head loop's observer scratch)
typedef struct {
    double *omega, *grad, *gsum;  // (K) (K) (G)
    double* tmp;   // (max(K, V))
    double* C;     // (K, K) the keys' second moment after the warm-up
    int ns;        // states sampled so far
} is_sums;

typedef struct {
    seed_stats* st;
    const stepq_inputstats_cfg* c;
} is_run;

static void* is_thread_init(void* ctx, const stepq_view* v) {
    is_sums* x = mallocCheck(sizeof *x);
    x->omega = mallocCheck(sizeof(double) * v->K);
    x->grad = mallocCheck(sizeof(double) * v->K);
    x->gsum = mallocCheck(sizeof(double) * v->G);
    x->tmp = mallocCheck(sizeof(double) * (v->K > v->V ? v->K : v->V));
    x->C = mallocCheck(sizeof(double) * v->K * v->K);
    return x;
}

static void is_thread_free(void* tls) {
    is_sums* x = tls;
    free(x->omega); free(x->grad); free(x->gsum); free(x->tmp); free(x->C);
    free(x);
}

static int is_init_head(void* ctx, void* tls, const stepq_view* v) {
    is_sums* x = tls;
    memset(x->omega, 0, sizeof(double) * v->K);
    memset(x->gsum, 0, sizeof(double) * v->G);
    memset(x->C, 0, sizeof(double) * v->K * v->K);
    x->ns = 0;
    return STEPQ_OK;
}

static int is_step(void* ctx, void* tls, const stepq_view* v) {
    const is_run* r = ctx;
    const stepq_inputstats_cfg* c = r->c;
    seed_stats* st = r->st;
    is_sums* x = tls;
    const int K = v->K, V = v->V, h = v->h;
    const long t = v->t - 1;
    const stepq_step_in* in = v->in;
    if (t >= c->warmup)  // upper triangle; the lower one is its mirror
        for (int i = 0; i < K; i++)
            for (int j = i; j < K; j++) x->C[(size_t)i * K + j] += (double)in->k[i] * in->k[j];
    // gate sums every step; omega_i = E[(A_t^T scale q_t)_i^2] (method 3, P4) after warm-up
    stepq_observe_sums(x->gsum, x->omega, x->grad, in, v->scale, v->G, K, t >= c->warmup);
    if (t + 1 >= c->warmup && (t + 1 - c->warmup) % c->sample_every == 0 && x->ns < st->NS) {
        st->row[(size_t)h * st->NS + x->ns] = ridge_ratio(v->S, K, V, 1, x->tmp);
        st->col[(size_t)h * st->NS + x->ns] = ridge_ratio(v->S, K, V, 0, x->tmp);
        x->ns++;
    }
    return STEPQ_OK;
}

static int is_end_head(void* ctx, void* tls, const stepq_view* v) {
    const is_run* r = ctx;
    seed_stats* st = r->st;
    is_sums* x = tls;
    const int K = v->K, G = v->G, h = v->h;
    double* omega = x->omega;  // sorted in place: the sums are reset for the next head
    gsl_sort(omega, 1, (size_t)K);
    double p10 = gsl_stats_quantile_from_sorted_data(omega, 1, (size_t)K, 0.10);
    double p90 = gsl_stats_quantile_from_sorted_data(omega, 1, (size_t)K, 0.90);
    st->omega_ratio[h] = p10 > 0 ? p90 / p10 : INFINITY;
    double* C = x->C;
    for (int i = 0; i < K; i++)
        for (int j = 0; j < i; j++) C[(size_t)i * K + j] = C[(size_t)j * K + i];
    st->key_pr[h] = participation(C, K);
    for (int i = 0; i < G; i++) st->unit_hl[(size_t)h * G + i] = M_LN2 / -(x->gsum[i] / r->c->steps);
    return STEPQ_OK;
}

const char* const stepq_inputstats_summary_names[IS_N_SUMMARY] = {
    "ridge_row_median", "ridge_col_median", "share_both_above_3x", "omega_p90_p10_median",
    "half_life_min", "half_life_max", "half_life_orders", "key_participation_median"};
#define sum_names stepq_inputstats_summary_names
#define N_SUM IS_N_SUMMARY
static const char* const sum_desc[IS_N_SUMMARY] = {
    "median over sampled states of max/median row RMS (key rows)",
    "median over sampled states of max/median column RMS (value columns)",
    "share of sampled states with both ratios above 3",
    "median over heads of p90/p10 of omega_i within the head",
    "smallest half-life over units (GDN heads, KDA key rows), steps",
    "largest half-life over units, steps", "log10(half_life_max / half_life_min)",
    "median over heads of the participation ratio of the keys' second moment, tr(C)^2/||C||_F^2"};

static double median(double* x, size_t n) {
    gsl_sort(x, 1, n);
    return gsl_stats_median_from_sorted_data(x, 1, n);
}

static void summarise(double* out, const seed_stats* st) {
    size_t n = (size_t)st->H * st->NS, both = 0, nu = (size_t)st->H * st->G;
    double* tmp = mallocCheck(sizeof(double) * (n > nu ? n : nu));
    for (size_t i = 0; i < n; i++) both += st->row[i] > 3 && st->col[i] > 3;
    memcpy(tmp, st->row, n * sizeof(double));
    out[IS_RIDGE_ROW] = median(tmp, n);
    memcpy(tmp, st->col, n * sizeof(double));
    out[IS_RIDGE_COL] = median(tmp, n);
    out[IS_SHARE3] = (double)both / (double)n;
    memcpy(tmp, st->omega_ratio, (size_t)st->H * sizeof(double));
    out[IS_OMEGA] = median(tmp, (size_t)st->H);
    out[IS_HL_MIN] = gsl_stats_min(st->unit_hl, 1, nu);
    out[IS_HL_MAX] = gsl_stats_max(st->unit_hl, 1, nu);
    out[IS_HL_ORDERS] = log10(out[IS_HL_MAX] / out[IS_HL_MIN]);
    memcpy(tmp, st->key_pr, (size_t)st->H * sizeof(double));
    out[IS_KEY_PR] = median(tmp, (size_t)st->H);
    free(tmp);
}

// every head of one seed's source: a native run on the head loop
static int run_seed(seed_stats* st, const stepq_source* src, const stepq_inputstats_cfg* c, long unit0,
                    stepq_progress* pr) {
    is_run r = {st, c};
    const stepq_observer obs = {.name = "inputstats", .ctx = &r, .thread_init = is_thread_init,
                                .thread_free = is_thread_free, .init_head = is_init_head,
                                .on_step = is_step, .end_head = is_end_head};
    const stepq_headloop_cfg hc = {.backend = c->backend, .prefill = c->steps, .decode = 0, .obs = &obs, .n_obs = 1,
                                   .progress = pr, .split = 1, .unit0 = unit0};
    return stepq_headloop_run(src, &hc);
}

// the summaries (N_SUM, S) with their mean, CI and the paper's value, on stdout and in f
static int write_summaries(hid_t f, const stepq_inputstats_cfg* c, const double* sum) {
    const stepq_source* s0 = c->srcs[0];
    const int S = c->n_seeds, kda = s0->kind == STEPQ_KDA;
    // the paper's values (method 5) beside ours
    const double paper[N_SUM] = {kda ? 12.7 : 10.3, kda ? 5.4 : 19.4, kda ? 0.849 : 0.986,
                                 kda ? NAN : 15.95, NAN, NAN, NAN, NAN};
    printf("inputstats: %s; %d seeds, %ld steps, states sampled every %ld after %ld\n",
           s0->desc, S, c->steps, c->sample_every, c->warmup);
    printf("%-22s %12s %12s %10s\n", "statistic", "mean", "95% CI +-", kda ? "paper KDA" : "paper Qwen");
    hsize_t dS[1] = {(hsize_t)S};
    int rc = STEPQ_OK;
    for (int k = 0; k < N_SUM; k++) {
        double m, ci;
        stepq_mean_ci95(&m, &ci, sum + (size_t)k * S, S);
        printf("%-22s %12.4g %12.2g %10.4g\n", sum_names[k], m, ci, paper[k]);
        if (rc) continue;
        rc = h5u_write(f, sum_names[k], H5T_NATIVE_DOUBLE, sum + (size_t)k * S, 1, dS, "1", sum_desc[k]);
        if (!rc) {
            hid_t d = H5Dopen2(f, sum_names[k], H5P_DEFAULT);
            rc = h5u_attr_f64(d, "mean", m) || h5u_attr_f64(d, "ci95_half_width", ci) ||
                 h5u_attr_f64(d, "paper", paper[k]);
            H5Dclose(d);
        }
    }
    return rc ? STEPQ_ERR : STEPQ_OK;
}

// every seed: per-head statistics into the (S, ...) arrays, summaries into sum (N_SUM, S)
static int measure(double* row, double* col, double* om, double* hl, double* pr, double* sum,
                   const stepq_inputstats_cfg* c, int NS) {
    const stepq_source* s0 = c->srcs[0];
    const int S = c->n_seeds, H = s0->n_heads, G = s0->n_gates;
    stepq_progress p;
    stepq_progress_start(&p, "inputstats", "heads", (long)S * H);
    // an MPI run (base/ranks.h): seed s, head h is unit s H + h; the heads' figures are merged
    // before the seeds are summarised
    stepq_split sp;
    stepq_split_init(&sp);
    stepq_split_add(&sp, row, sizeof(double) * S * H * NS);
    stepq_split_add(&sp, col, sizeof(double) * S * H * NS);
    stepq_split_add(&sp, om, sizeof(double) * S * H);
    stepq_split_add(&sp, hl, sizeof(double) * S * H * G);
    stepq_split_add(&sp, pr, sizeof(double) * S * H);
    seed_stats* st = mallocCheck(sizeof(seed_stats) * S);
    int rc = STEPQ_OK;
    for (int si = 0; si < S && rc == STEPQ_OK; si++) {
        st[si] = (seed_stats){.H = H, .NS = NS, .G = G, .row = row + (size_t)si * H * NS, .col = col + (size_t)si * H * NS,
                              .omega_ratio = om + (size_t)si * H, .unit_hl = hl + (size_t)si * H * G, .key_pr = pr + (size_t)si * H};
        rc = run_seed(&st[si], c->srcs[si], c, (long)si * H, &p);
    }
    rc = stepq_split_end(&sp, rc, "inputstats");
    stepq_progress_end(&p);
    for (int si = 0; si < S && rc == STEPQ_OK; si++) {
        double out[N_SUM];
        summarise(out, &st[si]);
        for (int k = 0; k < N_SUM; k++) sum[(size_t)k * S + si] = out[k];
    }
    free(st);
    return rc;
}

int stepq_inputstats(double* summary, const stepq_inputstats_cfg* c) {
    const stepq_source* s0 = c->srcs[0];
    const int S = c->n_seeds, H = s0->n_heads, G = s0->n_gates;
    if (c->warmup < 0 || c->sample_every < 1 || c->steps <= c->warmup) {
        stepq_error("inputstats needs 0 <= warmup < steps and sample_every >= 1");
        return STEPQ_ERR;
    }
    const int NS = (int)((c->steps - c->warmup) / c->sample_every);
    if (NS < 1) {
        stepq_error("inputstats: no state sampled (steps - warmup < sample_every)");
        return STEPQ_ERR;
    }
    double* row = callocCheck((size_t)S * H * NS, sizeof(double));
    double* col = callocCheck((size_t)S * H * NS, sizeof(double));
    double* om = callocCheck((size_t)S * H, sizeof(double));
    double* hl = callocCheck((size_t)S * H * G, sizeof(double));
    double* pr = callocCheck((size_t)S * H, sizeof(double));
    double* sum = callocCheck((size_t)N_SUM * S, sizeof(double));  // (N_SUM, S)
    if (measure(row, col, om, hl, pr, sum, c, NS) != STEPQ_OK) {
        free(row); free(col); free(om); free(hl); free(pr); free(sum);
        return STEPQ_ERR;
    }
    if (summary) memcpy(summary, sum, sizeof(double) * N_SUM * S);
    if (!c->output) {
        free(row); free(col); free(om); free(hl); free(pr); free(sum);
        return STEPQ_OK;
    }
    hid_t f = h5u_create(c->output);
    hsize_t dS[1] = {(hsize_t)S}, dR[3] = {(hsize_t)S, (hsize_t)H, (hsize_t)NS};
    hsize_t dO[2] = {(hsize_t)S, (hsize_t)H}, dU[3] = {(hsize_t)S, (hsize_t)H, (hsize_t)G};
    hid_t D = H5T_NATIVE_DOUBLE;
    int rc = f < 0 || stepq_write_provenance(f, &c->prov) || write_summaries(f, c, sum) ||
         h5u_write(f, "seeds", H5T_NATIVE_UINT64, c->seeds, 1, dS, NULL, "seed of each run") ||
         h5u_attr_i64(f, "steps", c->steps) || h5u_attr_i64(f, "warmup", c->warmup) ||
         h5u_attr_i64(f, "sample_every", c->sample_every) ||
         h5u_write(f, "ridge_row", D, row, 3, dR, "1", "max/median row RMS per sampled state [S,H,NS]") ||
         h5u_write(f, "ridge_col", D, col, 3, dR, "1", "max/median column RMS per sampled state [S,H,NS]") ||
         h5u_write(f, "omega_p90_p10", D, om, 2, dO, "1", "p90/p10 of omega within each head [S,H]") ||
         h5u_write(f, "unit_half_life", D, hl, 3, dU, "steps",
                   "ln2 / -mean log gate per unit (GDN: head, KDA: key row) [S,H,G]") ||
         h5u_write(f, "key_participation", D, pr, 2, dO, "directions",
                   "participation ratio of the keys' second moment after the warm-up [S,H]");
    free(row); free(col); free(om); free(hl); free(pr); free(sum);
    if (rc) {
        if (f >= 0) h5u_abandon(f, c->output);
        return STEPQ_ERR;
    }
    return h5u_commit(f, c->output);
}

// octile.c: the row-influence sweep; see octile.h.
#include "octile.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../base/outfile.h"
#include "../base/ranks.h"
#include "../base/stats.h"
#include "../quant/rowcodec.h"
#include "../sim/headloop.h"
#include "../sim/recurrence.h"
#include "../sim/runstate.h"
#include "../sim/sums.h"
#include "../base/progress.h"

enum { O_OMEGA = STEPQ_OCT_OMEGA, O_MAG = STEPQ_OCT_MAGNITUDE, O_RANDOM = STEPQ_OCT_RANDOM,
       N_ORDERS = STEPQ_OCT_ORDERS, N_OCT = STEPQ_OCT_GROUPS };
const char* const stepq_octile_order_names[STEPQ_OCT_ORDERS] = {"omega", "magnitude", "random"};
static const char* const* const order_names = stepq_octile_order_names;
#define N_RUNS (N_ORDERS * N_OCT)

typedef struct {
    const stepq_octile_cfg* c;
    int S, H;
    double *acc, *ref;  // (S, N_ORDERS, N_OCT, H), (S, H)
    double *omega, *mag;  // (S, H, K) the rows' ranking statistics
    int8_t* group;      // (S, N_ORDERS, H, K) octile of each row in each order
} oct_run;

// one thread's sums of the head in flight (the head loop's observer scratch)
typedef struct {
    double *omega, *gsum, *grad;  // (K) (G) (K) the ranking run's sums
    double* mag;       // (K) sum of row RMS over the calibration run's second half
    size_t* order;     // (K)
    int* group;        // (N_ORDERS, K) octile of each row in each order
    double acc[N_RUNS], ref;  // the decode run's accumulated read-out errors and ||y||^2
} oct_sums;

void stepq_octile_groups(int* group, const double* key, size_t* order, int K) {
    gsl_sort_index(order, key, 1, (size_t)K);
    for (int r = 0; r < K; r++) group[order[r]] = N_OCT * r / K;
}

void stepq_octile_random(int* group, int K, unsigned long seed) {
    gsl_rng* rng = gsl_rng_alloc(gsl_rng_taus2);
    gsl_rng_set(rng, seed);
    for (int i = 0; i < K; i++) group[i] = i * N_OCT / K;
    gsl_ran_shuffle(rng, group, (size_t)K, sizeof(int));
    gsl_rng_free(rng);
}

typedef struct {
    oct_run* r;
    int s;  // the seed being run
} oct_ctx;

static void* oct_thread_init(void* ctx, const stepq_view* v) {
    oct_sums* x = callocCheck(1, sizeof *x);
    x->omega = mallocCheck(sizeof(double) * v->K);
    x->gsum = mallocCheck(sizeof(double) * v->G);
    x->grad = mallocCheck(sizeof(double) * v->K);
    x->mag = mallocCheck(sizeof(double) * v->K);
    x->order = mallocCheck(sizeof(size_t) * v->K);
    x->group = mallocCheck(sizeof(int) * N_ORDERS * v->K);
    return x;
}

static void oct_thread_free(void* tls) {
    oct_sums* x = tls;
    free(x->omega); free(x->gsum); free(x->grad); free(x->mag); free(x->order); free(x->group);
    free(x);
}

// the ranking run: a native run of the calibration stream from a zero state
static int rank_init(void* ctx, void* tls, const stepq_view* v) {
    oct_sums* x = tls;
    memset(x->omega, 0, sizeof(double) * v->K);
    memset(x->gsum, 0, sizeof(double) * v->G);
    memset(x->mag, 0, sizeof(double) * v->K);
    return STEPQ_OK;
}

static int rank_step(void* ctx, void* tls, const stepq_view* v) {
    const oct_ctx* o = ctx;
    oct_sums* x = tls;
    const int K = v->K, V = v->V;
    const long t = v->t - 1;
    stepq_observe_sums(x->gsum, x->omega, x->grad, v->in, v->scale, v->G, K, 1);
    if (2 * t >= o->r->c->calib_steps)
        for (int i = 0; i < K; i++) x->mag[i] += sqrt(stepq_sq_norm_row(v->S + (size_t)i * V, V) / V);
    return STEPQ_OK;
}

// the head's rows ranked by omega, by magnitude and at random, into octiles
static int rank_end(void* ctx, void* tls, const stepq_view* v) {
    const oct_ctx* o = ctx;
    oct_run* r = o->r;
    const stepq_octile_cfg* c = r->c;
    oct_sums* x = tls;
    const int K = v->K, s = o->s, h = v->h;
    const stepq_source* src = c->calib[s];
    stepq_octile_groups(x->group + O_OMEGA * K, x->omega, x->order, K);
    stepq_octile_groups(x->group + O_MAG * K, x->mag, x->order, K);
    stepq_octile_random(x->group + O_RANDOM * K, K,
                        stepq_head_seed(c->seeds[s] ^ 0x6f6374696c65ull, src->layer[h], src->head[h]));
    for (int i = 0; i < K; i++) {
        r->omega[((size_t)s * r->H + h) * K + i] = x->omega[i];
        r->mag[((size_t)s * r->H + h) * K + i] = x->mag[i];
        for (int k = 0; k < N_ORDERS; k++)
            r->group[(((size_t)s * N_ORDERS + k) * r->H + h) * K + i] = (int8_t)x->group[k * K + i];
    }
    return STEPQ_OK;
}

// the decode run: every order's octiles as slots of the row-subset protocol
static int oct_init(void* ctx, void* tls, const stepq_view* v) {
    oct_sums* x = tls;
    for (int k = 0; k < N_RUNS; k++) x->acc[k] = 0;
    x->ref = 0;
    return STEPQ_OK;
}

static int oct_step(void* ctx, void* tls, const stepq_view* v) {
    oct_sums* x = tls;
    if (!v->decoding) return STEPQ_OK;
    x->ref += stepq_sq_norm_row(v->y, v->V);
    for (int k = 0; k < N_RUNS; k++) {
        const float* y = v->f[k].y_hat;
        for (int j = 0; j < v->V; j++) x->acc[k] += ((double)y[j] - v->y[j]) * ((double)y[j] - v->y[j]);
    }
    return STEPQ_OK;
}

static int oct_end(void* ctx, void* tls, const stepq_view* v) {
    const oct_ctx* o = ctx;
    oct_run* r = o->r;
    const oct_sums* x = tls;
    for (int k = 0; k < N_RUNS; k++) r->acc[((size_t)o->s * N_RUNS + k) * r->H + v->h] = x->acc[k];
    r->ref[(size_t)o->s * r->H + v->h] = x->ref;
    return STEPQ_OK;
}

// seed s: the ranking run on its calibration stream, then the decode run
static int run_seed(oct_run* r, int s, const stepq_format* fmt, stepq_progress* pr) {
    const stepq_octile_cfg* c = r->c;
    const int K = c->srcs[s]->K;
    oct_ctx o = {r, s};
    const stepq_observer rank = {.name = "octile", .ctx = &o, .thread_init = oct_thread_init,
                                 .thread_free = oct_thread_free, .init_head = rank_init,
                                 .on_step = rank_step, .end_head = rank_end};
    // an MPI run (base/ranks.h): seed s, head h is unit s H + h of both runs, whose owner ranks
    // the head's rows and then runs its decode
    const long unit0 = (long)s * r->H;
    const stepq_headloop_cfg rc = {.backend = c->backend, .prefill = c->calib_steps, .obs = &rank, .n_obs = 1,
                                   .from_zero = 1, .split = 1, .unit0 = unit0};
    if (stepq_headloop_run(c->calib[s], &rc) != STEPQ_OK) return STEPQ_ERR;
    stepq_slot slots[N_RUNS];
    for (int k = 0; k < N_RUNS; k++)
        slots[k] = (stepq_slot){.fmt = fmt, .proto = STEPQ_PROTO_ROWS,
                                .rows = r->group + ((size_t)s * N_ORDERS + k / N_OCT) * r->H * K,
                                .rows_stride = (size_t)K, .rows_value = k % N_OCT};  // from the exact state
    const stepq_observer obs = {.name = "octile", .ctx = &o, .thread_init = oct_thread_init,
                                .thread_free = oct_thread_free, .init_head = oct_init,
                                .on_step = oct_step, .end_head = oct_end};
    const stepq_headloop_cfg dc = {.backend = c->backend, .slots = slots, .n_slots = N_RUNS, .prefill = c->prefill,
                                   .decode = c->decode,
                                   .obs = &obs, .n_obs = 1, .progress = pr, .split = 1, .unit0 = unit0};
    return stepq_headloop_run(c->srcs[s], &dc);
}

// rel (S, N_ORDERS, N_OCT) pooled relative read-out error; sp, tb (S, N_ORDERS) the Spearman of
// octile index against it and the top octile's over the bottom's
static void summarise(double* rel, double* sp, double* tb, const oct_run* r) {
    for (int s = 0; s < r->S; s++) {
        double den = 0;
        for (int h = 0; h < r->H; h++) den += r->ref[(size_t)s * r->H + h];
        for (int o = 0; o < N_ORDERS; o++) {
            double idx[N_OCT], e[N_OCT];
            for (int k = 0; k < N_OCT; k++) {
                double num = 0;
                for (int h = 0; h < r->H; h++) num += r->acc[((size_t)s * N_RUNS + o * N_OCT + k) * r->H + h];
                e[k] = rel[((size_t)s * N_ORDERS + o) * N_OCT + k] = stepq_rel(num, den);
                idx[k] = k;
            }
            sp[(size_t)s * N_ORDERS + o] = stepq_spearman(idx, e, N_OCT);
            tb[(size_t)s * N_ORDERS + o] = e[0] > 0 ? e[N_OCT - 1] / e[0] : NAN;
        }
    }
}

static int write_out(const stepq_octile_cfg* c, const oct_run* r, const double* rel, const double* sp,
                     const double* tb, const double* m, const double* ci) {
    if (c->table) {
        FILE* fp = stepq_text_create(c->table);
        if (!fp) {
            return STEPQ_ERR;
        }
        fprintf(fp, "# octile: octile (0: lowest), then per order (omega, magnitude, random) the pooled "
                    "relative read-out error, mean and 95%% CI over seeds\n");
        for (int k = 0; k < N_OCT; k++) {
            fprintf(fp, "%d", k);
            for (int o = 0; o < N_ORDERS; o++) fprintf(fp, "\t%.6e\t%.6e", m[o * N_OCT + k], ci[o * N_OCT + k]);
            fputc('\n', fp);
        }
        if (stepq_text_commit(fp, c->table)) return STEPQ_ERR;
    }
    hid_t f = h5u_create(c->output);
    if (f < 0) return STEPQ_ERR;
    const int S = r->S, H = r->H;
    hsize_t dS[1] = {(hsize_t)S}, dA[4] = {(hsize_t)S, N_ORDERS, N_OCT, (hsize_t)H};
    hsize_t dSH[2] = {(hsize_t)S, (hsize_t)H}, dR[3] = {(hsize_t)S, N_ORDERS, N_OCT}, dM[2] = {N_ORDERS, N_OCT};
    hsize_t dSO[2] = {(hsize_t)S, N_ORDERS};
    const hsize_t K = (hsize_t)c->srcs[0]->K;
    hsize_t dSHK[3] = {(hsize_t)S, (hsize_t)H, K}, dG[4] = {(hsize_t)S, N_ORDERS, (hsize_t)H, K};
    hid_t D = H5T_NATIVE_DOUBLE;
    int rc = stepq_write_provenance(f, &c->prov) || h5u_attr_i64(f, "width", c->width) ||
             h5u_attr_i64(f, "calib_steps", c->calib_steps) || h5u_attr_i64(f, "prefill", c->prefill) ||
             h5u_attr_i64(f, "decode", c->decode) ||
             h5u_write_strings(f, "orders", order_names, N_ORDERS, "how rows are sorted into octiles") ||
             h5u_write(f, "seeds", H5T_NATIVE_UINT64, c->seeds, 1, dS, NULL, "seed of each run") ||
             h5u_write(f, "acc", D, r->acc, 4, dA, "(value units)^2",
                       "sum over decode of ||y_hat - y||^2 with one octile at INT-b [S,order,octile,H]") ||
             h5u_write(f, "ref", D, r->ref, 2, dSH, "(value units)^2", "sum over decode of ||y||^2 [S,H]") ||
             h5u_write(f, "rel_pooled", D, rel, 3, dR, "1", "sqrt(sum_h acc / sum_h ref) [S,order,octile]") ||
             h5u_write(f, "rel_pooled_mean", D, m, 2, dM, "1", "mean over seeds [order,octile]") ||
             h5u_write(f, "rel_pooled_ci95", D, ci, 2, dM, "1", "95% CI half-width over seeds, NaN with one seed [order,octile]") ||
             h5u_write(f, "spearman", D, sp, 2, dSO, "1", "Spearman(octile index, rel_pooled) [S,order]") ||
             h5u_write(f, "top_over_bottom", D, tb, 2, dSO, "1", "rel_pooled of octile 7 over octile 0 [S,order]") ||
             h5u_write(f, "row_omega", D, r->omega, 3, dSHK, "1",
                       "omega of each key row: sum over the calibration steps of (A_t^T scale q_t)_i^2 [S,H,K]") ||
             h5u_write(f, "row_magnitude", D, r->mag, 3, dSHK, "state units",
                       "row RMS summed over the calibration run's second half [S,H,K]") ||
             h5u_write(f, "octile_of_row", H5T_NATIVE_INT8, r->group, 4, dG, "1",
                       "octile (0: lowest) of each key row in each order [S,order,H,K]");
    if (rc) {
        h5u_abandon(f, c->output);
        return STEPQ_ERR;
    }
    return h5u_commit(f, c->output);
}

// m, ci <- the mean and 95% CI over the first S (at most 256) seeds of column j of x (a row of
// `stride` values a seed)
static void seed_mean_ci(double* m, double* ci, const double* x, int S, int stride, int j) {
    double col[256];
    const int n = S < 256 ? S : 256;
    for (int s = 0; s < n; s++) col[s] = x[(size_t)s * stride + j];
    stepq_mean_ci95(m, ci, col, n);
}

// the seeds' summaries (summarise) written to c->output and printed: each run's error relative to
// the native read-out, and each order's Spearman and top/bottom ratio, means and 95% CIs over seeds
static int report(const stepq_octile_cfg* c, const oct_run* r) {
    const int S = r->S;
    double* rel = mallocCheck(sizeof(double) * S * N_RUNS);
    double *sp = mallocCheck(sizeof(double) * S * N_ORDERS), *tb = mallocCheck(sizeof(double) * S * N_ORDERS);
    double m[N_RUNS], ci[N_RUNS];
    summarise(rel, sp, tb, r);
    for (int k = 0; k < N_RUNS; k++) seed_mean_ci(&m[k], &ci[k], rel, S, N_RUNS, k);
    int rc = write_out(c, r, rel, sp, tb, m, ci);
    printf("octile: %d heads, one octile of key rows at INT%d, %d seeds (%s)\n", r->H, c->width, S, c->srcs[0]->desc);
    for (int o = 0; o < N_ORDERS; o++) {
        double sm, sci, tm, tci;
        seed_mean_ci(&sm, &sci, sp, S, N_ORDERS, o);
        seed_mean_ci(&tm, &tci, tb, S, N_ORDERS, o);
        printf("  %-10s octile errors", order_names[o]);
        for (int k = 0; k < N_OCT; k++) printf(" %.3g", m[o * N_OCT + k]);
        printf("  Spearman %.2f +- %.2f, top/bottom %.2f +- %.2f\n", sm, sci, tm, tci);
    }
    printf("(the paper: the higher an octile's omega, the more its INT4 raises perplexity)\n");
    free(rel); free(sp); free(tb);
    return rc;
}

int stepq_octile(const stepq_octile_cfg* c) {
    const stepq_source* s0 = c->srcs[0];
    oct_run r = {.c = c, .S = c->n_seeds, .H = s0->n_heads, .acc = NULL, .ref = NULL, .omega = NULL, .mag = NULL, .group = NULL};
    if (s0->K % N_OCT || c->prefill + c->decode > s0->T || c->calib_steps > c->calib[0]->T) {
        stepq_error("octile needs K a multiple of 8 and streams long enough (%s)", s0->desc);
        return STEPQ_ERR;
    }
    if (stepq_family_fits(&stepq_family_rows, "octile (its INT rows)", s0->K, s0->V) != STEPQ_OK) return STEPQ_ERR;
    r.acc = callocCheck((size_t)r.S * N_RUNS * r.H, sizeof(double));
    r.ref = callocCheck((size_t)r.S * r.H, sizeof(double));
    r.omega = callocCheck((size_t)r.S * r.H * s0->K, sizeof(double));
    r.mag = callocCheck((size_t)r.S * r.H * s0->K, sizeof(double));
    r.group = callocCheck((size_t)r.S * N_ORDERS * r.H * s0->K, 1);
    stepq_progress pr;
    stepq_progress_start(&pr, "octile", "heads", (long)r.S * r.H);
    char name[16];
    snprintf(name, sizeof name, "int%d", c->width);
    const stepq_format* fmt = stepq_format_find(name);  // the rows' codec: per-row absmax at the width
    int rc = fmt && fmt->family == &stepq_family_rows ? STEPQ_OK : STEPQ_ERR;
    if (rc) stepq_error("octile: width %d has no per-row absmax format (int4, int6, int8)", c->width);
    stepq_split sp;  // an MPI run: what the units wrote, merged
    stepq_split_init(&sp);
    const size_t SHK = (size_t)r.S * r.H * s0->K;
    stepq_split_add(&sp, r.acc, sizeof(double) * r.S * N_RUNS * r.H);
    stepq_split_add(&sp, r.ref, sizeof(double) * r.S * r.H);
    stepq_split_add(&sp, r.omega, sizeof(double) * SHK);
    stepq_split_add(&sp, r.mag, sizeof(double) * SHK);
    stepq_split_add(&sp, r.group, N_ORDERS * SHK);
    for (int s = 0; s < r.S && rc == STEPQ_OK; s++) rc = run_seed(&r, s, fmt, &pr);
    rc = stepq_split_end(&sp, rc, "octile");
    stepq_progress_end(&pr);
    if (!rc) rc = report(c, &r);
    free(r.acc);
    free(r.ref);
    free(r.omega);
    free(r.mag);
    free(r.group);
    return rc;
}

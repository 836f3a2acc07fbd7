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
#include "../base/stats.h"
#include "../quant/rowcodec.h"
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
    int failed;
} oct_run;

typedef struct {
    stepq_runstate rs;
    float* X;          // (N_RUNS, K, V) the states of every order and octile
    double* mag;       // (K) sum of row RMS over the calibration run's second half
    size_t* order;     // (K)
    int* group;        // (N_ORDERS, K) octile of each row in each order
    float* y;          // (V)
} oct_scratch;

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

// the ranking statistics of head h on the calibration stream: omega and row magnitude
static int rank_rows(oct_scratch* x, const stepq_octile_cfg* c, int s, int h) {
    const stepq_source* src = c->calib[s];
    const int K = src->K, V = src->V;
    stepq_runstate_reset(&x->rs, NULL);
    memset(x->mag, 0, sizeof(double) * K);
    stepq_cursor* cur = src->open(src, h);
    stepq_step_in in;
    for (long t = 0; t < c->calib_steps; t++) {
        if (stepq_next_step(cur, &in) != STEPQ_OK) {
            src->close(cur);
            return STEPQ_ERR;
        }
        stepq_runstate_observe(&x->rs, &in, src->scale, 1);
        stepq_runstate_step(&x->rs, &in, src->scale);
        if (2 * t >= c->calib_steps)
            for (int i = 0; i < K; i++) x->mag[i] += sqrt(stepq_sq_norm_row(x->rs.S + (size_t)i * V, V) / V);
    }
    src->close(cur);
    stepq_octile_groups(x->group + O_OMEGA * K, x->rs.omega, x->order, K);
    stepq_octile_groups(x->group + O_MAG * K, x->mag, x->order, K);
    stepq_octile_random(x->group + O_RANDOM * K, K,
                        stepq_head_seed(c->seeds[s] ^ 0x6f6374696c65ull, src->layer[h], src->head[h]));
    return STEPQ_OK;
}

static int one_head(oct_run* r, int s, int h, oct_scratch* x) {
    const stepq_octile_cfg* c = r->c;
    const stepq_source* src = c->srcs[s];
    const int K = src->K, V = src->V, G = src->n_gates;
    const size_t KV = (size_t)K * V;
    if (rank_rows(x, c, s, h) != STEPQ_OK) return STEPQ_ERR;
    for (int i = 0; i < K; i++) {
        r->omega[((size_t)s * r->H + h) * K + i] = x->rs.omega[i];
        r->mag[((size_t)s * r->H + h) * K + i] = x->mag[i];
        for (int o = 0; o < N_ORDERS; o++)
            r->group[(((size_t)s * N_ORDERS + o) * r->H + h) * K + i] = (int8_t)x->group[o * K + i];
    }
    stepq_runstate* rs = &x->rs;
    stepq_runstate_reset(rs, src->S0 ? src->S0 + (size_t)h * KV : NULL);
    stepq_cursor* cur = src->open(src, h);
    stepq_step_in in;
    int rc = STEPQ_OK;
    for (long t = 0; t < c->prefill && rc == STEPQ_OK; t++) {
        rc = stepq_next_step(cur, &in);
        if (rc == STEPQ_OK) stepq_runstate_step(rs, &in, src->scale);
    }
    for (int k = 0; k < N_RUNS; k++) memcpy(x->X + k * KV, rs->S, sizeof(float) * KV);
    double acc[N_RUNS] = {0}, ref = 0;
    uint8_t packed[2 + STEPQ_MAX_DIM];
    float xq[STEPQ_MAX_DIM];
    for (long td = 0; td < c->decode && rc == STEPQ_OK; td++) {
        if ((rc = stepq_next_step(cur, &in)) != STEPQ_OK) break;
        stepq_runstate_step(rs, &in, src->scale);
        ref += stepq_sq_norm_row(rs->y, V);
        for (int k = 0; k < N_RUNS && rc == STEPQ_OK; k++) {
            float* X = x->X + k * KV;
            const int* group = x->group + (k / N_OCT) * K;
            // the protocol: the update on the stored state, the read-out, then the octile's rows
            // re-encoded (the others are stored exactly)
            stepq_step_f32(X, x->y, rs->work, in.q, in.k, in.v, in.g, in.beta, src->scale, G, K, V);
            for (int j = 0; j < V; j++) acc[k] += ((double)x->y[j] - rs->y[j]) * ((double)x->y[j] - rs->y[j]);
            for (int i = 0; i < K && rc == STEPQ_OK; i++) {
                if (group[i] != k % N_OCT) continue;
                rc = rc_rows_encode_row(packed, xq, X + (size_t)i * V, c->width, V);
                memcpy(X + (size_t)i * V, xq, sizeof(float) * V);
            }
            if (rc != STEPQ_OK)
                stepq_error("octile: a state turned non-finite at head %d (layer %d, head %d), decode step %ld "
                            "(%s)", h, src->layer[h], src->head[h], td, src->desc);
        }
    }
    src->close(cur);
    for (int k = 0; k < N_RUNS; k++) r->acc[((size_t)s * N_RUNS + k) * r->H + h] = acc[k];
    r->ref[(size_t)s * r->H + h] = ref;
    return rc;
}

static void run_seed(oct_run* r, int s, stepq_progress* pr) {
    const stepq_source* src = r->c->srcs[s];
    const int K = src->K, V = src->V;
#pragma omp parallel
    {
        oct_scratch x;
        stepq_runstate_init(&x.rs, K, V, src->n_gates);
        x.X = mallocCheck(sizeof(float) * N_RUNS * K * V);
        x.mag = mallocCheck(sizeof(double) * K);
        x.order = mallocCheck(sizeof(size_t) * K);
        x.group = mallocCheck(sizeof(int) * N_ORDERS * K);
        x.y = mallocCheck(sizeof(float) * V);
#pragma omp for schedule(dynamic, 1)
        for (int h = 0; h < r->H; h++) {
            if (one_head(r, s, h, &x) != STEPQ_OK) {
#pragma omp atomic write
                r->failed = 1;
            }
            stepq_progress_tick(pr);
        }
        stepq_runstate_free(&x.rs);
        free(x.X); free(x.mag); free(x.order); free(x.group); free(x.y);
    }
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

int stepq_octile(const stepq_octile_cfg* c) {
    const stepq_source* s0 = c->srcs[0];
    oct_run r = {c, c->n_seeds, s0->n_heads, NULL, NULL, NULL, NULL, NULL, 0};
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
    for (int s = 0; s < r.S && !r.failed; s++) run_seed(&r, s, &pr);
    stepq_progress_end(&pr);
    int rc = r.failed ? STEPQ_ERR : STEPQ_OK;
    if (!rc) {
        const int S = r.S;
        double* rel = mallocCheck(sizeof(double) * S * N_RUNS);
        double *sp = mallocCheck(sizeof(double) * S * N_ORDERS), *tb = mallocCheck(sizeof(double) * S * N_ORDERS);
        double m[N_RUNS], ci[N_RUNS], col[256];
        summarise(rel, sp, tb, &r);
        for (int k = 0; k < N_RUNS; k++) {
            for (int s = 0; s < S && s < 256; s++) col[s] = rel[(size_t)s * N_RUNS + k];
            stepq_mean_ci95(&m[k], &ci[k], col, S < 256 ? S : 256);
        }
        rc = write_out(c, &r, rel, sp, tb, m, ci);
        printf("octile: %d heads, one octile of key rows at INT%d, %d seeds (%s)\n", r.H, c->width, S, s0->desc);
        for (int o = 0; o < N_ORDERS; o++) {
            double sm, sci, tm, tci;
            for (int s = 0; s < S && s < 256; s++) col[s] = sp[(size_t)s * N_ORDERS + o];
            stepq_mean_ci95(&sm, &sci, col, S < 256 ? S : 256);
            for (int s = 0; s < S && s < 256; s++) col[s] = tb[(size_t)s * N_ORDERS + o];
            stepq_mean_ci95(&tm, &tci, col, S < 256 ? S : 256);
            printf("  %-10s octile errors", order_names[o]);
            for (int k = 0; k < N_OCT; k++) printf(" %.3g", m[o * N_OCT + k]);
            printf("  Spearman %.2f +- %.2f, top/bottom %.2f +- %.2f\n", sm, sci, tm, tci);
        }
        printf("(the paper: the higher an octile's omega, the more its INT4 raises perplexity)\n");
        free(rel); free(sp); free(tb);
    }
    free(r.acc);
    free(r.ref);
    free(r.omega);
    free(r.mag);
    free(r.group);
    return rc;
}

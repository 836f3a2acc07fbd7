// selfcorrect.c: the self-correction ablation; see selfcorrect.h.
#include "selfcorrect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../base/outfile.h"
#include "../base/stats.h"
#include "../sim/protocol.h"
#include "../sim/recurrence.h"
#include "../sim/runout.h"
#include "../sim/runstate.h"
#include "../base/progress.h"

enum { LIN_N, LIN_C, NL_N, NL_C, N_SERIES };  // linear normal, cut; nonlinear normal, cut
static const char* const series_group[2] = {"linear", "nonlinear"};

typedef struct {
    stepq_runstate rs;       // the reference
    double* E;               // (F, 2, K, V) linear errors: normal, cut
    stepq_qstate *qn, *qc;   // (F) protocol states: normal, cut
    float *decay, *u_ref, *y;  // (K) (V) (V)
    double* acc;             // (F, N_SERIES) running sums
} sc_scratch;

// E (K,V) <- A_t E (normal) or D_t E (cut); returns ||E^T (scale q)||^2 of the result
static double linear_step(double* E, const stepq_step_in* in, const float* decay, double scale,
                          int cut, int K, int V, double* c /*(V)*/) {
    for (int j = 0; j < V; j++) c[j] = 0;
    for (int i = 0; i < K; i++) {
        double d = decay[i], ki = in->k[i];
        for (int j = 0; j < V; j++) {
            E[(size_t)i * V + j] *= d;
            c[j] += ki * E[(size_t)i * V + j];
        }
    }
    if (!cut)  // the delta read of the error itself: E <- E - beta k (k^T E)
        for (int i = 0; i < K; i++) {
            double bk = (double)in->beta * in->k[i];
            for (int j = 0; j < V; j++) E[(size_t)i * V + j] -= bk * c[j];
        }
    for (int j = 0; j < V; j++) c[j] = 0;
    for (int i = 0; i < K; i++) {
        double qi = scale * in->q[i];
        for (int j = 0; j < V; j++) c[j] += qi * E[(size_t)i * V + j];
    }
    double r = 0;
    for (int j = 0; j < V; j++) r += c[j] * c[j];
    return r;
}

// u_ref (V) <- beta (v - (D S)^T k): the reference's delta write, read on the error-free state
static void reference_write(float* u, const float* S, const stepq_step_in* in, const float* decay,
                            int K, int V) {
    for (int j = 0; j < V; j++) u[j] = 0;
    for (int i = 0; i < K; i++) {
        float d = decay[i], ki = in->k[i];
        for (int j = 0; j < V; j++) u[j] += ki * (S[(size_t)i * V + j] * d);
    }
    for (int j = 0; j < V; j++) u[j] = in->beta * (in->v[j] - u[j]);
}

// the cut protocol: X <- D X + k u_ref^T, y <- X^T (scale q)
static void cut_step(float* X, float* y, const float* u_ref, const stepq_step_in* in,
                     const float* decay, double scale, int K, int V) {
    for (int j = 0; j < V; j++) y[j] = 0;
    for (int i = 0; i < K; i++) {
        float d = decay[i], ki = in->k[i], qi = (float)scale * in->q[i];
        float* row = X + (size_t)i * V;
        for (int j = 0; j < V; j++) {
            row[j] *= d;
            row[j] += ki * u_ref[j];
            y[j] += qi * row[j];
        }
    }
}

static double sq_diff(const float* a, const float* b, int n) {
    double s = 0;
    for (int j = 0; j < n; j++) s += ((double)a[j] - b[j]) * ((double)a[j] - b[j]);
    return s;
}

typedef struct {
    const stepq_selfcorrect_cfg* c;
    double* out;     // (S, F, N_SERIES, H, W)
    double* hl;      // (S, H)
    int S, F, H, W;
    int failed;
} sc_run;

static size_t at(const sc_run* r, int s, int f, int k, int h, int w) {
    return ((((size_t)s * r->F + f) * N_SERIES + k) * r->H + h) * r->W + w;
}

static int one_head(sc_run* r, int s, int h, sc_scratch* x) {
    const stepq_selfcorrect_cfg* c = r->c;
    const stepq_source* src = c->srcs[s];
    const int K = src->K, V = src->V, G = src->n_gates, F = r->F;
    const size_t KV = (size_t)K * V;
    stepq_runstate* rs = &x->rs;
    stepq_runstate_reset(rs, src->S0 ? src->S0 + (size_t)h * KV : NULL);
    stepq_cursor* cur = src->open(src, h);
    stepq_step_in in;
    double gsum = 0, cbuf[STEPQ_MAX_DIM];
    for (long t = 0; t < c->prefill; t++) {
        src->next(cur, &in);
        for (int i = 0; i < G; i++) gsum += in.g[i] / G;
        stepq_runstate_step(rs, &in, src->scale);
    }
    for (int f = 0; f < F; f++) {  // the error injected at the boundary
        // the formats fit the heads (checked before the run) and need no plan
        stepq_assert(stepq_qstate_init(&x->qn[f], c->formats[f], NULL, 0, src->kind, K, V) == STEPQ_OK &&
                     stepq_qstate_init(&x->qc[f], c->formats[f], NULL, 0, src->kind, K, V) == STEPQ_OK);
        if (stepq_qstate_load(&x->qn[f], rs->S) || stepq_qstate_load(&x->qc[f], rs->S)) return STEPQ_ERR;
        double* E = x->E + (size_t)f * 2 * KV;
        for (size_t e = 0; e < KV; e++) E[e] = E[KV + e] = (double)x->qn[f].X[e] - rs->S[e];
        for (int k = 0; k < N_SERIES; k++) x->acc[f * N_SERIES + k] = 0;
    }
    int rc = STEPQ_OK;
    for (long td = 0, w = 0; td < c->decode && rc == STEPQ_OK; td++) {
        src->next(cur, &in);
        for (int i = 0; i < G; i++) gsum += in.g[i] / G;
        stepq_decays(x->decay, in.g, G, K);
        reference_write(x->u_ref, rs->S, &in, x->decay, K, V);
        stepq_runstate_step(rs, &in, src->scale);  // rs->y: the reference read-out
        for (int f = 0; f < F && rc == STEPQ_OK; f++) {
            double* E = x->E + (size_t)f * 2 * KV;
            double* acc = x->acc + f * N_SERIES;
            acc[LIN_N] += linear_step(E, &in, x->decay, src->scale, 0, K, V, cbuf);
            acc[LIN_C] += linear_step(E + KV, &in, x->decay, src->scale, 1, K, V, cbuf);
            rc = stepq_qstate_step(&x->qn[f], x->y, rs->work, &in, src->scale, G);
            acc[NL_N] += sq_diff(x->y, rs->y, V);
            cut_step(x->qc[f].X, x->y, x->u_ref, &in, x->decay, src->scale, K, V);
            acc[NL_C] += sq_diff(x->y, rs->y, V);
            if (rc == STEPQ_OK) rc = stepq_qstate_requantize(&x->qc[f]);
        }
        if (w < r->W && td + 1 == c->windows[w]) {
            for (int f = 0; f < F; f++)
                for (int k = 0; k < N_SERIES; k++) r->out[at(r, s, f, k, h, (int)w)] = x->acc[f * N_SERIES + k];
            w++;
        }
    }
    src->close(cur);
    for (int f = 0; f < F; f++) stepq_qstate_free(&x->qn[f]), stepq_qstate_free(&x->qc[f]);
    double l = gsum / (double)(c->prefill + c->decode);
    r->hl[(size_t)s * r->H + h] = l < 0 ? M_LN2 / -l : INFINITY;
    return rc;
}

static void run_seed(sc_run* r, int s, stepq_progress* pr) {
    const stepq_source* src = r->c->srcs[s];
    const int F = r->F;
#pragma omp parallel
    {
        sc_scratch x;
        stepq_runstate_init(&x.rs, src->K, src->V, src->n_gates);
        x.E = mallocCheck(sizeof(double) * (size_t)F * 2 * src->K * src->V);
        x.qn = callocCheck((size_t)F, sizeof(stepq_qstate));
        x.qc = callocCheck((size_t)F, sizeof(stepq_qstate));
        x.decay = mallocCheck(sizeof(float) * src->K);
        x.u_ref = mallocCheck(sizeof(float) * src->V);
        x.y = mallocCheck(sizeof(float) * src->V);
        x.acc = mallocCheck(sizeof(double) * F * N_SERIES);
#pragma omp for schedule(dynamic, 1)
        for (int h = 0; h < r->H; h++) {
            if (one_head(r, s, h, &x) != STEPQ_OK) {
#pragma omp atomic write
                r->failed = 1;
            }
            stepq_progress_tick(pr);
        }
        stepq_runstate_free(&x.rs);
        free(x.E); free(x.qn); free(x.qc); free(x.decay); free(x.u_ref); free(x.y); free(x.acc);
    }
}

// ratio (S, F, 2, W): sum over heads of cut / normal, linear and nonlinear; quart (S, F, 2, 4, W)
// the same within each half-life quarter of the seed's heads
static void ratios(double* ratio, double* quart, const sc_run* r) {
    int* q = mallocCheck(sizeof(int) * r->H);
    for (int s = 0; s < r->S; s++) {
        stepq_quartiles_of(q, r->hl + (size_t)s * r->H, (size_t)r->H);
        for (int f = 0; f < r->F; f++)
            for (int m = 0; m < 2; m++)
                for (int w = 0; w < r->W; w++) {
                    double n[5] = {0}, cut[5] = {0};  // [4]: all heads
                    for (int h = 0; h < r->H; h++) {
                        double a = r->out[at(r, s, f, 2 * m, h, w)], b = r->out[at(r, s, f, 2 * m + 1, h, w)];
                        n[q[h]] += a, cut[q[h]] += b, n[4] += a, cut[4] += b;
                    }
                    size_t i = (((size_t)s * r->F + f) * 2 + m) * r->W + w;
                    ratio[i] = n[4] > 0 ? cut[4] / n[4] : NAN;
                    for (int k = 0; k < 4; k++)
                        quart[((((size_t)s * r->F + f) * 2 + m) * 4 + k) * r->W + w] = n[k] > 0 ? cut[k] / n[k] : NAN;
                }
    }
    free(q);
}

// mean and CI over seeds of x (S, n) -> m (n), ci (n)
static void over_seeds(double* m, double* ci, const double* x, int S, size_t n) {
    double* col = mallocCheck(sizeof(double) * S);
    for (size_t i = 0; i < n; i++) {
        for (int s = 0; s < S; s++) col[s] = x[(size_t)s * n + i];
        stepq_mean_ci95(&m[i], &ci[i], col, S);
    }
    free(col);
}

static int write_table(const stepq_selfcorrect_cfg* c, const sc_run* r, const double* m, const double* ci) {
    FILE* fp = stepq_text_create(c->table);
    if (!fp) {
        return STEPQ_ERR;
    }
    fprintf(fp, "# selfcorrect: window, then per format the cut / normal ratio of the accumulated read-out "
                "error, linear mean and 95%% CI, nonlinear mean and 95%% CI\n# window");
    for (int f = 0; f < r->F; f++) fprintf(fp, "\t%s_lin\tci\t%s_nl\tci", c->formats[f]->name, c->formats[f]->name);
    fputc('\n', fp);
    for (int w = 0; w < r->W; w++) {
        fprintf(fp, "%ld", c->windows[w]);
        for (int f = 0; f < r->F; f++)
            for (int k = 0; k < 2; k++) {
                size_t i = ((size_t)f * 2 + k) * r->W + w;
                fprintf(fp, "\t%.6e\t%.6e", m[i], ci[i]);
            }
        fputc('\n', fp);
    }
    return stepq_text_commit(fp, c->table);
}

static int write_h5(const stepq_selfcorrect_cfg* c, const sc_run* r, const double* ratio,
                    const double* quart, const double* m, const double* ci) {
    hid_t f = h5u_create(c->output);
    if (f < 0) return STEPQ_ERR;
    const int S = r->S, F = r->F, H = r->H, W = r->W;
    const char** names = mallocCheck(sizeof(char*) * F);
    for (int i = 0; i < F; i++) names[i] = c->formats[i]->name;
    hsize_t dW[1] = {(hsize_t)W}, dS[1] = {(hsize_t)S}, dSH[2] = {(hsize_t)S, (hsize_t)H};
    hsize_t dSFHW[4] = {(hsize_t)S, (hsize_t)F, (hsize_t)H, (hsize_t)W}, dSFW[3] = {(hsize_t)S, (hsize_t)F, (hsize_t)W};
    hsize_t dSFQW[4] = {(hsize_t)S, (hsize_t)F, 4, (hsize_t)W}, dFW[2] = {(hsize_t)F, (hsize_t)W};
    hid_t D = H5T_NATIVE_DOUBLE;
    // the largest of [S,F,H,W] and [S,F,4,W] (fewer than four heads)
    double* tmp = mallocCheck(sizeof(double) * (size_t)S * F * (H > 4 ? H : 4) * W);
    int rc = stepq_write_provenance(f, &c->prov) || h5u_attr_i64(f, "prefill", c->prefill) ||
             h5u_attr_i64(f, "decode", c->decode) ||
             h5u_write_strings(f, "formats", names, F, "formats whose error is injected") ||
             h5u_write(f, "windows", H5T_NATIVE_LONG, c->windows, 1, dW, "steps", "window lengths W") ||
             h5u_write(f, "seeds", H5T_NATIVE_UINT64, c->seeds, 1, dS, NULL, "seed of each run") ||
             h5u_write(f, "half_life", D, r->hl, 2, dSH, "steps", "ln 2 / -mean log gate per head [S,H]");
    for (int m2 = 0; m2 < 2 && !rc; m2++) {
        hid_t g = H5Gcreate2(f, series_group[m2], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        for (int k = 0; k < 2 && !rc; k++) {
            for (int s = 0; s < S; s++)
                for (int fi = 0; fi < F; fi++)
                    for (int h = 0; h < H; h++)
                        memcpy(tmp + (((size_t)s * F + fi) * H + h) * W, r->out + at(r, s, fi, 2 * m2 + k, h, 0),
                               sizeof(double) * W);
            rc = h5u_write(g, k ? "cut" : "normal", D, tmp, 4, dSFHW, "(value units)^2",
                           k ? "sum over the window of ||e^T scale q||^2, the delta read on the error-free state [S,F,H,W]"
                             : "sum over the window of ||e^T scale q||^2, the normal recurrence [S,F,H,W]");
        }
        for (int s = 0; s < S; s++)
            for (int fi = 0; fi < F; fi++)
                memcpy(tmp + ((size_t)s * F + fi) * W, ratio + (((size_t)s * F + fi) * 2 + m2) * W, sizeof(double) * W);
        rc = rc || h5u_write(g, "ratio_pooled", D, tmp, 3, dSFW, "1", "sum_h cut / sum_h normal [S,F,W]");
        for (int s = 0; s < S; s++)
            for (int fi = 0; fi < F; fi++)
                memcpy(tmp + ((size_t)s * F + fi) * 4 * W, quart + (((size_t)s * F + fi) * 2 + m2) * 4 * W,
                       sizeof(double) * 4 * W);
        rc = rc || h5u_write(g, "ratio_quartile", D, tmp, 4, dSFQW, "1",
                             "pooled ratio within each half-life quarter (0: shortest-lived) [S,F,4,W]");
        for (int fi = 0; fi < F; fi++) {
            memcpy(tmp + (size_t)fi * W, m + ((size_t)fi * 2 + m2) * W, sizeof(double) * W);
            memcpy(tmp + (size_t)(F + fi) * W, ci + ((size_t)fi * 2 + m2) * W, sizeof(double) * W);
        }
        rc = rc || h5u_write(g, "ratio_pooled_mean", D, tmp, 2, dFW, "1", "mean over seeds [F,W]") ||
             h5u_write(g, "ratio_pooled_ci95", D, tmp + (size_t)F * W, 2, dFW, "1",
                       "half-width of the 95% confidence interval over seeds, NaN with one seed [F,W]");
        if (g >= 0) H5Gclose(g);
    }
    free(tmp);
    free(names);
    if (rc) {
        h5u_abandon(f, c->output);
        return STEPQ_ERR;
    }
    return h5u_commit(f, c->output);
}

static void summary(const stepq_selfcorrect_cfg* c, const sc_run* r, const double* m, const double* ci,
                    const double* quart) {
    const int W = r->W, F = r->F, S = r->S;
    printf("selfcorrect: %d heads, prefill %ld, decode %ld, %d seeds (%s)\n", r->H, c->prefill,
           c->decode, S, c->srcs[0]->desc);
    printf("cut / normal accumulated read-out error over the whole window (%ld steps), mean +- 95%% CI "
           "over seeds; by half-life quarter (shortest .. longest, first seed):\n", c->windows[W - 1]);
    for (int f = 0; f < F; f++)
        for (int k = 0; k < 2; k++) {
            size_t i = ((size_t)f * 2 + k) * W + W - 1;
            printf("  %-8s %-9s %8.3f +- %-7.3f quarters", c->formats[f]->name, series_group[k], m[i], ci[i]);
            for (int qq = 0; qq < 4; qq++) printf(" %7.3f", quart[(((size_t)f * 2 + k) * 4 + qq) * W + W - 1]);
            putchar('\n');
        }
    printf("(the paper: 26.82x INT6, 18.65x INT8. A linear continuation scales with the injected error, "
           "so its ratio does not depend on the format's step size, only on its error's direction)\n");
}

int stepq_selfcorrect(const stepq_selfcorrect_cfg* c) {
    sc_run r = {c, NULL, NULL, c->n_seeds, c->n_formats, c->srcs[0]->n_heads, c->n_windows, 0};
    if (c->prefill + c->decode > c->srcs[0]->T) {
        stepq_error("%s has %ld steps; prefill %ld + decode %ld need more", c->srcs[0]->desc,
                    c->srcs[0]->T, c->prefill, c->decode);
        return STEPQ_ERR;
    }
    if (stepq_formats_fit(c->formats, c->n_formats, c->srcs[0]) != STEPQ_OK) return STEPQ_ERR;
    r.out = callocCheck((size_t)r.S * r.F * N_SERIES * r.H * r.W, sizeof(double));
    r.hl = callocCheck((size_t)r.S * r.H, sizeof(double));
    stepq_progress pr;
    stepq_progress_start(&pr, "selfcorrect", "heads", (long)r.S * r.H);
    for (int s = 0; s < r.S && !r.failed; s++) run_seed(&r, s, &pr);
    stepq_progress_end(&pr);
    int rc = STEPQ_OK;
    if (r.failed) {
        stepq_error("selfcorrect: a format met a non-finite state (%s)", c->srcs[0]->desc);
        rc = STEPQ_ERR;
    }
    if (rc == STEPQ_OK) {
        size_t nr = (size_t)r.S * r.F * 2 * r.W;
        double* ratio = mallocCheck(sizeof(double) * nr);
        double* quart = mallocCheck(sizeof(double) * nr * 4);
        double* m = mallocCheck(sizeof(double) * r.F * 2 * r.W);
        double* ci = mallocCheck(sizeof(double) * r.F * 2 * r.W);
        ratios(ratio, quart, &r);
        over_seeds(m, ci, ratio, r.S, (size_t)r.F * 2 * r.W);
        rc = write_h5(c, &r, ratio, quart, m, ci);
        if (rc == STEPQ_OK && c->table) rc = write_table(c, &r, m, ci);
        if (rc == STEPQ_OK) summary(c, &r, m, ci, quart);
        free(ratio); free(quart); free(m); free(ci);
    }
    free(r.out);
    free(r.hl);
    return rc;
}

// selfcorrect.c: the self-correction ablation; see selfcorrect.h.
#include "selfcorrect.h"

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

enum { LIN_N, LIN_C, NL_N, NL_C, N_SERIES };  // linear normal, cut; nonlinear normal, cut
static const char* const series_group[2] = {"linear", "nonlinear"};

// one thread's sums of the head in flight (the head loop's observer scratch)
typedef struct {
    double* E;     // (F, 2, K, V) linear errors: normal, cut
    double* acc;   // (F, N_SERIES) running sums
    double gsum;   // the sum of the mean log gates
    long w;        // the next window to record
} sc_sums;

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
    int s;           // the seed being run
} sc_run;

static size_t at(const sc_run* r, int s, int f, int k, int h, int w) {
    return ((((size_t)s * r->F + f) * N_SERIES + k) * r->H + h) * r->W + w;
}

static void* sc_thread_init(void* ctx, const stepq_view* v) {
    const sc_run* r = ctx;
    sc_sums* x = mallocCheck(sizeof *x);
    x->E = mallocCheck(sizeof(double) * (size_t)r->F * 2 * v->K * v->V);
    x->acc = mallocCheck(sizeof(double) * r->F * N_SERIES);
    return x;
}

static void sc_thread_free(void* tls) {
    sc_sums* x = tls;
    free(x->E);
    free(x->acc);
    free(x);
}

static int sc_init_head(void* ctx, void* tls, const stepq_view* v) {
    sc_sums* x = tls;
    x->gsum = 0;
    x->w = 0;
    return STEPQ_OK;
}

// the error injected at the boundary, the same for the normal and the cut continuation
static int sc_boundary(void* ctx, void* tls, const stepq_view* v) {
    const sc_run* r = ctx;
    sc_sums* x = tls;
    const size_t KV = (size_t)v->K * v->V;
    for (int f = 0; f < r->F; f++) {
        double* E = x->E + (size_t)f * 2 * KV;
        const float* X = v->f[f].qs->X;
        for (size_t e = 0; e < KV; e++) E[e] = E[KV + e] = (double)X[e] - v->S[e];
        for (int k = 0; k < N_SERIES; k++) x->acc[f * N_SERIES + k] = 0;
    }
    return STEPQ_OK;
}

// slots f (the normal protocol) and F + f (the cut one) of format f
static int sc_step(void* ctx, void* tls, const stepq_view* v) {
    sc_run* r = ctx;
    sc_sums* x = tls;
    const int F = r->F, V = v->V;
    const size_t KV = (size_t)v->K * V;
    for (int i = 0; i < v->G; i++) x->gsum += v->in->g[i] / v->G;
    if (!v->decoding) return STEPQ_OK;
    double cbuf[STEPQ_MAX_DIM];
    for (int f = 0; f < F; f++) {
        double* E = x->E + (size_t)f * 2 * KV;
        double* acc = x->acc + f * N_SERIES;
        acc[LIN_N] += linear_step(E, v->in, v->decay, v->scale, 0, v->K, V, cbuf);
        acc[LIN_C] += linear_step(E + KV, v->in, v->decay, v->scale, 1, v->K, V, cbuf);
        acc[NL_N] += sq_diff(v->f[f].y_hat, v->y, V);
        acc[NL_C] += sq_diff(v->f[F + f].y_hat, v->y, V);
    }
    if (x->w < r->W && v->td == r->c->windows[x->w]) {
        for (int f = 0; f < F; f++)
            for (int k = 0; k < N_SERIES; k++) r->out[at(r, r->s, f, k, v->h, (int)x->w)] = x->acc[f * N_SERIES + k];
        x->w++;
    }
    return STEPQ_OK;
}

static int sc_end_head(void* ctx, void* tls, const stepq_view* v) {
    sc_run* r = ctx;
    const sc_sums* x = tls;
    double l = x->gsum / (double)(r->c->prefill + r->c->decode);
    r->hl[(size_t)r->s * r->H + v->h] = l < 0 ? M_LN2 / -l : INFINITY;
    return STEPQ_OK;
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
    sc_run r = {.c = c, .out = NULL, .hl = NULL, .S = c->n_seeds, .F = c->n_formats, .H = c->srcs[0]->n_heads, .W = c->n_windows, .s = 0};
    if (stepq_formats_fit(c->formats, c->n_formats, c->srcs[0]) != STEPQ_OK) return STEPQ_ERR;
    stepq_slot* slots = mallocCheck(sizeof(stepq_slot) * 2 * r.F);
    for (int f = 0; f < r.F; f++) {
        slots[f] = (stepq_slot){.fmt = c->formats[f], .proto = STEPQ_PROTO_NORMAL};
        slots[r.F + f] = (stepq_slot){.fmt = c->formats[f], .proto = STEPQ_PROTO_CUT};
    }
    const stepq_observer obs = {.name = "selfcorrect", .ctx = &r, .thread_init = sc_thread_init,
                                .thread_free = sc_thread_free, .init_head = sc_init_head,
                                .on_step = sc_step, .on_boundary = sc_boundary, .end_head = sc_end_head};
    stepq_progress pr;
    stepq_headloop_cfg hc = {.backend = c->backend, .slots = slots, .n_slots = 2 * r.F, .prefill = c->prefill,
                             .decode = c->decode, .obs = &obs, .n_obs = 1, .progress = &pr};
    r.out = callocCheck((size_t)r.S * r.F * N_SERIES * r.H * r.W, sizeof(double));
    r.hl = callocCheck((size_t)r.S * r.H, sizeof(double));
    // an MPI run's units (base/ranks.h): seed s, head h is unit s H + h
    stepq_split sp;
    stepq_split_init(&sp);
    stepq_split_add(&sp, r.out, sizeof(double) * r.S * r.F * N_SERIES * r.H * r.W);
    stepq_split_add(&sp, r.hl, sizeof(double) * r.S * r.H);
    hc.split = 1;
    stepq_progress_start(&pr, "selfcorrect", "heads", (long)r.S * r.H);
    int rc = STEPQ_OK;
    for (r.s = 0; r.s < r.S && rc == STEPQ_OK; r.s++) {
        hc.unit0 = (long)r.s * r.H;
        rc = stepq_headloop_run(c->srcs[r.s], &hc);
    }
    rc = stepq_split_end(&sp, rc, "selfcorrect");
    stepq_progress_end(&pr);
    free(slots);
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

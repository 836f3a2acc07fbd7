// regimes.c: the regime map; see regimes.h.
#include "regimes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../base/outfile.h"
#include "../base/stats.h"
#include "evaluate.h"
#include "halflife.h"
#include "inputstats.h"

typedef struct {
    double *is, *hl, *pooled, *ratio;  // (R, S, IS_N) (R, S, HL_N) (R, S, F) (R, S, F)
} regime_results;

// one point: statistics, half-life summaries and the formats' errors of every seed
static int one_point(regime_results* o, const stepq_regimes_cfg* c, int r) {
    const int S = c->n_seeds, F = c->n_formats;
    stepq_source* const* ev = c->evals + (size_t)r * S;
    const long every = c->decode / 8 > 0 ? c->decode / 8 : 1;
    double* is = mallocCheck(sizeof(double) * IS_N_SUMMARY * S);  // (IS_N, S)
    stepq_inputstats_cfg ic = {.srcs = (stepq_source**)ev, .seeds = c->seeds, .n_seeds = S,
                               .steps = c->prefill + c->decode, .warmup = c->prefill, .sample_every = every,
                               .output = NULL, .prov = c->prov, .backend = c->backend};
    int rc = stepq_inputstats(is, &ic);
    for (int s = 0; s < S && !rc; s++)
        for (int k = 0; k < IS_N_SUMMARY; k++)
            o->is[((size_t)r * S + s) * IS_N_SUMMARY + k] = is[(size_t)k * S + s];
    free(is);
    stepq_halflife_cfg hc = {.srcs = ev, .seeds = c->seeds, .n_seeds = S, .format = c->halflife_format,
                             .prefill = c->prefill, .decode = c->decode, .output = NULL, .table = NULL, .prov = c->prov,
                             .backend = c->backend};
    if (!rc) rc = stepq_halflife(o->hl + (size_t)r * S * HL_N_SUMMARY, &hc);
    stepq_calib_cfg cc = c->calib[r];
    cc.output = NULL;
    cc.key = NULL;
    stepq_plan plan;
    if (!rc) rc = stepq_calibrate(&plan, &cc);
    if (rc) return STEPQ_ERR;
    for (int s = 0; s < S && !rc; s++) {
        double* p = o->pooled + ((size_t)r * S + s) * F;
        rc = stepq_evaluate(p, NULL, ev[s], c->formats, F, &plan, c->prefill, c->decode, "regimes", c->backend);
        for (int f = 0; f < F && !rc; f++) o->ratio[((size_t)r * S + s) * F + f] = p[f] / p[0];
    }
    stepq_plan_free(&plan);
    return rc;
}

// m, ci (R, K) <- mean and CI over seeds of x (R, S, K)
static void over_seeds(double* m, double* ci, const double* x, int R, int S, int K) {
    double* col = mallocCheck(sizeof(double) * S);
    for (int r = 0; r < R; r++)
        for (int k = 0; k < K; k++) {
            for (int s = 0; s < S; s++) col[s] = x[((size_t)r * S + s) * K + k];
            stepq_mean_ci95(&m[(size_t)r * K + k], &ci[(size_t)r * K + k], col, S);
        }
    free(col);
}

// name [R,S,K] with its mean and CI [R,K]
static int write_block(hid_t f, const char* name, const double* x, int R, int S, int K, const char* units,
                       const char* desc) {
    double *m = mallocCheck(sizeof(double) * R * K), *ci = mallocCheck(sizeof(double) * R * K);
    over_seeds(m, ci, x, R, S, K);
    char nm[128], nc[128];
    snprintf(nm, sizeof nm, "%s_mean", name);
    snprintf(nc, sizeof nc, "%s_ci95", name);
    hsize_t d3[3] = {(hsize_t)R, (hsize_t)S, (hsize_t)K}, d2[2] = {(hsize_t)R, (hsize_t)K};
    int rc = h5u_write(f, name, H5T_NATIVE_DOUBLE, x, 3, d3, units, desc) ||
             h5u_write(f, nm, H5T_NATIVE_DOUBLE, m, 2, d2, units, "mean over seeds [regime, k]") ||
             h5u_write(f, nc, H5T_NATIVE_DOUBLE, ci, 2, d2, units, "95% CI half-width over seeds, NaN with one seed [regime, k]");
    free(m);
    free(ci);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

static int write_h5(const stepq_regimes_cfg* c, const regime_results* o) {
    const int R = c->n_regimes, S = c->n_seeds, F = c->n_formats;
    hid_t f = h5u_create(c->output);
    if (f < 0) return STEPQ_ERR;
    const char** fn = mallocCheck(sizeof(char*) * F);
    for (int i = 0; i < F; i++) fn[i] = c->formats[i]->name;
    hsize_t dS[1] = {(hsize_t)S};
    int rc = stepq_write_provenance(f, &c->prov) || h5u_attr_i64(f, "prefill", c->prefill) ||
             h5u_attr_i64(f, "decode", c->decode) ||
             h5u_attr_str(f, "halflife_format", c->halflife_format->name) ||
             h5u_write_strings(f, "regimes", c->names, R, "the sweep's points (generator knobs in the config)") ||
             h5u_write_strings(f, "formats", fn, F, "formats; the first is the reference of the ratios") ||
             h5u_write_strings(f, "inputstats_names", stepq_inputstats_summary_names, IS_N_SUMMARY,
                               "the input statistics (method 5), last axis of inputstats") ||
             h5u_write_strings(f, "halflife_names", stepq_halflife_summary_names, HL_N_SUMMARY,
                               "the half-life summaries, last axis of halflife") ||
             h5u_write(f, "seeds", H5T_NATIVE_UINT64, c->seeds, 1, dS, NULL, "evaluation stream seeds") ||
             write_block(f, "inputstats", o->is, R, S, IS_N_SUMMARY, "1",
                         "input statistics of the evaluation streams [regime, seed, statistic]") ||
             write_block(f, "halflife", o->hl, R, S, HL_N_SUMMARY, "1",
                         "half-life summaries with the halflife format [regime, seed, summary]") ||
             write_block(f, "pooled", o->pooled, R, S, F, "1",
                         "pooled relative read-out error [regime, seed, format]") ||
             write_block(f, "ratio", o->ratio, R, S, F, "1",
                         "pooled error over the first format's, seed by seed [regime, seed, format]");
    free(fn);
    if (rc) {
        h5u_abandon(f, c->output);
        return STEPQ_ERR;
    }
    return h5u_commit(f, c->output);
}

// the plot's table: one row per point (columns in the header) and the printed summary
static int write_table(const stepq_regimes_cfg* c, const regime_results* o) {
    const int R = c->n_regimes, S = c->n_seeds, F = c->n_formats;
    static const int is_cols[] = {IS_KEY_PR, IS_RIDGE_ROW, IS_RIDGE_COL};
    static const int hl_cols[] = {HL_SPEARMAN_ACC, HL_SPEARMAN_NORM, HL_SPEARMAN_PERS, HL_SHARE_ACC, HL_D_RATIO};
    double *im = mallocCheck(sizeof(double) * R * IS_N_SUMMARY), *ic = mallocCheck(sizeof(double) * R * IS_N_SUMMARY);
    double *hm = mallocCheck(sizeof(double) * R * HL_N_SUMMARY), *hc = mallocCheck(sizeof(double) * R * HL_N_SUMMARY);
    double *rm = mallocCheck(sizeof(double) * R * F), *rci = mallocCheck(sizeof(double) * R * F);
    double *pm = mallocCheck(sizeof(double) * R * F), *pci = mallocCheck(sizeof(double) * R * F);
    over_seeds(im, ic, o->is, R, S, IS_N_SUMMARY);
    over_seeds(hm, hc, o->hl, R, S, HL_N_SUMMARY);
    over_seeds(rm, rci, o->ratio, R, S, F);
    over_seeds(pm, pci, o->pooled, R, S, F);
    FILE* fp = c->table ? stepq_text_create(c->table) : NULL;
    if (fp) {
        fprintf(fp, "# regimes: one row per point; mean and 95%% CI over seeds of: key participation, row "
                    "ridge, column ridge, Spearman(half-life, acc), (half-life, acc/d), (half-life, "
                    "persistence), longest quarter's share of acc, d ratio long/short quarter; then per "
                    "format its error over %s's, then per format its pooled error\n# point\tkey_pr\t(ci)\trow\t(ci)\t"
                    "col\t(ci)\tsp_acc\t(ci)\tsp_norm\t(ci)\tsp_pers\t(ci)\tshare_acc\t(ci)\td_ratio\t(ci)",
                c->formats[0]->name);
        for (int f = 0; f < F; f++) fprintf(fp, "\tratio_%s\t(ci)", c->formats[f]->name);
        for (int f = 0; f < F; f++) fprintf(fp, "\tpooled_%s\t(ci)", c->formats[f]->name);
        fputc('\n', fp);
    }
    printf("regimes: %d seeds, %s at every point; errors relative to %s\n", S, c->halflife_format->name,
           c->formats[0]->name);
    printf("%-14s %8s %7s %7s %8s %8s %8s", "point", "key PR", "row", "col", "sp(acc)", "sp(a/d)", "sp(pers)");
    for (int f = 1; f < F; f++) printf(" %14s", c->formats[f]->name);
    putchar('\n');
    for (int r = 0; r < R; r++) {
        const double* i = im + (size_t)r * IS_N_SUMMARY;
        const double* h = hm + (size_t)r * HL_N_SUMMARY;
        printf("%-14s %8.2f %7.2f %7.2f %8.3f %8.3f %8.3f", c->names[r], i[IS_KEY_PR], i[IS_RIDGE_ROW],
               i[IS_RIDGE_COL], h[HL_SPEARMAN_ACC], h[HL_SPEARMAN_NORM], h[HL_SPEARMAN_PERS]);
        for (int f = 1; f < F; f++) printf("  %5.3f +-%5.3f", rm[(size_t)r * F + f], rci[(size_t)r * F + f]);
        putchar('\n');
        if (!fp) continue;
        fprintf(fp, "%s", c->names[r]);
        for (size_t k = 0; k < sizeof is_cols / sizeof *is_cols; k++)
            fprintf(fp, "\t%.6e\t%.6e", i[is_cols[k]], ic[(size_t)r * IS_N_SUMMARY + is_cols[k]]);
        for (size_t k = 0; k < sizeof hl_cols / sizeof *hl_cols; k++)
            fprintf(fp, "\t%.6e\t%.6e", h[hl_cols[k]], hc[(size_t)r * HL_N_SUMMARY + hl_cols[k]]);
        for (int f = 0; f < F; f++) fprintf(fp, "\t%.6e\t%.6e", rm[(size_t)r * F + f], rci[(size_t)r * F + f]);
        for (int f = 0; f < F; f++) fprintf(fp, "\t%.6e\t%.6e", pm[(size_t)r * F + f], pci[(size_t)r * F + f]);
        fputc('\n', fp);
    }
    int rc = (c->table && !fp) || (fp && stepq_text_commit(fp, c->table)) ? STEPQ_ERR : STEPQ_OK;
    free(im); free(ic); free(hm); free(hc); free(rm); free(rci); free(pm); free(pci);
    return rc;
}

int stepq_regimes(const stepq_regimes_cfg* c) {
    const int R = c->n_regimes, S = c->n_seeds, F = c->n_formats;
    if (stepq_format_needs_plan(c->halflife_format)) {
        stepq_error("regimes: the half-life format %s needs a plan; give one that needs none (int6)",
                    c->halflife_format->name);
        return STEPQ_ERR;
    }
    regime_results o = {.is = mallocCheck(sizeof(double) * R * S * IS_N_SUMMARY),
                        .hl = mallocCheck(sizeof(double) * R * S * HL_N_SUMMARY),
                        .pooled = mallocCheck(sizeof(double) * R * S * F), .ratio = mallocCheck(sizeof(double) * R * S * F)};
    int rc = STEPQ_OK;
    for (int r = 0; r < R && !rc; r++) {
        fprintf(stderr, "regimes: point %d of %d, %s\n", r + 1, R, c->names[r]);
        rc = one_point(&o, c, r);
    }
    if (!rc) rc = write_table(c, &o);
    if (!rc) rc = write_h5(c, &o);
    free(o.is); free(o.hl); free(o.pooled); free(o.ratio);
    return rc;
}

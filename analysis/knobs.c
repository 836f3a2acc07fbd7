// knobs.c: sweeps of the calibration knobs; see knobs.h.
#include "knobs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../base/outfile.h"
#include "../base/stats.h"
#include "evaluate.h"

static const char* const knob_names[] = {"gamma", "rho", "horizon", "pivots", "refits", NULL};

int stepq_knobs_check(const char* knob) {
    for (const char* const* k = knob_names; *k; k++)
        if (!strcmp(*k, knob)) return STEPQ_OK;
    stepq_error("no calibration knob '%s' (gamma, rho, horizon, pivots, refits)", knob);
    return STEPQ_ERR;
}

// c <- base with one knob set
static void set_knob(stepq_calib_cfg* c, const char* knob, double v) {
    if (!strcmp(knob, "gamma")) c->gamma = v;
    else if (!strcmp(knob, "rho")) c->rho = v;
    else if (!strcmp(knob, "horizon")) c->horizon = v;
    else if (!strcmp(knob, "pivots")) c->pivots = (int)v;
    else c->refits = (int)v;
}

// pooled (V, S, F) of one sweep
static int sweep(double* pooled, const stepq_knobs_cfg* c, const stepq_knob_sweep* k) {
    const int S = c->n_seeds, F = c->n_formats;
    for (int v = 0; v < k->n; v++) {
        stepq_calib_cfg cc = *c->base;
        cc.output = NULL;
        cc.key = NULL;
        set_knob(&cc, k->knob, k->values[v]);
        stepq_plan plan;
        if (!getenv("STEPQ_QUIET")) fprintf(stderr, "knobs: %s = %g\n", k->knob, k->values[v]);
        if (stepq_calibrate(&plan, &cc) != STEPQ_OK) return STEPQ_ERR;
        int rc = STEPQ_OK;
        for (int s = 0; s < S && !rc; s++)
            rc = stepq_evaluate(pooled + ((size_t)v * S + s) * F, NULL, c->evals[s], c->formats, F, &plan,
                                c->prefill, c->decode, "knobs");
        stepq_plan_free(&plan);
        if (rc) return STEPQ_ERR;
    }
    return STEPQ_OK;
}

// mean and CI over seeds: m, ci (V, F) of pooled (V, S, F)
static void over_seeds(double* m, double* ci, const double* pooled, int V, int S, int F) {
    double col[1024];
    for (int v = 0; v < V; v++)
        for (int f = 0; f < F; f++) {
            for (int s = 0; s < S && s < 1024; s++) col[s] = pooled[((size_t)v * S + s) * F + f];
            stepq_mean_ci95(&m[(size_t)v * F + f], &ci[(size_t)v * F + f], col, S < 1024 ? S : 1024);
        }
}

int stepq_knobs(const stepq_knobs_cfg* c) {
    const int S = c->n_seeds, F = c->n_formats;
    FILE* tsv;
    hid_t f = h5u_create_with_text(c->output, &tsv, c->table);
    if (f < 0) return STEPQ_ERR;
    const char** names = mallocCheck(sizeof(char*) * F);
    for (int i = 0; i < F; i++) names[i] = c->formats[i]->name;
    hsize_t dS[1] = {(hsize_t)S};
    int rc = stepq_write_provenance(f, &c->prov) || h5u_attr_i64(f, "prefill", c->prefill) ||
             h5u_attr_i64(f, "decode", c->decode) ||
             h5u_write_strings(f, "formats", names, F, "the calibrated formats evaluated") ||
             h5u_write(f, "seeds", H5T_NATIVE_UINT64, c->seeds, 1, dS, NULL, "evaluation stream seeds");
    if (tsv) fprintf(tsv, "# knobs: one block per knob (gnuplot index k): value, then per format the pooled "
                          "relative read-out error, mean and 95%% CI over seeds\n");
    printf("knobs: %d evaluation seeds, %s\n", S, c->evals[0]->desc);
    for (int k = 0; k < c->n_sweeps && !rc; k++) {
        const stepq_knob_sweep* sw = &c->sweeps[k];
        const int V = sw->n;
        double* pooled = mallocCheck(sizeof(double) * V * S * F);
        double *m = mallocCheck(sizeof(double) * V * F), *ci = mallocCheck(sizeof(double) * V * F);
        rc = sweep(pooled, c, sw);
        if (!rc) {
            over_seeds(m, ci, pooled, V, S, F);
            hsize_t dV[1] = {(hsize_t)V}, dVSF[3] = {(hsize_t)V, (hsize_t)S, (hsize_t)F}, dVF[2] = {(hsize_t)V, (hsize_t)F};
            hid_t g = H5Gcreate2(f, sw->knob, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            rc = g < 0 || h5u_attr_f64(g, "paper", sw->paper) ||
                 h5u_write(g, "values", H5T_NATIVE_DOUBLE, sw->values, 1, dV, "1", "the knob's values") ||
                 h5u_write(g, "pooled", H5T_NATIVE_DOUBLE, pooled, 3, dVSF, "1",
                           "pooled relative read-out error [value,seed,format]") ||
                 h5u_write(g, "pooled_mean", H5T_NATIVE_DOUBLE, m, 2, dVF, "1", "mean over seeds [value,format]") ||
                 h5u_write(g, "pooled_ci95", H5T_NATIVE_DOUBLE, ci, 2, dVF, "1", "95% CI half-width over seeds, NaN with one seed [value,format]");
            if (g >= 0) H5Gclose(g);
            printf("  %-8s (paper %g)\n", sw->knob, sw->paper);
            for (int v = 0; v < V; v++) {
                printf("    %10g", sw->values[v]);
                if (tsv) fprintf(tsv, "%g", sw->values[v]);
                for (int fi = 0; fi < F; fi++) {
                    printf("  %s %.4f +- %.4f", names[fi], m[(size_t)v * F + fi], ci[(size_t)v * F + fi]);
                    if (tsv) fprintf(tsv, "\t%.6e\t%.6e", m[(size_t)v * F + fi], ci[(size_t)v * F + fi]);
                }
                putchar('\n');
                if (tsv) fputc('\n', tsv);
            }
            if (tsv) fprintf(tsv, "\n\n");
        }
        free(pooled); free(m); free(ci);
    }
    free(names);
    return h5u_finish_with_text(f, c->output, tsv, c->table, rc);
}

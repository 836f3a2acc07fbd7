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

// The run's calibrations, each with its evaluation (S, F). Calibration and evaluation are
// deterministic, so a knob value whose settings an earlier value had (the paper's value, which
// each sweep repeats) takes that value's evaluation without calibrating, and one whose plan
// encodes every head as an earlier plan does (stepq_plan_same_encoding: a horizon past the
// streams' memory, say) takes its evaluation without evaluating: the same numbers, computed once.
typedef struct {
    stepq_calib_cfg* cfg;
    stepq_plan* plan;
    double* pooled;  // (n, S, F)
    int n;
} knob_memo;

// the entry with c's knob settings, or -1
static int memo_settings(const knob_memo* m, const stepq_calib_cfg* c) {
    for (int e = 0; e < m->n; e++) {
        const stepq_calib_cfg* o = &m->cfg[e];
        if (o->gamma == c->gamma && o->rho == c->rho && o->horizon == c->horizon && o->pivots == c->pivots &&
            o->refits == c->refits)
            return e;
    }
    return -1;
}

// the entry whose plan encodes as p does, or -1
static int memo_plan(const knob_memo* m, const stepq_plan* p) {
    for (int e = 0; e < m->n; e++)
        if (stepq_plan_same_encoding(&m->plan[e], p)) return e;
    return -1;
}

// pooled (V, S, F) of one sweep
static int sweep(double* pooled, const stepq_knobs_cfg* c, const stepq_knob_sweep* k, knob_memo* memo) {
    const int S = c->n_seeds, F = c->n_formats;
    const size_t SF = (size_t)S * F;
    const int quiet = getenv("STEPQ_QUIET") != NULL;
    for (int v = 0; v < k->n; v++) {
        stepq_calib_cfg cc = *c->base;
        cc.output = NULL;
        cc.key = NULL;
        set_knob(&cc, k->knob, k->values[v]);
        double* out = pooled + (size_t)v * SF;
        int e = memo_settings(memo, &cc);
        if (!quiet) fprintf(stderr, "knobs: %s = %g%s\n", k->knob, k->values[v],
                            e >= 0 ? ": the settings of an earlier value, its evaluation reused" : "");
        if (e >= 0) {
            memcpy(out, memo->pooled + (size_t)e * SF, sizeof(double) * SF);
            continue;
        }
        stepq_plan* plan = &memo->plan[memo->n];
        if (stepq_calibrate(plan, &cc) != STEPQ_OK) return STEPQ_ERR;
        memo->cfg[memo->n++] = cc;  // the memo owns the plan from here
        if ((e = memo_plan(memo, plan)) >= 0 && e != memo->n - 1) {
            if (!quiet) fprintf(stderr, "knobs: %s = %g: the plan encodes as an earlier one, its evaluation reused\n",
                                k->knob, k->values[v]);
            memcpy(out, memo->pooled + (size_t)e * SF, sizeof(double) * SF);
        } else {
            for (int s = 0; s < S; s++)
                if (stepq_evaluate(out + (size_t)s * F, NULL, c->evals[s], c->formats, F, plan, c->prefill,
                                   c->decode, "knobs", c->backend) != STEPQ_OK)
                    return STEPQ_ERR;
        }
        memcpy(memo->pooled + (size_t)(memo->n - 1) * SF, out, sizeof(double) * SF);
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
    int n_values = 0;
    for (int k = 0; k < c->n_sweeps; k++) n_values += c->sweeps[k].n;
    knob_memo memo = {.cfg = callocCheck((size_t)n_values, sizeof(stepq_calib_cfg)), .plan = callocCheck((size_t)n_values, sizeof(stepq_plan)),
                      .pooled = callocCheck((size_t)n_values * S * F, sizeof(double)), .n = 0};
    for (int k = 0; k < c->n_sweeps && !rc; k++) {
        const stepq_knob_sweep* sw = &c->sweeps[k];
        const int V = sw->n;
        double* pooled = mallocCheck(sizeof(double) * V * S * F);
        double *m = mallocCheck(sizeof(double) * V * F), *ci = mallocCheck(sizeof(double) * V * F);
        rc = sweep(pooled, c, sw, &memo);
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
    for (int e = 0; e < memo.n; e++) stepq_plan_free(&memo.plan[e]);
    free(memo.cfg), free(memo.plan), free(memo.pooled);
    free(names);
    return h5u_finish_with_text(f, c->output, tsv, c->table, rc);
}

// runout.c: the parts of a run (runout.h) that do not depend on who steps the heads: the
// checks before it, the output arrays, the bin means. Moved here from analysis/runner.c so
// that the CPU runner and the CUDA engine (sim/cuda/engine.h) share them.
#include "runout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"

void stepq_run_out_alloc(stepq_run_out* o, const stepq_source* src, const stepq_run_cfg* cfg) {
    memset(o, 0, sizeof *o);
    o->F = cfg->n_formats;
    o->H = src->n_heads;
    o->K = src->K;
    o->V = src->V;
    o->T = cfg->prefill + cfg->decode;
    o->n_bins = (cfg->decode + cfg->bin - 1) / cfg->bin;
    size_t FH = (size_t)o->F * o->H, KV = (size_t)o->K * o->V;
    o->err_y = callocCheck(FH * o->n_bins, sizeof(float));
    o->err_S = callocCheck(FH * o->n_bins, sizeof(float));
    o->acc_sq = callocCheck(FH, sizeof(double));
    o->acc_ref = callocCheck(o->H, sizeof(double));
    o->p1_resid = callocCheck(FH, sizeof(double));
    o->mean_log_gate = callocCheck(o->H, sizeof(double));
    o->half_life = callocCheck(o->H, sizeof(double));
    o->bytes = callocCheck(FH, sizeof(double));
    o->diverged = mallocCheck(sizeof(long) * FH);
    for (size_t i = 0; i < FH; i++) o->diverged[i] = -1;
    if (cfg->keep_y) {
        o->y = callocCheck(FH * o->T * o->V, sizeof(float));
        o->y_ref = callocCheck((size_t)o->H * o->T * o->V, sizeof(float));
        o->S_final = callocCheck(FH * KV, sizeof(float));
        o->S_ref_final = callocCheck((size_t)o->H * KV, sizeof(float));
    }
}

void stepq_run_out_free(stepq_run_out* o) {
    free(o->err_y); free(o->err_S); free(o->acc_sq); free(o->acc_ref); free(o->p1_resid);
    free(o->mean_log_gate); free(o->half_life); free(o->bytes); free(o->diverged);
    free(o->y); free(o->y_ref); free(o->S_final); free(o->S_ref_final);
    memset(o, 0, sizeof *o);
}

int stepq_run_prepare(int* plan_index, const stepq_source* src, const stepq_run_cfg* cfg) {
    stepq_assert(cfg->bin >= 1 && cfg->prefill >= 0 && cfg->decode >= 1);
    if (cfg->prefill + cfg->decode > src->T) {
        stepq_error("%s has %ld steps; prefill %ld + decode %ld need %ld", src->desc, src->T,
                    cfg->prefill, cfg->decode, cfg->prefill + cfg->decode);
        return STEPQ_ERR;
    }
    if (stepq_formats_fit(cfg->formats, cfg->n_formats, src) != STEPQ_OK) return STEPQ_ERR;
    const stepq_format* planned = stepq_first_planned(cfg->formats, cfg->n_formats);
    if (planned && !cfg->plan) {  // the front end says which option or key gives one
        stepq_error("format %s needs a calibration plan (made by `stepq calibrate`)", planned->name);
        return STEPQ_ERR;
    }
    if (planned && stepq_plan_match(plan_index, cfg->plan, src, cfg->plan->file, cfg->plan_any_model) != STEPQ_OK) return STEPQ_ERR;
    const double FH = (double)cfg->n_formats * src->n_heads, bins = (double)((cfg->decode + cfg->bin - 1) / cfg->bin);
    if (stepq_check_memory(2.0 * sizeof(float) * FH * bins, "the run's errors per bin (formats x heads x bins)"))
        return STEPQ_ERR;  // a trace declaring 10^10 steps in a few KB: its bins alone
    if (cfg->keep_y &&
        stepq_check_memory(4.0 * ((double)(cfg->n_formats + 1) * src->n_heads * (cfg->prefill + cfg->decode) * src->V +
                                  (double)(cfg->n_formats + 1) * src->n_heads * src->K * src->V),
                           "keeping every read-out and final state of the run"))
        return STEPQ_ERR;
    return STEPQ_OK;
}

void stepq_run_out_bin_means(stepq_run_out* o, const stepq_run_cfg* cfg) {
    for (size_t fh = 0; fh < (size_t)o->F * o->H; fh++) {
        long dv = o->diverged[fh];
        if (dv >= 0) o->acc_sq[fh] = NAN;
        for (long b = 0; b < o->n_bins; b++) {
            long n = b == o->n_bins - 1 ? cfg->decode - b * cfg->bin : cfg->bin;
            int gone = dv >= 0 && b >= dv / cfg->bin;
            o->err_y[fh * o->n_bins + b] = gone ? NAN : o->err_y[fh * o->n_bins + b] / (float)n;
            o->err_S[fh * o->n_bins + b] = gone ? NAN : o->err_S[fh * o->n_bins + b] / (float)n;
        }
    }
}

int stepq_plan_match(int* plan_index, const stepq_plan* p, const stepq_source* src,
                     const char* plan_path, int any_model) {
    if (!p) return STEPQ_OK;
    if (p->kind != src->kind || p->K != src->K || p->V != src->V) {
        stepq_error("%s was made for a %s model with %d x %d heads; this source is %s with %d x %d "
                    "(%s): make a plan for it with `stepq calibrate`", plan_path,
                    stepq_kind_name(p->kind), p->K, p->V, stepq_kind_name(src->kind), src->K, src->V,
                    src->desc);
        return STEPQ_ERR;
    }
    if (p->model_sha256[0] && src->model_sha256[0] && strcmp(p->model_sha256, src->model_sha256)) {
        stepq_error("%s was calibrated on the model whose weights have SHA-256 %.16s...; %s is of weights "
                    "%.16s...: calibrate on this model's traces", plan_path, p->model_sha256, src->desc,
                    src->model_sha256);
        return STEPQ_ERR;
    }
    if (!p->model_sha256[0] && src->model_sha256[0] && !any_model) {
        stepq_error("%s names no model (it was calibrated on synthetic streams, or on traces that name none); "
                    "%s is of the model whose weights have SHA-256 %.16s...: calibrate on this model's traces, "
                    "or say that a plan of any model will do (--plan-any-model)", plan_path, src->desc,
                    src->model_sha256);
        return STEPQ_ERR;
    }
    for (int h = 0; h < src->n_heads; h++) {
        int ph = stepq_plan_find(p, src->layer[h], src->head[h]);
        if (ph < 0) {
            stepq_error("%s has no head (layer %d, head %d) of %s: it was made for another set of "
                        "heads; calibrate on the same layers and heads", plan_path, src->layer[h],
                        src->head[h], src->desc);
            return STEPQ_ERR;
        }
        if (plan_index) plan_index[h] = ph;
    }
    return STEPQ_OK;
}

int stepq_formats_fit(const stepq_format* const* formats, int n, const stepq_source* src) {
    for (int f = 0; f < n; f++) {
        char what[sizeof src->desc + 64];
        snprintf(what, sizeof what, "format %.40s for %s", formats[f]->name, src->desc);
        if (stepq_family_fits(formats[f]->family, what, src->K, src->V) != STEPQ_OK) return STEPQ_ERR;
    }
    return STEPQ_OK;
}

const stepq_format* stepq_first_planned(const stepq_format* const* formats, int n) {
    for (int f = 0; f < n; f++)
        if (stepq_format_needs_plan(formats[f])) return formats[f];
    return NULL;
}

// runner.c: every head of a source through the decode-step protocol; see runner.h.
#include "runner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/stats.h"
#include "journal.h"
#include "../sim/kernels.h"
#include "../sim/protocol.h"
#include "../sim/recurrence.h"
#include "../sim/runstate.h"
#include "../sim/sums.h"
#include "progress.h"

// per-thread scratch, reused head after head (never allocated per step)
typedef struct {
    stepq_runstate rs;   // the reference: S, y (= y_ref), y_hat, work, grad
    float* pred;         // (F,V) P1's prediction of each format's read-out error
    float* decay;        // (K) the step's decay of each key row
    stepq_qstate* qs;    // (F), set up per head (widths depend on the head)
    const int* plan_index;  // (H) the plan's index of each source head
    const stepq_kernels* k;  // the decode step's implementation (sim/kernels.h)
} head_scratch;

static void scratch_init(head_scratch* s, const stepq_run_cfg* cfg, const stepq_source* src) {
    stepq_runstate_init(&s->rs, src->K, src->V, src->n_gates);
    s->pred = mallocCheck(sizeof(float) * src->V * cfg->n_formats);
    s->decay = mallocCheck(sizeof(float) * src->K);
    s->qs = callocCheck((size_t)cfg->n_formats, sizeof(stepq_qstate));
    s->k = stepq_kernels_active();
    s->rs.step = s->k->step_f32;
}

static void scratch_free(head_scratch* s) {
    stepq_runstate_free(&s->rs);
    free(s->qs);
    free(s->pred);
    free(s->decay);
}

static double mean_gate(const stepq_step_in* in, int n_gates) {
    double s = 0;
    for (int i = 0; i < n_gates; i++) s += in->g[i];
    return s / n_gates;
}


typedef struct {
    long t;
    int f, h;
    int failed;
    int reference;  // 1: the float32 reference went non-finite, 0: format f's quantized path
} run_failure;

// the native prefill of head h: the reference steps, and every format reads its read-out
static double prefill(stepq_run_out* o, const stepq_source* src, const stepq_run_cfg* cfg, int h,
                      stepq_cursor* c, stepq_runstate* rs) {
    const int V = src->V, H = src->n_heads;
    stepq_step_in in;
    double gate_sum = 0;
    for (long t = 0; t < cfg->prefill; t++) {
        src->next(c, &in);
        gate_sum += mean_gate(&in, src->n_gates);
        stepq_runstate_step(rs, &in, src->scale);
        if (!cfg->keep_y) continue;
        memcpy(o->y_ref + ((size_t)t * H + h) * V, rs->y, sizeof(float) * V);
        for (int f = 0; f < cfg->n_formats; f++)
            memcpy(o->y + (((size_t)f * o->T + t) * H + h) * V, rs->y, sizeof(float) * V);
    }
    return gate_sum;
}

// the errors of format f's step t (bin b) against the reference of the same step: ny2 = ||y||^2,
// nS2 = ||S||_F^2, eS2 = ||S_hat - S||_F^2, pred = P1's prediction of the read-out error
static void measure(stepq_run_out* o, const stepq_run_cfg* cfg, int f, int h, long t, long b,
                    const stepq_runstate* rs, const float* pred, double ny2, double nS2,
                    const stepq_qmeasure* m) {
    const int V = o->V, H = o->H;
    double dy2, res2;
    stepq_readout_sums(&dy2, &res2, rs->y_hat, rs->y, pred, V);
    size_t fh = (size_t)f * H + h;
    if (m->hat2 > 100 * nS2 && nS2 > 0) o->diverged[fh] = t - cfg->prefill;  // ||S_hat|| > 10 ||S||
    o->err_y[fh * o->n_bins + b] += (float)stepq_rel(dy2, ny2);
    o->err_S[fh * o->n_bins + b] += (float)stepq_rel(m->err2, nS2);
    o->acc_sq[fh] += dy2;
    o->p1_resid[fh] = fmax(o->p1_resid[fh], stepq_rel(res2, ny2));
    if (cfg->keep_y) memcpy(o->y + (((size_t)f * o->T + t) * H + h) * V, rs->y_hat, sizeof(float) * V);
}

// One head end to end. Returns STEPQ_ERR with *fail filled when a format fails.
static int run_head(stepq_run_out* o, const stepq_source* src, const stepq_run_cfg* cfg, int h,
                    head_scratch* s, run_failure* fail) {
    const int K = src->K, V = src->V, F = cfg->n_formats, G = src->n_gates, H = src->n_heads;
    const size_t KV = (size_t)K * V;
    stepq_runstate* rs = &s->rs;
    stepq_runstate_reset(rs, src->S0 ? src->S0 + (size_t)h * KV : NULL);
    stepq_cursor* c = src->open(src, h);
    stepq_step_in in;
    double gate_sum = prefill(o, src, cfg, h, c, rs);
    int rc = STEPQ_OK;
    if (!isfinite(stepq_sq_norm(rs->S, K, V))) {
        *fail = (run_failure){cfg->prefill - 1, 0, h, 1, 1};
        rc = STEPQ_ERR;
    }
    for (int f = 0; f < F; f++) {  // checked by stepq_plan_match before any head runs
        stepq_assert(stepq_qstate_init(&s->qs[f], cfg->formats[f], cfg->plan, s->plan_index[h],
                                       src->kind, K, V) == STEPQ_OK);
        o->bytes[(size_t)f * H + h] = (double)s->qs[f].bytes;
        if (rc == STEPQ_OK && stepq_qstate_load(&s->qs[f], rs->S) != STEPQ_OK) {
            *fail = (run_failure){cfg->prefill, f, h, 1, 0};
            rc = STEPQ_ERR;
        }
    }
    for (long td = 0; td < cfg->decode && rc == STEPQ_OK; td++) {
        long t = cfg->prefill + td;
        src->next(c, &in);
        gate_sum += mean_gate(&in, G);
        // each format's read pass sees S_{t-1}, so P1's prediction of its read-out error,
        // E_{t-1}^T A_t^T (scale q_t), is taken before the reference steps
        stepq_readout_weights(rs->grad, in.q, in.k, in.g, in.beta, src->scale, G, K);
        stepq_decays(s->decay, in.g, G, K);
        for (int f = 0; f < F; f++)
            if (o->diverged[(size_t)f * H + h] < 0)
                s->k->qstep_read(&s->qs[f], &in, s->decay, rs->grad, rs->S, s->pred + (size_t)f * V);
        stepq_runstate_step(rs, &in, src->scale);
        double ny2 = stepq_sq_norm_row(rs->y, V), nS2 = stepq_sq_norm(rs->S, K, V);
        if (!isfinite(ny2) || !isfinite(nS2)) {
            *fail = (run_failure){t, 0, h, 1, 1};
            rc = STEPQ_ERR;
            break;
        }
        o->acc_ref[h] += ny2;
        if (cfg->keep_y) memcpy(o->y_ref + ((size_t)t * H + h) * V, rs->y, sizeof(float) * V);
        for (int f = 0; f < F && rc == STEPQ_OK; f++) {
            stepq_qmeasure m;
            if (o->diverged[(size_t)f * H + h] >= 0) continue;  // stopped
            if (s->k->qstep_write(&s->qs[f], &in, s->decay, src->scale, G, rs->S, rs->y_hat, &m) != STEPQ_OK) {
                *fail = (run_failure){t, f, h, 1, 0};
                rc = STEPQ_ERR;
            } else {
                measure(o, cfg, f, h, t, td / cfg->bin, rs, s->pred + (size_t)f * V, ny2, nS2, &m);
            }
        }
    }
    src->close(c);
    if (cfg->keep_y) {
        memcpy(o->S_ref_final + (size_t)h * KV, rs->S, sizeof(float) * KV);
        for (int f = 0; f < F; f++) stepq_qstate_decode(&s->qs[f], o->S_final + ((size_t)f * H + h) * KV);
    }
    for (int f = 0; f < F; f++) stepq_qstate_free(&s->qs[f]);
    o->mean_log_gate[h] = gate_sum / (double)(cfg->prefill + cfg->decode);
    o->half_life[h] = M_LN2 / -o->mean_log_gate[h];
    return rc;
}

static void out_alloc(stepq_run_out* o, const stepq_source* src, const stepq_run_cfg* cfg) {
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

// plan_index (H) <- the plan's head of each source head, when a format needs a plan
static int match_plan(int* plan_index, const stepq_source* src, const stepq_run_cfg* cfg) {
    const stepq_format* planned = stepq_first_planned(cfg->formats, cfg->n_formats);
    if (!planned) return STEPQ_OK;
    if (!cfg->plan) {  // the front end says which option or key gives one
        stepq_error("format %s needs a calibration plan (made by `stepq calibrate`)", planned->name);
        return STEPQ_ERR;
    }
    return stepq_plan_match(plan_index, cfg->plan, src, cfg->plan->file);
}

// bins hold sums: turn them into means (the last bin may be short); a diverged format's bins
// from its divergence on, and its accumulated error, are NaN
static void bin_means(stepq_run_out* o, const stepq_run_cfg* cfg) {
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

int stepq_run_heads(stepq_run_out* o, const stepq_source* src, const stepq_run_cfg* cfg) {
    stepq_assert(cfg->bin >= 1 && cfg->prefill >= 0 && cfg->decode >= 1);
    if (cfg->prefill + cfg->decode > src->T) {
        stepq_error("%s has %ld steps; prefill %ld + decode %ld need %ld", src->desc, src->T,
                    cfg->prefill, cfg->decode, cfg->prefill + cfg->decode);
        return STEPQ_ERR;
    }
    int* plan_index = callocCheck((size_t)src->n_heads, sizeof(int));
    if (match_plan(plan_index, src, cfg) != STEPQ_OK) {
        free(plan_index);
        return STEPQ_ERR;
    }
    if (cfg->keep_y &&
        stepq_check_memory(4.0 * ((double)(cfg->n_formats + 1) * src->n_heads * (cfg->prefill + cfg->decode) * src->V +
                                  (double)(cfg->n_formats + 1) * src->n_heads * src->K * src->V),
                           "keeping every read-out and final state of the run")) {
        free(plan_index);
        return STEPQ_ERR;
    }
    out_alloc(o, src, cfg);
    run_failure fail = {0, 0, 0, 0, 0};
    int journal_failed = 0;
    stepq_assert(!(cfg->journal && cfg->keep_y));
    stepq_progress pr;
    stepq_progress_start(&pr, cfg->label ? cfg->label : "run", "heads", src->n_heads);
#pragma omp parallel
    {
        head_scratch s;
        scratch_init(&s, cfg, src);
        s.plan_index = plan_index;
#pragma omp for schedule(dynamic, 1)
        for (int h = 0; h < src->n_heads; h++) {
            run_failure mine = {0, 0, 0, 0, 0};
            int skip;
#pragma omp atomic read
            skip = fail.failed;
            if (skip) continue;
            if (cfg->journal && stepq_journal_fill(cfg->journal, cfg->journal_seed, h, o)) {
                stepq_progress_tick(&pr);
                continue;
            }
            if (run_head(o, src, cfg, h, &s, &mine) != STEPQ_OK) {
#pragma omp critical(stepq_run_fail)
                if (!fail.failed || h < fail.h) fail = mine;
            } else if (cfg->journal && stepq_journal_add(cfg->journal, cfg->journal_seed, h, o) != STEPQ_OK) {
#pragma omp atomic write
                journal_failed = 1;
            }
            stepq_progress_tick(&pr);
        }
        scratch_free(&s);
    }
    stepq_progress_end(&pr);
    free(plan_index);
    if (journal_failed) {
        stepq_run_out_free(o);
        return STEPQ_ERR;
    }
    if (fail.failed && fail.reference) {
        stepq_error("%s: the float32 reference met a non-finite state or read-out at head %d (layer %d, "
                    "head %d), step %ld: the inputs overflow the recurrence; nothing was written",
                    src->desc, fail.h, src->layer[fail.h], src->head[fail.h], fail.t);
        stepq_run_out_free(o);
        return STEPQ_ERR;
    }
    if (fail.failed) {
        stepq_error("%s: the quantized path of format %s met a non-finite state at head %d (layer %d, "
                    "head %d), step %ld; the format overflowed; nothing was written",
                    src->desc, cfg->formats[fail.f]->name, fail.h, src->layer[fail.h],
                    src->head[fail.h], fail.t);
        stepq_run_out_free(o);
        return STEPQ_ERR;
    }
    bin_means(o, cfg);
    return STEPQ_OK;
}

double stepq_run_bits(const stepq_run_out* o, int f) {
    double b = 0;
    for (int h = 0; h < o->H; h++) b += o->bytes[(size_t)f * o->H + h];
    return 8.0 * b / ((double)o->H * o->K * o->V);
}

int stepq_plan_match(int* plan_index, const stepq_plan* p, const stepq_source* src,
                     const char* plan_path) {
    if (!p) return STEPQ_OK;
    if (p->kind != src->kind || p->K != src->K || p->V != src->V) {
        stepq_error("%s was made for a %s model with %d x %d heads; this source is %s with %d x %d "
                    "(%s): make a plan for it with `stepq calibrate`", plan_path,
                    stepq_kind_name(p->kind), p->K, p->V, stepq_kind_name(src->kind), src->K, src->V,
                    src->desc);
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

const stepq_format* stepq_first_planned(const stepq_format* const* formats, int n) {
    for (int f = 0; f < n; f++)
        if (stepq_format_needs_plan(formats[f])) return formats[f];
    return NULL;
}

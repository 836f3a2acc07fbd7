// run.c: the CPU's whole run (backend.h's run_heads of every CPU backend): every head of a
// source through the head loop (sim/headloop.h) with measure() as its observer, the figures of
// method 3 (P1) into stepq_run_out. The CUDA engine fills the same figures its own way
// (sim/cuda/engine.h); analysis/runner.h's stepq_run_heads picks between them.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/progress.h"
#include "../base/ranks.h"
#include "../base/stats.h"
#include "backend.h"
#include "headloop.h"
#include "runout.h"
#include "sums.h"

// The run's observer: measure() of every decode step into stepq_run_out (method 3, P1).
typedef struct {
    stepq_run_out* o;
    const stepq_run_cfg* cfg;
} run_ctx;

// per-thread sums of the head in flight, stored in the run's arrays when the head ends. Written
// there every step, their cache lines went back and forth between the threads stepping
// neighbouring heads: the 96-head format table took 297 s of CPU time on 2 threads (151 s wall)
// against 258 s on one; with the sums here 252 s (128 s wall)
typedef struct {
    double* acc_sq;    // (F) the head's accumulated read-out error of each format
    double* p1_resid;  // (F) and its largest P1 residual
    double acc_ref;    // the reference's accumulated ||y||^2
    double gate_sum;   // sum over steps of the mean log gate
} run_sums;

static void* sums_init(void* ctx, const stepq_view* shape) {
    run_sums* s = callocCheck(1, sizeof *s);
    s->acc_sq = callocCheck((size_t)shape->F + 1, sizeof(double));
    s->p1_resid = callocCheck((size_t)shape->F + 1, sizeof(double));
    return s;
}

static void sums_free(void* tls) {
    run_sums* s = tls;
    free(s->acc_sq);
    free(s->p1_resid);
    free(s);
}

static int run_init_head(void* ctx, void* tls, const stepq_view* v) {
    run_sums* s = tls;
    s->acc_ref = s->gate_sum = 0;
    for (int f = 0; f < v->F; f++) s->acc_sq[f] = 0, s->p1_resid[f] = NAN;  // NaN until a step defines it
    return STEPQ_OK;
}

static int run_boundary(void* ctx, void* tls, const stepq_view* v) {
    run_ctx* r = ctx;
    for (int f = 0; f < v->F; f++) r->o->bytes[(size_t)f * r->o->H + v->h] = (double)v->f[f].qs->bytes;
    return STEPQ_OK;
}

// the errors of format f's decode step against the reference of the same step (v->ny2 = ||y||^2,
// v->nS2 = ||S||_F^2; the slot's measure m: eS2 = ||S_hat - S||_F^2), into bin b
static void measure(stepq_run_out* o, const stepq_run_cfg* cfg, run_sums* s, const stepq_view* v, int f,
                    long b) {
    const int V = o->V, H = o->H;
    const stepq_slot_view* sv = &v->f[f];
    const long t = v->t - 1;
    double dy2, res2;
    stepq_readout_sums(&dy2, &res2, sv->y_hat, v->y, sv->pred, V);
    size_t fh = (size_t)f * H + v->h;
    if (sv->m.hat2 > 100 * v->nS2 && v->nS2 > 0) {  // ||S_hat|| > 10 ||S||: the format stops here
        o->diverged[fh] = t - cfg->prefill;
        stepq_view_stop(v, f);
    }
    o->err_y[fh * o->n_bins + b] += (float)stepq_rel(dy2, v->ny2);
    o->err_S[fh * o->n_bins + b] += (float)stepq_rel(sv->m.err2, v->nS2);
    s->acc_sq[f] += dy2;
    // the largest over the steps whose reference read-out is not zero; NaN when none is (an
    // all-zero v: fmax alone would have made it 0, as if P1 predicted the error exactly)
    const double r1 = stepq_rel(res2, v->ny2);
    if (!isnan(r1)) s->p1_resid[f] = isnan(s->p1_resid[f]) ? r1 : fmax(s->p1_resid[f], r1);
    if (cfg->keep_y) memcpy(o->y + (((size_t)f * o->T + t) * H + v->h) * V, sv->y_hat, sizeof(float) * V);
}

static int run_step(void* ctx, void* tls, const stepq_view* v) {
    run_ctx* r = ctx;
    run_sums* s = tls;
    stepq_run_out* o = r->o;
    const int V = o->V, H = o->H;
    const long t = v->t - 1;
    s->gate_sum += stepq_mean_log_gate(v->in, v->G);
    if (!v->decoding) {  // the prefill: every format reads the reference's read-out
        if (!r->cfg->keep_y) return STEPQ_OK;
        memcpy(o->y_ref + ((size_t)t * H + v->h) * V, v->y, sizeof(float) * V);
        for (int f = 0; f < v->F; f++)
            memcpy(o->y + (((size_t)f * o->T + t) * H + v->h) * V, v->y, sizeof(float) * V);
        return STEPQ_OK;
    }
    s->acc_ref += v->ny2;
    if (r->cfg->keep_y) memcpy(o->y_ref + ((size_t)t * H + v->h) * V, v->y, sizeof(float) * V);
    for (int f = 0; f < v->F; f++)
        if (v->f[f].live) measure(o, r->cfg, s, v, f, (v->td - 1) / r->cfg->bin);
    return STEPQ_OK;
}

static int run_end_head(void* ctx, void* tls, const stepq_view* v) {
    run_ctx* r = ctx;
    run_sums* s = tls;
    stepq_run_out* o = r->o;
    const int F = v->F, H = o->H, h = v->h;
    const size_t KV = (size_t)o->K * o->V;
    o->acc_ref[h] = s->acc_ref;
    for (int f = 0; f < F; f++) {
        o->acc_sq[(size_t)f * H + h] = s->acc_sq[f];
        o->p1_resid[(size_t)f * H + h] = s->p1_resid[f];
    }
    if (r->cfg->keep_y) {
        memcpy(o->S_ref_final + (size_t)h * KV, v->S, sizeof(float) * KV);
        for (int f = 0; f < F; f++) stepq_qstate_decode(v->f[f].qs, o->S_final + ((size_t)f * H + h) * KV);
    }
    o->mean_log_gate[h] = s->gate_sum / (double)(r->cfg->prefill + r->cfg->decode);
    o->half_life[h] = M_LN2 / -o->mean_log_gate[h];
    return r->cfg->keep ? r->cfg->keep(r->cfg->hook_ctx, h, o) : STEPQ_OK;  // it says why it failed
}

// a head the driver already has (its journal's): its figures are read back instead
static int done_skip(void* ctx, int h) {
    run_ctx* r = ctx;
    return r->cfg->done && r->cfg->done(r->cfg->hook_ctx, h, r->o);
}

// what the heads of a run write, for an MPI run's merge
static void add_run_out(stepq_split* sp, stepq_run_out* o) {
    const size_t FH = (size_t)o->F * o->H, FHB = FH * o->n_bins, KV = (size_t)o->K * o->V;
    stepq_split_add(sp, o->err_y, sizeof(float) * FHB);
    stepq_split_add(sp, o->err_S, sizeof(float) * FHB);
    stepq_split_add(sp, o->acc_sq, sizeof(double) * FH);
    stepq_split_add(sp, o->p1_resid, sizeof(double) * FH);
    stepq_split_add(sp, o->bytes, sizeof(double) * FH);
    stepq_split_add(sp, o->diverged, sizeof(long) * FH);
    stepq_split_add(sp, o->acc_ref, sizeof(double) * o->H);
    stepq_split_add(sp, o->mean_log_gate, sizeof(double) * o->H);
    stepq_split_add(sp, o->half_life, sizeof(double) * o->H);
    if (o->y) {
        stepq_split_add(sp, o->y, sizeof(float) * FH * o->T * o->V);
        stepq_split_add(sp, o->y_ref, sizeof(float) * o->H * o->T * o->V);
        stepq_split_add(sp, o->S_final, sizeof(float) * FH * KV);
        stepq_split_add(sp, o->S_ref_final, sizeof(float) * o->H * KV);
    }
}

int stepq_cpu_run_heads(stepq_run_out* o, const stepq_source* src, const stepq_run_cfg* cfg) {
    int* plan_index = callocCheck((size_t)src->n_heads, sizeof(int));
    if (stepq_run_prepare(plan_index, src, cfg) != STEPQ_OK) {
        free(plan_index);
        return STEPQ_ERR;
    }
    stepq_assert(!((cfg->done || cfg->keep) && cfg->keep_y));
    const int F = cfg->n_formats;
    stepq_slot* slots = mallocCheck(sizeof(stepq_slot) * (F ? F : 1));
    for (int f = 0; f < F; f++) slots[f] = (stepq_slot){.fmt = cfg->formats[f], .proto = STEPQ_PROTO_NORMAL};
    stepq_run_out_alloc(o, src, cfg);
    run_ctx r = {.o = o, .cfg = cfg};
    stepq_observer* obs = mallocCheck(sizeof(stepq_observer) * (1 + (size_t)cfg->n_extra));
    obs[0] = (stepq_observer){.name = cfg->label ? cfg->label : "run", .needs = STEPQ_NEED_PRED | STEPQ_NEED_MEASURE,
                              .ctx = &r, .thread_init = sums_init, .thread_free = sums_free,
                              .init_head = run_init_head, .on_step = run_step, .on_boundary = run_boundary,
                              .end_head = run_end_head};
    for (int i = 0; i < cfg->n_extra; i++) obs[1 + i] = cfg->extra[i];
    stepq_progress pr;
    stepq_progress_start(&pr, cfg->label ? cfg->label : "run", "heads", src->n_heads);
    // an MPI run (base/ranks.h): the units are the seeds' heads, seed s head h being s H + h; the
    // heads' figures are merged after the loop. Extra observers stream what they see (replay's
    // read-outs): such a run is run whole by every rank.
    stepq_split sp;
    stepq_split_init(&sp);
    const int split = !cfg->n_extra;
    if (split) add_run_out(&sp, o);
    stepq_headloop_cfg hc = {.backend = cfg->backend, .slots = slots, .n_slots = F, .plan = cfg->plan,
                             .plan_index = plan_index, .prefill = cfg->prefill, .decode = cfg->decode,
                             .obs = obs, .n_obs = 1 + cfg->n_extra, .progress = &pr, .skip = done_skip,
                             .skip_ctx = &r, .split = split, .unit0 = (long)cfg->seed * src->n_heads};
    int rc = stepq_split_end(&sp, stepq_headloop_run(src, &hc), hc.obs[0].name);
    stepq_progress_end(&pr);
    free(plan_index);
    free(slots);
    free(obs);
    if (rc != STEPQ_OK) {
        stepq_run_out_free(o);
        return STEPQ_ERR;
    }
    stepq_run_out_bin_means(o, cfg);
    return STEPQ_OK;
}


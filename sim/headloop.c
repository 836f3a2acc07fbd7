// headloop.c: the head loop; see headloop.h.
#include "headloop.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/ranks.h"
#include "recurrence.h"
#include "sums.h"

// how a slot steps: its halves around the reference's step, picked once for the engine (below)
typedef struct stepq_slot_fns {
    // before the reference steps (it sees S_{t-1}), or NULL
    void (*read)(stepq_head* e, int f, const stepq_step_in* in);
    // after it; S_ref (K,V): the reference state to measure against, or NULL
    int (*write)(stepq_head* e, int f, const stepq_step_in* in, const float* S_ref);
} stepq_slot_fns;

static const stepq_slot_fns* fns_of(const stepq_slot* sl, unsigned needs);

// ---------------------------------------------------------------------------------------------
// checks before any work

static unsigned all_needs(const stepq_headloop_cfg* cfg) {
    unsigned n = 0;
    for (int o = 0; o < cfg->n_obs; o++) n |= cfg->obs[o].needs;
    return n;
}

// a run without the reference: nothing may read it
static int no_reference_refused(const stepq_headloop_cfg* cfg, const char* what) {
    for (int o = 0; o < cfg->n_obs; o++) {
        const unsigned n = cfg->obs[o].needs;
        if (!n) continue;
        stepq_error("%s: %s reads %s, against the float32 reference, which a run without it (a serving step) "
                    "does not step", what, cfg->obs[o].name,
                    n & STEPQ_NEED_PRED ? "P1's prediction" : n & STEPQ_NEED_MEASURE ? "the state errors" : "the states");
        return STEPQ_ERR;
    }
    for (int f = 0; f < cfg->n_slots; f++)
        if (cfg->slots[f].proto == STEPQ_PROTO_CUT) {
            stepq_error("%s: the cut protocol reads its delta write on the float32 reference, which a run "
                        "without it (a serving step) does not step", what);
            return STEPQ_ERR;
        }
    return STEPQ_OK;
}

int stepq_headloop_check(const stepq_headloop_cfg* cfg, const char* what) {
    const stepq_backend* be = cfg->backend;
    stepq_assert(be);  // chosen by the front end and passed down (sim/backend.h)
    if (!be->step || !be->read || !be->write) {
        stepq_error("%s: backend %s does not step heads one at a time (it runs whole propagation "
                    "runs only); run it with backend \"cpu\"", what, be->name);
        return STEPQ_ERR;
    }
    if ((all_needs(cfg) & STEPQ_NEED_STATES) && !be->write_keep) {
        stepq_error("%s: backend %s does not keep the state before its encode, which %s reads",
                    what, be->name, what);
        return STEPQ_ERR;
    }
    if (cfg->no_reference && no_reference_refused(cfg, what) != STEPQ_OK) return STEPQ_ERR;
    for (int f = 0; f < cfg->n_slots; f++)
        if ((cfg->slots[f].proto == STEPQ_PROTO_CUT && !be->write_cut) ||
            (cfg->slots[f].proto == STEPQ_PROTO_ROWS && !be->write_rows)) {
            stepq_error("%s: backend %s does not run the %s protocol (method 3)", what, be->name,
                        cfg->slots[f].proto == STEPQ_PROTO_CUT ? "cut" : "row-subset");
            return STEPQ_ERR;
        }
    return STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------
// one head's engine

void stepq_head_init(stepq_head* e, const stepq_headloop_cfg* cfg, const stepq_head_shape* shape) {
    memset(e, 0, sizeof *e);
    e->cfg = cfg;
    e->be = cfg->backend;
    stepq_assert(e->be);
    e->F = cfg->n_slots;
    e->K = shape->K;
    e->V = shape->V;
    e->G = shape->n_gates;
    e->kind = shape->kind;
    e->scale = shape->scale;
    e->needs = all_needs(cfg);
    e->decays = cfg->n_obs > 0;
    const size_t F = (size_t)e->F, K = (size_t)e->K, V = (size_t)e->V;
    stepq_runstate_init(&e->rs, e->be, e->K, e->V, e->G);
    e->qs = callocCheck(F ? F : 1, sizeof(stepq_qstate));
    e->y_hat = mallocCheck(sizeof(float) * (F ? F : 1) * V);
    e->pred = e->needs & STEPQ_NEED_PRED ? mallocCheck(sizeof(float) * (F ? F : 1) * V) : NULL;
    e->X_pre = e->needs & STEPQ_NEED_STATES ? mallocCheck(sizeof(float) * (F ? F : 1) * K * V) : NULL;
    e->S_kept = e->needs & STEPQ_NEED_PRED && F > 1 ? mallocCheck(sizeof(float) * K * V) : NULL;
    e->decay = mallocCheck(sizeof(float) * K);
    e->u_ref = mallocCheck(sizeof(float) * V);
    e->stopped = callocCheck(F ? F : 1, 1);
    e->sv = callocCheck(F ? F : 1, sizeof(stepq_slot_view));
    e->tls = callocCheck((size_t)(cfg->n_obs ? cfg->n_obs : 1), sizeof(void*));
    e->fns = callocCheck(F ? F : 1, sizeof(stepq_slot_fns*));
    for (int f = 0; f < e->F; f++) {
        e->fns[f] = fns_of(&cfg->slots[f], e->needs);
        e->any_cut |= cfg->slots[f].proto == STEPQ_PROTO_CUT;
        e->decays |= cfg->slots[f].proto != STEPQ_PROTO_ROWS;
    }
    stepq_view shape_view = {.F = e->F, .K = e->K, .V = e->V, .G = e->G, .kind = e->kind,
                             .scale = e->scale};
    for (int o = 0; o < cfg->n_obs; o++)
        if (cfg->obs[o].thread_init) e->tls[o] = cfg->obs[o].thread_init(cfg->obs[o].ctx, &shape_view);
}

// the slots' states of a head freed (a head that failed ends here: no end_head, its figures are
// not kept)
static void drop(stepq_head* e) {
    for (int f = 0; f < e->F; f++) stepq_qstate_free(&e->qs[f]);
    e->loaded = 0;
}

void stepq_head_free(stepq_head* e) {
    for (int o = 0; o < e->cfg->n_obs; o++)
        if (e->cfg->obs[o].thread_free) e->cfg->obs[o].thread_free(e->tls[o]);
    if (e->loaded) drop(e);
    stepq_runstate_free(&e->rs);
    free(e->qs); free(e->y_hat); free(e->pred); free(e->X_pre); free(e->S_kept); free(e->decay); free(e->u_ref);
    free(e->stopped); free(e->sv); free(e->tls); free(e->fns);
    memset(e, 0, sizeof *e);
}

// the view of the engine's present state (the reference's: none after the boundary without one)
static stepq_view view_of(const stepq_head* e, const stepq_step_in* in, int decoding) {
    const int ref = !e->cfg->no_reference || e->t <= e->cfg->prefill;
    return (stepq_view){.h = e->h, .segment = e->segment, .t = e->t, .td = e->t > e->cfg->prefill ? e->t - e->cfg->prefill : 0,
                        .decoding = decoding, .in = in, .decay = e->decay, .grad = e->rs.grad,
                        .S = ref ? e->rs.S : NULL, .y = ref ? e->rs.y : NULL, .ny2 = 0, .nS2 = 0, .scale = e->scale,
                        .F = e->F, .K = e->K, .V = e->V, .G = e->G, .kind = e->kind, .f = e->sv,
                        .stopped = e->stopped};
}

typedef int (*obs_fn)(void*, void*, const stepq_view*);

static int notify(stepq_head* e, const stepq_view* v, size_t member) {
    for (int o = 0; o < e->cfg->n_obs; o++) {
        const stepq_observer* ob = &e->cfg->obs[o];
        obs_fn fn = *(const obs_fn*)((const char*)ob + member);
        if (fn && fn(ob->ctx, e->tls[o], v) != STEPQ_OK) {
            e->fail_obs = 1;
            return STEPQ_ERR;
        }
    }
    return STEPQ_OK;
}
#define NOTIFY(e, v, hook) notify((e), (v), offsetof(stepq_observer, hook))

int stepq_head_begin(stepq_head* e, int h, int ph, const float* S0) {
    stepq_assert(!e->loaded);
    e->h = h;
    e->t = 0;
    e->fail_t = -1;
    e->fail_f = -1;
    e->fail_obs = 0;
    stepq_runstate_reset(&e->rs, S0);
    for (int f = 0; f < e->F; f++) {
        e->stopped[f] = 0;
        // the formats fit and their plan covers the head: checked before any head runs
        stepq_assert(stepq_qstate_init(&e->qs[f], e->cfg->slots[f].fmt, e->cfg->plan, ph, e->kind,
                                       e->K, e->V) == STEPQ_OK);
    }
    e->loaded = 1;
    stepq_view v = view_of(e, NULL, 0);
    return NOTIFY(e, &v, init_head);
}

// the rows of head e->h a row-subset slot marks
static const int8_t* slot_rows(const stepq_head* e, const stepq_slot* sl) {
    return sl->rows + (size_t)e->h * sl->rows_stride;
}

// the boundary: the native state checked, then encoded by every slot
static int boundary(stepq_head* e) {
    const size_t V = (size_t)e->V, KV = (size_t)e->K * e->V;
    if (!isfinite(stepq_sq_norm(e->rs.S, e->K, e->V))) {
        e->fail_t = e->t - 1;
        return STEPQ_ERR;
    }
    for (int f = 0; f < e->F; f++) {
        const stepq_slot* sl = &e->cfg->slots[f];
        if (sl->proto == STEPQ_PROTO_ROWS) {  // from the exact state, or with its rows re-encoded
            memcpy(e->qs[f].X, e->rs.S, sizeof(float) * KV);
            if (sl->rows_boundary && stepq_rows_reencode(e->qs[f].X, slot_rows(e, sl), sl->rows_value,
                                                         sl->fmt->width, e->K, e->V) != STEPQ_OK) {
                e->fail_t = e->t;
                e->fail_f = f;
                return STEPQ_ERR;
            }
        } else if (stepq_qstate_load(&e->qs[f], e->rs.S) != STEPQ_OK) {
            e->fail_t = e->t;
            e->fail_f = f;
            return STEPQ_ERR;
        }
        e->sv[f] = (stepq_slot_view){.qs = &e->qs[f], .y_hat = e->y_hat + f * V,
                                     .X_pre = e->X_pre ? e->X_pre + f * KV : NULL,
                                     .pred = e->pred ? e->pred + f * V : NULL, .live = 1};
    }
    stepq_view v = view_of(e, NULL, 0);
    return NOTIFY(e, &v, on_boundary);
}

// ---------------------------------------------------------------------------------------------
// how a slot steps

static float* slot_pred(const stepq_head* e, int f) { return e->pred ? e->pred + (size_t)f * e->V : NULL; }
static float* slot_y(const stepq_head* e, int f) { return e->y_hat + (size_t)f * e->V; }

// the normal protocol on the backend's halves (the fused kernels on a CPU backend)
static void read_normal(stepq_head* e, int f, const stepq_step_in* in) {
    float* pred = slot_pred(e, f);
    e->be->read(&e->qs[f], in, e->decay, pred ? e->rs.grad : NULL, pred ? e->S_prev : NULL, pred);
}
static int write_normal(stepq_head* e, int f, const stepq_step_in* in, const float* S_ref) {
    return e->be->write(&e->qs[f], in, e->decay, e->scale, e->G, S_ref, slot_y(e, f), &e->sv[f].m);
}

// the normal protocol keeping X_t and S_hat_t (STEPQ_NEED_STATES): the backend's read, then its
// write_keep
static int write_keep(stepq_head* e, int f, const stepq_step_in* in, const float* S_ref) {
    if (e->be->write_keep(&e->qs[f], in, e->decay, e->scale, e->G, slot_y(e, f),
                          e->X_pre + (size_t)f * e->K * e->V))
        return STEPQ_ERR;
    stepq_ref_measure(&e->sv[f].m, &e->qs[f], S_ref);  // qs->X is S_hat_t
    return STEPQ_OK;
}

static int write_cut(stepq_head* e, int f, const stepq_step_in* in, const float* S_ref) {
    if (e->be->write_cut(&e->qs[f], in, e->decay, e->u_ref, e->scale, slot_y(e, f))) return STEPQ_ERR;
    stepq_ref_measure(&e->sv[f].m, &e->qs[f], S_ref);  // qs->X is S_hat_t
    return STEPQ_OK;
}

static int write_rows(stepq_head* e, int f, const stepq_step_in* in, const float* S_ref) {
    const stepq_slot* sl = &e->cfg->slots[f];
    if (e->be->write_rows(&e->qs[f], in, e->scale, e->G, slot_y(e, f), slot_rows(e, sl), sl->rows_value,
                          sl->fmt->width))
        return STEPQ_ERR;
    stepq_ref_measure(&e->sv[f].m, &e->qs[f], S_ref);  // qs->X is S_hat_t
    return STEPQ_OK;
}

static const stepq_slot_fns fns_normal = {read_normal, write_normal}, fns_keep = {read_normal, write_keep},
                            fns_cut = {NULL, write_cut}, fns_rows = {NULL, write_rows};

static const stepq_slot_fns* fns_of(const stepq_slot* sl, unsigned needs) {
    if (sl->proto == STEPQ_PROTO_CUT) return &fns_cut;
    if (sl->proto == STEPQ_PROTO_ROWS) return &fns_rows;
    return needs & STEPQ_NEED_STATES ? &fns_keep : &fns_normal;
}

static int decode_step(stepq_head* e, const stepq_step_in* in) {
    const int K = e->K, V = e->V, G = e->G;
    stepq_runstate* rs = &e->rs;
    // Each slot's read half sees S_{t-1} (P1's prediction of its read-out error, E_{t-1}^T A_t^T
    // (scale q_t)), its write half S_t. With several slots, S_{t-1} is kept and the reference
    // steps first, so that each slot's halves run back to back and what its read pass leaves for
    // its write pass (its rows, qs->xd) is still in cache (with every read before any write, 30
    // formats' 64 KiB each had left it); one slot reads before the reference steps, with no copy.
    const int apart = e->F > 1 && (e->needs & STEPQ_NEED_PRED);
    if (e->needs & STEPQ_NEED_PRED) stepq_readout_weights(rs->grad, in->q, in->k, in->g, in->beta, e->scale, G, K);
    if (e->decays) stepq_decays(e->decay, in->g, G, K);
    e->S_prev = apart ? e->S_kept : rs->S;
    if (apart) memcpy(e->S_kept, rs->S, sizeof(float) * K * V);
    else
        for (int f = 0; f < e->F; f++)
            if (!e->stopped[f] && e->fns[f]->read) e->fns[f]->read(e, f, in);
    if (e->any_cut) stepq_delta_write(e->u_ref, rs->S, in, e->decay, K, V);
    const int ref = !e->cfg->no_reference;
    double nS2 = 0;  // ||S_t||_F^2, summed as the step writes the rows where the backend can
    if (ref && e->be->step_norm)
        nS2 = e->be->step_norm(rs->S, rs->y, rs->work, in->q, in->k, in->v, in->g, in->beta, e->scale, rs->G, K, V);
    else if (ref) {
        stepq_runstate_step(rs, in, e->scale);
        nS2 = stepq_sq_norm(rs->S, K, V);
    }
    e->t++;
    stepq_view v = view_of(e, in, 1);
    if (ref) {
        v.ny2 = stepq_sq_norm_row(rs->y, V);
        v.nS2 = nS2;
        if (!isfinite(v.ny2) || !isfinite(v.nS2)) {
            e->fail_t = e->t - 1;
            return STEPQ_ERR;
        }
    }
    const float* S_ref = e->needs & STEPQ_NEED_MEASURE ? rs->S : NULL;
    for (int f = 0; f < e->F; f++) {
        e->sv[f].live = !e->stopped[f];
        if (!e->sv[f].live) continue;
        if (apart && e->fns[f]->read) e->fns[f]->read(e, f, in);
        if (e->fns[f]->write(e, f, in, S_ref) != STEPQ_OK) {
            e->fail_t = e->t - 1;
            e->fail_f = f;
            return STEPQ_ERR;
        }
    }
    return NOTIFY(e, &v, on_step);
}

int stepq_head_step(stepq_head* e, const stepq_step_in* in) {
    const long prefill = e->cfg->prefill;
    if (e->t < prefill) {  // native prefill: the reference alone
        stepq_runstate_step(&e->rs, in, e->scale);
        e->t++;
        stepq_view v = view_of(e, in, 0);
        if (NOTIFY(e, &v, on_step) != STEPQ_OK) return STEPQ_ERR;
        return e->t == prefill && e->cfg->decode > 0 ? boundary(e) : STEPQ_OK;
    }
    if (e->t == 0 && prefill == 0 && boundary(e) != STEPQ_OK) return STEPQ_ERR;
    return decode_step(e, in);
}

int stepq_head_end(stepq_head* e) {
    stepq_view v = view_of(e, NULL, 0);
    int rc = NOTIFY(e, &v, end_head);
    drop(e);
    return rc;
}

// ---------------------------------------------------------------------------------------------
// every head of a source

typedef struct {
    int failed, h, f;  // the first failing head in head order: its slot (-1: the reference)
    long t;
    int observer;      // 1: an observer or the source failed (it printed its message)
    int seg;           // in which source
} loop_failure;

static void report(const loop_failure* x, const stepq_source* src, const stepq_headloop_cfg* cfg) {
    if (x->observer) return;
    if (x->f < 0)
        stepq_error("%s: the float32 reference met a non-finite state or read-out at head %d (layer %d, "
                    "head %d), step %ld: the inputs overflow the recurrence; nothing was written",
                    src->desc, x->h, src->layer[x->h], src->head[x->h], x->t);
    else
        stepq_error("%s: the quantized path of format %s%s met a non-finite state at head %d (layer %d, "
                    "head %d), step %ld; the format overflowed; nothing was written", src->desc,
                    cfg->slots[x->f].fmt->name, cfg->slots[x->f].proto == STEPQ_PROTO_CUT ? " (cut protocol)" : "",
                    x->h, src->layer[x->h], src->head[x->h], x->t);
}

// one head from its cursor to its end, in each source in turn
static int run_one(stepq_head* e, const stepq_source* const* srcs, int n, const stepq_headloop_cfg* cfg, int h,
                   loop_failure* mine) {
    int rc = STEPQ_OK;
    const int ph = cfg->plan_index ? cfg->plan_index[h] : 0;
    for (int seg = 0; seg < n && rc == STEPQ_OK; seg++) {
        const stepq_source* src = srcs[seg];
        const size_t KV = (size_t)src->K * src->V;
        e->segment = seg;
        rc = stepq_head_begin(e, h, ph, src->S0 && !cfg->from_zero ? src->S0 + (size_t)h * KV : NULL);
        if (rc == STEPQ_OK) {
            stepq_cursor* c = src->open(src, h);
            stepq_step_in in;
            for (long t = 0; t < cfg->prefill + cfg->decode && rc == STEPQ_OK; t++) {
                if (stepq_next_step(c, &in) != STEPQ_OK) {  // the source said why
                    e->fail_obs = 1;
                    rc = STEPQ_ERR;
                    break;
                }
                rc = stepq_head_step(e, &in);
            }
            src->close(c);
        }
        if (rc == STEPQ_OK) rc = stepq_head_end(e);
        else drop(e);
    }
    *mine = (loop_failure){.failed = rc != STEPQ_OK, .h = h, .f = e->fail_f, .t = e->fail_t, .observer = e->fail_obs, .seg = e->segment};
    return rc;
}

// a head another rank runs (cfg->split, base/ranks.h), or one the driver has (a journal's): its
// owner is asked first, so that a journal fills only the heads this rank runs
static int skipped(const stepq_headloop_cfg* cfg, int h) {
    if (cfg->split && !stepq_rank_owns(cfg->unit0 + h)) return 1;
    return cfg->skip && cfg->skip(cfg->skip_ctx, h);
}

// A lockstep source: every head in flight at once, one engine each (heads in parallel within a
// step), the source's steps read once for all of them
static int run_lockstep(const stepq_source* const* srcs, int n, const stepq_headloop_cfg* cfg) {
    const stepq_source* src = srcs[0];
    const int H = src->n_heads;
    const stepq_head_shape shape = stepq_shape_of(src);
    stepq_head* e = callocCheck((size_t)H, sizeof(stepq_head));
    stepq_step_in* in = callocCheck((size_t)H, sizeof(stepq_step_in));
    int* skip = callocCheck((size_t)H, sizeof(int));
    for (int h = 0; h < H; h++) {
        stepq_head_init(&e[h], cfg, &shape);
        skip[h] = skipped(cfg, h);
    }
    loop_failure first = {.failed = 0, .h = 0, .f = -1, .t = 0, .observer = 0, .seg = 0};
    for (int seg = 0; seg < n && !first.failed; seg++) {
        const stepq_source* s = srcs[seg];
        const size_t KV = (size_t)s->K * s->V;
        for (int h = 0; h < H && !first.failed; h++) {
            if (skip[h]) continue;
            e[h].segment = seg;
            if (stepq_head_begin(&e[h], h, cfg->plan_index ? cfg->plan_index[h] : 0,
                                 s->S0 && !cfg->from_zero ? s->S0 + (size_t)h * KV : NULL) != STEPQ_OK)
                first = (loop_failure){.failed = 1, .h = h, .f = -1, .t = 0, .observer = 1, .seg = seg};
        }
        stepq_cursor* c = s->open(s, -1);
        for (long t = 0; t < cfg->prefill + cfg->decode && !first.failed; t++) {
            if (stepq_next_step(c, in) != STEPQ_OK) {  // the source said why
                first = (loop_failure){.failed = 1, .h = 0, .f = -1, .t = t, .observer = 1, .seg = seg};
                break;
            }
            int bad = H;
#pragma omp parallel for schedule(static)
            for (int h = 0; h < H; h++)
                if (!skip[h] && stepq_head_step(&e[h], &in[h]) != STEPQ_OK) {
#pragma omp critical(stepq_headloop_fail)
                    if (h < bad) bad = h;
                }
            if (bad < H) first = (loop_failure){.failed = 1, .h = bad, .f = e[bad].fail_f, .t = e[bad].fail_t, .observer = e[bad].fail_obs, .seg = seg};
        }
        s->close(c);
        for (int h = 0; h < H; h++) {
            if (skip[h] || !e[h].loaded) continue;
            if (first.failed) drop(&e[h]);
            else if (stepq_head_end(&e[h]) != STEPQ_OK) first = (loop_failure){.failed = 1, .h = h, .f = -1, .t = 0, .observer = 1, .seg = seg};
        }
    }
    for (int h = 0; h < H; h++) {
        if (cfg->progress && !first.failed) stepq_progress_tick(cfg->progress);
        stepq_head_free(&e[h]);
    }
    free(e);
    free(in);
    free(skip);
    if (!first.failed) return STEPQ_OK;
    report(&first, srcs[first.seg], cfg);
    return STEPQ_ERR;
}

int stepq_headloop_run_segments(const stepq_source* const* srcs, int n, const stepq_headloop_cfg* cfg) {
    const stepq_source* src = srcs[0];
    for (int seg = 0; seg < n; seg++)
        if (cfg->prefill + cfg->decode > srcs[seg]->T) {
            stepq_error("%s has %ld steps; prefill %ld + decode %ld need %ld", srcs[seg]->desc, srcs[seg]->T,
                        cfg->prefill, cfg->decode, cfg->prefill + cfg->decode);
            return STEPQ_ERR;
        }
    if (stepq_headloop_check(cfg, cfg->n_obs ? cfg->obs[0].name : "run") != STEPQ_OK) return STEPQ_ERR;
    if (src->lockstep) return run_lockstep(srcs, n, cfg);
    loop_failure first = {.failed = 0, .h = 0, .f = -1, .t = 0, .observer = 0, .seg = 0};
#pragma omp parallel
    {
        stepq_head e;
        const stepq_head_shape shape = stepq_shape_of(src);
        stepq_head_init(&e, cfg, &shape);
#pragma omp for schedule(dynamic, 1)
        for (int h = 0; h < src->n_heads; h++) {
            int stop;
#pragma omp atomic read
            stop = first.failed;
            if (stop) continue;
            loop_failure mine;
            if (!skipped(cfg, h) && run_one(&e, srcs, n, cfg, h, &mine) != STEPQ_OK) {
#pragma omp critical(stepq_headloop_fail)
                if (!first.failed || h < first.h) first = mine;
            }
            if (cfg->progress) stepq_progress_tick(cfg->progress);
        }
        stepq_head_free(&e);
    }
    if (!first.failed) return STEPQ_OK;
    report(&first, srcs[first.seg], cfg);
    return STEPQ_ERR;
}

int stepq_headloop_run(const stepq_source* src, const stepq_headloop_cfg* cfg) {
    return stepq_headloop_run_segments(&src, 1, cfg);
}

// session.c: the head loop step by step; see session.h.
#include "session.h"

#include <stdlib.h>
#include <string.h>

#include "../base/common.h"

struct stepq_session {
    stepq_session_cfg cfg;
    stepq_headloop_cfg loop;
    stepq_observer keep;  // records each head's last view
    stepq_slot* slots;
    stepq_head* heads;    // (H)
    stepq_view* last;     // (H)
    long t;
    int failed;
};

static int keep_view(void* ctx, void* tls, const stepq_view* v) {
    stepq_session* s = ctx;
    s->last[v->h] = *v;
    return STEPQ_OK;
}

stepq_session* stepq_session_open(const stepq_session_cfg* cfg) {
    const stepq_head_shape* sh = &cfg->shape;
    if (cfg->n_heads < 1 || sh->K < 1 || sh->V < 1 || sh->K > STEPQ_MAX_DIM || sh->V > STEPQ_MAX_DIM ||
        cfg->n_slots < 0 || cfg->prefill < 0) {
        stepq_error("session: %d heads of %d x %d, %d slots, prefill %ld: heads must number at least one, "
                    "be at most %d x %d, and prefill and slots must not be negative",
                    cfg->n_heads, sh->K, sh->V, cfg->n_slots, cfg->prefill, STEPQ_MAX_DIM, STEPQ_MAX_DIM);
        return NULL;
    }
    for (int f = 0; f < cfg->n_slots; f++) {
        char what[96];
        snprintf(what, sizeof what, "session: format %.40s", cfg->slots[f].fmt->name);
        if (stepq_family_fits(cfg->slots[f].fmt->family, what, sh->K, sh->V) != STEPQ_OK) return NULL;
        if (stepq_format_needs_plan(cfg->slots[f].fmt) && !cfg->plan) {
            stepq_error("session: format %s needs a calibration plan", cfg->slots[f].fmt->name);
            return NULL;
        }
    }
    if (cfg->plan) {
        const stepq_plan* p = cfg->plan;
        if (p->kind != sh->kind || p->K != sh->K || p->V != sh->V) {
            stepq_error("session: the plan was made for %s heads of %d x %d, the session's are %s %d x %d",
                        stepq_kind_name(p->kind), p->K, p->V, stepq_kind_name(sh->kind), sh->K, sh->V);
            return NULL;
        }
        for (int h = 0; h < cfg->n_heads; h++) {
            int ph = cfg->plan_index ? cfg->plan_index[h] : h;
            if (ph < 0 || ph >= p->H) {
                stepq_error("session: head %d has plan head %d; the plan has %d heads", h, ph, p->H);
                return NULL;
            }
        }
    }
    stepq_session* s = callocCheck(1, sizeof *s);
    s->cfg = *cfg;
    s->slots = mallocCheck(sizeof(stepq_slot) * (cfg->n_slots ? cfg->n_slots : 1));
    if (cfg->n_slots) memcpy(s->slots, cfg->slots, sizeof(stepq_slot) * cfg->n_slots);
    s->keep = (stepq_observer){.name = "session", .needs = cfg->needs, .ctx = s,
                               .on_step = keep_view, .on_boundary = keep_view};
    s->loop = (stepq_headloop_cfg){.backend = cfg->backend, .slots = s->slots, .n_slots = cfg->n_slots,
                                   .plan = cfg->plan, .prefill = cfg->prefill, .decode = 1,
                                   .obs = &s->keep, .n_obs = 1};
    if (stepq_headloop_check(&s->loop, "session") != STEPQ_OK) {
        free(s->slots);
        free(s);
        return NULL;
    }
    const int H = cfg->n_heads;
    const size_t KV = (size_t)sh->K * sh->V;
    s->heads = callocCheck((size_t)H, sizeof(stepq_head));
    s->last = callocCheck((size_t)H, sizeof(stepq_view));
    for (int h = 0; h < H; h++) {
        stepq_head_init(&s->heads[h], &s->loop, sh);
        int ph = cfg->plan_index ? cfg->plan_index[h] : h;
        stepq_assert(stepq_head_begin(&s->heads[h], h, cfg->plan ? ph : 0, cfg->S0 ? cfg->S0 + h * KV : NULL) ==
                     STEPQ_OK);
    }
    return s;
}

void stepq_session_close(stepq_session* s) {
    if (!s) return;
    for (int h = 0; h < s->cfg.n_heads; h++) stepq_head_free(&s->heads[h]);
    free(s->heads);
    free(s->last);
    free(s->slots);
    free(s);
}

int stepq_session_step(stepq_session* s, const stepq_step_in* in) {
    if (s->failed) {
        stepq_error("session: an earlier step failed; open a new session");
        return STEPQ_ERR;
    }
    const int H = s->cfg.n_heads;
    int first = H;  // the first failing head
#pragma omp parallel for schedule(static) if (H > 1)
    for (int h = 0; h < H; h++)
        if (stepq_head_step(&s->heads[h], &in[h]) != STEPQ_OK) {
#pragma omp critical(stepq_session_fail)
            if (h < first) first = h;
        }
    s->t++;
    if (first == H) return STEPQ_OK;
    s->failed = 1;
    const stepq_head* e = &s->heads[first];
    if (e->fail_f < 0)
        stepq_error("session: the float32 reference met a non-finite state or read-out at head %d, step %ld",
                    first, e->fail_t);
    else
        stepq_error("session: the quantized path of format %s met a non-finite state at head %d, step %ld",
                    s->slots[e->fail_f].fmt->name, first, e->fail_t);
    return STEPQ_ERR;
}

const stepq_view* stepq_session_view(const stepq_session* s, int h) {
    stepq_assert(h >= 0 && h < s->cfg.n_heads);
    return &s->last[h];
}

long stepq_session_steps(const stepq_session* s) { return s->t; }

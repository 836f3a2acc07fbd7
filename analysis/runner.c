// runner.c: every head of a source through the decode-step protocol; see runner.h.
#include "runner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/stats.h"
#include "journal.h"
#ifdef STEPQ_WITH_CUDA
#include "../sim/cuda/engine.h"
#endif
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
    double* acc_sq;      // (F) the head's accumulated read-out error and largest P1 residual of
    double* p1_resid;    // each format, and acc_ref, its reference's: summed here and stored in
    double acc_ref;      // the run's arrays when the head ends. Written there every step, their
                         // cache lines went back and forth between the threads stepping
                         // neighbouring heads: the 96-head format table took 297 s of CPU time on
                         // 2 threads (151 s wall) against 258 s on one; now 252 s (128 s wall)
    float* decay;        // (K) the step's decay of each key row
    stepq_qstate* qs;    // (F), set up per head (widths depend on the head)
    const int* plan_index;  // (H) the plan's index of each source head
    const stepq_kernels* k;  // the decode step's implementation (sim/kernels.h)
} head_scratch;

static void scratch_init(head_scratch* s, const stepq_run_cfg* cfg, const stepq_source* src) {
    stepq_runstate_init(&s->rs, src->K, src->V, src->n_gates);
    s->pred = mallocCheck(sizeof(float) * src->V * cfg->n_formats);
    s->acc_sq = mallocCheck(sizeof(double) * cfg->n_formats);
    s->p1_resid = mallocCheck(sizeof(double) * cfg->n_formats);
    s->decay = mallocCheck(sizeof(float) * src->K);
    s->qs = callocCheck((size_t)cfg->n_formats, sizeof(stepq_qstate));
    s->k = stepq_kernels_active();
    s->rs.step = s->k->step_f32;
}

static void scratch_free(head_scratch* s) {
    stepq_runstate_free(&s->rs);
    free(s->qs);
    free(s->pred);
    free(s->acc_sq);
    free(s->p1_resid);
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
// nS2 = ||S||_F^2, m: the state's sums (eS2 = ||S_hat - S||_F^2); s: the head's scratch (the
// reference's read-out, format f's y_hat and P1's prediction of its error, the running sums)
static void measure(stepq_run_out* o, const stepq_run_cfg* cfg, int f, int h, long t, long b,
                    head_scratch* s, double ny2, double nS2, const stepq_qmeasure* m) {
    const int V = o->V, H = o->H;
    const stepq_runstate* rs = &s->rs;
    double dy2, res2;
    stepq_readout_sums(&dy2, &res2, rs->y_hat, rs->y, s->pred + (size_t)f * V, V);
    size_t fh = (size_t)f * H + h;
    if (m->hat2 > 100 * nS2 && nS2 > 0) o->diverged[fh] = t - cfg->prefill;  // ||S_hat|| > 10 ||S||
    o->err_y[fh * o->n_bins + b] += (float)stepq_rel(dy2, ny2);
    o->err_S[fh * o->n_bins + b] += (float)stepq_rel(m->err2, nS2);
    s->acc_sq[f] += dy2;
    s->p1_resid[f] = fmax(s->p1_resid[f], stepq_rel(res2, ny2));
    if (cfg->keep_y) memcpy(o->y + (((size_t)f * o->T + t) * H + h) * V, rs->y_hat, sizeof(float) * V);
}

// The boundary of head h: every format encodes the native state after the prefill.
static int boundary(stepq_run_out* o, const stepq_source* src, const stepq_run_cfg* cfg, int h, head_scratch* s,
                    run_failure* fail) {
    const int K = src->K, V = src->V, H = src->n_heads;
    int rc = STEPQ_OK;
    if (!isfinite(stepq_sq_norm(s->rs.S, K, V))) {
        *fail = (run_failure){cfg->prefill - 1, 0, h, 1, 1};
        rc = STEPQ_ERR;
    }
    for (int f = 0; f < cfg->n_formats; f++) {  // checked by stepq_plan_match before any head runs
        stepq_assert(stepq_qstate_init(&s->qs[f], cfg->formats[f], cfg->plan, s->plan_index[h],
                                       src->kind, K, V) == STEPQ_OK);
        o->bytes[(size_t)f * H + h] = (double)s->qs[f].bytes;
        if (rc == STEPQ_OK && stepq_qstate_load(&s->qs[f], s->rs.S) != STEPQ_OK) {
            *fail = (run_failure){cfg->prefill, f, h, 1, 0};
            rc = STEPQ_ERR;
        }
    }
    return rc;
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
    int rc = boundary(o, src, cfg, h, s, fail);
    s->acc_ref = 0;
    for (int f = 0; f < F; f++) s->acc_sq[f] = 0, s->p1_resid[f] = 0;
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
        s->acc_ref += ny2;
        if (cfg->keep_y) memcpy(o->y_ref + ((size_t)t * H + h) * V, rs->y, sizeof(float) * V);
        for (int f = 0; f < F && rc == STEPQ_OK; f++) {
            stepq_qmeasure m;
            if (o->diverged[(size_t)f * H + h] >= 0) continue;  // stopped
            if (s->k->qstep_write(&s->qs[f], &in, s->decay, src->scale, G, rs->S, rs->y_hat, &m) != STEPQ_OK) {
                *fail = (run_failure){t, f, h, 1, 0};
                rc = STEPQ_ERR;
            } else {
                measure(o, cfg, f, h, t, td / cfg->bin, s, ny2, nS2, &m);
            }
        }
    }
    src->close(c);
    o->acc_ref[h] = s->acc_ref;
    for (int f = 0; f < F; f++) {
        o->acc_sq[(size_t)f * H + h] = s->acc_sq[f];
        o->p1_resid[(size_t)f * H + h] = s->p1_resid[f];
    }
    if (cfg->keep_y) {
        memcpy(o->S_ref_final + (size_t)h * KV, rs->S, sizeof(float) * KV);
        for (int f = 0; f < F; f++) stepq_qstate_decode(&s->qs[f], o->S_final + ((size_t)f * H + h) * KV);
    }
    for (int f = 0; f < F; f++) stepq_qstate_free(&s->qs[f]);
    o->mean_log_gate[h] = gate_sum / (double)(cfg->prefill + cfg->decode);
    o->half_life[h] = M_LN2 / -o->mean_log_gate[h];
    return rc;
}

static int backend = STEPQ_BACKEND_CPU;

int stepq_backend_parse(const char* name) {
    return !strcmp(name, "cpu") ? STEPQ_BACKEND_CPU : !strcmp(name, "cuda") ? STEPQ_BACKEND_CUDA : -1;
}
const char* stepq_backend_name(int b) { return b == STEPQ_BACKEND_CUDA ? "cuda" : "cpu"; }
int stepq_backend(void) { return backend; }

int stepq_set_backend(int b) {
    if (b == STEPQ_BACKEND_CUDA) {
#ifdef STEPQ_WITH_CUDA
        if (!stepq_cuda_available()) {
            stepq_error("backend cuda: no CUDA device of compute capability 8.0 or newer is present "
                        "(run with backend = \"cpu\")");
            return STEPQ_ERR;
        }
#else
        stepq_error("backend cuda: this stepq was built without CUDA (no nvcc when it was configured)");
        return STEPQ_ERR;
#endif
    }
    backend = b;
    return STEPQ_OK;
}

static int run_heads_cpu(stepq_run_out* o, const stepq_source* src, const stepq_run_cfg* cfg);

int stepq_run_heads(stepq_run_out* o, const stepq_source* src, const stepq_run_cfg* cfg) {
#ifdef STEPQ_WITH_CUDA
    if (backend == STEPQ_BACKEND_CUDA) return stepq_cuda_run_heads(o, src, cfg);
#endif
    return run_heads_cpu(o, src, cfg);
}

// the message of a run that met a non-finite value: which path, head and step
static void report_failure(const run_failure* f, const stepq_source* src, const stepq_run_cfg* cfg) {
    if (f->reference)
        stepq_error("%s: the float32 reference met a non-finite state or read-out at head %d (layer %d, "
                    "head %d), step %ld: the inputs overflow the recurrence; nothing was written",
                    src->desc, f->h, src->layer[f->h], src->head[f->h], f->t);
    else
        stepq_error("%s: the quantized path of format %s met a non-finite state at head %d (layer %d, "
                    "head %d), step %ld; the format overflowed; nothing was written",
                    src->desc, cfg->formats[f->f]->name, f->h, src->layer[f->h], src->head[f->h], f->t);
}

static int run_heads_cpu(stepq_run_out* o, const stepq_source* src, const stepq_run_cfg* cfg) {
    int* plan_index = callocCheck((size_t)src->n_heads, sizeof(int));
    if (stepq_run_prepare(plan_index, src, cfg) != STEPQ_OK) {
        free(plan_index);
        return STEPQ_ERR;
    }
    stepq_run_out_alloc(o, src, cfg);
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
    if (fail.failed) {
        report_failure(&fail, src, cfg);
        stepq_run_out_free(o);
        return STEPQ_ERR;
    }
    stepq_run_out_bin_means(o, cfg);
    return STEPQ_OK;
}

double stepq_run_bits(const stepq_run_out* o, int f) {
    double b = 0;
    for (int h = 0; h < o->H; h++) b += o->bytes[(size_t)f * o->H + h];
    return 8.0 * b / ((double)o->H * o->K * o->V);
}

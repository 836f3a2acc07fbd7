// dsession.c: the device session of include/stepq.h (sq_dsession_*, method 6.11): the session's
// protocol with its inputs, outputs, states and measurements in the memory the model runs in,
// behind a table of backends (zfp's execution policy: a backend not built in is an entry that
// answers "not built", never a crash).
//
// The host backend is the CPU session itself (lib_session_open and lib_session_step, the code
// sq_session runs), not the host emulation of the lane kernels (compiled by nvcc, and only where
// CUDA is: sim/cuda/lanes.cuh), which are held to the CPU's decode step under method 6.5's
// contract by test_cuda_lanes, so one implementation of the numerics stays the reference and the
// host backend equals sq_session bit for bit. The cuda backend (built with CUDA only) is
// sim/cuda/dsession.h over the caller's stream, held to the same contract against the host
// backend by test_dsession_cuda; it has never run on a GPU (issue 68). What this file adds is the
// device session's bookkeeping: the lane kernels' formats and shape, the bins of the
// measurements, and the failure that finishes it.
//
// Legend: H heads, F formats, K = d_k, V = d_v, NB bins.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../base/common.h"
#include "../quant/format.h"
#include "../sim/sums.h"
#include "lib.h"

// the one head shape and the formats the lane kernels take (sim/cuda/lanes.cu: lanes_takes, whose
// rule this is, built only with CUDA): the float32 cast and the uniform per-row formats at 8, 6
// and 4 bits
#define DS_K 128
#define DS_V 128
static int lane_format(const stepq_format* f) {
    if (stepq_format_exact(f)) return 1;
    const int uniform = f->family->id == STEPQ_FAMILY_ROWS && f->needs == STEPQ_NEEDS_NOTHING && !f->replay;
    return uniform && (f->width == 8 || f->width == 6 || f->width == 4);
}

typedef struct dsession_backend dsession_backend;

struct sq_dsession {
    int busy;                    // 1 while a call is inside (lib_claim)
    const dsession_backend* be;
    int H, F, K, V;
    long prefill, steps;         // steps queued
    int bin, n_bins;
    sq_status failed;            // SQ_OK, or the failure that finished the session
    char why[512];               // its message
    void* impl;                  // the backend's
};

// A backend: open sets s->impl (the refusal said, its status returned); step queues one step and
// returns its failure where it knows it at once; copy queues out <- format f's read-outs (state
// 0) or states (state 1); sync waits; bins reads the measurements' sums of format f into host
// memory: state and readout (NB,H), count (NB). open NULL: not built into this libstepq.
struct dsession_backend {
    const char* name;
    const char* absent;  // why it is not built (open NULL)
    int (*ready)(void);  // 1 where its device is there (NULL: always); NULL passes over a backend not ready
    sq_status (*open)(sq_dsession* s, const sq_dsession_config* cfg);
    void (*close)(sq_dsession* s);
    sq_status (*step)(sq_dsession* s, const float* q, const float* k, const float* v, const float* g,
                      const float* beta);
    void (*copy)(const sq_dsession* s, int f, int state, float* out);
    sq_status (*sync)(sq_dsession* s);
    void (*bins)(const sq_dsession* s, int f, double* state, double* readout, long* count);
};

// ---------------------------------------------------------------------------------------------
// the host backend: a CPU session of the same heads and formats, keeping its states, and the
// measurements' sums beside it

typedef struct {
    sq_session* cpu;
    double* sums;   // (F, NB, 2, H): per format and bin, the state then the read-out error, per head
    long* count;    // (NB) decode steps summed into each bin
} host_impl;

static sq_status host_open(sq_dsession* s, const sq_dsession_config* cfg) {
    const sq_session_config c = {.kind = cfg->kind, .K = cfg->K, .V = cfg->V, .scale = cfg->scale,
                                 .n_heads = cfg->n_heads, .formats = cfg->formats, .n_formats = cfg->n_formats,
                                 .prefill = cfg->prefill, .S0 = cfg->S0, .keep_states = 1};
    host_impl* m = callocCheck(1, sizeof *m);
    const sq_status rc = lib_session_open(&c, &m->cpu);
    if (rc != SQ_OK) {
        free(m);
        return rc;
    }
    const size_t nb = cfg->n_bins ? (size_t)cfg->n_bins : 1;
    m->sums = callocCheck((size_t)s->F * nb * 2 * s->H, sizeof *m->sums);
    m->count = callocCheck(nb, sizeof *m->count);
    s->impl = m;
    return SQ_OK;
}

static void host_close(sq_dsession* s) {
    host_impl* m = s->impl;
    sq_session_close(m->cpu);
    free(m->sums);
    free(m->count);
    free(m);
}

// the measurements of the decode step just taken, added to bin b: per format and head the
// relative state error (err2 / ref2, as sq_session_errors gives them) and read-out error (the
// sums of sim/sums.h), each denominator floored at 1e-300 as the adapters' own division is
static void host_measure(sq_dsession* s, host_impl* m, int b) {
    const stepq_session* e = lib_session_engine(m->cpu);
    for (int h = 0; h < s->H; h++) {
        const stepq_view* v = stepq_session_view(e, h);
        const double ref2 = stepq_sq_norm(v->S, s->K, s->V), y2 = stepq_sq_norm_row(v->y, s->V);
        for (int f = 0; f < s->F; f++) {
            double* at = m->sums + (((size_t)f * (size_t)s->n_bins + (size_t)b) * 2) * (size_t)s->H;
            at[h] += sqrt(v->f[f].m.err2 / fmax(ref2, 1e-300));
            at[s->H + h] += sqrt((double)stepq_sq_dist_row(v->f[f].y_hat, v->y, s->V) / fmax(y2, 1e-300));
        }
    }
    m->count[b]++;
}

static sq_status host_step(sq_dsession* s, const float* q, const float* k, const float* v, const float* g,
                           const float* beta) {
    host_impl* m = s->impl;
    const sq_status rc = lib_session_step(m->cpu, q, k, v, g, beta, "sq_dsession_step");
    const long d = s->steps - s->prefill;  // this step's decode index, where >= 0
    if (rc == SQ_OK && s->n_bins && d >= 0) host_measure(s, m, (int)(d / s->bin));
    return rc;
}

static void host_copy(const sq_dsession* s, int f, int state, float* out) {
    const host_impl* m = s->impl;
    const stepq_session* e = lib_session_engine(m->cpu);
    const size_t n = state ? (size_t)s->K * s->V : (size_t)s->V;
    for (int h = 0; h < s->H; h++) {
        const stepq_view* v = stepq_session_view(e, h);
        const float* from = state ? (f < 0 ? v->S : v->f[f].qs->X) : (f < 0 ? v->y : v->f[f].y_hat);
        memcpy(out + h * n, from, sizeof(float) * n);
    }
}

static sq_status host_sync(sq_dsession* s) {
    (void)s;  // every step ran in its call
    return SQ_OK;
}

static void host_bins(const sq_dsession* s, int f, double* state, double* readout, long* count) {
    const host_impl* m = s->impl;
    const size_t H = (size_t)s->H;
    for (int b = 0; b < s->n_bins; b++) {
        const double* at = m->sums + (((size_t)f * (size_t)s->n_bins + (size_t)b) * 2) * H;
        memcpy(state + b * H, at, sizeof(double) * H);
        memcpy(readout + b * H, at + H, sizeof(double) * H);
        count[b] = m->count[b];
    }
}

// ---------------------------------------------------------------------------------------------
// the cuda backend: sim/cuda/dsession.cu on the caller's stream, built where CMake found nvcc
// (issue 68: compiled, never yet run on a device; its host emulation is what CI runs)

#ifdef STEPQ_WITH_CUDA
#include "../sim/cuda/dsession.h"

static sq_status cuda_open(sq_dsession* s, const sq_dsession_config* cfg) {
    const sq_session_config c = {.kind = cfg->kind, .K = cfg->K, .V = cfg->V, .scale = cfg->scale,
                                 .n_heads = cfg->n_heads, .formats = cfg->formats, .n_formats = cfg->n_formats,
                                 .prefill = cfg->prefill};
    const sq_status rc = lib_session_shape(&c);
    if (rc != SQ_OK) return rc;
    const stepq_format** fm = callocCheck((size_t)cfg->n_formats, sizeof *fm);
    for (int f = 0; f < cfg->n_formats; f++) fm[f] = stepq_format_find(cfg->formats[f]);
    const double scale = cfg->scale > 0 ? cfg->scale : 1.0 / sqrt((double)cfg->K);  // sq_session's
    const stepq_dsess_config dc = {.fmts = fm, .F = cfg->n_formats, .H = cfg->n_heads, .kind = cfg->kind,
                                   .fscale = (float)scale, .prefill = cfg->prefill, .S0 = cfg->S0, .bin = cfg->bin,
                                   .n_bins = cfg->n_bins, .stream = cfg->stream};
    stepq_dsess* d = NULL;
    const int ok = stepq_dsess_open(&d, &dc) == STEPQ_OK;
    free(fm);
    if (!ok) return lib_leave(SQ_EINVAL);  // it said why
    s->impl = d;
    return SQ_OK;
}

static void cuda_close(sq_dsession* s) { stepq_dsess_close(s->impl); }

static sq_status cuda_step(sq_dsession* s, const float* q, const float* k, const float* v, const float* g,
                           const float* beta) {
    return stepq_dsess_step(s->impl, s->steps, q, k, v, g, beta) == STEPQ_OK ? SQ_OK : SQ_EINVAL;
}

static void cuda_copy(const sq_dsession* s, int f, int state, float* out) { stepq_dsess_copy(s->impl, f, state, out); }

static sq_status cuda_sync(sq_dsession* s) { return stepq_dsess_sync(s->impl) == STEPQ_OK ? SQ_OK : SQ_EINVAL; }

static void cuda_bins(const sq_dsession* s, int f, double* state, double* readout, long* count) {
    stepq_dsess_bins(s->impl, f, state, readout, count);
}

#define CUDA_BACKEND                                                                                 \
    {.name = "cuda", .ready = stepq_dsess_ready, .open = cuda_open, .close = cuda_close, .step = cuda_step, \
     .copy = cuda_copy, .sync = cuda_sync, .bins = cuda_bins}
#else
#define CUDA_BACKEND \
    {.name = "cuda", .absent = "this libstepq was built without CUDA (backend \"host\" steps the same formats on the CPU)"}
#endif

// the backends: the GPU's, then the host's (NULL takes the first built whose device is there: a
// GPU's before the host's)
static const dsession_backend backends[] = {
    CUDA_BACKEND,
    {.name = "host", .open = host_open, .close = host_close, .step = host_step, .copy = host_copy,
     .sync = host_sync, .bins = host_bins},
};
#define N_BACKENDS ((int)(sizeof backends / sizeof *backends))

// ---------------------------------------------------------------------------------------------
// the API

static int ds_claim(const sq_dsession* s, const char* who) {
    return lib_claim(s ? &s->busy : NULL, "device session",
                     "a session is used by one thread at a time; give each thread its own, or take turns with a lock",
                     who);
}

static sq_status ds_done(const sq_dsession* s, sq_status rc) { return lib_release(&s->busy, rc); }

// the call's end on a session that failed before: that failure again
static sq_status ds_failed(const sq_dsession* s, const char* who) {
    stepq_error("%s: the session failed before: %s", who, s->why);
    return ds_done(s, s->failed);
}

// the session finished by the failure rc of the current call (its message in the sink)
static sq_status ds_finish(sq_dsession* s, sq_status rc) {
    if (rc != SQ_OK && s->failed == SQ_OK) {
        s->failed = rc;
        const char* msg = lib_message();
        snprintf(s->why, sizeof s->why, "%s", *msg ? msg : sq_status_name(rc));
    }
    return ds_done(s, rc);
}

// the backend called name (NULL: the first built), or NULL after the message
static const dsession_backend* ds_backend(const char* name) {
    for (int i = 0; i < N_BACKENDS; i++) {
        const dsession_backend* b = &backends[i];
        if (name ? strcmp(name, b->name) != 0 : !b->open || (b->ready && !b->ready())) continue;  // NULL: the first built and ready
        if (!b->open) stepq_error("sq_dsession_open: backend %s is not built: %s", b->name, b->absent);
        return b->open ? b : NULL;
    }
    stepq_error("sq_dsession_open: no backend is called '%.64s'; the backends are cuda and host (NULL: the first "
                "built)", name);
    return NULL;
}

// what sq_dsession_open checks beyond sq_session_open (which the backends run): the lane
// kernels' shape and formats, the bins, the backend
static sq_status ds_args(const sq_dsession_config* cfg, const dsession_backend** be) {
    if (cfg->K != DS_K || cfg->V != DS_V)
        return lib_fail(SQ_EINVAL, "sq_dsession_open: heads of %d x %d; a device session takes %d x %d heads (the "
                        "lane kernels', method 6.5)", cfg->K, cfg->V, DS_K, DS_V);
    if (cfg->n_formats < 1 || !cfg->formats)
        return lib_fail(SQ_EINVAL, "sq_dsession_open: %d formats; a device session steps at least one",
                        cfg->n_formats);
    for (int f = 0; f < cfg->n_formats; f++) {
        const stepq_format* fm = cfg->formats[f] ? stepq_format_find(cfg->formats[f]) : NULL;
        if (!fm)
            return lib_fail(SQ_ENOFORMAT, "sq_dsession_open: no format is called '%.64s' (a device session steps "
                            "fp32, int8, int6 and int4)", cfg->formats[f] ? cfg->formats[f] : "(null)");
        if (!lane_format(fm))
            return lib_fail(SQ_EINVAL, "sq_dsession_open: format %s: a device session steps the lane kernels' "
                            "formats, fp32, int8, int6 and int4 (sq_session steps every format)", fm->name);
    }
    if (cfg->bin < 1 || cfg->n_bins < 0)
        return lib_fail(SQ_EINVAL, "sq_dsession_open: bin %d, n_bins %d: a bin of at least one decode step, and "
                        "n_bins >= 0 (0: nothing measured)", cfg->bin, cfg->n_bins);
    if (cfg->n_bins && (double)cfg->bin * cfg->n_bins > 1e9)
        return lib_fail(SQ_EINVAL, "sq_dsession_open: %d bins of %d steps: more than 1e9 decode steps", cfg->n_bins,
                        cfg->bin);
    *be = ds_backend(cfg->backend);
    return *be ? SQ_OK : lib_leave(SQ_EINVAL);
}

sq_status sq_dsession_open(const sq_dsession_config* cfg, sq_dsession** out) {
    LIB_ENTER();
    if (!cfg || !out) return lib_fail(SQ_EINVAL, "sq_dsession_open: cfg and out must not be NULL");
    *out = NULL;
    const dsession_backend* be = NULL;
    const sq_status rc = ds_args(cfg, &be);
    if (rc != SQ_OK) return rc;
    sq_dsession* s = callocCheck(1, sizeof *s);
    *s = (sq_dsession){.be = be, .H = cfg->n_heads, .F = cfg->n_formats, .K = cfg->K, .V = cfg->V,
                       .prefill = cfg->prefill, .bin = cfg->bin, .n_bins = cfg->n_bins};
    const sq_status orc = be->open(s, cfg);
    if (orc != SQ_OK) {
        free(s);
        return lib_leave(orc);
    }
    *out = s;
    return lib_leave(SQ_OK);
}

void sq_dsession_close(sq_dsession* s) {
    if (!s) return;
    s->be->close(s);
    free(s);
}

const char* sq_dsession_backend(const sq_dsession* s) { return s ? s->be->name : ""; }

long sq_dsession_steps(const sq_dsession* s) { return s ? s->steps : 0; }

sq_status sq_dsession_step(sq_dsession* s, const float* q, const float* k, const float* v, const float* g,
                           const float* beta) {
    LIB_ENTER();
    if (!s || !q || !k || !v || !g || !beta)
        return lib_fail(SQ_EINVAL, "sq_dsession_step: session, q, k, v, g and beta must not be NULL");
    if (ds_claim(s, "sq_dsession_step") != STEPQ_OK) return lib_leave(SQ_EINVAL);
    if (s->failed != SQ_OK) return ds_failed(s, "sq_dsession_step");
    const long d = s->steps - s->prefill;
    if (s->n_bins && d >= (long)s->bin * s->n_bins) {
        stepq_error("sq_dsession_step: step %ld is decode step %ld, past the %d bins of %d steps the session "
                    "measures (open it with more n_bins, or 0 to measure nothing)", s->steps, d, s->n_bins, s->bin);
        return ds_finish(s, SQ_EINVAL);
    }
    const sq_status rc = s->be->step(s, q, k, v, g, beta);
    s->steps++;
    return ds_finish(s, rc);
}

// the start of readout and state: s claimed, f a format or the reference, a decode step queued
static sq_status ds_copy(const sq_dsession* s, int f, int state, float* out, const char* who) {
    if (!out) return lib_fail(SQ_EINVAL, "%s: the output is NULL", who);
    if (ds_claim(s, who) != STEPQ_OK) return lib_leave(SQ_EINVAL);
    if (s->failed != SQ_OK) return ds_failed(s, who);
    if (f < -1 || f >= s->F) {
        stepq_error("%s: format %d is outside [-1, %d) (-1: the float32 reference)", who, f, s->F);
        return ds_done(s, SQ_EINVAL);
    }
    if (s->steps <= s->prefill) {
        stepq_error("%s: no decode step has been taken yet (%ld steps of a prefill of %ld)", who, s->steps,
                    s->prefill);
        return ds_done(s, SQ_EINVAL);
    }
    s->be->copy(s, f, state, out);
    return ds_done(s, SQ_OK);
}

sq_status sq_dsession_readout(const sq_dsession* s, int f, float* y) {
    LIB_ENTER();
    return ds_copy(s, f, 0, y, "sq_dsession_readout");
}

sq_status sq_dsession_state(const sq_dsession* s, int f, float* S) {
    LIB_ENTER();
    return ds_copy(s, f, 1, S, "sq_dsession_state");
}

sq_status sq_dsession_sync(sq_dsession* s) {
    LIB_ENTER();
    if (ds_claim(s, "sq_dsession_sync") != STEPQ_OK) return lib_leave(SQ_EINVAL);
    if (s->failed != SQ_OK) return ds_failed(s, "sq_dsession_sync");
    return ds_finish(s, s->be->sync(s));
}

sq_status sq_dsession_errors(sq_dsession* s, int f, double* state_rel, double* readout_rel, long* steps) {
    LIB_ENTER();
    if (ds_claim(s, "sq_dsession_errors") != STEPQ_OK) return lib_leave(SQ_EINVAL);
    if (s->failed != SQ_OK) return ds_failed(s, "sq_dsession_errors");
    if (f < 0 || f >= s->F) {
        stepq_error("sq_dsession_errors: format %d is outside [0, %d) (errors are a format's)", f, s->F);
        return ds_done(s, SQ_EINVAL);
    }
    if (!s->n_bins) {
        stepq_error("sq_dsession_errors: the session measures nothing (opened with n_bins 0)");
        return ds_done(s, SQ_EINVAL);
    }
    const sq_status rc = s->be->sync(s);
    if (rc != SQ_OK) return ds_finish(s, rc);
    const size_t H = (size_t)s->H, NB = (size_t)s->n_bins;
    double* sums = callocCheck(2 * NB * H, sizeof *sums);  // state then read-out (NB,H)
    long* count = callocCheck(NB, sizeof *count);
    s->be->bins(s, f, sums, sums + NB * H, count);
    for (size_t b = 0; b < NB; b++) {
        for (size_t h = 0; h < H; h++) {
            const double n = count[b] ? (double)count[b] : NAN;
            if (state_rel) state_rel[b * H + h] = sums[b * H + h] / n;
            if (readout_rel) readout_rel[b * H + h] = sums[NB * H + b * H + h] / n;
        }
        if (steps) steps[b] = count[b];
    }
    free(sums);
    free(count);
    return ds_done(s, SQ_OK);
}

// traceout.c: a trace written as it comes (method 6.1), a block of steps of every head at a time,
// when its length is not known up front: a model's layers captured while the model runs
// (stepq.hf capture, through libstepq's sq_trace_*). The layout is the reader's (trace.h), the
// datasets grow along T in chunks of one head's STEPQ_TRACE_OUT_CHUNK steps, every value is held
// to the reader's rules as it is appended, and the file is written beside its path and renamed
// into place on commit (nothing is left on failure), with the checksum of what identifies it.
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "trace.h"

// the datasets: the step inputs and the read-outs, in trace.h's order
enum { O_Q = STEPQ_IN_Q, O_K = STEPQ_IN_K, O_V = STEPQ_IN_V, O_G = STEPQ_IN_G, O_BETA = STEPQ_IN_BETA, O_Y = STEPQ_IN_Y,
       N_OUT = STEPQ_N_IN };

struct stepq_trace_out {
    stepq_trace id;         // kind, shapes, scale, eps, model, labels (labels copied)
    char* path;
    hid_t f, d[N_OUT];
    int G, with_y;
    long T;                 // steps written to the file
    long n;                 // steps buffered (< STEPQ_TRACE_OUT_CHUNK)
    float* buf[N_OUT];      // per head: (HV or H, CHUNK, width), each head's steps contiguous
    int err;                // errno of a failed write
    int why;                // the last failure: STEPQ_TRACE_OUT_NONFINITE, _RANGE, _WRITE
    int failed;             // 1 once a write failed: the file is abandoned, every later call refused
    int per_key;            // g holds a gate per key channel (KDA): [T,HV,K], even where K is 1
};

int stepq_trace_out_why(const stepq_trace_out* w) { return w->why; }

static int width(const stepq_trace_out* w, int o) {
    return o == O_Q || o == O_K ? w->id.K : o == O_V || o == O_Y ? w->id.V : o == O_G ? w->G : 1;
}

static int heads_of(const stepq_trace_out* w, int o) { return o == O_Q || o == O_K ? w->id.H : w->id.HV; }

// the reader's rules on n appended steps, naming the step (from the trace's start) and head
static int check_block(const stepq_trace_out* w, long n, const float* const x[N_OUT]) {
    char why[256];
    int nonfinite;
    for (int o = 0; o < N_OUT; o++) {
        if (!x[o]) continue;
        const int H = heads_of(w, o), W = width(w, o);
        for (long t = 0; t < n; t++)
            for (int h = 0; h < H; h++)
                if (stepq_input_check(why, sizeof why, o, x[o] + ((size_t)t * H + h) * W, W, 0, w->id.qk_norm_eps,
                                      &nonfinite)) {
                    ((stepq_trace_out*)w)->why = nonfinite ? STEPQ_TRACE_OUT_NONFINITE : STEPQ_TRACE_OUT_RANGE;
                    stepq_error("cannot write %s: step %ld, head %d: %s", w->path, w->T + w->n + t, h, why);
                    return STEPQ_ERR;
                }
    }
    return STEPQ_OK;
}

// A write failed (e: its errno): the file abandoned at once (its datasets closed, the temporary
// file removed), so that the message is true and every later call refuses with this reason
static int write_failed(stepq_trace_out* w, int e) {
    w->err = e;
    w->why = STEPQ_TRACE_OUT_WRITE;
    w->failed = 1;
    h5u_abandon(w->f, w->path);  // first: what the datasets' close flushes then goes nowhere
    w->f = -1;
    for (int o = 0; o < N_OUT; o++) {
        if (w->d[o] >= 0) H5Dclose(w->d[o]);
        w->d[o] = -1;
    }
    stepq_error("cannot write %s: %s; nothing was left there", w->path, h5u_reason(w->err));
    return STEPQ_ERR;
}

// STEPQ_ERR with the first failure's reason once a write has failed (the file is gone by then)
static int refuse_failed(stepq_trace_out* w) {
    if (!w->failed) return STEPQ_OK;
    w->why = STEPQ_TRACE_OUT_WRITE;
    stepq_error("cannot write %s: an earlier write failed (%s): the trace was abandoned and nothing was left there",
                w->path, h5u_reason(w->err));
    return STEPQ_ERR;
}

// the buffered steps into the file: the datasets grown by n, one slab per dataset and head
static int flush(stepq_trace_out* w) {
    if (w->n == 0) return STEPQ_OK;
    const hsize_t t0 = (hsize_t)w->T, n = (hsize_t)w->n;
    for (int o = 0; o < N_OUT; o++) {
        if (w->d[o] < 0) continue;
        const int H = heads_of(w, o), W = width(w, o);
        const int rank = o == O_BETA || (o == O_G && !w->per_key) ? 2 : 3;
        hsize_t dims[3] = {t0 + n, (hsize_t)H, (hsize_t)W}, start[3] = {t0, 0, 0}, count[3] = {n, 1, (hsize_t)W};
        if (H5Dset_extent(w->d[o], dims) < 0) goto fail;
        for (int h = 0; h < H; h++) {
            start[1] = (hsize_t)h;
            if (h5u_slab(w->d[o], 1, H5T_NATIVE_FLOAT, w->buf[o] + (size_t)h * STEPQ_TRACE_OUT_CHUNK * W, rank,
                         start, count))
                goto fail;
        }
    }
    w->T += w->n;
    w->n = 0;
    return STEPQ_OK;
fail:
    return write_failed(w, errno);
}

stepq_trace_out* stepq_trace_out_open(const char* path, const stepq_trace* id, int with_y) {
    h5u_quiet();
    const stepq_trace* t = id;
    if (t->H < 1 || t->HV < t->H || t->HV % t->H || t->K < 1 || t->V < 1 || t->K > STEPQ_MAX_DIM ||
        t->V > STEPQ_MAX_DIM || !(t->scale > 0) || !isfinite(t->scale) || !(t->qk_norm_eps >= 0 && t->qk_norm_eps <= 1)) {
        stepq_error("cannot write %s: %d q/k heads and %d value heads of %d x %d, scale %g, qk_norm_eps %g: the "
                    "value heads a multiple of the q/k heads, K and V in [1, %d], the scale finite and positive, "
                    "the eps in [0, 1]", path, t->H, t->HV, t->K, t->V, t->scale, t->qk_norm_eps, STEPQ_MAX_DIM);
        return NULL;
    }
    if (t->model_sha256[0] && !stepq_is_sha256_hex(t->model_sha256)) {
        stepq_error("cannot write %s: the weights' checksum '%.80s' is not a SHA-256 (64 lower-case hex digits)",
                    path, t->model_sha256);
        return NULL;
    }
    const int G = stepq_kind_of(t->kind)->gate_per_key ? t->K : 1;
    const double per_chunk = 4.0 * STEPQ_TRACE_OUT_CHUNK * ((double)t->H * 2 * t->K + (double)t->HV * (2.0 * t->V + G + 1));
    if (stepq_check_memory(per_chunk, "a trace's block of steps being written")) return NULL;
    hid_t f = h5u_create(path);
    if (f < 0) return NULL;
    stepq_trace_out* w = callocCheck(1, sizeof *w);
    w->id = *t;
    w->id.layer = w->id.head = NULL;
    if (t->layer) w->id.layer = memcpy(mallocCheck(sizeof(int) * t->HV), t->layer, sizeof(int) * t->HV);
    if (t->head) w->id.head = memcpy(mallocCheck(sizeof(int) * t->HV), t->head, sizeof(int) * t->HV);
    w->path = strdup(path);
    w->f = f;
    w->G = G;
    w->per_key = stepq_kind_of(t->kind)->gate_per_key;  // the reader's rank of g (a KDA of K = 1 too)
    w->with_y = with_y;
    const char* desc[N_OUT] = {"query, L2-normalised, unscaled [T,H,K]", "key, L2-normalised [T,H,K]",
                               "value [T,HV,V]", w->per_key ? "log gate per key channel [T,HV,K]" : "log gate [T,HV]",
                               "write strength [T,HV]", "the layer's own read-out [T,HV,V] (its kernel's output)"};
    int rc = 0;
    for (int o = 0; o < N_OUT; o++) {
        w->d[o] = -1;
        if (o == O_Y && !with_y) continue;
        const int H = heads_of(w, o), W = width(w, o);
        const int rank = o == O_BETA || (o == O_G && !w->per_key) ? 2 : 3;
        hsize_t dims[3] = {0, (hsize_t)H, (hsize_t)W}, chunk[3] = {STEPQ_TRACE_OUT_CHUNK, 1, (hsize_t)W};
        w->d[o] = h5u_create_growing(f, stepq_input_name[o], H5T_NATIVE_FLOAT, rank, dims, chunk,
                                     o == O_G ? "nats per step" : "1", desc[o]);
        w->buf[o] = mallocCheck(sizeof(float) * STEPQ_TRACE_OUT_CHUNK * H * W);
        rc = rc || w->d[o] < 0;
    }
    hsize_t dl[1] = {(hsize_t)t->HV};
    rc = rc || h5u_attr_str(f, "kind", stepq_kind_name(t->kind)) || h5u_attr_f64(f, "scale", t->scale) ||
         (t->qk_norm_eps > 0 && h5u_attr_f64(f, "qk_norm_eps", t->qk_norm_eps)) ||
         (t->layer && h5u_write(f, "layer", H5T_NATIVE_INT, t->layer, 1, dl, NULL,
                                "the model's layer of each value head [HV]")) ||
         (t->head && h5u_write(f, "head", H5T_NATIVE_INT, t->head, 1, dl, NULL,
                               "the model's head of each value head [HV]"));
    if (rc) {
        stepq_trace_out_close(w, 0);
        return NULL;
    }
    return w;
}

static const char* const reserved[] = {"kind", "scale", "qk_norm_eps", "weights_sha256", "identity_xxh3", "steps"};

int stepq_trace_out_attr(stepq_trace_out* w, const char* name, const char* str, long long num) {
    if (refuse_failed(w) != STEPQ_OK) return STEPQ_ERR;
    w->why = STEPQ_TRACE_OUT_RANGE;  // a refusal here is the caller's (SQ_EINVAL), not the file's
    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
        if (!strcmp(name, reserved[i])) {
            stepq_error("cannot write %s: attribute '%s' is the trace's own (set it through the trace's shape)",
                        w->path, name);
            return STEPQ_ERR;
        }
    if (!*name) {
        stepq_error("cannot write %s: an attribute needs a name", w->path);
        return STEPQ_ERR;
    }
    return str ? h5u_attr_str(w->f, name, str) : h5u_attr_i64(w->f, name, num);
}

int stepq_trace_out_append(stepq_trace_out* w, long n, const float* q, const float* k, const float* v,
                           const float* g, const float* beta, const float* y) {
    const float* const x[N_OUT] = {q, k, v, g, beta, w->with_y ? y : NULL};
    if (refuse_failed(w) != STEPQ_OK) return STEPQ_ERR;
    if (n < 0 || (w->with_y && !y) || (!w->with_y && y)) {
        w->why = STEPQ_TRACE_OUT_RANGE;
        stepq_error("cannot write %s: %ld steps%s", w->path, n,
                    n < 0 ? "" : y ? " with read-outs y, to a trace opened without them (with_y 0): they would be "
                                     "dropped" : " without the read-outs y");
        return STEPQ_ERR;
    }
    if (check_block(w, n, x)) return STEPQ_ERR;
    for (long t = 0; t < n; t++) {
        for (int o = 0; o < N_OUT; o++) {
            if (!x[o]) continue;
            const int H = heads_of(w, o), W = width(w, o);
            for (int h = 0; h < H; h++)
                memcpy(w->buf[o] + ((size_t)h * STEPQ_TRACE_OUT_CHUNK + w->n) * W, x[o] + ((size_t)t * H + h) * W,
                       sizeof(float) * W);
        }
        if (++w->n == STEPQ_TRACE_OUT_CHUNK && flush(w)) return STEPQ_ERR;
    }
    return STEPQ_OK;
}

long stepq_trace_out_steps(const stepq_trace_out* w) { return w->T + w->n; }

int stepq_trace_out_close(stepq_trace_out* w, int commit) {
    if (!w) return STEPQ_OK;
    int rc = STEPQ_OK;
    if (commit && w->failed) {
        rc = refuse_failed(w);
    } else if (commit) {
        if (w->T + w->n == 0) {
            stepq_error("cannot write %s: no steps were appended (a trace needs at least one)", w->path);
            rc = STEPQ_ERR;
        } else {
            rc = flush(w) || h5u_attr_i64(w->f, "steps", w->T) || stepq_trace_write_identity(w->f, &w->id);
        }
    }
    const int keep = commit && rc == STEPQ_OK;
    if (!keep) h5u_abandon(w->f, w->path);  // before the datasets close: their flush goes nowhere
    for (int o = 0; o < N_OUT; o++) {
        if (w->d[o] >= 0) H5Dclose(w->d[o]);
        free(w->buf[o]);
    }
    if (keep) rc = h5u_commit(w->f, w->path);
    free(w->id.layer);
    free(w->id.head);
    free(w->path);
    free(w);
    return commit ? rc : STEPQ_OK;
}

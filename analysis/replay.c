// replay.c: the replay driver (method 6.10); see replay.h for the output layout.
//
// The read-outs and the final states are streamed into the output's temporary file as the heads
// run (an observer of the head loop after measure(): each head's y and y_ref a chunk of steps at
// a time into chunked datasets), so that memory holds a chunk per head in flight whatever T;
// the per-step errors [HV,D] and the per-head figures come from the run and are written at the
// end. A failed run abandons the temporary file: nothing is left at the output path.
#include "replay.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../base/outfile.h"
#include "../base/stats.h"
#include "runner.h"

enum { Y_CHUNK = 256 };  // steps of a head's read-outs per write (and per HDF5 chunk)

typedef struct {
    hid_t y, y_ref, S_final, S_ref_final;  // the output's streamed datasets
    int V, K;
    int failed;  // an HDF5 write failed (reported once, at the end)
    int err;     // errno of the first failed write
} replay_sink;

// one thread's read-outs of the head in flight: steps [t0, t0 + n)
typedef struct {
    float *y, *y_ref;  // (Y_CHUNK, V)
    long t0, n;
} replay_buf;

static void* buf_init(void* ctx, const stepq_view* v) {
    replay_buf* b = callocCheck(1, sizeof *b);
    b->y = mallocCheck(sizeof(float) * Y_CHUNK * v->V);
    b->y_ref = mallocCheck(sizeof(float) * Y_CHUNK * v->V);
    return b;
}

static void buf_free(void* tls) {
    replay_buf* b = tls;
    free(b->y);
    free(b->y_ref);
    free(b);
}

static int write_slab(replay_sink* s, hid_t d, float* data, int rank, const hsize_t* start, const hsize_t* count) {
    int rc;
#pragma omp critical(stepq_hdf5)
    {
        rc = h5u_slab(d, 1, H5T_NATIVE_FLOAT, data, rank, start, count);
        if (rc != STEPQ_OK && !s->failed) s->err = errno;
        if (rc != STEPQ_OK) s->failed = 1;
    }
    return rc;
}

static int flush(replay_sink* s, replay_buf* b, int h) {
    if (b->n == 0) return STEPQ_OK;
    hsize_t start[3] = {(hsize_t)b->t0, (hsize_t)h, 0}, count[3] = {(hsize_t)b->n, 1, (hsize_t)s->V};
    int rc = write_slab(s, s->y, b->y, 3, start, count) || write_slab(s, s->y_ref, b->y_ref, 3, start, count);
    b->t0 += b->n;
    b->n = 0;
    return rc ? STEPQ_ERR : STEPQ_OK;
}

static int buf_init_head(void* ctx, void* tls, const stepq_view* v) {
    replay_buf* b = tls;
    b->t0 = b->n = 0;
    return STEPQ_OK;
}

// the step's read-outs: the reference's, and the format's (the reference's in the prefill; zeros
// once the format has diverged and stopped, as the run leaves them)
static int buf_step(void* ctx, void* tls, const stepq_view* v) {
    replay_buf* b = tls;
    const int V = v->V;
    memcpy(b->y_ref + (size_t)b->n * V, v->y, sizeof(float) * V);
    if (!v->decoding) memcpy(b->y + (size_t)b->n * V, v->y, sizeof(float) * V);
    else if (v->f[0].live) memcpy(b->y + (size_t)b->n * V, v->f[0].y_hat, sizeof(float) * V);
    else memset(b->y + (size_t)b->n * V, 0, sizeof(float) * V);
    return ++b->n == Y_CHUNK ? flush(ctx, b, v->h) : STEPQ_OK;
}

static int buf_end_head(void* ctx, void* tls, const stepq_view* v) {
    replay_sink* s = ctx;
    const int K = v->K, V = v->V;
    if (flush(s, tls, v->h) != STEPQ_OK) return STEPQ_ERR;
    float* X = mallocCheck(sizeof(float) * K * V);
    stepq_qstate_decode(v->f[0].qs, X);
    hsize_t start[3] = {(hsize_t)v->h, 0, 0}, count[3] = {1, (hsize_t)K, (hsize_t)V};
    int rc = write_slab(s, s->S_final, X, 3, start, count) ||
             write_slab(s, s->S_ref_final, (float*)v->S, 3, start, count);
    free(X);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

static int create_streams(replay_sink* s, hid_t f, const stepq_source* src, long T) {
    const int H = src->n_heads, K = src->K, V = src->V;
    hsize_t dY[3] = {(hsize_t)T, (hsize_t)H, (hsize_t)V}, cY[3] = {Y_CHUNK, 1, (hsize_t)V};
    hsize_t dS[3] = {(hsize_t)H, (hsize_t)K, (hsize_t)V}, cS[3] = {1, (hsize_t)K, (hsize_t)V};
    hid_t FL = H5T_NATIVE_FLOAT;
    s->V = V;
    s->K = K;
    s->y = h5u_create_chunked(f, "y", FL, 3, dY, cY, "1", "read-out y_hat of the decode-step protocol [T,HV,V]");
    s->y_ref = h5u_create_chunked(f, "y_ref", FL, 3, dY, cY, "1", "read-out of the float32 reference [T,HV,V]");
    s->S_final = h5u_create_chunked(f, "S_final", FL, 3, dS, cS, "1", "final state S_hat_T, K-first [HV,K,V]");
    s->S_ref_final = h5u_create_chunked(f, "S_ref_final", FL, 3, dS, cS, "1", "final reference state [HV,K,V]");
    return s->y < 0 || s->y_ref < 0 || s->S_final < 0 || s->S_ref_final < 0 ? STEPQ_ERR : STEPQ_OK;
}

static void close_streams(replay_sink* s) {
    hid_t d[4] = {s->y, s->y_ref, s->S_final, s->S_ref_final};
    for (int i = 0; i < 4; i++)
        if (d[i] >= 0) H5Dclose(d[i]);
}

// the figures of the run beside the streamed datasets
static int write_figures(hid_t f, const stepq_replay_cfg* c, const stepq_run_out* o) {
    const stepq_source* src = c->src;
    const int H = o->H;
    const long D = o->T - c->prefill;
    hsize_t dE[2] = {(hsize_t)H, (hsize_t)D}, dH[1] = {(hsize_t)H};
    hid_t FL = H5T_NATIVE_FLOAT, DB = H5T_NATIVE_DOUBLE;
    double* rel = mallocCheck(sizeof(double) * H);
    for (int h = 0; h < H; h++) rel[h] = stepq_rel(o->acc_sq[h], o->acc_ref[h]);
    int rc = stepq_write_provenance(f, &c->prov) || h5u_attr_str(f, "format", c->format->name) ||
        h5u_attr_str(f, "kind", stepq_kind_name(src->kind)) || h5u_attr_f64(f, "scale", src->scale) ||
        h5u_attr_i64(f, "prefill", c->prefill) ||
        h5u_attr_f64(f, "bits_actual", stepq_run_bits(o, 0)) ||
        h5u_write(f, "err_readout", FL, o->err_y, 2, dE, "1", "||y_hat - y|| / ||y|| per decode step [HV,D]") ||
        h5u_write(f, "err_state", FL, o->err_S, 2, dE, "1", "||S_hat - S||_F / ||S||_F per decode step [HV,D]") ||
        h5u_write(f, "accumulated_readout_rel", DB, rel, 1, dH, "1",
                  "sqrt(sum ||y_hat - y||^2 / sum ||y||^2) over the decode steps [HV]") ||
        h5u_write(f, "p1_residual", DB, o->p1_resid, 1, dH, "1",
                  "max ||(y_hat - y) - E_{t-1}^T A_t^T scale q_t|| / ||y|| [HV]");
    free(rel);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

int stepq_replay(const stepq_replay_cfg* c) {
    const stepq_format* fmts[1] = {c->format};
    const long T = c->src->T;
    // y and y_ref (T x HV x V each) and the final states: refused up front where they cannot fit
    if (stepq_output_space(c->output, 8.0 * c->src->n_heads * ((double)T * c->src->V + (double)c->src->K * c->src->V)))
        return STEPQ_ERR;
    hid_t f = h5u_create(c->output);
    if (f < 0) return STEPQ_ERR;
    replay_sink sink = {.y = -1, .y_ref = -1, .S_final = -1, .S_ref_final = -1, .V = 0, .K = 0, .failed = 0, .err = 0};
    int rc = create_streams(&sink, f, c->src, T);
    const stepq_observer obs = {.name = "replay", .ctx = &sink, .thread_init = buf_init, .thread_free = buf_free,
                                .init_head = buf_init_head, .on_step = buf_step, .end_head = buf_end_head};
    stepq_run_cfg rc_cfg = {.formats = fmts, .n_formats = 1, .prefill = c->prefill, .decode = T - c->prefill,
                            .bin = 1, .label = "replay", .plan = c->plan, .plan_any_model = c->plan_any_model,
                            .backend = c->backend, .extra = &obs, .n_extra = 1};
    stepq_run_out o;
    int ran = rc == STEPQ_OK && stepq_run_heads(&o, c->src, &rc_cfg) == STEPQ_OK;
    if (sink.failed) stepq_error("cannot write %s: %s; nothing was left there", c->output, h5u_reason(sink.err));
    rc = !ran || sink.failed || write_figures(f, c, &o) != STEPQ_OK ? STEPQ_ERR : STEPQ_OK;
    if (ran) stepq_run_out_free(&o);
    close_streams(&sink);
    if (rc != STEPQ_OK) {
        h5u_abandon(f, c->output);
        return STEPQ_ERR;
    }
    return h5u_commit(f, c->output);
}

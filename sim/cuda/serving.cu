// serving.cu: the serving step on a GPU (serving.h): a pool of packed head states in device
// memory, the fused kernel, the split pair on two streams, the FP32 baseline, and their check
// against the CPU's fused decode step.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.cuh"
#include "blockprog.cuh"
#include "lanes.h"

extern "C" {
#include "../../quant/plan.h"
#include "../backend.h"
#include "../protocol.h"
#include "../recurrence.h"
#include "engine.h"
#include "serving.h"
}

// what a block does: the fused step, one of the split pair, or the FP32 baseline
enum { ROLE_FUSED, ROLE_READ, ROLE_WRITE, ROLE_FP32 };

typedef struct {
    bp_fmt fmt;
    int K, V, R, ns, role;
    const uint8_t* bits;    // (n_plans, K)
    const float* w;         // (n_plans, K)
    const uint32_t* off;    // (n_plans, K)
    const bp_meta* meta;    // (n_plans)
    int n_plans;            // head h takes plan h mod n_plans (a layer's plans, shared by requests)
    uint32_t res, res_row;
    uint8_t* P;             // (n, stride) the pool
    size_t stride;
    const float* in;        // (n, R) the step's inputs (prep.h's record; grad unused)
    float *y, *u;           // (n, V) read-outs; delta writes between the split kernels
    int* status;            // (n) STEPQ_OK, or STEPQ_ERR for a non-finite state
    float fscale;
    bp_dims dims;
    size_t ws_bytes;
    char* gws;
} serve_args;

// the FP32 baseline: the state in shared memory, the same step, written back
BP void serve_fp32(const serve_args* a, int h, bp_ws* w) {
    const size_t KV = (size_t)a->K * a->V;
    float* Sg = (float*)(a->P + (size_t)h * a->stride);
    bp_copy_f32(w->X, Sg, KV);
    bp_stage_inputs(w, a->in + (size_t)h * a->R, a->fscale);
    bp_serve_columns(w, a->ns, 1);
    BP_FOR(j, a->V) a->y[(size_t)h * a->V + j] = w->yq[j];
    BP_FOR(it, 1) a->status[h] = w->flag[0] ? STEPQ_ERR : STEPQ_OK;
    bp_copy_f32(Sg, w->X, KV);
}

BP void serve_block(const serve_args* a, int h, char* base) {
    bp_ws w;
    bp_carve(&w, base, &a->dims);
    const int K = a->K, V = a->V;
    if (a->role == ROLE_FP32) {
        serve_fp32(a, h, &w);
        return;
    }
    const int ph = h % a->n_plans;
    const bp_meta m = a->meta[ph];
    const bp_head hd = {a->bits + (size_t)ph * K, m.has_w ? a->w + (size_t)ph * K : (const float*)0,
                        a->off + (size_t)ph * K, m.kind, m.rho, m.refits, a->res, a->res_row};
    uint8_t* Pg = a->P + (size_t)h * a->stride;
    bp_load_plan(&w, &hd);
    bp_copy_bytes(w.P, Pg, a->stride, 1);  // "block by block": 16-byte loads into shared memory
    bp_stage_inputs(&w, a->in + (size_t)h * a->R, a->fscale);
    bp_decode(&w, &a->fmt, &hd, w.P);
    if (a->role == ROLE_READ) {
        bp_serve_columns(&w, a->ns, 0);
        BP_FOR(j, V) {
            a->y[(size_t)h * V + j] = w.yq[j];
            a->u[(size_t)h * V + j] = w.u[j];
        }
        BP_FOR(it, 1) a->status[h] = w.flag[0] ? STEPQ_ERR : STEPQ_OK;
        return;
    }
    if (a->role == ROLE_WRITE) {
        BP_FOR(j, V) w.u[j] = a->u[(size_t)h * V + j];
        BP_SYNC();
        bp_apply_update(&w);
    } else {
        bp_serve_columns(&w, a->ns, 1);
        BP_FOR(j, V) a->y[(size_t)h * V + j] = w.yq[j];
    }
    int bad = bp_take_flag(&w);
    if (!bad) {
        bp_encode(&w, &a->fmt, &hd, w.P, (const float*)0, a->ns, 0);
        bad = bp_take_flag(&w);
    }
    BP_FOR(it, 1) a->status[h] = bad ? STEPQ_ERR : STEPQ_OK;
    if (!bad) bp_copy_bytes(Pg, w.P, a->stride, 1);
}

__global__ void __launch_bounds__(STEPQ_CUDA_THREADS) serve_kernel(serve_args a) {
    extern __shared__ __align__(16) char smem[];
    serve_block(&a, (int)blockIdx.x, a.gws ? a.gws + (size_t)blockIdx.x * a.ws_bytes : smem);
}

// ---------------------------------------------------------------------------------------------
// the pool

struct stepq_serving {
    const stepq_format* fmt;
    int baseline, mode, ns, emu, n, n_plans, K, V, R, n_gates;
    size_t stride;
    serve_args a[2];        // the launches of a step: [0] fused / fp32 / read, [1] write
    lanes_args la;          // the launch of mode STEPQ_SERVE_LANES (lanes.h)
    lanes_feed feed;        // its inputs, uploaded asynchronously on sa
    size_t smem[2];
    uint8_t* P;
    float *in, *y, *u;
    int* status;
    uint8_t* bits;
    float* w;
    uint32_t* off;
    bp_meta* meta;
    char* gws;
    float* host_in;         // (n, R)
    uint8_t* hbits;         // (n_plans, K) host copies of the head plans
    float* hw;              // (n_plans, K)
    bp_meta* hmeta;         // (n_plans)
    double moved;
    cudaStream_t sa, sb;
    cudaEvent_t ea, eb, t0, t1;
};

static int serve_shape_ok(const stepq_format* f, const stepq_head_plan* hps, int n_plans, int K, int V, int mode) {
    if (mode == STEPQ_SERVE_LANES) return lanes_supports(f, hps, n_plans, K, V);
    const char* why = NULL;
    if (V % 8) why = "V a multiple of 8";
    else if (stepq_format_freeze_gated(f)) why = "no freeze gate (LeapQuant's tau > 0)";
    else if (f->replay > 0) why = "a state re-encoded at every step (not a replay format)";
    if (!why) return stepq_format_fits(f, K, V);  // the family's shape rules, from the table
    stepq_error("format %s on %d x %d heads: the serving kernels need %s", f->name, K, V, why);
    return STEPQ_ERR;
}

static void serve_launch(stepq_serving* s, int k, cudaStream_t st) {
    const serve_args* a = &s->a[k];
    if (!s->emu) {
        if (s->smem[k] > 48u * 1024u)
            cudaCheck(cudaFuncSetAttribute((const void*)serve_kernel,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s->smem[k]));
        serve_kernel<<<s->n, STEPQ_CUDA_THREADS, s->smem[k], st>>>(*a);
        cudaCheck(cudaGetLastError());
        return;
    }
    char* ws = a->gws ? NULL : (char*)mallocCheck(a->ws_bytes);
    for (int h = 0; h < s->n; h++) serve_block(a, h, a->gws ? a->gws + (size_t)h * a->ws_bytes : ws);
    free(ws);
}

// the arguments of launch k (role) and its workspace
static void serve_args_for(stepq_serving* s, int k, int role) {
    serve_args* a = &s->a[k];
    memset(a, 0, sizeof *a);
    a->fmt = bp_fmt_of(s->fmt);
    a->K = s->K;
    a->V = s->V;
    a->R = s->R;
    a->ns = s->ns;
    a->role = role;
    bp_residual(&a->res, &a->res_row, s->fmt, s->K, s->V);
    memset(&a->dims, 0, sizeof a->dims);
    a->dims.K = s->K;
    a->dims.V = s->V;
    a->dims.nsplit = s->ns;
    const int fam = s->fmt->family->id, packs = role == ROLE_FUSED || role == ROLE_WRITE;
    const int own_codes = bp_needs(fam) & BP_W_CODES;
    a->dims.with_Z = role != ROLE_FP32 && (packs || own_codes);
    a->dims.z_in_part = !own_codes;  // the codes are never live beside partial sums
    a->dims.fam = role == ROLE_FP32 ? -1 : fam;
    a->dims.p_bytes = role == ROLE_FP32 ? 0 : (int)s->stride;
    bp_ws unused;
    a->ws_bytes = bp_carve(&unused, NULL, &a->dims);
    s->smem[k] = a->ws_bytes > bk_smem_limit(s->emu) ? 0 : a->ws_bytes;
}

// the pool's buffers (packed states, inputs, read-outs, status) and its head plans (widths, row
// influence, row offsets, per-head fit parameters), on the device; the plans kept on the host
static void serve_alloc_pool(stepq_serving* s, const stepq_format* f, const stepq_head_plan* hps) {
    const int n = s->n, K = s->K, V = s->V;
    const size_t nK = (size_t)s->n_plans * K;
    uint8_t* bits = (uint8_t*)mallocCheck(nK);
    float* w = (float*)mallocCheck(nK * 4);
    uint32_t* off = (uint32_t*)mallocCheck(nK * 4);
    bp_meta* meta = (bp_meta*)mallocCheck(sizeof(bp_meta) * (size_t)s->n_plans);
    for (int h = 0; h < s->n_plans; h++) {
        memcpy(bits + (size_t)h * K, hps[h].bits, (size_t)K);
        for (int i = 0; i < K; i++) w[(size_t)h * K + i] = hps[h].w ? hps[h].w[i] : 1.0f;
        f->family->row_offsets(off + (size_t)h * K, f, &hps[h], K, V);
        meta[h].kind = hps[h].kind;
        meta[h].refits = hps[h].refits;
        meta[h].has_w = hps[h].w != NULL;
        meta[h].rho = hps[h].rho;
    }
    s->P = (uint8_t*)bk_alloc(s->emu, (size_t)n * s->stride);
    s->in = (float*)bk_alloc(s->emu, (size_t)n * s->R * 4);
    s->y = (float*)bk_alloc(s->emu, (size_t)n * V * 4);
    s->u = (float*)bk_alloc(s->emu, (size_t)n * V * 4);
    s->status = (int*)bk_alloc(s->emu, (size_t)n * sizeof(int));
    s->bits = (uint8_t*)bk_alloc(s->emu, nK);
    s->w = (float*)bk_alloc(s->emu, nK * 4);
    s->off = (uint32_t*)bk_alloc(s->emu, nK * 4);
    s->meta = (bp_meta*)bk_alloc(s->emu, sizeof(bp_meta) * (size_t)s->n_plans);
    bk_h2d(s->emu, s->bits, bits, nK);
    bk_h2d(s->emu, s->w, w, nK * 4);
    bk_h2d(s->emu, s->off, off, nK * 4);
    bk_h2d(s->emu, s->meta, meta, sizeof(bp_meta) * (size_t)s->n_plans);
    s->hbits = bits;
    s->hw = w;
    s->hmeta = meta;
    free(off);
}

// the kernels' arguments and workspaces, and the bytes a step moves
static void serve_launches(stepq_serving* s) {
    const int n = s->n, K = s->K, V = s->V, n_plans = s->n_plans, emu = s->emu;
    // launches, workspaces, and the bytes each moves (counted from what the block programs read
    // and write in global memory): per head the packed state, the step's input record (R floats),
    // the read-out, u between the split kernels; per kernel the head plans once (every request
    // reads the same plans of its layer: from L2 after the first)
    const double in_b = 4.0 * s->R, y_b = 4.0 * V, plans = n_plans * ((double)K * 9 + sizeof(bp_meta));
    const double st = (double)s->stride;
    if (s->mode == STEPQ_SERVE_LANES) {  // q, k (K), v (V), the gates g and beta of the record
        const stepq_kind_traits* kt = stepq_kind_of(s->hmeta[0].kind);
        const int dual = s->fmt->family->id == STEPQ_FAMILY_DUAL;
        s->la = lanes_args{s->P, s->stride, s->in, s->R, s->y, s->status, 0.0f, s->n_gates, s->bits, s->w, s->off,
                           s->meta, n_plans, kt->dual_odd2, kt->dual_nrm8, dual && s->fmt->dual.dsq};
        lanes_feed_open(&s->feed, (size_t)n * s->R, emu);
        // the kernels of the formats with head plans read them too (from L2 after the first request)
        s->moved = n * (2 * st + 4.0 * (2 * K + V + s->n_gates + 1) + y_b) + (lanes_reads_plans(s->fmt) ? plans : 0);
        return;
    }
    if (s->baseline) {
        serve_args_for(s, 0, ROLE_FP32);
        s->moved = n * (2 * st + in_b + y_b);
    } else if (s->mode == STEPQ_SERVE_FUSED) {
        serve_args_for(s, 0, ROLE_FUSED);
        s->moved = n * (2 * st + in_b + y_b) + plans;
    } else {
        serve_args_for(s, 0, ROLE_READ);
        serve_args_for(s, 1, ROLE_WRITE);
        s->moved = n * ((st + in_b + 2 * y_b) + (2 * st + in_b + y_b)) + 2 * plans;
    }
    size_t gws = 0;
    for (int k = 0; k < 2; k++)
        if (!s->smem[k] && s->a[k].ws_bytes > gws) gws = s->a[k].ws_bytes;
    if (gws) s->gws = (char*)bk_alloc(emu, (size_t)n * gws);
    for (int k = 0; k < 2; k++) {
        serve_args* a = &s->a[k];
        a->bits = s->bits;
        a->w = s->w;
        a->off = s->off;
        a->meta = s->meta;
        a->n_plans = s->n_plans;
        a->P = s->P;
        a->stride = s->stride;
        a->in = s->in;
        a->y = s->y;
        a->u = s->u;
        a->status = s->status;
        a->gws = s->smem[k] ? NULL : s->gws;
    }
}

// the two streams of the split step, its event, and the timing events
static void serve_streams(stepq_serving* s) {
    // blocking streams: they wait for the synchronous uploads (legacy stream) before a step
    cudaCheck(cudaStreamCreate(&s->sa));
    cudaCheck(cudaStreamCreate(&s->sb));
    cudaCheck(cudaEventCreateWithFlags(&s->ea, cudaEventDisableTiming));
    cudaCheck(cudaEventCreateWithFlags(&s->eb, cudaEventDisableTiming));
    cudaCheck(cudaEventCreate(&s->t0));
    cudaCheck(cudaEventCreate(&s->t1));
}

extern "C" int stepq_serving_create(stepq_serving** out, const stepq_format* f, const stepq_head_plan* hps,
                                    int n_plans, int kind, int n, int K, int V, int mode, int nsplit,
                                    int where) {
    const int emu = where == STEPQ_CUDA_EMULATE;
    *out = NULL;
    if (!emu && !bk_device_ok()) {
        stepq_error("no CUDA device of compute capability 8.0 or newer is available");
        return STEPQ_ERR;
    }
    if (serve_shape_ok(f, hps, n_plans, K, V, mode) != STEPQ_OK) return STEPQ_ERR;
    stepq_serving* s = (stepq_serving*)callocCheck(1, sizeof *s);
    s->fmt = f;
    s->baseline = stepq_format_exact(f);
    s->mode = s->baseline && mode != STEPQ_SERVE_LANES ? STEPQ_SERVE_FUSED : mode;
    s->ns = nsplit < 1 ? 1 : nsplit;
    s->emu = emu;
    s->n = n;
    s->n_plans = n_plans;
    s->K = K;
    s->V = V;
    s->R = bp_rec_floats(K, V);
    s->n_gates = stepq_kind_gates(kind, K);
    size_t bytes = 0;
    for (int h = 0; h < n_plans; h++) {
        size_t b = stepq_format_bytes(f, &hps[h], K, V);
        bytes = b > bytes ? b : bytes;
    }
    s->stride = (bytes + 15) & ~(size_t)15;
    serve_alloc_pool(s, f, hps);
    s->host_in = (float*)callocCheck((size_t)n * s->R, 4);
    serve_launches(s);
    if (!emu) serve_streams(s);
    *out = s;
    return STEPQ_OK;
}

extern "C" void stepq_serving_free(stepq_serving* s) {
    if (!s) return;
    if (!s->emu) {
        cudaCheck(cudaDeviceSynchronize());
        cudaCheck(cudaStreamDestroy(s->sa));
        cudaCheck(cudaStreamDestroy(s->sb));
        cudaCheck(cudaEventDestroy(s->ea));
        cudaCheck(cudaEventDestroy(s->eb));
        cudaCheck(cudaEventDestroy(s->t0));
        cudaCheck(cudaEventDestroy(s->t1));
    }
    if (s->mode == STEPQ_SERVE_LANES) lanes_feed_close(&s->feed);
    void* p[] = {s->P, s->in, s->y, s->u, s->status, s->bits, s->w, s->off, s->meta, s->gws};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) bk_free(s->emu, p[i]);
    free(s->host_in);
    free(s->hbits);
    free(s->hw);
    free(s->hmeta);
    free(s);
}

extern "C" int stepq_serving_lanes_take(const stepq_format* f, int K, int V) { return lanes_takes(f, K, V); }
extern "C" int stepq_serving_lanes_exact(const stepq_format* f) { return lanes_encodes_exact(f); }
extern "C" float stepq_serving_lanes_expf(float g) { return lanes_expf(g); }
extern "C" size_t stepq_serving_stride(const stepq_serving* s) { return s->stride; }
extern "C" double stepq_serving_bytes_moved(const stepq_serving* s) { return s->moved; }

// the pool's first m heads <- packed (m, stride) in the CPU's layout (the lane kernels keep theirs)
static void serve_put(stepq_serving* s, const uint8_t* packed, int m) {
    const size_t bytes = (size_t)m * s->stride;
    if (s->mode != STEPQ_SERVE_LANES) {
        bk_h2d(s->emu, s->P, packed, bytes);
        return;
    }
    uint8_t* L = (uint8_t*)callocCheck(bytes, 1);
    for (int h = 0; h < m; h++) lanes_permute(L + (size_t)h * s->stride, packed + (size_t)h * s->stride, s->fmt, s->stride, 1);
    bk_h2d(s->emu, s->P, L, bytes);
    free(L);
}

// packed (n, stride) <- the pool's heads in the CPU's layout (the bytes past a head's own, up to
// the stride, zero: the lanes layouts may use them, the CPU's does not)
static void serve_get(stepq_serving* s, uint8_t* packed) {
    const size_t bytes = (size_t)s->n * s->stride;
    if (s->mode != STEPQ_SERVE_LANES) {
        bk_d2h(s->emu, packed, s->P, bytes);
        return;
    }
    memset(packed, 0, bytes);
    uint8_t* L = (uint8_t*)mallocCheck(bytes);
    bk_d2h(s->emu, L, s->P, bytes);
    for (int h = 0; h < s->n; h++) lanes_permute(packed + (size_t)h * s->stride, L + (size_t)h * s->stride, s->fmt, s->stride, 0);
    free(L);
}

extern "C" int stepq_serving_load(stepq_serving* s, const float* S) {
    const int K = s->K, V = s->V;
    const size_t KV = (size_t)K * V;
    uint8_t* P = (uint8_t*)callocCheck((size_t)s->n, s->stride);
    float* work = (float*)mallocCheck(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
    int rc = STEPQ_OK;
    for (int h = 0; h < s->n && rc == STEPQ_OK; h++) {
        const int ph = h % s->n_plans;
        const bp_meta* m = &s->hmeta[ph];
        stepq_head_plan hp = {m->kind, s->hbits + (size_t)ph * K, m->has_w ? s->hw + (size_t)ph * K : NULL,
                              m->rho, m->refits};
        rc = stepq_encode(P + (size_t)h * s->stride, S + h * KV, s->fmt, &hp, work, K, V);
    }
    if (rc != STEPQ_OK) stepq_error("serving pool: a state to load is not finite");
    else serve_put(s, P, s->n);
    free(P);
    free(work);
    return rc;
}

extern "C" int stepq_serving_upload(stepq_serving* s, const uint8_t* packed, int m) {
    stepq_assert(m >= 1 && m <= s->n && m % s->n_plans == 0);
    serve_put(s, packed, m);
    // doubling copies of the first heads over the rest (device to device)
    for (size_t have = (size_t)m; have < (size_t)s->n;) {
        const size_t more = have < (size_t)s->n - have ? have : (size_t)s->n - have;
        if (s->emu) memcpy(s->P + have * s->stride, s->P, more * s->stride);
        else cudaCheck(cudaMemcpy(s->P + have * s->stride, s->P, more * s->stride, cudaMemcpyDeviceToDevice));
        have += more;
    }
    return STEPQ_OK;
}

extern "C" int stepq_serving_set_inputs(stepq_serving* s, const float* q, const float* k, const float* v,
                                        const float* g, const float* beta, double scale) {
    const int K = s->K, V = s->V, G = s->n_gates, R = s->R, lanes = s->mode == STEPQ_SERVE_LANES;
    float* recs = lanes ? lanes_feed_stage(&s->feed) : s->host_in;
    for (int h = 0; h < s->n; h++) {
        float* rec = recs + (size_t)h * R;
        memset(rec, 0, sizeof(float) * R);
        memcpy(rec, q + (size_t)h * K, sizeof(float) * K);
        memcpy(rec + K, k + (size_t)h * K, sizeof(float) * K);
        memcpy(rec + 2 * K, v + (size_t)h * V, sizeof(float) * V);
        if (lanes) memcpy(rec + 3 * K + V, g + (size_t)h * G, sizeof(float) * G);  // the kernels take exp
        else stepq_decays(rec + 3 * K + V, g + (size_t)h * G, G, K);
        rec[4 * K + V] = beta[h];
    }
    for (int k2 = 0; k2 < 2; k2++) s->a[k2].fscale = (float)scale;
    s->la.fscale = (float)scale;
    if (lanes) {  // no wait for the previous step: its inputs are in the other buffer
        s->la.in = lanes_feed_upload(&s->feed, s->emu ? 0 : s->sa);
        return STEPQ_OK;
    }
    if (!s->emu) {  // the previous step's kernels read the inputs (both streams)
        cudaCheck(cudaStreamSynchronize(s->sa));
        cudaCheck(cudaStreamSynchronize(s->sb));
    }
    bk_h2d(s->emu, s->in, s->host_in, (size_t)s->n * R * 4);
    return STEPQ_OK;
}

extern "C" int stepq_serving_step(stepq_serving* s) {
    if (s->mode == STEPQ_SERVE_LANES) {
        lanes_launch(s->fmt, &s->la, s->n, s->sa, s->emu);
        lanes_feed_done(&s->feed, s->emu ? 0 : s->sa);
        return STEPQ_OK;
    }
    if (s->baseline || s->mode == STEPQ_SERVE_FUSED) {
        serve_launch(s, 0, s->sa);
        return STEPQ_OK;
    }
    if (s->emu) {
        serve_launch(s, 0, 0);
        serve_launch(s, 1, 0);
        return STEPQ_OK;
    }
    // kernel 1 waits for the previous step's kernel 2; kernel 2 for kernel 1's u
    cudaCheck(cudaStreamWaitEvent(s->sa, s->eb, 0));
    serve_launch(s, 0, s->sa);
    cudaCheck(cudaEventRecord(s->ea, s->sa));
    cudaCheck(cudaStreamWaitEvent(s->sb, s->ea, 0));
    serve_launch(s, 1, s->sb);
    cudaCheck(cudaEventRecord(s->eb, s->sb));
    return STEPQ_OK;
}

extern "C" int stepq_serving_read(stepq_serving* s, float* y, uint8_t* packed) {
    if (!s->emu) cudaCheck(cudaDeviceSynchronize());
    int* st = (int*)mallocCheck(sizeof(int) * (size_t)s->n);
    bk_d2h(s->emu, st, s->status, sizeof(int) * (size_t)s->n);
    int bad = -1;
    for (int h = 0; h < s->n && bad < 0; h++)
        if (st[h] != STEPQ_OK) bad = h;
    free(st);
    if (y) bk_d2h(s->emu, y, s->y, (size_t)s->n * s->V * 4);
    if (packed) serve_get(s, packed);
    if (bad >= 0) {
        stepq_error("serving pool (%s): head %d met a non-finite state", s->fmt->name, bad);
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

extern "C" int stepq_serving_time(stepq_serving* s, int steps, double* ms_per_step) {
    if (s->emu) return STEPQ_ERR;
    cudaCheck(cudaDeviceSynchronize());
    cudaCheck(cudaEventRecord(s->t0, s->sa));
    for (int t = 0; t < steps; t++) stepq_serving_step(s);
    if (!s->baseline && s->mode == STEPQ_SERVE_SPLIT) cudaCheck(cudaStreamWaitEvent(s->sa, s->eb, 0));
    cudaCheck(cudaEventRecord(s->t1, s->sa));
    cudaCheck(cudaEventSynchronize(s->t1));
    float ms = 0;
    cudaCheck(cudaEventElapsedTime(&ms, s->t0, s->t1));
    *ms_per_step = ms / steps;
    return STEPQ_OK;
}

extern "C" void stepq_serving_kernel(const stepq_serving* s, stepq_serving_kernel_info* out) {
    cudaFuncAttributes at;
    int blocks = 0;
    if (s->mode == STEPQ_SERVE_LANES) {
        lanes_attributes(s->fmt, &at, &blocks, s->emu);
    } else if (s->emu) {
        memset(&at, 0, sizeof at);
    } else {
        cudaCheck(cudaFuncGetAttributes(&at, (const void*)serve_kernel));
        cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void*)serve_kernel,
                                                                STEPQ_CUDA_THREADS, s->smem[0]));
    }
    out->regs = at.numRegs;
    out->smem = s->emu ? 0 : (long)(at.sharedSizeBytes + (s->mode == STEPQ_SERVE_LANES ? 0 : s->smem[0]));
    out->blocks_per_sm = blocks;
}

// ---------------------------------------------------------------------------------------------
// the check against the CPU's fused decode step

typedef struct {
    uint64_t s;
} chk_rng;
static double chk_uniform(chk_rng* r) {
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return ((r->s >> 11) + 0.5) / 9007199254740992.0;
}
static double chk_gauss(chk_rng* r) {
    return sqrt(-2 * log(chk_uniform(r))) * cos(6.283185307179586 * chk_uniform(r));
}
static void chk_unit(float* x, int n, chk_rng* r) {
    double s = 0;
    for (int i = 0; i < n; i++) x[i] = (float)chk_gauss(r), s += (double)x[i] * x[i];
    for (int i = 0; i < n; i++) x[i] = (float)(x[i] / sqrt(s + 1e-6));
}

// one step's inputs of n heads: unit q and k, Gaussian v, gates in (-0.2, 0], beta in [0, 1)
static void chk_inputs(float* q, float* k, float* v, float* g, float* beta, int n, int K, int V, int G,
                       chk_rng* r) {
    for (int h = 0; h < n; h++) {
        chk_unit(q + (size_t)h * K, K, r);
        chk_unit(k + (size_t)h * K, K, r);
        for (int j = 0; j < V; j++) v[(size_t)h * V + j] = (float)chk_gauss(r);
        for (int i = 0; i < G; i++) g[(size_t)h * G + i] = (float)(-0.2 * chk_uniform(r));
        beta[h] = (float)chk_uniform(r);
    }
}

// the device's read-outs yg against the CPU's yc (m values): equality, max |d|, sums of squares
static void chk_compare_y(stepq_serving_report* rep, const float* yg, const float* yc, size_t m, double* d2,
                          double* c2) {
    for (size_t e = 0; e < m; e++) {
        const double d = (double)yg[e] - yc[e];
        if (memcmp(&yg[e], &yc[e], sizeof(float))) rep->y_equal = 0;
        rep->y_max_abs = fmax(rep->y_max_abs, fabs(d));
        *d2 += d * d;
        *c2 += (double)yc[e] * yc[e];
    }
}

// the packed bytes of the CPU (qs) against the device's (Pg, n heads of stride bytes), and the
// method's comparison rule on the read-outs (6.5)
static void chk_finish(stepq_serving_report* rep, const stepq_qstate* qs, const uint8_t* Pg, int n, size_t stride,
                       double d2, double c2) {
    for (int h = 0; h < n; h++) {
        const size_t b = qs[h].bytes;
        for (size_t i = 0; i < b; i++) rep->bytes_differ += qs[h].packed[i] != Pg[(size_t)h * stride + i];
        rep->bytes_total += (long)b;
    }
    rep->y_rms_ratio = c2 > 0 ? sqrt(d2 / c2) : sqrt(d2);
    rep->y_agree = rep->y_max_abs <= 1e-6 || rep->y_rms_ratio < 2e-3;
}

extern "C" int stepq_serving_check(stepq_serving_report* rep, const stepq_format* f, const stepq_plan* plan,
                                   int kind, int n, int K, int V, int mode, int nsplit, int steps, int where,
                                   const stepq_backend* cpu) {
    stepq_assert(cpu && cpu->write);  // a CPU backend, passed down
    memset(rep, 0, sizeof *rep);
    const int G = stepq_kind_gates(kind, K);
    const size_t KV = (size_t)K * V;
    const double scale = 1.0 / sqrt((double)K);
    chk_rng r = {0x5eed0000ull + (uint64_t)n * 131 + (uint64_t)K};
    const int n_plans = plan ? (plan->H < n ? plan->H : n) : 1;
    stepq_head_plan* hps = (stepq_head_plan*)mallocCheck(sizeof(stepq_head_plan) * (size_t)n_plans);
    uint8_t* rows = (uint8_t*)mallocCheck((size_t)n_plans * K);
    stepq_qstate* qs = (stepq_qstate*)callocCheck((size_t)n, sizeof(stepq_qstate));
    int planned = STEPQ_OK;
    for (int h = 0; h < n_plans; h++)
        planned |= stepq_head_plan_for(&hps[h], rows + (size_t)h * K, f, plan, h, kind, K);
    for (int h = 0; h < n; h++) {
        if (planned != STEPQ_OK || stepq_qstate_init(&qs[h], f, plan, plan ? h % n_plans : 0, kind, K, V) != STEPQ_OK) {
            stepq_error("serving check: format %s needs a plan", f->name);
            free(hps); free(rows); free(qs);
            return STEPQ_ERR;
        }
    }
    stepq_serving* s;
    if (stepq_serving_create(&s, f, hps, n_plans, kind, n, K, V, mode, nsplit, where) != STEPQ_OK) {
        for (int h = 0; h < n; h++) stepq_qstate_free(&qs[h]);
        free(hps); free(rows); free(qs);
        return STEPQ_ERR;
    }
    float* S = (float*)mallocCheck(sizeof(float) * n * KV);
    for (size_t e = 0; e < n * KV; e++)
        S[e] = (float)(chk_gauss(&r) * (e / V % 9 == 0 ? 12 : 1) * (e % V % 11 == 0 ? 7 : 1));
    int rc = stepq_serving_load(s, S);
    for (int h = 0; h < n && rc == STEPQ_OK; h++) rc = stepq_qstate_load(&qs[h], S + h * KV);
    float *q = (float*)mallocCheck(sizeof(float) * n * K), *k = (float*)mallocCheck(sizeof(float) * n * K);
    float *v = (float*)mallocCheck(sizeof(float) * n * V), *g = (float*)mallocCheck(sizeof(float) * n * G);
    float *beta = (float*)mallocCheck(sizeof(float) * n), *decay = (float*)mallocCheck(sizeof(float) * K);
    float *yg = (float*)mallocCheck(sizeof(float) * n * V), *yc = (float*)mallocCheck(sizeof(float) * n * V);
    uint8_t* Pg = (uint8_t*)mallocCheck((size_t)n * s->stride);
    double d2 = 0, c2 = 0;
    rep->y_equal = 1;
    for (int t = 0; t < steps && rc == STEPQ_OK; t++) {
        chk_inputs(q, k, v, g, beta, n, K, V, G, &r);
        stepq_serving_set_inputs(s, q, k, v, g, beta, scale);
        stepq_serving_step(s);
        rc = stepq_serving_read(s, yg, Pg);
        for (int h = 0; h < n && rc == STEPQ_OK; h++) {
            stepq_step_in in = {q + (size_t)h * K, k + (size_t)h * K, v + (size_t)h * V, g + (size_t)h * G, beta[h]};
            stepq_decays(decay, in.g, G, K);
            cpu->read(&qs[h], &in, decay, NULL, NULL, NULL);
            rc = cpu->write(&qs[h], &in, decay, scale, G, NULL, yc + (size_t)h * V, NULL);
        }
        if (rc == STEPQ_OK) chk_compare_y(rep, yg, yc, (size_t)n * V, &d2, &c2);
    }
    if (rc == STEPQ_OK) chk_finish(rep, qs, Pg, n, s->stride, d2, c2);
    stepq_serving_free(s);
    for (int h = 0; h < n; h++) stepq_qstate_free(&qs[h]);
    free(hps); free(rows); free(qs); free(S); free(q); free(k); free(v); free(g); free(beta);
    free(decay); free(yg); free(yc); free(Pg);
    return rc;
}

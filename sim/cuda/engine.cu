// engine.cu: the CUDA analysis engine (engine.h): one block per (head, format) steps the
// reference and the quantized state of its head through a chunk of steps; the host feeds it
// the chunks of a batch of heads and gathers stepq_run_out's figures.
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.cuh"
#include "blockprog.cuh"

extern "C" {
#include "../../quant/plan.h"
#include "engine.h"
#include "prep.h"
}

// ---------------------------------------------------------------------------------------------
// the block program of the engine

// A block's first failure as one number, so that the smallest is the one the CPU runner stops
// at: 2 (t + 1) + kind, kind 0 the float32 reference (checked before the formats' writes of the
// same step), 1 this format's quantized path; ENG_NONE when nothing failed.
#define ENG_NONE LLONG_MAX
BP long long eng_fail_code(long t, int kind) { return 2 * ((long long)t + 1) + kind; }

// what one launch (one format, a batch of Hb heads, steps [t0, t1)) is given
typedef struct {
    bp_fmt fmt;
    int f;                  // the format's index in the run: format 0 also writes the reference's figures
    int Hb, K, V, TC, R;
    long t0, t1, prefill, bin, NB;
    float fscale;           // (float)scale, as the float32 step rounds it
    int keep_y;
    const float* in;        // (Hb, TC, R) the inputs of the chunk (prep.h)
    const uint8_t* bits;    // (Hb, K) widths of the format's rows per head
    const float* w;         // (Hb, K) row influence, or NULL (w = 1)
    const uint32_t* off;    // (Hb, K) row offsets (packing; unused by the engine)
    int kind, refits;
    float rho;
    uint32_t res, res_row;
    float *S, *X;           // (Hb, K, V) each block's reference and stored state between launches
    float* prev;            // (Hb, K, V) the stored state before the step (freeze gate), or NULL
    long long* fail;        // (Hb) eng_fail_code of the first failure, ENG_NONE
    long long* diverged;    // (Hb) the decode step at which ||S_hat|| passed 10 ||S||, or -1
    float *err_y, *err_S;   // (Hb, NB)
    double *acc_sq, *p1, *acc_ref;  // (Hb)
    float *y, *y_ref;       // (Hb, TC, V) read-outs of the chunk (keep_y)
    bp_dims dims;
    size_t ws_bytes;
    char* gws;              // (Hb, ws_bytes) the workspaces when they do not fit shared memory
} eng_args;

// sim/run.c's measure(): the figures of decode step t, with the divergence test (||S_hat||_F >
// 10 ||S||_F); returns 1 when the format diverged at this step (every thread alike)
BP int eng_measure(const eng_args* a, const bp_ws* w, int hb, long t) {
    const int diverged = w->ds[5] > 100 * w->ds[1] && w->ds[1] > 0;
    BP_FOR(it, 1) {
        const long b = (t - a->prefill) / a->bin;
        const double ny2 = w->ds[2], dy2 = w->ds[3];
        if (diverged) a->diverged[hb] = t - a->prefill;
        a->err_y[(size_t)hb * a->NB + b] += (float)bp_rel(dy2, ny2);
        a->err_S[(size_t)hb * a->NB + b] += (float)bp_rel(w->ds[0], w->ds[1]);
        a->acc_sq[hb] += dy2;
        a->p1[hb] = fmax(a->p1[hb], bp_rel(w->ds[4], ny2));
    }
    if (a->keep_y) BP_FOR(j, a->V) a->y[((size_t)hb * a->TC + (t - a->t0)) * a->V + j] = w->yq[j];
    return diverged;
}

// the reference's figures of decode step t (format 0's blocks keep them)
BP void eng_reference(const eng_args* a, const bp_ws* w, int hb, long t) {
    if (a->f != 0) return;
    BP_FOR(it, 1) a->acc_ref[hb] += w->ds[2];
    if (a->keep_y) BP_FOR(j, a->V) a->y_ref[((size_t)hb * a->TC + (t - a->t0)) * a->V + j] = w->y[j];
}

// store the new stored state as the freeze gate's previous one
BP void eng_keep_prev(bp_ws* w, float* prev) {
    if (!prev) return;
    bp_copy_f32(prev, w->X, (size_t)w->K * w->V);
    BP_SYNC();
}

// One block: head hb of the batch in format a->fmt, steps [t0, t1), in sim/run.c's
// order (method 2): prefill steps step the reference alone; at t = prefill the reference is
// checked and the boundary state encoded; each decode step updates both states and reads both
// out, checks the reference (its failure comes first), then the quantized path, encodes it
// (a replay format every fmt.replay steps only) and measures. A format that diverges stops;
// format 0's block goes on with the reference alone (its figures are the reference's).
BP void eng_block(const eng_args* a, int hb, char* base) {
    if (a->fail[hb] != ENG_NONE) return;  // failed in an earlier chunk (the same for every thread)
    if (a->diverged[hb] >= 0 && a->f != 0) return;
    int quant = a->diverged[hb] < 0;
    bp_ws w;
    bp_carve(&w, base, &a->dims);
    const int K = a->K, V = a->V;
    const size_t KV = (size_t)K * V;
    const bp_head hd = {a->bits + (size_t)hb * K, a->w ? a->w + (size_t)hb * K : (const float*)0,
                        a->off + (size_t)hb * K, a->kind, a->rho, a->refits, a->res, a->res_row};
    float *gS = a->S + hb * KV, *gX = a->X + hb * KV, *prev = a->prev ? a->prev + hb * KV : (float*)0;
    bp_load_plan(&w, &hd);
    bp_copy_f32(w.S, gS, KV);
    bp_copy_f32(w.X, gX, KV);
    BP_SYNC();
    long long failed = ENG_NONE;
    for (long t = a->t0; t < a->t1; t++) {
        const size_t tc = (size_t)(t - a->t0);
        bp_stage_inputs(&w, a->in + ((size_t)hb * a->TC + tc) * a->R, a->fscale);
        if (t < a->prefill) {
            bp_ref_columns(&w);
            if (a->keep_y && a->f == 0) BP_FOR(j, V) a->y_ref[((size_t)hb * a->TC + tc) * V + j] = w.y[j];
            continue;
        }
        if (t == a->prefill) {  // the boundary: the reference checked, P <- encode(S), S_hat <- decode(P)
            bp_ref_sums(&w, 0);
            if (!isfinite(w.ds[1])) { failed = eng_fail_code(t - 1, 0); break; }
            BP_FOR(e, KV) w.X[e] = w.S[e];
            BP_SYNC();
            bp_check_finite(&w, w.X);
            if (bp_take_flag(&w)) { failed = eng_fail_code(t, 1); break; }
            bp_encode(&w, &a->fmt, &hd, (uint8_t*)0, prev, 1, 1);
            if (bp_take_flag(&w)) { failed = eng_fail_code(t, 1); break; }
            eng_keep_prev(&w, prev);
        }
        if (quant) bp_engine_columns(&w);
        else bp_ref_columns(&w);
        const int bad = bp_take_flag(&w);
        bp_ref_sums(&w, 1);
        if (!isfinite(w.ds[1]) || !isfinite(w.ds[2])) { failed = eng_fail_code(t, 0); break; }
        eng_reference(a, &w, hb, t);
        if (!quant) continue;
        if (bad) { failed = eng_fail_code(t, 1); break; }
        // a replay format re-encodes every fmt.replay decode steps; in between X_t is kept exact
        const long count = t - a->prefill + 1;
        if (a->fmt.replay == 0 || count % a->fmt.replay == 0) {
            bp_encode(&w, &a->fmt, &hd, (uint8_t*)0, prev, 1, (uint64_t)count + 1);
            if (bp_take_flag(&w)) { failed = eng_fail_code(t, 1); break; }
            eng_keep_prev(&w, prev);
        }
        bp_error_sums(&w);
        if (eng_measure(a, &w, hb, t)) {
            if (a->f != 0) break;  // stopped
            quant = 0;
        }
    }
    BP_FOR(it, 1) if (failed != ENG_NONE) a->fail[hb] = failed;
    bp_copy_f32(gS, w.S, KV);
    bp_copy_f32(gX, w.X, KV);
}

__global__ void __launch_bounds__(STEPQ_CUDA_THREADS) eng_kernel(eng_args a) {
    extern __shared__ __align__(16) char smem[];
    eng_block(&a, (int)blockIdx.x, a.gws ? a.gws + (size_t)blockIdx.x * a.ws_bytes : smem);
}

// ---------------------------------------------------------------------------------------------
// the codec: one format's encoder or decoder on n heads (the parity tests)

typedef struct {
    bp_fmt fmt;
    int K, V, decode;
    const uint8_t* bits;    // (n, K)
    const float* w;         // (n, K)
    const uint32_t* off;    // (n, K)
    const bp_meta* meta;  // (n)
    uint32_t res, res_row;
    const float* Xin;       // (n, K, V) encode
    float* Xout;            // (n, K, V) X_hat (encode) or X (decode), may be NULL for encode
    uint8_t* P;             // (n, stride)
    size_t stride;
    int* status;            // (n)
    bp_dims dims;
    size_t ws_bytes;
    char* gws;
} codec_args;

BP void codec_block(const codec_args* a, int h, char* base) {
    bp_ws w;
    bp_carve(&w, base, &a->dims);
    const int K = a->K;
    const size_t KV = (size_t)K * a->V;
    const bp_meta m = a->meta[h];
    const bp_head hd = {a->bits + (size_t)h * K, m.has_w ? a->w + (size_t)h * K : (const float*)0,
                        a->off + (size_t)h * K, m.kind, m.rho, m.refits, a->res, a->res_row};
    uint8_t* P = a->P + (size_t)h * a->stride;
    bp_load_plan(&w, &hd);
    if (a->decode) {
        bp_decode(&w, &a->fmt, &hd, P);
        bp_copy_f32(a->Xout + h * KV, w.X, KV);
        return;
    }
    const float* prev = (const float*)0;
    if (a->fmt.freeze) {  // the gate reads the stored state
        bp_decode(&w, &a->fmt, &hd, P);
        bp_copy_f32(w.S, w.X, KV);
        BP_SYNC();
        prev = w.S;
    }
    bp_copy_f32(w.X, a->Xin + h * KV, KV);
    BP_SYNC();
    bp_check_finite(&w, w.X);
    int bad = bp_take_flag(&w);
    if (!bad) {
        bp_encode(&w, &a->fmt, &hd, P, prev, 1, 0);
        bad = bp_take_flag(&w);
    }
    BP_FOR(it, 1) a->status[h] = bad ? STEPQ_ERR : STEPQ_OK;
    if (a->Xout) bp_copy_f32(a->Xout + h * KV, w.X, KV);
}

__global__ void __launch_bounds__(STEPQ_CUDA_THREADS) codec_kernel(codec_args a) {
    extern __shared__ __align__(16) char smem[];
    codec_block(&a, (int)blockIdx.x, a.gws ? a.gws + (size_t)blockIdx.x * a.ws_bytes : smem);
}

// ---------------------------------------------------------------------------------------------
// host side

extern "C" int stepq_cuda_available(void) { return bk_device_ok(); }

// what a format's workspace holds
static bp_dims dims_of(const stepq_format* f, int K, int V, int with_S, int with_Z, int with_err) {
    bp_dims d;
    memset(&d, 0, sizeof d);
    d.K = K;
    d.V = V;
    d.with_S = with_S;
    d.with_err = with_err;
    d.with_Z = with_Z || (bp_needs(f->family->id) & BP_W_CODES);
    d.fam = f->family->id;
    d.nsplit = 1;
    return d;
}

// STEPQ_ERR (message) when the block programs cannot take format f at this shape: they work
// on groups of 8 values (V a multiple of 8), and the family's own shape rules (the format
// table's, quant/format.h)
static int shape_ok(const stepq_format* f, int K, int V) {
    const char* why = NULL;
    if (V % 8) why = "V a multiple of 8";
    if (!why) return stepq_format_fits(f, K, V);
    stepq_error("format %s on %d x %d heads: the CUDA engine needs %s", f->name, K, V, why);
    return STEPQ_ERR;
}

// the shared memory of a launch: its workspace, or 0 when the workspace goes to global memory
static size_t smem_for(size_t ws_bytes, int emu) { return ws_bytes > bk_smem_limit(emu) ? 0 : ws_bytes; }

// a kernel may take more than 48 KiB of dynamic shared memory only when told so
static void smem_allow(const void* kernel, size_t smem) {
    if (smem > 48u * 1024u)
        cudaCheck(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
}

// one format of a run, as the host keeps it
typedef struct {
    const stepq_format* f;
    bp_fmt bf;
    bp_dims dims;
    size_t ws_bytes, smem;
    int freeze, has_w, kind, refits;
    float rho;
    uint32_t res, res_row;
} eng_format;

// device buffers of a batch
typedef struct {
    float *S, *X, *prev;            // (F, Hb, K, V); prev only for freeze formats (F slots)
    long long* fail;                // (F, Hb)
    long long* diverged;            // (F, Hb)
    float *err_y, *err_S;           // (F, Hb, NB)
    double *acc_sq, *p1, *acc_ref;  // (F, Hb), (Hb)
    uint8_t* bits;                  // (F, Hb, K)
    float* w;                       // (F, Hb, K)
    uint32_t* off;                  // (F, Hb, K)
    float* in[2];                   // (Hb, TC, R) double-buffered inputs
    float *y, *y_ref;               // (F, Hb, TC, V), (Hb, TC, V)
    char* gws;                      // (Hb, ws) global workspaces, or NULL
} eng_dev;

typedef struct {
    const stepq_source* src;
    const stepq_run_cfg* cfg;
    stepq_run_out* out;
    const int* plan_index;
    eng_format* fm;   // (F)
    int F, K, V, R, TC, Hmax, emu;
    long T;
    size_t KV, gws_bytes;
} eng_run;

static size_t eng_head_bytes(const eng_run* r) {
    size_t n = (size_t)r->F * (2 * r->KV * 4 + r->KV * 4 /* prev, at most */ + (size_t)r->K * 9 +
                                (size_t)r->out->n_bins * 8 + 40);
    n += 2 * (size_t)r->TC * r->R * 4 + (r->cfg->keep_y ? (size_t)(r->F + 1) * r->TC * r->V * 4 : 0);
    return n + r->gws_bytes;
}

static void dev_alloc(eng_dev* d, const eng_run* r, int Hb) {
    const int e = r->emu;
    const size_t FH = (size_t)r->F * Hb, KV = r->KV;
    memset(d, 0, sizeof *d);
    d->S = (float*)bk_alloc(e, FH * KV * 4);
    d->X = (float*)bk_alloc(e, FH * KV * 4);
    int nf = 0;
    for (int f = 0; f < r->F; f++) nf += r->fm[f].freeze;
    if (nf) d->prev = (float*)bk_alloc(e, FH * KV * 4);
    d->fail = (long long*)bk_alloc(e, FH * sizeof(long long));
    d->diverged = (long long*)bk_alloc(e, FH * sizeof(long long));
    d->err_y = (float*)bk_alloc(e, FH * r->out->n_bins * 4);
    d->err_S = (float*)bk_alloc(e, FH * r->out->n_bins * 4);
    d->acc_sq = (double*)bk_alloc(e, FH * 8);
    d->p1 = (double*)bk_alloc(e, FH * 8);
    d->acc_ref = (double*)bk_alloc(e, (size_t)Hb * 8);
    d->bits = (uint8_t*)bk_alloc(e, FH * r->K);
    d->w = (float*)bk_alloc(e, FH * r->K * 4);
    d->off = (uint32_t*)bk_alloc(e, FH * r->K * 4);
    for (int b = 0; b < 2; b++) d->in[b] = (float*)bk_alloc(e, (size_t)Hb * r->TC * r->R * 4);
    if (r->cfg->keep_y) {
        d->y = (float*)bk_alloc(e, FH * r->TC * r->V * 4);
        d->y_ref = (float*)bk_alloc(e, (size_t)Hb * r->TC * r->V * 4);
    }
    if (r->gws_bytes) d->gws = (char*)bk_alloc(e, (size_t)Hb * r->gws_bytes);
}

static void dev_free(eng_dev* d, int e) {
    void* p[] = {d->S, d->X, d->prev, d->fail, d->diverged, d->err_y, d->err_S, d->acc_sq, d->p1, d->acc_ref,
                 d->bits, d->w, d->off, d->in[0], d->in[1], d->y, d->y_ref, d->gws};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) bk_free(e, p[i]);
    memset(d, 0, sizeof *d);
}

// the plans of heads [h0, h0 + Hb) for every format, and the packed bytes of each into out
static void upload_plans(eng_dev* d, const eng_run* r, int h0, int Hb) {
    const int K = r->K, F = r->F;
    const size_t FHK = (size_t)F * Hb * K;
    uint8_t* bits = (uint8_t*)mallocCheck(FHK);
    float* w = (float*)mallocCheck(FHK * 4);
    uint32_t* off = (uint32_t*)mallocCheck(FHK * 4);
    for (int f = 0; f < F; f++)
        for (int hb = 0; hb < Hb; hb++) {
            const int h = h0 + hb;
            const size_t o = ((size_t)f * Hb + hb) * K;
            stepq_head_plan hp;
            stepq_assert(stepq_head_plan_for(&hp, bits + o, r->fm[f].f, r->cfg->plan, r->plan_index[h],
                                             r->src->kind, K) == STEPQ_OK);
            for (int i = 0; i < K; i++) w[o + i] = hp.w ? hp.w[i] : 1.0f;
            r->fm[f].f->family->row_offsets(off + o, r->fm[f].f, &hp, K, r->V);
            r->out->bytes[(size_t)f * r->out->H + h] = (double)stepq_format_bytes(r->fm[f].f, &hp, K, r->V);
        }
    bk_h2d(r->emu, d->bits, bits, FHK);
    bk_h2d(r->emu, d->w, w, FHK * 4);
    bk_h2d(r->emu, d->off, off, FHK * 4);
    free(bits);
    free(w);
    free(off);
}

// every block's reference starts from S0 (or zeros); nothing has failed or diverged
static void upload_states(eng_dev* d, const eng_run* r, int h0, int Hb) {
    const size_t KV = r->KV, FH = (size_t)r->F * Hb;
    if (r->src->S0)
        for (int f = 0; f < r->F; f++)
            bk_h2d(r->emu, d->S + (size_t)f * Hb * KV, r->src->S0 + (size_t)h0 * KV, (size_t)Hb * KV * 4);
    long long* v = (long long*)mallocCheck(FH * sizeof(long long));
    for (size_t i = 0; i < FH; i++) v[i] = ENG_NONE;
    bk_h2d(r->emu, d->fail, v, FH * sizeof(long long));
    for (size_t i = 0; i < FH; i++) v[i] = -1;
    bk_h2d(r->emu, d->diverged, v, FH * sizeof(long long));
    free(v);
}

static eng_args args_for(const eng_run* r, const eng_dev* d, int f, int Hb, long t0, long t1, int buf) {
    const eng_format* m = &r->fm[f];
    const size_t o = (size_t)f * Hb, KV = r->KV;
    eng_args a;
    memset(&a, 0, sizeof a);
    a.fmt = m->bf;
    a.f = f;
    a.Hb = Hb;
    a.K = r->K;
    a.V = r->V;
    a.TC = r->TC;
    a.R = r->R;
    a.t0 = t0;
    a.t1 = t1;
    a.prefill = r->cfg->prefill;
    a.bin = r->cfg->bin;
    a.NB = r->out->n_bins;
    a.fscale = (float)r->src->scale;
    a.keep_y = r->cfg->keep_y;
    a.in = d->in[buf];
    a.bits = d->bits + o * r->K;
    a.w = m->has_w ? d->w + o * r->K : NULL;
    a.off = d->off + o * r->K;
    a.kind = m->kind;
    a.refits = m->refits;
    a.rho = m->rho;
    a.res = m->res;
    a.res_row = m->res_row;
    a.S = d->S + o * KV;
    a.X = d->X + o * KV;
    a.prev = m->freeze ? d->prev + o * KV : NULL;
    a.fail = d->fail + o;
    a.diverged = d->diverged + o;
    a.err_y = d->err_y + o * a.NB;
    a.err_S = d->err_S + o * a.NB;
    a.acc_sq = d->acc_sq + o;
    a.p1 = d->p1 + o;
    a.acc_ref = d->acc_ref;
    a.y = d->y ? d->y + o * r->TC * r->V : NULL;
    a.y_ref = d->y_ref;
    a.dims = m->dims;
    a.ws_bytes = m->ws_bytes;
    a.gws = m->smem ? NULL : d->gws;
    return a;
}

static void launch_engine(const eng_args* a, const eng_format* m, int emu, cudaStream_t st) {
    if (!emu) {
        smem_allow((const void*)eng_kernel, m->smem);
        eng_kernel<<<a->Hb, STEPQ_CUDA_THREADS, m->smem, st>>>(*a);
        cudaCheck(cudaGetLastError());
        return;
    }
    char* ws = a->gws ? NULL : (char*)mallocCheck(a->ws_bytes);
    for (int hb = 0; hb < a->Hb; hb++) eng_block(a, hb, a->gws ? a->gws + hb * a->ws_bytes : ws);
    free(ws);
}

// the read-outs of chunk [t0, t1) into out (the prefill's reference read-outs are every
// format's read-outs too, as in sim/run.c)
static void gather_y(const eng_run* r, const eng_dev* d, int h0, int Hb, long t0, long t1) {
    const int F = r->F, V = r->V, H = r->out->H, TC = r->TC;
    const size_t TV = (size_t)TC * V;
    float* y = (float*)mallocCheck((size_t)F * Hb * TV * 4);
    float* yr = (float*)mallocCheck((size_t)Hb * TV * 4);
    bk_d2h(r->emu, y, d->y, (size_t)F * Hb * TV * 4);
    bk_d2h(r->emu, yr, d->y_ref, (size_t)Hb * TV * 4);
    for (int hb = 0; hb < Hb; hb++)
        for (long t = t0; t < t1; t++) {
            const size_t src = ((size_t)hb * TC + (t - t0)) * V, h = (size_t)h0 + hb;
            memcpy(r->out->y_ref + ((size_t)t * H + h) * V, yr + src, (size_t)V * 4);
            for (int f = 0; f < F; f++)
                memcpy(r->out->y + (((size_t)f * r->T + t) * H + h) * V,
                       t < r->cfg->prefill ? yr + src : y + (size_t)f * Hb * TV + src, (size_t)V * 4);
        }
    free(y);
    free(yr);
}

// the figures of the batch into out; returns the first failure (head, step, format, whether it
// was the reference) or h = -1
typedef struct {
    int h, f, reference;
    long t;
    int source;  // 1: the source failed reading its inputs (it said why)
} eng_fail;

static eng_fail gather(const eng_run* r, const eng_dev* d, int h0, int Hb) {
    const int F = r->F, H = r->out->H;
    const long NB = r->out->n_bins;
    const size_t FH = (size_t)F * Hb, KV = r->KV;
    stepq_run_out* o = r->out;
    float* fb = (float*)mallocCheck(FH * NB * 4);
    double* db = (double*)mallocCheck(FH * 8);
    long long* code = (long long*)mallocCheck(FH * sizeof(long long));
    bk_d2h(r->emu, code, d->fail, FH * sizeof(long long));
    eng_fail first = {.h = -1, .f = 0, .reference = 0, .t = 0, .source = 0};
    for (int hb = 0; hb < Hb && first.h < 0; hb++) {  // the CPU stops a head at its first failure
        long long best = ENG_NONE;
        int bf = 0;
        for (int f = 0; f < F; f++)
            if (code[(size_t)f * Hb + hb] < best) best = code[(size_t)f * Hb + hb], bf = f;
        if (best == ENG_NONE) continue;
        first.h = h0 + hb;
        first.reference = (int)(best & 1) == 0;
        first.f = first.reference ? 0 : bf;
        first.t = (long)(best / 2 - 1);
    }
    bk_d2h(r->emu, code, d->diverged, FH * sizeof(long long));
    for (int f = 0; f < F; f++)
        for (int hb = 0; hb < Hb; hb++) o->diverged[(size_t)f * H + h0 + hb] = (long)code[(size_t)f * Hb + hb];
    for (int k = 0; k < 2; k++) {
        bk_d2h(r->emu, fb, k ? d->err_S : d->err_y, FH * NB * 4);
        float* dst = k ? o->err_S : o->err_y;
        for (int f = 0; f < F; f++)
            memcpy(dst + ((size_t)f * H + h0) * NB, fb + (size_t)f * Hb * NB, (size_t)Hb * NB * 4);
    }
    for (int k = 0; k < 2; k++) {
        bk_d2h(r->emu, db, k ? d->p1 : d->acc_sq, FH * 8);
        double* dst = k ? o->p1_resid : o->acc_sq;
        for (int f = 0; f < F; f++) memcpy(dst + (size_t)f * H + h0, db + (size_t)f * Hb, (size_t)Hb * 8);
    }
    bk_d2h(r->emu, o->acc_ref + h0, d->acc_ref, (size_t)Hb * 8);
    if (r->cfg->keep_y) {
        for (int f = 0; f < F; f++)
            bk_d2h(r->emu, o->S_final + ((size_t)f * H + h0) * KV, d->X + (size_t)f * Hb * KV, (size_t)Hb * KV * 4);
        bk_d2h(r->emu, o->S_ref_final + (size_t)h0 * KV, d->S, (size_t)Hb * KV * 4);
    }
    free(fb);
    free(db);
    free(code);
    return first;
}

// the host side of a batch's chunks: two input buffers of `bytes` (pinned in device mode, each
// with the event that says the device has read it) and the stream the chunks run on
typedef struct {
    float* in[2];
    cudaEvent_t done[2];
    cudaStream_t st;
    size_t bytes;
} eng_stage;

static void stage_open(eng_stage* s, const eng_run* r, size_t bytes) {
    *s = (eng_stage){.in = {NULL, NULL}, .done = {NULL, NULL}, .st = 0, .bytes = bytes};
    for (int b = 0; b < 2; b++) {
        if (r->emu) s->in[b] = (float*)mallocCheck(bytes);
        else {
            cudaCheck(cudaMallocHost((void**)&s->in[b], bytes));
            cudaCheck(cudaEventCreateWithFlags(&s->done[b], cudaEventDisableTiming));
        }
    }
    // a blocking stream: it waits for the synchronous copies of the plans and states (legacy stream)
    if (!r->emu) cudaCheck(cudaStreamCreate(&s->st));
}

static void stage_close(eng_stage* s, const eng_run* r) {
    for (int b = 0; b < 2; b++) {
        if (r->emu) free(s->in[b]);
        else {
            cudaCheck(cudaFreeHost(s->in[b]));
            cudaCheck(cudaEventDestroy(s->done[b]));
        }
    }
    if (!r->emu) cudaCheck(cudaStreamDestroy(s->st));
}

// steps [t0, t1) of the batch, prepared in buffer b: uploaded, every format's engine launched,
// and the read-outs gathered when kept
static void run_chunk(const eng_run* r, eng_dev* d, const eng_stage* s, int b, int h0, int Hb, long t0, long t1) {
    if (r->emu) memcpy(d->in[b], s->in[b], s->bytes);
    else cudaCheck(cudaMemcpyAsync(d->in[b], s->in[b], s->bytes, cudaMemcpyHostToDevice, s->st));
    if (r->cfg->keep_y) {  // a stopped format's read-outs stay zero, as the CPU leaves them
        if (r->emu) memset(d->y, 0, (size_t)r->F * Hb * r->TC * r->V * 4);
        else cudaCheck(cudaMemsetAsync(d->y, 0, (size_t)r->F * Hb * r->TC * r->V * 4, s->st));
    }
    for (int f = 0; f < r->F; f++) {
        eng_args a = args_for(r, d, f, Hb, t0, t1, b);
        launch_engine(&a, &r->fm[f], r->emu, s->st);
    }
    if (!r->emu) cudaCheck(cudaEventRecord(s->done[b], s->st));
    if (r->cfg->keep_y) {
        if (!r->emu) cudaCheck(cudaStreamSynchronize(s->st));
        gather_y(r, d, h0, Hb, t0, t1);
    }
}

// Heads [h0, h0 + Hb) through every step: chunks of TC steps, the host preparing chunk c + 1
// while the device runs chunk c (device mode). Returns the batch's first failure.
static eng_fail run_batch(const eng_run* r, eng_dev* d, double* gate_sum, int h0, int Hb) {
    const stepq_source* src = r->src;
    stepq_cursor** cur = (stepq_cursor**)mallocCheck(sizeof(stepq_cursor*) * Hb);
    for (int hb = 0; hb < Hb; hb++) cur[hb] = src->open(src, h0 + hb);
    upload_plans(d, r, h0, Hb);
    upload_states(d, r, h0, Hb);
    eng_stage s;
    stage_open(&s, r, (size_t)Hb * r->TC * r->R * 4);
    long c = 0;
    int source_failed = 0;
    for (long t0 = 0; t0 < r->T && !source_failed; t0 += r->TC, c++) {
        const long t1 = t0 + r->TC < r->T ? t0 + r->TC : r->T;
        const int b = (int)(c % 2);
        if (!r->emu && c >= 2) cudaCheck(cudaEventSynchronize(s.done[b]));  // buffer b is free again
        if (stepq_cuda_prep(s.in[b], gate_sum + h0, cur, Hb, src, t0, t1, r->cfg->prefill, r->TC, r->R) !=
            STEPQ_OK) {
            source_failed = 1;
            break;
        }
        run_chunk(r, d, &s, b, h0, Hb, t0, t1);
    }
    if (!r->emu) cudaCheck(cudaStreamSynchronize(s.st));
    eng_fail first = gather(r, d, h0, Hb);
    if (source_failed) first = (eng_fail){.h = h0, .f = 0, .reference = 0, .t = 0, .source = 1};
    stage_close(&s, r);
    for (int hb = 0; hb < Hb; hb++) src->close(cur[hb]);
    free(cur);
    return first;
}

// the formats as the block programs take them; STEPQ_ERR (message) for a shape they cannot take
static int formats_for(eng_run* r) {
    r->gws_bytes = 0;
    for (int f = 0; f < r->F; f++) {
        eng_format* m = &r->fm[f];
        const stepq_format* fmt = r->cfg->formats[f];
        if (shape_ok(fmt, r->K, r->V) != STEPQ_OK) return STEPQ_ERR;
        uint8_t rows[STEPQ_MAX_DIM];
        stepq_head_plan hp;  // the plan's knobs (the same for every head)
        int ph = r->cfg->plan && stepq_format_needs_plan(fmt) ? r->plan_index[0] : 0;
        stepq_assert(stepq_head_plan_for(&hp, rows, fmt, r->cfg->plan, ph, r->src->kind, r->K) == STEPQ_OK);
        m->f = fmt;
        m->bf = bp_fmt_of(fmt);
        m->dims = dims_of(fmt, r->K, r->V, 1, 0, 1);
        bp_ws unused;
        m->ws_bytes = bp_carve(&unused, NULL, &m->dims);
        m->smem = smem_for(m->ws_bytes, r->emu);
        if (!m->smem && m->ws_bytes > r->gws_bytes) r->gws_bytes = m->ws_bytes;
        m->freeze = stepq_format_freeze_gated(fmt);
        m->has_w = hp.w != NULL;
        m->kind = hp.kind;
        m->refits = hp.refits;
        m->rho = hp.rho;
        bp_residual(&m->res, &m->res_row, fmt, r->K, r->V);
    }
    return STEPQ_OK;
}

static int batch_size(const eng_run* r) {
    size_t budget = 256u << 20;
    if (!r->emu) {
        size_t free_b = 0, total = 0;
        cudaCheck(cudaMemGetInfo(&free_b, &total));
        budget = free_b / 2;
    }
    size_t hb = budget / eng_head_bytes(r);
    const char* cap = getenv("STEPQ_CUDA_MAX_BATCH");  // a smaller batch (tests, shared devices)
    if (cap && atoi(cap) > 0 && (size_t)atoi(cap) < hb) hb = (size_t)atoi(cap);
    if (hb < 1) hb = 1;
    if (hb > (size_t)r->Hmax) hb = (size_t)r->Hmax;
    return (int)hb;
}

// r <- the run of src's heads under cfg on where's engine (plan_index: stepq_run_prepare's), its
// formats' device shapes included
static int run_setup(eng_run* r, stepq_run_out* out, const stepq_source* src, const stepq_run_cfg* cfg,
                     const int* plan_index, int emu) {
    memset(r, 0, sizeof *r);
    r->src = src;
    r->cfg = cfg;
    r->out = out;
    r->plan_index = plan_index;
    r->F = cfg->n_formats;
    r->K = src->K;
    r->V = src->V;
    r->KV = (size_t)r->K * r->V;
    r->R = bp_rec_floats(r->K, r->V);
    r->T = cfg->prefill + cfg->decode;
    r->TC = (int)(r->T < 256 ? r->T : 256);
    r->Hmax = src->n_heads;
    r->emu = emu;
    r->fm = (eng_format*)callocCheck((size_t)r->F, sizeof(eng_format));
    if (formats_for(r) == STEPQ_OK) return STEPQ_OK;
    free(r->fm);
    return STEPQ_ERR;
}

// the head loop's messages for a failed run (sim/headloop.c)
static void report_fail(const eng_fail* fail, const stepq_source* src, const stepq_run_cfg* cfg) {
    if (fail->source) return;  // the source said why
    if (fail->reference)
        stepq_error("%s: the float32 reference met a non-finite state or read-out at head %d (layer %d, "
                    "head %d), step %ld: the inputs overflow the recurrence; nothing was written",
                    src->desc, fail->h, src->layer[fail->h], src->head[fail->h], fail->t);
    else
        stepq_error("%s: the quantized path of format %s met a non-finite state at head %d (layer %d, "
                    "head %d), step %ld; the format overflowed; nothing was written",
                    src->desc, cfg->formats[fail->f]->name, fail->h, src->layer[fail->h],
                    src->head[fail->h], fail->t);
}

extern "C" int stepq_cuda_run_heads_on(stepq_run_out* out, const stepq_source* src,
                                       const stepq_run_cfg* cfg, int where) {
    const int emu = where == STEPQ_CUDA_EMULATE;
    if (!emu && !bk_device_ok()) {
        stepq_error("no CUDA device of compute capability 8.0 or newer is available (the CUDA "
                    "engine needs one; the CPU runner does not)");
        return STEPQ_ERR;
    }
    if (cfg->done || cfg->keep) {  // a journal lives on the analysis floor: its caller reads and writes it
        stepq_error("the CUDA engine does not read or write a run journal (--resume): run the heads "
                    "it lacks and journal them in the caller, or run without one");
        return STEPQ_ERR;
    }
    int* plan_index = (int*)callocCheck((size_t)src->n_heads, sizeof(int));
    if (stepq_run_prepare(plan_index, src, cfg) != STEPQ_OK) {
        free(plan_index);
        return STEPQ_ERR;
    }
    eng_run r;
    if (run_setup(&r, out, src, cfg, plan_index, emu) != STEPQ_OK) {
        free(plan_index);
        return STEPQ_ERR;
    }
    stepq_run_out_alloc(out, src, cfg);
    double* gate_sum = (double*)callocCheck((size_t)src->n_heads, sizeof(double));
    const int Hb = batch_size(&r);
    // the pinned input buffers (two chunks of the batch) within 1 GiB: shorter chunks for large batches
    while (r.TC > 16 && 2 * (size_t)Hb * r.TC * r.R * 4 > (1u << 30)) r.TC /= 2;
    eng_dev d;
    dev_alloc(&d, &r, Hb);
    eng_fail fail = {-1, 0, 0, 0, 0};
    for (int h0 = 0; h0 < src->n_heads && fail.h < 0; h0 += Hb) {
        const int n = src->n_heads - h0 < Hb ? src->n_heads - h0 : Hb;
        if (h0 > 0) {  // a fresh batch: its accumulators start from zero
            eng_dev e = d;
            dev_free(&e, emu);
            dev_alloc(&d, &r, Hb);
        }
        fail = run_batch(&r, &d, gate_sum, h0, n);
    }
    dev_free(&d, emu);
    for (int h = 0; h < src->n_heads; h++) {
        out->mean_log_gate[h] = gate_sum[h] / (double)r.T;
        out->half_life[h] = M_LN2 / -out->mean_log_gate[h];
    }
    free(gate_sum);
    free(r.fm);
    free(plan_index);
    if (fail.h >= 0) {
        report_fail(&fail, src, cfg);
        stepq_run_out_free(out);
        return STEPQ_ERR;
    }
    stepq_run_out_bin_means(out, cfg);
    return STEPQ_OK;
}

extern "C" int stepq_cuda_run_heads(stepq_run_out* out, const stepq_source* src, const stepq_run_cfg* cfg) {
    return stepq_cuda_run_heads_on(out, src, cfg, STEPQ_CUDA_DEVICE);
}

// ---------------------------------------------------------------------------------------------
// the codec on n heads

// the per-head tables the codec reads, on the host: row widths, weights, row offsets and knobs
typedef struct {
    uint8_t* bits;   // (n, K)
    float* w;        // (n, K)
    uint32_t* off;   // (n, K)
    bp_meta* meta;   // (n)
} codec_tables;

static codec_tables codec_tables_of(const stepq_format* f, const stepq_head_plan* hps, size_t stride, int n,
                                    int K, int V) {
    const size_t nK = (size_t)n * K;
    codec_tables t = {(uint8_t*)mallocCheck(nK), (float*)mallocCheck(nK * 4), (uint32_t*)mallocCheck(nK * 4),
                      (bp_meta*)mallocCheck(sizeof(bp_meta) * (size_t)n)};
    for (int h = 0; h < n; h++) {
        memcpy(t.bits + (size_t)h * K, hps[h].bits, (size_t)K);
        for (int i = 0; i < K; i++) t.w[(size_t)h * K + i] = hps[h].w ? hps[h].w[i] : 1.0f;
        f->family->row_offsets(t.off + (size_t)h * K, f, &hps[h], K, V);
        stepq_assert(stepq_format_bytes(f, &hps[h], K, V) <= stride);
        t.meta[h].kind = hps[h].kind;
        t.meta[h].refits = hps[h].refits;
        t.meta[h].has_w = hps[h].w != NULL;
        t.meta[h].rho = hps[h].rho;
    }
    return t;
}

static void codec_tables_free(codec_tables* t) {
    free(t->bits);
    free(t->w);
    free(t->off);
    free(t->meta);
}

// the codec a describes on n heads, on the device (or the host: emu): the tables t and the state X
// (encode) or the packed bytes (decode) in; the packed bytes (encode), Xout and status out
static void codec_on(codec_args* a, const codec_tables* t, uint8_t* packed, float* Xout, int* status,
                     const float* X, int n, int emu) {
    const size_t KV = (size_t)a->K * a->V, nK = (size_t)n * a->K, stride = a->stride;
    const int decode = a->decode;
    const size_t smem = smem_for(a->ws_bytes, emu);
    uint8_t* dbits = (uint8_t*)bk_alloc(emu, nK);
    float* dw = (float*)bk_alloc(emu, nK * 4);
    uint32_t* doff = (uint32_t*)bk_alloc(emu, nK * 4);
    bp_meta* dmeta = (bp_meta*)bk_alloc(emu, sizeof(bp_meta) * (size_t)n);
    float* dX = decode ? NULL : (float*)bk_alloc(emu, n * KV * 4);
    float* dXo = Xout ? (float*)bk_alloc(emu, n * KV * 4) : NULL;
    uint8_t* dP = (uint8_t*)bk_alloc(emu, (size_t)n * stride);
    int* dst = (int*)bk_alloc(emu, sizeof(int) * (size_t)n);
    char* gws = smem ? NULL : (char*)bk_alloc(emu, (size_t)n * a->ws_bytes);
    bk_h2d(emu, dbits, t->bits, nK);
    bk_h2d(emu, dw, t->w, nK * 4);
    bk_h2d(emu, doff, t->off, nK * 4);
    bk_h2d(emu, dmeta, t->meta, sizeof(bp_meta) * (size_t)n);
    if (!decode) bk_h2d(emu, dX, X, n * KV * 4);
    bk_h2d(emu, dP, packed, (size_t)n * stride);
    a->bits = dbits;
    a->w = dw;
    a->off = doff;
    a->meta = dmeta;
    a->Xin = dX;
    a->Xout = dXo;
    a->P = dP;
    a->status = dst;
    a->gws = gws;
    if (emu) {
        char* ws = gws ? NULL : (char*)mallocCheck(a->ws_bytes);
        for (int h = 0; h < n; h++) codec_block(a, h, gws ? gws + h * a->ws_bytes : ws);
        free(ws);
    } else {
        smem_allow((const void*)codec_kernel, smem);
        codec_kernel<<<n, STEPQ_CUDA_THREADS, smem>>>(*a);
        cudaCheck(cudaGetLastError());
        cudaCheck(cudaDeviceSynchronize());
    }
    if (!decode) bk_d2h(emu, packed, dP, (size_t)n * stride);
    if (Xout) bk_d2h(emu, Xout, dXo, n * KV * 4);
    if (status) bk_d2h(emu, status, dst, sizeof(int) * (size_t)n);
    void* p[] = {dbits, dw, doff, dmeta, dX, dXo, dP, dst, gws};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) bk_free(emu, p[i]);
}

static int codec_run(uint8_t* packed, float* Xout, int* status, const float* X, const stepq_format* f,
                     const stepq_head_plan* hps, size_t stride, int n, int K, int V, int where, int decode) {
    const int emu = where == STEPQ_CUDA_EMULATE;
    if (!emu && !bk_device_ok()) {
        stepq_error("no CUDA device of compute capability 8.0 or newer is available");
        return STEPQ_ERR;
    }
    if (shape_ok(f, K, V) != STEPQ_OK) return STEPQ_ERR;
    codec_tables t = codec_tables_of(f, hps, stride, n, K, V);
    codec_args a;
    memset(&a, 0, sizeof a);
    a.fmt = bp_fmt_of(f);
    a.K = K;
    a.V = V;
    a.decode = decode;
    a.stride = stride;
    bp_residual(&a.res, &a.res_row, f, K, V);
    a.dims = dims_of(f, K, V, stepq_format_freeze_gated(f), 1, 0);
    bp_ws unused;
    a.ws_bytes = bp_carve(&unused, NULL, &a.dims);
    codec_on(&a, &t, packed, Xout, status, X, n, emu);
    codec_tables_free(&t);
    return STEPQ_OK;
}

extern "C" int stepq_cuda_encode(uint8_t* packed, float* X_hat, int* status, const float* X,
                                 const stepq_format* f, const stepq_head_plan* hps, size_t stride,
                                 int n, int K, int V, int where) {
    return codec_run(packed, X_hat, status, X, f, hps, stride, n, K, V, where, 0);
}

extern "C" int stepq_cuda_decode(float* X, const uint8_t* packed, const stepq_format* f,
                                 const stepq_head_plan* hps, size_t stride, int n, int K, int V,
                                 int where) {
    return codec_run((uint8_t*)packed, X, NULL, NULL, f, hps, stride, n, K, V, where, 1);
}

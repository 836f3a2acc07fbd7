// dsession.cu: the device session's buffers, kernels and launches (dsession.h). NOT YET RUN ON A
// DEVICE (issue 68): compiled for sm_80/sm_90 and run here in its host emulation only.
//
// A step, all on the caller's stream, no wait: the inputs packed into records (ds_pack); the
// reference's FP32 lane kernel; at the first decode step the boundary encode (one wait: the
// reference state to the host, each format's CPU encoder, lanes_permute, back up); then each
// format's lane kernel; per format, where bins are held, S_hat_t decoded (lanes_decode) and the
// errors added to the step's bin (ds_measure); the failures noted (ds_note).
//
// Legend: H heads, F formats, K = V = 128, R record floats, NB bins, P = 1 + F pools (the
// reference first).
#include <math.h>
#include <stdint.h>

#include "backend.cuh"
#include "blockprog.cuh"
#include "lanes.h"

extern "C" {
#include "../../quant/format.h"
}
#include "dsession.h"

#define DS_T 256                          // threads of this file's kernels
#define DS_HD static __host__ __device__ inline
#define DS_NONE 0xffffffffffffffffull     // no failure noted

// a CUDA call that can fail at run time (memory, a launch): the message, and STEPQ_ERR
#define DS_TRY(call)                                                                       \
    do {                                                                                   \
        const cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess) {                                                           \
            stepq_error("device session: %s: %s", #call, cudaGetErrorString(e_));          \
            return STEPQ_ERR;                                                              \
        }                                                                                  \
    } while (0)

struct stepq_dsess {
    stepq_dsess_config c;
    int G, R;
    cudaStream_t st;
    float* rec;               // (H,R) the step's records
    uint8_t** pool;           // (P) (H, stride[p]): the reference's floats, then each format's lanes layout
    size_t* stride;           // (P)
    const stepq_format** fmt;  // (P) fp32, then the formats
    float* y;                 // (P,H,V) read-outs
    int* status;              // (P,H) each kernel's per head
    float* Sh;                // (H,K,V) S_hat_t of the format measured
    double* sums;             // (F,NB,2,H) per format and bin: state then read-out errors
    unsigned long long* count;  // (NB) decode steps in each bin
    unsigned long long* fail;   // (1) the first failure: (step P + pool) H + head, or DS_NONE
};

// ---------------------------------------------------------------------------------------------
// the kernels, each with its host form

// element e of head h's record (prep.h's layout; grad unread; the log gates in the decays' place)
DS_HD float ds_rec(int e, int h, const float* q, const float* k, const float* v, const float* g, const float* beta,
                   int G) {
    const int K = LANES_K, V = LANES_V;
    if (e < K) return q[(size_t)h * K + e];
    if ((e -= K) < K) return k[(size_t)h * K + e];
    if ((e -= K) < V) return v[(size_t)h * V + e];
    if ((e -= V) < K) return 0.0f;
    if ((e -= K) < K) return e < G ? g[(size_t)h * G + e] : 0.0f;
    return e - K == 0 ? beta[h] : 0.0f;
}

__global__ void ds_pack(float* rec, int R, const float* q, const float* k, const float* v, const float* g,
                        const float* beta, int G) {
    const int h = (int)blockIdx.x;
    for (int e = (int)threadIdx.x; e < R; e += DS_T) rec[(size_t)h * R + e] = ds_rec(e, h, q, k, v, g, beta, G);
}

// thread t's partial sums of one head (e (4): ||Sh - S||^2, ||S||^2, ||yh - y||^2, ||y||^2)
DS_HD void ds_partial(double* e, int t, const float* Sh, const float* S, const float* yh, const float* y, int KV,
                      int V) {
    e[0] = e[1] = e[2] = e[3] = 0.0;
    for (int i = t; i < KV; i += DS_T) {
        const double d = (double)Sh[i] - (double)S[i];
        e[0] += d * d;
        e[1] += (double)S[i] * S[i];
    }
    for (int j = t; j < V; j += DS_T) {
        const double d = (double)yh[j] - (double)y[j];
        e[2] += d * d;
        e[3] += (double)y[j] * y[j];
    }
}

// one level of the tree over the threads' sums p (DS_T, 4): thread t < half adds t + half's
DS_HD void ds_tree(double (*p)[4], int t, int half) {
    if (t < half)
        for (int m = 0; m < 4; m++) p[t][m] += p[t + half][m];
}

// the relative errors of a head's sums, as lib/dsession.c's host backend forms them
DS_HD void ds_rel(double* state_rel, double* readout_rel, const double* e) {
    *state_rel = sqrt(e[0] / fmax(e[1], 1e-300));
    *readout_rel = sqrt(e[2] / fmax(e[3], 1e-300));
}

// per head (block): the errors of format f's step added to bin `at` (st (H), ro (H)); block 0
// counts the step where `counts`
__global__ void ds_measure(double* st, double* ro, unsigned long long* count, int counts, const float* Sh,
                           const float* S, const float* yh, const float* y, int KV, int V) {
    __shared__ double p[DS_T][4];
    const int h = (int)blockIdx.x, t = (int)threadIdx.x;
    ds_partial(p[t], t, Sh + (size_t)h * KV, S + (size_t)h * KV, yh + (size_t)h * V, y + (size_t)h * V, KV, V);
    __syncthreads();
    for (int half = DS_T / 2; half > 0; half /= 2) {
        ds_tree(p, t, half);
        __syncthreads();
    }
    if (t) return;
    double a, b;
    ds_rel(&a, &b, p[0]);
    st[h] += a;
    ro[h] += b;
    if (counts && h == 0) *count += 1;
}

// the host form of one head's sums (the kernel's order)
static void ds_sums_host(double* e, const float* Sh, const float* S, const float* yh, const float* y, int KV, int V) {
    double(*p)[4] = (double(*)[4])mallocCheck(sizeof(double) * 4 * DS_T);
    for (int t = 0; t < DS_T; t++) ds_partial(p[t], t, Sh, S, yh, y, KV, V);
    for (int half = DS_T / 2; half > 0; half /= 2)
        for (int t = 0; t < DS_T; t++) ds_tree(p, t, half);
    for (int m = 0; m < 4; m++) e[m] = p[0][m];
    free(p);
}

extern "C" void stepq_dsess_measure_host(double* e, double* state_rel, double* readout_rel, const float* Sh,
                                         const float* S, const float* yh, const float* y, int KV, int V) {
    ds_sums_host(e, Sh, S, yh, y, KV, V);
    ds_rel(state_rel, readout_rel, e);
}

// the first failure among the step's statuses (n = P H), as (step P H + i); the smallest kept
DS_HD unsigned long long ds_failure(long step, int i, int n) { return (unsigned long long)step * n + i; }

__global__ void ds_note(unsigned long long* fail, const int* status, int n, long step) {
    for (int i = (int)(blockIdx.x * DS_T + threadIdx.x); i < n; i += (int)(gridDim.x * DS_T))
        if (status[i] != STEPQ_OK) atomicMin(fail, ds_failure(step, i, n));
}

// ---------------------------------------------------------------------------------------------
// the launches (emu: the host forms)

static int ds_launched(const stepq_dsess* s) {
    if (s->c.emu) return STEPQ_OK;
    DS_TRY(cudaGetLastError());
    return STEPQ_OK;
}

static int ds_pack_run(stepq_dsess* s, const float* q, const float* k, const float* v, const float* g,
                       const float* beta) {
    const int H = s->c.H, R = s->R;
    if (!s->c.emu) {
        ds_pack<<<H, DS_T, 0, s->st>>>(s->rec, R, q, k, v, g, beta, s->G);
        return ds_launched(s);
    }
    for (int h = 0; h < H; h++)
        for (int e = 0; e < R; e++) s->rec[(size_t)h * R + e] = ds_rec(e, h, q, k, v, g, beta, s->G);
    return STEPQ_OK;
}

// pool p's step (its lane kernel)
static void ds_lanes(stepq_dsess* s, int p) {
    const int H = s->c.H;
    lanes_args a = {s->pool[p], s->stride[p], s->rec, s->R, s->y + (size_t)p * H * LANES_V,
                    s->status + (size_t)p * H, s->c.fscale, s->G};
    lanes_launch(s->fmt[p], &a, H, s->st, s->c.emu);
}

// format f's errors (pool 1 + f) added to bin b
static int ds_measure_run(stepq_dsess* s, int f, int b) {
    const int H = s->c.H, KV = LANES_K * LANES_V, V = LANES_V;
    lanes_decode(s->fmt[1 + f], s->Sh, s->pool[1 + f], s->stride[1 + f], H, s->st, s->c.emu);
    double* st = s->sums + (((size_t)f * s->c.n_bins + b) * 2) * H;
    const float *S = (const float*)s->pool[0], *y = s->y, *yh = s->y + (size_t)(1 + f) * H * V;
    if (!s->c.emu) {
        ds_measure<<<H, DS_T, 0, s->st>>>(st, st + H, s->count + b, f == 0, s->Sh, S, yh, y, KV, V);
        return ds_launched(s);
    }
    for (int h = 0; h < H; h++) {
        double e[4], a, r;
        ds_sums_host(e, s->Sh + (size_t)h * KV, S + (size_t)h * KV, yh + (size_t)h * V, y + (size_t)h * V, KV, V);
        ds_rel(&a, &r, e);
        st[h] += a;
        st[H + h] += r;
    }
    if (f == 0) s->count[b]++;
    return STEPQ_OK;
}

static int ds_note_run(stepq_dsess* s, int pools, long step) {
    const int n = pools * s->c.H;
    if (!s->c.emu) {
        ds_note<<<(n + DS_T - 1) / DS_T, DS_T, 0, s->st>>>(s->fail, s->status, n, step);
        return ds_launched(s);
    }
    for (int i = 0; i < n; i++) {
        const unsigned long long x = ds_failure(step, i, n);
        if (s->status[i] != STEPQ_OK && x < *s->fail) *s->fail = x;
    }
    return STEPQ_OK;
}

// the boundary encode: each format's pool <- the CPU's encoding of the reference state, in the
// lanes layout (one wait for the reference state)
static int ds_boundary(stepq_dsess* s) {
    const int H = s->c.H, K = LANES_K, V = LANES_V;
    const size_t KV = (size_t)K * V;
    if (!s->c.emu) DS_TRY(cudaStreamSynchronize(s->st));
    float* S = (float*)mallocCheck(sizeof(float) * KV * H);
    float* work = (float*)mallocCheck(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
    bk_d2h(s->c.emu, S, s->pool[0], sizeof(float) * KV * H);
    int rc = STEPQ_OK;
    for (int p = 1; p <= s->c.F && rc == STEPQ_OK; p++) {
        uint8_t rows[STEPQ_MAX_DIM];
        stepq_head_plan hp;
        stepq_head_plan_for(&hp, rows, s->fmt[p], NULL, 0, s->c.kind, K);  // the lane formats need no plan
        uint8_t* packed = (uint8_t*)callocCheck(s->stride[p], 1);
        uint8_t* L = (uint8_t*)callocCheck((size_t)H, s->stride[p]);
        for (int h = 0; h < H && rc == STEPQ_OK; h++) {
            rc = stepq_encode(packed, S + h * KV, s->fmt[p], &hp, work, K, V);
            lanes_permute(L + (size_t)h * s->stride[p], packed, s->fmt[p], s->stride[p], 1);
            if (rc != STEPQ_OK) stepq_error("device session: step %ld: head %d's reference state is not finite at the "
                                            "boundary encode", s->c.prefill, h);
        }
        if (rc == STEPQ_OK) bk_h2d(s->c.emu, s->pool[p], L, (size_t)H * s->stride[p]);
        free(packed);
        free(L);
    }
    free(S);
    free(work);
    return rc;
}

// ---------------------------------------------------------------------------------------------
// the API (dsession.h)

extern "C" int stepq_dsess_ready(void) { return bk_device_ok(); }

extern "C" int stepq_dsess_open(stepq_dsess** out, const stepq_dsess_config* c) {
    *out = NULL;
    for (int f = 0; f < c->F; f++)  // the session holds no plans: the formats that read them are refused
        if (lanes_supports(c->fmts[f], NULL, 0, LANES_K, LANES_V) != STEPQ_OK) return STEPQ_ERR;
    if (!c->emu && !bk_device_ok()) {
        stepq_error("device session: no CUDA device of compute capability 8.0 or newer");
        return STEPQ_ERR;
    }
    stepq_dsess* s = (stepq_dsess*)callocCheck(1, sizeof *s);
    s->c = *c;
    s->c.S0 = NULL;  // read here only
    s->G = stepq_kind_gates(c->kind, LANES_K);
    s->R = bp_rec_floats(LANES_K, LANES_V);
    s->st = (cudaStream_t)c->stream;
    const int H = c->H, P = 1 + c->F, emu = c->emu;
    const size_t KV = (size_t)LANES_K * LANES_V, NB = c->n_bins ? (size_t)c->n_bins : 1;
    s->pool = (uint8_t**)callocCheck(P, sizeof *s->pool);
    s->stride = (size_t*)callocCheck(P, sizeof *s->stride);
    s->fmt = (const stepq_format**)callocCheck(P, sizeof *s->fmt);
    s->fmt[0] = stepq_format_find("fp32");
    for (int p = 0; p < P; p++) {
        if (p) s->fmt[p] = c->fmts[p - 1];
        uint8_t rows[STEPQ_MAX_DIM];
        stepq_head_plan hp;
        stepq_head_plan_for(&hp, rows, s->fmt[p], NULL, 0, c->kind, LANES_K);
        s->stride[p] = (stepq_format_bytes(s->fmt[p], &hp, LANES_K, LANES_V) + 15) & ~(size_t)15;
    }
    // device memory: a failure here is a refusal (the session not opened), not an exit
    if (!emu) {
        size_t free_b = 0, total = 0, need = sizeof(float) * ((size_t)H * s->R + (size_t)P * H * LANES_V + KV * H);
        for (int p = 0; p < P; p++) need += (size_t)H * s->stride[p];
        if (cudaMemGetInfo(&free_b, &total) != cudaSuccess || need > free_b) {
            cudaGetLastError();
            stepq_error("device session: %zu bytes of device memory needed, %zu free", need, free_b);
            free(s->pool);
            free(s->stride);
            free(s->fmt);
            free(s);
            return STEPQ_ERR;
        }
    }
    s->rec = (float*)bk_alloc(emu, sizeof(float) * H * s->R);
    for (int p = 0; p < P; p++) s->pool[p] = (uint8_t*)bk_alloc(emu, (size_t)H * s->stride[p]);
    s->y = (float*)bk_alloc(emu, sizeof(float) * P * H * LANES_V);
    s->status = (int*)bk_alloc(emu, sizeof(int) * P * H);
    s->Sh = (float*)bk_alloc(emu, sizeof(float) * KV * H);
    s->sums = (double*)bk_alloc(emu, sizeof(double) * c->F * NB * 2 * H);
    s->count = (unsigned long long*)bk_alloc(emu, sizeof(unsigned long long) * NB);
    s->fail = (unsigned long long*)bk_alloc(emu, sizeof(unsigned long long));
    const unsigned long long none = DS_NONE;
    bk_h2d(emu, s->fail, &none, sizeof none);
    if (c->S0) {  // the reference starts from the caller's states (device to device)
        if (emu) memcpy(s->pool[0], c->S0, sizeof(float) * KV * H);
        else cudaCheck(cudaMemcpy(s->pool[0], c->S0, sizeof(float) * KV * H, cudaMemcpyDeviceToDevice));
    }
    *out = s;
    return STEPQ_OK;
}

extern "C" void stepq_dsess_close(stepq_dsess* s) {
    if (!s) return;
    const int emu = s->c.emu;
    if (!emu) cudaStreamSynchronize(s->st);  // nothing queued may outlive the buffers
    bk_free(emu, s->rec);
    for (int p = 0; p <= s->c.F; p++) bk_free(emu, s->pool[p]);
    bk_free(emu, s->y);
    bk_free(emu, s->status);
    bk_free(emu, s->Sh);
    bk_free(emu, s->sums);
    bk_free(emu, s->count);
    bk_free(emu, s->fail);
    free(s->pool);
    free(s->stride);
    free(s->fmt);
    free(s);
}

extern "C" int stepq_dsess_step(stepq_dsess* s, long steps, const float* q, const float* k, const float* v,
                                const float* g, const float* beta) {
    const long d = steps - s->c.prefill;  // the decode index, where >= 0
    if (ds_pack_run(s, q, k, v, g, beta) != STEPQ_OK) return STEPQ_ERR;
    if (d == 0 && ds_boundary(s) != STEPQ_OK) return STEPQ_ERR;  // before the reference moves on
    const int pools = d >= 0 ? 1 + s->c.F : 1;
    for (int p = 0; p < pools; p++) ds_lanes(s, p);
    if (ds_launched(s) != STEPQ_OK) return STEPQ_ERR;
    if (d >= 0 && d / s->c.bin < s->c.n_bins)  // a step past the bins is measured nowhere
        for (int f = 0; f < s->c.F; f++)
            if (ds_measure_run(s, f, (int)(d / s->c.bin)) != STEPQ_OK) return STEPQ_ERR;
    return ds_note_run(s, pools, steps);
}

extern "C" void stepq_dsess_copy(const stepq_dsess* s, int f, int state, float* out) {
    const int H = s->c.H, p = 1 + f;
    const size_t KV = (size_t)LANES_K * LANES_V;
    if (state && p > 0) {
        lanes_decode(s->fmt[p], out, s->pool[p], s->stride[p], H, s->st, s->c.emu);
        return;
    }
    const void* from = state ? (const void*)s->pool[0] : (const void*)(s->y + (size_t)p * H * LANES_V);
    const size_t n = sizeof(float) * H * (state ? KV : LANES_V);
    if (s->c.emu) memcpy(out, from, n);
    else cudaCheck(cudaMemcpyAsync(out, from, n, cudaMemcpyDeviceToDevice, s->st));
}

extern "C" int stepq_dsess_sync(stepq_dsess* s) {
    if (!s->c.emu) DS_TRY(cudaStreamSynchronize(s->st));
    unsigned long long x = DS_NONE;
    bk_d2h(s->c.emu, &x, s->fail, sizeof x);
    if (x == DS_NONE) return STEPQ_OK;
    const int H = s->c.H, n = (1 + s->c.F) * H, i = (int)(x % (unsigned long long)n), p = i / H;
    stepq_error("device session: step %llu, head %d: the state of %s is no longer finite (not stored)",
                x / (unsigned long long)n, i % H, p ? s->fmt[p]->name : "the float32 reference");
    return STEPQ_ERR;
}

extern "C" void stepq_dsess_bins(const stepq_dsess* s, int f, double* state, double* readout, long* count) {
    const size_t H = (size_t)s->c.H, NB = (size_t)s->c.n_bins;
    double* sums = (double*)mallocCheck(sizeof(double) * NB * 2 * H);
    unsigned long long* n = (unsigned long long*)mallocCheck(sizeof(unsigned long long) * NB);
    bk_d2h(s->c.emu, sums, s->sums + (size_t)f * NB * 2 * H, sizeof(double) * NB * 2 * H);
    bk_d2h(s->c.emu, n, s->count, sizeof(unsigned long long) * NB);
    for (size_t b = 0; b < NB; b++) {
        memcpy(state + b * H, sums + b * 2 * H, sizeof(double) * H);
        memcpy(readout + b * H, sums + b * 2 * H + H, sizeof(double) * H);
        count[b] = (long)n[b];
    }
    free(sums);
    free(n);
}

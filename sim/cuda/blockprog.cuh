// blockprog.cuh: the block programs of the CUDA fast path (method 6.5): what one thread block
// does to one head's state, written once and compiled twice, as CUDA device code and as plain
// host code (the host emulation, which runs in CI where there is no GPU).
//
// A block program is a sequence of phases separated by barriers. A phase is a loop over
// independent work items (BP_FOR): on the device the block's threads share the items, on the
// host one loop runs them in order. Nothing private to a thread crosses a barrier: whatever a
// later phase needs goes through the workspace (shared memory, or global memory where the
// workspace does not fit). Values every thread computes alike (loop bounds, a flag read after
// a barrier) are the only exception. The host run of a program is therefore the device run
// with its items in one order, and a test of one is a test of the other's logic (not of its
// races, barriers or launch; those only a GPU checks).
//
// Numerics: every per-element rule comes from quant/numerics.h, and every sum that feeds a
// rounding decision or a measured figure is taken in the order of quant/rowcodec.h,
// quant/dualfit.h, sim/recurrence_impl.h and sim/sums.h: column sums over the key rows one
// row after another (one item per column), row sums in the fixed lanes of the CPU code (one
// item per lane, then the same tree). With FP contraction off (CMake passes --fmad=false) and
// IEEE division and square root (nvcc's defaults) the results equal the CPU's bit for bit.
// Exceptions, each marked where it happens:
//   - LeapQuant's freeze gate sums its two norms column by column, then over the columns
//     (the CPU: element after element): the decision may differ when the ratio sits within
//     about 1e-13 of tau.
//   - A dual-axis fit with rho != 1/2 calls pow(), whose last bit may differ between CUDA's
//     libm and glibc (the default rho = 1/2 takes sqrt(), which is exact on both).
//   - The serving kernels may split a column sum into `nsplit` row groups added at the end
//     (nsplit = 1 keeps the CPU's order); their results then meet the comparison rule.
//
// Legend: K key rows, V value columns, S (K,V) the float32 reference state, X (K,V) the state
// of the quantized path, K-first (element i*V + j); P packed bytes (quant/layout.h).
#ifndef STEPQ_BLOCKPROG_CUH
#define STEPQ_BLOCKPROG_CUH

#include <math.h>
#include <stdint.h>
#include <string.h>

extern "C" {
#include "../../quant/format.h"
#include "../../quant/layout.h"
#include "../../quant/numerics.h"
}

#define BP static __host__ __device__ inline

#ifdef __CUDA_ARCH__
#define BP_FOR(it, n) for (int it = (int)threadIdx.x; it < (int)(n); it += (int)blockDim.x)
#define BP_SYNC() __syncthreads()
#else
#define BP_FOR(it, n) for (int it = 0; it < (int)(n); it++)
#define BP_SYNC() ((void)0)
#endif

#define BP_FINITE_MAX 0x7f7fffffu  // FLT_MAX's bits: |x| bits above it are Inf or NaN

// ---------------------------------------------------------------------------------------------
// what a block program knows of a format and of one head's plan (plain data, copied to the
// device)

typedef struct {
    int fam;       // the format's family (its id, quant/format.h's STEPQ_FAMILIES)
    int elem;      // cast: STEPQ_ELEM_*
    int width;     // rows of the rows layout (int-b, DAMP's coded rows, LeapQuant's base)
    int dsq;       // dual: Q-Mamba's DSQ form (w = 1, no refit)
    int res_bits;  // LeapQuant: residual width, 32 = the FP32 oracle
    float alpha;   // LeapQuant: error-feedback weight
    float tau;     // LeapQuant: freeze threshold, 0 = never
    int freeze;    // its encoder reads the stored state (stepq_format_freeze_gated)
    int sr_elem;   // stochastic rounding: STEPQ_ELEM_INT8, _FP8, _FP16
    int replay;    // re-encode every `replay` decode steps (0: every step; method 2's variant)
} bp_fmt;

typedef struct {
    const uint8_t* bits;   // (K) width of each key row, 16 = FP16 pivot
    const float* w;        // (K) row influence, or NULL (w = 1)
    const uint32_t* off;   // (K) where row i starts in the packed head
    int kind;              // STEPQ_GDN / STEPQ_KDA: the dual fit's codebook normalisation
    float rho;             // dual: row-factor exponent (method 4.2)
    int refits;            // dual: least-squares refit rounds
    uint32_t res, res_row; // LeapQuant: residual region and bytes of one residual row
} bp_head;

// a head plan's knobs, per head (the codec and the serving pool take any head plans)
typedef struct {
    int kind, refits, has_w;
    float rho;
} bp_meta;

// A block's workspace: pointers into one region (shared memory when it fits).
typedef struct {
    int K, V, GM;          // GM = V / 32: most row-factor groups of a row (dual, GDN 2-bit)
    float *S, *X;          // (K,V)
    int8_t* Z;             // (K,V) codes (packing, LeapQuant's base), or NULL
    uint8_t* P;            // staged packed bytes (serving), or NULL
    float* part;           // partial sums and maxima of the current phase
    double* dpart;         // the same in double
    float* rec;            // the step's inputs: q (K), k (K), v (V), grad (K), decay (K), beta
    float *qs;             // (K) scale * q
    float *u, *uq, *y, *yq, *pred;   // (V) delta writes, read-outs, P1 prediction
    float *rs, *rinv, *rs2, *rinv2;  // (K) row scales and their reciprocals
    float *nrm, *lev, *iln, *rowa, *rowb, *rowc;  // (K) dual: nrm, level max, 1/(lev nrm); row sums
    float* r;              // (K, GM) dual row factors (a row's single factor at slot 0)
    float *c, *ic;         // (V) dual column factors and their reciprocals (c: stochastic
                           // rounding's column scales)
    float* blk;            // (K, V/16) NVFP4 block scales
    uint8_t* bits;         // (K) the head's widths
    float* w;              // (K) its row influence (when the plan has one)
    float* fs;             // (16) float scalars
    double* ds;            // (16) double scalars
    int* flag;             // (4): [0] non-finite met, [1] frozen
} bp_ws;

// what a workspace must hold (arrays a block program does not use are left out: the smaller
// the workspace, the more blocks share a multiprocessor)
typedef struct {
    int K, V;
    int fam;              // the format's family (its id), or -1: no encoder (FP32 baseline)
    int with_S, with_Z;   // the reference state; the codes array
    int with_err;         // the error sums' lanes (the engine's measurements)
    int p_bytes;          // staged packed bytes (0: none)
    int nsplit;           // row groups of the split column sums (serving)
    int z_in_part;        // the codes share the partial sums' space (they are never live
                          // together, except in LeapQuant's encoder)
} bp_dims;

// What a family's block programs need of the workspace beyond what every format's do
// (bp_needs; one row per family of STEPQ_FAMILIES):
enum {
    BP_W_ROWMAX = 1,      // 8 lanes a row of partial maxima
    BP_W_ROWSCALES = 2,   // a scale per row and its reciprocal (rs, rinv)
    BP_W_RESSCALES = 4,   // the same for a residual (rs2, rinv2)
    BP_W_DPART = 8,       // 2 doubles a column and row group of partial sums
    BP_W_DUALFIT = 16,    // the dual fit's row statistics, row factors and 1 / c
    BP_W_ROWA = 32,       // a float a row (NVFP4's and the FP8 tiles' row maxima)
    BP_W_COLS = 64,       // a float a column (the dual layout's c, stochastic rounding's scales)
    BP_W_BLOCKS = 128,    // a scale per 16 values (NVFP4)
    BP_W_CODES = 256,     // a codes array of its own whatever the launch (LeapQuant's base
                          // codes are live beside partial sums in its encoder)
};
#define BP_NEEDS_cast 0
#define BP_NEEDS_rows (BP_W_ROWMAX | BP_W_ROWSCALES)
#define BP_NEEDS_damp (BP_W_ROWMAX | BP_W_ROWSCALES)
#define BP_NEEDS_dual (BP_W_DPART | BP_W_DUALFIT | BP_W_COLS)
#define BP_NEEDS_nvfp4 (BP_W_ROWMAX | BP_W_ROWA | BP_W_BLOCKS)
#define BP_NEEDS_leap (BP_W_ROWMAX | BP_W_ROWSCALES | BP_W_RESSCALES | BP_W_DPART | BP_W_CODES)
#define BP_NEEDS_fp8tile (BP_W_ROWMAX | BP_W_ROWSCALES | BP_W_ROWA)
#define BP_NEEDS_sr BP_W_COLS
#define BP_NEEDS_(fam, name) return BP_NEEDS_##name
// fam: a family id, or -1 (no encoder: the FP32 baseline), which needs nothing
BP int bp_needs(int fam) {
    STEPQ_DISPATCH_FAMILY(fam, BP_NEEDS_)
    return 0;
}

// input record of one step: q, k, v, grad, decay, beta, padded to 16 bytes
BP int bp_rec_floats(int K, int V) { return (4 * K + V + 1 + 3) & ~3; }

BP size_t bp_take(size_t* off, size_t n) {
    size_t o = (*off + 15) & ~(size_t)15;
    *off = o + n;
    return o;
}

// Lays the workspace out at base (NULL: only sizes it); returns its bytes.
BP size_t bp_carve(bp_ws* w, char* base, const bp_dims* d) {
    const int K = d->K, V = d->V, GM = V / 32 > 0 ? V / 32 : 1, ns = d->nsplit > 0 ? d->nsplit : 1;
    const size_t KV = (size_t)K * V;
    size_t off = 0;
    const int need = bp_needs(d->fam);
    const int rowmax = need & BP_W_ROWMAX, rows = need & BP_W_ROWSCALES, res = need & BP_W_RESSCALES;
    const int dual = need & BP_W_DUALFIT, rowa = need & BP_W_ROWA, cols = need & BP_W_COLS, blk = need & BP_W_BLOCKS;
    // partial sums: 8 lanes a row for maxima; 16 a row three times, and the read-out's, for the
    // error sums (engine); the dual fit's group lanes; the split column sums
    size_t pf = rowmax ? (size_t)K * 8 : 16;
    if (d->with_err && 3 * (size_t)K * 16 + 16 > pf) pf = 3 * (size_t)K * 16 + 16;
    if (dual && (size_t)K * GM * 8 > pf) pf = (size_t)K * GM * 8;
    if ((size_t)ns * V > pf) pf = (size_t)ns * V;
    size_t pd = d->with_err ? 16 : 1;
    if ((need & BP_W_DPART) && 2 * (size_t)ns * V > pd) pd = 2 * (size_t)ns * V;
    if (d->with_Z && d->z_in_part && pf * 4 < KV) pf = (KV + 3) / 4;
#define BP_AT(T, n) (T*)(base ? base + bp_take(&off, sizeof(T) * (size_t)(n)) : (bp_take(&off, sizeof(T) * (size_t)(n)), (char*)0))
#define BP_IF(c, T, n) ((c) ? BP_AT(T, n) : (T*)0)
    w->K = K;
    w->V = V;
    w->GM = GM;
    w->X = BP_AT(float, KV);
    w->S = BP_IF(d->with_S, float, KV);
    w->dpart = BP_AT(double, pd);
    w->ds = BP_AT(double, 16);
    w->part = BP_AT(float, pf);
    w->rec = BP_AT(float, bp_rec_floats(K, V));
    w->qs = BP_AT(float, K);
    w->u = BP_AT(float, V);
    w->uq = BP_AT(float, V);
    w->y = BP_AT(float, V);
    w->yq = BP_AT(float, V);
    w->pred = BP_AT(float, V);
    w->rs = BP_IF(rows, float, K);
    w->rinv = BP_IF(rows, float, K);
    w->rs2 = BP_IF(res, float, K);
    w->rinv2 = BP_IF(res, float, K);
    w->nrm = BP_IF(dual, float, K);
    w->lev = BP_IF(dual, float, K);
    w->iln = BP_IF(dual, float, K);
    w->rowa = BP_IF(d->with_err || rowa, float, K);
    w->rowb = BP_IF(d->with_err, float, K);
    w->rowc = BP_IF(d->with_err, float, K);
    w->r = BP_IF(dual, float, (size_t)K * GM);
    w->c = BP_IF(cols, float, V);
    w->ic = BP_IF(dual, float, V);
    w->blk = BP_IF(blk, float, KV / 16);
    w->w = BP_AT(float, K);
    w->fs = BP_AT(float, 16);
    w->flag = BP_AT(int, 4);
    w->bits = BP_AT(uint8_t, K);
    w->Z = d->with_Z ? (d->z_in_part ? (int8_t*)w->part : BP_AT(int8_t, KV)) : (int8_t*)0;
    w->P = d->p_bytes ? BP_AT(uint8_t, d->p_bytes) : (uint8_t*)0;
#undef BP_IF
#undef BP_AT
    return (off + 15) & ~(size_t)15;
}

// ---------------------------------------------------------------------------------------------
// small helpers

BP void bp_put16(uint8_t* p, uint16_t h) {
    p[0] = (uint8_t)h;
    p[1] = (uint8_t)(h >> 8);
}
BP uint16_t bp_get16(const uint8_t* p) { return (uint16_t)(p[0] | (p[1] << 8)); }
BP void bp_put32(uint8_t* p, uint32_t u) {
    for (int k = 0; k < 4; k++) p[k] = (uint8_t)(u >> (8 * k));
}
BP uint32_t bp_get32(const uint8_t* p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

// what a value stored as FP16 (saturating) reads back as: pivots, the fp16 format
BP float bp_f16_rt(float x) { return stepq_f16_to_f32(stepq_f32_to_f16_sat(x)); }

// 8 codes of width b -> b bytes, two's complement, LSB first (stepq_pack_codes' bit stream)
BP void bp_pack8(uint8_t* out, const int8_t* z, int b) {
    uint64_t acc = 0, mask = (1u << b) - 1u;
    for (int e = 0; e < 8; e++) acc |= ((uint64_t)(uint8_t)z[e] & mask) << (b * e);
    for (int k = 0; k < b; k++) out[k] = (uint8_t)(acc >> (8 * k));
}
BP void bp_unpack8(int8_t* z, const uint8_t* in, int b) {
    uint64_t acc = 0;
    for (int k = 0; k < b; k++) acc |= (uint64_t)in[k] << (8 * k);
    for (int e = 0; e < 8; e++) z[e] = stepq_sext((uint32_t)(acc >> (b * e)) & ((1u << b) - 1u), b);
}

// stepq_lanes16 (sim/sums.h): the 16 lanes added pairwise in its fixed tree
BP float bp_lanes16(const float* lanes) {
    float a[16];
    for (int k = 0; k < 16; k++) a[k] = lanes[k];
    for (int w = 8; w >= 1; w /= 2)
        for (int k = 0; k < w; k++) a[k] += a[k + w];
    return a[0];
}

// the tree of dualfit.h's df_sum_abs and sums.h's stepq_readout_sums over 8 lanes
BP float bp_tree8f(const float* a) {
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}
BP double bp_tree8d(const double* a) {
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

// the row factors of row i: one, or one per group of 32 (GDN 2-bit rows, method 4.2)
BP int bp_groups(const bp_head* hd, const uint8_t* bits, int i, int V) {
    return hd->kind == STEPQ_GDN && bits[i] == 2 ? V / STEPQ_GDN2_GROUP : 1;
}
BP int bp_any_coded(const uint8_t* bits, int K) {
    for (int i = 0; i < K; i++)
        if (bits[i] != STEPQ_PIVOT_BITS) return 1;
    return 0;
}

// ---------------------------------------------------------------------------------------------
// loading a head: plan, state (each function ends with a barrier)

BP void bp_load_plan(bp_ws* w, const bp_head* hd) {
    BP_FOR(i, w->K) {
        w->bits[i] = hd->bits[i];
        w->w[i] = hd->w ? hd->w[i] : 1.0f;
    }
    BP_FOR(it, 4) w->flag[it] = 0;
    BP_SYNC();
}

// dst (n floats) <- src, 16 bytes at a time when both are aligned to 16 (n a multiple of 4)
BP void bp_copy_f32(float* dst, const float* src, size_t n) {
    if (((uintptr_t)dst | (uintptr_t)src) % 16 == 0 && n % 4 == 0) {
        BP_FOR(it, n / 4)((float4*)dst)[it] = ((const float4*)src)[it];
    } else {
        BP_FOR(it, n) dst[it] = src[it];
    }
}

// dst (n bytes) <- src; n a multiple of 16 and both aligned to 16 where the caller says so
BP void bp_copy_bytes(uint8_t* dst, const uint8_t* src, size_t n, int aligned16) {
    if (aligned16) {
        BP_FOR(it, n / 16)((uint4*)dst)[it] = ((const uint4*)src)[it];
    } else {
        BP_FOR(it, n) dst[it] = src[it];
    }
}

// the step's inputs into the workspace; qs = (float)scale * q, as the float32 step forms it
BP void bp_stage_inputs(bp_ws* w, const float* rec, float fscale) {
    const int K = w->K, R = bp_rec_floats(K, w->V);
    BP_FOR(it, R) w->rec[it] = rec[it];
    BP_FOR(i, K) w->qs[i] = fscale * rec[i];
    BP_FOR(it, 1) w->flag[0] = 0;
    BP_SYNC();
}
#define BP_Q(w) ((w)->rec)
#define BP_K(w) ((w)->rec + (w)->K)
#define BP_VV(w) ((w)->rec + 2 * (w)->K)
#define BP_GR(w) ((w)->rec + 2 * (w)->K + (w)->V)
#define BP_DEC(w) ((w)->rec + 3 * (w)->K + (w)->V)
#define BP_BETA(w) ((w)->rec[4 * (w)->K + (w)->V])

// ---------------------------------------------------------------------------------------------
// rows layout (quant/rowcodec.h): symmetric absmax per key row, FP16 scale fp16(amax / qmax)

// part (K,8) <- the largest |A| bits of each row over lanes j = l, l+8, ... (the max does not
// depend on the order); rows at width 16 are skipped when skip16
BP void bp_rowmax_lanes(uint32_t* part, const float* A, const uint8_t* bits, int skip16, int K, int V) {
    BP_FOR(it, K * 8) {
        const int i = it >> 3, l = it & 7;
        uint32_t m = 0;
        if (!(skip16 && bits[i] == STEPQ_PIVOT_BITS))
            for (int j = l; j < V; j += 8) {
                uint32_t a = stepq_f32_bits(A[(size_t)i * V + j]) & 0x7fffffffu;
                m = a > m ? a : m;
            }
        part[it] = m;
    }
    BP_SYNC();
}

// rs, rinv (K) <- the scale of each coded row at width `width` (0: the row's own width) and its
// reciprocal, as rc_rows_encode_scaled forms them; flag[0] <- 1 when a row is not finite
// (rc_rows_encode_row's STEPQ_ERR)
BP void bp_row_scales(bp_ws* w, float* rs, float* rinv, const uint32_t* part, int width) {
    BP_FOR(i, w->K) {
        const int b = width ? width : w->bits[i];
        if (b == STEPQ_PIVOT_BITS) continue;
        uint32_t m = 0;
        for (int l = 0; l < 8; l++) m = part[i * 8 + l] > m ? part[i * 8 + l] : m;
        if (m > BP_FINITE_MAX) w->flag[0] = 1;
        float s = stepq_f16_to_f32(stepq_row_scale(stepq_bits_f32(m), (float)STEPQ_QMAX(b)));
        rs[i] = s;
        rinv[i] = s > 0.0f ? 1.0f / s : 0.0f;
    }
    BP_SYNC();
}

// out <- decode(encode(A)) per element (out may be A): pivot rows through FP16, coded rows
// s * code(x / s); Z <- the codes when Z is given. The code is read back as an integer, as the
// decoder sees it (so a zero code is +0, as decoding the packed bytes gives).
BP void bp_rows_quant(const bp_ws* w, float* out, int8_t* Z, const float* A, const float* rs,
                      const float* rinv, int width) {
    const int K = w->K, V = w->V;
    BP_FOR(e, K * V) {
        const int i = e / V, b = width ? width : w->bits[i];
        const float x = A[e];
        if (b == STEPQ_PIVOT_BITS) {
            out[e] = bp_f16_rt(x);
            continue;
        }
        const int z = (int)stepq_code(x * rinv[i], (float)STEPQ_QMAX(b));
        if (Z) Z[e] = (int8_t)z;
        out[e] = rs[i] * (float)z;
    }
    BP_SYNC();
}

// P <- the rows layout of X (pivot rows, FP16 of their values) and Z (codes) with scales rs;
// row i at off[i], or at base + i * stride when off is NULL
BP void bp_rows_pack(const bp_ws* w, uint8_t* P, const uint32_t* off, uint32_t base, uint32_t stride,
                     const int8_t* Z, const float* X, const float* rs, int width) {
    const int K = w->K, V = w->V, NO = V / 8;
    BP_FOR(it, K * NO) {
        const int i = it / NO, o = it % NO, b = width ? width : w->bits[i];
        uint8_t* row = P + (off ? off[i] : base + (uint32_t)i * stride);
        if (b == STEPQ_PIVOT_BITS) {
            for (int e = 0; e < 8; e++)
                bp_put16(row + 2 * (8 * o + e), stepq_f32_to_f16_sat(X[(size_t)i * V + 8 * o + e]));
            continue;
        }
        if (o == 0) bp_put16(row, stepq_f32_to_f16(rs[i]));  // rs is an FP16 value (or 0): exact
        bp_pack8(row + 2 + o * b, Z + (size_t)i * V + 8 * o, b);
    }
    BP_SYNC();
}

// X <- the rows layout at P (see bp_rows_pack for where rows are); add: X += alpha * decoded
BP void bp_rows_decode(const bp_ws* w, float* X, const uint8_t* P, const uint32_t* off, uint32_t base,
                       uint32_t stride, int width, int add, float alpha) {
    const int K = w->K, V = w->V, NO = V / 8;
    BP_FOR(it, K * NO) {
        const int i = it / NO, o = it % NO, b = width ? width : w->bits[i];
        const uint8_t* row = P + (off ? off[i] : base + (uint32_t)i * stride);
        float d[8];
        if (b == STEPQ_PIVOT_BITS) {
            for (int e = 0; e < 8; e++) d[e] = stepq_f16_to_f32(bp_get16(row + 2 * (8 * o + e)));
        } else {
            const float s = stepq_f16_to_f32(bp_get16(row));
            int8_t z[8];
            bp_unpack8(z, row + 2 + o * b, b);
            for (int e = 0; e < 8; e++) d[e] = s * (float)z[e];
        }
        float* x = X + (size_t)i * V + 8 * o;
        for (int e = 0; e < 8; e++) x[e] = add ? x[e] + alpha * d[e] : d[e];
    }
    BP_SYNC();
}

// ---------------------------------------------------------------------------------------------
// DAMP's rotation: rc_fwht on every coded row, stage after stage (each butterfly of a stage
// depends only on the stage before it, so any order of the butterflies gives the same values)

BP void bp_fwht_rows(const bp_ws* w, float* X) {
    const int K = w->K, V = w->V, half = V / 2;
    for (int h = 1; h < V; h *= 2) {
        BP_FOR(it, K * half) {
            const int i = it / half, p = it % half;
            if (w->bits[i] == STEPQ_PIVOT_BITS) continue;
            float* x = X + (size_t)i * V;
            const int j = (p / h) * 2 * h + p % h;
            float a = x[j], b = x[j + h];
            x[j] = a + b;
            x[j + h] = a - b;
        }
        BP_SYNC();
    }
    const float s = 1.0f / sqrtf((float)V);
    BP_FOR(e, K * V)
    if (w->bits[e / V] != STEPQ_PIVOT_BITS) X[e] *= s;
    BP_SYNC();
}

// ---------------------------------------------------------------------------------------------
// the dual-axis fit of method 4.2 (quant/dualfit.h), and DSQ

// row factors r, nrm, lev, iln of every row (df_row_factors; nrm and lev as df_dual_fit sets them)
BP void bp_dual_rows(bp_ws* w, const bp_head* hd, int dsq) {
    const int K = w->K, V = w->V, GM = w->GM;
    const float* wr = dsq || !hd->w ? (const float*)0 : w->w;
    // df_sum_abs: eight lanes, lane l over j = l, l+8, ... of the group, in order
    BP_FOR(it, K * GM * 8) {
        const int i = it / (GM * 8), g = (it / 8) % GM, l = it % 8;
        if (w->bits[i] == STEPQ_PIVOT_BITS || g >= bp_groups(hd, w->bits, i, V)) continue;
        const int n = V / bp_groups(hd, w->bits, i, V);
        const float* x = w->X + (size_t)i * V + g * n;
        float acc = 0;
        for (int j = l; j < n; j += 8) acc += fabsf(x[j]);
        w->part[it] = acc;
    }
    BP_SYNC();
    BP_FOR(i, K) {
        const int b = w->bits[i], G = bp_groups(hd, w->bits, i, V), n = V / G;
        const int bb = b == STEPQ_PIVOT_BITS ? 8 : b;
        w->nrm[i] = hd->kind == STEPQ_KDA ? (float)(1 << (8 - bb)) : 1.0f;
        w->lev[i] = hd->kind == STEPQ_GDN && b == 2 ? 3.0f : (float)STEPQ_QMAX(b);
        if (b == STEPQ_PIVOT_BITS) continue;
        w->iln[i] = 1.0f / (w->lev[i] * w->nrm[i]);
        const float wi = wr ? wr[i] : 1.0f;
        for (int g = 0; g < G; g++) {
            double m = fmax((double)bp_tree8f(w->part + ((size_t)i * GM + g) * 8) / n, 1e-20);
            // DSQ: r = sqrt(mean |X|); the fit: (m / w)^rho (rho = 1/2, the default, is a sqrt;
            // another rho takes pow(), whose last bit may differ from glibc's)
            double rv = dsq ? sqrt(m) : hd->rho == 0.5f ? sqrt(m / wi) : pow(m / wi, (double)hd->rho);
            w->r[(size_t)i * GM + g] = stepq_f16_to_f32(stepq_f16_factor((float)rv));
        }
    }
    BP_SYNC();
}

// the factor of row i over column j
BP float bp_rfac(const bp_ws* w, const bp_head* hd, int i, int j) {
    const int G = bp_groups(hd, w->bits, i, w->V);
    return w->r[(size_t)i * w->GM + (G == 1 ? 0 : j / (w->V / G))];
}

// the code of X_ij with the column factor's reciprocal ic (df_encode_codes): y = X / r (a true
// division), then y * (1/c) * (1/nrm)
BP float bp_dual_code(const bp_ws* w, const bp_head* hd, int i, int j, float ic) {
    const float y = w->X[(size_t)i * w->V + j] / bp_rfac(w, hd, i, j);
    const float t = y * ic * (1.0f / w->nrm[i]);
    return hd->kind == STEPQ_GDN && w->bits[i] == 2 ? stepq_odd2_code(t) : stepq_code(t, w->lev[i]);
}

// column factors c, ic: the start from the largest |y| / (lev nrm), then `refits` rounds of the
// weighted least-squares refit (df_dual_fit, df_refit_columns). Rows in ns groups: each item a
// column and a group of rows, in row order; ns = 1 is the CPU's order (max and sums over every
// row in turn); ns > 1 adds the groups' double sums at the end (the max is the same).
BP void bp_dual_columns(bp_ws* w, const bp_head* hd, int dsq, int ns) {
    const int K = w->K, V = w->V;
    const float* wr = dsq || !hd->w ? (const float*)0 : w->w;
    BP_FOR(it, V * ns) {
        const int j = it % V, g = it / V, i0 = g * K / ns, i1 = (g + 1) * K / ns;
        float cmax = 0;
        for (int i = i0; i < i1; i++) {
            if (w->bits[i] == STEPQ_PIVOT_BITS) continue;
            const float y = w->X[(size_t)i * V + j] / bp_rfac(w, hd, i, j);  // a true division
            const float a = fabsf(y) * w->iln[i];
            cmax = a > cmax ? a : cmax;
        }
        w->part[it] = cmax;
    }
    BP_SYNC();
    BP_FOR(j, V) {
        float cmax = 0;
        for (int g = 0; g < ns; g++) cmax = w->part[g * V + j] > cmax ? w->part[g * V + j] : cmax;
        w->c[j] = stepq_f16_to_f32(stepq_f16_factor(cmax));
        w->ic[j] = 1.0f / w->c[j];
    }
    BP_SYNC();
    const int rounds = dsq ? 0 : hd->refits;
    for (int round = 0; round < rounds; round++) {
        BP_FOR(it, V * ns) {
            const int j = it % V, g = it / V, i0 = g * K / ns, i1 = (g + 1) * K / ns;
            double num = 0, den = 0;
            for (int i = i0; i < i1; i++) {
                if (w->bits[i] == STEPQ_PIVOT_BITS) continue;
                const double wi2 = wr ? (double)wr[i] * wr[i] : 1.0, nrm = w->nrm[i];
                const double rn = (double)bp_rfac(w, hd, i, j) * nrm;
                const double v = rn * bp_dual_code(w, hd, i, j, w->ic[j]);
                num += wi2 * w->X[(size_t)i * V + j] * v;
                den += wi2 * v * v;
            }
            w->dpart[2 * it] = num;
            w->dpart[2 * it + 1] = den;
        }
        BP_SYNC();
        BP_FOR(j, V) {
            double num = w->dpart[2 * j], den = w->dpart[2 * j + 1];
            for (int g = 1; g < ns; g++) {  // ns > 1: reordered double sums (comparison rule)
                num += w->dpart[2 * (g * V + j)];
                den += w->dpart[2 * (g * V + j) + 1];
            }
            if (den > 0) {
                w->c[j] = stepq_f16_to_f32(stepq_f16_factor((float)(num / den)));
                w->ic[j] = 1.0f / w->c[j];
            }
        }
        BP_SYNC();
    }
}

// X <- decode(encode(X)) with the fitted factors; Z <- the stored codes (GDN 2-bit: 0..3)
BP void bp_dual_quant(bp_ws* w, const bp_head* hd) {
    const int K = w->K, V = w->V;
    BP_FOR(e, K * V) {
        const int i = e / V, j = e % V, b = w->bits[i];
        if (b == STEPQ_PIVOT_BITS) {
            w->X[e] = bp_f16_rt(w->X[e]);
            continue;
        }
        const float z = bp_dual_code(w, hd, i, j, w->ic[j]);
        const int zi = (int)z;
        if (w->Z) w->Z[e] = hd->kind == STEPQ_GDN && b == 2 ? stepq_odd2_store(z) : (int8_t)zi;
        // df_decode_row: r * c * (nrm * z)
        w->X[e] = bp_rfac(w, hd, i, j) * w->c[j] * (w->nrm[i] * (float)zi);
    }
    BP_SYNC();
}

// P <- the dual layout: column factors (when a row is coded), then row after row
BP void bp_dual_pack(const bp_ws* w, const bp_head* hd, uint8_t* P, int coded) {
    const int K = w->K, V = w->V, NO = V / 8;
    if (coded) BP_FOR(j, V) bp_put16(P + 2 * j, stepq_f32_to_f16_sat(w->c[j]));
    BP_FOR(it, K * NO) {
        const int i = it / NO, o = it % NO, b = w->bits[i];
        uint8_t* row = P + hd->off[i];
        if (b == STEPQ_PIVOT_BITS) {
            for (int e = 0; e < 8; e++)
                bp_put16(row + 2 * (8 * o + e), stepq_f32_to_f16_sat(w->X[(size_t)i * V + 8 * o + e]));
            continue;
        }
        const int G = bp_groups(hd, w->bits, i, V);
        if (o < G) bp_put16(row + 2 * o, stepq_f32_to_f16_sat(w->r[(size_t)i * w->GM + o]));
        bp_pack8(row + 2 * G + o * b, w->Z + (size_t)i * V + 8 * o, b);
    }
    BP_SYNC();
}

// X <- decode(P) of the dual layout (df_decode_head)
BP void bp_dual_decode(bp_ws* w, const bp_head* hd, const uint8_t* P) {
    const int K = w->K, V = w->V, NO = V / 8;
    if (bp_any_coded(w->bits, K)) BP_FOR(j, V) w->c[j] = stepq_f16_to_f32(bp_get16(P + 2 * j));
    BP_SYNC();
    BP_FOR(it, K * NO) {
        const int i = it / NO, o = it % NO, b = w->bits[i];
        const uint8_t* row = P + hd->off[i];
        float* x = w->X + (size_t)i * V + 8 * o;
        if (b == STEPQ_PIVOT_BITS) {
            for (int e = 0; e < 8; e++) x[e] = stepq_f16_to_f32(bp_get16(row + 2 * (8 * o + e)));
            continue;
        }
        const int odd = hd->kind == STEPQ_GDN && b == 2, G = bp_groups(hd, w->bits, i, V);
        const float nrm = hd->kind == STEPQ_KDA ? (float)(1 << (8 - b)) : 1.0f;
        const float r = stepq_f16_to_f32(bp_get16(row + 2 * (G == 1 ? 0 : 8 * o / (V / G))));
        int8_t z[8];
        bp_unpack8(z, row + 2 * G + o * b, b);
        for (int e = 0; e < 8; e++) {
            float zf = odd ? stepq_odd2_load(z[e]) : (float)z[e];
            x[e] = r * w->c[8 * o + e] * (nrm * zf);
        }
    }
    BP_SYNC();
}

// ---------------------------------------------------------------------------------------------
// NVFP4 (quant/nvfp4.c): s_head = amax / (6 x 448), an E4M3 scale per 16 values, E2M1 codes

BP void bp_nvfp4_encode(bp_ws* w, const bp_head* hd, uint8_t* P) {
    const int K = w->K, V = w->V, NB = V / STEPQ_NVFP4_BLOCK;
    uint32_t* part = (uint32_t*)w->part;
    bp_rowmax_lanes(part, w->X, w->bits, 0, K, V);
    BP_FOR(i, K) {
        uint32_t m = 0;
        for (int l = 0; l < 8; l++) m = part[i * 8 + l] > m ? part[i * 8 + l] : m;
        ((uint32_t*)w->rowa)[i] = m;
    }
    BP_SYNC();
    BP_FOR(it, 1) {
        uint32_t m = 0;
        for (int i = 0; i < K; i++) m = ((uint32_t*)w->rowa)[i] > m ? ((uint32_t*)w->rowa)[i] : m;
        w->fs[0] = stepq_bits_f32(m) / (6.0f * 448.0f);
        if (P) bp_put32(P, stepq_f32_bits(w->fs[0]));
    }
    BP_SYNC();
    const float s_head = w->fs[0];
    BP_FOR(it, K * NB) {
        const int i = it / NB, b = it % NB;
        const float* x = w->X + (size_t)i * V + b * STEPQ_NVFP4_BLOCK;
        uint32_t m = 0;
        for (int j = 0; j < STEPQ_NVFP4_BLOCK; j++) {
            uint32_t a = stepq_f32_bits(x[j]) & 0x7fffffffu;
            m = a > m ? a : m;
        }
        uint8_t sc = s_head > 0 ? stepq_e4m3_encode(stepq_bits_f32(m) / 6.0f / s_head) : 0;
        w->blk[it] = stepq_e4m3_decode(sc) * s_head;
        if (P) P[hd->off[i] + b * STEPQ_NVFP4_BLOCK_BYTES] = sc;
    }
    BP_SYNC();
    BP_FOR(e, K * V) {
        const float s = w->blk[e / STEPQ_NVFP4_BLOCK];
        const uint8_t c = s > 0 ? stepq_e2m1_encode(w->X[e] / s) : 0;
        if (w->Z) w->Z[e] = (int8_t)c;
        w->X[e] = stepq_e2m1_decode(c) * s;
    }
    BP_SYNC();
    if (P) {
        BP_FOR(it, K * V / 2) {
            const int i = it / (V / 2), p = it % (V / 2), b = 2 * p / STEPQ_NVFP4_BLOCK;
            const int8_t* z = w->Z + (size_t)i * V + 2 * p;
            P[hd->off[i] + b * STEPQ_NVFP4_BLOCK_BYTES + 1 + p % (STEPQ_NVFP4_BLOCK / 2)] =
                (uint8_t)(((uint8_t)z[0] & 15) | (((uint8_t)z[1] & 15) << 4));
        }
        BP_SYNC();
    }
}

BP void bp_nvfp4_decode(bp_ws* w, const bp_head* hd, const uint8_t* P) {
    const int K = w->K, V = w->V, NB = V / STEPQ_NVFP4_BLOCK;
    const float s_head = stepq_bits_f32(bp_get32(P));
    BP_FOR(it, K * NB) {
        const int i = it / NB, b = it % NB;
        const uint8_t* blk = P + hd->off[i] + b * STEPQ_NVFP4_BLOCK_BYTES;
        const float s = stepq_e4m3_decode(blk[0]) * s_head;
        float* x = w->X + (size_t)i * V + b * STEPQ_NVFP4_BLOCK;
        for (int j = 0; j < STEPQ_NVFP4_BLOCK; j++)
            x[j] = stepq_e2m1_decode((uint8_t)(blk[1 + j / 2] >> (4 * (j & 1)) & 15)) * s;
    }
    BP_SYNC();
}

// ---------------------------------------------------------------------------------------------
// the element-wise family (quant/cast.c)

BP void bp_cast_encode(bp_ws* w, const bp_fmt* f, uint8_t* P) {
    const int KV = w->K * w->V;
    BP_FOR(e, KV) {
        const float x = w->X[e];
        if (f->elem == STEPQ_ELEM_FP32) {
            if (P) bp_put32(P + 4 * (size_t)e, stepq_f32_bits(x));
        } else if (f->elem == STEPQ_ELEM_FP16) {
            uint16_t h = stepq_f32_to_f16_sat(x);
            if (P) bp_put16(P + 2 * (size_t)e, h);
            w->X[e] = stepq_f16_to_f32(h);
        } else {
            uint16_t h = stepq_f32_to_bf16(x);
            if (P) bp_put16(P + 2 * (size_t)e, h);
            w->X[e] = stepq_bf16_to_f32(h);
        }
    }
    BP_SYNC();
}

BP void bp_cast_decode(bp_ws* w, const bp_fmt* f, const uint8_t* P) {
    const int KV = w->K * w->V;
    BP_FOR(e, KV) {
        if (f->elem == STEPQ_ELEM_FP32) w->X[e] = stepq_bits_f32(bp_get32(P + 4 * (size_t)e));
        else if (f->elem == STEPQ_ELEM_FP16) w->X[e] = stepq_f16_to_f32(bp_get16(P + 2 * (size_t)e));
        else w->X[e] = stepq_bf16_to_f32(bp_get16(P + 2 * (size_t)e));
    }
    BP_SYNC();
}

// ---------------------------------------------------------------------------------------------
// LeapQuant (quant/leap.c, method 6.8): base rows at f->width, then the residual

BP void bp_leap_encode(bp_ws* w, const bp_fmt* f, const bp_head* hd, uint8_t* P) {
    const int K = w->K, V = w->V, KV = K * V;
    uint32_t* part = (uint32_t*)w->part;
    // the base state: rows at f->width; X <- the residual x - s z, Z <- the base codes
    bp_rowmax_lanes(part, w->X, w->bits, 0, K, V);
    bp_row_scales(w, w->rs, w->rinv, part, f->width);
    BP_FOR(e, KV) {
        const int i = e / V;
        const float x = w->X[e];
        const int z = (int)stepq_code(x * w->rinv[i], (float)STEPQ_QMAX(f->width));
        w->Z[e] = (int8_t)z;
        w->X[e] = x - w->rs[i] * (float)z;
    }
    BP_SYNC();
    const uint32_t base_row = (uint32_t)STEPQ_ROW_BYTES(f->width, V);
    if (P) bp_rows_pack(w, P, (const uint32_t*)0, 0, base_row, w->Z, w->X, w->rs, f->width);
    if (f->res_bits == 32) {  // the FP32 oracle keeps the residual itself
        BP_FOR(e, KV) {
            const int i = e / V;
            const float d = w->X[e];
            if (P) bp_put32(P + hd->res + (size_t)i * hd->res_row + 4 * (size_t)(e % V), stepq_f32_bits(d));
            w->X[e] = w->rs[i] * (float)w->Z[e] + f->alpha * d;
        }
        BP_SYNC();
        return;
    }
    bp_rowmax_lanes(part, w->X, w->bits, 0, K, V);
    bp_row_scales(w, w->rs2, w->rinv2, part, f->res_bits);
    BP_FOR(e, KV) {  // Z: base codes in, residual codes out (the same element, the same item)
        const int i = e / V;
        const int z2 = (int)stepq_code(w->X[e] * w->rinv2[i], (float)STEPQ_QMAX(f->res_bits));
        const float xb = w->rs[i] * (float)w->Z[e];
        w->Z[e] = (int8_t)z2;
        w->X[e] = xb + f->alpha * (w->rs2[i] * (float)z2);
    }
    BP_SYNC();
    if (P) bp_rows_pack(w, P, (const uint32_t*)0, hd->res, hd->res_row, w->Z, w->X, w->rs2, f->res_bits);
}

BP void bp_leap_decode(bp_ws* w, const bp_fmt* f, const bp_head* hd, const uint8_t* P) {
    const int K = w->K, V = w->V;
    bp_rows_decode(w, w->X, P, (const uint32_t*)0, 0, (uint32_t)STEPQ_ROW_BYTES(f->width, V), f->width, 0, 0);
    if (f->res_bits == 32) {
        BP_FOR(e, K * V) {
            const float d = stepq_bits_f32(bp_get32(P + hd->res + (size_t)(e / V) * hd->res_row + 4 * (size_t)(e % V)));
            w->X[e] = w->X[e] + f->alpha * d;
        }
        BP_SYNC();
    } else {
        bp_rows_decode(w, w->X, P, (const uint32_t*)0, hd->res, hd->res_row, f->res_bits, 1, f->alpha);
    }
}

// Freeze gating: flag[1] <- ||X - prev|| < tau ||prev|| (and prev != 0), prev the state stored
// now. The two sums are taken column by column over the rows, then over the columns; the CPU
// (leap_encode) sums element after element, so the decision may differ from it when the ratio
// sits within about 1e-13 relative of tau.
BP void bp_leap_freeze_test(bp_ws* w, const bp_fmt* f, const float* prev) {
    const int K = w->K, V = w->V;
    BP_FOR(j, V) {
        double d2 = 0, p2 = 0;
        for (int i = 0; i < K; i++) {
            const double pv = prev[(size_t)i * V + j], d = (double)w->X[(size_t)i * V + j] - pv;
            d2 += d * d;
            p2 += pv * pv;
        }
        w->dpart[2 * j] = d2;
        w->dpart[2 * j + 1] = p2;
    }
    BP_SYNC();
    BP_FOR(it, 1) {
        double d2 = 0, p2 = 0;
        for (int j = 0; j < V; j++) d2 += w->dpart[2 * j], p2 += w->dpart[2 * j + 1];
        w->flag[1] = p2 > 0 && sqrt(d2) < f->tau * sqrt(p2);
    }
    BP_SYNC();
}

// ---------------------------------------------------------------------------------------------
// FP8 E4M3 with a scale per tile of 32 key rows (quant/fp8tile.c): s = amax(tile) / 448, codes
// the nearest E4M3 of x / s (sign in bit 7). Layout per tile: float32 s, then its rows' bytes.

#define BP_TILE 32

BP uint8_t bp_e4m3_signed(float x) {
    uint8_t c = stepq_e4m3_encode(x < 0 ? -x : x);
    return (uint8_t)(c | (x < 0 && c ? 0x80 : 0));
}

BP void bp_fp8tile_encode(bp_ws* w, const bp_head* hd, uint8_t* P) {
    const int K = w->K, V = w->V, NT = (K + BP_TILE - 1) / BP_TILE;
    uint32_t* part = (uint32_t*)w->part;
    bp_rowmax_lanes(part, w->X, w->bits, 0, K, V);
    BP_FOR(i, K) {
        uint32_t m = 0;
        for (int l = 0; l < 8; l++) m = part[i * 8 + l] > m ? part[i * 8 + l] : m;
        ((uint32_t*)w->rowa)[i] = m;
    }
    BP_SYNC();
    BP_FOR(t, NT) {  // rc_absmax of the tile (a max: any order) / 448
        uint32_t m = 0;
        for (int i = t * BP_TILE; i < K && i < (t + 1) * BP_TILE; i++)
            m = ((uint32_t*)w->rowa)[i] > m ? ((uint32_t*)w->rowa)[i] : m;
        w->rs[t] = stepq_bits_f32(m) / 448.0f;
        if (P) bp_put32(P + hd->off[t * BP_TILE] - 4, stepq_f32_bits(w->rs[t]));
    }
    BP_SYNC();
    BP_FOR(e, K * V) {
        const int i = e / V;
        const float s = w->rs[i / BP_TILE];
        const uint8_t c = s > 0 ? bp_e4m3_signed(w->X[e] / s) : 0;
        if (P) P[hd->off[i] + e % V] = c;
        w->X[e] = stepq_e4m3_decode(c) * s;
    }
    BP_SYNC();
}

BP void bp_fp8tile_decode(bp_ws* w, const bp_head* hd, const uint8_t* P) {
    const int K = w->K, V = w->V;
    BP_FOR(e, K * V) {
        const int i = e / V;
        const float s = stepq_bits_f32(bp_get32(P + hd->off[(i / BP_TILE) * BP_TILE] - 4));
        w->X[e] = stepq_e4m3_decode(P[hd->off[i] + e % V]) * s;
    }
    BP_SYNC();
}

// ---------------------------------------------------------------------------------------------
// Stochastic rounding (quant/sr.c): INT8 and FP8 E4M3 with an FP32 scale per value column, FP16
// without one; a value between neighbours lo < t < hi becomes hi with probability
// (t - lo) / (hi - lo), the random number a counter-based hash of the head's encode count n and
// the element's index. Layout: uint64 n, then (scaled) V float32 column scales, then the codes.

BP uint64_t bp_get64(const uint8_t* p) { return (uint64_t)bp_get32(p) | ((uint64_t)bp_get32(p + 4) << 32); }


BP size_t bp_sr_head(const bp_fmt* f, int V) { return 8 + (f->sr_elem != STEPQ_ELEM_FP16 ? 4u * (size_t)V : 0); }

// n: this encode's number (the count of encodes of the head so far, this one included)
BP void bp_sr_encode(bp_ws* w, const bp_fmt* f, uint8_t* P, uint64_t n) {
    const int K = w->K, V = w->V, scaled = f->sr_elem != STEPQ_ELEM_FP16;
    const size_t hb = bp_sr_head(f, V);
    if (scaled) {
        const float q = f->sr_elem == STEPQ_ELEM_INT8 ? 127.0f : 448.0f;
        BP_FOR(j, V) {  // the column's largest |x| (a max: any order), then / qmax
            float m = 0;
            for (int i = 0; i < K; i++) {
                const float x = w->X[(size_t)i * V + j], a = x < 0 ? -x : x;
                m = a > m ? a : m;
            }
            w->c[j] = m / q;
            if (P) bp_put32(P + 8 + 4 * (size_t)j, stepq_f32_bits(w->c[j]));
        }
    }
    BP_FOR(it, 1) if (P) {
        bp_put32(P, (uint32_t)n);
        bp_put32(P + 4, (uint32_t)(n >> 32));
    }
    BP_SYNC();
    BP_FOR(e, K * V) {
        const float x = w->X[e], u = stepq_sr_uniform(n, (size_t)e), sj = scaled ? w->c[e % V] : 1.0f;
        if (f->sr_elem == STEPQ_ELEM_INT8) {
            const float t = sj > 0 ? x / sj : 0, lo = floorf(t);
            float z = u < t - lo ? lo + 1 : lo;
            z = z < -127 ? -127 : z > 127 ? 127 : z;
            const int8_t c = (int8_t)z;
            if (P) P[hb + e] = (uint8_t)c;
            w->X[e] = (float)c * sj;
        } else if (f->sr_elem == STEPQ_ELEM_FP8) {
            const float t = sj > 0 ? x / sj : 0;
            uint8_t c = stepq_e4m3_sr(t < 0 ? -t : t, u);
            c = (uint8_t)(c | (t < 0 && c ? 0x80 : 0));
            if (P) P[hb + e] = c;
            w->X[e] = stepq_e4m3_decode(c) * sj;
        } else {
            const uint16_t h = stepq_f16_sr(x, u);
            if (P) bp_put16(P + hb + 2 * (size_t)e, h);
            w->X[e] = stepq_f16_to_f32(h);
        }
    }
    BP_SYNC();
}

BP void bp_sr_decode(bp_ws* w, const bp_fmt* f, const uint8_t* P) {
    const int K = w->K, V = w->V;
    const size_t hb = bp_sr_head(f, V);
    BP_FOR(e, K * V) {
        if (f->sr_elem == STEPQ_ELEM_FP16) {
            w->X[e] = stepq_f16_to_f32(bp_get16(P + hb + 2 * (size_t)e));
            continue;
        }
        const float s = stepq_bits_f32(bp_get32(P + 8 + 4 * (size_t)(e % V)));
        w->X[e] = f->sr_elem == STEPQ_ELEM_INT8 ? (float)(int8_t)P[hb + e] * s : stepq_e4m3_decode(P[hb + e]) * s;
    }
    BP_SYNC();
}

// ---------------------------------------------------------------------------------------------
// a format's encoder and decoder

// Each family's encoder and decoder, bp_encode_<name> and bp_decode_<name> (STEPQ_FAMILIES,
// quant/format.h): a family in the list without them does not compile.
//
// bp_encode_<name>: X <- decode(encode(X)) in place; P (may be NULL) <- the packed bytes
// (layout.h). prev: the stored state before this step (LeapQuant's freeze gate; unused
// otherwise). flag[0] <- 1 when a row could not be encoded (not finite). Needs w->Z when P is
// given or for LeapQuant, w->r for the dual family, w->blk for NVFP4 (bp_needs). sr_n:
// stochastic rounding's encode number when P is NULL (with P, the count stored there plus one).
#define BP_ENCODER_ARGS bp_ws* w, const bp_fmt* f, const bp_head* hd, uint8_t* P, const float* prev, int ns, uint64_t sr_n
// bp_decode_<name>: X <- decode(P)
#define BP_DECODER_ARGS bp_ws* w, const bp_fmt* f, const bp_head* hd, const uint8_t* P

BP void bp_encode_cast(BP_ENCODER_ARGS) { bp_cast_encode(w, f, P); }
BP void bp_decode_cast(BP_DECODER_ARGS) { bp_cast_decode(w, f, P); }

// the rows family and DAMP (its coded rows rotated before and after)
BP void bp_rows_encode(bp_ws* w, uint8_t* P, const bp_head* hd, int rotated) {
    const int K = w->K, V = w->V;
    uint32_t* part = (uint32_t*)w->part;
    if (rotated) bp_fwht_rows(w, w->X);
    bp_rowmax_lanes(part, w->X, w->bits, 1, K, V);
    bp_row_scales(w, w->rs, w->rinv, part, 0);
    bp_rows_quant(w, w->X, P ? w->Z : (int8_t*)0, w->X, w->rs, w->rinv, 0);
    if (P) bp_rows_pack(w, P, hd->off, 0, 0, w->Z, w->X, w->rs, 0);
    if (rotated) bp_fwht_rows(w, w->X);
}
BP void bp_encode_rows(BP_ENCODER_ARGS) { bp_rows_encode(w, P, hd, 0); }
BP void bp_decode_rows(BP_DECODER_ARGS) { bp_rows_decode(w, w->X, P, hd->off, 0, 0, 0, 0, 0); }
BP void bp_encode_damp(BP_ENCODER_ARGS) { bp_rows_encode(w, P, hd, 1); }
BP void bp_decode_damp(BP_DECODER_ARGS) {
    bp_rows_decode(w, w->X, P, hd->off, 0, 0, 0, 0, 0);
    bp_fwht_rows(w, w->X);
}

BP void bp_encode_dual(BP_ENCODER_ARGS) {
    const int coded = bp_any_coded(w->bits, w->K);
    if (coded) {
        bp_dual_rows(w, hd, f->dsq);
        bp_dual_columns(w, hd, f->dsq, ns);
    }
    bp_dual_quant(w, hd);
    if (P) bp_dual_pack(w, hd, P, coded);
}
BP void bp_decode_dual(BP_DECODER_ARGS) { bp_dual_decode(w, hd, P); }

BP void bp_encode_nvfp4(BP_ENCODER_ARGS) { bp_nvfp4_encode(w, hd, P); }
BP void bp_decode_nvfp4(BP_DECODER_ARGS) { bp_nvfp4_decode(w, hd, P); }

BP void bp_encode_leap(BP_ENCODER_ARGS) {
    if (f->freeze) {
        bp_leap_freeze_test(w, f, prev);
        if (w->flag[1]) {  // frozen: the stored state (and its bytes) stay as they are
            BP_FOR(e, w->K * w->V) w->X[e] = prev[e];
            BP_SYNC();
            return;
        }
    }
    bp_leap_encode(w, f, hd, P);
}
BP void bp_decode_leap(BP_DECODER_ARGS) { bp_leap_decode(w, f, hd, P); }

BP void bp_encode_fp8tile(BP_ENCODER_ARGS) { bp_fp8tile_encode(w, hd, P); }
BP void bp_decode_fp8tile(BP_DECODER_ARGS) { bp_fp8tile_decode(w, hd, P); }

BP void bp_encode_sr(BP_ENCODER_ARGS) {
    const uint64_t n = P ? bp_get64(P) + 1 : sr_n;  // every thread reads it before it changes
    BP_SYNC();
    bp_sr_encode(w, f, P, n);
}
BP void bp_decode_sr(BP_DECODER_ARGS) { bp_sr_decode(w, f, P); }

#define BP_ENCODE_(fam, name) bp_encode_##name(w, f, hd, P, prev, ns, sr_n)
BP void bp_encode(BP_ENCODER_ARGS) { STEPQ_DISPATCH_FAMILY(f->fam, BP_ENCODE_) }
#define BP_DECODE_(fam, name) bp_decode_##name(w, f, hd, P)
BP void bp_decode(BP_DECODER_ARGS) { STEPQ_DISPATCH_FAMILY(f->fam, BP_DECODE_) }

// flag[0] read by every thread, then a barrier before anyone may write it again
BP int bp_take_flag(bp_ws* w) {
    const int f = w->flag[0];
    BP_SYNC();
    return f;
}

// flag[0] <- 1 when any element of A (K,V) is not finite (every encoder refuses such a state)
BP void bp_check_finite(bp_ws* w, const float* A) {
    BP_FOR(e, w->K * w->V)
    if ((stepq_f32_bits(A[e]) & 0x7fffffffu) > BP_FINITE_MAX) w->flag[0] = 1;
    BP_SYNC();
}

// ---------------------------------------------------------------------------------------------
// the recurrence, column by column (sim/recurrence_impl.h; the fused read and write passes of
// sim/kernels.c): item j walks the key rows in order, so every column sum has the CPU's order

// Prefill: one float32 step of S; y <- its read-out.
BP void bp_ref_columns(bp_ws* w) {
    const int K = w->K, V = w->V;
    const float *k = BP_K(w), *dec = BP_DEC(w), *v = BP_VV(w), beta = BP_BETA(w);
    BP_FOR(j, V) {
        float acc = 0;
        for (int i = 0; i < K; i++) {
            float* s = w->S + (size_t)i * V + j;
            *s *= dec[i];
            acc += k[i] * *s;
        }
        const float u = beta * (v[j] - acc);
        float y = 0;
        for (int i = 0; i < K; i++) {
            float* s = w->S + (size_t)i * V + j;
            *s += k[i] * u;
            y += w->qs[i] * *s;
        }
        w->y[j] = y;
    }
    BP_SYNC();
}

// A decode step of the analysis engine: the reference S and the quantized path X side by side.
// pred <- P1's prediction of the read-out error (x - s) g with the reference before its step
// (runner.c takes it before stepping the reference); y, yq <- the read-outs; flag[0] <- 1 when
// X_t is not finite.
BP void bp_engine_columns(bp_ws* w) {
    const int K = w->K, V = w->V;
    const float *k = BP_K(w), *dec = BP_DEC(w), *v = BP_VV(w), *gr = BP_GR(w), beta = BP_BETA(w);
    BP_FOR(j, V) {
        float acc = 0, accq = 0, pr = 0;
        for (int i = 0; i < K; i++) {
            const size_t e = (size_t)i * V + j;
            const float d = dec[i], ki = k[i], s = w->S[e], x = w->X[e];
            pr += (x - s) * gr[i];
            const float xd = x * d;
            accq += ki * xd;
            const float sd = s * d;
            w->S[e] = sd;
            acc += ki * sd;
        }
        const float u = beta * (v[j] - acc), uq = beta * (v[j] - accq);
        float y = 0, yq = 0;
        uint32_t worst = 0;
        for (int i = 0; i < K; i++) {
            const size_t e = (size_t)i * V + j;
            const float ki = k[i], qi = w->qs[i];
            const float s = w->S[e] + ki * u;
            w->S[e] = s;
            y += qi * s;
            float t = w->X[e] * dec[i];
            t += ki * uq;
            w->X[e] = t;
            yq += qi * t;
            const uint32_t a = stepq_f32_bits(t) & 0x7fffffffu;
            worst = a > worst ? a : worst;
        }
        w->y[j] = y;
        w->yq[j] = yq;
        w->pred[j] = pr;
        if (worst > BP_FINITE_MAX) w->flag[0] = 1;
    }
    BP_SYNC();
}

// The serving step on X alone: u = beta (v - (D X)^T k), then (write) X <- D X + k u^T, and
// y = X_t^T (scale q). Rows in ns groups (ns = 1: the CPU's order; ns > 1 adds the groups'
// partial sums at the end: the comparison rule applies). write: keep X_t in X.
BP void bp_serve_columns(bp_ws* w, int ns, int write) {
    const int K = w->K, V = w->V;
    const float *k = BP_K(w), *dec = BP_DEC(w), *v = BP_VV(w), beta = BP_BETA(w);
    BP_FOR(it, V * ns) {
        const int j = it % V, g = it / V, i0 = g * K / ns, i1 = (g + 1) * K / ns;
        float acc = 0;
        for (int i = i0; i < i1; i++) {
            const float xd = w->X[(size_t)i * V + j] * dec[i];
            acc += k[i] * xd;
        }
        w->part[it] = acc;
    }
    BP_SYNC();
    BP_FOR(j, V) {
        float acc = w->part[j];
        for (int g = 1; g < ns; g++) acc += w->part[g * V + j];
        w->u[j] = beta * (v[j] - acc);
    }
    BP_SYNC();
    BP_FOR(it, V * ns) {
        const int j = it % V, g = it / V, i0 = g * K / ns, i1 = (g + 1) * K / ns;
        const float u = w->u[j];
        float y = 0;
        uint32_t worst = 0;
        for (int i = i0; i < i1; i++) {
            float t = w->X[(size_t)i * V + j] * dec[i];
            t += k[i] * u;
            if (write) w->X[(size_t)i * V + j] = t;
            y += w->qs[i] * t;
            const uint32_t a = stepq_f32_bits(t) & 0x7fffffffu;
            worst = a > worst ? a : worst;
        }
        w->part[it] = y;
        if (worst > BP_FINITE_MAX) w->flag[0] = 1;
    }
    BP_SYNC();
    BP_FOR(j, V) {
        float y = w->part[j];
        for (int g = 1; g < ns; g++) y += w->part[g * V + j];
        w->yq[j] = y;
    }
    BP_SYNC();
}

// X <- D X + k u^T element by element, with u given (the serving write kernel); flag[0] when
// X_t is not finite
BP void bp_apply_update(bp_ws* w) {
    const int K = w->K, V = w->V;
    const float *k = BP_K(w), *dec = BP_DEC(w);
    BP_FOR(e, K * V) {
        const int i = e / V;
        float t = w->X[e] * dec[i];
        t += k[i] * w->u[e % V];
        w->X[e] = t;
        if ((stepq_f32_bits(t) & 0x7fffffffu) > BP_FINITE_MAX) w->flag[0] = 1;
    }
    BP_SYNC();
}

// ---------------------------------------------------------------------------------------------
// the measured figures of a decode step (analysis/runner.c's measure, with sim/sums.h's lanes)

// The reference's norms: ds[1] <- ||S||_F^2 (each row in 16 float lanes, the rows added in
// double in order: stepq_sq_norm), ds[2] <- ||y||^2 (16 float lanes: stepq_sq_norm_row).
// with_y = 0: the state's alone (the boundary's check).
BP void bp_ref_sums(bp_ws* w, int with_y) {
    const int K = w->K, V = w->V;
    float *pn = w->part, *py = w->part + (size_t)K * 16;
    BP_FOR(it, K * 16 + 16) {
        if (it < K * 16) {
            const int i = it / 16, l = it % 16;
            const float* s = w->S + (size_t)i * V;
            float an = 0;
            for (int j = l; j < V; j += 16) an += s[j] * s[j];
            pn[it] = an;
        } else if (with_y) {
            const int l = it - K * 16;
            float a = 0;
            for (int j = l; j < V; j += 16) a += w->y[j] * w->y[j];
            py[l] = a;
        }
    }
    BP_SYNC();
    BP_FOR(it, K + 1) {
        if (it < K) w->rowb[it] = bp_lanes16(pn + (size_t)it * 16);
        else if (with_y) w->ds[2] = bp_lanes16(py);
    }
    BP_SYNC();
    BP_FOR(it, 1) {
        double s = 0;
        for (int i = 0; i < K; i++) s += w->rowb[i];
        w->ds[1] = s;
    }
    BP_SYNC();
}

// The quantized path's figures (sim/kernels.c's stepq_qmeasure and runner.c's measure): ds[0] <-
// ||X - S||_F^2, ds[5] <- ||X||_F^2 (rows in 16 float lanes, added in double in order),
// ds[3] <- ||yq - y||^2, ds[4] <- ||yq - y - pred||^2 (8 double lanes each)
BP void bp_error_sums(bp_ws* w) {
    const int K = w->K, V = w->V;
    float *pd = w->part, *ph = w->part + (size_t)K * 16;
    BP_FOR(it, K * 16 + 16) {
        if (it < K * 16) {
            const int i = it / 16, l = it % 16;
            const float *x = w->X + (size_t)i * V, *s = w->S + (size_t)i * V;
            float ad = 0, ah = 0;
            for (int j = l; j < V; j += 16) {
                const float d = x[j] - s[j];
                ad += d * d;
                ah += x[j] * x[j];
            }
            pd[it] = ad;
            ph[it] = ah;
        } else {
            const int l = it - K * 16;  // 0..7: ||dy||^2 lanes, 8..15: residual lanes
            double a = 0;
            for (int j = l % 8; j < V; j += 8) {
                const double dy = (double)w->yq[j] - w->y[j], e = dy - w->pred[j];
                a += l < 8 ? dy * dy : e * e;
            }
            w->dpart[l] = a;
        }
    }
    BP_SYNC();
    BP_FOR(it, K) {
        w->rowa[it] = bp_lanes16(pd + (size_t)it * 16);
        w->rowc[it] = bp_lanes16(ph + (size_t)it * 16);
    }
    BP_SYNC();
    BP_FOR(it, 3) {
        double s = 0;
        if (it < 2) {
            const float* rows = it == 0 ? w->rowa : w->rowc;
            for (int i = 0; i < K; i++) s += rows[i];
            w->ds[it == 0 ? 0 : 5] = s;
        } else {
            w->ds[3] = bp_tree8d(w->dpart);
            w->ds[4] = bp_tree8d(w->dpart + 8);
        }
    }
    BP_SYNC();
}

// base/stats.h's stepq_rel: sqrt(num / den) where both are finite and den > 0, NaN otherwise (a
// broken or empty reference never reads as zero error)
BP double bp_rel(double num, double den) { return sqrt(isfinite(num) && isfinite(den) && den > 0 ? num / den : NAN); }

// LeapQuant's residual region (stepq_format_residual) as a block program takes it (bp_head)
static inline void bp_residual(uint32_t* res, uint32_t* res_row, const stepq_format* f, int K, int V) {
    size_t r, rr;
    stepq_format_residual(&r, &rr, f, K, V);
    *res = (uint32_t)r;
    *res_row = (uint32_t)rr;
}

// a host copy of what bp_* need to know of a format
static inline bp_fmt bp_fmt_of(const stepq_format* f) {
    bp_fmt b;
    b.fam = f->family->id;
    b.elem = f->cast.element;
    b.width = f->width;
    b.dsq = f->dual.dsq;
    b.res_bits = f->leap.residual_bits;
    b.alpha = f->leap.alpha;
    b.tau = f->leap.tau;
    b.freeze = stepq_format_freeze_gated(f);
    b.sr_elem = f->sr.element;
    b.replay = f->replay;
    return b;
}

#endif

// kernels.c: the fused decode step (backend.h), built once per instruction set: CMake compiles
// this file for x86-64-v2, AVX2 and AVX-512 with STEPQ_KERNELS_NAME naming the backend it
// defines. Each family's row codecs come from quant/famrows.h (over quant/rowcodec.h and
// quant/dualfit.h, whose SIMD blocks switch on with the wider builds), and the passes below
// are written once for every family: STEPQ_DISPATCH_FAMILY specialises them for each family
// of quant/format.h's list. Everything else is the reference's plain C, vectorised by the
// compiler (ISO C: no contraction into FMA, no reassociation, so no result changes).
#include <math.h>
#include <string.h>

#include "../quant/famrows.h"
#include "backend.h"
#include "sums.h"

#define REAL float
#define STEP_FN step_f32
#define STEP_NORM_FN step_norm_f32
#define EXP_FN expf
#define STEP_LINKAGE static
#define STEP_FIXED_DIM 128
#include "recurrence_impl.h"
#define PROPAGATE_FN propagate
#define PROPAGATE_LINKAGE static
#define PROPAGATE_FIXED_DIM 128
#include "propagate_impl.h"
#define MATVEC_FN matvec
#define MATVEC_LINKAGE static
#include "matvec_impl.h"
#define ERRSTEP_FN error_step
#define ERRSTEP_LINKAGE static
#define ERRSTEP_FIXED_DIM 128
#include "errstep_impl.h"


// the families' codecs come from quant/famrows.h: fam is a constant at every call site of the
// passes below, so each family gets a loop of its own; these three dispatch once a step
static void load_ctx(fr_ctx* h, const stepq_qstate* qs) { fr_load_ctx(h, qs, qs->fmt->family->id); }
// 1 when the format's encoder works row by row (the others need the whole head)
static int row_local(const stepq_format* f) { return fr_row_local(f, f->family->id); }

// P <- encode(X) of a format whose encoder needs the whole head; umax: the largest |X| as float
// bits, which the write pass found (NaN and Inf above FLT_MAX's); freeze: LeapQuant's
// ||X - S_prev||^2 and ||S_prev||^2, which it summed too
static int encode_head(stepq_qstate* qs, const fr_ctx* h, uint32_t umax, const double* freeze) {
    if (umax > 0x7f7fffffu) return STEPQ_ERR;  // every whole-head encoder's finite check
    return fr_encode_head(qs, h, umax, freeze, qs->fmt->family->id);
}

// pass 1 over the rows of one family
FR_INLINE void read_rows(stepq_qstate* qs, const fr_ctx* h, const stepq_step_in* in,
                         const float* decay, const double* grad, const float* S_prev, float* pred,
                         float* acc, int fam, int V) {
    const int K = qs->K;
    float x[STEPQ_MAX_DIM];
    for (int i = 0; i < K; i++) {
        fr_decode_row(x, qs, h, i, fam, V);
        if (pred) {  // P1 (method 3): the error of S_hat_{t-1} weighted by the read-out
            const float* sp = S_prev + (size_t)i * V;
            const float gi = (float)grad[i];
            for (int j = 0; j < V; j++) pred[j] += (x[j] - sp[j]) * gi;
        }
        const float d = decay[i], ki = in->k[i];
        for (int j = 0; j < V; j++) {
            float xd = x[j] * d;
            acc[j] += ki * xd;
        }
    }
}

#if defined(STEPQ_RC_AVX512)
// The rows family's 128-wide rows on AVX-512: a row lives in eight vector registers from its
// decode through its update (and rotation), and again from a 16-row buffer in L1 through its
// encode (write_rows128), so the passes store no state but the packed bytes and those 16 rows
// (the row functions above go through a row buffer for every row). Every element meets the plain loops' operations in
// their order (decode s z; P1's (x - S_prev) g; t = x d, t += k u, y += q t; the codes of
// rc_rows_encode_scaled, and for a measured step the decoded s z in sums.h's lanes); FP16
// pivot rows and code widths without a vector unpacker go through the row functions.
// test_kernels compares the bytes, read-outs, predictions and sums with the reference. Measured
// against the row-buffer passes (alternating runs of one format's unmeasured fused step): INT8
// about 14% faster, INT6 and INT4 about 1% (their unpacking dominated until the 64-code
// packing). DAMP's rows take the same passes with their transforms in registers, the cast
// formats' rows (FP32, FP16, BF16) both passes, each row encoded right after its update (their
// fused steps alone 4.3 -> 3.0, 4.8 -> 4.3, 4.9 -> 3.9 us; measured 7.5 -> 4.5, 7.9 -> 6.0,
// 8.0 -> 5.9), LeapQuant's row-local formats both passes (write_leap128), and the whole-head
// formats' rows (dual layout, NVFP4, FP8 tiles, stochastic rounding; LeapQuant with freeze
// gating) their read pass and (all but the last) the update of their write pass (fam; FP8 tiles
// and stochastic rounding 1.4-2.8% faster than through the row functions' vector loops).
// whether a format's 128-wide rows take the register passes (read_rows128 and write_rows128 or
// write_head128; fr_<name>_regs128)
static int regs128(const stepq_format* f) { return fr_regs128(f, f->family->id); }

// t (8 vectors) <- a row of 128 floats (a buffer, the read-out, a state row), and back; t <-
// row i decoded (fr_<name>_decode128)

// the largest |t| of a row as float bits (rc_absmax_bits)
FR_INLINE __m512i rows128_lanemax(const __m512* t) {  // lane by lane, before the lanes meet
    const __m512i mag = _mm512_set1_epi32(0x7fffffff);
    __m512i m = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (int c = 0; c < FR_R128; c++) m = _mm512_max_epu32(m, _mm512_and_si512(_mm512_castps_si512(t[c]), mag));
    return m;
}
FR_INLINE uint32_t rows128_absmax(const __m512* t) { return _mm512_reduce_max_epu32(rows128_lanemax(t)); }

// lane r <- the largest lane of m[r], for 16 vectors reduced together (halves, then quarters,
// then pairs and single lanes meet in one max per two rows), as rc_absmax8x16 reduces its
// blocks: 46 instructions instead of 16 reductions of 8 in a chain each; a maximum is exact in
// any order. With the whole-head passes reducing their rows' lanes once a head (medians of 7
// alternating runs of one format's step): INT8 4.59 -> 4.44 us, INT6 5.63 -> 5.55, INT4 5.46 ->
// 5.35, DAMP 12.39 -> 12.07, NVFP4 11.43 -> 11.17, STEPQuant@6 within 1%
FR_INLINE __m512i max16x16(const __m512i* m) {
    __m512i h[8], q[4], e[2];
    for (int k = 0; k < 8; k++) h[k] = rc_max_halves(m[2 * k], m[2 * k + 1]);  // lanes 0..7: row 2k's, 8..15: 2k + 1's
    for (int k = 0; k < 4; k++) q[k] = rc_max_quarters(h[2 * k], h[2 * k + 1]);  // 128-bit lane L: row 4k + L's
    for (int k = 0; k < 2; k++)  // 128-bit lane L: row 8k + L's pairs (dwords 0, 1), 8k + 4 + L's (2, 3)
        e[k] = _mm512_max_epu32(_mm512_unpacklo_epi64(q[2 * k], q[2 * k + 1]), _mm512_unpackhi_epi64(q[2 * k], q[2 * k + 1]));
    // 128-bit lane L: rows L, 4 + L, 8 + L, 12 + L
    const __m512 a = _mm512_castsi512_ps(e[0]), b = _mm512_castsi512_ps(e[1]);
    const __m512i f = _mm512_max_epu32(_mm512_castps_si512(_mm512_shuffle_ps(a, b, 0x88)),
                                       _mm512_castps_si512(_mm512_shuffle_ps(a, b, 0xdd)));
    return _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), f);
}

FR_INLINE void read_rows128(const stepq_qstate* qs, const fr_ctx* h, const stepq_step_in* in, const float* decay,
                            const double* grad, const float* S_prev, float* pred, float* acc, float* xd, int fam) {
    __m512 a[FR_R128], p[FR_R128], t[FR_R128];
#pragma GCC unroll 8
    for (int c = 0; c < FR_R128; c++) a[c] = _mm512_setzero_ps(), p[c] = _mm512_setzero_ps();
    for (int i = 0; i < qs->K; i++) {
        fr_decode128(t, qs, h, i, fam);
        if (pred) {  // P1: pred += (x - S_prev) grad_i, as read_rows
            const __m512 vg = _mm512_set1_ps((float)grad[i]);
            const float* sp = S_prev + (size_t)i * 128;
#pragma GCC unroll 8
            for (int c = 0; c < FR_R128; c++)
                p[c] = _mm512_add_ps(p[c], _mm512_mul_ps(_mm512_sub_ps(t[c], _mm512_loadu_ps(sp + 16 * c)), vg));
        }
        const __m512 vd = _mm512_set1_ps(decay[i]), vk = _mm512_set1_ps(in->k[i]);
#pragma GCC unroll 8
        for (int c = 0; c < FR_R128; c++) {
            const __m512 td = _mm512_mul_ps(t[c], vd);
            if (xd) _mm512_storeu_ps(xd + (size_t)i * 128 + 16 * c, td);
            a[c] = _mm512_add_ps(a[c], _mm512_mul_ps(vk, td));
        }
    }
    fr_store128(acc, a);
    if (pred) fr_store128(pred, p);
}

// a row's largest |x| as float bits and, for a finite row of a vector width, its FP16 scale, the
// reciprocal its codes take (rc_rows_encode_scaled's) and whether their clamp changes no code
// (rc_row_scales16's mask)
typedef struct {
    uint32_t umax;
    uint16_t sh;
    float inv;
    int inside;
} row128_scale;

// row r's of 16 rows' scales side by side (rc_row_scales16)
static inline row128_scale row128_scale_of(const uint32_t* umax, const uint16_t* sh, const float* inv,
                                           __mmask16 inside, int r) {
    return (row128_scale){.umax = umax[r], .sh = sh[r], .inv = inv[r], .inside = (inside >> r) & 1};
}

// row i: t (8 vectors) <- D x + k u^T of its decoded row, yv (8 vectors) += q t; returns its
// largest |t| as float bits. DAMP: t is then rotated as DAMP encodes it (a finite row; the
// scale is the rotated row's, as rc_rows_encode_row takes it)
FR_INLINE __m512i rows128_update_lanes(__m512* t, __m512* yv, const stepq_qstate* qs, const fr_ctx* h,
                                       const stepq_step_in* in, const float* decay, double scale, int i, int fam) {
    const __m512 vd = _mm512_set1_ps(decay[i]), vk = _mm512_set1_ps(in->k[i]);
    const __m512 vq = _mm512_set1_ps((float)scale * in->q[i]);
    const float* xd = qs->X + (size_t)i * 128;  // the read pass's D x of the row (qs->xd)
    if (qs->xd) {
#pragma GCC unroll 8
        for (int c = 0; c < FR_R128; c++) t[c] = _mm512_loadu_ps(xd + 16 * c);
    } else {
        fr_decode128(t, qs, h, i, fam);
#pragma GCC unroll 8
        for (int c = 0; c < FR_R128; c++) t[c] = _mm512_mul_ps(t[c], vd);
    }
#pragma GCC unroll 8
    for (int c = 0; c < FR_R128; c++) {
        t[c] = _mm512_add_ps(t[c], _mm512_mul_ps(vk, _mm512_loadu_ps(qs->u + 16 * c)));
        yv[c] = _mm512_add_ps(yv[c], _mm512_mul_ps(vq, t[c]));
    }
    const __m512i m = rows128_lanemax(t);
    if (fr_rotated(fam) && qs->rows[i] != STEPQ_PIVOT_BITS &&
        !_mm512_cmpgt_epu32_mask(m, _mm512_set1_epi32(0x7f7fffff))) {  // a finite row
        rc_fwht128(t);
        return rows128_lanemax(t);
    }
    return m;
}

// rows128_encode of a row of another width (FP16 pivots, 2, 3, 5 and 7 bits) through the row
// functions, out of line: inlined three times, its row buffers made GCC keep the vector rows
// of the loop in memory
__attribute__((noinline)) static int rows128_encode_other(stepq_qstate* qs, const fr_ctx* h, const float* x,
                                                          uint32_t umax, int i, const float* sr, stepq_qmeasure* m,
                                                          float* xout) {
    float xq[128];
    if (fr_encode_row(qs, h, sr || xout ? xq : NULL, x, i, umax, FR_SCALED_ROWS, 128) != STEPQ_OK) return STEPQ_ERR;
    if (xout) memcpy(xout, xq, sizeof xq);
    if (sr) {
        m->err2 += stepq_sq_dist_row(xq, sr, 128);
        m->hat2 += stepq_sq_norm_row(xq, 128);
    }
    return STEPQ_OK;
}

// m += the sums of a decoded row xq against sr, row i of S_ref, in sums.h's lanes (lane k takes
// elements k, k + 16, ...: the vectors in order), as stepq_sq_dist_row and stepq_sq_norm_row
FR_INLINE void rows128_measure(stepq_qmeasure* m, const __m512* xq, const float* sr) {
    __m512 de = _mm512_setzero_ps(), no = _mm512_setzero_ps();
#pragma GCC unroll 8
    for (int c = 0; c < FR_R128; c++) {
        const __m512 d = _mm512_sub_ps(xq[c], _mm512_loadu_ps(sr + 16 * c));
        de = _mm512_add_ps(de, _mm512_mul_ps(d, d));
        no = _mm512_add_ps(no, _mm512_mul_ps(xq[c], xq[c]));
    }
    float l[2][16];
    _mm512_storeu_ps(l[0], de);
    _mm512_storeu_ps(l[1], no);
    m->err2 += stepq_lanes16(l[0]);
    m->hat2 += stepq_lanes16(l[1]);
}

// row i of a cast format <- t (finite), as rc_f16_encode_row (saturating at +-65504, the
// conversion's round half to even), rc_bf16_encode_row (stepq_f32_to_bf16's rounding on the
// bits; finite, so no NaN case) or the float32 row; m += its sums against row i of S_ref
FR_INLINE void cast128_encode(stepq_qstate* qs, const __m512* t, int i, const float* S_ref, stepq_qmeasure* m) {
    uint8_t* P = qs->packed + qs->row_off[i];
    const int e = qs->fmt->cast.element;
    __m512 xq[FR_R128];
#pragma GCC unroll 8
    for (int c = 0; c < FR_R128; c++) {
        if (e == STEPQ_ELEM_FP32) {
            _mm512_storeu_ps(P + 64 * c, t[c]);
            xq[c] = t[c];
        } else if (e == STEPQ_ELEM_FP16) {
            const __m512 v = _mm512_min_ps(_mm512_max_ps(t[c], _mm512_set1_ps(-STEPQ_FP16_MAX)), _mm512_set1_ps(STEPQ_FP16_MAX));
            const __m256i h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            _mm256_storeu_si256((__m256i*)(P + 32 * c), h);
            xq[c] = _mm512_cvtph_ps(h);
        } else {
            const __m512i u = _mm512_castps_si512(t[c]);
            const __m512i r = _mm512_srli_epi32(
                _mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7fff),
                                                     _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1)))),
                16);
            _mm256_storeu_si256((__m256i*)(P + 32 * c), _mm512_cvtepi32_epi16(r));
            xq[c] = _mm512_castsi512_ps(_mm512_slli_epi32(r, 16));
        }
    }
    if (S_ref) rows128_measure(m, xq, S_ref + (size_t)i * 128);
}

// a row of width b (a vector width) at P <- its scale rs.sh and the codes of t
// (rc_rows_encode_scaled's); xq (may be NULL) <- the decoded row s z
FR_INLINE void rows128_put(uint8_t* P, __m512* xq, const __m512* t, row128_scale rs, int b) {
    const float qmax = (float)STEPQ_QMAX(b);
    const __m512 vi = _mm512_set1_ps(rs.inv), lo = _mm512_set1_ps(-qmax), hi = _mm512_set1_ps(qmax);
    memcpy(P, &rs.sh, 2);
    __m512i z[FR_R128];
#pragma GCC unroll 8
    for (int c = 0; c < FR_R128; c++) z[c] = rs.inside ? rc_codes16_inside(t[c], vi) : rc_codes16(t[c], vi, lo, hi);
    if (xq) {
        const __m512 vs = _mm512_set1_ps(rc_f16_to_f32(rs.sh));
#pragma GCC unroll 8
        for (int c = 0; c < FR_R128; c++) xq[c] = _mm512_mul_ps(vs, _mm512_cvtepi32_ps(z[c]));
    }
    rc_pack64(P + 2, z, b, 1);
    rc_pack64(P + 2 + 8 * b, z + 4, b, 0);
}

// row i of the packed state <- encode(t); rs: its largest |t| and scale (write_rows128)
// S_ref (NULL: nothing measured): m += the row's sums of S_hat against row i of S_ref, in
// sums.h's lanes (lane k takes elements k, k + 16, ...: the vectors in order); xout (128, may be
// NULL) <- the decoded row (rotated back: DAMP)
FR_INLINE int rows128_encode(stepq_qstate* qs, const fr_ctx* h, const __m512* t, row128_scale rs, int i,
                             const float* S_ref, stepq_qmeasure* m, float* xout, int fam) {
    const uint32_t umax = rs.umax;
    if (umax > 0x7f7fffffu) return STEPQ_ERR;
    uint8_t* P = qs->packed + qs->row_off[i];
    const int b = qs->rows[i];
    const float* sr = S_ref ? S_ref + (size_t)i * 128 : NULL;
    if (!RC_SIMD_WIDTH(b)) {
        float x[128];
        fr_store128(x, t);
        return rows128_encode_other(qs, h, x, umax, i, sr, m, xout);
    }
    if (!sr && !xout) {
        rows128_put(P, NULL, t, rs, b);
        return STEPQ_OK;
    }
    __m512 xq[FR_R128];  // the decoded row (rotated back: DAMP)
    rows128_put(P, xq, t, rs, b);
    if (fr_rotated(fam)) rc_fwht128(xq);
    if (xout) fr_store128(xout, xq);
    if (sr) rows128_measure(m, xq, sr);
    return STEPQ_OK;
}

// the 16-row groups of the write passes: rows g .. g + n - 1 (n <= 16) updated (rows128_update_lanes)
// into buf, 128 floats a row; umax (16) <- their largest |x| as float bits, 0 past n; qmax (16,
// may be NULL) <- the largest code of each row's width (1 for widths the vector codecs do not
// take, which rows128_encode_other encodes, and past n)
FR_INLINE void rows128_update16(float* buf, uint32_t* umax, float* qmax, float* y, const stepq_qstate* qs,
                                const fr_ctx* h, const stepq_step_in* in, const float* decay, double scale, int g,
                                int n, int fam) {
    __m512 yv[FR_R128];
    __m512i lanes[16];
    fr_load128(yv, y);
    for (int r = 0; r < 16; r++) {
        if (r >= n) {
            lanes[r] = _mm512_setzero_si512();
            if (qmax) qmax[r] = 1.0f;
            continue;
        }
        __m512 t[FR_R128];
        lanes[r] = rows128_update_lanes(t, yv, qs, h, in, decay, scale, g + r, fam);
        if (qmax) {
            const int b = qs->rows[g + r];
            qmax[r] = RC_SIMD_WIDTH(b) ? (float)STEPQ_QMAX(b) : 1.0f;
        }
        fr_store128(buf + 128 * r, t);
    }
    fr_store128(y, yv);
    _mm512_storeu_si512(umax, max16x16(lanes));
}

// pass 2 of LeapQuant's row-local formats (encode_row's steps), 16 rows at a time as
// write_rows128: the rows updated into a buffer and their base scales computed side by side;
// each row's base codes, and its residual X - S_hat (left in the buffer) with its largest |x|;
// the residuals' scales side by side; their codes (or the FP32 oracle's floats). Measured:
// S_hat + alpha times the decoded residual against S_ref. Against the row functions (fastest of
// 7 alternating runs of one format's step): leap6-r4 15.6 -> 11.8 us (measured 19.4 -> 16.6),
// leap6-fp32 12.2 -> 9.7
FR_INLINE int write_leap128(stepq_qstate* qs, const fr_ctx* h, const stepq_step_in* in, const float* decay,
                            double scale, const float* S_ref, float* y, stepq_qmeasure* m, int fam) {
    const stepq_format* f = qs->fmt;
    const int rb = f->leap.residual_bits;
    const __m512 va = _mm512_set1_ps(f->leap.alpha);
    float buf[16 * 128] __attribute__((aligned(64))), base[16 * 128] __attribute__((aligned(64)));
    for (int g = 0; g < qs->K; g += 16) {
        const int n = qs->K - g < 16 ? qs->K - g : 16;
        uint32_t umax[16];
        float qmax[16];
        uint16_t sh[16];
        float inv[16];
        rows128_update16(buf, umax, NULL, y, qs, h, in, decay, scale, g, n, fam);
        for (int r = 0; r < 16; r++) {
            if (umax[r] > 0x7f7fffffu) return STEPQ_ERR;
            qmax[r] = (float)STEPQ_QMAX(f->width);
        }
        __mmask16 inside = rc_row_scales16(sh, inv, umax, qmax);
        for (int r = 0; r < n; r++) {  // the base row, then the residual in the buffer
            __m512 t[FR_R128], xq[FR_R128];
            float* row = buf + 128 * r;
            fr_load128(t, row);
            rows128_put(qs->packed + qs->row_off[g + r], xq, t, row128_scale_of(umax, sh, inv, inside, r), f->width);
#pragma GCC unroll 8
            for (int c = 0; c < FR_R128; c++) {
                t[c] = _mm512_sub_ps(t[c], xq[c]);
                _mm512_store_ps(row + 16 * c, t[c]);
                if (S_ref) _mm512_store_ps(base + 128 * r + 16 * c, xq[c]);
            }
            umax[r] = rows128_absmax(t);
            if (rb != 32 && umax[r] > 0x7f7fffffu) return STEPQ_ERR;  // rc_rows_encode_row's finite check
        }
        if (rb != 32) {
            for (int r = 0; r < 16; r++) qmax[r] = (float)STEPQ_QMAX(rb);
            inside = rc_row_scales16(sh, inv, umax, qmax);
        }
        for (int r = 0; r < n; r++) {
            __m512 t[FR_R128], d[FR_R128];
            uint8_t* R = qs->packed + h->res + (size_t)(g + r) * h->res_row;
            fr_load128(t, buf + 128 * r);
            if (rb == 32) {
#pragma GCC unroll 8
                for (int c = 0; c < FR_R128; c++) _mm512_storeu_ps(R + 64 * c, t[c]), d[c] = t[c];
            } else {
                rows128_put(R, S_ref ? d : NULL, t, row128_scale_of(umax, sh, inv, inside, r), rb);
            }
            if (!S_ref) continue;
#pragma GCC unroll 8
            for (int c = 0; c < FR_R128; c++) d[c] = _mm512_add_ps(_mm512_load_ps(base + 128 * r + 16 * c), _mm512_mul_ps(va, d[c]));
            rows128_measure(m, d, S_ref + (size_t)(g + r) * 128);
        }
    }
    return STEPQ_OK;
}

// pass 2, 16 rows at a time: each row updated and left in a buffer of 16 rows (8 KB, in L1),
// then the 16 rows' scales computed side by side (rc_row_scales16), then each row encoded from
// the buffer. A row's scale is a serial chain (its maximum reduced across lanes, a division,
// the FP16 round trip, a division) that the codes wait for; one vector chain for 16 rows costs
// less than the buffer's stores and loads. Against a row kept in registers from its decode to
// its encode, one row updated ahead of the one encoded (the fastest of 11 alternating runs of
// one format's unmeasured step): INT8 4.88 -> 4.59 us, INT6 5.88 -> 5.58, INT4 5.80 -> 5.49,
// DAMP 12.9 -> 12.4; the measured step within 2% either way. The read-out y (zero from
// qstep_write) is summed in registers over a group's rows (over the whole head in the cast
// and whole-head passes), in the same order as in memory: the float32 format's step 2.78 ->
// 2.24 us, FP16, LeapQuant, NVFP4 and DAMP 1-3% faster, INT8 and INT6 about 1%, the rest within
// noise (fastest of 7-11 alternating runs). fam: ROWS or DAMP; CAST (no scale: each row encoded
// right after its update) and LEAP (write_leap128) branch off first. X_pre (K,V; NULL but for
// the rows family, qstep_write_keep) <- X_t, each group's rows as they leave the update, and
// qs->X <- S_hat_t, each row decoded as it is encoded (rows whose read-pass rows qs->xd, in X,
// the group has already read)
FR_INLINE int write_rows128(stepq_qstate* qs, const fr_ctx* h, const stepq_step_in* in,
                            const float* decay, double scale, const float* S_ref, float* y,
                            stepq_qmeasure* m, float* X_pre, int fam) {
    if (fr_pass128(fam) == FR_PASS_CAST) {  // no scale: each row encoded right after its update
        // the rows' |x| bits kept lane by lane and reduced once: a step with a non-finite row fails
        // after its last row rather than at that row (what it left in the state is not read).
        // Against a reduction and branch per row (AMD Zen 4, one thread, the fastest of 5 runs,
        // three alternating pairs): FP32 2502 -> 2362, 2939 -> 2674, 2922 -> 2677 ns; BF16 3696 ->
        // 3409, FP16 3844 -> 3474
        __m512 yv[FR_R128];
        __m512i lanes = _mm512_setzero_si512();
        fr_load128(yv, y);
        for (int i = 0; i < qs->K; i++) {
            __m512 t[FR_R128];
            lanes = _mm512_max_epu32(lanes, rows128_update_lanes(t, yv, qs, h, in, decay, scale, i, fam));
            cast128_encode(qs, t, i, S_ref, m);
        }
        fr_store128(y, yv);
        return _mm512_reduce_max_epu32(lanes) > 0x7f7fffffu ? STEPQ_ERR : STEPQ_OK;
    }
    if (fr_pass128(fam) == FR_PASS_RESIDUAL) return write_leap128(qs, h, in, decay, scale, S_ref, y, m, fam);
    float buf[16 * 128] __attribute__((aligned(64)));
    for (int g = 0; g < qs->K; g += 16) {
        const int n = qs->K - g < 16 ? qs->K - g : 16;
        uint32_t umax[16];
        float qmax[16];
        uint16_t sh[16];
        float inv[16];
        rows128_update16(buf, umax, qmax, y, qs, h, in, decay, scale, g, n, fam);
        if (X_pre) memcpy(X_pre + (size_t)g * 128, buf, sizeof(float) * 128 * n);
        const __mmask16 inside = rc_row_scales16(sh, inv, umax, qmax);
        for (int r = 0; r < n; r++) {
            __m512 t[FR_R128];
            fr_load128(t, buf + 128 * r);
            if (rows128_encode(qs, h, t, row128_scale_of(umax, sh, inv, inside, r), g + r, S_ref, m,
                               X_pre ? qs->X + (size_t)(g + r) * 128 : NULL, fam) != STEPQ_OK)
                return STEPQ_ERR;
        }
    }
    return STEPQ_OK;
}

// pass 2 of a whole-head format's 128-wide rows (DUAL, NVFP4, FP8TILE, SR): X <- the updated state, row by
// row in registers (rows128_update_lanes), *head_umax <- its largest |x| as float bits
FR_INLINE void write_head128(stepq_qstate* qs, const fr_ctx* h, const stepq_step_in* in, const float* decay,
                             double scale, float* y, uint32_t* head_umax, int fam) {
    __m512 t[FR_R128], yv[FR_R128];
    __m512i m = _mm512_setzero_si512();  // the rows' lanes, reduced once
    fr_load128(yv, y);
    for (int i = 0; i < qs->K; i++) {
        m = _mm512_max_epu32(m, rows128_update_lanes(t, yv, qs, h, in, decay, scale, i, fam));
        fr_store128(qs->X + (size_t)i * 128, t);
    }
    fr_store128(y, yv);
    const uint32_t umax = _mm512_reduce_max_epu32(m);
    *head_umax = umax > *head_umax ? umax : *head_umax;
}
#endif

// the formats the fused passes leave to the reference protocol: the replay variant (its state
// between re-encodes is a float32 state)
static int fused(const stepq_format* f) {
    return f->replay == 0;
}

#if defined(STEPQ_RC_AVX512)
// whether the read pass keeps its rows D S_hat_{t-1} in X for the write pass (qs->xd): 64 KiB
// stored and loaded again instead of each row decoded and decayed twice, which pays for every
// format but the float32 cast, whose decode is a load (its fused step 2.74 -> 3.62 us with
// them kept). Medians of three alternating runs of `stepq bench --quick --threads 1` (the
// other core busy), without and with: INT8 4.29 -> 4.07 us, INT6 5.18 -> 4.47, INT4 4.99 ->
// 4.35, time6 5.21 -> 4.50, DAMP 10.13 -> 7.81, DSQ6 11.84 -> 10.92, STEPQuant@6 18.07 -> 16.82,
// NVFP4 11.10 -> 9.59, FP8 tiles 12.56 -> 10.22, leap6-r4 11.90 -> 8.60, FP16 3.63 -> 3.51,
// FP16 with stochastic rounding 14.09 -> 14.58 (the one slower), the float32 step 2.87 beside.
// LeapQuant with its freeze gate on writes through the row functions (qstep_write_fused), which
// decode from the packed bytes: nothing kept for it.
static int keeps_xd(const stepq_format* f) {
    if (f->family == &stepq_family_cast && f->cast.element == STEPQ_ELEM_FP32) return 0;
    return !(fr_locality(f->family->id) == FR_GATED && !row_local(f));
}
#endif

static void qstep_read(stepq_qstate* qs, const stepq_step_in* in, const float* decay,
                       const double* grad, const float* S_prev, float* pred) {
    if (!fused(qs->fmt)) {
        stepq_ref_read(qs, in, decay, grad, S_prev, pred);
        return;
    }
    const int V = qs->V;
    float acc[STEPQ_MAX_DIM];
    fr_ctx h;
    load_ctx(&h, qs);
    for (int j = 0; j < V; j++) acc[j] = 0;
    if (pred)
        for (int j = 0; j < V; j++) pred[j] = 0;
    // the paper's 128-wide rows get loops of a known length (unrolled, acc kept in registers)
#define READ(fam, name)                                                                              \
    (V == 128 ? read_rows(qs, &h, in, decay, grad, S_prev, pred, acc, fam, 128)                  \
              : read_rows(qs, &h, in, decay, grad, S_prev, pred, acc, fam, V))
#if defined(STEPQ_RC_AVX512)
    const int xd = keeps_xd(qs->fmt);
#define READ128(fam, name) read_rows128(qs, &h, in, decay, grad, S_prev, pred, acc, xd ? qs->X : NULL, fam)
    if (V == 128 && regs128(qs->fmt)) {
        STEPQ_DISPATCH_FAMILY(qs->fmt->family->id, READ128)
        qs->xd = xd;
    } else
#undef READ128
#endif
        STEPQ_DISPATCH_FAMILY(qs->fmt->family->id, READ)
#undef READ
    for (int j = 0; j < V; j++) qs->u[j] = in->beta * (in->v[j] - acc[j]);
}

// x <- D x + k u^T for one row, y += q x; returns the largest |x| as float bits (NaN and Inf
// above FLT_MAX's)
FR_INLINE uint32_t update_row(float* restrict x, float* restrict y, const float* restrict u, float d,
                              float ki, float qi, int V) {
    uint32_t umax = 0;
    for (int j = 0; j < V; j++) {
        float t = x[j] * d;
        t += ki * u[j];
        x[j] = t;
        y[j] += qi * t;
        uint32_t a = stepq_f32_bits(t) & 0x7fffffffu;
        umax = a > umax ? a : umax;
    }
    return umax;
}

// pass 2 over the rows of one family: m += the measure of S_hat against S_ref; for a format
// encoded as a whole head (!local), X <- the updated state and *head_umax <- its largest |x|
// as float bits; for LeapQuant's freeze gating freeze[0, 1] += ||X - S_prev||^2, ||S_prev||^2
// (rc_leap_gate_sums, row after row: leap_encode's order)
FR_INLINE int write_rows(stepq_qstate* qs, const fr_ctx* h, const stepq_step_in* in,
                         const float* decay, double scale, const float* S_ref, float* y,
                         stepq_qmeasure* m, uint32_t* head_umax, double* freeze, int fam, int local, int V) {
    const int K = qs->K, gate = fr_locality(fam) == FR_GATED && !local;  // LeapQuant's freeze gate
    float x[2][STEPQ_MAX_DIM], xq[STEPQ_MAX_DIM], u[STEPQ_MAX_DIM], prev[STEPQ_MAX_DIM];
    uint32_t umax[2] = {0, 0};
    memcpy(u, qs->u, sizeof(float) * V);
    // one row ahead: row i is decoded and updated before row i - 1 is encoded, so that the
    // encoder's scalar chain (reduce, divide, round the row's scale) runs beside the next row's
    // vector work. Each row meets the same operations, and every sum its rows in order.
    for (int i = 0; i <= K; i++) {
        if (i < K) {
            float* cur = local ? x[i & 1] : qs->X + (size_t)i * V;  // a head's rows: in X
            fr_decode_row(cur, qs, h, i, fam, V);
            if (gate) memcpy(prev, cur, sizeof(float) * V);  // S_prev's row
            umax[i & 1] = update_row(cur, y, u, decay[i], in->k[i], (float)scale * in->q[i], V);
            if (!local) *head_umax = umax[i & 1] > *head_umax ? umax[i & 1] : *head_umax;
            if (gate) rc_leap_gate_sums(freeze, cur, prev, (size_t)V);
        }
        if (!local || i == 0) continue;
        const int r = i - 1;
        if (umax[r & 1] > 0x7f7fffffu ||
            fr_encode_row(qs, h, S_ref ? xq : NULL, x[r & 1], r, umax[r & 1], fam, V) != STEPQ_OK)
            return STEPQ_ERR;
        if (S_ref) {
            m->err2 += stepq_sq_dist_row(xq, S_ref + (size_t)r * V, V);
            m->hat2 += stepq_sq_norm_row(xq, V);
        }
    }
    return STEPQ_OK;
}

static int qstep_write_fused(stepq_qstate* qs, const stepq_step_in* in, const float* decay, double scale,
                             const float* S_ref, float* y, stepq_qmeasure* out);
static int qstep_write(stepq_qstate* qs, const stepq_step_in* in, const float* decay, double scale,
                       int n_gates, const float* S_ref, float* y, stepq_qmeasure* out) {
    if (!fused(qs->fmt)) return stepq_ref_write(qs, in, decay, scale, n_gates, S_ref, y, out);
    const int rc = qstep_write_fused(qs, in, decay, scale, S_ref, y, out);
    qs->xd = 0;  // the read pass's rows are this step's
    return rc;
}

// the normal protocol keeping X_t in X_pre and S_hat_t in qs->X (STEPQ_NEED_STATES), after this
// table's read: the 128-wide rows of FR_KEEP128 (famrows.h: the rows family) through
// write_rows128 on AVX-512 (X_t as each group leaves the update, S_hat_t as each row is
// encoded), every other format by the reference's step from S_hat_{t-1}, decoded again where
// the read pass left its rows D S_hat_{t-1} in X (qs->xd). Against the reference's keep, which every format took before:
// the halflife driver on INT6 (gdn-qwen-like layer 0, 48 heads, 2048 + 2048 steps, one thread;
// user time, three alternating runs) 6.11, 5.49, 6.57 -> 4.04, 3.80, 4.47 s, 1.47x
static int qstep_write_keep(stepq_qstate* qs, const stepq_step_in* in, const float* decay, double scale,
                            int n_gates, float* y, float* X_pre) {
#if defined(STEPQ_RC_AVX512)
    if (fused(qs->fmt) && qs->V == 128 && qs->fmt->family->id == FR_KEEP128 && regs128(qs->fmt)) {
        fr_ctx h;
        load_ctx(&h, qs);
        for (int j = 0; j < 128; j++) y[j] = 0;
        const int rc = write_rows128(qs, &h, in, decay, scale, NULL, y, NULL, X_pre, FR_KEEP128);
        qs->xd = 0;
        return rc;
    }
#endif
    if (qs->xd) stepq_qstate_decode(qs, qs->X);  // S_hat_{t-1}
    qs->xd = 0;
    return stepq_ref_write_keep(qs, in, decay, scale, n_gates, y, X_pre);
}

static int qstep_write_fused(stepq_qstate* qs, const stepq_step_in* in, const float* decay, double scale,
                             const float* S_ref, float* y, stepq_qmeasure* out) {
    const int K = qs->K, V = qs->V, local = row_local(qs->fmt);
    fr_ctx h;
    load_ctx(&h, qs);
    stepq_qmeasure m = {0, 0};
    uint32_t umax = 0;
    double freeze[2] = {0, 0};
    for (int j = 0; j < V; j++) y[j] = 0;
    int rc = STEPQ_ERR;
    // a family's rows encoded row by row as they are updated (loc) or as a head after the pass
#define WRITE_OF(fam, name)                                                                      \
    rc = fr_locality(fam) == FR_ROWWISE || (fr_locality(fam) == FR_GATED && local) ? WRITE(fam, 1) : WRITE(fam, 0)
#define WRITE(fam, loc)                                                                          \
    (V == 128 ? write_rows(qs, &h, in, decay, scale, S_ref, y, &m, &umax, freeze, fam, loc, 128) \
              : write_rows(qs, &h, in, decay, scale, S_ref, y, &m, &umax, freeze, fam, loc, V))
#if defined(STEPQ_RC_AVX512)
#define WRITE128(fam) write_rows128(qs, &h, in, decay, scale, S_ref, y, &m, NULL, fam)
    // the whole-head families' rows updated into X (encoded below); LeapQuant with its freeze
    // gate through the row functions (the gate's sums), without it as the others
#define WRITE128_OF(fam, name)                                                                   \
    if (fr_pass128(fam) == FR_PASS_HEAD) write_head128(qs, &h, in, decay, scale, y, &umax, fam), rc = STEPQ_OK; \
    else if (fr_locality(fam) == FR_GATED && !local) rc = WRITE(fam, 0);                        \
    else rc = WRITE128(fam)
    if (V == 128 && regs128(qs->fmt)) {
        STEPQ_DISPATCH_FAMILY(qs->fmt->family->id, WRITE128_OF)
    } else
#undef WRITE128_OF
#undef WRITE128
#endif
        STEPQ_DISPATCH_FAMILY(qs->fmt->family->id, WRITE_OF)
#undef WRITE_OF
#undef WRITE
    if (rc != STEPQ_OK) return STEPQ_ERR;
    if (!local) {
        if (encode_head(qs, &h, umax, freeze) != STEPQ_OK) return STEPQ_ERR;
        if (S_ref) {
            float xq[STEPQ_MAX_DIM];
            load_ctx(&h, qs);
#define DECODE_OF(fam, name) \
    if (fr_locality(fam) != FR_ROWWISE) fr_decode_row(xq, qs, &h, i, fam, V)
            for (int i = 0; i < K; i++) {
                STEPQ_DISPATCH_FAMILY(qs->fmt->family->id, DECODE_OF)
                m.err2 += stepq_sq_dist_row(xq, S_ref + (size_t)i * V, V);
                m.hat2 += stepq_sq_norm_row(xq, V);
            }
#undef DECODE_OF
        }
    }
    if (S_ref) *out = m;
    return STEPQ_OK;
}

// the calibration's round trips (backend.h): the codecs of quant/dual.c and quant/rows.c
// compiled for this table's instruction set (the dual-axis fit with V known for the paper's
// rows), the same operations, so the same bytes and values (test_kernels)
static int dual_roundtrip(float* Xh, uint8_t* P, const float* X, const stepq_head_plan* hp, int dsq,
                          float* work, int K, int V) {
    if (!rc_all_finite(X, (size_t)K * V)) return STEPQ_ERR;
    if (V == 128) fr_df_encode_finite128(P, X, hp, dsq, work, K);
    else df_encode_finite(P, X, hp, dsq, work, K, V);
    df_decode_head(Xh, P, hp, K, V);
    return STEPQ_OK;
}

static int rows_roundtrip(float* Xh, uint8_t* P, const float* X, const uint8_t* bits, int K, int V) {
    for (int i = 0; i < K; i++) {
        if (rc_row_encode(P, NULL, X + (size_t)i * V, bits[i], V) != STEPQ_OK) return STEPQ_ERR;
        rc_row_decode(Xh + (size_t)i * V, P, bits[i], V);
        P += STEPQ_ROW_BYTES(bits[i], V);
    }
    return STEPQ_OK;
}

const stepq_backend STEPQ_KERNELS_NAME = {
    .name = STEPQ_KERNELS_LABEL,
    .isa = STEPQ_KERNELS_LEVEL,
    .step = step_f32,
    .propagate = propagate,
    .error_step = error_step,
    .read = qstep_read,
    .write = qstep_write,
    .write_keep = qstep_write_keep,
    .write_cut = stepq_ref_write_cut,
    .write_rows = stepq_ref_write_rows,
    .dual_roundtrip = dual_roundtrip,
    .rows_roundtrip = rows_roundtrip,
    .run_heads = stepq_cpu_run_heads,
    .step_norm = step_norm_f32,
    .matvec = matvec,
};

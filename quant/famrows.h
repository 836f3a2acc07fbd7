// famrows.h: each family's codecs over the rows of one head's packed state (qstate.h), for the
// fused decode step (sim/kernels.c), which includes this header in its builds for every
// instruction set. A family's functions are fr_<name>_*, <name> from STEPQ_FAMILIES
// (format.h); the dispatchers (fr_decode_row, ...) are generated from that list and take the
// family id as a constant at every call site, so each family's loop is a loop of its own and
// the kernels' passes are written once for all. They are the same operations as the family's
// encoder and decoder in quant/<family>.c (rowcodec.h, dualfit.h), so the same bytes and values
// (test_kernels compares them with the reference protocol).
//
// Per family:
//   FR_LOCALITY_<name>   how its encoder walks a head: FR_ROWWISE (row by row), FR_WHOLE (it
//                        needs the whole head), FR_GATED (row by row, but the whole head when
//                        its freeze gate is on: the gate sums the step's change over the head)
//   FR_PASS128_<name>    the AVX-512 write pass of its 128-wide rows: FR_PASS_CAST (no scale,
//                        each row encoded after its update), FR_PASS_SCALED (a scale per row,
//                        16 rows' scales side by side), FR_PASS_RESIDUAL (a base row and its
//                        residual), FR_PASS_HEAD (the rows updated into X, encoded as a head)
//   FR_ROTATED_<name>    1 if its coded rows are Walsh-Hadamard rotated along V
//   fr_<name>_ctx        what a step needs of the head besides its rows (fr_ctx)
//   fr_<name>_local      1 when this format's encoder works row by row
//   fr_<name>_decode_row x (V) <- row i of S_hat
//   fr_<name>_encode_row row i <- encode(x) (row-wise families; the others refuse)
//   fr_<name>_encode_head the head <- encode(X) (whole-head families; the others: the table's)
//   fr_<name>_regs128, fr_<name>_decode128 (AVX-512): whether its 128-wide rows take the
//                        register passes, and a row decoded into 8 vectors
#ifndef STEPQ_FAMROWS_H
#define STEPQ_FAMROWS_H

#include <string.h>

#include "dualfit.h"
#include "qstate.h"
#include "rowcodec.h"

#define FR_INLINE static inline __attribute__((always_inline))

enum { FR_ROWWISE, FR_WHOLE, FR_GATED };
enum { FR_PASS_CAST, FR_PASS_SCALED, FR_PASS_RESIDUAL, FR_PASS_HEAD };

#define FR_LOCALITY_cast FR_ROWWISE
#define FR_LOCALITY_rows FR_ROWWISE
#define FR_LOCALITY_damp FR_ROWWISE
#define FR_LOCALITY_dual FR_WHOLE
#define FR_LOCALITY_nvfp4 FR_WHOLE
#define FR_LOCALITY_leap FR_GATED
#define FR_LOCALITY_fp8tile FR_WHOLE
#define FR_LOCALITY_sr FR_WHOLE

#define FR_PASS128_cast FR_PASS_CAST
#define FR_PASS128_rows FR_PASS_SCALED
#define FR_PASS128_damp FR_PASS_SCALED
#define FR_PASS128_dual FR_PASS_HEAD
#define FR_PASS128_nvfp4 FR_PASS_HEAD
#define FR_PASS128_leap FR_PASS_RESIDUAL
#define FR_PASS128_fp8tile FR_PASS_HEAD
#define FR_PASS128_sr FR_PASS_HEAD

#define FR_ROTATED_cast 0
#define FR_ROTATED_rows 0
#define FR_ROTATED_damp 1
#define FR_ROTATED_dual 0
#define FR_ROTATED_nvfp4 0
#define FR_ROTATED_leap 0
#define FR_ROTATED_fp8tile 0
#define FR_ROTATED_sr 0

// the rows family's row encoder takes any scaled row (a code width, or an FP16 pivot): the
// register passes send it the rows of other widths
#define FR_SCALED_ROWS STEPQ_FAMILY_ROWS
// the one family whose keep path (X_t kept beside S_hat_t, STEPQ_NEED_STATES) takes the register
// passes (write_rows128 with X_pre); the others keep by the reference's step
#define FR_KEEP128 STEPQ_FAMILY_ROWS

#define FR_TRAIT_(trait, name) return FR_##trait##_##name
#define FR_LOCALITY_OF_(fam, name) FR_TRAIT_(LOCALITY, name)
#define FR_PASS128_OF_(fam, name) FR_TRAIT_(PASS128, name)
#define FR_ROTATED_OF_(fam, name) FR_TRAIT_(ROTATED, name)
FR_INLINE int fr_locality(int fam) {
    STEPQ_DISPATCH_FAMILY(fam, FR_LOCALITY_OF_)
    return FR_WHOLE;
}
FR_INLINE int fr_pass128(int fam) {
    STEPQ_DISPATCH_FAMILY(fam, FR_PASS128_OF_)
    return FR_PASS_HEAD;
}
FR_INLINE int fr_rotated(int fam) {
    STEPQ_DISPATCH_FAMILY(fam, FR_ROTATED_OF_)
    return 0;
}

// what a step needs of the head besides its rows: the dual layout's column factors, NVFP4's
// head scale, LeapQuant's residual region
typedef struct {
    float c[STEPQ_MAX_DIM];
    float s_head;
    size_t res;        // LeapQuant: where the residual rows start
    size_t res_row;    // and the bytes of one residual row (the FP32 oracle: V floats)
} fr_ctx;

// FP8 tiles: where the float32 scale of row i's tile is stored (the 4 bytes before the tile's
// first row)
static inline uint8_t* fr_tile_scale_at(const stepq_qstate* qs, int i) {
    return qs->packed + qs->row_off[i - i % STEPQ_FP8_TILE] - 4;
}

// ---------------------------------------------------------------------------------------------
// fr_<name>_ctx

FR_INLINE void fr_cast_ctx(fr_ctx* h, const stepq_qstate* qs) {}
FR_INLINE void fr_rows_ctx(fr_ctx* h, const stepq_qstate* qs) {}
FR_INLINE void fr_damp_ctx(fr_ctx* h, const stepq_qstate* qs) {}
FR_INLINE void fr_dual_ctx(fr_ctx* h, const stepq_qstate* qs) {
    df_columns(h->c, qs->packed, &qs->hp, qs->K, qs->V);
}
FR_INLINE void fr_nvfp4_ctx(fr_ctx* h, const stepq_qstate* qs) { memcpy(&h->s_head, qs->packed, 4); }
FR_INLINE void fr_leap_ctx(fr_ctx* h, const stepq_qstate* qs) {
    stepq_format_residual(&h->res, &h->res_row, qs->fmt, qs->K, qs->V);
}
FR_INLINE void fr_fp8tile_ctx(fr_ctx* h, const stepq_qstate* qs) {}
FR_INLINE void fr_sr_ctx(fr_ctx* h, const stepq_qstate* qs) {}

// ---------------------------------------------------------------------------------------------
// fr_<name>_local

FR_INLINE int fr_leap_local(const stepq_format* f) { return !stepq_format_freeze_gated(f); }
#define FR_LOCAL_BY_TRAIT_(name)                                         \
    FR_INLINE int fr_##name##_local(const stepq_format* f) { return FR_LOCALITY_##name == FR_ROWWISE; }
FR_LOCAL_BY_TRAIT_(cast)
FR_LOCAL_BY_TRAIT_(rows)
FR_LOCAL_BY_TRAIT_(damp)
FR_LOCAL_BY_TRAIT_(dual)
FR_LOCAL_BY_TRAIT_(nvfp4)
FR_LOCAL_BY_TRAIT_(fp8tile)
FR_LOCAL_BY_TRAIT_(sr)

// ---------------------------------------------------------------------------------------------
// fr_<name>_decode_row: x (V) <- row i of the stored state S_hat

FR_INLINE void fr_cast_decode_row(float* x, const stepq_qstate* qs, const fr_ctx* h, int i, int V) {
    const stepq_format* f = qs->fmt;
    const uint8_t* P = qs->packed + qs->row_off[i];
    if (f->cast.element == STEPQ_ELEM_FP32) memcpy(x, P, sizeof(float) * V);
    else if (f->cast.element == STEPQ_ELEM_FP16) rc_f16_decode_row(x, P, V);
    else rc_bf16_decode_row(x, P, V);
}
FR_INLINE void fr_rows_decode_row(float* x, const stepq_qstate* qs, const fr_ctx* h, int i, int V) {
    rc_row_decode(x, qs->packed + qs->row_off[i], qs->rows[i], V);
}
FR_INLINE void fr_damp_decode_row(float* x, const stepq_qstate* qs, const fr_ctx* h, int i, int V) {
    const int b = qs->rows[i];
    rc_row_decode(x, qs->packed + qs->row_off[i], b, V);
    if (b != STEPQ_PIVOT_BITS) rc_fwht(x, V);
}
FR_INLINE void fr_dual_decode_row(float* x, const stepq_qstate* qs, const fr_ctx* h, int i, int V) {
    df_decode_row(x, qs->packed + qs->row_off[i], h->c, &qs->hp, i, V);
}
FR_INLINE void fr_nvfp4_decode_row(float* x, const stepq_qstate* qs, const fr_ctx* h, int i, int V) {
    rc_nvfp4_decode_row(x, qs->packed + qs->row_off[i], h->s_head, V);
}
FR_INLINE void fr_leap_decode_row(float* x, const stepq_qstate* qs, const fr_ctx* h, int i, int V) {
    // the base row, plus alpha times its residual
    const stepq_format* f = qs->fmt;
    float d[STEPQ_MAX_DIM];
    const uint8_t* R = qs->packed + h->res + (size_t)i * h->res_row;
    rc_rows_decode_row(x, qs->packed + qs->row_off[i], f->width, V);
    if (f->leap.residual_bits == 32) memcpy(d, R, sizeof(float) * V);
    else rc_rows_decode_row(d, R, f->leap.residual_bits, V);
    for (int j = 0; j < V; j++) x[j] += f->leap.alpha * d[j];
}
FR_INLINE void fr_fp8tile_decode_row(float* x, const stepq_qstate* qs, const fr_ctx* h, int i, int V) {
    float s;
    memcpy(&s, fr_tile_scale_at(qs, i), 4);
    rc_fp8_decode(x, qs->packed + qs->row_off[i], s, (size_t)V);
}
FR_INLINE void fr_sr_decode_row(float* x, const stepq_qstate* qs, const fr_ctx* h, int i, int V) {
    rc_sr_decode_row(x, qs->packed, qs->fmt->sr.element, i, V);
}

// ---------------------------------------------------------------------------------------------
// fr_<name>_encode_row: row i of P <- encode(x) for a row-wise format, x finite with absmax bits
// umax; xq (V) <- the decoded row, or NULL when nothing measures it (serving): the bytes are the
// same either way; STEPQ_ERR on NaN/Inf (a residual can overflow)

FR_INLINE int fr_cast_encode_row(stepq_qstate* qs, const fr_ctx* h, float* xq, const float* x, int i,
                                 uint32_t umax, int V) {
    const stepq_format* f = qs->fmt;
    uint8_t* P = qs->packed + qs->row_off[i];
    if (f->cast.element == STEPQ_ELEM_FP16) return rc_f16_encode_row(P, xq, x, V);
    if (f->cast.element == STEPQ_ELEM_BF16) rc_bf16_encode_row(P, xq, x, V);
    else {
        memcpy(P, x, sizeof(float) * V);
        if (xq) memcpy(xq, x, sizeof(float) * V);
    }
    return STEPQ_OK;
}
FR_INLINE int fr_rows_encode_row(stepq_qstate* qs, const fr_ctx* h, float* xq, const float* x, int i,
                                 uint32_t umax, int V) {
    uint8_t* P = qs->packed + qs->row_off[i];
    const int b = qs->rows[i];
    if (b == STEPQ_PIVOT_BITS) return rc_f16_encode_row(P, xq, x, V);
    rc_rows_encode_scaled(P, xq, x, rc_row_scale(stepq_bits_f32(umax), (float)STEPQ_QMAX(b)), b, V);
    return STEPQ_OK;
}
FR_INLINE int fr_damp_encode_row(stepq_qstate* qs, const fr_ctx* h, float* xq, const float* x, int i,
                                 uint32_t umax, int V) {
    uint8_t* P = qs->packed + qs->row_off[i];
    const int b = qs->rows[i];
    float t[STEPQ_MAX_DIM];
    if (b == STEPQ_PIVOT_BITS) return rc_f16_encode_row(P, xq, x, V);
    memcpy(t, x, sizeof(float) * V);
    rc_fwht(t, V);
    if (rc_rows_encode_row(P, xq, t, b, V) != STEPQ_OK) return STEPQ_ERR;
    if (xq) rc_fwht(xq, V);
    return STEPQ_OK;
}
FR_INLINE int fr_leap_encode_row(stepq_qstate* qs, const fr_ctx* h, float* xq, const float* x, int i,
                                 uint32_t umax, int V) {
    // base row, then the residual of what it stored
    const stepq_format* f = qs->fmt;
    uint8_t* P = qs->packed + qs->row_off[i];
    uint8_t* R = qs->packed + h->res + (size_t)i * h->res_row;
    float t[STEPQ_MAX_DIM];
    float base[STEPQ_MAX_DIM];  // the residual needs the decoded base row
    if (!xq) xq = base;
    rc_rows_encode_scaled(P, xq, x, rc_row_scale(stepq_bits_f32(umax), (float)STEPQ_QMAX(f->width)),
                          f->width, V);
    for (int j = 0; j < V; j++) t[j] = x[j] - xq[j];
    float d[STEPQ_MAX_DIM];
    if (f->leap.residual_bits == 32) memcpy(R, t, sizeof(float) * V), memcpy(d, t, sizeof(float) * V);
    else if (rc_rows_encode_row(R, d, t, f->leap.residual_bits, V) != STEPQ_OK) return STEPQ_ERR;
    for (int j = 0; j < V; j++) xq[j] += f->leap.alpha * d[j];
    return STEPQ_OK;
}
#define FR_NO_ROW_ENCODER_(name)                                                                  \
    FR_INLINE int fr_##name##_encode_row(stepq_qstate* qs, const fr_ctx* h, float* xq, const float* x, \
                                         int i, uint32_t umax, int V) {                           \
        stepq_assert(!"not a row-local format");                                                  \
        return STEPQ_ERR;                                                                         \
    }
FR_NO_ROW_ENCODER_(dual)
FR_NO_ROW_ENCODER_(nvfp4)
FR_NO_ROW_ENCODER_(fp8tile)
FR_NO_ROW_ENCODER_(sr)

// ---------------------------------------------------------------------------------------------
// fr_<name>_encode_head: P <- encode(X) of a format whose encoder needs the whole head, X
// finite (umax: its largest |x| as float bits, which the write pass found); freeze:
// LeapQuant's ||X - S_prev||^2 and ||S_prev||^2, which it summed too

// the dual-axis fit of the paper's 128-wide rows, every function of it inlined with V known
__attribute__((flatten, unused)) static void fr_df_encode_finite128(uint8_t* P, const float* X,
                                                                    const stepq_head_plan* hp, int dsq,
                                                                    float* work, int K) {
    df_encode_finite(P, X, hp, dsq, work, K, 128);
}

FR_INLINE int fr_leap_encode_head(stepq_qstate* qs, const fr_ctx* h, uint32_t umax, const double* freeze) {
    // with freeze gating: leap_encode's steps, its rows as a row-local LeapQuant's
    const int K = qs->K, V = qs->V;
    if (rc_leap_keeps(freeze, qs->fmt->leap.tau)) return STEPQ_OK;
    for (int i = 0; i < K; i++) {
        const float* x = qs->X + (size_t)i * V;
        if (fr_leap_encode_row(qs, h, NULL, x, i, rc_absmax_bits(x, V), V) != STEPQ_OK) return STEPQ_ERR;
    }
    return STEPQ_OK;
}
FR_INLINE int fr_dual_encode_head(stepq_qstate* qs, const fr_ctx* h, uint32_t umax, const double* freeze) {
    // df_encode_head past its finite check
    const int K = qs->K, V = qs->V;
    if (V == 128) fr_df_encode_finite128(qs->packed, qs->X, &qs->hp, qs->fmt->dual.dsq, qs->work, K);
    else df_encode_finite(qs->packed, qs->X, &qs->hp, qs->fmt->dual.dsq, qs->work, K, V);
    return STEPQ_OK;
}
FR_INLINE int fr_sr_encode_head(stepq_qstate* qs, const fr_ctx* h, uint32_t umax, const double* freeze) {
    rc_sr_encode_head(qs->packed, qs->X, qs->fmt->sr.element, qs->K, qs->V, qs->work);  // sr_encode's steps
    return STEPQ_OK;
}
FR_INLINE int fr_fp8tile_encode_head(stepq_qstate* qs, const fr_ctx* h, uint32_t umax, const double* freeze) {
    const int K = qs->K, V = qs->V;
    for (int t = 0; t < K; t += STEPQ_FP8_TILE)  // tile_encode's steps
        rc_fp8_encode_tile(fr_tile_scale_at(qs, t), qs->X + (size_t)t * V,
                           (size_t)(K - t < STEPQ_FP8_TILE ? K - t : STEPQ_FP8_TILE) * V);
    return STEPQ_OK;
}
FR_INLINE int fr_nvfp4_encode_head(stepq_qstate* qs, const fr_ctx* h, uint32_t umax, const double* freeze) {
    float s_head = stepq_bits_f32(umax) / (6.0f * 448.0f);  // rc_absmax(X)
    memcpy(qs->packed, &s_head, 4);
    rc_nvfp4_encode_rows(qs->packed + qs->row_off[0], qs->X, s_head, qs->K, qs->V);
    return STEPQ_OK;
}
#define FR_TABLE_ENCODER_(name)                                                                    \
    FR_INLINE int fr_##name##_encode_head(stepq_qstate* qs, const fr_ctx* h, uint32_t umax,        \
                                          const double* freeze) {                                  \
        return stepq_encode(qs->packed, qs->X, qs->fmt, &qs->hp, qs->work, qs->K, qs->V);         \
    }
FR_TABLE_ENCODER_(cast)
FR_TABLE_ENCODER_(rows)
FR_TABLE_ENCODER_(damp)

// ---------------------------------------------------------------------------------------------
// the dispatchers: fam a constant at every call site

#define FR_CTX_(fam, name) fr_##name##_ctx(h, qs)
FR_INLINE void fr_load_ctx(fr_ctx* h, const stepq_qstate* qs, int fam) {
    STEPQ_DISPATCH_FAMILY(fam, FR_CTX_)
}
#define FR_LOCAL_(fam, name) return fr_##name##_local(f)
FR_INLINE int fr_row_local(const stepq_format* f, int fam) {
    STEPQ_DISPATCH_FAMILY(fam, FR_LOCAL_)
    return 0;
}
#define FR_DECODE_ROW_(fam, name) fr_##name##_decode_row(x, qs, h, i, V)
FR_INLINE void fr_decode_row(float* x, const stepq_qstate* qs, const fr_ctx* h, int i, int fam, int V) {
    STEPQ_DISPATCH_FAMILY(fam, FR_DECODE_ROW_)
}
#define FR_ENCODE_ROW_(fam, name) return fr_##name##_encode_row(qs, h, xq, x, i, umax, V)
FR_INLINE int fr_encode_row(stepq_qstate* qs, const fr_ctx* h, float* xq, const float* x, int i, uint32_t umax,
                            int fam, int V) {
    STEPQ_DISPATCH_FAMILY(fam, FR_ENCODE_ROW_)
    return STEPQ_ERR;
}
#define FR_ENCODE_HEAD_(fam, name) return fr_##name##_encode_head(qs, h, umax, freeze)
FR_INLINE int fr_encode_head(stepq_qstate* qs, const fr_ctx* h, uint32_t umax, const double* freeze, int fam) {
    STEPQ_DISPATCH_FAMILY(fam, FR_ENCODE_HEAD_)
    return STEPQ_ERR;
}

#if defined(STEPQ_RC_AVX512)
// ---------------------------------------------------------------------------------------------
// The 128-wide rows in eight vector registers of 16 (the register passes of sim/kernels.c)

#define FR_R128 8  // vectors of 16 in a row

// t (8 vectors) <- a row of 128 floats (a buffer, the read-out, a state row), and back
FR_INLINE void fr_load128(__m512* t, const float* row) {
#pragma GCC unroll 8
    for (int c = 0; c < FR_R128; c++) t[c] = _mm512_loadu_ps(row + 16 * c);
}
FR_INLINE void fr_store128(float* row, const __m512* t) {
#pragma GCC unroll 8
    for (int c = 0; c < FR_R128; c++) _mm512_storeu_ps(row + 16 * c, t[c]);
}

// fr_<name>_regs128: whether a format's 128-wide rows take the register passes: DAMP and
// LeapQuant where their rows have vector widths (LeapQuant's residual: or the FP32 oracle's
// floats; with freeze gating only the read pass), the other families always
FR_INLINE int fr_damp_regs128(const stepq_format* f) { return RC_SIMD_WIDTH(f->width); }
FR_INLINE int fr_leap_regs128(const stepq_format* f) {
    return RC_SIMD_WIDTH(f->width) && (f->leap.residual_bits == 32 || RC_SIMD_WIDTH(f->leap.residual_bits));
}
#define FR_REGS128_ALWAYS_(name) \
    FR_INLINE int fr_##name##_regs128(const stepq_format* f) { return 1; }
FR_REGS128_ALWAYS_(cast)
FR_REGS128_ALWAYS_(rows)
FR_REGS128_ALWAYS_(dual)
FR_REGS128_ALWAYS_(nvfp4)
FR_REGS128_ALWAYS_(fp8tile)
FR_REGS128_ALWAYS_(sr)

// fr_<name>_decode128: t (8 vectors) <- row i decoded

// a scaled row of a vector width: its FP16 scale times its codes; other widths (FP16 pivots,
// GDN's 2-bit dual rows): the row decoder
FR_INLINE int fr_other_width128(__m512* t, const stepq_qstate* qs, const fr_ctx* h, int i, int fam) {
    if (RC_SIMD_WIDTH(qs->rows[i])) return 0;
    float x[128];
    fr_decode_row(x, qs, h, i, fam, 128);
    fr_load128(t, x);
    return 1;
}
FR_INLINE void fr_scaled_decode128(__m512* t, const stepq_qstate* qs, int i) {
    const uint8_t* P = qs->packed + qs->row_off[i];
    const int b = qs->rows[i];
    uint16_t sh;
    memcpy(&sh, P, 2);
    const __m512 vs = _mm512_set1_ps(rc_f16_to_f32(sh));
#pragma GCC unroll 8
    for (int c = 0; c < FR_R128; c++) t[c] = rc_values16(P + 2 + 2 * b * c, b, vs);
}
FR_INLINE void fr_cast_decode128(__m512* t, const stepq_qstate* qs, const fr_ctx* h, int i) {
    // rc_f16_decode_row, rc_bf16_decode_row, the float32 row
    const uint8_t* P = qs->packed + qs->row_off[i];
    const int e = qs->fmt->cast.element;
#pragma GCC unroll 8
    for (int c = 0; c < FR_R128; c++) {
        const __m256i* w = (const __m256i*)(P + 32 * c);  // (FP16, BF16)
        t[c] = e == STEPQ_ELEM_FP32   ? _mm512_loadu_ps(P + 64 * c)
               : e == STEPQ_ELEM_FP16 ? _mm512_cvtph_ps(_mm256_loadu_si256(w))
                                      : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(w)), 16));
    }
}
FR_INLINE void fr_rows_decode128(__m512* t, const stepq_qstate* qs, const fr_ctx* h, int i) {
    if (fr_other_width128(t, qs, h, i, STEPQ_FAMILY_ROWS)) return;
    fr_scaled_decode128(t, qs, i);
}
FR_INLINE void fr_damp_decode128(__m512* t, const stepq_qstate* qs, const fr_ctx* h, int i) {
    if (fr_other_width128(t, qs, h, i, STEPQ_FAMILY_DAMP)) return;  // (its FP16 rows: not rotated)
    fr_scaled_decode128(t, qs, i);
    rc_fwht128(t);
}
// x (128) <- a GDN 2-bit row of the dual layout at P (df_decode_row's): a row factor per group
// of 32 columns (two vectors), the stored codes u read as stepq_odd2_load's odd levels
// 2 (u & 3) - 3, taken as fr_dual_decode128 takes the other widths (nrm times them is exact)
__attribute__((noinline, unused)) static void fr_dual_odd2_decode128(float* x, const uint8_t* P, const float* c,
                                                                     float nrm) {
    const int G = 128 / STEPQ_GDN2_GROUP;
    for (int k = 0; k < FR_R128; k++) {
        const __m512i u = _mm512_and_si512(rc_unpack16(P + 2 * G + 4 * k, 2), _mm512_set1_epi32(3));
        const __m512i z = _mm512_sub_epi32(_mm512_slli_epi32(u, 1), _mm512_set1_epi32(3));
        const __m512 vrn = _mm512_set1_ps(df_get16(P + 2 * (16 * k / STEPQ_GDN2_GROUP)) * nrm);
        _mm512_store_ps(x + 16 * k, _mm512_mul_ps(_mm512_mul_ps(vrn, _mm512_loadu_ps(c + 16 * k)), _mm512_cvtepi32_ps(z)));
    }
}
FR_INLINE void fr_dual_decode128(__m512* t, const stepq_qstate* qs, const fr_ctx* h, int i) {
    if (fr_other_width128(t, qs, h, i, STEPQ_FAMILY_DUAL)) return;
    // df_decode_row's (r c_j) (nrm z_j) as ((r nrm) c_j) z_j: nrm is a power of two (at most
    // 64) and r, c_j FP16 factors (at least 2^-24), so r nrm is exact and (r nrm) c_j is nrm
    // times the rounded r c_j (no product leaves the normal range): the same value, a
    // multiply fewer (STEPQuant@6's step 16.5 -> 15.9 us, DSQ6 10.1 -> 9.6, medians of 7)
    const uint8_t* P = qs->packed + qs->row_off[i];
    const int b = qs->rows[i];
    const float nrm = df_nrm_of(&qs->hp, b);
    if (b == 2 && stepq_kind_of(qs->hp.kind)->dual_odd2) {  // out of line: the common path keeps its registers
        float x[128] __attribute__((aligned(64)));
        fr_dual_odd2_decode128(x, P, h->c, nrm);
        fr_load128(t, x);
        return;
    }
    const __m512 vrn = _mm512_set1_ps(df_get16(P) * nrm);
#pragma GCC unroll 8
    for (int c = 0; c < FR_R128; c++)
        t[c] = _mm512_mul_ps(_mm512_mul_ps(vrn, _mm512_loadu_ps(h->c + 16 * c)),
                             _mm512_cvtepi32_ps(rc_unpack16(P + 2 + 2 * b * c, b)));
}
FR_INLINE void fr_nvfp4_decode128(__m512* t, const stepq_qstate* qs, const fr_ctx* h, int i) {
    const uint8_t* P = qs->packed + qs->row_off[i];  // eight blocks of 16
#pragma GCC unroll 8
    for (int c = 0; c < FR_R128; c++) t[c] = rc_nvfp4_values16(P + c * STEPQ_NVFP4_BLOCK_BYTES, h->s_head);
}
FR_INLINE void fr_leap_decode128(__m512* t, const stepq_qstate* qs, const fr_ctx* h, int i) {
    // the base row plus alpha times its residual (fr_leap_decode_row's)
    const stepq_format* f = qs->fmt;
    const uint8_t* P = qs->packed + qs->row_off[i];
    const int rb = f->leap.residual_bits;
    const uint8_t* R = qs->packed + h->res + (size_t)i * h->res_row;
    uint16_t sh, rh = 0;
    memcpy(&sh, P, 2);
    if (rb != 32) memcpy(&rh, R, 2);
    const __m512 vs = _mm512_set1_ps(rc_f16_to_f32(sh)), vr = _mm512_set1_ps(rc_f16_to_f32(rh));
    const __m512 va = _mm512_set1_ps(f->leap.alpha);
#pragma GCC unroll 8
    for (int c = 0; c < FR_R128; c++) {
        const __m512 d = rb == 32 ? _mm512_loadu_ps(R + 64 * c) : rc_values16(R + 2 + 2 * rb * c, rb, vr);
        t[c] = _mm512_add_ps(rc_values16(P + 2 + 2 * f->width * c, f->width, vs), _mm512_mul_ps(va, d));
    }
}
FR_INLINE void fr_fp8tile_decode128(__m512* t, const stepq_qstate* qs, const fr_ctx* h, int i) {
    const uint8_t* P = qs->packed + qs->row_off[i];  // rc_fp8_decode's
    float sc;
    memcpy(&sc, fr_tile_scale_at(qs, i), 4);
    const __m512 vs = _mm512_set1_ps(sc);
#pragma GCC unroll 8
    for (int c = 0; c < FR_R128; c++) t[c] = _mm512_mul_ps(rc_fp8_values16(P + 16 * c), vs);
}
FR_INLINE void fr_sr_decode128(__m512* t, const stepq_qstate* qs, const fr_ctx* h, int i) {
    const int e = qs->fmt->sr.element;  // rc_sr_decode_row's
    const uint8_t* sc;
    const uint8_t* R = rc_sr_row(&sc, qs->packed, e, i, 128);
#pragma GCC unroll 8
    for (int c = 0; c < FR_R128; c++) t[c] = rc_sr_values16(R, sc, e, 16 * c);
}

#define FR_REGS128_(fam, name) return fr_##name##_regs128(f)
FR_INLINE int fr_regs128(const stepq_format* f, int fam) {
    STEPQ_DISPATCH_FAMILY(fam, FR_REGS128_)
    return 0;
}
#define FR_DECODE128_(fam, name) fr_##name##_decode128(t, qs, h, i)
FR_INLINE void fr_decode128(__m512* t, const stepq_qstate* qs, const fr_ctx* h, int i, int fam) {
    STEPQ_DISPATCH_FAMILY(fam, FR_DECODE128_)
}
#endif

#endif

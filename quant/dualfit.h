// dualfit.h: the key-row-aware dual-axis fit of method 4.2 (space, stepquant, mlife) and
// Q-Mamba's DSQ as the paper adapts it (method 6.2), which is the same fit with w = 1 and no
// refit, as static inline functions: quant/dual.c builds the reference formats from them, and
// the fused kernels of sim/kernels.c compile them again for wider vectors (same operations in
// the same order, so the same bytes).
//
//   X_ij ~ r_i c_j nrm(b_i) z_ij,   z_ij in [-qmax(b_i), qmax(b_i)]
//   r_i = fp16((m_i / w_i)^rho),     m_i = max(mean_j |X_ij|, 1e-20)
//   c_j = fp16(max_i |X_ij / r_i| / (qmax(b_i) nrm(b_i)))   over non-pivot rows (nothing clips)
//   then `refits` rounds of  c_j = sum_i w_i^2 X_ij v_ij / sum_i w_i^2 v_ij^2,  v = r nrm z,
//   each followed by re-encoding; a zero denominator keeps the previous c_j.
// nrm(b) = 2^(8-b) for KDA (rows of different widths share the column factors), 1 for GDN.
// 2-bit units: GDN odd levels {-3,-1,1,3} with a row factor per group of 32 values; KDA
// ternary {-1,0,1} (qmax 1, nrm 64). FP16 factors round half to even and clamp to
// [2^-24, 65504]. Pivot rows (width 16) are stored in FP16 and take no part in the fit.
#ifndef STEPQ_DUALFIT_H
#define STEPQ_DUALFIT_H

#include <math.h>
#include <string.h>

#include "../base/common.h"
#include "format.h"
#include "numerics.h"
#include "rowcodec.h"

#if defined(__SSE2__) && !defined(__CUDACC__)
#include <emmintrin.h>
#endif

// the fit's view of one head: per-row level bound and normalisation, GDN 2-bit rows grouped
typedef struct {
    const uint8_t* bits;
    int odd2;  // 2-bit rows take odd levels and group row factors (the kind's dual_odd2: GDN)
    int K, V;
} dual_shape;

// the fit's view of head plan hp (the kind's traits, method 4.2)
STEPQ_RC dual_shape df_shape_of(const stepq_head_plan* hp, int K, int V) {
    return (dual_shape){hp->bits, stepq_kind_of(hp->kind)->dual_odd2, K, V};
}

STEPQ_RC int df_groups_of(const dual_shape* s, int i) {
    return s->odd2 && s->bits[i] == 2 ? s->V / STEPQ_GDN2_GROUP : 1;
}
STEPQ_RC float df_level_max(const dual_shape* s, int i) {  // largest code magnitude of row i
    return s->odd2 && s->bits[i] == 2 ? 3.0f : (float)STEPQ_QMAX(s->bits[i]);
}
// nrm(b) of a row of width b (method 4.2), nrm8 the kind's dual_nrm8
STEPQ_RC float df_nrm_for(int nrm8, int b) { return nrm8 ? (float)(1 << (8 - b)) : 1.0f; }
STEPQ_RC float df_nrm_of(const stepq_head_plan* hp, int b) {
    return df_nrm_for(stepq_kind_of(hp->kind)->dual_nrm8, b);
}

STEPQ_RC size_t df_row_bytes(const dual_shape* s, int i) {
    int b = s->bits[i];
    if (b == STEPQ_PIVOT_BITS) return 2u * (size_t)s->V;
    return 2u * (size_t)df_groups_of(s, i) + (size_t)s->V * b / 8u;
}

STEPQ_RC int df_any_coded(const uint8_t* bits, int K) {
    for (int i = 0; i < K; i++)
        if (bits[i] != STEPQ_PIVOT_BITS) return 1;
    return 0;
}

STEPQ_RC size_t df_bytes_head(const stepq_head_plan* hp, int K, int V) {
    dual_shape s = df_shape_of(hp, K, V);
    size_t n = df_any_coded(hp->bits, K) ? 2u * (size_t)V : 0;
    for (int i = 0; i < K; i++) n += df_row_bytes(&s, i);
    return n;
}

// Work layout (floats): y (K,V) = X / r, r (K, V/32) the row factor of each row or GDN 2-bit
// group (a row's single factor at its first slot), z as floats (K,V) (the codes of the scalar
// refit; before them the row factors' scratch), c (V), nrm (K), lev (K) -- within
// STEPQ_WORK_FLOATS.
typedef struct {
    float *y, *r, *z, *c, *nrm, *lev;
} dual_work;
#define DF_RSTRIDE(V) ((V) / STEPQ_GDN2_GROUP)  // row factors kept per row in r

// out (n) <- the FP16 factors of f (n) as floats, stepq_f16_to_f32(stepq_f16_factor(f)); with
// F16C eight at a time by the hardware's conversion (IEEE round half to even, as
// stepq_f32_to_f16; f clamped to 65504 first, a non-positive or NaN f or a zero half -> 1)
STEPQ_RC void df_factors16(float* out, const float* f, int n) {
    int j = 0;
#if defined(STEPQ_RC_AVX512) || defined(STEPQ_RC_AVX2)
    const __m256 top = _mm256_set1_ps(STEPQ_FP16_MAX);
    for (; j + 8 <= n; j += 8) {
        const __m256 x = _mm256_loadu_ps(f + j);
        const __m128i h = _mm256_cvtps_ph(_mm256_min_ps(x, top), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m256i pos = _mm256_castps_si256(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ));
        const __m128i bad = _mm_or_si128(_mm_cmpeq_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7fff)), _mm_setzero_si128()),
                                         _mm_xor_si128(_mm_packs_epi32(_mm256_castsi256_si128(pos), _mm256_extracti128_si256(pos, 1)),
                                                       _mm_set1_epi16(-1)));
        _mm256_storeu_ps(out + j, _mm256_cvtph_ps(_mm_blendv_epi8(h, _mm_set1_epi16(1), bad)));
    }
#endif
    for (; j < n; j++) out[j] = stepq_f16_to_f32(stepq_f16_factor(f[j]));
}

// sum of |x| (n a multiple of 8) in eight float32 partial sums: a fixed order, so the result
// is the same on every machine. On x86 the eight sums are held in vector registers, in the same
// order (left alone, GCC vectorises this loop across the rows of its caller, with shuffles and
// scalar adds, at a few times the cost).
STEPQ_RC float df_sum_abs(const float* x, int n) {
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#if defined(STEPQ_RC_AVX2) || defined(STEPQ_RC_AVX512)
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 a = _mm256_setzero_ps();
    for (int j = 0; j < n; j += 8) a = _mm256_add_ps(a, _mm256_and_ps(_mm256_loadu_ps(x + j), magnitude));
    _mm256_storeu_ps(acc, a);
#elif defined(__SSE2__)
    const __m128 magnitude = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    __m128 lo = _mm_setzero_ps(), hi = _mm_setzero_ps();
    for (int j = 0; j < n; j += 8) {
        lo = _mm_add_ps(lo, _mm_and_ps(_mm_loadu_ps(x + j), magnitude));
        hi = _mm_add_ps(hi, _mm_and_ps(_mm_loadu_ps(x + j + 4), magnitude));
    }
    _mm_storeu_ps(acc, lo);
    _mm_storeu_ps(acc + 4, hi);
#else
    for (int j = 0; j < n; j += 8)
        for (int k = 0; k < 8; k++) acc[k] += fabsf(x[j + k]);
#endif
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

// Two passes: the mean magnitude of every row (or GDN 2-bit group) first, then the factors, so
// that no row waits for the one before it (the same operations as one row at a time)
STEPQ_RC void df_row_factors(dual_work* w, const float* X, const dual_shape* s, const float* wr,
                        float rho, int dsq) {
    const int RS = DF_RSTRIDE(s->V);
    for (int i = 0; i < s->K; i++) {
        if (s->bits[i] == STEPQ_PIVOT_BITS) continue;
        const int G = df_groups_of(s, i), n = s->V / G;
        for (int g = 0; g < G; g++) w->r[(size_t)i * RS + g] = df_sum_abs(X + (size_t)i * s->V + g * n, n);
    }
    float* f = w->z;  // the factors before their FP16 rounding, side by side (z is not yet in use)
    int nf = 0;
    for (int i = 0; i < s->K; i++) {
        if (s->bits[i] == STEPQ_PIVOT_BITS) continue;
        const int G = df_groups_of(s, i), n = s->V / G;
        const double wi = wr ? wr[i] : 1.0f;
        for (int g = 0; g < G; g++) {
            double m = (double)w->r[(size_t)i * RS + g] / n;
            m = m > 1e-20 ? m : 1e-20;  // fmax(m, 1e-20): m is never NaN (X is finite)
            // DSQ: r = sqrt(mean |X|); the fit: (m / w)^rho (rho = 1/2, the default, is a sqrt)
            double rv = dsq ? sqrt(m) : rho == 0.5f ? sqrt(m / wi) : pow(m / wi, rho);
            f[nf++] = (float)rv;
        }
    }
    df_factors16(f, f, nf);  // r = fp16(rv), every row's side by side
    nf = 0;
    for (int i = 0; i < s->K; i++)
        if (s->bits[i] != STEPQ_PIVOT_BITS)
            for (int g = 0; g < df_groups_of(s, i); g++) w->r[(size_t)i * RS + g] = f[nf++];
}

// 1/c of every column: the codes divide by c as a product with its reciprocal
STEPQ_RC void df_inv_columns(float* inv_c, const float* c, int V) {
    for (int j = 0; j < V; j++) inv_c[j] = 1.0f / c[j];
}

// z (V) <- the codes of row i: the nearest code of y / (c nrm), taken as y (1/c) (1/nrm) (nrm a
// power of two, so its reciprocal is exact)
STEPQ_RC void df_row_codes(float* z, const dual_work* w, const dual_shape* s, const float* inv_c, int i) {
    const int odd = s->odd2 && s->bits[i] == 2;
    const float inv_n = 1.0f / w->nrm[i], lev = w->lev[i];
    const float* y = w->y + (size_t)i * s->V;
    if (odd)
        for (int j = 0; j < s->V; j++) z[j] = stepq_odd2_code(y[j] * inv_c[j] * inv_n);
    else
        for (int j = 0; j < s->V; j++) z[j] = stepq_code(y[j] * inv_c[j] * inv_n, lev);
}

#if defined(STEPQ_RC_AVX512)
// df_row_codes of 16 values y (ic: their columns' 1/c) before their rounding: (y ic) inv_n
// clamped to [-lev, lev] (max, min: the scalar comparisons' results for finite values)
static inline __m512 df_clamped16(__m512 y, __m512 ic, __m512 inv_n, __m512 lev) {
    const __m512 t = _mm512_mul_ps(_mm512_mul_ps(y, ic), inv_n);
    return _mm512_min_ps(_mm512_max_ps(t, _mm512_sub_ps(_mm512_setzero_ps(), lev)), lev);
}
// df_row_codes of 16 values as floats: df_clamped16 rounded as stepq_round_even rounds (so a
// code of zero is +0); GDN's odd 2-bit codes +-1, +-3
static inline __m512 df_codes16(__m512 y, __m512 ic, __m512 inv_n, __m512 lev, int odd) {
    if (odd) {  // stepq_odd2_code: 3 where |t| >= 2, else 1; negative where t < 0
        const __m512 t = _mm512_mul_ps(_mm512_mul_ps(y, ic), inv_n);
        const __mmask16 big = _mm512_cmp_ps_mask(_mm512_abs_ps(t), _mm512_set1_ps(2.0f), _CMP_GE_OQ);
        const __mmask16 neg = _mm512_cmp_ps_mask(t, _mm512_setzero_ps(), _CMP_LT_OQ);
        const __m512 m = _mm512_mask_blend_ps(big, _mm512_set1_ps(1.0f), _mm512_set1_ps(3.0f));
        return _mm512_mask_blend_ps(neg, m, _mm512_sub_ps(_mm512_setzero_ps(), m));
    }
    const __m512 big = _mm512_set1_ps(12582912.0f);
    return _mm512_sub_ps(_mm512_add_ps(df_clamped16(y, ic, inv_n, lev), big), big);
}

// df_refit_columns' sums of 32 columns j0.. (a GDN 2-bit group: one row factor) over every
// coded row, in registers, each row's codes taken from y and 1/c (inv_c) on the way, as
// df_row_codes takes them (so the codes never go through memory): each sum meets the same terms
// in the same order as the row-major loop below (rows in order; v = rn z, then (w^2 x) v and
// (w^2 v) v in double). v is formed in float: r (an FP16 value) times nrm (a power of two, at
// most 64) times a code of magnitude at most 127 has at most 18 significant bits and is zero
// or in [2^-24, 2^30], so the float product is exact and equals the double one (test_simd).
static inline void df_refit_sums32(double* num, double* den, const dual_work* w, const float* X,
                                   const dual_shape* s, const float* inv_c, const int* rows, const double* wi2,
                                   int nr, int j0) {
    __m512d n[4], d[4];
    for (int q = 0; q < 4; q++) n[q] = d[q] = _mm512_setzero_pd();
    const __m512 ic[2] = {_mm512_loadu_ps(inv_c + j0), _mm512_loadu_ps(inv_c + j0 + 16)};
    for (int k = 0; k < nr; k++) {
        const int i = rows[k], g = j0 / (s->V / df_groups_of(s, i)), odd = s->odd2 && s->bits[i] == 2;
        const __m512 rn = _mm512_set1_ps(w->r[(size_t)i * DF_RSTRIDE(s->V) + g] * w->nrm[i]);
        const __m512 inv_n = _mm512_set1_ps(1.0f / w->nrm[i]), lev = _mm512_set1_ps(w->lev[i]);
        const __m512d wi = _mm512_set1_pd(wi2[k]);
        const float *x = X + (size_t)i * s->V + j0, *y = w->y + (size_t)i * s->V + j0;
        for (int h = 0; h < 2; h++) {
            const __m512 v16 = _mm512_mul_ps(rn, df_codes16(_mm512_loadu_ps(y + 16 * h), ic[h], inv_n, lev, odd));
            for (int e = 0; e < 2; e++) {
                const int q = 2 * h + e;
                const __m512d v = _mm512_cvtps_pd(e ? _mm512_extractf32x8_ps(v16, 1) : _mm512_castps512_ps256(v16));
                n[q] = _mm512_add_pd(n[q], _mm512_mul_pd(_mm512_mul_pd(wi, _mm512_cvtps_pd(_mm256_loadu_ps(x + 8 * q))), v));
                d[q] = _mm512_add_pd(d[q], _mm512_mul_pd(_mm512_mul_pd(wi, v), v));
            }
        }
    }
    for (int q = 0; q < 4; q++) _mm512_storeu_pd(num + 8 * q, n[q]), _mm512_storeu_pd(den + 8 * q, d[q]);
}
#endif

// c_j <- fp16(sum_i w_i^2 X_ij v_ij / sum_i w_i^2 v_ij^2), v = r nrm z with z the codes of the
// present c; kept when den = 0. Row after row (contiguous), the sums in double.
STEPQ_RC void df_refit_columns(dual_work* w, const float* X, const dual_shape* s, const float* wr) {
    double num[STEPQ_MAX_DIM], den[STEPQ_MAX_DIM];
    float inv_c[STEPQ_MAX_DIM];
    df_inv_columns(inv_c, w->c, s->V);
#if defined(STEPQ_RC_AVX512)
    // 32 columns at a time, all rows for each, the sums in registers instead of going through
    // memory for every row (STEPQuant@6's step alone 19.4 -> 18.2 us, space6 19.3 -> 18.1, fastest
    // of 11 and 5 alternating runs); the codes made there too, never stored as floats, and the
    // FP16 factors converted eight at a time (19.0 -> 17.2 us, DSQ6 12.6 -> 10.4, medians of 7)
    int rows[STEPQ_MAX_DIM], nr = 0;
    double wi2[STEPQ_MAX_DIM];
    for (int i = 0; i < s->K; i++)
        if (s->bits[i] != STEPQ_PIVOT_BITS) rows[nr] = i, wi2[nr++] = wr ? (double)wr[i] * wr[i] : 1.0;
    for (int j0 = 0; j0 < s->V; j0 += STEPQ_GDN2_GROUP)
        df_refit_sums32(num + j0, den + j0, w, X, s, inv_c, rows, wi2, nr, j0);
#else
    for (int i = 0; i < s->K; i++)
        if (s->bits[i] != STEPQ_PIVOT_BITS) df_row_codes(w->z + (size_t)i * s->V, w, s, inv_c, i);
    for (int j = 0; j < s->V; j++) num[j] = den[j] = 0;
    for (int i = 0; i < s->K; i++) {
        if (s->bits[i] == STEPQ_PIVOT_BITS) continue;
        const int G = df_groups_of(s, i), n = s->V / G;
        double wi2 = wr ? (double)wr[i] * wr[i] : 1.0, nrm = w->nrm[i];
        const float *x = X + (size_t)i * s->V, *z = w->z + (size_t)i * s->V;
        for (int g = 0; g < G; g++) {
            const double rn = (double)w->r[(size_t)i * DF_RSTRIDE(s->V) + g] * nrm;
            for (int j = g * n; j < (g + 1) * n; j++) {
                double v = rn * z[j];
                num[j] += wi2 * x[j] * v;
                den[j] += wi2 * v * v;
            }
        }
    }
#endif
    float f[STEPQ_MAX_DIM];
    for (int j = 0; j < s->V; j++) f[j] = den[j] > 0 ? (float)(num[j] / den[j]) : 1.0f;
    df_factors16(f, f, s->V);
    for (int j = 0; j < s->V; j++)
        if (den[j] > 0) w->c[j] = f[j];
}

#if defined(STEPQ_RC_AVX512)
// a / b correctly rounded, as the division instruction gives it, for 16 values a and one b
// (ry = 1 / b, a true division, so the reciprocal rounded to nearest): Markstein's correction
// q = RN(a ry), q' = RN(q + RN(a - b q) ry) with fused multiply-adds, which is RN(a / b) when
// nothing underflows or overflows on the way (Markstein, IBM J. Res. Dev. 34, 1990; Muller et
// al., Handbook of Floating-Point Arithmetic, 2nd ed., 4.7.2). Quotients outside [2^-60, 2^60]
// (and Inf or NaN) are divided again by the instruction, so the residual a - b q stays a normal
// number exactly computed; test_simd compares it with the division. A row's sixteen quotients
// then cost three multiply-adds instead of a division that issues once per several cycles
// (STEPQuant@6's replay 1.79 -> 1.72 s of CPU time, 16 heads x 4096 steps, medians of 5).
static inline __m512 df_div16(__m512 a, __m512 b, __m512 ry) {
    const __m512 q = _mm512_mul_ps(a, ry);
    const __m512 qc = _mm512_fmadd_ps(_mm512_fnmadd_ps(q, b, a), ry, q);
    const __m512 m = _mm512_abs_ps(qc);
    const __mmask16 edge = _mm512_cmp_ps_mask(m, _mm512_set1_ps(0x1p-60f), _CMP_NGE_UQ) |
                           _mm512_cmp_ps_mask(m, _mm512_set1_ps(0x1p60f), _CMP_NLE_UQ);
    return edge ? _mm512_mask_div_ps(qc, edge, a, b) : qc;
}
#endif

// the fit: r, c and y = X / r of every non-pivot row (their codes: df_row_codes)
STEPQ_RC void df_dual_fit(dual_work* w, const float* X, const dual_shape* s, const stepq_head_plan* hp,
                     int dsq) {
    const float* wr = dsq ? NULL : hp->w;
    df_row_factors(w, X, s, wr, hp->rho, dsq);
    float cmax[STEPQ_MAX_DIM];
    for (int j = 0; j < s->V; j++) cmax[j] = 0;
    const int nrm8 = stepq_kind_of(hp->kind)->dual_nrm8;
    for (int i = 0; i < s->K; i++) {
        w->nrm[i] = df_nrm_for(nrm8, s->bits[i] == STEPQ_PIVOT_BITS ? 8 : s->bits[i]);
        w->lev[i] = df_level_max(s, i);
        if (s->bits[i] == STEPQ_PIVOT_BITS) continue;
        // y = X / r; the column factor starts from max_i |y_ij| / (qmax nrm): nothing clips
        float inv_ln = 1.0f / (w->lev[i] * w->nrm[i]);
        const float* x = X + (size_t)i * s->V;
        float* y = w->y + (size_t)i * s->V;
        const int G = df_groups_of(s, i), n = s->V / G;
        for (int g = 0; g < G; g++) {
            const float r = w->r[(size_t)i * DF_RSTRIDE(s->V) + g];
            int j = g * n;
#if defined(STEPQ_RC_AVX512)
            // sixteen at a time, the quotients by df_div16 (the division's bits)
            const __m512 vr = _mm512_set1_ps(r), ry = _mm512_set1_ps(1.0f / r), il = _mm512_set1_ps(inv_ln);
            for (; j + 16 <= (g + 1) * n; j += 16) {
                const __m512 yv = df_div16(_mm512_loadu_ps(x + j), vr, ry);
                _mm512_storeu_ps(y + j, yv);
                _mm512_storeu_ps(cmax + j, _mm512_max_ps(_mm512_mul_ps(_mm512_abs_ps(yv), il), _mm512_loadu_ps(cmax + j)));
            }
#endif
            for (; j < (g + 1) * n; j++) {  // a true division: 1/r is not exact in float
                y[j] = x[j] / r;
                float a = fabsf(y[j]) * inv_ln;
                cmax[j] = a > cmax[j] ? a : cmax[j];
            }
        }
    }
    df_factors16(w->c, cmax, s->V);
    for (int round = 0; round < (dsq ? 0 : hp->refits); round++) df_refit_columns(w, X, s, wr);
}

STEPQ_RC dual_work df_carve(float* work, int K, int V) {
    size_t KV = (size_t)K * V;
    dual_work w = {work, work + KV, work + 2 * KV, work + 3 * KV, work + 3 * KV + V,
                   work + 3 * KV + V + K};
    return w;
}

// an FP16 factor (v holds an FP16 value, so the conversion is exact) to its two bytes, and back
STEPQ_RC void df_put16(uint8_t* p, float v) {
#if defined(STEPQ_RC_AVX512) || defined(STEPQ_RC_AVX2)
    uint16_t h = _cvtss_sh(v, _MM_FROUND_TO_NEAREST_INT);
#else
    uint16_t h = stepq_f32_to_f16_sat(v);
#endif
    memcpy(p, &h, 2);
}
STEPQ_RC float df_get16(const uint8_t* p) {
    uint16_t h;
    memcpy(&h, p, 2);
    return rc_f16_to_f32(h);
}

// n FP16 factors (FP16 values; n a multiple of 8) to their bytes
STEPQ_RC void df_put16s(uint8_t* P, const float* v, int n) {
#if defined(STEPQ_RC_AVX512) || defined(STEPQ_RC_AVX2)
    for (int j = 0; j < n; j += 8)
        _mm_storeu_si128((__m128i*)(P + 2 * j), _mm256_cvtps_ph(_mm256_loadu_ps(v + j), _MM_FROUND_TO_NEAREST_INT));
#else
    for (int j = 0; j < n; j++) df_put16(P + 2 * j, v[j]);
#endif
}

// P <- the packed codes of row i (inv_c: the columns' 1/c)
STEPQ_RC void df_pack_row(uint8_t* P, const dual_work* w, const dual_shape* s, const float* inv_c, int i) {
    const int b = s->bits[i], V = s->V;
#if defined(STEPQ_RC_AVX512)
    if (RC_SIMD_WIDTH(b) && V % 64 == 0) {  // the codes as integers, 64 packed at once: the
        // conversion rounds half to even as stepq_round_even does, so the clamped values go straight in;
        // GDN's odd 2-bit codes +-1, +-3 stored as stepq_odd2_store's (z + 3) / 2
        const int odd = s->odd2 && b == 2;
        const __m512 inv_n = _mm512_set1_ps(1.0f / w->nrm[i]), lev = _mm512_set1_ps(w->lev[i]);
        const float* y = w->y + (size_t)i * V;
        for (int j = 0; j < V; j += 64) {
            __m512i z[4];
            if (odd)
                for (int k = 0; k < 4; k++)
                    z[k] = _mm512_srai_epi32(
                        _mm512_add_epi32(_mm512_cvtps_epi32(df_codes16(_mm512_loadu_ps(y + j + 16 * k),
                                                                       _mm512_loadu_ps(inv_c + j + 16 * k), inv_n, lev, 1)),
                                         _mm512_set1_epi32(3)), 1);
            else
                for (int k = 0; k < 4; k++)
                    z[k] = _mm512_cvtps_epi32(df_clamped16(_mm512_loadu_ps(y + j + 16 * k), _mm512_loadu_ps(inv_c + j + 16 * k), inv_n, lev));
            rc_pack64(P + (size_t)j * b / 8, z, b, j + 64 < V);
        }
        return;
    }
#endif
    float z[STEPQ_MAX_DIM];
    df_row_codes(z, w, s, inv_c, i);
    if (s->odd2 && b == 2)  // odd levels -3,-1,1,3 -> 0..3
        for (int j = 0; j < V; j++) z[j] = (float)stepq_odd2_store(z[j]);
    rc_pack_f32(P, z, b, V);
}

// P <- the dual layout of X, which is finite (df_encode_head checks it; the fused kernels know it
// from their write pass)
STEPQ_RC void df_encode_finite(uint8_t* P, const float* X, const stepq_head_plan* hp, int dsq,
                               float* work, int K, int V) {
    stepq_assert(V % STEPQ_GDN2_GROUP == 0 && V <= STEPQ_MAX_DIM);
    dual_shape s = df_shape_of(hp, K, V);
    dual_work w = df_carve(work, K, V);
    int coded = df_any_coded(hp->bits, K);
    if (coded) df_dual_fit(&w, X, &s, hp, dsq);
    float inv_c[STEPQ_MAX_DIM];
    if (coded) {
        df_put16s(P, w.c, V);
        P += 2 * V;
        df_inv_columns(inv_c, w.c, V);
    }
    for (int i = 0; i < K; i++) {
        const float* x = X + (size_t)i * V;
        int b = hp->bits[i];
        if (b == STEPQ_PIVOT_BITS) {
            rc_f16_encode_row(P, NULL, x, V);
            P += 2 * V;
            continue;
        }
        int G = df_groups_of(&s, i);
        for (int g = 0; g < G; g++, P += 2) df_put16(P, w.r[(size_t)i * DF_RSTRIDE(V) + g]);
        df_pack_row(P, &w, &s, inv_c, i);
        P += (size_t)V * b / 8;
    }
}

STEPQ_RC int df_encode_head(uint8_t* P, const float* X, const stepq_head_plan* hp, int dsq,
                            float* work, int K, int V) {
    if (!rc_all_finite(X, (size_t)K * V)) return STEPQ_ERR;
    df_encode_finite(P, X, hp, dsq, work, K, V);
    return STEPQ_OK;
}

// x (V) <- row i of a dual-layout head whose column factors are c (V); row: its bytes
STEPQ_RC void df_decode_row(float* x, const uint8_t* row, const float* c, const stepq_head_plan* hp,
                            int i, int V) {
    const int b = hp->bits[i];
    if (b == STEPQ_PIVOT_BITS) {
        rc_f16_decode_row(x, row, V);
        return;
    }
    const stepq_kind_traits* kt = stepq_kind_of(hp->kind);
    const int odd = kt->dual_odd2 && b == 2, G = odd ? V / STEPQ_GDN2_GROUP : 1, n = V / G;
    const float nrm = df_nrm_for(kt->dual_nrm8, b);
    rc_unpack_f32(x, row + 2 * G, b, V);
    if (odd)  // stored 0..3 as two's complement -2..1 -> -3, -1, 1, 3
        for (int j = 0; j < V; j++) x[j] = stepq_odd2_load((int8_t)x[j]);
    for (int g = 0; g < G; g++) {
        float r = df_get16(row + 2 * g);
        for (int j = g * n; j < (g + 1) * n; j++) x[j] = r * c[j] * (nrm * x[j]);
    }
}

// c (V) <- the column factors of a dual-layout head; returns the bytes before its first row
STEPQ_RC size_t df_columns(float* c, const uint8_t* P, const stepq_head_plan* hp, int K, int V) {
    if (!df_any_coded(hp->bits, K)) return 0;
    rc_f16_decode_row(c, P, V);
    return 2u * (size_t)V;
}

STEPQ_RC void df_decode_head(float* X, const uint8_t* P, const stepq_head_plan* hp, int K, int V) {
    dual_shape s = df_shape_of(hp, K, V);
    float c[STEPQ_MAX_DIM];
    P += df_columns(c, P, hp, K, V);
    for (int i = 0; i < K; i++) {
        df_decode_row(X + (size_t)i * V, P, c, hp, i, V);
        P += df_row_bytes(&s, i);
    }
}

#endif

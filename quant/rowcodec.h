// rowcodec.h: the row-level codecs of the state formats (method 6.2), as static inline
// functions: one key row of V values to its packed bytes and back. The reference formats of
// quant/*.c are built from them for baseline x86-64 (x86-64-v2), where the plain loops below
// are the definition; the fused kernels of sim/kernels.c include this header again, built for
// AVX2 and AVX-512, where the blocks marked SIMD take over the code (un)packing and the FP16
// conversions. Every SIMD block computes the same values as the loop it replaces (integer code
// arithmetic, IEEE conversions with round-half-to-even); tests/test_kernels.c checks the two
// bit for bit on every format.
//
// Legend: V values in a row (a multiple of 4; the SIMD blocks take 16 at a time and leave the
// rest to the loops); b the code width (2..8), 16 an FP16 row; z the integer codes, kept as
// floats between the fit and the packing (they are exact small integers).
#ifndef STEPQ_ROWCODEC_H
#define STEPQ_ROWCODEC_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../base/common.h"
#include "format.h"
#include "layout.h"
#include "numerics.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512VBMI__)
#define STEPQ_RC_AVX512 1
#endif
#if defined(__AVX2__) && defined(__F16C__)
#define STEPQ_RC_AVX2 1
#endif
#if defined(STEPQ_RC_AVX512) || defined(STEPQ_RC_AVX2)
#include <immintrin.h>
#endif

#define STEPQ_RC static inline

// 1 if none of the n values is NaN or Inf: the largest magnitude as float bits is FLT_MAX's or
// below (NaN and Inf are the patterns above it); an integer max, which vectorises
STEPQ_RC int rc_all_finite(const float* x, size_t n) {
    uint32_t m = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t a = stepq_f32_bits(x[i]) & 0x7fffffffu;
        m = a > m ? a : m;
    }
    return m <= 0x7f7fffffu;
}

// ---------------------------------------------------------------------------------------------
// b-bit codes <-> floats (the codes' values, exact)

#if defined(STEPQ_RC_AVX512)
// Byte permutations of 16 codes: lane i (32 bits) of an unpacked group takes the bytes holding
// code i as its top bytes: a 6-bit code's byte (6 i) / 8 and the next, from which a left shift
// of 10 - (6 i) mod 8 puts the code in bits 26..31; a 4-bit code's byte i / 2, from which a
// left shift of 4 - (4 i) mod 8 puts it in bits 28..31; an arithmetic right shift brings it
// down with its sign. A packed group of 6-bit codes is bytes 0..2 of each 128-bit lane (the OR
// of its 4 shifted codes); rc_pick6x64 and rc_pick4x64 gather 64 codes (rc_pack64_6, _4).
static const uint8_t rc_idx6[64] __attribute__((aligned(64))) = {
    0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 2, 0, 0, 2, 3, 0, 0, 3, 4, 0, 0, 3, 4, 0, 0, 4, 5, 0, 0, 5, 6,
    0, 0, 6, 7, 0, 0, 6, 7, 0, 0, 7, 8, 0, 0, 8, 9, 0, 0, 9, 10, 0, 0, 9, 10, 0, 0, 10, 11, 0, 0, 11, 12};
static const uint8_t rc_idx4[64] __attribute__((aligned(64))) = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 3,
    0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0, 7};
static const uint8_t rc_pick6[64] __attribute__((aligned(64))) = {0, 1, 2, 16, 17, 18, 32, 33, 34, 48, 49, 50};
// output byte o (< 16) of 64 packed 2-bit codes: group o of 4 codes, which rc_pack64_2 leaves
// in the low byte of 32-bit lane s = o / 4 of 128-bit lane L = o mod 4: byte 16 L + 4 s
static const uint8_t rc_pick2x64[64] __attribute__((aligned(64))) = {
    0, 16, 32, 48, 4, 20, 36, 52, 8, 24, 40, 56, 12, 28, 44, 60};
// output byte o (< 48) of 64 packed 6-bit codes: group g = o / 3 of 4 codes, byte o mod 3 of it;
// rc_pack64_6 leaves group g = 4 s + L in 32-bit lane s of 128-bit lane L: byte 16 L + 4 s + o mod 3
static const uint8_t rc_pick6x64[64] __attribute__((aligned(64))) = {
    0, 1, 2, 16, 17, 18, 32, 33, 34, 48, 49, 50, 4, 5, 6, 20, 21, 22, 36, 37, 38, 52, 53, 54,
    8, 9, 10, 24, 25, 26, 40, 41, 42, 56, 57, 58, 12, 13, 14, 28, 29, 30, 44, 45, 46, 60, 61, 62};
// output byte o (< 32) of 64 packed 4-bit codes: codes c = 2 o and c + 1, which rc_pack64_4
// leaves in the 16-bit lane at byte 16 L + 4 s + c mod 4, with s = c / 16 and L = (c mod 16) / 4
static const uint8_t rc_pick4x64[64] __attribute__((aligned(64))) = {
    0, 2, 16, 18, 32, 34, 48, 50, 4, 6, 20, 22, 36, 38, 52, 54,
    8, 10, 24, 26, 40, 42, 56, 58, 12, 14, 28, 30, 44, 46, 60, 62};
#endif

#if defined(STEPQ_RC_AVX512)
// 16 codes of width b in {2, 4, 6, 8} at in -> int32 lanes, sign-extended. Width 2: the four
// bytes as one 32-bit word in every lane, lane i shifted left by 30 - 2 i (code i in bits 30,
// 31), then down with its sign
static inline __m512i rc_unpack16(const uint8_t* in, int b) {
    if (b == 8) return _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i*)in));
    if (b == 2) {
        uint32_t word;
        memcpy(&word, in, 4);
        const __m512i w = _mm512_sllv_epi32(_mm512_set1_epi32((int)word),
                                            _mm512_setr_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0));
        return _mm512_srai_epi32(w, 30);
    }
    __m128i src = _mm_maskz_loadu_epi8((__mmask16)((1u << (2 * b)) - 1), in);  // 2b bytes
    if (b == 6) {
        __m512i w = _mm512_permutexvar_epi8(_mm512_load_si512(rc_idx6), _mm512_castsi128_si512(src));
        w = _mm512_sllv_epi32(w, _mm512_set_epi32(8, 6, 4, 10, 8, 6, 4, 10, 8, 6, 4, 10, 8, 6, 4, 10));
        return _mm512_srai_epi32(w, 26);
    }
    __m512i w = _mm512_permutexvar_epi8(_mm512_load_si512(rc_idx4), _mm512_castsi128_si512(src));
    w = _mm512_sllv_epi32(w, _mm512_set_epi32(0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4));
    return _mm512_srai_epi32(w, 28);
}

// 16 codes (int32 lanes, in range) of width b in {2, 4, 6, 8} -> 2b bytes at out; more: the
// bytes after them may be overwritten (the next group's store follows)
static inline void rc_pack16(uint8_t* out, __m512i z, int b, int more) {
    if (b == 8) {
        _mm_storeu_si128((__m128i*)out, _mm512_cvtepi32_epi8(z));
    } else if (b == 2) {
        // as bytes, two multiply-adds form z0 | z1 << 2 | z2 << 4 | z3 << 6 in each 32-bit lane
        // (disjoint bit fields: the sums are the ORs), whose low bytes are the four bytes
        __m128i w = _mm_and_si128(_mm512_cvtepi32_epi8(z), _mm_set1_epi8(3));
        w = _mm_madd_epi16(_mm_maddubs_epi16(w, _mm_set1_epi16(4 << 8 | 1)), _mm_set1_epi32(16 << 16 | 1));
        const uint32_t word = (uint32_t)_mm_cvtsi128_si32(_mm_cvtepi32_epi8(w));
        memcpy(out, &word, 4);
    } else if (b == 6) {
        // per group of 4 lanes: z0 | z1 << 6 | z2 << 12 | z3 << 18, then 3 bytes of each group
        z = _mm512_and_si512(z, _mm512_set1_epi32(63));
        z = _mm512_sllv_epi32(z, _mm512_set_epi32(18, 12, 6, 0, 18, 12, 6, 0, 18, 12, 6, 0, 18, 12, 6, 0));
        z = _mm512_or_si512(z, _mm512_shuffle_epi32(z, (_MM_PERM_ENUM)0xb1));
        z = _mm512_or_si512(z, _mm512_shuffle_epi32(z, (_MM_PERM_ENUM)0x4e));
        __m128i packed = _mm512_castsi512_si128(_mm512_permutexvar_epi8(_mm512_load_si512(rc_pick6), z));
        if (more) _mm_storeu_si128((__m128i*)out, packed);
        else _mm_mask_storeu_epi8(out, (__mmask16)0x0fff, packed);
    } else {
        // as 16-bit pairs of bytes: the low nibble of the first | that of the second << 4
        __m128i by = _mm512_cvtepi32_epi8(z);
        __m128i w = _mm_or_si128(_mm_and_si128(by, _mm_set1_epi16(0x000f)),
                                 _mm_and_si128(_mm_srli_epi16(by, 4), _mm_set1_epi16(0x00f0)));
        _mm_storel_epi64((__m128i*)out, _mm_packus_epi16(w, w));
    }
}
// 64 codes of width 6 (z: four vectors of int32 lanes, in range) -> 48 bytes at out; more: the
// 16 bytes after them may be overwritten. The four vectors narrowed to bytes side by side keep
// each group of 4 codes in one 32-bit lane (lane s of 128-bit lane L: codes 16 s + 4 L ...);
// two multiply-adds form z0 | z1 << 6 | z2 << 12 | z3 << 18 there (the masked codes are
// disjoint bit fields, so the sums are the ORs), and rc_pick6x64 puts the groups in order.
static inline void rc_pack64_6(uint8_t* out, const __m512i* z, int more) {
    __m512i w = _mm512_packs_epi16(_mm512_packs_epi32(z[0], z[1]), _mm512_packs_epi32(z[2], z[3]));
    w = _mm512_and_si512(w, _mm512_set1_epi8(63));
    w = _mm512_maddubs_epi16(w, _mm512_set1_epi16(64 << 8 | 1));       // z0 + 64 z1
    w = _mm512_madd_epi16(w, _mm512_set1_epi32(4096 << 16 | 1));       // + 4096 (z2 + 64 z3)
    w = _mm512_permutexvar_epi8(_mm512_load_si512(rc_pick6x64), w);
    if (more) _mm512_storeu_si512(out, w);
    else _mm512_mask_storeu_epi8(out, (1ull << 48) - 1, w);
}
// 64 codes of width 4 (z: four vectors of int32 lanes, in range) -> 32 bytes at out: narrowed
// to bytes side by side as in rc_pack64_6, a multiply-add forms z0 | z1 << 4 of each pair in a
// 16-bit lane, and rc_pick4x64 puts the pairs' low bytes in order
static inline void rc_pack64_4(uint8_t* out, const __m512i* z) {
    __m512i w = _mm512_packs_epi16(_mm512_packs_epi32(z[0], z[1]), _mm512_packs_epi32(z[2], z[3]));
    w = _mm512_and_si512(w, _mm512_set1_epi8(15));
    w = _mm512_maddubs_epi16(w, _mm512_set1_epi16(16 << 8 | 1));       // z0 + 16 z1
    w = _mm512_permutexvar_epi8(_mm512_load_si512(rc_pick4x64), w);
    _mm256_storeu_si256((__m256i*)out, _mm512_castsi512_si256(w));
}
// 64 codes of width 8 (z: four vectors of int32 lanes, in range) -> 64 bytes at out: narrowed to
// bytes side by side as in rc_pack64_6 (saturation changes no code in range), 128-bit lane L
// holds 4 codes of each vector (dword 4 L + v: codes 4 L .. 4 L + 3 of vector v), and a dword
// permutation puts them in order: 4 shuffles for 64 codes where four narrowing moves (vpmovdb)
// take 8. With the unclamped codes of rc_row_scales16's rows (medians of 7 alternating runs of
// the unmeasured step, old and new kernels in one process): INT8 5.04 -> 4.47 us, INT6 5.78 ->
// 5.34, INT4 5.60 -> 5.30, DAMP 11.06 -> 10.47, the float32 step 2.56 beside them
static inline void rc_pack64_8(uint8_t* out, const __m512i* z) {
    const __m512i w = _mm512_packs_epi16(_mm512_packs_epi32(z[0], z[1]), _mm512_packs_epi32(z[2], z[3]));
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    _mm512_storeu_si512(out, _mm512_permutexvar_epi32(order, w));
}
// 64 codes of width 2 (z: four vectors of int32 lanes, in range) -> 16 bytes at out: narrowed
// to bytes side by side as in rc_pack64_6 (each group of 4 codes in one 32-bit lane: lane s of
// 128-bit lane L holds codes 16 s + 4 L ...), two multiply-adds form the group's byte z0 | z1 << 2
// | z2 << 4 | z3 << 6 at the lane's bottom, and rc_pick2x64 puts the 16 bytes in order
static inline void rc_pack64_2(uint8_t* out, const __m512i* z) {
    __m512i w = _mm512_packs_epi16(_mm512_packs_epi32(z[0], z[1]), _mm512_packs_epi32(z[2], z[3]));
    w = _mm512_and_si512(w, _mm512_set1_epi8(3));
    w = _mm512_maddubs_epi16(w, _mm512_set1_epi16(4 << 8 | 1));   // z0 + 4 z1
    w = _mm512_madd_epi16(w, _mm512_set1_epi32(16 << 16 | 1));     // + 16 (z2 + 4 z3)
    w = _mm512_permutexvar_epi8(_mm512_load_si512(rc_pick2x64), w);
    _mm_storeu_si128((__m128i*)out, _mm512_castsi512_si128(w));
}
// 64 codes (four vectors) of width b in {2, 4, 6, 8} -> 8 b bytes at out; more: as rc_pack64_6's.
// Always inlined: where b is not a constant (LeapQuant's base and residual rows) GCC called it,
// and the codes went through memory (leap6-r4's fused step 12.5 -> 11.8 us)
static inline __attribute__((always_inline)) void rc_pack64(uint8_t* out, const __m512i* z, int b, int more) {
    if (b == 6) rc_pack64_6(out, z, more);
    else if (b == 4) rc_pack64_4(out, z);
    else if (b == 2) rc_pack64_2(out, z);
    else rc_pack64_8(out, z);
}

// the codes of 16 values x: x times 1/s (vi), clamped to [lo, hi] = [-qmax, qmax] (max, min keep
// the scalar loop's order for finite values), rounded half to even (the conversion's default
// rounding; the clamped values are exact there)
static inline __m512i rc_codes16(__m512 x, __m512 vi, __m512 lo, __m512 hi) {
    return _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(x, vi), lo), hi));
}
// rc_codes16 of a row whose clamp changes no code (rc_row_scales16's mask): x times 1/s, rounded
static inline __m512i rc_codes16_inside(__m512 x, __m512 vi) { return _mm512_cvtps_epi32(_mm512_mul_ps(x, vi)); }

// the values s z of the 16 b-bit codes at in, vs = s in every lane
static inline __m512 rc_values16(const uint8_t* in, int b, __m512 vs) {
    return _mm512_mul_ps(vs, _mm512_cvtepi32_ps(rc_unpack16(in, b)));
}
#define RC_SIMD_WIDTH(b) ((b) == 2 || (b) == 4 || (b) == 6 || (b) == 8)
#endif

// zf (V) <- the b-bit codes of in as floats
STEPQ_RC void rc_unpack_f32(float* zf, const uint8_t* in, int b, int V) {
    int j = 0;
#if defined(STEPQ_RC_AVX512)
    if (RC_SIMD_WIDTH(b))
        for (; j + 16 <= V; j += 16) _mm512_storeu_ps(zf + j, _mm512_cvtepi32_ps(rc_unpack16(in + j * b / 8, b)));
#endif
    if (j < V) {  // the definition (and the tail)
        int8_t z[STEPQ_MAX_DIM];
        stepq_unpack_fast(z + j, in + (size_t)j * b / 8, (size_t)(V - j), b);
        for (; j < V; j++) zf[j] = (float)z[j];
    }
}

// out <- zf (V) as b-bit codes; zf holds integers in [-2^(b-1), 2^(b-1) - 1]
STEPQ_RC void rc_pack_f32(uint8_t* out, const float* zf, int b, int V) {
    int j = 0;
#if defined(STEPQ_RC_AVX512)
    if (RC_SIMD_WIDTH(b))
        for (; j + 16 <= V; j += 16)
            rc_pack16(out + j * b / 8, _mm512_cvtps_epi32(_mm512_loadu_ps(zf + j)), b, j + 32 <= V);
#endif
    if (j < V) {  // the definition (and the tail)
        int8_t z[STEPQ_MAX_DIM];
        for (int k = j; k < V; k++) z[k] = (int8_t)zf[k];
        stepq_pack_fast(out + (size_t)j * b / 8, z + j, (size_t)(V - j), b);
    }
}

// ---------------------------------------------------------------------------------------------
// FP16 rows (pivots, DAMP's persistent rows, the fp16 format), saturating at +-65504

// out <- x (V) as FP16; xq (V, may be NULL) <- the decoded values; STEPQ_ERR on NaN or Inf
STEPQ_RC int rc_f16_encode_row(uint8_t* out, float* xq, const float* x, int V) {
    if (!rc_all_finite(x, (size_t)V)) return STEPQ_ERR;
    int j = 0;
#if defined(STEPQ_RC_AVX512) || defined(STEPQ_RC_AVX2)
    // the hardware conversion is IEEE round-half-to-even, as stepq_f32_to_f16 is, for finite x
    const __m256 hi = _mm256_set1_ps(STEPQ_FP16_MAX), lo = _mm256_set1_ps(-STEPQ_FP16_MAX);
    for (; j + 8 <= V; j += 8) {
        __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_loadu_ps(x + j), lo), hi);
        __m128i h = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128((__m128i*)(out + 2 * j), h);
        if (xq) _mm256_storeu_ps(xq + j, _mm256_cvtph_ps(h));
    }
#endif
    for (; j < V; j++) {
        uint16_t h = stepq_f32_to_f16_sat(x[j]);
        memcpy(out + 2 * j, &h, 2);
        if (xq) xq[j] = stepq_f16_to_f32(h);
    }
    return STEPQ_OK;
}

STEPQ_RC void rc_f16_decode_row(float* x, const uint8_t* in, int V) {
    int j = 0;
#if defined(STEPQ_RC_AVX512) || defined(STEPQ_RC_AVX2)
    const int n8 = V & ~7;
    for (; j < n8; j += 8) _mm256_storeu_ps(x + j, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(in + 2 * j))));
#endif
    for (; j < V; j++) {
        uint16_t h;
        memcpy(&h, in + 2 * j, 2);
        x[j] = stepq_f16_to_f32(h);
    }
}

STEPQ_RC void rc_bf16_encode_row(uint8_t* out, float* xq, const float* x, int V) {
    for (int j = 0; j < V; j++) {
        uint16_t h = stepq_f32_to_bf16(x[j]);
        memcpy(out + 2 * j, &h, 2);
        if (xq) xq[j] = stepq_bf16_to_f32(h);
    }
}

STEPQ_RC void rc_bf16_decode_row(float* x, const uint8_t* in, int V) {
    for (int j = 0; j < V; j++) {
        uint16_t h;
        memcpy(&h, in + 2 * j, 2);
        x[j] = stepq_bf16_to_f32(h);
    }
}

// ---------------------------------------------------------------------------------------------
// rows layout: symmetric absmax per row with an FP16 scale (layout.h "rows")

// stepq_row_scale and stepq_f16_to_f32 (numerics.h) with the hardware's IEEE conversions where
// there are any: the same bits for every positive finite amax, with a shorter dependency chain
// before a row's codes
STEPQ_RC uint16_t rc_row_scale(float amax, float qmax) {
#if defined(STEPQ_RC_AVX512) || defined(STEPQ_RC_AVX2)
    if (!(amax > 0.0f)) return 0;
    float f = amax / qmax;
    f = f > STEPQ_FP16_MAX ? STEPQ_FP16_MAX : f;
    uint16_t h = _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
    return (h & 0x7fffu) == 0 ? (uint16_t)1u : h;
#else
    return stepq_row_scale(amax, qmax);
#endif
}
#if defined(STEPQ_RC_AVX512)
// rc_row_scale of 16 rows side by side (umax: their largest |x| as float bits; a lane that is
// not finite gets a scale that is never stored), and the reciprocal that a row's codes take,
// 1 / fp16 value (0 for a zero scale): lane by lane the scalar operations, one vector chain for
// 16 rows instead of 16 scalar ones. Returns the rows whose codes the clamp to [-qmax, qmax]
// cannot change, amax inv < qmax + 1/2: rounding is monotone, so every |x| inv of the row
// (|x| <= amax) is at most amax inv, and a value in (qmax, qmax + 1/2) rounds to qmax as its
// clamp does (every row whose scale is a normal FP16 value below the top: 1/s at most
// 1 + 2^-11 above qmax / amax; a zero scale's inv 0 too). Their codes skip the clamp
// (rc_codes16_inside): two operations of a code's six
static inline __mmask16 rc_row_scales16(uint16_t* sh, float* inv, const uint32_t* umax, const float* qmax) {
    const __m512 amax = _mm512_castsi512_ps(_mm512_loadu_si512(umax)), top = _mm512_set1_ps(STEPQ_FP16_MAX);
    __m512 f = _mm512_div_ps(amax, _mm512_loadu_ps(qmax));
    f = _mm512_mask_mov_ps(f, _mm512_cmp_ps_mask(f, top, _CMP_GT_OQ), top);
    __m256i h = _mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT);
    // (h & 0x7fff) == 0 -> 1; !(amax > 0) -> 0
    h = _mm256_mask_mov_epi16(h, _mm256_testn_epi16_mask(h, _mm256_set1_epi16(0x7fff)), _mm256_set1_epi16(1));
    h = _mm256_maskz_mov_epi16(_mm512_cmp_ps_mask(amax, _mm512_setzero_ps(), _CMP_GT_OQ), h);
    const __m512 sc = _mm512_cvtph_ps(h);
    _mm256_storeu_si256((__m256i*)sh, h);
    const __m512 vi = _mm512_maskz_div_ps(_mm512_cmp_ps_mask(sc, _mm512_setzero_ps(), _CMP_GT_OQ), _mm512_set1_ps(1.0f), sc);
    _mm512_storeu_ps(inv, vi);
    const __m512 edge = _mm512_add_ps(_mm512_loadu_ps(qmax), _mm512_set1_ps(0.5f));  // exact: qmax < 2^7
    return _mm512_cmp_ps_mask(_mm512_mul_ps(amax, vi), edge, _CMP_LT_OQ);  // (NaN, Inf lanes: not)
}
#endif
STEPQ_RC float rc_f16_to_f32(uint16_t h) {
#if defined(STEPQ_RC_AVX512) || defined(STEPQ_RC_AVX2)
    return _cvtsh_ss(h);
#else
    return stepq_f16_to_f32(h);
#endif
}

// the largest |x| (V) as float bits: for non-negative floats their order is the integer order,
// and NaN/Inf are the patterns above FLT_MAX's, so one max finds both
STEPQ_RC uint32_t rc_absmax_bits(const float* x, int V) {
    uint32_t umax = 0;
    for (int j = 0; j < V; j++) {
        uint32_t u = stepq_f32_bits(x[j]) & 0x7fffffffu;
        umax = u > umax ? u : umax;
    }
    return umax;
}

// one row of width b < 16 with its FP16 scale sh already chosen: scale + codes; xq (may be
// NULL) <- the decoded row s z
STEPQ_RC void rc_rows_encode_scaled(uint8_t* out, float* xq, const float* x, uint16_t sh, int b, int V) {
    const float qmax = (float)STEPQ_QMAX(b);
    float zf[STEPQ_MAX_DIM];
    float s = rc_f16_to_f32(sh);
    float inv = s > 0.0f ? 1.0f / s : 0.0f;
    memcpy(out, &sh, 2);
    int j = 0;
#if defined(STEPQ_RC_AVX512)
    // the codes in registers (rc_codes16), packed 64 at a time, then 16
    if (RC_SIMD_WIDTH(b)) {
        const __m512 vi = _mm512_set1_ps(inv), lo = _mm512_set1_ps(-qmax), hi = _mm512_set1_ps(qmax);
        const __m512 vs = _mm512_set1_ps(s);
        for (; j + 64 <= V; j += 64) {
            __m512i z[4];
            for (int k = 0; k < 4; k++) {
                z[k] = rc_codes16(_mm512_loadu_ps(x + j + 16 * k), vi, lo, hi);
                if (xq) _mm512_storeu_ps(xq + j + 16 * k, _mm512_mul_ps(vs, _mm512_cvtepi32_ps(z[k])));
            }
            rc_pack64(out + 2 + j * b / 8, z, b, j + 128 <= V);
        }
        for (; j + 16 <= V; j += 16) {
            __m512i z = rc_codes16(_mm512_loadu_ps(x + j), vi, lo, hi);
            rc_pack16(out + 2 + j * b / 8, z, b, j + 32 <= V);
            if (xq) _mm512_storeu_ps(xq + j, _mm512_mul_ps(vs, _mm512_cvtepi32_ps(z)));
        }
    }
#endif
    if (j == V) return;
    for (int k = j; k < V; k++) zf[k] = stepq_code(x[k] * inv, qmax);
    rc_pack_f32(out + 2 + (size_t)j * b / 8, zf + j, b, V - j);
    if (xq)
        for (int k = j; k < V; k++) xq[k] = s * zf[k];
}

// one row of width b < 16: scale + codes; xq (may be NULL) <- the decoded row s z; STEPQ_ERR on
// NaN or Inf
STEPQ_RC int rc_rows_encode_row(uint8_t* out, float* xq, const float* x, int b, int V) {
    uint32_t umax = rc_absmax_bits(x, V);
    if (umax > 0x7f7fffffu) return STEPQ_ERR;
    // an all-zero row stores scale 0 and zero codes; otherwise the FP16 factor rule
    rc_rows_encode_scaled(out, xq, x, rc_row_scale(stepq_bits_f32(umax), (float)STEPQ_QMAX(b)), b, V);
    return STEPQ_OK;
}

STEPQ_RC void rc_rows_decode_row(float* x, const uint8_t* in, int b, int V) {
    uint16_t sh;
    memcpy(&sh, in, 2);
    float s = rc_f16_to_f32(sh);
    int j = 0;
#if defined(STEPQ_RC_AVX512)
    if (RC_SIMD_WIDTH(b)) {
        const __m512 vs = _mm512_set1_ps(s);
        for (; j + 16 <= V; j += 16) _mm512_storeu_ps(x + j, rc_values16(in + 2 + j * b / 8, b, vs));
    }
#endif
    if (j == V) return;
    rc_unpack_f32(x + j, in + 2 + (size_t)j * b / 8, b, V - j);
    for (; j < V; j++) x[j] = s * x[j];
}

// a row of the rows layout at any width (16: FP16)
STEPQ_RC int rc_row_encode(uint8_t* out, float* xq, const float* x, int b, int V) {
    return b == STEPQ_PIVOT_BITS ? rc_f16_encode_row(out, xq, x, V) : rc_rows_encode_row(out, xq, x, b, V);
}
STEPQ_RC void rc_row_decode(float* x, const uint8_t* in, int b, int V) {
    if (b == STEPQ_PIVOT_BITS) rc_f16_decode_row(x, in, V);
    else rc_rows_decode_row(x, in, b, V);
}

// ---------------------------------------------------------------------------------------------
// DAMP's rotation: the orthonormal Walsh-Hadamard transform of n (a power of two) values, in
// place (scaled by 1/sqrt(n), so it is its own inverse)

#if defined(STEPQ_RC_AVX512)
// -1 in the lanes of mask m (the upper of each pair), +1 elsewhere
static inline __m512 rc_fwht_signs(__mmask16 m) {
    return _mm512_mask_blend_ps(m, _mm512_set1_ps(1.0f), _mm512_set1_ps(-1.0f));
}

// the stages inside a vector of 16 (h = 1, 2, 4, 8): each lane adds or subtracts its partner as
// rc_fwht's loop does, the lower of a pair taking a + b, the upper a - b, as one multiply-add
// v sign + partner: the product by +-1 is exact and the sum rounds once, so b + a = a + b and
// a + (-b) = a - b to the bit
static inline __m512 rc_fwht_in16(__m512 v) {
    v = _mm512_fmadd_ps(v, rc_fwht_signs(0xaaaa), _mm512_permute_ps(v, 0xb1));
    v = _mm512_fmadd_ps(v, rc_fwht_signs(0xcccc), _mm512_permute_ps(v, 0x4e));
    v = _mm512_fmadd_ps(v, rc_fwht_signs(0xf0f0), _mm512_shuffle_f32x4(v, v, 0xb1));
    return _mm512_fmadd_ps(v, rc_fwht_signs(0xff00), _mm512_shuffle_f32x4(v, v, 0x4e));
}

// rc_fwht of a 128-wide row held in eight vectors: the stages inside each vector, then those
// between vectors (h = 16, 32, 64), then the scale. Always inlined: GCC called it (three times
// a DAMP row), so the row went through memory around each call (DAMP's fused step alone
// 15.2 -> 12.9 us, fastest of 11 alternating runs)
static inline __attribute__((always_inline)) void rc_fwht128(__m512* v) {
    for (int k = 0; k < 8; k++) v[k] = rc_fwht_in16(v[k]);
    for (int w = 1; w < 8; w *= 2)
        for (int k = 0; k < 8; k++)
            if (!(k & w)) {
                __m512 a = v[k], b = v[k + w];
                v[k] = _mm512_add_ps(a, b);
                v[k + w] = _mm512_sub_ps(a, b);
            }
    const __m512 sc = _mm512_set1_ps(1.0f / sqrtf(128.0f));
    for (int k = 0; k < 8; k++) v[k] = _mm512_mul_ps(v[k], sc);
}
#endif

STEPQ_RC void rc_fwht(float* x, int n) {
    int h = 1;
#if defined(STEPQ_RC_AVX512)
    if (n == 128) {
        __m512 v[8];
        for (int k = 0; k < 8; k++) v[k] = _mm512_loadu_ps(x + 16 * k);
        rc_fwht128(v);
        for (int k = 0; k < 8; k++) _mm512_storeu_ps(x + 16 * k, v[k]);
        return;
    }
    if (n % 16 == 0) {
        for (int i = 0; i < n; i += 16) _mm512_storeu_ps(x + i, rc_fwht_in16(_mm512_loadu_ps(x + i)));
        h = 16;
    }
#endif
    for (; h < n; h *= 2)
        for (int i = 0; i < n; i += 2 * h)
            for (int j = i; j < i + h; j++) {
                float a = x[j], b = x[j + h];
                x[j] = a + b;
                x[j + h] = a - b;
            }
    float s = 1.0f / sqrtf((float)n);
    for (int i = 0; i < n; i++) x[i] *= s;
}

// ---------------------------------------------------------------------------------------------
// NVFP4 rows: per 16 values one E4M3 scale byte and 8 bytes of E2M1 codes (layout.h)

// the largest |x| of n finite values (the same value as comparing the floats: for non-negative
// floats the order of the bit patterns is the order of the values; and it vectorises)
STEPQ_RC float rc_absmax(const float* x, size_t n) {
    uint32_t m = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t a = stepq_f32_bits(x[i]) & 0x7fffffffu;
        m = a > m ? a : m;
    }
    return stepq_bits_f32(m);
}

#if defined(STEPQ_RC_AVX512)
// E2M1 values by code (sign in bit 3; code 8 is -0)
static const float rc_e2m1_values[16] __attribute__((aligned(64))) = {
    0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f, -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};

// 16 E2M1 codes of x / s in int32 lanes (x / s not NaN), the codes stepq_e2m1_encode's
// thresholds give: below 1 the nearest of 0, 0.5, 1 is round_even(2 a) (the conversion's
// default rounding; 2 a exact); from 1 on, a's float bits rounded half to even at the first
// mantissa bit, whose exponent and mantissa bit (the bits from 22 up) count the E2M1 codes
// from 1.0 (code 2) in order, saturating at 7 (6.0)
static inline __m512i rc_e2m1_codes16(__m512 x, __m512 s) {
    const __m512 t = _mm512_div_ps(x, s), a = _mm512_abs_ps(t);
    const __m512i u = _mm512_castps_si512(a);
    __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x1fffff),
                                                     _mm512_and_si512(_mm512_srli_epi32(u, 22), _mm512_set1_epi32(1))));
    __m512i c = _mm512_min_epu32(_mm512_sub_epi32(_mm512_srli_epi32(r, 22), _mm512_set1_epi32(252)), _mm512_set1_epi32(7));
    c = _mm512_mask_mov_epi32(c, _mm512_cmp_ps_mask(a, _mm512_set1_ps(1.0f), _CMP_LT_OQ),
                              _mm512_cvtps_epi32(_mm512_add_ps(a, a)));
    // the sign where the code is not 0 (a > 0.25)
    return _mm512_mask_or_epi32(c, _mm512_cmp_ps_mask(t, _mm512_set1_ps(-0.25f), _CMP_LT_OQ), c, _mm512_set1_epi32(8));
}

// 16 codes (int32 lanes, 0..15) -> 8 bytes, low nibble first
static inline void rc_nibbles16(uint8_t* out, __m512i c) {
    __m128i by = _mm512_cvtepi32_epi8(c);
    __m128i w = _mm_or_si128(_mm_and_si128(by, _mm_set1_epi16(0x000f)),
                             _mm_and_si128(_mm_srli_epi16(by, 4), _mm_set1_epi16(0x00f0)));
    _mm_storel_epi64((__m128i*)out, _mm_packus_epi16(w, w));
}

// stepq_e4m3_encode of 16 floats side by side (each branch a mask; the same integer arithmetic)
static inline __m512i rc_e4m3_codes16(__m512 x) {
    const __m512i u = _mm512_castps_si512(x);
    __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7ffff),
                                                     _mm512_and_si512(_mm512_srli_epi32(u, 20), _mm512_set1_epi32(1))));
    __m512i c = _mm512_or_si512(_mm512_slli_epi32(_mm512_sub_epi32(_mm512_srli_epi32(r, 23), _mm512_set1_epi32(120)), 3),
                                _mm512_and_si512(_mm512_srli_epi32(r, 20), _mm512_set1_epi32(7)));
    // below 2^-6: round_even(x 512), which the conversion's default rounding gives (x 512 < 8, exact)
    __mmask16 sub = _mm512_cmp_ps_mask(x, _mm512_set1_ps(0.015625f), _CMP_LT_OQ);
    c = _mm512_mask_mov_epi32(c, sub, _mm512_cvtps_epi32(_mm512_mul_ps(x, _mm512_set1_ps(512.0f))));
    c = _mm512_mask_mov_epi32(c, _mm512_cmp_ps_mask(x, _mm512_set1_ps(448.0f), _CMP_GE_OQ), _mm512_set1_epi32(0x7e));
    return _mm512_maskz_mov_epi32(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ), c);  // !(x > 0): 0
}

// stepq_e4m3_decode of 16 codes in [0, 0x7e] (as the encoder above gives: no sign, no NaN)
static inline __m512 rc_e4m3_values16(__m512i c) {
    const __m512i e = _mm512_and_si512(_mm512_srli_epi32(c, 3), _mm512_set1_epi32(15)), m = _mm512_and_si512(c, _mm512_set1_epi32(7));
    __m512 normal = _mm512_castsi512_ps(_mm512_or_si512(_mm512_slli_epi32(_mm512_add_epi32(e, _mm512_set1_epi32(120)), 23),
                                                        _mm512_slli_epi32(m, 20)));
    __m512 sub = _mm512_mul_ps(_mm512_cvtepi32_ps(m), _mm512_set1_ps(0.001953125f));
    return _mm512_mask_blend_ps(_mm512_cmpeq_epi32_mask(e, _mm512_setzero_si512()), normal, sub);
}

// output byte p (< 36) of four NVFP4 blocks: block k = p / 9 is its scale byte (byte k of the
// second source) and the 8 bytes of its codes, which rc_nvfp4_pack4's multiply-add leaves where
// rc_pack64_4's does (rc_pick4x64)
static const uint8_t rc_pick_nvfp4x4[64] __attribute__((aligned(64))) = {
    64, 0, 2, 16, 18, 32, 34, 48, 50, 65, 4, 6, 20, 22, 36, 38, 52, 54,
    66, 8, 10, 24, 26, 40, 42, 56, 58, 67, 12, 14, 28, 30, 44, 46, 60, 62};

// four blocks' E2M1 codes (z: int32 lanes, 0..15) and E4M3 scales (sc) -> their 36 bytes, as
// rc_pack64_4 packs 64 codes (narrowed side by side, a multiply-add per pair), with the scale
// bytes put in front of each block by the same permutation
static inline void rc_nvfp4_pack4(uint8_t* out, const __m512i* z, const uint32_t* sc) {
    __m512i w = _mm512_packs_epi16(_mm512_packs_epi32(z[0], z[1]), _mm512_packs_epi32(z[2], z[3]));
    w = _mm512_maddubs_epi16(w, _mm512_set1_epi16(16 << 8 | 1));  // z0 + 16 z1
    const __m512i s = _mm512_castsi128_si512(_mm_cvtepi32_epi8(_mm_loadu_si128((const __m128i*)sc)));
    _mm512_mask_storeu_epi8(out, (1ull << 36) - 1,
                            _mm512_permutex2var_epi8(w, _mm512_load_si512(rc_pick_nvfp4x4), s));
}

// the largest |x| as float bits of each of 8 blocks of 16 (x: 128 values) in lanes 0..7 of the
// result, 0 in lanes 8..15: the eight vectors reduced together (their halves, then quarters,
// then pairs of lanes meet in one max per two blocks) instead of each alone across its lanes;
// the same maxima, max being exact in any order
// the first two levels of reducing vectors together (unsigned 32-bit lanes): a's and b's halves
// met (lanes 0..7: a's, 8..15: b's); then the 128-bit lanes 2L and 2L + 1 of the pair (a, b)
// met in lane L (a's two in lanes 0, 1, b's in 2, 3)
static inline __m512i rc_max_halves(__m512i a, __m512i b) {
    return _mm512_max_epu32(_mm512_shuffle_i32x4(a, b, 0x44), _mm512_shuffle_i32x4(a, b, 0xee));
}
static inline __m512i rc_max_quarters(__m512i a, __m512i b) {
    return _mm512_max_epu32(_mm512_shuffle_i32x4(a, b, 0x88), _mm512_shuffle_i32x4(a, b, 0xdd));
}
static inline __m512i rc_absmax8x16(const float* x) {
    __m512i v[8];
    for (int k = 0; k < 8; k++) v[k] = _mm512_and_si512(_mm512_loadu_si512(x + 16 * k), _mm512_set1_epi32(0x7fffffff));
    __m512i h[4], q[2];
    for (int k = 0; k < 4; k++) h[k] = rc_max_halves(v[2 * k], v[2 * k + 1]);  // lanes 0..7: block 2k's, 8..15: 2k + 1's
    for (int k = 0; k < 2; k++) q[k] = rc_max_quarters(h[2 * k], h[2 * k + 1]);  // 128-bit lane L: block 4k + L's
    // 128-bit lane L: block L's pairs (dwords 0, 1), block 4 + L's (2, 3)
    __m512i m = _mm512_max_epu32(_mm512_unpacklo_epi64(q[0], q[1]), _mm512_unpackhi_epi64(q[0], q[1]));
    m = _mm512_max_epu32(m, _mm512_shuffle_epi32(m, (_MM_PERM_ENUM)0xb1));
    return _mm512_maskz_permutexvar_epi32(0x00ff, _mm512_setr_epi32(0, 4, 8, 12, 2, 6, 10, 14, 0, 0, 0, 0, 0, 0, 0, 0), m);
}

// rc_nvfp4_encode_row's blocks for s_head > 0, nb consecutive blocks of 16 values (a row, or
// a whole head: its rows are contiguous in X and in the packed bytes), 64 at a time: first their
// scales, 8 blocks side by side (rc_absmax, the two divisions, E4M3 encode and decode, as the
// scalar loop takes them one by one), then each block's codes, packed four blocks at a time.
// Two loops instead of one per 8 blocks: a block's codes wait for the scale's chain (a
// reduction, two divisions, the E4M3 round trip), which the next 64 blocks' work now overlaps
// (the NVFP4 step alone 13.4 -> 11.4 us, fastest of 11 alternating runs)
static inline void rc_nvfp4_encode_blocks16(uint8_t* P, float* xq, const float* x, float s_head, size_t nb) {
    for (size_t c0 = 0; c0 < nb; c0 += 64) {
        const int n = nb - c0 < 64 ? (int)(nb - c0) : 64;
        const float* xc = x + c0 * STEPQ_NVFP4_BLOCK;
        uint32_t sc[64];
        float sv[64];
        for (int k = 0; k < n; k += 8) {
            const int m = n - k < 8 ? n - k : 8;
            __m512i vam;
            if (m == 8) {
                vam = rc_absmax8x16(xc + (size_t)k * STEPQ_NVFP4_BLOCK);
            } else {
                uint32_t am[16] = {0};
                for (int l = 0; l < m; l++)
                    am[l] = _mm512_reduce_max_epu32(_mm512_and_si512(_mm512_loadu_si512(xc + (size_t)(k + l) * STEPQ_NVFP4_BLOCK),
                                                                     _mm512_set1_epi32(0x7fffffff)));
                vam = _mm512_loadu_si512(am);
            }
            __m512 t = _mm512_div_ps(_mm512_div_ps(_mm512_castsi512_ps(vam), _mm512_set1_ps(6.0f)),
                                     _mm512_set1_ps(s_head));
            __m512i c = rc_e4m3_codes16(t);
            const __mmask16 lanes = (__mmask16)((1u << m) - 1);
            _mm512_mask_storeu_epi32(sc + k, lanes, c);
            _mm512_mask_storeu_ps(sv + k, lanes, _mm512_mul_ps(rc_e4m3_values16(c), _mm512_set1_ps(s_head)));
        }
        uint8_t* B = P + c0 * STEPQ_NVFP4_BLOCK_BYTES;
        for (int k = 0; k < n; k += 4) {
            __m512i z[4];
            const int m = n - k < 4 ? n - k : 4;
            for (int l = 0; l < 4; l++) {
                const size_t j0 = (size_t)(k + l) * STEPQ_NVFP4_BLOCK;
                // a zero scale stores zero codes, which decode to +0
                z[l] = l < m && sv[k + l] > 0 ? rc_e2m1_codes16(_mm512_loadu_ps(xc + j0), _mm512_set1_ps(sv[k + l]))
                                              : _mm512_setzero_si512();
                if (xq && l < m)
                    _mm512_storeu_ps(xq + c0 * STEPQ_NVFP4_BLOCK + j0,
                                     _mm512_mul_ps(_mm512_permutexvar_ps(z[l], _mm512_load_ps(rc_e2m1_values)),
                                                   _mm512_set1_ps(sv[k + l])));
            }
            if (m == 4) {
                rc_nvfp4_pack4(B, z, sc + k);
                B += 4 * STEPQ_NVFP4_BLOCK_BYTES;
                continue;
            }
            for (int l = 0; l < m; l++, B += STEPQ_NVFP4_BLOCK_BYTES) {  // the last blocks
                B[0] = (uint8_t)sc[k + l];
                rc_nibbles16(B + 1, z[l]);
            }
        }
    }
}

// 8 bytes -> 16 codes (int32 lanes)
static inline __m512i rc_unnibble16(const uint8_t* in) {
    __m128i b = _mm_maskz_loadu_epi8(0xff, in);
    __m128i lo = _mm_and_si128(b, _mm_set1_epi8(15)), hi = _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi8(15));
    return _mm512_cvtepu8_epi32(_mm_unpacklo_epi8(lo, hi));
}
#endif

// the blocks of one row; s_head the head's FP32 scale; xq (may be NULL) <- the decoded row
STEPQ_RC void rc_nvfp4_encode_row(uint8_t* P, float* xq, const float* x, float s_head, int V) {
#if defined(STEPQ_RC_AVX512)
    if (s_head > 0) {
        rc_nvfp4_encode_blocks16(P, xq, x, s_head, (size_t)V / STEPQ_NVFP4_BLOCK);
        return;
    }
#endif
    for (int b0 = 0; b0 < V; b0 += STEPQ_NVFP4_BLOCK, P += STEPQ_NVFP4_BLOCK_BYTES) {
        const float* xb = x + b0;
        uint8_t sc = s_head > 0 ? stepq_e4m3_encode(rc_absmax(xb, STEPQ_NVFP4_BLOCK) / 6.0f / s_head) : 0;
        float s = stepq_e4m3_decode(sc) * s_head;
        P[0] = sc;
        uint8_t c[STEPQ_NVFP4_BLOCK];
        for (int j = 0; j < STEPQ_NVFP4_BLOCK; j++) c[j] = s > 0 ? stepq_e2m1_encode(xb[j] / s) : 0;
        for (int j = 0; j < STEPQ_NVFP4_BLOCK; j += 2) P[1 + j / 2] = (uint8_t)(c[j] | (c[j + 1] << 4));
        if (xq)
            for (int j = 0; j < STEPQ_NVFP4_BLOCK; j++) xq[b0 + j] = stepq_e2m1_decode(c[j]) * s;
    }
}

// the blocks of K rows of V (X and P contiguous, as a head's): rc_nvfp4_encode_row of each row
STEPQ_RC void rc_nvfp4_encode_rows(uint8_t* P, const float* X, float s_head, int K, int V) {
#if defined(STEPQ_RC_AVX512)
    if (s_head > 0) {
        rc_nvfp4_encode_blocks16(P, NULL, X, s_head, (size_t)K * V / STEPQ_NVFP4_BLOCK);
        return;
    }
#endif
    for (int i = 0; i < K; i++)
        rc_nvfp4_encode_row(P + (size_t)i * V / STEPQ_NVFP4_BLOCK * STEPQ_NVFP4_BLOCK_BYTES, NULL, X + (size_t)i * V,
                            s_head, V);
}

#if defined(STEPQ_RC_AVX512)
// the 16 values of the NVFP4 block at B: E2M1 value times (E4M3 scale times s_head)
static inline __attribute__((always_inline)) __m512 rc_nvfp4_values16(const uint8_t* B, float s_head) {
    const float s = stepq_e4m3_decode(B[0]) * s_head;
    return _mm512_mul_ps(_mm512_permutexvar_ps(rc_unnibble16(B + 1), _mm512_load_ps(rc_e2m1_values)), _mm512_set1_ps(s));
}
#endif

STEPQ_RC void rc_nvfp4_decode_row(float* x, const uint8_t* P, float s_head, int V) {
    for (int b0 = 0; b0 < V; b0 += STEPQ_NVFP4_BLOCK, P += STEPQ_NVFP4_BLOCK_BYTES) {
#if defined(STEPQ_RC_AVX512)
        _mm512_storeu_ps(x + b0, rc_nvfp4_values16(P, s_head));
        continue;
#endif
        float s = stepq_e4m3_decode(P[0]) * s_head;
        for (int j = 0; j < STEPQ_NVFP4_BLOCK; j++)
            x[b0 + j] = stepq_e2m1_decode((uint8_t)(P[1 + j / 2] >> (4 * (j & 1)) & 15)) * s;
    }
}

// ---------------------------------------------------------------------------------------------
// FP8 E4M3 values with a float32 scale (fp8tile.c): code e4m3(|x / s|), sign in bit 7 (none for
// a zero code); s = 0 stores zero codes

// the E4M3 code c of |t| with t's sign (bit 7), unless c is 0
STEPQ_RC uint8_t rc_e4m3_signed(float t) { return stepq_e4m3_with_sign(stepq_e4m3_encode(t < 0 ? -t : t), t); }

#if defined(STEPQ_RC_AVX512)
// stepq_e4m3_with_sign of 16 codes (int32 lanes)
static inline __m512i rc_e4m3_with_sign16(__m512i c, __m512 t) {
    const __mmask16 neg = _mm512_cmp_ps_mask(t, _mm512_setzero_ps(), _CMP_LT_OQ) & _mm512_test_epi32_mask(c, c);
    return _mm512_mask_or_epi32(c, neg, c, _mm512_set1_epi32(0x80));
}
#endif

// P (n bytes) <- the codes of x (n) / s
STEPQ_RC void rc_fp8_encode(uint8_t* P, const float* x, float s, size_t n) {
    size_t e = 0;
    if (!(s > 0)) {
        memset(P, 0, n);
        return;
    }
#if defined(STEPQ_RC_AVX512)
    // stepq_e4m3_encode side by side (rc_e4m3_codes16) on |x / s|, the sign where the code is not 0
    const __m512 vs = _mm512_set1_ps(s);
    for (; e < (n & ~(size_t)15); e += 16) {
        const __m512 t = _mm512_div_ps(_mm512_loadu_ps(x + e), vs);
        _mm_storeu_si128((__m128i*)(P + e), _mm512_cvtepi32_epi8(rc_e4m3_with_sign16(rc_e4m3_codes16(_mm512_abs_ps(t)), t)));
    }
#endif
    for (size_t k = e; k < n; k++) P[k] = rc_e4m3_signed(x[k] / s);
}

// one tile of n values (its rows, finite): the float32 scale amax / 448 at P, then the codes
STEPQ_RC void rc_fp8_encode_tile(uint8_t* P, const float* x, size_t n) {
    float s = rc_absmax(x, n) / 448.0f;
    memcpy(P, &s, 4);
    rc_fp8_encode(P + 4, x, s, n);
}

#if defined(STEPQ_RC_AVX512)
// stepq_e4m3_decode of 16 bytes side by side: the magnitude's value (0x7f: NaN), the sign bit
// put back
static inline __m512 rc_fp8_values16(const uint8_t* P) {
    const __m512i c = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i*)P));
    const __m512i m = _mm512_and_si512(c, _mm512_set1_epi32(0x7f));
    __m512i v = _mm512_castps_si512(rc_e4m3_values16(m));
    v = _mm512_mask_mov_epi32(v, _mm512_cmpeq_epi32_mask(m, _mm512_set1_epi32(0x7f)), _mm512_set1_epi32(0x7fc00000));
    return _mm512_castsi512_ps(_mm512_or_si512(v, _mm512_slli_epi32(_mm512_and_si512(c, _mm512_set1_epi32(0x80)), 24)));
}
#endif

// x (n) <- the values of the codes P (n) times s
STEPQ_RC void rc_fp8_decode(float* x, const uint8_t* P, float s, size_t n) {
    size_t e = 0;
#if defined(STEPQ_RC_AVX512)
    const __m512 vs = _mm512_set1_ps(s);
    for (; e < (n & ~(size_t)15); e += 16) _mm512_storeu_ps(x + e, _mm512_mul_ps(rc_fp8_values16(P + e), vs));
#endif
    for (size_t k = e; k < n; k++) x[k] = stepq_e4m3_decode(P[k]) * s;
}

// ---------------------------------------------------------------------------------------------
// stochastic rounding (sr.c; method 6.2): INT8 and FP8 E4M3 with a float32 scale per value
// column, FP16 without; element e of encode number n takes u = stepq_sr_uniform(n, e)
//
// Layout: uint64 encode counter, then (INT8, FP8) V float32 column scales, then K x V codes.

STEPQ_RC int rc_sr_scaled(int element) { return element != STEPQ_ELEM_FP16; }
STEPQ_RC size_t rc_sr_code_bytes(int element) { return element == STEPQ_ELEM_FP16 ? 2 : 1; }
STEPQ_RC size_t rc_sr_head_bytes(int element, int V) { return 8 + (rc_sr_scaled(element) ? 4u * (size_t)V : 0); }

#if defined(STEPQ_RC_AVX512)
// stepq_sr_uniform(n, e0 + k), k = 0 ... 15: the same 64-bit integer arithmetic in 8 lanes twice;
// x >> 40 has 24 bits, so its conversion is exact
static inline __m512 rc_sr_uniform16(uint64_t n, size_t e0) {
    const __m512i g = _mm512_set1_epi64((long long)0x9e3779b97f4a7c15ull);
    const __m512i base = _mm512_set1_epi64((long long)(n * 0x9e3779b97f4a7c15ull));
    __m256 half[2];
    for (int h = 0; h < 2; h++) {
        const __m512i e = _mm512_add_epi64(_mm512_set1_epi64((long long)(e0 + 8 * (size_t)h)),
                                           _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
        __m512i x = _mm512_add_epi64(_mm512_xor_si512(base, e), g);
        x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64(x, 30)), _mm512_set1_epi64((long long)0xbf58476d1ce4e5b9ull));
        x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64(x, 27)), _mm512_set1_epi64((long long)0x94d049bb133111ebull));
        x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 31));
        half[h] = _mm512_cvtepu64_ps(_mm512_srli_epi64(x, 40));
    }
    return _mm512_mul_ps(_mm512_insertf32x8(_mm512_castps256_ps512(half[0]), half[1], 1), _mm512_set1_ps(0x1p-24f));
}

// stepq_sr_int8 of 16 elements (int32 lanes): floor by the rounding mode, the clamp as max, min
static inline __m512i rc_sr_int8_16(__m512 x, __m512 s, __m512 u) {
    const __m512 t = _mm512_maskz_div_ps(_mm512_cmp_ps_mask(s, _mm512_setzero_ps(), _CMP_GT_OQ), x, s);
    const __m512 lo = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512 z = _mm512_mask_add_ps(lo, _mm512_cmp_ps_mask(u, _mm512_sub_ps(t, lo), _CMP_LT_OQ), lo, _mm512_set1_ps(1.0f));
    z = _mm512_min_ps(_mm512_max_ps(z, _mm512_set1_ps(-127.0f)), _mm512_set1_ps(127.0f));
    return _mm512_cvtps_epi32(z);
}

// stepq_sr_fp8 of 16 elements (int32 lanes): stepq_e4m3_sr's steps, each branch a mask
static inline __m512i rc_sr_fp8_16(__m512 x, __m512 s, __m512 u) {
    const __m512i one = _mm512_set1_epi32(1);
    const __m512 t = _mm512_maskz_div_ps(_mm512_cmp_ps_mask(s, _mm512_setzero_ps(), _CMP_GT_OQ), x, s);
    const __m512 a = _mm512_abs_ps(t);
    __m512i c = rc_e4m3_codes16(a);  // nearest, then lo <= a
    c = _mm512_mask_sub_epi32(c, _mm512_cmp_ps_mask(rc_e4m3_values16(c), a, _CMP_GT_OQ), c, one);
    const __mmask16 sat = _mm512_cmpeq_epi32_mask(c, _mm512_set1_epi32(0x7e));  // (never above)
    const __m512 lo = rc_e4m3_values16(c), hi = rc_e4m3_values16(_mm512_add_epi32(c, one));
    const __m512 p = _mm512_div_ps(_mm512_sub_ps(a, lo), _mm512_sub_ps(hi, lo));
    c = _mm512_mask_add_epi32(c, (__mmask16)~sat & _mm512_cmp_ps_mask(u, p, _CMP_LT_OQ), c, one);
    return rc_e4m3_with_sign16(c, t);
}

// stepq_f16_sr of 16 elements (FP16 bits): the saturating conversion of |x|, one down where it
// rounded up, one up with probability (a - lo) / (hi - lo) below 0x7bff, the sign put back
static inline __m256i rc_sr_f16_16(__m512 x, __m512 u) {
    const __m256i one = _mm256_set1_epi16(1);
    const __m512 a = _mm512_abs_ps(x);
    __m256i h = _mm512_cvtps_ph(_mm512_min_ps(a, _mm512_set1_ps(STEPQ_FP16_MAX)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    h = _mm256_mask_sub_epi16(h, _mm512_cmp_ps_mask(_mm512_cvtph_ps(h), a, _CMP_GT_OQ), h, one);
    const __m512 lo = _mm512_cvtph_ps(h), hi = _mm512_cvtph_ps(_mm256_add_epi16(h, one));
    const __m512 p = _mm512_div_ps(_mm512_sub_ps(a, lo), _mm512_sub_ps(hi, lo));
    const __mmask16 up = _mm256_cmplt_epu16_mask(h, _mm256_set1_epi16(0x7bff)) & _mm512_cmp_ps_mask(u, p, _CMP_LT_OQ);
    h = _mm256_mask_add_epi16(h, up, h, one);
    // the sign bit of x: the definition converts a = x itself when x is -0 (x < 0 is false),
    // which gives FP16's -0
    return _mm256_mask_mov_epi16(h, _mm512_test_epi32_mask(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u)),
                                 _mm256_or_si256(h, _mm256_set1_epi16((short)0x8000)));
}
#endif

// P <- the stochastic rounding of X (K x V, finite) in its element format: the encode counter
// in P's first 8 bytes advanced, the column scales max_i |X_ij| / qmax (INT8: 127, FP8: 448),
// each element's code; s: V floats of work
STEPQ_RC void rc_sr_encode_head(uint8_t* P, const float* X, int element, int K, int V, float* s) {
    uint64_t n;
    memcpy(&n, P, 8);
    n++;
    memcpy(P, &n, 8);
    P += 8;
    if (rc_sr_scaled(element)) {
        const float q = element == STEPQ_ELEM_INT8 ? 127.0f : 448.0f;
        for (int j = 0; j < V; j++) s[j] = 0;
        for (int i = 0; i < K; i++)
            for (int j = 0; j < V; j++) {
                float a = X[(size_t)i * V + j] < 0 ? -X[(size_t)i * V + j] : X[(size_t)i * V + j];
                s[j] = a > s[j] ? a : s[j];
            }
        for (int j = 0; j < V; j++) s[j] /= q;
        memcpy(P, s, sizeof(float) * V);
        P += 4 * (size_t)V;
    }
    for (int i = 0; i < K; i++) {
        const float* x = X + (size_t)i * V;
        const size_t e0 = (size_t)i * V;
        int j = 0;
#if defined(STEPQ_RC_AVX512)
        for (; j + 16 <= V; j += 16) {
            const __m512 u = rc_sr_uniform16(n, e0 + j), xv = _mm512_loadu_ps(x + j);
            switch (element) {
            case STEPQ_ELEM_INT8:
                _mm_storeu_si128((__m128i*)(P + e0 + j), _mm512_cvtepi32_epi8(rc_sr_int8_16(xv, _mm512_loadu_ps(s + j), u)));
                break;
            case STEPQ_ELEM_FP8:
                _mm_storeu_si128((__m128i*)(P + e0 + j), _mm512_cvtepi32_epi8(rc_sr_fp8_16(xv, _mm512_loadu_ps(s + j), u)));
                break;
            default: _mm256_storeu_si256((__m256i*)(P + 2 * (e0 + j)), rc_sr_f16_16(xv, u));
            }
        }
#endif
        for (; j < V; j++) {
            const float u = stepq_sr_uniform(n, e0 + j);
            switch (element) {
            case STEPQ_ELEM_INT8: P[e0 + j] = stepq_sr_int8(x[j], s[j], u); break;
            case STEPQ_ELEM_FP8: P[e0 + j] = stepq_sr_fp8(x[j], s[j], u); break;
            default: {
                uint16_t h = stepq_f16_sr(x[j], u);
                memcpy(P + 2 * (e0 + j), &h, 2);
            }
            }
        }
    }
}

#if defined(STEPQ_RC_AVX512)
// the values of columns j..j + 15 of a stochastically rounded row P, sc the head's column
// scales (INT8, FP8: code value times its column's scale; FP16: the value)
static inline __m512 rc_sr_values16(const uint8_t* P, const uint8_t* sc, int element, int j) {
    switch (element) {
    case STEPQ_ELEM_INT8:
        return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i*)(P + j)))),
                             _mm512_loadu_ps(sc + 4 * j));
    case STEPQ_ELEM_FP8: return _mm512_mul_ps(rc_fp8_values16(P + j), _mm512_loadu_ps(sc + 4 * j));
    default: return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)(P + 2 * j)));
    }
}
#endif

// row i of a stochastically rounded head H: its codes (*sc <- the column scales)
STEPQ_RC const uint8_t* rc_sr_row(const uint8_t** sc, const uint8_t* H, int element, int i, int V) {
    *sc = H + 8;  // (INT8, FP8) unaligned floats
    return H + rc_sr_head_bytes(element, V) + (size_t)i * V * rc_sr_code_bytes(element);
}

// x (V) <- row i of a stochastically rounded head H
STEPQ_RC void rc_sr_decode_row(float* x, const uint8_t* H, int element, int i, int V) {
    const uint8_t* sc;
    const uint8_t* P = rc_sr_row(&sc, H, element, i, V);
    int j = 0;
#if defined(STEPQ_RC_AVX512)
    for (; j + 16 <= V; j += 16) _mm512_storeu_ps(x + j, rc_sr_values16(P, sc, element, j));
#endif
    for (; j < V; j++) {
        float s = 0;
        if (rc_sr_scaled(element)) memcpy(&s, sc + 4 * (size_t)j, 4);
        switch (element) {
        case STEPQ_ELEM_INT8: x[j] = (float)(int8_t)P[j] * s; break;
        case STEPQ_ELEM_FP8: x[j] = stepq_e4m3_decode(P[j]) * s; break;
        default: {
            uint16_t h;
            memcpy(&h, P + 2 * j, 2);
            x[j] = stepq_f16_to_f32(h);
        }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// LeapQuant's freeze gate (leap.c): the stored state is kept when ||X - S_prev||_F <
// tau ||S_prev||_F. sum[0, 1] += ||x - prev||^2, ||prev||^2 over n values, element by element in
// double (a head in one call, or its rows in order: the same sums)
STEPQ_RC void rc_leap_gate_sums(double* sum, const float* x, const float* prev, size_t n) {
    for (size_t e = 0; e < n; e++) {
        double d = (double)x[e] - prev[e];
        sum[0] += d * d;
        sum[1] += (double)prev[e] * prev[e];
    }
}
STEPQ_RC int rc_leap_keeps(const double* sum, float tau) { return sum[1] > 0 && sqrt(sum[0]) < tau * sqrt(sum[1]); }

#endif

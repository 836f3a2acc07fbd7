// numerics.h: every per-element rule of the state formats (method 6.2), in one header of
// inline functions that the CPU formats (quant/*.c) and the CUDA kernels (sim/cuda/) both
// compile, so the two paths cannot drift (method 6.0). Nothing here allocates, loops over a
// row or knows a layout: those live in layout.h and the family files.
//
//   FP16 / BF16        IEEE binary16 and bfloat16, bit-exact, round half to even
//   factors            a positive scale stored as FP16, clamped to [2^-24, 65504] (method 4.2)
//   codes              clamp to [-qmax, qmax], then round half to even; GDN 2-bit odd levels
//   E2M1 / E4M3        NVFP4's element and scale codes (method 6.2)
//   packing            one group of 4-bit (2 codes, 1 byte) or 6-bit (4 codes, 3 bytes) codes
//
// tests/test_formats.c checks FP16 against the compiler's _Float16 on every pattern, BF16 on
// random patterns against exact arithmetic, E2M1 / E4M3 against nearest-value searches, and
// the group packers against the generic bit stream (quant/pack.c).
#ifndef STEPQ_NUMERICS_H
#define STEPQ_NUMERICS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define STEPQ_HD static inline __host__ __device__
#else
#define STEPQ_HD static inline
#endif

#define STEPQ_FP16_MAX 65504.0f
#define STEPQ_FP16_MIN_SUB 5.9604644775390625e-8f  // 2^-24, smallest FP16 subnormal

STEPQ_HD uint32_t stepq_f32_bits(float f) {
#ifdef __CUDA_ARCH__
    return __float_as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
#endif
}

STEPQ_HD float stepq_bits_f32(uint32_t u) {
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, 4);
    return f;
#endif
}

// ---------------------------------------------------------------------------------------------
// FP16 and BF16

// float -> FP16 bits, IEEE round-half-to-even; overflow gives inf, NaN stays NaN (quiet).
STEPQ_HD uint16_t stepq_f32_to_f16(float f) {
    uint32_t x = stepq_f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x0200u : 0u));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);  // >= 65520 rounds to inf
    if (ax < 0x38800000u) {
        // |f| < 2^-14: FP16 subnormal (or zero). Adding 0.5 puts the value in [0.5, 1) whose
        // float ulp is 2^-24, the FP16 subnormal step, so the FPU rounds half-to-even for us.
        float r = stepq_bits_f32(ax) + 0.5f;
        return (uint16_t)(sign | (uint16_t)(stepq_f32_bits(r) - 0x3f000000u));
    }
    uint32_t odd = (ax >> 13) & 1u;
    ax += ((uint32_t)(15 - 127) << 23) + 0xfffu + odd;  // rebias, round half to even
    return (uint16_t)(sign | (uint16_t)(ax >> 13));
}

STEPQ_HD float stepq_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {  // zero or subnormal: m * 2^-24, exact in float
        float v = (float)m * STEPQ_FP16_MIN_SUB;
        return stepq_bits_f32(stepq_f32_bits(v) | sign);
    }
    if (e == 31) return stepq_bits_f32(sign | 0x7f800000u | (m << 13));
    return stepq_bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

// Saturating FP16 for finite inputs: what a state format stores (a cast to inf would poison
// the recurrence); NaN stays NaN.
STEPQ_HD uint16_t stepq_f32_to_f16_sat(float f) {
    if (f > STEPQ_FP16_MAX) f = STEPQ_FP16_MAX;
    if (f < -STEPQ_FP16_MAX) f = -STEPQ_FP16_MAX;
    return stepq_f32_to_f16(f);
}

// float -> bfloat16 bits, round-half-to-even; NaN stays a quiet NaN.
STEPQ_HD uint16_t stepq_f32_to_bf16(float f) {
    uint32_t x = stepq_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x0040u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

STEPQ_HD float stepq_bf16_to_f32(uint16_t b) { return stepq_bits_f32((uint32_t)b << 16); }

// ---------------------------------------------------------------------------------------------
// factors and codes

// A positive scale factor stored as FP16, method 4.2: rounding half-to-even, clamped to
// [2^-24, 65504] (a factor that would round to 0 becomes the smallest subnormal).
STEPQ_HD uint16_t stepq_f16_factor(float f) {
    if (!(f > 0.0f)) return 1u;  // zero, negative or NaN: the smallest positive factor
    uint16_t h = stepq_f32_to_f16_sat(f);
    return (h & 0x7fffu) == 0 ? (uint16_t)1u : h;
}

// Round half to even for |x| < 2^22 without a libm call: adding 1.5 * 2^23 leaves no fraction
// bits, so the FPU's default rounding does the work (the codes of every format lie far inside).
STEPQ_HD float stepq_round_even(float x) {
#ifdef __CUDA_ARCH__
    return rintf(x);
#else
    return (x + 12582912.0f) - 12582912.0f;
#endif
}

// The code of t = x / step in [-qmax, qmax]: clamped, then rounded half to even (equal to
// round-then-clamp since qmax is an integer).
STEPQ_HD float stepq_code(float t, float qmax) {
    t = t < -qmax ? -qmax : t;
    t = t > qmax ? qmax : t;
    return stepq_round_even(t);
}

// The FP16 scale of a symmetric absmax row (method 6.2): fp16 factor of amax / qmax, or 0 for
// an all-zero row (which then stores zero codes).
STEPQ_HD uint16_t stepq_row_scale(float amax, float qmax) {
    return amax > 0.0f ? stepq_f16_factor(amax / qmax) : (uint16_t)0;
}

// GDN 2-bit units (method 4.2): the odd levels -3, -1, 1, 3 (no zero; |t| >= 2 maps to 3),
// stored as the 2-bit field 0..3 and decoded as 2u - 3.
STEPQ_HD float stepq_odd2_code(float t) {
    float m = (t < 0 ? -t : t) >= 2.0f ? 3.0f : 1.0f;
    return t < 0 ? -m : m;
}
STEPQ_HD int8_t stepq_odd2_store(float z) { return (int8_t)(((int)z + 3) / 2); }
STEPQ_HD float stepq_odd2_load(int8_t u) { return (float)(2 * (u & 3) - 3); }

// ---------------------------------------------------------------------------------------------
// NVFP4's element code E2M1 (magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6) and scale code E4M3

// Nearest E2M1 magnitude, a tie to the even code, saturating at 6 (sign in bit 3; -0 is +0).
// The thresholds are the midpoints between neighbours; '>' where the lower code is even (it
// keeps the tie), '>=' where the upper one is.
STEPQ_HD uint8_t stepq_e2m1_encode(float x) {
    float a = x < 0 ? -x : x;
    int c = (a > 0.25f) + (a >= 0.75f) + (a > 1.25f) + (a >= 1.75f) + (a > 2.5f) + (a >= 3.5f) +
            (a > 5.0f);
    return (uint8_t)(c | (x < 0 && c ? 8 : 0));
}

STEPQ_HD float stepq_e2m1_decode(uint8_t c) {
    // magnitude codes 0..7: 0, 0.5, 1, 1.5, 2, 3, 4, 6 = (2 + m) 2^(e-2) for e >= 1, m/2 for e = 0
    int e = (c >> 1) & 3, m = c & 1;
    float v = e == 0 ? 0.5f * (float)m : (float)(2 + m) * (float)(1 << e) * 0.25f;
    return (c & 8) ? -v : v;
}

// E4M3 "fn" (bias 7, no infinities, 0x7f NaN, largest finite 448 = 0x7e) of x >= 0: nearest,
// a tie to the even code, saturating at 448; 0 for x <= 0 or NaN. Normals round the float's
// mantissa to 3 bits half to even on its bits; subnormals (below 2^-6) are multiples of 2^-9.
STEPQ_HD uint8_t stepq_e4m3_encode(float x) {
    if (!(x > 0.0f)) return 0;
    if (x >= 448.0f) return 0x7e;
    if (x < 0.015625f) return (uint8_t)stepq_round_even(x * 512.0f);  // m 2^-9, m = 8 is 2^-6
    uint32_t u = stepq_f32_bits(x);
    u += 0x7ffffu + ((u >> 20) & 1u);
    return (uint8_t)((((u >> 23) - 120u) << 3) | ((u >> 20) & 7u));
}

STEPQ_HD float stepq_e4m3_decode(uint8_t c) {
    uint32_t e = (c >> 3) & 15u, m = c & 7u;
    float v = e == 0 ? (float)m * 0.001953125f : stepq_bits_f32(((e + 120u) << 23) | (m << 20));
    if ((c & 0x7f) == 0x7f) v = stepq_bits_f32(0x7fc00000u);
    return (c & 0x80) ? -v : v;
}

// ---------------------------------------------------------------------------------------------
// stochastic rounding (quant/sr.c; the CUDA encoder the same): a value between two
// representable neighbours lo < t < hi becomes hi with probability (t - lo) / (hi - lo)

// a uniform number in [0, 1) with 24 bits, for element e of encode number n: a counter-based
// hash (splitmix64), so the same run draws the same numbers in any thread or head order
STEPQ_HD float stepq_sr_uniform(uint64_t n, size_t e) {
    uint64_t x = n * 0x9e3779b97f4a7c15ull ^ (uint64_t)e;
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    return (float)(x >> 40) * 0x1p-24f;
}

// t >= 0 between E4M3 neighbours: the code of lo or of the next one up
STEPQ_HD uint8_t stepq_e4m3_sr(float t, float u) {
    uint8_t c = stepq_e4m3_encode(t);  // nearest
    if (stepq_e4m3_decode(c) > t) c--;  // lo <= t
    if (c >= 0x7e) return 0x7e;
    float lo = stepq_e4m3_decode(c), hi = stepq_e4m3_decode((uint8_t)(c + 1));
    return u < (t - lo) / (hi - lo) ? (uint8_t)(c + 1) : c;
}

// |x| between FP16 neighbours (saturating at 65504): the FP16 bits of lo or of the next up, the
// sign put back
STEPQ_HD uint16_t stepq_f16_sr(float x, float u) {
    float a = x < 0 ? -x : x;
    uint16_t h = stepq_f32_to_f16_sat(a);
    if (stepq_f16_to_f32(h) > a) h--;
    if (h < 0x7bff) {
        float lo = stepq_f16_to_f32(h), hi = stepq_f16_to_f32((uint16_t)(h + 1));
        if (u < (a - lo) / (hi - lo)) h++;
    }
    return (uint16_t)(h | (x < 0 ? 0x8000u : 0));
}

// an E4M3 magnitude code c with the sign of t in bit 7 (none for a zero code)
STEPQ_HD uint8_t stepq_e4m3_with_sign(uint8_t c, float t) { return (uint8_t)(c | (t < 0 && c ? 0x80 : 0)); }

// the stochastic codes of x with column scale s (quant/sr.c) and uniform number u: INT8 (clamped
// to -127 .. 127) and FP8 E4M3 of t = x / s (0 where s is 0)
STEPQ_HD uint8_t stepq_sr_int8(float x, float s, float u) {
    float t = s > 0 ? x / s : 0, lo = floorf(t);
    float z = u < t - lo ? lo + 1 : lo;
    z = z < -127 ? -127 : z > 127 ? 127 : z;
    return (uint8_t)(int8_t)z;
}
STEPQ_HD uint8_t stepq_sr_fp8(float x, float s, float u) {
    float t = s > 0 ? x / s : 0;
    return stepq_e4m3_with_sign(stepq_e4m3_sr(t < 0 ? -t : t, u), t);
}

// ---------------------------------------------------------------------------------------------
// code packing of one group: two's-complement codes, LSB first (layout.h)

// the low b bits of u as a signed code
STEPQ_HD int8_t stepq_sext(uint32_t u, int b) {
    return (int8_t)((int32_t)(u << (32 - b)) >> (32 - b));
}

// two 4-bit codes in one byte, the first in the low nibble
STEPQ_HD uint8_t stepq_pack4(int8_t z0, int8_t z1) {
    return (uint8_t)(((uint8_t)z0 & 0xfu) | (((uint8_t)z1 & 0xfu) << 4));
}
STEPQ_HD void stepq_unpack4(int8_t* z /*(2)*/, uint8_t b) {
    z[0] = stepq_sext(b & 0xfu, 4);
    z[1] = stepq_sext((uint32_t)b >> 4, 4);
}

// four 6-bit codes in three bytes
STEPQ_HD void stepq_pack6(uint8_t* out /*(3)*/, const int8_t* z /*(4)*/) {
    uint32_t w = ((uint32_t)(uint8_t)z[0] & 63u) | (((uint32_t)(uint8_t)z[1] & 63u) << 6) |
                 (((uint32_t)(uint8_t)z[2] & 63u) << 12) | (((uint32_t)(uint8_t)z[3] & 63u) << 18);
    out[0] = (uint8_t)w;
    out[1] = (uint8_t)(w >> 8);
    out[2] = (uint8_t)(w >> 16);
}
STEPQ_HD void stepq_unpack6(int8_t* z /*(4)*/, const uint8_t* in /*(3)*/) {
    uint32_t w = (uint32_t)in[0] | ((uint32_t)in[1] << 8) | ((uint32_t)in[2] << 16);
    z[0] = stepq_sext(w & 63u, 6);
    z[1] = stepq_sext((w >> 6) & 63u, 6);
    z[2] = stepq_sext((w >> 12) & 63u, 6);
    z[3] = stepq_sext((w >> 18) & 63u, 6);
}

#endif

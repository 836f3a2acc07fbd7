// half.h: IEEE binary16 (FP16) and bfloat16 conversions, bit-exact, round-half-to-even.
//
// Reference implementations in plain C so that the same arithmetic can be mirrored in CUDA;
// tests/test_formats.c checks them against the compiler's _Float16 on every FP16 bit pattern.
#ifndef STEPQ_HALF_H
#define STEPQ_HALF_H

#include <stdint.h>
#include <string.h>

#define STEPQ_FP16_MAX 65504.0f
#define STEPQ_FP16_MIN_SUB 5.9604644775390625e-8f  // 2^-24, smallest FP16 subnormal

static inline uint32_t stepq_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float stepq_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

// float -> FP16 bits, IEEE round-half-to-even; overflow gives inf, NaN stays NaN (quiet).
static inline uint16_t stepq_f32_to_f16(float f) {
    uint32_t x = stepq_f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return sign | 0x7c00u | (ax > 0x7f800000u ? 0x0200u : 0u);
    if (ax >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 rounds to inf
    if (ax < 0x38800000u) {
        // |f| < 2^-14: FP16 subnormal (or zero). Adding 0.5 puts the value in [0.5, 1) whose
        // float ulp is 2^-24, the FP16 subnormal step, so the FPU rounds half-to-even for us.
        float r = stepq_bits_f32(ax) + 0.5f;
        return sign | (uint16_t)(stepq_f32_bits(r) - 0x3f000000u);
    }
    uint32_t odd = (ax >> 13) & 1u;
    ax += ((uint32_t)(15 - 127) << 23) + 0xfffu + odd;  // rebias, round half to even
    return sign | (uint16_t)(ax >> 13);
}

static inline float stepq_f16_to_f32(uint16_t h) {
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
static inline uint16_t stepq_f32_to_f16_sat(float f) {
    if (f > STEPQ_FP16_MAX) f = STEPQ_FP16_MAX;
    if (f < -STEPQ_FP16_MAX) f = -STEPQ_FP16_MAX;
    return stepq_f32_to_f16(f);
}

// A positive scale factor stored as FP16, SPEC 4.2: rounding half-to-even, clamped to
// [2^-24, 65504] (a factor that would round to 0 becomes the smallest subnormal).
static inline uint16_t stepq_f16_factor(float f) {
    if (!(f > 0.0f)) return 1u;  // zero, negative or NaN: the smallest positive factor
    uint16_t h = stepq_f32_to_f16_sat(f);
    return (h & 0x7fffu) == 0 ? (uint16_t)1u : h;
}

// float -> bfloat16 bits, round-half-to-even; NaN stays a quiet NaN.
static inline uint16_t stepq_f32_to_bf16(float f) {
    uint32_t x = stepq_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x0040u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

static inline float stepq_bf16_to_f32(uint16_t b) { return stepq_bits_f32((uint32_t)b << 16); }

// Round half to even for |x| < 2^22 without a libm call: adding 1.5 * 2^23 leaves no fraction
// bits, so the FPU's default rounding does the work (the codes of every format lie far inside).
static inline float stepq_round_even(float x) { return (x + 12582912.0f) - 12582912.0f; }

#endif

// nvfp4.c: NVIDIA's NVFP4 (as its published definition and the DAMP paper's baseline use it):
// E2M1 element codes, one FP8 E4M3 scale per 16 consecutive values, one FP32 scale per
// tensor (here: per head), 4.5 bits per element plus 32 bits per head.
//
//   s_head  = amax(X) / (6 * 448)
//   s_block = e4m3(amax(block) / 6 / s_head)          (saturating at 448)
//   x_hat   = e2m1(x / (s_block * s_head)) * s_block * s_head
#include <float.h>
#include <math.h>
#include <string.h>

#include "common.h"
#include "families.h"

#define BLOCK 16
static const float e2m1_mag[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

float stepq_e2m1_decode(uint8_t c) {
    float m = e2m1_mag[c & 7];
    return (c & 8) ? -m : m;
}

uint8_t stepq_e2m1_encode(float x) {
    float a = fabsf(x);
    uint8_t best = 0;
    for (uint8_t k = 1; k < 8; k++) {  // nearest magnitude; a tie goes to the even code
        float d = fabsf(a - e2m1_mag[k]), db = fabsf(a - e2m1_mag[best]);
        if (d < db || (d == db && (k & 1) == 0)) best = k;
    }
    if (!(a <= 6.0f)) best = 7;  // saturate (and NaN, which never reaches here)
    return (uint8_t)(best | (x < 0 && best ? 8 : 0));
}

// E4M3 (fn): bias 7, no infinities, 0x7f is NaN, largest finite 448 (0x7e)
float stepq_e4m3_decode(uint8_t c) {
    int e = (c >> 3) & 15, m = c & 7;
    float v = e == 0 ? ldexpf((float)m, -9) : ldexpf(1.0f + m / 8.0f, e - 7);
    if ((c & 0x7f) == 0x7f) v = NAN;
    return (c & 0x80) ? -v : v;
}

uint8_t stepq_e4m3_encode(float x) {  // x >= 0; codes 0..0x7e are increasing in value
    if (!(x > 0)) return 0;
    if (x >= 448.0f) return 0x7e;
    int lo = 0, hi = 0x7e;  // largest code with value <= x
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (stepq_e4m3_decode((uint8_t)mid) <= x) lo = mid;
        else hi = mid - 1;
    }
    if (lo == 0x7e) return 0x7e;
    float a = stepq_e4m3_decode((uint8_t)lo), b = stepq_e4m3_decode((uint8_t)(lo + 1));
    float da = x - a, db = b - x;
    return (uint8_t)(db < da || (db == da && ((lo + 1) & 1) == 0) ? lo + 1 : lo);
}

size_t stepq_nvfp4_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return 4u + (size_t)K * V / BLOCK * (1 + BLOCK / 2);
}

int stepq_nvfp4_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                       float* work, int K, int V) {
    size_t n = (size_t)K * V;
    stepq_assert(V % BLOCK == 0);
    if (!stepq_all_finite(X, n)) return STEPQ_ERR;
    float amax = 0;
    for (size_t i = 0; i < n; i++) amax = fmaxf(amax, fabsf(X[i]));
    float s_head = amax / (6.0f * 448.0f);
    memcpy(P, &s_head, 4);
    P += 4;
    for (size_t b0 = 0; b0 < n; b0 += BLOCK, P += 1 + BLOCK / 2) {
        float bmax = 0;
        for (int j = 0; j < BLOCK; j++) bmax = fmaxf(bmax, fabsf(X[b0 + j]));
        uint8_t sc = s_head > 0 ? stepq_e4m3_encode(bmax / 6.0f / s_head) : 0;
        float s = stepq_e4m3_decode(sc) * s_head;
        P[0] = sc;
        for (int j = 0; j < BLOCK; j += 2) {
            uint8_t lo = s > 0 ? stepq_e2m1_encode(X[b0 + j] / s) : 0;
            uint8_t hi = s > 0 ? stepq_e2m1_encode(X[b0 + j + 1] / s) : 0;
            P[1 + j / 2] = (uint8_t)(lo | (hi << 4));
        }
    }
    return STEPQ_OK;
}

void stepq_nvfp4_decode(float* X, const uint8_t* P, const stepq_format* f,
                        const stepq_head_plan* hp, int K, int V) {
    size_t n = (size_t)K * V;
    float s_head;
    memcpy(&s_head, P, 4);
    P += 4;
    for (size_t b0 = 0; b0 < n; b0 += BLOCK, P += 1 + BLOCK / 2) {
        float s = stepq_e4m3_decode(P[0]) * s_head;
        for (int j = 0; j < BLOCK; j += 2) {
            X[b0 + j] = stepq_e2m1_decode(P[1 + j / 2] & 15) * s;
            X[b0 + j + 1] = stepq_e2m1_decode(P[1 + j / 2] >> 4) * s;
        }
    }
}

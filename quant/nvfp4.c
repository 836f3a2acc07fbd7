// nvfp4.c: NVIDIA's NVFP4 (as its published definition and the DAMP paper's baseline use it,
// method 6.2): E2M1 element codes, one FP8 E4M3 scale per 16 consecutive values, one FP32 scale
// per tensor (here: per head), 4.5 bits per element plus 32 bits per head.
//
//   s_head  = amax(X) / (6 * 448)
//   s_block = e4m3(amax(block) / 6 / s_head)          (saturating at 448)
//   x_hat   = e2m1(x / (s_block * s_head)) * s_block * s_head
#include <string.h>

#include "../base/common.h"
#include "format.h"
#include "numerics.h"

#define BLOCK STEPQ_NVFP4_BLOCK

static float absmax(const float* x, size_t n) {
    float m = 0;
    for (size_t i = 0; i < n; i++) {
        float a = x[i] < 0 ? -x[i] : x[i];
        m = a > m ? a : m;
    }
    return m;
}

static size_t nvfp4_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return 4u + (size_t)K * V / BLOCK * STEPQ_NVFP4_BLOCK_BYTES;
}

static int nvfp4_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                        float* work, int K, int V) {
    size_t n = (size_t)K * V;
    stepq_assert(V % BLOCK == 0);
    if (!stepq_all_finite(X, n)) return STEPQ_ERR;
    float s_head = absmax(X, n) / (6.0f * 448.0f);
    memcpy(P, &s_head, 4);
    P += 4;
    for (size_t b0 = 0; b0 < n; b0 += BLOCK, P += STEPQ_NVFP4_BLOCK_BYTES) {
        float bmax = absmax(X + b0, BLOCK);
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

static void nvfp4_decode(float* X, const uint8_t* P, const stepq_format* f, const stepq_head_plan* hp,
                         int K, int V) {
    size_t n = (size_t)K * V;
    float s_head;
    memcpy(&s_head, P, 4);
    P += 4;
    for (size_t b0 = 0; b0 < n; b0 += BLOCK, P += STEPQ_NVFP4_BLOCK_BYTES) {
        float s = stepq_e4m3_decode(P[0]) * s_head;
        for (int j = 0; j < BLOCK; j += 2) {
            X[b0 + j] = stepq_e2m1_decode(P[1 + j / 2] & 15) * s;
            X[b0 + j + 1] = stepq_e2m1_decode(P[1 + j / 2] >> 4) * s;
        }
    }
}

static void nvfp4_breakdown(double* out, const stepq_format* f, const stepq_head_plan* hp, int K,
                            int V) {
    for (int k = 0; k < STEPQ_N_BITS; k++) out[k] = 0;
    out[STEPQ_BITS_CODES] = 4;
    out[STEPQ_BITS_SCALES] = 8.0 / BLOCK + 32 / ((double)K * V);  // E4M3 per block, FP32 per head
}

const stepq_family stepq_family_nvfp4 = {
    .name = "nvfp4",
    .packed_bytes = nvfp4_bytes,
    .encode = nvfp4_encode,
    .decode = nvfp4_decode,
    .breakdown = nvfp4_breakdown,
};

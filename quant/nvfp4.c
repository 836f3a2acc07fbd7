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
#include "rowcodec.h"

#define BLOCK STEPQ_NVFP4_BLOCK

static size_t nvfp4_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return 4u + (size_t)K * V / BLOCK * STEPQ_NVFP4_BLOCK_BYTES;
}

static int nvfp4_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                        float* work, int K, int V) {
    size_t n = (size_t)K * V;
    stepq_assert(V % BLOCK == 0);
    if (!stepq_all_finite(X, n)) return STEPQ_ERR;
    float s_head = rc_absmax(X, n) / (6.0f * 448.0f);
    memcpy(P, &s_head, 4);
    rc_nvfp4_encode_rows(P + 4, X, s_head, K, V);
    return STEPQ_OK;
}

static void nvfp4_decode(float* X, const uint8_t* P, const stepq_format* f, const stepq_head_plan* hp,
                         int K, int V) {
    float s_head;
    memcpy(&s_head, P, 4);
    for (int i = 0; i < K; i++)
        rc_nvfp4_decode_row(X + (size_t)i * V, P + 4 + (size_t)i * V / BLOCK * STEPQ_NVFP4_BLOCK_BYTES,
                            s_head, V);
}

static void nvfp4_breakdown(double* out, const stepq_format* f, const stepq_head_plan* hp, int K,
                            int V) {
    for (int k = 0; k < STEPQ_N_BITS; k++) out[k] = 0;
    out[STEPQ_BITS_CODES] = 4;
    out[STEPQ_BITS_SCALES] = 8.0 / BLOCK + 32 / ((double)K * V);  // E4M3 per block, FP32 per head
}

static void nvfp4_offsets(uint32_t* off, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    for (int i = 0; i < K; i++) off[i] = (uint32_t)(4u + (size_t)i * V / BLOCK * STEPQ_NVFP4_BLOCK_BYTES);
}

const stepq_family stepq_family_nvfp4 = {
    .id = STEPQ_FAMILY_NVFP4,
    .name = "nvfp4",
    .packed_bytes = nvfp4_bytes,
    .encode = nvfp4_encode,
    .decode = nvfp4_decode,
    .breakdown = nvfp4_breakdown,
    .row_offsets = nvfp4_offsets,
    .v_multiple = BLOCK,
};

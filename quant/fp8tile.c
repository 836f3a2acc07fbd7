// fp8tile.c: FP8 E4M3 states with one FP32 scale per head and tile of 32 key rows, as proposed
// for SGLang's state pool (method 6.2): per tile s = amax / 448, each element the nearest E4M3
// value of x / s (a tie to the even code, sign in bit 7). 8 bits + 32 per tile.
//
// Layout (per tile of up to 32 rows): float32 s, then rows x V E4M3 bytes.
#include <string.h>

#include "../base/common.h"
#include "format.h"
#include "rowcodec.h"

#define TILE STEPQ_FP8_TILE

static int tile_rows(int t, int K) { return K - t < TILE ? K - t : TILE; }

static size_t tile_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return (size_t)(K + TILE - 1) / TILE * 4 + (size_t)K * V;
}

static int tile_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                       float* work, int K, int V) {
    if (!rc_all_finite(X, (size_t)K * V)) return STEPQ_ERR;
    for (int t = 0; t < K; t += TILE) {
        const int n = tile_rows(t, K);
        rc_fp8_encode_tile(P, X + (size_t)t * V, (size_t)n * V);
        P += 4 + (size_t)n * V;
    }
    return STEPQ_OK;
}

static void tile_decode(float* X, const uint8_t* P, const stepq_format* f, const stepq_head_plan* hp,
                        int K, int V) {
    for (int t = 0; t < K; t += TILE) {
        const int n = tile_rows(t, K);
        float s;
        memcpy(&s, P, 4);
        P += 4;
        rc_fp8_decode(X + (size_t)t * V, P, s, (size_t)n * V);
        P += (size_t)n * V;
    }
}

static void tile_breakdown(double* out, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    for (int k = 0; k < STEPQ_N_BITS; k++) out[k] = 0;
    out[STEPQ_BITS_CODES] = 8;
    out[STEPQ_BITS_SCALES] = 32.0 * ((K + TILE - 1) / TILE) / ((double)K * V);
}

static void tile_offsets(uint32_t* off, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    for (int i = 0; i < K; i++) off[i] = (uint32_t)((size_t)(i / TILE + 1) * 4 + (size_t)i * V);
}

const stepq_family stepq_family_fp8tile = {
    .id = STEPQ_FAMILY_FP8TILE,
    .name = "fp8tile",
    .packed_bytes = tile_bytes,
    .encode = tile_encode,
    .decode = tile_decode,
    .breakdown = tile_breakdown,
    .row_offsets = tile_offsets,
    .v_multiple = 1,
};

// rows.c: symmetric absmax per key row with an FP16 scale, each row at its own width, FP16
// rows at width 16 (layout.h, "rows"). int-b (method 6.2, SGLang's INT8 store) is every row at
// b; time-b takes the widths of a lifetime allocation (method 4.3). DAMP (damp.c) and the
// LeapQuant variants (leap.c) build on the same rows.
#include <string.h>

#include "../base/common.h"
#include "format.h"
#include "rowcodec.h"

size_t stepq_rows_bytes(const uint8_t* bits, int K, int V) {
    size_t n = 0;
    for (int i = 0; i < K; i++) n += STEPQ_ROW_BYTES(bits[i], V);
    return n;
}

void stepq_rows_offsets(uint32_t* off, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    size_t n = 0;
    for (int i = 0; i < K; i++) {
        off[i] = (uint32_t)n;
        n += STEPQ_ROW_BYTES(hp->bits[i], V);
    }
}

int stepq_rows_encode(uint8_t* P, const float* X, const uint8_t* bits, int rotate, int K, int V) {
    float tmp[STEPQ_MAX_DIM];
    stepq_assert(V <= STEPQ_MAX_DIM && V % 4 == 0 && (!rotate || (V & (V - 1)) == 0));
    for (int i = 0; i < K; i++) {
        const float* x = X + (size_t)i * V;
        if (rotate && bits[i] != STEPQ_PIVOT_BITS) {
            memcpy(tmp, x, sizeof(float) * V);
            rc_fwht(tmp, V);
            x = tmp;
        }
        if (rc_row_encode(P, NULL, x, bits[i], V) != STEPQ_OK) return STEPQ_ERR;
        P += STEPQ_ROW_BYTES(bits[i], V);
    }
    return STEPQ_OK;
}

void stepq_rows_decode(float* X, const uint8_t* P, const uint8_t* bits, int rotate, int K, int V) {
    for (int i = 0; i < K; i++) {
        float* x = X + (size_t)i * V;
        rc_row_decode(x, P, bits[i], V);
        if (rotate && bits[i] != STEPQ_PIVOT_BITS) rc_fwht(x, V);
        P += STEPQ_ROW_BYTES(bits[i], V);
    }
}

void stepq_rows_breakdown(double* out, const stepq_head_plan* hp, int dual, int K, int V) {
    const double n = (double)K * V;
    int coded = 0;
    for (int k = 0; k < STEPQ_N_BITS; k++) out[k] = 0;
    for (int i = 0; i < K; i++) {
        int b = hp->bits[i];
        if (b == STEPQ_PIVOT_BITS) {
            out[STEPQ_BITS_PIVOTS] += 16.0 * V / n;
            continue;
        }
        coded = 1;
        out[STEPQ_BITS_CODES] += (double)b * V / n;
        // a row factor (GDN 2-bit: one per group of 32) or a row scale
        int groups = dual && hp->kind == STEPQ_GDN && b == 2 ? V / STEPQ_GDN2_GROUP : 1;
        out[dual ? STEPQ_BITS_FACTORS : STEPQ_BITS_SCALES] += 16.0 * groups / n;
    }
    if (dual && coded) out[STEPQ_BITS_FACTORS] += 16.0 * V / n;  // the column factors
}

static int rows_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                       float* work, int K, int V) {
    return stepq_rows_encode(P, X, hp->bits, 0, K, V);
}
static void rows_decode(float* X, const uint8_t* P, const stepq_format* f, const stepq_head_plan* hp,
                        int K, int V) {
    stepq_rows_decode(X, P, hp->bits, 0, K, V);
}
static size_t rows_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return stepq_rows_bytes(hp->bits, K, V);
}
static void rows_breakdown(double* out, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    stepq_rows_breakdown(out, hp, 0, K, V);
}

const stepq_family stepq_family_rows = {
    .id = STEPQ_FAMILY_ROWS,
    .name = "rows",
    .packed_bytes = rows_bytes,
    .encode = rows_encode,
    .decode = rows_decode,
    .breakdown = rows_breakdown,
    .row_offsets = stepq_rows_offsets,
    .v_multiple = 4,
};

// format.c: reference encoders and decoders of the format table (plain loops, the definition).
#include "format.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "common.h"
#include "families.h"
#include "half.h"

// ---------------------------------------------------------------------------------------------
// bit packing

void stepq_pack_codes(uint8_t* out, const int8_t* codes, size_t n, int b) {
    uint32_t mask = (1u << b) - 1u;
    uint64_t acc = 0;
    int nbits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= (uint64_t)((uint8_t)codes[i] & mask) << nbits;
        nbits += b;
        while (nbits >= 8) {
            out[o++] = (uint8_t)acc;
            acc >>= 8;
            nbits -= 8;
        }
    }
    stepq_assert(nbits == 0);
}

void stepq_unpack_codes(int8_t* codes, const uint8_t* in, size_t n, int b) {
    uint32_t mask = (1u << b) - 1u, sign = 1u << (b - 1);
    uint64_t acc = 0;
    int nbits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        while (nbits < b) {
            acc |= (uint64_t)in[o++] << nbits;
            nbits += 8;
        }
        uint32_t u = (uint32_t)acc & mask;
        acc >>= b;
        nbits -= b;
        codes[i] = (int8_t)((int32_t)(u ^ sign) - (int32_t)sign);  // sign-extend b bits
    }
}

// The widths the formats use, unrolled (n a multiple of 4); the generic loops above stay the
// definition and tests/test_formats.c checks these against them.
void stepq_pack_fast(uint8_t* out, const int8_t* z, size_t n, int b) {
    switch (b) {
    case 8: memcpy(out, z, n); return;
    case 4:
        for (size_t i = 0; i < n; i += 2)
            out[i / 2] = (uint8_t)(((uint8_t)z[i] & 0xfu) | (((uint8_t)z[i + 1] & 0xfu) << 4));
        return;
    case 6:
        for (size_t i = 0, o = 0; i < n; i += 4, o += 3) {
            uint32_t w = ((uint32_t)z[i] & 63u) | (((uint32_t)z[i + 1] & 63u) << 6) |
                         (((uint32_t)z[i + 2] & 63u) << 12) | (((uint32_t)z[i + 3] & 63u) << 18);
            out[o] = (uint8_t)w;
            out[o + 1] = (uint8_t)(w >> 8);
            out[o + 2] = (uint8_t)(w >> 16);
        }
        return;
    default: stepq_pack_codes(out, z, n, b);
    }
}

static inline int8_t sext(uint32_t u, int b) {
    return (int8_t)((int32_t)(u << (32 - b)) >> (32 - b));
}

void stepq_unpack_fast(int8_t* z, const uint8_t* in, size_t n, int b) {
    switch (b) {
    case 8: memcpy(z, in, n); return;
    case 4:
        for (size_t i = 0; i < n; i += 2) {
            z[i] = sext(in[i / 2] & 0xfu, 4);
            z[i + 1] = sext(in[i / 2] >> 4, 4);
        }
        return;
    case 6:
        for (size_t i = 0, o = 0; i < n; i += 4, o += 3) {
            uint32_t w = (uint32_t)in[o] | ((uint32_t)in[o + 1] << 8) | ((uint32_t)in[o + 2] << 16);
            z[i] = sext(w & 63u, 6);
            z[i + 1] = sext((w >> 6) & 63u, 6);
            z[i + 2] = sext((w >> 12) & 63u, 6);
            z[i + 3] = sext((w >> 18) & 63u, 6);
        }
        return;
    default: stepq_unpack_codes(z, in, n, b);
    }
}

// ---------------------------------------------------------------------------------------------
// fp32, fp16, bf16: element-wise

int stepq_all_finite(const float* X, size_t n) {
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad |= !(fabsf(X[i]) <= FLT_MAX);
    return !bad;
}

static size_t fp32_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return (size_t)K * V * 4;
}
static size_t half_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return (size_t)K * V * 2;
}

static int fp32_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                       float* work, int K, int V) {
    if (!stepq_all_finite(X, (size_t)K * V)) return STEPQ_ERR;
    memcpy(P, X, (size_t)K * V * sizeof(float));
    return STEPQ_OK;
}
static void fp32_decode(float* X, const uint8_t* P, const stepq_format* f,
                        const stepq_head_plan* hp, int K, int V) {
    memcpy(X, P, (size_t)K * V * sizeof(float));
}

// fp16 saturates at +-65504 instead of overflowing to inf (a stored inf would poison every
// later step); within range it is the IEEE cast. bf16 is the plain round-to-nearest-even cast.
static void half_put(uint8_t* P, const float* X, size_t n, int bf) {
    for (size_t i = 0; i < n; i++) {
        uint16_t h = bf ? stepq_f32_to_bf16(X[i]) : stepq_f32_to_f16_sat(X[i]);
        memcpy(P + 2 * i, &h, 2);
    }
}
static void half_get(float* X, const uint8_t* P, size_t n, int bf) {
    for (size_t i = 0; i < n; i++) {
        uint16_t h;
        memcpy(&h, P + 2 * i, 2);
        X[i] = bf ? stepq_bf16_to_f32(h) : stepq_f16_to_f32(h);
    }
}
static int half_encode(uint8_t* P, const float* X, int K, int V, int bf) {
    if (!stepq_all_finite(X, (size_t)K * V)) return STEPQ_ERR;
    half_put(P, X, (size_t)K * V, bf);
    return STEPQ_OK;
}
static int fp16_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                       float* work, int K, int V) {
    return half_encode(P, X, K, V, 0);
}
static int bf16_encode(uint8_t* P, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                       float* work, int K, int V) {
    return half_encode(P, X, K, V, 1);
}
static void fp16_decode(float* X, const uint8_t* P, const stepq_format* f,
                        const stepq_head_plan* hp, int K, int V) {
    half_get(X, P, (size_t)K * V, 0);
}
static void bf16_decode(float* X, const uint8_t* P, const stepq_format* f,
                        const stepq_head_plan* hp, int K, int V) {
    half_get(X, P, (size_t)K * V, 1);
}

// ---------------------------------------------------------------------------------------------
// rows: symmetric absmax per key row with an FP16 scale, each row at its own width; FP16
// rows for width 16. int-b (SPEC 6.2, SGLang's INT8 store) is every row at b; time-b takes
// the widths of an allocation; DAMP rotates its 8-bit rows by a Walsh-Hadamard transform.


void stepq_fwht(float* x, int n) {
    for (int h = 1; h < n; h *= 2)
        for (int i = 0; i < n; i += 2 * h)
            for (int j = i; j < i + h; j++) {
                float a = x[j], b = x[j + h];
                x[j] = a + b;
                x[j + h] = a - b;
            }
    float s = 1.0f / sqrtf((float)n);
    for (int i = 0; i < n; i++) x[i] *= s;
}

size_t stepq_rows_bytes(const uint8_t* bits, int K, int V) {
    size_t n = 0;
    for (int i = 0; i < K; i++) n += STEPQ_ROW_BYTES(bits[i], V);
    return n;
}

// one row of width b < 16: scale + codes; returns STEPQ_ERR on NaN/Inf
static int row_encode(uint8_t* out, const float* x, int b, int V) {
    const float qmax = (float)STEPQ_QMAX(b);
    int8_t z[STEPQ_MAX_DIM];
    // absmax on the bit patterns: for non-negative floats their order is the integer
    // order, and NaN/Inf are the patterns above FLT_MAX's, so one max finds both
    uint32_t umax = 0;
    for (int j = 0; j < V; j++) {
        uint32_t u = stepq_f32_bits(x[j]) & 0x7fffffffu;
        umax = u > umax ? u : umax;
    }
    if (umax > 0x7f7fffffu) return STEPQ_ERR;
    float amax = stepq_bits_f32(umax);
    // an all-zero row stores scale 0 and zero codes; otherwise the FP16 factor rule
    uint16_t sh = amax > 0.0f ? stepq_f16_factor(amax / qmax) : 0;
    float s = stepq_f16_to_f32(sh);
    float inv = s > 0.0f ? 1.0f / s : 0.0f;
    for (int j = 0; j < V; j++) {
        // clamp, then round: equal to round-then-clamp since qmax is an integer
        float r = x[j] * inv;
        r = r < -qmax ? -qmax : r;
        r = r > qmax ? qmax : r;
        z[j] = (int8_t)stepq_round_even(r);
    }
    memcpy(out, &sh, 2);
    stepq_pack_fast(out + 2, z, (size_t)V, b);
    return STEPQ_OK;
}

static void row_decode(float* x, const uint8_t* in, int b, int V) {
    int8_t z[STEPQ_MAX_DIM];
    uint16_t sh;
    memcpy(&sh, in, 2);
    float s = stepq_f16_to_f32(sh);
    stepq_unpack_fast(z, in + 2, (size_t)V, b);
    for (int j = 0; j < V; j++) x[j] = s * (float)z[j];
}

int stepq_rows_encode(uint8_t* P, const float* X, const uint8_t* bits, int rotate, int K, int V) {
    float tmp[STEPQ_MAX_DIM];
    stepq_assert(V <= STEPQ_MAX_DIM && V % 4 == 0 && (!rotate || (V & (V - 1)) == 0));
    for (int i = 0; i < K; i++) {
        const float* x = X + (size_t)i * V;
        if (bits[i] == STEPQ_PIVOT_BITS) {
            if (!stepq_all_finite(x, (size_t)V)) return STEPQ_ERR;
            half_put(P, x, (size_t)V, 0);
        } else {
            if (rotate) {
                memcpy(tmp, x, sizeof(float) * V);
                stepq_fwht(tmp, V);
                x = tmp;
            }
            if (row_encode(P, x, bits[i], V) != STEPQ_OK) return STEPQ_ERR;
        }
        P += STEPQ_ROW_BYTES(bits[i], V);
    }
    return STEPQ_OK;
}

void stepq_rows_decode(float* X, const uint8_t* P, const uint8_t* bits, int rotate, int K, int V) {
    for (int i = 0; i < K; i++) {
        float* x = X + (size_t)i * V;
        if (bits[i] == STEPQ_PIVOT_BITS) {
            half_get(x, P, (size_t)V, 0);
        } else {
            row_decode(x, P, bits[i], V);
            if (rotate) stepq_fwht(x, V);
        }
        P += STEPQ_ROW_BYTES(bits[i], V);
    }
}

static int is_damp(const stepq_format* f) { return f->needs == STEPQ_NEEDS_DAMP; }

int stepq_rowsfmt_encode(uint8_t* P, const float* X, const stepq_format* f,
                         const stepq_head_plan* hp, float* work, int K, int V) {
    return stepq_rows_encode(P, X, hp->bits, is_damp(f), K, V);
}
void stepq_rowsfmt_decode(float* X, const uint8_t* P, const stepq_format* f,
                          const stepq_head_plan* hp, int K, int V) {
    stepq_rows_decode(X, P, hp->bits, is_damp(f), K, V);
}
size_t stepq_rowsfmt_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return stepq_rows_bytes(hp->bits, K, V);
}

// ---------------------------------------------------------------------------------------------
// the table

#define ROWS stepq_rowsfmt_bytes, stepq_rowsfmt_encode, stepq_rowsfmt_decode
#define DUAL stepq_dual_bytes, stepq_dual_encode, stepq_dual_decode
#define LEAP stepq_leap_bytes, stepq_leap_encode, stepq_leap_decode

const stepq_format stepq_formats[] = {
    {"fp32", 32, 32, "identity: the native float32 state (the reference)", fp32_bytes,
     fp32_encode, fp32_decode, STEPQ_NEEDS_NOTHING, -1, 0, 0, 0},
    {"bf16", 16, 16, "bfloat16 per element, round half to even", half_bytes, bf16_encode,
     bf16_decode, STEPQ_NEEDS_NOTHING, -1, 0, 0, 0},
    {"fp16", 16, 16, "IEEE half per element, round half to even, saturating at 65504", half_bytes,
     fp16_encode, fp16_decode, STEPQ_NEEDS_NOTHING, -1, 0, 0, 0},
    {"int8", 8, 8, "uniform: symmetric absmax per key row, FP16 scale per row", ROWS, STEPQ_NEEDS_NOTHING, -1, 0, 0, 0},
    {"int6", 6, 6, "uniform: symmetric absmax per key row, FP16 scale per row", ROWS, STEPQ_NEEDS_NOTHING, -1, 0, 0, 0},
    {"int4", 4, 4, "uniform: symmetric absmax per key row, FP16 scale per row", ROWS, STEPQ_NEEDS_NOTHING, -1, 0, 0, 0},
    {"dsq6", 6, 6, "Q-Mamba DSQ: r = sqrt(mean|X|), c from the max, no refit (SPEC 6.2)", DUAL, STEPQ_NEEDS_NOTHING, -1, 0, 1, 0},
    {"dsq4", 4, 4, "Q-Mamba DSQ: r = sqrt(mean|X|), c from the max, no refit (SPEC 6.2)", DUAL, STEPQ_NEEDS_NOTHING, -1, 0, 1, 0},
    {"space6", 6, 6, "space only: key-row-aware dual-axis fit at one width (SPEC 4.2)", DUAL, STEPQ_NEEDS_W, -1, 0, 0, 0},
    {"space4", 4, 4, "space only: key-row-aware dual-axis fit at one width (SPEC 4.2)", DUAL, STEPQ_NEEDS_W, -1, 0, 0, 0},
    {"time6", 6, 6, "time only: lifetime allocation + pivots, per-row absmax in a unit", ROWS, STEPQ_NEEDS_TABLE, STEPQ_ALLOC_TIME, 0, 0, 0},
    {"time4", 4, 4, "time only: lifetime allocation + pivots, per-row absmax in a unit", ROWS, STEPQ_NEEDS_TABLE, STEPQ_ALLOC_TIME, 0, 0, 0},
    {"time6-nopivot", 6, 6, "time without pivots: lifetime allocation, per-row absmax", ROWS, STEPQ_NEEDS_TABLE, STEPQ_ALLOC_TIME_NOPIVOT, 0, 0, 0},
    {"time4-nopivot", 4, 4, "time without pivots: lifetime allocation, per-row absmax", ROWS, STEPQ_NEEDS_TABLE, STEPQ_ALLOC_TIME_NOPIVOT, 0, 0, 0},
    {"stepquant6", 6, 6, "STEPQuant: lifetime allocation + pivots + dual-axis fit", DUAL, STEPQ_NEEDS_TABLE, STEPQ_ALLOC_STEPQ, 0, 0, 0},
    {"stepquant4", 4, 4, "STEPQuant: lifetime allocation + pivots + dual-axis fit", DUAL, STEPQ_NEEDS_TABLE, STEPQ_ALLOC_STEPQ, 0, 0, 0},
    {"mlife6", 6, 6, "STEPQuant with measured lifetimes (error propagated through A_t)", DUAL, STEPQ_NEEDS_TABLE, STEPQ_ALLOC_MLIFE, 0, 0, 0},
    {"mlife4", 4, 4, "STEPQuant with measured lifetimes (error propagated through A_t)", DUAL, STEPQ_NEEDS_TABLE, STEPQ_ALLOC_MLIFE, 0, 0, 0},
    {"damp", 9.9, 8, "DAMP (reconstruction): slow key rows FP16, rest Hadamard + INT8 per row", ROWS, STEPQ_NEEDS_DAMP, -1, 0, 0, 0},
    {"nvfp4", 4.5, 4, "NVFP4: E2M1, E4M3 scale per 16 values, FP32 scale per head", stepq_nvfp4_bytes, stepq_nvfp4_encode, stepq_nvfp4_decode, STEPQ_NEEDS_NOTHING, -1, 0, 0, 0},
    {"leap6-r4", 10, 6, "LeapQuant error feedback: int6 + alpha 0.8 x int4 residual", LEAP, STEPQ_NEEDS_NOTHING, -1, 0.8f, 4, 0},
    {"leap6-r8", 14, 6, "LeapQuant error feedback: int6 + alpha 0.8 x int8 residual", LEAP, STEPQ_NEEDS_NOTHING, -1, 0.8f, 8, 0},
    {"leap6-fp32", 38, 6, "LeapQuant error feedback: int6 + alpha 0.8 x FP32 residual (oracle)", LEAP, STEPQ_NEEDS_NOTHING, -1, 0.8f, 32, 0},
    {"leap4-r4", 8, 4, "LeapQuant error feedback: int4 + alpha 0.8 x int4 residual", LEAP, STEPQ_NEEDS_NOTHING, -1, 0.8f, 4, 0},
    {"leap6-r4-freeze", 10, 6, "leap6-r4 + freeze gating: keep the stored state when ||X - S_hat|| < 0.01 ||S_hat||", LEAP, STEPQ_NEEDS_NOTHING, -1, 0.8f, 4, 0.01f},
};
const int stepq_n_formats = (int)(sizeof stepq_formats / sizeof stepq_formats[0]);

const stepq_format* stepq_format_find(const char* name) {
    for (int i = 0; i < stepq_n_formats; i++)
        if (strcmp(stepq_formats[i].name, name) == 0) return &stepq_formats[i];
    return NULL;
}

double stepq_format_actual_bits(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return 8.0 * (double)f->packed_bytes(f, hp, K, V) / ((double)K * V);
}

void stepq_head_plan_uniform(stepq_head_plan* hp, uint8_t* rows, int bits, int kind, int K) {
    for (int i = 0; i < K; i++) rows[i] = (uint8_t)bits;
    hp->kind = kind;
    hp->bits = rows;
    hp->w = NULL;
    hp->rho = 0.5f;
    hp->refits = 1;
}

int stepq_budget_index(int b) {
    for (int i = 0; i < STEPQ_N_BUDGETS; i++)
        if (stepq_plan_budgets[i] == b) return i;
    return -1;
}

int stepq_head_plan_for(stepq_head_plan* hp, uint8_t* rows, const stepq_format* f,
                        const stepq_plan* p, int h, int kind, int K) {
    stepq_head_plan_uniform(hp, rows, f->bits > 16 ? 16 : f->bits, kind, K);
    if (f->needs == STEPQ_NEEDS_NOTHING) return STEPQ_OK;
    if (!p) {
        stepq_error("format %s needs a calibration plan (config key 'plan', made by `stepq "
                    "calibrate`)", f->name);
        return STEPQ_ERR;
    }
    stepq_assert(p->K == K && h >= 0 && h < p->H);
    hp->w = p->w + (size_t)h * K;
    hp->rho = (float)p->rho;
    hp->refits = p->refits;
    if (f->needs == STEPQ_NEEDS_TABLE) {
        const uint8_t* t = p->bits[f->alloc][stepq_budget_index(f->bits)] + (size_t)h * p->G;
        for (int i = 0; i < K; i++) rows[i] = t[p->G == 1 ? 0 : i];
    } else if (f->needs == STEPQ_NEEDS_DAMP) {
        for (int i = 0; i < K; i++) rows[i] = p->damp[(size_t)h * K + i] ? STEPQ_PIVOT_BITS : 8;
    }
    return STEPQ_OK;
}

void stepq_format_breakdown(double* out, const stepq_format* f, const stepq_head_plan* hp, int K,
                            int V) {
    const double n = (double)K * V;
    for (int k = 0; k < STEPQ_N_BITS; k++) out[k] = 0;
    if (f->packed_bytes == half_bytes || f->packed_bytes == fp32_bytes) {
        out[STEPQ_BITS_CODES] = f->nominal_bits;
        return;
    }
    if (f->packed_bytes == stepq_nvfp4_bytes) {
        out[STEPQ_BITS_CODES] = 4;
        out[STEPQ_BITS_SCALES] = 8.0 / 16 + 32 / n;  // E4M3 per 16 values, FP32 per head
        return;
    }
    if (f->packed_bytes == stepq_leap_bytes) {
        out[STEPQ_BITS_CODES] = f->bits;
        out[STEPQ_BITS_SCALES] = 16.0 * K / n;  // the base state's row scales
        out[STEPQ_BITS_RESIDUAL] = f->aux == 32 ? 32 : f->aux + 16.0 * K / n;  // with its scales
        return;
    }
    const int dual = f->packed_bytes == stepq_dual_bytes;
    int coded = 0;
    for (int i = 0; i < K; i++) {
        int b = hp->bits[i];
        if (b == STEPQ_PIVOT_BITS) {
            out[STEPQ_BITS_PIVOTS] += 16.0 * V / n;
            continue;
        }
        coded = 1;
        out[STEPQ_BITS_CODES] += (double)b * V / n;
        // a row factor (GDN 2-bit: one per group of 32) or a row scale
        int groups = dual && hp->kind == STEPQ_PLAN_GDN && b == 2 ? V / STEPQ_GDN2_GROUP : 1;
        out[dual ? STEPQ_BITS_FACTORS : STEPQ_BITS_SCALES] += 16.0 * groups / n;
    }
    if (dual && coded) out[STEPQ_BITS_FACTORS] += 16.0 * V / n;  // the column factors
}

double stepq_format_plan_bits(double* parts, const stepq_format* f, const stepq_plan* p, int K,
                              int V) {
    uint8_t rows[STEPQ_MAX_DIM];
    stepq_head_plan hp;
    double b = 0, part[STEPQ_N_BITS];
    int H = !p || f->needs == STEPQ_NEEDS_NOTHING || f->needs == STEPQ_NEEDS_W ? 1 : p->H;
    for (int k = 0; parts && k < STEPQ_N_BITS; k++) parts[k] = 0;
    for (int h = 0; h < H; h++) {
        if (H == 1) stepq_head_plan_uniform(&hp, rows, f->bits > 16 ? 16 : f->bits, p ? p->kind : 0, K);
        else stepq_head_plan_for(&hp, rows, f, p, h, p->kind, K);
        b += stepq_format_actual_bits(f, &hp, K, V) / H;
        stepq_format_breakdown(part, f, &hp, K, V);
        for (int k = 0; parts && k < STEPQ_N_BITS; k++) parts[k] += part[k] / H;
    }
    return b;
}

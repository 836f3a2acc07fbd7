// format.c: the format table (method 6.2) and the accounting of its bits. The encoders live
// in one file per family: cast.c, rows.c, damp.c, dual.c, nvfp4.c, leap.c (packing: pack.c).
#include "format.h"

#include <math.h>
#include <string.h>

#include "../base/common.h"

#define UNIFORM(w) .needs = STEPQ_NEEDS_NOTHING, .width = (w)
#define TABLE(scheme, b) .needs = STEPQ_NEEDS_TABLE, .alloc = (scheme), .budget = (b)
#define LEAP(a, r, t) .leap = {.alpha = (a), .residual_bits = (r), .tau = (t)}

const stepq_format stepq_formats[] = {
    {.name = "fp32", .summary = "identity: the native float32 state (the reference)",
     .nominal_bits = 32, .family = &stepq_family_cast, UNIFORM(32), .cast = {STEPQ_ELEM_FP32}},
    {.name = "bf16", .summary = "bfloat16 per element, round half to even",
     .nominal_bits = 16, .family = &stepq_family_cast, UNIFORM(16), .cast = {STEPQ_ELEM_BF16}},
    {.name = "fp16", .summary = "IEEE half per element, round half to even, saturating at 65504",
     .nominal_bits = 16, .family = &stepq_family_cast, UNIFORM(16), .cast = {STEPQ_ELEM_FP16}},

    {.name = "int8", .summary = "uniform: symmetric absmax per key row, FP16 scale per row",
     .nominal_bits = 8, .family = &stepq_family_rows, UNIFORM(8)},
    {.name = "int6", .summary = "uniform: symmetric absmax per key row, FP16 scale per row",
     .nominal_bits = 6, .family = &stepq_family_rows, UNIFORM(6)},
    {.name = "int4", .summary = "uniform: symmetric absmax per key row, FP16 scale per row",
     .nominal_bits = 4, .family = &stepq_family_rows, UNIFORM(4)},

    {.name = "dsq6", .summary = "Q-Mamba DSQ: r = sqrt(mean|X|), c from the max, no refit (method 6.2)",
     .nominal_bits = 6, .family = &stepq_family_dual, UNIFORM(6), .dual = {.dsq = 1}},
    {.name = "dsq4", .summary = "Q-Mamba DSQ: r = sqrt(mean|X|), c from the max, no refit (method 6.2)",
     .nominal_bits = 4, .family = &stepq_family_dual, UNIFORM(4), .dual = {.dsq = 1}},
    {.name = "space6", .summary = "space only: key-row-aware dual-axis fit at one width (method 4.2)",
     .nominal_bits = 6, .family = &stepq_family_dual, .needs = STEPQ_NEEDS_W, .width = 6},
    {.name = "space4", .summary = "space only: key-row-aware dual-axis fit at one width (method 4.2)",
     .nominal_bits = 4, .family = &stepq_family_dual, .needs = STEPQ_NEEDS_W, .width = 4},

    {.name = "time6", .summary = "time only: lifetime allocation + pivots, per-row absmax in a unit",
     .nominal_bits = 6, .family = &stepq_family_rows, TABLE(STEPQ_ALLOC_TIME, 6)},
    {.name = "time4", .summary = "time only: lifetime allocation + pivots, per-row absmax in a unit",
     .nominal_bits = 4, .family = &stepq_family_rows, TABLE(STEPQ_ALLOC_TIME, 4)},
    {.name = "time6-nopivot", .summary = "time without pivots: lifetime allocation, per-row absmax",
     .nominal_bits = 6, .family = &stepq_family_rows, TABLE(STEPQ_ALLOC_TIME_NOPIVOT, 6)},
    {.name = "time4-nopivot", .summary = "time without pivots: lifetime allocation, per-row absmax",
     .nominal_bits = 4, .family = &stepq_family_rows, TABLE(STEPQ_ALLOC_TIME_NOPIVOT, 4)},
    {.name = "stepquant6", .summary = "STEPQuant: lifetime allocation + pivots + dual-axis fit",
     .nominal_bits = 6, .family = &stepq_family_dual, TABLE(STEPQ_ALLOC_STEPQ, 6)},
    {.name = "stepquant4", .summary = "STEPQuant: lifetime allocation + pivots + dual-axis fit",
     .nominal_bits = 4, .family = &stepq_family_dual, TABLE(STEPQ_ALLOC_STEPQ, 4)},
    {.name = "mlife6", .summary = "STEPQuant with measured lifetimes (error propagated through A_t)",
     .nominal_bits = 6, .family = &stepq_family_dual, TABLE(STEPQ_ALLOC_MLIFE, 6)},
    {.name = "mlife4", .summary = "STEPQuant with measured lifetimes (error propagated through A_t)",
     .nominal_bits = 4, .family = &stepq_family_dual, TABLE(STEPQ_ALLOC_MLIFE, 4)},
    {.name = "rlife6", .summary = "STEPQuant with read-out lifetimes (the error the read-out sees after one injection)",
     .nominal_bits = 6, .family = &stepq_family_dual, TABLE(STEPQ_ALLOC_RLIFE, 6)},
    {.name = "rlife4", .summary = "STEPQuant with read-out lifetimes (the error the read-out sees after one injection)",
     .nominal_bits = 4, .family = &stepq_family_dual, TABLE(STEPQ_ALLOC_RLIFE, 4)},

    {.name = "damp", .summary = "DAMP (reconstruction): slow key rows FP16, rest Hadamard + INT8 per row",
     .nominal_bits = STEPQ_DAMP_BITS, .family = &stepq_family_damp, .needs = STEPQ_NEEDS_DAMP,
     .width = 8},
    {.name = "nvfp4", .summary = "NVFP4: E2M1, E4M3 scale per 16 values, FP32 scale per head",
     .nominal_bits = 4.5, .family = &stepq_family_nvfp4, UNIFORM(4)},

    {.name = "leap6-r4", .summary = "LeapQuant error feedback: int6 + alpha 0.8 x int4 residual",
     .nominal_bits = 10, .family = &stepq_family_leap, UNIFORM(6), LEAP(0.8f, 4, 0)},
    {.name = "leap6-r8", .summary = "LeapQuant error feedback: int6 + alpha 0.8 x int8 residual",
     .nominal_bits = 14, .family = &stepq_family_leap, UNIFORM(6), LEAP(0.8f, 8, 0)},
    {.name = "leap6-fp32", .summary = "LeapQuant error feedback: int6 + alpha 0.8 x FP32 residual (oracle)",
     .nominal_bits = 38, .family = &stepq_family_leap, UNIFORM(6), LEAP(0.8f, 32, 0)},
    {.name = "leap4-r4", .summary = "LeapQuant error feedback: int4 + alpha 0.8 x int4 residual",
     .nominal_bits = 8, .family = &stepq_family_leap, UNIFORM(4), LEAP(0.8f, 4, 0)},
    {.name = "fp8-tile32", .summary = "FP8 E4M3 per element, one FP32 scale per 32-row tile (proposed in SGLang)",
     .nominal_bits = 8, .family = &stepq_family_fp8tile, UNIFORM(8)},
    {.name = "int8-sr", .summary = "INT8 with stochastic rounding, FP32 scale per value column (proposed in vLLM)",
     .nominal_bits = 8, .family = &stepq_family_sr, UNIFORM(8), .sr = {STEPQ_ELEM_INT8}},
    {.name = "fp8-sr", .summary = "FP8 E4M3 with stochastic rounding, FP32 scale per value column (vLLM)",
     .nominal_bits = 8, .family = &stepq_family_sr, UNIFORM(8), .sr = {STEPQ_ELEM_FP8}},
    {.name = "fp16-sr", .summary = "FP16 with stochastic rounding (SGLang)",
     .nominal_bits = 16, .family = &stepq_family_sr, UNIFORM(16), .sr = {STEPQ_ELEM_FP16}},
    {.name = "int8-replay16", .summary = "int8 re-encoded every 16 steps from an exact replay of its BF16 input ring",
     .nominal_bits = 8, .family = &stepq_family_rows, UNIFORM(8), .replay = 16},
    {.name = "int6-replay16", .summary = "int6 re-encoded every 16 steps from an exact replay of its BF16 input ring",
     .nominal_bits = 6, .family = &stepq_family_rows, UNIFORM(6), .replay = 16},
    {.name = "int4-replay16", .summary = "int4 re-encoded every 16 steps from an exact replay of its BF16 input ring",
     .nominal_bits = 4, .family = &stepq_family_rows, UNIFORM(4), .replay = 16},
    {.name = "leap6-r4-freeze",
     .summary = "leap6-r4 + freeze gating: keep the stored state when ||X - S_hat|| < 0.01 ||S_hat||",
     .nominal_bits = 10, .family = &stepq_family_leap, UNIFORM(6), LEAP(0.8f, 4, 0.01f)},
};
const int stepq_n_formats = (int)(sizeof stepq_formats / sizeof stepq_formats[0]);

const stepq_format* stepq_format_find(const char* name) {
    for (int i = 0; i < stepq_n_formats; i++)
        if (strcmp(stepq_formats[i].name, name) == 0) return &stepq_formats[i];
    return NULL;
}

int stepq_family_holds(const stepq_family* fam, int K, int V) {
    return K >= 1 && K <= STEPQ_MAX_DIM && V >= 1 && V <= STEPQ_MAX_DIM && V % fam->v_multiple == 0 &&
           (!fam->v_pow2 || (V & (V - 1)) == 0);
}

int stepq_family_fits(const stepq_family* fam, const char* what, int K, int V) {
    if (stepq_family_holds(fam, K, V)) return STEPQ_OK;
    stepq_error("%s cannot hold a %d x %d state: it needs d_k and d_v in [1, %d], d_v a multiple "
                "of %d%s", what, K, V, STEPQ_MAX_DIM, fam->v_multiple,
                fam->v_pow2 ? " and a power of two (a Hadamard rotation along d_v)" : "");
    return STEPQ_ERR;
}

int stepq_format_fits(const stepq_format* f, int K, int V) {
    char what[96];
    snprintf(what, sizeof what, "format %s", f->name);
    return stepq_family_fits(f->family, what, K, V);
}

double stepq_format_actual_bits(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return 8.0 * (double)stepq_format_bytes(f, hp, K, V) / ((double)K * V);
}

void stepq_format_breakdown(double* out, const stepq_format* f, const stepq_head_plan* hp, int K,
                            int V) {
    f->family->breakdown(out, f, hp, K, V);
    out[STEPQ_BITS_RING] = 8.0 * (double)stepq_ring_bytes(f, hp, K, V) / ((double)K * V);
}

double stepq_format_plan_bits(double* parts, const stepq_format* f, const stepq_plan* p, int K,
                              int V) {
    uint8_t rows[STEPQ_MAX_DIM];
    stepq_head_plan hp;
    double b = 0, part[STEPQ_N_BITS];
    // only the widths of table and DAMP formats come from the plan; the others are the same
    // on every head
    const int from_plan = f->needs == STEPQ_NEEDS_TABLE || f->needs == STEPQ_NEEDS_DAMP;
    for (int k = 0; parts && k < STEPQ_N_BITS; k++) parts[k] = from_plan && !p ? NAN : 0;
    if (from_plan && !p) return NAN;
    const int H = from_plan ? p->H : 1;
    for (int h = 0; h < H; h++) {
        if (from_plan) stepq_assert(stepq_head_plan_for(&hp, rows, f, p, h, p->kind, K) == STEPQ_OK);
        else stepq_head_plan_uniform(&hp, rows, f->width, p ? p->kind : STEPQ_GDN, K);
        b += stepq_format_actual_bits(f, &hp, K, V) / H;
        stepq_format_breakdown(part, f, &hp, K, V);
        for (int k = 0; parts && k < STEPQ_N_BITS; k++) parts[k] += part[k] / H;
    }
    return b;
}

int stepq_head_plan_for(stepq_head_plan* hp, uint8_t* rows, const stepq_format* f,
                        const stepq_plan* p, int h, int kind, int K) {
    stepq_head_plan_uniform(hp, rows, f->width, kind, K);
    if (f->needs == STEPQ_NEEDS_NOTHING) return STEPQ_OK;
    if (!p) return STEPQ_ERR;
    stepq_assert(p->K == K && h >= 0 && h < p->H);
    hp->w = p->w + (size_t)h * K;
    hp->rho = (float)p->rho;
    hp->refits = p->refits;
    if (f->needs == STEPQ_NEEDS_TABLE) {
        int b = stepq_budget_index(f->budget);
        stepq_assert(b >= 0);
        const uint8_t* t = p->bits[f->alloc][b] + (size_t)h * p->G;
        for (int i = 0; i < K; i++) rows[i] = t[p->G == 1 ? 0 : i];
    } else if (f->needs == STEPQ_NEEDS_DAMP) {
        for (int i = 0; i < K; i++) rows[i] = p->damp[(size_t)h * K + i] ? STEPQ_PIVOT_BITS : (uint8_t)f->width;
    }
    return STEPQ_OK;
}

// test_cuda_lanes: the lane-by-lane serving kernels (sim/cuda/lanes.cu) run in the host
// emulation, lane by lane in lockstep (sim/cuda/lanes.cuh), against the CPU's decode step
// (sim/protocol.h), under method 6.5's contract for them:
//   - one step from the CPU's stored state: each read-out y_j within the float32 bound derived
//     per column from the terms of its sums; the stored codes equal to the CPU's or one step
//     apart, and then only where the CPU's quotient x / s lies within the step's reach of a
//     rounding boundary; the FP16 scales equal, or one ulp apart where the row maximum's reach
//     spans an FP16 rounding boundary; FP32's state within the bound of each element;
//   - 256 steps run free: the read-out and state errors against a float32 reference, their
//     means over 16 heads and each bin of 16 steps, within 2% of the CPU's in every bin (FP32,
//     whose CPU error is 0: within 1e-5);
//   - the checks can fail: one code moved a step away from a tie, one scale moved an ulp off a
//     boundary, one read-out moved by 1e-4 of its size, each caught;
//   - NVFP4: the head scale within the reach of the head's maximum, each block's E4M3 scale
//     equal or one code apart where the reach of its quotient spans an E4M3 rounding boundary,
//     each E2M1 code equal or a neighbour where the CPU's quotient lies within reach of an E2M1
//     threshold (a code or a block scale moved is caught as above);
//   - the layout permutation (rows <-> lanes) is a bijection: back and forth gives the bytes.
//   - BF16 and FP16: each element equal, or between the casts of the CPU's x -+ its bound;
//   - fp8-tile32: each tile's scale within the reach of its maximum, each code equal or between the
//     codes of the CPU's quotient -+ its reach (a code or a tile scale moved is caught);
//   - the formats whose kernels encode in the CPU's order (stepquant6, dsq6: the dual-axis fit;
//     time6: rows of allocated widths; damp; leap6-r4, leap6-r8, leap6-fp32, leap4-r4; int8-sr,
//     fp8-sr, fp16-sr): read-outs equal to the FP32 kernel's on the CPU's decode of the same
//     state, stored bytes equal to the CPU encoder's of the state the kernel holds (stochastic
//     rounding: from the same encode counter, so the same draws; a code or a scale moved is
//     caught); another rho than 0.5 refused, and LeapQuant's freeze gate.
// fp32, bf16, fp16, int8, int6, int4, nvfp4, fp8-tile32 and the formats above; GDN (one gate)
// and KDA (a gate per key row).
#include <stdint.h>

#include "../../quant/numerics.h"
#include "../../sim/cuda/serving.h"
#include "../../sim/protocol.h"
#include "../../sim/recurrence.h"
#include "../../sim/cuda/engine.h"
#include "gputest.h"

#define K 128
#define V 128
#define HEADS 16
#define BIN 16  // steps of a bin of the error trajectories (the drivers' bins)
#define U 5.9604644775390625e-8  // 2^-24, float32's unit roundoff

static double gam(int n) { return n * U / (1 - n * U); }  // gamma_n (Higham, chapter 3)

// the bound on the difference of two sums of the same 128 terms: the CPU's in row order
// (127 additions deep) and the kernels' 8 groups of 16 added in order (15 + 7 deep)
#define ORDER_BOUND (gam(K - 1) + gam(15 + 7))
// the kernels take exp(g) themselves (lanes.cuh's ln_expf), within an ulp of the C library's
// expf (expf_sweep asserts it): a decayed element d x_hat, rounded once on each side, within
// (2u (1 + u) + 2u) |d x_hat| < 5u |d x_hat| of the CPU's
#define DECAY_BOUND (5 * U)

typedef struct {
    const float *q, *k, *v, *decay;
    float beta;
    double scale;
} step_in;

// the stored state's layout: the FP32 cast, the BF16 and FP16 casts, int-b rows, NVFP4
enum { LAY_FP32, LAY_BF16, LAY_FP16, LAY_ROWS, LAY_NVFP4, LAY_FP8TILE };

// a 16-bit cast's element (quant/cast.c's rules), and its value
static uint16_t cast16(int lay, float x) { return lay == LAY_BF16 ? stepq_f32_to_bf16(x) : stepq_f32_to_f16_sat(x); }
static float cast16_value(int lay, uint16_t h) { return lay == LAY_BF16 ? stepq_bf16_to_f32(h) : stepq_f16_to_f32(h); }

// a 16-bit cast's stored state against the CPU's: each element equal, or the cast of a value
// within its reach of the CPU's x: between the casts of x - E and x + E (the casts are monotone)
static int cast16_state(int lay, const float* Xc, const uint8_t* Pc, const uint8_t* Pg, const double* Et, char* why, size_t nwhy) {
    int bad = 0;
    for (int e = 0; e < K * V; e++) {
        uint16_t hc, hg;
        memcpy(&hc, Pc + 2 * e, 2);
        memcpy(&hg, Pg + 2 * e, 2);
        if (hc == hg) continue;
        const double wide = Et[e] + 2 * U * fabs((double)Xc[e]);  // and the ends' rounding to float
        const float g = cast16_value(lay, hg), lo = cast16_value(lay, cast16(lay, (float)(Xc[e] - wide))),
                    hi = cast16_value(lay, cast16(lay, (float)(Xc[e] + wide)));
        if (!(g >= fminf(lo, hi) && g <= fmaxf(lo, hi)) && !bad++)
            snprintf(why, nwhy, "X[%d]: %#x vs the CPU's %#x (x %.9g, reach %.3g)", e, hg, hc, Xc[e], Et[e]);
    }
    return bad;
}

// E2M1's rounding thresholds (the midpoints of its magnitudes, quant/numerics.h) and a code's
// place on the signed grid (sign in bit 3)
static const double e2m1_ties[] = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0};
static int e2m1_place(uint8_t z) { return (z & 8) ? -(z & 7) : (z & 7); }
static double e2m1_tie_distance(double q) {
    double d = INFINITY;
    for (int t = 0; t < 7; t++) d = fmin(d, fabs(fabs(q) - e2m1_ties[t]));
    return d;
}

// an NVFP4 head's bytes (the rows layout, quant/layout.h): its scale, block k of row i, code j
static float nv_head(const uint8_t* P) {
    float h;
    memcpy(&h, P, 4);
    return h;
}
static const uint8_t* nv_block(const uint8_t* P, int i, int k) {
    return P + 4 + ((size_t)i * (V / STEPQ_NVFP4_BLOCK) + k) * STEPQ_NVFP4_BLOCK_BYTES;
}
static uint8_t nv_code(const uint8_t* blk, int j) { return (uint8_t)(blk[1 + j / 2] >> (4 * (j & 1)) & 15); }

// FP8 E4M3 tiles (quant/fp8tile.c): a signed code's place on the grid, and the signed code of t
static int e4m3_place(uint8_t z) { return (z & 0x80) ? -(z & 0x7f) : (z & 0x7f); }
static uint8_t e4m3_signed(double t) {
    const uint8_t m = stepq_e4m3_encode((float)fabs(t));
    return (uint8_t)(m | (t < 0 && m ? 0x80 : 0));
}

// fp8-tile32's stored state against the CPU's (Xc the CPU's X_t, Et each element's bound): each
// tile's scale amax / 448 of a maximum within reach of the CPU's; each code equal, or between the
// codes of the CPU's quotient x / s -+ its reach (the kernel's scale s', one reciprocal)
static int fp8tile_state(const float* Xc, const uint8_t* Pc, const uint8_t* Pg, const double* Et, char* why, size_t nwhy) {
    int bad = 0;
    const size_t per_tile = 4 + (size_t)STEPQ_FP8_TILE * V;
    for (int t = 0; t < K / STEPQ_FP8_TILE; t++) {
        const uint8_t *tc = Pc + t * per_tile, *tg = Pg + t * per_tile;
        const int e0 = t * STEPQ_FP8_TILE * V, e1 = e0 + STEPQ_FP8_TILE * V;
        double amax = 0, reach = 0;
        for (int e = e0; e < e1; e++) amax = fmax(amax, fabs((double)Xc[e])), reach = fmax(reach, Et[e]);
        const double lo = (amax - reach) / 448 * (1 - 2 * U), hi = (amax + reach) / 448 * (1 + 2 * U);
        const double sc = nv_head(tc), sg = nv_head(tg);
        if (!(sg >= lo && sg <= hi)) {
            if (!bad++) snprintf(why, nwhy, "tile %d: scale %.9g vs the CPU's %.9g: outside [%.9g, %.9g]", t, sg, sc, lo, hi);
            continue;
        }
        if (!(sc > 0 && sg > 0)) continue;  // a zero scale stores zero codes (the scale was checked)
        for (int e = e0; e < e1; e++) {
            const uint8_t zc = tc[4 + e - e0], zg = tg[4 + e - e0];
            if (zc == zg) continue;
            const double x = Xc[e], q = x / sc;
            const double moves = Et[e] / sg + fabs(x) * fabs(1 / sg - 1 / sc) + 2 * U * (fabs(q) + 1);
            const int a = e4m3_place(e4m3_signed(q - moves)), b = e4m3_place(e4m3_signed(q + moves));
            if (!(e4m3_place(zg) >= a && e4m3_place(zg) <= b) && !bad++)
                snprintf(why, nwhy, "element %d: code %#x vs the CPU's %#x, quotient %.9g (reach %.3g: codes %d .. %d)", e, zg, zc, q,
                         moves, a, b);
        }
    }
    return bad;
}

// NVFP4's stored state against the CPU's (Xc the CPU's X_t, Et each element's bound): the head
// scale amax / 2688 of a maximum within reach of the CPU's; each block's scale; each code
// (method 6.5)
static int nvfp4_state(const float* Xc, const uint8_t* Pc, const uint8_t* Pg, const double* Et, char* why, size_t nwhy) {
    int bad = 0;
    double amax = 0, reach = 0;
    for (int e = 0; e < K * V; e++) amax = fmax(amax, fabs((double)Xc[e])), reach = fmax(reach, Et[e]);
    const double hlo = (amax - reach) / 2688 * (1 - 2 * U), hhi = (amax + reach) / 2688 * (1 + 2 * U);
    const double hc = nv_head(Pc), hg = nv_head(Pg);
    if (!(hg >= hlo && hg <= hhi) && !bad++)
        snprintf(why, nwhy, "s_head %.9g vs the CPU's %.9g: outside [%.9g, %.9g]", hg, hc, hlo, hhi);
    for (int i = 0; i < K; i++)
        for (int k = 0; k < V / STEPQ_NVFP4_BLOCK; k++) {
            const uint8_t *bc = nv_block(Pc, i, k), *bg = nv_block(Pg, i, k);
            const int j0 = k * STEPQ_NVFP4_BLOCK;
            double bm = 0, br = 0;
            for (int j = j0; j < j0 + STEPQ_NVFP4_BLOCK; j++) bm = fmax(bm, fabs((double)Xc[i * V + j])), br = fmax(br, Et[i * V + j]);
            // the scale rule (amax / 6 / s_head, E4M3) at both ends of its reach
            const int boundary = stepq_e4m3_encode((float)((bm - br) / 6 / hhi * (1 - 4 * U))) !=
                                 stepq_e4m3_encode((float)((bm + br) / 6 / hlo * (1 + 4 * U)));
            if (bc[0] != bg[0] && !(boundary && abs(bc[0] - bg[0]) == 1)) {
                if (!bad++) snprintf(why, nwhy, "row %d block %d: scale %#x vs the CPU's %#x (boundary within reach: %d)", i, k, bg[0], bc[0], boundary);
                continue;
            }
            const double sc = (double)(stepq_e4m3_decode(bc[0]) * (float)hc), sg = (double)(stepq_e4m3_decode(bg[0]) * (float)hg);
            if (!(sc > 0 && sg > 0)) continue;  // a zero scale stores zero codes (the scale was checked)
            for (int j = j0; j < j0 + STEPQ_NVFP4_BLOCK; j++) {
                const uint8_t zc = nv_code(bc, j - j0), zg = nv_code(bg, j - j0);
                if (zc == zg) continue;
                const double x = Xc[i * V + j], q = x / sc;
                const double moves = Et[i * V + j] / sg + fabs(x) * fabs(1 / sg - 1 / sc) + 2 * U * (fabs(q) + 1);
                if ((abs(e2m1_place(zc) - e2m1_place(zg)) != 1 || e2m1_tie_distance(q) > moves) && !bad++)
                    snprintf(why, nwhy, "row %d col %d: code %#x vs the CPU's %#x, quotient %.9g (%.3g from a tie, reach %.3g)",
                             i, j, zg, zc, q, e2m1_tie_distance(q), moves);
            }
        }
    return bad;
}

// One step's contract (method 6.5) for head data: Xh the decoded state before the step (the
// same on both sides), Xc the CPU's X_t, yc / yg the read-outs, Pc / Pg the stored bytes (CPU
// layout); lay LAY_*, b the rows' width. *Et (K*V) <- each element's bound. Returns the
// violations; *why <- the first.
static int contract(const float* Xh, const float* Xc, const float* yc, const float* yg, const uint8_t* Pc,
                    const uint8_t* Pg, const step_in* in, int lay, int b, double* Et, char* why, size_t nwhy) {
    int bad = 0;
    double Eu[V], um[V];  // the bound on |Du_j|, and |u_j| + that
    const float fs = (float)in->scale;
    for (int j = 0; j < V; j++) {
        double terms = 0, a = 0;
        for (int i = 0; i < K; i++) {
            const float xd = Xh[i * V + j] * in->decay[i];
            terms += fabs((double)in->k[i] * xd);
            a += (double)in->k[i] * xd;
        }
        const double Ea = (ORDER_BOUND + DECAY_BOUND) * terms;
        Eu[j] = (1 + U) * (1 + U) * in->beta * Ea + 5 * U * (in->beta * fabs(in->v[j] - a) + Ea);
        um[j] = in->beta * fabs(in->v[j] - a) + 2 * Eu[j];
    }
    for (int j = 0; j < V; j++) {
        double Ey = 0, mag = 0;
        for (int i = 0; i < K; i++) {
            const double qs = fabs((double)(fs * in->q[i])), x = fabs((double)Xc[i * V + j]);
            const double xd = fabs((double)(Xh[i * V + j] * in->decay[i]));
            const double e = (1 + U) * (1 + U) * fabs(in->k[i]) * Eu[j] + 3 * U * (x + fabs(in->k[i]) * um[j]) + DECAY_BOUND * xd;
            Et[i * V + j] = e;
            Ey += qs * e;
            mag += qs * (x + e);
        }
        Ey = Ey * (1 + U) + (ORDER_BOUND + 4 * U) * mag;
        if (!(fabs((double)yg[j] - yc[j]) <= Ey)) {
            if (!bad++) snprintf(why, nwhy, "y[%d] %.9g vs the CPU's %.9g: beyond the bound %.3g", j, yg[j], yc[j], Ey);
        }
    }
    if (lay == LAY_NVFP4) return bad + nvfp4_state(Xc, Pc, Pg, Et, bad ? NULL : why, bad ? 0 : nwhy);
    if (lay == LAY_BF16 || lay == LAY_FP16) return bad + cast16_state(lay, Xc, Pc, Pg, Et, bad ? NULL : why, bad ? 0 : nwhy);
    if (lay == LAY_FP8TILE) return bad + fp8tile_state(Xc, Pc, Pg, Et, bad ? NULL : why, bad ? 0 : nwhy);
    if (lay == LAY_FP32) {
        for (int e = 0; e < K * V; e++) {
            float g;
            memcpy(&g, Pg + 4 * e, 4);
            if (!(fabs((double)g - Xc[e]) <= Et[e]) && !bad++)
                snprintf(why, nwhy, "X[%d] %.9g vs the CPU's %.9g: beyond the bound %.3g", e, g, Xc[e], Et[e]);
        }
        return bad;
    }
    const size_t row = STEPQ_ROW_BYTES(b, V);
    const float qmax = (float)STEPQ_QMAX(b);
    for (int i = 0; i < K; i++) {
        uint16_t hc, hg;
        memcpy(&hc, Pc + i * row, 2);
        memcpy(&hg, Pg + i * row, 2);
        double amax = 0, reach = 0;
        for (int j = 0; j < V; j++) {
            amax = fmax(amax, fabs((double)Xc[i * V + j]));
            reach = fmax(reach, Et[i * V + j]);
        }
        // the scale rule (stepq_row_scale) at both ends of the row maximum's reach
        const int boundary = stepq_row_scale((float)(amax - reach), qmax) != stepq_row_scale((float)(amax + reach), qmax);
        if (hc != hg && !(boundary && abs((int)hc - (int)hg) == 1)) {
            if (!bad++) snprintf(why, nwhy, "row %d: scale %#x vs the CPU's %#x (boundary within reach: %d)", i, hg, hc, boundary);
            continue;
        }
        const double sc = stepq_f16_to_f32(hc), sg = stepq_f16_to_f32(hg);
        const double rc = sc > 0 ? 1 / sc : 0, rg = sg > 0 ? 1 / sg : 0;
        int8_t zc[V], zg[V];
        stepq_unpack_codes(zc, Pc + i * row + 2, V, b);
        stepq_unpack_codes(zg, Pg + i * row + 2, V, b);
        for (int j = 0; j < V; j++) {
            if (zc[j] == zg[j]) continue;
            const double x = Xc[i * V + j], c = fmin(fmax(x * rc, -qmax), qmax);
            const double tie = fabs(c - floor(c) - 0.5);  // distance to the nearest half-integer
            const double moves = Et[i * V + j] * rg + fabs(x) * fabs(rg - rc) + 2 * U * (fabs(c) + 1);
            if ((abs(zc[j] - zg[j]) != 1 || tie > moves) && !bad++)
                snprintf(why, nwhy, "row %d col %d: code %d vs the CPU's %d, quotient %.9g (%.3g from a tie, reach %.3g)",
                         i, j, zg[j], zc[j], c, tie, moves);
        }
    }
    return bad;
}

typedef struct {
    const stepq_format* f;
    int kind, lay, b;
    stepq_serving* s;
    stepq_qstate qs[HEADS];
    size_t stride;
    float *q, *k, *v, *g, *beta, *decay;   // (HEADS, .) a step's inputs
    float *yg, *yc;                         // (HEADS, V)
    uint8_t *Pg, *Pc;                       // (HEADS, stride)
} rig;

static void rig_open(rig* r, const stepq_format* f, int kind, gsl_rng* rng) {
    memset(r, 0, sizeof *r);
    r->f = f;
    r->kind = kind;
    r->lay = stepq_format_exact(f)                   ? LAY_FP32
             : f->family->id == STEPQ_FAMILY_NVFP4   ? LAY_NVFP4
             : f->family->id == STEPQ_FAMILY_FP8TILE ? LAY_FP8TILE
             : f->family->id != STEPQ_FAMILY_CAST    ? LAY_ROWS
             : f->cast.element == STEPQ_ELEM_BF16    ? LAY_BF16
                                                     : LAY_FP16;
    r->b = f->width;
    stepq_head_plan hp;
    uint8_t rows[K];
    stepq_assert(stepq_head_plan_for(&hp, rows, f, NULL, 0, kind, K) == STEPQ_OK);
    stepq_assert(stepq_serving_create(&r->s, f, &hp, 1, kind, HEADS, K, V, STEPQ_SERVE_LANES, 1, STEPQ_CUDA_EMULATE) == STEPQ_OK);
    r->stride = stepq_serving_stride(r->s);
    const int G = stepq_kind_gates(kind, K);
    r->q = malloc(sizeof(float) * HEADS * K);
    r->k = malloc(sizeof(float) * HEADS * K);
    r->v = malloc(sizeof(float) * HEADS * V);
    r->g = malloc(sizeof(float) * HEADS * G);
    r->beta = malloc(sizeof(float) * HEADS);
    r->decay = malloc(sizeof(float) * HEADS * K);
    r->yg = malloc(sizeof(float) * HEADS * V);
    r->yc = malloc(sizeof(float) * HEADS * V);
    r->Pg = calloc(HEADS, r->stride);
    r->Pc = calloc(HEADS, r->stride);
    float* S = malloc(sizeof(float) * K * V);
    for (int h = 0; h < HEADS; h++) {
        gt_state(S, K, V, rng);
        stepq_assert(stepq_qstate_init(&r->qs[h], f, NULL, 0, kind, K, V) == STEPQ_OK);
        stepq_assert(stepq_qstate_load(&r->qs[h], S) == STEPQ_OK);
    }
    free(S);
}

static void rig_close(rig* r) {
    stepq_serving_free(r->s);
    for (int h = 0; h < HEADS; h++) stepq_qstate_free(&r->qs[h]);
    void* p[] = {r->q, r->k, r->v, r->g, r->beta, r->decay, r->yg, r->yc, r->Pg, r->Pc};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) free(p[i]);
}

// a step's inputs for HEADS heads: unit q and k, Gaussian v with ridges, gates of half-lives
// 2 .. 200 steps (KDA: spread over the rows), beta in [0.05, 0.95]; decay (HEADS, K) their exp
static void step_inputs(float* q, float* k, float* v, float* g, float* beta, float* decay, int kind, gsl_rng* rng) {
    const int G = stepq_kind_gates(kind, K);
    for (int h = 0; h < HEADS; h++) {
        tu_unit(q + h * K, K, rng);
        tu_unit(k + h * K, K, rng);
        for (int j = 0; j < V; j++) v[h * V + j] = (float)(gsl_ran_gaussian(rng, 1.0) * (j % 11 == 3 ? 8 : 1));
        for (int i = 0; i < G; i++) g[h * G + i] = (float)(-M_LN2 / (2 + 198 * gsl_rng_uniform(rng)));
        beta[h] = (float)(0.05 + 0.9 * gsl_rng_uniform(rng));
        stepq_decays(decay + h * K, g + h * G, G, K);
    }
}
static void rig_inputs(rig* r, gsl_rng* rng) { step_inputs(r->q, r->k, r->v, r->g, r->beta, r->decay, r->kind, rng); }

// the kernels' step (pool) and the CPU's (X_t of each head into Xc (HEADS, K, V))
static void rig_step(rig* r, float* Xc, float* work) {
    const int G = stepq_kind_gates(r->kind, K);
    const double scale = 1.0 / sqrt((double)K);
    stepq_serving_set_inputs(r->s, r->q, r->k, r->v, r->g, r->beta, scale);
    stepq_serving_step(r->s);
    stepq_assert(stepq_serving_read(r->s, r->yg, r->Pg) == STEPQ_OK);
    for (int h = 0; h < HEADS; h++) {
        stepq_step_in in = {r->q + h * K, r->k + h * K, r->v + h * V, r->g + h * G, r->beta[h]};
        stepq_assert(stepq_qstate_step_keep(&r->qs[h], r->yc + h * V, work, &in, scale, G, Xc + (size_t)h * K * V) == STEPQ_OK);
        memcpy(r->Pc + h * r->stride, r->qs[h].packed, r->qs[h].bytes);
    }
}

// the pool <- the CPU's stored states
static void rig_sync(rig* r) {
    for (int h = 0; h < HEADS; h++) memcpy(r->Pc + h * r->stride, r->qs[h].packed, r->qs[h].bytes);
    stepq_serving_upload(r->s, r->Pc, HEADS);
}

// NVFP4's checks can fail (P2: a copy of the kernels' bytes, which passed): in row 9, the code
// farthest from a threshold moved a magnitude step; then its block's scale moved a code
static void nvfp4_perturbed(const rig* r, const float* Xh, const float* Xc, const float* yc, const float* yg,
                            const uint8_t* Pc, uint8_t* P2, const step_in* in, double* Et) {
    char w2[256];
    const char *fn = r->f->name, *kn = stepq_kind_name(r->kind);
    const float hc = nv_head(Pc);
    int best = -1;
    double far = -1;
    for (int j = 0; j < V; j++) {
        const uint8_t* blk = nv_block(P2, 9, j / STEPQ_NVFP4_BLOCK);
        const double s = (double)(stepq_e4m3_decode(blk[0]) * hc), q = Xc[9 * V + j] / s;
        if (blk[0] == nv_block(Pc, 9, j / STEPQ_NVFP4_BLOCK)[0] && s > 0 && (nv_code(blk, j % 16) & 7) < 7 &&
            e2m1_tie_distance(q) > far)
            far = e2m1_tie_distance(q), best = j;
    }
    CHECK(best >= 0, "%s %s: no code of row 9 to move", fn, kn);
    if (best < 0) return;
    uint8_t* blk = P2 + (nv_block(P2, 9, best / STEPQ_NVFP4_BLOCK) - P2);
    const int e = best % STEPQ_NVFP4_BLOCK;
    blk[1 + e / 2] = (uint8_t)(blk[1 + e / 2] + (1 << (4 * (e & 1))));  // magnitude + 1, sign kept
    CHECK(contract(Xh, Xc, yc, yg, Pc, P2, in, LAY_NVFP4, 4, Et, w2, sizeof w2) > 0,
          "%s %s: a code moved a step passed the contract", fn, kn);
    printf("  %s %s: a code moved a step: %s\n", fn, kn, w2);
    blk[1 + e / 2] = (uint8_t)(blk[1 + e / 2] - (1 << (4 * (e & 1))));
    blk[0]++;
    CHECK(contract(Xh, Xc, yc, yg, Pc, P2, in, LAY_NVFP4, 4, Et, w2, sizeof w2) > 0,
          "%s %s: a block scale moved a code passed the contract", fn, kn);
    printf("  %s %s: a block scale moved a code: %s\n", fn, kn, w2);
}

// `steps` steps, each from the CPU's state: the contract on every head; then (once) that a
// moved code, scale or read-out is caught
static void one_step_contract(const stepq_format* f, int kind, int steps, gsl_rng* rng) {
    rig r;
    rig_open(&r, f, kind, rng);
    float* Xh = malloc(sizeof(float) * K * V * HEADS);
    float* Xc = malloc(sizeof(float) * K * V * HEADS);
    float* work = malloc(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
    double* Et = malloc(sizeof(double) * K * V);
    char why[256] = "";
    int violations = 0, differ = 0, codes_differ = 0, perturbed = 0;
    double ymax = 0;
    for (int t = 0; t < steps; t++) {
        rig_inputs(&r, rng);
        rig_sync(&r);
        for (int h = 0; h < HEADS; h++) stepq_qstate_decode(&r.qs[h], Xh + (size_t)h * K * V);
        rig_step(&r, Xc, work);
        for (int h = 0; h < HEADS; h++) {
            step_in in = {r.q + h * K, r.k + h * K, r.v + h * V, r.decay + h * K, r.beta[h], 1.0 / sqrt((double)K)};
            const size_t o = (size_t)h * K * V;
            uint8_t *Pc = r.Pc + h * r.stride, *Pg = r.Pg + h * r.stride;
            float *yc = r.yc + h * V, *yg = r.yg + h * V;
            violations += contract(Xh + o, Xc + o, yc, yg, Pc, Pg, &in, r.lay, r.b, Et, why, sizeof why);
            for (int j = 0; j < V; j++) ymax = fmax(ymax, fabs((double)yg[j] - yc[j]) / fmax(fabs(yc[j]), 1e-30));
            for (size_t e = 0; e < r.qs[h].bytes; e++) differ += Pc[e] != Pg[e];
            if (perturbed || t < steps - 1 || h) continue;
            // the checks can fail: on the last step of head 0 (which passed), move one thing at
            // a time in a copy of the kernels' output and see each caught
            perturbed = 1;
            uint8_t* P2 = malloc(r.stride);
            float y2[V];
            char w2[256];
            memcpy(y2, yg, sizeof y2);
            float ymag = 0;
            for (int j = 0; j < V; j++) ymag = fmaxf(ymag, fabsf(yg[j]));
            y2[7] = y2[7] + 1e-4f * ymag;
            CHECK(contract(Xh + o, Xc + o, yc, y2, Pc, Pg, &in, r.lay, r.b, Et, w2, sizeof w2) > 0,
                  "%s %s: a read-out moved by 1e-4 of the largest passed the contract", f->name, stepq_kind_name(kind));
            printf("  %s %s: a read-out moved by 1e-4 of the largest: %s\n", f->name, stepq_kind_name(kind), w2);
            memcpy(P2, Pg, r.stride);
            if (r.lay == LAY_FP32) {
                float x;
                memcpy(&x, P2 + 4 * 300, 4);
                x = nextafterf(nextafterf(x, INFINITY), INFINITY) * 1.0001f;
                memcpy(P2 + 4 * 300, &x, 4);
                CHECK(contract(Xh + o, Xc + o, yc, yg, Pc, P2, &in, r.lay, r.b, Et, w2, sizeof w2) > 0,
                      "%s %s: a moved state element passed the contract", f->name, stepq_kind_name(kind));
            } else if (r.lay == LAY_BF16 || r.lay == LAY_FP16) {
                // element 300 moved an ulp, and it is far from a boundary: no reach spans one
                uint16_t x;
                memcpy(&x, P2 + 2 * 300, 2);
                x++;
                memcpy(P2 + 2 * 300, &x, 2);
                CHECK(contract(Xh + o, Xc + o, yc, yg, Pc, P2, &in, r.lay, r.b, Et, w2, sizeof w2) > 0,
                      "%s %s: a moved state element passed the contract", f->name, stepq_kind_name(kind));
                printf("  %s %s: an element moved an ulp: %s\n", f->name, stepq_kind_name(kind), w2);
            } else if (r.lay == LAY_FP8TILE) {
                // a code moved a step (its magnitude + 1) at the element farthest from a boundary
                // of row 9 (tile 0), then tile 0's scale moved by 1e-3 of itself
                const float s = nv_head(P2);
                int best = 0;
                double far = -1;
                for (int j = 0; j < V; j++) {  // normal E4M3 values: 8 a binade, spaced 2^(e - 3)
                    const double a = fabs(Xc[o + 9 * V + j] / s), u = a / ldexp(1, (int)floor(log2(a)) - 3);
                    if ((P2[4 + 9 * V + j] & 0x7f) < 0x7e && a >= 0x1p-6 && fabs(u - floor(u) - 0.5) > far)
                        far = fabs(u - floor(u) - 0.5), best = j;
                }
                P2[4 + 9 * V + best]++;
                CHECK(contract(Xh + o, Xc + o, yc, yg, Pc, P2, &in, r.lay, r.b, Et, w2, sizeof w2) > 0,
                      "%s %s: a code moved a step passed the contract", f->name, stepq_kind_name(kind));
                printf("  %s %s: a code moved a step: %s\n", f->name, stepq_kind_name(kind), w2);
                P2[4 + 9 * V + best]--;
                const float s2 = s * 1.001f;
                memcpy(P2, &s2, 4);
                CHECK(contract(Xh + o, Xc + o, yc, yg, Pc, P2, &in, r.lay, r.b, Et, w2, sizeof w2) > 0,
                      "%s %s: a tile scale moved by 1e-3 passed the contract", f->name, stepq_kind_name(kind));
                printf("  %s %s: a tile scale moved by 1e-3: %s\n", f->name, stepq_kind_name(kind), w2);
            } else if (r.lay == LAY_NVFP4) {
                nvfp4_perturbed(&r, Xh + o, Xc + o, yc, yg, Pc, P2, &in, Et);
            } else {
                const size_t row = STEPQ_ROW_BYTES(r.b, V);
                // a code a step away from the CPU's where the quotient is far from a tie: row 9,
                // the first column whose code is below qmax in magnitude
                int8_t z[V];
                stepq_unpack_codes(z, P2 + 9 * row + 2, V, r.b);
                int j = 0;
                while (abs(z[j]) >= STEPQ_QMAX(r.b) - 1) j++;
                z[j] += 1;
                stepq_pack_codes(P2 + 9 * row + 2, z, V, r.b);
                CHECK(contract(Xh + o, Xc + o, yc, yg, Pc, P2, &in, r.lay, r.b, Et, w2, sizeof w2) > 0,
                      "%s %s: a code moved a step passed the contract", f->name, stepq_kind_name(kind));
                printf("  %s %s: a code moved a step: %s\n", f->name, stepq_kind_name(kind), w2);
                memcpy(P2, Pg, r.stride);
                uint16_t hs;
                memcpy(&hs, P2 + 9 * row, 2);
                hs++;
                memcpy(P2 + 9 * row, &hs, 2);
                CHECK(contract(Xh + o, Xc + o, yc, yg, Pc, P2, &in, r.lay, r.b, Et, w2, sizeof w2) > 0,
                      "%s %s: a scale moved an ulp passed the contract", f->name, stepq_kind_name(kind));
                printf("  %s %s: a scale moved an ulp: %s\n", f->name, stepq_kind_name(kind), w2);
            }
            free(P2);
        }
        if (r.lay == LAY_NVFP4)
            for (int h = 0; h < HEADS; h++)
                for (int i = 0; i < K; i++)
                    for (int j = 0; j < V; j++) {
                        const int k = j / STEPQ_NVFP4_BLOCK, e = j % STEPQ_NVFP4_BLOCK;
                        codes_differ += nv_code(nv_block(r.Pc + h * r.stride, i, k), e) != nv_code(nv_block(r.Pg + h * r.stride, i, k), e);
                    }
        if (r.lay == LAY_FP8TILE)  // the tiles' code bytes
            for (int h = 0; h < HEADS; h++)
                for (int e = 0; e < K * V; e++) {
                    const size_t at = (size_t)h * r.stride + (size_t)(e / (STEPQ_FP8_TILE * V) + 1) * 4 + e;
                    codes_differ += r.Pc[at] != r.Pg[at];
                }
        if (r.lay == LAY_BF16 || r.lay == LAY_FP16)  // a cast's codes: its elements
            for (size_t e = 0; e < (size_t)HEADS * r.stride; e += 2) codes_differ += memcmp(r.Pc + e, r.Pg + e, 2) != 0;
        if (r.lay == LAY_ROWS)
            for (int h = 0; h < HEADS; h++) {
                const size_t row = STEPQ_ROW_BYTES(r.b, V);
                for (int i = 0; i < K; i++) {
                    int8_t zc[V], zg[V];
                    stepq_unpack_codes(zc, r.Pc + h * r.stride + i * row + 2, V, r.b);
                    stepq_unpack_codes(zg, r.Pg + h * r.stride + i * row + 2, V, r.b);
                    for (int j = 0; j < V; j++) codes_differ += zc[j] != zg[j];
                }
            }
    }
    CHECK(violations == 0, "%s %s: %d violations of the contract in %d steps x %d heads; first: %s", f->name,
          stepq_kind_name(kind), violations, steps, HEADS, why);
    printf("%s %s: %d steps x %d heads from the CPU's state: %d violations; largest |dy|/|y| %.2g; "
           "%d stored bytes and %d codes differ of %ld\n",
           f->name, stepq_kind_name(kind), steps, HEADS, violations, ymax, differ, codes_differ,
           (long)steps * HEADS * (long)r.qs[0].bytes);
    free(Xh); free(Xc); free(work); free(Et);
    rig_close(&r);
}

// ||a - b|| / ||b|| over n floats
static double rel(const float* a, const float* b, size_t n) {
    double d = 0, s = 0;
    for (size_t i = 0; i < n; i++) {
        d += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        s += (double)b[i] * b[i];
    }
    return sqrt(d / s);
}

// `steps` steps run free beside a float32 reference: the mean over heads and over each bin of
// BIN steps of the read-out and the stored state's errors, the kernels' against the CPU's
static void trajectory(const stepq_format* f, int kind, int steps, gsl_rng* rng) {
    rig r;
    rig_open(&r, f, kind, rng);
    rig_sync(&r);
    const int G = stepq_kind_gates(kind, K);
    const double scale = 1.0 / sqrt((double)K);
    float* S = malloc(sizeof(float) * K * V * HEADS);   // the float32 reference
    float* Xc = malloc(sizeof(float) * K * V * HEADS);
    float* Xd = malloc(sizeof(float) * K * V);
    float* work = malloc(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
    float yr[V];
    for (int h = 0; h < HEADS; h++) stepq_qstate_decode(&r.qs[h], S + (size_t)h * K * V);
    const stepq_head_plan* hp = &r.qs[0].hp;
    double worst = 0, gap = 0, ey[2] = {0, 0}, es[2] = {0, 0};
    int worst_bin = -1, bad = 0;
    for (int t = 0; t < steps; t++) {
        rig_inputs(&r, rng);
        rig_step(&r, Xc, work);
        if (t % BIN == 0) ey[0] = ey[1] = es[0] = es[1] = 0;
        for (int h = 0; h < HEADS; h++) {
            float* Sh = S + (size_t)h * K * V;
            stepq_step_f32(Sh, yr, work, r.q + h * K, r.k + h * K, r.v + h * V, r.g + h * G, r.beta[h], scale, G, K, V);
            ey[0] += rel(r.yg + h * V, yr, V) / (HEADS * BIN);
            ey[1] += rel(r.yc + h * V, yr, V) / (HEADS * BIN);
            stepq_decode(Xd, r.Pg + h * r.stride, f, hp, K, V);
            es[0] += rel(Xd, Sh, (size_t)K * V) / (HEADS * BIN);
            stepq_decode(Xd, r.Pc + h * r.stride, f, hp, K, V);
            es[1] += rel(Xd, Sh, (size_t)K * V) / (HEADS * BIN);
        }
        if (t % BIN != BIN - 1) continue;
        // 2% of the CPU's error; FP32's CPU step is the reference's (error 0), so a float32
        // floor of 1e-5 (the kernels' other order of sums, a few roundings a step)
        for (int m = 0; m < 2; m++) {
            const double a = m ? es[0] : ey[0], c = m ? es[1] : ey[1];
            if (c > 0 && fabs(a - c) / c > worst) worst = fabs(a - c) / c, worst_bin = t / BIN;
            gap = fmax(gap, fabs(a - c));
            if (!(fabs(a - c) <= 0.02 * c + 1e-5) && !bad++)
                fprintf(stderr, "%s %s bin %d: %s error %.6g vs the CPU's %.6g\n", f->name, stepq_kind_name(kind),
                        t / BIN, m ? "state" : "read-out", a, c);
        }
        if (t == steps - 1)
            printf("%s %s: %d steps free, %d heads: last bin's mean errors: read-out %.4g (CPU %.4g), state %.4g "
                   "(CPU %.4g); largest gap %.2g, %.2g%% of the CPU's (bin %d of %d steps)\n", f->name,
                   stepq_kind_name(kind), steps, HEADS, ey[0], ey[1], es[0], es[1], gap, 100 * worst, worst_bin, BIN);
    }
    CHECK(bad == 0, "%s %s: the error trajectories part by more than 2%%", f->name, stepq_kind_name(kind));
    free(S); free(Xc); free(Xd); free(work);
    rig_close(&r);
}

// the kernels' exp of a log gate against the C library's expf (sim/recurrence.c's decays) on
// every 97th float in [-40, 0] and at the ends of the range: within an ulp (method 6.5's
// contract assumes it), and how many differ
static void expf_sweep(void) {
    long n = 0, differ = 0, beyond = 0;
    float worst_g = 0;
    for (uint32_t b = stepq_f32_bits(-40.0f); b >= 0x80000000u; b -= 97) {
        const float g = stepq_bits_f32(b), e = stepq_serving_lanes_expf(g), c = expf(g);
        n++;
        if (e == c) continue;
        differ++;
        if (!(nextafterf(c, 0.0f) == e || nextafterf(c, INFINITY) == e) && !beyond++) worst_g = g;
    }
    const float ends[] = {0.0f, -0.0f, -87.0f, -103.0f, -104.0f, -150.0f, 1.0f, 88.0f, 89.0f};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        const float g = ends[i], e = stepq_serving_lanes_expf(g), c = expf(g);
        n++;
        differ += e != c;
        if (!(e == c || nextafterf(c, 0.0f) == e || nextafterf(c, INFINITY) == e) && !beyond++) worst_g = g;
    }
    CHECK(beyond == 0, "the lane kernels' exp: %ld of %ld gates more than an ulp from expf (first g = %.9g)", beyond, n, worst_g);
    CHECK(isnan(stepq_serving_lanes_expf(NAN)), "the lane kernels' exp of NaN is not NaN");
    printf("exp of the gates: %ld gates in [-40, 0] and 9 ends, %ld differ from expf by an ulp, %ld by more\n", n, differ, beyond);
}

// rows -> lanes -> rows gives the bytes back, and rows -> lanes moves every byte (a bijection)
static void layout_roundtrip(const stepq_format* f, gsl_rng* rng) {
    stepq_head_plan hp;
    uint8_t rows[K];
    stepq_assert(stepq_head_plan_for(&hp, rows, f, NULL, 0, STEPQ_GDN, K) == STEPQ_OK);
    stepq_serving* s;
    stepq_assert(stepq_serving_create(&s, f, &hp, 1, STEPQ_GDN, 1, K, V, STEPQ_SERVE_LANES, 1, STEPQ_CUDA_EMULATE) == STEPQ_OK);
    const size_t n = stepq_format_bytes(f, &hp, K, V), stride = stepq_serving_stride(s);
    uint8_t *a = calloc(1, stride), *b = calloc(1, stride);
    for (size_t i = 0; i < n; i++) a[i] = (uint8_t)gsl_rng_uniform_int(rng, 256);
    stepq_serving_upload(s, a, 1);
    stepq_serving_read(s, NULL, b);
    CHECK(memcmp(a, b, n) == 0, "%s: the lanes layout does not give the rows layout back", f->name);
    stepq_serving_free(s);
    free(a);
    free(b);
}

// The contract of the formats whose kernels encode in the CPU's order (method 6.5): the dual-axis
// fit, the rows of allocated widths, DAMP, LeapQuant, stochastic rounding: from the same stored
// state, the kernel's read-out and updated state are the FP32 lane kernel's on the CPU's decode
// of that state, bit for bit (so within FP32's bounds above), and its stored bytes are the CPU
// encoder's (quant/dualfit.h, rows.c, damp.c, leap.c, sr.c) of that updated state, bit for bit.
// Plans: mixed widths {2, 4, 6, 8, 16} with row influences (refits 1, and 2), every row a pivot
// (no fit), every row 2 bits (the fit: GDN's odd levels in groups of 32, KDA's ternary); DAMP's
// rows of 8 bits with pivots (some, all, none); DSQ's, LeapQuant's, stochastic rounding's one
// plan of their width.
#define DUAL_PLANS 4

// the bytes of head h's stored state (packed, the plan's) that differ from the CPU's encoding
// of X, the state it holds, over prev, the bytes it replaced (stochastic rounding's encode
// counter)
static long plan_differs(const uint8_t* packed, const float* X, const stepq_format* f, const stepq_head_plan* hp,
                         const uint8_t* prev) {
    uint8_t* ref = malloc(stepq_format_bytes(f, hp, K, V));
    float* work = malloc(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
    memcpy(ref, prev, stepq_format_bytes(f, hp, K, V));
    stepq_assert(stepq_encode(ref, X, f, hp, work, K, V) == STEPQ_OK);
    long n = 0;
    for (size_t e = 0; e < stepq_format_bytes(f, hp, K, V); e++) n += ref[e] != packed[e];
    free(ref);
    free(work);
    return n;
}

static void plan_exact(const char* name, int kind, int steps, gsl_rng* rng) {
    const stepq_format *f = stepq_format_find(name), *f32 = stepq_format_find("fp32");
    static uint8_t bits[DUAL_PLANS][K];
    static float w[DUAL_PLANS][K];
    stepq_head_plan hp[DUAL_PLANS], hp32;
    uint8_t rows[K], rows32[K];
    int np = DUAL_PLANS;
    const int fam = f->family->id, damp = fam == STEPQ_FAMILY_DAMP;
    if ((fam == STEPQ_FAMILY_DUAL && f->dual.dsq) || fam == STEPQ_FAMILY_LEAP || fam == STEPQ_FAMILY_SR) {
        np = 1;  // their one plan (LeapQuant's, stochastic rounding's: read by no kernel)
        stepq_assert(stepq_head_plan_for(&hp[0], rows, f, NULL, 0, kind, K) == STEPQ_OK);
    } else {
        for (int p = 0; p < DUAL_PLANS; p++) {
            double lw = 0;
            for (int i = 0; i < K; i++) {
                if (damp)  // DAMP's widths: 8, or an FP16 pivot (plan 2: every row; plan 3: none)
                    bits[p][i] = p == 2 || (p < 2 && (i * 7 + 3 * p) % 5 == 0) ? STEPQ_PIVOT_BITS : 8;
                else
                    bits[p][i] = p == 2 ? STEPQ_PIVOT_BITS : p == 3 ? 2 : (uint8_t)stepq_plan_widths[(i * 7 + 3 * p) % STEPQ_NW];
                w[p][i] = (float)exp(gsl_ran_gaussian(rng, 0.7));
                lw += log(w[p][i]) / K;
            }
            for (int i = 0; i < K; i++) w[p][i] = (float)(w[p][i] / exp(lw));  // geometric mean 1
            hp[p] = (stepq_head_plan){kind, bits[p], w[p], 0.5f, p == 1 ? 2 : 1};
        }
    }
    stepq_assert(stepq_head_plan_for(&hp32, rows32, f32, NULL, 0, kind, K) == STEPQ_OK);
    stepq_serving *A, *B;
    stepq_assert(stepq_serving_create(&A, f, hp, np, kind, HEADS, K, V, STEPQ_SERVE_LANES, 1, STEPQ_CUDA_EMULATE) == STEPQ_OK);
    stepq_assert(stepq_serving_create(&B, f32, &hp32, 1, kind, HEADS, K, V, STEPQ_SERVE_LANES, 1, STEPQ_CUDA_EMULATE) == STEPQ_OK);
    const size_t sa = stepq_serving_stride(A), KV = (size_t)K * V;
    stepq_assert(stepq_serving_stride(B) == KV * 4);
    const int G = stepq_kind_gates(kind, K);
    float *q = malloc(4 * HEADS * K), *k = malloc(4 * HEADS * K), *v = malloc(4 * HEADS * V), *g = malloc(4 * HEADS * G);
    float *beta = malloc(4 * HEADS), *decay = malloc(4 * HEADS * K), *ya = malloc(4 * HEADS * V), *yb = malloc(4 * HEADS * V);
    float *X = malloc(4 * HEADS * KV), *Xb = malloc(4 * HEADS * KV), *work = malloc(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
    uint8_t *P = calloc(HEADS, sa), *Pa = calloc(HEADS, sa);
    for (int h = 0; h < HEADS; h++) {
        gt_state(X, K, V, rng);
        stepq_assert(stepq_encode(P + h * sa, X, f, &hp[h % np], work, K, V) == STEPQ_OK);
    }
    const double scale = 1.0 / sqrt((double)K);
    long ydiff = 0, bdiff = 0, bytes = 0;
    for (int t = 0; t < steps; t++) {
        step_inputs(q, k, v, g, beta, decay, kind, rng);
        for (int h = 0; h < HEADS; h++) stepq_decode(X + h * KV, P + h * sa, f, &hp[h % np], K, V);
        stepq_serving_upload(A, P, HEADS);
        stepq_serving_upload(B, (const uint8_t*)X, HEADS);
        stepq_serving_set_inputs(A, q, k, v, g, beta, scale);
        stepq_serving_set_inputs(B, q, k, v, g, beta, scale);
        stepq_serving_step(A);
        stepq_serving_step(B);
        stepq_assert(stepq_serving_read(A, ya, Pa) == STEPQ_OK && stepq_serving_read(B, yb, (uint8_t*)Xb) == STEPQ_OK);
        for (int h = 0; h < HEADS; h++) {
            ydiff += memcmp(ya + h * V, yb + h * V, 4 * V) != 0;
            bdiff += plan_differs(Pa + h * sa, Xb + h * KV, f, &hp[h % np], P + h * sa);
            bytes += (long)stepq_format_bytes(f, &hp[h % np], K, V);
        }
        if (t < steps - 1) memcpy(P, Pa, HEADS * sa);  // run on from the kernel's own state (P: the last step's start)
    }
    CHECK(ydiff == 0 && bdiff == 0, "%s %s: %ld read-outs differ from the FP32 kernel's on the decoded state, %ld stored "
          "bytes from the CPU encoder's of its state", name, stepq_kind_name(kind), ydiff, bdiff);
    // the check can fail: in head 0 (plan 0, mixed widths; DSQ, LeapQuant: their width; DAMP: 8
    // bits), the first row of width b: its code 5 moved a step (down where it is at the top), then
    // its row scale or factor an FP16 ulp; stochastic rounding: row 9's code 5 moved a step (FP16:
    // an ulp), then column 5's scale an ulp (FP16, which has none: the encode counter moved)
    const stepq_head_plan* h0 = &hp[0];
    const uint8_t* P0 = P;  // the bytes head 0 replaced (the last step's start)
    uint32_t off[K];
    f->family->row_offsets(off, f, h0, K, V);
    uint8_t *code, *sc;
    int8_t z[V], step = 0;
    const int b = damp ? 8 : fam == STEPQ_FAMILY_LEAP ? f->width : 6;
    if (fam == STEPQ_FAMILY_SR) {
        code = Pa + off[9] + 5 * (f->sr.element == STEPQ_ELEM_FP16 ? 2 : 1);
        sc = f->sr.element == STEPQ_ELEM_FP16 ? Pa : Pa + 8 + 4 * 5;
        *code ^= 1;
    } else {
        int ib = 0;
        while (h0->bits[ib] != b) ib++;
        code = Pa + off[ib] + 2;
        sc = Pa + off[ib];
        stepq_unpack_codes(z, code, V, b);
        step = z[5] < STEPQ_QMAX(b) ? 1 : -1;
        z[5] += step;
        stepq_pack_codes(code, z, V, b);
    }
    const long moved_code = plan_differs(Pa, Xb, f, h0, P0);
    CHECK(moved_code > 0, "%s %s: a code moved a step passed the check", name, stepq_kind_name(kind));
    if (fam == STEPQ_FAMILY_SR) *code ^= 1;
    else {
        z[5] -= step;
        stepq_pack_codes(code, z, V, b);
    }
    *sc ^= 1;  // the lowest bit of the scale (FP16 or float32), the row factor, or the counter
    const long moved_factor = plan_differs(Pa, Xb, f, h0, P0);
    CHECK(moved_factor > 0, "%s %s: a scale moved an ulp passed the check", name, stepq_kind_name(kind));
    printf("%s %s: %d steps x %d heads (%d plans): %ld read-outs differ from the FP32 kernel's, %ld of %ld stored bytes "
           "from the CPU encoder's; a moved code: %ld bytes, a moved scale: %ld\n", name, stepq_kind_name(kind),
           steps, HEADS, np, ydiff, bdiff, bytes, moved_code, moved_factor);
    stepq_serving_free(A);
    stepq_serving_free(B);
    void* ps[] = {q, k, v, g, beta, decay, ya, yb, X, Xb, work, P, Pa};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) free(ps[i]);
}

int main(void) {
    gsl_rng* rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 67);
    expf_sweep();
    const char* names[] = {"fp32", "bf16", "fp16", "int8", "int6", "int4", "nvfp4", "fp8-tile32"};
    for (int i = 0; i < 8; i++) {
        const stepq_format* f = stepq_format_find(names[i]);
        layout_roundtrip(f, rng);
        for (int kind = STEPQ_GDN; kind <= STEPQ_KDA; kind++) {
            one_step_contract(f, kind, 16, rng);
            trajectory(f, kind, 256, rng);
        }
    }
    const char* exact[] = {"stepquant6", "dsq6", "time6", "damp", "leap6-r4", "leap6-r8", "leap6-fp32", "leap4-r4",
                           "int8-sr", "fp8-sr", "fp16-sr"};
    for (int i = 4; i < 8; i++) layout_roundtrip(stepq_format_find(exact[i]), rng);  // LeapQuant's two parts
    for (int kind = STEPQ_GDN; kind <= STEPQ_KDA; kind++)
        for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) plan_exact(exact[i], kind, i == 1 ? 4 : 8, rng);
    // what the lane kernels refuse, by name
    const stepq_format* nv = stepq_format_find("leap6-r4-freeze");
    stepq_head_plan hp;
    uint8_t rows[K];
    stepq_assert(stepq_head_plan_for(&hp, rows, nv, NULL, 0, STEPQ_GDN, K) == STEPQ_OK);
    stepq_serving* s = NULL;
    fprintf(stderr, "(four refusals expected next)\n");
    CHECK(stepq_serving_create(&s, nv, &hp, 1, STEPQ_GDN, 1, K, V, STEPQ_SERVE_LANES, 1, STEPQ_CUDA_EMULATE) == STEPQ_ERR,
          "the lane kernels took leap6-r4-freeze");
    CHECK(stepq_serving_create(&s, stepq_format_find("int8"), &hp, 1, STEPQ_GDN, 1, 64, V, STEPQ_SERVE_LANES, 1,
                               STEPQ_CUDA_EMULATE) == STEPQ_ERR, "the lane kernels took a 64 x 128 head");
    const stepq_head_plan rho4 = {STEPQ_GDN, rows, NULL, 0.4f, 1};  // (rows: leap6-r4-freeze's, every row 6 bits)
    CHECK(stepq_serving_create(&s, stepq_format_find("stepquant6"), &rho4, 1, STEPQ_GDN, 1, K, V, STEPQ_SERVE_LANES, 1,
                               STEPQ_CUDA_EMULATE) == STEPQ_ERR, "the lane kernels took rho = 0.4");
    CHECK(stepq_serving_create(&s, stepq_format_find("stepquant6"), NULL, 0, STEPQ_GDN, 1, K, V, STEPQ_SERVE_LANES, 1,
                               STEPQ_CUDA_EMULATE) == STEPQ_ERR, "the lane kernels took a format that reads plans without them");
    gsl_rng_free(rng);
    return tu_finish("test_cuda_lanes");
}

// test_formats: every row of the format table, through one loop, so a new format is tested
// for free: round trip of random and adversarial matrices under the format's named bound;
// packed size equals the table's; buffers allocated to the exact packed size so ASan (Debug
// build) catches any read or write past them; non-finite input is refused. Plus the FP16 and
// BF16 converters against the compiler's own on every bit pattern, and the fast packers
// against the generic bit-stream definition.
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../quant/format.h"
#include "../quant/numerics.h"
#include "testutil.h"

enum { K = 128, V = 128, HP = 5 };

// ---------------------------------------------------------------------------------------------
// A test plan: HP heads; GDN heads get one width each from {2, 4, 6, 8, 16}, KDA rows cycle
// through them; random row-influence factors (geometric mean 1) and DAMP rows.
static void make_plan(stepq_plan* p, int kind, gsl_rng* r) {
    stepq_plan_alloc(p, kind, K, V, HP);
    p->rho = 0.5;
    p->refits = 1;
    for (int h = 0; h < HP; h++) {
        p->layer[h] = 0;
        p->head[h] = h;
        double om[K];
        for (int i = 0; i < K; i++) om[i] = exp(gsl_ran_gaussian(r, 1.5));
        stepq_row_influence(p->w + h * K, om, 0.25, K);
        for (int i = 0; i < K; i++) p->damp[h * K + i] = gsl_rng_uniform(r) < 0.25;
        for (int u = 0; u < p->G; u++)
            for (int a = 0; a < STEPQ_N_ALLOC; a++)
                for (int b = 0; b < STEPQ_N_BUDGETS; b++)
                    p->bits[a][b][h * p->G + u] = (uint8_t)stepq_plan_widths[(h + u + a + b) % STEPQ_NW];
    }
}

static float get16(const uint8_t* p) { uint16_t h; memcpy(&h, p, 2); return stepq_f16_to_f32(h); }

// int-b row bound: half a step s/2 with s = fp16(amax/qmax) (FP16 relative error 2^-11, or its
// 2^-24 floor), plus the clipping the rounding of s can cause (<= amax 2^-11), plus the
// saturation of s at 65504
static double int_bound(int b, double amax) {
    double qmax = STEPQ_QMAX(b), s = fmax(amax / qmax * (1 + 0x1p-11), 0x1p-24);
    return (amax > 0 ? s / 2 : 0) + amax * 0x1p-11 + fmax(0.0, amax - qmax * STEPQ_FP16_MAX) + 1e-30;
}
// FP16 cast with saturation: relative 2^-11 (normals), 2^-25 absolute (subnormals)
static double fp16_bound(double ax) {
    return ax > STEPQ_FP16_MAX ? ax - STEPQ_FP16_MAX : fmax(ax * 0x1p-11, 0x1p-25);
}

static double row_absmax(const float* x) {
    double a = 0;
    for (int j = 0; j < V; j++) a = fmax(a, fabs((double)x[j]));
    return a;
}

// Checks X_hat against the bound of f's family for head plan hp; P: the packed bytes (the
// dual-axis check reads the factors from the documented layout). Returns the failures.
static int check_bounds(const stepq_format* f, const stepq_head_plan* hp, const float* X,
                        const float* Y, const uint8_t* P, const char* what) {
    int bad = 0;
    const uint8_t* row = P;
    int dual = f->family == &stepq_family_dual;
    int coded = 0;
    for (int i = 0; i < K; i++) coded |= hp->bits[i] != 16;
    const uint8_t* cfac = P;
    if (dual) row = P + (coded ? 2 * V : 0);
    float s_head = 0;
    if (f->family == &stepq_family_nvfp4) memcpy(&s_head, P, 4);
    for (int i = 0; i < K && bad < 3; i++) {
        const float* x = X + i * V;
        const float* y = Y + i * V;
        int b = hp->bits[i];
        double amax = row_absmax(x);
        double l2 = 0;
        for (int j = 0; j < V && bad < 3; j++) {
            double e = fabs((double)x[j] - y[j]), ax = fabs((double)x[j]), lim;
            l2 += e * e;
            const stepq_family* fam = f->family;
            if (fam == &stepq_family_fp8tile) {
                // half an E4M3 step: 2^-4 of the value (3 mantissa bits), or half the subnormal
                // step 2^-10 of the tile's scale; the scale read from the tile's header
                float st;
                memcpy(&st, P + (size_t)(i / 32) * (4 + 32 * V), 4);
                lim = fmax(ax * 0x1p-4, (double)st * 0x1p-10) * (1 + 1e-6) + 1e-30;
            } else if (fam == &stepq_family_sr) {
                // stochastic rounding lands on either neighbour: a whole step, never more
                float sj = 0;
                if (f->sr.element != STEPQ_ELEM_FP16) memcpy(&sj, P + 8 + 4 * j, 4);
                lim = f->sr.element == STEPQ_ELEM_INT8  ? sj * (1 + 1e-6)
                      : f->sr.element == STEPQ_ELEM_FP8 ? fmax(ax * 0x1p-3, (double)sj * 0x1p-9) * (1 + 1e-6)
                                                        : 2 * fp16_bound(ax);
                lim += 1e-30;
            } else if (fam == &stepq_family_cast)
                lim = f->cast.element == STEPQ_ELEM_FP32   ? 0
                      : f->cast.element == STEPQ_ELEM_BF16 ? fmax(ax * 0x1p-8, 0x1p-134)
                                                           : fp16_bound(ax);
            else if (b == 16) lim = fp16_bound(ax);
            else if (fam == &stepq_family_rows) lim = int_bound(b, amax);
            else if (fam == &stepq_family_damp) lim = INFINITY;  // rotated: checked on the row below
            else if (fam == &stepq_family_leap) {
                double bb = int_bound(f->width, amax), a = f->leap.alpha;
                int r = f->leap.residual_bits;
                lim = (1 - a) * bb + a * (r == 32 ? 0 : int_bound(r, bb)) + 1e-30;
            } else if (fam == &stepq_family_nvfp4) {
                // half the widest E2M1 spacing (2, between 4 and 6) times the block's scale; a
                // block whose E4M3 scale rounds to 0 decodes to 0 (and was below 6 2^-10 s_head)
                const uint8_t* blk = P + 4 + (size_t)(i * V + j) / 16 * 9;
                double s = stepq_e4m3_decode(blk[0]) * (double)s_head;
                lim = s > 0 ? s * 1.0 * (1 + 1e-6) : 6 * 0x1p-10 * s_head * 1.01;
            } else if (dual) {
                // nearest code in range: within half a step (a full step for the odd levels), or
                // clipped at the largest code on the same side
                int gdn2 = stepq_kind_of(hp->kind)->dual_odd2 && b == 2;
                float r = get16(row + (gdn2 ? 2 * (j / 32) : 0)), c = get16(cfac + 2 * j);
                double nrm = stepq_kind_of(hp->kind)->dual_nrm8 ? (double)(1 << (8 - b)) : 1.0;
                double step = (double)r * c * nrm, top = step * (gdn2 ? 3 : STEPQ_QMAX(b));
                int clipped = fabs(fabs((double)y[j]) - top) <= 1e-6 * top && ax >= fabs((double)y[j]) &&
                              (x[j] >= 0) == (y[j] >= 0);
                lim = clipped ? INFINITY : step * (gdn2 ? 1.0 : 0.5) * (1 + 1e-5) + 1e-30;
            } else lim = -1;
            if (!(e <= lim)) {
                CHECK(0, "%s (%s) on %s: |x - x_hat| = %g > %g at [%d,%d] (x = %g, width %d)",
                      f->name, stepq_kind_name(hp->kind), what, e, lim, i, j, (double)x[j], b);
                bad++;
            }
        }
        if (f->family == &stepq_family_damp && b != 16) {
            // orthonormal rotation: the row's L2 error is that of INT8 in the rotated domain,
            // whose absmax is at most the row's L2 norm
            double n2 = 0;
            for (int j = 0; j < V; j++) n2 += (double)x[j] * x[j];
            double lim = sqrt((double)V) * int_bound(8, sqrt(n2)) * (1 + 1e-5);
            if (!(sqrt(l2) <= lim)) {
                CHECK(0, "damp on %s: row %d L2 error %g > %g", what, i, sqrt(l2), lim);
                bad++;
            }
        }
        if (dual) {
            int gdn2 = stepq_kind_of(hp->kind)->dual_odd2 && b == 2;
            row += b == 16 ? 2 * V : 2 * (gdn2 ? V / 32 : 1) + V * b / 8;
        }
    }
    return bad;
}

static void round_trip(const stepq_format* f, const stepq_head_plan* hp, const float* X,
                       const char* what) {
    size_t nb = stepq_format_bytes(f, hp, K, V);
    CHECK(fabs(stepq_format_actual_bits(f, hp, K, V) - 8.0 * nb / (K * V)) < 1e-12, "%s bits", f->name);
    double parts[STEPQ_N_BITS], sum = 0;
    stepq_format_breakdown(parts, f, hp, K, V);
    for (int k = 0; k < STEPQ_N_BITS; k++) sum += parts[k];
    CHECK(fabs(sum - 8.0 * nb / (K * V)) < 1e-9, "%s: the bit breakdown sums to %.6f, bytes give %.6f",
          f->name, sum, 8.0 * nb / (K * V));
    uint8_t* P = calloc(nb, 1);  // exactly the table's size: ASan sees any overrun
    float* Y = malloc(sizeof(float) * K * V);
    float* work = malloc(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
    CHECK(stepq_encode(P, X, f, hp, work, K, V) == STEPQ_OK, "%s: encode refused %s", f->name, what);
    stepq_decode(Y, P, f, hp, K, V);
    check_bounds(f, hp, X, Y, P, what);
    free(P);
    free(Y);
    free(work);
}

static void adversarial(const stepq_format* f, const stepq_head_plan* hp, float* X, gsl_rng* r) {
    // random, with row and column ridges
    for (int i = 0; i < K * V; i++)
        X[i] = (float)(gsl_ran_gaussian(r, 1.0) * (i / V % 17 == 0 ? 10 : 1) * (i % V % 13 == 0 ? 20 : 1));
    round_trip(f, hp, X, "random with ridges");
    memset(X, 0, sizeof(float) * K * V);
    round_trip(f, hp, X, "a zero head");
    X[5 * V + 7] = 3e4f;
    round_trip(f, hp, X, "one huge element");
    for (int i = 0; i < K * V; i++) X[i] = (float)gsl_ran_gaussian(r, 1.0);
    for (int j = 0; j < V; j++) X[11 * V + j] = 2e4f * (j % 2 ? 1 : -1);
    round_trip(f, hp, X, "a whole huge row");
    for (int i = 0; i < K * V; i++) X[i] = (float)gsl_ran_gaussian(r, 1.0);
    for (int i = 0; i < K; i++) X[i * V + 3] = 2e4f;
    round_trip(f, hp, X, "a whole huge column");
    for (int i = 0; i < K * V; i++) X[i] = (float)gsl_ran_gaussian(r, 1.0);
    memset(X + 9 * V, 0, sizeof(float) * V);
    round_trip(f, hp, X, "a zero row");
    for (int i = 0; i < K * V; i++) X[i] = (float)(gsl_ran_gaussian(r, 1.0) * 1e-39);  // denormals
    round_trip(f, hp, X, "denormals");
    // beyond every FP16 scale: decodes finite (no format may store inf), and NaN/Inf refused
    for (int i = 0; i < K * V; i++) X[i] = (float)gsl_ran_gaussian(r, 1.0) * 1e30f;
    size_t nb = stepq_format_bytes(f, hp, K, V);
    uint8_t* P = calloc(nb, 1);
    float* Y = malloc(sizeof(float) * K * V);
    float* work = malloc(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
    CHECK(stepq_encode(P, X, f, hp, work, K, V) == STEPQ_OK, "%s refused 1e30", f->name);
    stepq_decode(Y, P, f, hp, K, V);
    int finite = 1;
    // the casts without saturation, the FP32 residual and NVFP4's FP32 head scale store 1e30
    int wide = (f->family == &stepq_family_cast && f->cast.element != STEPQ_ELEM_FP16) ||
               (f->family == &stepq_family_leap && f->leap.residual_bits == 32) ||
               f->family == &stepq_family_nvfp4 || f->family == &stepq_family_fp8tile ||
               (f->family == &stepq_family_sr && f->sr.element != STEPQ_ELEM_FP16);
    for (int i = 0; i < K * V; i++) finite &= isfinite(Y[i]) || wide;
    CHECK(finite, "%s decodes 1e30 inputs to non-finite values", f->name);
    X[3 * V + 3] = NAN;
    CHECK(stepq_encode(P, X, f, hp, work, K, V) == STEPQ_ERR, "%s accepted a NaN", f->name);
    X[3 * V + 3] = INFINITY;
    CHECK(stepq_encode(P, X, f, hp, work, K, V) == STEPQ_ERR, "%s accepted an Inf", f->name);
    free(P);
    free(Y);
    free(work);
}

static void check_formats(void) {
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    float* X = malloc(sizeof(float) * K * V);
    stepq_plan plans[2];
    make_plan(&plans[0], STEPQ_GDN, r);
    make_plan(&plans[1], STEPQ_KDA, r);
    for (int fi = 0; fi < stepq_n_formats; fi++) {
        const stepq_format* f = &stepq_formats[fi];
        CHECK(stepq_format_find(f->name) == f, "%s not found by name", f->name);
        uint8_t rows[K];
        stepq_head_plan hp;
        CHECK(f->needs == STEPQ_NEEDS_NOTHING ||
                  stepq_head_plan_for(&hp, rows, f, NULL, 0, 0, K) == STEPQ_ERR,
              "%s needs a plan but accepts none", f->name);
        for (int kind = 0; kind < 2; kind++)
            for (int h = 0; h < (f->needs == STEPQ_NEEDS_NOTHING ? 1 : HP); h++) {
                CHECK(stepq_head_plan_for(&hp, rows, f, &plans[kind], h, kind, K) == STEPQ_OK,
                      "%s head plan", f->name);
                adversarial(f, &hp, X, r);
            }
    }
    // the layouts the paper's accounting depends on
    uint8_t rows[K];
    stepq_head_plan hp;
    stepq_head_plan_uniform(&hp, rows, 6, 0, K);
    CHECK(fabs(stepq_format_actual_bits(stepq_format_find("int6"), &hp, K, V) - 6.125) < 1e-12, "int6 bits");
    CHECK(fabs(stepq_format_actual_bits(stepq_format_find("space6"), &hp, K, V) - 6.25) < 1e-12, "space6 bits");
    CHECK(fabs(stepq_format_actual_bits(stepq_format_find("dsq6"), &hp, K, V) - 6.25) < 1e-12, "dsq6 bits");
    stepq_head_plan_uniform(&hp, rows, 4, 0, K);
    CHECK(fabs(stepq_format_actual_bits(stepq_format_find("nvfp4"), &hp, K, V) - (4.5 + 32.0 / (K * V))) < 1e-12,
          "nvfp4 bits");
    CHECK(fabs(stepq_format_actual_bits(stepq_format_find("leap6-r4"), &hp, K, V) - 10.25) < 1e-12, "leap6-r4 bits");
    stepq_head_plan_uniform(&hp, rows, 2, STEPQ_GDN, K);  // GDN 2-bit: groups of 32
    CHECK(fabs(stepq_format_actual_bits(stepq_format_find("stepquant4"), &hp, K, V) - 2.625) < 1e-12,
          "GDN 2-bit head is 2 + 0.5 + 0.125 bits");
    stepq_head_plan_uniform(&hp, rows, 16, STEPQ_GDN, K);  // a pivot head stores no factors
    CHECK(fabs(stepq_format_actual_bits(stepq_format_find("stepquant4"), &hp, K, V) - 16) < 1e-12,
          "pivot head is 16 bits");
    stepq_plan_free(&plans[0]);
    stepq_plan_free(&plans[1]);
    free(X);
    gsl_rng_free(r);
}

// int-b code values reconstruct exactly: x = s * z for representable s and |z| <= qmax
static void check_int_exact(void) {
    const stepq_format* f = stepq_format_find("int6");
    float* X = malloc(sizeof(float) * K * V);
    for (int i = 0; i < K * V; i++) X[i] = 0.25f * (float)((i * 7) % 63 - 31);
    for (int i = 0; i < K; i++) X[i * V] = 0.25f * 31;  // absmax 7.75 per row: s = 0.25 exactly
    uint8_t rows[K];
    stepq_head_plan hp;
    stepq_head_plan_uniform(&hp, rows, 6, 0, K);
    uint8_t* P = malloc(stepq_format_bytes(f, &hp, K, V));
    float* Y = malloc(sizeof(float) * K * V);
    stepq_encode(P, X, f, &hp, NULL, K, V);
    stepq_decode(Y, P, f, &hp, K, V);
    CHECK(memcmp(X, Y, sizeof(float) * K * V) == 0, "int6 does not reproduce its own grid");
    free(X); free(P); free(Y);
}

static void check_half(void) {
    int bad16 = 0, badb = 0;
    for (uint32_t h = 0; h < 65536; h++) {  // every FP16 pattern, decoded and re-encoded
        _Float16 ref;
        uint16_t hb = (uint16_t)h;
        memcpy(&ref, &hb, 2);
        float a = stepq_f16_to_f32(hb), b = (float)ref;
        if (!(a == b || (isnan(a) && isnan(b)))) bad16++;
        if (!isnan(a) && stepq_f32_to_f16(a) != hb) bad16++;
    }
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 3);
    for (int n = 0; n < 2000000; n++) {  // random float bit patterns, float -> FP16 and BF16
        uint32_t u = (uint32_t)gsl_rng_get(r);
        float x = stepq_bits_f32(u);
        if (isnan(x)) continue;
        _Float16 ref = (_Float16)x;
        uint16_t rb;
        memcpy(&rb, &ref, 2);
        if (stepq_f32_to_f16(x) != rb) bad16++;
        // bf16 reference: round half to even on the float's bits, by exact double arithmetic
        // truncation lo and the next BF16 away from zero, hi = lo + one BF16 ulp (2^-133 for
        // subnormals), in double so that hi may exceed FLT_MAX (rounding there gives inf)
        float lo = stepq_bits_f32(u & 0xffff0000u);
        double alo = fabs((double)lo);
        double ulp = alo >= 0x1p-126 ? ldexp(1.0, ilogb(alo) - 7) : 0x1p-133;
        double dl = fabs((double)x - lo), dh = alo + ulp - fabs((double)x);
        uint16_t want = (uint16_t)(u >> 16);
        if (dh < dl || (dh == dl && (want & 1))) want++;
        if (stepq_f32_to_bf16(x) != want) badb++;
    }
    CHECK(bad16 == 0, "%d FP16 conversions differ from _Float16", bad16);
    CHECK(badb == 0, "%d BF16 conversions differ from round-half-to-even", badb);
    CHECK(stepq_f16_factor(0.0f) == 1 && stepq_f16_factor(1e9f) == 0x7bff, "FP16 factor clamps");
    gsl_rng_free(r);
}

static void check_packers(void) {
    enum { N = 96 };
    int8_t z[N], back[N];
    uint8_t ref[N], fast[N];
    for (int b = 2; b <= 8; b++) {
        int q = STEPQ_QMAX(b);
        for (int i = 0; i < N; i++) z[i] = (int8_t)(i % (2 * q + 2) - q - 1);  // -q-1 .. q
        stepq_pack_codes(ref, z, N, b);
        stepq_unpack_codes(back, ref, N, b);
        CHECK(memcmp(z, back, N) == 0, "generic pack/unpack at %d bits", b);
    }
    // bit order is a documented fact of the layout: LSB-first stream
    int8_t two[4] = {1, -1, 0, 31};
    stepq_pack_codes(ref, two, 4, 6);
    CHECK(ref[0] == (1 | (63 << 6 & 0xff)) && ref[1] == (63 >> 2) && ref[2] == (31 << 2),
          "int6 layout: got %02x %02x %02x", ref[0], ref[1], ref[2]);
    // the unrolled packers agree with the generic definition at every width
    for (int b = 2; b <= 8; b++) {
        int q = STEPQ_QMAX(b);
        for (int i = 0; i < N; i++) z[i] = (int8_t)((i * 37) % (2 * q + 2) - q - 1);
        stepq_pack_codes(ref, z, N, b);
        stepq_pack_fast(fast, z, N, b);
        CHECK(memcmp(ref, fast, (size_t)N * b / 8) == 0, "fast packing differs at %d bits", b);
        stepq_unpack_fast(back, ref, N, b);
        CHECK(memcmp(z, back, N) == 0, "fast unpacking differs at %d bits", b);
    }
    // rows layout: scale then codes, row after row
    const stepq_format* f6 = stepq_format_find("int6");
    float X[K * V];
    for (int i = 0; i < K * V; i++) X[i] = (float)((i * 37) % 63 - 31);
    uint8_t rows[K];
    stepq_head_plan hp;
    stepq_head_plan_uniform(&hp, rows, 6, 0, K);
    uint8_t* P = malloc(stepq_format_bytes(f6, &hp, K, V));
    stepq_encode(P, X, f6, &hp, NULL, K, V);
    int8_t codes[V];
    stepq_unpack_codes(codes, P + 5 * (2 + V * 6 / 8) + 2, V, 6);
    CHECK(memcmp(codes, (int8_t[]){0}, 0) == 0 && codes[0] == (int8_t)X[5 * V] &&
              get16(P + 5 * (2 + V * 6 / 8)) == 1.0f,
          "int6 row 5: scale %g, first code %d", get16(P + 5 * (2 + V * 6 / 8)), codes[0]);
    free(P);
}

// The independent references: the nearest value by exhaustive search over the code table,
// a tie to the even code (what NVIDIA's definition says), computed in double.
static uint8_t e2m1_nearest(float x) {
    static const double mag[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    double a = fabs((double)x);
    int best = 0;
    for (int k = 1; k < 8; k++) {
        double d = fabs(a - mag[k]), db = fabs(a - mag[best]);
        if (d < db || (d == db && (k & 1) == 0)) best = k;
    }
    return (uint8_t)(best | (x < 0 && best ? 8 : 0));
}
static double e4m3_value(int c) {  // c in 0..0x7e: bias 7, subnormals m 2^-9
    int e = c >> 3, m = c & 7;
    return e == 0 ? ldexp(m, -9) : ldexp(1 + m / 8.0, e - 7);
}
static uint8_t e4m3_nearest(float x) {
    if (!(x > 0)) return 0;
    int best = 0;
    for (int c = 1; c <= 0x7e; c++) {
        double d = fabs((double)x - e4m3_value(c)), db = fabs((double)x - e4m3_value(best));
        if (d < db || (d == db && (c & 1) == 0)) best = c;
    }
    return (uint8_t)best;
}

// E2M1 and E4M3 codes of numerics.h against the references on every representable value, every
// midpoint and its two float neighbours, and random floats over the range; decoders exactly
static void check_fp4_fp8(void) {
    int bad2 = 0, bad3 = 0, n = 0;
    static const float e2[] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
    for (int c = 0; c < 16; c++)
        bad2 += stepq_e2m1_decode((uint8_t)c) != (c & 8 ? -e2[c & 7] : e2[c & 7]);
    for (int c = 0; c < 0x7f; c++) bad3 += stepq_e4m3_decode((uint8_t)c) != (float)e4m3_value(c);
    CHECK(bad2 == 0 && bad3 == 0, "decoders: %d E2M1, %d E4M3 values wrong", bad2, bad3);
    bad2 = bad3 = 0;
    for (int c = 0; c < 8; c++)
        for (int s = -1; s <= 1; s += 2) {
            float v = s * e2[c], m = c < 7 ? s * 0.5f * (e2[c] + e2[c + 1]) : s * 7.0f;
            float probe[5] = {v, m, nextafterf(m, 0), nextafterf(m, 100 * m), 20 * m};
            for (int k = 0; k < 5; k++, n++) bad2 += stepq_e2m1_encode(probe[k]) != e2m1_nearest(probe[k]);
        }
    for (int c = 0; c < 0x7e; c++) {
        float v = (float)e4m3_value(c), m = (float)(0.5 * (e4m3_value(c) + e4m3_value(c + 1)));
        float probe[4] = {v, m, nextafterf(m, 0), nextafterf(m, 1000)};
        for (int k = 0; k < 4; k++, n++) bad3 += stepq_e4m3_encode(probe[k]) != e4m3_nearest(probe[k]);
    }
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    for (int i = 0; i < 200000; i++, n++) {
        float x = (float)ldexp(gsl_rng_uniform(r) - 0.5, (int)gsl_rng_uniform_int(r, 24) - 10);
        bad2 += stepq_e2m1_encode(x) != e2m1_nearest(x);
        bad3 += stepq_e4m3_encode(fabsf(x) * 64) != e4m3_nearest(fabsf(x) * 64);
    }
    gsl_rng_free(r);
    CHECK(bad2 == 0, "%d of %d E2M1 encodings differ from the nearest code", bad2, n);
    CHECK(bad3 == 0, "%d of %d E4M3 encodings differ from the nearest code", bad3, n);
    CHECK(stepq_e4m3_encode(448.0f) == 0x7e && stepq_e4m3_encode(1e6f) == 0x7e &&
              stepq_e4m3_encode(-1.0f) == 0 && stepq_e4m3_encode(NAN) == 0,
          "E4M3 saturation and non-positive inputs");
    CHECK(stepq_e2m1_encode(-100.0f) == 15 && stepq_e2m1_encode(-0.1f) == 0, "E2M1 saturation and -0");
}

// stepq_family_holds: what each family needs of d_v, and that every shape it accepts encodes and
// decodes (the plan-free formats, a uniform head plan): no assertion, no error
static void check_shapes(void) {
    static const struct {
        const char* format;
        int V, fits;  // from the layouts: dual rows group 32 values, NVFP4 blocks of 16,
    } want[] = {      // DAMP's Hadamard needs a power of two, packed 6-bit rows groups of 4
        {"stepquant6", 40, 0}, {"stepquant6", 96, 1}, {"dsq4", 48, 0}, {"nvfp4", 40, 0},
        {"nvfp4", 48, 1}, {"damp", 96, 0}, {"damp", 64, 1}, {"int6", 42, 0}, {"int6", 44, 1},
        {"fp32", 3, 1}, {"int8", 0, 0}, {"int8", STEPQ_MAX_DIM + 4, 0},
    };
    const int K = 16;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const stepq_format* f = stepq_format_find(want[i].format);
        int got = f ? stepq_family_holds(f->family, K, want[i].V) : -1;
        CHECK(got == want[i].fits, "%s with d_v = %d: holds %d, should be %d", want[i].format, want[i].V, got,
              want[i].fits);
    }
    const stepq_format* sq6 = stepq_format_find("stepquant6");  // the checked form: its message, once
    CHECK(stepq_format_fits(sq6, K, 40) == STEPQ_ERR && stepq_format_fits(sq6, K, 96) == STEPQ_OK,
          "stepq_format_fits does not follow stepq_family_holds");
    for (int fi = 0; fi < stepq_n_formats; fi++) {
        const stepq_format* f = &stepq_formats[fi];
        for (int V = 4; V <= 256 && !stepq_format_needs_plan(f); V += 4) {
            if (!stepq_family_holds(f->family, K, V)) continue;
            uint8_t rows[STEPQ_MAX_DIM];
            stepq_head_plan hp;
            stepq_head_plan_uniform(&hp, rows, f->width, STEPQ_GDN, K);
            float *X = malloc(sizeof(float) * K * V), *Y = malloc(sizeof(float) * K * V);
            float* work = malloc(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
            uint8_t* P = calloc(stepq_format_bytes(f, &hp, K, V), 1);
            for (int e = 0; e < K * V; e++) X[e] = sinf(0.7f * (float)e) * (float)(1 + e % 5);
            int rc = stepq_encode(P, X, f, &hp, work, K, V);
            if (rc == STEPQ_OK) stepq_decode(Y, P, f, &hp, K, V);
            int finite = 1;
            for (int e = 0; rc == STEPQ_OK && e < K * V; e++) finite &= isfinite(Y[e]) != 0;
            CHECK(rc == STEPQ_OK && finite, "%s accepts d_v = %d but does not encode it", f->name, V);
            free(X), free(Y), free(work), free(P);
        }
    }
}

int main(void) {
    check_shapes();
    check_formats();
    check_fp4_fp8();
    check_int_exact();
    check_half();
    check_packers();
    return tu_finish("test_formats");
}

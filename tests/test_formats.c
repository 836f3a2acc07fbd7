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

#include "../quant/common.h"
#include "../quant/format.h"
#include "../quant/half.h"
#include "testutil.h"

enum { K = 128, V = 128 };

// The bound each format promises for element x of a row whose absmax is amax, given the
// decoded value; returns the allowed |x - x_hat|.
static double bound(const stepq_format* f, float x, float amax) {
    double ax = fabs((double)x);
    if (!strcmp(f->name, "fp32")) return 0;  // identity
    // bf16: 8-bit significand, round to nearest: relative 2^-8, or half the subnormal step 2^-133
    if (!strcmp(f->name, "bf16")) return fmax(ax * 0x1p-8, 0x1p-134);
    if (!strcmp(f->name, "fp16")) {
        // 11-bit significand: relative 2^-11 for normals, 2^-25 absolute in the subnormal
        // range; saturation at 65504 above it
        if (ax > STEPQ_FP16_MAX) return ax - STEPQ_FP16_MAX;
        return fmax(ax * 0x1p-11, 0x1p-25);
    }
    if (f->bits) {
        // int-b: half a step s/2 with s = fp16(amax/qmax) (relative error 2^-11 of FP16, or
        // the 2^-24 floor), plus the clipping the rounding of s can cause (<= amax 2^-11);
        // outside FP16's range of s the excess saturates
        double qmax = STEPQ_QMAX(f->bits), s = fmax((double)amax / qmax * (1 + 0x1p-11), 0x1p-24);
        double sat = fmax(0.0, (double)amax - qmax * STEPQ_FP16_MAX);
        return (amax > 0 ? s / 2 : 0) + (double)amax * 0x1p-11 + sat + 1e-30;
    }
    return INFINITY;
}

static void round_trip(const stepq_format* f, const float* X, const char* what) {
    size_t nb = f->packed_bytes(f, K, V);
    CHECK(fabs(stepq_format_actual_bits(f, K, V) - 8.0 * nb / (K * V)) < 1e-12, "%s bits", f->name);
    uint8_t* P = malloc(nb);  // exactly the table's size: ASan sees any overrun
    float* Y = malloc(sizeof(float) * K * V);
    CHECK(f->encode(P, X, f, K, V) == STEPQ_OK, "%s: encode refused %s", f->name, what);
    f->decode(Y, P, f, K, V);
    int bad = 0;
    for (int i = 0; i < K && !bad; i++) {
        float amax = 0;
        for (int j = 0; j < V; j++) amax = fmaxf(amax, fabsf(X[i * V + j]));
        for (int j = 0; j < V && !bad; j++) {
            double e = fabs((double)X[i * V + j] - Y[i * V + j]);
            if (!(e <= bound(f, X[i * V + j], amax))) {
                CHECK(0, "%s on %s: |x - x_hat| = %g > bound %g at [%d,%d] (x = %g)", f->name, what,
                      e, bound(f, X[i * V + j], amax), i, j, (double)X[i * V + j]);
                bad = 1;
            }
        }
    }
    free(P);
    free(Y);
}

static void check_formats(void) {
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    float* X = malloc(sizeof(float) * K * V);
    for (int fi = 0; fi < stepq_n_formats; fi++) {
        const stepq_format* f = &stepq_formats[fi];
        CHECK(stepq_format_find(f->name) == f, "%s not found by name", f->name);
        // random, with row and column ridges
        for (int i = 0; i < K * V; i++)
            X[i] = (float)(gsl_ran_gaussian(r, 1.0) * (i / V % 17 == 0 ? 10 : 1) * (i % V % 13 == 0 ? 20 : 1));
        round_trip(f, X, "random");
        memset(X, 0, sizeof(float) * K * V);
        round_trip(f, X, "all zero");
        X[5 * V + 7] = 3e6f;
        round_trip(f, X, "one huge element");
        for (int i = 0; i < K * V; i++) X[i] = (float)gsl_ran_gaussian(r, 1.0);
        memset(X + 9 * V, 0, sizeof(float) * V);
        round_trip(f, X, "a zero row");
        for (int i = 0; i < K * V; i++) X[i] = (float)(gsl_ran_gaussian(r, 1.0) * 1e-39);  // denormals
        round_trip(f, X, "denormals");
        for (int i = 0; i < K * V; i++) X[i] = (float)gsl_ran_gaussian(r, 1.0) * 1e30f;  // beyond FP16 scales
        uint8_t* P = malloc(f->packed_bytes(f, K, V));
        float* Y = malloc(sizeof(float) * K * V);
        CHECK(f->encode(P, X, f, K, V) == STEPQ_OK, "%s refused 1e30", f->name);
        f->decode(Y, P, f, K, V);
        int finite = 1;
        for (int i = 0; i < K * V; i++) finite &= isfinite(Y[i]) || !strcmp(f->name, "fp32") || !strcmp(f->name, "bf16");
        CHECK(finite, "%s decodes 1e30 inputs to non-finite values", f->name);
        X[3 * V + 3] = NAN;
        CHECK(f->encode(P, X, f, K, V) == STEPQ_ERR, "%s accepted a NaN", f->name);
        X[3 * V + 3] = INFINITY;
        CHECK(f->encode(P, X, f, K, V) == STEPQ_ERR, "%s accepted an Inf", f->name);
        free(P);
        free(Y);
    }
    // the layouts the paper's accounting depends on
    CHECK(fabs(stepq_format_actual_bits(stepq_format_find("int6"), K, V) - 6.125) < 1e-12, "int6 bits");
    CHECK(fabs(stepq_format_actual_bits(stepq_format_find("int4"), K, V) - 4.125) < 1e-12, "int4 bits");
    CHECK(fabs(stepq_format_actual_bits(stepq_format_find("int8"), K, V) - 8.125) < 1e-12, "int8 bits");
    free(X);
    gsl_rng_free(r);
}

// int-b code values reconstruct exactly: x = s * z for representable s and |z| <= qmax
static void check_int_exact(void) {
    const stepq_format* f = stepq_format_find("int6");
    float* X = malloc(sizeof(float) * K * V);
    for (int i = 0; i < K * V; i++) X[i] = 0.25f * (float)((i * 7) % 63 - 31);
    for (int i = 0; i < K; i++) X[i * V] = 0.25f * 31;  // absmax 7.75 per row: s = 0.25 exactly
    uint8_t* P = malloc(f->packed_bytes(f, K, V));
    float* Y = malloc(sizeof(float) * K * V);
    f->encode(P, X, f, K, V);
    f->decode(Y, P, f, K, V);
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
        (void)fast;
    }
    // bit order is a documented fact of the layout: LSB-first stream
    int8_t two[4] = {1, -1, 0, 31};
    stepq_pack_codes(ref, two, 4, 6);
    CHECK(ref[0] == (1 | (63 << 6 & 0xff)) && ref[1] == (63 >> 2) && ref[2] == (31 << 2),
          "int6 layout: got %02x %02x %02x", ref[0], ref[1], ref[2]);
    // the fast packers in the int formats agree with the generic definition
    for (int fi = 0; fi < stepq_n_formats; fi++) {
        const stepq_format* f = &stepq_formats[fi];
        if (!f->bits) continue;
        float X[K * V];
        for (int i = 0; i < K * V; i++) X[i] = (float)((i * 37) % 255 - 127);
        uint8_t* P = malloc(f->packed_bytes(f, K, V));
        f->encode(P, X, f, K, V);
        int8_t codes[V];
        uint8_t rp[V];
        int ok = 1;
        for (int i = 0; i < K; i++) {
            const uint8_t* row = P + 2 * K + (size_t)i * V * f->bits / 8;
            stepq_unpack_codes(codes, row, V, f->bits);
            stepq_pack_codes(rp, codes, V, f->bits);
            ok &= memcmp(rp, row, (size_t)V * f->bits / 8) == 0;
        }
        CHECK(ok, "%s packing differs from the generic bit stream", f->name);
        free(P);
    }
}

int main(void) {
    check_formats();
    check_int_exact();
    check_half();
    check_packers();
    return tu_finish("test_formats");
}

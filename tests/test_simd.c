// test_simd: the AVX-512 blocks of quant/rowcodec.h and quant/dualfit.h against the scalar
// definitions they stand for, on inputs the decode-step comparisons (test_kernels) seldom
// reach: E4M3 and E2M1 codes of values on and beside every code boundary, NVFP4 block scales across
// E4M3's subnormal range, zero and underflowing blocks, Walsh-Hadamard transforms of signed
// zeros and cancelling sums, FP8 codes and every FP8 byte, stochastic rounding at FP16's top and
// on E4M3 codes; FP16 row scales on and beside every FP16 value; the code packers of every vector width (2, 4, 6, 8 bits) against the bit stream. The NVFP4 rows are compared byte for byte with the reference
// format (quant/nvfp4.c, built for baseline x86-64). This file is built with AVX-512; on a
// CPU without it the test is skipped (77).
#include <stdlib.h>
#include <string.h>

#include "../quant/dualfit.h"
#include "../quant/format.h"
#include "../quant/rowcodec.h"
#include "testutil.h"

#if defined(STEPQ_RC_AVX512)
static double e4m3_value(int c) { return stepq_e4m3_decode((uint8_t)c); }

static void check_e4m3(void) {
    float x[16 * 1024];
    int n = 0;
    for (int c = 0; c < 0x7e && n + 6 <= 16 * 1024; c++) {  // each code, its midpoints and neighbours
        float v = (float)e4m3_value(c), m = (float)(0.5 * (e4m3_value(c) + e4m3_value(c + 1)));
        float probe[6] = {v, m, nextafterf(m, 0), nextafterf(m, 1000), nextafterf(v, 0), -v};
        for (int k = 0; k < 6; k++) x[n++] = probe[k];
    }
    float extra[] = {0.0f, -0.0f, 448.0f, 500.0f, 1e30f, 1e-45f, 0.015625f, nextafterf(0.015625f, 0), NAN};
    for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++) x[n++] = extra[k];
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    while (n < 16 * 1024) x[n++] = (float)ldexp(gsl_rng_uniform(r), (int)gsl_rng_uniform_int(r, 30) - 21);
    gsl_rng_free(r);
    int bad_code = 0, bad_value = 0;
    for (int i = 0; i < n; i += 16) {
        int32_t c[16];
        float v[16];
        __m512i vc = rc_e4m3_codes16(_mm512_loadu_ps(x + i));
        _mm512_storeu_si512(c, vc);
        _mm512_storeu_ps(v, rc_e4m3_values16(vc));
        for (int k = 0; k < 16; k++) {
            uint8_t want = stepq_e4m3_encode(x[i + k]);
            bad_code += c[k] != want;
            float wv = stepq_e4m3_decode(want);
            bad_value += memcmp(&v[k], &wv, sizeof wv) != 0;
        }
    }
    CHECK(bad_code == 0, "%d of %d E4M3 codes differ from stepq_e4m3_encode", bad_code, n);
    CHECK(bad_value == 0, "%d of %d E4M3 values differ from stepq_e4m3_decode", bad_value, n);
}

// E2M1 codes of x / s against stepq_e2m1_encode: every threshold, E2M1 value and 1.0 with
// their neighbours, both signs, zeros, subnormals, values that saturate or overflow to Inf
static void check_e2m1(void) {
    float x[16 * 512];
    int n = 0;
    const float marks[] = {0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f, 3.5f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f};
    for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++) {
        float probe[3] = {marks[k], nextafterf(marks[k], 0), nextafterf(marks[k], 100)};
        for (int l = 0; l < 3; l++) x[n++] = probe[l], x[n++] = -probe[l];
    }
    float extra[] = {0.0f, -0.0f, 1e-45f, -1e-45f, 1e-38f, 3e38f, -3e38f, 1e20f};
    for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++) x[n++] = extra[k];
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 19);
    while (n < 16 * 512)
        x[n++] = (float)((gsl_rng_uniform(r) - 0.5) * exp2((double)gsl_rng_uniform_int(r, 40) - 30));
    gsl_rng_free(r);
    const float scales[] = {1.0f, 0.75f, 3.0e-3f, 1e-30f, 448.0f};
    int bad = 0;
    for (size_t sk = 0; sk < sizeof scales / sizeof scales[0]; sk++)
        for (int i = 0; i < n; i += 16) {
            int32_t c[16];
            _mm512_storeu_si512(c, rc_e2m1_codes16(_mm512_loadu_ps(x + i), _mm512_set1_ps(scales[sk])));
            for (int k = 0; k < 16; k++) bad += c[k] != stepq_e2m1_encode(x[i + k] / scales[sk]);
        }
    CHECK(bad == 0, "%d of %d E2M1 codes differ from stepq_e2m1_encode", bad, 5 * n);
}

// FP8 tile codes (rc_fp8_encode, rc_fp8_decode) against their element definitions: every E4M3
// value, midpoint and neighbour of both signs through a scale; every byte decoded, NaN codes too
static void check_fp8(void) {
    enum { N = 6 * 0x7e + 32 };
    float x[N], got[256], want;
    uint8_t code[N], bytes[256];
    int n = 0;
    const float s = 0.37f;
    for (int c = 0; c < 0x7e; c++) {
        float v = (float)e4m3_value(c), m = (float)(0.5 * (e4m3_value(c) + e4m3_value(c + 1)));
        float probe[3] = {v, m, nextafterf(m, 1000)};
        for (int k = 0; k < 3; k++) x[n++] = probe[k] * s, x[n++] = -probe[k] * s;
    }
    while (n < N) x[n] = (n % 2 ? -1.0f : 1.0f) * (float)n * 1e-4f, n++;
    x[N - 1] = -0.0f, x[N - 2] = 1e30f, x[N - 3] = -1e-44f;
    rc_fp8_encode(code, x, s, N);
    int bad = 0;
    for (int e = 0; e < N; e++) bad += code[e] != rc_e4m3_signed(x[e] / s);
    CHECK(bad == 0, "%d of %d FP8 codes differ from the element definition", bad, N);
    for (int c = 0; c < 256; c++) bytes[c] = (uint8_t)c;
    rc_fp8_decode(got, bytes, s, 256);
    bad = 0;
    for (int c = 0; c < 256; c++) {
        want = stepq_e4m3_decode((uint8_t)c) * s;
        bad += memcmp(&want, &got[c], sizeof want) != 0;
    }
    CHECK(bad == 0, "%d of 256 FP8 bytes decode to other bits than stepq_e4m3_decode", bad);
}

// stochastic rounding's element codes (rc_sr_int8_16, rc_sr_fp8_16, rc_sr_f16_16) and uniform
// numbers (rc_sr_uniform16) against their definitions: values on and beside E4M3 codes, INT8
// steps and the top of FP16 (up to 65504 and beyond), zeros of both signs, with the hash's numbers
// and with u at 0, at the rounding fraction itself and just below 1
static void check_sr(void) {
    enum { N = 16 * 80 };
    float x[N], uu[N];
    int n = 0;
    const float s = 0.37f;
    for (int c = 0; c < 0x7e && n + 4 <= N / 2; c += 3) {
        float v = (float)e4m3_value(c) * s;
        x[n++] = v, x[n++] = -nextafterf(v, 1e9f), x[n++] = (float)(0.5 * (e4m3_value(c) + e4m3_value(c + 1))) * s;
    }
    for (float h = 65400.0f; n < N / 2 + 64; h += 4.0f, n++) x[n] = n % 2 ? h : -h;  // FP16's top, saturating
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 23);
    while (n < N) x[n++] = (float)(gsl_ran_gaussian(r, 1.0) * exp2((double)gsl_rng_uniform_int(r, 30) - 10));
    x[0] = 0.0f, x[1] = -0.0f, x[2] = 127.5f * s, x[3] = -127.5f * s;
    int bad_u = 0, bad[3] = {0, 0, 0};
    for (int mode = 0; mode < 4; mode++)
        for (int i = 0; i < N; i += 16) {
            float uv[16];
            __m512 u = rc_sr_uniform16(7 + (uint64_t)mode, (size_t)i);
            _mm512_storeu_ps(uv, u);
            for (int k = 0; k < 16; k++) {
                if (mode == 0) bad_u += uv[k] != stepq_sr_uniform(7, (size_t)(i + k));
                // u = 0, the fraction of an INT8 step itself, just below 1
                uu[i + k] = mode == 0 ? uv[k] : mode == 1 ? 0.0f : mode == 2 ? x[i + k] / s - floorf(x[i + k] / s)
                                                                     : 0.99999994f;
            }
            u = _mm512_loadu_ps(uu + i);
            int32_t ci[16], cf[16];
            uint16_t ch[16];
            const __m512 xv = _mm512_loadu_ps(x + i), sv = _mm512_set1_ps(s);
            _mm512_storeu_si512(ci, rc_sr_int8_16(xv, sv, u));
            _mm512_storeu_si512(cf, rc_sr_fp8_16(xv, sv, u));
            _mm256_storeu_si256((__m256i*)ch, rc_sr_f16_16(xv, u));
            for (int k = 0; k < 16; k++) {
                bad[0] += (uint8_t)ci[k] != stepq_sr_int8(x[i + k], s, uu[i + k]);
                bad[1] += (uint8_t)cf[k] != stepq_sr_fp8(x[i + k], s, uu[i + k]);
                bad[2] += ch[k] != stepq_f16_sr(x[i + k], uu[i + k]);
            }
        }
    gsl_rng_free(r);
    CHECK(bad_u == 0, "%d of %d uniform numbers differ from stepq_sr_uniform", bad_u, N);
    CHECK(bad[0] == 0 && bad[1] == 0 && bad[2] == 0,
          "stochastic rounding codes differ from the definitions: INT8 %d, FP8 %d, FP16 %d of %d", bad[0], bad[1], bad[2], 4 * N);
}

// df_sum_abs in vector registers against its definition: eight partial sums, element j + k
// into sum k, added in a fixed tree
static void check_sum_abs(void) {
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 13);
    float x[128];
    int bad = 0;
    for (int trial = 0; trial < 1000; trial++) {
        for (int j = 0; j < 128; j++) x[j] = (float)(gsl_ran_gaussian(r, 1.0) * exp2((double)(j % 23) - 11));
        int n = 8 * (1 + trial % 16);
        float acc[8] = {0};
        for (int j = 0; j < n; j += 8)
            for (int k = 0; k < 8; k++) acc[k] += fabsf(x[j + k]);
        float want = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
        float got = df_sum_abs(x, n);
        bad += memcmp(&want, &got, sizeof got) != 0;
    }
    gsl_rng_free(r);
    CHECK(bad == 0, "%d of 1000 sums of |x| differ from the eight-lane definition", bad);
}

// df_div16 (Markstein's correction of a / b from the rounded reciprocal) against the division,
// bit for bit: every positive finite FP16 value as b (the fit's row factors, [2^-24, 65504]),
// each with 256 a of random significands and sign over every float exponent, subnormals and
// zeros, and a with quotients on both sides of the thresholds where the division takes over
static void check_div16(void) {
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 19);
    long bad = 0, n = 0;
    float a[256], got[16];
    for (int h = 1; h < 0x7c00; h++) {
        const float b = stepq_f16_to_f32((uint16_t)h);
        for (int e = 0; e < 256; e++) {
            const uint32_t sig = (uint32_t)gsl_rng_uniform_int(r, 1u << 23), sign = (uint32_t)(e & 1) << 31;
            uint32_t u = sign | (uint32_t)(e % 255) << 23 | sig;  // exponent field 0 (subnormal) .. 254
            if (e % 17 == 0) {  // a quotient near 2^-60 or 2^60
                const double q = ldexp(1.0 + gsl_rng_uniform(r) * 1e-6, e % 34 == 0 ? -60 : 60) * (gsl_rng_uniform(r) < 0.5 ? 0.999999 : 1);
                const float f = (float)(q * b);
                memcpy(&u, &f, 4);
            }
            memcpy(&a[e], &u, 4);
        }
        a[0] = 0.0f, a[1] = -0.0f, a[2] = 3.4028235e38f, a[3] = -1e-45f;
        const __m512 vb = _mm512_set1_ps(b), ry = _mm512_set1_ps(1.0f / b);
        for (int e = 0; e < 256; e += 16) {
            _mm512_storeu_ps(got, df_div16(_mm512_loadu_ps(a + e), vb, ry));
            for (int k = 0; k < 16; k++, n++) {
                const float want = a[e + k] / b;
                bad += memcmp(&want, &got[k], 4) != 0;
            }
        }
    }
    gsl_rng_free(r);
    CHECK(bad == 0, "%ld of %ld quotients of df_div16 differ from the division", bad, n);
}

// df_refit_sums32 (the refit's double sums of 32 columns in registers, the codes made on the
// way) against the row-major loops that define them, bit for bit: z = code(y (1/c) (1/nrm)),
// clamped to the row's level and rounded half to even (GDN's 2-bit rows: odd levels), then
// v = r nrm z, num += (w^2 x) v, den += (w^2 v) v, rows in order, FP16 pivot rows skipped, GDN
// 2-bit rows with a factor per group of 32 columns; the row factors FP16 values as the fit's
// (spread over e^(+-9)), which makes v exact in float. Ties: a fifth of the columns have 1/c = 1
// and y a half-integer. The fit rounds c = num / den to FP16, so a reordered sum seldom shows in
// the bytes test_kernels compares
static void check_refit_sums(void) {
    enum { K = 40, V = 128 };
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 17);
    static float X[K * V], y[K * V], rf[K * V / STEPQ_GDN2_GROUP], nrm[K], lev[K], inv_c[V];
    uint8_t bits[K];
    int rows[K], nr = 0, bad = 0, clipped = 0, ties = 0;
    double wi2[K];
    for (int trial = 0; trial < 20; trial++) {
        const int gdn2 = trial % 2 == 0;
        for (int i = 0; i < K; i++) bits[i] = i % 7 == 3 ? STEPQ_PIVOT_BITS : i % 5 == 1 ? 2 : i % 3 ? 6 : 4;
        dual_shape sh = {bits, gdn2, K, V};
        for (int j = 0; j < V; j++) inv_c[j] = j % 5 == 0 ? 1.0f : (float)exp(gsl_ran_gaussian(r, 1.0));
        for (int i = 0; i < K; i++) {
            nrm[i] = (float)exp2(-(double)(i % 4));
            lev[i] = df_level_max(&sh, i);
            for (int g = 0; g < V / STEPQ_GDN2_GROUP; g++)  // FP16 factors, as the fit makes them
                rf[i * (V / STEPQ_GDN2_GROUP) + g] = stepq_f16_to_f32(stepq_f16_factor((float)exp(gsl_ran_gaussian(r, 3.0))));
            for (int j = 0; j < V; j++) {
                X[i * V + j] = (float)(gsl_ran_gaussian(r, 1.0) * exp2(j % 9 - 4));
                y[i * V + j] = j % 5 == 0 ? (float)((int)gsl_rng_uniform_int(r, 81) - 40) + 0.5f
                                          : (float)(gsl_ran_gaussian(r, 1.0) * lev[i] * 0.6 / (inv_c[j] / nrm[i]));
            }
        }
        dual_work w = {0};
        w.r = rf, w.y = y, w.nrm = nrm, w.lev = lev;
        float wr[K];
        nr = 0;
        for (int i = 0; i < K; i++) {
            wr[i] = (float)exp(gsl_ran_gaussian(r, 1.0));
            if (bits[i] != STEPQ_PIVOT_BITS) rows[nr] = i, wi2[nr++] = (double)wr[i] * wr[i];
        }
        double num[V], den[V], want_n[V] = {0}, want_d[V] = {0};
        for (int j0 = 0; j0 < V; j0 += STEPQ_GDN2_GROUP)
            df_refit_sums32(num + j0, den + j0, &w, X, &sh, inv_c, rows, wi2, nr, j0);
        for (int i = 0; i < K; i++) {
            if (bits[i] == STEPQ_PIVOT_BITS) continue;
            const int G = df_groups_of(&sh, i), n = V / G, odd = gdn2 && bits[i] == 2;
            const double w2 = (double)wr[i] * wr[i];
            for (int j = 0; j < V; j++) {
                const float t = y[i * V + j] * inv_c[j] * (1.0f / nrm[i]);
                const float z = odd ? stepq_odd2_code(t) : stepq_code(t, lev[i]);
                clipped += !odd && fabsf(t) > lev[i];
                ties += !odd && fabsf(t) <= lev[i] && t - floorf(t) == 0.5f;
                const double v = (double)rf[i * (V / STEPQ_GDN2_GROUP) + j / n] * nrm[i] * z;
                want_n[j] += w2 * X[i * V + j] * v;
                want_d[j] += w2 * v * v;
            }
        }
        bad += memcmp(num, want_n, sizeof num) != 0 || memcmp(den, want_d, sizeof den) != 0;
    }
    gsl_rng_free(r);
    CHECK(clipped > 100 && ties > 100, "the refit sums' codes: %d clipped, %d ties", clipped, ties);
    CHECK(bad == 0, "%d of 20 heads' refit sums differ from the row-major definition", bad);
}

// rows whose blocks fall by 2^0.75 each, so that the block scales sweep E4M3's normal and
// subnormal codes; a zero block and one that underflows
static void check_nvfp4(void) {
    const stepq_format* f = stepq_format_find("nvfp4");
    float* X = malloc(sizeof(float) * 8 * 256);
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 12);
    int bad = 0;
    for (int trial = 0; trial < 40; trial++) {
        // 16 blocks a row (two groups of the vector scale path), or 13, 14, 15 (8, then the
        // others on their own; 1, 2, 3 past the last four blocks packed together); the whole
        // head of 7 or 8 rows (chunks of 64 blocks across rows: 91 = 64 + 27, 120 = 64 + 56)
        const int V = 16 * (trial % 4 ? 12 + trial % 4 : 16), K = trial % 3 ? 8 : 7;
        for (int i = 0; i < K; i++)
            for (int j = 0; j < V; j++)
                X[i * V + j] = (float)(gsl_ran_gaussian(r, 1.0) * exp2(-0.75 * (j / 16) - 0.37 * i - 0.1 * trial));
        memset(X + 2 * V + 32, 0, sizeof(float) * 16);                            // a zero block
        for (int j = 0; j < 16; j++) X[3 * V + 48 + j] = (float)(1e-42 * (j - 7));  // underflows
        X[0] = 300.0f;  // the head's scale
        uint8_t rows[STEPQ_MAX_DIM];
        stepq_head_plan hp;
        stepq_head_plan_uniform(&hp, rows, f->width, STEPQ_GDN, K);
        size_t nb = stepq_format_bytes(f, &hp, K, V);
        uint8_t *ref = malloc(nb), *fast = malloc(nb);
        float* work = malloc(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
        stepq_encode(ref, X, f, &hp, work, K, V);  // the baseline build of the format
        float s_head = rc_absmax(X, (size_t)K * V) / (6.0f * 448.0f);
        memcpy(fast, &s_head, 4);
        for (int i = 0; i < K; i++)
            rc_nvfp4_encode_row(fast + 4 + (size_t)i * V / STEPQ_NVFP4_BLOCK * STEPQ_NVFP4_BLOCK_BYTES, NULL,
                                X + (size_t)i * V, s_head, V);
        bad += memcmp(ref, fast, nb) != 0;
        memset(fast + 4, 0, nb - 4);
        rc_nvfp4_encode_rows(fast + 4, X, s_head, K, V);
        bad += memcmp(ref, fast, nb) != 0;
        free(ref), free(fast), free(work);
    }
    gsl_rng_free(r);
    free(X);
    CHECK(bad == 0, "%d of 80 NVFP4 heads (40 row by row, 40 at once) encode to other bytes than the reference format", bad);
}

// rc_row_scales16 against stepq_row_scale (numerics.h: the FP16 rounding in integer arithmetic)
// and the reciprocal 1 / fp16 value, lane by lane: amax at every FP16 value times qmax, at the
// midpoints between neighbours and the floats beside them, below the smallest subnormal (the
// scale that would round to 0 is 1), above the largest FP16 times qmax (saturating), zero, and
// log-uniform values; the three widths' qmax mixed across lanes. Its mask of the rows whose
// clamp changes no code: set where amax inv < qmax + 1/2, and there the codes of +-amax and of
// the floats below it, unclamped, equal the clamped ones; both kinds of rows are met
static int inside_differs(float amax, float inv, float q, int set) {
    if (set != (amax * inv < q + 0.5f)) return 1;
    if (!set) return 0;
    float x[16];
    for (int j = 0; j < 16; j++) x[j] = (j % 2 ? -1 : 1) * (j < 8 ? amax : nextafterf(amax, 0) * (1.0f - 0x1p-20f * j));
    const __m512 v = _mm512_loadu_ps(x), vi = _mm512_set1_ps(inv);
    const __mmask16 eq = _mm512_cmpeq_epi32_mask(rc_codes16_inside(v, vi),
                                                 rc_codes16(v, vi, _mm512_set1_ps(-q), _mm512_set1_ps(q)));
    return eq != 0xffff;
}
static void check_row_scales(void) {
    const float qm[3] = {127.0f, 31.0f, 7.0f};
    uint32_t um[16];
    float qmax[16], inv[16];
    uint16_t sh[16];
    int bad = 0, lanes = 0, n = 0, inside = 0, clamped = 0;
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    for (uint32_t k = 0;; k++) {
        const uint16_t h = (uint16_t)(k / 4);
        const float q = qm[k % 3];
        float a;
        if (h <= 0x7bff) {
            const double v = stepq_f16_to_f32(h), w = h < 0x7bff ? stepq_f16_to_f32((uint16_t)(h + 1)) : 65520.0;
            const float mid = (float)((v + w) / 2 * q);
            a = k % 4 == 0 ? (float)(v * q) : k % 4 == 1 ? mid : k % 4 == 2 ? nextafterf(mid, 0) : nextafterf(mid, INFINITY);
        } else if (h < 0x7bff + 2000) {
            a = (float)exp2(gsl_rng_uniform(r) * 100 - 70);
        } else {
            break;
        }
        if (k % 997 == 0) a = 0.0f;
        um[n] = stepq_f32_bits(a), qmax[n] = q, n++;
        if (n < 16) continue;
        const __mmask16 in = rc_row_scales16(sh, inv, um, qmax);
        for (int l = 0; l < 16; l++, lanes++) {
            const uint16_t want = stepq_row_scale(stepq_bits_f32(um[l]), qmax[l]);
            const float sc = stepq_f16_to_f32(want), wi = sc > 0 ? 1.0f / sc : 0.0f;
            const int set = (in >> l) & 1;
            bad += sh[l] != want || stepq_f32_bits(inv[l]) != stepq_f32_bits(wi) ||
                   inside_differs(stepq_bits_f32(um[l]), wi, qmax[l], set);
            inside += set, clamped += !set;
        }
        n = 0;
    }
    gsl_rng_free(r);
    CHECK(bad == 0 && lanes > 100000 && inside > 1000 && clamped > 100,
          "%d of %d row scales, reciprocals or unclamped codes differ from stepq_row_scale's (%d rows "
          "unclamped, %d clamped)", bad, lanes, inside, clamped);
}

// df_factors16 (F16C, eight at a time) against stepq_f16_to_f32(stepq_f16_factor(f)), bit
// for bit: every FP16 value, the midpoints between neighbours and the floats beside them (ties
// to even), from the smallest subnormal (below it and at zero the factor is 1) to 65504 and past
// it (saturating, also at 65520 where a plain conversion turns to infinity), negatives, NaN and
// infinities; n not a multiple of 8 leaves a tail to the scalar loop
static void check_factors16(void) {
    enum { N = 4 * 0x7c00 + 8 + 5 };
    static float f[N], got[N];
    int n = 0, bad = 0;
    for (uint32_t h = 0; h < 0x7c00; h++) {
        const double v = stepq_f16_to_f32((uint16_t)h), w = h < 0x7bff ? stepq_f16_to_f32((uint16_t)(h + 1)) : 65520.0;
        const float mid = (float)((v + w) / 2);
        f[n++] = (float)v, f[n++] = mid, f[n++] = nextafterf(mid, 0), f[n++] = nextafterf(mid, INFINITY);
    }
    const float special[] = {0.0f, -0.0f, -1.0f, -65504.0f, NAN, INFINITY, -INFINITY, 1e-30f, 1e30f, 65520.0f, 2.9e-8f, 3.0e-8f, -2e-8f};
    for (size_t k = 0; k < sizeof special / sizeof *special; k++) f[n++] = special[k];
    df_factors16(got, f, n);
    for (int k = 0; k < n; k++) {
        const float want = stepq_f16_to_f32(stepq_f16_factor(f[k]));
        bad += stepq_f32_bits(got[k]) != stepq_f32_bits(want);
    }
    CHECK(n == N && bad == 0, "%d of %d FP16 factors differ from stepq_f16_factor's", bad, n);
}

// rc_fwht's vector stages against the transform's definition (stepq_fwht of the reference
// build: the butterfly loop, stage by stage, then the scale), bit for bit: signed zeros, values
// whose sums cancel exactly, and magnitudes 2^-40 ... 2^40 side by side, at every width the
// vector stages take
static void check_fwht(void) {
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 17);
    float want[512], got[512];
    int bad = 0, trials = 0;
    for (int n = 16; n <= 512; n *= 2)
        for (int trial = 0; trial < 400; trial++, trials++) {
            for (int j = 0; j < n; j++) {
                double u = gsl_rng_uniform(r);
                want[j] = u < 0.1 ? 0.0f : u < 0.2 ? -0.0f : u < 0.3 ? (j % 2 ? 1.0f : -1.0f)
                        : (float)(gsl_ran_gaussian(r, 1.0) * exp2((double)gsl_rng_uniform_int(r, 81) - 40));
            }
            memcpy(got, want, sizeof(float) * n);
            stepq_fwht(want, n);
            rc_fwht(got, n);
            bad += memcmp(want, got, sizeof(float) * n) != 0;
        }
    gsl_rng_free(r);
    CHECK(bad == 0, "%d of %d Walsh-Hadamard transforms differ from the butterfly loop", bad, trials);
}

// the vector packers and unpacker of every width they take (2, 4, 6, 8) against the bit stream
// of stepq_pack_codes, the definition: 64 codes at once, 16 at once (the tails), and back,
// on random codes over the whole signed range of each width and on its two ends
static void check_packers(void) {
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 17);
    int bad = 0, n = 0;
    static const int widths[] = {2, 4, 6, 8};
    for (int wi = 0; wi < 4; wi++) {
        const int b = widths[wi], lo = -(1 << (b - 1)), span = 1 << b;
        for (int trial = 0; trial < 200; trial++, n++) {
            int8_t z[64], back[64];
            int32_t zi[64];
            for (int j = 0; j < 64; j++) {
                z[j] = (int8_t)(trial == 0 ? lo : trial == 1 ? lo + span - 1 : lo + (int)gsl_rng_uniform_int(r, span));
                zi[j] = z[j];
            }
            uint8_t ref[64], p64[64 + 64], p16[64 + 64];
            stepq_pack_codes(ref, z, 64, b);
            __m512i v[4];
            for (int k = 0; k < 4; k++) v[k] = _mm512_loadu_si512(zi + 16 * k);
            memset(p64, 0xa5, sizeof p64);
            rc_pack64(p64, v, b, 0);
            for (int k = 0; k < 4; k++) rc_pack16(p16 + 2 * b * k, v[k], b, k < 3);
            for (int k = 0; k < 4; k++) {
                int32_t u[16];
                _mm512_storeu_si512(u, rc_unpack16(ref + 2 * b * k, b));
                for (int j = 0; j < 16; j++) back[16 * k + j] = (int8_t)u[j];
            }
            bad += memcmp(ref, p64, (size_t)8 * b) != 0 || p64[8 * b] != 0xa5 || memcmp(ref, p16, (size_t)8 * b) != 0 ||
                   memcmp(z, back, 64) != 0;
        }
    }
    gsl_rng_free(r);
    CHECK(bad == 0, "%d of %d groups of 64 codes pack or unpack otherwise than stepq_pack_codes", bad, n);
}
#endif

#if defined(STEPQ_RC_AVX512)
// every check, out of main (noinline): inlined there, their large frames made the sanitizer
// build (Debug) poison main's stack with AVX-512 stores before the CPU check could run
__attribute__((noinline)) static int run_checks(void) {
    check_e4m3();
    check_e2m1();
    check_fp8();
    check_sr();
    check_nvfp4();
    check_sum_abs();
    check_fwht();
    check_div16();
    check_row_scales();
    check_refit_sums();
    check_factors16();
    check_packers();
    return tu_finish("test_simd");
}
#endif

// main itself is built for x86-64-v2, so that it says "skipped" on any CPU
__attribute__((target("arch=x86-64-v2"))) int main(void) {
#if defined(STEPQ_RC_AVX512)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
        !__builtin_cpu_supports("avx512vl") || !__builtin_cpu_supports("avx512vbmi")) {
        printf("test_simd: this CPU has no AVX-512 VBMI: skipped\n");
        return 77;
    }
    return run_checks();
#else
    printf("test_simd: built without AVX-512: skipped\n");
    return 77;
#endif
}

// test_cuda_numerics: quant/numerics.h and quant/layout.h compiled by nvcc, run as host code
// (no GPU needed), against the same header built by gcc (numerics_gcc.c) and the generic bit
// packer of libstepq_quant (quant/pack.c): FP16 both ways on every half and on a dense sweep
// of floats with every rounding tie, BF16 likewise, factors, codes, GDN 2-bit levels, E2M1
// and E4M3 on every code and around every threshold, code packing of every width, the block
// programs' 8-code packer (sim/cuda/blockprog.cuh). It proves the header compiles and agrees
// under nvcc; the device side of the same functions runs in test_cuda_parity (GPU).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../quant/layout.h"
#include "../../quant/numerics.h"
#include "../../sim/cuda/blockprog.cuh"

extern "C" {
#include "../../quant/format.h"  // stepq_pack_codes, stepq_unpack_codes (libstepq_quant)
uint16_t gcc_f32_to_f16(float f);
uint16_t gcc_f32_to_f16_sat(float f);
float gcc_f16_to_f32(uint16_t h);
uint16_t gcc_f32_to_bf16(float f);
float gcc_bf16_to_f32(uint16_t b);
uint16_t gcc_f16_factor(float f);
float gcc_round_even(float x);
float gcc_code(float t, float qmax);
uint16_t gcc_row_scale(float amax, float qmax);
float gcc_odd2_code(float t);
int8_t gcc_odd2_store(float z);
float gcc_odd2_load(int8_t u);
uint8_t gcc_e2m1_encode(float x);
float gcc_e2m1_decode(uint8_t c);
uint8_t gcc_e4m3_encode(float x);
float gcc_e4m3_decode(uint8_t c);
int8_t gcc_sext(uint32_t u, int b);
uint8_t gcc_pack4(int8_t a, int8_t b);
void gcc_unpack4(int8_t* z, uint8_t b);
void gcc_pack6(uint8_t* out, const int8_t* z);
void gcc_unpack6(int8_t* z, const uint8_t* in);
}

// the layout facts again, as nvcc sees them
static_assert(STEPQ_ROW_BYTES(6, 128) == 98 && STEPQ_ROW_BYTES(16, 128) == 256, "row bytes");
static_assert(STEPQ_QMAX(8) == 127 && STEPQ_QMAX(2) == 1, "qmax");
static_assert(STEPQ_NVFP4_BLOCK_BYTES == 9, "nvfp4 block");

static long checks, failures;
#define EXPECT(cond, ...)                                                 \
    do {                                                                  \
        checks++;                                                         \
        if (!(cond) && failures++ < 20) {                                 \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                 \
            fputc('\n', stderr);                                          \
        }                                                                 \
    } while (0)

static float fbits(uint32_t u) { return stepq_bits_f32(u); }
static int same(float a, float b) { return stepq_f32_bits(a) == stepq_f32_bits(b) || (a != a && b != b); }

static uint64_t rng = 88172645463325252ull;
static uint32_t next32(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

// every float pattern this one stands for: a dense stride over all 2^32 patterns, and the
// patterns next to every FP16 and BF16 value and midpoint (the rounding ties)
static void f16_bf16(void) {
    long bad16 = 0, badbf = 0, badsat = 0, badfac = 0;
    for (uint64_t u = 0; u < (1ull << 32); u += 4099) {
        float f = fbits((uint32_t)u);
        bad16 += stepq_f32_to_f16(f) != gcc_f32_to_f16(f);
        badsat += stepq_f32_to_f16_sat(f) != gcc_f32_to_f16_sat(f);
        badbf += stepq_f32_to_bf16(f) != gcc_f32_to_bf16(f);
        badfac += stepq_f16_factor(f) != gcc_f16_factor(f);
    }
    for (uint32_t h = 0; h < 65536; h++) {
        float a = stepq_f16_to_f32((uint16_t)h), b = gcc_f16_to_f32((uint16_t)h);
        EXPECT(same(a, b), "f16 %04x -> %a vs %a", h, a, b);
        EXPECT(same(stepq_bf16_to_f32((uint16_t)h), gcc_bf16_to_f32((uint16_t)h)), "bf16 %04x", h);
        // the ties and their neighbours: a value, the midpoint to the next, one ulp either side
        float next = stepq_f16_to_f32((uint16_t)(h + 1));
        if (a == a && next == next && (h & 0x7fff) < 0x7bff) {
            float mid = (float)(((double)a + next) / 2);
            for (int d = -2; d <= 2; d++) {
                float x = fbits(stepq_f32_bits(mid) + d);
                bad16 += stepq_f32_to_f16(x) != gcc_f32_to_f16(x);
                badsat += stepq_f32_to_f16_sat(x) != gcc_f32_to_f16_sat(x);
                badfac += stepq_f16_factor(x) != gcc_f16_factor(x);
            }
        }
        uint32_t bfmid = ((uint32_t)h << 16) | 0x8000u;  // the bf16 ties
        for (int d = -1; d <= 1; d++) badbf += stepq_f32_to_bf16(fbits(bfmid + d)) != gcc_f32_to_bf16(fbits(bfmid + d));
    }
    EXPECT(bad16 == 0 && badsat == 0 && badbf == 0 && badfac == 0,
           "FP16 %ld, saturating %ld, BF16 %ld, factors %ld disagreements", bad16, badsat, badbf, badfac);
}

static void codes(void) {
    static const float qmaxes[] = {1, 3, 7, 31, 127};
    for (int r = 0; r < 2000000; r++) {
        float t = (float)((int32_t)next32()) / (float)(1 << (next32() % 28));
        if (r % 7 == 0) t = (float)((int)(next32() % 512) - 256) * 0.5f;  // exact halves: the ties
        float q = qmaxes[r % 5];
        EXPECT(same(stepq_code(t, q), gcc_code(t, q)), "code(%a, %g)", t, q);
        if (fabsf(t) < 4194304.0f) EXPECT(same(stepq_round_even(t), gcc_round_even(t)), "round_even(%a)", t);
        EXPECT(stepq_row_scale(fabsf(t), q) == gcc_row_scale(fabsf(t), q), "row_scale(%a, %g)", t, q);
        EXPECT(same(stepq_odd2_code(t), gcc_odd2_code(t)), "odd2(%a)", t);
        float o = stepq_odd2_code(t);
        EXPECT(stepq_odd2_store(o) == gcc_odd2_store(o) && same(stepq_odd2_load(stepq_odd2_store(o)), o),
               "odd2 store/load %g", o);
    }
}

static void nvfp4(void) {
    for (int c = 0; c < 256; c++) {
        EXPECT(same(stepq_e4m3_decode((uint8_t)c), gcc_e4m3_decode((uint8_t)c)), "e4m3 decode %02x", c);
        EXPECT(same(stepq_e2m1_decode((uint8_t)(c & 15)), gcc_e2m1_decode((uint8_t)(c & 15))), "e2m1 decode %x", c);
    }
    // around every E4M3 value and midpoint, and a sweep of E2M1 inputs with its thresholds
    for (int c = 0; c < 0x7e; c++) {
        float a = stepq_e4m3_decode((uint8_t)c), b = stepq_e4m3_decode((uint8_t)(c + 1));
        float mid = (float)(((double)a + b) / 2);
        for (int d = -2; d <= 2; d++) {
            float x = fbits(stepq_f32_bits(mid) + d);
            EXPECT(stepq_e4m3_encode(x) == gcc_e4m3_encode(x), "e4m3(%a)", x);
        }
    }
    static const float th[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 6.0f, 7.0f};
    for (int k = 0; k < 9; k++)
        for (int d = -3; d <= 3; d++)
            for (int s = 0; s < 2; s++) {
                float x = fbits(stepq_f32_bits(th[k]) + d) * (s ? -1.0f : 1.0f);
                EXPECT(stepq_e2m1_encode(x) == gcc_e2m1_encode(x), "e2m1(%a)", x);
            }
    for (int r = 0; r < 1000000; r++) {
        float x = (float)((int32_t)next32()) / (float)(1 << (20 + next32() % 12));
        EXPECT(stepq_e2m1_encode(x) == gcc_e2m1_encode(x), "e2m1(%a)", x);
        EXPECT(stepq_e4m3_encode(fabsf(x) * 100) == gcc_e4m3_encode(fabsf(x) * 100), "e4m3(%a)", x);
    }
}

static void packing(void) {
    for (int b = 2; b <= 8; b++)
        for (uint32_t u = 0; u < (1u << b); u++) EXPECT(stepq_sext(u, b) == gcc_sext(u, b), "sext(%u, %d)", u, b);
    int8_t z[64], y[64], w[64];
    uint8_t p1[64], p2[64];
    for (int r = 0; r < 20000; r++) {
        const int b = 2 + r % 7;
        for (int e = 0; e < 64; e++) z[e] = stepq_sext(next32(), b);
        // the block programs' 8-code packer against libstepq_quant's generic bit stream
        stepq_pack_codes(p1, z, 64, b);
        for (int g = 0; g < 8; g++) bp_pack8(p2 + g * b, z + 8 * g, b);
        EXPECT(!memcmp(p1, p2, (size_t)8 * b), "bp_pack8 width %d", b);
        for (int g = 0; g < 8; g++) bp_unpack8(y + 8 * g, p1 + g * b, b);
        stepq_unpack_codes(w, p1, 64, b);
        EXPECT(!memcmp(y, w, 64) && !memcmp(y, z, 64), "bp_unpack8 width %d", b);
        if (b == 4) {
            for (int e = 0; e < 64; e += 2) {
                EXPECT(stepq_pack4(z[e], z[e + 1]) == gcc_pack4(z[e], z[e + 1]) && stepq_pack4(z[e], z[e + 1]) == p1[e / 2],
                       "pack4");
                int8_t a[2], c[2];
                stepq_unpack4(a, p1[e / 2]);
                gcc_unpack4(c, p1[e / 2]);
                EXPECT(!memcmp(a, c, 2), "unpack4");
            }
        }
        if (b == 6) {
            for (int e = 0; e < 64; e += 4) {
                uint8_t a[3], c[3];
                int8_t d[4], f[4];
                stepq_pack6(a, z + e);
                gcc_pack6(c, z + e);
                EXPECT(!memcmp(a, c, 3) && !memcmp(a, p1 + e / 4 * 3, 3), "pack6");
                stepq_unpack6(d, a);
                gcc_unpack6(f, a);
                EXPECT(!memcmp(d, f, 4), "unpack6");
            }
        }
    }
}

int main() {
    f16_bf16();
    codes();
    nvfp4();
    packing();
    printf("test_cuda_numerics: %ld checks, %ld failed\n", checks, failures);
    return failures ? 1 : 0;
}

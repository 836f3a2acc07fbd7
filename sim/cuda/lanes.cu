// lanes.cu: the serving step written lane by lane (lanes.h; method 6.5): one kernel body over
// a format trait, compiled for the device and for the host's lockstep emulation (lanes.cuh).
//
// A step of one head (block), with two barriers (NVFP4, the FP8 tiles and stochastic rounding:
// three; the dual-axis fit: three and 9 a refit round, fmt_dual):
//   1. every load issued first: the warp's packed rows (16-byte vectors: its tile of codes and
//      its 16 row scales) and the step's inputs; the decays exp(g) where the inputs carry the
//      gates (lanes.cuh's ln_expf, KDA's 16 rows one a lane and shuffled); then decode (codes
//      to floats by the 1.5 * 2^23 trick) and decay, x = d_i (s_i z_ij), the CPU's two roundings
//   2. each lane's partial sums of k_i x_ij over its warp's 16 rows, to shared memory; barrier;
//      u_j = beta (v_j - sum), the 8 warps' partial sums added in warp order
//   3. x <- x + k_i u_j, the read-out's partial sums of (scale q_i) x_ij and a vote on a
//      non-finite x; barrier; warp 0 adds the read-out in warp order and stores it
//   4. encode: row maxima by a transposed butterfly of shuffles (16 a warp for its 16 rows),
//      the row's FP16 scale and one reciprocal a row (numerics.h's stepq_row_scale, as the CPU),
//      the reciprocals to every lane by shuffles, codes by the 1.5 * 2^23 trick, 16-byte stores
//      (NVFP4: the head maximum first, over shared memory; fmt_nvfp4)
// Every operation on an element is the CPU's (sim/recurrence.c, quant/rowcodec.h) in the CPU's
// order but the sums over key rows, which go by row groups of 16 (method 6.5's contract). The
// encoders from fmt_dual on (LT_DUAL ... in the enum below) keep the CPU's order of every sum
// that decides a rounding: their stored bytes are the CPU encoder's of the kernel's state.
#include <math.h>
#include <string.h>

#include "backend.cuh"
#include "lanes.cuh"

extern "C" {
#include "../../quant/layout.h"
#include "../../quant/numerics.h"
}
#include "lanes.h"

#define LK LANES_K
#define LV LANES_V
#define RW 16                          // key rows of a warp
#define CW 4                           // value columns of a lane
#define LN_SHARED (2 * LN_WARPS * LV + LN_WARPS)  // floats: partial sums of u and y, votes
#define LN_MAGIC 12582912.0f           // 1.5 * 2^23: x + it rounds x to an integer, half to even
#define LN_MAGIC_BITS 0x4b400000u

static_assert(LK == RW * LN_WARPS && LV == CW * LN_WARP, "a block holds a 128 x 128 head");

typedef lv<float> lrow[CW];           // a lane's values of one key row

// head h's plan as the traits that read one take it (lanes_args'; the others take none), and
// the format's one parameter a trait reads (LeapQuant's residual weight alpha; fmt_leap)
struct lplan {
    const uint8_t* bits;   // (K) row widths, STEPQ_PIVOT_BITS = an FP16 pivot
    const float* w;        // (K) row influence
    const uint32_t* off;   // (K) where row i starts
    float rho;
    int refits, odd2, nrm8, dsq;
    float alpha;
};

// ---------------------------------------------------------------------------------------------
// format traits: fetch (the loads of the warp's rows), decode (to floats), encode and store
// (given the block's shared memory, for a reduction over the whole head)

// FP32: the K x V floats, row i at i V; lane l's 4 columns one 16-byte vector a row
struct fmt_fp32 {
    struct raw {
        lrow x[RW];
    };
    LN void fetch(raw* r, const uint8_t* P, lv<int> w, lv<int> l, const lplan*) {
        for (int i = 0; i < RW; i++) ln_load4(r->x[i], (const float*)P, (w * RW + i) * LV + l * CW);
    }
    LN void decode_row(lv<float>* xi, const raw* r, int i) {
        for (int c = 0; c < CW; c++) xi[c] = r->x[i][c];
    }
    LN void decode(lrow* x, const raw* r) {
        for (int i = 0; i < RW; i++) decode_row(x[i], r, i);
    }
    LN void encode(uint8_t* P, lrow* x, lv<int> w, lv<int> l, float*, const lplan*) {
        for (int i = 0; i < RW; i++) ln_store4((float*)P, (w * RW + i) * LV + l * CW, x[i]);
    }
};

// the row of the warp whose maximum lane l holds after rows_max (bits 4..1 of l, reversed)
LN lv<int> rows_row_of(lv<int> l) {
    return ((l >> 4) & 1) * 8 + ((l >> 3) & 1) * 4 + ((l >> 2) & 1) * 2 + ((l >> 1) & 1);
}
LN int rows_lane_of(int i) { return ((i >> 3) & 1) << 4 | ((i >> 2) & 1) << 3 | ((i >> 1) & 1) << 2 | (i & 1) << 1; }

// m (RW) <- per row the largest value over the warp: a transposed butterfly, each stage
// halving the rows a lane keeps (8 + 4 + 2 + 1 shuffles), then one more over the lane pairs;
// lane l ends with row rows_row_of(l) in m[0]. A maximum is exact in any order.
LN lv<uint32_t> rows_max(lv<uint32_t>* m, lv<int> l) {
    for (int half = RW / 2, mask = 16; half >= 1; half /= 2, mask /= 2) {
        const lv<int> up = ln_gt(l & mask, 0);
        for (int k = 0; k < half; k++) {
            const lv<uint32_t> keep = ln_sel(up, m[k + half], m[k]), give = ln_sel(up, m[k], m[k + half]);
            m[k] = ln_max(keep, ln_shfl_xor(give, mask));
        }
    }
    return ln_max(m[0], ln_shfl_xor(m[0], 1));
}

// per row the largest |x| (bits) over the warp, by rows_max: lane l holds row rows_row_of(l)'s
LN lv<uint32_t> rows_absmax(lrow* x, lv<int> l) {
    lv<uint32_t> m[RW];
    for (int i = 0; i < RW; i++) {
        m[i] = ln_bits(x[i][0]) & 0x7fffffffu;
        for (int c = 1; c < CW; c++) m[i] = ln_max(m[i], ln_bits(x[i][c]) & 0x7fffffffu);
    }
    return rows_max(m, l);
}

// the rows layout at width B, uniform (int8, int6, int4): a lane's pieces are a bit stream of
// RW * CW * B bits (2B words), row i at bit CW B i, code c of it at CW B i + B c
template <int B>
struct fmt_rows {
    enum { WORDS = 2 * B, CHUNKS = B / 2, TILE = RW * LV * B / 8 };
    static constexpr float QMAX = (float)STEPQ_QMAX(B);
    struct raw {
        lv<uint32_t> code[WORDS];
        lv<uint32_t> scale[RW / 2];   // the warp's 16 FP16 scales, two a word
    };
    // byte offset of warp w's tile and the 32-bit index of lane l's chunk 0 in it
    LN lv<int> chunk0(lv<int> w, lv<int> l) { return (2 * LK) / 4 + w * (TILE / 4) + l * 4; }
    LN void fetch(raw* r, const uint8_t* P, lv<int> w, lv<int> l, const lplan*) {
        const uint32_t* W = (const uint32_t*)P;
        for (int k = 0; k < CHUNKS; k++) ln_load4(&r->code[4 * k], W, chunk0(w, l) + k * LN_WARP * 4);
        for (int k = 0; k < RW / 8; k++) ln_load4(&r->scale[4 * k], W, w * (RW / 2) + 4 * k);
    }
    // the B-bit field at bit p of the stream
    LN lv<uint32_t> field(const lv<uint32_t>* code, int p) {
        const int wd = p / 32, sh = p % 32;
        lv<uint32_t> f = code[wd] >> sh;
        if (sh + B > 32) f = f | (code[wd + 1] << (32 - sh));
        return f & (uint32_t)((1u << B) - 1u);
    }
    LN void decode_row(lv<float>* xi, const raw* r, int i) {
        const uint32_t sign = 1u << (B - 1);
        const float bias = LN_MAGIC + (float)sign;  // exact: an integer below 2^24
        const lv<uint32_t> h = (r->scale[i / 2] >> (16 * (i % 2))) & 0xffffu;
        lv<float> s;
        LN_MAP(s, stepq_f16_to_f32, h);
        for (int c = 0; c < CW; c++) {
            // two's complement to offset binary (xor the sign), under the magic's bits
            const lv<uint32_t> u = field(r->code, CW * B * i + B * c) ^ sign;
            xi[c] = s * (ln_float(u | LN_MAGIC_BITS) - bias);
        }
    }
    LN void decode(lrow* x, const raw* r) {
        for (int i = 0; i < RW; i++) decode_row(x[i], r, i);
    }
    LN void encode(uint8_t* P, lrow* x, lv<int> w, lv<int> l, float*, const lplan*) { encode_into(P, x, w, l, 0); }
    // encode; residual: then x <- x minus its decoded value s z (rc_rows_decode_row's product),
    // what LeapQuant stores next (fmt_leap)
    LN void encode_into(uint8_t* P, lrow* x, lv<int> w, lv<int> l, int residual) {
        const lv<uint32_t> amax = rows_absmax(x, l);
        const lv<int> row = rows_row_of(l);
        lv<uint32_t> sh;  // stepq_row_scale's FP16 bits (finite rows: the caller checked)
        LN_EACH(t) sh.v[t] = stepq_row_scale(stepq_bits_f32(amax.v[t]), QMAX);
        ln_store_if(ln_eq(l & 1, 0), (uint16_t*)P, w * RW + row, sh);
        lv<float> rinv, sf;  // rc_rows_encode_scaled's: one reciprocal a row
        LN_EACH(t) {
            const float s = stepq_f16_to_f32((uint16_t)sh.v[t]);
            sf.v[t] = s;
            rinv.v[t] = s > 0.0f ? 1.0f / s : 0.0f;
        }
        lv<uint32_t> code[WORDS];
        for (int k = 0; k < WORDS; k++) code[k] = ln_all(0u);
        for (int i = 0; i < RW; i++) {
            const lv<float> ri = ln_bcast(rinv, rows_lane_of(i));
            const lv<float> si = residual ? ln_bcast(sf, rows_lane_of(i)) : ln_all(0.0f);
            for (int c = 0; c < CW; c++) {
                // stepq_code: clamp, round half to even by the magic; the low B bits of the sum's
                // bits are the code in two's complement (and the sum less the magic its value)
                const lv<float> m = ln_clamp(x[i][c] * ri, QMAX) + LN_MAGIC;
                const lv<uint32_t> z = ln_bits(m) & (uint32_t)((1u << B) - 1u);
                if (residual) x[i][c] = x[i][c] - si * (m - LN_MAGIC);
                const int p = CW * B * i + B * c, wd = p / 32, s = p % 32;
                code[wd] = code[wd] | (z << s);
                if (s + B > 32) code[wd + 1] = code[wd + 1] | (z >> (32 - s));
            }
        }
        uint32_t* W = (uint32_t*)P;
        for (int k = 0; k < CHUNKS; k++) ln_store4(W, chunk0(w, l) + k * LN_WARP * 4, &code[4 * k]);
    }
};

// the largest |x| (bits) of the lane's values
LN lv<uint32_t> lane_absmax(lrow* x) {
    lv<uint32_t> m = ln_all(0u);
    for (int i = 0; i < RW; i++)
        for (int c = 0; c < CW; c++) m = ln_max(m, ln_bits(x[i][c]) & 0x7fffffffu);
    return m;
}

// the largest of m over groups of `group` consecutive warps (each lane gets its group's): the
// warp's by a butterfly, the group's from the warps' in shared memory sh (LN_WARPS words; a
// barrier). A maximum is exact in any order.
LN lv<uint32_t> warps_max(lv<uint32_t> m, uint32_t* sh, lv<int> w, lv<int> l, int group) {
    for (int mask = LN_WARP / 2; mask >= 1; mask /= 2) m = ln_max(m, ln_shfl_xor(m, mask));
    ln_store_if(ln_eq(l, 0), sh, w, m);
    ln_sync();
    const lv<int> first = (w / group) * group;
    m = ln_load(sh, first);
    for (int g = 1; g < group; g++) m = ln_max(m, ln_load(sh, first + g));
    return m;
}

// m (CW) <- per value column the largest of the 8 warps' m (each lane its 4 columns), through
// shared memory sh (LN_WARPS x LV; a barrier). A maximum is exact in any order.
template <class T>
LN void cols_max(lv<T>* m, T* sh, lv<int> w, lv<int> l) {
    ln_store4(sh, w * LV + l * CW, m);
    ln_sync();
    ln_load4(m, sh, l * CW);
    for (int g = 1; g < LN_WARPS; g++) {
        lv<T> p[CW];
        ln_load4(p, sh, g * LV + l * CW);
        for (int c = 0; c < CW; c++) m[c] = ln_max(m[c], p[c]);
    }
}

// the 16-bit casts (quant/cast.c): BF16 (round half to even) and FP16 (IEEE, saturating at
// +-65504), element E (STEPQ_ELEM_BF16 or _FP16). Lanes layout: the K x V halves permuted as
// fmt_rows<16>'s codes would be, with no scales (lane l's 4 values of a row 8 bytes of its stream)
template <int E>
struct fmt_cast16 {
    enum { TILE = RW * LV * 2 };
    struct raw {
        lv<uint32_t> h[2 * RW];        // row i's 4 halves in words 2i, 2i + 1, low half first
    };
    LN lv<int> chunk0(lv<int> w, lv<int> l) { return w * (TILE / 4) + l * 4; }
    LN void fetch(raw* r, const uint8_t* P, lv<int> w, lv<int> l, const lplan*) {
        for (int k = 0; k < RW / 2; k++) ln_load4(&r->h[4 * k], (const uint32_t*)P, chunk0(w, l) + k * LN_WARP * 4);
    }
    LN void decode(lrow* x, const raw* r) {
        LN_UNROLL for (int i = 0; i < RW; i++)
            LN_UNROLL for (int c = 0; c < CW; c++) {
                const lv<uint32_t> h = (r->h[2 * i + c / 2] >> (16 * (c % 2))) & 0xffffu;
                if (E == STEPQ_ELEM_BF16) x[i][c] = ln_float(h << 16);
                else LN_MAP(x[i][c], stepq_f16_to_f32, h);
            }
    }
    LN void encode(uint8_t* P, lrow* x, lv<int> w, lv<int> l, float*, const lplan*) {
        lv<uint32_t> h[2 * RW];
        for (int k = 0; k < 2 * RW; k++) h[k] = ln_all(0u);
        LN_UNROLL for (int i = 0; i < RW; i++)
            LN_UNROLL for (int c = 0; c < CW; c++) {
                lv<uint32_t> e;
                if (E == STEPQ_ELEM_BF16) LN_MAP(e, stepq_f32_to_bf16, x[i][c]);
                else LN_MAP(e, stepq_f32_to_f16_sat, x[i][c]);
                h[2 * i + c / 2] = h[2 * i + c / 2] | (e << (16 * (c % 2)));
            }
        for (int k = 0; k < RW / 2; k++) ln_store4((uint32_t*)P, chunk0(w, l) + k * LN_WARP * 4, &h[4 * k]);
    }
};

// FP8 E4M3 with one float32 scale per tile of 32 key rows (quant/fp8tile.c): the tile of warps
// 2t and 2t + 1, s = amax / 448, codes e4m3(|x| / s) with the sign in bit 7 (none for a zero
// code), here |x| (1/s), one reciprocal a tile where the CPU divides. Lanes layout, 16,400
// bytes as the rows layout: the 4 tiles' scales, then the codes as fmt_rows<8>'s tiles. Encoding
// needs the tile's maximum: a third barrier.
struct fmt_fp8tile {
    enum { TILE = RW * LV, SCALES = 4 * LK / STEPQ_FP8_TILE };
    static_assert(SCALES == 16 && 2 * RW == STEPQ_FP8_TILE, "a tile is two warps' rows");
    struct raw {
        lv<uint32_t> code[RW];         // row i's 4 codes in word i
        lv<float> s;
    };
    LN lv<int> chunk0(lv<int> w, lv<int> l) { return SCALES / 4 + w * (TILE / 4) + l * 4; }
    LN void fetch(raw* r, const uint8_t* P, lv<int> w, lv<int> l, const lplan*) {
        for (int k = 0; k < CW; k++) ln_load4(&r->code[4 * k], (const uint32_t*)P, chunk0(w, l) + k * LN_WARP * 4);
        r->s = ln_load((const float*)P, w >> 1);
    }
    LN void decode(lrow* x, const raw* r) {
        LN_UNROLL for (int i = 0; i < RW; i++)
            LN_UNROLL for (int c = 0; c < CW; c++) {
                const lv<uint32_t> z = (r->code[i] >> (8 * c)) & 0xffu;
                lv<float> e;
                LN_MAP(e, stepq_e4m3_decode, z);
                x[i][c] = e * r->s;
            }
    }
    LN void encode(uint8_t* P, lrow* x, lv<int> w, lv<int> l, float* sh, const lplan*) {
        const lv<float> s = ln_float(warps_max(lane_absmax(x), (uint32_t*)sh, w, l, 2)) / 448.0f;
        ln_store_if(ln_eq(l, 0) & ln_eq(w & 1, 0), (float*)P, w >> 1, s);
        lv<float> rinv;
        LN_EACH(t) rinv.v[t] = s.v[t] > 0.0f ? 1.0f / s.v[t] : 0.0f;  // s = 0: zero codes
        lv<uint32_t> code[RW];
        LN_UNROLL for (int i = 0; i < RW; i++) {
            code[i] = ln_all(0u);
            LN_UNROLL for (int c = 0; c < CW; c++) {
                const lv<float> t = x[i][c] * rinv;
                lv<uint32_t> z;
                LN_EACH(t_) {  // rc_e4m3_signed: the magnitude's code, the sign where it is not 0
                    const float a = t.v[t_] < 0.0f ? -t.v[t_] : t.v[t_];
                    z.v[t_] = stepq_e4m3_with_sign(stepq_e4m3_encode(a), t.v[t_]);
                }
                code[i] = code[i] | (z << (8 * c));
            }
        }
        for (int k = 0; k < CW; k++) ln_store4((uint32_t*)P, chunk0(w, l) + k * LN_WARP * 4, &code[4 * k]);
    }
};

// NVFP4 (quant/nvfp4.c): E2M1 codes, one E4M3 scale per block of 16 values of a row (the
// columns of 4 lanes: block l / 4), one float32 scale per head. Lanes layout, 9220 bytes as the
// rows layout: first per warp w and block b the E4M3 scales of its 16 rows (16 bytes at
// 128 w + 16 b, row i's at byte i: one vector a lane, shared by the block's 4 lanes), then the
// code tiles as fmt_rows<4>'s (lane l's 4 codes of a row two bytes of a 32-byte stream), then
// s_head. Encoding needs the head's maximum: a third barrier, over shared memory.
struct fmt_nvfp4 {
    enum { SCALES = LK * LV / STEPQ_NVFP4_BLOCK, TILE = RW * LV / 2, HEAD = SCALES + LK * LV / 2 };
    static_assert(HEAD + 4 == 4 + LK * LV / STEPQ_NVFP4_BLOCK * STEPQ_NVFP4_BLOCK_BYTES, "the rows layout's bytes");
    struct raw {
        lv<uint32_t> code[8];
        lv<uint32_t> scale[RW / 4];    // the block's 16 E4M3 scales, four a word
        lv<float> s_head;
    };
    LN lv<int> chunk0(lv<int> w, lv<int> l) { return SCALES / 4 + w * (TILE / 4) + l * 4; }
    LN lv<int> scales0(lv<int> w, lv<int> l) { return w * (RW * LV / STEPQ_NVFP4_BLOCK / 4) + (l >> 2) * 4; }
    LN void fetch(raw* r, const uint8_t* P, lv<int> w, lv<int> l, const lplan*) {
        const uint32_t* W = (const uint32_t*)P;
        for (int k = 0; k < 2; k++) ln_load4(&r->code[4 * k], W, chunk0(w, l) + k * LN_WARP * 4);
        ln_load4(r->scale, W, scales0(w, l));
        r->s_head = ln_load((const float*)P, ln_all(HEAD / 4));
    }
    LN void decode(lrow* x, const raw* r) {
        for (int i = 0; i < RW; i++) {
            const lv<uint32_t> sc = (r->scale[i / 4] >> (8 * (i % 4))) & 0xffu;
            lv<float> s;                       // stepq_e4m3_decode(sc) * s_head, as the CPU
            LN_MAP(s, stepq_e4m3_decode, sc);
            s = s * r->s_head;
            for (int c = 0; c < CW; c++) {
                const lv<uint32_t> z = (r->code[i / 2] >> (16 * (i % 2) + 4 * c)) & 0xfu;
                lv<float> e;
                LN_MAP(e, stepq_e2m1_decode, z);
                x[i][c] = e * s;
            }
        }
    }
    LN void encode(uint8_t* P, lrow* x, lv<int> w, lv<int> l, float* sh, const lplan*) {
        const lv<uint32_t> amax = warps_max(lane_absmax(x), (uint32_t*)sh, w, l, LN_WARPS);
        const lv<float> s_head = ln_float(amax) / 2688.0f;  // amax / (6 * 448)
        ln_store_if(ln_eq(ln_tid(), 0), (float*)P, ln_all(HEAD / 4), s_head);
        const lv<int> scaled = ln_gt(s_head, 0.0f);
        lv<uint32_t> code[8], scale[RW / 4];
        for (int k = 0; k < 8; k++) code[k] = ln_all(0u);
        for (int k = 0; k < RW / 4; k++) scale[k] = ln_all(0u);
        for (int i = 0; i < RW; i++) {
            // the block's maximum over its 4 lanes; the scale as rc_nvfp4_encode_row makes it
            lv<uint32_t> m = ln_bits(x[i][0]) & 0x7fffffffu;
            for (int c = 1; c < CW; c++) m = ln_max(m, ln_bits(x[i][c]) & 0x7fffffffu);
            m = ln_max(m, ln_shfl_xor(m, 1));
            m = ln_max(m, ln_shfl_xor(m, 2));
            const lv<float> t = ln_float(m) / 6.0f / ln_sel(scaled, s_head, ln_all(1.0f));
            lv<uint32_t> sc;
            LN_MAP(sc, stepq_e4m3_encode, t);
            sc = ln_sel(scaled, sc, ln_all(0u));
            lv<float> s, rinv;                 // one reciprocal a block instead of a division a value
            LN_MAP(s, stepq_e4m3_decode, sc);
            s = s * s_head;
            LN_EACH(t_) rinv.v[t_] = s.v[t_] > 0.0f ? 1.0f / s.v[t_] : 0.0f;
            scale[i / 4] = scale[i / 4] | (sc << (8 * (i % 4)));
            for (int c = 0; c < CW; c++) {
                lv<uint32_t> z;
                LN_MAP(z, stepq_e2m1_encode, x[i][c] * rinv);
                code[i / 2] = code[i / 2] | (z << (16 * (i % 2) + 4 * c));
            }
        }
        uint32_t* W = (uint32_t*)P;
        for (int k = 0; k < 2; k++) ln_store4(W, chunk0(w, l) + k * LN_WARP * 4, &code[4 * k]);
        ln_store4_if(ln_eq(l & 3, 0), W, scales0(w, l), scale);
    }
};

// the rows layout of a head plan (fmt_dual, fmt_alloc): the plan's rows at its offsets

// a lane's piece of a row in the rows layout: n bytes at p, the first in the low bits (a code
// row's 4 codes, LSB first), and back
LN uint32_t piece_load(const uint8_t* p, int n) {
    uint32_t u = 0;
    for (int k = 0; k < n; k++) u |= (uint32_t)p[k] << (8 * k);
    return u;
}
LN void piece_store(uint8_t* p, uint32_t u, int n) {
    for (int k = 0; k < n; k++) p[k] = (uint8_t)(u >> (8 * k));
}
LN int dual_odd(const lplan* pl, int b) { return pl->odd2 && b == 2; }
LN int dual_groups(const lplan* pl, int b) { return dual_odd(pl, b) ? LV / STEPQ_GDN2_GROUP : 1; }
LN float dual_nrm(const lplan* pl, int b) { return pl->nrm8 ? (float)(1 << (8 - b)) : 1.0f; }
LN float dual_lev(const lplan* pl, int b) { return dual_odd(pl, b) ? 3.0f : (float)STEPQ_QMAX(b); }
LN float dual_half(const uint8_t* p) { return stepq_f16_to_f32((uint16_t)(p[0] | p[1] << 8)); }
LN void dual_put_half(uint8_t* p, float x) {
    const uint16_t h = stepq_f32_to_f16_sat(x);
    p[0] = (uint8_t)h;
    p[1] = (uint8_t)(h >> 8);
}
// the warp's rows of a head plan's rows layout (fmt_dual, fmt_alloc) decoded, at the plan's
// offsets: a pivot's 4 halves a lane, a coded row by the trait's F::decode_row
template <class F>
LN void plan_decode(lrow* x, const typename F::raw* r) {
    const lplan* pl = r->pl;
    LN_EACH(t) for (int i = 0; i < RW; i++) {
        const int row = r->w.v[t] * RW + i, l = r->l.v[t], b = pl->bits[row];
        const uint8_t* p = r->P + pl->off[row];
        if (b == STEPQ_PIVOT_BITS)
            for (int c = 0; c < CW; c++) x[i][c].v[t] = dual_half(p + 2 * (l * CW + c));
        else F::decode_row(x[i], r, p, b, l, t);
    }
}

// the code of y / (c nrm), taken as (y (1/c)) (1/nrm) as df_row_codes takes it
LN float dual_code(float y, float ic, const lplan* pl, int b) {
    const float t = y * ic * (1.0f / dual_nrm(pl, b));
    return dual_odd(pl, b) ? stepq_odd2_code(t) : stepq_code(t, dual_lev(pl, b));
}

// the dual-axis fit of method 4.2 (quant/dualfit.h; dsq, space, stepquant, mlife, rlife) on the
// rows layout as the CPU packs it: the FP16 column factors c (V; where any row is coded), then
// row by row where the plan's offsets say, a coded row's FP16 row factors (one, or V / 32 for
// GDN's 2-bit rows) and its codes, a pivot's V halves. The rows have the plan's widths, so there
// is no fixed tile: a lane loads its piece of a row (4 codes, b / 2 bytes; a pivot's 8) byte by
// byte, the warp's 32 pieces one contiguous run. Widths differ between warps, so the per-row rules
// are each lane's own code (in LN_EACH) and the collectives run for every row alike. The fit
// keeps the CPU's order of every sum that feeds a rounding: a row's magnitude in df_sum_abs's
// eight float32 partial sums, each a chain of shuffles over the lanes that hold its columns, in
// column order, then its tree; the column maxima over the warps in shared memory (exact in any
// order); the refit's sums in double over the rows in order, the warps taking turns on running
// sums in shared memory (a barrier each, one after: 9 a round); y = x / r a true division,
// r = fp16((m / w)^rho) with rho = 1/2 a sqrt in double (another rho is refused: pow differs
// between the C library and CUDA). So the bytes are the CPU encoder's of the kernel's updated
// state. Not yet fast: a division per element (three passes), byte loads and stores, a
// 400-byte stack frame (nvcc -Xptxas -v, sm_90).
struct fmt_dual {
    struct raw {
        lv<float> c[CW];               // the lane's column factors
        lv<int> w, l;
        const uint8_t* P;
        const lplan* pl;
    };
    LN void fetch(raw* r, const uint8_t* P, lv<int> w, lv<int> l, const lplan* pl) {
        LN_EACH(t) for (int c = 0; c < CW; c++) r->c[c].v[t] = dual_half(P + 2 * (l.v[t] * CW + c));
        r->w = w, r->l = l, r->P = P, r->pl = pl;
    }
    // lane t's piece of a coded row at p: df_decode_row's r c_j (nrm z_j)
    LN void decode_row(lv<float>* x, const raw* r, const uint8_t* p, int b, int l, int t) {
        const lplan* pl = r->pl;
        const int G = dual_groups(pl, b);
        const float rf = dual_half(p + 2 * (l / (LN_WARP / G))), nrm = dual_nrm(pl, b);
        const uint32_t u = piece_load(p + 2 * G + l * b / 2, b / 2);
        for (int c = 0; c < CW; c++) {
            const uint32_t f = (u >> (b * c)) & ((1u << b) - 1u);
            const float z = dual_odd(pl, b) ? stepq_odd2_load((int8_t)f) : (float)stepq_sext(f, b);
            x[c].v[t] = rf * r->c[c].v[t] * (nrm * z);
        }
    }
    LN void decode(lrow* x, const raw* r) { plan_decode<fmt_dual>(x, r); }
    // rf (RW) <- the lane's row factor of each row (its group's): the magnitudes by shuffles
    LN void row_factors(lv<float>* rf, lrow* x, lv<int> w, lv<int> l, const lplan* pl) {
        for (int i = 0; i < RW; i++) {
            lv<int> L, start;  // the lanes of the row's group (32, or 8 for GDN's 2-bit rows), its first of l's parity
            LN_EACH(t) {
                L.v[t] = LN_WARP / dual_groups(pl, pl->bits[w.v[t] * RW + i]);
                start.v[t] = (l.v[t] & ~(L.v[t] - 1)) | (l.v[t] & 1);
            }
            lv<float> ax[CW], a[CW];  // partial sum 4 (l & 1) + c: columns 8k + 4 (l & 1) + c, k in order
            for (int c = 0; c < CW; c++) {
                ax[c] = ln_float(ln_bits(x[i][c]) & 0x7fffffffu);
                a[c] = ln_shfl(ax[c], start);
            }
            for (int k = 2; k < LN_WARP; k += 2) {
                const lv<int> in = ln_gt(L, k);
                for (int c = 0; c < CW; c++) a[c] = ln_sel(in, a[c] + ln_shfl(ax[c], ln_sel(in, start + k, start)), a[c]);
            }
            const lv<float> part = (a[0] + a[1]) + (a[2] + a[3]);  // the tree's halves: even lanes 0..3, odd 4..7
            const lv<float> sum = ln_shfl(part, start & ~1) + ln_shfl(part, (start & ~1) | 1);
            LN_EACH(t) {  // df_row_factors: the mean in double, at least 1e-20, then the power
                const int row = w.v[t] * RW + i;
                double m = (double)sum.v[t] / (CW * L.v[t]);
                m = m > 1e-20 ? m : 1e-20;
                const double rv = pl->dsq ? sqrt(m) : sqrt(m / (double)pl->w[row]);
                rf[i].v[t] = stepq_f16_to_f32(stepq_f16_factor((float)rv));
            }
        }
    }
    // c (CW) <- fp16(max_i |y_ij| / (qmax nrm)) over the coded rows: the warps' maxima in sh (V per warp)
    LN void col_factors(lv<float>* cf, lrow* x, const lv<float>* rf, lv<int> w, lv<int> l, float* sh, const lplan* pl) {
        lv<float> m[CW];
        LN_EACH(t) for (int c = 0; c < CW; c++) {
            float cm = 0.0f;
            for (int i = 0; i < RW; i++) {
                const int b = pl->bits[w.v[t] * RW + i];
                if (b == STEPQ_PIVOT_BITS) continue;
                const float a = fabsf(x[i][c].v[t] / rf[i].v[t]) * (1.0f / (dual_lev(pl, b) * dual_nrm(pl, b)));
                cm = a > cm ? a : cm;
            }
            m[c].v[t] = cm;
        }
        cols_max(m, sh, w, l);
        for (int c = 0; c < CW; c++) LN_EACH(t) cf[c].v[t] = stepq_f16_to_f32(stepq_f16_factor(m[c].v[t]));
    }
    // one refit round (df_refit_columns): sum_i w_i^2 x v and sum_i w_i^2 v v, v = r nrm z, in
    // double over the rows in order: warp g adds its rows to the running sums (acc: 2 V doubles)
    // in turn g; then c = fp16(num / den) where den > 0
    LN void refit(lv<float>* cf, lrow* x, const lv<float>* rf, lv<int> w, lv<int> l, double* acc, const lplan* pl) {
        for (int g = 0; g < LN_WARPS; g++) {
            ln_sync();
            LN_EACH(t) {
                if (w.v[t] != g) continue;
                double num[CW], den[CW];
                for (int c = 0; c < CW; c++) {
                    const int j = l.v[t] * CW + c;
                    num[c] = g ? acc[j] : 0.0;
                    den[c] = g ? acc[LV + j] : 0.0;
                }
                for (int i = 0; i < RW; i++) {
                    const int row = w.v[t] * RW + i, b = pl->bits[row];
                    if (b == STEPQ_PIVOT_BITS) continue;
                    const double wi2 = (double)pl->w[row] * pl->w[row], rn = (double)rf[i].v[t] * dual_nrm(pl, b);
                    for (int c = 0; c < CW; c++) {
                        const double v = rn * dual_code(x[i][c].v[t] / rf[i].v[t], 1.0f / cf[c].v[t], pl, b);
                        num[c] += wi2 * x[i][c].v[t] * v;
                        den[c] += wi2 * v * v;
                    }
                }
                for (int c = 0; c < CW; c++) {
                    acc[l.v[t] * CW + c] = num[c];
                    acc[LV + l.v[t] * CW + c] = den[c];
                }
            }
        }
        ln_sync();
        LN_EACH(t) for (int c = 0; c < CW; c++) {
            const int j = l.v[t] * CW + c;
            const double num = acc[j], den = acc[LV + j];
            if (den > 0) cf[c].v[t] = stepq_f16_to_f32(stepq_f16_factor((float)(num / den)));
        }
    }
    LN void encode(uint8_t* P, lrow* x, lv<int> w, lv<int> l, float* sh, const lplan* pl) {
        int coded = 0;  // df_any_coded: a plan of pivots alone has no fit and no column factors
        for (int i = 0; i < LK; i++) coded |= pl->bits[i] != STEPQ_PIVOT_BITS;
        lv<float> rf[RW], cf[CW];
        if (coded) {
            row_factors(rf, x, w, l, pl);
            col_factors(cf, x, rf, w, l, sh, pl);
            for (int k = 0; k < pl->refits; k++) refit(cf, x, rf, w, l, (double*)(sh + LN_WARPS * LV), pl);
        }
        LN_EACH(t) {
            const int lane = l.v[t];
            if (coded && w.v[t] == 0)
                for (int c = 0; c < CW; c++) dual_put_half(P + 2 * (lane * CW + c), cf[c].v[t]);
            for (int i = 0; i < RW; i++) {
                const int row = w.v[t] * RW + i, b = pl->bits[row];
                uint8_t* p = P + pl->off[row];
                if (b == STEPQ_PIVOT_BITS) {  // rc_f16_encode_row
                    for (int c = 0; c < CW; c++) dual_put_half(p + 2 * (lane * CW + c), x[i][c].v[t]);
                    continue;
                }
                const int G = dual_groups(pl, b);
                if (lane % (LN_WARP / G) == 0) dual_put_half(p + 2 * (lane / (LN_WARP / G)), rf[i].v[t]);
                uint32_t u = 0;
                for (int c = 0; c < CW; c++) {
                    const float z = dual_code(x[i][c].v[t] / rf[i].v[t], 1.0f / cf[c].v[t], pl, b);
                    const uint32_t s = dual_odd(pl, b) ? (uint32_t)stepq_odd2_store(z) : (uint32_t)(int)z;
                    u |= (s & ((1u << b) - 1u)) << (b * c);
                }
                piece_store(p + 2 * G + lane * b / 2, u, b / 2);
            }
        }
    }
};

// the rows formats of allocated widths (time6, time4 and their -nopivot forms; quant/rows.c)
// on the rows layout as the CPU packs it: row i where the plan's offsets say, a coded row its
// FP16 scale (stepq_row_scale of the row maximum, rows_absmax's shuffles) and its codes of x
// (1/s) as fmt_rows<b>'s, a pivot its V halves. As fmt_dual's, the rows have the plan's widths:
// a lane loads and stores its piece of a row byte by byte, in its own code (LN_EACH); not yet
// fast (a 336-byte stack frame, nvcc -Xptxas -v, sm_90).
struct fmt_alloc {
    struct raw {
        lv<int> w, l;
        const uint8_t* P;
        const lplan* pl;
    };
    LN void fetch(raw* r, const uint8_t* P, lv<int> w, lv<int> l, const lplan* pl) {
        r->w = w, r->l = l, r->P = P, r->pl = pl;
    }
    // lane t's piece of a coded row at p: rc_rows_decode_row's s z
    LN void decode_row(lv<float>* x, const raw*, const uint8_t* p, int b, int l, int t) {
        const float s = dual_half(p);
        const uint32_t u = piece_load(p + 2 + l * b / 2, b / 2);
        for (int c = 0; c < CW; c++) x[c].v[t] = s * (float)stepq_sext((u >> (b * c)) & ((1u << b) - 1u), b);
    }
    LN void decode(lrow* x, const raw* r) { plan_decode<fmt_alloc>(x, r); }
    LN void encode(uint8_t* P, lrow* x, lv<int> w, lv<int> l, float*, const lplan* pl) {
        const lv<uint32_t> amax = rows_absmax(x, l);
        const lv<int> row = rows_row_of(l);
        lv<float> rinv;  // one reciprocal a row, its scale stored by the even lane that holds it
        LN_EACH(t) {
            const int i = w.v[t] * RW + row.v[t], b = pl->bits[i];
            rinv.v[t] = 0.0f;
            if (b == STEPQ_PIVOT_BITS) continue;
            const uint16_t sh = stepq_row_scale(stepq_bits_f32(amax.v[t]), (float)STEPQ_QMAX(b));
            if (!(l.v[t] & 1)) piece_store(P + pl->off[i], sh, 2);
            const float s = stepq_f16_to_f32(sh);
            rinv.v[t] = s > 0.0f ? 1.0f / s : 0.0f;
        }
        lv<float> ri[RW];
        for (int i = 0; i < RW; i++) ri[i] = ln_bcast(rinv, rows_lane_of(i));
        LN_EACH(t) for (int i = 0; i < RW; i++) {
            const int r = w.v[t] * RW + i, lane = l.v[t], b = pl->bits[r];
            uint8_t* p = P + pl->off[r];
            if (b == STEPQ_PIVOT_BITS) {  // rc_f16_encode_row
                for (int c = 0; c < CW; c++) dual_put_half(p + 2 * (lane * CW + c), x[i][c].v[t]);
                continue;
            }
            uint32_t u = 0;
            for (int c = 0; c < CW; c++) {
                const float z = stepq_code(x[i][c].v[t] * ri[i].v[t], (float)STEPQ_QMAX(b));
                u |= ((uint32_t)(int)z & ((1u << b) - 1u)) << (b * c);
            }
            piece_store(p + 2 + lane * b / 2, u, b / 2);
        }
    }
};

// lane l's values of a row (columns 4l .. 4l+3) <- their orthonormal Walsh-Hadamard transform
// along V, rc_fwht's stages in its order: h = 1, 2 inside the lane, h = 4 .. 64 with lane l xor
// h / 4 (the lower of a pair takes a + b, the upper a - b, the same roundings), then the scale
// 1 / sqrt(V). Every lane of the warp takes part.
LN void fwht_row(lv<float>* x, lv<int> l) {
    for (int h = 1; h < CW; h *= 2)
        for (int c = 0; c < CW; c++) {
            if (c & h) continue;
            const lv<float> a = x[c], b = x[c + h];
            x[c] = a + b;
            x[c + h] = a - b;
        }
    for (int m = 1; m < LN_WARP; m *= 2) {
        const lv<int> up = ln_gt(l & m, 0);
        for (int c = 0; c < CW; c++) {
            const lv<float> p = ln_shfl_xor(x[c], m);
            x[c] = ln_sel(up, p - x[c], x[c] + p);
        }
    }
    const float sc = 1.0f / sqrtf((float)LV);
    for (int c = 0; c < CW; c++) x[c] = x[c] * sc;
}

// DAMP (quant/damp.c): the rows of allocated widths of its plan (8 bits, or an FP16 pivot) as
// fmt_alloc's, its coded rows rotated along V (fwht_row): after decoding, before encoding. The
// rotation is its own inverse; a row is coded or a pivot for the whole warp, so every lane
// rotates every row and keeps it where the row is coded.
struct fmt_damp {
    typedef fmt_alloc::raw raw;
    LN void fetch(raw* r, const uint8_t* P, lv<int> w, lv<int> l, const lplan* pl) { fmt_alloc::fetch(r, P, w, l, pl); }
    LN void rotate(lrow* x, const lplan* pl, lv<int> w, lv<int> l) {
        for (int i = 0; i < RW; i++) {
            lv<int> coded;
            LN_EACH(t) coded.v[t] = pl->bits[w.v[t] * RW + i] != STEPQ_PIVOT_BITS;
            lv<float> y[CW];
            for (int c = 0; c < CW; c++) y[c] = x[i][c];
            fwht_row(y, l);
            for (int c = 0; c < CW; c++) x[i][c] = ln_sel(coded, y[c], x[i][c]);
        }
    }
    LN void decode(lrow* x, const raw* r) {
        fmt_alloc::decode(x, r);
        rotate(x, r->pl, r->w, r->l);
    }
    LN void encode(uint8_t* P, lrow* x, lv<int> w, lv<int> l, float* sh, const lplan* pl) {
        rotate(x, pl, w, l);
        fmt_alloc::encode(P, x, w, l, sh, pl);
    }
};

// LeapQuant without the freeze gate (quant/leap.c): the state as int-B rows (fmt_rows<B>), then
// its residual X - dec(P1) as the residual trait Res stores it (fmt_rows<R>, or fmt_fp32: the
// FP32 oracle) at byte BASE; decoded dec(P1) + alpha dec(P2), row by row. Lanes layout: each part
// in its own trait's (BASE is a multiple of 16).
template <int B, class Res>
struct fmt_leap {
    typedef fmt_rows<B> Base;
    enum { BASE = LK * STEPQ_ROW_BYTES(B, LV) };
    static_assert(BASE % 16 == 0, "the residual's rows 16-byte aligned");
    struct raw {
        typename Base::raw b;
        typename Res::raw r;
        float alpha;
    };
    LN void fetch(raw* r, const uint8_t* P, lv<int> w, lv<int> l, const lplan* pl) {
        Base::fetch(&r->b, P, w, l, pl);
        Res::fetch(&r->r, P + BASE, w, l, pl);
        r->alpha = pl->alpha;
    }
    LN void decode(lrow* x, const raw* r) {
        LN_UNROLL for (int i = 0; i < RW; i++) {
            lv<float> d[CW];
            Base::decode_row(x[i], &r->b, i);
            Res::decode_row(d, &r->r, i);
            for (int c = 0; c < CW; c++) x[i][c] = x[i][c] + r->alpha * d[c];
        }
    }
    LN void encode(uint8_t* P, lrow* x, lv<int> w, lv<int> l, float* sh, const lplan* pl) {
        Base::encode_into(P, x, w, l, 1);  // x <- X - dec(P1)
        Res::encode(P + BASE, x, w, l, sh, pl);
    }
};

// stochastic rounding (quant/sr.c; E: STEPQ_ELEM_INT8, _FP8 or _FP16) on its own layout, the
// CPU's: the uint64 encode counter n, (INT8, FP8) the V float32 column scales, then the K x V
// codes row by row, a lane's 4 of a row one 32-bit word (FP16: two). Element e = i V + j of encode
// n draws stepq_sr_uniform(n, e), the CPU's draw, so the codes are the CPU encoder's; the column
// scales max_i |x_ij| / qmax need the head's column maxima: a barrier, over shared memory (FP16:
// a barrier all the same, between every lane's read of n and thread 0's store of n + 1). The
// quotient x / s is the CPU's division.
template <int E>
struct fmt_sr {
    enum { SCALED = E != STEPQ_ELEM_FP16, CB = E == STEPQ_ELEM_FP16 ? 2 : 1,  // words a lane holds of a row
           HEAD = 8 + (SCALED ? 4 * LV : 0) };
    static constexpr float QMAX = E == STEPQ_ELEM_INT8 ? 127.0f : 448.0f;
    struct raw {
        lv<uint32_t> code[RW * CB];
        lv<float> s[CW];
    };
    // the 32-bit index of lane l's first word of row i of the warp
    LN lv<int> word0(lv<int> w, lv<int> l, int i) { return (w * RW + i) * (LV * CB / 4) + (HEAD / 4) + l * CB; }
    LN void fetch(raw* r, const uint8_t* P, lv<int> w, lv<int> l, const lplan*) {
        for (int i = 0; i < RW; i++)
            for (int k = 0; k < CB; k++) r->code[CB * i + k] = ln_load((const uint32_t*)P, word0(w, l, i) + k);
        for (int c = 0; c < CW; c++) r->s[c] = SCALED ? ln_load((const float*)P, l * CW + (2 + c)) : ln_all(0.0f);
    }
    LN void decode(lrow* x, const raw* r) {
        LN_UNROLL for (int i = 0; i < RW; i++)
            LN_UNROLL for (int c = 0; c < CW; c++) {
                const lv<uint32_t> z = (r->code[CB * i + c * CB / CW] >> ((32 / (CW / CB)) * (c % (CW / CB)))) &
                                       (uint32_t)(E == STEPQ_ELEM_FP16 ? 0xffffu : 0xffu);
                if (E == STEPQ_ELEM_INT8)  // rc_sr_decode_row's (int8) code times s, the code by the magic
                    x[i][c] = (ln_float((z ^ 0x80u) | LN_MAGIC_BITS) - (LN_MAGIC + 128.0f)) * r->s[c];
                else if (E == STEPQ_ELEM_FP8) {
                    LN_MAP(x[i][c], stepq_e4m3_decode, z);
                    x[i][c] = x[i][c] * r->s[c];
                } else LN_MAP(x[i][c], stepq_f16_to_f32, z);
            }
    }
    LN void encode(uint8_t* P, lrow* x, lv<int> w, lv<int> l, float* sh, const lplan*) {
        uint64_t n;  // rc_sr_encode_head: the counter advanced first (every lane reads it here)
        memcpy(&n, P, 8);
        n++;
        lv<float> s[CW];
        if (SCALED) {  // the column maxima: the warp's 16 rows, then the 8 warps' in shared memory
            lv<uint32_t> m[CW];
            for (int c = 0; c < CW; c++) {
                m[c] = ln_all(0u);
                for (int i = 0; i < RW; i++) m[c] = ln_max(m[c], ln_bits(x[i][c]) & 0x7fffffffu);
            }
            cols_max(m, (uint32_t*)sh, w, l);
            for (int c = 0; c < CW; c++) {
                s[c] = ln_float(m[c]) / QMAX;
                ln_store_if(ln_eq(w, 0), (float*)P, l * CW + (2 + c), s[c]);
            }
        } else {
            ln_sync();
            for (int c = 0; c < CW; c++) s[c] = ln_all(0.0f);
        }
        ln_store_if(ln_eq(ln_tid(), 0), (uint32_t*)P, ln_all(0), ln_all((uint32_t)n));
        ln_store_if(ln_eq(ln_tid(), 0), (uint32_t*)P, ln_all(1), ln_all((uint32_t)(n >> 32)));
        LN_UNROLL for (int i = 0; i < RW; i++) {
            lv<uint32_t> code[CB];
            for (int k = 0; k < CB; k++) code[k] = ln_all(0u);
            LN_UNROLL for (int c = 0; c < CW; c++) {
                const lv<int> e = (w * RW + i) * LV + l * CW + c;
                lv<uint32_t> z;
                LN_EACH(t) {
                    const float u = stepq_sr_uniform(n, (size_t)e.v[t]), xt = x[i][c].v[t];
                    z.v[t] = E == STEPQ_ELEM_INT8  ? stepq_sr_int8(xt, s[c].v[t], u)
                             : E == STEPQ_ELEM_FP8 ? stepq_sr_fp8(xt, s[c].v[t], u)
                                                   : stepq_f16_sr(xt, u);
                }
                code[c * CB / CW] = code[c * CB / CW] | (z << ((32 / (CW / CB)) * (c % (CW / CB))));
            }
            for (int k = 0; k < CB; k++) ln_store_if(ln_all(1), (uint32_t*)P, word0(w, l, i) + k, code[k]);
        }
    }
};

// whether trait F reads the head plans (the others take none: no load of them)
template <class F>
struct lanes_plans {
    enum { v = 0 };
};
template <>
struct lanes_plans<fmt_dual> {
    enum { v = 1 };
};
template <>
struct lanes_plans<fmt_alloc> {
    enum { v = 1 };
};
template <>
struct lanes_plans<fmt_damp> {
    enum { v = 1 };
};

// ---------------------------------------------------------------------------------------------
// the step of one head (block h); sh: LN_SHARED floats of shared memory

// a sum of the warps' partial sums (LN_WARPS x LV floats at part) in warp order
LN void warp_order_sum(lv<float>* out, const float* part, lv<int> l) {
    ln_load4(out, part, l * CW);
    for (int g = 1; g < LN_WARPS; g++) {
        lv<float> p[CW];
        ln_load4(p, part, g * LV + l * CW);
        for (int c = 0; c < CW; c++) out[c] = out[c] + p[c];
    }
}

template <class F>
LN void lanes_head(const lanes_args* a, int h, float* sh, float alpha) {
    const lv<int> l = ln_lane(), w = ln_warp();
    uint8_t* P = a->P + (size_t)h * a->stride;
    const float* rec = a->in + (size_t)h * a->R;
    lplan pl = {};
    pl.alpha = alpha;
    if (lanes_plans<F>::v) {  // only these formats are given plans (n_plans >= 1)
        const int ph = h % a->n_plans;
        pl = {a->bits + (size_t)ph * LK, a->w + (size_t)ph * LK, a->off + (size_t)ph * LK, a->meta[ph].rho,
              a->dsq ? 0 : a->meta[ph].refits, a->odd2, a->nrm8, a->dsq, alpha};
    }
    typename F::raw raw;
    F::fetch(&raw, P, w, l, &pl);
    lv<float> q[RW], k[RW], d[RW], v[CW];
    const float* gates = rec + 3 * LK + LV;  // the decays, or (G > 0) the log gates
    for (int i = 0; i < RW; i += 4) {
        ln_load4(&q[i], rec, w * RW + i);
        ln_load4(&k[i], rec + LK, w * RW + i);
        if (!a->G) ln_load4(&d[i], gates, w * RW + i);
    }
    if (a->G == 1) {  // GDN: one gate a head
        const lv<float> e = ln_expf(ln_load(gates, ln_all(0)));
        for (int i = 0; i < RW; i++) d[i] = e;
    } else if (a->G) {  // KDA: lane l takes row l mod 16's exp, then every lane the warp's 16
        const lv<float> e = ln_expf(ln_load(gates, w * RW + (l & (RW - 1))));
        for (int i = 0; i < RW; i++) d[i] = ln_bcast(e, i);
    }
    ln_load4(v, rec + 2 * LK, l * CW);
    const float beta = rec[4 * LK + LV];
    lrow x[RW];
    F::decode(x, &raw);
    lv<float> acc[CW];
    for (int c = 0; c < CW; c++) acc[c] = ln_all(0.0f);
    for (int i = 0; i < RW; i++)
        for (int c = 0; c < CW; c++) {
            x[i][c] = x[i][c] * d[i];
            acc[c] = acc[c] + k[i] * x[i][c];
        }
    float *su = sh, *sy = sh + LN_WARPS * LV;
    int* vote = (int*)(sh + 2 * LN_WARPS * LV);
    ln_store4(su, w * LV + l * CW, acc);
    ln_sync();
    lv<float> u[CW], y[CW];
    warp_order_sum(u, su, l);
    lv<uint32_t> worst = ln_all(0u);
    for (int c = 0; c < CW; c++) {
        u[c] = beta * (v[c] - u[c]);
        y[c] = ln_all(0.0f);
    }
    for (int i = 0; i < RW; i++) {
        const lv<float> qs = a->fscale * q[i];
        for (int c = 0; c < CW; c++) {
            x[i][c] = x[i][c] + k[i] * u[c];
            y[c] = y[c] + qs * x[i][c];
            worst = ln_max(worst, ln_bits(x[i][c]) & 0x7fffffffu);
        }
    }
    ln_store4(sy, w * LV + l * CW, y);
    ln_store_if(ln_eq(l, 0), vote, w, ln_any(ln_gt(worst, 0x7f7fffffu)));  // FLT_MAX's bits
    ln_sync();
    warp_order_sum(y, sy, l);
    ln_store4_if(ln_eq(w, 0), a->y + (size_t)h * LV, l * CW, y);
    lv<int> bad = ln_all(0);
    for (int g = 0; g < LN_WARPS; g++) bad = bad | ln_load(vote, ln_all(g));
    ln_store_if(ln_eq(ln_tid(), 0), a->status, ln_all(h), ln_sel(bad, ln_all((int)STEPQ_ERR), ln_all((int)STEPQ_OK)));
    if (ln_uniform(bad)) return;  // a non-finite state is not stored (the CPU's encoder refuses it)
    F::encode(P, x, w, l, sh, &pl);  // sh's partial sums of u are free: read before the second barrier
                                     // (the read-out's and the votes' after it: free at encode's first)
}

template <class F>
__global__ void __launch_bounds__(LN_THREADS, 2) lanes_kernel(lanes_args a, float alpha) {
    __shared__ __align__(16) float sh[LN_SHARED];
    lanes_head<F>(&a, (int)blockIdx.x, sh, alpha);
}

// ---------------------------------------------------------------------------------------------
// the formats, the launches

// LeapQuant's kin (a macro argument takes no bare comma)
typedef fmt_leap<6, fmt_rows<4>> fmt_leap6_r4;
typedef fmt_leap<6, fmt_rows<8>> fmt_leap6_r8;
typedef fmt_leap<6, fmt_fp32> fmt_leap6_fp32;
typedef fmt_leap<4, fmt_rows<4>> fmt_leap4_r4;

// the kernels' specialisations: X(id, trait) for each (those from LT_DUAL on encode in the CPU's
// order: lanes_encodes_exact)
enum {
    LT_NONE, LT_FP32, LT_BF16, LT_FP16, LT_INT8, LT_INT6, LT_INT4, LT_NVFP4, LT_FP8TILE, LT_DUAL, LT_ALLOC, LT_DAMP,
    LT_LEAP6_R4, LT_LEAP6_R8, LT_LEAP6_FP32, LT_LEAP4_R4, LT_INT8_SR, LT_FP8_SR, LT_FP16_SR
};
#define LANES_FORMATS(X)                                                                                      \
    X(LT_FP32, fmt_fp32) X(LT_BF16, fmt_cast16<STEPQ_ELEM_BF16>) X(LT_FP16, fmt_cast16<STEPQ_ELEM_FP16>)      \
    X(LT_INT8, fmt_rows<8>) X(LT_INT6, fmt_rows<6>) X(LT_INT4, fmt_rows<4>) X(LT_NVFP4, fmt_nvfp4)          \
    X(LT_FP8TILE, fmt_fp8tile) X(LT_DUAL, fmt_dual) X(LT_ALLOC, fmt_alloc) X(LT_DAMP, fmt_damp)             \
    X(LT_LEAP6_R4, fmt_leap6_r4) X(LT_LEAP6_R8, fmt_leap6_r8) X(LT_LEAP6_FP32, fmt_leap6_fp32)              \
    X(LT_LEAP4_R4, fmt_leap4_r4)                                                                            \
    X(LT_INT8_SR, fmt_sr<STEPQ_ELEM_INT8>) X(LT_FP8_SR, fmt_sr<STEPQ_ELEM_FP8>) X(LT_FP16_SR, fmt_sr<STEPQ_ELEM_FP16>)

// the specialisation that runs format f, or LT_NONE
static int lanes_trait(const stepq_format* f) {
    if (stepq_format_exact(f)) return LT_FP32;
    const int w = f->width, plain = f->needs == STEPQ_NEEDS_NOTHING && !f->replay;
    if (f->family->id == STEPQ_FAMILY_CAST) return f->cast.element == STEPQ_ELEM_BF16 ? LT_BF16 : LT_FP16;
    if (plain && f->family->id == STEPQ_FAMILY_NVFP4) return LT_NVFP4;
    if (plain && f->family->id == STEPQ_FAMILY_FP8TILE) return LT_FP8TILE;
    if (!f->replay && f->family->id == STEPQ_FAMILY_DUAL) return LT_DUAL;
    if (!f->replay && f->family->id == STEPQ_FAMILY_ROWS && f->needs == STEPQ_NEEDS_TABLE) return LT_ALLOC;
    if (!f->replay && f->family->id == STEPQ_FAMILY_DAMP) return LT_DAMP;
    if (!f->replay && f->family->id == STEPQ_FAMILY_SR)
        return f->sr.element == STEPQ_ELEM_INT8 ? LT_INT8_SR : f->sr.element == STEPQ_ELEM_FP8 ? LT_FP8_SR : LT_FP16_SR;
    if (!f->replay && f->family->id == STEPQ_FAMILY_LEAP && !stepq_format_freeze_gated(f)) {  // f->leap.tau > 0: none
        const int r = f->leap.residual_bits;
        if (w == 6) return r == 4 ? LT_LEAP6_R4 : r == 8 ? LT_LEAP6_R8 : r == 32 ? LT_LEAP6_FP32 : LT_NONE;
        return w == 4 && r == 4 ? LT_LEAP4_R4 : LT_NONE;
    }
    if (!plain || f->family->id != STEPQ_FAMILY_ROWS) return LT_NONE;
    return w == 8 ? LT_INT8 : w == 6 ? LT_INT6 : w == 4 ? LT_INT4 : LT_NONE;
}

int lanes_takes(const stepq_format* f, int K, int V) { return lanes_trait(f) != LT_NONE && K == LK && V == LV; }

int lanes_encodes_exact(const stepq_format* f) { return lanes_trait(f) >= LT_DUAL; }  // (the enum's order)

int lanes_reads_plans(const stepq_format* f) {
#define LANES_PLANS_(id, T) if (lanes_trait(f) == id) return lanes_plans<T>::v;
    LANES_FORMATS(LANES_PLANS_)
    return 0;
}

int lanes_supports(const stepq_format* f, const stepq_head_plan* hps, int n_plans, int K, int V) {
    if (stepq_format_freeze_gated(f)) {
        stepq_error("format %s: no lane kernel for LeapQuant's freeze gate (it keeps or drops the head's update on "
                    "||X - S_hat|| and ||S_hat||, the CPU's sums in double over the whole head in element order)",
                    f->name);
        return STEPQ_ERR;
    }
    if (!lanes_takes(f, K, V)) {
        stepq_error("format %s on %d x %d heads: the lane kernels take fp32, bf16, fp16, int8, int6, int4, nvfp4, "
                    "fp8-tile32, time6, time4 (and -nopivot), the dual-axis formats (dsq, space, stepquant, "
                    "mlife, rlife), damp, leap6-r4, leap6-r8, leap6-fp32, leap4-r4, int8-sr, fp8-sr and fp16-sr "
                    "on %d x %d heads",
                    f->name, K, V, LK, LV);
        return STEPQ_ERR;
    }
    if (lanes_reads_plans(f) && n_plans < 1) {  // its kernel reads head h's plan h mod n_plans
        stepq_error("format %s: its lane kernel reads head plans, and none were given", f->name);
        return STEPQ_ERR;
    }
    for (int h = 0; lanes_trait(f) == LT_DUAL && !f->dual.dsq && h < n_plans; h++)
        if (hps[h].rho != 0.5f) {  // fmt_dual: pow is the C library's on the host, CUDA's on a device
            stepq_error("format %s: the lane kernels take the row-factor exponent rho = 0.5 only (head plan %d has %g)",
                        f->name, h, (double)hps[h].rho);
            return STEPQ_ERR;
        }
    return STEPQ_OK;
}

// the format's parameter the kernels take beside the plans (lplan's alpha)
static float lanes_alpha(const stepq_format* f) { return f->family->id == STEPQ_FAMILY_LEAP ? f->leap.alpha : 0.0f; }

template <class F>
static void lanes_run(const lanes_args* a, float alpha, int n, cudaStream_t st, int emu) {
    if (!emu) {
        lanes_kernel<F><<<n, LN_THREADS, 0, st>>>(*a, alpha);
        cudaCheck(cudaGetLastError());
        return;
    }
    float* sh = (float*)mallocCheck(sizeof(float) * LN_SHARED);
    for (int h = 0; h < n; h++) lanes_head<F>(a, h, sh, alpha);
    free(sh);
}

void lanes_launch(const stepq_format* f, const lanes_args* a, int n, cudaStream_t st, int emu) {
#define LANES_RUN_(id, T) if (lanes_trait(f) == id) lanes_run<T>(a, lanes_alpha(f), n, st, emu);
    LANES_FORMATS(LANES_RUN_)
}

// the stored heads decoded as the kernels' first phase decodes them (the device session's S_hat_t;
// the formats that read no plan: the session takes no plans)
template <class F>
LN void lanes_decode_head(float* S, const uint8_t* P, size_t stride, int h, float alpha) {
    const lv<int> l = ln_lane(), w = ln_warp();
    typename F::raw raw;
    lplan none = {};
    none.alpha = alpha;
    F::fetch(&raw, P + (size_t)h * stride, w, l, &none);
    lrow x[RW];
    F::decode(x, &raw);
    for (int i = 0; i < RW; i++) ln_store4(S + (size_t)h * LK * LV, (w * RW + i) * LV + l * CW, x[i]);
}

template <class F>
__global__ void __launch_bounds__(LN_THREADS) lanes_decode_kernel(float* S, const uint8_t* P, size_t stride, float alpha) {
    lanes_decode_head<F>(S, P, stride, (int)blockIdx.x, alpha);
}

template <class F>
static void lanes_decode_run(float* S, const uint8_t* P, size_t stride, float alpha, int n, cudaStream_t st, int emu) {
    if (!emu) {
        lanes_decode_kernel<F><<<n, LN_THREADS, 0, st>>>(S, P, stride, alpha);
        cudaCheck(cudaGetLastError());
        return;
    }
    for (int h = 0; h < n; h++) lanes_decode_head<F>(S, P, stride, h, alpha);
}

void lanes_decode(const stepq_format* f, float* S, const uint8_t* P, size_t stride, int n, cudaStream_t st, int emu) {
    stepq_assert(!lanes_reads_plans(f));  // the session refuses the formats that read a plan
#define LANES_DECODE_(id, T) if (lanes_trait(f) == id) lanes_decode_run<T>(S, P, stride, lanes_alpha(f), n, st, emu);
    LANES_FORMATS(LANES_DECODE_)
}

template <class F>
static void lanes_attr(cudaFuncAttributes* attr, int* blocks) {
    cudaCheck(cudaFuncGetAttributes(attr, (const void*)lanes_kernel<F>));
    cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, (const void*)lanes_kernel<F>, LN_THREADS, 0));
}

void lanes_attributes(const stepq_format* f, cudaFuncAttributes* attr, int* blocks_per_sm, int emu) {
    memset(attr, 0, sizeof *attr);
    *blocks_per_sm = 0;
    if (emu) return;
#define LANES_ATTR_(id, T) if (lanes_trait(f) == id) lanes_attr<T>(attr, blocks_per_sm);
    LANES_FORMATS(LANES_ATTR_)
}

// byte e of lane l's piece of row i (b/2 bytes: its 4 codes of b bits) in a lanes tile that
// starts at byte `codes`
static size_t lanes_piece_at(size_t codes, int b, int i, int l, size_t e) {
    const size_t piece = (size_t)b / 2, tile = (size_t)RW * LV * b / 8;
    const size_t p = (size_t)(i % RW) * piece + e;  // byte p of lane l's stream
    return codes + (size_t)(i / RW) * tile + (p / 16 * LN_WARP + l) * 16 + p % 16;
}

// dst[lo] <- src[ro] (to_lanes), or dst[ro] <- src[lo]: n bytes
static void lanes_move(uint8_t* dst, const uint8_t* src, size_t lo, size_t ro, size_t n, int to_lanes) {
    memcpy(to_lanes ? dst + lo : dst + ro, to_lanes ? src + ro : src + lo, n);
}

// a head of int-b rows (fmt_rows<b>) between the rows and the lanes layouts
static void lanes_permute_rows(uint8_t* dst, const uint8_t* src, int b, int to_lanes) {
    const size_t row = STEPQ_ROW_BYTES(b, LV), piece = (size_t)b / 2;
    for (int i = 0; i < LK; i++) {
        const size_t rs = (size_t)i * row;
        lanes_move(dst, src, 2 * (size_t)i, rs, 2, to_lanes);  // the scale
        for (int l = 0; l < LN_WARP; l++)
            for (size_t e = 0; e < piece; e++) lanes_move(dst, src, lanes_piece_at(2 * LK, b, i, l, e), rs + 2 + l * piece + e, 1, to_lanes);
    }
}

void lanes_permute(uint8_t* dst, const uint8_t* src, const stepq_format* f, size_t bytes, int to_lanes) {
    const int t = lanes_trait(f);
    if (t == LT_FP32 || t == LT_DUAL || t == LT_ALLOC || t == LT_DAMP || t == LT_INT8_SR || t == LT_FP8_SR ||
        t == LT_FP16_SR) {  // their own layouts are the CPU's
        memcpy(dst, src, bytes);
        return;
    }
    if (t == LT_LEAP6_R4 || t == LT_LEAP6_R8 || t == LT_LEAP6_FP32 || t == LT_LEAP4_R4) {  // two parts
        const int r = f->leap.residual_bits;
        const size_t base = (size_t)LK * STEPQ_ROW_BYTES(f->width, LV);
        lanes_permute_rows(dst, src, f->width, to_lanes);
        if (r == 32) memcpy(dst + base, src + base, bytes - base);  // FP32's own layout
        else lanes_permute_rows(dst + base, src + base, r, to_lanes);
        return;
    }
    if (t == LT_NVFP4) {  // rows: s_head, then per row 8 blocks of a scale byte and 8 code bytes
        const size_t block = STEPQ_NVFP4_BLOCK_BYTES, per_row = LV / STEPQ_NVFP4_BLOCK;
        lanes_move(dst, src, fmt_nvfp4::HEAD, 0, 4, to_lanes);
        for (int i = 0; i < LK; i++)
            for (size_t k = 0; k < per_row; k++) {
                const size_t ro = 4 + ((size_t)i * per_row + k) * block;
                lanes_move(dst, src, (size_t)(i / RW) * RW * per_row + k * RW + i % RW, ro, 1, to_lanes);
                for (int c = 0; c < 4; c++)  // the block's 4 lanes, two code bytes each
                    lanes_move(dst, src, lanes_piece_at(fmt_nvfp4::SCALES, 4, i, (int)k * 4 + c, 0), ro + 1 + 2 * c, 2,
                               to_lanes);
            }
        return;
    }
    if (t == LT_BF16 || t == LT_FP16) {  // rows: one half after another; lanes: 8 bytes a piece
        for (int i = 0; i < LK; i++)
            for (int l = 0; l < LN_WARP; l++)
                lanes_move(dst, src, lanes_piece_at(0, 16, i, l, 0), ((size_t)i * LV + (size_t)l * CW) * 2, 8, to_lanes);
        return;
    }
    if (t == LT_FP8TILE) {  // rows: per tile its scale, then its 32 rows' codes
        const size_t per_tile = 4 + (size_t)STEPQ_FP8_TILE * LV;
        for (int i = 0; i < LK; i++) {
            const size_t tile = (size_t)(i / STEPQ_FP8_TILE), ro = tile * per_tile + 4 + (size_t)(i % STEPQ_FP8_TILE) * LV;
            if (i % STEPQ_FP8_TILE == 0) lanes_move(dst, src, 4 * tile, tile * per_tile, 4, to_lanes);
            for (int l = 0; l < LN_WARP; l++)
                lanes_move(dst, src, lanes_piece_at(fmt_fp8tile::SCALES, 8, i, l, 0), ro + (size_t)l * CW, 4, to_lanes);
        }
        return;
    }
    lanes_permute_rows(dst, src, t == LT_INT8 ? 8 : t == LT_INT6 ? 6 : 4, to_lanes);
}

float lanes_expf(float g) { return ln_expf1(g); }

// ---------------------------------------------------------------------------------------------
// the inputs' feed (lanes.h)

void lanes_feed_open(lanes_feed* fd, size_t floats, int emu) {
    memset(fd, 0, sizeof *fd);
    fd->floats = floats;
    fd->emu = emu;
    if (emu) {
        fd->host[0] = fd->host[1] = fd->dev[0] = fd->dev[1] = (float*)callocCheck(floats, 4);
        return;
    }
    for (int k = 0; k < 2; k++) {
        cudaCheck(cudaMallocHost((void**)&fd->host[k], floats * 4));
        cudaCheck(cudaMalloc((void**)&fd->dev[k], floats * 4));
        cudaCheck(cudaEventCreateWithFlags(&fd->used[k], cudaEventDisableTiming));
    }
}

void lanes_feed_close(lanes_feed* fd) {
    if (fd->emu) {
        free(fd->host[0]);
        return;
    }
    for (int k = 0; k < 2; k++) {
        cudaCheck(cudaEventSynchronize(fd->used[k]));
        cudaCheck(cudaFreeHost(fd->host[k]));
        cudaCheck(cudaFree(fd->dev[k]));
        cudaCheck(cudaEventDestroy(fd->used[k]));
    }
}

float* lanes_feed_stage(lanes_feed* fd) {
    const int k = fd->next;
    if (!fd->emu && fd->pending[k]) cudaCheck(cudaEventSynchronize(fd->used[k]));  // its step has run
    fd->pending[k] = 0;
    return fd->host[k];
}

const float* lanes_feed_upload(lanes_feed* fd, cudaStream_t st) {
    const int k = fd->next;
    if (!fd->emu) cudaCheck(cudaMemcpyAsync(fd->dev[k], fd->host[k], fd->floats * 4, cudaMemcpyHostToDevice, st));
    fd->live = k;
    fd->next = 1 - k;
    return fd->dev[k];
}

void lanes_feed_done(lanes_feed* fd, cudaStream_t st) {
    if (!fd->emu) cudaCheck(cudaEventRecord(fd->used[fd->live], st));
    fd->pending[fd->live] = 1;
}

// lanes.cu: the serving step written lane by lane (lanes.h; method 6.5): one kernel body over
// a format trait, compiled for the device and for the host's lockstep emulation (lanes.cuh).
//
// A step of one head (block), with two barriers:
//   1. every load issued first: the warp's packed rows (16-byte vectors: its tile of codes and
//      its 16 row scales) and the step's inputs; then decode (codes to floats by the
//      1.5 * 2^23 trick) and decay, x = d_i (s_i z_ij), the CPU's two roundings
//   2. each lane's partial sums of k_i x_ij over its warp's 16 rows, to shared memory; barrier;
//      u_j = beta (v_j - sum), the 8 warps' partial sums added in warp order
//   3. x <- x + k_i u_j, the read-out's partial sums of (scale q_i) x_ij and a vote on a
//      non-finite x; barrier; warp 0 adds the read-out in warp order and stores it
//   4. encode: row maxima by a transposed butterfly of shuffles (16 a warp for its 16 rows),
//      the row's FP16 scale and one reciprocal a row (numerics.h's stepq_row_scale, as the CPU),
//      the reciprocals to every lane by shuffles, codes by the 1.5 * 2^23 trick, 16-byte stores
// Every operation on an element is the CPU's (sim/recurrence.c, quant/rowcodec.h) in the CPU's
// order but the sums over key rows, which go by row groups of 16 (method 6.5's contract).
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

// ---------------------------------------------------------------------------------------------
// format traits: fetch (the loads of the warp's rows), decode (to floats), encode and store

// FP32: the K x V floats, row i at i V; lane l's 4 columns one 16-byte vector a row
struct fmt_fp32 {
    struct raw {
        lrow x[RW];
    };
    LN void fetch(raw* r, const uint8_t* P, lv<int> w, lv<int> l) {
        for (int i = 0; i < RW; i++) ln_load4(r->x[i], (const float*)P, (w * RW + i) * LV + l * CW);
    }
    LN void decode(lrow* x, const raw* r) {
        for (int i = 0; i < RW; i++)
            for (int c = 0; c < CW; c++) x[i][c] = r->x[i][c];
    }
    LN void encode(uint8_t* P, lrow* x, lv<int> w, lv<int> l) {
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
    LN void fetch(raw* r, const uint8_t* P, lv<int> w, lv<int> l) {
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
    LN void decode(lrow* x, const raw* r) {
        const uint32_t sign = 1u << (B - 1);
        const float bias = LN_MAGIC + (float)sign;  // exact: an integer below 2^24
        for (int i = 0; i < RW; i++) {
            const lv<uint32_t> h = (r->scale[i / 2] >> (16 * (i % 2))) & 0xffffu;
            lv<float> s;
            LN_MAP(s, stepq_f16_to_f32, h);
            for (int c = 0; c < CW; c++) {
                // two's complement to offset binary (xor the sign), under the magic's bits
                const lv<uint32_t> u = field(r->code, CW * B * i + B * c) ^ sign;
                x[i][c] = s * (ln_float(u | LN_MAGIC_BITS) - bias);
            }
        }
    }
    LN void encode(uint8_t* P, lrow* x, lv<int> w, lv<int> l) {
        lv<uint32_t> m[RW];
        for (int i = 0; i < RW; i++) {
            m[i] = ln_bits(x[i][0]) & 0x7fffffffu;
            for (int c = 1; c < CW; c++) m[i] = ln_max(m[i], ln_bits(x[i][c]) & 0x7fffffffu);
        }
        const lv<uint32_t> amax = rows_max(m, l);
        const lv<int> row = rows_row_of(l);
        lv<uint32_t> sh;  // stepq_row_scale's FP16 bits (finite rows: the caller checked)
        LN_EACH(t) sh.v[t] = stepq_row_scale(stepq_bits_f32(amax.v[t]), QMAX);
        ln_store_if(ln_eq(l & 1, 0), (uint16_t*)P, w * RW + row, sh);
        lv<float> rinv;   // rc_rows_encode_scaled's: one reciprocal a row
        LN_EACH(t) {
            const float s = stepq_f16_to_f32((uint16_t)sh.v[t]);
            rinv.v[t] = s > 0.0f ? 1.0f / s : 0.0f;
        }
        lv<uint32_t> code[WORDS];
        for (int k = 0; k < WORDS; k++) code[k] = ln_all(0u);
        for (int i = 0; i < RW; i++) {
            const lv<float> ri = ln_bcast(rinv, rows_lane_of(i));
            for (int c = 0; c < CW; c++) {
                // stepq_code: clamp, round half to even by the magic; the low B bits of the sum's
                // bits are the code in two's complement
                const lv<uint32_t> z = ln_bits(ln_clamp(x[i][c] * ri, QMAX) + LN_MAGIC) & (uint32_t)((1u << B) - 1u);
                const int p = CW * B * i + B * c, wd = p / 32, s = p % 32;
                code[wd] = code[wd] | (z << s);
                if (s + B > 32) code[wd + 1] = code[wd + 1] | (z >> (32 - s));
            }
        }
        uint32_t* W = (uint32_t*)P;
        for (int k = 0; k < CHUNKS; k++) ln_store4(W, chunk0(w, l) + k * LN_WARP * 4, &code[4 * k]);
    }
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
LN void lanes_head(const lanes_args* a, int h, float* sh) {
    const lv<int> l = ln_lane(), w = ln_warp();
    uint8_t* P = a->P + (size_t)h * a->stride;
    const float* rec = a->in + (size_t)h * a->R;
    typename F::raw raw;
    F::fetch(&raw, P, w, l);
    lv<float> q[RW], k[RW], d[RW], v[CW];
    for (int i = 0; i < RW; i += 4) {
        ln_load4(&q[i], rec, w * RW + i);
        ln_load4(&k[i], rec + LK, w * RW + i);
        ln_load4(&d[i], rec + 3 * LK + LV, w * RW + i);
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
    F::encode(P, x, w, l);
}

template <class F>
__global__ void __launch_bounds__(LN_THREADS, 2) lanes_kernel(lanes_args a) {
    __shared__ __align__(16) float sh[LN_SHARED];
    lanes_head<F>(&a, (int)blockIdx.x, sh);
}

// ---------------------------------------------------------------------------------------------
// the formats, the launches

// X(width, trait) for each format the kernels are specialised for; width 32: the FP32 cast
#define LANES_FORMATS(X) X(32, fmt_fp32) X(8, fmt_rows<8>) X(6, fmt_rows<6>) X(4, fmt_rows<4>)

// the width a format is specialised at, or 0: none
static int lanes_width(const stepq_format* f) {
    if (stepq_format_exact(f)) return 32;
    const int w = f->width;
    const int uniform = f->family->id == STEPQ_FAMILY_ROWS && f->needs == STEPQ_NEEDS_NOTHING && !f->replay;
    return uniform && (w == 8 || w == 6 || w == 4) ? w : 0;
}

int lanes_takes(const stepq_format* f, int K, int V) { return lanes_width(f) && K == LK && V == LV; }

int lanes_supports(const stepq_format* f, int K, int V) {
    if (lanes_takes(f, K, V)) return STEPQ_OK;
    stepq_error("format %s on %d x %d heads: the lane kernels take fp32, int8, int6 and int4 on %d x %d heads",
                f->name, K, V, LK, LV);
    return STEPQ_ERR;
}

template <class F>
static void lanes_run(const lanes_args* a, int n, cudaStream_t st, int emu) {
    if (!emu) {
        lanes_kernel<F><<<n, LN_THREADS, 0, st>>>(*a);
        cudaCheck(cudaGetLastError());
        return;
    }
    float* sh = (float*)mallocCheck(sizeof(float) * LN_SHARED);
    for (int h = 0; h < n; h++) lanes_head<F>(a, h, sh);
    free(sh);
}

void lanes_launch(const stepq_format* f, const lanes_args* a, int n, cudaStream_t st, int emu) {
#define LANES_RUN_(width, T) if (lanes_width(f) == width) lanes_run<T>(a, n, st, emu);
    LANES_FORMATS(LANES_RUN_)
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
#define LANES_ATTR_(width, T) if (lanes_width(f) == width) lanes_attr<T>(attr, blocks_per_sm);
    LANES_FORMATS(LANES_ATTR_)
}

void lanes_permute(uint8_t* dst, const uint8_t* src, const stepq_format* f, int to_lanes) {
    const int b = lanes_width(f);
    if (b == 32) {
        memcpy(dst, src, sizeof(float) * LK * LV);
        return;
    }
    const size_t row = STEPQ_ROW_BYTES(b, LV), piece = (size_t)b / 2, tile = (size_t)RW * LV * b / 8;
    for (int i = 0; i < LK; i++) {
        const size_t rs = (size_t)i * row, ls = 2 * (size_t)i;  // the scale: rows, lanes
        memcpy(to_lanes ? dst + ls : dst + rs, to_lanes ? src + rs : src + ls, 2);
        for (int l = 0; l < LN_WARP; l++)
            for (size_t e = 0; e < piece; e++) {
                const size_t p = (size_t)(i % RW) * piece + e;  // byte p of lane l's stream
                const size_t lo = 2 * LK + (size_t)(i / RW) * tile + (p / 16 * LN_WARP + l) * 16 + p % 16;
                const size_t ro = rs + 2 + l * piece + e;
                dst[to_lanes ? lo : ro] = src[to_lanes ? ro : lo];
            }
    }
}

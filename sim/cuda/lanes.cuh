// lanes.cuh: kernels written lane by lane (method 6.5), compiled twice: as CUDA device code,
// where a per-lane value is the register of one thread, and as host code, where it is an array
// over the block's LN_THREADS threads and every operation runs for all of them before the next
// one starts: the host runs the block in lockstep. The warp collectives (shuffles, a vote) and
// the block barrier are small functions with a host implementation, so the kernel body that a
// GPU runs is the body CI runs on the CPU.
//
// What the host run shows and what it cannot: lockstep is the semantics of a warp (every lane
// executes each statement, a shuffle reads the partner's value of that statement); for the
// block it is stronger than a GPU's (a store is seen by every later load of any warp), so a
// missing barrier goes unnoticed here, as do races, launch limits and the device compiler's
// arithmetic (tests/gpu/test_cuda_parity compares the device with this emulation byte for byte).
// Control flow that differs between lanes is written as selects and masked stores (ln_sel,
// ln_store_if): branches are on values every lane of the block shares.
//
// Legend: a lane value lv<T> holds one T per thread; T a plain type (float, uint32_t, int).
#ifndef STEPQ_LANES_CUH
#define STEPQ_LANES_CUH

#include <stdint.h>
#include <string.h>

extern "C" {
#include "../../base/common.h"
#include "../../quant/numerics.h"
}

#define LN static __host__ __device__ inline
#define LN_WARP 32
#define LN_THREADS 256                      // threads of a block: 8 warps
#define LN_WARPS (LN_THREADS / LN_WARP)

#ifdef __CUDA_ARCH__
#define LN_N 1                              // a thread holds its own lane's value
#else
#define LN_N LN_THREADS                     // the host holds every thread's
#endif
#define LN_EACH(t) for (int t = 0; t < LN_N; t++)
// a loop the device compiler must unroll (its trip count a constant): where the body branches,
// as quant/numerics.h's FP16 conversions do, it may not by itself, and then indexes the lane's
// registers through local memory
#ifdef __CUDA_ARCH__
#define LN_UNROLL _Pragma("unroll")
#else
#define LN_UNROLL
#endif

template <class T>
struct lv {
    T v[LN_N];
};
// T, where a scalar beside a lane value takes the lane value's type (not deduced from it)
template <class T>
struct ln_same {
    typedef T type;
};
#define LN_S(T) typename ln_same<T>::type

// a value every lane holds alike
template <class T>
LN lv<T> ln_all(T x) {
    lv<T> r;
    LN_EACH(t) r.v[t] = x;
    return r;
}

// the thread's index in the block, its lane in the warp, its warp
LN lv<int> ln_tid() {
    lv<int> r;
#ifdef __CUDA_ARCH__
    r.v[0] = (int)threadIdx.x;
#else
    LN_EACH(t) r.v[t] = t;
#endif
    return r;
}
LN lv<int> ln_lane() {
    lv<int> r = ln_tid();
    LN_EACH(t) r.v[t] &= LN_WARP - 1;
    return r;
}
LN lv<int> ln_warp() {
    lv<int> r = ln_tid();
    LN_EACH(t) r.v[t] /= LN_WARP;
    return r;
}

// ---------------------------------------------------------------------------------------------
// element-wise arithmetic (IEEE operations of the type; nothing contracted: CMake passes
// --fmad=false and -ffp-contract=off, so host and device round alike)

#define LN_BINOP(op)                                            \
    template <class T>                                          \
    LN lv<T> operator op(lv<T> a, lv<T> b) {                    \
        LN_EACH(t) a.v[t] = a.v[t] op b.v[t];                   \
        return a;                                               \
    }                                                           \
    template <class T>                                          \
    LN lv<T> operator op(lv<T> a, LN_S(T) b) {                        \
        LN_EACH(t) a.v[t] = a.v[t] op b;                        \
        return a;                                               \
    }                                                           \
    template <class T>                                          \
    LN lv<T> operator op(LN_S(T) a, lv<T> b) {                        \
        LN_EACH(t) b.v[t] = a op b.v[t];                        \
        return b;                                               \
    }
LN_BINOP(+)
LN_BINOP(-)
LN_BINOP(*)
LN_BINOP(/)
LN_BINOP(&)
LN_BINOP(|)
LN_BINOP(^)
#undef LN_BINOP

template <class T>
LN lv<T> operator<<(lv<T> a, int s) {
    LN_EACH(t) a.v[t] <<= s;
    return a;
}
template <class T>
LN lv<T> operator>>(lv<T> a, int s) {
    LN_EACH(t) a.v[t] >>= s;
    return a;
}
// 1 where a > b, else 0
template <class T>
LN lv<int> ln_gt(lv<T> a, LN_S(T) b) {
    lv<int> r;
    LN_EACH(t) r.v[t] = a.v[t] > b;
    return r;
}
template <class T>
LN lv<int> ln_eq(lv<T> a, LN_S(T) b) {
    lv<int> r;
    LN_EACH(t) r.v[t] = a.v[t] == b;
    return r;
}
// c ? a : b, lane by lane
template <class T>
LN lv<T> ln_sel(lv<int> c, lv<T> a, lv<T> b) {
    LN_EACH(t) a.v[t] = c.v[t] ? a.v[t] : b.v[t];
    return a;
}
template <class T>
LN lv<T> ln_max(lv<T> a, lv<T> b) {
    LN_EACH(t) a.v[t] = a.v[t] > b.v[t] ? a.v[t] : b.v[t];
    return a;
}
// x clamped to [-m, m] (numerics.h's stepq_code order: the low bound first)
LN lv<float> ln_clamp(lv<float> x, float m) {
    LN_EACH(t) {
        float a = x.v[t] < -m ? -m : x.v[t];
        x.v[t] = a > m ? m : a;
    }
    return x;
}
// exp(g) rounded to float, computed in double as the same IEEE operations on the host and the
// device (so the emulation gives the device's bits): g = n ln2 + r, |r| <= ln2 / 2, by Cody and
// Waite's two-part ln2 (n ln2_hi exact: ln2_hi has 32 significant bits, |n| <= 174), e^r by its
// Taylor polynomial to degree 13 (remainder below 1e-17), 2^n from its bits, one rounding to
// float at the end. So it is the correctly rounded exp(g) except where exp(g) lies within about
// 1e-15 (relative) of a float rounding boundary; test_cuda_lanes compares it with the C
// library's expf over a sweep of gates (method 6.5's contract allows an ulp)
LN float ln_expf1(float g) {
    if (!(g == g)) return g;
    const double x = g < -120.0f ? -120.0 : g > 100.0f ? 100.0 : (double)g;
    const double magic = 6755399441055744.0;  // 1.5 * 2^52: x + it rounds x to an integer
    const double n = (x * 1.4426950408889634 + magic) - magic;
    const double r = (x - n * 6.93147180369123816490e-01) - n * 1.90821492927058770002e-10;
    double p = 1.0 / 6227020800.0;            // 1 / 13!
    const double fact[13] = {479001600.0, 39916800.0, 3628800.0, 362880.0, 40320.0, 5040.0, 720.0,
                             120.0, 24.0, 6.0, 2.0, 1.0, 1.0};  // 12! .. 0!
    for (int k = 0; k < 13; k++) p = p * r + 1.0 / fact[k];
    const uint64_t two_n = (uint64_t)((int64_t)n + 1023) << 52;
    double scale;
    memcpy(&scale, &two_n, 8);
    return (float)(p * scale);
}
LN lv<float> ln_expf(lv<float> g) {
    LN_EACH(t) g.v[t] = ln_expf1(g.v[t]);
    return g;
}

// a float's bits and back
LN lv<uint32_t> ln_bits(lv<float> x) {
    lv<uint32_t> r;
    LN_EACH(t) r.v[t] = stepq_f32_bits(x.v[t]);
    return r;
}
LN lv<float> ln_float(lv<uint32_t> u) {
    lv<float> r;
    LN_EACH(t) r.v[t] = stepq_bits_f32(u.v[t]);
    return r;
}
// f(x) lane by lane, for a rule of quant/numerics.h applied once a row
#define LN_MAP(out, f, x) LN_EACH(t_) (out).v[t_] = f((x).v[t_])

// ---------------------------------------------------------------------------------------------
// memory: p[i] per lane (a gather where the lanes' i differ); 4 at a time from 16-byte aligned
// addresses (one vector load or store a lane on the device)

template <class T>
LN lv<T> ln_load(const T* p, lv<int> i) {
    lv<T> r;
    LN_EACH(t) r.v[t] = p[i.v[t]];
    return r;
}
// out[0..3] <- p[i .. i+3]; i a multiple of 4
template <class T>
LN void ln_load4(lv<T>* out, const T* p, lv<int> i) {
    static_assert(sizeof(T) == 4, "16-byte vectors of 4-byte elements");
    LN_EACH(t) {
#ifdef __CUDA_ARCH__
        const uint4 q = *(const uint4*)(p + i.v[t]);
        const uint32_t w[4] = {q.x, q.y, q.z, q.w};
        for (int c = 0; c < 4; c++) memcpy(&out[c].v[t], &w[c], 4);
#else
        for (int c = 0; c < 4; c++) out[c].v[t] = p[i.v[t] + c];
#endif
    }
}
template <class T>
LN void ln_store4_if(lv<int> m, T* p, lv<int> i, const lv<T>* x) {
    static_assert(sizeof(T) == 4, "16-byte vectors of 4-byte elements");
    LN_EACH(t) {
        if (!m.v[t]) continue;
#ifdef __CUDA_ARCH__
        uint32_t w[4];
        for (int c = 0; c < 4; c++) memcpy(&w[c], &x[c].v[t], 4);
        *(uint4*)(p + i.v[t]) = make_uint4(w[0], w[1], w[2], w[3]);
#else
        for (int c = 0; c < 4; c++) p[i.v[t] + c] = x[c].v[t];
#endif
    }
}
template <class T>
LN void ln_store4(T* p, lv<int> i, const lv<T>* x) {
    ln_store4_if(ln_all(1), p, i, x);
}
// p[i] <- x where m is set, converted to the element type
template <class T, class U>
LN void ln_store_if(lv<int> m, T* p, lv<int> i, lv<U> x) {
    LN_EACH(t) if (m.v[t]) p[i.v[t]] = (T)x.v[t];
}

// ---------------------------------------------------------------------------------------------
// the collectives: every lane of the warp takes part

// each lane <- the value x has on lane src (of its own warp; src < 32, a lane's own choice)
template <class T>
LN lv<T> ln_shfl(lv<T> x, lv<int> src) {
#ifdef __CUDA_ARCH__
    x.v[0] = __shfl_sync(0xffffffffu, x.v[0], src.v[0]);
    return x;
#else
    lv<T> r;
    LN_EACH(t) r.v[t] = x.v[(t & ~(LN_WARP - 1)) | src.v[t]];
    return r;
#endif
}
// the butterfly's partner (lane xor m) and the broadcast of one lane, as ln_shfl
template <class T>
LN lv<T> ln_shfl_xor(lv<T> x, int m) {
    return ln_shfl(x, ln_lane() ^ m);
}
template <class T>
LN lv<T> ln_bcast(lv<T> x, int src) {
    return ln_shfl(x, ln_all(src));
}
// each lane <- 1 if p is non-zero on any lane of its warp
LN lv<int> ln_any(lv<int> p) {
#ifdef __CUDA_ARCH__
    p.v[0] = __any_sync(0xffffffffu, p.v[0]);
    return p;
#else
    lv<int> r;
    for (int w = 0; w < LN_WARPS; w++) {
        int a = 0;
        for (int l = 0; l < LN_WARP; l++) a |= p.v[w * LN_WARP + l] != 0;
        for (int l = 0; l < LN_WARP; l++) r.v[w * LN_WARP + l] = a;
    }
    return r;
#endif
}
// a value the caller knows every lane of the block holds alike (a branch may take it); the
// host checks that they do
LN int ln_uniform(lv<int> x) {
#ifndef __CUDA_ARCH__
    LN_EACH(t) stepq_assert(x.v[t] == x.v[0]);
#endif
    return x.v[0];
}
// the block's barrier (the host's lockstep already orders every statement)
LN void ln_sync() {
#ifdef __CUDA_ARCH__
    __syncthreads();
#endif
}

#endif

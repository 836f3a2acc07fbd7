// matvec_impl.h: the language model's matrix products (method 7), y[s] = W x[s] for a batch of
// n vectors, written once and instantiated for REAL (float or double, x and y; W is float32):
// by sim/lm.c for the float64 check, and by the CPU backends (sim/kernels.c, once per
// instruction set; sim/backend.c for the reference) for float, which the model's float32
// forward steps through (stepq_backend.matvec). Each dot product runs in 16 fixed lanes (lane l
// takes the elements l, l + 16, ...; a vector of GCC's vector extension, as wide as the
// instruction set makes it) summed in a fixed order, multiply then add (ISO C: no
// contraction), so every instruction set gives the same bits and a vector's product does not
// depend on the batch. A row of W is read once for the batch, and four rows' sums run side by
// side (four independent chains of additions, where one row's chain bound the loop), while the
// next four rows of W are prefetched. With AVX-512, where 16 lanes are one register, two vectors
// of the batch run together (eight chains, each load of W used twice) and the four rows' lanes
// are summed side by side in the registers (sum4: the same additions in the same order as one
// row's); narrower instruction sets take the lanes a native vector at a time. Against the single loop over 16-lane vectors this replaced (the shipped KDA
// model's shapes, batches of 1, 3 and 16, one thread, alternating passes, every product
// bit-identical): AVX-512 0.76-0.79x the time, AVX2 0.35-0.45x, SSE4.2 0.82-0.86x.
//
// Needs: REAL, MATVEC_FN (the function's name), MATVEC_LINKAGE.

#define MV_CAT2(a, b) a##b
#define MV_CAT(a, b) MV_CAT2(a, b)
#define MV_LANES MV_CAT(MATVEC_FN, _lanes)  // 16 REALs
#define MV_W16 MV_CAT(MATVEC_FN, _w16)      // 16 floats
typedef REAL MV_LANES __attribute__((vector_size(16 * sizeof(REAL))));
typedef float MV_W16 __attribute__((vector_size(64)));
#define MV_8 MV_CAT(MATVEC_FN, _8)
#define MV_4 MV_CAT(MATVEC_FN, _4)
typedef REAL MV_8 __attribute__((vector_size(8 * sizeof(REAL))));
typedef REAL MV_4 __attribute__((vector_size(4 * sizeof(REAL))));

// v (a vector of type VT) <- the floats at w (as many, type FT) as REALs; the 16 weights at w
// (macros: a function returning a vector this wide changes the ABI on the narrower instruction
// sets)
#define MV_CVLOAD(v, w, FT, VT)                \
    do {                                       \
        FT f_;                                 \
        memcpy(&f_, (w), sizeof f_);           \
        (v) = __builtin_convertvector(f_, VT); \
    } while (0)
#define MV_WLOAD(v, w) MV_CVLOAD(v, w, MV_W16, MV_LANES)

#if defined(__AVX512F__)
#define MV_WIDE 1  // 16 lanes of float are one register
// 4 rows' 16 lanes each (a[r]) summed as the single row's tail below sums them (lane l with
// l + 8, then l + 4, then h4[0] + h4[2] and h4[1] + h4[3], then those two), the four rows side by
// side in the vectors
static inline void MV_CAT(MATVEC_FN, _sum4)(REAL* y, MV_LANES a0, MV_LANES a1, MV_LANES a2, MV_LANES a3) {
    const MV_LANES t01 = __builtin_shufflevector(a0, a1, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23) +
                         __builtin_shufflevector(a0, a1, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
    const MV_LANES t23 = __builtin_shufflevector(a2, a3, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23) +
                         __builtin_shufflevector(a2, a3, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
    const MV_LANES u = __builtin_shufflevector(t01, t23, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27) +
                       __builtin_shufflevector(t01, t23, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
    const MV_8 v = __builtin_shufflevector(u, u, 0, 1, 4, 5, 8, 9, 12, 13) + __builtin_shufflevector(u, u, 2, 3, 6, 7, 10, 11, 14, 15);
    const MV_4 w = __builtin_shufflevector(v, v, 0, 2, 4, 6) + __builtin_shufflevector(v, v, 1, 3, 5, 7);
    memcpy(y, &w, sizeof w);
}

// rows o .. o + 3 of W (w[r]: row o + r, n16 = n_in a multiple of 16) for two vectors of the
// batch at once, xs into ys + o and xt into yt + o: eight chains, each load of W used twice
static inline void MV_CAT(MATVEC_FN, _pair)(REAL* ys, REAL* yt, const float* const* w, const REAL* xs,
                                            const REAL* xt, int n16) {
    MV_LANES a[4] = {{0}}, b[4] = {{0}};
    for (int i = 0; i < n16; i += 16) {
        MV_LANES xv, xw, wv[4];
        memcpy(&xv, xs + i, sizeof xv);
        memcpy(&xw, xt + i, sizeof xw);
        for (int r = 0; r < 4; r++) MV_WLOAD(wv[r], w[r] + i);
        for (int r = 0; r < 4; r++) a[r] += wv[r] * xv, b[r] += wv[r] * xw;
    }
    MV_CAT(MATVEC_FN, _sum4)(ys, a[0], a[1], a[2], a[3]);
    MV_CAT(MATVEC_FN, _sum4)(yt, b[0], b[1], b[2], b[3]);
}
#else
#define MV_WIDE 0
// the 16 lanes as native vectors of MV_PER (16 or 32 bytes), a chunk of lanes at a time: GCC
// keeps a 16-lane vector wider than the registers in memory, at a fifth of the speed (AVX2)
#define MV_N MV_CAT(MATVEC_FN, _n)
#define MV_NF MV_CAT(MATVEC_FN, _nf)
#if defined(__AVX__)
typedef REAL MV_N __attribute__((vector_size(32)));
#else
typedef REAL MV_N __attribute__((vector_size(16)));
#endif
#define MV_PER ((int)(sizeof(MV_N) / sizeof(REAL)))
typedef float MV_NF __attribute__((vector_size(sizeof(MV_N) / sizeof(REAL) * sizeof(float))));
#define MV_NLOAD(v, w) MV_CVLOAD(v, w, MV_NF, MV_N)
#endif

// the rows of W after row o + 3 (up to four) on their way into the cache while rows o .. o + 3
// are used
static inline void MV_CAT(MATVEC_FN, _prefetch)(const float* W, int o, int n_out, int n_in) {
    if (o + 4 >= n_out) return;
    const char* nx = (const char*)(W + (size_t)(o + 4) * n_in);
    const size_t bytes = sizeof(float) * (size_t)n_in * (size_t)(n_out - o - 4 < 4 ? n_out - o - 4 : 4);
    for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch(nx + b);
}

// y[s] (n_out) <- W (n_out, n_in) x[s] for each of the n vectors
MATVEC_LINKAGE void MATVEC_FN(REAL* const* y, const float* W, const REAL* const* x, int n, int n_out, int n_in) {
    const int n16 = n_in / 16 * 16;
    for (int o = 0; o < n_out; o += 4) {
        const int rows = n_out - o < 4 ? n_out - o : 4;
        const float* w[4];
        for (int r = 0; r < 4; r++) w[r] = W + (size_t)(o + (r < rows ? r : 0)) * n_in;
        MV_CAT(MATVEC_FN, _prefetch)(W, o, n_out, n_in);
        int s = 0;
#if MV_WIDE
        if (rows == 4 && n16 == n_in)
            for (; s + 2 <= n; s += 2) MV_CAT(MATVEC_FN, _pair)(y[s] + o, y[s + 1] + o, w, x[s], x[s + 1], n16);
#endif
        for (; s < n; s++) {
            const REAL* xs = x[s];
            REAL lane[4][16];
#if MV_WIDE
            MV_LANES a[4] = {{0}};
            for (int i = 0; i < n16; i += 16) {
                MV_LANES xv, wv[4];
                memcpy(&xv, xs + i, sizeof xv);
                for (int r = 0; r < 4; r++) MV_WLOAD(wv[r], w[r] + i);
                for (int r = 0; r < 4; r++) a[r] += wv[r] * xv;
            }
            if (rows == 4 && n16 == n_in) {
                MV_CAT(MATVEC_FN, _sum4)(y[s] + o, a[0], a[1], a[2], a[3]);
                continue;
            }
            memcpy(lane, a, sizeof lane);
#else
            for (int c = 0; c < 16; c += MV_PER) {  // lanes c .. c + MV_PER - 1
                MV_N a[4] = {{0}};
                for (int i = c; i < n16; i += 16) {
                    MV_N xv, wv[4];
                    memcpy(&xv, xs + i, sizeof xv);
                    for (int r = 0; r < 4; r++) MV_NLOAD(wv[r], w[r] + i);
                    for (int r = 0; r < 4; r++) a[r] += wv[r] * xv;
                }
                for (int r = 0; r < 4; r++) memcpy(lane[r] + c, &a[r], sizeof a[r]);
            }
#endif
            // the elements past the last 16 into their lanes, then the lanes summed pairwise (8 + 8,
            // 4 + 4, 2 + 2, 1 + 1: lane l with lane l + h)
            for (int r = 0; r < rows; r++) {
                for (int i = n16; i < n_in; i++) lane[r][i & 15] += (REAL)w[r][i] * xs[i];
                for (int h = 8; h >= 1; h /= 2)
                    for (int l = 0; l < h; l++) lane[r][l] += lane[r][l + h];
                y[s][o + r] = lane[r][0];
            }
        }
    }
}

#undef MV_WLOAD
#undef MV_CVLOAD
#undef MV_WIDE
#undef MV_N
#undef MV_NF
#undef MV_PER
#undef MV_NLOAD
#undef MV_8
#undef MV_4
#undef MV_LANES
#undef MV_W16
#undef MV_CAT
#undef MV_CAT2

// format.h: the state-format table (method 6.2). Every way of storing a head's state is a row
// of stepq_formats[], written as data: a name, the bits a paper quotes, the family that
// encodes it, what it needs from a calibration plan, and the family's own parameters.
//
// Legend: K = d_k (key channels, rows), V = d_v (value channels, columns). A head's state
// X is K-first: X[i*V + j] is key row i, value column j (method 1).
//
// A format turns X (K,V) float32 into packed bytes and back. Bits are accounted from the
// packed bytes (packed_bytes * 8 / (K*V)), never from a formula, so overhead is visible.
// Calibrated formats read their per-row widths and row-influence factors from a
// stepq_head_plan (plan.h; stepq_head_plan_for below); the others ignore it. Layouts: layout.h;
// per-element rules: numerics.h. Tests loop over stepq_formats[], so a new row is tested
// for free.
#ifndef STEPQ_FORMAT_H
#define STEPQ_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "plan.h"

typedef struct stepq_format stepq_format;

// encode: packed (packed_bytes) <- X (K,V); work: STEPQ_WORK_FLOATS(K,V) scratch. packed
// still holds the previous step's bytes on entry (freeze gating reads them). Returns
// STEPQ_OK, or STEPQ_ERR when X holds a NaN or Inf (nothing meaningful can be stored).
typedef int (*stepq_encode_fn)(uint8_t* packed, const float* X, const stepq_format* fmt,
                               const stepq_head_plan* hp, float* work, int K, int V);
// decode: X_hat (K,V) <- packed
typedef void (*stepq_decode_fn)(float* X_hat, const uint8_t* packed, const stepq_format* fmt,
                                const stepq_head_plan* hp, int K, int V);
typedef size_t (*stepq_bytes_fn)(const stepq_format* fmt, const stepq_head_plan* hp, int K, int V);

// Where a head's bits go, per element: codes, the dual-axis fit's row and column factors, the
// scales of the other formats (per-row absmax scales, NVFP4's block and head scales), FP16
// pivot rows, and stored residuals (LeapQuant). They add up to stepq_format_actual_bits.
enum {
    STEPQ_BITS_CODES,
    STEPQ_BITS_FACTORS,
    STEPQ_BITS_SCALES,
    STEPQ_BITS_PIVOTS,
    STEPQ_BITS_RESIDUAL,
    STEPQ_BITS_RING,      // the inputs a replay format keeps to re-encode every L steps
    STEPQ_N_BITS
};
typedef void (*stepq_breakdown_fn)(double* out /*(STEPQ_N_BITS)*/, const stepq_format* fmt,
                                   const stepq_head_plan* hp, int K, int V);
// off (K) <- where each key row's bytes start in the packed head (for the row-wise kernels)
typedef void (*stepq_row_offsets_fn)(uint32_t* off, const stepq_format* fmt,
                                     const stepq_head_plan* hp, int K, int V);

#define STEPQ_WORK_FLOATS(K, V) (3 * (size_t)(K) * (V) + 8 * ((size_t)(K) + (size_t)(V)))

// A family: what its formats share (ggml's type traits). One file per family in quant/.
//
// The families, listed once: X(A, ID, name) for each, in the order of their ids. The ids, the
// per-family codecs' dispatch (STEPQ_DISPATCH_FAMILY) and the fused CPU and CUDA kernels'
// specialisations are generated from this list; a family added here that lacks a codec in
// quant/famrows.h or sim/cuda/blockprog.cuh does not compile. name: the lower-case name its
// codecs take (stepq_family_<name>, the CUDA block programs' bp_<name>_*).
#define STEPQ_FAMILIES(X, A)                                                                 \
    X(A, CAST, cast)                                                                         \
    X(A, ROWS, rows)                                                                         \
    X(A, DAMP, damp)                                                                         \
    X(A, DUAL, dual)                                                                         \
    X(A, NVFP4, nvfp4)                                                                       \
    X(A, LEAP, leap)                                                                         \
    X(A, FP8TILE, fp8tile)                                                                   \
    X(A, SR, sr)
#define STEPQ_FAMILY_ID_(A, ID, name) STEPQ_FAMILY_##ID,
enum { STEPQ_FAMILIES(STEPQ_FAMILY_ID_, ~) STEPQ_N_FAMILIES };
// STEPQ_DISPATCH_FAMILY(id, F): the statement F(fam, name) for the family whose id is id, fam
// its id as a constant (so that an inlined function taking it is specialised for the family);
// nothing for an id that is no family's. The only switch on a family id outside quant/'s own
// codecs goes through it.
#define STEPQ_DISPATCH_CASE_(F, ID, name) \
    case STEPQ_FAMILY_##ID: F(STEPQ_FAMILY_##ID, name); break;
#define STEPQ_DISPATCH_FAMILY(id, F) \
    switch (id) {                    \
        STEPQ_FAMILIES(STEPQ_DISPATCH_CASE_, F)   \
    default: break;                  \
    }
typedef struct {
    int id;                 // STEPQ_FAMILY_* (STEPQ_FAMILIES): what the codecs' dispatch takes
    const char* name;
    stepq_bytes_fn packed_bytes;
    stepq_encode_fn encode;
    stepq_decode_fn decode;
    stepq_breakdown_fn breakdown;
    stepq_row_offsets_fn row_offsets;
    int v_multiple;  // d_v must be a multiple of this (the packing group, block or row group)
    int v_pow2;      // d_v must be a power of two (a Hadamard rotation along V)
} stepq_family;

extern const stepq_family stepq_family_cast;   // fp32, fp16, bf16 (cast.c)
extern const stepq_family stepq_family_rows;   // int-b, time-b: absmax per key row (rows.c)
extern const stepq_family stepq_family_damp;   // DAMP: FP16 rows + Hadamard INT8 rows (damp.c)
extern const stepq_family stepq_family_dual;   // dsq, space, stepquant, mlife (dual.c)
extern const stepq_family stepq_family_nvfp4;  // NVFP4 (nvfp4.c)
extern const stepq_family stepq_family_leap;   // LeapQuant error feedback (leap.c)
extern const stepq_family stepq_family_fp8tile;  // FP8 E4M3, a scale per 32-row tile (fp8tile.c)
extern const stepq_family stepq_family_sr;     // stochastic rounding: int8, fp8, fp16 (sr.c)

// The head plan a format encodes head h of plan p with: rows at the format's width, or from
// the plan's table for its scheme and budget, or DAMP's FP16 rows; w from the plan. p may be
// NULL for formats that need nothing from a plan (STEPQ_ERR, no message, if f needs one).
// rows: (K) storage.
int stepq_head_plan_for(stepq_head_plan* hp, uint8_t* rows, const stepq_format* f,
                        const stepq_plan* p, int h, int kind, int K);

// What a format needs from a plan.
enum {
    STEPQ_NEEDS_NOTHING = 0,  // every row at the format's width, w = 1
    STEPQ_NEEDS_W,            // every row at the format's width, w from the plan
    STEPQ_NEEDS_TABLE,        // widths from the plan's table `alloc` at `budget`, w
    STEPQ_NEEDS_DAMP,         // FP16 rows from the plan's DAMP mask, the rest at `width`
};

// DAMP keeps this share of key rows in FP16 and the rest at 8 bits + a row scale, so that a
// head averages the 9.9 bits its paper quotes (method 6.2): 22.5% of the rows.
#define STEPQ_DAMP_BITS 9.9
#define STEPQ_DAMP_FP16_SHARE ((STEPQ_DAMP_BITS - 8.125) / (16.0 - 8.125))

// cast and sr families: the element type
enum { STEPQ_ELEM_FP32, STEPQ_ELEM_FP16, STEPQ_ELEM_BF16, STEPQ_ELEM_INT8, STEPQ_ELEM_FP8 };

struct stepq_format {
    const char* name;       // as written in configs and on the command line
    const char* summary;    // one line for `stepq formats`
    double nominal_bits;    // the bits a paper would quote
    const stepq_family* family;
    int needs;              // STEPQ_NEEDS_*
    int width;              // code width of the rows (NOTHING, W, DAMP); cast: element bits
    int budget;             // NEEDS_TABLE: the budget (4 or 6) of the plan's table
    int alloc;              // NEEDS_TABLE: the allocation scheme (STEPQ_ALLOC_*)
    struct { int element; } cast;        // STEPQ_ELEM_FP32, _FP16, _BF16
    struct { int element; } sr;          // STEPQ_ELEM_INT8, _FP8, _FP16
    struct { int dsq; } dual;            // 1: Q-Mamba's DSQ form (w = 1, no refit, method 6.2)
    struct {
        float alpha;        // error-feedback weight of the residual
        int residual_bits;  // width of the stored residual; 32 = the FP32 oracle
        float tau;          // freeze threshold (0: never freeze)
    } leap;
    // The protocol variant of re-encoding only every `replay` steps from an exact checkpoint
    // plus a ring of the last `replay` inputs (vLLM's replay, LeapQuant's window; method 2):
    // between re-encodes the state evolves exactly. 0: every step. The ring (BF16 q, k, v, g,
    // beta of each step) is counted in the bytes.
    int replay;
};

extern const stepq_format stepq_formats[];
extern const int stepq_n_formats;

// NULL when no format has that name
const stepq_format* stepq_format_find(const char* name);
// 1 if the format cannot run without a plan (STEPQ_NEEDS_* other than NOTHING)
static inline int stepq_format_needs_plan(const stepq_format* f) {
    return f->needs != STEPQ_NEEDS_NOTHING;
}

// 1 if a format of family fam holds a state of K x V: V a multiple of its v_multiple, a power of
// two where it rotates, both within STEPQ_MAX_DIM
int stepq_family_holds(const stepq_family* fam, int K, int V);
// STEPQ_OK if format f holds a K x V state; else STEPQ_ERR with a message naming the format
// and what it needs. stepq_family_fits: the same for a family, named `what` in the message.
int stepq_format_fits(const stepq_format* f, int K, int V);
int stepq_family_fits(const stepq_family* fam, const char* what, int K, int V);

// Family traits the engines ask of a format (the CUDA engine and serving kernels, the tests):
// 1 if its encoder reads the state stored before the step (LeapQuant's freeze gate, tau > 0)
static inline int stepq_format_freeze_gated(const stepq_format* f) {
    return f->family->id == STEPQ_FAMILY_LEAP && f->leap.tau > 0;
}
// 1 for the float32 cast: the stored state is the state itself (the serving baseline)
static inline int stepq_format_exact(const stepq_format* f) {
    return f->family->id == STEPQ_FAMILY_CAST && f->cast.element == STEPQ_ELEM_FP32;
}
// 1 if its coded rows are Walsh-Hadamard rotated along V (DAMP's, but its FP16 pivots)
static inline int stepq_format_rotated(const stepq_format* f) { return f->family->id == STEPQ_FAMILY_DAMP; }
// LeapQuant's residual region (layout.h): *res <- where its residual rows start in the packed
// head, *res_row <- the bytes of one (the FP32 oracle's: V floats); 0 and 0 for other families
static inline void stepq_format_residual(size_t* res, size_t* res_row, const stepq_format* f, int K, int V) {
    *res = *res_row = 0;
    if (f->family->id != STEPQ_FAMILY_LEAP) return;
    *res = (size_t)K * STEPQ_ROW_BYTES(f->width, V);
    *res_row = f->leap.residual_bits == 32 ? (size_t)V * 4 : STEPQ_ROW_BYTES(f->leap.residual_bits, V);
}

// bytes of a replay format's ring: `replay` steps of BF16 inputs q, k (K), v (V), g (1 or K), beta
static inline size_t stepq_ring_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    return (size_t)f->replay * 2u * (2u * K + V + (size_t)stepq_kind_gates(hp->kind, K) + 1);
}
static inline size_t stepq_format_bytes(const stepq_format* f, const stepq_head_plan* hp, int K,
                                        int V) {
    return f->family->packed_bytes(f, hp, K, V) + stepq_ring_bytes(f, hp, K, V);
}
static inline int stepq_encode(uint8_t* packed, const float* X, const stepq_format* f,
                               const stepq_head_plan* hp, float* work, int K, int V) {
    return f->family->encode(packed, X, f, hp, work, K, V);
}
static inline void stepq_decode(float* X_hat, const uint8_t* packed, const stepq_format* f,
                                const stepq_head_plan* hp, int K, int V) {
    f->family->decode(X_hat, packed, f, hp, K, V);
}

// bits per element of the packed bytes of one head
double stepq_format_actual_bits(const stepq_format* fmt, const stepq_head_plan* hp, int K, int V);
// out (STEPQ_N_BITS) <- where one head's bits go; the parts sum to the actual bits
void stepq_format_breakdown(double* out, const stepq_format* fmt, const stepq_head_plan* hp,
                            int K, int V);

// Bits per element of format f averaged over the heads of plan p, and their breakdown (parts
// may be NULL). Formats that take no widths from a plan are counted on one head at their own
// width; NaN (parts NaN) for a format whose widths come from a plan (table, DAMP) when p is NULL.
double stepq_format_plan_bits(double* parts /*(STEPQ_N_BITS)*/, const stepq_format* f,
                              const stepq_plan* p, int K, int V);

// ---------------------------------------------------------------------------------------------
// The encoders the formats share, called directly by calibration (analysis/calibrate.c) to
// measure distortions at a width, and by the families that build on them. bits: (K) widths.

// rows layout (layout.h): symmetric absmax per key row, FP16 rows at width 16; rotate: the
// Walsh-Hadamard rotation of the coded rows along V (DAMP; V a power of two)
int stepq_rows_encode(uint8_t* P, const float* X, const uint8_t* bits, int rotate, int K, int V);
void stepq_rows_decode(float* X, const uint8_t* P, const uint8_t* bits, int rotate, int K, int V);
size_t stepq_rows_bytes(const uint8_t* bits, int K, int V);
void stepq_rows_offsets(uint32_t* off, const stepq_format* f, const stepq_head_plan* hp, int K, int V);

// the dual-axis fit of method 4.2 with the widths and w of hp (dsq: Q-Mamba's DSQ form)
int stepq_dual_encode_head(uint8_t* P, const float* X, const stepq_head_plan* hp, int dsq,
                           float* work, int K, int V);
void stepq_dual_decode_head(float* X, const uint8_t* P, const stepq_head_plan* hp, int K, int V);
size_t stepq_dual_bytes_head(const stepq_head_plan* hp, int K, int V);

// ---------------------------------------------------------------------------------------------
// Bit packing of b-bit two's-complement codes (b in 2..8), n*b a multiple of 8 (pack.c): the
// generic definition, and the unrolled forms the formats use (checked against it in the tests).
void stepq_pack_codes(uint8_t* out, const int8_t* codes, size_t n, int b);
void stepq_unpack_codes(int8_t* codes, const uint8_t* in, size_t n, int b);
void stepq_pack_fast(uint8_t* out, const int8_t* codes, size_t n, int b);
void stepq_unpack_fast(int8_t* codes, const uint8_t* in, size_t n, int b);

// Shared by the format families (quant/*.c)
int stepq_all_finite(const float* X, size_t n);
void stepq_fwht(float* x, int n);  // in place, orthonormal (scaled by 1/sqrt(n)); self-inverse
// a row walk of the rows and dual layouts: codes, row factors or scales, pivots, per element
void stepq_rows_breakdown(double* out, const stepq_head_plan* hp, int dual, int K, int V);

#endif

// format.h: the state-format table. Every way of storing a head's state is a row here.
//
// Legend: K = d_k (key channels, rows), V = d_v (value channels, columns). A head's state
// X is K-first: X[i*V + j] is key row i, value column j (SPEC 1).
//
// A format turns X (K,V) float32 into packed bytes and back. Bits are accounted from the
// packed bytes (packed_bytes * 8 / (K*V)), never from a formula, so overhead is visible.
// Calibrated formats read their per-row widths and row-influence factors from a
// stepq_head_plan (plan.h) that the runner builds from a plan file; the others ignore it.
// Tests loop over stepq_formats[], so a new row is tested for free.
#ifndef STEPQ_FORMAT_H
#define STEPQ_FORMAT_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

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

#define STEPQ_WORK_FLOATS(K, V) (3 * (size_t)(K) * (V) + 8 * ((size_t)(K) + (size_t)(V)))

// What a format needs from a plan.
enum {
    STEPQ_NEEDS_NOTHING = 0,  // uniform width fmt->bits on every row, w = 1
    STEPQ_NEEDS_W,            // uniform width fmt->bits, w from the plan
    STEPQ_NEEDS_TABLE,        // widths from the plan's table fmt->alloc at budget fmt->bits, w
    STEPQ_NEEDS_DAMP,         // FP16 rows from the plan's DAMP mask, the rest 8 bits
};

struct stepq_format {
    const char* name;       // as written in configs and on the command line
    double nominal_bits;    // the bits a paper would quote
    int bits;               // code width (uniform formats) or budget (calibrated formats)
    const char* summary;    // one line for `stepq formats`
    stepq_bytes_fn packed_bytes;
    stepq_encode_fn encode;
    stepq_decode_fn decode;
    int needs;              // STEPQ_NEEDS_*
    int alloc;              // STEPQ_ALLOC_* for STEPQ_NEEDS_TABLE
    float alpha;            // leap: error-feedback weight; dual fit: unused
    int aux;                // leap: residual bits (32 = FP32 oracle); dual fit: 1 = DSQ form
    float tau;              // leap: freeze threshold (0 = never freeze)
};

extern const stepq_format stepq_formats[];
extern const int stepq_n_formats;

// NULL when no format has that name
const stepq_format* stepq_format_find(const char* name);
// bits per element of the packed bytes of one head
double stepq_format_actual_bits(const stepq_format* fmt, const stepq_head_plan* hp, int K, int V);

// Where a head's bits go, per element: codes, the dual-axis fit's row and column factors, the
// scales of the other formats (per-row absmax scales, NVFP4's block and head scales), FP16
// pivot rows, and stored residuals (LeapQuant). They add up to stepq_format_actual_bits.
enum {
    STEPQ_BITS_CODES,
    STEPQ_BITS_FACTORS,
    STEPQ_BITS_SCALES,
    STEPQ_BITS_PIVOTS,
    STEPQ_BITS_RESIDUAL,
    STEPQ_N_BITS
};
void stepq_format_breakdown(double* out /*(STEPQ_N_BITS)*/, const stepq_format* fmt,
                            const stepq_head_plan* hp, int K, int V);

// Bits per element of format f averaged over the heads of plan p, and their breakdown (parts
// may be NULL). Formats that take no widths from a plan (and every format when p is NULL) are
// counted on one head at their own width.
double stepq_format_plan_bits(double* parts /*(STEPQ_N_BITS)*/, const stepq_format* f,
                              const stepq_plan* p, int K, int V);

// A head plan with every row at `bits` and w = 1 (rows: (K) storage the plan points to).
void stepq_head_plan_uniform(stepq_head_plan* hp, uint8_t* rows, int bits, int kind, int K);
// The head plan of format f for head h of plan p (p may be NULL for formats that need
// nothing); rows: (K) storage. STEPQ_ERR (message printed) if f needs a plan and p is NULL.
int stepq_head_plan_for(stepq_head_plan* hp, uint8_t* rows, const stepq_format* f,
                        const stepq_plan* p, int h, int kind, int K);
// index of budget b in stepq_plan_budgets, or -1
int stepq_budget_index(int b);

// ---------------------------------------------------------------------------------------------
// Packed layouts (shared with the CUDA path). All multi-byte fields little-endian; codes are
// two's-complement b-bit integers in an LSB-first bit stream (b = 6: 4 codes in 3 bytes).
//
// rows (int-b, time-b, DAMP): row after row; a row of width b < 16 is
//     uint16 scale (FP16 absmax/qmax) + V*b/8 bytes of codes;
//   a row of width 16 (a pivot, or a DAMP persistent row) is V FP16 values.
//   DAMP rotates the 8-bit rows along V by the orthonormal Walsh-Hadamard transform first.
// dual (dsq, space, stepquant, mlife; SPEC 4.2):
//     uint16 c[V] (FP16 column factors; absent when every row is a pivot), then row after row:
//     width 16: V FP16 values; GDN width 2: V/32 FP16 group row factors + V/4 bytes of odd-level
//     codes (-3,-1,1,3 stored as 0..3); otherwise uint16 r_i + V*b/8 bytes of codes.
// nvfp4: float32 head scale, then per 16 consecutive values of a row one E4M3 byte and 8 bytes
//     of E2M1 codes (sign, 2 exponent bits, 1 mantissa bit; low nibble first).
// leap: the rows layout of the base state, then the residual: rows layout at aux bits, or K*V
//     float32 for the FP32 oracle.
// fp16 / bf16: uint16 [K*V]; fp32: float [K*V].
// The largest K and V a head may have: encoders keep a row or a head's row widths on the stack.
// Trace files and plans with larger heads are refused when read.
#define STEPQ_MAX_DIM 4096

#define STEPQ_QMAX(b) ((1 << ((b) - 1)) - 1)
#define STEPQ_ROW_BYTES(b, V) ((b) == 16 ? 2u * (size_t)(V) : 2u + (size_t)(V) * (b) / 8u)
#define STEPQ_GDN2_GROUP 32

// The paper's heads are 128 x 128; these sizes are facts of the layout, checked at compile time.
static_assert(128 * STEPQ_ROW_BYTES(6, 128) == 12544, "int6 head is 12544 bytes: 6.125 bits");
static_assert(128 * STEPQ_ROW_BYTES(4, 128) == 8448, "int4 head is 8448 bytes: 4.125 bits");
static_assert(128 * STEPQ_ROW_BYTES(8, 128) == 16640, "int8 head is 16640 bytes: 8.125 bits");

// Bit packing of b-bit two's-complement codes (b in 2..8), n*b a multiple of 8: the generic
// definition, and the unrolled forms the formats use (checked against it in the tests).
void stepq_pack_codes(uint8_t* out, const int8_t* codes, size_t n, int b);
void stepq_unpack_codes(int8_t* codes, const uint8_t* in, size_t n, int b);
void stepq_pack_fast(uint8_t* out, const int8_t* codes, size_t n, int b);
void stepq_unpack_fast(int8_t* codes, const uint8_t* in, size_t n, int b);

// Shared by the format families (quant/*.c); not for callers outside quant/.
int stepq_rows_encode(uint8_t* P, const float* X, const uint8_t* bits, int rotate, int K, int V);
void stepq_rows_decode(float* X, const uint8_t* P, const uint8_t* bits, int rotate, int K, int V);
size_t stepq_rows_bytes(const uint8_t* bits, int K, int V);
int stepq_all_finite(const float* X, size_t n);
void stepq_fwht(float* x, int n);  // in place, orthonormal (scaled by 1/sqrt(n)); self-inverse

#endif

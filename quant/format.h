// format.h: the state-format table. Every way of storing a head's state is a row here.
//
// Legend: K = d_k (key channels, rows), V = d_v (value channels, columns). A head's state
// X is K-first: X[i*V + j] is key row i, value column j (SPEC 1).
//
// A format turns X (K,V) float32 into packed bytes and back. Bits are accounted from the
// packed bytes (packed_bytes * 8 / (K*V)), never from a formula, so overhead is visible.
// Tests loop over stepq_formats[], so a new row is tested for free.
#ifndef STEPQ_FORMAT_H
#define STEPQ_FORMAT_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

typedef struct stepq_format stepq_format;

// encode: packed (packed_bytes) <- X (K,V). Returns STEPQ_OK, or STEPQ_ERR when X holds a
// NaN or Inf (nothing meaningful can be stored; the caller reports it).
typedef int (*stepq_encode_fn)(uint8_t* packed, const float* X, const stepq_format* fmt, int K,
                               int V);
// decode: X_hat (K,V) <- packed.
typedef void (*stepq_decode_fn)(float* X_hat, const uint8_t* packed, const stepq_format* fmt,
                                int K, int V);

struct stepq_format {
    const char* name;       // as written in configs and on the command line
    double nominal_bits;    // the bits a paper would quote (code width, no overhead)
    int bits;               // parameter of the family (code width for int-b), 0 if unused
    const char* summary;    // one line for `stepq formats`
    size_t (*packed_bytes)(const stepq_format* fmt, int K, int V);
    stepq_encode_fn encode;
    stepq_decode_fn decode;
};

extern const stepq_format stepq_formats[];
extern const int stepq_n_formats;

// NULL when no format has that name
const stepq_format* stepq_format_find(const char* name);
// bits per element of the packed bytes
double stepq_format_actual_bits(const stepq_format* fmt, int K, int V);

// ---------------------------------------------------------------------------------------------
// Packed layouts (shared with the CUDA path). All multi-byte fields little-endian.
//
// int-b (uniform symmetric per key row, SPEC 6.2):
//     uint16 scale[K]            FP16 absmax/qmax per key row
//     uint8  codes[K*V*b/8]      two's-complement b-bit codes, row after row, LSB-first bit
//                                stream (b = 6: 4 codes in 3 bytes)
// fp16 / bf16: uint16 [K*V]; fp32: float [K*V].
#define STEPQ_QMAX(b) ((1 << ((b) - 1)) - 1)
#define STEPQ_INT_PACKED_BYTES(b, K, V) ((size_t)(K) * 2u + (size_t)(K) * (V) * (b) / 8u)

// The paper's heads are 128 x 128; these sizes are facts of the layout, checked at compile time.
static_assert(STEPQ_INT_PACKED_BYTES(6, 128, 128) == 12544, "int6 head is 12544 bytes: 6.125 bits");
static_assert(STEPQ_INT_PACKED_BYTES(4, 128, 128) == 8448, "int4 head is 8448 bytes: 4.125 bits");
static_assert(STEPQ_INT_PACKED_BYTES(8, 128, 128) == 16640, "int8 head is 16640 bytes: 8.125 bits");

// Bit packing of b-bit two's-complement codes (b in 2..8), n*b a multiple of 8.
void stepq_pack_codes(uint8_t* out, const int8_t* codes, size_t n, int b);
void stepq_unpack_codes(int8_t* codes, const uint8_t* in, size_t n, int b);

#endif

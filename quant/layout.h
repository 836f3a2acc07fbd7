// layout.h: the packed layouts of the state formats as facts (method 6.2): sizes, widths and
// the compile-time checks of the sizes the paper's accounting depends on. Free of plans and
// function pointers, so that the CUDA kernels include it as they are.
//
// All multi-byte fields little-endian; codes are two's-complement b-bit integers in an
// LSB-first bit stream (b = 6: 4 codes in 3 bytes; b = 4: 2 codes a byte, low nibble first).
//
// rows (int-b, time-b, DAMP): row after row; a row of width b < 16 is
//     uint16 scale (FP16 absmax/qmax) + V*b/8 bytes of codes;
//   a row of width 16 (a pivot, or a DAMP persistent row) is V FP16 values.
//   DAMP rotates the 8-bit rows along V by the orthonormal Walsh-Hadamard transform first.
// dual (dsq, space, stepquant, mlife; method 4.2):
//     uint16 c[V] (FP16 column factors; absent when every row is a pivot), then row after row:
//     width 16: V FP16 values; GDN width 2: V/32 FP16 group row factors + V/4 bytes of odd-level
//     codes (-3,-1,1,3 stored as 0..3); otherwise uint16 r_i + V*b/8 bytes of codes.
// nvfp4: float32 head scale, then per 16 consecutive values of a row one E4M3 byte and 8 bytes
//     of E2M1 codes (sign, 2 exponent bits, 1 mantissa bit; low nibble first).
// leap: the rows layout of the base state, then the residual: rows layout at its width, or K*V
//     float32 for the FP32 oracle.
// fp16 / bf16: uint16 [K*V]; fp32: float [K*V].
#ifndef STEPQ_LAYOUT_H
#define STEPQ_LAYOUT_H

#include <assert.h>
#include <stddef.h>

// a row (or unit) kept whole in FP16: a pivot, a DAMP persistent row
#define STEPQ_PIVOT_BITS 16
// largest code magnitude of a b-bit symmetric code
#define STEPQ_QMAX(b) ((1 << ((b) - 1)) - 1)
// bytes of one row of the rows layout at width b
#define STEPQ_ROW_BYTES(b, V) ((b) == STEPQ_PIVOT_BITS ? 2u * (size_t)(V) : 2u + (size_t)(V) * (b) / 8u)
// GDN 2-bit rows: one FP16 row factor per group of this many values
#define STEPQ_GDN2_GROUP 32
// FP8 tiles: one float32 scale per this many key rows, then their E4M3 codes
#define STEPQ_FP8_TILE 32
// NVFP4: one E4M3 scale per block of this many values, then the block's E2M1 codes
#define STEPQ_NVFP4_BLOCK 16
#define STEPQ_NVFP4_BLOCK_BYTES (1 + STEPQ_NVFP4_BLOCK / 2)

// The paper's heads are 128 x 128; these sizes are facts of the layout, checked at compile time.
static_assert(128 * STEPQ_ROW_BYTES(6, 128) == 12544, "int6 head is 12544 bytes: 6.125 bits");
static_assert(128 * STEPQ_ROW_BYTES(4, 128) == 8448, "int4 head is 8448 bytes: 4.125 bits");
static_assert(128 * STEPQ_ROW_BYTES(8, 128) == 16640, "int8 head is 16640 bytes: 8.125 bits");
static_assert(128 * STEPQ_ROW_BYTES(16, 128) == 32768, "an FP16 head is 16 bits");
static_assert(4 + 128 * 128 / STEPQ_NVFP4_BLOCK * STEPQ_NVFP4_BLOCK_BYTES == 9220,
              "nvfp4 head is 9220 bytes: 4.5 bits + 32 per head");

#endif

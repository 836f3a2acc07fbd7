// pack.c: bit packing of b-bit codes (layout.h): the generic bit stream, the definition, and
// the unrolled forms of the widths the formats use, built from numerics.h's group packers.
#include <string.h>

#include "../base/common.h"
#include "format.h"
#include "numerics.h"

void stepq_pack_codes(uint8_t* out, const int8_t* codes, size_t n, int b) {
    uint32_t mask = (1u << b) - 1u;
    uint64_t acc = 0;
    int nbits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= (uint64_t)((uint8_t)codes[i] & mask) << nbits;
        nbits += b;
        while (nbits >= 8) {
            out[o++] = (uint8_t)acc;
            acc >>= 8;
            nbits -= 8;
        }
    }
    stepq_assert(nbits == 0);
}

void stepq_unpack_codes(int8_t* codes, const uint8_t* in, size_t n, int b) {
    uint32_t mask = (1u << b) - 1u, sign = 1u << (b - 1);
    uint64_t acc = 0;
    int nbits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        while (nbits < b) {
            acc |= (uint64_t)in[o++] << nbits;
            nbits += 8;
        }
        uint32_t u = (uint32_t)acc & mask;
        acc >>= b;
        nbits -= b;
        codes[i] = (int8_t)((int32_t)(u ^ sign) - (int32_t)sign);  // sign-extend b bits
    }
}

// The widths the formats use, unrolled (n a multiple of 4); the generic loops above stay the
// definition and tests/test_formats.c checks these against them.
void stepq_pack_fast(uint8_t* out, const int8_t* z, size_t n, int b) {
    switch (b) {
    case 8: memcpy(out, z, n); return;
    case 4:
        for (size_t i = 0; i < n; i += 2) out[i / 2] = stepq_pack4(z[i], z[i + 1]);
        return;
    case 6:
        for (size_t i = 0, o = 0; i < n; i += 4, o += 3) stepq_pack6(out + o, z + i);
        return;
    default: stepq_pack_codes(out, z, n, b);
    }
}

void stepq_unpack_fast(int8_t* z, const uint8_t* in, size_t n, int b) {
    switch (b) {
    case 8: memcpy(z, in, n); return;
    case 4:
        for (size_t i = 0; i < n; i += 2) stepq_unpack4(z + i, in[i / 2]);
        return;
    case 6:
        for (size_t i = 0, o = 0; i < n; i += 4, o += 3) stepq_unpack6(z + i, in + o);
        return;
    default: stepq_unpack_codes(z, in, n, b);
    }
}

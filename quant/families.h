// families.h: the encoders and decoders of each format family, for the table in format.c.
#ifndef STEPQ_FAMILIES_H
#define STEPQ_FAMILIES_H

#include "format.h"

#define FAMILY(name)                                                                          \
    int name##_encode(uint8_t* P, const float* X, const stepq_format* f,                      \
                      const stepq_head_plan* hp, float* work, int K, int V);                  \
    void name##_decode(float* X, const uint8_t* P, const stepq_format* f,                     \
                       const stepq_head_plan* hp, int K, int V);                              \
    size_t name##_bytes(const stepq_format* f, const stepq_head_plan* hp, int K, int V);

FAMILY(stepq_rowsfmt)  // int-b, time-b, DAMP (format.c)
FAMILY(stepq_dual)     // dsq, space, stepquant, mlife (dual.c)
FAMILY(stepq_nvfp4)    // nvfp4 (nvfp4.c)
FAMILY(stepq_leap)     // leap error feedback (leap.c)

// NVFP4's element and scale codes (nvfp4.c), exposed for their exhaustive tests
uint8_t stepq_e2m1_encode(float x);  // nearest, ties to even code, saturating at +-6
float stepq_e2m1_decode(uint8_t c);
uint8_t stepq_e4m3_encode(float x);  // x >= 0: nearest, ties to even, saturating at 448
float stepq_e4m3_decode(uint8_t c);

#endif

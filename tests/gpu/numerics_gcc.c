// numerics_gcc.c: quant/numerics.h's inline rules built by the C compiler (gcc), as plain
// symbols, for test_cuda_numerics to set beside the same header built by nvcc.
#include "../../quant/numerics.h"

uint16_t gcc_f32_to_f16(float f) { return stepq_f32_to_f16(f); }
uint16_t gcc_f32_to_f16_sat(float f) { return stepq_f32_to_f16_sat(f); }
float gcc_f16_to_f32(uint16_t h) { return stepq_f16_to_f32(h); }
uint16_t gcc_f32_to_bf16(float f) { return stepq_f32_to_bf16(f); }
float gcc_bf16_to_f32(uint16_t b) { return stepq_bf16_to_f32(b); }
uint16_t gcc_f16_factor(float f) { return stepq_f16_factor(f); }
float gcc_round_even(float x) { return stepq_round_even(x); }
float gcc_code(float t, float qmax) { return stepq_code(t, qmax); }
uint16_t gcc_row_scale(float amax, float qmax) { return stepq_row_scale(amax, qmax); }
float gcc_odd2_code(float t) { return stepq_odd2_code(t); }
int8_t gcc_odd2_store(float z) { return stepq_odd2_store(z); }
float gcc_odd2_load(int8_t u) { return stepq_odd2_load(u); }
uint8_t gcc_e2m1_encode(float x) { return stepq_e2m1_encode(x); }
float gcc_e2m1_decode(uint8_t c) { return stepq_e2m1_decode(c); }
uint8_t gcc_e4m3_encode(float x) { return stepq_e4m3_encode(x); }
float gcc_e4m3_decode(uint8_t c) { return stepq_e4m3_decode(c); }
int8_t gcc_sext(uint32_t u, int b) { return stepq_sext(u, b); }
uint8_t gcc_pack4(int8_t a, int8_t b) { return stepq_pack4(a, b); }
void gcc_unpack4(int8_t* z, uint8_t b) { stepq_unpack4(z, b); }
void gcc_pack6(uint8_t* out, const int8_t* z) { stepq_pack6(out, z); }
void gcc_unpack6(int8_t* z, const uint8_t* in) { stepq_unpack6(z, in); }

// serving.h: the serving step on a GPU (method 2, method 6.5; the paper's kernel): a pool of
// n heads' states stored packed in device memory (a batch of B requests x H heads), each
// decode step decoding them, applying the delta update, reading out and encoding them again.
// C API over sim/cuda/serving.cu; the library is stepq_cuda.
//
// Kernels (one block of 256 threads per head, the block programs of blockprog.cuh):
//   fused   one kernel: stage the packed head in shared memory (16-byte loads), decode it,
//           u = beta (v - (D S_hat)^T k), X_t = D S_hat + k u^T, y = X_t^T (scale q) (the
//           read-out before re-quantization, method 2), fit the factors / row scales, encode,
//           write the packed head back. Bytes: the packed head read once and written once.
//   split   the read-out first, the re-encoding off its path: kernel 1 (stream A) decodes,
//           reads out and writes y and u; kernel 2 (stream B, after kernel 1's event) decodes
//           again, applies the update with u, fits, encodes, writes back; the next step's
//           kernel 1 waits on kernel 2's event. Bytes: the packed head read twice, written once
//           (what sim/kernels.c's read and write passes do on the CPU).
//   fp32    the baseline: the float32 state read once and written once, same step.
//   lanes   the kernels written lane by lane (lanes.h; fp32, bf16, fp16, int8, int6, int4, nvfp4, fp8-tile32,
//           the dual-axis formats and time6, time4 on 128 x 128 heads): the state in registers,
//           one kernel per format; method 6.5's contract, not the CPU's bits (the formats with
//           head plans: the CPU's bits of the kernel's state; rho = 0.5 only). The pool keeps their layout; load, upload and read take and give
//           the CPU's.
// Sums over the key rows: nsplit row groups per column (1 = the CPU's order, bit-equal to the
// fused CPU step of sim/backend.h; more groups use more threads and meet method 6.5's rule).
// LeapQuant's freeze gate is not supported here (it needs the previous state beside the new).
#ifndef STEPQ_CUDA_SERVING_H
#define STEPQ_CUDA_SERVING_H

#include <stddef.h>
#include <stdint.h>

#include "../../quant/format.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { STEPQ_SERVE_FUSED = 0, STEPQ_SERVE_SPLIT = 1, STEPQ_SERVE_LANES = 2 };

struct stepq_backend;  // sim/backend.h
typedef struct stepq_serving stepq_serving;

// A pool of n heads of shape K x V in format f (fp32: the baseline kernel); head h is encoded
// with hps[h mod n_plans] (head plans as stepq_head_plan_for makes them: B requests of H heads
// share the H plans of their layer); kind: STEPQ_GDN or STEPQ_KDA (the gates); mode:
// STEPQ_SERVE_*; where: STEPQ_CUDA_DEVICE, or STEPQ_CUDA_EMULATE to run the kernels' block
// programs on the host (engine.h). STEPQ_ERR (message) for a format or shape the kernels do not
// take, or no device.
int stepq_serving_create(stepq_serving** out, const stepq_format* f, const stepq_head_plan* hps,
                         int n_plans, int kind, int n, int K, int V, int mode, int nsplit, int where);
void stepq_serving_free(stepq_serving* s);
// 1 if mode STEPQ_SERVE_LANES takes format f on K x V heads (no message), else 0
int stepq_serving_lanes_take(const stepq_format* f, int K, int V);
// 1 if format f's lane kernel encodes in the CPU's order (its stored bytes the CPU encoder's of
// the state it holds: method 6.5's bit-exact contract), 0 if it meets the tolerance
int stepq_serving_lanes_exact(const stepq_format* f);
// the lane kernels' exp of a log gate g (lanes.h's lanes_expf; for the tests)
float stepq_serving_lanes_expf(float g);

// packed bytes per head in the pool (the largest head's, rounded up to 16)
size_t stepq_serving_stride(const stepq_serving* s);
// bytes the device moves per step of the whole pool, counted from what each kernel reads and
// writes: packed states, inputs, read-outs, u between the split kernels, the head plans
double stepq_serving_bytes_moved(const stepq_serving* s);

// every head's packed state <- encode(S (n, K, V)) by the CPU encoders, uploaded
int stepq_serving_load(stepq_serving* s, const float* S);
// the pool's packed states <- m heads' packed bytes (m, stride) repeated over the pool (head h
// takes head h mod m's bytes; m a multiple of n_plans): for large pools of few states
int stepq_serving_upload(stepq_serving* s, const uint8_t* packed, int m);
// the next step's inputs of every head: q, k (n, K), v (n, V), g (n, n_gates) log gates,
// beta (n); scale the read-out scale. The decays expf(g) are taken here, on the host, by the
// CPU's stepq_decays; except in mode STEPQ_SERVE_LANES, whose kernels take them from g (lanes.h)
// and whose inputs go up asynchronously on the pool's stream, with no host synchronisation.
int stepq_serving_set_inputs(stepq_serving* s, const float* q, const float* k, const float* v,
                             const float* g, const float* beta, double scale);
// one decode step of every head (device: asynchronous, the launches only)
int stepq_serving_step(stepq_serving* s);
// waits for the steps; y (n, V) <- the last step's read-outs, packed (n, stride) <- the stored
// states (either may be NULL). STEPQ_ERR (message) when a head met a non-finite state.
int stepq_serving_read(stepq_serving* s, float* y, uint8_t* packed);
// device only: the mean wall time of `steps` steps (CUDA events around them), ms
int stepq_serving_time(stepq_serving* s, int steps, double* ms_per_step);
// what bounds the step's (first) kernel on the device: registers a thread, shared memory a
// block (static and dynamic), blocks a multiprocessor holds at once; the emulation: zeros
typedef struct {
    int regs;
    long smem;
    int blocks_per_sm;
} stepq_serving_kernel_info;
void stepq_serving_kernel(const stepq_serving* s, stepq_serving_kernel_info* out);

// The kernels against the CPU's fused decode step (sim/backend.h, the default CPU backend): n heads,
// head h with plan head h mod min(n, plan->H) (plan may be NULL for formats that need none),
// random states and inputs, `steps` steps.
typedef struct {
    int y_equal;          // every read-out equal bit for bit
    int y_agree;          // all read-outs within method 6.5's rule (ratio 2e-3)
    double y_max_abs;     // largest |y_gpu - y_cpu|
    double y_rms_ratio;   // rms(y_gpu - y_cpu) / rms(y_cpu)
    long bytes_differ;    // packed bytes that differ after the last step
    long bytes_total;
} stepq_serving_report;
int stepq_serving_check(stepq_serving_report* rep, const stepq_format* f, const stepq_plan* plan,
                        int kind, int n, int K, int V, int mode, int nsplit, int steps, int where,
                        const struct stepq_backend* cpu);

// The GPU benchmark (sim/cuda/bench_gpu.cu; the program stepq_bench_gpu): for B = 32 .. 512
// requests of 48 gdn-qwen-like 128 x 128 heads, the time per step of the FP32 baseline and of
// int8, int6, int4, stepquant6, nvfp4, bf16, fp16, fp8-tile32 and time6 in the fused and split kernels and of
// fp32, bf16, fp16, int8, int6, int4, nvfp4, fp8-tile32, stepquant6 and time6 in the lane kernels, the bytes a head-step moves, GB/s against the device-to-device
// copy bandwidth measured in the same run, each format's speed ratio to FP32 in the same
// kernels, registers, shared memory and blocks per multiprocessor, and whether the pool fits in
// L2; each format's kernels are first checked against the CPU.
// out_h5 (may be NULL): the figures as HDF5; quick: B = 32, 128, 256, 512 and fewer repetitions.
// STEPQ_ERR (message) without a device. cpu: the CPU backend the kernels are checked against
// and the inputs recorded with (the front end's).
int stepq_bench_gpu(const char* out_h5, int quick, const struct stepq_backend* cpu);
// Test hook: the same benchmark on the host emulation (engine.h), B = 1 and one step: its
// checks, pools, byte counts and output file, with no meaningful timing.
int stepq_bench_gpu_emulate(const char* out_h5, const struct stepq_backend* cpu);

#ifdef __cplusplus
}
#endif

#endif

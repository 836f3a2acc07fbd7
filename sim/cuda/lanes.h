// lanes.h: the lane-by-lane serving kernels (sim/cuda/lanes.cu; method 6.5), as the serving
// pool (serving.cu) drives them in its mode STEPQ_SERVE_LANES. C++ (CUDA) only: it names a
// stream.
//
// One block of 256 threads per 128 x 128 head, the state in registers: warp w holds key rows
// 16w .. 16w+15, lane l value columns 4l .. 4l+3 of each (64 floats a thread). One kernel per
// format, specialised at compile time (a format trait: FP32, BF16, FP16, INT8, INT6, INT4,
// NVFP4, FP8 tiles, the dual-axis fit, rows of allocated widths, DAMP, LeapQuant without its
// freeze gate, stochastic rounding). The packed
// head in device memory is the lanes layout: the K FP16 row scales first (2 K bytes), then
// per warp a tile of its 16 rows' codes in which lane l's pieces (the 4 codes of its columns
// in each row, b/2 bytes, rows in order) are b/2 chunks of 16 bytes at (chunk * 32 + l) * 16:
// the same bytes as the rows layout (quant/layout.h), permuted so that every load is a
// 16-byte vector and every row of a tile 16-byte aligned. FP32 keeps the K x V floats; BF16's,
// FP16's, NVFP4's and the FP8 tiles' are in lanes.cu (fmt_cast16, fmt_nvfp4, fmt_fp8tile); the
// dual-axis formats (dsq, space, stepquant, mlife, rlife; fmt_dual), the rows of allocated
// widths (time6, time4 and their -nopivot forms; fmt_alloc) and DAMP (fmt_damp) keep the rows
// layout, whose rows have the plan's widths; the stochastic-rounding formats (int8-sr, fp8-sr,
// fp16-sr; fmt_sr) keep the CPU's layout; LeapQuant's (leap6-r4, leap6-r8, leap6-fp32,
// leap4-r4; fmt_leap) is two heads in their own lanes layouts, int-b's then the residual's.
#ifndef STEPQ_CUDA_LANES_H
#define STEPQ_CUDA_LANES_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "blockprog.cuh"  // bp_meta: a head plan's fit parameters, as the pool holds them

// the one head shape the lane kernels take (the paper's)
#define LANES_K 128
#define LANES_V 128

typedef struct {
    uint8_t* P;         // (n, stride) the pool, lanes layout
    size_t stride;
    const float* in;    // (n, R) the step's inputs (prep.h's record: q, k, v, grad, decay, beta)
    int R;
    float* y;           // (n, V) read-outs
    int* status;        // (n) STEPQ_OK, or STEPQ_ERR for a non-finite state (not stored)
    float fscale;       // the read-out scale, as the float32 step forms it
    int G;              // 0: the record holds the decays exp(g); 1 (GDN) or K (KDA): it holds the
                        // log gates g in their place and the kernel takes exp (lanes.cuh's ln_expf)
    // the head plans (the dual-axis formats; head h takes plan h mod n_plans), the pool's
    const uint8_t* bits;    // (n_plans, K) row widths, 16 = FP16 pivot
    const float* w;         // (n_plans, K) row influence (1 where the plan has none)
    const uint32_t* off;    // (n_plans, K) where row i starts in the rows layout
    const bp_meta* meta;    // (n_plans) rho, refits
    int n_plans;
    int odd2, nrm8, dsq;    // the kind's 2-bit rule and codebook normalisation (method 4.2); DSQ
} lanes_args;

// 1 if the lane kernels take format f on K x V heads, else 0
int lanes_takes(const stepq_format* f, int K, int V);
// 1 if the lane kernel of format f reads the head plans (the dual-axis fit, rows of allocated
// widths), else 0
int lanes_reads_plans(const stepq_format* f);
// 1 if the lane kernel of format f encodes in the CPU's order (the dual-axis fit, rows of
// allocated widths, DAMP, LeapQuant, stochastic rounding: its stored bytes are the CPU encoder's
// of the state it holds, method 6.5), 0 if it meets method 6.5's tolerance
int lanes_encodes_exact(const stepq_format* f);
// STEPQ_OK if they do, with the head plans hps (n_plans); else STEPQ_ERR with a message
int lanes_supports(const stepq_format* f, const stepq_head_plan* hps, int n_plans, int K, int V);
// one step of n heads (emu: the host emulation, lockstep lane by lane)
void lanes_launch(const stepq_format* f, const lanes_args* a, int n, cudaStream_t st, int emu);
// S (n, K, V) <- the n stored heads of P (n, stride), decoded as a step decodes them
void lanes_decode(const stepq_format* f, float* S, const uint8_t* P, size_t stride, int n, cudaStream_t st, int emu);
// one head's bytes between the rows layout (quant/layout.h) and the lanes layout: dst <- src,
// to_lanes: rows -> lanes, else back (FP32 and the dual-axis formats: a copy of its `bytes`)
void lanes_permute(uint8_t* dst, const uint8_t* src, const stepq_format* f, size_t bytes, int to_lanes);
// the kernel's registers, shared memory and occupancy on the device (emu: zeros)
void lanes_attributes(const stepq_format* f, cudaFuncAttributes* attr, int* blocks_per_sm, int emu);
// the kernels' exp of a log gate, on the host (the same operations as the device's)
float lanes_expf(float g);

// The inputs of a batch on their way to the device without a host synchronisation a step: two
// pinned staging buffers and two device buffers taken in turn, each step's copy issued with
// cudaMemcpyAsync on the caller's stream, before the kernel that reads it on the same stream.
// The host waits only to refill a staging buffer whose step (two steps back) has not yet run.
// emu: one host buffer, which the emulated kernels read in place (no copy).
typedef struct {
    float* host[2];     // (floats) pinned staging
    float* dev[2];      // (floats) what the kernels read
    cudaEvent_t used[2];  // recorded after the kernel that read buffer k
    int next, live, emu;  // the buffer to stage next, the one uploaded last
    int pending[2];       // used[k] recorded and not yet waited for
    size_t floats;
} lanes_feed;
void lanes_feed_open(lanes_feed* fd, size_t floats, int emu);
void lanes_feed_close(lanes_feed* fd);
// the staging buffer to fill with the next step's records (waits only as said above)
float* lanes_feed_stage(lanes_feed* fd);
// the staged records copied to the device on st (asynchronously); returns what the launch reads
const float* lanes_feed_upload(lanes_feed* fd, cudaStream_t st);
// after each launch that reads them (a step may run again on the same inputs), on st
void lanes_feed_done(lanes_feed* fd, cudaStream_t st);

#endif

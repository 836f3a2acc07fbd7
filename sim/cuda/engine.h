// engine.h: the CUDA analysis engine (method 6.5): stepq_run_heads (analysis/runner.h) on a
// GPU, for paper-scale sweeps. C API; the library is stepq_cuda (sim/cuda/CMakeLists.txt),
// which only exists where CMake found nvcc (STEPQ_HAVE_CUDA); nothing below it includes a CUDA
// header.
//
// How it runs: one thread block per (head, format) keeps that head's float32 reference state
// S and the format's stored state S_hat in shared memory and steps them through every step of
// the run (method 2: decode, update, read-out, encode); the host prepares each step's inputs
// from the source (q, k, v, beta, the decays expf(g) and P1's read-out weights, by the CPU's
// own code: sim/cuda/prep.h) and copies them in chunks of steps for batches of heads sized to
// device memory, overlapping the preparation of the next chunk with the device's work. Each
// format encodes with its GPU encoder (sim/cuda/blockprog.cuh; the engine keeps what the encoder
// computes as decode(encode(X)) -- the codes read back as the decoder reads them -- and skips
// writing the packed bytes, which stepq_cuda_encode below writes), built from quant/numerics.h
// and following quant/rowcodec.h and quant/dualfit.h operation by operation, with every sum
// that feeds a rounding decision or a figure in the CPU's order: the figures equal
// stepq_run_heads' bit for bit, except where blockprog.cuh says otherwise (LeapQuant's freeze
// gate; a dual fit with rho != 1/2).
//
// Heads larger than the shared memory of the device (2 x K x V floats plus about 20 KiB; 128 x
// 128 fits an A100's 163 KiB and an H100's 227 KiB, LeapQuant's extra codes do not fit an
// A100) keep their workspace in global memory instead: the same code, slower.
#ifndef STEPQ_CUDA_ENGINE_H
#define STEPQ_CUDA_ENGINE_H

#include <stdint.h>

#include "../../quant/format.h"
#include "../runout.h"
#include "../stream.h"

#ifdef __cplusplus
extern "C" {
#endif

// 1 when a CUDA device of compute capability 8.0 or newer is present (the code is built for
// sm_80 and sm_90, with PTX for newer devices), 0 otherwise (no device, no driver). Prints
// nothing.
int stepq_cuda_available(void);

// The same contract as stepq_run_heads (analysis/runner.h), for every format of the table: out
// is allocated and filled with the same layout (free it with stepq_run_out_free), diverged
// formats marked and their bins NaN as the CPU leaves them; STEPQ_ERR with a message when the
// source is too short, a format needs a plan that is missing or does not match, keep_y needs
// more memory than the machine has, the float32 reference or a format's quantized path meets a
// non-finite state (the CPU's messages, head and step), a format's family has no GPU encoder
// (none today), no CUDA device is present, or cfg->done or cfg->keep is given (a journal is the caller's:
// the engine runs every head).
// cfg->label is not printed (no progress lines). Uses the current CUDA device and at
// most half of its free memory; the environment variable STEPQ_CUDA_MAX_BATCH caps the heads a
// batch holds.
// Failures of the CUDA runtime itself (out of device memory, a kernel fault) print the call,
// file and line and exit(1), as the house's check macros do.
int stepq_cuda_run_heads(stepq_run_out* out, const stepq_source* src, const stepq_run_cfg* cfg);

// the engine as a backend (sim/backend.h; cuda_backend.c): whole runs only
extern const struct stepq_backend stepq_backend_cuda;

// ---------------------------------------------------------------------------------------------
// Test hooks: where a call runs. STEPQ_CUDA_EMULATE runs the same block programs on the host,
// one block after another, with the same orchestration (batches, chunks, copies): it needs no
// GPU and is what the CPU tests exercise; it is slow (a few million element updates a second).
enum { STEPQ_CUDA_DEVICE = 0, STEPQ_CUDA_EMULATE = 1 };

int stepq_cuda_run_heads_on(stepq_run_out* out, const stepq_source* src, const stepq_run_cfg* cfg,
                            int where);

// The GPU encoder and decoder of format f on n heads of shape K x V, head h with plan hps[h]:
// encode: packed (n, stride) <- encode(X) (packed holds the previous bytes on entry, which
// LeapQuant's freeze gate reads, as stepq_encode's contract says), X_hat (n, K, V) <- their
// decoding as the engine keeps it (may be NULL); status (n) <- STEPQ_OK, or STEPQ_ERR where
// the head could not be encoded (not finite). decode: X (n, K, V) <- decode(packed).
// stride >= stepq_format_bytes of every head.
int stepq_cuda_encode(uint8_t* packed, float* X_hat, int* status, const float* X,
                      const stepq_format* f, const stepq_head_plan* hps, size_t stride, int n,
                      int K, int V, int where);
int stepq_cuda_decode(float* X, const uint8_t* packed, const stepq_format* f,
                      const stepq_head_plan* hps, size_t stride, int n, int K, int V, int where);

#ifdef __cplusplus
}
#endif

#endif

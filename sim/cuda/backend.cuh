// backend.cuh: what the CUDA files share on the host side: the check macro of every CUDA
// runtime call, and memory and copies that go to the device or, for the host emulation of the
// block programs (blockprog.cuh), stay on the host, so that one orchestration serves both.
#ifndef STEPQ_CUDA_BACKEND_CUH
#define STEPQ_CUDA_BACKEND_CUH

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "../../base/common.h"
}

// A failing CUDA runtime call is a broken invariant or an exhausted resource (method 6.0's
// check macros): print the call, file and line, and exit. After a kernel launch:
// cudaCheck(cudaGetLastError()).
#define cudaCheck(call) stepq_cuda_check((call), #call, __FILE__, __LINE__)
static inline void stepq_cuda_check(cudaError_t e, const char* what, const char* file, int line) {
    if (e == cudaSuccess) return;
    fprintf(stderr, "stepq: CUDA error at %s:%d: %s: %s\n", file, line, what, cudaGetErrorString(e));
    exit(1);
}

// threads of every block program's block
#define STEPQ_CUDA_THREADS 256

// device memory (emu: host memory), zeroed
static inline void* bk_alloc(int emu, size_t n) {
    if (emu) return callocCheck(n ? n : 1, 1);
    void* p = NULL;
    cudaCheck(cudaMalloc(&p, n ? n : 1));
    cudaCheck(cudaMemset(p, 0, n ? n : 1));
    return p;
}
static inline void bk_free(int emu, void* p) {
    if (emu) free(p);
    else if (p) cudaCheck(cudaFree(p));
}
static inline void bk_h2d(int emu, void* dst, const void* src, size_t n) {
    if (!n) return;
    if (emu) memcpy(dst, src, n);
    else cudaCheck(cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice));
}
static inline void bk_d2h(int emu, void* dst, const void* src, size_t n) {
    if (!n) return;
    if (emu) memcpy(dst, src, n);
    else cudaCheck(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost));
}
static inline void bk_zero(int emu, void* p, size_t n) {
    if (!n) return;
    if (emu) memset(p, 0, n);
    else cudaCheck(cudaMemset(p, 0, n));
}

// the largest dynamic shared memory a block may have (the emulation: an H100's 227 KiB)
static inline size_t bk_smem_limit(int emu) {
    if (emu) return 227u * 1024u;
    int dev = 0, v = 0;
    cudaCheck(cudaGetDevice(&dev));
    cudaCheck(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    return (size_t)v;
}

// 1 when a device of compute capability 8.0 or newer is there
static inline int bk_device_ok(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        cudaGetLastError();  // clear the sticky "no device" error
        return 0;
    }
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return major >= 8;
}

#endif

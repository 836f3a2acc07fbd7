// device_query.cu: lists the CUDA devices the fast path could use. Exit codes: 0 when a
// device is there, 77 (CTest's "skipped") when none is, so GPU tests skip cleanly.
//   nvcc -o device_query sim/cuda/device_query.cu
#include <cstdio>
#include <cuda_runtime.h>

int main() {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        std::printf("no CUDA device (%s): GPU checks skipped\n",
                    e != cudaSuccess ? cudaGetErrorString(e) : "count is 0");
        return 77;
    }
    for (int i = 0; i < n; i++) {
        cudaDeviceProp p;
        cudaGetDeviceProperties(&p, i);
        std::printf("device %d: %s, sm_%d%d, %.1f GiB, %d SMs\n", i, p.name, p.major, p.minor,
                    p.totalGlobalMem / 1073741824.0, p.multiProcessorCount);
    }
    return 0;
}

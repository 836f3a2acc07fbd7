// bench_gpu_main.c: the program stepq_bench_gpu (serving.h's stepq_bench_gpu).
//   stepq_bench_gpu [--quick] [--out FILE.h5]
//   stepq_bench_gpu --emulate [--out FILE.h5]   (the host emulation: a test of the benchmark's
//                                               logic where there is no GPU; no meaningful time)
// Exit codes: 0 done, 1 an error (a kernel that failed its check against the CPU among them),
// 2 a usage error, 77 no CUDA device (CTest's "skipped").
#include <stdio.h>
#include <string.h>

#include "../../base/h5util.h"
#include "../backend.h"
#include "engine.h"
#include "serving.h"

int main(int argc, char** argv) {
    h5u_quiet();  // before any other HDF5 call (base/h5util.h)
    int quick = 0, emulate = 0;
    const char* out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--emulate")) emulate = 1;
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else {
            fprintf(stderr, "usage: stepq_bench_gpu [--quick | --emulate] [--out FILE.h5]\n");
            return 2;
        }
    }
    const stepq_backend* cpu = stepq_backend_default();  // a program's front end chooses the backend
    if (emulate) return stepq_bench_gpu_emulate(out, cpu) == 0 ? 0 : 1;
    if (!stepq_cuda_available()) {
        printf("stepq_bench_gpu: no CUDA device of compute capability 8.0 or newer: skipped\n");
        return 77;
    }
    return stepq_bench_gpu(out, quick, cpu) == 0 ? 0 : 1;
}

// cuda_backend.c: the CUDA engine as a backend value (sim/backend.h): whole runs only, on a
// device of compute capability 8.0 or newer. A program that links stepq_cuda registers it with
// stepq_backend_set_cuda (cli/main.c), since the sim floor below cannot name it.
#include "../backend.h"
#include "engine.h"

const stepq_backend stepq_backend_cuda = {
    .name = "cuda",
    .isa = STEPQ_ISA_BASE,  // the host side asks nothing of the CPU
    .run_heads = stepq_cuda_run_heads,
    .available = stepq_cuda_available,
};

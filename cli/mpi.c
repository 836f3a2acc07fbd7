// mpi.c: brings MPI up for the binary and gives base/ranks.h what it needs of it (method 6.12).
// Only the binary links MPI; every floor below reaches it through stepq_ranks_ops.
#include "mpi.h"

#include <stdio.h>
#include <stdlib.h>

#include "../base/common.h"
#include "../base/ranks.h"

#ifdef STEPQ_WITH_MPI
#include <mpi.h>

static void sum_int(int* v) { MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); }
static void gather_int(int v, int* all) { MPI_Gather(&v, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD); }
static void min_max_u64(uint64_t v, uint64_t* lo, uint64_t* hi) {
    MPI_Allreduce(&v, lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
}
static void xor_bytes(void* b, size_t n) {
    for (size_t at = 0; at < n;) {  // MPI counts are ints: 1 GiB at a time
        const size_t m = n - at < ((size_t)1 << 30) ? n - at : ((size_t)1 << 30);
        MPI_Allreduce(MPI_IN_PLACE, (unsigned char*)b + at, (int)m, MPI_BYTE, MPI_BXOR, MPI_COMM_WORLD);
        at += m;
    }
}
static void abort_all(int rc) { MPI_Abort(MPI_COMM_WORLD, rc); }
static void finalize(void) { MPI_Finalize(); }
static const stepq_ranks_ops mpi_ops = {.sum_int = sum_int, .gather_int = gather_int, .min_max_u64 = min_max_u64, .xor_bytes = xor_bytes, .abort = abort_all, .finalize = finalize};

int stepq_mpi_init(int* argc, char*** argv) {
    // started by a launcher (mpirun, srun): its variables say so. A binary started alone does not
    // bring MPI up at all, and behaves exactly as one built without it.
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) return STEPQ_OK;
    int provided = 0, rank = 0, n = 1;
    // MPI is called from the main thread only, outside the OpenMP regions
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        stepq_error("MPI did not start (MPI_Init_thread failed)");
        return STEPQ_ERR;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    stepq_ranks_attach(rank, n, &mpi_ops);
    // rank 0 prints the results; the others' stdout goes nowhere (their errors still reach stderr)
    if (rank != 0 && !freopen("/dev/null", "w", stdout)) stepq_error("cannot silence the output of rank %d", rank);
    return STEPQ_OK;
}
#else
// started by mpirun all the same: N copies would each run the whole config and write it
int stepq_mpi_init(int* argc, char*** argv) {
    const char* n = getenv("OMPI_COMM_WORLD_SIZE");
    if (!n) n = getenv("PMI_SIZE");
    if (n && atoi(n) > 1) {
        stepq_error("this stepq was built without MPI (configure with -DSTEPQ_MPI=ON and libopenmpi-dev "
                    "installed), and mpirun started %s copies of it", n);
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}
#endif

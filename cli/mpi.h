// mpi.h: MPI for the binary (method 6.12); see base/ranks.h for what the ranks do.
#ifndef STEPQ_CLI_MPI_H
#define STEPQ_CLI_MPI_H

// MPI_Init when stepq was built with MPI (STEPQ_MPI) and started by a launcher (mpirun, srun);
// else nothing. STEPQ_ERR (message) when MPI cannot start.
int stepq_mpi_init(int* argc, char*** argv);

#endif

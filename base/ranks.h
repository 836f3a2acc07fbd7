// ranks.h: the processes of an MPI run (method 6.12). Built with STEPQ_MPI and started by
// mpirun, stepq runs as N ranks; without MPI, or started alone, it is one rank and every call
// below is free.
//
// How a driver spreads its work (the units: heads x seeds, documents, calibration heads):
//   - a static, deterministic assignment: unit u belongs to rank u mod N (stepq_rank_owns);
//   - the buffers a loop over units writes, unit by unit, are registered with a split before
//     the loop (stepq_split_add) and merged after it (stepq_split_end): every rank then holds
//     the numbers of every unit, bit for bit as if it had computed them all. The merge is an
//     MPI_Allreduce with bitwise XOR of each rank's changes to the bytes it started from, so it
//     is exact whatever the type, and every rank goes on with the same numbers: what a driver
//     computes after a loop (means, intervals, the next loop's inputs) is computed alike
//     everywhere and needs no further message;
//   - rank 0 alone writes files and prints results (base/outfile.c, the front end); the others
//     write their outputs nowhere and print only errors, prefixed with their rank.
// A unit's numbers must be a function of the unit alone (the rule that already makes results
// independent of the thread count), every byte of a registered buffer must be written by at most
// the rank that owns its unit, and every rank must start from the same bytes (checked: a rank
// whose buffers differ before the loop is an internal error).
#ifndef STEPQ_RANKS_H
#define STEPQ_RANKS_H

#include <stddef.h>
#include <stdint.h>

// What MPI does for this file, given by the front end that brought MPI up (cli/mpi.c, the
// binary's alone: base, and libstepq with it, never links MPI). All collective over the ranks.
typedef struct {
    void (*sum_int)(int* v);                                  // *v <- the sum over ranks
    void (*gather_int)(int v, int* all);                      // all (N, rank 0) <- every rank's v
    void (*min_max_u64)(uint64_t v, uint64_t* lo, uint64_t* hi);  // over ranks
    void (*xor_bytes)(void* b, size_t n);                     // b <- XOR over ranks, in place
    void (*abort)(int rc);  // ends every rank of the job now
    void (*finalize)(void);
} stepq_ranks_ops;
// this process is rank `rank` of n, talking through ops (which must outlive the run)
void stepq_ranks_attach(int rank, int n, const stepq_ranks_ops* ops);
// main's exit: finalize and rc where every rank knows how the run ended (rc 0, or a failure
// every rank agreed on); else (one rank failed alone) removes this rank's pending outputs and
// aborts the job, so that no rank waits for it forever
int stepq_ranks_finish(int rc);
int stepq_rank(void);   // this process's rank, 0 .. N-1
int stepq_nranks(void);  // N; 1 without MPI
int stepq_rank_owns(long unit);  // unit u belongs to rank u mod N
// Collective: STEPQ_ERR on every rank when rc is STEPQ_ERR on any (the rank that failed has
// printed why; rank 0 adds which ranks did, naming `what`, unless it is NULL), else STEPQ_OK
int stepq_ranks_agree(int rc, const char* what);
void stepq_ranks_sum(int* v);  // collective: *v <- the sum over ranks
// Collective: STEPQ_OK where every rank holds the same v; else STEPQ_ERR on every rank, and rank 0
// says which ranks' `what` differs from its own (an input's checksum, the command line, ...)
int stepq_ranks_same(uint64_t v, const char* what);
// Collective: the ranks run the same binary (its XXH3) with the same command line, or every
// rank gets STEPQ_ERR and rank 0 names which differ (stepq_inputs_check_ranks, base/outfile.h,
// asks this before it compares the inputs)
int stepq_ranks_check_command(void);
// fn runs before a rank aborts the job (MPI_Abort runs no atexit hook): base/outfile.c's
// removal of its pending outputs, set at its first output
void stepq_ranks_before_abort(void (*fn)(void));
// the command line this process was started with, for stepq_ranks_check_command
void stepq_ranks_set_command(int argc, char** argv);
// Collective: rc, where every rank's rc is the same (a failure is then one every rank knows);
// where they differ, says so naming `what` and ends the job
int stepq_ranks_alike(int rc, const char* what);

// The buffers a loop over units writes (at most 16 per split)
typedef struct {
    void* buf[16];
    size_t bytes[16];
    unsigned char* start[16];  // each buffer's bytes before the loop (N > 1 only)
    int n;
} stepq_split;

void stepq_split_init(stepq_split* s);
// registers bytes of buf, as they are now (N > 1: a copy is kept)
void stepq_split_add(stepq_split* s, void* buf, size_t bytes);
// Collective, after the loop: stepq_ranks_agree(rc); then, when every rank succeeded, merges the
// buffers (every rank holds every unit's bytes). Returns the agreed status; frees the copies.
int stepq_split_end(stepq_split* s, int rc, const char* what);

#endif

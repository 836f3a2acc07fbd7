// env.h: the environment a run depends on (method 6.9): OpenMP's threads and their stacks, and
// stepq's own variables (STEPQ_TRACE_CHUNK, STEPQ_MEMORY_BYTES), checked before any work.
#ifndef STEPQ_ENV_H
#define STEPQ_ENV_H

// the most threads a run takes (--threads, the configs' threads, OMP_NUM_THREADS)
#define STEPQ_THREADS_MAX 4096
// the least stack a thread needs: the deepest call, a quantized step's write (qstep_write and
// the dual-axis fit under it, gcc -fstack-usage), takes about 350 KiB; all.cfg --quick crashes
// at OMP_STACKSIZE=256K and runs at 512K
#define STEPQ_STACK_MIN (1L << 20)
// STEPQ_ERR (message naming the variable) when the environment would crash or mislead a run,
// checked by the command line before any command and by libstepq where a codec or session
// opens (the floors below read the environment without checking it):
// OpenMP's own thread count (OMP_NUM_THREADS) above STEPQ_THREADS_MAX (libgomp itself crashes
// when it starts some 100000 threads); a thread stack below STEPQ_STACK_MIN (OMP_STACKSIZE,
// GOMP_STACKSIZE, or the process's stack limit, ulimit -s, which the main thread runs on); a
// STEPQ_TRACE_CHUNK or STEPQ_MEMORY_BYTES that is not a number in range (they would be ignored).
// threads: the run steps on OpenMP threads (else only the calling thread's stack limit and the
// STEPQ_* numbers are checked: a codec encodes on the thread that calls it)
int stepq_check_env(int threads);

#endif

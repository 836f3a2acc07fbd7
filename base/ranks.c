// ranks.c: the processes of an MPI run; see ranks.h.
#include "ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "outfile.h"

static int rank = 0, nranks = 1;
static const stepq_ranks_ops* ops;  // NULL: one process
static int agreed_failure = 0;      // every rank knows the run failed (stepq_ranks_agree said so)
static double merged_bytes = 0;

int stepq_rank(void) { return rank; }
int stepq_nranks(void) { return nranks; }
int stepq_rank_owns(long unit) { return unit % nranks == rank; }

void stepq_ranks_attach(int r, int n, const stepq_ranks_ops* o) {
    rank = r;
    nranks = n;
    ops = o;
    if (n > 1) {
        static char prefix[64];
        snprintf(prefix, sizeof prefix, "rank %d of %d: ", r, n);
        stepq_error_prefix(prefix);
    }
}

// ends every rank of the job now, this rank's pending outputs removed first (MPI_Abort runs no
// atexit hook)
static void ranks_abort(int rc) {
    fflush(stdout);
    fflush(stderr);
    stepq_outputs_abandon();
    ops->abort(rc);
}

int stepq_ranks_finish(int rc) {
    if (!ops) return rc;
    if (nranks > 1 && rank == 0 && !rc && !getenv("STEPQ_QUIET"))
        fprintf(stderr, "mpi: %d ranks; each contributed %.0f bytes to the merges of the units' results\n", nranks,
                merged_bytes);
    fflush(stdout);
    fflush(stderr);
    if (rc != 0 && nranks > 1 && !agreed_failure) ranks_abort(rc);
    ops->finalize();
    return rc;
}

int stepq_ranks_agree(int rc, const char* what) {
    if (nranks == 1) return rc;
    int bad = rc != STEPQ_OK, n_bad = bad;
    ops->sum_int(&n_bad);
    if (!n_bad) return STEPQ_OK;
    int* who = callocCheck((size_t)nranks, sizeof(int));
    ops->gather_int(bad, who);
    if (rank == 0 && what) {
        char list[256];
        size_t o = 0;
        list[0] = 0;
        for (int r = 0; r < nranks && o < sizeof list - 16; r++)
            if (who[r]) o += (size_t)snprintf(list + o, sizeof list - o, "%s%d", o ? ", " : "", r);
        stepq_error("%s failed on rank%s %s of %d (each said why above); no output was written", what,
                    n_bad > 1 ? "s" : "", list, nranks);
    }
    free(who);
    agreed_failure = 1;
    return STEPQ_ERR;
}

void stepq_ranks_sum(int* v) {
    if (nranks > 1) ops->sum_int(v);
}

int stepq_ranks_alike(int rc, const char* what) {
    if (nranks == 1) return rc;
    int n_bad = rc != STEPQ_OK;
    ops->sum_int(&n_bad);
    if (n_bad == nranks) agreed_failure = 1;
    if (n_bad % nranks == 0) return rc;
    stepq_error("%s failed on %d of %d ranks only: stopping the job", what, n_bad, nranks);
    ranks_abort(1);
    return STEPQ_ERR;
}

void stepq_split_init(stepq_split* s) { memset(s, 0, sizeof *s); }

void stepq_split_add(stepq_split* s, void* buf, size_t bytes) {
    stepq_assert(s->n < 16);
    s->buf[s->n] = buf;
    s->bytes[s->n] = bytes;
    s->start[s->n] = NULL;
    if (nranks > 1 && bytes) {
        s->start[s->n] = mallocCheck(bytes);
        memcpy(s->start[s->n], buf, bytes);
    }
    s->n++;
}

int stepq_split_end(stepq_split* s, int rc, const char* what) {
    if (nranks > 1) {
        // every rank must have started from the same bytes: else the merge would mix garbage in
        uint64_t h = 0, lo, hi;
        for (int i = 0; i < s->n; i++)
            if (s->bytes[i]) h = stepq_xxh3(h, s->start[i], s->bytes[i]);
        ops->min_max_u64(h, &lo, &hi);
        if (lo != hi) stepq_fatal("internal error: %s: the ranks' buffers differed before the loop", what);
        rc = stepq_ranks_agree(rc, what);
        for (int i = 0; i < s->n && rc == STEPQ_OK; i++) {
            // this rank's changes, XOR-reduced over the ranks, applied to the common start
            unsigned char* b = s->buf[i];
            const unsigned char* z = s->start[i];
            for (size_t k = 0; k < s->bytes[i]; k++) b[k] ^= z[k];
            ops->xor_bytes(b, s->bytes[i]);
            for (size_t k = 0; k < s->bytes[i]; k++) b[k] ^= z[k];
            merged_bytes += (double)s->bytes[i];
        }
    }
    for (int i = 0; i < s->n; i++) free(s->start[i]);
    s->n = 0;
    return rc;
}

// ranks.c: the processes of an MPI run; see ranks.h.
#include "ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static int rank = 0, nranks = 1;
static const stepq_ranks_ops* ops;  // NULL: one process
static int agreed_failure = 0;      // every rank knows the run failed (stepq_ranks_agree said so)
static double merged_bytes = 0;
static void (*before_abort)(void);  // base/outfile.c's: its pending outputs removed

void stepq_ranks_before_abort(void (*fn)(void)) { before_abort = fn; }

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
    if (before_abort) before_abort();
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

int stepq_ranks_same(uint64_t v, const char* what) {
    if (nranks == 1) return STEPQ_OK;
    uint64_t lo, hi;
    ops->min_max_u64(v, &lo, &hi);
    if (lo == hi) return STEPQ_OK;
    uint64_t r0 = rank == 0 ? v : 0;  // rank 0's value, to every rank (the others add nothing)
    ops->xor_bytes(&r0, sizeof r0);
    int* who = callocCheck((size_t)nranks, sizeof(int));
    ops->gather_int(v != r0, who);
    if (rank == 0) {
        char list[256];
        size_t o = 0;
        list[0] = 0;
        for (int r = 1; r < nranks && o < sizeof list - 16; r++)
            if (who[r]) o += (size_t)snprintf(list + o, sizeof list - o, "%s%d", o ? ", " : "", r);
        stepq_error("the ranks of this MPI job disagree on %s: rank%s %s differ%s from rank 0 (every rank must run the "
                    "same binary and command on the same data; node-local copies must be identical); nothing was run",
                    what, strchr(list, ',') ? "s" : "", list, strchr(list, ',') ? "" : "s");
    }
    free(who);
    agreed_failure = 1;
    return STEPQ_ERR;
}

static uint64_t command_xxh3;
static char command_text[512];

void stepq_ranks_set_command(int argc, char** argv) {
    uint64_t h = 0;
    size_t o = 0;
    command_text[0] = 0;
    for (int i = 0; i < argc; i++) {
        h = stepq_xxh3(h, argv[i], strlen(argv[i]) + 1);
        if (i > 0 && o < sizeof command_text - 2)
            o += (size_t)snprintf(command_text + o, sizeof command_text - o, "%s%s", o ? " " : "", argv[i]);
    }
    command_xxh3 = h;
}

int stepq_ranks_check_command(void) {
    if (nranks == 1) return STEPQ_OK;
    uint64_t exe = 0;
    if (stepq_file_xxh3(&exe, "/proc/self/exe") != STEPQ_OK) exe = 0;
    char what[600];
    snprintf(what, sizeof what, "the command line (rank 0's: stepq %s)", command_text);
    return stepq_ranks_same(exe, "the stepq binary (its XXH3)") || stepq_ranks_same(command_xxh3, what)
               ? STEPQ_ERR : STEPQ_OK;
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

// journal.c: resumable runs; see journal.h.
//
// Layout: a header line "stepq journal <key> F <F> NB <NB>\n", then one record per completed
// head: int32 seed, int32 head, then the head's numbers in a fixed order (record_doubles):
// err_y, err_S (F x NB floats), acc_sq, p1_resid, bytes (F doubles), diverged (F int64),
// acc_ref, mean_log_gate, half_life (doubles), then the XXH3 64 of the seed, head and numbers,
// and the int32 0x4a524e4c closing it. A record cut short (a kill while it was written) ends
// the journal; a whole record whose checksum fails (edited or corrupted) refuses the resume.
#include "journal.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/common.h"
#include "../base/outfile.h"
#include "../base/ranks.h"

#define RECORD_END 0x4a524e4cu

typedef struct {
    int32_t s, h;
    unsigned char* data;  // the record's numbers
} record;

struct stepq_journal {
    FILE* fp;
    char* path;
    int F;
    long NB;
    size_t size;         // bytes of a record's numbers
    record* old;         // records read back
    long n_old;
    long added;          // records this process appended (the test hook counts them)
    long kill_after;     // STEPQ_TEST_KILL_AFTER_HEADS: SIGKILL after that many (tests only)
    int failed;          // an append failed (said once, not once per head)
};

static size_t record_size(int F, long NB) {
    return 2 * sizeof(float) * F * NB + 3 * sizeof(double) * F + sizeof(int64_t) * F + 3 * sizeof(double);
}

// serialises (to = 1) or restores (to = 0) head h's numbers of o
static void transfer(unsigned char* buf, stepq_run_out* o, int h, int to) {
    const int F = o->F, H = o->H;
    const long NB = o->n_bins;
    unsigned char* p = buf;
#define MOVE(dst, n)                                        \
    do {                                                    \
        if (to) memcpy(p, (dst), (n));                      \
        else memcpy((dst), p, (n));                         \
        p += (n);                                           \
    } while (0)
    for (int f = 0; f < F; f++) {
        MOVE(o->err_y + ((size_t)f * H + h) * NB, sizeof(float) * NB);
        MOVE(o->err_S + ((size_t)f * H + h) * NB, sizeof(float) * NB);
    }
    for (int f = 0; f < F; f++) {
        MOVE(&o->acc_sq[(size_t)f * H + h], sizeof(double));
        MOVE(&o->p1_resid[(size_t)f * H + h], sizeof(double));
        MOVE(&o->bytes[(size_t)f * H + h], sizeof(double));
        int64_t d = o->diverged[(size_t)f * H + h];
        if (to) memcpy(p, &d, sizeof d);
        else memcpy(&d, p, sizeof d), o->diverged[(size_t)f * H + h] = (long)d;
        p += sizeof d;
    }
    MOVE(&o->acc_ref[h], sizeof(double));
    MOVE(&o->mean_log_gate[h], sizeof(double));
    MOVE(&o->half_life[h], sizeof(double));
#undef MOVE
}

// this rank's journal: "<output>.journal" for one process, "<output>.journal.<r>of<N>" for rank r
// of an MPI run of N ranks (each rank appends the heads it runs; base/ranks.h)
static char* journal_path(const char* output, int r, int n) {
    size_t len = strlen(output) + 40;
    char* p = mallocCheck(len);
    if (n == 1) snprintf(p, len, "%s.journal", output);
    else snprintf(p, len, "%s.journal.%dof%d", output, r, n);
    return p;
}

// the journals of earlier runs of this output, with whatever rank count: n_out names (malloc'd)
static char** journals_beside(const char* output, int* n_out) {
    char* copy = strdup(output);
    const char* base = strrchr(output, '/') ? strrchr(output, '/') + 1 : output;
    char* slash = strrchr(copy, '/');
    const char* dir = slash ? (slash == copy ? "/" : (*slash = 0, copy)) : ".";
    char prefix[4096];
    snprintf(prefix, sizeof prefix, "%s.journal", base);
    const size_t np = strlen(prefix);
    char** names = NULL;
    int n = 0;
    DIR* d = opendir(dir);
    for (struct dirent* e; d && (e = readdir(d));) {
        int r, of, used = 0;
        const int ours = !strncmp(e->d_name, prefix, np) &&
                         (!e->d_name[np] || (sscanf(e->d_name + np, ".%dof%d%n", &r, &of, &used) == 2 &&
                                             !e->d_name[np + used] && r >= 0 && r < of));
        if (!ours) continue;
        names = realloc(names, sizeof(char*) * (n + 1));
        stepq_assert(names != NULL);
        size_t len = strlen(output) + strlen(e->d_name) - strlen(base) + 1;
        names[n] = mallocCheck(len);
        snprintf(names[n], len, "%.*s%s", (int)(base - output), output, e->d_name);
        n++;
    }
    if (d) closedir(d);
    free(copy);
    *n_out = n;
    return names;
}

// the checksum of a record: its seed and head, then its numbers
static uint64_t record_xxh3(const int32_t* sh, const unsigned char* data, size_t size) {
    return stepq_xxh3(stepq_xxh3(0, sh, 2 * sizeof(int32_t)), data, size);
}

// one record: seed and head, the numbers, their checksum, the closing word; 1 when a write failed
static int write_record(FILE* fp, int32_t s, int32_t h, const unsigned char* data, size_t size) {
    const int32_t sh[2] = {s, h};
    const uint64_t ck = record_xxh3(sh, data, size);
    const uint32_t end = RECORD_END;
    return fwrite(sh, sizeof sh, 1, fp) != 1 || fwrite(data, size, 1, fp) != 1 || fwrite(&ck, sizeof ck, 1, fp) != 1 ||
           fwrite(&end, sizeof end, 1, fp) != 1;
}

// reads the records of an existing journal, keeping those of the heads this rank runs (a head
// of H per seed is unit s H + h); STEPQ_ERR if it belongs to another run
static int read_old(stepq_journal* j, FILE* fp, const char* path, const char* header, int H) {
    char line[512];
    if (!fgets(line, sizeof line, fp) || strcmp(line, header) != 0) {
        stepq_error("%s was written by another run (another config, stepq revision or shape): run "
                    "without --resume to start over", path);
        return STEPQ_ERR;
    }
    long cap = j->n_old;
    for (long index = 0;; index++) {
        int32_t sh[2];
        uint32_t end;
        uint64_t ck;
        unsigned char* data = mallocCheck(j->size);
        if (fread(sh, sizeof sh, 1, fp) != 1 || fread(data, j->size, 1, fp) != 1 || fread(&ck, sizeof ck, 1, fp) != 1 ||
            fread(&end, sizeof end, 1, fp) != 1 || end != RECORD_END) {
            free(data);  // the end of the journal, or a record cut short by the kill
            break;
        }
        if (ck != record_xxh3(sh, data, j->size)) {
            stepq_error("%s: record %ld (seed %d, head %d) does not match its checksum (edited or corrupted): run "
                        "without --resume to start over", path, index, sh[0], sh[1]);
            free(data);
            return STEPQ_ERR;
        }
        int dup = !stepq_rank_owns((long)sh[0] * H + sh[1]);
        for (long i = 0; i < j->n_old && !dup; i++) dup = j->old[i].s == sh[0] && j->old[i].h == sh[1];
        if (dup) {  // another rank's head, or one an earlier journal holds (the same numbers)
            free(data);
            continue;
        }
        if (j->n_old == cap) {
            cap = cap ? 2 * cap : 256;
            record* r = realloc(j->old, sizeof(record) * cap);
            stepq_assert(r != NULL);
            j->old = r;
        }
        j->old[j->n_old++] = (record){sh[0], sh[1], data};
    }
    return STEPQ_OK;
}

// every journal of this output, whatever rank count wrote it: a resume reads them all, each rank
// keeping its own heads (read_old)
static int read_journals(stepq_journal* j, char** old, int n_old, const char* header, int H) {
    int rc = STEPQ_OK;
    for (int i = 0; i < n_old && !rc; i++) {
        FILE* fp = fopen(old[i], "rb");
        if (!fp) continue;
        rc = read_old(j, fp, old[i], header, H);
        fclose(fp);
    }
    return rc;
}

// this rank's journal rewritten with its complete records only and left open to append: written
// beside it and renamed over it, so that a failed rewrite (a full disk) keeps the old records and
// leaves no file of its own
static int rewrite(stepq_journal* j, const char* header) {
    char* tmp;
    const int fd = stepq_tmpfile(&tmp, j->path);
    j->fp = fd >= 0 ? fdopen(fd, "wb") : NULL;
    int bad = !j->fp;
    if (!bad) bad = fputs(header, j->fp) < 0;
    for (long i = 0; i < j->n_old && !bad; i++)
        bad = write_record(j->fp, j->old[i].s, j->old[i].h, j->old[i].data, j->size);
    if (!bad) bad = fflush(j->fp) != 0 || rename(tmp, j->path) != 0;
    if (bad) {
        stepq_error("cannot write the journal %s: %s", j->path, errno ? strerror(errno) : "a write failed");
        if (j->fp) fclose(j->fp);
        else if (fd >= 0) close(fd);
        j->fp = NULL;
        if (fd >= 0) remove(tmp);
    }
    free(tmp);
    return bad ? STEPQ_ERR : STEPQ_OK;
}

// the journals of another rank count (their heads now in this run's, or a run started over):
// rank 0 removes them when the open succeeded (rc); frees the names
static void remove_stale(char** old, int n_old, const char* output, int rc) {
    for (int i = 0; i < n_old; i++) {
        int stale = 1;
        for (int r = 0; r < stepq_nranks() && stale; r++) {
            char* mine = journal_path(output, r, stepq_nranks());
            stale = strcmp(mine, old[i]) != 0;
            free(mine);
        }
        if (!rc && stale && stepq_rank() == 0) remove(old[i]);
        free(old[i]);
    }
    free(old);
}

stepq_journal* stepq_journal_open(const char* output, const char* key, int F, long NB, int H, int resume) {
    stepq_journal* j = callocCheck(1, sizeof *j);
    j->path = journal_path(output, stepq_rank(), stepq_nranks());
    j->F = F;
    j->NB = NB;
    j->size = record_size(F, NB);
    const char* kill = getenv("STEPQ_TEST_KILL_AFTER_HEADS");
    j->kill_after = kill ? atol(kill) : 0;
    char header[512];
    snprintf(header, sizeof header, "stepq journal %s F %d NB %ld\n", key, F, NB);
    // a resume reads every journal beside the output; a new run (no --resume) starts over and
    // removes them
    int n_old = 0;
    char** old = journals_beside(output, &n_old);
    int rc = resume ? read_journals(j, old, n_old, header, H) : STEPQ_OK;
    if (resume && !n_old && stepq_rank() == 0)
        fprintf(stderr, "resume: no journal of %s: starting from the first head\n", output);
    // every rank has read every journal before any is rewritten (an MPI run)
    rc = stepq_ranks_agree(rc, "reading the journals");
    if (!rc) rc = stepq_ranks_agree(rewrite(j, header), "writing the journals");
    remove_stale(old, n_old, output, rc);
    if (rc) {  // every rank knows (the agreements above): close without another
        if (j->fp) fclose(j->fp);
        j->fp = NULL;
        stepq_journal_close(j, 0);
        return NULL;
    }
    int resumed = (int)j->n_old;  // over the ranks
    stepq_ranks_sum(&resumed);
    if (resumed && stepq_rank() == 0) fprintf(stderr, "resume: %d heads read back from the journals of %s\n", resumed, output);
    return j;
}

int stepq_journal_fill(const stepq_journal* j, int s, int h, stepq_run_out* o) {
    for (long i = 0; i < j->n_old; i++)
        if (j->old[i].s == s && j->old[i].h == h) {
            transfer(j->old[i].data, o, h, 0);
            return 1;
        }
    return 0;
}

int stepq_journal_add(stepq_journal* j, int s, int h, const stepq_run_out* o) {
    unsigned char* data = mallocCheck(j->size);
    transfer(data, (stepq_run_out*)o, h, 1);
    int bad;
#pragma omp critical(stepq_journal)
    {
        errno = 0;
        bad = write_record(j->fp, s, h, data, j->size) || fflush(j->fp) != 0;
        if (bad && !j->failed)
            stepq_error("cannot append to the journal %s: %s", j->path, errno ? strerror(errno) : "a write failed");
        if (bad) j->failed = 1;
        j->added++;
        if (j->kill_after > 0 && j->added >= j->kill_after) raise(SIGKILL);  // tests: an interrupted run
    }
    free(data);
    return bad ? STEPQ_ERR : STEPQ_OK;
}

long stepq_journal_resumed(const stepq_journal* j) { return j->n_old; }

void stepq_journal_close(stepq_journal* j, int completed) {
    if (!j) return;
    if (j->fp) {
        fclose(j->fp);
        // an MPI run: the output is written once every rank has finished and rank 0 has written it
        completed = stepq_ranks_agree(completed ? STEPQ_OK : STEPQ_ERR, NULL) == STEPQ_OK;
    }
    if (completed) remove(j->path);
    for (long i = 0; i < j->n_old; i++) free(j->old[i].data);
    free(j->old);
    free(j->path);
    free(j);
}

// journal.c: resumable runs; see journal.h.
//
// Layout: a header line "stepq journal <key>\n", then one record per completed unit: its uint64
// id and uint64 size, its bytes (what they are is the caller's), then the XXH3 64 of the id,
// size and bytes, and the uint32 0x4a524e4c closing it. A record cut short (a kill while it was
// written) ends the journal; a whole record whose checksum fails (edited or corrupted) refuses
// the resume.
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
#define RECORD_MAX ((uint64_t)1 << 32)  // a size beyond this is a record cut short, not a record

typedef struct {
    uint64_t id;
    size_t size;
    unsigned char* data;
} record;

struct stepq_journal {
    FILE* fp;
    char* path;
    const char* what;    // what a record is, for messages ("heads", "runs")
    record* old;         // records read back
    long n_old;
    long added;          // records this process appended (the test hook counts them)
    long kill_after;     // STEPQ_TEST_KILL_AFTER_RECORDS: SIGKILL after that many (tests only)
    int failed;          // an append failed (said once, not once per record)
};

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

// the checksum of a record: its id and size, then its bytes
static uint64_t record_xxh3(uint64_t id, uint64_t size, const unsigned char* data) {
    const uint64_t head[2] = {id, size};
    return stepq_xxh3(stepq_xxh3(0, head, sizeof head), data, (size_t)size);
}

// one record: id, size, bytes, their checksum, the closing word; 1 when a write failed
static int write_record(FILE* fp, uint64_t id, const unsigned char* data, size_t size) {
    const uint64_t head[2] = {id, size}, ck = record_xxh3(id, size, data);
    const uint32_t end = RECORD_END;
    return fwrite(head, sizeof head, 1, fp) != 1 || (size && fwrite(data, size, 1, fp) != 1) ||
           fwrite(&ck, sizeof ck, 1, fp) != 1 || fwrite(&end, sizeof end, 1, fp) != 1;
}

// reads the records of an existing journal, keeping those owned accepts (all when NULL) and the
// first of an id; STEPQ_ERR if it belongs to another run or a whole record fails its checksum
static int read_old(stepq_journal* j, FILE* fp, const char* path, const char* header,
                    int (*owned)(uint64_t id, void* ctx), void* ctx) {
    char line[512];
    if (!fgets(line, sizeof line, fp) || strcmp(line, header) != 0) {
        stepq_error("%s was written by another run (another config, stepq revision or shape): run "
                    "without --resume to start over", path);
        return STEPQ_ERR;
    }
    long cap = j->n_old;
    for (long index = 0;; index++) {
        uint64_t head[2], ck;
        uint32_t end;
        if (fread(head, sizeof head, 1, fp) != 1 || head[1] > RECORD_MAX) break;
        unsigned char* data = mallocCheck(head[1] ? (size_t)head[1] : 1);
        if ((head[1] && fread(data, (size_t)head[1], 1, fp) != 1) || fread(&ck, sizeof ck, 1, fp) != 1 ||
            fread(&end, sizeof end, 1, fp) != 1 || end != RECORD_END) {
            free(data);  // the end of the journal, or a record cut short by the kill
            break;
        }
        if (ck != record_xxh3(head[0], head[1], data)) {
            stepq_error("%s: record %ld does not match its checksum (edited or corrupted): run without --resume "
                        "to start over", path, index);
            free(data);
            return STEPQ_ERR;
        }
        int dup = owned && !owned(head[0], ctx);
        for (long i = 0; i < j->n_old && !dup; i++) dup = j->old[i].id == head[0];
        if (dup) {  // another rank's record, or one an earlier journal holds (the same numbers)
            free(data);
            continue;
        }
        if (j->n_old == cap) {
            cap = cap ? 2 * cap : 256;
            record* r = realloc(j->old, sizeof(record) * cap);
            stepq_assert(r != NULL);
            j->old = r;
        }
        j->old[j->n_old++] = (record){head[0], (size_t)head[1], data};
    }
    return STEPQ_OK;
}

// every journal of this output, whatever rank count wrote it: a resume reads them all, each rank
// keeping its own records (read_old)
static int read_journals(stepq_journal* j, char** old, int n_old, const char* header,
                         int (*owned)(uint64_t id, void* ctx), void* ctx) {
    int rc = STEPQ_OK;
    for (int i = 0; i < n_old && !rc; i++) {
        FILE* fp = fopen(old[i], "rb");
        if (!fp) continue;
        rc = read_old(j, fp, old[i], header, owned, ctx);
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
        bad = write_record(j->fp, j->old[i].id, j->old[i].data, j->old[i].size);
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

// the journals of another rank count (their records now in this run's, or a run started over):
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

stepq_journal* stepq_journal_open(const char* output, const char* key, const char* what, int resume,
                                  int (*owned)(uint64_t id, void* ctx), void* ctx) {
    stepq_journal* j = callocCheck(1, sizeof *j);
    j->path = journal_path(output, stepq_rank(), stepq_nranks());
    j->what = what;
    const char* kill = getenv("STEPQ_TEST_KILL_AFTER_RECORDS");
    j->kill_after = kill ? atol(kill) : 0;
    char header[512];
    snprintf(header, sizeof header, "stepq journal %s\n", key);
    // a resume reads every journal beside the output; a new run (no --resume) starts over and
    // removes them
    int n_old = 0;
    char** old = journals_beside(output, &n_old);
    int rc = resume ? read_journals(j, old, n_old, header, owned, ctx) : STEPQ_OK;
    if (resume && !n_old && stepq_rank() == 0)
        fprintf(stderr, "resume: no journal of %s: starting from the first of its %s\n", output, what);
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
    if (resumed && stepq_rank() == 0)
        fprintf(stderr, "resume: %d %s read back from the journals of %s\n", resumed, what, output);
    return j;
}

const unsigned char* stepq_journal_find(const stepq_journal* j, uint64_t id, size_t* size) {
    for (long i = 0; i < j->n_old; i++)
        if (j->old[i].id == id) {
            *size = j->old[i].size;
            return j->old[i].data;
        }
    return NULL;
}

const unsigned char* stepq_journal_record(const stepq_journal* j, long i, uint64_t* id, size_t* size) {
    if (i < 0 || i >= j->n_old) return NULL;
    *id = j->old[i].id;
    *size = j->old[i].size;
    return j->old[i].data;
}

int stepq_journal_add(stepq_journal* j, uint64_t id, const void* data, size_t size) {
    int bad;
#pragma omp critical(stepq_journal)
    {
        errno = 0;
        bad = write_record(j->fp, id, data, size) || fflush(j->fp) != 0;
        if (bad && !j->failed)
            stepq_error("cannot append to the journal %s: %s", j->path, errno ? strerror(errno) : "a write failed");
        if (bad) j->failed = 1;
        j->added++;
        if (j->kill_after > 0 && j->added >= j->kill_after) raise(SIGKILL);  // tests: an interrupted run
    }
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

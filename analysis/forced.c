// forced.c: teacher-forced runs of a language model, kept for the process; see forced.h.
#include "forced.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/outfile.h"
#include "../base/progress.h"
#include "../base/ranks.h"
#include "journal.h"

// ---------------------------------------------------------------------------------------------
// the runs kept: a list searched in order (a process keeps a few thousand at most), filled and
// read only between the parallel loops

#define KEPT_MAX_BYTES ((size_t)1 << 30)  // beyond this, runs are computed again rather than kept

typedef struct {
    uint64_t key;
    long n;
    double* nll;
    uint8_t* top;
} kept_run;

static kept_run* kept;
static long n_kept, cap_kept;
static size_t kept_bytes;

static kept_run* kept_find(uint64_t key) {
    for (long i = 0; i < n_kept; i++)
        if (kept[i].key == key) return &kept[i];
    return NULL;
}

// 1 and nll, top (n) filled from a kept run of at least n steps under key; else 0
static int take(uint64_t key, long n, double* nll, uint8_t* top) {
    const kept_run* k = key ? kept_find(key) : NULL;
    if (!k || k->n < n) return 0;
    memcpy(nll, k->nll, sizeof(double) * n);
    memcpy(top, k->top, (size_t)n);
    return 1;
}

// keeps n steps under key, where no run of as many is kept and the bytes allow
static void keep(uint64_t key, long n, const double* nll, const uint8_t* top) {
    kept_run* k = kept_find(key);
    if (!key || n <= 0 || (k && k->n >= n)) return;
    const size_t bytes = (sizeof(double) + 1) * (size_t)n, old = k ? (sizeof(double) + 1) * (size_t)k->n : 0;
    if (kept_bytes - old + bytes > KEPT_MAX_BYTES) return;
    if (!k) {
        if (n_kept == cap_kept) {
            cap_kept = 2 * cap_kept + 64;
            kept_run* more = mallocCheck(sizeof(kept_run) * (size_t)cap_kept);
            if (n_kept) memcpy(more, kept, sizeof(kept_run) * (size_t)n_kept);
            free(kept);
            kept = more;
        }
        k = &kept[n_kept++];
        *k = (kept_run){.key = key};
    }
    free(k->nll);
    free(k->top);
    k->nll = mallocCheck(sizeof(double) * n);
    k->top = mallocCheck((size_t)n);
    memcpy(k->nll, nll, sizeof(double) * n);
    memcpy(k->top, top, (size_t)n);
    k->n = n;
    kept_bytes = kept_bytes - old + bytes;
}

long stepq_forced_kept(size_t* bytes) {
    if (bytes) *bytes = kept_bytes;
    return n_kept;
}

void stepq_forced_forget(void) {
    for (long i = 0; i < n_kept; i++) free(kept[i].nll), free(kept[i].top);
    free(kept);
    kept = NULL;
    n_kept = cap_kept = 0;
    kept_bytes = 0;
}

// what a run is (forced.h): the model's weights, the document's bytes, the prefill, the format
// and the plan's encoding where the format reads a plan, and the backend; 0 (not kept) for the
// octile runs and a model not read from files
static uint64_t key_of(const stepq_forced_set* s, const stepq_forced_spec* sp, uint64_t doc) {
    if (sp->rows || !s->model->xxh3) return 0;
    const stepq_backend* be = s->backend;
    const uint64_t plan = sp->fmt && stepq_format_needs_plan(sp->fmt) && sp->plan ? stepq_plan_encoding_xxh3(sp->plan) : 0;
    char buf[512];
    const int n = snprintf(buf, sizeof buf, "model=%016" PRIx64 " document=%016" PRIx64 " prefill=%ld format=%s plan=%016" PRIx64
                           " backend=%s", s->model->xxh3, doc, s->prefill, sp->fmt ? sp->fmt->name : "native", plan, be->name);
    const uint64_t k = stepq_xxh3(0, buf, (size_t)n);
    return k ? k : 1;
}

// ---------------------------------------------------------------------------------------------
// the journal: a record per run that ends, its key as id, then int64 n, n doubles (nll), n bytes
// (top)

static stepq_journal* journal;

static void journal_keep(uint64_t key, long n, const double* nll, const uint8_t* top) {
    if (!journal || !key) return;
    const int64_t n64 = n;
    const size_t size = sizeof n64 + (sizeof(double) + 1) * (size_t)n;
    unsigned char* data = mallocCheck(size);
    memcpy(data, &n64, sizeof n64);
    memcpy(data + sizeof n64, nll, sizeof(double) * (size_t)n);
    memcpy(data + sizeof n64 + sizeof(double) * (size_t)n, top, (size_t)n);
    stepq_journal_add(journal, key, data, size);  // a failed append is said; the run goes on unjournaled
    free(data);
}

static struct {
    char output[4096], key[128];
    int resume, pending;
} journal_plan;

void stepq_forced_journal_begin(const char* output, const char* key, int resume) {
    stepq_assert(!journal && !journal_plan.pending);
    snprintf(journal_plan.output, sizeof journal_plan.output, "%s", output);
    snprintf(journal_plan.key, sizeof journal_plan.key, "%s", key);
    journal_plan.resume = resume;
    journal_plan.pending = 1;
}

// the journal begun, opened at the first run set of its config: the runs it holds kept
static int journal_open(void) {
    journal_plan.pending = 0;
    const char* output = journal_plan.output;
    int rc = stepq_output_prepare(output);  // its directory (every rank: mkdir is idempotent)
    rc = stepq_ranks_agree(rc, "preparing the journal's directory");
    if (!rc && !(journal = stepq_journal_open(output, journal_plan.key, "runs", journal_plan.resume, NULL, NULL)))
        rc = STEPQ_ERR;
    uint64_t id;
    size_t size;
    const unsigned char* data;
    for (long i = 0; !rc && (data = stepq_journal_record(journal, i, &id, &size)); i++) {
        int64_t n = -1;
        if (size >= sizeof n) memcpy(&n, data, sizeof n);
        if (n < 0 || size != sizeof n + (sizeof(double) + 1) * (size_t)n) {
            stepq_error("%s.journal: record %ld is not a run's (%zu bytes): run without --resume to start over",
                        output, i, size);
            rc = STEPQ_ERR;
            break;
        }
        double* nll = mallocCheck(sizeof(double) * (size_t)(n ? n : 1));
        memcpy(nll, data + sizeof n, sizeof(double) * (size_t)n);
        keep(id, (long)n, nll, data + sizeof n + sizeof(double) * (size_t)n);
        free(nll);
    }
    return stepq_ranks_agree(rc, "reading the journal of the runs");
}

void stepq_forced_journal_end(int completed) {
    journal_plan.pending = 0;
    stepq_journal_close(journal, completed);
    journal = NULL;
}

// ---------------------------------------------------------------------------------------------
// the runs

static size_t at(const stepq_forced_set* s, int d, int k) { return ((size_t)d * s->R + k) * (size_t)s->N; }

static int argmax(const float* x, int n) {  // the first index among equal maxima
    int best = 0;
    for (int i = 1; i < n; i++)
        if (x[i] > x[best]) best = i;
    return best;
}

// document d's native prefill into seq; STEPQ_ERR (said) where it went non-finite
static int prefill(const stepq_forced_set* s, int d, stepq_lm_seq* seq) {
    float* logits = mallocCheck(sizeof(float) * s->model->vocab);
    int rc = STEPQ_OK;
    stepq_lm_seq_init(seq, s->model, s->backend);
    for (long t = 0; t < s->prefill && !rc; t++) {
        if (stepq_lm_step(seq, s->docs[d][t], logits, NULL) != STEPQ_OK) {
            stepq_error("%s: %s: the native prefill went non-finite", s->what, s->files[d]);
            rc = STEPQ_ERR;
        }
        if (s->on_prefill) s->on_prefill(s->ctx, d, t, seq);
    }
    free(logits);
    return rc;
}

// runs ks (n) of document d, each from a copy of its prefilled state, stepped in one batch
// (stepq_lm_batch); a run whose state goes non-finite is reported and the batch stops there
static int run_batch(const stepq_forced_set* s, int d, const int* ks, int n, const stepq_lm_seq* pre) {
    const long P = s->prefill;
    const uint8_t* doc = s->docs[d];
    stepq_lm_seq seq[STEPQ_LM_BATCH];
    stepq_lm_batch batch;
    stepq_lm_batch_init(&batch);
    int failed[STEPQ_LM_BATCH], nf = 0;
    for (int b = 0; b < n; b++) {
        const stepq_forced_spec* sp = &s->specs[(size_t)d * s->R + ks[b]];
        stepq_lm_seq_copy(&seq[b], pre);
        int rc = STEPQ_OK;
        if (sp->rows) rc = stepq_lm_seq_round_rows(&seq[b], sp->rows, sp->width, s->backend);
        else if (sp->fmt) rc = stepq_lm_seq_quantize(&seq[b], sp->fmt, sp->plan, s->backend);
        if (rc) failed[nf++] = b;
        else stepq_lm_batch_add(&batch, &seq[b], b);
    }
    for (long t = 0; t < s->steps[d] && batch.n > 0 && nf == 0; t++) {
        stepq_lm_batch_step(&batch, doc[P + t], failed, &nf);
        for (int q = 0; q < batch.n; q++) {
            const size_t o = at(s, d, ks[batch.id[q]]) + (size_t)t;
            s->nll[o] = stepq_lm_nll(batch.logits[q], s->model->vocab, doc[P + t + 1]);
            s->top[o] = (uint8_t)argmax(batch.logits[q], s->model->vocab);
        }
    }
    for (int q = 0; q < nf; q++)
        stepq_error("%s: %s, %s: a state went non-finite", s->what, s->files[d],
                    s->specs[(size_t)d * s->R + ks[failed[q]]].name);
    stepq_lm_batch_free(&batch);
    for (int b = 0; b < n; b++) stepq_lm_seq_free(&seq[b]);
    return nf ? STEPQ_ERR : STEPQ_OK;
}

// The runs this rank computes (todo: D x R flags), each document's in batches of up to `per`:
// unit u runs todo runs first[u] .. first[u + 1] - 1 of the list (document doc[u])
typedef struct {
    int n, *doc, *first, *list;
} units;

static void units_make(units* u, const stepq_forced_set* s, const uint8_t* todo) {
    int docs = 0, most = 0, n = 0;
    for (int d = 0; d < s->D; d++) {
        int m = 0;
        for (int k = 0; k < s->R; k++) m += todo[(size_t)d * s->R + k];
        docs += m > 0;
        most = m > most ? m : most;
        n += m;
    }
    const int per = stepq_lm_batch_runs(docs, most > 0 ? most : 1);
    u->list = mallocCheck(sizeof(int) * (size_t)(n + 1));
    u->doc = mallocCheck(sizeof(int) * (size_t)(n + 1));
    u->first = mallocCheck(sizeof(int) * (size_t)(n + 2));
    u->n = 0;
    int next = 0;
    for (int d = 0; d < s->D; d++) {
        int in_unit = 0;
        for (int k = 0; k < s->R; k++) {
            if (!todo[(size_t)d * s->R + k]) continue;
            if (in_unit == 0) u->doc[u->n] = d, u->first[u->n++] = next;
            u->list[next++] = k;
            if (++in_unit == per) in_unit = 0;
        }
    }
    u->first[u->n] = next;
}

static void units_free(units* u) {
    free(u->doc);
    free(u->first);
    free(u->list);
}

// the runs of todo: the prefills their documents need, then the batches, in parallel, each run
// journaled (under its key) as its batch ends
static int compute(const stepq_forced_set* s, const uint8_t* todo, const uint64_t* keys, stepq_progress* pr) {
    units u;
    units_make(&u, s, todo);
    stepq_lm_seq* pre = callocCheck((size_t)s->D, sizeof *pre);
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 1)
    for (int d = 0; d < s->D; d++) {
        int needed = 0, stop;
        for (int k = 0; k < s->R; k++) needed |= todo[(size_t)d * s->R + k];
#pragma omp atomic read
        stop = failed;
        if (needed && !stop && prefill(s, d, &pre[d]) != STEPQ_OK) {
#pragma omp atomic write
            failed = 1;
        }
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < u.n; i++) {
        const int n = u.first[i + 1] - u.first[i];
        int stop;
#pragma omp atomic read
        stop = failed;
        if (stop) continue;
        const int d = u.doc[i], *ks = u.list + u.first[i];
        if (run_batch(s, d, ks, n, &pre[d]) != STEPQ_OK) {
#pragma omp atomic write
            failed = 1;
        } else {
            for (int b = 0; b < n; b++)
                journal_keep(keys[(size_t)d * s->R + ks[b]], s->steps[d], s->nll + at(s, d, ks[b]),
                             s->top + at(s, d, ks[b]));
        }
        stepq_progress_add(pr, n);
    }
    for (int d = 0; d < s->D; d++)
        if (pre[d].m) stepq_lm_seq_free(&pre[d]);
    free(pre);
    units_free(&u);
    return failed ? STEPQ_ERR : STEPQ_OK;
}

int stepq_forced_run(stepq_forced_set* s) {
    const int D = s->D, R = s->R;
    stepq_assert(s->backend);  // the front end's choice, passed down (sim/backend.h)
    if (journal_plan.pending && journal_open() != STEPQ_OK) return STEPQ_ERR;
    s->N = 0;
    for (int d = 0; d < D; d++) {
        stepq_assert(s->steps[d] >= 0 && (s->steps[d] == 0 || s->prefill + s->steps[d] < s->len[d]));
        s->N = s->steps[d] > s->N ? s->steps[d] : s->N;
    }
    char what[64];
    snprintf(what, sizeof what, "%s: the per-step NLL and argmax of every document and run", s->what);
    if (stepq_check_memory(9.0 * D * R * (double)s->N, what)) return stepq_ranks_agree(STEPQ_ERR, s->what);
    s->nll = callocCheck((size_t)D * R * (size_t)s->N, sizeof(double));
    s->top = callocCheck((size_t)D * R * (size_t)s->N, 1);
    stepq_split sp;  // an MPI run: what the units wrote, merged (registered before any is written)
    stepq_split_init(&sp);
    stepq_split_add(&sp, s->nll, sizeof(double) * D * R * (size_t)s->N);
    stepq_split_add(&sp, s->top, (size_t)D * R * (size_t)s->N);
    uint64_t* keys = callocCheck((size_t)D * R, sizeof(uint64_t));
    uint8_t* todo = callocCheck((size_t)D * R, 1);
    long total = 0, taken = 0;
    for (int d = 0; d < D; d++) {
        if (s->steps[d] == 0) continue;
        const uint64_t doc = stepq_xxh3(0, s->docs[d], (size_t)s->len[d]);
        for (int k = 0; k < R; k++) {
            const size_t i = (size_t)d * R + k;
            keys[i] = key_of(s, &s->specs[i], doc);
            if (!stepq_rank_owns((long)k * D + d)) continue;  // an MPI run's units (base/ranks.h)
            total++;
            if (take(keys[i], s->steps[d], s->nll + at(s, d, k), s->top + at(s, d, k))) taken++;
            else todo[i] = 1;
        }
    }
    int rc = STEPQ_OK;
    if (taken < total) {
        stepq_progress pr;
        stepq_progress_start(&pr, s->what, "runs", total);
        stepq_progress_add(&pr, taken);
        rc = compute(s, todo, keys, &pr);
        stepq_progress_end(&pr);
    }
    if (taken > 0 && stepq_rank() == 0)
        printf("%s: %ld of %ld runs taken from earlier configs of this process or its journal (the same model, "
               "document, prefill and format)\n", s->what, taken, total);
    rc = stepq_split_end(&sp, rc, s->what);
    for (int d = 0; d < D && !rc; d++)
        for (int k = 0; k < R; k++)
            keep(keys[(size_t)d * R + k], s->steps[d], s->nll + at(s, d, k), s->top + at(s, d, k));
    free(keys);
    free(todo);
    return rc;
}

void stepq_forced_free(stepq_forced_set* s) {
    free(s->nll);
    free(s->top);
    s->nll = NULL;
    s->top = NULL;
}

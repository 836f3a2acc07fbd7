// recall.c: recall under each state format on a language model; see recall.h.
#include "recall.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../base/outfile.h"
#include "../base/ranks.h"
#include "../base/stats.h"
#include "forced.h"

#define SET_MAX_BYTES ((size_t)64 << 20)
#define MAX_BUCKETS 32
// the answer's decode position after the boundary, in octaves: [0, 512), [512, 1024), ...
#define NP 7
static const long pos_edges[NP + 1] = {0, 512, 1024, 2048, 4096, 8192, 16384, 1L << 40};

typedef struct {
    int doc;
    long def, first, start, distance;  // the definition line's first byte, the value's, the answer's
    int length, bucket, pos;
} rec;

typedef struct {
    const stepq_recall_cfg* c;
    int D, F, R, NB, cap;
    char** files;      // (D) the documents' paths
    long* seed;        // (D) the recall generator's seed of each
    uint8_t** bytes;   // (D)
    long* len;         // (D)
    long buckets[MAX_BUCKETS][2];
    rec* recs;         // (R) document by document, answer by answer
    int* first_rec;    // (D + 1) document d's records: first_rec[d] .. first_rec[d + 1] - 1
    double* nll;       // (R, 1 + F) column 0: native
    uint8_t* exact;    // (R, 1 + F)
    stepq_forced_set fs;  // the runs (analysis/forced.h): (D, 1 + F) run 0 native, 1 + f format f
} recall_run;

// ---------------------------------------------------------------------------------------------
// the recall set: its buckets, documents and records, every span checked against the bytes

static int num_of(long* out, const cJSON* o, const char* key, const char* where, const char* path) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || v->valuedouble != (double)(long)v->valuedouble) {
        stepq_error("%s: %s: '%s' is missing or not an integer", path, where, key);
        return STEPQ_ERR;
    }
    *out = (long)v->valuedouble;
    return STEPQ_OK;
}

static const char* str_of(const cJSON* o, const char* key, const char* where, const char* path) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(v)) stepq_error("%s: %s: '%s' is missing or not a string", path, where, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int read_buckets(recall_run* r, const cJSON* root, const char* path) {
    const cJSON* b = cJSON_GetObjectItemCaseSensitive(root, "buckets");
    r->NB = cJSON_IsArray(b) ? cJSON_GetArraySize(b) : 0;
    if (r->NB < 1 || r->NB > MAX_BUCKETS) {
        stepq_error("%s: 'buckets' must be a list of 1 to %d [lo, hi] distance pairs", path, MAX_BUCKETS);
        return STEPQ_ERR;
    }
    for (int i = 0; i < r->NB; i++) {
        const cJSON* p = cJSON_GetArrayItem(b, i);
        const cJSON *lo = cJSON_GetArrayItem(p, 0), *hi = cJSON_GetArrayItem(p, 1);
        if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != 2 || !cJSON_IsNumber(lo) || !cJSON_IsNumber(hi) ||
            lo->valuedouble < 0 || hi->valuedouble <= lo->valuedouble) {
            stepq_error("%s: buckets[%d] is not a [lo, hi] pair with 0 <= lo < hi", path, i);
            return STEPQ_ERR;
        }
        r->buckets[i][0] = (long)lo->valuedouble;
        r->buckets[i][1] = (long)hi->valuedouble;
    }
    return STEPQ_OK;
}

static int bucket_of(const recall_run* r, long distance) {
    for (int b = 0; b < r->NB; b++)
        if (r->buckets[b][0] <= distance && distance < r->buckets[b][1]) return b;
    return -1;
}

static int span_matches(const uint8_t* doc, long n, long at, const char* s, size_t len) {
    return at >= 0 && at + (long)len <= n && memcmp(doc + at, s, len) == 0;
}

// one span of document d: a record is kept when its definition line begins at or after the
// boundary; every record is checked against the document's bytes
static int read_span(recall_run* r, int d, const cJSON* s, const char* where, const char* path) {
    const char* kind = str_of(s, "kind", where, path);
    if (!kind) return STEPQ_ERR;
    if (strcmp(kind, "record")) return STEPQ_OK;  // a repeated passage: not scored here
    rec x = {.doc = d};
    long length;
    const char *key = str_of(s, "key", where, path), *value = key ? str_of(s, "value", where, path) : NULL;
    if (!value || num_of(&x.first, s, "first", where, path) || num_of(&x.start, s, "start", where, path) ||
        num_of(&x.distance, s, "distance", where, path) || num_of(&length, s, "length", where, path))
        return STEPQ_ERR;
    char head[64];
    const int nh = snprintf(head, sizeof head, "#%s = ", key);
    x.length = (int)length;
    x.def = x.first - nh;
    const uint8_t* doc = r->bytes[d];
    if (length != (long)strlen(value) || length < 1 || x.start < 1 || x.distance != x.start - x.first ||
        nh >= (int)sizeof head || !span_matches(doc, r->len[d], x.def, head, (size_t)nh) ||
        !span_matches(doc, r->len[d], x.first, value, (size_t)length) ||
        !span_matches(doc, r->len[d], x.start, value, (size_t)length) ||
        !span_matches(doc, r->len[d], x.start + length, ";", 1)) {
        stepq_error("%s: %s (record #%s): its first, start, distance, length or value (or the ';' after its "
                    "answer) disagree with %s", path, where, key, r->files[d]);
        return STEPQ_ERR;
    }
    x.bucket = bucket_of(r, x.distance);
    // scored when the run reads the answer and its terminator, the bytes up to start + length
    if (x.def < r->c->prefill || x.bucket < 0 || (r->c->length && x.start + x.length + 1 > r->c->length))
        return STEPQ_OK;
    for (x.pos = 0; x.start - r->c->prefill >= pos_edges[x.pos + 1]; x.pos++) {}
    if (r->R == r->cap) {  // grown by doubling
        rec* more = mallocCheck(sizeof(rec) * (size_t)(r->cap = 2 * r->cap + 64));
        if (r->R) memcpy(more, r->recs, sizeof(rec) * (size_t)r->R);
        free(r->recs);
        r->recs = more;
    }
    r->recs[r->R++] = x;
    return STEPQ_OK;
}

// answers sorted by their start within a document, and never overlapping (each byte scores
// at most one answer)
static int cmp_start(const void* a, const void* b) {
    const rec *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

// whether the set's document i is read: the first max_documents of its generator seed (all: 0)
static int wanted(recall_run* r, const cJSON* o, int i, const char* path, int* rc) {
    char where[64];
    long seed;
    snprintf(where, sizeof where, "documents[%d]", i);
    if (num_of(&seed, o, "seed", where, path)) {
        *rc = STEPQ_ERR;
        return 0;
    }
    int before = 0;
    for (int d = 0; d < r->D; d++) before += r->seed[d] == seed;
    return r->c->max_documents == 0 || before < r->c->max_documents;
}

// the set's document i, read as the run's document d
static int read_document(recall_run* r, int d, const cJSON* o, int i, const char* dir, const char* path) {
    char where[64];
    snprintf(where, sizeof where, "documents[%d]", i);
    long bytes;
    const char* file = str_of(o, "file", where, path);
    if (!file || num_of(&r->seed[d], o, "seed", where, path) || num_of(&bytes, o, "bytes", where, path))
        return STEPQ_ERR;
    r->files[d] = mallocCheck(strlen(dir) + strlen(file) + 2);
    sprintf(r->files[d], "%s%s%s", file[0] == '/' ? "" : dir, file[0] == '/' ? "" : "/", file);
    if (stepq_lm_read_text(&r->bytes[d], &r->len[d], r->files[d])) return STEPQ_ERR;
    if (r->len[d] != bytes) {
        stepq_error("%s: %s: %s holds %ld bytes, the set says %ld", path, where, r->files[d], r->len[d], bytes);
        return STEPQ_ERR;
    }
    const cJSON *spans = cJSON_GetObjectItemCaseSensitive(o, "spans"), *s;
    if (!cJSON_IsArray(spans)) {
        stepq_error("%s: %s: 'spans' is missing or not a list", path, where);
        return STEPQ_ERR;
    }
    r->first_rec[d] = r->R;
    int k = 0;
    cJSON_ArrayForEach(s, spans) {
        snprintf(where, sizeof where, "documents[%d].spans[%d]", i, k++);
        if (read_span(r, d, s, where, path)) return STEPQ_ERR;
    }
    rec* mine = r->recs + r->first_rec[d];
    const int n = r->R - r->first_rec[d];
    if (n > 1) qsort(mine, (size_t)n, sizeof(rec), cmp_start);
    for (k = 1; k < n; k++)
        if (mine[k].start < mine[k - 1].start + mine[k - 1].length) {
            stepq_error("%s: documents[%d]: two answers overlap at byte %ld", path, i, mine[k].start);
            return STEPQ_ERR;
        }
    return STEPQ_OK;
}

static int read_set(recall_run* r) {
    const char* path = r->c->set;
    size_t n;
    char* text = stepq_read_file(path, SET_MAX_BYTES, &n);
    if (!text) {
        stepq_error("%s: cannot read the recall set: %s", path, strerror(errno));
        return STEPQ_ERR;
    }
    stepq_note_input(path);
    cJSON* root = cJSON_Parse(text);
    long line = 1;  // where the JSON stops parsing
    for (const char* e = root ? NULL : cJSON_GetErrorPtr(), *p = text; e && p < e && *p; p++) line += *p == '\n';
    free(text);
    const cJSON* docs = cJSON_GetObjectItemCaseSensitive(root, "documents");
    int rc = STEPQ_ERR;
    if (!cJSON_IsArray(docs) || cJSON_GetArraySize(docs) == 0) {
        if (root) stepq_error("%s: not a recall set (tools/lm/recall.py): no list 'documents'", path);
        else stepq_error("%s:%ld: not JSON (a recall set of tools/lm/recall.py is expected)", path, line);
    } else if (!read_buckets(r, root, path)) {
        const int n_all = cJSON_GetArraySize(docs);
        r->files = callocCheck((size_t)n_all, sizeof(char*));
        r->seed = callocCheck((size_t)n_all, sizeof(long));
        r->bytes = callocCheck((size_t)n_all, sizeof(uint8_t*));
        r->len = callocCheck((size_t)n_all, sizeof(long));
        r->first_rec = callocCheck((size_t)n_all + 1, sizeof(int));
        char* copy = strdup(path);
        const char* dir = dirname(copy);  // the set's files are relative to it
        rc = STEPQ_OK;
        for (int i = 0; i < n_all && !rc; i++) {
            const cJSON* o = cJSON_GetArrayItem(docs, i);
            if (!wanted(r, o, i, path, &rc)) continue;
            rc = read_document(r, r->D, o, i, dir, path);
            r->D++;
        }
        free(copy);
        r->first_rec[r->D] = r->R;
        if (!rc && r->R == 0) {
            stepq_error("%s: no record of the %d documents read begins at or after byte %ld (the prefill)", path,
                        r->D, r->c->prefill);
            rc = STEPQ_ERR;
        }
    }
    cJSON_Delete(root);
    return rc;
}

// ---------------------------------------------------------------------------------------------
// the runs (forced.h): each document with a record forced through to its end (or to `length`),
// natively and in each format, from its native prefill; then every answer scored

// record k's answer in run `run` of document d: its NLL summed over its bytes, in order, and
// whether it is exact, the strict metric (method 7.5): every byte of the value and then its
// terminator was the argmax of the logits before it, what greedy decoding from the answer's
// start produces when it must give exactly the value and stop (a longer name is wrong)
static void score(recall_run* r, int d, int k, int run) {
    const rec* x = &r->recs[k];
    const size_t base = ((size_t)d * (1 + r->F) + run) * (size_t)r->fs.N;
    double nll = 0;
    int exact = 1;
    for (long p = x->start; p <= x->start + x->length; p++) {  // step p - P - 1 read byte p - 1
        const size_t t = base + (size_t)(p - r->c->prefill - 1);
        exact = exact && r->fs.top[t] == r->bytes[d][p];
        if (p < x->start + x->length) nll += r->fs.nll[t];  // the terminator is not the answer's
    }
    r->nll[(size_t)k * (1 + r->F) + run] = nll;
    r->exact[(size_t)k * (1 + r->F) + run] = (uint8_t)exact;
}

static int run_all(recall_run* r) {
    const stepq_recall_cfg* c = r->c;
    const int D = r->D, R = 1 + r->F;
    stepq_forced_spec* specs = callocCheck((size_t)D * R, sizeof *specs);
    long* steps = callocCheck((size_t)D, sizeof(long));
    for (int d = 0; d < D; d++) {
        const long end = c->length && c->length < r->len[d] ? c->length : r->len[d];
        if (r->first_rec[d + 1] > r->first_rec[d]) steps[d] = end - c->prefill - 1;
        specs[(size_t)d * R].name = "native";
        for (int f = 0; f < r->F; f++) {
            stepq_forced_spec* sp = &specs[(size_t)d * R + 1 + f];
            *sp = (stepq_forced_spec){.fmt = c->formats[f], .plan = c->plan, .name = c->formats[f]->name};
        }
    }
    r->fs = (stepq_forced_set){.what = "recall", .model = c->model, .backend = c->backend, .prefill = c->prefill,
                               .D = D, .R = R, .docs = r->bytes, .len = r->len,
                               .files = (const char* const*)r->files, .steps = steps, .specs = specs};
    int rc = stepq_forced_run(&r->fs);
    for (int d = 0; d < D && !rc; d++)
        for (int k = r->first_rec[d]; k < r->first_rec[d + 1]; k++)
            for (int run = 0; run < R; run++) score(r, d, k, run);
    free(specs);
    free(steps);
    return rc;
}

// ---------------------------------------------------------------------------------------------
// summaries: per group (a distance bucket or a position octave), the mean over documents of each
// document's mean, with 95% intervals over documents and over the generator's seeds

typedef struct {
    double *mean, *ci, *ci_seeds, *pooled;  // (runs, G)
} recall_stat;

// value of record k in run `run`: exact (extra = 0) or the extra NLL over native (extra = 1)
static double value_of(const recall_run* r, int k, int run, int extra) {
    const size_t at = (size_t)k * (1 + r->F);
    return extra ? r->nll[at + run] - r->nll[at] : (double)r->exact[at + run];
}

static int in_group(const rec* x, int by_pos, int g) { return (by_pos ? x->pos : x->bucket) == g; }

static int seed_seen_before(const recall_run* r, int i) {
    for (int j = 0; j < i; j++)
        if (r->seed[j] == r->seed[i]) return 1;
    return 0;
}

// out <- the mean over the records of group g in each cell that has some: a document (by_seed
// = 0) or the documents of one generator seed; *pooled <- the mean over every record of the
// group. Returns the number of cells.
static int cell_means(double* out, double* pooled, const recall_run* r, int by_pos, int g, int run, int extra,
                      int by_seed) {
    double tot = 0;
    int n = 0, cells = 0;
    for (int i = 0; i < r->D; i++) {
        if (by_seed && seed_seen_before(r, i)) continue;
        double s = 0;
        int m = 0;
        for (int d = i; d < r->D; d++) {
            if (by_seed ? r->seed[d] != r->seed[i] : d != i) continue;
            for (int k = r->first_rec[d]; k < r->first_rec[d + 1]; k++)
                if (in_group(&r->recs[k], by_pos, g)) s += value_of(r, k, run, extra), m++;
        }
        if (m) out[cells++] = s / m;
        tot += s;
        n += m;
    }
    *pooled = n ? tot / n : NAN;
    return cells;
}

// st (runs, G) for runs first_run .. first_run + runs - 1 over the groups of one kind
static void summarise(recall_stat* st, const recall_run* r, int by_pos, int G, int first_run, int runs, int extra) {
    double* cell = mallocCheck(sizeof(double) * (size_t)r->D);
    for (int k = 0; k < runs; k++)
        for (int g = 0; g < G; g++) {
            const size_t at = (size_t)k * G + g;
            double pooled, ignored;
            int n = cell_means(cell, &pooled, r, by_pos, g, first_run + k, extra, 0);
            stepq_mean_ci95(&st->mean[at], &st->ci[at], cell, n);
            if (n == 0) st->mean[at] = NAN;
            n = cell_means(cell, &ignored, r, by_pos, g, first_run + k, extra, 1);
            stepq_mean_ci95(&ignored, &st->ci_seeds[at], cell, n);
            st->pooled[at] = pooled;
        }
    free(cell);
}

static void stat_alloc(recall_stat* st, int runs, int G) {
    const size_t n = (size_t)runs * G;
    *st = (recall_stat){.mean = mallocCheck(sizeof(double) * n), .ci = mallocCheck(sizeof(double) * n),
                        .ci_seeds = mallocCheck(sizeof(double) * n), .pooled = mallocCheck(sizeof(double) * n)};
}

static void stat_free(recall_stat* st) {
    free(st->mean);
    free(st->ci);
    free(st->ci_seeds);
    free(st->pooled);
}

// exact per bucket and position (runs 1 + F), extra NLL per bucket and position (runs F)
typedef struct {
    recall_stat exact, exact_pos, extra, extra_pos;
    int* n_records;  // (NB)
} recall_summary;

static void summary_make(recall_summary* s, const recall_run* r) {
    stat_alloc(&s->exact, 1 + r->F, r->NB);
    stat_alloc(&s->exact_pos, 1 + r->F, NP);
    stat_alloc(&s->extra, r->F, r->NB);
    stat_alloc(&s->extra_pos, r->F, NP);
    summarise(&s->exact, r, 0, r->NB, 0, 1 + r->F, 0);
    summarise(&s->exact_pos, r, 1, NP, 0, 1 + r->F, 0);
    summarise(&s->extra, r, 0, r->NB, 1, r->F, 1);
    summarise(&s->extra_pos, r, 1, NP, 1, r->F, 1);
    s->n_records = callocCheck((size_t)r->NB, sizeof(int));
    for (int k = 0; k < r->R; k++) s->n_records[r->recs[k].bucket]++;
}

static void summary_free(recall_summary* s) {
    stat_free(&s->exact);
    stat_free(&s->exact_pos);
    stat_free(&s->extra);
    stat_free(&s->extra_pos);
    free(s->n_records);
}

// ---------------------------------------------------------------------------------------------
// output

static int write_table(const recall_run* r, const recall_summary* s) {
    FILE* fp = stepq_text_create(r->c->table);
    if (!fp) return STEPQ_ERR;
    fprintf(fp, "# recall: distance bucket (geometric middle, bytes), records in it, then per run (native, then "
                "each format) the exact-match accuracy, mean over %d documents of each one's share, and its 95%% CI\n",
            r->D);
    for (int b = 0; b < r->NB; b++) {
        fprintf(fp, "%.1f\t%d", sqrt((double)(r->buckets[b][0] ? r->buckets[b][0] : 1) * r->buckets[b][1]),
                s->n_records[b]);
        for (int k = 0; k <= r->F; k++)
            fprintf(fp, "\t%.6e\t%.6e", s->exact.mean[(size_t)k * r->NB + b], s->exact.ci[(size_t)k * r->NB + b]);
        fputc('\n', fp);
    }
    return stepq_text_commit(fp, r->c->table);
}

static int write_stat(hid_t f, const char* name, const recall_stat* st, int runs, int G, const char* units,
                      const char* what) {
    char n[64], d[512];
    hsize_t dims[2] = {(hsize_t)runs, (hsize_t)G};
    const hid_t T = H5T_NATIVE_DOUBLE;
    int rc = 0;
    snprintf(n, sizeof n, "%s_mean", name);
    snprintf(d, sizeof d, "%s: mean over documents of each document's mean [runs, groups]", what);
    rc = rc || h5u_write(f, n, T, st->mean, 2, dims, units, d);
    snprintf(n, sizeof n, "%s_ci95", name);
    snprintf(d, sizeof d, "%s: 95%% CI half-width over documents, NaN with fewer than two", what);
    rc = rc || h5u_write(f, n, T, st->ci, 2, dims, units, d);
    snprintf(n, sizeof n, "%s_ci95_seeds", name);
    snprintf(d, sizeof d, "%s: 95%% CI half-width over the recall generator's seeds (their means)", what);
    rc = rc || h5u_write(f, n, T, st->ci_seeds, 2, dims, units, d);
    snprintf(n, sizeof n, "%s_pooled", name);
    snprintf(d, sizeof d, "%s: mean over every record", what);
    return rc || h5u_write(f, n, T, st->pooled, 2, dims, units, d);
}

static int write_records(hid_t f, const recall_run* r) {
    long* col = mallocCheck(sizeof(long) * (size_t)r->R * 4);
    for (int k = 0; k < r->R; k++) {
        col[k] = r->recs[k].doc;
        col[r->R + k] = r->recs[k].distance;
        col[2 * r->R + k] = r->recs[k].start - r->c->prefill;
        col[3 * r->R + k] = r->recs[k].length;
    }
    hsize_t dR[1] = {(hsize_t)r->R}, dRF[2] = {(hsize_t)r->R, (hsize_t)(1 + r->F)};
    const hid_t L = H5T_NATIVE_LONG;
    int rc = h5u_write(f, "record_document", L, col, 1, dR, "index", "each record's document [R]") ||
             h5u_write(f, "record_distance", L, col + r->R, 1, dR, "bytes",
                       "bytes from the value's first occurrence to the answer [R]") ||
             h5u_write(f, "record_position", L, col + 2 * r->R, 1, dR, "steps",
                       "the answer's first byte, in decode steps after the boundary [R]") ||
             h5u_write(f, "record_length", L, col + 3 * r->R, 1, dR, "bytes", "the answer's length [R]") ||
             h5u_write(f, "nll", H5T_NATIVE_DOUBLE, r->nll, 2, dRF, "nats",
                       "teacher-forced NLL of the answer, summed over its bytes; column 0 native [R, 1+F]") ||
             h5u_write(f, "exact", H5T_NATIVE_UINT8, r->exact, 2, dRF, "1",
                       "1: every answer byte is the argmax at its position; column 0 native [R, 1+F]");
    free(col);
    return rc;
}

static int write_groups(hid_t f, const recall_run* r, const recall_summary* s, const char** names) {
    long edges[MAX_BUCKETS][2], pos[NP][2];
    memcpy(edges, r->buckets, sizeof edges);
    for (int p = 0; p < NP; p++) pos[p][0] = pos_edges[p], pos[p][1] = pos_edges[p + 1];
    hsize_t dB[2] = {(hsize_t)r->NB, 2}, dP[2] = {NP, 2}, dNB[1] = {(hsize_t)r->NB};
    return h5u_write_strings(f, "formats", names, r->F, "state formats of the recurrent layers (runs 1..F)") ||
           h5u_write(f, "buckets", H5T_NATIVE_LONG, edges, 2, dB, "bytes", "distance buckets [lo, hi) [NB, 2]") ||
           h5u_write(f, "positions", H5T_NATIVE_LONG, pos, 2, dP, "steps",
                     "decode position groups [lo, hi) of the answer after the boundary [NP, 2]") ||
           h5u_write(f, "n_records", H5T_NATIVE_INT, s->n_records, 1, dNB, "records", "records per bucket [NB]") ||
           write_stat(f, "exact", &s->exact, 1 + r->F, r->NB, "1", "exact-match accuracy per bucket, native first") ||
           write_stat(f, "exact_pos", &s->exact_pos, 1 + r->F, NP, "1",
                      "exact-match accuracy per decode position group, native first") ||
           write_stat(f, "extra_nll", &s->extra, r->F, r->NB, "nats",
                      "the answer's extra NLL over native (summed over its bytes) per bucket") ||
           write_stat(f, "extra_nll_pos", &s->extra_pos, r->F, NP, "nats",
                      "the answer's extra NLL over native per decode position group");
}

static int write_h5(const recall_run* r, const recall_summary* s) {
    const stepq_recall_cfg* c = r->c;
    const char** names = mallocCheck(sizeof(char*) * (size_t)(r->F ? r->F : 1));
    for (int k = 0; k < r->F; k++) names[k] = c->formats[k]->name;
    hid_t f = h5u_create(c->output);
    if (f < 0) {
        free(names);
        return STEPQ_ERR;
    }
    hsize_t dD[1] = {(hsize_t)r->D};
    int rc = stepq_write_provenance(f, &c->prov) || h5u_attr_i64(f, "prefill", c->prefill) ||
             h5u_attr_str(f, "model", c->model->desc) || h5u_attr_str(f, "recall_set", c->set) ||
             h5u_write_strings(f, "documents", (const char* const*)r->files, r->D, "the set's documents, in order") ||
             h5u_write(f, "document_seed", H5T_NATIVE_LONG, r->seed, 1, dD, "seed",
                       "the recall generator's seed of each document [D]") ||
             write_records(f, r) || write_groups(f, r, s, names);
    free(names);
    if (rc) {
        h5u_abandon(f, c->output);
        return STEPQ_ERR;
    }
    return h5u_commit(f, c->output);
}

static void print_summary(const recall_run* r, const recall_summary* s) {
    const stepq_recall_cfg* c = r->c;
    printf("recall: %s; %d documents of %s, %d records after a native prefill of %ld bytes\n", c->model->desc, r->D,
           c->set, r->R, c->prefill);
    printf("%-14s", "distance");
    for (int b = 0; b < r->NB; b++) printf(" %6ld-%-6ld", r->buckets[b][0], r->buckets[b][1]);
    printf("\n%-14s", "records");
    for (int b = 0; b < r->NB; b++) printf(" %13d", s->n_records[b]);
    for (int k = 0; k <= r->F; k++) {
        printf("\n%-14s", k ? c->formats[k - 1]->name : "native");
        for (int b = 0; b < r->NB; b++) {
            const size_t at = (size_t)k * r->NB + b;
            printf(isnan(s->exact.ci[at]) ? " %5.3f        " : " %5.3f +-%5.3f", s->exact.mean[at], s->exact.ci[at]);
        }
    }
    printf("\n(exact-match accuracy: mean over documents of each one's share of records answered exactly, "
           "+- 95%% CI over documents)\n");
}

static void run_free(recall_run* r) {
    for (int d = 0; d < r->D; d++) {
        if (r->files) free(r->files[d]);
        if (r->bytes) free(r->bytes[d]);
    }
    free(r->files);
    free(r->seed);
    free(r->bytes);
    free(r->len);
    free(r->recs);
    free(r->first_rec);
    free(r->nll);
    free(r->exact);
    stepq_forced_free(&r->fs);
}

int stepq_recall(const stepq_recall_cfg* c) {
    recall_run r = {.c = c, .F = c->n_formats};
    int rc = read_set(&r);
    if (!rc) {
        r.nll = callocCheck((size_t)r.R * (1 + r.F), sizeof(double));
        r.exact = callocCheck((size_t)r.R * (1 + r.F), 1);
        rc = run_all(&r);
    } else {
        rc = stepq_ranks_agree(rc, "recall");
    }
    if (!rc) {
        recall_summary s;
        summary_make(&s, &r);
        rc = (c->table && write_table(&r, &s)) || write_h5(&r, &s);
        if (!rc) print_summary(&r, &s);
        summary_free(&s);
    }
    run_free(&r);
    return rc;
}

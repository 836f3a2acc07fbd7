// nll.c: extra NLL over decode position; see nll.h.
#include "nll.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../base/outfile.h"
#include "../base/ranks.h"
#include "../base/stats.h"
#include "../sim/stream.h"
#include "../sim/sums.h"
#include "octile.h"
#include "../base/progress.h"

#define N_OCT_RUNS (STEPQ_OCT_ORDERS * STEPQ_OCT_GROUPS)

typedef struct {
    const stepq_nll_cfg* c;
    int D, F, NB;      // F: the formats' runs, then the octile runs
    uint8_t** bytes;   // (D) the documents
    double* native;    // (D, N) native NLL per decode step
    double* quant;     // (D, F, N) NLL per decode step in each run
    const char** names;  // (F) each run's name
    double* mag;       // (D, L*H*K) row RMS summed over the second half of each prefill (octiles)
    uint8_t* rows;     // (D, N_OCT_RUNS, L*H*K) 1 = the row an octile run stores at INT-width
    int failed;
} nll_run;

// the NLL of the decode steps of n runs of document d (run 0: native; 1 + f: run f), each from
// a copy of its state after the prefill, stepped in one batch (stepq_lm_batch); a run whose
// state goes non-finite is reported and the batch stops there (the driver fails)
static void decode_batch(nll_run* r, int d, const int* runs, int n, const stepq_lm_seq* prefilled) {
    const stepq_nll_cfg* c = r->c;
    const long P = c->prefill, N = c->decode;
    const int vocab = c->model->vocab;
    const size_t LHK = (size_t)c->model->layers * c->model->heads * c->model->K;
    const uint8_t* doc = r->bytes[d];
    stepq_lm_seq seq[STEPQ_LM_BATCH];
    double* out[STEPQ_LM_BATCH];  // (n) where each run's NLL goes
    stepq_lm_batch batch;
    stepq_lm_batch_init(&batch);
    int failed[STEPQ_LM_BATCH], nf = 0;
    for (int b = 0; b < n; b++) {
        const int f = runs[b] - 1;
        stepq_lm_seq_copy(&seq[b], prefilled);
        out[b] = f < 0 ? r->native + (size_t)d * N : r->quant + ((size_t)d * r->F + f) * N;
        int rc = STEPQ_OK;
        if (f >= c->n_formats)
            rc = stepq_lm_seq_round_rows(&seq[b], r->rows + ((size_t)d * N_OCT_RUNS + f - c->n_formats) * LHK,
                                         c->octile_width, c->backend);
        else if (f >= 0)
            rc = stepq_lm_seq_quantize(&seq[b], c->formats[f], c->plan, c->backend);
        if (rc) failed[nf++] = b;
        else stepq_lm_batch_add(&batch, &seq[b], b);
    }
    for (long t = 0; t < N && batch.n > 0 && nf == 0; t++) {
        stepq_lm_batch_step(&batch, doc[P + t], failed, &nf);
        for (int k = 0; k < batch.n; k++) out[batch.id[k]][t] = stepq_lm_nll(batch.logits[k], vocab, doc[P + t + 1]);
    }
    for (int k = 0; k < nf; k++) {
        stepq_error("nll: %s, %s: a state went non-finite", c->documents[d],
                    runs[failed[k]] ? r->names[runs[failed[k]] - 1] : "native");
#pragma omp atomic write
        r->failed = 1;
    }
    stepq_lm_batch_free(&batch);
    for (int b = 0; b < n; b++) stepq_lm_seq_free(&seq[b]);
}

static int read_documents(nll_run* r) {
    const stepq_nll_cfg* c = r->c;
    for (int d = 0; d < r->D; d++) {
        long n;
        if (stepq_lm_read_text(&r->bytes[d], &n, c->documents[d])) return STEPQ_ERR;
        if (n < c->prefill + c->decode + 1) {
            stepq_error("nll: %s holds %ld bytes; prefill %ld + decode %ld need %ld", c->documents[d], n, c->prefill,
                        c->decode, c->prefill + c->decode + 1);
            return STEPQ_ERR;
        }
    }
    return STEPQ_OK;
}

static size_t lhk_of(const stepq_lm* m) { return (size_t)m->layers * m->heads * m->K; }
static size_t lhk(const stepq_nll_cfg* c) { return lhk_of(c->model); }

// mag (L*H*K) += the RMS of every row of every head's state
static void add_row_rms(double* mag, const stepq_lm_seq* s) {
    const size_t V = (size_t)s->m->V, n = lhk_of(s->m);
    for (size_t i = 0; i < n; i++) mag[i] += sqrt(stepq_sq_norm_row(s->S + i * V, (int)V) / (double)V);
}

// the rows of document d's octile runs: per head, the octiles of the plan's omega, of the rows'
// prefill magnitude and of a random order (seeded by layer and head, the same for every document)
static void octile_rows(nll_run* r, int d) {
    const stepq_nll_cfg* c = r->c;
    const stepq_lm* m = c->model;
    const int K = m->K, G = STEPQ_OCT_GROUPS;
    const size_t n = lhk(c);
    int group[STEPQ_OCT_ORDERS][STEPQ_MAX_DIM];
    size_t order[STEPQ_MAX_DIM];
    uint8_t* rows = r->rows + (size_t)d * N_OCT_RUNS * n;
    memset(rows, 0, N_OCT_RUNS * n);
    for (int l = 0; l < m->layers; l++)
        for (int h = 0; h < m->heads; h++) {
            const size_t at = ((size_t)l * m->heads + h) * K;
            const int ph = stepq_plan_find(c->plan, l, h);
            stepq_octile_groups(group[STEPQ_OCT_OMEGA], c->plan->omega + (size_t)ph * K, order, K);
            stepq_octile_groups(group[STEPQ_OCT_MAGNITUDE], r->mag + (size_t)d * n + at, order, K);
            stepq_octile_random(group[STEPQ_OCT_RANDOM], K, stepq_head_seed(0x6f6374696c65ull, l, h));
            for (int o = 0; o < STEPQ_OCT_ORDERS; o++)
                for (int i = 0; i < K; i++) rows[(size_t)(o * G + group[o][i]) * n + at + i] = 1;
        }
}

// An MPI run's units (base/ranks.h) are the runs, document d's native decode (run 0) or format
// f's (run 1 + f), numbered run-major, run D + d: N ranks then take whole documents while N
// divides D (no prefill is repeated), and each takes a share of every run, whose costs differ
// (numbered document-major, 2 ranks of a one-format config took one the native runs and the
// other every quantized one: 104 s against 76 s for one process of 2 threads)
static int owns_run(const nll_run* r, int d, int run) { return stepq_rank_owns((long)run * r->D + d); }

static int document_needed(const nll_run* r, int d) {
    for (int run = 0; run <= r->F; run++)
        if (owns_run(r, d, run)) return 1;
    return 0;
}

// every document's prefill, then every (document, format) decode in parallel
static void run_all(nll_run* r) {
    const stepq_nll_cfg* c = r->c;
    stepq_lm_seq* pre = callocCheck((size_t)r->D, sizeof *pre);
    float* logits = mallocCheck(sizeof(float) * c->model->vocab);
    stepq_progress pr;
    stepq_progress_start(&pr, "nll", "decode runs", (long)r->D * (r->F + 1));
#pragma omp parallel for schedule(dynamic, 1)
    for (int d = 0; d < r->D; d++) {
        if (!document_needed(r, d)) continue;
        float* lg = mallocCheck(sizeof(float) * c->model->vocab);
        stepq_lm_seq_init(&pre[d], c->model);
        for (long t = 0; t < c->prefill && !r->failed; t++) {
            if (stepq_lm_step(&pre[d], r->bytes[d][t], lg, NULL) != STEPQ_OK) {
                stepq_error("nll: %s: the native prefill went non-finite", c->documents[d]);
#pragma omp atomic write
                r->failed = 1;
            }
            if (r->mag && 2 * t >= c->prefill) add_row_rms(r->mag + (size_t)d * lhk(c), &pre[d]);
        }
        free(lg);
        if (r->rows) octile_rows(r, d);
    }
    // each document's runs that this rank owns, in batches of up to `per`: unit u is batch u % nb
    // of document u / nb
    const int runs = r->F + 1, per = stepq_lm_batch_runs(r->D, runs), nb = (runs + per - 1) / per;
#pragma omp parallel for schedule(dynamic, 1)
    for (int u = 0; u < r->D * nb; u++) {
        const int d = u / nb;
        int list[STEPQ_LM_BATCH], n = 0;
        for (int run = (u % nb) * per; run < runs && run < (u % nb + 1) * per; run++)
            if (owns_run(r, d, run)) list[n++] = run;
        if (r->failed || n == 0) continue;
        decode_batch(r, d, list, n, &pre[d]);
        for (int k = 0; k < n; k++) stepq_progress_tick(&pr);
    }
    stepq_progress_end(&pr);
    for (int d = 0; d < r->D; d++)
        if (pre[d].m) stepq_lm_seq_free(&pre[d]);
    free(pre);
    free(logits);
}

typedef struct {
    double *extra, *mean, *ci, *bpb_native, *bpb, *window;  // (D,F,NB) (F,NB) (F,NB) (D) (D,F) (D,F)
} nll_summary;

static void summarise(nll_summary* s, const nll_run* r) {
    const long N = r->c->decode, B = r->c->bin;
    const int D = r->D, F = r->F, NB = r->NB;
    for (int d = 0; d < D; d++) {
        const double* nat = r->native + (size_t)d * N;
        double sn = 0;
        for (long n = 0; n < N; n++) sn += nat[n];
        s->bpb_native[d] = sn / N / M_LN2;
        for (int f = 0; f < F; f++) {
            const double* q = r->quant + ((size_t)d * F + f) * N;
            double sq = 0;
            for (int b = 0; b < NB; b++) {
                double e = 0;
                for (long n = b * B; n < (b + 1) * B; n++) e += q[n] - nat[n];
                s->extra[((size_t)d * F + f) * NB + b] = e / B;
            }
            for (long n = 0; n < N; n++) sq += q[n];
            s->bpb[(size_t)d * F + f] = sq / N / M_LN2;
            s->window[(size_t)d * F + f] = (sq - sn) / N;
        }
    }
    double* col = mallocCheck(sizeof(double) * D);
    for (int f = 0; f < F; f++)
        for (int b = 0; b < NB; b++) {
            for (int d = 0; d < D; d++) col[d] = s->extra[((size_t)d * F + f) * NB + b];
            stepq_mean_ci95(&s->mean[(size_t)f * NB + b], &s->ci[(size_t)f * NB + b], col, D);
        }
    free(col);
}

static int write_table(const nll_run* r, const nll_summary* s) {
    FILE* fp = stepq_text_create(r->c->table);
    if (!fp) return STEPQ_ERR;
    fprintf(fp, "# nll: decode step at the bin's middle, then per format the extra NLL (nats per byte) over "
                "the native model, mean and 95%% CI over %d documents\n", r->D);
    for (int b = 0; b < r->NB; b++) {
        fprintf(fp, "%ld", b * (long)r->c->bin + r->c->bin / 2);
        for (int f = 0; f < r->F; f++)
            fprintf(fp, "\t%.6e\t%.6e", s->mean[(size_t)f * r->NB + b], s->ci[(size_t)f * r->NB + b]);
        fputc('\n', fp);
    }
    return stepq_text_commit(fp, r->c->table);
}

// the octile runs' whole-window extra NLL: octile (1 = lowest), then mean and CI of each order
static int write_octile_table(const nll_run* r, const nll_summary* s, const char* path) {
    const int D = r->D, F = r->F, F0 = r->c->n_formats;
    FILE* fp = stepq_text_create(path);
    if (!fp) return STEPQ_ERR;
    fprintf(fp, "# nll octiles: octile (1 = lowest), then per order (omega magnitude random) the extra NLL "
                "(nats per byte) over the whole decode window with one octile of rows at INT%d, mean and 95%% CI "
                "over %d documents\n", r->c->octile_width, D);
    double* col = mallocCheck(sizeof(double) * D);
    for (int g = 0; g < STEPQ_OCT_GROUPS; g++) {
        fprintf(fp, "%d", g + 1);
        for (int o = 0; o < STEPQ_OCT_ORDERS; o++) {
            double mean, ci;
            for (int d = 0; d < D; d++) col[d] = s->window[(size_t)d * F + F0 + o * STEPQ_OCT_GROUPS + g];
            stepq_mean_ci95(&mean, &ci, col, D);
            fprintf(fp, "\t%.6e\t%.6e", mean, ci);
        }
        fputc('\n', fp);
    }
    free(col);
    return stepq_text_commit(fp, path);
}

static int write_h5(const nll_run* r, const nll_summary* s) {
    const stepq_nll_cfg* c = r->c;
    const int D = r->D, F = r->F, NB = r->NB;
    hid_t f = h5u_create(c->output);
    if (f < 0) return STEPQ_ERR;
    long* steps = mallocCheck(sizeof(long) * NB);
    for (int b = 0; b < NB; b++) steps[b] = (long)b * c->bin;
    hsize_t dD[1] = {(hsize_t)D}, dNB[1] = {(hsize_t)NB}, dDN[2] = {(hsize_t)D, (hsize_t)c->decode};
    hsize_t dDFB[3] = {(hsize_t)D, (hsize_t)F, (hsize_t)NB}, dFB[2] = {(hsize_t)F, (hsize_t)NB}, dDF[2] = {(hsize_t)D, (hsize_t)F};
    hid_t T = H5T_NATIVE_DOUBLE;
    int rc = stepq_write_provenance(f, &c->prov) || h5u_attr_i64(f, "prefill", c->prefill) ||
             h5u_attr_i64(f, "decode", c->decode) || h5u_attr_i64(f, "bin", c->bin) ||
             h5u_attr_str(f, "model", c->model->desc) ||
             h5u_write_strings(f, "documents", c->documents, D, "held-out documents, in the order of the first axis") ||
             h5u_attr_i64(f, "octile_width", c->octile_width) ||
             h5u_write_strings(f, "formats", r->names, F,
                               "state formats of the recurrent layers, then the octile runs (order-octile)") ||
             h5u_write(f, "decode_step", H5T_NATIVE_LONG, steps, 1, dNB, "steps", "first decode step of each bin") ||
             h5u_write(f, "nll_native", T, r->native, 2, dDN, "nats", "native float32 NLL of each decode step [D,N]") ||
             h5u_write(f, "extra", T, s->extra, 3, dDFB, "nats",
                       "extra NLL over the native model, mean over each bin [D,F,NB]") ||
             h5u_write(f, "extra_mean", T, s->mean, 2, dFB, "nats", "mean over documents [F,NB]") ||
             h5u_write(f, "extra_ci95", T, s->ci, 2, dFB, "nats",
                       "95% CI half-width over documents, NaN with one document [F,NB]") ||
             h5u_write(f, "bpb_native", T, s->bpb_native, 1, dD, "bits/byte", "native bits per byte over the decode window [D]") ||
             h5u_write(f, "bpb", T, s->bpb, 2, dDF, "bits/byte", "bits per byte over the decode window in each format [D,F]") ||
             h5u_write(f, "extra_window", T, s->window, 2, dDF, "nats",
                       "mean extra NLL per byte over the whole decode window [D,F]");
    free(steps);
    if (rc) {
        h5u_abandon(f, c->output);
        return STEPQ_ERR;
    }
    return h5u_commit(f, c->output);
}

static void print_summary(const nll_run* r, const nll_summary* s) {
    const stepq_nll_cfg* c = r->c;
    const int D = r->D, F = r->F, NB = r->NB;
    double nb = 0;
    for (int d = 0; d < D; d++) nb += s->bpb_native[d] / D;
    printf("nll: %s; %d documents, native prefill %ld, %ld forced decode steps; native %.4f bits per byte\n",
           c->model->desc, D, c->prefill, c->decode, nb);
    printf("%-16s %22s %22s %10s\n", "format", "extra NLL, first bin", "extra NLL, last bin", "bits/byte");
    for (int f = 0; f < F; f++) {
        double b = 0;
        for (int d = 0; d < D; d++) b += s->bpb[(size_t)d * F + f] / D;
        printf("%-16s %10.4f +- %-9.4f %10.4f +- %-9.4f %10.4f\n", r->names[f], s->mean[(size_t)f * NB],
               s->ci[(size_t)f * NB], s->mean[(size_t)f * NB + NB - 1], s->ci[(size_t)f * NB + NB - 1], b);
    }
    printf("(extra NLL in nats per byte over the native float32 model, bins of %d steps, mean +- 95%% CI over "
           "documents; the paper, uniform INT6: 0.102 -> 2.102 (Qwen), 0.0228 -> 0.1422 (KDA))\n", c->bin);
}

// the octile sweep's width has a format, and the plan an omega for every head
static int octile_checks(const stepq_nll_cfg* c) {
    if (!c->plan || c->octile_width < 4 || c->octile_width > 8 || c->octile_width % 2) {
        stepq_error("nll: the octile sweep needs a plan (its omega) and a width of 4, 6 or 8 (a per-row absmax "
                    "format int<width>), not %d", c->octile_width);
        return STEPQ_ERR;
    }
    for (int i = 0; i < c->model->layers * c->model->heads; i++)
        if (stepq_plan_find(c->plan, i / c->model->heads, i % c->model->heads) < 0 || c->plan->K != c->model->K) {
            stepq_error("nll: the plan has no omega for layer %d, head %d of %s", i / c->model->heads,
                        i % c->model->heads, c->model->desc);
            return STEPQ_ERR;
        }
    return STEPQ_OK;
}

int stepq_nll(const stepq_nll_cfg* c) {
    if (c->bin < 1 || c->decode % c->bin) {
        stepq_error("nll: bin %d must divide decode %ld", c->bin, c->decode);
        return STEPQ_ERR;
    }
    if (c->octile_width && octile_checks(c) != STEPQ_OK) return STEPQ_ERR;
    nll_run r = {.c = c, .D = c->n_documents, .F = c->n_formats + (c->octile_width ? N_OCT_RUNS : 0),
                 .NB = (int)(c->decode / c->bin)};
    const double need = 8.0 * r.D * (r.F + 1) * c->decode;
    if (stepq_check_memory(need, "nll: the per-step NLL of every document and format")) return STEPQ_ERR;
    char names[N_OCT_RUNS][32];
    r.names = mallocCheck(sizeof(char*) * r.F);
    for (int f = 0; f < c->n_formats; f++) r.names[f] = c->formats[f]->name;
    for (int k = 0; c->octile_width && k < N_OCT_RUNS; k++) {
        snprintf(names[k], sizeof names[k], "%s-%d", stepq_octile_order_names[k / STEPQ_OCT_GROUPS],
                 k % STEPQ_OCT_GROUPS + 1);
        r.names[c->n_formats + k] = names[k];
    }
    if (c->octile_width) {
        r.mag = callocCheck((size_t)r.D * lhk(c), sizeof(double));
        r.rows = mallocCheck((size_t)r.D * N_OCT_RUNS * lhk(c));
    }
    r.bytes = callocCheck((size_t)r.D, sizeof *r.bytes);
    r.native = callocCheck((size_t)r.D * c->decode, sizeof(double));
    r.quant = callocCheck((size_t)r.D * r.F * c->decode, sizeof(double));
    int rc = read_documents(&r);
    if (!rc) {
        stepq_split sp;  // an MPI run: what the units wrote, merged
        stepq_split_init(&sp);
        stepq_split_add(&sp, r.native, sizeof(double) * r.D * c->decode);
        stepq_split_add(&sp, r.quant, sizeof(double) * r.D * r.F * c->decode);
        run_all(&r);
        rc = stepq_split_end(&sp, r.failed ? STEPQ_ERR : STEPQ_OK, "nll");
    } else {
        rc = stepq_ranks_agree(rc, "nll");
    }
    if (!rc) {
        nll_summary s = {mallocCheck(sizeof(double) * r.D * r.F * r.NB), mallocCheck(sizeof(double) * r.F * r.NB),
                         mallocCheck(sizeof(double) * r.F * r.NB), mallocCheck(sizeof(double) * r.D),
                         mallocCheck(sizeof(double) * r.D * r.F), mallocCheck(sizeof(double) * r.D * r.F)};
        summarise(&s, &r);
        rc = (c->table && write_table(&r, &s)) ||
             (c->octile_width && c->octile_table && write_octile_table(&r, &s, c->octile_table)) ||
             write_h5(&r, &s);
        if (!rc) print_summary(&r, &s);
        free(s.extra); free(s.mean); free(s.ci); free(s.bpb_native); free(s.bpb); free(s.window);
    }
    for (int d = 0; d < r.D; d++) free(r.bytes[d]);
    free(r.bytes);
    free(r.native);
    free(r.quant);
    free(r.names);
    free(r.mag);
    free(r.rows);
    return rc;
}

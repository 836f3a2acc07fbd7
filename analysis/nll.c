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
#include "forced.h"
#include "octile.h"

#define N_OCT_RUNS (STEPQ_OCT_ORDERS * STEPQ_OCT_GROUPS)

typedef struct {
    const stepq_nll_cfg* c;
    int D, F, NB;      // F: the formats' runs, then the octile runs
    uint8_t** bytes;   // (D) the documents
    long* len;         // (D) their lengths
    stepq_forced_set fs;  // the runs (analysis/forced.h): (D, 1 + F) run 0 native, 1 + f run f
    const char** names;  // (F) each run's name
    double* mag;       // (D, L*H*K) row RMS summed over the second half of each prefill (octiles)
    uint8_t* rows;     // (D, N_OCT_RUNS, L*H*K) 1 = the row an octile run stores at INT-width
} nll_run;

// the NLL per decode step of document d's native run and of its run f
static const double* native_of(const nll_run* r, int d) {
    return r->fs.nll + (size_t)d * (r->F + 1) * (size_t)r->c->decode;
}
static const double* run_of(const nll_run* r, int d, int f) {
    return r->fs.nll + ((size_t)d * (r->F + 1) + 1 + f) * (size_t)r->c->decode;
}

static int read_documents(nll_run* r) {
    const stepq_nll_cfg* c = r->c;
    for (int d = 0; d < r->D; d++) {
        long n;
        if (stepq_lm_read_text(&r->bytes[d], &n, c->documents[d])) return STEPQ_ERR;
        r->len[d] = n;
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

// after prefill step t of document d: the rows' magnitudes over the second half, then the octiles
static void on_prefill(void* ctx, int d, long t, const stepq_lm_seq* s) {
    nll_run* r = ctx;
    if (2 * t >= r->c->prefill) add_row_rms(r->mag + (size_t)d * lhk(r->c), s);
    if (t == r->c->prefill - 1) octile_rows(r, d);
}

// every document's runs: native, each format, the octile rows (forced.h). An MPI run's units
// are the runs, document d's run k numbered k D + d: N ranks then take whole documents while N
// divides D (no prefill is repeated), and each takes a share of every run, whose costs differ
// (numbered document-major, 2 ranks of a one-format config took one the native runs and the
// other every quantized one: 104 s against 76 s for one process of 2 threads)
static int run_all(nll_run* r) {
    const stepq_nll_cfg* c = r->c;
    const int R = r->F + 1;
    const size_t n = lhk(c);
    stepq_forced_spec* specs = callocCheck((size_t)r->D * R, sizeof *specs);
    long* steps = mallocCheck(sizeof(long) * (size_t)r->D);
    for (int d = 0; d < r->D; d++) {
        steps[d] = c->decode;
        stepq_forced_spec* sp = specs + (size_t)d * R;
        sp[0].name = "native";
        for (int f = 0; f < r->F; f++) {
            sp[1 + f].name = r->names[f];
            if (f < c->n_formats) sp[1 + f].fmt = c->formats[f], sp[1 + f].plan = c->plan;
            else sp[1 + f].rows = r->rows + ((size_t)d * N_OCT_RUNS + f - c->n_formats) * n, sp[1 + f].width = c->octile_width;
        }
    }
    r->fs = (stepq_forced_set){.what = "nll", .model = c->model, .backend = c->backend, .prefill = c->prefill,
                               .D = r->D, .R = R, .docs = r->bytes, .len = r->len,
                               .files = c->documents, .steps = steps, .specs = specs,
                               .on_prefill = r->mag ? on_prefill : NULL, .ctx = r};
    for (int d = 0; r->rows && c->prefill == 0 && d < r->D; d++) octile_rows(r, d);  // no prefill step to call
    const int rc = stepq_forced_run(&r->fs);
    free(specs);
    free(steps);
    return rc;
}

typedef struct {
    double *extra, *mean, *ci, *bpb_native, *bpb, *window;  // (D,F,NB) (F,NB) (F,NB) (D) (D,F) (D,F)
    // the octile sweep: per order and octile the whole window's extra NLL, mean and 95% CI over
    // documents (ORDERS, GROUPS), and per order the Spearman of octile index against that mean
    double oct_mean[N_OCT_RUNS], oct_ci[N_OCT_RUNS], oct_spearman[STEPQ_OCT_ORDERS];
} nll_summary;

static void summarise(nll_summary* s, const nll_run* r) {
    const long N = r->c->decode, B = r->c->bin;
    const int D = r->D, F = r->F, NB = r->NB;
    for (int d = 0; d < D; d++) {
        const double* nat = native_of(r, d);
        double sn = 0;
        for (long n = 0; n < N; n++) sn += nat[n];
        s->bpb_native[d] = sn / N / M_LN2;
        for (int f = 0; f < F; f++) {
            const double* q = run_of(r, d, f);
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
    for (int o = 0; r->c->octile_width && o < STEPQ_OCT_ORDERS; o++) {
        double idx[STEPQ_OCT_GROUPS];
        for (int g = 0; g < STEPQ_OCT_GROUPS; g++) {
            const int k = o * STEPQ_OCT_GROUPS + g;
            for (int d = 0; d < D; d++) col[d] = s->window[(size_t)d * F + r->c->n_formats + k];
            stepq_mean_ci95(&s->oct_mean[k], &s->oct_ci[k], col, D);
            idx[g] = g + 1;
        }
        s->oct_spearman[o] = stepq_spearman(idx, s->oct_mean + o * STEPQ_OCT_GROUPS, STEPQ_OCT_GROUPS);
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
    FILE* fp = stepq_text_create(path);
    if (!fp) return STEPQ_ERR;
    fprintf(fp, "# nll octiles: octile (1 = lowest), then per order (omega magnitude random) the extra NLL "
                "(nats per byte) over the whole decode window with one octile of rows at INT%d, mean and 95%% CI "
                "over %d documents\n", r->c->octile_width, r->D);
    for (int g = 0; g < STEPQ_OCT_GROUPS; g++) {
        fprintf(fp, "%d", g + 1);
        for (int o = 0; o < STEPQ_OCT_ORDERS; o++)
            fprintf(fp, "\t%.6e\t%.6e", s->oct_mean[o * STEPQ_OCT_GROUPS + g], s->oct_ci[o * STEPQ_OCT_GROUPS + g]);
        fputc('\n', fp);
    }
    return stepq_text_commit(fp, path);
}

// the octile sweep's summaries: the window's extra NLL per order and octile, and its Spearman
static int write_octile_h5(hid_t f, const nll_summary* s) {
    hsize_t dOG[2] = {STEPQ_OCT_ORDERS, STEPQ_OCT_GROUPS}, dO[1] = {STEPQ_OCT_ORDERS};
    return h5u_write_strings(f, "octile_orders", stepq_octile_order_names, STEPQ_OCT_ORDERS,
                             "row orders of the octile sweep, in the order of the first axis") ||
           h5u_write(f, "octile_extra_mean", H5T_NATIVE_DOUBLE, s->oct_mean, 2, dOG, "nats",
                     "extra NLL per byte over the whole window with one octile at INT-width, mean over "
                     "documents [order, octile] (octile 1 = lowest)") ||
           h5u_write(f, "octile_extra_ci95", H5T_NATIVE_DOUBLE, s->oct_ci, 2, dOG, "nats",
                     "95% CI half-width of octile_extra_mean over documents, NaN with one document [order, octile]") ||
           h5u_write(f, "octile_spearman", H5T_NATIVE_DOUBLE, s->oct_spearman, 1, dO, "1",
                     "Spearman of octile index (1 = lowest) against octile_extra_mean, per order (1: the error "
                     "rises with the order's key)");
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
    double* native = mallocCheck(sizeof(double) * D * (size_t)c->decode);  // [D, N] out of the runs' (D, 1 + F, N)
    for (int d = 0; d < D; d++) memcpy(native + (size_t)d * c->decode, native_of(r, d), sizeof(double) * c->decode);
    int rc = stepq_write_provenance(f, &c->prov) || h5u_attr_i64(f, "prefill", c->prefill) ||
             h5u_attr_i64(f, "decode", c->decode) || h5u_attr_i64(f, "bin", c->bin) ||
             h5u_attr_str(f, "model", c->model->desc) ||
             h5u_write_strings(f, "documents", c->documents, D, "held-out documents, in the order of the first axis") ||
             h5u_attr_i64(f, "octile_width", c->octile_width) ||
             h5u_write_strings(f, "formats", r->names, F,
                               "state formats of the recurrent layers, then the octile runs (order-octile)") ||
             h5u_write(f, "decode_step", H5T_NATIVE_LONG, steps, 1, dNB, "steps", "first decode step of each bin") ||
             h5u_write(f, "nll_native", T, native, 2, dDN, "nats", "native float32 NLL of each decode step [D,N]") ||
             h5u_write(f, "extra", T, s->extra, 3, dDFB, "nats",
                       "extra NLL over the native model, mean over each bin [D,F,NB]") ||
             h5u_write(f, "extra_mean", T, s->mean, 2, dFB, "nats", "mean over documents [F,NB]") ||
             h5u_write(f, "extra_ci95", T, s->ci, 2, dFB, "nats",
                       "95% CI half-width over documents, NaN with one document [F,NB]") ||
             h5u_write(f, "bpb_native", T, s->bpb_native, 1, dD, "bits/byte", "native bits per byte over the decode window [D]") ||
             h5u_write(f, "bpb", T, s->bpb, 2, dDF, "bits/byte", "bits per byte over the decode window in each format [D,F]") ||
             h5u_write(f, "extra_window", T, s->window, 2, dDF, "nats",
                       "mean extra NLL per byte over the whole decode window [D,F]") ||
             (c->octile_width && write_octile_h5(f, s));
    free(steps);
    free(native);
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
    if (c->octile_width) {
        printf("octile sweep, Spearman of octile (1 = lowest) against its mean extra NLL over the window:");
        for (int o = 0; o < STEPQ_OCT_ORDERS; o++)
            printf("%s %s %.2f", o ? "," : "", stepq_octile_order_names[o], s->oct_spearman[o]);
        putchar('\n');
    }
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
    r.len = callocCheck((size_t)r.D, sizeof *r.len);
    int rc = read_documents(&r);
    rc = rc ? stepq_ranks_agree(rc, "nll") : run_all(&r);
    if (!rc) {
        nll_summary s = {.extra = mallocCheck(sizeof(double) * r.D * r.F * r.NB),
                         .mean = mallocCheck(sizeof(double) * r.F * r.NB), .ci = mallocCheck(sizeof(double) * r.F * r.NB),
                         .bpb_native = mallocCheck(sizeof(double) * r.D), .bpb = mallocCheck(sizeof(double) * r.D * r.F),
                         .window = mallocCheck(sizeof(double) * r.D * r.F)};
        summarise(&s, &r);
        rc = (c->table && write_table(&r, &s)) ||
             (c->octile_width && c->octile_table && write_octile_table(&r, &s, c->octile_table)) ||
             write_h5(&r, &s);
        if (!rc) print_summary(&r, &s);
        free(s.extra); free(s.mean); free(s.ci); free(s.bpb_native); free(s.bpb); free(s.window);
    }
    for (int d = 0; d < r.D; d++) free(r.bytes[d]);
    free(r.bytes);
    free(r.len);
    stepq_forced_free(&r.fs);
    free(r.names);
    free(r.mag);
    free(r.rows);
    return rc;
}

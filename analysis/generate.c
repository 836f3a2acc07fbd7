// generate.c: free-running generation under each state format; see generate.h.
#include "generate.h"

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../base/outfile.h"
#include "../base/ranks.h"
#include "../base/stats.h"
#include "../base/progress.h"

#define WINDOW 16  // the repeat rate's window, bytes

// the next byte: top-k of the logits at temperature 1, drawn with u in [0, 1)
static int sample(const float* logits, int vocab, int k, double u) {
    int idx[256];
    for (int i = 0; i < vocab; i++) idx[i] = i;
    for (int a = 0; a < k; a++)  // partial selection sort: the k largest, ties to the lower byte
        for (int b = a + 1; b < vocab; b++)
            if (logits[idx[b]] > logits[idx[a]]) {
                int t = idx[a];
                idx[a] = idx[b];
                idx[b] = t;
            }
    double p[256], s = 0, mx = logits[idx[0]];
    for (int a = 0; a < k; a++) s += p[a] = exp((double)logits[idx[a]] - mx);
    double c = 0;
    for (int a = 0; a < k; a++) {
        c += p[a] / s;
        if (u < c) return idx[a];
    }
    return idx[k - 1];
}

// the share of the WINDOW-byte windows of t (n) that occurred earlier in t
static double repeat_rate(const uint8_t* t, long n) {
    long rep = 0, all = 0;
    for (long i = WINDOW; i + WINDOW <= n; i++, all++)
        for (long j = 0; j < i; j++)
            if (!memcmp(t + i, t + j, WINDOW)) {
                rep++;
                break;
            }
    return all ? (double)rep / all : NAN;
}

// mean and 90th percentile of the lengths of t's lines (the last, unterminated, included)
static void line_lengths(double* mean, double* p90, const uint8_t* t, long n) {
    double* len = mallocCheck(sizeof(double) * (n + 1));
    long nl = 0, start = 0;
    for (long i = 0; i < n; i++)
        if (t[i] == '\n') len[nl++] = (double)(i - start), start = i + 1;
    if (start < n) len[nl++] = (double)(n - start);
    gsl_sort(len, 1, (size_t)nl);
    *mean = nl ? gsl_stats_mean(len, 1, (size_t)nl) : NAN;
    *p90 = nl ? gsl_stats_quantile_from_sorted_data(len, 1, (size_t)nl, 0.9) : NAN;
    free(len);
}

// one generation: the prompt natively, then `length` sampled bytes in format f (fp32 through the
// protocol is the native model, bit for bit: tests/test_lm.c)
static int generate_one(uint8_t* out, const stepq_generate_cfg* c, const uint8_t* prompt, long np,
                        const stepq_format* f, uint64_t seed) {
    const stepq_lm* m = c->model;
    stepq_lm_seq s;
    stepq_lm_seq_init(&s, m, c->backend);
    float* logits = mallocCheck(sizeof(float) * m->vocab);
    int rc = STEPQ_OK;
    for (long t = 0; t < np && !rc; t++) rc = stepq_lm_step(&s, prompt[t], logits, NULL);
    if (!rc) rc = stepq_lm_seq_quantize(&s, f, c->plan, c->backend);
    gsl_rng* r = gsl_rng_alloc(gsl_rng_taus2);
    gsl_rng_set(r, (unsigned long)(seed * 0x9e3779b97f4a7c15ull + 0x67656e));
    for (long t = 0; t < c->length && !rc; t++) {
        out[t] = (uint8_t)sample(logits, m->vocab, c->top_k, gsl_rng_uniform(r));
        rc = stepq_lm_step(&s, out[t], logits, NULL);
    }
    gsl_rng_free(r);
    free(logits);
    stepq_lm_seq_free(&s);
    return rc;
}

typedef struct {
    double *rep, *mean, *p90;  // (F, P, S)
    uint8_t* text;             // (F, P, length) the first seed's generations
} gen_out;

static int write_out(const stepq_generate_cfg* c, const gen_out* g) {
    const int F = c->n_formats, P = c->n_prompts, S = c->n_seeds;
    const size_t n = (size_t)P * S;
    double *m = mallocCheck(sizeof(double) * F * 3), *ci = mallocCheck(sizeof(double) * F * 3);
    const double* arr[3] = {g->rep, g->mean, g->p90};
    for (int k = 0; k < 3; k++)
        for (int f = 0; f < F; f++) stepq_mean_ci95(&m[k * F + f], &ci[k * F + f], arr[k] + (size_t)f * n, (int)n);
    FILE* tsv = c->table ? stepq_text_create(c->table) : NULL;
    FILE* txt = c->samples ? stepq_text_create(c->samples) : NULL;
    int rc = (c->table && !tsv) || (c->samples && !txt);
    if (tsv) {
        fprintf(tsv, "# generate: format index, name, then repeat rate, mean line length, p90 line length, "
                     "each mean and 95%% CI over prompts x seeds\n");
        for (int f = 0; f < F; f++) {
            fprintf(tsv, "%d\t%s", f, c->formats[f]->name);
            for (int k = 0; k < 3; k++) fprintf(tsv, "\t%.6e\t%.6e", m[k * F + f], ci[k * F + f]);
            fputc('\n', tsv);
        }
    }
    for (int f = 0; txt && f < F; f++)
        for (int p = 0; p < P; p++) {
            fprintf(txt, "===== %s, prompt %s, seed %llu\n", c->formats[f]->name, c->prompts[p],
                    (unsigned long long)c->seeds[0]);
            fwrite(g->text + ((size_t)f * P + p) * c->length, 1, (size_t)c->length, txt);
            fputs("\n\n", txt);
        }
    if (tsv) rc |= rc ? (stepq_text_abandon(tsv, c->table), 1) : stepq_text_commit(tsv, c->table);
    if (txt) rc |= rc ? (stepq_text_abandon(txt, c->samples), 1) : stepq_text_commit(txt, c->samples);
    hid_t h = rc ? -1 : h5u_create(c->output);
    const char** fn = mallocCheck(sizeof(char*) * F);
    for (int f = 0; f < F; f++) fn[f] = c->formats[f]->name;
    hsize_t d3[3] = {(hsize_t)F, (hsize_t)P, (hsize_t)S}, dF[1] = {(hsize_t)F}, dS[1] = {(hsize_t)S};
    static const char* const names[3] = {"repeat_rate", "line_mean", "line_p90"};
    static const char* const units[3] = {"1", "bytes", "bytes"};
    static const char* const desc[3] = {"share of 16-byte windows already seen earlier in the generation [F,P,S]",
                                        "mean line length [F,P,S]", "90th percentile of line lengths [F,P,S]"};
    rc = rc || h < 0 || stepq_write_provenance(h, &c->prov) || h5u_attr_i64(h, "length", c->length) ||
         h5u_attr_i64(h, "top_k", c->top_k) || h5u_attr_str(h, "model", c->model->desc) ||
         h5u_write_strings(h, "formats", fn, F, "state formats (the first may be the native fp32)") ||
         h5u_write_strings(h, "prompts", c->prompts, P, "prompt files") ||
         h5u_write(h, "seeds", H5T_NATIVE_UINT64, c->seeds, 1, dS, NULL, "sampling seeds");
    for (int k = 0; k < 3 && !rc; k++) {
        char a[64], b[64];
        snprintf(a, sizeof a, "%s_mean", names[k]);
        snprintf(b, sizeof b, "%s_ci95", names[k]);
        rc = h5u_write(h, names[k], H5T_NATIVE_DOUBLE, arr[k], 3, d3, units[k], desc[k]) ||
             h5u_write(h, a, H5T_NATIVE_DOUBLE, m + k * F, 1, dF, units[k], "mean over prompts x seeds [F]") ||
             h5u_write(h, b, H5T_NATIVE_DOUBLE, ci + k * F, 1, dF, units[k], "95% CI half-width [F]");
    }
    if (h >= 0) rc = rc ? (h5u_abandon(h, c->output), STEPQ_ERR) : h5u_commit(h, c->output);
    printf("generate: %s; %d prompts x %d seeds, %ld bytes each, top-k %d\n", c->model->desc, P, S, c->length,
           c->top_k);
    printf("%-14s %22s %22s %22s\n", "format", "repeat rate", "mean line (bytes)", "p90 line (bytes)");
    for (int f = 0; f < F; f++)
        printf("%-14s %10.4f +- %-9.4f %10.2f +- %-9.2f %10.2f +- %-9.2f\n", fn[f], m[f], ci[f], m[F + f], ci[F + f],
               m[2 * F + f], ci[2 * F + f]);
    free(fn); free(m); free(ci);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

int stepq_generate(const stepq_generate_cfg* c) {
    const int F = c->n_formats, P = c->n_prompts, S = c->n_seeds;
    uint8_t** prompt = callocCheck((size_t)P, sizeof *prompt);
    long* np = callocCheck((size_t)P, sizeof *np);
    int rc = STEPQ_OK;
    for (int p = 0; p < P && !rc; p++) rc = stepq_lm_read_text(&prompt[p], &np[p], c->prompts[p]);
    const size_t FPS = (size_t)F * P * S;
    gen_out g = {.rep = callocCheck(FPS, sizeof(double)), .mean = callocCheck(FPS, sizeof(double)), .p90 = callocCheck(FPS, sizeof(double)),
                 .text = callocCheck((size_t)F * P * c->length, 1)};
    // an MPI run (base/ranks.h): the units are the generations k, merged after the loop
    stepq_split sp;
    stepq_split_init(&sp);
    stepq_split_add(&sp, g.rep, sizeof(double) * FPS);
    stepq_split_add(&sp, g.mean, sizeof(double) * FPS);
    stepq_split_add(&sp, g.p90, sizeof(double) * FPS);
    stepq_split_add(&sp, g.text, (size_t)F * P * c->length);
    int failed = rc;
    stepq_progress pr;
    stepq_progress_start(&pr, "generate", "generations", (long)F * P * S);
#pragma omp parallel for schedule(dynamic, 1)
    for (int k = 0; k < (rc ? 0 : F * P * S); k++) {
        const int f = k / (P * S), p = (k / S) % P, s = k % S;
        if (!stepq_rank_owns(k)) continue;
        uint8_t* t = mallocCheck((size_t)c->length);
        if (generate_one(t, c, prompt[p], np[p], c->formats[f], c->seeds[s]) != STEPQ_OK) {
#pragma omp atomic write
            failed = 1;
        } else {
            size_t o = ((size_t)f * P + p) * S + s;
            g.rep[o] = repeat_rate(t, c->length);
            line_lengths(&g.mean[o], &g.p90[o], t, c->length);
            if (s == 0) memcpy(g.text + ((size_t)f * P + p) * c->length, t, (size_t)c->length);
        }
        free(t);
        stepq_progress_tick(&pr);
    }
    stepq_progress_end(&pr);
    if (failed && !rc) stepq_error("generate: a state went non-finite (%s)", c->model->desc);
    rc = stepq_split_end(&sp, failed ? STEPQ_ERR : STEPQ_OK, "generate") || write_out(c, &g);
    for (int p = 0; p < P; p++) free(prompt[p]);
    free(prompt); free(np); free(g.rep); free(g.mean); free(g.p90); free(g.text);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

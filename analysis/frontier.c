// frontier.c: bits, damage, answers and cost of every format side by side, and the Pareto
// frontier; see frontier.h. Legend: F formats, D documents, R records, NB bins, NR ranges.
#include "frontier.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../base/stats.h"

enum { NR = STEPQ_FRONTIER_RANGES, N_KINDS = 2 };  // kinds of document: 0 recall, 1 prose
static const long ranges[NR][2] = {{1024, 2048}, {2048, 4096}, {4096, 8192}};  // [lo, hi) bytes
static const char* const kind_names[N_KINDS] = {"recall", "prose"};

typedef struct {
    const stepq_frontier_cfg* c;
    int F;
    double* nominal;                   // (F)
    double* bits;                      // (F)
    double* window[N_KINDS][2];        // (F) mean, 95% CI half-width over documents
    double* last_bin[N_KINDS][2];      // (F)
    double native[2][NR];              // native exact-match share per range: mean, CI
    double* delta[2];                  // (F, NR) format's share minus native's: mean, CI
    int* pareto[N_KINDS];              // (F)
    char (*series)[32];                // (F)
    int* series_id;                    // (F) index of its series, in order of first appearance
} frontier;

// ---------------------------------------------------------------------------------------------
// what the drivers wrote

// a dataset of rank 1 or 2 whose last axis (or only axis, want_last < 0: any length) is known,
// read as double; *n0 <- its first dimension
static double* read_f64(int* n0, hid_t f, const char* path, const char* name, int rank, int want_last) {
    hsize_t dims[2];
    if (h5u_dims(dims, f, path, name, rank)) return NULL;
    if (want_last >= 0 && dims[rank - 1] != (hsize_t)want_last) {
        stepq_error("%s: '%s' has %llu columns, the frontier's list %d (not the same run?)", path, name,
                    (unsigned long long)dims[rank - 1], want_last);
        return NULL;
    }
    double* x = mallocCheck(sizeof(double) * (dims[0] * (rank == 2 ? dims[1] : 1) + 1));
    if (h5u_read_exact(x, H5T_NATIVE_DOUBLE, f, path, name, rank, dims)) {
        free(x);
        return NULL;
    }
    *n0 = (int)dims[0];
    return x;
}

// the nll driver's output on one kind of document: the window's mean and CI over documents
// from extra_window [D, F], the last bin's from extra_mean and extra_ci95 [F, NB]
static int read_nll(frontier* fr, int kind, const char* path) {
    const int F = fr->F;
    hid_t f = h5u_open_read(path, "nll result", "");
    if (f < 0) return STEPQ_ERR;
    hsize_t dims[2] = {0, 0};
    int D = 0, F1 = 0, F2 = 0;
    double* w = read_f64(&D, f, path, "extra_window", 2, F);
    double* m = w && !h5u_dims(dims, f, path, "extra_mean", 2) ? read_f64(&F1, f, path, "extra_mean", 2, (int)dims[1]) : NULL;
    double* ci = m ? read_f64(&F2, f, path, "extra_ci95", 2, (int)dims[1]) : NULL;
    H5Fclose(f);
    int rc = w && m && ci ? STEPQ_OK : STEPQ_ERR;
    if (!rc && (F1 != F || F2 != F || dims[1] == 0)) {
        stepq_error("%s: extra_mean and extra_ci95 are not [%d formats, bins] (not the same run?)", path, F);
        rc = STEPQ_ERR;
    }
    double* x = mallocCheck(sizeof(double) * (size_t)(D ? D : 1));
    const size_t NB = (size_t)dims[1];
    for (int k = 0; k < F && !rc; k++) {
        for (int d = 0; d < D; d++) x[d] = w[(size_t)d * F + k];
        stepq_mean_ci95(&fr->window[kind][0][k], &fr->window[kind][1][k], x, D);
        fr->last_bin[kind][0][k] = m[k * NB + NB - 1];
        fr->last_bin[kind][1][k] = ci[k * NB + NB - 1];
    }
    free(x), free(w), free(m), free(ci);
    return rc;
}

// per range: each document's share of exact answers natively and its difference in each format,
// then mean and CI over the documents with records in the range
static void answers(frontier* fr, int D, int R, const long* doc, const long* dist, const uint8_t* exact) {
    const int F = fr->F;
    double* sum = mallocCheck(sizeof(double) * (size_t)D * (1 + F));  // (D, 1+F)
    int* n = mallocCheck(sizeof(int) * (size_t)D);
    double* x = mallocCheck(sizeof(double) * (size_t)D);
    for (int g = 0; g < NR; g++) {
        memset(sum, 0, sizeof(double) * (size_t)D * (1 + F));
        memset(n, 0, sizeof(int) * (size_t)D);
        for (int r = 0; r < R; r++) {
            if (dist[r] < ranges[g][0] || dist[r] >= ranges[g][1] || doc[r] < 0 || doc[r] >= D) continue;
            n[doc[r]]++;
            for (int k = 0; k <= F; k++) sum[doc[r] * (1 + F) + k] += exact[(size_t)r * (1 + F) + k];
        }
        for (int k = 0; k <= F; k++) {
            int m = 0;
            for (int d = 0; d < D; d++)
                if (n[d]) x[m++] = (sum[d * (1 + F) + k] - (k ? sum[d * (1 + F)] : 0)) / n[d];
            double* mean = k ? &fr->delta[0][(k - 1) * NR + g] : &fr->native[0][g];
            double* ci = k ? &fr->delta[1][(k - 1) * NR + g] : &fr->native[1][g];
            stepq_mean_ci95(mean, ci, x, m);
            if (!m) *mean = NAN;
        }
    }
    free(sum), free(n), free(x);
}

// the recall driver's output: documents [D], record_document, record_distance [R], exact [R, 1+F]
static int read_recall(frontier* fr, const char* path) {
    const int F = fr->F;
    hid_t f = h5u_open_read(path, "recall result", "");
    if (f < 0) return STEPQ_ERR;
    hsize_t dD[1] = {0}, dRF[2] = {0, 0};
    int rc = h5u_dims(dD, f, path, "documents", 1) || h5u_dims(dRF, f, path, "exact", 2);
    if (!rc && dRF[1] != (hsize_t)(1 + F)) {
        stepq_error("%s: 'exact' has %llu columns, native and the frontier's %d formats %d (not the same run?)", path,
                    (unsigned long long)dRF[1], F, 1 + F);
        rc = STEPQ_ERR;
    }
    const int R = rc ? 0 : (int)dRF[0];
    hsize_t dR[1] = {(hsize_t)R};
    long* doc = mallocCheck(sizeof(long) * (size_t)(R + 1));
    long* dist = mallocCheck(sizeof(long) * (size_t)(R + 1));
    uint8_t* exact = mallocCheck((size_t)R * (1 + F) + 1);
    rc = rc || h5u_read_exact(doc, H5T_NATIVE_LONG, f, path, "record_document", 1, dR) ||
         h5u_read_exact(dist, H5T_NATIVE_LONG, f, path, "record_distance", 1, dR) ||
         h5u_read_exact(exact, H5T_NATIVE_UINT8, f, path, "exact", 2, dRF);
    H5Fclose(f);
    if (!rc) answers(fr, (int)dD[0], R, doc, dist, exact);
    free(doc), free(dist), free(exact);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------
// the frontier

void stepq_pareto(int* on, const double* bits, const double* damage, int F) {
    for (int i = 0; i < F; i++) {
        on[i] = !isnan(damage[i]) && !isnan(bits[i]);
        for (int j = 0; j < F && on[i]; j++)
            if (j != i && !isnan(damage[j]) && bits[j] <= bits[i] && damage[j] <= damage[i] &&
                (bits[j] < bits[i] || damage[j] < damage[i]))
                on[i] = 0;
    }
}

// a format's series: its name with the first number taken out (int6 -> int, leap6-r4 -> leap-r4)
static void series_of(char* out, size_t n, const char* name) {
    size_t o = 0;
    int taken = 0;
    for (const char* p = name; *p && o + 1 < n; p++) {
        if (!taken && *p >= '0' && *p <= '9') {
            while (p[1] >= '0' && p[1] <= '9') p++;
            taken = 1;
            continue;
        }
        out[o++] = *p;
    }
    out[o] = 0;
}

static void make(frontier* fr) {
    const stepq_frontier_cfg* c = fr->c;
    const int F = fr->F;
    for (int k = 0; k < F; k++) {
        fr->nominal[k] = c->formats[k]->nominal_bits;
        fr->bits[k] = stepq_format_plan_bits(NULL, c->formats[k], c->plan, c->K, c->V);
        series_of(fr->series[k], sizeof fr->series[k], c->formats[k]->name);
        fr->series_id[k] = k;
        for (int j = 0; j < k; j++)
            if (!strcmp(fr->series[j], fr->series[k])) {
                fr->series_id[k] = fr->series_id[j];
                break;
            }
    }
    for (int kind = 0; kind < N_KINDS; kind++) stepq_pareto(fr->pareto[kind], fr->bits, fr->window[kind][0], F);
}

// ---------------------------------------------------------------------------------------------
// output

static int write_h5(const frontier* fr, hid_t f) {
    const stepq_frontier_cfg* c = fr->c;
    const int F = fr->F;
    const char** names = mallocCheck(sizeof(char*) * (size_t)F);
    const char** series = mallocCheck(sizeof(char*) * (size_t)F);
    for (int k = 0; k < F; k++) names[k] = c->formats[k]->name, series[k] = fr->series[k];
    hsize_t dF[1] = {(hsize_t)F}, dFR[2] = {(hsize_t)F, NR}, dR[1] = {NR}, dR2[2] = {NR, 2};
    const hid_t T = H5T_NATIVE_DOUBLE;
    int rc = stepq_write_provenance(f, &c->prov) || h5u_attr_str(f, "recall_file", c->recall) ||
             h5u_attr_str(f, "nll_recall_file", c->nll_recall) || h5u_attr_str(f, "nll_prose_file", c->nll_prose) ||
             h5u_write_strings(f, "formats", names, F, "state formats, in the order of every [F] axis") ||
             h5u_write_strings(f, "series", series, F, "the name without its first number: the figure joins a series") ||
             h5u_write(f, "nominal_bits", T, fr->nominal, 1, dF, "bits/element", "the bits a paper quotes [F]") ||
             h5u_write(f, "bits", T, fr->bits, 1, dF, "bits/element",
                       "actual bits of the packed bytes per state element; mixed widths averaged over the plan's heads [F]") ||
             h5u_write(f, "step_ratio", T, c->step_ratio, 1, dF, "x",
                       "the decode step over the float32 step, thread CPU time, stepq bench's head [F]") ||
             h5u_write(f, "distance_ranges", H5T_NATIVE_LONG, ranges, 2, dR2, "bytes", "answer distance ranges [lo, hi) [NR, 2]") ||
             h5u_write(f, "exact_native_mean", T, fr->native[0], 1, dR, "1",
                       "native exact-match share per range, mean over documents with records in it [NR]") ||
             h5u_write(f, "exact_native_ci95", T, fr->native[1], 1, dR, "1", "its 95% CI half-width over documents [NR]") ||
             h5u_write(f, "exact_delta_mean", T, fr->delta[0], 2, dFR, "1",
                       "exact-match share in the format minus native's, per document, mean over documents [F, NR]") ||
             h5u_write(f, "exact_delta_ci95", T, fr->delta[1], 2, dFR, "1", "its 95% CI half-width over documents [F, NR]");
    for (int kind = 0; kind < N_KINDS && !rc; kind++) {
        char n[4][64], d[4][160];
        const char* what = kind ? "held-out prose" : "the recall documents";
        snprintf(n[0], 64, "window_%s_mean", kind_names[kind]);
        snprintf(n[1], 64, "window_%s_ci95", kind_names[kind]);
        snprintf(n[2], 64, "last_bin_%s_mean", kind_names[kind]);
        snprintf(n[3], 64, "last_bin_%s_ci95", kind_names[kind]);
        snprintf(d[0], 160, "extra NLL per byte over the decode window on %s, mean over documents [F]", what);
        snprintf(d[1], 160, "its 95%% CI half-width over documents [F]");
        snprintf(d[2], 160, "extra NLL per byte in the window's last bin on %s, mean over documents [F]", what);
        snprintf(d[3], 160, "its 95%% CI half-width over documents [F]");
        char pn[64], pd[160];
        snprintf(pn, 64, "pareto_%s", kind_names[kind]);
        snprintf(pd, 160, "1: on the Pareto frontier of (bits, extra NLL over the window) on %s [F]", what);
        rc = h5u_write(f, n[0], T, fr->window[kind][0], 1, dF, "nats/byte", d[0]) ||
             h5u_write(f, n[1], T, fr->window[kind][1], 1, dF, "nats/byte", d[1]) ||
             h5u_write(f, n[2], T, fr->last_bin[kind][0], 1, dF, "nats/byte", d[2]) ||
             h5u_write(f, n[3], T, fr->last_bin[kind][1], 1, dF, "nats/byte", d[3]) ||
             h5u_write(f, pn, H5T_NATIVE_INT, fr->pareto[kind], 1, dF, "1", pd);
    }
    free(names), free(series);
    return rc;
}

static int by_bits_ctx_cmp(const double* bits, int a, int b) {
    return bits[a] < bits[b] ? -1 : bits[a] > bits[b] ? 1 : a - b;
}

// order (F) <- the formats sorted by series (first appearance), then bits
static void sort_order(int* order, const frontier* fr) {
    for (int k = 0; k < fr->F; k++) order[k] = k;
    for (int i = 1; i < fr->F; i++)  // insertion sort: F is a few dozen
        for (int j = i; j > 0; j--) {
            const int a = order[j - 1], b = order[j];
            const int cmp = fr->series_id[a] != fr->series_id[b] ? fr->series_id[a] - fr->series_id[b]
                                                                   : by_bits_ctx_cmp(fr->bits, a, b);
            if (cmp <= 0) break;
            order[j - 1] = b, order[j] = a;
        }
}

static void write_table(const frontier* fr, FILE* t) {
    const int F = fr->F;
    int* order = mallocCheck(sizeof(int) * (size_t)F);
    sort_order(order, fr);
    fprintf(t, "# bits\twindow_recall_mean\tci95\twindow_prose_mean\tci95\tformat\tseries\n");
    for (int i = 0; i < F; i++) {
        const int k = order[i];
        if (i && fr->series_id[k] != fr->series_id[order[i - 1]]) fprintf(t, "\n");
        fprintf(t, "%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%s\t%d\n", fr->bits[k], fr->window[0][0][k], fr->window[0][1][k],
                fr->window[1][0][k], fr->window[1][1][k], fr->c->formats[k]->name, fr->series_id[k]);
    }
    for (int kind = 0; kind < N_KINDS; kind++) {
        fprintf(t, "\n\n# the frontier on %s: bits, mean\n", kind_names[kind]);
        for (int k = 0; k < F; k++) order[k] = k;
        for (int i = 1; i < F; i++)
            for (int j = i; j > 0 && by_bits_ctx_cmp(fr->bits, order[j - 1], order[j]) > 0; j--) {
                const int x = order[j - 1];
                order[j - 1] = order[j], order[j] = x;
            }
        for (int i = 0; i < F; i++)
            if (fr->pareto[kind][order[i]]) fprintf(t, "%.6g\t%.6g\n", fr->bits[order[i]], fr->window[kind][0][order[i]]);
    }
    free(order);
}

static void print_summary(const frontier* fr) {
    printf("frontier: extra NLL per byte over the decode window (mean +- 95%% CI over documents), exact answers "
           "at 4-8 KiB minus native's, the step over the float32 step; * on the frontier\n");
    printf("%-16s %7s %6s %22s %22s %16s\n", "format", "bits", "step", "recall documents", "prose", "answers 4-8K");
    for (int k = 0; k < fr->F; k++)
        printf("%-16s %7.3f %6.2f %12.5f +- %-7.5f%s %12.5f +- %-7.5f%s %7.3f +- %-5.3f\n", fr->c->formats[k]->name,
               fr->bits[k], fr->c->step_ratio[k], fr->window[0][0][k], fr->window[0][1][k], fr->pareto[0][k] ? "*" : " ",
               fr->window[1][0][k], fr->window[1][1][k], fr->pareto[1][k] ? "*" : " ", fr->delta[0][k * NR + NR - 1],
               fr->delta[1][k * NR + NR - 1]);
    printf("native exact-match share at 1-2, 2-4, 4-8 KiB: %.3f, %.3f, %.3f\n", fr->native[0][0], fr->native[0][1],
           fr->native[0][2]);
}

// ---------------------------------------------------------------------------------------------

static void frontier_alloc(frontier* fr, const stepq_frontier_cfg* c) {
    const size_t F = (size_t)c->n_formats;
    *fr = (frontier){.c = c, .F = c->n_formats};
    fr->nominal = callocCheck(F, sizeof(double));
    fr->bits = callocCheck(F, sizeof(double));
    for (int kind = 0; kind < N_KINDS; kind++) {
        for (int i = 0; i < 2; i++) {
            fr->window[kind][i] = callocCheck(F, sizeof(double));
            fr->last_bin[kind][i] = callocCheck(F, sizeof(double));
        }
        fr->pareto[kind] = callocCheck(F, sizeof(int));
    }
    for (int i = 0; i < 2; i++) fr->delta[i] = callocCheck(F * NR, sizeof(double));
    fr->series = callocCheck(F, sizeof *fr->series);
    fr->series_id = callocCheck(F, sizeof(int));
}

static void frontier_free(frontier* fr) {
    free(fr->nominal), free(fr->bits), free(fr->series), free(fr->series_id);
    for (int kind = 0; kind < N_KINDS; kind++) {
        for (int i = 0; i < 2; i++) free(fr->window[kind][i]), free(fr->last_bin[kind][i]);
        free(fr->pareto[kind]);
    }
    for (int i = 0; i < 2; i++) free(fr->delta[i]);
}

int stepq_frontier(const stepq_frontier_cfg* c) {
    frontier fr;
    frontier_alloc(&fr, c);
    int rc = read_nll(&fr, 0, c->nll_recall) || read_nll(&fr, 1, c->nll_prose) || read_recall(&fr, c->recall);
    if (!rc) {
        make(&fr);
        FILE* t = NULL;
        hid_t f = h5u_create_with_text(c->output, &t, c->table);
        rc = f < 0;
        if (!rc) {
            rc = write_h5(&fr, f);
            if (t && !rc) write_table(&fr, t);
            rc = h5u_finish_with_text(f, c->output, t, c->table, rc ? STEPQ_ERR : STEPQ_OK);
        }
        if (!rc) print_summary(&fr);
    }
    frontier_free(&fr);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

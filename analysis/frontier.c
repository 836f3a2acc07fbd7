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

// a dataset of rank 1 to 3 read as double, dims its shape; NULL (message) where it cannot be
static double* read_f64(hsize_t* dims, hid_t f, const char* path, const char* name, int rank) {
    dims[0] = dims[1] = 0;
    if (h5u_dims(dims, f, path, name, rank)) return NULL;
    hsize_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    double* x = mallocCheck(sizeof(double) * (n + 1));
    if (h5u_read_exact(x, H5T_NATIVE_DOUBLE, f, path, name, rank, dims)) {
        free(x);
        return NULL;
    }
    return x;
}

// the nll driver's output on one kind of document: the window's mean and CI over documents
// from extra_window [D, F], the last bin's from extra_mean and extra_ci95 [F, NB]
static int read_nll(frontier* fr, int kind, const char* path) {
    const int F = fr->F;
    hid_t f = h5u_open_read(path, "nll result", "");
    if (f < 0) return STEPQ_ERR;
    hsize_t dw[3], dm[3], dc[3];
    double* w = read_f64(dw, f, path, "extra_window", 2);
    double* m = w ? read_f64(dm, f, path, "extra_mean", 2) : NULL;
    double* ci = m ? read_f64(dc, f, path, "extra_ci95", 2) : NULL;
    H5Fclose(f);
    int rc = w && m && ci ? STEPQ_OK : STEPQ_ERR;
    if (!rc && (dw[1] != (hsize_t)F || dm[0] != (hsize_t)F || dm[1] == 0 || dc[0] != dm[0] || dc[1] != dm[1])) {
        stepq_error("%s: not the nll driver's output on %d formats (extra_window, extra_mean, extra_ci95)", path, F);
        rc = STEPQ_ERR;
    }
    const int D = rc ? 0 : (int)dw[0];
    const size_t NB = rc ? 0 : (size_t)dm[1];
    double* x = mallocCheck(sizeof(double) * (size_t)(D + 1));
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
        stepq_error("%s: 'exact' has %llu columns where native and the frontier's %d formats make %d (not the same run?)", path,
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

int stepq_frontier_serving(double* ratio, double* requests, const char* path, const stepq_format* const* fmts,
                           int F) {
    hid_t f = h5u_open_read(path, "GPU benchmark", " (written by `stepq bench-gpu`)");
    if (f < 0) return STEPQ_ERR;
    char **names = NULL, **modes = NULL;
    int n = 0, nm = 0;
    hsize_t ds[3], db[3];
    double *sp = NULL, *B = NULL;
    int rc = h5u_read_strings(&names, &n, f, path, "formats") || h5u_read_strings(&modes, &nm, f, path, "modes") ||
             !(sp = read_f64(ds, f, path, "speedup_vs_fp32", 3)) || !(B = read_f64(db, f, path, "B", 1));
    H5Fclose(f);
    int fused = 0;
    while (!rc && fused < nm && strcmp(modes[fused], "fused")) fused++;
    if (!rc && (ds[0] != (hsize_t)n || ds[1] != (hsize_t)nm || ds[2] != db[0] || db[0] == 0 || fused == nm)) {
        stepq_error("%s: speedup_vs_fp32 is not [formats, modes, B] with a mode 'fused'", path);
        rc = STEPQ_ERR;
    }
    for (int k = 0; k < F && !rc; k++) {
        ratio[k] = NAN;
        for (int i = 0; i < n; i++)
            if (!strcmp(names[i], fmts[k]->name)) ratio[k] = 1.0 / sp[((size_t)i * nm + fused) * db[0] + db[0] - 1];
    }
    if (!rc) *requests = B[db[0] - 1];
    h5u_free_strings(names, n), h5u_free_strings(modes, nm);
    free(sp), free(B);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------
// the frontier

// on (F) <- 1 where no other format dominates format f in (bits, damage): none has bits <= and
// damage <= with one of them <; a format whose damage is NaN is never on it and dominates none
static void pareto(int* on, const double* bits, const double* damage, int F) {
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
    for (int kind = 0; kind < N_KINDS; kind++) pareto(fr->pareto[kind], fr->bits, fr->window[kind][0], F);
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
             h5u_write(f, "serving_ratio", T, c->serving_ratio, 1, dF, "x",
                       "the GPU's packed serving step over FP32's (stepq bench-gpu: the fused kernel, the largest pool); "
                       "NaN where not timed or without a GPU run [F]") ||
             h5u_attr_str(f, "serving_file", c->serving ? c->serving : "") ||
             h5u_attr_f64(f, "serving_requests", c->serving_requests) ||
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

// order (F) <- the formats sorted by bits, and first by series (in order of first appearance)
// where by_series; an insertion sort, F being a few dozen
static void sort_order(int* order, const frontier* fr, int by_series) {
    for (int k = 0; k < fr->F; k++) order[k] = k;
    for (int i = 1; i < fr->F; i++)
        for (int j = i; j > 0; j--) {
            const int a = order[j - 1], b = order[j];
            const int ds = by_series ? fr->series_id[a] - fr->series_id[b] : 0;
            if (ds < 0 || (!ds && fr->bits[a] <= fr->bits[b])) break;
            order[j - 1] = b, order[j] = a;
        }
}

static void write_table(const frontier* fr, FILE* t) {
    const int F = fr->F;
    int* order = mallocCheck(sizeof(int) * (size_t)F);
    sort_order(order, fr, 1);
    fprintf(t, "# bits\twindow_recall_mean\tci95\twindow_prose_mean\tci95\tformat\tseries\n");
    for (int i = 0; i < F; i++) {
        const int k = order[i];
        if (i && fr->series_id[k] != fr->series_id[order[i - 1]]) fprintf(t, "\n");
        fprintf(t, "%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%s\t%d\n", fr->bits[k], fr->window[0][0][k], fr->window[0][1][k],
                fr->window[1][0][k], fr->window[1][1][k], fr->c->formats[k]->name, fr->series_id[k]);
    }
    sort_order(order, fr, 0);
    for (int kind = 0; kind < N_KINDS; kind++) {
        fprintf(t, "\n\n# the frontier on %s: bits, mean\n", kind_names[kind]);
        for (int i = 0; i < F; i++)
            if (fr->pareto[kind][order[i]]) fprintf(t, "%.6g\t%.6g\n", fr->bits[order[i]], fr->window[kind][0][order[i]]);
    }
    free(order);
}

static void print_summary(const frontier* fr) {
    printf("frontier: extra NLL per byte over the decode window (mean +- 95%% CI over documents; * on the "
           "frontier), exact answers minus native's at 1-2, 2-4, 4-8 KiB (mean over documents), the step over "
           "the float32 step on the CPU and, given a GPU run, the serving step over FP32's\n");
    printf("%-16s %7s %6s %7s %24s %24s %20s\n", "format", "bits", "step", "serving", "recall documents", "prose",
           "answers");
    for (int k = 0; k < fr->F; k++) {
        const double* ex = fr->delta[0] + (size_t)k * NR;
        printf("%-16s %7.3f %6.2f %7.2f %12.5f +- %-8.5f%s %12.5f +- %-8.5f%s %6.3f %6.3f %6.3f\n",
               fr->c->formats[k]->name, fr->bits[k], fr->c->step_ratio[k], fr->c->serving_ratio[k], fr->window[0][0][k], fr->window[0][1][k], fr->pareto[0][k] ? "*" : " ",
               fr->window[1][0][k], fr->window[1][1][k], fr->pareto[1][k] ? "*" : " ", ex[0], ex[1], ex[2]);
    }
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

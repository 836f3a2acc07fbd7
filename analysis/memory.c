#include "memory.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../base/outfile.h"
#include "../quant/format.h"
#include "../sim/synth.h"
#include "calibrate.h"

// the paper's serving settings (method 4.5)
#define QWEN_CONV_MIB 2.8125   // per slot: the short-convolution state, BF16
#define QWEN_WEIGHTS_GB 53.8   // BF16 text weights
#define QWEN_REQUESTS 64
#define KIMI_REQUESTS 512

int stepq_memory_paper_model(stepq_memory_model* m, const char* preset) {
    stepq_synth_params p;
    if (stepq_synth_preset(&p, preset) != STEPQ_OK) return STEPQ_ERR;
    const char* name = NULL;  // the table's own string outlives p
    for (const char* const* n = stepq_synth_preset_names; *n; n++)
        if (!strcmp(*n, preset)) name = *n;
    const int gdn = p.kind == STEPQ_GDN;
    *m = (stepq_memory_model){.name = name, .kind = p.kind, .layers = p.layers, .heads = p.heads, .K = p.K, .V = p.V,
                              .conv_mib = gdn ? QWEN_CONV_MIB : 0.0, .weights_gb = gdn ? QWEN_WEIGHTS_GB : 0.0,
                              .requests = gdn ? QWEN_REQUESTS : KIMI_REQUESTS};
    return STEPQ_OK;
}

static double elements(const stepq_memory_model* m) {
    return (double)m->layers * m->heads * m->K * m->V;
}

double stepq_bits_paper(int budget, long pivots, long units) {
    return budget + 0.25 + 8.0 * (double)pivots / (double)units;
}

double stepq_bits_reference(const stepq_memory_model* m, int budget, long pivots) {
    double H = (double)m->layers * m->heads, n = elements(m);
    if (m->kind == STEPQ_GDN) {  // units are heads of K*V; a pivot head: FP16, no factors
        double U = H, codes = budget * U - 8.0 * pivots;
        return (codes * m->K * m->V + 16.0 * pivots * m->K * m->V + 16.0 * (U - pivots) * (m->K + m->V)) / n;
    }
    // KDA: units are key rows of V; a pivot row: FP16, no row factor; column factors per head
    double U = H * m->K, codes = budget * U - 8.0 * pivots;
    return (codes * m->V + 16.0 * pivots * m->V + 16.0 * (U - pivots) + 16.0 * H * m->V) / n;
}

double stepq_request_mib(const stepq_memory_model* m, double bits) {
    return elements(m) * bits / 8.0 / 1048576.0;
}

double stepq_pool_gib(const stepq_memory_model* m, double bits, int n) {
    double slots = 5.0 * n + 1;  // SGLang: 5 slots per request + 1 global sentinel
    return slots * (stepq_request_mib(m, bits) + m->conv_mib) / 1024.0;
}

int stepq_pool_crossing(const stepq_memory_model* m, double bits) {
    if (m->weights_gb <= 0) return 0;
    for (int n = 1; n < 1000000; n++)
        if (stepq_pool_gib(m, bits, n) * 1073741824.0 > m->weights_gb * 1e9) return n;
    return -1;
}

// the STEPQuant format of the table at budget b
static const stepq_format* stepquant_at(int b) {
    for (int i = 0; i < stepq_n_formats; i++) {
        const stepq_format* f = &stepq_formats[i];
        if (f->needs == STEPQ_NEEDS_TABLE && f->alloc == STEPQ_ALLOC_STEPQ && f->budget == b) return f;
    }
    stepq_assert(!"no STEPQuant format at this budget");
    return NULL;
}

int stepq_memory_report(const stepq_memory_model* m, const stepq_plan* p) {
    const int gdn = m->kind == STEPQ_GDN;
    const long units = (long)m->layers * m->heads * (gdn ? 1 : m->K);
    const long pivots = lround(stepq_pivot_share(m->kind) * (double)units);  // the paper's share
    const double fp32 = stepq_request_mib(m, 32);
    if (p && (p->kind != m->kind || p->K != m->K || p->V != m->V)) {
        stepq_error("the plan is for another model shape than %s", m->name);
        return STEPQ_ERR;
    }
    printf("== %s: %d layers x %d heads of %d x %d (%s), %.0f state elements per request\n", m->name,
           m->layers, m->heads, m->K, m->V, gdn ? "GDN" : "KDA", elements(m));
    printf("per request in FP32: %.3f MiB; pivots %ld of %ld units (the paper's share)\n", fp32,
           pivots, units);
    printf("%-14s %12s %12s %12s %11s %13s\n", "STEPQuant", "paper bits", "ref. layout",
           p ? "our bytes" : "", "x vs FP32", "MiB/request");
    for (int b = 6; b >= 4; b -= 2) {
        double pb = stepq_bits_paper(b, pivots, units), rb = stepq_bits_reference(m, b, pivots);
        char ours[32] = "";
        if (p) snprintf(ours, sizeof ours, "%12.3f", stepq_format_plan_bits(NULL, stepquant_at(b), p, m->K, m->V));
        printf("%-14s %12.3f %12.3f %12s %11.2f %13.3f\n", b == 6 ? "@6 bits" : "@4 bits", pb, rb, ours,
               32 / pb, stepq_request_mib(m, rb));
    }
    printf("(paper formula: b + 0.25 + 8 pivots / units; reference layout: the budget fully used,\n"
           " pivots FP16 without factors; x vs FP32 from the paper formula, MiB from the layout)\n");
    double rb6 = stepq_bits_reference(m, 6, pivots);
    printf("SGLang pool (5 slots per request + 1 sentinel, conv state %.4f MiB per slot):\n", m->conv_mib);
    printf("  %d requests: FP32 %.2f GiB, STEPQuant@6 %.2f GiB (reference layout; %.2f GiB by the "
           "paper formula)\n", m->requests, stepq_pool_gib(m, 32, m->requests),
           stepq_pool_gib(m, rb6, m->requests),
           stepq_pool_gib(m, stepq_bits_paper(6, pivots, units), m->requests));
    if (m->weights_gb > 0)
        printf("  the FP32 pool passes %.1f GB of weights at %d concurrent requests "
               "(STEPQuant@6: %d)\n", m->weights_gb, stepq_pool_crossing(m, 32),
               stepq_pool_crossing(m, rb6));
    printf("every format, bits per element of a %d x %d head%s, split into codes, row/column\n"
           "factors, scales, FP16 pivot rows, and stored residuals:\n", m->K, m->V,
           p ? " (calibrated ones averaged over the plan)" : "");
    printf("  %-16s %8s %8s %10s %8s %8s %8s %8s %8s\n", "format", "nominal", "actual",
           "x vs FP32", "codes", "factors", "scales", "pivots", "residual");
    for (int i = 0; i < stepq_n_formats; i++) {
        const stepq_format* f = &stepq_formats[i];
        double parts[STEPQ_N_BITS];
        double a = stepq_format_plan_bits(parts, f, p, m->K, m->V);
        if (isnan(a)) {  // its widths come from a plan
            printf("  %-16s %8.3f %8s %10s   (needs --plan)\n", f->name, f->nominal_bits, "-", "-");
            continue;
        }
        printf("  %-16s %8.3f %8.3f %10.2f %8.3f %8.3f %8.3f %8.3f %8.3f\n", f->name,
               f->nominal_bits, a, 32 / a, parts[STEPQ_BITS_CODES], parts[STEPQ_BITS_FACTORS],
               parts[STEPQ_BITS_SCALES], parts[STEPQ_BITS_PIVOTS], parts[STEPQ_BITS_RESIDUAL]);
    }
    return STEPQ_OK;
}

double stepq_memory_format_bits(const stepq_memory_model* m, const stepq_format* f) {
    if (f->needs == STEPQ_NEEDS_TABLE && f->alloc == STEPQ_ALLOC_STEPQ) {
        const long units = (long)m->layers * m->heads * stepq_kind_units(m->kind, m->K);
        return stepq_bits_reference(m, f->budget, lround(stepq_pivot_share(m->kind) * (double)units));
    }
    double b = stepq_format_plan_bits(NULL, f, NULL, m->K, m->V);
    if (isnan(b))
        stepq_error("memory: the bits of %s come from a calibration plan (use `stepq memory --plan`); "
                    "the figure prices STEPQuant by the reference layout and the formats that need no plan",
                    f->name);
    return b;
}

// one model's group: bits, MiB per request, the pool at 1..N requests and the crossing of
// every format; one gnuplot block: n, then the pool of each format
static int sweep_model(hid_t file, FILE* tsv, const stepq_memory_sweep_cfg* c, const stepq_memory_model* m) {
    const int F = c->n_formats, N = c->max_requests;
    double* bits = mallocCheck(sizeof(double) * F);
    double* mib = mallocCheck(sizeof(double) * F);
    double* pool = mallocCheck(sizeof(double) * F * N);
    int* cross = mallocCheck(sizeof(int) * F);
    int rc = STEPQ_OK;
    for (int f = 0; f < F && !rc; f++) {
        bits[f] = stepq_memory_format_bits(m, c->formats[f]);
        if (isnan(bits[f])) rc = STEPQ_ERR;
        mib[f] = stepq_request_mib(m, bits[f]);
        for (int n = 0; n < N; n++) pool[(size_t)f * N + n] = stepq_pool_gib(m, bits[f], n + 1);
        cross[f] = rc ? 0 : stepq_pool_crossing(m, bits[f]);
    }
    hid_t g = rc ? -1 : H5Gcreate2(file, m->name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dF[1] = {(hsize_t)F}, dFN[2] = {(hsize_t)F, (hsize_t)N};
    rc = rc || g < 0 || h5u_attr_str(g, "kind", stepq_kind_name(m->kind)) ||
         h5u_attr_i64(g, "layers", m->layers) || h5u_attr_i64(g, "heads", m->heads) ||
         h5u_attr_i64(g, "K", m->K) || h5u_attr_i64(g, "V", m->V) ||
         h5u_attr_f64(g, "conv_mib", m->conv_mib) || h5u_attr_f64(g, "weights_gb", m->weights_gb) ||
         h5u_write(g, "bits", H5T_NATIVE_DOUBLE, bits, 1, dF, "bit/element", "bits per state element [format]") ||
         h5u_write(g, "request_mib", H5T_NATIVE_DOUBLE, mib, 1, dF, "MiB",
                   "one request's recurrent state [format]") ||
         h5u_write(g, "pool_gib", H5T_NATIVE_DOUBLE, pool, 2, dFN, "GiB",
                   "the pool (5 slots per request + 1, state and convolution state) [format, requests-1]") ||
         h5u_write(g, "crossing", H5T_NATIVE_INT, cross, 1, dF, "requests",
                   "fewest requests whose pool passes the weights (0: no weights given; -1: never) [format]");
    if (g >= 0) H5Gclose(g);
    if (!rc) {
        printf("%s (%d x %d heads of %d x %d; conv state %.4f MiB per slot; weights %.1f GB):\n", m->name,
               m->layers, m->heads, m->K, m->V, m->conv_mib, m->weights_gb);
        for (int f = 0; f < F; f++) {
            printf("  %-16s %7.3f bits  %9.3f MiB/request  pool at %d: %8.2f GiB", c->formats[f]->name, bits[f],
                   mib[f], m->requests, stepq_pool_gib(m, bits[f], m->requests));
            if (cross[f] > 0) printf("  passes the weights at %d requests", cross[f]);
            putchar('\n');
        }
    }
    for (int n = 0; tsv && !rc && n < N; n++) {
        fprintf(tsv, "%d", n + 1);
        for (int f = 0; f < F; f++) fprintf(tsv, "\t%.6e", pool[(size_t)f * N + n]);
        fputc('\n', tsv);
    }
    if (tsv && !rc) fprintf(tsv, "\n\n");
    free(bits); free(mib); free(pool); free(cross);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

int stepq_memory_sweep(const stepq_memory_sweep_cfg* c) {
    FILE* tsv;
    hid_t f = h5u_create_with_text(c->output, &tsv, c->table);
    if (f < 0) return STEPQ_ERR;
    const char** names = mallocCheck(sizeof(char*) * c->n_formats);
    for (int i = 0; i < c->n_formats; i++) names[i] = c->formats[i]->name;
    int* req = mallocCheck(sizeof(int) * c->max_requests);
    for (int n = 0; n < c->max_requests; n++) req[n] = n + 1;
    hsize_t dN[1] = {(hsize_t)c->max_requests};
    int rc = stepq_write_provenance(f, &c->prov) ||
             h5u_write_strings(f, "formats", names, c->n_formats, "the formats priced") ||
             h5u_write(f, "requests", H5T_NATIVE_INT, req, 1, dN, "requests", "concurrent requests");
    if (tsv) fprintf(tsv, "# memory: one block per model (gnuplot index m): concurrent requests, then the "
                          "pool in GiB of each format\n");
    for (int m = 0; m < c->n_models && !rc; m++) rc = sweep_model(f, tsv, c, &c->models[m]);
    free(names);
    free(req);
    return h5u_finish_with_text(f, c->output, tsv, c->table, rc);
}

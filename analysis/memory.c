#include "memory.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../base/common.h"
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
    *m = (stepq_memory_model){name, p.kind, p.layers, p.heads, p.K, p.V,
                              gdn ? QWEN_CONV_MIB : 0.0, gdn ? QWEN_WEIGHTS_GB : 0.0,
                              gdn ? QWEN_REQUESTS : KIMI_REQUESTS};
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

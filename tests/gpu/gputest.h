// gputest.h: what the CUDA tests share: in-memory trace sources of any shape (grouped value
// heads, GDN or KDA, with ridges, an initial state, gates of many half-lives), plans with every
// width, pivots and DAMP rows, states with ridges, zero rows and denormals, and the comparisons
// of a CUDA run with the CPU runner.
#ifndef STEPQ_GPUTEST_H
#define STEPQ_GPUTEST_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../analysis/runner.h"
#include "../../quant/format.h"
#include "../../sim/trace.h"
#include "../testutil.h"

// A trace of T steps, H query/key heads and HV = groups * H value heads of shape K x V (turn it
// into a source with stepq_trace_source: heads labelled layer 0, head 0..HV-1). Gates: each
// value head its own half-life (GDN: one gate; KDA: a spread over the channels); values with
// ridge columns; beta uniform in [0.05, 0.95] * beta_scale; S0 random (with_S0).
static inline void gt_trace_data(stepq_trace* out, int kind, long T, int H, int groups, int K, int V,
                          int with_S0, double beta_scale, gsl_rng* r) {
    stepq_trace tr;
    memset(&tr, 0, sizeof tr);
    const int HV = H * groups, G = stepq_kind_gates(kind, K);
    tr.kind = kind;
    tr.T = T;
    tr.H = H;
    tr.HV = HV;
    tr.K = K;
    tr.V = V;
    tr.scale = 1.0 / sqrt((double)K);
    tr.q = malloc(sizeof(float) * T * H * K);
    tr.k = malloc(sizeof(float) * T * H * K);
    tr.v = malloc(sizeof(float) * T * HV * V);
    tr.g = malloc(sizeof(float) * T * HV * G);
    tr.beta = malloc(sizeof(float) * T * HV);
    for (long t = 0; t < T; t++) {
        for (int h = 0; h < H; h++) {
            tu_unit(tr.q + ((size_t)t * H + h) * K, K, r);
            tu_unit(tr.k + ((size_t)t * H + h) * K, K, r);
        }
        for (int h = 0; h < HV; h++) {
            const double hl = pow(2.0, 1 + 10.0 * h / (HV > 1 ? HV - 1 : 1));  // 2 .. 2048 steps
            for (int j = 0; j < V; j++)
                tr.v[((size_t)t * HV + h) * V + j] = (float)(gsl_ran_gaussian(r, 1.0) * (j % 11 == 3 ? 8 : 1));
            for (int i = 0; i < G; i++) {
                const double spread = G > 1 ? exp(gsl_ran_gaussian(r, 0.5)) : 1.0;
                tr.g[((size_t)t * HV + h) * G + i] = (float)(-M_LN2 / (hl * spread) * (0.5 + gsl_rng_uniform(r)));
            }
            tr.beta[(size_t)t * HV + h] = (float)((0.05 + 0.9 * gsl_rng_uniform(r)) * beta_scale);
        }
    }
    if (with_S0) {
        tr.S0 = malloc(sizeof(float) * HV * K * V);
        for (size_t e = 0; e < (size_t)HV * K * V; e++) tr.S0[e] = (float)gsl_ran_gaussian(r, 0.3);
    }
    *out = tr;
}

static inline stepq_source* gt_trace(int kind, long T, int H, int groups, int K, int V, int with_S0,
                              gsl_rng* r) {
    stepq_trace tr;
    gt_trace_data(&tr, kind, T, H, groups, K, V, with_S0, 1.0, r);
    return stepq_trace_source(&tr, "memory");
}

// A plan for heads 0..H-1 (layer 0) with every width across heads and allocations (GDN: one
// width a head; KDA: a mix within each head), row influence with a spread, DAMP rows.
static inline void gt_plan(stepq_plan* p, int kind, int K, int V, int H, gsl_rng* r) {
    stepq_plan_alloc(p, kind, K, V, H);
    p->rho = 0.5;
    p->refits = 1;
    snprintf(p->file, sizeof p->file, "test plan");
    double om[STEPQ_MAX_DIM];
    for (int h = 0; h < H; h++) {
        p->head[h] = h;
        for (int i = 0; i < K; i++) om[i] = exp(gsl_ran_gaussian(r, 1.5));
        stepq_row_influence(p->w + (size_t)h * K, om, 0.25, K);
        for (int i = 0; i < K; i++) p->damp[(size_t)h * K + i] = gsl_rng_uniform(r) < 0.25;
    }
    for (int u = 0; u < H * p->G; u++)
        for (int a = 0; a < STEPQ_N_ALLOC; a++)
            for (int b = 0; b < STEPQ_N_BUDGETS; b++)
                p->bits[a][b][u] = (uint8_t)stepq_plan_widths[(u * 7 + a + 3 * b + (kind ? 0 : 1)) % STEPQ_NW];
}

// a state with row and column ridges, a zero row and a row of denormals (test_kernels.c's)
static inline void gt_state(float* S, int K, int V, gsl_rng* r) {
    for (int i = 0; i < K * V; i++)
        S[i] = (float)(gsl_ran_gaussian(r, 1.0) * (i / V % 9 == 0 ? 12 : 1) * (i % V % 11 == 0 ? 7 : 1));
    memset(S + 3 * V, 0, sizeof(float) * V);
    for (int j = 0; j < V; j++) S[5 * V + j] = (float)gsl_ran_gaussian(r, 1e-40);
}

// a format's constraints on V (the dual fit's groups, NVFP4's blocks, DAMP's power of 2), from
// the format table
static inline int gt_fits(const stepq_format* f, int V) { return stepq_family_holds(f->family, 1, V); }

// 1 when n floats are equal bit for bit (or both NaN); *first <- the first index that is not
static inline int gt_same_f(const float* a, const float* b, size_t n, size_t* first) {
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) && !(isnan(a[i]) && isnan(b[i]))) {
            *first = i;
            return 0;
        }
    return 1;
}
static inline int gt_same_d(const double* a, const double* b, size_t n, size_t* first) {
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(double)) && !(isnan(a[i]) && isnan(b[i]))) {
            *first = i;
            return 0;
        }
    return 1;
}

// method 6.5's rule on floats (tu_agree on doubles)
static inline int gt_agree_f(const float* a, const float* b, size_t n, double ratio, double* got) {
    double* x = malloc(sizeof(double) * (n ? n : 1));
    double* y = malloc(sizeof(double) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) x[i] = a[i], y[i] = b[i];
    int ok = tu_agree(x, y, n, ratio, got);
    free(x);
    free(y);
    return ok;
}

// Every figure of two runs of the same configuration. exact: bit for bit; otherwise each array
// by method 6.5's rule at ratio. enforce: a difference fails the test (else it is printed as a
// note). Returns the number of arrays that differ.
#define GT_EXPECT(enforce, cond, ...)                                                         \
    do {                                                                                    \
        if (enforce) CHECK(cond, __VA_ARGS__);                                              \
        else if (!(cond)) fprintf(stderr, "note: "), fprintf(stderr, __VA_ARGS__), fputc('\n', stderr); \
        differ += !(cond);                                                                  \
    } while (0)
static inline int gt_compare_runs(const stepq_run_out* cpu, const stepq_run_out* gpu, const stepq_run_cfg* cfg,
                           int exact, double ratio, const char* what, int enforce) {
    int differ = 0;
    GT_EXPECT(1, cpu->F == gpu->F && cpu->H == gpu->H && cpu->K == gpu->K && cpu->V == gpu->V &&
                     cpu->T == gpu->T && cpu->n_bins == gpu->n_bins, "%s: shapes differ", what);
    if (differ) return differ;
    const size_t FH = (size_t)cpu->F * cpu->H, FHB = FH * cpu->n_bins, KV = (size_t)cpu->K * cpu->V;
    struct { const char* name; const void *a, *b; size_t n; int dbl; } arr[] = {
        {"err_y", cpu->err_y, gpu->err_y, FHB, 0},
        {"err_S", cpu->err_S, gpu->err_S, FHB, 0},
        {"acc_sq", cpu->acc_sq, gpu->acc_sq, FH, 1},
        {"acc_ref", cpu->acc_ref, gpu->acc_ref, (size_t)cpu->H, 1},
        {"p1_resid", cpu->p1_resid, gpu->p1_resid, FH, 1},
        {"mean_log_gate", cpu->mean_log_gate, gpu->mean_log_gate, (size_t)cpu->H, 1},
        {"half_life", cpu->half_life, gpu->half_life, (size_t)cpu->H, 1},
        {"bytes", cpu->bytes, gpu->bytes, FH, 1},
        {"y", cpu->y, gpu->y, cfg->keep_y ? FH * cpu->T * cpu->V : 0, 0},
        {"y_ref", cpu->y_ref, gpu->y_ref, cfg->keep_y ? (size_t)cpu->H * cpu->T * cpu->V : 0, 0},
        {"S_final", cpu->S_final, gpu->S_final, cfg->keep_y ? FH * KV : 0, 0},
        {"S_ref_final", cpu->S_ref_final, gpu->S_ref_final, cfg->keep_y ? (size_t)cpu->H * KV : 0, 0},
    };
    size_t first_div = 0;
    for (size_t i = 0; i < FH && !first_div; i++)
        if (cpu->diverged[i] != gpu->diverged[i]) first_div = i + 1;
    GT_EXPECT(enforce, !first_div, "%s: diverged differs at %zu: %ld (CPU) vs %ld", what, first_div - 1,
              first_div ? cpu->diverged[first_div - 1] : 0, first_div ? gpu->diverged[first_div - 1] : 0);
    for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++) {
        if (!arr[k].n) continue;
        size_t at = 0;
        double got = 0;
        if (exact) {
            int same = arr[k].dbl ? gt_same_d(arr[k].a, arr[k].b, arr[k].n, &at)
                                  : gt_same_f(arr[k].a, arr[k].b, arr[k].n, &at);
            double va = arr[k].dbl ? ((const double*)arr[k].a)[at] : ((const float*)arr[k].a)[at];
            double vb = arr[k].dbl ? ((const double*)arr[k].b)[at] : ((const float*)arr[k].b)[at];
            GT_EXPECT(enforce, same, "%s: %s differs first at %zu: %.9g (CPU) vs %.9g", what, arr[k].name, at,
                      va, vb);
        } else if (arr[k].dbl) {
            GT_EXPECT(enforce, tu_agree(arr[k].a, arr[k].b, arr[k].n, ratio, &got), "%s: %s rms ratio %.3g",
                      what, arr[k].name, got);
        } else {
            GT_EXPECT(enforce, gt_agree_f(arr[k].a, arr[k].b, arr[k].n, ratio, &got), "%s: %s rms ratio %.3g",
                      what, arr[k].name, got);
        }
    }
    return differ;
}

#endif

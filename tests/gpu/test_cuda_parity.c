// test_cuda_parity: the CUDA fast path on a GPU against the CPU reference (method 6.5). Exits
// 77 (CTest: skipped) without a CUDA device of compute capability 8.0 or newer.
//   1. FP32: 2048 steps (256 prefill + 1792 decode) of 128 x 128 heads, GDN and KDA, grouped
//      value heads (HV = 2H): every read-out and the final states agree with the CPU runner's
//      by the comparison rule (max|a-b| <= 1e-6, or rms(a-b)/rms(a) < 2e-3; NaN never agrees).
//   2. Every quantized format, one encode of 128 x 128 heads (GDN and KDA plans with every
//      width and pivots): codes equal to the CPU's except where a value sits within 1e-6
//      relative of a rounding boundary (the count is printed); factors equal; the GPU decoder
//      on the CPU's bytes equal to the CPU decoder.
//   3. Whole runs of every format on synthetic gdn-qwen-like and kda-kimi-like heads: each
//      head's accumulated read-out error within 5% of the CPU's, the formats in the same order.
//   4. The serving kernels (fused, split, FP32 baseline) against the CPU's fused step.
//   5. The lane kernels (fp32, bf16, fp16, int8, int6, int4, nvfp4, fp8-tile32, dsq6, stepquant6,
//      time6, damp, leap6-r4, leap6-r8, leap6-fp32, leap4-r4, int8-sr, fp8-sr, fp16-sr; GDN and
//      KDA): the device's read-outs and stored bytes equal to the host emulation's, byte for byte,
//      over 32 steps of 96 heads (test_cuda_lanes checks the emulation against the CPU under
//      method 6.5's contract).
// `test_cuda_parity --emulate` runs the same checks on the host emulation (slow: minutes; it
// checks this test's own logic where there is no GPU).
// The block programs keep the CPU's operations and their order, so the figures are expected to
// be equal bit for bit (test_cuda_emulate shows it for their host build); this test checks the
// brief's tolerances and prints whether each comparison was bit-equal, which is what the
// device compiler's arithmetic decides.
#include "../../sim/cuda/engine.h"
#include "../../sim/cuda/serving.h"
#include "../../sim/synth.h"
#include "gputest.h"

static int where = STEPQ_CUDA_DEVICE;

// ---------------------------------------------------------------------------------------------
// 1. FP32 over 2048 steps

static void fp32_2048(int kind, gsl_rng* r) {
    const int K = 128, V = 128, H = 2, groups = 2;
    stepq_source* src = gt_trace(kind, 2048, H, groups, K, V, 1, r);
    const stepq_format* f = stepq_format_find("fp32");
    stepq_run_cfg cfg = {.formats = &f, .n_formats = 1, .prefill = 256, .decode = 1792,
        .bin = 64, .keep_y = 1, .label = "fp32 parity", .plan = NULL, .backend = stepq_backend_default()};
    stepq_run_out cpu, gpu;
    int ok = stepq_run_heads(&cpu, src, &cfg) == STEPQ_OK;
    CHECK(ok && stepq_cuda_run_heads_on(&gpu, src, &cfg, where) == STEPQ_OK, "fp32 %s: a run failed", stepq_kind_name(kind));
    if (!ok) return;
    const size_t nY = (size_t)cpu.F * cpu.T * cpu.H * V, nS = (size_t)cpu.H * K * V;
    double got;
    size_t at;
    struct { const char* name; const float *a, *b; size_t n; } arr[] = {
        {"y (quantized path)", cpu.y, gpu.y, nY}, {"y_ref", cpu.y_ref, gpu.y_ref, nY},
        {"S_final", cpu.S_final, gpu.S_final, nS}, {"S_ref_final", cpu.S_ref_final, gpu.S_ref_final, nS}};
    for (int k = 0; k < 4; k++) {
        CHECK(gt_agree_f(arr[k].a, arr[k].b, arr[k].n, 2e-3, &got), "fp32 %s HV=%d: %s rms ratio %.3g",
              stepq_kind_name(kind), H * groups, arr[k].name, got);
        printf("fp32 %s, 2048 steps, HV = %d: %-18s %s (rms ratio %.3g)\n", stepq_kind_name(kind), H * groups,
               arr[k].name, gt_same_f(arr[k].a, arr[k].b, arr[k].n, &at) ? "bit-equal" : "agrees, not bit-equal", got);
    }
    stepq_run_out_free(&cpu);
    stepq_run_out_free(&gpu);
    stepq_source_free(src);
}

// ---------------------------------------------------------------------------------------------
// 2. one encode of every format

// the input values an element's code was chosen from (DAMP: the rotated row), per head
static void coded_space(float* out, const float* X, const stepq_format* f, const stepq_head_plan* hp, int K, int V) {
    memcpy(out, X, sizeof(float) * K * V);
    if (!stepq_format_rotated(f)) return;
    for (int i = 0; i < K; i++)
        if (hp->bits[i] != STEPQ_PIVOT_BITS) stepq_fwht(out + (size_t)i * V, V);
}

static void one_encode(const stepq_format* f, const stepq_plan* p, int kind, gsl_rng* r) {
    enum { N = 8, K = 128, V = 128 };
    const size_t KV = (size_t)K * V;
    stepq_head_plan hps[N];
    uint8_t rows[N][K];
    size_t stride = 0;
    for (int h = 0; h < N; h++) {
        stepq_assert(stepq_head_plan_for(&hps[h], rows[h], f, p, h % p->H, kind, K) == STEPQ_OK);
        size_t b = stepq_format_bytes(f, &hps[h], K, V);
        stride = b > stride ? b : stride;
    }
    stride = (stride + 15) & ~(size_t)15;
    float *X = malloc(sizeof(float) * N * KV), *Xc = malloc(sizeof(float) * N * KV);
    float *Xg = malloc(sizeof(float) * N * KV), *Xd = malloc(sizeof(float) * N * KV);
    float *a = malloc(sizeof(float) * KV), *ac = malloc(sizeof(float) * KV), *ag = malloc(sizeof(float) * KV);
    uint8_t *Pc = calloc(N, stride), *Pg = calloc(N, stride);
    float* work = malloc(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
    int st[N];
    for (int h = 0; h < N; h++) {
        gt_state(X + h * KV, K, V, r);
        CHECK(stepq_encode(Pc + h * stride, X + h * KV, f, &hps[h], work, K, V) == STEPQ_OK, "%s: CPU encode", f->name);
    }
    CHECK(stepq_cuda_encode(Pg, Xg, st, X, f, hps, stride, N, K, V, where) == STEPQ_OK, "%s: GPU encode", f->name);
    long differ = 0, boundary = 0, other = 0;
    for (int h = 0; h < N; h++) {
        CHECK(st[h] == STEPQ_OK, "%s: head %d refused", f->name, h);
        const size_t bytes = stepq_format_bytes(f, &hps[h], K, V);
        if (!memcmp(Pc + h * stride, Pg + h * stride, bytes)) continue;
        // which elements decode differently, and whether each sits at a rounding boundary: its
        // input within 1e-6 relative of the midpoint of the two levels (in the space it was coded in)
        stepq_decode(Xc + h * KV, Pc + h * stride, f, &hps[h], K, V);
        stepq_decode(Xd + h * KV, Pg + h * stride, f, &hps[h], K, V);
        coded_space(a, X + h * KV, f, &hps[h], K, V);
        coded_space(ac, Xc + h * KV, f, &hps[h], K, V);
        coded_space(ag, Xd + h * KV, f, &hps[h], K, V);
        const long before = differ;
        for (size_t e = 0; e < KV; e++) {
            if (ac[e] == ag[e]) continue;
            differ++;
            const double mid = 0.5 * ((double)ac[e] + ag[e]);
            if (fabs(a[e] - mid) <= 1e-6 * fabs(a[e])) boundary++;
            else other++;
        }
        if (differ == before) other++;  // bytes differ, values do not: a factor's bits or padding
    }
    CHECK(other == 0, "%s %s: %ld elements (or factors) differ away from a rounding boundary", f->name,
          stepq_kind_name(kind), other);
    printf("encode %-16s %s: %s; %ld elements at a rounding boundary differ\n", f->name, stepq_kind_name(kind),
           differ ? "bytes differ" : "bytes equal", boundary);
    // the GPU decoder on the CPU's bytes
    CHECK(stepq_cuda_decode(Xd, Pc, f, hps, stride, N, K, V, where) == STEPQ_OK, "%s: GPU decode", f->name);
    for (int h = 0; h < N; h++) {
        size_t at;
        stepq_decode(Xc + h * KV, Pc + h * stride, f, &hps[h], K, V);
        CHECK(gt_same_f(Xc + h * KV, Xd + h * KV, KV, &at), "%s %s head %d: GPU decode differs at %zu", f->name,
              stepq_kind_name(kind), h, at);
    }
    free(X); free(Xc); free(Xg); free(Xd); free(a); free(ac); free(ag); free(Pc); free(Pg); free(work);
}

// ---------------------------------------------------------------------------------------------
// 3. whole runs

static const double* sort_key;
static int cmp_key(const void* x, const void* y) {  // a diverged format (NaN) ranks last
    double a = sort_key[*(const int*)x], b = sort_key[*(const int*)y];
    a = isnan(a) ? INFINITY : a;
    b = isnan(b) ? INFINITY : b;
    return a < b ? -1 : a > b ? 1 : (*(const int*)x - *(const int*)y);
}

static void whole_runs(const char* preset, gsl_rng* r) {
    stepq_synth_params sp;
    stepq_source* src;
    int layer = 0, heads[4] = {0, 1, 2, 3};
    stepq_assert(stepq_synth_preset(&sp, preset) == STEPQ_OK &&
                 stepq_synth_open(&src, &sp, 0, 7, &layer, 1, heads, 4) == STEPQ_OK);
    stepq_plan plan;
    gt_plan(&plan, src->kind, src->K, src->V, 4, r);
    const stepq_format* fmts[64];
    int F = 0;
    for (int i = 0; i < stepq_n_formats; i++) fmts[F++] = &stepq_formats[i];
    stepq_run_cfg cfg = {.formats = fmts, .n_formats = F, .prefill = 256, .decode = 768,
        .bin = 64, .keep_y = 0, .label = "whole runs", .plan = &plan,
        .backend = stepq_backend_default()};
    stepq_run_out cpu, gpu;
    int ok = stepq_run_heads(&cpu, src, &cfg) == STEPQ_OK;
    CHECK(ok && stepq_cuda_run_heads_on(&gpu, src, &cfg, where) == STEPQ_OK, "%s: a run failed", preset);
    if (!ok) return;
    const int H = cpu.H;
    double* tot_c = calloc(F, sizeof(double));
    double* tot_g = calloc(F, sizeof(double));
    for (int f = 0; f < F; f++)
        for (int h = 0; h < H; h++) {
            const double c = cpu.acc_sq[f * H + h], g = gpu.acc_sq[f * H + h];
            CHECK(cpu.diverged[f * H + h] == gpu.diverged[f * H + h], "%s %s head %d: diverged at %ld (CPU) vs %ld",
                  preset, fmts[f]->name, h, cpu.diverged[f * H + h], gpu.diverged[f * H + h]);
            CHECK(fabs(g - c) <= 0.05 * c || (c == 0 && g == 0) || (isnan(c) && isnan(g)),
                  "%s %s head %d: accumulated error %.6g (CPU) vs %.6g", preset, fmts[f]->name, h, c, g);
            tot_c[f] += c / cpu.acc_ref[h];
            tot_g[f] += g / gpu.acc_ref[h];
        }
    int *oc = malloc(sizeof(int) * F), *og = malloc(sizeof(int) * F);
    for (int f = 0; f < F; f++) oc[f] = og[f] = f;
    sort_key = tot_c;
    qsort(oc, F, sizeof(int), cmp_key);
    sort_key = tot_g;
    qsort(og, F, sizeof(int), cmp_key);
    CHECK(!memcmp(oc, og, sizeof(int) * F), "%s: the formats rank differently by accumulated error", preset);
    int bad = gt_compare_runs(&cpu, &gpu, &cfg, 1, 0, preset, 0);  // reported, not required
    printf("whole runs %s: %d formats x %d heads, 1024 steps: accumulated errors within 5%%, same order; %s\n",
           preset, F, H, bad ? "not bit-equal (see above)" : "every figure bit-equal");
    free(tot_c); free(tot_g); free(oc); free(og);
    stepq_run_out_free(&cpu);
    stepq_run_out_free(&gpu);
    stepq_plan_free(&plan);
    stepq_source_free(src);
}

// ---------------------------------------------------------------------------------------------
// 4. the serving kernels

static void serving(gsl_rng* r) {
    static const char* const names[] = {"fp32", "bf16", "int8", "int6", "int4", "stepquant6", "stepquant4",
                                        "dsq4", "damp", "nvfp4", "leap6-r4", "fp8-tile32", "int8-sr",
                                        "fp16-sr"};
    for (int kind = 0; kind < 2; kind++) {
        stepq_plan p;
        gt_plan(&p, kind, 128, 128, 8, r);
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            for (int mode = 0; mode < 2; mode++)
                for (int ns = 1; ns <= 2; ns++) {
                    const stepq_format* f = stepq_format_find(names[i]);
                    stepq_serving_report rep;
                    int rc = stepq_serving_check(&rep, f, &p, kind, 24, 128, 128, mode, ns, 4, where,
                                                 stepq_backend_default());
                    CHECK(rc == STEPQ_OK && rep.y_agree, "serving %s %s %s nsplit %d: y rms ratio %.3g",
                          f->name, stepq_kind_name(kind), mode ? "split" : "fused", ns, rep.y_rms_ratio);
                    printf("serving %-11s %s %-5s nsplit %d: y %s (rms ratio %.2g), %ld of %ld bytes differ\n",
                           f->name, stepq_kind_name(kind), mode ? "split" : "fused", ns,
                           rep.y_equal ? "bit-equal" : "agrees", rep.y_rms_ratio, rep.bytes_differ, rep.bytes_total);
                }
        stepq_plan_free(&p);
    }
}

// ---------------------------------------------------------------------------------------------
// 5. the lane kernels: device = emulation

static void lanes(gsl_rng* r) {
    static const char* const names[] = {"fp32",     "bf16",     "fp16",       "int8",     "int6",    "int4",
                                        "nvfp4",    "fp8-tile32", "dsq6",     "stepquant6", "time6", "damp",
                                        "leap6-r4", "leap6-r8", "leap6-fp32", "leap4-r4", "int8-sr", "fp8-sr", "fp16-sr"};
    const int K = 128, V = 128, n = 96, steps = 32;
    const double scale = 1.0 / sqrt((double)K);
    for (int kind = 0; kind < 2; kind++)
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            const stepq_format* f = stepq_format_find(names[i]);
            const int G = stepq_kind_gates(kind, K);
            stepq_head_plan hp;
            uint8_t rows[128];
            if (stepq_head_plan_for(&hp, rows, f, NULL, 0, kind, K) != STEPQ_OK) {  // stepquant6, time6: every width
                for (int i = 0; i < K; i++)  // (DAMP: 8 bits, a fifth of the rows FP16)
                    rows[i] = f->family->id == STEPQ_FAMILY_DAMP ? (i % 5 ? 8 : STEPQ_PIVOT_BITS)
                                                                 : (uint8_t)stepq_plan_widths[(i * 7) % STEPQ_NW];
                hp = (stepq_head_plan){kind, rows, NULL, 0.5f, 1};
            }
            stepq_serving *d, *e;
            int ok = stepq_serving_create(&d, f, &hp, 1, kind, n, K, V, STEPQ_SERVE_LANES, 1, where) == STEPQ_OK &&
                     stepq_serving_create(&e, f, &hp, 1, kind, n, K, V, STEPQ_SERVE_LANES, 1, STEPQ_CUDA_EMULATE) == STEPQ_OK;
            CHECK(ok, "lanes %s: no pool", f->name);
            if (!ok) continue;
            const size_t stride = stepq_serving_stride(d);
            float* S = malloc(sizeof(float) * n * K * V);
            for (int h = 0; h < n; h++) gt_state(S + (size_t)h * K * V, K, V, r);
            stepq_serving_load(d, S);
            stepq_serving_load(e, S);
            float *q = malloc(sizeof(float) * n * K), *k = malloc(sizeof(float) * n * K);
            float *v = malloc(sizeof(float) * n * V), *g = malloc(sizeof(float) * n * G), *beta = malloc(sizeof(float) * n);
            float *yd = malloc(sizeof(float) * n * V), *ye = malloc(sizeof(float) * n * V);
            uint8_t *Pd = malloc(n * stride), *Pe = malloc(n * stride);
            int same = 1;
            for (int t = 0; t < steps && same; t++) {
                for (int h = 0; h < n; h++) {
                    tu_unit(q + h * K, K, r);
                    tu_unit(k + h * K, K, r);
                    for (int j = 0; j < V; j++) v[h * V + j] = (float)gsl_ran_gaussian(r, 1.0);
                    for (int c = 0; c < G; c++) g[h * G + c] = (float)(-0.2 * gsl_rng_uniform(r));
                    beta[h] = (float)gsl_rng_uniform(r);
                }
                stepq_serving_set_inputs(d, q, k, v, g, beta, scale);
                stepq_serving_set_inputs(e, q, k, v, g, beta, scale);
                stepq_serving_step(d);
                stepq_serving_step(e);
                ok = stepq_serving_read(d, yd, Pd) == STEPQ_OK && stepq_serving_read(e, ye, Pe) == STEPQ_OK;
                same = ok && !memcmp(yd, ye, sizeof(float) * n * V) && !memcmp(Pd, Pe, n * stride);
                CHECK(same, "lanes %s %s step %d: the device differs from the emulation", f->name, stepq_kind_name(kind), t);
            }
            printf("lanes %-5s %s: %d steps x %d heads: device %s the emulation\n", f->name, stepq_kind_name(kind), steps, n,
                   same ? "equal byte for byte to" : "DIFFERS from");
            free(S); free(q); free(k); free(v); free(g); free(beta); free(yd); free(ye); free(Pd); free(Pe);
            stepq_serving_free(d);
            stepq_serving_free(e);
        }
}

int main(int argc, char** argv) {
    if (argc > 1 && !strcmp(argv[1], "--emulate")) where = STEPQ_CUDA_EMULATE;
    else if (!stepq_cuda_available()) {
        printf("test_cuda_parity: no CUDA device of compute capability 8.0 or newer: skipped\n");
        return 77;
    }
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 29);
    fp32_2048(STEPQ_GDN, r);
    fp32_2048(STEPQ_KDA, r);
    for (int kind = 0; kind < 2; kind++) {
        stepq_plan p;
        gt_plan(&p, kind, 128, 128, 8, r);
        for (int i = 0; i < stepq_n_formats; i++) one_encode(&stepq_formats[i], &p, kind, r);
        stepq_plan_free(&p);
    }
    whole_runs("gdn-qwen-like", r);
    whole_runs("kda-kimi-like", r);
    serving(r);
    lanes(r);
    gsl_rng_free(r);
    return tu_finish("test_cuda_parity");
}

// test_cuda_emulate: the CUDA block programs (sim/cuda/blockprog.cuh) run on the host
// (STEPQ_CUDA_EMULATE), where CI has no GPU, against the CPU code they follow:
//   - the analysis engine against stepq_run_heads: every figure of stepq_run_out (per-bin
//     errors, accumulated errors, P1 residuals, gates, bytes, every read-out and the final
//     states) equal bit for bit, for every format of the table, GDN and KDA, grouped value
//     heads, an initial state, plans with every width, pivots and DAMP rows, runs longer than
//     one chunk; and a run that overflows fails as the CPU's does;
//   - the codec against the CPU encoders and decoders: packed bytes and decoded states equal,
//     a non-finite head refused, LeapQuant's freeze gate both ways;
//   - the serving step (fused and split kernels, and the FP32 baseline) against the CPU's
//     fused decode step (sim/backend.h): read-outs and packed bytes equal with the CPU's order
//     of sums (nsplit = 1), within method 6.5's rule with split sums.
// What this cannot check: the device's barriers, races and launches, shared-memory sizes, and
// the device compiler's arithmetic (test_cuda_parity does, on a GPU).
#include "../../sim/cuda/engine.h"
#include "../../sim/cuda/serving.h"
#include "gputest.h"

// the formats of the table that fit V, the freeze-gated ones apart (fz: only those, or none)
static int formats_of(const stepq_format** out, int V, int fz) {
    int n = 0;
    for (int i = 0; i < stepq_n_formats; i++) {
        const stepq_format* f = &stepq_formats[i];
        int freeze = stepq_format_freeze_gated(f);
        if (gt_fits(f, V) && freeze == fz) out[n++] = f;
    }
    return n;
}

// beta_scale: small writes keep LeapQuant's freeze gate closing on many steps
static int refuse_done(void* ctx, int h, stepq_run_out* o) { return 0; }

static void engine_vs_cpu(int kind, int K, int V, int H, int groups, long prefill, long decode,
                          int bin, double beta_scale, gsl_rng* r) {
    const int HV = H * groups;
    stepq_trace tr;
    gt_trace_data(&tr, kind, prefill + decode, H, groups, K, V, 1, beta_scale, r);
    stepq_source* src = stepq_trace_source(&tr, "memory");
    stepq_plan plan;
    gt_plan(&plan, kind, K, V, HV, r);
    const stepq_format* fmts[64];
    char what[128];
    for (int fz = 0; fz < 2; fz++) {
        const int n = formats_of(fmts, V, fz);
        stepq_run_cfg cfg = {.formats = fmts, .n_formats = n, .prefill = prefill, .decode = decode,
            .bin = bin, .keep_y = 1, .label = "test", .plan = &plan, .backend = stepq_backend_default()};
        stepq_run_out cpu, emu;
        int rc_cpu = stepq_run_heads(&cpu, src, &cfg);
        int rc_emu = stepq_cuda_run_heads_on(&emu, src, &cfg, STEPQ_CUDA_EMULATE);
        snprintf(what, sizeof what, "engine %s %dx%d HV=%d T=%ld beta x%g%s", stepq_kind_name(kind), K,
                 V, HV, prefill + decode, beta_scale, fz ? " (freeze-gated formats)" : "");
        CHECK(rc_cpu == STEPQ_OK && rc_emu == STEPQ_OK, "%s: rc %d / %d", what, rc_cpu, rc_emu);
        if (rc_cpu != STEPQ_OK || rc_emu != STEPQ_OK) continue;
        // the freeze gate sums in another order (blockprog.cuh); equal unless a ratio sits
        // within about 1e-13 of tau, which these streams never do
        int bad = gt_compare_runs(&cpu, &emu, &cfg, 1, 0, what, 1);
        printf("%s: %d formats, %s\n", what, n, bad ? "DIFFER" : "equal bit for bit");
        stepq_run_out_free(&cpu);
        stepq_run_out_free(&emu);
    }
    stepq_plan_free(&plan);
    stepq_source_free(src);
}

// a head whose state overflows: both runs fail (with the same message: head 1, the same step
// and format), and a run too long for its source is refused
static void engine_failure(gsl_rng* r) {
    stepq_trace tr;
    gt_trace_data(&tr, STEPQ_GDN, 40, 1, 2, 16, 16, 0, 1.0, r);
    for (long t = 20; t < 40; t++)
        for (int j = 0; j < 16; j++) tr.v[((size_t)t * 2 + 1) * 16 + j] = 3e38f;
    stepq_source* src = stepq_trace_source(&tr, "memory");
    const stepq_format* f[2] = {stepq_format_find("int8"), stepq_format_find("fp32")};
    stepq_run_cfg cfg = {.formats = f, .n_formats = 2, .prefill = 5, .decode = 35,
        .bin = 4, .keep_y = 0, .label = "test", .plan = NULL, .backend = stepq_backend_default()};
    stepq_run_out a, b;
    fprintf(stderr, "(two errors expected next, the same from both runners)\n");
    CHECK(stepq_run_heads(&a, src, &cfg) == STEPQ_ERR, "the CPU ran through an overflow");
    CHECK(stepq_cuda_run_heads_on(&b, src, &cfg, STEPQ_CUDA_EMULATE) == STEPQ_ERR, "the engine ran through an overflow");
    stepq_run_cfg longer = {.formats = f, .n_formats = 2, .prefill = 5, .decode = 36,
        .bin = 4, .keep_y = 0, .label = "test", .plan = NULL};
    fprintf(stderr, "(one more expected: the source is too short)\n");
    CHECK(stepq_cuda_run_heads_on(&b, src, &longer, STEPQ_CUDA_EMULATE) == STEPQ_ERR, "a run longer than its source");
    cfg.hook_ctx = &cfg;  // a driver's journal: never called, refused first
    cfg.done = refuse_done;
    fprintf(stderr, "(one more expected: the engine keeps no journal)\n");
    CHECK(stepq_cuda_run_heads_on(&b, src, &cfg, STEPQ_CUDA_EMULATE) == STEPQ_ERR, "a journal accepted");
    stepq_source_free(src);
}

// A format that diverges (sim/run.c: ||S_hat||_F > 10 ||S||_F): GDN 2-bit units store odd levels
// (never 0), so once a fast-decaying reference with nothing written falls below the smallest
// level the FP16 factors allow (2^-48), the stored state stays above it. Both runs must mark the
// same heads and steps, and leave the same NaN bins; format 0 diverging must not stop the
// reference's figures.
static void engine_divergence(gsl_rng* r) {
    stepq_trace tr;
    gt_trace_data(&tr, STEPQ_GDN, 90, 1, 2, 32, 32, 1, 1.0, r);
    for (long t = 0; t < 90; t++)
        for (int h = 0; h < 2; h++) {
            tr.g[t * 2 + h] = h ? -0.7f : -1.5f;
            for (int j = 0; j < 32; j++) tr.v[(t * 2 + h) * 32 + j] = 0;
        }
    stepq_source* src = stepq_trace_source(&tr, "memory");
    stepq_plan p;
    gt_plan(&p, STEPQ_GDN, 32, 32, 2, r);
    for (int a = 0; a < STEPQ_N_ALLOC; a++)
        for (int b = 0; b < STEPQ_N_BUDGETS; b++) p.bits[a][b][0] = p.bits[a][b][1] = 2;
    const stepq_format* f[4] = {stepq_format_find("stepquant4"), stepq_format_find("int8"),
                                stepq_format_find("fp32"), stepq_format_find("mlife6")};
    stepq_run_cfg cfg = {.formats = f, .n_formats = 4, .prefill = 2, .decode = 88,
        .bin = 8, .keep_y = 1, .label = "test", .plan = &p, .backend = stepq_backend_default()};
    stepq_run_out cpu, emu;
    int ok = stepq_run_heads(&cpu, src, &cfg) == STEPQ_OK;
    CHECK(ok && stepq_cuda_run_heads_on(&emu, src, &cfg, STEPQ_CUDA_EMULATE) == STEPQ_OK, "divergence: a run failed");
    if (ok) {
        int nd = 0;
        for (int i = 0; i < 8; i++) nd += cpu.diverged[i] >= 0;
        CHECK(nd >= 2, "divergence: the case did not diverge (%d head-formats); the test needs another", nd);
        int bad = gt_compare_runs(&cpu, &emu, &cfg, 1, 0, "engine divergence", 1);
        printf("engine divergence: %d head-formats diverged; %s\n", nd, bad ? "DIFFER" : "equal bit for bit");
        stepq_run_out_free(&cpu);
        stepq_run_out_free(&emu);
    }
    stepq_plan_free(&p);
    stepq_source_free(src);
}

// ---------------------------------------------------------------------------------------------

static size_t stride_of(const stepq_format* f, const stepq_head_plan* hps, int n, int K, int V) {
    size_t m = 0;
    for (int h = 0; h < n; h++) {
        size_t b = stepq_format_bytes(f, &hps[h], K, V);
        m = b > m ? b : m;
    }
    return (m + 15) & ~(size_t)15;
}

// the codec of one format on n heads of plan p: bytes and decoded states equal to the CPU's
static void codec_vs_cpu(const stepq_format* f, const stepq_plan* p, int kind, int K, int V, gsl_rng* r) {
    enum { N = 4 };
    const size_t KV = (size_t)K * V;
    stepq_head_plan hps[N];
    uint8_t rows[N][STEPQ_MAX_DIM];
    for (int h = 0; h < N; h++)
        stepq_assert(stepq_head_plan_for(&hps[h], rows[h], f, p, h % p->H, kind, K) == STEPQ_OK);
    const size_t stride = stride_of(f, hps, N, K, V);
    float* X = malloc(sizeof(float) * N * KV);
    float *Xc = malloc(sizeof(float) * N * KV), *Xg = malloc(sizeof(float) * N * KV), *Xd = malloc(sizeof(float) * N * KV);
    uint8_t *Pc = calloc(N, stride), *Pg = calloc(N, stride);
    float* work = malloc(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
    int st_c[N], st_g[N];
    // the previous bytes (read by the freeze gate): each head's encoding of a state; head 1 then
    // moves a little (frozen), head 2 a lot (not), head 3 is not finite
    for (int h = 0; h < N; h++) {
        gt_state(X + h * KV, K, V, r);
        stepq_encode(Pc + h * stride, X + h * KV, f, &hps[h], work, K, V);
    }
    for (size_t e = 0; e < KV; e++) {
        X[0 * KV + e] = (float)gsl_ran_gaussian(r, 2.0);
        X[1 * KV + e] *= 1.0f + 1e-4f;
        X[2 * KV + e] = -3 * X[2 * KV + e];
    }
    X[3 * KV + KV / 2] = NAN;
    memcpy(Pg, Pc, N * stride);
    for (int h = 0; h < N; h++) st_c[h] = stepq_encode(Pc + h * stride, X + h * KV, f, &hps[h], work, K, V);
    CHECK(stepq_cuda_encode(Pg, Xg, st_g, X, f, hps, stride, N, K, V, STEPQ_CUDA_EMULATE) == STEPQ_OK,
          "%s: encode", f->name);
    for (int h = 0; h < N; h++) {
        CHECK(st_c[h] == st_g[h], "%s %s %dx%d head %d: status %d (CPU) vs %d", f->name,
              stepq_kind_name(kind), K, V, h, st_c[h], st_g[h]);
        if (st_c[h] != STEPQ_OK) continue;
        const size_t bytes = stepq_format_bytes(f, &hps[h], K, V);
        size_t at = 0;
        int same = !memcmp(Pc + h * stride, Pg + h * stride, bytes);
        for (at = 0; !same && at < bytes && Pc[h * stride + at] == Pg[h * stride + at]; at++) {}
        CHECK(same, "%s %s %dx%d head %d: packed bytes differ first at %zu of %zu", f->name,
              stepq_kind_name(kind), K, V, h, at, bytes);
        stepq_decode(Xc + h * KV, Pc + h * stride, f, &hps[h], K, V);
        CHECK(gt_same_f(Xc + h * KV, Xg + h * KV, KV, &at), "%s %s %dx%d head %d: X_hat differs at %zu: %g vs %g",
              f->name, stepq_kind_name(kind), K, V, h, at, Xc[h * KV + at], Xg[h * KV + at]);
    }
    memcpy(Pc + 3 * stride, Pc, stride);  // a decodable head in the refused one's place
    memcpy(Xc + 3 * KV, Xc, KV * sizeof(float));
    CHECK(stepq_cuda_decode(Xd, Pc, f, hps, stride, N, K, V, STEPQ_CUDA_EMULATE) == STEPQ_OK, "%s: decode", f->name);
    for (int h = 0; h < N; h++) {
        size_t at = 0;
        if (h == 3) stepq_decode(Xc + h * KV, Pc + h * stride, f, &hps[h], K, V);
        CHECK(gt_same_f(Xc + h * KV, Xd + h * KV, KV, &at), "%s %s %dx%d head %d: decode differs at %zu",
              f->name, stepq_kind_name(kind), K, V, h, at);
    }
    free(X); free(Xc); free(Xg); free(Xd); free(Pc); free(Pg); free(work);
}

static void codecs(gsl_rng* r) {
    static const int shapes[][2] = {{32, 64}, {16, 40}, {24, 128}};
    for (int s = 0; s < 3; s++)
        for (int kind = 0; kind < 2; kind++) {
            const int K = shapes[s][0], V = shapes[s][1];
            stepq_plan p;
            gt_plan(&p, kind, K, V, 5, r);
            for (int i = 0; i < stepq_n_formats; i++)
                if (gt_fits(&stepq_formats[i], V)) codec_vs_cpu(&stepq_formats[i], &p, kind, K, V, r);
            stepq_plan_free(&p);
        }
}

// ---------------------------------------------------------------------------------------------

static void serving(gsl_rng* r) {
    static const char* const names[] = {"fp32", "bf16", "fp16", "int8", "int6", "int4", "time4",
                                         "dsq4", "space6", "stepquant6", "stepquant4", "mlife4",
                                         "damp", "nvfp4", "leap6-r4", "leap6-fp32", "leap4-r4",
                                         "rlife4", "fp8-tile32", "int8-sr", "fp8-sr", "fp16-sr"};
    for (int kind = 0; kind < 2; kind++) {
        const int K = 32, V = 64;
        stepq_plan p;
        gt_plan(&p, kind, K, V, 6, r);
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            const stepq_format* f = stepq_format_find(names[i]);
            for (int mode = 0; mode < 2; mode++)
                for (int ns = 1; ns <= 2; ns++) {
                    stepq_serving_report rep;
                    int rc = stepq_serving_check(&rep, f, &p, kind, 6, K, V, mode, ns, 3, STEPQ_CUDA_EMULATE,
                                                 stepq_backend_default());
                    CHECK(rc == STEPQ_OK, "serving %s %s mode %d nsplit %d: check failed to run", f->name,
                          stepq_kind_name(kind), mode, ns);
                    if (rc != STEPQ_OK) continue;
                    if (ns == 1)
                        CHECK(rep.y_equal && rep.bytes_differ == 0,
                              "serving %s %s %s: with the CPU's order: y %s, %ld bytes differ", f->name,
                              stepq_kind_name(kind), mode ? "split" : "fused", rep.y_equal ? "equal" : "differs",
                              rep.bytes_differ);
                    else
                        CHECK(rep.y_agree, "serving %s %s %s nsplit 2: y rms ratio %.3g", f->name,
                              stepq_kind_name(kind), mode ? "split" : "fused", rep.y_rms_ratio);
                }
        }
        stepq_plan_free(&p);
    }
}

int main(void) {
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 23);
    codecs(r);
    // one chunk; then more than one chunk (the engine takes 256 steps a launch) with a short
    // prefill; KDA; a head larger than a chunk's width in bytes
    engine_vs_cpu(STEPQ_GDN, 32, 32, 2, 2, 12, 40, 7, 1.0, r);
    engine_vs_cpu(STEPQ_KDA, 32, 32, 1, 2, 5, 30, 4, 1.0, r);
    engine_vs_cpu(STEPQ_GDN, 16, 64, 1, 1, 3, 300, 50, 1.0, r);
    engine_vs_cpu(STEPQ_KDA, 16, 32, 1, 2, 10, 60, 8, 0.01, r);
    setenv("STEPQ_CUDA_MAX_BATCH", "3", 1);  // batches of 3, 3 and 2 heads
    engine_vs_cpu(STEPQ_GDN, 16, 32, 4, 2, 4, 20, 6, 1.0, r);
    unsetenv("STEPQ_CUDA_MAX_BATCH");
    engine_failure(r);
    engine_divergence(r);
    serving(r);
    gsl_rng_free(r);
    return tu_finish("test_cuda_emulate");
}

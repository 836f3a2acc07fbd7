// bench.c: `stepq bench`; see bench.h for what is measured.
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../quant/format.h"
#include "../sim/recurrence.h"
#include "../sim/trace.h"
#include "../sim/runstate.h"
#include "../sim/synth.h"
#include "../base/progress.h"
#include "replay.h"
#include "runner.h"

#define BK 128  // the head benchmarked: 128 x 128, as both of the paper's models
#define BV 128
#define T_STEPS 256   // the recorded inputs a step benchmark cycles through
#define REPS 5        // repetitions of each timing; the median is reported

static double thread_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int threads_max(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}
double stepq_bench_median(double* x, int n) {
    qsort(x, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

// ---------------------------------------------------------------------------------------------
// the inputs: T_STEPS steps of one gdn-qwen-like head, and its state after them

typedef struct {
    float q[T_STEPS][BK], k[T_STEPS][BK], v[T_STEPS][BV], g[T_STEPS], beta[T_STEPS];
    float S0[BK * BV];  // the state after the recorded steps: realistic magnitudes
    double scale;
} inputs;

static void record(inputs* in, const stepq_backend* k) {
    stepq_assert(stepq_synth_record("gdn-qwen-like", 0, 5, T_STEPS, BK, BV, &in->q[0][0], &in->k[0][0],
                                    &in->v[0][0], in->g, in->beta, in->S0, &in->scale, k) == STEPQ_OK);
}

static stepq_step_in step_of(const inputs* in, long t) {
    int s = (int)(t % T_STEPS);
    stepq_step_in st = {.q = in->q[s], .k = in->k[s], .v = in->v[s], .g = &in->g[s], .beta = in->beta[s]};
    return st;
}

void stepq_bench_plan(stepq_plan* p, int n) {
    stepq_plan_alloc(p, STEPQ_GDN, BK, BV, n);
    p->rho = 0.5;
    p->refits = 1;
    for (int h = 0; h < n; h++) {
        p->head[h] = h;
        for (int i = 0; i < BK; i++) {
            p->w[(size_t)h * BK + i] = 1.0f;
            p->damp[(size_t)h * BK + i] = i < (int)lround(STEPQ_DAMP_FP16_SHARE * BK);
        }
        for (int a = 0; a < STEPQ_N_ALLOC; a++)
            for (int b = 0; b < STEPQ_N_BUDGETS; b++) p->bits[a][b][h] = (uint8_t)stepq_plan_budgets[b];
    }
}

// ---------------------------------------------------------------------------------------------
// one head's step, timed

enum { V_PLAIN, V_REF_F32, V_F32, N_BASE };  // the float32 rows before the formats

typedef struct {
    const inputs* in;
    const stepq_format* fmt;    // NULL: a float32 variant
    int variant;                // V_* for float32
    const stepq_backend* k;
    const stepq_bench_isa* isa;
    const stepq_plan* plan;
} step_job;

// runs n head-steps of the job on this thread; returns its thread CPU seconds
static double run_steps(const step_job* j, long n, double* wall) {
    const inputs* in = j->in;
    _Alignas(64) float S[BK * BV];  // on a cache line, as mallocCheck puts every state
    _Alignas(64) float y[BV], u[BV], decay[BK];
    stepq_qstate qs;
    if (j->fmt) {
        stepq_assert(stepq_qstate_init(&qs, j->fmt, j->plan, 0, STEPQ_GDN, BK, BV) == STEPQ_OK);
        stepq_assert(stepq_qstate_load(&qs, in->S0) == STEPQ_OK);
    }
    memcpy(S, in->S0, sizeof S);
    double t0 = thread_now(), w0 = stepq_now();
    for (long t = 0; t < n; t++) {
        stepq_step_in st = step_of(in, t);
        if (j->fmt) {
            stepq_decays(decay, st.g, 1, BK);
            j->k->read(&qs, &st, decay, NULL, NULL, NULL);
            if (j->k->write(&qs, &st, decay, in->scale, 1, NULL, y, NULL) != STEPQ_OK) break;
        } else if (j->variant == V_PLAIN) {
            j->isa->plain_step(S, y, u, st.q, st.k, st.v, st.g, st.beta, (float)in->scale, 1, BK, BV);
        } else {
            stepq_step_fn f = j->variant == V_REF_F32 ? stepq_step_f32 : j->k->step;
            f(S, y, u, st.q, st.k, st.v, st.g, st.beta, in->scale, 1, BK, BV);
        }
    }
    double cpu = thread_now() - t0;
    *wall = stepq_now() - w0;
    if (j->fmt) stepq_qstate_free(&qs);
    return cpu;
}

typedef struct {
    double cpu_ns, wall_ns;  // per head-step, one thread, medians
    double all_rate;         // head-steps per second on all threads
} step_time;

// one repetition of a job: thread CPU and wall ns per head-step on one thread, then head-steps
// per second on all threads
typedef struct {
    double cpu[REPS], wall[REPS], all[REPS];
} step_reps;

static void time_once(step_reps* t, int r, const step_job* j, long n) {
    const int T = threads_max();
    t->cpu[r] = 1e9 * run_steps(j, n, &t->wall[r]) / (double)n;
    t->wall[r] *= 1e9 / (double)n;
    double w0 = stepq_now();
#pragma omp parallel num_threads(T)
    {
        double unused;
        run_steps(j, n, &unused);
    }
    t->all[r] = (double)T * n / (stepq_now() - w0);
}

static step_time medians(step_reps* t) {
    return (step_time){stepq_bench_median(t->cpu, REPS), stepq_bench_median(t->wall, REPS), stepq_bench_median(t->all, REPS)};
}

// ---------------------------------------------------------------------------------------------
// machine

// what the step's speed is held against: one core's FMA peak, the memory's copy bandwidth, the
// float32 step's memory traffic alone (bench.h), and the CPU and its cache sizes
typedef struct {
    double peak, bw, traffic_ns;
    long l1d, l2;   // bytes (sysconf), 0 where unknown
    char model[128];
} machine;

static void cpu_model(char* out, size_t n) {
    snprintf(out, n, "unknown");
    FILE* fp = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (fp && fgets(line, sizeof line, fp)) {
        char* c = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !c) continue;
        c += 1 + strspn(c + 1, " \t");
        c[strcspn(c, "\n")] = 0;
        snprintf(out, n, "%s", c);
        break;
    }
    if (fp) fclose(fp);
}

static double copy_bandwidth(size_t bytes) {
    char* a = mallocCheck(bytes);
    char* b = mallocCheck(bytes);
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    double best = 0;
    for (int r = 0; r < 3; r++) {
        double t0 = stepq_now();
        memcpy(b, a, bytes);
        double t = stepq_now() - t0;
        best = fmax(best, (double)bytes / t / 1e9);
        a[r] = b[bytes - 1 - r];  // keeps the copies from being elided
    }
    free(a);
    free(b);
    return best;  // bytes copied per second (read once and written once)
}

static const stepq_bench_isa* isa_for(const stepq_backend* k) {
#if defined(__x86_64__)
    if (k->isa == STEPQ_ISA_AVX512) return &stepq_bench_avx512;
    if (k->isa == STEPQ_ISA_AVX2) return &stepq_bench_avx2;
#endif
    return &stepq_bench_v2;
}

// ---------------------------------------------------------------------------------------------
// serving: a pool of states, every head stepped once per token

typedef struct {
    double ns_1, ns_all;     // per head-step: one thread, all threads (wall)
    double bytes;            // moved per head-step
} serve_time;

// the serving table's rows: each format of a pool of each size, its times and heads
typedef struct {
    const char** names;
    serve_time* t;
    int* heads;
    int n;
} serve_table;

static serve_time serve(const inputs* in, const stepq_format* f, const stepq_plan* plan,
                        const stepq_backend* k, int heads, int tokens) {
    const int T = threads_max();
    serve_time out = {0, 0, 0};
    size_t per = f ? 0 : sizeof(float) * BK * BV;
    stepq_qstate tmpl;
    if (f) {
        stepq_assert(stepq_qstate_init(&tmpl, f, plan, 0, STEPQ_GDN, BK, BV) == STEPQ_OK);
        stepq_assert(stepq_qstate_load(&tmpl, in->S0) == STEPQ_OK);
        per = tmpl.bytes;
    }
    uint8_t* pool = mallocCheck(per * (size_t)heads);
    for (int h = 0; h < heads; h++) memcpy(pool + per * h, f ? tmpl.packed : (const void*)in->S0, per);
    // the float32 step reads and writes the state twice; the fused one reads the packed bytes
    // twice and writes them once
    out.bytes = f ? 3.0 * (double)per : 4.0 * (double)per;
    for (int pass = 0; pass < 2; pass++) {
        int nt = pass ? T : 1;
        (void)nt;  // (read by OpenMP alone)
        double w0 = stepq_now();
#pragma omp parallel num_threads(nt)
        {
            stepq_qstate qs;
            float y[BV], u[BV], decay[BK];
            uint8_t* own = NULL;
            if (f) {
                stepq_assert(stepq_qstate_init(&qs, f, plan, 0, STEPQ_GDN, BK, BV) == STEPQ_OK);
                own = qs.packed;
            }
            for (int tok = 0; tok < tokens; tok++) {
                stepq_step_in st = step_of(in, tok);
                stepq_decays(decay, st.g, 1, BK);
#pragma omp for schedule(static)
                for (int h = 0; h < heads; h++) {
                    uint8_t* P = pool + per * (size_t)h;
                    if (!f) {
                        k->step((float*)P, y, u, st.q, st.k, st.v, st.g, st.beta, in->scale, 1, BK, BV);
                        continue;
                    }
                    qs.packed = P;
                    k->read(&qs, &st, decay, NULL, NULL, NULL);
                    k->write(&qs, &st, decay, in->scale, 1, NULL, y, NULL);
                }
            }
            if (f) {
                qs.packed = own;
                stepq_qstate_free(&qs);
            }
        }
        double ns = 1e9 * (stepq_now() - w0) / ((double)tokens * heads);
        if (pass) out.ns_all = ns;
        else out.ns_1 = ns;
    }
    if (f) stepq_qstate_free(&tmpl);
    free(pool);
    return out;
}

// ---------------------------------------------------------------------------------------------
// driver: propagation at paper scale per head, on a few heads

// wall seconds of one propagation of `heads` heads on `threads` threads (the runner's parallel
// loop takes the default count, set here and put back)
static double driver_seconds(const char* fmt_name, int heads, const stepq_plan* plan, int threads,
                             const stepq_backend* k) {
    stepq_synth_params p;
    stepq_source* src;
    int layer = 0, hs[64];
    for (int h = 0; h < heads; h++) hs[h] = h;
    stepq_assert(stepq_synth_preset(&p, "gdn-qwen-like") == STEPQ_OK &&
                 stepq_synth_open(&src, &p, 0, 1, &layer, 1, hs, heads) == STEPQ_OK);
    const stepq_format* f = stepq_format_find(fmt_name);
    stepq_run_cfg rc = {.formats = &f, .n_formats = 1, .prefill = 2048, .decode = 6144, .bin = 64,
                        .label = "bench driver", .plan = plan, .backend = k};
    stepq_run_out o;
#ifdef _OPENMP
    const int t_was = omp_get_max_threads();
    omp_set_num_threads(threads);
#else
    (void)threads;
#endif
    double w0 = stepq_now();
    int ok = stepq_run_heads(&o, src, &rc) == STEPQ_OK;
    double t = stepq_now() - w0;
#ifdef _OPENMP
    omp_set_num_threads(t_was);
#endif
    if (ok) stepq_run_out_free(&o);
    stepq_source_free(src);
    return ok ? t : NAN;
}

// ---------------------------------------------------------------------------------------------
// the whole benchmark

typedef struct {
    const char** names;   // (N) rows of the step table: plain, reference fp32, fp32, formats
    step_time* fast;      // (N) active kernels
    step_time* ref;       // (N) reference kernels (formats only)
    int n;
} step_table;

// the replay table's rows (replay_rows below)
static const char* const replay_formats[] = {"fp32", "int8", "int6", "nvfp4", "stepquant6"};
enum { N_REPLAY = sizeof replay_formats / sizeof *replay_formats };

typedef struct {
    double cpu_ns[N_REPLAY];  // process CPU ns per head-step, one thread, medians; NaN: not measured
    int heads;
    long steps;
} replay_table;

static void print_steps(const step_table* st, const stepq_backend* k, const machine* mc) {
    const double flops = 7.0 * BK * BV;  // per head-step: pass 1 mul, mul-add; pass 2 two mul-adds
    double f32 = st->fast[V_F32].cpu_ns, plain = st->fast[V_PLAIN].cpu_ns;
    printf("\nstep: one %d x %d gdn-qwen-like head, %d recorded steps cycled; ns per head-step "
           "(thread CPU time, median of %d; wall beside it)\n", BK, BV, T_STEPS, REPS);
    printf("%-16s %10s %10s %10s %10s %10s %11s %10s %12s\n", "", "cpu ns", "wall ns", "/ fp32", "/ plain",
           "/ ref", "% FMA peak", "% traffic", "Mstep/s all");
    for (int i = 0; i < st->n; i++) {
        const step_time* s = &st->fast[i];
        char vs_ref[16] = "-";
        if (i >= N_BASE) snprintf(vs_ref, sizeof vs_ref, "%.2f", st->ref[i].cpu_ns / s->cpu_ns);
        else if (i == V_F32) snprintf(vs_ref, sizeof vs_ref, "%.2f", st->fast[V_REF_F32].cpu_ns / s->cpu_ns);
        printf("%-16s %10.0f %10.0f %10.2f %10.2f %10s %10.1f%% %9.1f%% %12.3f\n", st->names[i], s->cpu_ns,
               s->wall_ns, s->cpu_ns / f32, s->cpu_ns / plain, vs_ref, 100 * flops / s->cpu_ns / mc->peak,
               100 * mc->traffic_ns / s->cpu_ns, s->all_rate / 1e6);
    }
    printf("(/ fp32: against the %s float32 step; / plain: against the plain loop, the "
           "step written plainly and built with FMA contraction for this CPU; / ref: the reference "
           "kernels' time over this one's; %% FMA peak counts the float32 step's %.0f flops; %% traffic: the "
           "float32 state's traffic alone, %.0f ns, over the row's time)\n",
           k->name, flops, mc->traffic_ns);
}

static int write_bench(const stepq_bench_cfg* c, const step_table* st, const serve_table* sv, const machine* mc,
                       const double* drv, const replay_table* rt, const stepq_backend* k) {
    const int ns = sv->n;
    hid_t f = h5u_create(c->output);
    if (f < 0) return STEPQ_ERR;
    double* v = mallocCheck(sizeof(double) * 6 * (st->n > ns ? st->n : ns));
    hsize_t dn[1] = {(hsize_t)st->n}, dns[1] = {(hsize_t)ns};
    hid_t D = H5T_NATIVE_DOUBLE;
    int rc = stepq_write_provenance(f, &c->prov) || h5u_attr_str(f, "kernels", k->name) ||
             h5u_attr_f64(f, "fma_peak_gflops", mc->peak) || h5u_attr_f64(f, "copy_gbps", mc->bw) ||
             h5u_attr_f64(f, "step_traffic_ns", mc->traffic_ns) || h5u_attr_str(f, "cpu_model", mc->model) ||
             h5u_attr_i64(f, "l1d_bytes", mc->l1d) || h5u_attr_i64(f, "l2_bytes", mc->l2) ||
             h5u_attr_i64(f, "threads", threads_max()) ||
             h5u_write_strings(f, "step_rows", st->names, st->n, "rows of the step_* datasets");
    for (int i = 0; i < st->n; i++) v[i] = st->fast[i].cpu_ns, v[st->n + i] = st->fast[i].wall_ns,
                                    v[2 * st->n + i] = st->fast[i].all_rate,
                                    v[3 * st->n + i] = i >= N_BASE ? st->ref[i].cpu_ns : NAN;
    rc = rc || h5u_write(f, "step_cpu_ns", D, v, 1, dn, "ns", "thread CPU time per head-step, one thread, active kernels") ||
         h5u_write(f, "step_wall_ns", D, v + st->n, 1, dn, "ns", "wall time per head-step, one thread") ||
         h5u_write(f, "step_rate_all_threads", D, v + 2 * st->n, 1, dn, "head-steps/s", "throughput on all threads") ||
         h5u_write(f, "step_reference_cpu_ns", D, v + 3 * st->n, 1, dn, "ns", "the reference kernels (formats only)");
    for (int i = 0; i < ns; i++) v[i] = sv->t[i].ns_1, v[ns + i] = sv->t[i].ns_all, v[2 * ns + i] = sv->t[i].bytes,
                                 v[3 * ns + i] = sv->heads[i];
    rc = rc || h5u_write_strings(f, "serving_rows", sv->names, ns, "format of each serving row") ||
         h5u_write(f, "serving_ns_one_thread", D, v, 1, dns, "ns", "wall time per head-step, one thread") ||
         h5u_write(f, "serving_ns_all_threads", D, v + ns, 1, dns, "ns", "wall time per head-step, all threads") ||
         h5u_write(f, "serving_bytes", D, v + 2 * ns, 1, dns, "bytes", "state bytes moved per head-step") ||
         h5u_write(f, "serving_heads", D, v + 3 * ns, 1, dns, "heads", "heads in the pool") ||
         h5u_attr_f64(f, "driver_int6_projected_s", drv[0]) ||
         h5u_attr_f64(f, "driver_stepquant6_projected_s", drv[1]) ||
         h5u_attr_f64(f, "driver_int6_projected_one_thread_s", drv[2]) ||
         h5u_attr_f64(f, "driver_stepquant6_projected_one_thread_s", drv[3]);
    hsize_t dr[1] = {N_REPLAY};
    rc = rc || h5u_write_strings(f, "replay_rows", replay_formats, N_REPLAY, "format of each replay row") ||
         h5u_write(f, "replay_cpu_ns", D, rt->cpu_ns, 1, dr, "ns",
                   "process CPU time per head-step of a whole replay (trace read, reference, protocol, "
                   "measurement, output), one thread") ||
         h5u_attr_i64(f, "replay_heads", rt->heads) || h5u_attr_i64(f, "replay_steps", rt->steps);
    free(v);
    if (rc) {
        h5u_abandon(f, c->output);
        return STEPQ_ERR;
    }
    return h5u_commit(f, c->output);
}

// the full step of every format of fmts (F), with the active kernels and, where with_ref, with
// the reference, beside the plain fp32 loop, the reference step and the fp32 step
static step_table time_steps(const inputs* in, const stepq_backend* k, const stepq_bench_isa* isa,
                             const stepq_plan* plan, const stepq_format* const* fmts, int F, int with_ref,
                             long n) {
    step_table st = {.names = mallocCheck(sizeof(char*) * (size_t)(N_BASE + F)),
                     .fast = callocCheck((size_t)(N_BASE + F), sizeof(step_time)),
                     .ref = callocCheck((size_t)(N_BASE + F), sizeof(step_time)), .n = N_BASE + F};
    static const char* const base_names[N_BASE] = {"plain fp32 loop", "fp32 reference", "fp32 step"};
    // the repetitions go round every row in turn, so that a machine whose speed drifts (shared
    // cores, clock changes) moves every row's median alike and the ratios stay side by side
    step_reps* fast = callocCheck((size_t)st.n, sizeof(step_reps));
    step_reps* ref = callocCheck((size_t)st.n, sizeof(step_reps));
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < st.n; i++) {
            step_job j = {.in = in, .fmt = i < N_BASE ? NULL : fmts[i - N_BASE], .variant = i, .k = k, .isa = isa,
                          .plan = plan};
            st.names[i] = i < N_BASE ? base_names[i] : fmts[i - N_BASE]->name;
            time_once(&fast[i], r, &j, n);
            if (i >= N_BASE && with_ref) {
                j.k = &stepq_backend_reference;
                time_once(&ref[i], r, &j, n);
            }
        }
    for (int i = 0; i < st.n; i++) {
        st.fast[i] = medians(&fast[i]);
        if (i >= N_BASE) st.ref[i] = with_ref ? medians(&ref[i]) : (step_time){NAN, NAN, NAN};
    }
    free(fast);
    free(ref);
    return st;
}

// the language model's products (sim/matvec_impl.h) on every CPU backend this CPU runs: the
// shipped KDA model's shapes (4 layers: hidden 128, 4 heads of 128, MLP 384; the output
// head), batches of 1 and 16 vectors (the recall and nll drivers batch the formats' runs of a
// document), each backend's median of `reps` passes of thread CPU time (the backends alternate,
// so a drift of the machine meets each alike); the matrices (9.2 MB) exceed L2, as the model's do
static void bench_products(int reps) {
    static const int shapes[][2] = {{512, 128}, {512, 128}, {512, 128}, {128, 128}, {512, 128}, {4, 128},
                                    {128, 128}, {512, 128}, {128, 512}, {384, 128}, {384, 128}, {128, 384},
                                    {256, 128}};  // a layer's twelve, then the output head
    enum { NM = 12, NL = 4, NW = NM * NL + 1, NB = 16 };
    float* Wm[NW];
    const int* shp[NW];
    for (int m = 0; m < NW; m++) shp[m] = shapes[m < NM * NL ? m % NM : NM];
    double macs = 0;
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    for (int m = 0; m < NW; m++) {
        const size_t sz = (size_t)shp[m][0] * shp[m][1];
        Wm[m] = mallocCheck(sizeof(float) * sz);
        for (size_t i = 0; i < sz; i++) Wm[m][i] = (float)gsl_ran_gaussian(r, 0.1);
        macs += (double)sz;
    }
    float xb[NB][512], yb[NB][512];
    float* yp[NB];
    const float* xp[NB];
    for (int b = 0; b < NB; b++) {
        for (int i = 0; i < 512; i++) xb[b][i] = (float)gsl_ran_gaussian(r, 1.0);
        yp[b] = yb[b], xp[b] = xb[b];
    }
    gsl_rng_free(r);
    const stepq_backend* be[8];
    int nbe = 0;
    for (const stepq_backend* const* c = stepq_backends_cpu; *c && nbe < 8; c++)
        if ((*c)->matvec && stepq_backend_supported(*c)) be[nbe++] = *c;
    printf("\nlanguage model products: %d layers of the KDA model's shapes and its head (%.2f M weights), thread "
           "CPU time, median of %d\n%-12s %14s %14s\n", NL, macs / 1e6, reps, "backend", "GMAC/s batch 1",
           "batch 16");
    static const int batches[2] = {1, NB};
    double* t = mallocCheck(sizeof(double) * reps * nbe * 2);
    for (int rep = 0; rep < reps; rep++)
        for (int b = 0; b < nbe; b++)
            for (int z = 0; z < 2; z++) {
                const double t0 = thread_now();
                for (int m = 0; m < NW; m++) be[b]->matvec(yp, Wm[m], xp, batches[z], shp[m][0], shp[m][1]);
                t[((size_t)b * 2 + z) * reps + rep] = thread_now() - t0;
            }
    for (int b = 0; b < nbe; b++) {
        printf("%-12s", be[b]->name);
        for (int z = 0; z < 2; z++) {
            double* tz = t + ((size_t)b * 2 + z) * reps;
            qsort(tz, reps, sizeof *tz, cmp_double);
            printf(" %14.2f", macs * batches[z] / tz[reps / 2] / 1e9);
        }
        printf("\n");
    }
    free(t);
    for (int m = 0; m < NW; m++) free(Wm[m]);
}

// the machine the step is held against (machine above), measured and printed
static machine measure_machine(const stepq_backend* k, const stepq_bench_isa* isa, int quick) {
    machine mc = {.peak = isa->fma_peak(quick ? 0.05 : 0.3), .bw = copy_bandwidth(quick ? 64u << 20 : 256u << 20),
                  .traffic_ns = isa->step_traffic_ns(BK, BV, quick ? 0.05 : 0.3),
                  .l1d = sysconf(_SC_LEVEL1_DCACHE_SIZE), .l2 = sysconf(_SC_LEVEL2_CACHE_SIZE)};
    mc.l1d = mc.l1d > 0 ? mc.l1d : 0, mc.l2 = mc.l2 > 0 ? mc.l2 : 0;
    cpu_model(mc.model, sizeof mc.model);
    printf("machine: %s, L1d %ld KiB, L2 %ld KiB per core; one core's FMA peak %.1f GFLOP/s (%s vectors); copy "
           "%.1f GB/s (%.1f GB/s read + write)\n", mc.model, mc.l1d >> 10, mc.l2 >> 10, mc.peak, k->name, mc.bw,
           2 * mc.bw);
    const double kib = (double)BK * BV * sizeof(float) / 1024;
    printf("the float32 step's traffic alone: a read pass over the %d x %d state (%.0f KiB) and a read-modify-write "
           "pass, %.0f KiB a step, %.0f ns (%.1f GB/s; the state %s L1d)\n", BK, BV, kib, 3 * kib, mc.traffic_ns,
           3 * kib * 1024 / mc.traffic_ns, kib * 1024 <= mc.l1d ? "fits" : "does not fit");
    return mc;
}

static serve_table serve_rows(const inputs* in, const stepq_plan* plan, const stepq_backend* k,
                              const machine* mc, int quick) {
    static const char* const fmts[] = {"fp32", "int8", "int6", "int4", "stepquant6", "nvfp4"};
    const int nf = 6, sizes = quick ? 1 : 2;
    serve_table sv = {.names = mallocCheck(sizeof(char*) * nf * sizes), .t = mallocCheck(sizeof(serve_time) * nf * sizes),
                      .heads = mallocCheck(sizeof(int) * nf * sizes), .n = nf * sizes};
    printf("\nserving: every head of a pool stepped once per token (wall time per head-step)\n");
    printf("%-12s %7s %9s %12s %12s %12s %10s %9s\n", "format", "heads", "MB", "ns 1 thread", "ns all",
           "bytes/step", "GB/s all", "/ copy");
    for (int z = 0; z < sizes; z++) {
        int heads = quick ? 384 : z == 0 ? 1536 : 6144;  // 25, 100 or 400 MB of FP32 states
        for (int i = 0; i < nf; i++) {
            const stepq_format* f = i == 0 ? NULL : stepq_format_find(fmts[i]);
            serve_time s = serve(in, f, plan, k, heads, quick ? 2 : 6);
            int r = z * nf + i;
            sv.names[r] = fmts[i];
            sv.t[r] = s;
            sv.heads[r] = heads;
            double gbs = s.bytes / s.ns_all;
            printf("%-12s %7d %9.1f %12.0f %12.0f %12.0f %10.1f %8.2f  (speed-up over fp32 %.2fx)\n",
                   fmts[i], heads, heads * 65536.0 / 1e6, s.ns_1, s.ns_all, s.bytes, gbs,
                   gbs / (2 * mc->bw), sv.t[z * nf].ns_all / s.ns_all);
        }
    }
    return sv;
}

// drv <- the propagation driver's projected seconds: int6 and stepquant6 on all threads, then
// the two on one thread
static void driver_rows(double drv[4], const stepq_plan* plan, int quick, const stepq_backend* k) {
    const int dh = quick ? 2 : 8, T = threads_max();
    static const char* const fmts[] = {"int6", "stepquant6"};
    fflush(stdout);  // the table before the driver's progress lines on stderr
    for (int i = 0; i < 2; i++) {
        drv[i] = driver_seconds(fmts[i], dh, plan, T, k) * 2304.0 / dh;
        drv[2 + i] = T > 1 ? driver_seconds(fmts[i], dh, plan, 1, k) * 2304.0 / dh : drv[i];
    }
    printf("\ndriver: propagation of %d gdn-qwen-like heads, 2048 prefill + 6144 decode steps, "
           "projected to 2304 heads (wall):\n", dh);
    for (int i = 0; i < 2; i++)
        printf("  %-10s %6.0f s on %d threads, %6.0f s on one: %.2fx\n", fmts[i], drv[i], T, drv[2 + i],
               drv[2 + i] / drv[i]);
}

// ---------------------------------------------------------------------------------------------
// replay: the whole of `stepq replay` (method 6.10) per head-step, against the step table

// process CPU seconds of one replay of `trace` in f on one thread, written to `out` and removed:
// the trace opened and read (every chunk checked), the float32 reference, the protocol from the
// trace's S0 (no prefill), the measurement and the output file, as `stepq replay` does them
static double replay_seconds(const char* trace, const char* out, const stepq_format* f, const stepq_plan* plan,
                             const stepq_backend* k) {
    stepq_source* src;
    double c0 = stepq_cpu_now();
    if (stepq_trace_open(&src, trace, 0) != STEPQ_OK) return NAN;
    stepq_replay_cfg rc = {.src = src, .format = f, .prefill = 0, .plan = stepq_format_needs_plan(f) ? plan : NULL,
                           .backend = k, .output = out,
                           .prov = {.experiment = "bench replay", .config_path = NULL, .config_text = "stepq bench", .seed = 0, .source = src->desc}};
    int ok = stepq_replay(&rc) == STEPQ_OK;
    double t = stepq_cpu_now() - c0;
    stepq_source_free(src);
    remove(out);
    return ok ? t : NAN;
}

// a gdn-qwen-like trace of `heads` heads written to a temporary directory, replayed in each of
// replay_formats REPS times (the formats in turn, as the step table's rows), on one thread
static replay_table replay_rows(const stepq_plan* plan, int quick, const stepq_backend* k) {
    replay_table rt = {.heads = quick ? 2 : 8, .steps = quick ? 1024 : 4096};
    for (int i = 0; i < N_REPLAY; i++) rt.cpu_ns[i] = NAN;
    const char* tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    char dir[4096], trace[4200], out[4200];
    snprintf(dir, sizeof dir, "%s/stepq-bench-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        printf("\nreplay: not measured (cannot make a temporary directory under %s)\n", tmp);
        return rt;
    }
    snprintf(trace, sizeof trace, "%s/trace.h5", dir);
    snprintf(out, sizeof out, "%s/replay.h5", dir);
    stepq_synth_params p;
    stepq_source* src;
    int layer = 0, hs[8];
    for (int h = 0; h < rt.heads; h++) hs[h] = h;
    stepq_assert(stepq_synth_preset(&p, "gdn-qwen-like") == STEPQ_OK &&
                 stepq_synth_open(&src, &p, 0, 1, &layer, 1, hs, rt.heads) == STEPQ_OK);
    int ok = stepq_trace_write_source(trace, src, rt.steps, "stepq bench", NULL, NULL) == STEPQ_OK;
    stepq_source_free(src);
#ifdef _OPENMP
    const int t_was = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
    double t[N_REPLAY][REPS];
    fflush(stdout);  // the tables before the runs' progress lines on stderr
    for (int r = 0; r < REPS && ok; r++)
        for (int i = 0; i < N_REPLAY; i++)
            t[i][r] = 1e9 * replay_seconds(trace, out, stepq_format_find(replay_formats[i]), plan, k) /
                      ((double)rt.heads * rt.steps);
#ifdef _OPENMP
    omp_set_num_threads(t_was);
#endif
    for (int i = 0; i < N_REPLAY && ok; i++) rt.cpu_ns[i] = stepq_bench_median(t[i], REPS);
    remove(trace);
    rmdir(dir);
    return rt;
}

static void print_replay(const replay_table* rt, const step_table* st) {
    const double plain = st->fast[V_PLAIN].cpu_ns, f32 = st->fast[V_F32].cpu_ns;
    printf("\nreplay: the whole of `stepq replay` (trace read and checked, float32 reference, the format's "
           "protocol from S0, measurement, output written) on a gdn-qwen-like trace of %d heads x %ld steps, "
           "one thread; process CPU ns per head-step, median of %d\n", rt->heads, rt->steps, REPS);
    printf("%-16s %10s %10s %10s %10s\n", "", "cpu ns", "/ plain", "/ fp32", "/ its step");
    for (int i = 0; i < N_REPLAY; i++) {
        double step = NAN;
        for (int j = N_BASE; j < st->n; j++)
            if (!strcmp(st->names[j], replay_formats[i])) step = st->fast[j].cpu_ns;
        printf("%-16s %10.0f %10.2f %10.2f %10.2f\n", replay_formats[i], rt->cpu_ns[i], rt->cpu_ns[i] / plain,
               rt->cpu_ns[i] / f32, rt->cpu_ns[i] / step);
    }
    printf("(/ plain and / fp32: against the step table's plain loop and float32 step of this run; / its step: "
           "against the format's own step there)\n");
}

int stepq_bench(const stepq_bench_cfg* c) {
    const stepq_backend* k = c->backend;
    stepq_assert(k && k->write);  // a CPU backend, passed down
    inputs* in = mallocCheck(sizeof *in);
    record(in, k);
    stepq_plan plan;
    stepq_bench_plan(&plan, 8);
    const long n = c->quick ? 200 : 2000;
    printf("stepq bench: kernels %s, %d threads%s\n", k->name, threads_max(), c->quick ? " (quick)" : "");
    const stepq_bench_isa* isa = isa_for(k);
    const machine mc = measure_machine(k, isa, c->quick);
    const stepq_format** all = mallocCheck(sizeof *all * (size_t)stepq_n_formats);
    for (int i = 0; i < stepq_n_formats; i++) all[i] = &stepq_formats[i];
    step_table st = time_steps(in, k, isa, &plan, all, stepq_n_formats, 1, n);
    free(all);
    print_steps(&st, k, &mc);
    serve_table sv = serve_rows(in, &plan, k, &mc, c->quick);
    bench_products(c->quick ? 5 : 21);
    double drv[4];
    driver_rows(drv, &plan, c->quick, k);
    replay_table rt = replay_rows(&plan, c->quick, k);
    print_replay(&rt, &st);
    int rc = c->output ? write_bench(c, &st, &sv, &mc, drv, &rt, k) : STEPQ_OK;
    free(st.names); free(st.fast); free(st.ref); free(sv.names); free(sv.t); free(sv.heads);
    stepq_plan_free(&plan);
    free(in);
    return rc;
}

void stepq_bench_step_ratios(double* ratio, const stepq_format* const* fmts, int F, int quick,
                             const stepq_backend* k) {
    stepq_assert(k);
    inputs* in = mallocCheck(sizeof *in);
    record(in, k);
    stepq_plan plan;
    stepq_bench_plan(&plan, 8);
    step_table st = time_steps(in, k, isa_for(k), &plan, fmts, F, 0, quick ? 200 : 2000);
    for (int f = 0; f < F; f++) ratio[f] = st.fast[N_BASE + f].cpu_ns / st.fast[V_F32].cpu_ns;
    free(st.names); free(st.fast); free(st.ref);
    stepq_plan_free(&plan);
    free(in);
}

// ---------------------------------------------------------------------------------------------
// the generator against the update it feeds

int stepq_bench_stream(const stepq_source* src, long steps, int repeats, const stepq_backend* be) {
    const int K = src->K, V = src->V, G = src->n_gates;
    float* q = mallocCheck(sizeof(float) * steps * K);
    float* k = mallocCheck(sizeof(float) * steps * K);
    float* v = mallocCheck(sizeof(float) * steps * V);
    float* g = mallocCheck(sizeof(float) * steps * G);
    float* beta = mallocCheck(sizeof(float) * steps);
    stepq_runstate rs;
    stepq_runstate_init(&rs, be, K, V, G);
    double t_gen = 1e30, t_upd = 1e30, sink = 0;
    for (int rep = 0; rep < repeats; rep++) {  // best of repeats for each, measured in turn
        double tg = 0, tu = 0;
        for (int h = 0; h < src->n_heads; h++) {
            stepq_cursor* c = src->open(src, h);
            stepq_step_in in;
            double t0 = stepq_now();
            for (long t = 0; t < steps; t++) {
                stepq_assert(src->next(c, &in) == STEPQ_OK);  // synthetic
                memcpy(q + t * K, in.q, sizeof(float) * K);
                memcpy(k + t * K, in.k, sizeof(float) * K);
                memcpy(v + t * V, in.v, sizeof(float) * V);
                memcpy(g + t * G, in.g, sizeof(float) * G);
                beta[t] = in.beta;
            }
            tg += stepq_now() - t0;
            src->close(c);
            stepq_runstate_reset(&rs, NULL);
            t0 = stepq_now();
            for (long t = 0; t < steps; t++) {
                stepq_step_in st = {.q = q + t * K, .k = k + t * K, .v = v + t * V, .g = g + t * G, .beta = beta[t]};
                stepq_runstate_step(&rs, &st, src->scale);
            }
            tu += stepq_now() - t0;
            sink += rs.y[0];
        }
        t_gen = tg < t_gen ? tg : t_gen;
        t_upd = tu < t_upd ? tu : t_upd;
    }
    double n = (double)steps * src->n_heads;
    printf("%s\n  generate %.0f ns/step (including copying it out), float32 update %.0f ns/step, "
           "generate / update = %.2f   (best of %d, one thread, %ld steps x %d heads; %s)\n",
           src->desc, 1e9 * t_gen / n, 1e9 * t_upd / n, t_gen / t_upd, repeats, steps,
           src->n_heads, sink == sink ? "ok" : "NaN seen");
    free(q); free(k); free(v); free(g); free(beta);
    stepq_runstate_free(&rs);
    return STEPQ_OK;
}

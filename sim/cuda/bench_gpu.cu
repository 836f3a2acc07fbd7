// bench_gpu.cu: the GPU benchmark of the serving step (serving.h, stepq_bench_gpu): pools of
// B requests x 48 gdn-qwen-like heads (one layer of the paper's Qwen model), the time of a
// decode step per format and kernel (CUDA events), the bytes each moves (counted in
// serving.cu), GB/s against the device's copy bandwidth measured in the same run, speedups
// over the FP32 baseline. Before any timing, each format's kernels are checked against the
// CPU's fused decode step (the "kernel lab" habit: a kernel is timed only once it is right).
//
// Three kernels side by side: the old fused block program and the split pair (serving.cu), and
// the lane kernels (lanes.cu: fp32, bf16, fp16, int8, int6, int4, nvfp4, fp8-tile32, stepquant6, time6), each with what bounds it: bytes a
// head-step, the share of the copy bandwidth, registers, shared memory and blocks a
// multiprocessor, and whether the pool fits in L2 (then the bandwidth is L2's, not DRAM's).
//
// Targets (stated, not asserted; method 6.5): the FP32 step at 80% or more of the copy
// bandwidth at >= 128 requests; INT8 and INT6 >= 3x FP32's speed, INT4 >= 4x, NVFP4 and
// STEPQuant@6 >= 2x.
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "backend.cuh"

extern "C" {
#include "../../base/h5util.h"
#include "../../quant/plan.h"
#include "../recurrence.h"
#include "../runstate.h"
#include "../synth.h"
#include "engine.h"
#include "serving.h"
}

#define BK 128
#define BV 128
#define HEADS_PER_REQUEST 48  // one layer of gdn-qwen-like (method 6.7)
#define T_REC 64              // recorded steps the heads' inputs are drawn from
#define PLAN_HEADS HEADS_PER_REQUEST  // a layer's head plans, shared by the requests

typedef struct {
    float q[T_REC][BK], k[T_REC][BK], v[T_REC][BV], g[T_REC], beta[T_REC];
    float S0[BK * BV];  // the state after the recorded steps: realistic magnitudes
    double scale;
} bench_inputs;

// T_REC steps of one gdn-qwen-like head, and its state after them (as `stepq bench` records)
static void record(bench_inputs* in, const stepq_backend* cpu) {
    stepq_assert(stepq_synth_record("gdn-qwen-like", 0, 5, T_REC, BK, BV, &in->q[0][0], &in->k[0][0],
                                    &in->v[0][0], in->g, in->beta, in->S0, &in->scale, cpu) == STEPQ_OK);
}

// A plan of PLAN_HEADS GDN heads: every unit at the budget's width (the widths decide the
// cost), row influence with the spread of a calibrated head, DAMP's FP16 share on the first rows.
static void bench_plan(stepq_plan* p) {
    stepq_plan_alloc(p, STEPQ_GDN, BK, BV, PLAN_HEADS);
    p->rho = 0.5;
    p->refits = 1;
    snprintf(p->file, sizeof p->file, "the benchmark's plan");
    double om[BK];
    uint64_t x = 12345;
    for (int h = 0; h < PLAN_HEADS; h++) {
        p->head[h] = h;
        for (int i = 0; i < BK; i++) {
            x = stepq_splitmix64(x);
            om[i] = exp(3.0 * ((double)(x >> 11) / 9007199254740992.0 - 0.5));
        }
        stepq_row_influence(p->w + (size_t)h * BK, om, 0.25, BK);
        for (int i = 0; i < BK; i++) p->damp[(size_t)h * BK + i] = i < (int)lround(STEPQ_DAMP_FP16_SHARE * BK);
        for (int a = 0; a < STEPQ_N_ALLOC; a++)
            for (int b = 0; b < STEPQ_N_BUDGETS; b++) p->bits[a][b][h] = (uint8_t)stepq_plan_budgets[b];
    }
}

static double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// device-to-device copy bandwidth: bytes copied per second (each is read once and written once);
// the emulation: the host's memcpy
static double copy_gbps(size_t bytes, int reps, int emu) {
    if (emu) {
        char *a = (char*)callocCheck(bytes, 1), *b = (char*)callocCheck(bytes, 1);
        double best = 0;
        for (int r = 0; r < reps; r++) {
            double t0 = wall_now();
            memcpy(b, a, bytes);
            best = fmax(best, (double)bytes / (wall_now() - t0) / 1e9);
            a[r] = b[bytes - 1 - r];
        }
        free(a);
        free(b);
        return best;
    }
    void *a, *b;
    cudaCheck(cudaMalloc(&a, bytes));
    cudaCheck(cudaMalloc(&b, bytes));
    cudaCheck(cudaMemset(a, 1, bytes));
    cudaEvent_t e0, e1;
    cudaCheck(cudaEventCreate(&e0));
    cudaCheck(cudaEventCreate(&e1));
    double best = 0;
    for (int r = 0; r < reps; r++) {
        cudaCheck(cudaEventRecord(e0));
        cudaCheck(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
        cudaCheck(cudaEventRecord(e1));
        cudaCheck(cudaEventSynchronize(e1));
        float ms = 0;
        cudaCheck(cudaEventElapsedTime(&ms, e0, e1));
        if (r > 0) best = fmax(best, (double)bytes / (ms * 1e-3) / 1e9);  // the first warms up
    }
    cudaCheck(cudaEventDestroy(e0));
    cudaCheck(cudaEventDestroy(e1));
    cudaCheck(cudaFree(a));
    cudaCheck(cudaFree(b));
    return best;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

// the inputs of n heads: head h reads recorded step (7 h) mod T_REC
static void pool_inputs(stepq_serving* s, const bench_inputs* in, int n) {
    float* q = (float*)mallocCheck(sizeof(float) * (size_t)n * BK);
    float* k = (float*)mallocCheck(sizeof(float) * (size_t)n * BK);
    float* v = (float*)mallocCheck(sizeof(float) * (size_t)n * BV);
    float* g = (float*)mallocCheck(sizeof(float) * (size_t)n);
    float* beta = (float*)mallocCheck(sizeof(float) * (size_t)n);
    for (int h = 0; h < n; h++) {
        const int t = (7 * h) % T_REC;
        memcpy(q + (size_t)h * BK, in->q[t], sizeof in->q[t]);
        memcpy(k + (size_t)h * BK, in->k[t], sizeof in->k[t]);
        memcpy(v + (size_t)h * BV, in->v[t], sizeof in->v[t]);
        g[h] = in->g[t];
        beta[h] = in->beta[t];
    }
    stepq_serving_set_inputs(s, q, k, v, g, beta, in->scale);
    free(q); free(k); free(v); free(g); free(beta);
}

typedef struct {
    double ms, bytes;  // per step of the pool
    stepq_serving_kernel_info k;
} bench_time;

// one pool of n heads in format f and mode: median ms per step over reps timings of steps steps
static bench_time time_pool(const stepq_format* f, const stepq_plan* plan, const bench_inputs* in, int n,
                            int mode, int nsplit, int steps, int reps, int where) {
    bench_time out = {NAN, NAN, {0, 0, 0}};
    stepq_head_plan hps[PLAN_HEADS];
    uint8_t rows[PLAN_HEADS][BK];
    for (int h = 0; h < PLAN_HEADS; h++)
        stepq_assert(stepq_head_plan_for(&hps[h], rows[h], f, plan, h, STEPQ_GDN, BK) == STEPQ_OK);
    stepq_serving* s;
    if (stepq_serving_create(&s, f, hps, PLAN_HEADS, STEPQ_GDN, n, BK, BV, mode, nsplit, where) != STEPQ_OK)
        return out;
    stepq_serving_kernel(s, &out.k);
    // PLAN_HEADS distinct heads (the same state, their own plans), repeated over the pool
    const size_t stride = stepq_serving_stride(s);
    uint8_t* P = (uint8_t*)callocCheck(PLAN_HEADS, stride);
    float* work = (float*)mallocCheck(sizeof(float) * STEPQ_WORK_FLOATS(BK, BV));
    for (int h = 0; h < PLAN_HEADS; h++)
        stepq_assert(stepq_encode(P + (size_t)h * stride, in->S0, f, &hps[h], work, BK, BV) == STEPQ_OK);
    stepq_serving_upload(s, P, PLAN_HEADS);  // n is a multiple of PLAN_HEADS
    free(P);
    free(work);
    pool_inputs(s, in, n);
    double ms[16];
    double warm;
    if (where == STEPQ_CUDA_DEVICE) {
        stepq_serving_time(s, 2, &warm);
        for (int r = 0; r < reps; r++) stepq_serving_time(s, steps, &ms[r]);
    } else {  // the emulation: host wall time (it checks the benchmark's logic, not a speed)
        for (int r = 0; r < reps; r++) {
            double t0 = wall_now();
            for (int t = 0; t < steps; t++) stepq_serving_step(s);
            ms[r] = 1e3 * (wall_now() - t0) / steps;
        }
    }
    qsort(ms, (size_t)reps, sizeof(double), cmp_double);
    if (stepq_serving_read(s, NULL, NULL) == STEPQ_OK) {
        out.ms = ms[reps / 2];
        out.bytes = stepq_serving_bytes_moved(s);
    }
    stepq_serving_free(s);
    return out;
}

#define N_FMT 15
#define N_MODE 3
static const char* const bench_formats[N_FMT] = {"fp32",  "int8",  "int6",  "int4",       "stepquant6",
                                                 "nvfp4", "bf16",  "fp16",  "fp8-tile32", "time6",
                                                 "damp",  "leap6-r4", "int8-sr", "fp8-sr", "fp16-sr"};
static const char* const mode_names[N_MODE] = {"fused", "split", "lanes"};  // STEPQ_SERVE_*

// whether kernel m runs format f (the baseline has one block-program kernel, in slot fused)
static int bench_runs(const stepq_format* f, int m) {
    if (m == STEPQ_SERVE_LANES) return stepq_serving_lanes_take(f, BK, BV);
    return !(stepq_format_exact(f) && m == STEPQ_SERVE_SPLIT);
}

// each format's kernels against the CPU's fused step: the block programs exact with the CPU's
// order of sums and within method 6.5's rule with the split sums the timings use; the lane
// kernels (sums over key rows by row groups of 16) within the rule, labelled with their contract
// (method 6.5, checked whole by test_cuda_lanes): their encoder the CPU's bit for bit given their
// own state, or the tolerance
static int check_formats(int* exact, int* agree, long* bytes_differ, const stepq_plan* plan, int where,
                         const stepq_backend* cpu) {
    int bad = 0;
    printf("\ncheck: %d heads, 3 steps, each kernel against the CPU's fused decode step\n", 16);
    printf("(lanes: sums over key rows by row groups of 16, so y and the state leave the CPU's in the last bits; "
           "contract, method 6.5: \"CPU's encoder\", the stored bytes the CPU encoder's of the kernel's own state; "
           "\"tolerance\", within the derived bounds; test_cuda_lanes checks both)\n");
    for (int i = 0; i < N_FMT; i++)
        for (int m = 0; m < N_MODE; m++) {
            const stepq_format* f = stepq_format_find(bench_formats[i]);
            const int slot = i * N_MODE + m;
            exact[slot] = agree[slot] = 0;
            bytes_differ[slot] = -1;
            if (!bench_runs(f, m)) continue;
            const int lanes = m == STEPQ_SERVE_LANES;
            stepq_serving_report r1, r2;
            int ok = stepq_serving_check(&r1, f, plan, STEPQ_GDN, 16, BK, BV, m, 1, 3, where, cpu) == STEPQ_OK &&
                     (lanes || stepq_serving_check(&r2, f, plan, STEPQ_GDN, 16, BK, BV, m, 2, 3, where, cpu) == STEPQ_OK);
            if (lanes) r2 = r1;
            exact[slot] = ok && r1.y_equal && r1.bytes_differ == 0;
            agree[slot] = ok && r2.y_agree;
            bytes_differ[slot] = ok ? r2.bytes_differ : -1;
            const char* contract = !lanes ? "CPU order" : stepq_serving_lanes_exact(f) ? "row groups of 16, CPU's encoder"
                                                                                       : "row groups of 16, tolerance";
            const char* y = exact[slot] ? "bit-equal" : !lanes ? "DIFFERS" : agree[slot] ? "y within the rule" : "y OUTSIDE the rule";
            printf("  %-11s %-5s  %-31s: %-18s y rms ratio %.2g, %ld of %ld bytes differ  %s\n", f->name, mode_names[m],
                   contract, y, ok ? r2.y_rms_ratio : NAN,
                   ok ? r2.bytes_differ : -1L, ok ? r2.bytes_total : -1L, agree[slot] ? "ok" : "FAIL");
            bad += (!lanes && !exact[slot]) || !agree[slot];
        }
    return bad;
}

// fp32's time at B index b in the same kernels as mode m (the block programs' baseline is in
// slot fused) over ms; t: (format, mode, B)
static double vs_fp32(const bench_time* t, double ms, int m, int b, int nb) {
    const int base = m == STEPQ_SERVE_LANES ? STEPQ_SERVE_LANES : STEPQ_SERVE_FUSED;
    return t[base * nb + b].ms / ms;  // format 0 (fp32), mode base
}

static int write_h5(const char* path, const char* device, double copy, const int* Bs, int nb,
                    const bench_time* t, const int* exact, const int* agree, const long* bytes_differ,
                    const int* in_l2) {
    hid_t f = h5u_create(path);
    if (f < 0) return STEPQ_ERR;
    const int n = N_FMT * N_MODE * nb;
    double* v = (double*)mallocCheck(sizeof(double) * 8 * (size_t)n);
    for (int i = 0; i < n; i++) {
        const int b = i % nb, m = i / nb % N_MODE;  // (format, mode, B)
        v[i] = t[i].ms;
        v[n + i] = t[i].bytes;
        v[2 * n + i] = t[i].bytes / (t[i].ms * 1e-3) / 1e9;
        v[3 * n + i] = vs_fp32(t, t[i].ms, m, b, nb);
        v[4 * n + i] = t[i].k.regs;
        v[5 * n + i] = (double)t[i].k.smem;
        v[6 * n + i] = t[i].k.blocks_per_sm;
        v[7 * n + i] = t[i].bytes / ((double)Bs[b] * HEADS_PER_REQUEST);
    }
    hsize_t d3[3] = {N_FMT, N_MODE, (hsize_t)nb}, dn[1] = {(hsize_t)nb}, dc[2] = {N_FMT, N_MODE};
    double* bs = (double*)mallocCheck(sizeof(double) * nb);
    for (int b = 0; b < nb; b++) bs[b] = Bs[b];
    int* ex = (int*)mallocCheck(sizeof(int) * N_FMT * N_MODE * 2);
    double* bd = (double*)mallocCheck(sizeof(double) * N_FMT * N_MODE);
    for (int i = 0; i < N_FMT * N_MODE; i++) ex[i] = exact[i], ex[N_FMT * N_MODE + i] = agree[i], bd[i] = (double)bytes_differ[i];
    hid_t D = H5T_NATIVE_DOUBLE;
    int rc = h5u_attr_str(f, "device", device) || h5u_attr_f64(f, "copy_gbps", copy) ||
             h5u_attr_f64(f, "copy_rw_gbps", 2 * copy) || h5u_attr_i64(f, "heads_per_request", HEADS_PER_REQUEST) ||
             h5u_attr_i64(f, "K", BK) || h5u_attr_i64(f, "V", BV) ||
             h5u_write_strings(f, "formats", bench_formats, N_FMT, "axis 0 of the timing datasets") ||
             h5u_write_strings(f, "modes", mode_names, N_MODE, "axis 1: the fused block program, the split pair on two streams (fp32: one block program, in slot fused), the lane kernel (every format)") ||
             h5u_write(f, "B", D, bs, 1, dn, "requests", "axis 2: requests in the pool (x heads_per_request heads)") ||
             h5u_write(f, "ms_per_step", D, v, 3, d3, "ms", "wall time of one decode step of the pool (CUDA events, median)") ||
             h5u_write(f, "bytes_per_step", D, v + n, 3, d3, "bytes", "bytes the kernels move per step, counted in serving.cu") ||
             h5u_write(f, "gbps", D, v + 2 * n, 3, d3, "GB/s", "bytes_per_step / ms_per_step; compare with copy_rw_gbps") ||
             h5u_write(f, "speedup_vs_fp32", D, v + 3 * n, 3, d3, "x", "fp32's time over this one's at the same B, fp32 of the same kernels (lanes: lanes' fp32; fused, split: the block programs')") ||
             h5u_write(f, "registers", D, v + 4 * n, 3, d3, "registers", "registers a thread of the step's (first) kernel; 0 in the emulation") ||
             h5u_write(f, "shared_bytes", D, v + 5 * n, 3, d3, "bytes", "shared memory a block, static and dynamic; 0 in the emulation") ||
             h5u_write(f, "blocks_per_sm", D, v + 6 * n, 3, d3, "blocks", "blocks of 256 threads a multiprocessor holds at once (occupancy API); 0 in the emulation") ||
             h5u_write(f, "bytes_per_head_step", D, v + 7 * n, 3, d3, "bytes", "bytes_per_step over the heads of the pool") ||
             h5u_write(f, "pool_in_l2", H5T_NATIVE_INT, in_l2, 1, dn, "1/0", "the largest pool of this B fits in the device's L2 (its bandwidth is then L2's)") ||
             h5u_write(f, "check_exact", H5T_NATIVE_INT, ex, 2, dc, "1/0", "kernels with the CPU's order of sums equal the CPU's fused step bit for bit") ||
             h5u_write(f, "check_agree", H5T_NATIVE_INT, ex + N_FMT * N_MODE, 2, dc, "1/0", "kernels with split sums (the timed ones) meet method 6.5's rule on y") ||
             h5u_write(f, "check_bytes_differ", D, bd, 2, dc, "bytes", "packed bytes of the split-sum kernels that differ from the CPU's after 3 steps");
    free(v);
    free(bs);
    free(ex);
    free(bd);
    if (rc) {
        h5u_abandon(f, path);
        return STEPQ_ERR;
    }
    return h5u_commit(f, path);
}

// the benchmark where it runs; the emulation (a test of this file's logic) takes B = 1 and one step
// device (n) <- the device's name and shape, or what the emulation is; *l2 <- its L2 bytes (0)
static void describe_device(char* device, size_t n, double* l2, int emu) {
    *l2 = 0;
    snprintf(device, n, "the host emulation of the kernels (no timing is meaningful)");
    if (emu) return;
    cudaDeviceProp prop;
    int dev = 0;
    cudaCheck(cudaGetDevice(&dev));
    cudaCheck(cudaGetDeviceProperties(&prop, dev));
    *l2 = prop.l2CacheSize;
    snprintf(device, n, "%s, sm_%d%d, %d SMs, %.1f GiB, L2 %.0f MiB", prop.name, prop.major, prop.minor,
             prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0, prop.l2CacheSize / 1048576.0);
}

static int bench_run(const char* out_h5, int quick, int where, const stepq_backend* cpu) {
    const int emu = where == STEPQ_CUDA_EMULATE;
    if (!emu && !stepq_cuda_available()) {
        stepq_error("stepq_bench_gpu: no CUDA device of compute capability 8.0 or newer");
        return STEPQ_ERR;
    }
    char device[320];
    double l2;
    describe_device(device, sizeof device, &l2, emu);
    printf("stepq_bench_gpu: %s%s\n", device, quick ? " (quick)" : "");
    const double copy = copy_gbps(emu ? (16u << 20) : quick ? (256u << 20) : (1024u << 20), quick ? 4 : 8, emu);
    printf("copy bandwidth (%s): %.0f GB/s copied = %.0f GB/s read + write\n",
           emu ? "host memcpy, the emulation" : "cudaMemcpy device to device", copy, 2 * copy);

    bench_inputs* in = (bench_inputs*)mallocCheck(sizeof *in);
    record(in, cpu);
    stepq_plan plan;
    bench_plan(&plan);
    int exact[N_FMT * N_MODE], agree[N_FMT * N_MODE];
    long bytes_differ[N_FMT * N_MODE];
    int bad = check_formats(exact, agree, bytes_differ, &plan, where, cpu);

    static const int B_full[] = {32, 64, 128, 256, 512}, B_quick[] = {32, 128, 256, 512}, B_emu[] = {1};
    const int* Bs = emu ? B_emu : quick ? B_quick : B_full;
    const int nb = emu ? 1 : quick ? 4 : 5, steps = emu ? 1 : quick ? 10 : 30, reps = emu ? 1 : quick ? 3 : 5;
    bench_time* t = (bench_time*)mallocCheck(sizeof(bench_time) * N_FMT * N_MODE * nb);
    int* in_l2 = (int*)mallocCheck(sizeof(int) * nb);
    printf("\nserving step: B requests x %d heads of %d x %d (gdn-qwen-like), median of %d x %d steps; "
           "block programs with %d row groups per column sum\n", HEADS_PER_REQUEST, BK, BV, reps, steps, 2);
    printf("%-5s %-11s %-6s %9s %9s %7s %7s %7s %5s %6s %4s\n", "B", "format", "kernel", "ms/step", "KB/head",
           "GB/s", "/ copy", "x fp32", "regs", "smem", "blk");
    for (int b = 0; b < nb; b++) {
        const int n = Bs[b] * HEADS_PER_REQUEST;
        double pool = 0;
        for (int i = 0; i < N_FMT; i++)
            for (int m = 0; m < N_MODE; m++) {
                const stepq_format* f = stepq_format_find(bench_formats[i]);
                bench_time* x = &t[(i * N_MODE + m) * nb + b];
                *x = (bench_time){NAN, NAN, {0, 0, 0}};
                if (!bench_runs(f, m)) continue;
                *x = time_pool(f, &plan, in, n, m, 2, steps, reps, where);
                // the state read and written: half the bytes of a pool that stays in L2
                if (i == 0) pool = fmax(pool, x->bytes / 2);
                const double gbs = x->bytes / (x->ms * 1e-3) / 1e9;
                printf("%-5d %-11s %-6s %9.3f %9.1f %7.0f %6.0f%% %7.2f %5d %5.1fK %4d\n", Bs[b], f->name, mode_names[m],
                       x->ms, x->bytes / n / 1e3, gbs, 100 * gbs / (2 * copy), vs_fp32(t, x->ms, m, b, nb), x->k.regs,
                       x->k.smem / 1024.0, x->k.blocks_per_sm);
            }
        in_l2[b] = pool <= l2;
        if (in_l2[b]) printf("%-5d (the FP32 pool, %.1f MB, fits in L2: these bandwidths are L2's)\n", Bs[b], pool / 1e6);
    }
    printf("\n(KB/head: bytes a head-step moves, counted in serving.cu; GB/s: over the step's time; / copy: "
           "against the copy's read + write bandwidth; x fp32: fp32's time in the same kernels over this one's; "
           "regs, smem, blk: registers a thread, shared memory and blocks a multiprocessor. Targets, method 6.5: "
           "fp32 >= 80%% of copy at >= 128 requests; int8, int6 >= 3x fp32, int4 >= 4x, nvfp4, stepquant6 >= 2x.)\n");
    int rc = out_h5 ? write_h5(out_h5, device, copy, Bs, nb, t, exact, agree, bytes_differ, in_l2) : STEPQ_OK;
    free(in_l2);
    free(t);
    free(in);
    stepq_plan_free(&plan);
    if (bad) {
        stepq_error("stepq_bench_gpu: %d kernel check(s) failed (see the check table)", bad);
        return STEPQ_ERR;
    }
    return rc;
}

extern "C" int stepq_bench_gpu(const char* out_h5, int quick, const stepq_backend* cpu) {
    return bench_run(out_h5, quick, STEPQ_CUDA_DEVICE, cpu);
}

extern "C" int stepq_bench_gpu_emulate(const char* out_h5, const stepq_backend* cpu) {
    return bench_run(out_h5, 1, STEPQ_CUDA_EMULATE, cpu);
}

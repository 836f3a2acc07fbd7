// test_streams: HDF5 trace round trip; the synthetic source is bit-identical for a seed at 1
// and 2 threads and whatever subset a head is drawn in; its steps are admissible inputs
// (unit q and k, g <= 0, beta in (0,1)); a trace of a synthetic stream replays to the same
// numbers as the stream itself.
#ifdef _OPENMP
#include <omp.h>
#else
static void omp_set_num_threads(int n) { (void)n; }
#endif
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/runner.h"
#include "../sim/recurrence.h"
#include "../sim/synth.h"
#include "../base/h5util.h"
#include "../sim/trace.h"
#include "testutil.h"

static stepq_source* small_source(const char* preset, uint64_t model, uint64_t seed, int layer,
                                  const int* heads, int nh) {
    stepq_synth_params p;
    stepq_synth_preset(&p, preset);
    stepq_source* s = NULL;
    CHECK(stepq_synth_open(&s, &p, model, seed, &layer, 1, heads, nh) == 0, "open %s", preset);
    return s;
}

static int same_trace(const stepq_trace* a, const stepq_trace* b) {
    size_t nqk = (size_t)a->T * a->H * a->K, nv = (size_t)a->T * a->HV * a->V;
    size_t ng = (size_t)a->T * a->HV * stepq_kind_gates(a->kind, a->K), nb = (size_t)a->T * a->HV;
    return a->kind == b->kind && a->T == b->T && a->H == b->H && a->HV == b->HV && a->K == b->K &&
           a->V == b->V && a->scale == b->scale && !memcmp(a->q, b->q, nqk * 4) &&
           !memcmp(a->k, b->k, nqk * 4) && !memcmp(a->v, b->v, nv * 4) &&
           !memcmp(a->g, b->g, ng * 4) && !memcmp(a->beta, b->beta, nb * 4) &&
           (!a->S0 == !b->S0) &&
           (!a->S0 || !memcmp(a->S0, b->S0, (size_t)a->HV * a->K * a->V * 4));
}

static void check_trace_round_trip(const char* dir, const char* preset) {
    int heads[] = {0, 3, 7};
    stepq_source* s = small_source(preset, 0, 9, 2, heads, 3);
    stepq_trace a, b;
    stepq_trace_capture(&a, s, 50);
    a.S0 = malloc(sizeof(float) * a.HV * a.K * a.V);
    for (size_t i = 0; i < (size_t)a.HV * a.K * a.V; i++) a.S0[i] = (float)(i % 97) * 0.01f - 0.3f;
    char path[1024];
    snprintf(path, sizeof path, "%s/roundtrip_%s.h5", dir, preset);
    CHECK(stepq_trace_write(path, &a, "test") == 0, "write %s", path);
    CHECK(stepq_trace_read(&b, path, 0) == 0, "read %s", path);
    CHECK(same_trace(&a, &b), "%s: trace differs after a round trip", preset);
    char tmp[1100];
    glob_t g;
    snprintf(tmp, sizeof tmp, "%s.tmp*", path);
    CHECK(glob(tmp, 0, NULL, &g) == GLOB_NOMATCH, "temporary file left behind");
    globfree(&g);
    stepq_trace_free(&a);
    stepq_trace_free(&b);
    stepq_source_free(s);
}

static void check_threads(const char* preset) {
    stepq_source* s = small_source(preset, 0, 4, 1, NULL, 0);
    stepq_trace a, b;
    omp_set_num_threads(1);
    stepq_trace_capture(&a, s, 40);
    omp_set_num_threads(2);
    stepq_trace_capture(&b, s, 40);
    CHECK(same_trace(&a, &b), "%s: synthetic stream differs between 1 and 2 threads", preset);
    // a head drawn alone is the same head as in the whole layer
    int one = 5;
    stepq_source* s1 = small_source(preset, 0, 4, 1, &one, 1);
    stepq_trace c;
    stepq_trace_capture(&c, s1, 40);
    int K = a.K, V = a.V, G = stepq_kind_gates(a.kind, K), H = a.HV, ok = 1;
    for (int t = 0; t < 40; t++) {
        ok &= !memcmp(c.k + (size_t)t * K, a.k + ((size_t)t * H + 5) * K, 4 * K);
        ok &= !memcmp(c.v + (size_t)t * V, a.v + ((size_t)t * H + 5) * V, 4 * V);
        ok &= !memcmp(c.g + (size_t)t * G, a.g + ((size_t)t * H + 5) * G, 4 * G);
    }
    CHECK(ok, "%s: a head's stream depends on the subset it is drawn in", preset);
    // admissible inputs (method 1 and P2's premises)
    int bad = 0;
    for (size_t n = 0; n < (size_t)a.T * a.HV; n++) {
        double qn = 0, kn = 0;
        for (int i = 0; i < K; i++) { qn += (double)a.q[n * K + i] * a.q[n * K + i]; kn += (double)a.k[n * K + i] * a.k[n * K + i]; }
        bad += fabs(qn - 1) > 1e-4 || fabs(kn - 1) > 1e-4 || !(a.beta[n] > 0 && a.beta[n] < 1);
        for (int i = 0; i < G; i++) bad += !(a.g[n * G + i] <= 0);
    }
    CHECK(bad == 0, "%s: %d inadmissible steps", preset, bad);
    // the propagation runner: same numbers at 1 and 2 threads
    const stepq_format* f[2] = {stepq_format_find("fp32"), stepq_format_find("int4")};
    stepq_run_cfg rc = {.formats = f, .n_formats = 2, .prefill = 10, .decode = 30, .bin = 7, .label = "test",
                        .backend = stepq_backend_default()};
    stepq_run_out o1, o2;
    setenv("STEPQ_QUIET", "1", 1);
    omp_set_num_threads(1);
    stepq_run_heads(&o1, s, &rc);
    omp_set_num_threads(2);
    stepq_run_heads(&o2, s, &rc);
    size_t n = (size_t)o1.F * o1.H * o1.n_bins;
    CHECK(!memcmp(o1.err_y, o2.err_y, n * 4) && !memcmp(o1.err_S, o2.err_S, n * 4) &&
              !memcmp(o1.acc_sq, o2.acc_sq, (size_t)o1.F * o1.H * 8) &&
              !memcmp(o1.p1_resid, o2.p1_resid, (size_t)o1.F * o1.H * 8) &&
              !memcmp(o1.acc_ref, o2.acc_ref, (size_t)o1.H * 8),
          "%s: run results differ between 1 and 2 threads", preset);
    // fp32 is the identity: its errors are exactly zero; int4's are not
    double z = 0, nz = 0;
    for (int h = 0; h < o1.H; h++) { z += o1.acc_sq[h]; nz += o1.acc_sq[o1.H + h]; }
    CHECK(z == 0 && nz > 0, "%s: fp32 error %g, int4 error %g", preset, z, nz);
    // a trace of the stream replays to the same numbers as the stream
    stepq_trace d;
    stepq_trace_capture(&d, s, 40);
    stepq_source* ts = stepq_trace_source(&d, "captured");
    stepq_run_out o3;
    stepq_run_heads(&o3, ts, &rc);
    CHECK(!memcmp(o1.err_y, o3.err_y, n * 4) && !memcmp(o1.acc_sq, o3.acc_sq, (size_t)o1.F * o1.H * 8),
          "%s: trace replay differs from the stream", preset);
    stepq_run_out_free(&o1);
    stepq_run_out_free(&o2);
    stepq_run_out_free(&o3);
    stepq_source_free(ts);
    stepq_trace_free(&a); stepq_trace_free(&b); stepq_trace_free(&c);
    stepq_source_free(s);
    stepq_source_free(s1);
}

// one model, two streams: each head keeps its gates (mean log gate within 10% over 4000 steps,
// the gate noise averages out); another model seed draws other heads
static void mean_gates(double* l, const char* preset, uint64_t model, uint64_t seed) {
    stepq_source* s = small_source(preset, model, seed, 3, NULL, 0);
    for (int h = 0; h < 16; h++) {
        stepq_cursor* c = s->open(s, h);
        stepq_step_in in;
        l[h] = 0;
        for (int t = 0; t < 4000; t++) {
            CHECK(s->next(c, &in) == STEPQ_OK, "next");
            for (int i = 0; i < s->n_gates; i++) l[h] += in.g[i] / (4000.0 * s->n_gates);
        }
        s->close(c);
    }
    stepq_source_free(s);
}

static void check_model_seed(const char* preset) {
    double a[16], b[16], c[16];
    mean_gates(a, preset, 7, 1);
    mean_gates(b, preset, 7, 2);
    mean_gates(c, preset, 8, 1);
    int same = 0, other = 0;
    for (int h = 0; h < 16; h++) {
        same += fabs(a[h] - b[h]) <= 0.1 * fabs(a[h]);
        other += fabs(a[h] - c[h]) > 0.1 * fabs(a[h]);
    }
    CHECK(same == 16, "%s: one model seed, two stream seeds: %d of 16 heads keep their gates", preset, same);
    CHECK(other >= 12, "%s: another model seed changed the gates of only %d of 16 heads", preset, other);
}

// A trace streams (method 6.1): written a chunk of steps per head at a time and read back the
// same way, with 5 steps a chunk forced through STEPQ_TRACE_CHUNK, it holds the source's steps
// bit for bit, gives the run the whole-read trace gives, and is read in exactly
// heads x ceil(T / 5) chunks (the counter, not a timing); with "memory" too small for a whole
// read (STEPQ_MEMORY_BYTES) the whole read is refused and the streamed run still goes through;
// a NaN at step t is reported by the run with nothing else changed.
static void check_streamed(const char* dir, const char* preset) {
    int heads[] = {0, 3, 7};
    const long T = 47;  // not a multiple of the chunk
    stepq_source* s = small_source(preset, 0, 9, 2, heads, 3);
    char path[1024];
    snprintf(path, sizeof path, "%s/streamed_%s.h5", dir, preset);
    setenv("STEPQ_TRACE_CHUNK", "5", 1);
    CHECK(stepq_trace_write_source(path, s, T, "test", NULL, NULL) == STEPQ_OK, "write_source %s", path);
    stepq_trace a, b;
    stepq_trace_capture(&a, s, T);
    CHECK(stepq_trace_read(&b, path, 0) == STEPQ_OK, "read %s", path);
    CHECK(same_trace(&a, &b), "%s: the streamed writer's trace differs from the source", preset);
    const stepq_format* f[2] = {stepq_format_find("int4"), stepq_format_find("int6-replay16")};
    stepq_run_cfg rc = {.formats = f, .n_formats = 2, .prefill = 10, .decode = 37, .bin = 37, .label = "test",
                        .backend = stepq_backend_default()};
    stepq_source* whole = stepq_trace_source(&b, "whole");
    stepq_run_out o1, o2;
    CHECK(stepq_run_heads(&o1, whole, &rc) == STEPQ_OK, "run on the whole read");
    setenv("STEPQ_MEMORY_BYTES", "20000", 1);  // the trace's q alone is 3 x 47 x 128 floats
    stepq_trace c;
    CHECK(stepq_trace_read(&c, path, 0) == STEPQ_ERR, "%s: a whole read past the memory limit", preset);
    stepq_source* st = NULL;
    CHECK(stepq_trace_open(&st, path, 0) == STEPQ_OK, "open %s streamed", path);
    long before = stepq_trace_chunks_read();
    CHECK(st && stepq_run_heads(&o2, st, &rc) == STEPQ_OK, "%s: the streamed run", preset);
    unsetenv("STEPQ_MEMORY_BYTES");
    long chunks = stepq_trace_chunks_read() - before;
    CHECK(chunks == 3 * ((T + 4) / 5), "%s: %ld chunks read, expected %ld", preset, chunks, 3 * ((T + 4) / 5));
    size_t n = (size_t)o1.F * o1.H * o1.n_bins;
    CHECK(!memcmp(o1.err_y, o2.err_y, n * 4) && !memcmp(o1.acc_sq, o2.acc_sq, (size_t)o1.F * o1.H * 8) &&
              !memcmp(o1.p1_resid, o2.p1_resid, (size_t)o1.F * o1.H * 8),
          "%s: the streamed trace runs to other numbers", preset);
    stepq_run_out_free(&o1);
    stepq_run_out_free(&o2);
    stepq_source_free(st);
    // a NaN in v at step 33 of value head 1: the run fails there, naming it
    hid_t fh = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t d = H5Dopen2(fh, "v", H5P_DEFAULT);
    float nan_v = NAN;
    hsize_t start[3] = {33, 1, 4}, one[3] = {1, 1, 1};
    CHECK(h5u_slab(d, 1, H5T_NATIVE_FLOAT, &nan_v, 3, start, one) == STEPQ_OK, "poke a NaN");
    H5Dclose(d);
    H5Fclose(fh);
    CHECK(stepq_trace_open(&st, path, 0) == STEPQ_OK, "open %s again", path);
    CHECK(stepq_run_heads(&o2, st, &rc) == STEPQ_ERR, "%s: a NaN at step 33 ran through", preset);
    stepq_source_free(st);
    unsetenv("STEPQ_TRACE_CHUNK");
    stepq_trace_free(&a);
    stepq_source_free(whole);
    stepq_source_free(s);
}

int main(int argc, char** argv) {
    const char* dir = argc > 1 ? argv[1] : ".";
    check_trace_round_trip(dir, "gdn-qwen-like");
    check_trace_round_trip(dir, "kda-kimi-like");
    check_threads("gdn-qwen-like");
    check_threads("kda-kimi-like");
    check_model_seed("gdn-qwen-like");
    check_model_seed("kda-kimi-like");
    check_streamed(dir, "gdn-qwen-like");
    check_streamed(dir, "kda-kimi-like");
    return tu_finish("test_streams");
}

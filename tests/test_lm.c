// test_lm.c: the language model in C against PyTorch, and the checkpoint reader.
//   test_lm SOURCE_DIR WORKDIR
// For each shipped model (data/lm/gdn, data/lm/kda, data/lm/gdn-recall, data/lm/kda-recall) and
// its fixture written by PyTorch (tests/data/lm_*_reference.h5: tools/lm/reference.py, 64 bytes of a
// held-out book):
//   * the float32 forward's logits within 1e-4 of PyTorch's, relative to their largest, and its
//     float64 run within 1e-9 of PyTorch's float64 run;
//   * every layer's final state and convolution state, and layer 0's q, k, v, g, beta;
//   * the bits per byte of those 63 predictions equal PyTorch's, and below 4 (the model has
//     learned text: a uniform guess is 8);
//   * the fp32 format through the decode-step protocol gives the native logits bit for bit;
//     int8 stays close, int4 moves further.
// The teacher-forced runs the nll and recall drivers measure (analysis/forced.h): each run's NLL
// and argmax per step equal one sequence stepped alone through stepq_lm_step; a run kept from an
// earlier call serves a shorter one with its first steps and not a longer one, another prefill or
// an octile run. Then safetensors: a written file read back exactly, and every corruption named (truncated,
// a header length past the end, a header that is not JSON, an unsupported dtype, a size that
// disagrees with the shape, overlapping tensors, a missing tensor, a shape config.json
// contradicts); and config.json options stepq does not implement, named.
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/h5util.h"
#include "../analysis/forced.h"
#include "../analysis/runner.h"
#include "../sim/lm.h"
#include "../sim/trace.h"
#include "../sim/safetensors.h"
#include "testutil.h"

static const char* src_dir;
static const char* work;

// max |a - b| over n, and max |b|
static double maxdiff(const float* a, const float* b, size_t n, double* maxb) {
    double d = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs((double)a[i] - b[i]));
        m = fmax(m, fabs((double)b[i]));
    }
    *maxb = m;
    return d;
}

static float* read_f32(hid_t f, const char* path, const char* name, size_t* n) {
    float* x;
    hsize_t dims[4];
    int rank = 1;
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d >= 0) {
        hid_t sp = H5Dget_space(d);
        rank = H5Sget_simple_extent_ndims(sp);
        H5Sclose(sp);
        H5Dclose(d);
    }
    CHECK(h5u_read_f32(&x, dims, f, path, name, rank, 1) == 0, "read %s:%s", path, name);
    *n = 1;
    for (int r = 0; r < rank; r++) *n *= dims[r];
    return x;
}

// The octile protocol (stepq_lm_seq_round_rows): with every row marked at width 6 it is the
// format int6 through the protocol, logit for logit; with no row marked it is the native model;
// with half the rows it is neither (its logits differ from both). Not "closer to native than all
// rows": the largest logit change need not grow with the rows rounded (a GDN recall stage: half the
// rows 0.453, all 0.348).
static void check_round_rows(const stepq_lm* m, const uint8_t* tok, long T, const float* native, const char* which) {
    const size_t n = (size_t)m->layers * m->heads * m->K;
    uint8_t* rows = malloc(n);
    float* lq = malloc(sizeof(float) * m->vocab);
    float* l6 = malloc(sizeof(float) * T * m->vocab);
    double diff[5] = {0};  // int6 vs all rows; none vs native; half vs native; int6 vs native; half vs int6
    for (int run = 0; run < 4; run++) {
        stepq_lm_seq q;
        stepq_lm_seq_init(&q, m, stepq_backend_default());
        for (size_t i = 0; i < n; i++) rows[i] = run == 1 ? 1 : run == 2 ? 0 : (uint8_t)(i % 2);
        for (long t = 0; t < T; t++) {
            if (t == 32 && run == 0) CHECK(stepq_lm_seq_quantize(&q, stepq_format_find("int6"), NULL, stepq_backend_default()) == 0, "int6");
            if (t == 32 && run > 0) CHECK(stepq_lm_seq_round_rows(&q, rows, 6, stepq_backend_default()) == 0, "round rows");
            CHECK(stepq_lm_step(&q, tok[t], lq, NULL) == 0, "%s: octile protocol step", which);
            for (int i = 0; i < m->vocab; i++) {
                const size_t at = (size_t)t * m->vocab + i;
                if (run == 0) l6[at] = lq[i];
                if (run == 0) diff[3] = fmax(diff[3], fabs((double)lq[i] - native[at]));
                if (run == 1) diff[0] = fmax(diff[0], fabs((double)lq[i] - l6[at]));
                if (run >= 2) diff[run - 1] = fmax(diff[run - 1], fabs((double)lq[i] - native[at]));
                if (run == 3) diff[4] = fmax(diff[4], fabs((double)lq[i] - l6[at]));
            }
        }
        stepq_lm_seq_free(&q);
    }
    CHECK(diff[0] == 0, "%s: every row at INT6 differs from the format int6 by %.3g", which, diff[0]);
    CHECK(diff[1] == 0, "%s: no row rounded differs from the native model by %.3g", which, diff[1]);
    CHECK(diff[2] > 0 && diff[4] > 0, "%s: half the rows: %.3g from native, %.3g from all rows", which, diff[2],
          diff[4]);
    printf("%s: octile protocol: all rows at INT6 = int6 (0 difference), no rows = native, half the rows %.3g "
           "from native (all %.3g), %.3g from all rows\n", which, diff[2], diff[3], diff[4]);
    free(rows); free(lq); free(l6);
}

// logits (T, vocab) of a run whose boundary at byte 32 is int4 (rows NULL) or the octile protocol
// with rows at width 4, its heads on backend be
static void run_on(float* out, const stepq_lm* m, const uint8_t* tok, long T, const uint8_t* rows,
                   const stepq_backend* be) {
    stepq_lm_seq q;
    stepq_lm_seq_init(&q, m, stepq_backend_default());
    for (long t = 0; t < T; t++) {
        if (t == 32)
            CHECK((rows ? stepq_lm_seq_round_rows(&q, rows, 4, be) : stepq_lm_seq_quantize(&q, stepq_format_find("int4"), NULL, be)) == 0,
                  "boundary on %s", be->name);
        CHECK(stepq_lm_step(&q, tok[t], out + (size_t)t * m->vocab, NULL) == 0, "step on %s", be->name);
    }
    stepq_lm_seq_free(&q);
}

// The heads step on the backend given (method 6.5: every CPU backend computes the reference's
// numbers, so the logits are equal bit for bit); a width without a format int<width> and a
// backend that does not step heads one at a time are refused at the boundary.
static void check_backends(const stepq_lm* m, const uint8_t* tok, long T, const char* which) {
    const size_t n = (size_t)m->layers * m->heads * m->K, NL = (size_t)T * m->vocab;
    uint8_t* rows = malloc(n);
    for (size_t i = 0; i < n; i++) rows[i] = (uint8_t)(i % 3 == 0);
    float *a = malloc(sizeof(float) * NL), *b = malloc(sizeof(float) * NL);
    for (int r = 0; r < 2; r++) {
        run_on(a, m, tok, T, r ? rows : NULL, stepq_backend_default());
        run_on(b, m, tok, T, r ? rows : NULL, &stepq_backend_reference);
        CHECK(!memcmp(a, b, sizeof(float) * NL), "%s: %s on %s and on the reference differ", which,
              r ? "the octile protocol" : "int4", stepq_backend_default()->name);
    }
    stepq_lm_seq q;
    stepq_lm_seq_init(&q, m, stepq_backend_default());
    const stepq_backend whole = {.name = "whole-runs-only"};
    CHECK(stepq_lm_seq_round_rows(&q, rows, 5, stepq_backend_default()) != 0, "%s: rows at width 5 (no format int5)", which);
    CHECK(stepq_lm_seq_round_rows(&q, rows, 4, &whole) != 0, "%s: rows on a backend of whole runs", which);
    CHECK(stepq_lm_seq_quantize(&q, stepq_format_find("int4"), NULL, &whole) != 0, "%s: int4 on a backend of whole runs", which);
    CHECK(stepq_lm_step(&q, tok[0], a, NULL) == 0 && !q.heads, "%s: native after the refusals", which);
    stepq_lm_seq_free(&q);
    free(rows); free(a); free(b);
}

// A batch (stepq_lm_step_many) gives each sequence what it gives alone (stepq_lm_step): a native
// sequence, one at int4 and one on the octile protocol from a boundary at byte 32, bit for bit;
// one whose state goes non-finite is flagged and the others go on as before.
static void check_batch(const stepq_lm* m, const uint8_t* tok, long T, const char* which) {
    const size_t n = (size_t)m->layers * m->heads * m->K, NL = (size_t)T * m->vocab;
    uint8_t* rows = malloc(n);
    for (size_t i = 0; i < n; i++) rows[i] = (uint8_t)(i % 3 == 0);
    float *alone = malloc(sizeof(float) * 3 * NL), *batch = malloc(sizeof(float) * 3 * NL);
    stepq_lm_seq q[3];
    for (int pass = 0; pass < 2; pass++) {
        for (int b = 0; b < 3; b++) stepq_lm_seq_init(&q[b], m, stepq_backend_default());
        for (long t = 0; t < T; t++) {
            if (t == 32) {
                CHECK(stepq_lm_seq_quantize(&q[1], stepq_format_find("int4"), NULL, stepq_backend_default()) == 0, "%s: int4", which);
                CHECK(stepq_lm_seq_round_rows(&q[2], rows, 4, stepq_backend_default()) == 0, "%s: rows", which);
            }
            float* out = pass ? batch : alone;
            if (pass) {
                stepq_lm_seq* ps[3] = {&q[0], &q[1], &q[2]};
                int tk[3] = {tok[t], tok[t], tok[t]}, bad[3] = {1, 1, 1};
                float* lg[3] = {out + (size_t)t * m->vocab, out + NL + (size_t)t * m->vocab, out + 2 * NL + (size_t)t * m->vocab};
                CHECK(stepq_lm_step_many(ps, 3, tk, lg, bad) == 0 && !bad[0] && !bad[1] && !bad[2], "%s: batch step", which);
            } else {
                for (int b = 0; b < 3; b++)
                    CHECK(stepq_lm_step(&q[b], tok[t], out + b * NL + (size_t)t * m->vocab, NULL) == 0, "%s: step", which);
            }
        }
        for (int b = 0; b < 3; b++) stepq_lm_seq_free(&q[b]);
    }
    CHECK(!memcmp(alone, batch, sizeof(float) * 3 * NL), "%s: a batch of three sequences differs from each alone", which);
    // a state made non-finite in one sequence of the batch: flagged (stepq_lm_step_many), and it
    // leaves the batch (stepq_lm_batch_step); the other steps as alone
    for (int b = 0; b < 2; b++) stepq_lm_seq_init(&q[b], m, stepq_backend_default());
    CHECK(stepq_lm_seq_quantize(&q[1], stepq_format_find("int8"), NULL, stepq_backend_default()) == 0, "%s: int8 from zero", which);
    stepq_lm_batch bt;
    stepq_lm_batch_init(&bt);
    stepq_lm_batch_add(&bt, &q[0], 7);
    stepq_lm_batch_add(&bt, &q[1], 9);
    for (long t = 0; t < 8; t++) {
        if (t == 4) q[1].conv[0] = NAN;  // the next token's q in head 0 of layer 0, and its state
        int failed[2], nf = -1;
        stepq_lm_batch_step(&bt, tok[t], failed, &nf);
        if (t == 4) CHECK(nf == 1 && failed[0] == 9 && bt.n == 1 && bt.id[0] == 7, "%s: the non-finite state's sequence "
                          "alone leaves the batch", which);
        else CHECK(nf == 0, "%s: no failure at token %ld", which, t);
        memcpy(batch + (size_t)t * m->vocab, bt.logits[0], sizeof(float) * m->vocab);
    }
    stepq_lm_batch_free(&bt);
    CHECK(!memcmp(alone, batch, sizeof(float) * 8 * m->vocab), "%s: the sequence beside a failed one", which);
    for (int b = 0; b < 2; b++) stepq_lm_seq_free(&q[b]);
    free(rows); free(alone); free(batch);
}

static void check_model(const char* which) {
    char dir[4096], fix[4096];
    snprintf(dir, sizeof dir, "%s/data/lm/%s", src_dir, which);
    snprintf(fix, sizeof fix, "%s/tests/data/lm_%s_reference.h5", src_dir, which);
    stepq_lm m;
    hid_t f = H5Fopen(fix, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (stepq_lm_load(&m, dir) != 0 || f < 0) {
        CHECK(0, "cannot load %s or open %s", dir, fix);
        return;
    }
    hsize_t dT[1];
    hid_t d = H5Dopen2(f, "tokens", H5P_DEFAULT);
    hid_t sp = H5Dget_space(d);
    H5Sget_simple_extent_dims(sp, dT, NULL);
    const long T = (long)dT[0];
    uint8_t* tok = malloc((size_t)T);
    H5Dread(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, tok);
    H5Sclose(sp);
    H5Dclose(d);
    size_t n;
    float* ref = read_f32(f, fix, "logits", &n);
    double* ref64 = malloc(sizeof(double) * (size_t)T * m.vocab);
    d = H5Dopen2(f, "logits_f64", H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, ref64);
    H5Dclose(d);
    // the float32 forward, capturing layer 0's inputs
    const int H = m.heads, K = m.K, V = m.V, G = stepq_kind_gates(m.kind, K), D = m.D;
    float* logits = malloc(sizeof(float) * (size_t)T * m.vocab);
    float *q0 = malloc(sizeof(float) * T * D), *k0 = malloc(sizeof(float) * T * D), *v0 = malloc(sizeof(float) * T * D);
    float *g0 = malloc(sizeof(float) * T * H * G), *b0 = malloc(sizeof(float) * T * H);
    stepq_lm_seq s;
    stepq_lm_seq_init(&s, &m, stepq_backend_default());
    stepq_lm_inputs in;
    stepq_lm_inputs_alloc(&in, &m);
    for (long t = 0; t < T; t++) {
        CHECK(stepq_lm_step(&s, tok[t], logits + t * m.vocab, &in) == 0, "%s step %ld", which, t);
        memcpy(q0 + t * D, in.q, sizeof(float) * D);
        memcpy(k0 + t * D, in.k, sizeof(float) * D);
        memcpy(v0 + t * D, in.v, sizeof(float) * D);
        memcpy(g0 + t * H * G, in.g, sizeof(float) * H * G);
        memcpy(b0 + t * H, in.beta, sizeof(float) * H);
    }
    double mb, dd = maxdiff(logits, ref, (size_t)T * m.vocab, &mb);
    CHECK(dd <= 1e-4 * mb, "%s: float32 logits differ from PyTorch's by %.3g (largest %.3g)", which, dd, mb);
    printf("%s: float32 logits vs PyTorch: max |diff| %.3g of %.3g (%.2g relative)\n", which, dd, mb, dd / mb);
    // layer 0's inputs, and every final state and convolution state
    static const char* const names[] = {"layer0/q", "layer0/k", "layer0/v", "layer0/g", "layer0/beta"};
    float* ours[] = {q0, k0, v0, g0, b0};
    for (int i = 0; i < 5; i++) {
        float* r = read_f32(f, fix, names[i], &n);
        dd = maxdiff(ours[i], r, n, &mb);
        CHECK(dd <= 1e-4 * fmax(mb, 1e-3), "%s: %s differs by %.3g (largest %.3g)", which, names[i], dd, mb);
        free(r);
    }
    float* S = read_f32(f, fix, "final_state", &n);
    CHECK(n == (size_t)m.layers * H * K * V, "%s: final_state size", which);
    dd = maxdiff(s.S, S, n, &mb);
    CHECK(dd <= 1e-4 * mb, "%s: final states differ by %.3g (largest %.3g)", which, dd, mb);
    free(S);
    float* cs = read_f32(f, fix, "conv_state", &n);  // PyTorch's (L, 3, D, W-1); ours (L, 3, W-1, D)
    const int W1 = m.conv - 1;
    const int sized = n == (size_t)m.layers * 3 * D * W1;
    float* ct = malloc(sizeof(float) * n);  // PyTorch's in our layout
    for (size_t b = 0; sized && b < (size_t)m.layers * 3; b++)
        for (int c = 0; c < D; c++)
            for (int i = 0; i < W1; i++) ct[(b * W1 + i) * D + c] = cs[(b * D + c) * W1 + i];
    dd = sized ? maxdiff(s.conv, ct, n, &mb) : 0;
    CHECK(sized && dd <= 1e-4 * mb, "%s: conv states differ by %.3g", which, dd);
    free(ct);
    free(cs);
    // the float64 run against PyTorch's float64 run, and ours in float32 against it
    double* l64 = malloc(sizeof(double) * (size_t)T * m.vocab);
    stepq_lm_forward_f64(&m, tok, T, l64);
    double d64 = 0, m64 = 0, d32 = 0;
    for (size_t i = 0; i < (size_t)T * m.vocab; i++) {
        d64 = fmax(d64, fabs(l64[i] - ref64[i]));
        m64 = fmax(m64, fabs(ref64[i]));
        d32 = fmax(d32, fabs(l64[i] - logits[i]));
    }
    CHECK(d64 <= 1e-9 * m64, "%s: float64 logits differ from PyTorch's float64 by %.3g", which, d64);
    CHECK(d32 <= 1e-4 * m64, "%s: our float32 differs from our float64 by %.3g", which, d32);
    printf("%s: float64 logits vs PyTorch float64: %.3g; our float32 vs our float64: %.3g\n", which, d64, d32);
    // bits per byte of the 63 predictions, ours and PyTorch's
    double nats = 0, nats_ref = 0;
    for (long t = 0; t + 1 < T; t++) {
        nats += stepq_lm_nll(logits + t * m.vocab, m.vocab, tok[t + 1]);
        nats_ref += stepq_lm_nll(ref + t * m.vocab, m.vocab, tok[t + 1]);
    }
    double bpb = nats / (T - 1) / log(2), bpb_ref = nats_ref / (T - 1) / log(2);
    CHECK(fabs(bpb - bpb_ref) < 1e-4 && bpb < 4.0, "%s: %.4f bits per byte (PyTorch %.4f)", which, bpb, bpb_ref);
    printf("%s: %.4f bits per byte on the fixture's %ld bytes (PyTorch %.4f)\n", which, bpb, T, bpb_ref);
    // formats through the protocol after a native prefill of 32 bytes
    const char* fmts[] = {"fp32", "int8", "int4"};
    double err[3];
    float* lq = malloc(sizeof(float) * m.vocab);
    for (int fi = 0; fi < 3; fi++) {
        stepq_lm_seq q;
        stepq_lm_seq_init(&q, &m, stepq_backend_default());
        double e = 0;
        for (long t = 0; t < T; t++) {
            if (t == 32) CHECK(stepq_lm_seq_quantize(&q, stepq_format_find(fmts[fi]), NULL, stepq_backend_default()) == 0, "quantize");
            CHECK(stepq_lm_step(&q, tok[t], lq, NULL) == 0, "%s %s step", which, fmts[fi]);
            for (int i = 0; i < m.vocab; i++) e = fmax(e, fabs((double)lq[i] - logits[t * m.vocab + i]));
        }
        err[fi] = e;
        stepq_lm_seq_free(&q);
    }
    CHECK(err[0] == 0, "%s: fp32 through the protocol moves the logits by %.3g", which, err[0]);
    CHECK(err[1] > 0 && err[1] < err[2], "%s: int8 %.3g, int4 %.3g", which, err[1], err[2]);
    printf("%s: largest logit change over 32 quantized steps: fp32 %g, int8 %.3g, int4 %.3g\n", which, err[0], err[1],
           err[2]);
    free(lq);
    check_round_rows(&m, tok, T, logits, which);
    check_backends(&m, tok, T, which);
    check_batch(&m, tok, T, which);
    free(l64);
    free(tok); free(ref); free(ref64); free(logits);
    free(q0); free(k0); free(v0); free(g0); free(b0);
    stepq_lm_inputs_free(&in);
    stepq_lm_seq_free(&s);
    H5Fclose(f);
    stepq_lm_free(&m);
}

// ---------------------------------------------------------------------------------------------
// safetensors

static void put_file(const char* path, const void* p, size_t n) {
    FILE* fp = fopen(path, "wb");
    fwrite(p, 1, n, fp);
    fclose(fp);
}

// a safetensors file with this header and `data` bytes of data
static void raw(const char* path, const char* header, size_t data) {
    size_t h = strlen(header);
    unsigned char* b = calloc(8 + h + data + 1, 1);
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)((uint64_t)h >> (8 * i));
    memcpy(b + 8, header, h);
    put_file(path, b, 8 + h + data);
    free(b);
}

static void expect_open_error(const char* name, const char* header, size_t data) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s.safetensors", work, name);
    raw(p, header, data);
    stepq_st_file f;
    CHECK(stepq_st_open(&f, p) != 0, "%s: accepted", name);
}

static void check_safetensors(void) {
    char p[4096];
    snprintf(p, sizeof p, "%s/round.safetensors", work);
    float a[6] = {1, -2, 3.5f, 1e-30f, INFINITY, -0.0f}, b[4] = {7, 8, 9, 10};
    const char* names[] = {"a", "b.weight"};
    const float* data[] = {a, b};
    int ranks[] = {2, 1};
    long long sa[] = {2, 3}, sb[] = {4};
    const long long* shapes[] = {sa, sb};
    CHECK(stepq_st_write(p, 2, names, data, ranks, shapes) == 0, "write");
    stepq_st_file f;
    if (stepq_st_open(&f, p) != 0) {
        CHECK(0, "open the written file");
        return;
    }
    float x[6];
    CHECK(stepq_st_read(&f, "a", x, 2, sa, "the test") == 0 && memcmp(x, a, sizeof a) == 0, "round trip of a");
    CHECK(stepq_st_read(&f, "b.weight", x, 1, sb, "the test") == 0 && memcmp(x, b, sizeof b) == 0, "round trip of b");
    long long wrong[] = {3, 2};
    fprintf(stderr, "(the errors below are expected)\n");
    CHECK(stepq_st_read(&f, "a", x, 2, wrong, "config.json") != 0, "a shape that config.json contradicts");
    CHECK(stepq_st_read(&f, "c", x, 1, sb, "config.json") != 0, "a missing tensor");
    stepq_st_close(&f);
    // BF16 and F16 are read and converted
    char hdr[256];
    snprintf(hdr, sizeof hdr, "{\"h\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]},"
                              "\"bf\":{\"dtype\":\"BF16\",\"shape\":[1],\"data_offsets\":[4,6]}}");
    snprintf(p, sizeof p, "%s/half.safetensors", work);
    size_t h = strlen(hdr);
    unsigned char buf[512] = {0};
    for (int i = 0; i < 8; i++) buf[i] = (unsigned char)((uint64_t)h >> (8 * i));
    memcpy(buf + 8, hdr, h);
    const unsigned char vals[6] = {0x00, 0x3c, 0x00, 0xc0, 0x80, 0x3f};  // F16 1, -2; BF16 1
    memcpy(buf + 8 + h, vals, 6);
    put_file(p, buf, 8 + h + 6);
    if (stepq_st_open(&f, p) != 0) {
        CHECK(0, "open F16/BF16");
        return;
    }
    long long s2[] = {2}, s1[] = {1};
    CHECK(stepq_st_read(&f, "h", x, 1, s2, "t") == 0 && x[0] == 1.0f && x[1] == -2.0f, "F16 values %g %g", x[0], x[1]);
    CHECK(stepq_st_read(&f, "bf", x, 1, s1, "t") == 0 && x[0] == 1.0f, "BF16 value %g", x[0]);
    stepq_st_close(&f);
    // corruptions
    snprintf(p, sizeof p, "%s/short.safetensors", work);
    put_file(p, "abc", 3);
    CHECK(stepq_st_open(&f, p) != 0, "a 3-byte file");
    snprintf(p, sizeof p, "%s/pastend.safetensors", work);
    unsigned char big[16] = {0xff, 0xff, 0, 0, 0, 0, 0, 0, '{', '}'};
    put_file(p, big, 10);
    CHECK(stepq_st_open(&f, p) != 0, "a header length past the end");
    expect_open_error("notjson", "{\"a\": [1, 2", 0);
    expect_open_error("dtype", "{\"a\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]}}", 8);
    expect_open_error("size", "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8);
    expect_open_error("truncated", "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 8);
    expect_open_error("overlap", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                                 "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12);
    expect_open_error("badshape", "{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4);
}

// config.json options stepq does not implement are refused, naming the key
static void check_config(void) {
    static const char* const bad[] = {"\"model_type\": \"mamba\"", "\"expand_v\": 2", "\"tie_word_embeddings\": true",
                                      "\"num_v_heads\": 8", "\"use_short_conv\": false", "\"vocab_size\": 512"};
    char dir[2048], p[4096];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(dir, sizeof dir, "%s/badcfg%zu", work, i);
        char cmd[16384];
        snprintf(cmd, sizeof cmd, "mkdir -p %s && cp %s/data/lm/gdn/model.safetensors %s/", dir, src_dir, dir);
        CHECK(system(cmd) == 0, "%s", cmd);
        snprintf(p, sizeof p, "%s/config.json", dir);
        FILE* fp = fopen(p, "w");
        // the bad key first: cJSON finds the first of two equal keys
        fprintf(fp, "{%s, \"model_type\": \"gated_deltanet\", \"num_hidden_layers\": 4, \"num_heads\": 4, "
                    "\"head_dim\": 128, \"hidden_size\": 128, \"intermediate_size\": 384, \"conv_size\": 4, "
                    "\"vocab_size\": 256, \"norm_eps\": 1e-6}", bad[i]);
        fclose(fp);
        stepq_lm m;
        CHECK(stepq_lm_load(&m, dir) != 0, "config.json with %s accepted", bad[i]);
    }
}

// The model as a lockstep source (stepq_lm_source) gives the captured trace's steps bit for bit,
// and the head loop's run on it (every head in flight, a token at a time) the run on the
// capture (each head through its own cursor)
static void check_lm_source(const char* which) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/data/lm/%s", src_dir, which);
    stepq_lm m, m2;
    CHECK(stepq_lm_load(&m, dir) == STEPQ_OK && stepq_lm_load(&m2, dir) == STEPQ_OK, "load %s", dir);
    const long T = 96;
    uint8_t tok[96];
    for (long t = 0; t < T; t++) tok[t] = (uint8_t)("In the beginning was the word, and the word was with "[t % 52]);
    stepq_trace tr, tr2;  // tr is compared with, tr2 runs as a source
    CHECK(stepq_lm_capture(&tr, &m, tok, T, stepq_backend_default()) == STEPQ_OK && stepq_lm_capture(&tr2, &m, tok, T, stepq_backend_default()) == STEPQ_OK,
          "%s: capture", which);
    stepq_source* cap = stepq_trace_source(&tr2, "captured");
    stepq_source* live = stepq_lm_source(&m2, tok, T, stepq_backend_default());
    CHECK(live->lockstep && live->n_heads == cap->n_heads && live->T == T, "%s: the live source's shape", which);
    const int H = live->n_heads, K = live->K, V = live->V, G = live->n_gates;
    stepq_cursor* c = live->open(live, -1);
    stepq_step_in* in = calloc((size_t)H, sizeof *in);
    int same = 1;
    for (long t = 0; t < T; t++) {
        CHECK(live->next(c, in) == STEPQ_OK, "%s: next at %ld", which, t);
        for (int h = 0; h < H; h++) {
            size_t o = (size_t)t * H + h;
            same &= !memcmp(in[h].q, tr.q + o * K, 4 * K) && !memcmp(in[h].k, tr.k + o * K, 4 * K) &&
                    !memcmp(in[h].v, tr.v + o * V, 4 * V) && !memcmp(in[h].g, tr.g + o * G, 4 * G) &&
                    in[h].beta == tr.beta[o];
        }
    }
    CHECK(live->next(c, in) == STEPQ_END, "%s: the live source ends after its T steps", which);
    CHECK(same, "%s: the live source's steps differ from the capture", which);
    live->close(c);
    free(in);
    const stepq_format* f[2] = {stepq_format_find("int4"), stepq_format_find("int6-replay16")};
    stepq_run_cfg rc = {.formats = f, .n_formats = 2, .prefill = 16, .decode = 80, .bin = 16, .label = "test",
                        .backend = stepq_backend_default()};
    stepq_run_out a, b;
    CHECK(stepq_run_heads(&a, cap, &rc) == STEPQ_OK && stepq_run_heads(&b, live, &rc) == STEPQ_OK, "%s: runs", which);
    size_t n = (size_t)a.F * a.H;
    CHECK(!memcmp(a.err_y, b.err_y, n * a.n_bins * 4) && !memcmp(a.acc_sq, b.acc_sq, n * 8) &&
              !memcmp(a.p1_resid, b.p1_resid, n * 8) && !memcmp(a.acc_ref, b.acc_ref, (size_t)a.H * 8),
          "%s: the run on the live model differs from the run on its capture", which);
    stepq_run_out_free(&a);
    stepq_run_out_free(&b);
    // written as it steps, 7 tokens a chunk (stepq trace --model), the file holds the capture
    char path[4096];
    snprintf(path, sizeof path, "%s/live_%s.h5", work, which);
    setenv("STEPQ_TRACE_CHUNK", "7", 1);
    CHECK(stepq_trace_write_source(path, live, T, "test", NULL, NULL) == STEPQ_OK, "%s: write the live model", which);
    unsetenv("STEPQ_TRACE_CHUNK");
    stepq_trace back;
    CHECK(stepq_trace_read(&back, path, 0) == STEPQ_OK, "%s: read %s", which, path);
    const size_t nk = (size_t)T * H * K;
    CHECK(back.T == T && back.HV == H && !memcmp(back.q, tr.q, 4 * nk) && !memcmp(back.k, tr.k, 4 * nk) &&
              !memcmp(back.v, tr.v, 4 * (size_t)T * H * V) && !memcmp(back.g, tr.g, 4 * (size_t)T * H * G) &&
              !memcmp(back.beta, tr.beta, 4 * (size_t)T * H) && !memcmp(back.layer, tr.layer, 4 * (size_t)H) &&
              !memcmp(back.head, tr.head, 4 * (size_t)H),
          "%s: the trace written as the model steps differs from its capture", which);
    stepq_trace_free(&back);
    stepq_source_free(cap);
    stepq_source_free(live);
    stepq_trace_free(&tr);
    stepq_lm_free(&m);
}

// run spec (fmt NULL: native) of doc alone, one sequence through stepq_lm_step: nll, top (N)
static void forced_alone(double* nll, uint8_t* top, const stepq_lm* m, const uint8_t* doc, long P, long N,
                         const stepq_format* fmt) {
    stepq_lm_seq s;
    float lg[256];
    stepq_lm_seq_init(&s, m, stepq_backend_default());
    for (long t = 0; t < P; t++) CHECK(stepq_lm_step(&s, doc[t], lg, NULL) == STEPQ_OK, "prefill");
    if (fmt) CHECK(stepq_lm_seq_quantize(&s, fmt, NULL, stepq_backend_default()) == STEPQ_OK, "quantize %s", fmt->name);
    for (long t = 0; t < N; t++) {
        CHECK(stepq_lm_step(&s, doc[P + t], lg, NULL) == STEPQ_OK, "step");
        int best = 0;
        for (int i = 1; i < m->vocab; i++)
            if (lg[i] > lg[best]) best = i;
        nll[t] = stepq_lm_nll(lg, m->vocab, doc[P + t + 1]);
        top[t] = (uint8_t)best;
    }
    stepq_lm_seq_free(&s);
}

static void check_forced(void) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/data/lm/gdn", src_dir);
    stepq_lm m;
    CHECK(stepq_lm_load(&m, dir) == STEPQ_OK && m.xxh3 != 0, "load %s", dir);
    enum { D = 2, R = 3, L = 200 };
    uint8_t a[L], b[L];
    const char* ta = "And Ruth said, Intreat me not to leave thee, or to return from following after thee: ";
    const char* tb = "#define REG_EXTENDED 1\n#define REG_ICASE (1 << 1)\nint regcomp(regex_t *, const char *, int);\n";
    for (int t = 0; t < L; t++) a[t] = (uint8_t)ta[t % strlen(ta)], b[t] = (uint8_t)tb[t % strlen(tb)];
    uint8_t* docs[D] = {a, b};
    const long len[D] = {L, L};
    const char* files[D] = {"a", "b"};
    const stepq_format *i4 = stepq_format_find("int4"), *nv = stepq_format_find("nvfp4");
    stepq_forced_spec sp[D * R];
    for (int d = 0; d < D; d++) {
        sp[d * R] = (stepq_forced_spec){.name = "native"};
        sp[d * R + 1] = (stepq_forced_spec){.fmt = i4, .name = "int4"};
        sp[d * R + 2] = (stepq_forced_spec){.fmt = nv, .name = "nvfp4"};
    }
    const stepq_format* alone_fmt[R] = {NULL, i4, nv};
    long steps[D] = {120, 150};
    stepq_forced_forget();
    stepq_forced_set s = {.what = "test", .model = &m, .prefill = 24, .D = D, .R = R, .docs = docs, .len = len,
                          .files = files, .steps = steps, .specs = sp, .backend = stepq_backend_default()};
    CHECK(stepq_forced_run(&s) == STEPQ_OK && s.N == 150, "forced runs");
    CHECK(stepq_forced_kept(NULL) == D * R, "%ld runs kept, not %d", stepq_forced_kept(NULL), D * R);
    double nll[L];
    uint8_t top[L];
    for (int d = 0; d < D; d++)
        for (int k = 0; k < R; k++) {
            const size_t o = ((size_t)d * R + k) * s.N;
            forced_alone(nll, top, &m, docs[d], 24, steps[d], alone_fmt[k]);
            CHECK(!memcmp(s.nll + o, nll, sizeof(double) * steps[d]) && !memcmp(s.top + o, top, (size_t)steps[d]),
                  "document %d, %s: the batch's run differs from the sequence stepped alone", d, sp[k].name);
            int past = 1;
            for (long t = steps[d]; t < s.N; t++) past &= s.nll[o + t] == 0;
            CHECK(past, "document %d, %s: steps past its N are not 0", d, sp[k].name);
        }
    // shorter: taken (nothing new kept), the first steps; longer, another prefill: run and kept anew
    stepq_forced_set s2 = s;
    long shorter[D] = {100, 150};
    s2.steps = shorter;
    CHECK(stepq_forced_run(&s2) == STEPQ_OK && stepq_forced_kept(NULL) == D * R, "the shorter runs are taken");
    for (int i = 0; i < D * R; i++)
        CHECK(!memcmp(s2.nll + (size_t)i * s2.N, s.nll + (size_t)i * s.N, sizeof(double) * shorter[i / R]) &&
                  !memcmp(s2.top + (size_t)i * s2.N, s.top + (size_t)i * s.N, (size_t)shorter[i / R]),
              "run %d: a shorter run taken differs from the first steps of the one kept", i);
    stepq_forced_set s3 = s;
    long longer[D] = {121, 150};
    s3.steps = longer;
    CHECK(stepq_forced_run(&s3) == STEPQ_OK, "longer runs");
    forced_alone(nll, top, &m, a, 24, 121, i4);
    CHECK(!memcmp(s3.nll + (size_t)1 * s3.N, nll, sizeof(double) * 121), "a longer run is computed, not taken");
    CHECK(stepq_forced_kept(NULL) == D * R, "a longer run replaces the shorter one kept");
    stepq_forced_set s4 = s;
    s4.prefill = 23;
    CHECK(stepq_forced_run(&s4) == STEPQ_OK && stepq_forced_kept(NULL) == 2 * D * R, "another prefill is another run");
    // octile rows: run, not kept
    const size_t LHK = (size_t)m.layers * m.heads * m.K;
    uint8_t* rows = calloc(LHK, 1);
    for (size_t i = 0; i < LHK; i += 8) rows[i] = 1;
    stepq_forced_spec so[D];
    for (int d = 0; d < D; d++) so[d] = (stepq_forced_spec){.rows = rows, .width = 4, .name = "rows"};
    stepq_forced_set s5 = s;
    s5.R = 1;
    s5.specs = so;
    CHECK(stepq_forced_run(&s5) == STEPQ_OK && stepq_forced_kept(NULL) == 2 * D * R, "octile runs are not kept");
    stepq_forced_free(&s);
    stepq_forced_free(&s2);
    stepq_forced_free(&s3);
    stepq_forced_free(&s4);
    stepq_forced_free(&s5);
    free(rows);
    stepq_forced_forget();
    CHECK(stepq_forced_kept(NULL) == 0, "forget");
    stepq_lm_free(&m);
}

int main(int argc, char** argv) {
    CHECK(argc == 3, "usage: test_lm SOURCE_DIR WORKDIR");
    src_dir = argv[1];
    work = argv[2];
    h5u_quiet();
    stepq_backend_init();
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", work);
    CHECK(system(cmd) == 0, "mkdir");
    check_model("gdn");
    check_model("kda");
    check_model("gdn-recall");
    check_model("kda-recall");
    check_lm_source("gdn");
    check_lm_source("kda");
    check_forced();
    check_safetensors();
    check_config();
    return tu_finish("test_lm");
}

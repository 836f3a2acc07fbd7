// test_libstepq: libstepq through its public header alone (include/stepq.h), as a program that
// links the shared library sees it. Independent answers:
// - the session's float32 reference against the delta rule written out here in float64
//   (method 1), for GDN and KDA heads;
// - the fp32 format stores the state itself: its read-out and state equal the reference's, bit
//   for bit, and its packed bytes are the state's own;
// - within one format the API agrees with itself: a session's packed bytes decode (sq_codec) to
//   the state it reports, and its squared error is the one summed here from the two states;
// - every format's codec round trip of a random state is within the error its bits allow
//   (max |X - X_hat| below the row's absmax, a bound no working codec misses), bytes >= bits;
// - refusals: each named status with a message naming what is wrong, and nothing printed;
// - a step's inputs held to the trace reader's rules, two threads on one session (each call runs
//   alone or is refused; the result is that of as many serial steps), a session too big for the
//   machine refused before it allocates;
// - sq_calibrate on traces written here: a plan of their kind, shape, labels and model, the same
//   bytes for a seed, and its refusals (the command line's plan is compared with it in
//   tests/python/test_calibrate.py and with a config's in test_cli.sh);
// - a trace writer whose write fails (a file-size limit, as a full disk): the append that meets
//   it names the system's reason, every later call refuses with that reason, the close does not
//   crash and leaves nothing, not even an open descriptor or HDF5's caches (issue 65 class 1); labels the readers refuse (a (layer, head)
//   twice) refused as the writer opens, read-outs given to a writer without them refused.
#include <dirent.h>
#include <malloc.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../include/stepq.h"
#include "testutil.h"  // CHECK and its counters (a test helper, not the project's code)
#include "tu_rand.h"   // unif, gauss, unit: the inputs


// the delta rule in float64 (method 1): S <- diag(a) S; u = beta (v - S^T k); S <- S + k u^T;
// y = scale S^T q, with a = exp(g) per key row (one g for every row of a GDN head)
static void delta_step(double* S, double* y, const float* q, const float* k, const float* v, const float* g,
                       float beta, int G, int K, int V, double scale) {
    for (int i = 0; i < K; i++) {
        double a = exp(g[G == 1 ? 0 : i]);
        for (int j = 0; j < V; j++) S[i * V + j] *= a;
    }
    for (int j = 0; j < V; j++) {
        double p = 0;
        for (int i = 0; i < K; i++) p += S[i * V + j] * k[i];
        double u = beta * (v[j] - p);
        for (int i = 0; i < K; i++) S[i * V + j] += k[i] * u;
    }
    for (int j = 0; j < V; j++) {
        double s = 0;
        for (int i = 0; i < K; i++) s += S[i * V + j] * q[i];
        y[j] = scale * s;
    }
}

static double max_rel(const float* a, const double* b, size_t n) {
    double d = 0, m = 0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i])), m = fmax(m, fabs(b[i]));
    return m > 0 ? d / m : d;
}

// a session of H heads, fp32 and fmt, T steps after `prefill`, against the float64 rule
static void check_session(sq_kind kind, const char* fmt, int H, int K, int V, long prefill, int T) {
    const int G = kind == SQ_KDA ? K : 1;
    const char* formats[] = {"fp32", fmt};
    sq_session_config cfg = {.kind = kind, .K = K, .V = V, .n_heads = H, .formats = formats, .n_formats = 2,
                             .prefill = prefill, .keep_states = 1};
    sq_session* s = NULL;
    int rc = sq_session_open(&cfg, &s);
    CHECK(rc == SQ_OK, "open: %s", sq_last_error());
    if (rc) return;
    const size_t KV = (size_t)K * V;
    float *q = malloc(sizeof(float) * H * K), *k = malloc(sizeof(float) * H * K), *v = malloc(sizeof(float) * H * V);
    float *g = malloc(sizeof(float) * H * G), *beta = malloc(sizeof(float) * H);
    float *y = malloc(sizeof(float) * H * V), *y0 = malloc(sizeof(float) * H * V);
    float *S = malloc(sizeof(float) * H * KV), *S1 = malloc(sizeof(float) * H * KV), *Sd = malloc(sizeof(float) * KV);
    double *R = calloc((size_t)H * KV, sizeof(double)), *yr = malloc(sizeof(double) * H * V);
    double err2[8], hat2[8], ref2[8];
    double worst_y = 0, worst_S = 0;
    for (long t = 0; t < prefill + T; t++) {
        draw_step(q, k, v, g, beta, H, K, V, G);
        for (int h = 0; h < H; h++)
            delta_step(R + h * KV, yr + h * V, q + h * K, k + h * K, v + h * V, g + h * G, beta[h], G, K, V,
                       1.0 / sqrt(K));
        rc = sq_session_step(s, q, k, v, g, beta);
        CHECK(rc == SQ_OK, "step %ld: %s", t, sq_last_error());
        if (rc) break;
        CHECK(sq_session_readout(s, -1, y) == SQ_OK, "readout: %s", sq_last_error());
        CHECK(sq_session_state(s, -1, S) == SQ_OK, "state: %s", sq_last_error());
        worst_y = fmax(worst_y, max_rel(y, yr, (size_t)H * V));
        worst_S = fmax(worst_S, max_rel(S, R, (size_t)H * KV));
        if (t < prefill) {
            CHECK(sq_session_readout(s, 0, y0) == SQ_EINVAL, "a format's read-out in the prefill");
            continue;
        }
        // fp32 is the reference itself
        CHECK(sq_session_readout(s, 0, y0) == SQ_OK && !memcmp(y0, y, sizeof(float) * H * V),
              "fp32's read-out is not the reference's at step %ld", t);
        CHECK(sq_session_state(s, 0, S1) == SQ_OK && !memcmp(S1, S, sizeof(float) * H * KV),
              "fp32's state is not the reference's at step %ld", t);
        CHECK(sq_session_bytes(s, 0, 0) == 4 * KV, "fp32 stores %zu bytes", sq_session_bytes(s, 0, 0));
        // fmt: its bytes decode to its state, and its error is the distance of the two states
        CHECK(sq_session_state(s, 1, S1) == SQ_OK, "state of %s: %s", fmt, sq_last_error());
        CHECK(sq_session_errors(s, 1, err2, hat2, ref2) == SQ_OK, "errors: %s", sq_last_error());
        for (int h = 0; h < H; h++) {
            size_t n = sq_session_bytes(s, 1, h);
            unsigned char* P = malloc(n);
            CHECK(sq_session_packed(s, 1, h, P, n) == SQ_OK, "packed: %s", sq_last_error());
            sq_codec* c = NULL;
            CHECK(sq_codec_open(fmt, NULL, 0, kind, K, V, &c) == SQ_OK, "codec: %s", sq_last_error());
            CHECK(sq_codec_bytes(c) == n, "codec %zu bytes, session %zu", sq_codec_bytes(c), n);
            CHECK(sq_codec_decode(c, P, n, Sd) == SQ_OK && !memcmp(Sd, S1 + h * KV, sizeof(float) * KV),
                  "%s's stored bytes do not decode to its state (head %d, step %ld)", fmt, h, t);
            sq_codec_close(c);
            free(P);
            double e = 0, a = 0, r = 0;
            for (size_t i = 0; i < KV; i++) {
                double d = (double)S1[h * KV + i] - S[h * KV + i];
                e += d * d, a += (double)S1[h * KV + i] * S1[h * KV + i], r += (double)S[h * KV + i] * S[h * KV + i];
            }
            // the engine sums each row in float32 lanes (sim/sums.h): 1e-5 of the sum is several
            // times float32's rounding over a row of V terms
            CHECK(fabs(err2[h] - e) <= 1e-5 * e, "err2 %.9g, summed %.9g", err2[h], e);
            CHECK(fabs(hat2[h] - a) <= 1e-5 * a, "hat2 %.9g, summed %.9g", hat2[h], a);
            CHECK(fabs(ref2[h] - r) <= 1e-5 * r, "ref2 %.9g, summed %.9g", ref2[h], r);
            // a quantized path that runs, not one that diverged: 4-bit absmax rows keep the
            // relative squared error near 1/20 over these steps (5% measured at 128 x 128)
            CHECK(e > 0 && e < 0.25 * r, "%s's state error %g of %g after step %ld", fmt, e, r, t);
        }
    }
    // float32 against float64 over a few dozen steps: the rule's own rounding (1e-4 relative
    // leaves two orders of margin above float32's accumulated error here)
    CHECK(worst_y < 1e-4 && worst_S < 1e-4, "%s reference vs float64: read-out %g, state %g",
          kind == SQ_KDA ? "kda" : "gdn", worst_y, worst_S);
    CHECK(sq_session_steps(s) == prefill + T, "steps %ld", sq_session_steps(s));
    // a NaN input is refused with SQ_ENONFINITE naming the head, and not taken
    v[V] = NAN;
    CHECK(sq_session_step(s, q, k, v, g, beta) == SQ_ENONFINITE && strstr(sq_last_error(), "head 1: v[0] is nan"),
          "a NaN value: %s", sq_last_error());
    CHECK(sq_session_steps(s) == prefill + T, "the refused step was taken: %ld steps", sq_session_steps(s));
    // a value that overflows the state ends the session with SQ_ENONFINITE naming the head
    v[V] = 3e38f;
    for (int i = 0; i < 4 && sq_session_step(s, q, k, v, g, beta) == SQ_OK; i++) continue;
    CHECK(strstr(sq_last_error(), "non-finite") && strstr(sq_last_error(), "head 1"), "an overflow: %s",
          sq_last_error());
    CHECK(sq_session_step(s, q, k, v, g, beta) != SQ_OK, "a failed session stepped again");
    sq_session_close(s);
    free(q); free(k); free(v); free(g); free(beta); free(y); free(y0); free(S); free(S1); free(Sd); free(R); free(yr);
}

static void check_table(void) {
    const int n = sq_format_count();
    CHECK(n > 10, "%d formats", n);
    const int K = 128, V = 128;
    float* X = malloc(sizeof(float) * K * V);
    float* Y = malloc(sizeof(float) * K * V);
    for (int i = 0; i < K * V; i++) X[i] = (float)(gauss() * (1 + (i / V) % 7));
    int tested = 0;
    for (int i = 0; i < n; i++) {
        sq_format_info f;
        CHECK(sq_format_get(i, &f) == SQ_OK && f.name && f.family && f.nominal_bits > 0, "row %d", i);
        int idx = -1;
        CHECK(sq_format_find(f.name, &idx) == SQ_OK && idx == i, "find %s: %d", f.name, idx);
        sq_codec* c = NULL;
        int rc = sq_codec_open(f.name, NULL, 0, SQ_GDN, K, V, &c);
        if (f.needs_plan) {
            CHECK(rc == SQ_EPLAN && strstr(sq_last_error(), f.name), "%s without a plan: %d %s", f.name, rc,
                  sq_last_error());
            continue;
        }
        CHECK(rc == SQ_OK, "%s: %s", f.name, sq_last_error());
        if (rc) continue;
        tested++;
        size_t nb = sq_codec_bytes(c);
        unsigned char* P = calloc(nb, 1);
        CHECK(sq_codec_bits(c) >= f.nominal_bits - 1e-9 || f.replay, "%s: %g bits < nominal %g", f.name,
              sq_codec_bits(c), f.nominal_bits);
        CHECK(sq_codec_encode(c, X, P, nb) == SQ_OK && sq_codec_decode(c, P, nb, Y) == SQ_OK, "%s: %s", f.name,
              sq_last_error());
        double worst = 0;
        for (int r = 0; r < K; r++) {
            double m = 0, d = 0;
            for (int j = 0; j < V; j++) m = fmax(m, fabs(X[r * V + j])), d = fmax(d, fabs(X[r * V + j] - Y[r * V + j]));
            worst = fmax(worst, d / m);
        }
        CHECK(worst < 1.0, "%s: a row's error reaches %g of its absmax", f.name, worst);
        if (!strcmp(f.name, "fp32")) CHECK(worst == 0 && !memcmp(P, X, nb), "fp32 is not the state");
        CHECK(sq_codec_encode(c, X, P, nb + 1) == SQ_EINVAL && strstr(sq_last_error(), "bytes"), "size %s",
              sq_last_error());
        free(P);
        sq_codec_close(c);
    }
    CHECK(tested > 10, "%d formats round-tripped", tested);
    free(X);
    free(Y);
}

static void check_refusals(void) {
    int idx;
    CHECK(sq_format_find("int77", &idx) == SQ_ENOFORMAT && strstr(sq_last_error(), "int77") &&
              strstr(sq_last_error(), "int8"),
          "%s", sq_last_error());
    sq_plan* p = NULL;
    CHECK(sq_plan_open("/nonexistent/plan.h5", &p) == SQ_EFILE && !p && strstr(sq_last_error(), "/nonexistent/plan.h5"),
          "%s", sq_last_error());
    sq_codec* c = NULL;
    CHECK(sq_codec_open("nvfp4", NULL, 0, SQ_GDN, 128, 100, &c) == SQ_EINVAL && !c && strstr(sq_last_error(), "nvfp4"),
          "nvfp4 of V = 100: %s", sq_last_error());
    CHECK(sq_codec_open("int8", NULL, 0, (sq_kind)7, 128, 128, &c) == SQ_EINVAL, "kind 7");
    const char* bad[] = {"int8", "nope"};
    sq_session_config cfg = {.kind = SQ_GDN, .K = 16, .V = 16, .n_heads = 2, .formats = bad, .n_formats = 2};
    sq_session* s = NULL;
    CHECK(sq_session_open(&cfg, &s) == SQ_ENOFORMAT && !s && strstr(sq_last_error(), "nope"), "%s", sq_last_error());
    cfg.n_formats = 1;
    cfg.prefill = -1;
    CHECK(sq_session_open(&cfg, &s) == SQ_EINVAL && !s, "prefill -1: %s", sq_last_error());
    cfg.prefill = 0;
    CHECK(sq_session_open(&cfg, &s) == SQ_OK, "%s", sq_last_error());
    float y[32];
    CHECK(sq_session_readout(s, -1, y) == SQ_EINVAL && strstr(sq_last_error(), "no step"), "%s", sq_last_error());
    CHECK(sq_session_readout(s, 3, y) == SQ_EINVAL && strstr(sq_last_error(), "format 3"), "%s", sq_last_error());
    sq_session_close(s);
    CHECK(!strcmp(sq_status_name(SQ_EPLAN), "SQ_EPLAN") && !strcmp(sq_status_name(99), "unknown"), "names");
    // the 95% interval of {1, 2, 3, 4}: t(0.975, 3) = 3.182446 (tables) x sd 1.290994 / sqrt(4)
    const double x[] = {1, 2, 3, 4};
    double m, h;
    CHECK(sq_mean_ci95(x, 4, &m, &h) == SQ_OK && m == 2.5 && fabs(h - 3.182446305 * 1.290994449 / 2) < 1e-6,
          "mean %g, half %g", m, h);
    CHECK(sq_mean_ci95(x, 0, &m, &h) == SQ_EINVAL, "n = 0");
}

// the trace reader's rules on a step's inputs: each bad value refused (SQ_EINVAL, naming it), the
// step not taken, and the session still usable
static void check_step_inputs(void) {
    enum { H = 2, K = 16, V = 8 };
    sq_session* s = NULL;
    const char* names[] = {"int8"};
    sq_session_config cfg = {.kind = SQ_GDN, .K = K, .V = V, .n_heads = H, .formats = names, .n_formats = 1};
    CHECK(sq_session_open(&cfg, &s) == SQ_OK, "open: %s", sq_last_error());
    if (!s) return;
    float q[H * K], k[H * K], v[H * V], g[H], beta[H];
    for (int h = 0; h < H; h++) unit(q + h * K, K), unit(k + h * K, K), g[h] = -0.1f, beta[h] = 0.5f;
    for (int j = 0; j < H * V; j++) v[j] = (float)gauss();
    CHECK(sq_session_step(s, q, k, v, g, beta) == SQ_OK, "good step: %s", sq_last_error());
    struct { float* at; float bad; const char* says; } cases[] = {
        {&beta[1], 1.5f, "head 1: beta is 1.5"}, {&beta[0], -0.25f, "head 0: beta is -0.25"},
        {&g[1], 0.5f, "head 1: g[0] is 0.5"}, {&q[3], 100.0f, "head 0: q has L2 norm"},
        {&k[K + 1], 3.0f, "head 1: k has L2 norm"}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        float keep = *cases[c].at;
        *cases[c].at = cases[c].bad;
        sq_status rc = sq_session_step(s, q, k, v, g, beta);
        CHECK(rc == SQ_EINVAL && strstr(sq_last_error(), "step 1, ") && strstr(sq_last_error(), cases[c].says),
              "case %zu: status %d, message '%s'", c, rc, sq_last_error());
        *cases[c].at = keep;
    }
    struct { float* at; float bad; const char* says; } nonfinite[] = {
        {&beta[0], NAN, "head 0: beta is nan"}, {&g[0], -INFINITY, "head 0: g[0] is -inf"},
        {&q[K + 2], INFINITY, "head 1: q[2] is inf"}, {&v[V + 2], NAN, "head 1: v[2] is nan"}};
    for (size_t c = 0; c < sizeof nonfinite / sizeof *nonfinite; c++) {
        float keep = *nonfinite[c].at;
        *nonfinite[c].at = nonfinite[c].bad;
        sq_status rc = sq_session_step(s, q, k, v, g, beta);
        CHECK(rc == SQ_ENONFINITE && strstr(sq_last_error(), nonfinite[c].says), "non-finite case %zu: %d, '%s'", c,
              rc, sq_last_error());
        *nonfinite[c].at = keep;
    }
    CHECK(sq_session_steps(s) == 1, "refused steps were taken: %ld steps", sq_session_steps(s));
    CHECK(sq_session_step(s, q, k, v, g, beta) == SQ_OK, "a good step after the refusals: %s", sq_last_error());
    sq_session_close(s);
}

// Two threads step one session at once with the same inputs: each call either runs alone or is
// refused as the session being in use; the steps that ran give the state a serial session
// reaches in as many steps.
struct stepper { sq_session* s; const float *q, *k, *v, *g, *beta; int ok, refused, other; };

static void* step_many(void* arg) {
    struct stepper* a = arg;
    for (int i = 0; i < 200; i++) {
        sq_status rc = sq_session_step(a->s, a->q, a->k, a->v, a->g, a->beta);
        if (rc == SQ_OK) a->ok++;
        else if (rc == SQ_EINVAL && strstr(sq_last_error(), "in use by another thread")) a->refused++;
        else a->other++;
    }
    return NULL;
}

static void check_threads(void) {
    enum { H = 4, K = 32, V = 32 };
    const char* names[] = {"int6"};
    sq_session_config cfg = {.kind = SQ_GDN, .K = K, .V = V, .n_heads = H, .formats = names, .n_formats = 1,
                             .prefill = 3, .keep_states = 1};
    sq_session *s = NULL, *serial = NULL;
    CHECK(sq_session_open(&cfg, &s) == SQ_OK && sq_session_open(&cfg, &serial) == SQ_OK, "open: %s", sq_last_error());
    if (!s || !serial) return;
    static float q[H * K], k[H * K], v[H * V], g[H], beta[H];
    for (int h = 0; h < H; h++) unit(q + h * K, K), unit(k + h * K, K), g[h] = -0.01f, beta[h] = 0.7f;
    for (int j = 0; j < H * V; j++) v[j] = (float)gauss();
    struct stepper a[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        a[i] = (struct stepper){.s = s, .q = q, .k = k, .v = v, .g = g, .beta = beta};
        pthread_create(&th[i], NULL, step_many, &a[i]);
    }
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    const int ok = a[0].ok + a[1].ok;
    CHECK(a[0].other + a[1].other == 0 && ok + a[0].refused + a[1].refused == 400,
          "%d ok, %d refused, %d other", ok, a[0].refused + a[1].refused, a[0].other + a[1].other);
    CHECK(sq_session_steps(s) == ok, "%ld steps taken, %d calls succeeded", sq_session_steps(s), ok);
    for (int i = 0; i < ok; i++) sq_session_step(serial, q, k, v, g, beta);
    static float A[H * K * V], B[H * K * V];
    CHECK(sq_session_state(s, 0, A) == SQ_OK && sq_session_state(serial, 0, B) == SQ_OK &&
              memcmp(A, B, sizeof A) == 0, "the shared session's state differs from %d serial steps", ok);
    CHECK(sq_session_state(s, -1, A) == SQ_OK && sq_session_state(serial, -1, B) == SQ_OK &&
              memcmp(A, B, sizeof A) == 0, "the shared session's reference differs from %d serial steps", ok);
    sq_session_close(s);
    sq_session_close(serial);
}

// a session whose states exceed the machine's memory is refused before anything is allocated
static void check_memory(void) {
    const char* old = getenv("STEPQ_MEMORY_BYTES");
    char* keep = old ? strdup(old) : NULL;
    setenv("STEPQ_MEMORY_BYTES", "67108864", 1);  // a machine of 64 MiB
    const char* names[] = {"int8", "int6"};
    sq_session_config cfg = {.kind = SQ_GDN, .K = 128, .V = 128, .n_heads = 256, .formats = names, .n_formats = 2};
    sq_session* s = NULL;
    sq_status rc = sq_session_open(&cfg, &s);
    CHECK(rc == SQ_ENOMEM && !s && strstr(sq_last_error(), "the states of every head and format"), "status %d: %s",
          rc, sq_last_error());
    if (keep) setenv("STEPQ_MEMORY_BYTES", keep, 1);
    else unsetenv("STEPQ_MEMORY_BYTES");
    free(keep);
}

// a GDN trace at path: T steps of n heads of K x V labelled (layer, head), random normalised
// inputs, the model named by sha (or NULL); kind KDA for a trace of another kind
static int write_trace(const char* path, sq_kind kind, int n, int K, int V, long T, const char* sha) {
    const int layer[] = {0, 0, 1, 1}, head[] = {0, 1, 0, 1}, G = kind == SQ_KDA ? K : 1;
    sq_trace_config tc = {.kind = kind, .H = n, .HV = n, .K = K, .V = V, .weights_sha256 = sha, .layer = layer,
                          .head = head};
    sq_trace* t = NULL;
    if (sq_trace_open(path, &tc, &t) != SQ_OK) return 1;
    float *q = malloc(sizeof(float) * n * K), *k = malloc(sizeof(float) * n * K), *v = malloc(sizeof(float) * n * V);
    float *g = malloc(sizeof(float) * n * G), *beta = malloc(sizeof(float) * n);
    int rc = 0;
    for (long s = 0; s < T && !rc; s++) {
        for (int h = 0; h < n; h++) {
            unit(q + h * K, K);
            unit(k + h * K, K);
            for (int j = 0; j < V; j++) v[h * V + j] = (float)gauss();
            for (int i = 0; i < G; i++) g[h * G + i] = (float)(-0.2 * unif());
            beta[h] = (float)unif();
        }
        rc = sq_trace_append(t, 1, q, k, v, g, beta, NULL) != SQ_OK;
    }
    free(q), free(k), free(v), free(g), free(beta);
    return sq_trace_close(t, !rc) != SQ_OK || rc;
}

// 1 when message begins with prefix (a message names its caller first)
static int begins(const char* message, const char* prefix) { return !strncmp(message, prefix, strlen(prefix)); }

// the packed bytes of format f for one random state with each head of the plan at path: two plans
// that store the same w, widths and pivots give the same bytes
static unsigned long long plan_bytes_hash(const char* path, const char* f, int K, int V) {
    sq_plan* p = NULL;
    if (sq_plan_open(path, &p) != SQ_OK) return 0;
    sq_plan_info info;
    sq_plan_get_info(p, &info);
    unsigned long long hash = 1469598103934665603ull;  // FNV-1a over every head's bytes
    float* X = malloc(sizeof(float) * K * V);
    for (int h = 0; h < info.n_heads; h++) {
        for (int i = 0; i < K * V; i++) X[i] = (float)sin(0.37 * i + h);
        sq_codec* c = NULL;
        if (sq_codec_open(f, p, h, info.kind, K, V, &c) != SQ_OK) continue;
        size_t n = sq_codec_bytes(c);
        unsigned char* P = calloc(n, 1);
        sq_codec_encode(c, X, P, n);
        for (size_t i = 0; i < n; i++) hash = (hash ^ P[i]) * 1099511628211ull;
        free(P);
        sq_codec_close(c);
    }
    free(X);
    sq_plan_close(p);
    return hash;
}

// sq_calibrate: a plan of the traces' kind, shape, labels and model, the same for a seed; every
// refusal before any work, naming the setting or file, nothing left behind; the traces not held
// as inputs once the call returns (a later output may replace them)
static void check_calibrate(void) {
    char dir[] = "/tmp/test_libstepq_cal.XXXXXX";
    if (!mkdtemp(dir)) return;
    char a[256], b[256], other[256], kda[256], out[256], out2[256], sub[256], missing[256];
    const char* sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    const char* sha2 = "1123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    snprintf(a, sizeof a, "%s/a.h5", dir);
    snprintf(b, sizeof b, "%s/b.h5", dir);
    snprintf(other, sizeof other, "%s/other.h5", dir);
    snprintf(kda, sizeof kda, "%s/kda.h5", dir);
    snprintf(out, sizeof out, "%s/plans/p.h5", dir);  // in a directory sq_calibrate makes
    snprintf(out2, sizeof out2, "%s/p2.h5", dir);
    snprintf(sub, sizeof sub, "%s/plans", dir);
    snprintf(missing, sizeof missing, "%s/none.h5", dir);
    const int K = 32, V = 32, n = 3;
    CHECK(!write_trace(a, SQ_GDN, n, K, V, 48, sha) && !write_trace(b, SQ_GDN, n, K, V, 40, sha) &&
              !write_trace(other, SQ_GDN, n, K, V, 40, sha2) && !write_trace(kda, SQ_KDA, n, K, V, 40, sha),
          "traces: %s", sq_last_error());
    sq_calibrate_config cfg;
    CHECK(sq_calibrate_defaults(&cfg) == SQ_OK && cfg.steps == 0 && cfg.horizon == 2048 && cfg.gamma == 0.25 &&
              cfg.rho == 0.5 && cfg.reservoir == 64 && cfg.snapshot_every == 8 && cfg.pivots == -1 && !cfg.progress,
          "the defaults");
    cfg.reservoir = 3;
    cfg.snapshot_every = 4;
    const char* two[] = {a, b};
    CHECK(sq_calibrate(&cfg, two, 2, out) == SQ_OK, "%s", sq_last_error());
    sq_plan* p = NULL;
    sq_plan_info info = {0};
    CHECK(sq_plan_open(out, &p) == SQ_OK && sq_plan_get_info(p, &info) == SQ_OK && info.kind == SQ_GDN &&
              info.K == K && info.V == V && info.n_heads == n && !strcmp(info.model_sha256, sha) &&
              strlen(info.calibration_key) == 16,
          "%s: %d heads of %d x %d, model '%s'", sq_last_error(), info.n_heads, info.K, info.V, info.model_sha256);
    int layer = -1, head = -1;
    CHECK(p && sq_plan_head(p, 2, &layer, &head) == SQ_OK && layer == 1 && head == 0, "head 2: (%d, %d)", layer, head);
    sq_plan_close(p);
    // the same seed: the same plan
    CHECK(sq_calibrate(&cfg, two, 2, out2) == SQ_OK, "%s", sq_last_error());
    const unsigned long long h1 = plan_bytes_hash(out, "stepquant4", K, V);
    CHECK(h1 && h1 == plan_bytes_hash(out2, "stepquant4", K, V), "the same seed, another plan");
    // refusals, each naming what is wrong, with nothing written
    sq_calibrate_config bad = cfg;
    bad.gamma = -1;
    CHECK(sq_calibrate(&bad, two, 2, out2) == SQ_EINVAL && strstr(sq_last_error(), "gamma -1"), "%s", sq_last_error());
    bad = cfg;
    bad.steps = -5;
    CHECK(sq_calibrate(&bad, two, 2, out2) == SQ_EINVAL && strstr(sq_last_error(), "steps -5"), "%s", sq_last_error());
    bad = cfg;
    bad.horizon = NAN;
    CHECK(sq_calibrate(&bad, two, 2, out2) == SQ_EINVAL && strstr(sq_last_error(), "horizon"), "%s", sq_last_error());
    CHECK(sq_calibrate(&cfg, two, 0, out2) == SQ_EINVAL && sq_calibrate(NULL, two, 2, out2) == SQ_EINVAL &&
              sq_calibrate(&cfg, two, 2, NULL) == SQ_EINVAL, "NULL, n = 0");
    const char* with_missing[] = {a, missing};
    CHECK(sq_calibrate(&cfg, with_missing, 2, out2) == SQ_EFILE && strstr(sq_last_error(), missing), "%s",
          sq_last_error());
    const char* with_plan[] = {a, out};
    CHECK(sq_calibrate(&cfg, with_plan, 2, out2) == SQ_EFILE && strstr(sq_last_error(), "is a stepq plan, not a trace"),
          "%s", sq_last_error());
    const char* models[] = {a, other};
    CHECK(sq_calibrate(&cfg, models, 2, out2) == SQ_EFILE && strstr(sq_last_error(), "other.h5") &&
              strstr(sq_last_error(), "weights SHA-256"), "%s", sq_last_error());
    const char* kinds[] = {a, kda};
    CHECK(sq_calibrate(&cfg, kinds, 2, out2) == SQ_EFILE && strstr(sq_last_error(), "kda.h5") &&
              strstr(sq_last_error(), "is kda"), "%s", sq_last_error());
    bad = cfg;  // no state snapshot would be taken (a plan of zero distortions)
    bad.snapshot_every = 41;
    CHECK(sq_calibrate(&bad, two, 2, out2) != SQ_OK &&
              strstr(sq_last_error(), "snapshot_every 41 is more than the 40 steps of each segment"), "%s",
          sq_last_error());
    bad.steps = 7;
    bad.snapshot_every = 8;
    CHECK(sq_calibrate(&bad, two, 2, out2) != SQ_OK &&
              begins(sq_last_error(), "sq_calibrate: snapshot_every 8 is more than the 7 steps of each segment (steps)"),
          "%s", sq_last_error());
    // the caller's names of the settings (a front end's options), in the messages on them
    const sq_calibrate_names names = {.caller = "tool", .steps = "--n", .snapshot_every = "--every", .gamma = "-g"};
    bad.names = &names;
    CHECK(sq_calibrate(&bad, two, 2, out2) != SQ_OK &&
              begins(sq_last_error(), "tool: --every 8 is more than the 7 steps of each segment (--n): ") &&
              strstr(sq_last_error(), "give --every at most 7"), "%s", sq_last_error());
    bad = cfg;
    bad.names = &names;
    bad.gamma = -1;
    CHECK(sq_calibrate(&bad, two, 2, out2) == SQ_EINVAL && begins(sq_last_error(), "tool: -g -1 is outside [0, "),
          "%s", sq_last_error());
    bad.gamma = cfg.gamma;
    bad.reservoir = 0;  // a setting the caller did not name: its field's name
    CHECK(sq_calibrate(&bad, two, 2, out2) == SQ_EINVAL && begins(sq_last_error(), "tool: reservoir 0 is outside"),
          "%s", sq_last_error());
    bad = cfg;
    bad.steps = 45;
    CHECK(sq_calibrate(&bad, two, 2, out2) == SQ_EFILE && strstr(sq_last_error(), "shorter than the 45 steps"), "%s",
          sq_last_error());
    CHECK(sq_calibrate(&cfg, two, 2, a) == SQ_EFILE && strstr(sq_last_error(), "an input of this run"), "%s",
          sq_last_error());
    CHECK(sq_calibrate(&cfg, two, 2, sub) == SQ_EFILE && strstr(sq_last_error(), "is a directory"), "%s",
          sq_last_error());
    CHECK(plan_bytes_hash(out2, "stepquant4", K, V) == h1, "a refused call changed %s", out2);
    // a plan opened (above) and the traces calibrated on were those calls' inputs only: a later
    // calibration may write over the plan, a trace over a trace
    CHECK(sq_calibrate(&cfg, two, 2, out2) == SQ_OK, "over a plan opened before: %s", sq_last_error());
    CHECK(!write_trace(b, SQ_GDN, n, K, V, 40, sha), "a trace over %s after calibrating on it: %s", b, sq_last_error());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls %s %s | grep -q '[.]tmp[.]'", dir, sub);
    CHECK(system(cmd) != 0, "a temporary file left in %s", dir);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0, "rm %s", dir);
}

// the file descriptors this process holds open
static int open_fds(void) {
    int n = 0;
    DIR* d = opendir("/proc/self/fd");
    for (struct dirent* e; d && (e = readdir(d));) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

// the files in dir (0 when it is empty)
static int files_in(const char* dir) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", dir);
    return system(cmd) != 0;
}

// The bytes the allocator holds: AddressSanitizer's count where the Debug tree links it (a weak
// symbol, NULL in the Release tree), glibc's otherwise (mallinfo2 counts nothing under ASan)
size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));
static size_t heap_bytes(void) {
    return __sanitizer_get_current_allocated_bytes ? __sanitizer_get_current_allocated_bytes() : mallinfo2().uordblks;
}

// A trace writer under a file-size limit (RLIMIT_FSIZE with SIGXFSZ ignored: write() fails with
// EFBIG, as it fails with ENOSPC on a full disk): the append whose write fails gives SQ_EFILE with
// the system's reason, every later append and attribute is refused with that reason, and the close
// (committed or not) returns without crashing and leaves no file, temporary or final (before:
// the appends went on past the writer's buffer, and the close crashed)
static void check_trace_write_failure(void) {
    char dir[] = "/tmp/test_libstepq_fsize.XXXXXX";
    if (!mkdtemp(dir)) return;
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = 64 * 1024;
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit: %s", strerror(errno));
    const int n = 2, K = 32, V = 32, layer[] = {0, 0}, head[] = {0, 1};
    const char* reason = strerror(EFBIG);
    float *q = malloc(sizeof(float) * 16 * n * K), *v = malloc(sizeof(float) * 16 * n * V);
    float *g = malloc(sizeof(float) * 16 * n), *beta = malloc(sizeof(float) * 16 * n);
    for (int i = 0; i < 16 * n; i++) {
        unit(q + i * K, K);
        for (int j = 0; j < V; j++) v[i * V + j] = (float)gauss();
        g[i] = -0.1f, beta[i] = 0.5f;
    }
    const int fds = open_fds();
    const size_t heap = heap_bytes();
    for (int commit = 0; commit < 2; commit++) {
        char path[300];
        snprintf(path, sizeof path, "%s/t%d.h5", dir, commit);
        sq_trace_config tc = {.kind = SQ_GDN, .H = n, .HV = n, .K = K, .V = V, .layer = layer, .head = head};
        sq_trace* t = NULL;
        CHECK(sq_trace_open(path, &tc, &t) == SQ_OK, "%s", sq_last_error());
        if (!t) continue;
        int rc = SQ_OK;
        long steps = 0;
        while (steps < 1000000 && (rc = sq_trace_append(t, 16, q, q, v, g, beta, NULL)) == SQ_OK) steps += 16;
        CHECK(rc == SQ_EFILE && strstr(sq_last_error(), path) && strstr(sq_last_error(), reason),
              "the failed write after %ld steps: %s %s", steps, sq_status_name(rc), sq_last_error());
        for (int i = 0; i < 3; i++) {
            rc = sq_trace_append(t, 16, q, q, v, g, beta, NULL);
            CHECK(rc == SQ_EFILE && strstr(sq_last_error(), "an earlier write failed") &&
                      strstr(sq_last_error(), reason), "append %d after the failure: %s %s", i, sq_status_name(rc),
                  sq_last_error());
        }
        CHECK(sq_trace_attr(t, "text", "x") == SQ_EFILE && strstr(sq_last_error(), reason), "an attribute: %s",
              sq_last_error());
        rc = sq_trace_close(t, commit);
        CHECK(commit ? rc == SQ_EFILE && strstr(sq_last_error(), reason) : rc == SQ_OK, "close(%d): %s %s", commit,
              sq_status_name(rc), sq_last_error());
        CHECK(!files_in(dir), "a file left in %s after close(%d)", dir, commit);
        // the abandoned file closed for good (HDF5 kept its descriptor and caches when the close
        // could not flush them: h5u_abandon points it at /dev/null first)
        CHECK(open_fds() == fds, "%d file descriptors open after close(%d), %d before", open_fds(), commit, fds);
        // nor its memory: HDF5 lost the file's caches, 3 MB here, when its close failed
        CHECK(heap_bytes() < heap + (1 << 20), "the heap grew by %zu bytes with a failed trace",
              heap_bytes() - heap);
    }
    free(q), free(v), free(g), free(beta);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, prev);
    rmdir(dir);
}

// check_trace_write_failure in a child process that ends by _exit, its failures its exit status:
// HDF5 keeps the buffers of the write that failed (two, 16 KB in all: its own, not stepq's to
// free), which LeakSanitizer would report at exit; the heap check bounds what is kept
static void check_trace_write_failure_apart(void) {
    fflush(stdout), fflush(stderr);
    const int before = tu_failures;
    const pid_t pid = fork();
    if (pid == 0) {
        check_trace_write_failure();
        fflush(stderr);
        _exit(tu_failures - before > 100 ? 100 : tu_failures - before);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status),
          "the failing-write checks' process: %s", pid < 0 ? strerror(errno) : "did not exit (a signal)");
    if (pid > 0 && WIFEXITED(status)) tu_failures += WEXITSTATUS(status);
}

// a trace writer given what the readers would refuse: two value heads of one (layer, head) label,
// one kind of label alone, or V not a multiple of 8 (found by fuzz_tracewrite), refused by sq_trace_open with nothing created (before: written and
// committed, then refused by every reader); read-outs y given to a writer opened without them,
// refused (before: dropped without a word), the block not kept and the writer usable after
static void check_trace_refusals(void) {
    char dir[] = "/tmp/test_libstepq_labels.XXXXXX";
    if (!mkdtemp(dir)) return;
    char path[300];
    snprintf(path, sizeof path, "%s/t.h5", dir);
    const int K = 8, V = 8, H = 3, layer[] = {1, 1, 1}, head[] = {0, 3, 3};
    sq_trace_config tc = {.kind = SQ_GDN, .H = H, .HV = H, .K = K, .V = V, .layer = layer, .head = head};
    sq_trace* t = NULL;
    sq_status rc = sq_trace_open(path, &tc, &t);
    CHECK(rc == SQ_EINVAL && !t && strstr(sq_last_error(), "value heads 1 and 2 are both labelled layer 1, head 3"),
          "a (layer, head) twice: %s %s", sq_status_name(rc), sq_last_error());
    tc.head = NULL;
    rc = sq_trace_open(path, &tc, &t);
    CHECK(rc == SQ_EINVAL && !t && strstr(sq_last_error(), "both layer and head labels or neither"),
          "layer labels alone: %s %s", sq_status_name(rc), sq_last_error());
    sq_trace_config v12 = {.kind = SQ_GDN, .H = 1, .HV = 1, .K = K, .V = 12};
    rc = sq_trace_open(path, &v12, &t);
    CHECK(rc == SQ_EINVAL && !t && strstr(sq_last_error(), "V=12") && strstr(sq_last_error(), "multiple of 8"),
          "V = 12, which the readers refuse: %s %s", sq_status_name(rc), sq_last_error());
    CHECK(!files_in(dir), "a refused open left a file in %s", dir);
    tc.head = (const int[]){0, 1, 2};
    CHECK(sq_trace_open(path, &tc, &t) == SQ_OK, "%s", sq_last_error());
    float q[3 * 8], v[3 * 8], g[3] = {-0.1f, -0.1f, -0.1f}, beta[3] = {0.5f, 0.5f, 0.5f};
    for (int h = 0; h < H; h++) unit(q + h * K, K);
    for (int i = 0; i < H * V; i++) v[i] = (float)gauss();
    rc = sq_trace_append(t, 1, q, q, v, g, beta, v);
    CHECK(rc == SQ_EINVAL && strstr(sq_last_error(), "with read-outs y, to a trace opened without them") &&
              sq_trace_steps(t) == 0, "y to a writer without read-outs: %s %s", sq_status_name(rc), sq_last_error());
    CHECK(sq_trace_append(t, 1, q, q, v, g, beta, NULL) == SQ_OK && sq_trace_steps(t) == 1 &&
              sq_trace_close(t, 1) == SQ_OK, "the writer after a refused block: %s", sq_last_error());
    CHECK(unlink(path) == 0 && rmdir(dir) == 0, "%s: the trace, and nothing else", dir);
}

int main(void) {
    // the library prints nothing: this test's stderr goes to a file while it runs it
    char path[] = "/tmp/test_libstepq.XXXXXX";
    int fd = mkstemp(path);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    CHECK(sq_version() / 10000 == SQ_VERSION_MAJOR, "library %d, header %d", sq_version(), SQ_VERSION);
    check_table();
    check_refusals();
    check_trace_write_failure_apart();  // first: the child forks before any OpenMP thread exists
    check_session(SQ_GDN, "int8", 3, 32, 16, 5, 20);
    check_session(SQ_KDA, "int8", 2, 16, 32, 0, 20);
    check_session(SQ_GDN, "int4", 2, 128, 128, 3, 6);
    check_step_inputs();
    check_threads();
    check_memory();
    check_calibrate();
    check_trace_refusals();
    fflush(stderr);
    off_t printed = lseek(fd, 0, SEEK_END);
    dup2(saved, 2);
    if (printed > 0 && tu_failures == 0) {
        char buf[512] = {0};
        pread(fd, buf, sizeof buf - 1, 0);
        fprintf(stderr, "FAIL: libstepq printed on stderr: %s\n", buf);
        tu_failures++;
    } else if (tu_failures) {  // the failures were written to the file: show them
        char buf[8192] = {0};
        pread(fd, buf, sizeof buf - 1, 0);
        fputs(buf, stderr);
    }
    close(fd);
    unlink(path);
    printf("test_libstepq: %d checks, %d failed (%s)\n", tu_checks, tu_failures, sq_build_info());
    return tu_failures ? 1 : 0;
}

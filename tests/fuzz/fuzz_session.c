// fuzz_session.c: libstepq's entry points (include/stepq.h) as a program calls them, in any order
// and with any sizes. The fuzzer's bytes open a session (kind, K, V, heads, formats from the
// table, a prefill, kept states, a scale, an initial state) and then drive up to 64 calls: steps
// whose q, k, v, g, beta are raw floats (NaN, Inf, norms of any size, gates above 0, beta outside
// [0, 1]) or well-formed ones with one value spoiled, read-outs, states, errors and packed bytes of
// any format index and head with any buffer size, and codecs of any format and shape encoding and
// decoding bytes of any length. Every call must return a status the header names, with a message
// when it fails; nothing may crash, read or write outside its buffers, or leak.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/stepq.h"
#include "fuzzutil.h"

static const int dims[] = {1, 3, 8, 16, 24, 32, 64, 128};

static void unit_rows(float* x, int rows, int n, fz_bytes* b) {
    for (int r = 0; r < rows; r++) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            x[r * n + i] = (float)((int)fz_u8(b) - 127) + 0.5f;
            s += (double)x[r * n + i] * x[r * n + i];
        }
        for (int i = 0; i < n; i++) x[r * n + i] = (float)(x[r * n + i] / sqrt(s));
    }
}

static void fill(float* x, size_t n, int mode, fz_bytes* b) {
    for (size_t i = 0; i < n; i++) x[i] = mode ? fz_f32(b) : (float)((int)fz_u8(b) - 127) / 64.0f;
}

static void step(sq_session* s, int kind, int H, int K, int V, fz_bytes* b) {
    const int G = kind == SQ_KDA ? K : 1, mode = fz_u8(b) % 3;
    float* q = malloc(sizeof(float) * H * K);
    float* k = malloc(sizeof(float) * H * K);
    float* v = malloc(sizeof(float) * H * V);
    float* g = malloc(sizeof(float) * H * G);
    float* beta = malloc(sizeof(float) * H);
    if (mode == 0) {  // raw floats from the bytes
        fill(q, (size_t)H * K, 1, b), fill(k, (size_t)H * K, 1, b), fill(v, (size_t)H * V, 1, b);
        fill(g, (size_t)H * G, 1, b), fill(beta, (size_t)H, 1, b);
    } else {  // well-formed; mode 2 spoils one value
        unit_rows(q, H, K, b), unit_rows(k, H, K, b), fill(v, (size_t)H * V, 0, b);
        for (int i = 0; i < H * G; i++) g[i] = -(float)fz_u8(b) / 64.0f;
        for (int h = 0; h < H; h++) beta[h] = (float)fz_u8(b) / 255.0f;
        if (mode == 2) {
            float* which[5] = {q, k, v, g, beta};
            const int sizes[5] = {H * K, H * K, H * V, H * G, H};
            const int w = fz_u8(b) % 5;
            which[w][fz_u8(b) % sizes[w]] = fz_f32(b);
        }
    }
    CHECK_RC(sq_session_step(s, q, k, v, g, beta));
    free(q), free(k), free(v), free(g), free(beta);
}

static void codec(fz_bytes* b) {
    sq_format_info fi;
    CHECK_RC(sq_format_get(fz_u8(b) % sq_format_count(), &fi));
    const int K = dims[fz_u8(b) % 8], V = dims[fz_u8(b) % 8], kind = fz_u8(b) % 3 == 2 ? 7 : fz_u8(b) & 1;
    sq_codec* c = NULL;
    const int rc = sq_codec_open(fi.name, NULL, (int)(int8_t)fz_u8(b), kind, K, V, &c);
    CHECK_RC(rc);
    if (rc != SQ_OK) return;
    const size_t bytes = sq_codec_bytes(c), n = fz_u8(b) & 1 ? bytes : fz_u8(b);
    uint8_t* P = calloc(n ? n : 1, 1);
    float* X = malloc(sizeof(float) * K * V);
    fill(X, (size_t)K * V, fz_u8(b) & 1, b);
    CHECK_RC(sq_codec_encode(c, X, P, n));
    for (size_t i = 0; i < n && fz_u8(b) & 1; i++) P[i] = fz_u8(b);
    CHECK_RC(sq_codec_decode(c, P, n, X));
    free(P), free(X);
    sq_codec_close(c);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fz_bytes b = {data, size, 0};
    const int kind = fz_u8(&b) & 1, K = dims[fz_u8(&b) % 8], V = dims[fz_u8(&b) % 8], H = 1 + fz_u8(&b) % 4;
    const int F = fz_u8(&b) % 4;
    const char* names[3];
    for (int f = 0; f < F; f++) {
        sq_format_info fi;
        CHECK_RC(sq_format_get(fz_u8(&b) % sq_format_count(), &fi));
        names[f] = fi.name;
    }
    const uint8_t flags = fz_u8(&b);
    float* S0 = NULL;
    if (flags & 1) {
        S0 = malloc(sizeof(float) * H * K * V);
        fill(S0, (size_t)H * K * V, flags & 2, &b);
    }
    sq_session_config cfg = {.kind = kind, .K = K, .V = V, .n_heads = H, .formats = names, .n_formats = F,
                             .prefill = (long)(int8_t)fz_u8(&b), .S0 = S0, .keep_states = (flags >> 2) & 1,
                             .scale = flags & 8 ? fz_f64(&b) : 0.0};
    sq_session* s = NULL;
    const int rc = sq_session_open(&cfg, &s);
    CHECK_RC(rc);
    free(S0);
    float* y = malloc(sizeof(float) * H * V);
    float* S = malloc(sizeof(float) * H * K * V);
    double e[4], a[4], r[4];
    for (int op = 0; op < 64 && b.at < b.n; op++) {
        const uint8_t o = fz_u8(&b);
        const int f = (int)(int8_t)fz_u8(&b);
        if (o % 8 == 6) {
            codec(&b);
            continue;
        }
        if (rc != SQ_OK) continue;
        switch (o % 8) {
        case 0: case 7: step(s, kind, H, K, V, &b); break;
        case 1: CHECK_RC(sq_session_readout(s, f, y)); break;
        case 2: CHECK_RC(sq_session_state(s, f, S)); break;
        case 3: CHECK_RC(sq_session_errors(s, f, e, o & 16 ? NULL : a, r)); break;
        case 4: {
            const int h = (int)(int8_t)fz_u8(&b);
            const size_t want = sq_session_bytes(s, f, h), n = o & 16 ? want : fz_u8(&b);
            uint8_t* P = malloc(n ? n : 1);
            CHECK_RC(sq_session_packed(s, f, h, P, n));
            free(P);
            break;
        }
        case 5: (void)sq_session_bytes(s, f, (int)(int8_t)fz_u8(&b)), (void)sq_session_steps(s); break;
        }
    }
    free(y), free(S);
    sq_session_close(s);
    return 0;
}

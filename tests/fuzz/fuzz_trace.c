// fuzz_trace.c: the trace loader on arbitrary traces. The fuzzer's bytes choose a trace's shape
// (kind, steps, heads, grouped value heads, K, V), which datasets are missing or one step short,
// the kind, scale and qk_norm_eps attributes (their values, and other types and shapes), whether q and k come normalised, and every value (NaN, Inf,
// denormals, positive gates, beta outside [0,1] included); the trace is written with HDF5 and
// read by stepq_trace_read, as `stepq replay` would. A trace it accepts then runs through the
// decode-step protocol in a few formats. Nothing may crash: every bad trace must be refused
// with a message, and a run must stop with one on a non-finite state. (HDF5's own parser is not
// the target: the files are well-formed HDF5.)
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>

#include "../../analysis/runner.h"
#include "../../base/common.h"
#include "../../base/h5util.h"
#include "../../sim/trace.h"
#include "fuzzutil.h"

enum { D_Q, D_K, D_V, D_G, D_BETA, D_S0, N_D };
static const char* const names[N_D] = {"q", "k", "v", "g", "beta", "S0"};

static void put(hid_t f, const char* name, const float* x, int rank, const hsize_t* dims) {
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t d = H5Dcreate2(f, name, H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, x);
    H5Dclose(d);
    H5Sclose(sp);
}

static float value(fz_bytes* b, int mode) {
    uint8_t m = fz_u8(b);
    if (mode == 0 || m < 200) return (float)((int)(m % 64) - 32) / 16.0f;  // plain values
    return fz_f32(b);                                                     // any bits
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fz_bytes b = {data, size, 0};
    h5u_quiet();
    const uint8_t shape = fz_u8(&b), flags = fz_u8(&b), attrs = fz_u8(&b), mode = fz_u8(&b);
    const int kind = shape & 1 ? STEPQ_KDA : STEPQ_GDN, T = 1 + (shape >> 1) % 8, H = 1 + (shape >> 4) % 2, HV = H * (1 + (shape >> 5) % 2);
    const int K = 8 * (1 + (shape >> 6) % 2), V = 8 * (1 + (shape >> 7));
    hsize_t dims[N_D][3] = {{T, H, K}, {T, H, K}, {T, HV, V}, {T, HV, K}, {T, HV, 0}, {HV, K, V}};
    const int rank[N_D] = {3, 3, 3, stepq_kind_of(kind)->gate_per_key ? 3 : 2, 2, 3};
    if (flags & 0x40) dims[fz_u8(&b) % N_D][0] -= 1;  // one dataset a step short (S0: a head short)
    char path[256];
    fz_tmp(path, sizeof path, "trace", "h5");
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return 0;
    for (int d = 0; d < N_D; d++) {
        if (flags & (1 << d) && d != D_S0) continue;          // missing
        if (d == D_S0 && !(flags & (1 << D_S0))) continue;    // S0 is optional: present when set
        size_t n = 1;
        for (int r = 0; r < rank[d]; r++) n *= dims[d][r];
        float* x = mallocCheck(sizeof(float) * (n ? n : 1));
        for (size_t i = 0; i < n; i++) x[i] = value(&b, mode & 1);
        if (d == D_G && !(mode & 2))
            for (size_t i = 0; i < n; i++) x[i] = -fabsf(x[i]);  // log gates <= 0
        if (d == D_BETA && !(mode & 4))
            for (size_t i = 0; i < n; i++) x[i] = fabsf(x[i]) / (1.0f + fabsf(x[i]));  // in [0, 1)
        if ((d == D_Q || d == D_K) && !(mode & 8) && dims[d][2] == (hsize_t)K)
            for (size_t r = 0; r < n / K; r++) {  // normalised rows, as fla feeds them
                double s = 0;
                for (int i = 0; i < K; i++) s += (double)x[r * K + i] * x[r * K + i];
                for (int i = 0; i < K && s > 0 && isfinite(s); i++) x[r * K + i] = (float)(x[r * K + i] / sqrt(s));
            }
        put(f, names[d], x, rank[d], dims[d]);
        free(x);
    }
    // the trace's kind, the other kind (g of the wrong rank), or one stepq does not know
    const int other = kind == STEPQ_KDA ? STEPQ_GDN : STEPQ_KDA;
    if ((attrs & 3) != 3)
        h5u_attr_str(f, "kind", (attrs & 3) == 0 ? stepq_kind_name(kind) : (attrs & 3) == 1 ? stepq_kind_name(other) : "rwkv");
    if (attrs & 4) h5u_attr_f64(f, "scale", attrs & 8 ? fz_f64(&b) : 1.0 / sqrt(K));
    // then, maybe, either attribute as another type or shape (fz_attr); qk_norm_eps (norms below 1
    // accepted): fla's 1e-6, any double, or another type or shape
    const uint8_t more = fz_u8(&b);
    if (more & 1) fz_attr(f, "kind", &b);
    if (more & 2) fz_attr(f, "scale", &b);
    if (more & 4) h5u_attr_f64(f, "qk_norm_eps", more & 8 ? fz_f64(&b) : 1e-6);
    if (more & 16) fz_attr(f, "qk_norm_eps", &b);
    H5Fclose(f);
    stepq_trace tr;
    if (stepq_trace_read(&tr, path, (mode >> 4) & 1) == STEPQ_OK) {
        stepq_source* src = stepq_trace_source(&tr, path);
        const stepq_format* fm[4] = {stepq_format_find("fp32"), stepq_format_find("bf16"),
                                     stepq_format_find("int8"), stepq_format_find("int4")};
        long prefill = (long)(attrs >> 4) % src->T;
        stepq_run_cfg rc = {.formats = fm, .n_formats = 4, .prefill = prefill, .decode = src->T - prefill,
                            .bin = (int)(src->T - prefill), .backend = stepq_backend_default()};
        stepq_run_out o;
        setenv("STEPQ_QUIET", "1", 1);
        if (stepq_run_heads(&o, src, &rc) == STEPQ_OK) stepq_run_out_free(&o);
        stepq_source_free(src);
    }
    remove(path);
    return 0;
}

// mkbad: writes the broken trace files tests/test_cli.sh feeds to stepq: a good one, then one
// each with a missing dataset, mismatched shapes, a NaN and an Inf at known indices, a key that
// is not L2-normalised (step 4, head 1, norm 2; with and without qk_norm_eps, and of norm 0.25),
// a scale of 0, and value heads 40 wide. With
// --kind: rewrites the root attribute 'kind' of a trace or plan FILE to VALUE, a string, or an
// integer when VALUE is a number (a model kind stepq does not know). --f64: rewrites the root
// attribute NAME of FILE to the double VALUE (strtod: "nan", "9e307"), keeping its type.
//   mkbad DIR
//   mkbad --kind FILE VALUE
//   mkbad --f64 FILE NAME VALUE
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"

#include "../sim/synth.h"
#include "../sim/trace.h"

static void path(char* buf, const char* dir, const char* name) { snprintf(buf, 1024, "%s/%s", dir, name); }

// FILE's root attribute name <- v, written through its own type
static int set_f64(const char* file, const char* name, double v) {
    hid_t h = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    if (h < 0) return 1;
    hid_t a = H5Aopen(h, name, H5P_DEFAULT);
    int rc = a < 0 || H5Awrite(a, H5T_NATIVE_DOUBLE, &v) < 0;
    if (a >= 0) H5Aclose(a);
    H5Fclose(h);
    return rc;
}

// FILE's root attribute 'kind' <- value (an integer when it reads as one)
static int set_kind(const char* file, const char* value) {
    hid_t h = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
    if (h < 0) return 1;
    if (H5Aexists(h, "kind") > 0) H5Adelete(h, "kind");
    char* end;
    long n = strtol(value, &end, 10);
    const int number = *value && !*end;
    hid_t sp = H5Screate(H5S_SCALAR), t = H5Tcopy(number ? H5T_NATIVE_LONG : H5T_C_S1);
    if (!number) H5Tset_size(t, strlen(value) + 1);
    hid_t a = H5Acreate2(h, "kind", t, sp, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, t, number ? (const void*)&n : (const void*)value);
    if (a >= 0) H5Aclose(a);
    H5Tclose(t);
    H5Sclose(sp);
    return H5Fclose(h) < 0 || rc < 0;
}

int main(int argc, char** argv) {
    if (argc == 4 && !strcmp(argv[1], "--kind")) return set_kind(argv[2], argv[3]);
    if (argc == 5 && !strcmp(argv[1], "--f64")) return set_f64(argv[2], argv[3], strtod(argv[4], NULL));
    if (argc != 2) { fprintf(stderr, "usage: mkbad DIR | mkbad --kind FILE VALUE\n"); return 2; }
    const char* dir = argv[1];
    stepq_synth_params p;
    stepq_synth_preset(&p, "gdn-qwen-like");
    int layer = 0, heads[2] = {0, 1};
    stepq_source* s;
    if (stepq_synth_open(&s, &p, 0, 1, &layer, 1, heads, 2)) return 1;
    stepq_trace tr;
    stepq_trace_capture(&tr, s, 20);
    char f[1024];
    path(f, dir, "good.h5");
    if (stepq_trace_write(f, &tr, "good")) return 1;
    // missing dataset: write, then unlink 'beta'
    path(f, dir, "missing_beta.h5");
    stepq_trace_write(f, &tr, "no beta");
    hid_t h = H5Fopen(f, H5F_ACC_RDWR, H5P_DEFAULT);
    H5Ldelete(h, "beta", H5P_DEFAULT);
    H5Fclose(h);
    // mismatched shapes: v with one step fewer than q
    path(f, dir, "short_v.h5");
    stepq_trace_write(f, &tr, "short v");
    h = H5Fopen(f, H5F_ACC_RDWR, H5P_DEFAULT);
    H5Ldelete(h, "v", H5P_DEFAULT);
    hsize_t dv[3] = {(hsize_t)tr.T - 1, (hsize_t)tr.HV, (hsize_t)tr.V};
    hid_t sp = H5Screate_simple(3, dv, NULL);
    hid_t d = H5Dcreate2(h, "v", H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, tr.v);
    H5Dclose(d);
    H5Sclose(sp);
    H5Fclose(h);
    // data stored elsewhere: v as an external link to good.h5's, as a virtual dataset of it
    char good[1024];
    path(good, dir, "good.h5");
    hsize_t dfull[3] = {(hsize_t)tr.T, (hsize_t)tr.HV, (hsize_t)tr.V};
    for (int i = 0; i < 2; i++) {
        path(f, dir, i ? "virtual_v.h5" : "extlink_v.h5");
        stepq_trace_write(f, &tr, i ? "v a virtual dataset" : "v an external link");
        h = H5Fopen(f, H5F_ACC_RDWR, H5P_DEFAULT);
        H5Ldelete(h, "v", H5P_DEFAULT);
        if (!i) {
            H5Lcreate_external(good, "v", h, "v", H5P_DEFAULT, H5P_DEFAULT);
        } else {
            hid_t vs = H5Screate_simple(3, dfull, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
            H5Pset_virtual(dcpl, vs, good, "v", vs);
            d = H5Dcreate2(h, "v", H5T_IEEE_F32LE, vs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
            H5Dclose(d);
            H5Pclose(dcpl);
            H5Sclose(vs);
        }
        H5Fclose(h);
    }
    // every v zero (and S0 zero): no read-out to measure against, so p1_residual is NaN, not 0
    {
        stepq_trace z = tr;
        const size_t nv = (size_t)tr.T * tr.HV * tr.V;
        z.v = callocCheck(nv, sizeof(float));
        z.S0 = tr.S0 ? callocCheck((size_t)tr.HV * tr.K * tr.V, sizeof(float)) : NULL;
        path(f, dir, "zero_v.h5");
        stepq_trace_write(f, &z, "v all zero");
        free(z.v);
        free(z.S0);
    }
    // labels written as floats (1.5 would be read as 1), and scale as a dataset (it was ignored)
    path(f, dir, "float_labels.h5");
    stepq_trace_write(f, &tr, "float labels");
    h = H5Fopen(f, H5F_ACC_RDWR, H5P_DEFAULT);
    {
        hsize_t nh = (hsize_t)tr.HV;
        double lab[64] = {0};
        for (int i = 0; i < tr.HV && i < 64; i++) lab[i] = i + 0.5;
        hid_t ls = H5Screate_simple(1, &nh, NULL);
        for (int i = 0; i < 2; i++) {
            const char* nm = i ? "head" : "layer";
            if (H5Lexists(h, nm, H5P_DEFAULT) > 0) H5Ldelete(h, nm, H5P_DEFAULT);
            d = H5Dcreate2(h, nm, H5T_IEEE_F64LE, ls, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, lab);
            H5Dclose(d);
        }
        H5Sclose(ls);
    }
    H5Fclose(h);
    path(f, dir, "scale_dataset.h5");
    stepq_trace_write(f, &tr, "scale a dataset");
    h = H5Fopen(f, H5F_ACC_RDWR, H5P_DEFAULT);
    {
        H5Adelete(h, "scale");
        hid_t one = H5Screate(H5S_SCALAR);
        double sc = 0.25;
        d = H5Dcreate2(h, "scale", H5T_IEEE_F64LE, one, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &sc);
        H5Dclose(d);
        H5Sclose(one);
    }
    H5Fclose(h);
    // v in float64 with 1e300 at [4, 1, 9]: beyond float32's range, not "Inf"
    path(f, dir, "v_f64_big.h5");
    stepq_trace_write(f, &tr, "v float64, 1e300");
    h = H5Fopen(f, H5F_ACC_RDWR, H5P_DEFAULT);
    {
        H5Ldelete(h, "v", H5P_DEFAULT);
        const size_t n = (size_t)tr.T * tr.HV * tr.V;
        double* v64 = mallocCheck(sizeof(double) * n);
        for (size_t i = 0; i < n; i++) v64[i] = tr.v[i];
        v64[((size_t)4 * tr.HV + 1) * tr.V + 9] = 1e300;
        hid_t vs = H5Screate_simple(3, dfull, NULL);
        d = H5Dcreate2(h, "v", H5T_IEEE_F64LE, vs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v64);
        H5Dclose(d);
        H5Sclose(vs);
        free(v64);
    }
    H5Fclose(h);
    // a NaN in k at [3, 1, 17] and an Inf in v at [5, 0, 2]
    size_t ik = ((size_t)3 * tr.H + 1) * tr.K + 17, iv = ((size_t)5 * tr.HV + 0) * tr.V + 2;
    float keep = tr.k[ik];
    tr.k[ik] = NAN;
    path(f, dir, "nan_k.h5");
    stepq_trace_write(f, &tr, "NaN in k");
    tr.k[ik] = keep;
    float keepv = tr.v[iv];
    tr.v[iv] = INFINITY;
    path(f, dir, "inf_v.h5");
    stepq_trace_write(f, &tr, "Inf in v");
    tr.v[iv] = keepv;
    // k of step 4, head 1 twice its length
    size_t k4 = ((size_t)4 * tr.H + 1) * tr.K;
    for (int i = 0; i < tr.K; i++) tr.k[k4 + i] *= 2;
    path(f, dir, "unnorm_k.h5");
    stepq_trace_write(f, &tr, "k of step 4, head 1 not normalised");
    // the same with the eps of a model's normalisation recorded (qk_norm_eps): a norm above 1
    // is still refused; then that row's norm 0.25 (a small x under x / sqrt(|x|^2 + eps)), with
    // and without the eps recorded
    tr.qk_norm_eps = 1e-6;
    path(f, dir, "unnorm_k_eps.h5");
    stepq_trace_write(f, &tr, "k of step 4, head 1 of norm 2, qk_norm_eps 1e-6");
    for (int i = 0; i < tr.K; i++) tr.k[k4 + i] /= 8;
    path(f, dir, "small_k_eps.h5");
    stepq_trace_write(f, &tr, "k of step 4, head 1 of norm 0.25, qk_norm_eps 1e-6");
    tr.qk_norm_eps = 0;
    path(f, dir, "small_k.h5");
    stepq_trace_write(f, &tr, "k of step 4, head 1 of norm 0.25");
    for (int i = 0; i < tr.K; i++) tr.k[k4 + i] *= 4;
    // finite inputs whose recurrence overflows float32: head 0 writes +-3e38 with beta = 1
    float* v0 = mallocCheck(sizeof(float) * tr.T * tr.HV * tr.V);
    float* b0 = mallocCheck(sizeof(float) * tr.T * tr.HV);
    memcpy(v0, tr.v, sizeof(float) * tr.T * tr.HV * tr.V);
    memcpy(b0, tr.beta, sizeof(float) * tr.T * tr.HV);
    for (long t = 3; t < 12; t++) {
        for (int j = 0; j < tr.V; j++) tr.v[((size_t)t * tr.HV) * tr.V + j] = t % 2 ? 3e38f : -3e38f;
        tr.beta[(size_t)t * tr.HV] = 1.0f;
    }
    path(f, dir, "overflow.h5");
    stepq_trace_write(f, &tr, "the reference overflows at head 0, step 3");
    memcpy(tr.v, v0, sizeof(float) * tr.T * tr.HV * tr.V);
    memcpy(tr.beta, b0, sizeof(float) * tr.T * tr.HV);
    free(v0);
    free(b0);
    // 10^10 steps declared in a few KB: chunked datasets never written (they read as zeros)
    {
        path(f, dir, "huge_T.h5");
        stepq_trace_write(f, &tr, "10^10 steps declared");
        h = H5Fopen(f, H5F_ACC_RDWR, H5P_DEFAULT);
        const char* names[] = {"q", "k", "v", "g", "beta"};
        for (int i = 0; i < 5; i++) {
            H5Ldelete(h, names[i], H5P_DEFAULT);
            const int rank = i < 3 ? 3 : 2;
            hsize_t dims[3] = {10000000000ULL, (hsize_t)(i < 2 ? tr.H : tr.HV), (hsize_t)(i == 2 ? tr.V : tr.K)};
            hsize_t chunk[3] = {64, 1, dims[2]};
            hid_t sp = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
            H5Pset_chunk(dcpl, rank, chunk);
            H5Dclose(H5Dcreate2(h, names[i], H5T_IEEE_F32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT));
            H5Pclose(dcpl);
            H5Sclose(sp);
        }
        H5Fclose(h);
    }
    // no steps at all (every dataset [0, ...])
    {
        stepq_trace e = tr;
        e.T = 0;
        e.S0 = NULL;
        path(f, dir, "no_steps.h5");
        stepq_trace_write(f, &e, "no steps");
    }
    // a scale of 0: written, then the attribute overwritten
    path(f, dir, "zero_scale.h5");
    stepq_trace_write(f, &tr, "scale 0");
    h = H5Fopen(f, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t a = H5Aopen(h, "scale", H5P_DEFAULT);
    double zero = 0;
    H5Awrite(a, H5T_NATIVE_DOUBLE, &zero);
    H5Aclose(a);
    H5Fclose(h);
    // attributes of another shape or size (each crashed the reader once): kind as an array of
    // four fixed strings of 300 bytes, as an array of three variable-length strings, scale as
    // an array of four doubles
    {
        static const struct { const char* file; const char* attr; int kind; } bad_attrs[] = {
            {"kind_fixed_array.h5", "kind", 0}, {"kind_vlen_array.h5", "kind", 1}, {"scale_array.h5", "scale", 2}};
        for (int i = 0; i < 3; i++) {
            path(f, dir, bad_attrs[i].file);
            stepq_trace_write(f, &tr, "an attribute of another shape");
            h = H5Fopen(f, H5F_ACC_RDWR, H5P_DEFAULT);
            H5Adelete(h, bad_attrs[i].attr);
            hsize_t n = bad_attrs[i].kind == 1 ? 3 : 4;
            hid_t sp = H5Screate_simple(1, &n, NULL), t;
            char fixed[4][300];
            const char* vl[3] = {"gdn", "kda", "gdn"};
            double sc[4] = {0.1, 0.2, 0.3, 0.4};
            memset(fixed, 'k', sizeof fixed);
            if (bad_attrs[i].kind == 0) t = H5Tcopy(H5T_C_S1), H5Tset_size(t, 300);
            else if (bad_attrs[i].kind == 1) t = H5Tcopy(H5T_C_S1), H5Tset_size(t, H5T_VARIABLE);
            else t = H5Tcopy(H5T_NATIVE_DOUBLE);
            a = H5Acreate2(h, bad_attrs[i].attr, t, sp, H5P_DEFAULT, H5P_DEFAULT);
            H5Awrite(a, t, bad_attrs[i].kind == 0 ? (const void*)fixed : bad_attrs[i].kind == 1 ? (const void*)vl : (const void*)sc);
            H5Aclose(a);
            H5Tclose(t);
            H5Sclose(sp);
            H5Fclose(h);
        }
    }
    // value heads 40 wide (the first 40 columns of v and S0): a shape the int formats hold
    // and the dual-axis fit (groups of 32) and NVFP4 (blocks of 16) do not
    stepq_trace narrow = tr;
    narrow.V = 40;
    narrow.v = mallocCheck(sizeof(float) * tr.T * tr.HV * 40);
    for (size_t r = 0; r < (size_t)tr.T * tr.HV; r++) memcpy(narrow.v + r * 40, tr.v + r * tr.V, sizeof(float) * 40);
    if (tr.S0) {
        narrow.S0 = mallocCheck(sizeof(float) * tr.HV * tr.K * 40);
        for (size_t r = 0; r < (size_t)tr.HV * tr.K; r++)
            memcpy(narrow.S0 + r * 40, tr.S0 + r * tr.V, sizeof(float) * 40);
    }
    path(f, dir, "v40.h5");
    stepq_trace_write(f, &narrow, "value heads 40 wide");
    free(narrow.v);
    if (tr.S0) free(narrow.S0);
    stepq_trace_free(&tr);
    stepq_source_free(s);
    return 0;
}

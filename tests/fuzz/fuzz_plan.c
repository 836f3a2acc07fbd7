// fuzz_plan.c: the plan loader on arbitrary plans. A valid plan of two heads (GDN or KDA,
// tests/fuzz/data) is copied, then the fuzzer's bytes edit it through HDF5: values of any
// dataset (widths, pivot masks, allocations, lifetimes, NaN and Inf included), datasets deleted
// or recreated with another shape, root attributes overwritten (their values, and other types
// and shapes). stepq_plan_read must refuse a broken plan with a message; a plan it accepts must
// then serve a calibrated format (the fuzzer picks it and the head): a state encoded and decoded
// without a crash.
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>

#include "../../base/common.h"
#include "../../base/h5util.h"
#include "../../quant/format.h"
#include "../../quant/plan.h"
#include "../../sim/protocol.h"
#include "fuzzutil.h"

#define MAX_NAMES 64
static char names[MAX_NAMES][128];
static int n_names;

static herr_t collect(hid_t o, const char* name, const H5O_info_t* info, void* op) {
    if (info->type == H5O_TYPE_DATASET && n_names < MAX_NAMES) snprintf(names[n_names++], 128, "%s", name);
    return 0;
}

static int copy_file(const char* from, const char* to) {
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    char buf[65536];
    size_t n;
    while (a && b && (n = fread(buf, 1, sizeof buf, a)) > 0) fwrite(buf, 1, n, b);
    int ok = a && b;
    if (a) fclose(a);
    if (b) fclose(b);
    return ok;
}

// one edit of the plan file f
static void edit(hid_t f, fz_bytes* b) {
    const uint8_t op = fz_u8(b) % 4;
    const char* name = names[fz_u8(b) % n_names];
    if (op == 3) {  // a root attribute
        static const char* const attrs[] = {"H", "K", "V", "kind", "stepq_plan", "pivots", "gamma", "horizon"};
        const char* a = attrs[fz_u8(b) % 8];
        const uint8_t how = fz_u8(b);
        if (how & 0x80) fz_attr(f, a, b);  // another type or shape
        else if (!strcmp(a, "kind")) h5u_attr_str(f, a, how & 1 ? "kda" : "xyz");
        else h5u_attr_f64(f, a, fz_u8(b) < 128 ? (double)(int8_t)fz_u8(b) : fz_f64(b));
        return;
    }
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0) return;
    hid_t sp = H5Dget_space(d), t = H5Dget_type(d);
    hsize_t dims[4] = {1, 1, 1, 1};
    int rank = H5Sget_simple_extent_ndims(sp);
    H5Sget_simple_extent_dims(sp, dims, NULL);
    size_t n = 1;
    for (int r = 0; r < rank; r++) n *= dims[r];
    int is_float = H5Tget_class(t) == H5T_FLOAT;
    double* x = mallocCheck(sizeof(double) * (n + 1));
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x);
    if (op == 0) {  // a value
        size_t i = n ? fz_u32(b) % n : 0;
        x[i] = is_float && fz_u8(b) > 128 ? fz_f64(b) : (double)(int8_t)fz_u8(b);
        H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x);
    }
    hid_t ft = H5Tcopy(t);
    H5Tclose(t);
    H5Sclose(sp);
    H5Dclose(d);
    if (op >= 1) {  // deleted, or recreated with its first axis one longer or shorter
        H5Ldelete(f, name, H5P_DEFAULT);
        if (op == 2 && rank > 0) {
            dims[0] = fz_u8(b) & 1 || dims[0] == 0 ? dims[0] + 1 : dims[0] - 1;
            size_t m = 1;
            for (int r = 0; r < rank; r++) m *= dims[r];
            double* y = callocCheck(m + 1, sizeof(double));
            for (size_t i = 0; i < m && i < n; i++) y[i] = x[i];
            hid_t s2 = H5Screate_simple(rank, dims, NULL);
            hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
            H5Pset_create_intermediate_group(lcpl, 1);
            hid_t d2 = H5Dcreate2(f, name, ft, s2, lcpl, H5P_DEFAULT, H5P_DEFAULT);
            if (d2 >= 0) H5Dwrite(d2, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, y), H5Dclose(d2);
            H5Pclose(lcpl);
            H5Sclose(s2);
            free(y);
        }
    }
    H5Tclose(ft);
    free(x);
}

// one calibrated format on one head of an accepted plan, both chosen by the fuzzer's next byte:
// encode a state, decode it. (Serving every format on every head spent 80% of each execution in
// the encoders, at 32 executions a second.)
static void serve(const stepq_plan* p, uint8_t pick) {
    const stepq_format* calibrated[64];
    int n = 0;
    for (int fi = 0; fi < stepq_n_formats && n < 64; fi++)
        if (stepq_format_needs_plan(&stepq_formats[fi])) calibrated[n++] = &stepq_formats[fi];
    if (!n || p->H < 1) return;
    const stepq_format* fmt = calibrated[pick % n];
    const int h = (pick / n) % p->H;
    float* S = mallocCheck(sizeof(float) * p->K * p->V);
    float* X = mallocCheck(sizeof(float) * p->K * p->V);
    for (int i = 0; i < p->K * p->V; i++) S[i] = sinf(0.37f * (float)i);
    stepq_qstate qs;
    if (stepq_qstate_init(&qs, fmt, p, h, p->kind, p->K, p->V) == STEPQ_OK) {
        if (stepq_qstate_load(&qs, S) == STEPQ_OK) stepq_qstate_decode(&qs, X);
        stepq_qstate_free(&qs);
    }
    free(S);
    free(X);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fz_bytes b = {data, size, 0};
    h5u_quiet();
    const uint8_t which = fz_u8(&b);
    char base[512], path[256];
    snprintf(base, sizeof base, "%s/plan_%s.h5", STEPQ_FUZZ_DATA, which & 1 ? "kda" : "gdn");
    fz_tmp(path, sizeof path, "plan", "h5");
    if (!copy_file(base, path)) return 0;
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0) return 0;
    n_names = 0;
    H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_NATIVE, collect, NULL, H5O_INFO_BASIC);
    for (int k = 0, ops = 1 + (which >> 1) % 8; k < ops && n_names; k++) edit(f, &b);
    H5Fclose(f);
    stepq_plan p;
    if (stepq_plan_read(&p, path) == STEPQ_OK) {
        serve(&p, fz_u8(&b));
        stepq_plan_free(&p);
    }
    remove(path);
    return 0;
}

#include "h5util.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "outfile.h"
#include "ranks.h"

// A file whose close failed (a write error: disk full, a size limit) stays in HDF5's table of
// open objects, and the library's own exit handler then crashes closing it again (HDF5 1.10,
// H5F__close_cb). So stepq shuts the library down itself, and only when no close failed.
static int close_failed;

static void close_library(void) {
    if (!close_failed) H5close();
}

void h5u_quiet(void) {
    static int once;
    if (!once) {
        once = 1;
        H5dont_atexit();  // before any other HDF5 call initialises the library
        atexit(close_library);
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static int attr_write(hid_t loc, const char* name, hid_t type, const void* value) {
    hid_t sp = H5Screate(H5S_SCALAR);
    if (H5Aexists(loc, name) > 0) H5Adelete(loc, name);
    hid_t a = H5Acreate2(loc, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    herr_t st = a < 0 ? -1 : H5Awrite(a, type, value);
    if (a >= 0) H5Aclose(a);
    H5Sclose(sp);
    if (st < 0) stepq_error("HDF5: cannot write attribute '%s'", name);
    return st < 0 ? STEPQ_ERR : STEPQ_OK;
}

int h5u_attr_str(hid_t loc, const char* name, const char* value) {
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    int rc = attr_write(loc, name, t, &value);
    H5Tclose(t);
    return rc;
}
int h5u_attr_f64(hid_t loc, const char* name, double v) {
    return attr_write(loc, name, H5T_NATIVE_DOUBLE, &v);
}
int h5u_attr_i64(hid_t loc, const char* name, long long v) {
    return attr_write(loc, name, H5T_NATIVE_LLONG, &v);
}

static int write_impl(hid_t loc, const char* name, hid_t memtype, const void* data, int rank,
                      const hsize_t* dims, const char* units, const char* description, int ck) {
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    size_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    if (ck && n > 0) {
        H5Pset_chunk(dcpl, rank, dims);
        H5Pset_fletcher32(dcpl);
    }
    hid_t d = H5Dcreate2(loc, name, memtype, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    errno = 0;  // what the system said, if a write fails (HDF5 keeps it)
    herr_t st = d < 0 ? -1 : H5Dwrite(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    const int e = errno;
    int rc = st < 0 ? STEPQ_ERR : STEPQ_OK;
    if (rc == STEPQ_OK && units) rc = h5u_attr_str(d, "units", units);
    if (rc == STEPQ_OK && description) rc = h5u_attr_str(d, "description", description);
    if (d >= 0) H5Dclose(d);
    H5Sclose(sp);
    if (st < 0) stepq_error("HDF5: cannot write dataset '%s'%s%s", name, e ? ": " : "", e ? strerror(e) : "");
    return rc;
}

static hid_t create_chunked(hid_t loc, const char* name, hid_t type, int rank, const hsize_t* dims,
                            const hsize_t* chunk, const char* units, const char* description, int grow);

hid_t h5u_create_chunked(hid_t loc, const char* name, hid_t type, int rank, const hsize_t* dims,
                         const hsize_t* chunk, const char* units, const char* description) {
    return create_chunked(loc, name, type, rank, dims, chunk, units, description, 0);
}

hid_t h5u_create_growing(hid_t loc, const char* name, hid_t type, int rank, const hsize_t* dims,
                         const hsize_t* chunk, const char* units, const char* description) {
    return create_chunked(loc, name, type, rank, dims, chunk, units, description, 1);
}

static hid_t create_chunked(hid_t loc, const char* name, hid_t type, int rank, const hsize_t* dims,
                            const hsize_t* chunk, const char* units, const char* description, int grow) {
    hsize_t max[4] = {0, 0, 0, 0};
    for (int i = 0; i < rank; i++) max[i] = i == 0 && grow ? H5S_UNLIMITED : dims[i];
    hid_t sp = H5Screate_simple(rank, dims, max);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t ck[4];
    for (int i = 0; i < rank; i++)
        ck[i] = chunk[i] < 1 ? 1 : chunk[i] > dims[i] && dims[i] > 0 && !(grow && i == 0) ? dims[i] : chunk[i];
    H5Pset_chunk(dcpl, rank, ck);
    hid_t d = H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(sp);
    if (d >= 0 && ((units && h5u_attr_str(d, "units", units)) ||
                   (description && h5u_attr_str(d, "description", description)))) {
        H5Dclose(d);
        d = -1;
    }
    if (d < 0) stepq_error("HDF5: cannot create dataset '%s'", name);
    return d;
}

int h5u_slab(hid_t d, int write, hid_t memtype, void* data, int rank, const hsize_t* start,
             const hsize_t* count) {
    // HDF5 keeps its printing of errors per thread (thread-safe builds): an OpenMP thread that
    // reads or writes a slab silences it for itself, or a failed write prints HDF5's stack
    static _Thread_local int quiet;
    if (!quiet) {
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        quiet = 1;
    }
    errno = 0;  // a failed write leaves the system's reason here (HDF5's sec2 driver keeps it)
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(rank, count, NULL);
    herr_t st = H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    if (st >= 0)
        st = write ? H5Dwrite(d, memtype, ms, fs, H5P_DEFAULT, data) : H5Dread(d, memtype, ms, fs, H5P_DEFAULT, data);
    H5Sclose(ms);
    H5Sclose(fs);
    return st < 0 ? STEPQ_ERR : STEPQ_OK;
}

const char* h5u_reason(int e) { return e ? strerror(e) : "HDF5 refused the write"; }

int h5u_write(hid_t loc, const char* name, hid_t memtype, const void* data, int rank,
              const hsize_t* dims, const char* units, const char* description) {
    return write_impl(loc, name, memtype, data, rank, dims, units, description, 0);
}

int h5u_write_ck(hid_t loc, const char* name, hid_t memtype, const void* data, int rank,
                 const hsize_t* dims, const char* units, const char* description) {
    return write_impl(loc, name, memtype, data, rank, dims, units, description, 1);
}

// Datasets are read only where their data is stored in the file itself: an external link, a
// virtual dataset or external storage would read another file's bytes (a missing one as zeros)
// while the checksum recorded of the input is of this file. link_here: the link name of file;
// stored_here: the open dataset d, also refused when it is compressed with a filter this HDF5
// library cannot decode (h5py's lzf: every read would fail without a reason). STEPQ_ERR with a
// message naming the dataset.
static int link_here(hid_t file, const char* fname, const char* name) {
    H5L_info_t li;
    if (H5Lget_info(file, name, &li, H5P_DEFAULT) < 0 || li.type == H5L_TYPE_HARD || li.type == H5L_TYPE_SOFT)
        return STEPQ_OK;
    stepq_error("%s: '%s' is a link to another file; stepq reads only data stored in %s itself (the "
                "checksum it records of an input is of that file alone)", fname, name, fname);
    return STEPQ_ERR;
}
static int stored_here(hid_t d, const char* fname, const char* name) {
    hid_t pl = H5Dget_create_plist(d);
    const int virt = H5Pget_layout(pl) == H5D_VIRTUAL, ext = H5Pget_external_count(pl) > 0;
    for (int i = 0, n = H5Pget_nfilters(pl); !virt && i < n; i++) {
        unsigned flags, cd[8];
        size_t ncd = 8;
        char fn[64] = "";
        const H5Z_filter_t id = H5Pget_filter2(pl, (unsigned)i, &flags, &ncd, cd, sizeof fn, fn, NULL);
        if (id >= 0 && H5Zfilter_avail(id) > 0) continue;
        stepq_error("%s: dataset '%s' is compressed with HDF5 filter %d%s%s%s, which this HDF5 library cannot "
                    "decode (write it with gzip, h5py's compression=\"gzip\", or uncompressed)", fname, name,
                    (int)id, *fn ? " (" : "", fn, *fn ? ")" : "");
        H5Pclose(pl);
        return STEPQ_ERR;
    }
    H5Pclose(pl);
    if (!virt && !ext) return STEPQ_OK;
    stepq_error("%s: dataset '%s' is %s; stepq reads only data stored in %s itself (the checksum it "
                "records of an input is of that file alone)", fname, name,
                virt ? "a virtual dataset, whose data lives in other files" : "kept in external files", fname);
    return STEPQ_ERR;
}

int h5u_read_exact(void* data, hid_t memtype, hid_t file, const char* fname, const char* name,
                   int rank, const hsize_t* dims) {
    if (H5Lexists(file, name, H5P_DEFAULT) <= 0) {
        stepq_error("%s: missing dataset '%s'", fname, name);
        return STEPQ_ERR;
    }
    if (link_here(file, fname, name) != STEPQ_OK) return STEPQ_ERR;
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    if (d >= 0 && stored_here(d, fname, name) != STEPQ_OK) {
        H5Dclose(d);
        return STEPQ_ERR;
    }
    hid_t sp = d < 0 ? -1 : H5Dget_space(d), ft = d < 0 ? -1 : H5Dget_type(d);
    hsize_t got[4] = {0, 0, 0, 0};
    int r = sp < 0 ? -1 : H5Sget_simple_extent_ndims(sp);
    int rc = STEPQ_OK;
    // integers (labels, widths) are read from integers only: HDF5 would truncate 1.5 to 1
    const int want_int = H5Tget_class(memtype) == H5T_INTEGER, has_int = ft >= 0 && H5Tget_class(ft) == H5T_INTEGER;
    if (ft >= 0) H5Tclose(ft);
    if (r == rank && rank <= 4) H5Sget_simple_extent_dims(sp, got, NULL);
    if (d >= 0 && want_int && !has_int) {
        stepq_error("%s: dataset '%s' does not hold integers; stepq reads it as integers, which a conversion "
                    "would truncate", fname, name);
        rc = STEPQ_ERR;
    } else if (r != rank || memcmp(got, dims, sizeof(hsize_t) * (size_t)rank) != 0) {
        stepq_error("%s: dataset '%s' does not have the shape this plan's header promises "
                    "(rank %d, first dimension %llu)", fname, name, r, (unsigned long long)got[0]);
        rc = STEPQ_ERR;
    } else if (H5Dread(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
        stepq_error("%s: dataset '%s' cannot be read (corrupted: its checksum or type fails)", fname,
                    name);
        rc = STEPQ_ERR;
    }
    if (sp >= 0) H5Sclose(sp);
    if (d >= 0) H5Dclose(d);
    return rc;
}

int h5u_write_strings(hid_t loc, const char* name, const char* const* strs, int n,
                      const char* description) {
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    hsize_t dims[1] = {(hsize_t)n};
    int rc = h5u_write(loc, name, t, strs, 1, dims, NULL, description);
    H5Tclose(t);
    return rc;
}

// *out <- dataset name opened with dapl, after the checks every read makes: it exists, is a link
// of this file and is stored in it. Absent: an error where required, else *out = -1 and STEPQ_OK
static int open_checked(hid_t* out, hid_t file, const char* fname, const char* name, int required, hid_t dapl) {
    *out = -1;
    if (H5Lexists(file, name, H5P_DEFAULT) <= 0) {
        if (!required) return STEPQ_OK;
        stepq_error("%s: missing dataset '%s'", fname, name);
        return STEPQ_ERR;
    }
    if (link_here(file, fname, name) != STEPQ_OK) return STEPQ_ERR;
    hid_t d = H5Dopen2(file, name, dapl);
    if (d < 0) {
        stepq_error("%s: '%s' is not a dataset", fname, name);
        return STEPQ_ERR;
    }
    if (stored_here(d, fname, name) != STEPQ_OK) {
        H5Dclose(d);
        return STEPQ_ERR;
    }
    *out = d;
    return STEPQ_OK;
}

// dims <- the shape of dataset d where it has the expected rank (<= 4); else a message
static int shape_of(hsize_t* dims, hid_t d, const char* fname, const char* name, int rank) {
    hid_t sp = H5Dget_space(d);
    const int r = H5Sget_simple_extent_ndims(sp);
    int rc = STEPQ_OK;
    if (r != rank || rank > 4) {
        stepq_error("%s: dataset '%s' has rank %d, expected %d", fname, name, r, rank);
        rc = STEPQ_ERR;
    } else {
        H5Sget_simple_extent_dims(sp, dims, NULL);
    }
    H5Sclose(sp);
    return rc;
}

int h5u_open_f32(hid_t* out, hsize_t* dims, hid_t file, const char* fname, const char* name,
                 int rank, int required, hid_t dapl) {
    hid_t d;
    if (open_checked(&d, file, fname, name, required, dapl) != STEPQ_OK) return STEPQ_ERR;
    *out = -1;
    if (d < 0) return STEPQ_OK;
    hid_t t = H5Dget_type(d);
    int rc = STEPQ_OK;
    if (H5Tget_class(t) != H5T_FLOAT) {
        stepq_error("%s: dataset '%s' is not floating point", fname, name);
        rc = STEPQ_ERR;
    } else {
        rc = shape_of(dims, d, fname, name, rank);
    }
    H5Tclose(t);
    if (rc == STEPQ_OK) *out = d;
    else H5Dclose(d);
    return rc;
}

int h5u_dims(hsize_t* dims, hid_t file, const char* fname, const char* name, int rank) {
    hid_t d;
    if (open_checked(&d, file, fname, name, 1, H5P_DEFAULT) != STEPQ_OK) return STEPQ_ERR;
    const int rc = shape_of(dims, d, fname, name, rank);
    H5Dclose(d);
    return rc;
}

int h5u_read_f32(float** data, hsize_t* dims, hid_t file, const char* fname, const char* name,
                 int rank, int required) {
    *data = NULL;
    hid_t d;
    if (h5u_open_f32(&d, dims, file, fname, name, rank, required, H5P_DEFAULT) != STEPQ_OK) return STEPQ_ERR;
    if (d < 0) return STEPQ_OK;
    int rc = STEPQ_OK;
    double n = 1;
    for (int i = 0; i < rank; i++) n *= (double)dims[i];
    char what[512];
    snprintf(what, sizeof what, "%s: dataset '%s'", fname, name);
    if (stepq_check_memory(n * sizeof(float), what)) {
        rc = STEPQ_ERR;
    } else {
        *data = mallocCheck((size_t)n * sizeof(float));
        if (H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, *data) < 0) {
            stepq_error("%s: cannot read dataset '%s'", fname, name);
            free(*data);
            *data = NULL;
            rc = STEPQ_ERR;
        }
    }
    H5Dclose(d);
    return rc;
}

int h5u_read_strings(char*** out, int* n, hid_t file, const char* fname, const char* name) {
    *out = NULL;
    *n = 0;
    hid_t d;
    hsize_t dims[1] = {0};
    if (open_checked(&d, file, fname, name, 1, H5P_DEFAULT) != STEPQ_OK) return STEPQ_ERR;
    hid_t t = H5Dget_type(d);
    int rc = STEPQ_OK;
    if (H5Tget_class(t) != H5T_STRING || H5Tis_variable_str(t) <= 0) {
        stepq_error("%s: dataset '%s' is not a list of strings", fname, name);
        rc = STEPQ_ERR;
    } else {
        rc = shape_of(dims, d, fname, name, 1);
    }
    char** raw = callocCheck((size_t)dims[0] + 1, sizeof(char*));
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, H5T_VARIABLE);
    H5Tset_cset(mt, H5Tget_cset(t));  // HDF5 converts no string between ASCII and UTF-8
    if (!rc && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw) < 0) {
        stepq_error("%s: cannot read dataset '%s'", fname, name);
        rc = STEPQ_ERR;
    }
    if (!rc) {
        *out = callocCheck((size_t)dims[0] + 1, sizeof(char*));
        for (hsize_t i = 0; i < dims[0]; i++) (*out)[i] = strdup(raw[i] ? raw[i] : "");
        *n = (int)dims[0];
        hid_t sp = H5Dget_space(d);
        H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, raw);
        H5Sclose(sp);
    }
    free(raw);
    H5Tclose(mt);
    H5Tclose(t);
    H5Dclose(d);
    return rc;
}

void h5u_free_strings(char** s, int n) {
    for (int i = 0; s && i < n; i++) free(s[i]);
    free(s);
}

// STEPQ_OK when attribute a holds one value (a scalar dataspace, or a simple one of one
// element); else STEPQ_ERR with a message naming the attribute and its shape
static int one_value(hid_t a, const char* fname, const char* name) {
    hid_t sp = H5Aget_space(a);
    const H5S_class_t c = H5Sget_simple_extent_type(sp);
    const hssize_t n = H5Sget_simple_extent_npoints(sp);
    const int rank = H5Sget_simple_extent_ndims(sp);
    H5Sclose(sp);
    if (c == H5S_SCALAR || (c == H5S_SIMPLE && n == 1)) return STEPQ_OK;
    if (c == H5S_NULL) stepq_error("%s: attribute '%s' is empty (a null dataspace); stepq reads one value", fname, name);
    else stepq_error("%s: attribute '%s' holds %lld values (rank %d); stepq reads one", fname, name, (long long)n, rank);
    return STEPQ_ERR;
}

// the longest string attribute stepq reads (a kind, a config text, a checksum list)
#define ATTR_STR_MAX ((size_t)1 << 24)

int h5u_read_attr_str(char** out, hid_t file, const char* fname, const char* name,
                      int required) {
    *out = NULL;
    if (H5Aexists(file, name) <= 0) {
        if (required) stepq_error("%s: missing attribute '%s'", fname, name);
        return required ? STEPQ_ERR : STEPQ_OK;
    }
    hid_t a = H5Aopen(file, name, H5P_DEFAULT);
    hid_t t = H5Aget_type(a);
    int rc = STEPQ_OK, said = 0;
    if (H5Tget_class(t) != H5T_STRING) {
        stepq_error("%s: attribute '%s' is not a string", fname, name);
        rc = STEPQ_ERR, said = 1;
    } else if (one_value(a, fname, name) != STEPQ_OK) {
        rc = STEPQ_ERR, said = 1;
    } else if (H5Tis_variable_str(t) <= 0 && H5Tget_size(t) > ATTR_STR_MAX) {
        stepq_error("%s: attribute '%s' is a string of %zu bytes; stepq reads at most %zu", fname, name,
                    H5Tget_size(t), ATTR_STR_MAX);
        rc = STEPQ_ERR, said = 1;
    } else if (H5Tis_variable_str(t) > 0) {
        char* s = NULL;
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        H5Tset_cset(mt, H5Tget_cset(t));
        if (H5Aread(a, mt, &s) < 0 || !s) rc = STEPQ_ERR;
        else {
            *out = strdup(s);
            H5free_memory(s);
        }
        H5Tclose(mt);
    } else {
        size_t n = H5Tget_size(t);
        *out = callocCheck(n + 1, 1);
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, n + 1);
        if (H5Aread(a, mt, *out) < 0) rc = STEPQ_ERR;
        H5Tclose(mt);
    }
    if (rc != STEPQ_OK && !said) stepq_error("%s: cannot read attribute '%s'", fname, name);
    if (rc != STEPQ_OK) {
        free(*out);
        *out = NULL;
    }
    H5Tclose(t);
    H5Aclose(a);
    return rc;
}

int h5u_read_attr_f64(double* out, hid_t file, const char* fname, const char* name) {
    if (H5Aexists(file, name) <= 0) return 0;
    hid_t a = H5Aopen(file, name, H5P_DEFAULT);
    hid_t t = H5Aget_type(a);
    H5T_class_t c = H5Tget_class(t);
    int rc = 1;
    if (c != H5T_FLOAT && c != H5T_INTEGER) {
        stepq_error("%s: attribute '%s' is not a number", fname, name);
        rc = STEPQ_ERR;
    } else if (one_value(a, fname, name) != STEPQ_OK) {
        rc = STEPQ_ERR;
    } else if (H5Aread(a, H5T_NATIVE_DOUBLE, out) < 0) {
        stepq_error("%s: attribute '%s' cannot be read as a number", fname, name);
        rc = STEPQ_ERR;
    }
    H5Tclose(t);
    H5Aclose(a);
    return rc;
}

hid_t h5u_open_read(const char* path, const char* what, const char* hint) {
    h5u_quiet();
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {  // a FIFO would block the open forever
        stepq_error("%s: cannot read %s: it is %s, not a regular file%s", path, what,
                    S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                    : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "a special file", hint);
        return -1;
    }
    FILE* probe = fopen(path, "rb");
    if (!probe) {  // the system's reason where it is not the file's (the open-file limit, memory)
        const int e = errno;
        if (e == ENOENT || e == EACCES || e == ENOTDIR || e == ELOOP || e == ENAMETOOLONG)
            stepq_error("%s: cannot open %s (missing or unreadable: %s%s)", path, what, strerror(e), hint);
        else
            stepq_error("%s: cannot open %s: %s%s", path, what, strerror(e), hint);
        return -1;
    }
    fclose(probe);
    stepq_note_input(path);
    errno = 0;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        const int e = errno;
        if (e == EMFILE || e == ENFILE || e == ENOMEM)
            stepq_error("%s: cannot open %s: %s", path, what, strerror(e));
        else
            stepq_error("%s: not an HDF5 file (a truncated or corrupted %s?)", path, what);
        return -1;
    }
    // stepq's own files given where another is read: a plan as a trace, a trace or a result as
    // a plan (each would fail on its first missing piece, naming that instead)
    const int is_plan = H5Aexists(f, "stepq_plan") > 0;
    const int is_trace = !is_plan && H5Lexists(f, "q", H5P_DEFAULT) > 0 && H5Lexists(f, "v", H5P_DEFAULT) > 0;
    const int is_result = !is_plan && !is_trace && H5Aexists(f, "experiment") > 0;
    const char* is = is_plan ? "a stepq plan" : is_trace ? "a trace" : is_result ? "a stepq result" : NULL;
    if (is && ((!strcmp(what, "plan") && !is_plan) || (!strcmp(what, "trace") && !is_trace))) {
        stepq_error("%s is %s, not a %s%s", path, is, what, hint);
        H5Fclose(f);
        return -1;
    }
    return f;
}

// ---------------------------------------------------------------------------------------------
// atomic output (base/outfile.h): nothing half-written is ever left at the destination

hid_t h5u_create(const char* path) {
    h5u_quiet();
    char* t;
    if (stepq_output_begin(&t, path)) return -1;
    errno = 0;
    hid_t fapl = H5P_DEFAULT;
    if (stepq_rank() != 0) {  // an MPI run's other ranks: the file lives in memory and is dropped
        fapl = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_fapl_core(fapl, 1 << 20, 0);
    }
    hid_t f = H5Fcreate(t, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (fapl != H5P_DEFAULT) H5Pclose(fapl);
    if (f < 0) {
        const int e = errno;
        stepq_error("cannot create %s: %s", t, e ? strerror(e) : "HDF5 refused it");
        stepq_output_end(t, path, 0);
        return -1;
    }
    free(t);
    return f;
}

// An abandoned file's descriptor pointed at /dev/null: what its close still writes (the caches,
// which a full disk or a file-size limit refuses) goes nowhere, so that the close succeeds.
// HDF5 cannot drop dirty caches: a close that fails to flush them loses the file's memory
// (megabytes of chunk cache) and descriptor, once per failed trace in a process that goes on.
static void discard_writes(hid_t file) {
    hid_t fapl = H5Fget_access_plist(file);
    if (fapl < 0) return;
    void* handle = NULL;
    if (H5Pget_driver(fapl) == H5FD_SEC2 && H5Fget_vfd_handle(file, fapl, &handle) >= 0 && handle) {
        const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0) {
            dup2(null, *(int*)handle);
            close(null);
        }
    }
    H5Pclose(fapl);
}

int h5u_commit(hid_t file, const char* path) {
    char* t = stepq_output_pending(path);
    stepq_assert(t);
    errno = 0;  // what the system said when the last blocks were flushed (HDF5 keeps it)
    // flushed before the close: a flush that fails (a full disk, a size limit) leaves the file
    // open, to be closed with its writes going nowhere; a close that failed would keep the file,
    // its caches and buffers, in HDF5's table for the rest of the process (found by
    // fuzz_tracewrite: a commit that crossed the size limit). After a failed flush HDF5 1.10.8
    // refuses every flush, the close's too ("slist already enabled?"), until one more flush has
    // failed on that: hence the second flush, into /dev/null, before the close.
    int ok = H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0;
    int e = errno;
    if (!ok) {
        discard_writes(file);
        H5Fflush(file, H5F_SCOPE_GLOBAL);
    }
    errno = 0;
    if (H5Fclose(file) < 0) {
        close_failed = 1;
        if (ok) e = errno, ok = 0;
    }
    if (!ok) {
        if (e) stepq_error("cannot write %s: %s; nothing was left there", path, strerror(e));
        else stepq_error("cannot write %s (disk full or file too large?); nothing was left there", path);
    }
    return stepq_output_end(t, path, ok) || !ok ? STEPQ_ERR : STEPQ_OK;
}

void h5u_abandon(hid_t file, const char* path) {
    if (file >= 0) discard_writes(file);
    if (file >= 0 && H5Fclose(file) < 0) close_failed = 1;
    char* t = stepq_output_pending(path);
    if (t) stepq_output_end(t, path, 0);
}

hid_t h5u_create_with_text(const char* path, FILE** tsv, const char* tsv_path) {
    hid_t f = h5u_create(path);
    *tsv = tsv_path && f >= 0 ? stepq_text_create(tsv_path) : NULL;
    if (f >= 0 && tsv_path && !*tsv) {
        h5u_abandon(f, path);
        return -1;
    }
    return f;
}

int h5u_finish_with_text(hid_t file, const char* path, FILE* tsv, const char* tsv_path, int rc) {
    if (tsv && rc) stepq_text_abandon(tsv, tsv_path);
    else if (tsv && stepq_text_commit(tsv, tsv_path)) rc = STEPQ_ERR;
    if (rc) {
        h5u_abandon(file, path);
        return STEPQ_ERR;
    }
    return h5u_commit(file, path);
}

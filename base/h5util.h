// h5util.h: small helpers over the HDF5 C API, so every file stepq writes has the same
// self-describing shape (each dataset carries "units" and "description" attributes) and every
// read names the file and dataset when it fails. Ground floor (base/): used by quant (plans),
// sim (traces) and analysis (results).
#ifndef STEPQ_H5UTIL_H
#define STEPQ_H5UTIL_H

#include <hdf5.h>
#include <stdio.h>

// Silence HDF5's own error stack printing (stepq reports errors itself); the first call also
// takes over the library's shutdown at exit (h5util.c: a failed close must not crash it), so
// call it before any other HDF5 function.
void h5u_quiet(void);

// Writes a dataset (rank <= 4) of the given memory type, stored as the same type, with
// "units" and "description" attributes (skipped when NULL). STEPQ_OK / STEPQ_ERR.
int h5u_write(hid_t loc, const char* name, hid_t memtype, const void* data, int rank,
              const hsize_t* dims, const char* units, const char* description);
// The same with a Fletcher-32 checksum on the data (one chunk), so that corrupted bytes are
// caught when the dataset is read back (plans use it).
int h5u_write_ck(hid_t loc, const char* name, hid_t memtype, const void* data, int rank,
                 const hsize_t* dims, const char* units, const char* description);
// Reads a dataset of any numeric type into memtype, with the exact dims expected (rank <= 4);
// STEPQ_ERR naming file and dataset if missing, of another shape, or failing its checksum.
int h5u_read_exact(void* data, hid_t memtype, hid_t file, const char* file_name, const char* name,
                   int rank, const hsize_t* dims);
int h5u_write_strings(hid_t loc, const char* name, const char* const* strs, int n,
                      const char* description);
int h5u_attr_str(hid_t loc, const char* name, const char* value);
int h5u_attr_f64(hid_t loc, const char* name, double value);
int h5u_attr_i64(hid_t loc, const char* name, long long value);

// Reads a float dataset (converted to float32) of the expected rank. Returns STEPQ_ERR with a
// message naming file and dataset if it is missing (and required), has another rank, or is not
// a floating-point type. *data is NULL and the return STEPQ_OK if optional and absent.
int h5u_read_f32(float** data, hsize_t* dims, hid_t file, const char* file_name,
                 const char* name, int rank, int required);
// dims <- the shape of dataset name, of the expected rank (<= 4); STEPQ_ERR naming file and
// dataset where it is missing or of another rank (then read it with h5u_read_exact)
int h5u_dims(hsize_t* dims, hid_t file, const char* file_name, const char* name, int rank);
// *out (*n) <- a 1-D dataset of variable-length strings (as h5u_write_strings writes them), each
// a copy; STEPQ_ERR naming file and dataset where it is missing or not that. Freed by h5u_free_strings
int h5u_read_strings(char*** out, int* n, hid_t file, const char* file_name, const char* name);
void h5u_free_strings(char** s, int n);
// Opens a float dataset of the expected rank (<= 4) with the access properties dapl (a chunk
// cache; H5P_DEFAULT): *d the dataset (H5Dclose it), dims its shape. STEPQ_ERR with the message
// of h5u_read_f32; STEPQ_OK and *d = -1 when optional and absent.
int h5u_open_f32(hid_t* d, hsize_t* dims, hid_t file, const char* file_name, const char* name,
                 int rank, int required, hid_t dapl);
// Creates a chunked dataset of type (chunk: per dimension, clipped to dims) with "units" and
// "description" attributes (skipped when NULL), to be written a hyperslab at a time; -1 with a
// message on failure.
hid_t h5u_create_chunked(hid_t loc, const char* name, hid_t type, int rank, const hsize_t* dims,
                         const hsize_t* chunk, const char* units, const char* description);
// the same with its first dimension growing without bound from dims[0] (H5Dset_extent): a trace
// written as it comes, whose length is not known up front
hid_t h5u_create_growing(hid_t loc, const char* name, hid_t type, int rank, const hsize_t* dims,
                         const hsize_t* chunk, const char* units, const char* description);
// The hyperslab [start, start + count) of dataset d written from (write) or read into data
// (contiguous, memtype, count's shape). STEPQ_ERR (no message) when HDF5 fails.
int h5u_slab(hid_t d, int write, hid_t memtype, void* data, int rank, const hsize_t* start,
             const hsize_t* count);
// the reason a write failed, from the errno saved right after it: strerror, or HDF5's own refusal
const char* h5u_reason(int e);
// Reads a string attribute of the root; *out malloc'd. STEPQ_ERR if absent and required.
int h5u_read_attr_str(char** out, hid_t file, const char* file_name, const char* name,
                      int required);
// Reads a numeric attribute as double; returns 1 if present, 0 if absent, STEPQ_ERR on a bad type.
int h5u_read_attr_f64(double* out, hid_t file, const char* file_name, const char* name);

// Opens an existing file for reading; -1 with a message naming it (what: "trace", "plan") when
// it is missing, unreadable, or not HDF5 (hint: appended to that message, may be "").
hid_t h5u_open_read(const char* path, const char* what, const char* hint);

// Writes a file at path atomically (base/outfile.h): creates "<path>.tmp"; h5u_commit renames
// it into place, h5u_abandon removes it; an exit() from a check macro, a Ctrl-C or a kill never
// leaves a partial file, and an output that would replace an input of the run (every file
// h5u_open_read opened is one), or is a directory, is refused.
hid_t h5u_create(const char* path);
int h5u_commit(hid_t file, const char* path);
void h5u_abandon(hid_t file, const char* path);
// Opens an HDF5 output and, when tsv_path is not NULL, the text table beside it (*tsv, a stream
// of stepq_text_create; NULL without a table). On a failure neither is left behind and the
// result is negative.
hid_t h5u_create_with_text(const char* path, FILE** tsv, const char* tsv_path);
// Ends an HDF5 output and the text table written beside it (tsv may be NULL, a stream of
// stepq_text_create): both committed when rc is STEPQ_OK (a commit that fails makes it an
// error), both abandoned otherwise. Returns the outcome.
int h5u_finish_with_text(hid_t file, const char* path, FILE* tsv, const char* tsv_path, int rc);

#endif

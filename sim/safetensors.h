// safetensors.h: reading (and, for tests and tools, writing) the safetensors format of model
// checkpoints: an 8-byte little-endian header length N, N bytes of JSON naming every tensor
// ({"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__":
// {...}}), then the data, offsets relative to its start. The file is mapped read-only; every
// tensor is checked when the file is opened (a dtype stepq reads: F32, BF16, F16; offsets
// inside the file; size = product of the shape x the dtype's size; no two tensors overlapping),
// and every problem is reported naming the file and the tensor.
#ifndef STEPQ_SAFETENSORS_H
#define STEPQ_SAFETENSORS_H

#include <stddef.h>

enum { STEPQ_ST_F32, STEPQ_ST_BF16, STEPQ_ST_F16 };
#define STEPQ_ST_MAX_RANK 8

typedef struct {
    char* name;
    int dtype;  // STEPQ_ST_*
    int rank;
    long long shape[STEPQ_ST_MAX_RANK];
    size_t begin, end;  // byte offsets in the data section
} stepq_st_tensor;

typedef struct {
    char* path;
    unsigned char* map;
    size_t size;   // bytes of the file
    size_t data;   // where the data section starts (8 + N)
    stepq_st_tensor* t;
    int n;
} stepq_st_file;

// STEPQ_ERR (message naming the file, and the tensor when one is at fault) for a missing or
// unreadable file, a truncated one, a header that is not a JSON object of tensors, an
// unsupported dtype, offsets outside the file, a size that disagrees with the shape, or
// overlapping tensors.
int stepq_st_open(stepq_st_file* f, const char* path);
void stepq_st_close(stepq_st_file* f);
// the tensor of that name, or NULL
const stepq_st_tensor* stepq_st_find(const stepq_st_file* f, const char* name);
// out (float32, the product of shape) <- the tensor, converted from its dtype; STEPQ_ERR naming
// the tensor when it is missing or its shape is not `shape` (rank dims; `why` says where the
// expected shape comes from, e.g. "config.json").
int stepq_st_read(const stepq_st_file* f, const char* name, float* out, int rank, const long long* shape,
                  const char* why);
// Writes n float32 tensors (tools and tests), atomically (base/outfile.h).
int stepq_st_write(const char* path, int n, const char* const* names, const float* const* data,
                   const int* ranks, const long long* const* shapes);

#endif

// safetensors.c: see safetensors.h. JSON through cJSON (libcjson-dev).
#include "safetensors.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/common.h"
#include "../base/outfile.h"
#include "../quant/numerics.h"

#define MAX_HEADER ((size_t)100 << 20)  // a header larger than 100 MB is not a checkpoint's

static const struct { const char* name; int dtype, size; } dtypes[] = {
    {"F32", STEPQ_ST_F32, 4}, {"BF16", STEPQ_ST_BF16, 2}, {"F16", STEPQ_ST_F16, 2}};

static int dtype_size(int d) { return d == STEPQ_ST_F32 ? 4 : 2; }

static void fmt_shape(char* buf, size_t n, int rank, const long long* shape) {
    size_t o = (size_t)snprintf(buf, n, "[");
    for (int r = 0; r < rank && o < n; r++) o += (size_t)snprintf(buf + o, n - o, r ? ", %lld" : "%lld", shape[r]);
    if (o < n) snprintf(buf + o, n - o, "]");
}

// 1 if v is a whole number in [0, max] (compared before any conversion to an integer type)
static int whole_in(double v, double max) { return v >= 0 && v <= max && v == floor(v); }

// one entry of the header; STEPQ_ERR with a message naming it
static int parse_tensor(stepq_st_tensor* t, const cJSON* e, const char* path, size_t data_bytes) {
    const char* name = e->string;
    const cJSON* dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
    const cJSON* sh = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON* off = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
    if (!cJSON_IsObject(e) || !cJSON_IsString(dt) || !cJSON_IsArray(sh) || !cJSON_IsArray(off) ||
        cJSON_GetArraySize(off) != 2) {
        stepq_error("%s: tensor '%s': the header entry needs \"dtype\", \"shape\" and \"data_offsets\" "
                    "[begin, end]", path, name);
        return STEPQ_ERR;
    }
    t->dtype = -1;
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (!strcmp(dt->valuestring, dtypes[i].name)) t->dtype = dtypes[i].dtype;
    if (t->dtype < 0) {
        stepq_error("%s: tensor '%s' has dtype %s; stepq reads F32, BF16 and F16", path, name, dt->valuestring);
        return STEPQ_ERR;
    }
    t->rank = cJSON_GetArraySize(sh);
    if (t->rank > STEPQ_ST_MAX_RANK) {
        stepq_error("%s: tensor '%s' has rank %d (at most %d)", path, name, t->rank, STEPQ_ST_MAX_RANK);
        return STEPQ_ERR;
    }
    double count = 1;
    for (int r = 0; r < t->rank; r++) {
        const cJSON* d = cJSON_GetArrayItem(sh, r);
        if (!cJSON_IsNumber(d) || !whole_in(d->valuedouble, 1e15)) {
            stepq_error("%s: tensor '%s': shape entry %d is not a non-negative integer", path, name, r);
            return STEPQ_ERR;
        }
        t->shape[r] = (long long)d->valuedouble;
        count *= d->valuedouble;
    }
    double b[2];
    for (int i = 0; i < 2; i++) {
        const cJSON* d = cJSON_GetArrayItem(off, i);
        b[i] = cJSON_IsNumber(d) ? d->valuedouble : -1;
        if (!whole_in(b[i], 0x1p53)) {
            stepq_error("%s: tensor '%s': data_offsets are not two non-negative integers", path, name);
            return STEPQ_ERR;
        }
    }
    if (b[1] < b[0] || b[1] > (double)data_bytes) {
        stepq_error("%s: tensor '%s' spans bytes [%.0f, %.0f) of the data, which holds %zu: the file is "
                    "truncated or the header is wrong", path, name, b[0], b[1], data_bytes);
        return STEPQ_ERR;
    }
    if (b[1] - b[0] != count * dtype_size(t->dtype)) {
        char s[128];
        fmt_shape(s, sizeof s, t->rank, t->shape);
        stepq_error("%s: tensor '%s' holds %.0f bytes, but %s %s needs %.0f", path, name, b[1] - b[0], dt->valuestring,
                    s, count * dtype_size(t->dtype));
        return STEPQ_ERR;
    }
    t->begin = (size_t)b[0];
    t->end = (size_t)b[1];
    t->name = strdup(name);
    return STEPQ_OK;
}

static int by_begin(const void* a, const void* b) {
    const stepq_st_tensor *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static int parse_header(stepq_st_file* f, const char* json, size_t n) {
    cJSON* root = cJSON_ParseWithLength(json, n);
    if (!cJSON_IsObject(root)) {
        stepq_error("%s: the header is not a JSON object (not a safetensors file, or corrupted)", f->path);
        cJSON_Delete(root);
        return STEPQ_ERR;
    }
    int count = 0;
    for (const cJSON* e = root->child; e; e = e->next) count += strcmp(e->string, "__metadata__") != 0;
    f->t = callocCheck((size_t)count + 1, sizeof *f->t);
    int rc = STEPQ_OK;
    for (const cJSON* e = root->child; e && !rc; e = e->next) {
        if (!strcmp(e->string, "__metadata__")) continue;
        rc = parse_tensor(&f->t[f->n], e, f->path, f->size - f->data);
        if (!rc) f->n++;
    }
    cJSON_Delete(root);
    if (rc) return STEPQ_ERR;
    // no two tensors share bytes: each non-empty one, in the order they begin, starts at or past
    // the end of every one before it (an empty tensor between two that overlap hides nothing)
    stepq_st_tensor* s = mallocCheck(sizeof *s * (size_t)(f->n + 1));
    memcpy(s, f->t, sizeof *s * (size_t)f->n);
    qsort(s, (size_t)f->n, sizeof *s, by_begin);
    int last = -1;  // the non-empty tensor that ends last so far
    for (int i = 0; i < f->n && !rc; i++) {
        if (s[i].end <= s[i].begin) continue;
        if (last >= 0 && s[i].begin < s[last].end) {
            stepq_error("%s: tensors '%s' and '%s' overlap in the data", f->path, s[last].name, s[i].name);
            rc = STEPQ_ERR;
        }
        if (last < 0 || s[i].end > s[last].end) last = i;
    }
    free(s);
    return rc;
}

int stepq_st_open(stepq_st_file* f, const char* path) {
    memset(f, 0, sizeof *f);
    f->path = strdup(path);
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        stepq_error("%s: cannot open the checkpoint: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        stepq_st_close(f);
        return STEPQ_ERR;
    }
    f->size = (size_t)st.st_size;
    if (f->size < 8) {
        stepq_error("%s: %zu bytes, too short for a safetensors header", path, f->size);
        close(fd);
        stepq_st_close(f);
        return STEPQ_ERR;
    }
    f->map = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (f->map == MAP_FAILED) {
        f->map = NULL;
        stepq_error("%s: cannot map the checkpoint: %s", path, strerror(errno));
        stepq_st_close(f);
        return STEPQ_ERR;
    }
    stepq_note_input(path);
    uint64_t n = 0;
    for (int i = 0; i < 8; i++) n |= (uint64_t)f->map[i] << (8 * i);
    if (n > MAX_HEADER || n > f->size - 8) {
        stepq_error("%s: the header claims %" PRIu64 " bytes, but the file holds %zu after the length: "
                    "truncated, or not a safetensors file", path, n, f->size - 8);
        stepq_st_close(f);
        return STEPQ_ERR;
    }
    f->data = 8 + (size_t)n;
    if (parse_header(f, (const char*)f->map + 8, (size_t)n)) {
        stepq_st_close(f);
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

void stepq_st_close(stepq_st_file* f) {
    if (f->map) munmap(f->map, f->size);
    for (int i = 0; i < f->n; i++) free(f->t[i].name);
    free(f->t);
    free(f->path);
    memset(f, 0, sizeof *f);
}

const stepq_st_tensor* stepq_st_find(const stepq_st_file* f, const char* name) {
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->t[i].name, name)) return &f->t[i];
    return NULL;
}

int stepq_st_read(const stepq_st_file* f, const char* name, float* out, int rank, const long long* shape,
                  const char* why) {
    const stepq_st_tensor* t = stepq_st_find(f, name);
    char want[128], got[128];
    fmt_shape(want, sizeof want, rank, shape);
    if (!t) {
        stepq_error("%s: missing tensor '%s' (%s says %s)", f->path, name, why, want);
        return STEPQ_ERR;
    }
    int same = t->rank == rank;
    for (int r = 0; r < rank && same; r++) same = t->shape[r] == shape[r];
    if (!same) {
        fmt_shape(got, sizeof got, t->rank, t->shape);
        stepq_error("%s: tensor '%s' has shape %s, but %s says %s", f->path, name, got, why, want);
        return STEPQ_ERR;
    }
    const unsigned char* p = f->map + f->data + t->begin;
    size_t count = (t->end - t->begin) / (size_t)dtype_size(t->dtype);
    for (size_t i = 0; i < count; i++) {  // little-endian, unaligned: byte by byte
        if (t->dtype == STEPQ_ST_F32) {
            uint32_t u = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
                         (uint32_t)p[4 * i + 3] << 24;
            out[i] = stepq_bits_f32(u);
        } else {
            uint16_t h = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
            out[i] = t->dtype == STEPQ_ST_BF16 ? stepq_bf16_to_f32(h) : stepq_f16_to_f32(h);
        }
    }
    return STEPQ_OK;
}

int stepq_st_write(const char* path, int n, const char* const* names, const float* const* data,
                   const int* ranks, const long long* const* shapes) {
    cJSON* root = cJSON_CreateObject();
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        cJSON* e = cJSON_AddObjectToObject(root, names[i]);
        cJSON_AddStringToObject(e, "dtype", "F32");
        cJSON* sh = cJSON_AddArrayToObject(e, "shape");
        size_t count = 1;
        for (int r = 0; r < ranks[i]; r++) {
            cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)shapes[i][r]));
            count *= (size_t)shapes[i][r];
        }
        cJSON* off = cJSON_AddArrayToObject(e, "data_offsets");
        cJSON_AddItemToArray(off, cJSON_CreateNumber((double)at));
        at += 4 * count;
        cJSON_AddItemToArray(off, cJSON_CreateNumber((double)at));
    }
    char* json = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    char* tmp;
    if (stepq_output_begin(&tmp, path)) {
        free(json);
        return STEPQ_ERR;
    }
    FILE* fp = fopen(tmp, "wb");
    int ok = fp != NULL;
    uint64_t hn = strlen(json);
    unsigned char len[8];
    for (int i = 0; i < 8; i++) len[i] = (unsigned char)(hn >> (8 * i));
    ok = ok && fwrite(len, 8, 1, fp) == 1 && fwrite(json, 1, hn, fp) == hn;
    for (int i = 0; i < n && ok; i++) {
        size_t count = 1;
        for (int r = 0; r < ranks[i]; r++) count *= (size_t)shapes[i][r];
        ok = fwrite(data[i], sizeof(float), count, fp) == count;  // little-endian hosts only
    }
    if (fp && fclose(fp) != 0) ok = 0;
    free(json);
    if (!ok) stepq_error("cannot write %s", path);
    return stepq_output_end(tmp, path, ok) || !ok ? STEPQ_ERR : STEPQ_OK;
}

// roundtrip.c: states through one format's codec and back; see roundtrip.h.
#include "roundtrip.h"

#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"

// the states S of c->input: *rank 2 ([K,V]) or 3 ([H,K,V]), their shape in d
static int read_states(float** S, hsize_t* d, int* rank, const stepq_roundtrip_cfg* c) {
    hid_t in = h5u_open_read(c->input, "state file", " (an HDF5 file with a dataset S [K,V] or [H,K,V])");
    if (in < 0) return STEPQ_ERR;
    *rank = 3;
    if (H5Lexists(in, "S", H5P_DEFAULT) > 0) {
        hid_t ds = H5Dopen2(in, "S", H5P_DEFAULT);
        hid_t sp = ds < 0 ? -1 : H5Dget_space(ds);
        *rank = sp < 0 ? -1 : H5Sget_simple_extent_ndims(sp);
        if (sp >= 0) H5Sclose(sp);
        if (ds >= 0) H5Dclose(ds);
    }
    if (*rank != 2 && *rank != 3) {
        stepq_error("%s: dataset 'S' must be a float state [K,V] or states [H,K,V]", c->input);
        H5Fclose(in);
        return STEPQ_ERR;
    }
    const int rc = h5u_read_f32(S, d, in, c->input, "S", *rank, 1);
    H5Fclose(in);
    return rc;
}

// H states of K x V the format can store, with the plan it needs (of their shape and kind,
// covering heads plan_head .. plan_head + H - 1)
static int check_states(const stepq_roundtrip_cfg* c, long H, int K, int V) {
    const stepq_plan* p = c->plan;
    if (H < 1 || K < 1 || V < 1) {
        stepq_error("%s: dataset 'S' is empty", c->input);
        return STEPQ_ERR;
    }
    if (stepq_format_fits(c->format, K, V) != STEPQ_OK) return STEPQ_ERR;
    if (p && (p->K != K || p->V != V || p->kind != c->kind)) {
        stepq_error("%s: the plan %s is for %s heads of %d x %d; the states are %s %d x %d", c->input, p->file,
                    stepq_kind_name(p->kind), p->K, p->V, stepq_kind_name(c->kind), K, V);
        return STEPQ_ERR;
    }
    if (stepq_format_needs_plan(c->format) && (!p || c->plan_head < 0 || c->plan_head + H > p->H)) {
        stepq_error("%s: format %s needs a plan covering heads %d..%ld%s", c->input, c->format->name, c->plan_head,
                    c->plan_head + H - 1, p ? "; the plan has fewer" : "");
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

// the head plan state h is encoded with: the plan's head plan_head + h (a calibrated format's)
static void head_plan(stepq_head_plan* hp, uint8_t* rows, const stepq_roundtrip_cfg* c, long h, int K) {
    const stepq_plan* fp = stepq_format_needs_plan(c->format) ? c->plan : NULL;
    stepq_assert(stepq_head_plan_for(hp, rows, c->format, fp, c->plan_head + (int)h, c->kind, K) == STEPQ_OK);
}

// where each head's bytes start in the packed bytes [H+1]: a calibrated format's heads differ in
// widths, hence in bytes
static long long* head_offsets(const stepq_roundtrip_cfg* c, long H, int K, int V) {
    stepq_head_plan hp;
    uint8_t rows[STEPQ_MAX_DIM];
    long long* offsets = callocCheck((size_t)H + 1, sizeof *offsets);
    for (long h = 0; h < H; h++) {
        head_plan(&hp, rows, c, h, K);
        offsets[h + 1] = offsets[h] + (long long)c->format->family->packed_bytes(c->format, &hp, K, V);
    }
    return offsets;
}

// every head of S encoded into packed at its offset and decoded into S_hat (method 6.2);
// STEPQ_ERR for a head the format cannot store (a NaN or Inf)
static int encode_heads(uint8_t* packed, float* S_hat, const float* S, const long long* offsets,
                        const stepq_roundtrip_cfg* c, long H, int K, int V) {
    const size_t KV = (size_t)K * V;
    stepq_head_plan hp;
    uint8_t rows[STEPQ_MAX_DIM];
    float* work = mallocCheck(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
    int rc = STEPQ_OK;
    for (long h = 0; h < H; h++) {
        head_plan(&hp, rows, c, h, K);
        if (stepq_encode(packed + offsets[h], S + h * KV, c->format, &hp, work, K, V) != STEPQ_OK) {
            stepq_error("%s: head %ld of S holds a NaN or Inf; format %s cannot store it", c->input, h,
                        c->format->name);
            rc = STEPQ_ERR;
            break;
        }
        stepq_decode(S_hat + h * KV, packed + offsets[h], c->format, &hp, K, V);
    }
    free(work);
    return rc;
}

// c->output: S_hat (the shape d of S, of the given rank), packed and offsets, with the format,
// kind, shape and bits_actual as attributes
static int write_roundtrip(const stepq_roundtrip_cfg* c, const float* S_hat, const uint8_t* packed,
                           const long long* offsets, int rank, const hsize_t* d, long H, int K, int V) {
    hid_t f = h5u_create(c->output);
    if (f < 0) return STEPQ_ERR;
    const hsize_t dp[1] = {(hsize_t)offsets[H]}, dn[1] = {(hsize_t)H + 1};
    const size_t KV = (size_t)K * V;
    const int rc =
        stepq_write_provenance(f, &c->prov) || h5u_attr_str(f, "format", c->format->name) ||
        h5u_attr_str(f, "kind", stepq_kind_name(c->kind)) || h5u_attr_i64(f, "K", K) ||
        h5u_attr_i64(f, "V", V) || h5u_attr_i64(f, "plan_head", c->plan_head) ||
        h5u_attr_f64(f, "bits_actual", (double)offsets[H] * 8.0 / ((double)KV * H)) ||
        h5u_write(f, "S_hat", H5T_NATIVE_FLOAT, S_hat, rank, d, "1", "decoded states, the shape of S") ||
        h5u_write(f, "packed", H5T_NATIVE_UINT8, packed, 1, dp, "byte", "packed bytes of every head, head after head") ||
        h5u_write(f, "offsets", H5T_NATIVE_LLONG, offsets, 1, dn, "byte", "where each head's bytes start in packed [H+1]");
    if (rc) {
        h5u_abandon(f, c->output);
        return STEPQ_ERR;
    }
    return h5u_commit(f, c->output);
}

int stepq_roundtrip(const stepq_roundtrip_cfg* c) {
    float* S = NULL;
    hsize_t d[3];
    int rank;
    if (read_states(&S, d, &rank, c) != STEPQ_OK) return STEPQ_ERR;
    const long H = rank == 3 ? (long)d[0] : 1;
    const int K = (int)d[rank - 2], V = (int)d[rank - 1];
    if (check_states(c, H, K, V) != STEPQ_OK) {
        free(S);
        return STEPQ_ERR;
    }
    long long* offsets = head_offsets(c, H, K, V);
    uint8_t* packed = callocCheck((size_t)offsets[H] + 1, 1);
    float* S_hat = mallocCheck(sizeof(float) * K * V * (size_t)H);
    int rc = encode_heads(packed, S_hat, S, offsets, c, H, K, V);
    if (rc == STEPQ_OK) rc = write_roundtrip(c, S_hat, packed, offsets, rank, d, H, K, V);
    free(packed);
    free(offsets);
    free(S_hat);
    free(S);
    return rc;
}

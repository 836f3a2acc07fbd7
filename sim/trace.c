// trace.c: reading, validating, writing HDF5 traces; the trace stream source.
#include "trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "recurrence.h"

void stepq_trace_free(stepq_trace* tr) {
    free(tr->q); free(tr->k); free(tr->v); free(tr->g); free(tr->beta); free(tr->S0);
    free(tr->layer); free(tr->head);
    memset(tr, 0, sizeof *tr);
}

// index of flat element n of a [d0, d1, (d2)] array, as "[a, b, c]"
static void fmt_index(char* buf, size_t bn, size_t n, const hsize_t* dims, int rank) {
    size_t idx[4];
    for (int r = rank - 1; r >= 0; r--) {
        idx[r] = n % dims[r];
        n /= dims[r];
    }
    int o = snprintf(buf, bn, "[");
    for (int r = 0; r < rank; r++)
        o += snprintf(buf + o, bn - (size_t)o, r ? ", %zu" : "%zu", idx[r]);
    snprintf(buf + o, bn - (size_t)o, "]");
}

// every element finite and within [lo, hi]
static int check_values(const char* path, const char* name, const float* x, const hsize_t* dims,
                        int rank, float lo, float hi) {
    size_t n = 1;
    for (int r = 0; r < rank; r++) n *= dims[r];
    for (size_t i = 0; i < n; i++) {
        if (isfinite(x[i]) && x[i] >= lo && x[i] <= hi) continue;
        char ib[96];
        fmt_index(ib, sizeof ib, i, dims, rank);
        if (!isfinite(x[i]))
            stepq_error("%s: dataset '%s' holds %s at index %s", path, name,
                        isnan(x[i]) ? "NaN" : "Inf", ib);
        else
            stepq_error("%s: dataset '%s' holds %g at index %s, outside [%g, %g]", path, name,
                        (double)x[i], ib, (double)lo, (double)hi);
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

// q and k must be L2-normalised per head and step, as fla feeds them to the recurrence (method
// 6.1); normalize: divide each by its norm instead (a zero vector stays zero)
static int check_norms(const char* path, const char* name, float* x, long T, int H, int K, int normalize) {
    for (long t = 0; t < T; t++)
        for (int h = 0; h < H; h++) {
            float* row = x + ((size_t)t * H + h) * K;
            double n2 = 0;
            for (int i = 0; i < K; i++) n2 += (double)row[i] * row[i];
            double n = sqrt(n2);
            if (normalize) {
                for (int i = 0; n > 0 && i < K; i++) row[i] = (float)(row[i] / n);
                continue;
            }
            if (fabs(n - 1.0) <= STEPQ_TRACE_NORM_TOL) continue;
            stepq_error("%s: dataset '%s' is not L2-normalised: step %ld, head %d has norm %.6g (tolerance "
                        "%g). The recurrence reads q and k normalised per head and step, as fla feeds them: "
                        "capture them after the normalisation, or normalise on reading (source.normalize = "
                        "true; replay --normalize)", path, name, t, h, n, STEPQ_TRACE_NORM_TOL);
            return STEPQ_ERR;
        }
    return STEPQ_OK;
}

static int shape_error(const char* path, const char* name, const hsize_t* d, int rank,
                       const char* want) {
    char got[96];
    int o = snprintf(got, sizeof got, "[");
    for (int r = 0; r < rank; r++)
        o += snprintf(got + o, sizeof got - (size_t)o, r ? ", %llu" : "%llu",
                      (unsigned long long)d[r]);
    snprintf(got + o, sizeof got - (size_t)o, "]");
    stepq_error("%s: dataset '%s' has shape %s, expected %s", path, name, got, want);
    return STEPQ_ERR;
}

// the root attribute 'kind': "gdn" or "kda"
static int read_kind(int* out, hid_t f, const char* path) {
    char* kind = NULL;
    if (h5u_read_attr_str(&kind, f, path, "kind", 1)) return STEPQ_ERR;
    *out = stepq_kind_parse(kind);
    if (*out < 0) stepq_error("%s: attribute 'kind' is '%s', expected \"gdn\" or \"kda\"", path, kind);
    free(kind);
    return *out < 0 ? STEPQ_ERR : STEPQ_OK;
}

// the optional labels 'layer' and 'head' [HV]: both or neither, each (layer, head) once
static int read_labels(stepq_trace* tr, hid_t f, const char* path) {
    int hl = H5Lexists(f, "layer", H5P_DEFAULT) > 0, hh = H5Lexists(f, "head", H5P_DEFAULT) > 0;
    if (!hl && !hh) return STEPQ_OK;
    if (hl != hh) {
        stepq_error("%s: a trace gives both 'layer' and 'head' labels or neither", path);
        return STEPQ_ERR;
    }
    hsize_t d[1] = {(hsize_t)tr->HV};
    tr->layer = mallocCheck(sizeof(int) * tr->HV);
    tr->head = mallocCheck(sizeof(int) * tr->HV);
    if (h5u_read_exact(tr->layer, H5T_NATIVE_INT, f, path, "layer", 1, d) ||
        h5u_read_exact(tr->head, H5T_NATIVE_INT, f, path, "head", 1, d))
        return STEPQ_ERR;
    for (int a = 0; a < tr->HV; a++)
        for (int b = 0; b < a; b++)
            if (tr->layer[a] == tr->layer[b] && tr->head[a] == tr->head[b]) {
                stepq_error("%s: value heads %d and %d are both labelled layer %d, head %d", path, b, a,
                            tr->layer[a], tr->head[a]);
                return STEPQ_ERR;
            }
    return STEPQ_OK;
}

static int read_all(stepq_trace* tr, hid_t f, const char* path, int normalize) {
    hsize_t dq[3], dk[3], dv[3], dg[3], db[2], ds[3];
    if (read_kind(&tr->kind, f, path)) return STEPQ_ERR;
    int g_rank = tr->kind == STEPQ_KDA ? 3 : 2;
    if (h5u_read_f32(&tr->q, dq, f, path, "q", 3, 1) || h5u_read_f32(&tr->k, dk, f, path, "k", 3, 1) ||
        h5u_read_f32(&tr->v, dv, f, path, "v", 3, 1) ||
        h5u_read_f32(&tr->g, dg, f, path, "g", g_rank, 1) ||
        h5u_read_f32(&tr->beta, db, f, path, "beta", 2, 1) ||
        h5u_read_f32(&tr->S0, ds, f, path, "S0", 3, 0))
        return STEPQ_ERR;
    tr->T = (long)dq[0];
    tr->H = (int)dq[1];
    tr->K = (int)dq[2];
    tr->HV = (int)dv[1];
    tr->V = (int)dv[2];
    char want[128];
    snprintf(want, sizeof want, "[T=%ld, H=%d, K=%d] like q", tr->T, tr->H, tr->K);
    if (memcmp(dk, dq, sizeof dq) != 0) return shape_error(path, "k", dk, 3, want);
    snprintf(want, sizeof want, "[T=%ld, HV, V] with HV a multiple of H=%d", tr->T, tr->H);
    if (dv[0] != dq[0] || tr->H == 0 || tr->HV % tr->H != 0) return shape_error(path, "v", dv, 3, want);
    if (tr->K > STEPQ_MAX_DIM || tr->V > STEPQ_MAX_DIM) {
        stepq_error("%s: heads of %d x %d are larger than stepq's limit of %d per side", path,
                    tr->K, tr->V, STEPQ_MAX_DIM);
        return STEPQ_ERR;
    }
    if (tr->V % 8 != 0) {
        stepq_error("%s: value dimension V=%d must be a multiple of 8 (bit packing)", path, tr->V);
        return STEPQ_ERR;
    }
    if (g_rank == 2) snprintf(want, sizeof want, "[T=%ld, HV=%d] (gdn)", tr->T, tr->HV);
    else snprintf(want, sizeof want, "[T=%ld, HV=%d, K=%d] (kda)", tr->T, tr->HV, tr->K);
    if (dg[0] != dq[0] || dg[1] != dv[1] || (g_rank == 3 && dg[2] != dq[2]))
        return shape_error(path, "g", dg, g_rank, want);
    snprintf(want, sizeof want, "[T=%ld, HV=%d]", tr->T, tr->HV);
    if (db[0] != dq[0] || db[1] != dv[1]) return shape_error(path, "beta", db, 2, want);
    if (tr->S0) {
        snprintf(want, sizeof want, "[HV=%d, K=%d, V=%d]", tr->HV, tr->K, tr->V);
        if (ds[0] != dv[1] || ds[1] != dq[2] || ds[2] != dv[2])
            return shape_error(path, "S0", ds, 3, want);
    }
    if (read_labels(tr, f, path)) return STEPQ_ERR;
    double sc = 1.0 / sqrt((double)tr->K);
    int has = h5u_read_attr_f64(&sc, f, path, "scale");
    if (has == STEPQ_ERR) return STEPQ_ERR;
    if (!isfinite(sc) || sc <= 0) {
        stepq_error("%s: attribute 'scale' is %g; it must be finite and positive (absent: 1/sqrt(K))", path, sc);
        return STEPQ_ERR;
    }
    tr->scale = sc;
    if (check_values(path, "q", tr->q, dq, 3, -INFINITY, INFINITY) ||
        check_values(path, "k", tr->k, dk, 3, -INFINITY, INFINITY) ||
        check_values(path, "v", tr->v, dv, 3, -INFINITY, INFINITY) ||
        check_values(path, "g", tr->g, dg, g_rank, -INFINITY, 0.0f) ||
        check_values(path, "beta", tr->beta, db, 2, 0.0f, 1.0f) ||
        (tr->S0 && check_values(path, "S0", tr->S0, ds, 3, -INFINITY, INFINITY)) ||
        check_norms(path, "q", tr->q, tr->T, tr->H, tr->K, normalize) ||
        check_norms(path, "k", tr->k, tr->T, tr->H, tr->K, normalize))
        return STEPQ_ERR;
    return STEPQ_OK;
}

int stepq_trace_read(stepq_trace* tr, const char* path, int normalize) {
    memset(tr, 0, sizeof *tr);
    hid_t f = h5u_open_read(path, "trace", "");
    if (f < 0) return STEPQ_ERR;
    int rc = read_all(tr, f, path, normalize);
    H5Fclose(f);
    if (rc != STEPQ_OK) stepq_trace_free(tr);
    return rc;
}

int stepq_trace_write(const char* path, const stepq_trace* tr, const char* note) {
    h5u_quiet();
    hid_t f = h5u_create(path);
    if (f < 0) return STEPQ_ERR;
    hsize_t dqk[3] = {(hsize_t)tr->T, (hsize_t)tr->H, (hsize_t)tr->K};
    hsize_t dv[3] = {(hsize_t)tr->T, (hsize_t)tr->HV, (hsize_t)tr->V};
    hsize_t dg[3] = {(hsize_t)tr->T, (hsize_t)tr->HV, (hsize_t)tr->K};
    hsize_t ds[3] = {(hsize_t)tr->HV, (hsize_t)tr->K, (hsize_t)tr->V};
    int kda = tr->kind == STEPQ_KDA;
    hid_t F = H5T_NATIVE_FLOAT;
    int rc = h5u_attr_str(f, "kind", stepq_kind_name(tr->kind)) || h5u_attr_f64(f, "scale", tr->scale) ||
             (note && h5u_attr_str(f, "note", note)) ||
             h5u_write(f, "q", F, tr->q, 3, dqk, "1", "query, L2-normalised, unscaled [T,H,K]") ||
             h5u_write(f, "k", F, tr->k, 3, dqk, "1", "key, L2-normalised [T,H,K]") ||
             h5u_write(f, "v", F, tr->v, 3, dv, "1", "value [T,HV,V]") ||
             h5u_write(f, "g", F, tr->g, kda ? 3 : 2, dg, "nats per step",
                       kda ? "log gate per key channel [T,HV,K]" : "log gate [T,HV]") ||
             h5u_write(f, "beta", F, tr->beta, 2, dg, "1", "write strength [T,HV]") ||
             (tr->S0 && h5u_write(f, "S0", F, tr->S0, 3, ds, "1", "initial state, K-first [HV,K,V]")) ||
             (tr->layer && h5u_write(f, "layer", H5T_NATIVE_INT, tr->layer, 1, ds, NULL,
                                     "the model's layer of each value head [HV]")) ||
             (tr->head && h5u_write(f, "head", H5T_NATIVE_INT, tr->head, 1, ds, NULL,
                                    "the model's head of each value head [HV]"));
    if (rc) {
        h5u_abandon(f, path);
        return STEPQ_ERR;
    }
    return h5u_commit(f, path);
}

// ---------------------------------------------------------------------------------------------
// the trace source: pointers into the arrays, no copies

typedef struct {
    stepq_trace tr;
} trace_impl;

static stepq_cursor* trace_open(const stepq_source* src, int h) {
    stepq_cursor* c = callocCheck(1, sizeof *c);
    c->src = src;
    c->h = h;
    return c;
}

static void trace_next(stepq_cursor* c, stepq_step_in* out) {
    const stepq_trace* tr = &((const trace_impl*)c->src->impl)->tr;
    stepq_assert(c->t < tr->T);
    size_t t = (size_t)c->t, hv = (size_t)c->h, hk = hv / (size_t)(tr->HV / tr->H);
    out->q = tr->q + (t * tr->H + hk) * tr->K;
    out->k = tr->k + (t * tr->H + hk) * tr->K;
    out->v = tr->v + (t * tr->HV + hv) * tr->V;
    out->g = tr->kind == STEPQ_KDA ? tr->g + (t * tr->HV + hv) * tr->K : tr->g + t * tr->HV + hv;
    out->beta = tr->beta[t * tr->HV + hv];
    c->t++;
}

static void trace_close(stepq_cursor* c) { free(c); }

static void trace_destroy(stepq_source* src) {
    trace_impl* im = src->impl;
    stepq_trace_free(&im->tr);
    free(im);
    free(src->layer);
    free(src->head);
    free(src);
}

stepq_source* stepq_trace_source(stepq_trace* tr, const char* path) {
    stepq_source* s = callocCheck(1, sizeof *s);
    trace_impl* im = callocCheck(1, sizeof *im);
    im->tr = *tr;
    memset(tr, 0, sizeof *tr);
    const stepq_trace* t = &im->tr;
    s->kind = t->kind;
    s->n_heads = t->HV;
    s->K = t->K;
    s->V = t->V;
    s->n_gates = t->kind == STEPQ_KDA ? t->K : 1;
    s->T = t->T;
    s->scale = t->scale;
    s->S0 = t->S0;
    s->layer = callocCheck((size_t)t->HV, sizeof(int));
    s->head = mallocCheck(sizeof(int) * (size_t)t->HV);
    for (int h = 0; h < t->HV; h++) {
        s->layer[h] = t->layer ? t->layer[h] : 0;
        s->head[h] = t->head ? t->head[h] : h;
    }
    snprintf(s->desc, sizeof s->desc, "trace %s (%s, T=%ld, H=%d, HV=%d)", path,
             stepq_kind_name(t->kind), t->T, t->H, t->HV);
    s->open = trace_open;
    s->next = trace_next;
    s->close = trace_close;
    s->destroy = trace_destroy;
    s->impl = im;
    return s;
}

void stepq_trace_capture(stepq_trace* tr, const stepq_source* src, long T) {
    memset(tr, 0, sizeof *tr);
    int HV = src->n_heads, K = src->K, V = src->V, G = src->n_gates;
    tr->kind = src->kind;
    tr->T = T;
    tr->H = tr->HV = HV;
    tr->K = K;
    tr->V = V;
    tr->scale = src->scale;
    tr->q = mallocCheck(sizeof(float) * (size_t)T * HV * K);
    tr->k = mallocCheck(sizeof(float) * (size_t)T * HV * K);
    tr->v = mallocCheck(sizeof(float) * (size_t)T * HV * V);
    tr->g = mallocCheck(sizeof(float) * (size_t)T * HV * G);
    tr->beta = mallocCheck(sizeof(float) * (size_t)T * HV);
    if (src->S0) {
        tr->S0 = mallocCheck(sizeof(float) * (size_t)HV * K * V);
        memcpy(tr->S0, src->S0, sizeof(float) * (size_t)HV * K * V);
    }
    tr->layer = mallocCheck(sizeof(int) * HV);
    tr->head = mallocCheck(sizeof(int) * HV);
    memcpy(tr->layer, src->layer, sizeof(int) * HV);
    memcpy(tr->head, src->head, sizeof(int) * HV);
#pragma omp parallel for schedule(dynamic)
    for (int h = 0; h < HV; h++) {
        stepq_cursor* c = src->open(src, h);
        stepq_step_in in;
        for (long t = 0; t < T; t++) {
            src->next(c, &in);
            size_t o = (size_t)t * HV + h;
            memcpy(tr->q + o * K, in.q, sizeof(float) * K);
            memcpy(tr->k + o * K, in.k, sizeof(float) * K);
            memcpy(tr->v + o * V, in.v, sizeof(float) * V);
            memcpy(tr->g + o * G, in.g, sizeof(float) * G);
            tr->beta[o] = in.beta;
        }
        src->close(c);
    }
}

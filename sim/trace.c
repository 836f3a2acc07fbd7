// trace.c: reading, validating, writing HDF5 traces; the trace stream source.
#include "trace.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../base/outfile.h"
#include "../base/progress.h"
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

// the message of value x of dataset name at index ib (as "[t, h, i]"): not finite, or outside
// [lo, hi]; STEPQ_ERR
static int value_error(const char* path, const char* name, float x, const char* ib, float lo, float hi) {
    if (!isfinite(x))
        stepq_error("%s: dataset '%s' holds %s at index %s", path, name, isnan(x) ? "NaN" : "Inf", ib);
    else
        stepq_error("%s: dataset '%s' holds %.9g at index %s, outside [%g, %g]", path, name, (double)x, ib,
                    (double)lo, (double)hi);
    return STEPQ_ERR;
}

const char* const stepq_input_name[STEPQ_N_IN] = {"q", "k", "v", "g", "beta", "y"};

void stepq_input_range(int what, float* lo, float* hi) {
    *lo = what == STEPQ_IN_BETA ? 0.0f : -INFINITY;
    *hi = what == STEPQ_IN_G ? 0.0f : what == STEPQ_IN_BETA ? 1.0f : INFINITY;
}

int stepq_input_check(char* why, size_t n_why, int what, const float* x, int n, int scalar, double eps,
                      int* nonfinite) {
    float lo, hi;
    stepq_input_range(what, &lo, &hi);
    const char* name = stepq_input_name[what];
    double n2 = 0;
    *nonfinite = 0;
    for (int i = 0; i < n; i++) {
        if (!(isfinite(x[i]) && x[i] >= lo && x[i] <= hi)) {
            *nonfinite = !isfinite(x[i]);
            const char* rule = *nonfinite ? "not finite" : what == STEPQ_IN_G ? "a log decay is finite and <= 0"
                                                                              : "beta lies in [0, 1]";
            if (scalar) snprintf(why, n_why, "%s is %g (%s)", name, x[i], rule);
            else snprintf(why, n_why, "%s[%d] is %g (%s)", name, i, x[i], rule);
            return STEPQ_ERR;
        }
        n2 += (double)x[i] * x[i];
    }
    if ((what == STEPQ_IN_Q || what == STEPQ_IN_K) && !stepq_qk_norm_ok(sqrt(n2), eps)) {
        snprintf(why, n_why, "%s has L2 norm %.6g; the recurrence reads q and k L2-normalised per head (within %g "
                 "of 1%s)", name, sqrt(n2), STEPQ_TRACE_NORM_TOL, eps > 0 ? ", or below it with qk_norm_eps" : "");
        return STEPQ_ERR;
    }
    return STEPQ_OK;
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
        return value_error(path, name, x[i], ib, lo, hi);
    }
    return STEPQ_OK;
}

// a step input's dataset under the reader's rules on its values (stepq_input_range)
static int check_input(const char* path, int what, const float* x, const hsize_t* dims, int rank) {
    float lo, hi;
    stepq_input_range(what, &lo, &hi);
    return check_values(path, stepq_input_name[what], x, dims, rank, lo, hi);
}

// q and k must be L2-normalised per head and step, as fla feeds them to the recurrence (method
// 6.1): row (K) of dataset name at step t, head h; normalize: divide it by its norm instead (a
// zero vector stays zero). eps > 0 (the trace's qk_norm_eps): they were normalised as
// x / sqrt(|x|^2 + eps), whose norm falls below 1 where |x| is small, so a norm may lie anywhere
// in [0, 1 + tolerance]
static int check_norm_row(const char* path, const char* name, float* row, int K, long t, int h, int normalize,
                          double eps) {
    double n2 = 0;
    for (int i = 0; i < K; i++) n2 += (double)row[i] * row[i];
    double n = sqrt(n2);
    if (normalize) {
        for (int i = 0; n > 0 && i < K; i++) row[i] = (float)(row[i] / n);
        return STEPQ_OK;
    }
    if (stepq_qk_norm_ok(n, eps)) return STEPQ_OK;
    if (eps > 0) {
        stepq_error("%s: dataset '%s' is not L2-normalised: step %ld, head %d has norm %.6g, above 1 (tolerance "
                    "%g), which normalisation with the trace's qk_norm_eps = %g cannot give", path, name, t, h, n,
                    STEPQ_TRACE_NORM_TOL, eps);
        return STEPQ_ERR;
    }
    stepq_error("%s: dataset '%s' is not L2-normalised: step %ld, head %d has norm %.6g (tolerance "
                "%g). The recurrence reads q and k normalised per head and step, as fla feeds them: "
                "capture them after the normalisation, or normalise on reading (source.normalize = "
                "true; replay --normalize)", path, name, t, h, n, STEPQ_TRACE_NORM_TOL);
    return STEPQ_ERR;
}

static int check_norms(const char* path, const char* name, float* x, long T, int H, int K, int normalize,
                       double eps) {
    for (long t = 0; t < T; t++)
        for (int h = 0; h < H; h++)
            if (check_norm_row(path, name, x + ((size_t)t * H + h) * K, K, t, h, normalize, eps)) return STEPQ_ERR;
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
    *out = stepq_kind_parse(kind, 0, path, "attribute 'kind'");
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
    int b;
    const int a = stepq_trace_label_twice(tr->layer, tr->head, tr->HV, &b);
    if (a >= 0) {
        stepq_error("%s: value heads %d and %d are both labelled layer %d, head %d", path, b, a, tr->layer[a],
                    tr->head[a]);
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

int stepq_trace_label_twice(const int* layer, const int* head, int HV, int* first) {
    for (int a = 0; a < HV; a++)
        for (int b = 0; b < a; b++)
            if (layer[a] == layer[b] && head[a] == head[b]) {
                *first = b;
                return a;
            }
    return -1;
}

// the shapes of the datasets against each other and the limits (tr: T, H, K, HV, V set from them)
static int check_shapes(const stepq_trace* tr, const char* path, const hsize_t* dq, const hsize_t* dk,
                        const hsize_t* dv, const hsize_t* dg, const hsize_t* db, const hsize_t* ds, int g_rank) {
    char want[128];
    for (int d = 0; d < 2; d++) {  // q [T, H, K], v [T, HV, V]: nothing to run on an empty axis
        const hsize_t* x = d ? dv : dq;
        if (x[0] && x[1] && x[2]) continue;
        stepq_error("%s: dataset '%s' has shape [%llu, %llu, %llu]: a trace needs at least one step, one head and "
                    "one %s channel", path, d ? "v" : "q", (unsigned long long)x[0], (unsigned long long)x[1],
                    (unsigned long long)x[2], d ? "value" : "key");
        return STEPQ_ERR;
    }
    snprintf(want, sizeof want, "[T=%ld, H=%d, K=%d] like q", tr->T, tr->H, tr->K);
    if (memcmp(dk, dq, sizeof(hsize_t) * 3) != 0) return shape_error(path, "k", dk, 3, want);
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
    if (g_rank == 2) snprintf(want, sizeof want, "[T=%ld, HV=%d] (%s)", tr->T, tr->HV, stepq_kind_name(tr->kind));
    else snprintf(want, sizeof want, "[T=%ld, HV=%d, K=%d] (%s)", tr->T, tr->HV, tr->K, stepq_kind_name(tr->kind));
    if (dg[0] != dq[0] || dg[1] != dv[1] || (g_rank == 3 && dg[2] != dq[2]))
        return shape_error(path, "g", dg, g_rank, want);
    snprintf(want, sizeof want, "[T=%ld, HV=%d]", tr->T, tr->HV);
    if (db[0] != dq[0] || db[1] != dv[1]) return shape_error(path, "beta", db, 2, want);
    if (tr->S0) {
        snprintf(want, sizeof want, "[HV=%d, K=%d, V=%d]", tr->HV, tr->K, tr->V);
        if (ds[0] != dv[1] || ds[1] != dq[2] || ds[2] != dv[2])
            return shape_error(path, "S0", ds, 3, want);
    }
    return STEPQ_OK;
}

// the optional root attribute 'scale' (absent: 1/sqrt(K))
static int read_scale(stepq_trace* tr, hid_t f, const char* path) {
    double sc = 1.0 / sqrt((double)tr->K);
    int has = h5u_read_attr_f64(&sc, f, path, "scale");
    if (has == STEPQ_ERR) return STEPQ_ERR;
    if (!has && H5Lexists(f, "scale", H5P_DEFAULT) > 0) {  // it would be ignored
        stepq_error("%s: 'scale' is a dataset; stepq reads the scale from a root attribute 'scale' "
                    "(h5py: f.attrs['scale'])", path);
        return STEPQ_ERR;
    }
    if (!isfinite(sc) || sc <= 0) {
        stepq_error("%s: attribute 'scale' is %g; it must be finite and positive (absent: 1/sqrt(K))", path, sc);
        return STEPQ_ERR;
    }
    tr->scale = sc;
    return STEPQ_OK;
}

// the optional root attribute 'qk_norm_eps': the eps q and k were normalised with (0: absent)
static int read_norm_eps(stepq_trace* tr, hid_t f, const char* path) {
    double eps = 0;
    if (h5u_read_attr_f64(&eps, f, path, "qk_norm_eps") == STEPQ_ERR) return STEPQ_ERR;
    if (!(eps >= 0 && eps <= 1)) {  // NaN too
        stepq_error("%s: attribute 'qk_norm_eps' is %.17g; it must lie in [0, 1] (the eps of q and k's "
                    "normalisation x / sqrt(|x|^2 + eps); fla's is 1e-06)", path, eps);
        return STEPQ_ERR;
    }
    tr->qk_norm_eps = eps;
    return STEPQ_OK;
}

void stepq_trace_identity(char out[17], const stepq_trace* t) {
    size_t cap = 256 + (size_t)t->HV * 24, n = 0;
    char* b = mallocCheck(cap);
    n += (size_t)snprintf(b + n, cap - n, "stepq trace identity 1;kind=%s;H=%d;HV=%d;K=%d;V=%d;scale=%a;"
                          "qk_norm_eps=%a;weights_sha256=%s;labels=", stepq_kind_name(t->kind), t->H, t->HV, t->K,
                          t->V, t->scale, t->qk_norm_eps, t->model_sha256);
    for (int h = 0; h < t->HV; h++)
        n += (size_t)snprintf(b + n, cap - n, "%d.%d,", t->layer ? t->layer[h] : -1, t->head ? t->head[h] : h);
    snprintf(out, 17, "%016llx", (unsigned long long)stepq_xxh3(0, b, n));
    free(b);
}

int stepq_trace_write_identity(hid_t f, const stepq_trace* t) {
    char id[17];
    stepq_trace_identity(id, t);
    return (t->model_sha256[0] && h5u_attr_str(f, "weights_sha256", t->model_sha256)) ||
           h5u_attr_str(f, "identity_xxh3", id);
}

// the optional root attribute 'weights_sha256' (stepq.hf capture): which model the trace is of;
// then 'identity_xxh3', the checksum of what identifies the trace (stepq_trace_identity: kind,
// shapes, scale, eps, weights, labels), which a trace naming its model must carry and match: a
// plan calibrated on it is bound to that model, so an edited weights_sha256 must not pass
static int read_model(stepq_trace* tr, hid_t f, const char* path) {
    char *w = NULL, *id = NULL;
    tr->model_sha256[0] = 0;
    if (h5u_read_attr_str(&w, f, path, "weights_sha256", 0)) return STEPQ_ERR;
    int ok = !w || stepq_is_sha256_hex(w);
    if (!ok) stepq_error("%s: attribute 'weights_sha256' is '%.80s', not a SHA-256 (64 lower-case hex digits)", path, w);
    if (ok && w) snprintf(tr->model_sha256, sizeof tr->model_sha256, "%s", w);
    if (ok && h5u_read_attr_str(&id, f, path, "identity_xxh3", 0)) ok = 0;
    if (ok && (id || w)) {
        char want[17];
        stepq_trace_identity(want, tr);
        if (!id) {
            stepq_error("%s names its model (weights_sha256) without the checksum of what identifies it "
                        "(identity_xxh3): written by an older stepq, or edited; capture it again", path);
            ok = 0;
        } else if (strcmp(id, want)) {
            stepq_error("%s: the attributes that identify it (kind, shapes, scale, qk_norm_eps, weights_sha256, "
                        "layer and head labels) do not match their checksum identity_xxh3 (%.20s, computed %s): "
                        "edited or corrupted; capture it again", path, id, want);
            ok = 0;
        }
    }
    free(w);
    free(id);
    return ok ? STEPQ_OK : STEPQ_ERR;
}

static int read_all(stepq_trace* tr, hid_t f, const char* path, int normalize) {
    hsize_t dq[3], dk[3], dv[3], dg[3], db[2], ds[3];
    if (read_kind(&tr->kind, f, path)) return STEPQ_ERR;
    int g_rank = stepq_kind_of(tr->kind)->gate_per_key ? 3 : 2;
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
    if (check_shapes(tr, path, dq, dk, dv, dg, db, ds, g_rank) || read_labels(tr, f, path) ||
        read_scale(tr, f, path) || read_norm_eps(tr, f, path) || read_model(tr, f, path))
        return STEPQ_ERR;
    if (check_input(path, STEPQ_IN_Q, tr->q, dq, 3) || check_input(path, STEPQ_IN_K, tr->k, dk, 3) ||
        check_input(path, STEPQ_IN_V, tr->v, dv, 3) || check_input(path, STEPQ_IN_G, tr->g, dg, g_rank) ||
        check_input(path, STEPQ_IN_BETA, tr->beta, db, 2) ||
        (tr->S0 && check_values(path, "S0", tr->S0, ds, 3, -INFINITY, INFINITY)) ||
        check_norms(path, "q", tr->q, tr->T, tr->H, tr->K, normalize, tr->qk_norm_eps) ||
        check_norms(path, "k", tr->k, tr->T, tr->H, tr->K, normalize, tr->qk_norm_eps))
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
    int per_key = stepq_kind_of(tr->kind)->gate_per_key;
    hid_t F = H5T_NATIVE_FLOAT;
    int rc = h5u_attr_str(f, "kind", stepq_kind_name(tr->kind)) || h5u_attr_f64(f, "scale", tr->scale) ||
             (tr->qk_norm_eps > 0 && h5u_attr_f64(f, "qk_norm_eps", tr->qk_norm_eps)) ||
             (note && h5u_attr_str(f, "note", note)) ||
             h5u_write(f, "q", F, tr->q, 3, dqk, "1", "query, L2-normalised, unscaled [T,H,K]") ||
             h5u_write(f, "k", F, tr->k, 3, dqk, "1", "key, L2-normalised [T,H,K]") ||
             h5u_write(f, "v", F, tr->v, 3, dv, "1", "value [T,HV,V]") ||
             h5u_write(f, "g", F, tr->g, per_key ? 3 : 2, dg, "nats per step",
                       per_key ? "log gate per key channel [T,HV,K]" : "log gate [T,HV]") ||
             h5u_write(f, "beta", F, tr->beta, 2, dg, "1", "write strength [T,HV]") ||
             (tr->S0 && h5u_write(f, "S0", F, tr->S0, 3, ds, "1", "initial state, K-first [HV,K,V]")) ||
             (tr->layer && h5u_write(f, "layer", H5T_NATIVE_INT, tr->layer, 1, ds, NULL,
                                     "the model's layer of each value head [HV]")) ||
             (tr->head && h5u_write(f, "head", H5T_NATIVE_INT, tr->head, 1, ds, NULL,
                                    "the model's head of each value head [HV]")) ||
             stepq_trace_write_identity(f, tr);
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

// a source's shape, labels, S0 and description from a trace (t's arrays stay t's)
static void describe_source(stepq_source* s, const stepq_trace* t, const char* path) {
    s->kind = t->kind;
    s->n_heads = t->HV;
    s->K = t->K;
    s->V = t->V;
    s->n_gates = stepq_kind_gates(t->kind, t->K);
    s->T = t->T;
    s->scale = t->scale;
    s->qk_norm_eps = t->qk_norm_eps;
    s->S0 = t->S0;
    s->layer = callocCheck((size_t)t->HV, sizeof(int));
    s->head = mallocCheck(sizeof(int) * (size_t)t->HV);
    for (int h = 0; h < t->HV; h++) {
        s->layer[h] = t->layer ? t->layer[h] : 0;
        s->head[h] = t->head ? t->head[h] : h;
    }
    snprintf(s->desc, sizeof s->desc, "trace %s (%s, T=%ld, H=%d, HV=%d)", path,
             stepq_kind_name(t->kind), t->T, t->H, t->HV);
    snprintf(s->model_sha256, sizeof s->model_sha256, "%s", t->model_sha256);
}

static stepq_cursor* trace_open(const stepq_source* src, int h) {
    stepq_cursor* c = callocCheck(1, sizeof *c);
    c->src = src;
    c->h = h;
    return c;
}

static int trace_next(stepq_cursor* c, stepq_step_in* out) {
    const stepq_trace* tr = &((const trace_impl*)c->src->impl)->tr;
    if (c->t >= tr->T) return STEPQ_END;
    size_t t = (size_t)c->t, hv = (size_t)c->h, hk = hv / (size_t)(tr->HV / tr->H);
    out->q = tr->q + (t * tr->H + hk) * tr->K;
    out->k = tr->k + (t * tr->H + hk) * tr->K;
    out->v = tr->v + (t * tr->HV + hv) * tr->V;
    out->g = tr->g + (t * tr->HV + hv) * (size_t)c->src->n_gates;
    out->beta = tr->beta[t * tr->HV + hv];
    c->t++;
    return STEPQ_OK;
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
    describe_source(s, t, path);
    s->open = trace_open;
    s->next = trace_next;
    s->close = trace_close;
    s->destroy = trace_destroy;
    s->impl = im;
    return s;
}

// n steps' inputs, a row each: q and k (n, K), v (n, V), g (n, G), beta (n); the buffers of the
// in-memory capture, of a streamed cursor and of the two writers
typedef struct {
    float *q, *k, *v, *g, *beta;
    int K, V, G;
} step_rows;

static step_rows rows_alloc(size_t n, int K, int V, int G) {
    return (step_rows){.q = mallocCheck(sizeof(float) * n * K), .k = mallocCheck(sizeof(float) * n * K),
                       .v = mallocCheck(sizeof(float) * n * V), .g = mallocCheck(sizeof(float) * n * G),
                       .beta = mallocCheck(sizeof(float) * n), .K = K, .V = V, .G = G};
}

static void rows_free(step_rows* r) {
    free(r->q); free(r->k); free(r->v); free(r->g); free(r->beta);
}

// the rows from row o on
static step_rows rows_from(const step_rows* r, size_t o) {
    return (step_rows){.q = r->q + o * r->K, .k = r->k + o * r->K, .v = r->v + o * r->V, .g = r->g + o * r->G, .beta = r->beta + o,
                       .K = r->K, .V = r->V, .G = r->G};
}

// step in at row o
static void put_step(const step_rows* r, size_t o, const stepq_step_in* in) {
    memcpy(r->q + o * r->K, in->q, sizeof(float) * r->K);
    memcpy(r->k + o * r->K, in->k, sizeof(float) * r->K);
    memcpy(r->v + o * r->V, in->v, sizeof(float) * r->V);
    memcpy(r->g + o * r->G, in->g, sizeof(float) * r->G);
    r->beta[o] = in->beta;
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
    tr->qk_norm_eps = src->qk_norm_eps;
    const step_rows r = rows_alloc((size_t)T * HV, K, V, G);  // (T, HV, *), freed by stepq_trace_free
    tr->q = r.q;
    tr->k = r.k;
    tr->v = r.v;
    tr->g = r.g;
    tr->beta = r.beta;
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
            stepq_assert(src->next(c, &in) == STEPQ_OK);  // the callers capture what they checked
            put_step(&r, (size_t)t * HV + h, &in);
        }
        src->close(c);
    }
}

// ---------------------------------------------------------------------------------------------
// the streamed trace source: each head's cursor reads chunks of steps (hyperslabs) and checks
// them as it reads; memory holds one chunk per cursor, whatever T

static long chunks_read;  // every streamed source's chunk reads, for the tests

long stepq_trace_chunks_read(void) {
    long n;
#pragma omp atomic read
    n = chunks_read;
    return n;
}

long stepq_trace_chunk_steps(void) {
    const char* e = getenv("STEPQ_TRACE_CHUNK");
    long long n;
    return e && stepq_parse_int(&n, e, 1, STEPQ_TRACE_CHUNK_MAX) == STEPQ_OK ? (long)n : STEPQ_TRACE_CHUNK_DEFAULT;
}

// the datasets a cursor reads: the step inputs of trace.h's order
enum { DS_Q = STEPQ_IN_Q, DS_K = STEPQ_IN_K, DS_V = STEPQ_IN_V, DS_G = STEPQ_IN_G, DS_BETA = STEPQ_IN_BETA, N_DS = STEPQ_IN_Y };

typedef struct {
    char path[4096];
    hid_t f, d[N_DS];
    stepq_trace meta;  // the shapes, S0 and the labels (no step data)
    int G, normalize;  // G: gates per step
    long chunk;        // steps per read
} stream_impl;

typedef struct {
    stepq_cursor base;
    long t0, n;                   // the chunk held: steps [t0, t0 + n)
    step_rows r;                  // the chunk's steps
} stream_cursor;

static stepq_cursor* stream_open(const stepq_source* src, int h) {
    const stream_impl* im = src->impl;
    stream_cursor* c = callocCheck(1, sizeof *c);
    c->base.src = src;
    c->base.h = h;
    c->r = rows_alloc((size_t)im->chunk, im->meta.K, im->meta.V, im->G);
    return &c->base;
}

static void stream_close(stepq_cursor* base) {
    stream_cursor* c = (stream_cursor*)base;
    rows_free(&c->r);
    free(c);
}

// every value of a chunk finite and within its input's range (stepq_input_range); x (n, w):
// steps t0.. of head h of dataset ds, reported as its index in the file ([t, h] or [t, h, i])
static int check_chunk(const stream_impl* im, int ds, const float* x, long t0, long n, int h, int w) {
    float lo, hi;
    stepq_input_range(ds, &lo, &hi);
    // the common case in a loop without an exit, which the compiler vectorises: every value
    // finite (|x| <= FLT_MAX fails for NaN and Inf) and in range; else the first bad one named
    int bad = 0;
    for (size_t e = 0; e < (size_t)n * w; e++) bad |= !((fabsf(x[e]) <= FLT_MAX) & (x[e] >= lo) & (x[e] <= hi));
    if (!bad) return STEPQ_OK;
    for (size_t e = 0; e < (size_t)n * w; e++) {
        if (isfinite(x[e]) && x[e] >= lo && x[e] <= hi) continue;
        char ib[96];
        long t = t0 + (long)(e / w);
        const int rank2 = ds == DS_BETA || (ds == DS_G && im->G == 1);
        if (rank2) snprintf(ib, sizeof ib, "[%ld, %d]", t, h);
        else snprintf(ib, sizeof ib, "[%ld, %d, %zu]", t, h, e % w);
        if (isinf(x[e])) {  // a float64 value beyond float32's range reads as Inf: say which it is
            const hsize_t start[3] = {(hsize_t)t, (hsize_t)h, (hsize_t)(e % w)}, one[3] = {1, 1, 1};
            double v = 0;
            if (h5u_slab(im->d[ds], 0, H5T_NATIVE_DOUBLE, &v, rank2 ? 2 : 3, start, one) == STEPQ_OK && isfinite(v)) {
                stepq_error("%s: dataset '%s' holds %.17g at index %s, beyond float32's range (the recurrence runs "
                            "in float32)", im->path, stepq_input_name[ds], v, ib);
                return STEPQ_ERR;
            }
        }
        return value_error(im->path, stepq_input_name[ds], x[e], ib, lo, hi);
    }
    return STEPQ_OK;
}

// steps [t0, t0 + n) of value head hv (q/k head hk) into the cursor, checked (method 6.1)
static int read_chunk(stream_cursor* c, const stream_impl* im, long t0, long n) {
    const int hv = c->base.h, hk = hv / (im->meta.HV / im->meta.H);
    const hsize_t T0 = (hsize_t)t0, N = (hsize_t)n;
    hsize_t sq[3] = {T0, (hsize_t)hk, 0}, cq[3] = {N, 1, (hsize_t)im->meta.K};
    hsize_t sv[3] = {T0, (hsize_t)hv, 0}, cv[3] = {N, 1, (hsize_t)im->meta.V};
    hsize_t cg[3] = {N, 1, (hsize_t)im->meta.K}, cb[2] = {N, 1};
    const hid_t F = H5T_NATIVE_FLOAT;
    int rc;
#pragma omp critical(stepq_hdf5)
    rc = h5u_slab(im->d[DS_Q], 0, F, c->r.q, 3, sq, cq) || h5u_slab(im->d[DS_K], 0, F, c->r.k, 3, sq, cq) ||
         h5u_slab(im->d[DS_V], 0, F, c->r.v, 3, sv, cv) ||
         h5u_slab(im->d[DS_G], 0, F, c->r.g, im->G > 1 ? 3 : 2, sv, im->G > 1 ? cg : cb) ||
         h5u_slab(im->d[DS_BETA], 0, F, c->r.beta, 2, sv, cb);
    if (rc) {
        stepq_error("%s: cannot read steps %ld-%ld of head %d", im->path, t0, t0 + n - 1, hv);
        return STEPQ_ERR;
    }
#pragma omp atomic
    chunks_read++;
    c->t0 = t0;
    c->n = n;
    const step_rows* r = &c->r;
    if (check_chunk(im, DS_Q, r->q, t0, n, hk, r->K) || check_chunk(im, DS_K, r->k, t0, n, hk, r->K) ||
        check_chunk(im, DS_V, r->v, t0, n, hv, r->V) || check_chunk(im, DS_G, r->g, t0, n, hv, r->G) ||
        check_chunk(im, DS_BETA, r->beta, t0, n, hv, 1))
        return STEPQ_ERR;
    // q and k L2-normalised per head and step, or normalised here (source.normalize); q first
    for (int w = 0; w < 2; w++)
        for (long t = 0; t < n; t++)
            if (check_norm_row(im->path, stepq_input_name[w ? DS_K : DS_Q], (w ? r->k : r->q) + (size_t)t * r->K, r->K,
                               t0 + t, hk, im->normalize, im->meta.qk_norm_eps))
                return STEPQ_ERR;
    return STEPQ_OK;
}

static int stream_next(stepq_cursor* base, stepq_step_in* out) {
    stream_cursor* c = (stream_cursor*)base;
    const stream_impl* im = base->src->impl;
    const long t = base->t;
    if (t >= im->meta.T) return STEPQ_END;
    if (t < c->t0 || t >= c->t0 + c->n) {
        long n = im->meta.T - t < im->chunk ? im->meta.T - t : im->chunk;
        if (read_chunk(c, im, t, n) != STEPQ_OK) return STEPQ_ERR;
    }
    const step_rows r = rows_from(&c->r, (size_t)(t - c->t0));
    out->q = r.q;
    out->k = r.k;
    out->v = r.v;
    out->g = r.g;
    out->beta = *r.beta;
    base->t++;
    return STEPQ_OK;
}

static void impl_free(stream_impl* im) {
    for (int d = 0; d < N_DS; d++)
        if (im->d[d] >= 0) H5Dclose(im->d[d]);
    if (im->f >= 0) H5Fclose(im->f);
    stepq_trace_free(&im->meta);
    free(im);
}

static void stream_destroy(stepq_source* src) {
    impl_free(src->impl);
    free(src->layer);
    free(src->head);
    free(src);
}

// the shapes, kind, scale, S0 and labels of the trace at path, the datasets left open in im
static int stream_meta(stream_impl* im, const char* path) {
    stepq_trace* tr = &im->meta;
    hid_t f = im->f;
    hsize_t dq[3], dk[3], dv[3], dg[3], db[2], ds[3];
    if (read_kind(&tr->kind, f, path)) return STEPQ_ERR;
    const int g_rank = stepq_kind_of(tr->kind)->gate_per_key ? 3 : 2;
    // HDF5's chunk cache, per dataset: the traces stepq writes hold one head's chunk of steps per
    // HDF5 chunk, which a cursor reads whole and once (no cache needed); a file chunked across
    // heads is read again for each head, through 4 MiB of cache per dataset, so that memory stays
    // a few chunks whatever the file
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    H5Pset_chunk_cache(dapl, 521, (size_t)4 << 20, 1.0);
    int rc = h5u_open_f32(&im->d[DS_Q], dq, f, path, "q", 3, 1, dapl) ||
             h5u_open_f32(&im->d[DS_K], dk, f, path, "k", 3, 1, dapl) ||
             h5u_open_f32(&im->d[DS_V], dv, f, path, "v", 3, 1, dapl) ||
             h5u_open_f32(&im->d[DS_G], dg, f, path, "g", g_rank, 1, dapl) ||
             h5u_open_f32(&im->d[DS_BETA], db, f, path, "beta", 2, 1, dapl) ||
             h5u_read_f32(&tr->S0, ds, f, path, "S0", 3, 0);
    H5Pclose(dapl);
    if (rc) return STEPQ_ERR;
    tr->T = (long)dq[0];
    tr->H = (int)dq[1];
    tr->K = (int)dq[2];
    tr->HV = (int)dv[1];
    tr->V = (int)dv[2];
    if (check_shapes(tr, path, dq, dk, dv, dg, db, ds, g_rank) || read_labels(tr, f, path) ||
        read_scale(tr, f, path) || read_norm_eps(tr, f, path) || read_model(tr, f, path) ||
        (tr->S0 && check_values(path, "S0", tr->S0, ds, 3, -INFINITY, INFINITY)))
        return STEPQ_ERR;
    return STEPQ_OK;
}

int stepq_trace_open(stepq_source** out, const char* path, int normalize) {
    *out = NULL;
    stream_impl* im = callocCheck(1, sizeof *im);
    for (int d = 0; d < N_DS; d++) im->d[d] = -1;
    snprintf(im->path, sizeof im->path, "%s", path);
    im->f = h5u_open_read(path, "trace", "");
    if (im->f < 0 || stream_meta(im, path) != STEPQ_OK) {
        impl_free(im);
        return STEPQ_ERR;
    }
    const stepq_trace* t = &im->meta;
    im->G = stepq_kind_gates(t->kind, t->K);
    im->normalize = normalize;
    im->chunk = stepq_trace_chunk_steps();
    stepq_source* s = callocCheck(1, sizeof *s);
    describe_source(s, t, path);
    s->open = stream_open;
    s->next = stream_next;
    s->close = stream_close;
    s->destroy = stream_destroy;
    s->impl = im;
    *out = s;
    return STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------
// writing a source as it is read: each head's steps a chunk at a time into chunked datasets
// (one chunk = stepq_trace_chunk_steps() steps of one head, the unit the streamed reader reads)

typedef struct {
    hid_t d[N_DS];
    int failed;
    int err;  // errno of the first failed write
    stepq_progress prog;  // steps x heads written
} stream_out;

// steps [t0, t0 + n) of head h from the first n rows of r
static void write_chunk(stream_out* w, int h, long t0, long n, const step_rows* r) {
    hsize_t s3[3] = {(hsize_t)t0, (hsize_t)h, 0}, cq[3] = {(hsize_t)n, 1, (hsize_t)r->K};
    hsize_t cv[3] = {(hsize_t)n, 1, (hsize_t)r->V}, cg[3] = {(hsize_t)n, 1, (hsize_t)r->G}, cb[2] = {(hsize_t)n, 1};
    const hid_t F = H5T_NATIVE_FLOAT;
    const int G = r->G;
#pragma omp critical(stepq_hdf5)
    {
        int rc = h5u_slab(w->d[DS_Q], 1, F, r->q, 3, s3, cq) || h5u_slab(w->d[DS_K], 1, F, r->k, 3, s3, cq) ||
                 h5u_slab(w->d[DS_V], 1, F, r->v, 3, s3, cv) ||
                 h5u_slab(w->d[DS_G], 1, F, r->g, G > 1 ? 3 : 2, s3, G > 1 ? cg : cb) ||
                 h5u_slab(w->d[DS_BETA], 1, F, r->beta, 2, s3, cb);
        if (rc && !w->failed) w->err = errno;
        if (rc) w->failed = 1;
    }
    stepq_progress_add(&w->prog, n);
}

// the datasets of a T-step trace of src in f (chunked a head's stepq_trace_chunk_steps() steps
// at a time) into w->d, and its attributes, labels and identity; nonzero on a failure
static int open_stream_out(stream_out* w, hid_t f, const stepq_source* src, long T, const char* note,
                           int (*attrs)(hid_t f, const void* ctx), const void* ctx) {
    const int HV = src->n_heads, K = src->K, V = src->V, kda = stepq_kind_of(src->kind)->gate_per_key;
    const long C = stepq_trace_chunk_steps();
    hsize_t dqk[3] = {(hsize_t)T, (hsize_t)HV, (hsize_t)K}, dv[3] = {(hsize_t)T, (hsize_t)HV, (hsize_t)V};
    hsize_t ds[3] = {(hsize_t)HV, (hsize_t)K, (hsize_t)V}, cqk[3] = {(hsize_t)C, 1, (hsize_t)K};
    hsize_t cv[3] = {(hsize_t)C, 1, (hsize_t)V}, cb[3] = {(hsize_t)C, 1, (hsize_t)K};
    const hid_t F = H5T_NATIVE_FLOAT;
    w->d[DS_Q] = h5u_create_chunked(f, "q", F, 3, dqk, cqk, "1", "query, L2-normalised, unscaled [T,H,K]");
    w->d[DS_K] = h5u_create_chunked(f, "k", F, 3, dqk, cqk, "1", "key, L2-normalised [T,H,K]");
    w->d[DS_V] = h5u_create_chunked(f, "v", F, 3, dv, cv, "1", "value [T,HV,V]");
    w->d[DS_G] = h5u_create_chunked(f, "g", F, kda ? 3 : 2, dqk, cb, "nats per step",
                                    kda ? "log gate per key channel [T,HV,K]" : "log gate [T,HV]");
    w->d[DS_BETA] = h5u_create_chunked(f, "beta", F, 2, dqk, cb, "1", "write strength [T,HV]");
    int rc = h5u_attr_str(f, "kind", stepq_kind_name(src->kind)) || h5u_attr_f64(f, "scale", src->scale) ||
             (src->qk_norm_eps > 0 && h5u_attr_f64(f, "qk_norm_eps", src->qk_norm_eps)) ||
             (note && h5u_attr_str(f, "note", note)) ||
             (src->S0 && h5u_write(f, "S0", F, src->S0, 3, ds, "1", "initial state, K-first [HV,K,V]")) ||
             h5u_write(f, "layer", H5T_NATIVE_INT, src->layer, 1, ds, NULL, "the model's layer of each value head [HV]") ||
             h5u_write(f, "head", H5T_NATIVE_INT, src->head, 1, ds, NULL, "the model's head of each value head [HV]") ||
             (attrs && attrs(f, ctx));
    if (!rc) {
        stepq_trace id = {.kind = src->kind, .H = HV, .HV = HV, .K = K, .V = V,
                          .scale = src->scale, .qk_norm_eps = src->qk_norm_eps, .layer = src->layer,
                          .head = src->head};
        snprintf(id.model_sha256, sizeof id.model_sha256, "%s", src->model_sha256);
        rc = stepq_trace_write_identity(f, &id);
    }
    for (int d = 0; d < N_DS; d++) rc = rc || w->d[d] < 0;
    return rc;
}

// T steps of a lockstep source (one cursor for every head) into w, a chunk of steps of all heads
// at a time; 1 when the source failed
static int write_lockstep(stream_out* w, const stepq_source* src, long T) {
    const int HV = src->n_heads, K = src->K, V = src->V, G = src->n_gates;
    const long C = stepq_trace_chunk_steps();
    step_rows r = rows_alloc((size_t)C * HV, K, V, G);  // (HV, C, *): each head's chunk contiguous
    stepq_step_in* in = mallocCheck(sizeof(stepq_step_in) * HV);
    stepq_cursor* c = src->open(src, -1);
    int source_failed = 0;
    for (long t0 = 0; t0 < T && !w->failed && !source_failed; t0 += C) {
        const long n = T - t0 < C ? T - t0 : C;
        for (long i = 0; i < n && !source_failed; i++) {
            if (stepq_next_step(c, in) != STEPQ_OK) {
                source_failed = 1;
                break;
            }
            for (int h = 0; h < HV; h++) put_step(&r, (size_t)h * C + (size_t)i, &in[h]);
        }
        for (int h = 0; h < HV && !source_failed; h++) {
            const step_rows head = rows_from(&r, (size_t)h * C);
            write_chunk(w, h, t0, n, &head);
        }
    }
    src->close(c);
    rows_free(&r);
    free(in);
    return source_failed;
}

// T steps of a source with a cursor per head into w, the heads shared among the threads, each
// head a chunk of steps at a time; 1 when the source failed
static int write_per_head(stream_out* w, const stepq_source* src, long T) {
    const int HV = src->n_heads, K = src->K, V = src->V, G = src->n_gates;
    const long C = stepq_trace_chunk_steps();
    int source_failed = 0;
#pragma omp parallel
    {
        step_rows r = rows_alloc((size_t)C, K, V, G);
#pragma omp for schedule(dynamic, 1)
        for (int h = 0; h < HV; h++) {
            stepq_cursor* c = src->open(src, h);
            for (long t0 = 0; t0 < T && !w->failed && !source_failed; t0 += C) {
                const long n = T - t0 < C ? T - t0 : C;
                for (long i = 0; i < n; i++) {
                    stepq_step_in in;
                    if (stepq_next_step(c, &in) != STEPQ_OK) {
#pragma omp atomic write
                        source_failed = 1;
                        break;
                    }
                    put_step(&r, (size_t)i, &in);
                }
                if (!source_failed) write_chunk(w, h, t0, n, &r);
            }
            src->close(c);
        }
        rows_free(&r);
    }
    return source_failed;
}

int stepq_trace_write_source(const char* path, const stepq_source* src, long T, const char* note,
                             int (*attrs)(hid_t f, const void* ctx), const void* ctx) {
    h5u_quiet();
    if (T > src->T) {
        stepq_error("%s has %ld steps; %ld were asked for", src->desc, src->T, T);
        return STEPQ_ERR;
    }
    const int HV = src->n_heads, K = src->K, V = src->V, G = src->n_gates;
    // its size is known: refused up front where it cannot fit (7 PB streamed for hours before)
    if (stepq_output_space(path, 4.0 * HV * ((double)T * (2.0 * K + V + G + 1) + (src->S0 ? (double)K * V : 0))))
        return STEPQ_ERR;
    hid_t f = h5u_create(path);
    if (f < 0) return STEPQ_ERR;
    stream_out w = {.d = {-1, -1, -1, -1, -1}, .failed = 0, .err = 0, .prog = {0}};
    stepq_progress_start(&w.prog, "trace", "steps x heads", T * HV);
    int rc = open_stream_out(&w, f, src, T, note, attrs, ctx);
    if (!rc) {
        const int source_failed = src->lockstep ? write_lockstep(&w, src, T) : write_per_head(&w, src, T);
        if (w.failed) stepq_error("cannot write %s: %s; nothing was left there", path, h5u_reason(w.err));
        rc = w.failed || source_failed;
    }
    for (int d = 0; d < N_DS; d++)
        if (w.d[d] >= 0) H5Dclose(w.d[d]);
    if (rc) {
        h5u_abandon(f, path);
        return STEPQ_ERR;
    }
    return h5u_commit(f, path);
}

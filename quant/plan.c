// plan.c: the plan as data: allocation, lookup, HDF5
// round trip with every check, and the closed forms of method 4.1 (row influence w, lifetime
// weight L).
#include "plan.h"

#include <hdf5.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"

const char* const stepq_alloc_names[STEPQ_N_ALLOC] = {"time", "time_nopivot", "stepquant", "mlife",
                                                      "rlife"};
const int stepq_plan_widths[STEPQ_NW] = {2, 4, 6, 8, 16};
const int stepq_plan_budgets[STEPQ_N_BUDGETS] = {4, 6};

// the layout of a plan file; plans of another version are refused with a message
#define STEPQ_PLAN_VERSION "2"

// the bytes stepq_plan_alloc takes for H heads (kept beside it: the same arrays, counted)
static double plan_bytes(int kind, int K, long long H) {
    const double HG = (double)H * stepq_kind_units(kind, K), HK = (double)H * K;
    return (double)H * 2 * sizeof(int) + HG * (4 * sizeof(double) + 2 * STEPQ_NW * sizeof(double)) +
           HK * (sizeof(double) + sizeof(float)) + HG * STEPQ_N_ALLOC * STEPQ_N_BUDGETS + HK;
}

void stepq_plan_alloc(stepq_plan* p, int kind, int K, int V, int H) {
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->K = K;
    p->V = V;
    p->H = H;
    p->G = stepq_kind_units(kind, K);
    size_t HG = (size_t)H * p->G, HK = (size_t)H * K;
    p->layer = callocCheck((size_t)H, sizeof(int));
    p->head = callocCheck((size_t)H, sizeof(int));
    p->l = callocCheck(HG, sizeof(double));
    p->L = callocCheck(HG, sizeof(double));
    p->M = callocCheck(HG, sizeof(double));
    p->R = callocCheck(HG, sizeof(double));
    p->omega = callocCheck(HK, sizeof(double));
    p->w = callocCheck(HK, sizeof(float));
    p->d_dual = callocCheck(HG * STEPQ_NW, sizeof(double));
    p->d_abs = callocCheck(HG * STEPQ_NW, sizeof(double));
    for (int a = 0; a < STEPQ_N_ALLOC; a++)
        for (int b = 0; b < STEPQ_N_BUDGETS; b++) p->bits[a][b] = callocCheck(HG, 1);
    p->damp = callocCheck(HK, 1);
}

int stepq_plan_same_encoding(const stepq_plan* a, const stepq_plan* b) {
    if (a->kind != b->kind || a->K != b->K || a->V != b->V || a->H != b->H || a->G != b->G || a->rho != b->rho ||
        a->refits != b->refits)
        return 0;
    const size_t H = (size_t)a->H, HK = H * a->K, HG = H * a->G;
    int same = !memcmp(a->layer, b->layer, sizeof(int) * H) && !memcmp(a->head, b->head, sizeof(int) * H) &&
               !memcmp(a->w, b->w, sizeof(float) * HK) && !memcmp(a->damp, b->damp, HK);
    for (int t = 0; t < STEPQ_N_ALLOC; t++)
        for (int u = 0; u < STEPQ_N_BUDGETS; u++) same = same && !memcmp(a->bits[t][u], b->bits[t][u], HG);
    return same;
}

uint64_t stepq_plan_encoding_xxh3(const stepq_plan* p) {
    const int shape[6] = {p->kind, p->K, p->V, p->H, p->G, p->refits};
    const double rho = p->rho == 0 ? 0.0 : p->rho;  // -0 compares equal to 0
    const size_t H = (size_t)p->H, HK = H * p->K, HG = H * p->G;
    uint64_t x = stepq_xxh3(0, shape, sizeof shape);
    x = stepq_xxh3(x, &rho, sizeof rho);
    x = stepq_xxh3(x, p->layer, sizeof(int) * H);
    x = stepq_xxh3(x, p->head, sizeof(int) * H);
    x = stepq_xxh3(x, p->w, sizeof(float) * HK);
    x = stepq_xxh3(x, p->damp, HK);
    for (int t = 0; t < STEPQ_N_ALLOC; t++)
        for (int u = 0; u < STEPQ_N_BUDGETS; u++) x = stepq_xxh3(x, p->bits[t][u], HG);
    return x;
}

void stepq_plan_free(stepq_plan* p) {
    free(p->layer); free(p->head); free(p->l); free(p->L); free(p->M); free(p->R); free(p->omega);
    free(p->w); free(p->d_dual); free(p->d_abs); free(p->damp);
    for (int a = 0; a < STEPQ_N_ALLOC; a++)
        for (int b = 0; b < STEPQ_N_BUDGETS; b++) free(p->bits[a][b]);
    memset(p, 0, sizeof *p);
}

int stepq_plan_find(const stepq_plan* p, int layer, int head) {
    for (int h = 0; h < p->H; h++)
        if (p->layer[h] == layer && p->head[h] == head) return h;
    return -1;
}

void stepq_row_influence(float* w, const double* omega, double gamma, int K) {
    double mean = 0;
    for (int i = 0; i < K; i++) mean += log(fmax(omega[i], 1e-300));
    mean /= K;
    for (int i = 0; i < K; i++) w[i] = (float)exp(gamma / 2 * (log(fmax(omega[i], 1e-300)) - mean));
}

double stepq_lifetime_weight(double l, double horizon) {
    if (l == 0) return horizon;
    return expm1(2 * horizon * l) / expm1(2 * l);
}

int stepq_budget_index(int b) {
    for (int i = 0; i < STEPQ_N_BUDGETS; i++)
        if (stepq_plan_budgets[i] == b) return i;
    return -1;
}

void stepq_head_plan_uniform(stepq_head_plan* hp, uint8_t* rows, int bits, int kind, int K) {
    for (int i = 0; i < K; i++) rows[i] = (uint8_t)bits;
    hp->kind = kind;
    hp->bits = rows;
    hp->w = NULL;
    hp->rho = 0.5f;
    hp->refits = 1;
}

// ---------------------------------------------------------------------------------------------
// HDF5

uint64_t stepq_plan_knobs_xxh3(const stepq_plan* p) {
    char buf[512];
    // the model enters only where recorded, so that the plans made before it keep their checksum
    const int n = snprintf(buf, sizeof buf, "%s K=%d V=%d H=%d gamma=%a rho=%a horizon=%a refits=%d pivots=%d "
                           "damp_fraction=%a key=%s%s%s", stepq_kind_name(p->kind), p->K, p->V, p->H, p->gamma, p->rho,
                           p->horizon, p->refits, p->pivots, p->damp_fraction, p->calibration_key,
                           p->model_sha256[0] ? " model=" : "", p->model_sha256);
    return stepq_xxh3(0, buf, (size_t)n);
}

static void table_name(char* buf, size_t n, int a, int b) {
    snprintf(buf, n, "alloc/%s/budget%d", stepq_alloc_names[a], stepq_plan_budgets[b]);
}

// hex (17 bytes) <- stepq_plan_knobs_xxh3(p) as the attribute knobs_xxh3 holds it
static void knobs_hex(char* hex, const stepq_plan* p) { snprintf(hex, 17, "%016" PRIx64, stepq_plan_knobs_xxh3(p)); }

static int write_knobs_xxh3(hid_t f, const stepq_plan* p) {
    char hex[17];
    knobs_hex(hex, p);
    return h5u_attr_str(f, "knobs_xxh3", hex);
}

// the shapes of a plan's datasets, from its H, G and K (the writer's and the reader's)
typedef struct {
    hsize_t H[1], HG[2], HK[2], D[3], W[1];
} plan_dims;

static plan_dims dims_of(const stepq_plan* p) {
    const hsize_t H = (hsize_t)p->H, G = (hsize_t)p->G, K = (hsize_t)p->K;
    return (plan_dims){.H = {H}, .HG = {H, G}, .HK = {H, K}, .D = {H, G, STEPQ_NW}, .W = {STEPQ_NW}};
}

// the plan's attributes: its layout version, kind, shape, knobs and where it came from
static int write_attrs(hid_t f, const stepq_plan* p, const char* config, const char* source) {
    return h5u_attr_str(f, "stepq_plan", STEPQ_PLAN_VERSION) || h5u_attr_str(f, "kind", stepq_kind_name(p->kind)) ||
           h5u_attr_i64(f, "K", p->K) || h5u_attr_i64(f, "V", p->V) || h5u_attr_i64(f, "H", p->H) ||
           h5u_attr_f64(f, "gamma", p->gamma) || h5u_attr_f64(f, "rho", p->rho) ||
           h5u_attr_f64(f, "horizon", p->horizon) || h5u_attr_i64(f, "refits", p->refits) ||
           h5u_attr_i64(f, "pivots", p->pivots) || h5u_attr_f64(f, "damp_fraction", p->damp_fraction) ||
           h5u_attr_str(f, "config", config ? config : "") ||
           h5u_attr_str(f, "calibration_source", source ? source : "") ||
           (p->calibration_key[0] && h5u_attr_str(f, "calibration_key", p->calibration_key)) ||
           (p->model_sha256[0] && h5u_attr_str(f, "model_weights_sha256", p->model_sha256)) ||
           write_knobs_xxh3(f, p);
}

// the per-head, per-unit and per-row measurements (method 4.1), the heads' labels into the group
// heads; half_life is for readers, derived from mean_log_gate and not read back
static int write_arrays(hid_t f, hid_t heads, const stepq_plan* p) {
    const plan_dims d = dims_of(p);
    const hid_t D = H5T_NATIVE_DOUBLE, I = H5T_NATIVE_INT, U8 = H5T_NATIVE_UINT8;
    const size_t HG = (size_t)p->H * p->G;
    double* half = mallocCheck(sizeof(double) * HG);
    for (size_t u = 0; u < HG; u++) half[u] = p->l[u] < 0 ? M_LN2 / -p->l[u] : INFINITY;
    const int rc =
        h5u_write_ck(heads, "layer", I, p->layer, 1, d.H, NULL, "model layer of each head") ||
        h5u_write_ck(heads, "head", I, p->head, 1, d.H, NULL, "head within its layer") ||
        h5u_write_ck(f, "widths", I, stepq_plan_widths, 1, d.W, "bits", "candidate widths; 16 = FP16 pivot") ||
        h5u_write_ck(f, "mean_log_gate", D, p->l, 2, d.HG, "nats/step", "l_u per unit [H,G] (G = 1 GDN, K KDA)") ||
        h5u_write_ck(f, "half_life", D, half, 2, d.HG, "steps", "ln 2 / -l_u per unit [H,G]") ||
        h5u_write_ck(f, "lifetime", D, p->L, 2, d.HG, "steps", "L_u = sum_{j<horizon} exp(2 j l_u) [H,G]") ||
        h5u_write_ck(f, "measured_lifetime", D, p->M, 2, d.HG, "steps",
                     "sum over the horizon of ||P_j e||^2, P_j the products of A_t, per unit [H,G]") ||
        h5u_write_ck(f, "readout_lifetime", D, p->R, 2, d.HG, "1",
                     "sum over the horizon of the squared read-out error of a unit error injected at "
                     "a segment's start, (P_j^T g_{j+1})_i^2, per unit [H,G]") ||
        h5u_write_ck(f, "omega", D, p->omega, 2, d.HK, "1", "E[(A_t^T scale q_t)_i^2] per key row [H,K]") ||
        h5u_write_ck(f, "w", H5T_NATIVE_FLOAT, p->w, 2, d.HK, "1",
                     "row influence exp(gamma/2 (log omega - head mean)) [H,K]") ||
        h5u_write_ck(f, "distortion_dual", D, p->d_dual, 3, d.D, "(state units)^2",
                     "d_u(b), dual-axis fit, per width of 'widths' [H,G,NW]") ||
        h5u_write_ck(f, "distortion_absmax", D, p->d_abs, 3, d.D, "(state units)^2",
                     "d_u(b), per-row absmax, per width of 'widths' [H,G,NW]") ||
        h5u_write_ck(f, "damp_fp16_rows", U8, p->damp, 2, d.HK, NULL, "1 = row kept in FP16 by DAMP [H,K]");
    free(half);
    return rc;
}

// the allocation tables, alloc/<allocation>/budget<b>, each with its achieved bits and objective
static int write_tables(hid_t f, const stepq_plan* p) {
    const plan_dims d = dims_of(p);
    int rc = 0;
    for (int a = 0; a < STEPQ_N_ALLOC && !rc; a++) {
        char name[96];
        snprintf(name, sizeof name, "alloc/%s", stepq_alloc_names[a]);
        hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        rc = g < 0;
        if (g >= 0) H5Gclose(g);
        for (int b = 0; b < STEPQ_N_BUDGETS && !rc; b++) {
            table_name(name, sizeof name, a, b);
            rc = h5u_write_ck(f, name, H5T_NATIVE_UINT8, p->bits[a][b], 2, d.HG, "bits",
                              "width of each unit; 16 = FP16 pivot [H,G]");
            hid_t ds = rc ? -1 : H5Dopen2(f, name, H5P_DEFAULT);
            rc = rc || h5u_attr_f64(ds, "achieved_bits", p->achieved[a][b]) ||
                 h5u_attr_f64(ds, "objective", p->objective[a][b]);
            if (ds >= 0) H5Dclose(ds);
        }
    }
    return rc;
}

int stepq_plan_write(const char* path, stepq_plan* p, const char* config, const char* source) {
    snprintf(p->file, sizeof p->file, "%s", path);
    hid_t f = h5u_create(path);
    if (f < 0) return STEPQ_ERR;
    hid_t g1 = H5Gcreate2(f, "heads", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g2 = H5Gcreate2(f, "alloc", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int rc = g1 < 0 || g2 < 0 || write_attrs(f, p, config, source) || write_arrays(f, g1, p) ||
                   write_tables(f, p);
    if (g1 >= 0) H5Gclose(g1);
    if (g2 >= 0) H5Gclose(g2);
    if (rc) {
        h5u_abandon(f, path);
        return STEPQ_ERR;
    }
    return h5u_commit(f, path);
}

static int read_int_attr(long long* out, hid_t f, const char* path, const char* name, long long lo,
                         long long hi) {
    double v;
    int has = h5u_read_attr_f64(&v, f, path, name);
    if (has != 1 || v != floor(v) || v < lo || v > hi) {
        stepq_error("%s: attribute '%s' missing or out of range [%lld, %lld]: not a stepq plan, "
                    "or corrupted", path, name, lo, hi);
        return STEPQ_ERR;
    }
    *out = (long long)v;
    return STEPQ_OK;
}

static int check_plan(const stepq_plan* p, const char* path) {
    size_t HG = (size_t)p->H * p->G, HK = (size_t)p->H * p->K;
    for (size_t i = 0; i < HK; i++)
        if (!(p->w[i] > 0 && isfinite(p->w[i])) || !(p->omega[i] >= 0) || p->damp[i] > 1) {
            stepq_error("%s: w, omega or damp_fp16_rows invalid at [%zu, %zu] (corrupted plan)", path,
                        i / p->K, i % p->K);
            return STEPQ_ERR;
        }
    for (size_t u = 0; u < HG; u++) {
        if (!(p->L[u] >= 0 && isfinite(p->L[u])) || !(p->l[u] <= 0) || !(p->M[u] >= 0 && isfinite(p->M[u])) ||
            !(p->R[u] >= 0 && isfinite(p->R[u]))) {
            stepq_error("%s: a lifetime or mean_log_gate is invalid at unit %zu (corrupted plan)", path, u);
            return STEPQ_ERR;
        }
        for (int a = 0; a < STEPQ_N_ALLOC; a++)
            for (int b = 0; b < STEPQ_N_BUDGETS; b++) {
                int w = p->bits[a][b][u], ok = 0;
                for (int k = 0; k < STEPQ_NW; k++) ok |= w == stepq_plan_widths[k];
                if (!ok) {
                    stepq_error("%s: alloc/%s/budget%d holds width %d at unit %zu (corrupted plan)",
                                path, stepq_alloc_names[a], stepq_plan_budgets[b], w, u);
                    return STEPQ_ERR;
                }
            }
    }
    for (int h = 0; h < p->H; h++)
        if (stepq_plan_find(p, p->layer[h], p->head[h]) != h) {
            stepq_error("%s: head (%d, %d) appears twice (corrupted plan)", path, p->layer[h], p->head[h]);
            return STEPQ_ERR;
        }
    return STEPQ_OK;
}

// a plan's header: its kind and shape, and the knobs that are integers
typedef struct {
    int kind;
    long long K, V, H, refits, pivots;
} plan_header;

static int read_header(plan_header* hd, hid_t f, const char* path) {
    char* kind = NULL;
    if (h5u_read_attr_str(&kind, f, path, "kind", 1)) return STEPQ_ERR;
    hd->kind = stepq_kind_parse(kind, 0, path, "attribute 'kind'");
    free(kind);
    if (hd->kind < 0) return STEPQ_ERR;
    if (read_int_attr(&hd->K, f, path, "K", 1, STEPQ_MAX_DIM) || read_int_attr(&hd->V, f, path, "V", 8, STEPQ_MAX_DIM) ||
        read_int_attr(&hd->H, f, path, "H", 1, 1 << 24) ||
        read_int_attr(&hd->refits, f, path, "refits", 0, STEPQ_KNOB_REFITS_MAX) ||
        read_int_attr(&hd->pivots, f, path, "pivots", 0, STEPQ_KNOB_PIVOTS_MAX))
        return STEPQ_ERR;
    return STEPQ_OK;
}

// the header's H against the plan's own list of heads before anything is sized by it (an
// edited H of 2^24 asked for gigabytes; so did one with that list deleted, found by fuzz_plan)
static int check_heads_listed(hid_t f, const char* path, long long H) {
    hid_t dl = H5Lexists(f, "heads", H5P_DEFAULT) > 0 && H5Lexists(f, "heads/layer", H5P_DEFAULT) > 0
                   ? H5Dopen2(f, "heads/layer", H5P_DEFAULT)
                   : -1;
    if (dl < 0) {
        stepq_error("%s: missing dataset 'heads/layer' (a corrupted plan)", path);
        return STEPQ_ERR;
    }
    hid_t sp = H5Dget_space(dl);
    hsize_t n = 0;
    const int one = H5Sget_simple_extent_ndims(sp) == 1 && H5Sget_simple_extent_dims(sp, &n, NULL) == 1;
    H5Sclose(sp);
    H5Dclose(dl);
    if (!one || n != (hsize_t)H) {
        stepq_error("%s: attribute 'H' = %lld, but 'heads/layer' lists %llu heads (a corrupted plan)", path, H,
                    (unsigned long long)n);
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

// the knobs that are reals, each within the calibration configs' range (a flipped bit made rho
// 9e307 and the errors 50-80%)
static int read_knobs(stepq_plan* p, hid_t f, const char* path) {
    if (h5u_read_attr_f64(&p->gamma, f, path, "gamma") != 1 || h5u_read_attr_f64(&p->rho, f, path, "rho") != 1 ||
        h5u_read_attr_f64(&p->horizon, f, path, "horizon") != 1 ||
        h5u_read_attr_f64(&p->damp_fraction, f, path, "damp_fraction") != 1) {
        stepq_error("%s: a knob attribute (gamma, rho, horizon, damp_fraction) is missing", path);
        return STEPQ_ERR;
    }
    static const struct { const char* name; double lo, hi; } knobs[] = {
        {"gamma", 0, STEPQ_KNOB_GAMMA_MAX}, {"rho", 0, STEPQ_KNOB_RHO_MAX},
        {"horizon", STEPQ_KNOB_HORIZON_MIN, STEPQ_KNOB_HORIZON_MAX}, {"damp_fraction", 0, 1}};
    const double vals[] = {p->gamma, p->rho, p->horizon, p->damp_fraction};
    for (int i = 0; i < 4; i++)
        if (!(vals[i] >= knobs[i].lo && vals[i] <= knobs[i].hi)) {
            stepq_error("%s: attribute '%s' = %.17g is outside [%g, %g] (a corrupted plan)", path, knobs[i].name,
                        vals[i], knobs[i].lo, knobs[i].hi);
            return STEPQ_ERR;
        }
    return STEPQ_OK;
}

// the datasets write_arrays writes (half_life aside), each of exactly its shape; widths into
// widths[STEPQ_NW]
static int read_arrays(stepq_plan* p, int* widths, hid_t f, const char* path) {
    const plan_dims d = dims_of(p);
    const hid_t D = H5T_NATIVE_DOUBLE, I = H5T_NATIVE_INT, U8 = H5T_NATIVE_UINT8;
    if (h5u_read_exact(p->layer, I, f, path, "heads/layer", 1, d.H) ||
        h5u_read_exact(p->head, I, f, path, "heads/head", 1, d.H) ||
        h5u_read_exact(widths, I, f, path, "widths", 1, d.W) ||
        h5u_read_exact(p->l, D, f, path, "mean_log_gate", 2, d.HG) ||
        h5u_read_exact(p->L, D, f, path, "lifetime", 2, d.HG) ||
        h5u_read_exact(p->M, D, f, path, "measured_lifetime", 2, d.HG) ||
        h5u_read_exact(p->R, D, f, path, "readout_lifetime", 2, d.HG) ||
        h5u_read_exact(p->omega, D, f, path, "omega", 2, d.HK) ||
        h5u_read_exact(p->w, H5T_NATIVE_FLOAT, f, path, "w", 2, d.HK) ||
        h5u_read_exact(p->d_dual, D, f, path, "distortion_dual", 3, d.D) ||
        h5u_read_exact(p->d_abs, D, f, path, "distortion_absmax", 3, d.D) ||
        h5u_read_exact(p->damp, U8, f, path, "damp_fp16_rows", 2, d.HK))
        return STEPQ_ERR;
    return STEPQ_OK;
}

// the calibration key and the model's SHA-256 where recorded, then the knobs against their
// checksum knobs_xxh3 (each absent in plans made before it was recorded, which are read as they are)
static int read_ids(stepq_plan* p, hid_t f, const char* path) {
    char* key = NULL;
    if (h5u_read_attr_str(&key, f, path, "calibration_key", 0)) return STEPQ_ERR;
    if (key) snprintf(p->calibration_key, sizeof p->calibration_key, "%s", key);
    free(key);
    char* mw = NULL;  // absent unless calibrated on captures of a model
    if (h5u_read_attr_str(&mw, f, path, "model_weights_sha256", 0)) return STEPQ_ERR;
    if (mw && !stepq_is_sha256_hex(mw)) {
        stepq_error("%s: attribute 'model_weights_sha256' is '%.80s', not a SHA-256 (a corrupted plan)", path, mw);
        free(mw);
        return STEPQ_ERR;
    }
    if (mw) snprintf(p->model_sha256, sizeof p->model_sha256, "%s", mw);
    free(mw);
    char* ck = NULL;
    if (h5u_read_attr_str(&ck, f, path, "knobs_xxh3", 0)) return STEPQ_ERR;
    if (!ck) return STEPQ_OK;
    char want[17];
    knobs_hex(want, p);
    const int same = !strcmp(ck, want);
    if (!same)
        stepq_error("%s: the plan's attributes (kind, shape, knobs, calibration key) do not match their "
                    "checksum knobs_xxh3 (%s, recorded %s): corrupted or edited; make it again with "
                    "`stepq calibrate`", path, want, ck);
    free(ck);
    return same ? STEPQ_OK : STEPQ_ERR;
}

// the tables write_tables writes, with their achieved bits and objectives
static int read_tables(stepq_plan* p, hid_t f, const char* path) {
    const plan_dims d = dims_of(p);
    for (int a = 0; a < STEPQ_N_ALLOC; a++)
        for (int b = 0; b < STEPQ_N_BUDGETS; b++) {
            char name[96];
            table_name(name, sizeof name, a, b);
            if (h5u_read_exact(p->bits[a][b], H5T_NATIVE_UINT8, f, path, name, 2, d.HG)) return STEPQ_ERR;
            hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
            h5u_read_attr_f64(&p->achieved[a][b], ds, path, "achieved_bits");
            h5u_read_attr_f64(&p->objective[a][b], ds, path, "objective");
            H5Dclose(ds);
        }
    return STEPQ_OK;
}

static int read_body(stepq_plan* p, hid_t f, const char* path) {
    plan_header hd;
    if (read_header(&hd, f, path) || check_heads_listed(f, path, hd.H)) return STEPQ_ERR;
    // and what H heads take, against the machine's memory (a list declared long, never written)
    if (stepq_check_memory(plan_bytes(hd.kind, (int)hd.K, hd.H), "the plan's heads")) return STEPQ_ERR;
    stepq_plan_alloc(p, hd.kind, (int)hd.K, (int)hd.V, (int)hd.H);
    p->refits = (int)hd.refits;
    p->pivots = (int)hd.pivots;
    int widths[STEPQ_NW];
    if (read_knobs(p, f, path) || read_arrays(p, widths, f, path) || read_ids(p, f, path)) return STEPQ_ERR;
    if (memcmp(widths, stepq_plan_widths, sizeof widths) != 0) {
        stepq_error("%s: 'widths' differ from this stepq's {2, 4, 6, 8, 16}", path);
        return STEPQ_ERR;
    }
    if (read_tables(p, f, path)) return STEPQ_ERR;
    return check_plan(p, path);
}

int stepq_plan_read(stepq_plan* p, const char* path) {
    memset(p, 0, sizeof *p);
    hid_t f = h5u_open_read(path, "plan", "; make one with `stepq calibrate`");
    if (f < 0) return STEPQ_ERR;
    char* tag = NULL;
    int rc = h5u_read_attr_str(&tag, f, path, "stepq_plan", 1);
    if (rc == STEPQ_OK && strcmp(tag, STEPQ_PLAN_VERSION)) {
        stepq_error("%s: a plan of format %s, this stepq reads format %s (it needs the read-out "
                    "lifetimes): make it again with `stepq calibrate`", path, tag, STEPQ_PLAN_VERSION);
        rc = STEPQ_ERR;
    }
    free(tag);
    if (rc == STEPQ_OK) rc = read_body(p, f, path);
    H5Fclose(f);
    if (rc == STEPQ_OK) snprintf(p->file, sizeof p->file, "%s", path);
    if (rc != STEPQ_OK) stepq_plan_free(p);
    return rc;
}

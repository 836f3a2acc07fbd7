// test_kernels: every fused CPU backend this CPU runs (sim/backend.h) against the reference
// (the decode-step protocol with the reference step and codecs), on every format of the table,
// GDN and KDA plans with every width (2, 4, 6, 8 and FP16 pivots), the paper's 128-wide rows and
// other widths (96: the generic loops; 40: vector tails), states with ridges, zero rows,
// denormals and a row of blocks falling by decades: read-outs, packed bytes, P1 predictions and
// state errors must be equal bit for bit at every step (the kernels keep the reference's
// operations and their order; every other step is unmeasured, as serving runs it), and a step
// whose state turns non-finite must fail in both. Also: the float32 step of each table equals
// the reference's, and LeapQuant's freeze gate decides as the reference's at its threshold,
// which is where ||X - S_prev|| reaches tau ||S_prev||.
//   test_kernels TABLE   one table by name (x86-64-v2, avx2, avx512; "portable" off x86);
//                        exits 77 (skipped) when this CPU cannot run it
#include <stdlib.h>
#include <string.h>

#include "../quant/format.h"
#include "../sim/backend.h"
#include "../sim/recurrence.h"
#include "../sim/sums.h"
#include "testutil.h"

enum { T = 12 };

static void make_plan(stepq_plan* p, int kind, int K, int V, gsl_rng* r) {
    stepq_plan_alloc(p, kind, K, V, 1);
    p->rho = 0.5;
    p->refits = 1;
    double om[STEPQ_MAX_DIM];
    for (int i = 0; i < K; i++) om[i] = exp(gsl_ran_gaussian(r, 1.5));
    stepq_row_influence(p->w, om, 0.25, K);
    for (int i = 0; i < K; i++) p->damp[i] = gsl_rng_uniform(r) < 0.25;
    for (int u = 0; u < p->G; u++)
        for (int a = 0; a < STEPQ_N_ALLOC; a++)
            for (int b = 0; b < STEPQ_N_BUDGETS; b++)  // GDN: one width a head; KDA: a mix
                p->bits[a][b][u] = (uint8_t)stepq_plan_widths[(u * 7 + a + b + (kind ? 0 : 1)) % STEPQ_NW];
}

static void random_state(float* S, int K, int V, gsl_rng* r) {
    for (int i = 0; i < K * V; i++)
        S[i] = (float)(gsl_ran_gaussian(r, 1.0) * (i / V % 9 == 0 ? 12 : 1) * (i % V % 11 == 0 ? 7 : 1));
    memset(S + 3 * V, 0, sizeof(float) * V);                                    // a zero row
    for (int j = 0; j < V; j++) S[5 * V + j] = (float)gsl_ran_gaussian(r, 1e-40);  // denormals
    for (int j = 0; j < V; j++)  // blocks of 16 falling by 2^1.5 each: NVFP4's E4M3 block scales
        S[7 * V + j] = (float)(gsl_ran_gaussian(r, 1.0) * exp2(-3.0 - 1.5 * (j / 16)));  // reach subnormals
}

typedef struct {
    float q[STEPQ_MAX_DIM], k[STEPQ_MAX_DIM], v[STEPQ_MAX_DIM], g[STEPQ_MAX_DIM], beta;
} step_inputs;

static void random_step(step_inputs* s, int K, int V, int G, gsl_rng* r, double vscale) {
    tu_unit(s->q, K, r);
    tu_unit(s->k, K, r);
    for (int j = 0; j < V; j++) s->v[j] = (float)(vscale * gsl_ran_gaussian(r, 1.0));
    for (int i = 0; i < G; i++) s->g[i] = (float)-gsl_ran_exponential(r, 0.1);
    s->beta = (float)gsl_rng_uniform(r);
}

// one format on one kernel table against the reference, T steps (and a non-finite one at the
// end), the inputs v of the standard deviation vscale; keep: through the write halves that keep
// X_t and S_hat_t (write_keep), which must be equal too
static void compare(const stepq_format* f, const stepq_backend* k, const stepq_plan* plan, int kind,
                    int K, int V, gsl_rng* r, double vscale, int keep) {
    const int G = stepq_kind_gates(kind, K);
    const double scale = 1.0 / sqrt((double)K);
    stepq_qstate a, b;
    float* S = malloc(sizeof(float) * K * V);
    float *ya = malloc(sizeof(float) * V), *yb = malloc(sizeof(float) * V);
    float *pa = malloc(sizeof(float) * V), *pb = malloc(sizeof(float) * V);
    float *Sref = malloc(sizeof(float) * K * V), *decay = malloc(sizeof(float) * K);
    double* grad = malloc(sizeof(double) * K);
    float *xa = malloc(sizeof(float) * K * V), *xb = malloc(sizeof(float) * K * V);  // X_t (keep)
    random_state(S, K, V, r);
    if (stepq_qstate_init(&a, f, plan, 0, kind, K, V) || stepq_qstate_init(&b, f, plan, 0, kind, K, V)) {
        CHECK(0, "%s: init", f->name);
        return;
    }
    CHECK(stepq_qstate_load(&a, S) == 0 && stepq_qstate_load(&b, S) == 0, "%s: load", f->name);
    memcpy(Sref, S, sizeof(float) * K * V);
    int bad = 0;
    step_inputs in;
    for (int t = 0; t <= T && !bad; t++) {
        random_step(&in, K, V, G, r, vscale);
        if (t == T) in.v[V / 2] = NAN;  // the last step makes the state non-finite
        stepq_step_in st = {in.q, in.k, in.v, in.g, in.beta};
        stepq_readout_weights(grad, in.q, in.k, in.g, in.beta, scale, G, K);
        stepq_decays(decay, in.g, G, K);
        // every other step as serving runs it: nothing measured (the fused write then skips the
        // decoded rows), the same bytes and read-outs
        const int serving = t % 2 == 1;
        const float* sref = serving ? NULL : Sref;
        if (serving) memset(pa, 0, sizeof(float) * V), memset(pb, 0, sizeof(float) * V);
        stepq_backend_reference.read(&a, &st, decay, serving ? NULL : grad, sref, serving ? NULL : pa);
        k->read(&b, &st, decay, serving ? NULL : grad, sref, serving ? NULL : pb);
        float y[STEPQ_MAX_DIM], w[STEPQ_MAX_DIM];
        stepq_step_f32(Sref, y, w, in.q, in.k, in.v, in.g, in.beta, scale, G, K, V);
        stepq_qmeasure ea = {-1, -1}, eb = {serving || keep ? -1 : -2, -1};  // untouched when serving or keeping
        int ra, rb;
        if (keep) {
            ra = stepq_backend_reference.write_keep(&a, &st, decay, scale, G, ya, xa);
            rb = k->write_keep(&b, &st, decay, scale, G, yb, xb);
        } else {
            ra = stepq_backend_reference.write(&a, &st, decay, scale, G, sref, ya, &ea);
            rb = k->write(&b, &st, decay, scale, G, sref, yb, &eb);
        }
        if (t == T) {
            CHECK(ra != 0 && rb != 0, "%s %s %s V=%d: a non-finite step returned %d (reference %d)",
                  f->name, k->name, stepq_kind_name(kind), V, rb, ra);
            break;
        }
        bad |= ra != 0 || rb != 0 || memcmp(ya, yb, sizeof(float) * V) != 0 ||
               memcmp(pa, pb, sizeof(float) * V) != 0 || memcmp(a.packed, b.packed, a.bytes) != 0 ||
               memcmp(&ea, &eb, sizeof ea) != 0;
        const int states = !keep || (!memcmp(xa, xb, sizeof(float) * K * V) && !memcmp(a.X, b.X, sizeof(float) * K * V));
        bad |= !states;
        CHECK(!bad, "%s %s %s V=%d step %d%s: rc %d/%d, y %s, pred %s, bytes %s, err %.17g vs %.17g, norm %.17g vs %.17g, states %s",
              f->name, k->name, stepq_kind_name(kind), V, t, keep ? " (keep)" : "", ra, rb,
              memcmp(ya, yb, sizeof(float) * V) ? "differ" : "equal",
              memcmp(pa, pb, sizeof(float) * V) ? "differ" : "equal",
              memcmp(a.packed, b.packed, a.bytes) ? "differ" : "equal", ea.err2, eb.err2, ea.hat2, eb.hat2,
              states ? "equal" : "differ");
    }
    stepq_qstate_free(&a);
    stepq_qstate_free(&b);
    free(S); free(ya); free(yb); free(pa); free(pb); free(Sref); free(decay); free(grad); free(xa); free(xb);
}

// the lifetime propagation (calibration) against the reference: P, the three sums and the
// one measured step of format f from state S on the reference (a) and on table k (b): 1 where
// they differ in bytes, read-out or measure; *kept: whether the reference kept its bytes
static int one_step(const stepq_format* f, const stepq_backend* k, const stepq_plan* plan, const float* S,
                    const step_inputs* in, int K, int V, int* kept) {
    const double scale = 1.0 / sqrt((double)K);
    stepq_qstate a, b;
    if (stepq_qstate_init(&a, f, plan, 0, STEPQ_GDN, K, V) || stepq_qstate_init(&b, f, plan, 0, STEPQ_GDN, K, V))
        return 1;
    int bad = stepq_qstate_load(&a, S) != 0 || stepq_qstate_load(&b, S) != 0;
    uint8_t* before = malloc(a.bytes);
    float *Sref = malloc(sizeof(float) * K * V), decay[STEPQ_MAX_DIM], ya[STEPQ_MAX_DIM], yb[STEPQ_MAX_DIM];
    float y[STEPQ_MAX_DIM], w[STEPQ_MAX_DIM];
    memcpy(before, a.packed, a.bytes);
    memcpy(Sref, S, sizeof(float) * K * V);
    stepq_step_in st = {in->q, in->k, in->v, in->g, in->beta};
    stepq_decays(decay, in->g, 1, K);
    stepq_backend_reference.read(&a, &st, decay, NULL, Sref, NULL);
    k->read(&b, &st, decay, NULL, Sref, NULL);
    stepq_step_f32(Sref, y, w, in->q, in->k, in->v, in->g, in->beta, scale, 1, K, V);
    stepq_qmeasure ea = {-1, -1}, eb = {-2, -1};
    bad |= stepq_backend_reference.write(&a, &st, decay, scale, 1, Sref, ya, &ea) != 0 ||
           k->write(&b, &st, decay, scale, 1, Sref, yb, &eb) != 0 ||
           memcmp(ya, yb, sizeof(float) * V) != 0 || memcmp(a.packed, b.packed, a.bytes) != 0 ||
           memcmp(&ea, &eb, sizeof ea) != 0;
    *kept = memcmp(a.packed, before, a.bytes) == 0;
    stepq_qstate_free(&a);
    stepq_qstate_free(&b);
    free(before), free(Sref);
    return bad;
}

// ||X - S_prev||_F / ||S_prev||_F of one step from the stored state of S, summed here in long
// double: S_prev = decode(encode(S)), X = S_prev after the float32 step
static double freeze_ratio(const stepq_format* f, const stepq_plan* plan, const float* S, const step_inputs* in,
                           int K, int V) {
    stepq_qstate a;
    if (stepq_qstate_init(&a, f, plan, 0, STEPQ_GDN, K, V) || stepq_qstate_load(&a, S)) return NAN;
    float *prev = malloc(sizeof(float) * K * V), *X = malloc(sizeof(float) * K * V), y[STEPQ_MAX_DIM], w[STEPQ_MAX_DIM];
    stepq_decode(prev, a.packed, f, &a.hp, K, V);
    memcpy(X, prev, sizeof(float) * K * V);
    stepq_step_f32(X, y, w, in->q, in->k, in->v, in->g, in->beta, 1.0 / sqrt((double)K), 1, K, V);
    long double d2 = 0, p2 = 0;
    for (int e = 0; e < K * V; e++) {
        d2 += ((long double)X[e] - prev[e]) * ((long double)X[e] - prev[e]);
        p2 += (long double)prev[e] * prev[e];
    }
    stepq_qstate_free(&a);
    free(prev), free(X);
    return (double)sqrtl(d2 / p2);
}

// LeapQuant's freeze gate at its threshold: with no decay a step changes the state by
// beta k (v - S^T k)^T, so bisecting beta finds where the reference stops keeping its bytes;
// the kernel must decide as it does at every point, down to beta's last bits there
static void check_freeze(const stepq_backend* k, gsl_rng* r) {
    const stepq_format* f = stepq_format_find("leap6-r4-freeze");
    const int K = 128, V = 128;
    stepq_plan plan;
    make_plan(&plan, STEPQ_GDN, K, V, r);
    float* S = malloc(sizeof(float) * K * V);
    random_state(S, K, V, r);
    step_inputs in;
    random_step(&in, K, V, 1, r, 1.0);
    in.g[0] = 0;
    float lo = 1e-7f, hi = 1.0f;  // kept at lo, changed at hi
    int bad = 0, kept_lo = 0, kept_hi = 1;
    in.beta = lo;
    bad |= one_step(f, k, &plan, S, &in, K, V, &kept_lo);
    in.beta = hi;
    bad |= one_step(f, k, &plan, S, &in, K, V, &kept_hi);
    for (int it = 0; it < 40 && !bad && kept_lo && !kept_hi; it++) {
        float mid = it < 20 ? sqrtf(lo * hi) : lo + 0.5f * (hi - lo);
        if (mid <= lo || mid >= hi) break;  // adjacent floats
        int kept;
        in.beta = mid;
        bad |= one_step(f, k, &plan, S, &in, K, V, &kept);
        if (kept) lo = mid;
        else hi = mid;
    }
    CHECK(!bad && kept_lo && !kept_hi, "%s %s: freeze gate differs from the reference (kept %d at beta %g, %d at %g)",
          f->name, k->name, kept_lo, (double)lo, kept_hi, (double)hi);
    CHECK(hi <= lo * (1 + 1e-6f), "%s: the bisection stopped at beta %.9g..%.9g", f->name, (double)lo, (double)hi);
    // and the threshold is the rule's: kept below tau, encoded at or above it (the rule, summed
    // apart from leap.c and the kernels, which share rc_leap_gate_sums)
    in.beta = lo;
    const double r_lo = freeze_ratio(f, &plan, S, &in, K, V);
    in.beta = hi;
    const double r_hi = freeze_ratio(f, &plan, S, &in, K, V);
    CHECK(r_lo < f->leap.tau && r_hi >= f->leap.tau, "%s: kept at ||X - S_prev|| / ||S_prev|| = %.9g, encoded at %.9g; tau %g",
          f->name, r_lo, r_hi, (double)f->leap.tau);
    stepq_plan_free(&plan);
    free(S);
}

// returned norm after a few steps from P = I, K x K (the fast table specialises K = 128)
// the language model's products (sim/matvec_impl.h) against the reference backend's and against
// the 16 lanes written out here as a plain loop: the model's shapes (rows of 128, 384, 512) and others (a tail past the last 16; fewer than four
// rows left), batches of 1 and 3, bit for bit
static void check_matvec(const stepq_backend* k, gsl_rng* r) {
    static const int shapes[][2] = {{256, 128}, {7, 384}, {130, 512}, {5, 40}, {3, 7}};
    int bad = 0;
    for (int si = 0; si < 5; si++) {
        const int n_out = shapes[si][0], n_in = shapes[si][1];
        float* W = malloc(sizeof(float) * n_out * n_in);
        float xv[3][512], ya[3][256], yb[3][256], yc[3][256];
        for (int i = 0; i < n_out * n_in; i++) W[i] = (float)gsl_ran_gaussian(r, 0.1);
        for (int n = 1; n <= 3; n += 2) {
            float *ypa[3], *ypb[3];
            const float* xp[3];
            for (int s = 0; s < n; s++) {
                for (int i = 0; i < n_in; i++) xv[s][i] = (float)gsl_ran_gaussian(r, 1.0);
                ypa[s] = ya[s], ypb[s] = yb[s], xp[s] = xv[s];
                for (int o = 0; o < n_out; o++) {  // the definition: 16 lanes in order, then pairwise
                    float lane[16] = {0};
                    for (int i = 0; i < n_in; i++) lane[i & 15] += W[(size_t)o * n_in + i] * xv[s][i];
                    for (int h = 8; h >= 1; h /= 2)
                        for (int l = 0; l < h; l++) lane[l] += lane[l + h];
                    yc[s][o] = lane[0];
                }
            }
            k->matvec(ypa, W, xp, n, n_out, n_in);
            stepq_backend_reference.matvec(ypb, W, xp, n, n_out, n_in);
            for (int s = 0; s < n; s++)
                bad += memcmp(ya[s], yb[s], sizeof(float) * n_out) != 0 || memcmp(ya[s], yc[s], sizeof(float) * n_out) != 0;
        }
        free(W);
    }
    CHECK(bad == 0, "%s: %d of 10 batches of the model's products differ from the reference's or the lanes'", k->name, bad);
}

static void check_propagate(const stepq_backend* k, int kind, int K, gsl_rng* r) {
    const int G = stepq_kind_gates(kind, K);
    float *P[2], *kP = malloc(sizeof(float) * 2 * K);
    double *m[2], *rl[2], *w = malloc(sizeof(double) * K), *g = malloc(sizeof(double) * K);
    float top[2] = {0, 0};
    for (int a = 0; a < 2; a++) {
        P[a] = calloc((size_t)K * K, sizeof(float));
        m[a] = calloc((size_t)K, sizeof(double));
        rl[a] = calloc((size_t)K, sizeof(double));
        for (int i = 0; i < K; i++) P[a][(size_t)i * K + i] = 1;
    }
    step_inputs in;
    for (int t = 0; t < 5; t++) {
        random_step(&in, K, K, G, r, 1.0);
        stepq_readout_weights(g, in.q, in.k, in.g, in.beta, 0.1, G, K);
        stepq_step_in st = {in.q, in.k, in.v, in.g, in.beta};
        top[0] = stepq_propagate_f32(P[0], m[0], rl[0], w, kP, kP + K, g, &st, G, K);
        top[1] = k->propagate(P[1], m[1], rl[1], w, kP, kP + K, g, &st, G, K);
    }
    CHECK(!memcmp(P[0], P[1], sizeof(float) * K * K) && !memcmp(m[0], m[1], sizeof(double) * K) &&
          !memcmp(rl[0], rl[1], sizeof(double) * K) && top[0] == top[1] && top[0] > 0,
          "%s: the lifetime propagation differs from the reference (K = %d, %s)", k->name, K,
          stepq_kind_name(kind));
    for (int a = 0; a < 2; a++) free(P[a]), free(m[a]), free(rl[a]);
    free(kP); free(w); free(g);
}

// the injected error's float64 step (the halflife driver) against the reference: E, the rows'
// sums and the read-out error, bit for bit, over a few steps with and without the rows' sums
static void check_error_step(const stepq_backend* k, int kind, int K, int V, gsl_rng* r) {
    const int G = stepq_kind_gates(kind, K);
    double *E[2], rows[2][STEPQ_MAX_DIM];
    for (int a = 0; a < 2; a++) E[a] = malloc(sizeof(double) * K * V);
    for (int e = 0; e < K * V; e++) E[0][e] = E[1][e] = gsl_ran_gaussian(r, 1e-3) * (e % 7 == 0 ? 100 : 1);
    for (int i = 0; i < K; i++) rows[0][i] = rows[1][i] = 0;
    int bad = 0;
    for (int t = 0; t < 4; t++) {
        step_inputs in;
        float decay[STEPQ_MAX_DIM];
        random_step(&in, K, V, G, r, 1.0);
        stepq_decays(decay, in.g, G, K);
        const stepq_step_in st = {in.q, in.k, in.v, in.g, in.beta};
        const double a = stepq_error_step_f64(E[0], t % 2 ? rows[0] : NULL, &st, decay, 0.1, K, V);
        const double b = k->error_step(E[1], t % 2 ? rows[1] : NULL, &st, decay, 0.1, K, V);
        bad |= memcmp(&a, &b, sizeof a) != 0 || memcmp(E[0], E[1], sizeof(double) * K * V) != 0 ||
               memcmp(rows[0], rows[1], sizeof(double) * K) != 0;
    }
    CHECK(!bad, "%s: the injected error's step differs from the reference (%d x %d, %s)", k->name, K, V,
          stepq_kind_name(kind));
    free(E[0]), free(E[1]);
}

// the calibration's round trips (dual-axis fit, DSQ, per-row absmax) against the reference's
// codecs, bit for bit: bytes and decoded values at every width of the plans, without and with
// FP16 pivot rows, and a non-finite head refused by both
static void check_roundtrips(const stepq_backend* k, const stepq_plan* plan, const float* S, int K, int V) {
    const stepq_backend* ref = &stepq_backend_reference;
    const size_t nb = (size_t)K * V * 2 + 2 * (size_t)V + 4;
    uint8_t *Pa = calloc(nb, 1), *Pb = calloc(nb, 1), rows[STEPQ_MAX_DIM];
    float *Xa = malloc(sizeof(float) * K * V), *Xb = malloc(sizeof(float) * K * V);
    float* work = malloc(sizeof(float) * STEPQ_WORK_FLOATS(K, V));
    float* X = malloc(sizeof(float) * K * V);
    memcpy(X, S, sizeof(float) * K * V);
    int bad = 0, n = 0;
    for (int wi = 0; wi < STEPQ_NW; wi++)
        for (int piv = 0; piv < 2; piv++) {
            for (int i = 0; i < K; i++) rows[i] = piv && i % 7 == 2 ? STEPQ_PIVOT_BITS : stepq_plan_widths[wi];
            stepq_head_plan hp = {plan->kind, rows, plan->w, (float)plan->rho, plan->refits};
            for (int dsq = 0; dsq < 2; dsq++, n++) {
                memset(Pa, 0, nb), memset(Pb, 0, nb);
                int ra = ref->dual_roundtrip(Xa, Pa, X, &hp, dsq, work, K, V);
                int rb = k->dual_roundtrip(Xb, Pb, X, &hp, dsq, work, K, V);
                bad += ra != 0 || rb != 0 || memcmp(Pa, Pb, nb) || memcmp(Xa, Xb, sizeof(float) * K * V);
            }
            memset(Pa, 0, nb), memset(Pb, 0, nb);
            int ra = ref->rows_roundtrip(Xa, Pa, X, rows, K, V), rb = k->rows_roundtrip(Xb, Pb, X, rows, K, V);
            bad += ra != 0 || rb != 0 || memcmp(Pa, Pb, nb) || memcmp(Xa, Xb, sizeof(float) * K * V);
            n++;
        }
    X[K * V / 2] = INFINITY;
    stepq_head_plan hp = {plan->kind, rows, plan->w, (float)plan->rho, plan->refits};
    bad += ref->dual_roundtrip(Xa, Pa, X, &hp, 0, work, K, V) == 0 || k->dual_roundtrip(Xb, Pb, X, &hp, 0, work, K, V) == 0 ||
           ref->rows_roundtrip(Xa, Pa, X, rows, K, V) == 0 || k->rows_roundtrip(Xb, Pb, X, rows, K, V) == 0;
    CHECK(bad == 0, "%s %s %d x %d: %d of %d round trips differ from the reference's", k->name,
          stepq_kind_name(plan->kind), K, V, bad, n + 1);
    free(Pa); free(Pb); free(Xa); free(Xb); free(work); free(X);
}

static void check_steps(const stepq_backend* k, gsl_rng* r) {
    // K = 40 with V = 128: the register passes' groups of 16 rows end in a group of 8
    static const int shapes[][2] = {{128, 128}, {40, 128}, {64, 96}, {48, 40}};
    float S[128 * 128], S2[128 * 128], y1[128], y2[128], w[128];
    for (int s = 0; s < 4; s++) {
        const int K = shapes[s][0], V = shapes[s][1];
        for (int kind = 0; kind < 2; kind++) {
            const int G = stepq_kind_gates(kind, K);
            random_state(S, K, V, r);
            memcpy(S2, S, sizeof(float) * K * V);
            step_inputs in;
            int nbad = 0;
            for (int t = 0; t < 4; t++) {
                random_step(&in, K, V, G, r, 1.0);
                stepq_step_f32(S, y1, w, in.q, in.k, in.v, in.g, in.beta, 0.1, G, K, V);
                if (t % 2) {  // the step with the new state's norm: sums.h's, bit for bit
                    const double a = k->step_norm(S2, y2, w, in.q, in.k, in.v, in.g, in.beta, 0.1, G, K, V);
                    const double b = stepq_sq_norm(S, K, V);
                    nbad += memcmp(&a, &b, sizeof a) != 0;
                } else
                    k->step(S2, y2, w, in.q, in.k, in.v, in.g, in.beta, 0.1, G, K, V);
            }
            CHECK(!memcmp(S, S2, sizeof(float) * K * V) && !memcmp(y1, y2, sizeof(float) * V),
                  "%s: the float32 step differs from the reference (%d x %d, %s)", k->name, K, V,
                  stepq_kind_name(kind));
            CHECK(nbad == 0, "%s: %d of 2 steps' state norms differ from sums.h's (%d x %d, %s)", k->name, nbad,
                  K, V, stepq_kind_name(kind));
            check_propagate(k, kind, K, r);
            check_error_step(k, kind, K, V, r);
            stepq_plan plan;
            make_plan(&plan, kind, K, V, r);
            if (V % STEPQ_GDN2_GROUP == 0) check_roundtrips(k, &plan, S, K, V);
            for (int i = 0; i < stepq_n_formats; i++)
                if (stepq_family_holds(stepq_formats[i].family, K, V))
                    for (int keep = 0; keep < 2; keep++) compare(&stepq_formats[i], k, &plan, kind, K, V, r, 1.0, keep);
            // updates that take FP16 states past +-65504, where they saturate
            compare(stepq_format_find("fp16"), k, &plan, kind, K, V, r, 1e6, 0);
            stepq_plan_free(&plan);
        }
    }
}

int main(int argc, char** argv) {
    const stepq_backend* k = argc == 2 ? stepq_backend_find(argv[1]) : NULL;
    if (!k || k == &stepq_backend_reference) {
        fprintf(stderr, "usage: test_kernels TABLE, one of:");
        for (const stepq_backend* const* t = stepq_backends_cpu; *t; t++)
            if (*t != &stepq_backend_reference) fprintf(stderr, " %s", (*t)->name);
        fprintf(stderr, "%s%s%s\n", argc == 2 ? " (not '" : "", argc == 2 ? argv[1] : "", argc == 2 ? "')" : "");
        return 2;
    }
    if (!stepq_backend_supported(k)) {
        printf("test_kernels: %s: this CPU cannot run it: skipped\n", k->name);
        return 77;
    }
    gsl_rng* r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 17);
    check_steps(k, r);
    check_freeze(k, r);
    check_matvec(k, r);
    CHECK(stepq_backend_find("reference") == &stepq_backend_reference && !stepq_backend_find("sse9"),
          "kernels by name");
    gsl_rng_free(r);
    char name[64];
    snprintf(name, sizeof name, "test_kernels %s", k->name);
    return tu_finish(name);
}

// propagation.c: the propagation driver; see propagation.h for the output layout.
#include "propagation.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../base/outfile.h"
#include "../base/ranks.h"
#include "../base/stats.h"
#include "journal.h"
#include "runner.h"

// q (F, NB, NQ) <- quantiles across heads of x (F, H, NB)
static void band(double* q, const float* x, int F, int H, long NB) {
    double* col = mallocCheck(sizeof(double) * H);
    double* work = mallocCheck(sizeof(double) * H);
    for (int f = 0; f < F; f++)
        for (long b = 0; b < NB; b++) {
            for (int h = 0; h < H; h++) col[h] = x[((size_t)f * H + h) * NB + b];
            stepq_quantiles(q + ((size_t)f * NB + b) * STEPQ_NQ, col, (size_t)H, work);
        }
    free(col);
    free(work);
}

// per-seed summaries: pooled and median accumulated relative read-out error (S, F)
typedef struct {
    double *pooled, *median;
    int* diverged;  // (F) heads where the format diverged, over all seeds
} seed_summary;

static int write_seed_summary(hid_t f, const stepq_propagation_cfg* c, const seed_summary* ss) {
    const int S = c->n_seeds, F = c->n_formats;
    hsize_t dS[1] = {(hsize_t)S}, dSF[2] = {(hsize_t)S, (hsize_t)F}, dF[1] = {(hsize_t)F};
    double* mean = mallocCheck(sizeof(double) * F * 4);
    double* col = mallocCheck(sizeof(double) * S);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < F; i++) {
            const double* x = k ? ss->median : ss->pooled;
            for (int si = 0; si < S; si++) col[si] = x[(size_t)si * F + i];
            stepq_mean_ci95(&mean[k * 2 * F + i], &mean[k * 2 * F + F + i], col, S);
        }
    hid_t D = H5T_NATIVE_DOUBLE;
    hid_t g = H5Gcreate2(f, "seed_summary", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = g < 0 || h5u_write(f, "seeds", H5T_NATIVE_UINT64, c->seeds, 1, dS, NULL, "seed of each run") ||
        h5u_write(g, "readout_rel_pooled", D, ss->pooled, 2, dSF, "1",
                  "sqrt(sum_h sum_t ||y_hat - y||^2 / sum_h sum_t ||y||^2) per seed and format [S,F]") ||
        h5u_write(g, "readout_rel_median", D, ss->median, 2, dSF, "1",
                  "median over heads of the accumulated relative read-out error [S,F]") ||
        h5u_write(g, "readout_rel_pooled_mean", D, mean, 1, dF, "1", "mean over seeds [F]") ||
        h5u_write(g, "readout_rel_pooled_ci95", D, mean + F, 1, dF, "1",
                  "half-width of the 95% confidence interval over seeds (Student t), NaN with one seed [F]") ||
        h5u_write(g, "readout_rel_median_mean", D, mean + 2 * F, 1, dF, "1", "mean over seeds [F]") ||
        h5u_write(g, "readout_rel_median_ci95", D, mean + 3 * F, 1, dF, "1",
                  "half-width of the 95% confidence interval over seeds (Student t), NaN with one seed [F]") ||
        h5u_write(g, "diverged_heads", H5T_NATIVE_INT, ss->diverged, 1, dF, "heads",
                  "head-runs (over all seeds) where the format diverged and was left out [F]");
    if (g >= 0) H5Gclose(g);
    free(mean);
    free(col);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

// f's attributes and per-format datasets: the run's settings, the formats and their bits
static int write_formats(hid_t f, const stepq_propagation_cfg* c, const stepq_run_out* o, double max_p1) {
    const int F = o->F;
    const char** names = mallocCheck(sizeof(char*) * F);
    double* bn = mallocCheck(sizeof(double) * F);
    double* ba = mallocCheck(sizeof(double) * F);
    for (int i = 0; i < F; i++) {
        names[i] = c->formats[i]->name;
        bn[i] = c->formats[i]->nominal_bits;
        ba[i] = stepq_run_bits(o, i);
    }
    hsize_t dF[1] = {(hsize_t)F};
    const hid_t D = H5T_NATIVE_DOUBLE;
    int rc = h5u_attr_str(f, "kind", stepq_kind_name(c->srcs[0]->kind)) ||
        h5u_attr_i64(f, "K", o->K) || h5u_attr_i64(f, "V", o->V) ||
        h5u_attr_i64(f, "prefill", c->prefill) || h5u_attr_i64(f, "decode", c->decode) ||
        h5u_attr_i64(f, "bin", c->bin) || h5u_attr_f64(f, "p1_residual_max", max_p1) ||
        h5u_write_strings(f, "formats", names, F, "state formats, in the order of the first axis") ||
        h5u_write(f, "bits_nominal", D, bn, 1, dF, "bits/element", "code width a paper quotes") ||
        h5u_write(f, "bits_actual", D, ba, 1, dF, "bits/element",
                  "8 * packed bytes / (K*V), over all heads (calibrated formats vary by head)");
    free(names); free(bn); free(ba);
    return rc;
}

// the group heads: each head's layer, head and gate
static int write_heads(hid_t f, const stepq_source* src, const stepq_run_out* o) {
    hsize_t dH[1] = {(hsize_t)o->H};
    const hid_t D = H5T_NATIVE_DOUBLE, I = H5T_NATIVE_INT;
    hid_t g = H5Gcreate2(f, "heads", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = g < 0 ||
        h5u_write(g, "layer", I, src->layer, 1, dH, NULL, "model layer of each head") ||
        h5u_write(g, "head", I, src->head, 1, dH, NULL, "head within its layer") ||
        h5u_write(g, "mean_log_gate", D, o->mean_log_gate, 1, dH, "nats/step",
                  "mean log gate l over all steps (KDA: also over key channels)") ||
        h5u_write(g, "half_life", D, o->half_life, 1, dH, "steps", "ln 2 / -mean_log_gate");
    if (g >= 0) H5Gclose(g);
    return rc;
}

// the errors: per bin and head, their quantiles across heads, and accumulated over the window
static int write_errors(hid_t f, const stepq_propagation_cfg* c, const stepq_run_out* o, const double* qy,
                        const double* qs, const double* rel) {
    const int F = o->F, H = o->H;
    const long NB = o->n_bins;
    float* step = mallocCheck(sizeof(float) * NB);
    for (long b = 0; b < NB; b++) step[b] = (float)(b * c->bin);
    hsize_t dNB[1] = {(hsize_t)NB}, dFHB[3] = {(hsize_t)F, (hsize_t)H, (hsize_t)NB};
    hsize_t dFBQ[3] = {(hsize_t)F, (hsize_t)NB, STEPQ_NQ}, dFH[2] = {(hsize_t)F, (hsize_t)H};
    hsize_t dQ[1] = {STEPQ_NQ};
    const hid_t D = H5T_NATIVE_DOUBLE, FL = H5T_NATIVE_FLOAT;
    int rc = h5u_write(f, "decode_step", FL, step, 1, dNB, "steps", "first decode step of each bin") ||
        h5u_write(f, "err_readout", FL, o->err_y, 3, dFHB, "1",
                  "||y_hat - y|| / ||y|| per decode step, mean over the bin [F,H,NB]") ||
        h5u_write(f, "err_state", FL, o->err_S, 3, dFHB, "1",
                  "||S_hat - S||_F / ||S||_F after each decode step, mean over the bin [F,H,NB]") ||
        h5u_write(f, "quantile_levels", D, stepq_quantile_levels, 1, dQ, "1", "levels of *_quantiles") ||
        h5u_write(f, "err_readout_quantiles", D, qy, 3, dFBQ, "1",
                  "quantiles across heads of err_readout [F,NB,5]") ||
        h5u_write(f, "err_state_quantiles", D, qs, 3, dFBQ, "1",
                  "quantiles across heads of err_state [F,NB,5]") ||
        h5u_write(f, "diverged_step", H5T_NATIVE_LONG, o->diverged, 2, dFH, "steps",
                  "decode step at which ||S_hat|| passed 10 ||S|| (the format stopped there; its "
                  "later bins and accumulated error are NaN), -1 if never [F,H]") ||
        h5u_write(f, "accumulated_readout_sq", D, o->acc_sq, 2, dFH, "(value units)^2",
                  "sum over the decode window of ||y_hat - y||^2 [F,H]") ||
        h5u_write(f, "accumulated_readout_rel", D, rel, 2, dFH, "1",
                  "sqrt(sum ||y_hat - y||^2 / sum ||y||^2) over the decode window [F,H]") ||
        h5u_write(f, "p1_residual", D, o->p1_resid, 2, dFH, "1",
                  "P1 on the run: max over decode of ||(y_hat - y) - E_{t-1}^T A_t^T scale q_t|| "
                  "/ ||y||; float32 rounding only [F,H]");
    free(step);
    return rc;
}

static int write_h5(const stepq_propagation_cfg* c, const stepq_run_out* o, const double* qy,
                    const double* qs, const seed_summary* ss) {
    hid_t f = h5u_create(c->output);
    if (f < 0) return STEPQ_ERR;
    const int F = o->F, H = o->H;
    double* rel = mallocCheck(sizeof(double) * F * H);
    double max_p1 = 0;
    for (int i = 0; i < F * H; i++) {
        rel[i] = stepq_rel(o->acc_sq[i], o->acc_ref[i % H]);
        max_p1 = fmax(max_p1, o->p1_resid[i]);
    }
    // the order of the writes is the file's order of its objects
    int rc = write_heads(f, c->srcs[0], o) || stepq_write_provenance(f, &c->prov) || write_seed_summary(f, c, ss) ||
             write_formats(f, c, o, max_p1) || write_errors(f, c, o, qy, qs, rel);
    free(rel);
    if (rc) {
        h5u_abandon(f, c->output);
        return STEPQ_ERR;
    }
    return h5u_commit(f, c->output);
}

static int write_table(const stepq_propagation_cfg* c, const stepq_run_out* o, const double* qy,
                       const double* qs) {
    FILE* fp = stepq_text_create(c->table);
    if (!fp) {
        return STEPQ_ERR;
    }
    fprintf(fp, "# propagation: decode step, then per format the p10 p25 p50 p75 p90 across "
                "heads of the read-out error, then the same of the state error\n# step");
    for (int f = 0; f < o->F; f++) fprintf(fp, "\t%s_y_p10\t_p25\t_p50\t_p75\t_p90", c->formats[f]->name);
    for (int f = 0; f < o->F; f++) fprintf(fp, "\t%s_S_p10\t_p25\t_p50\t_p75\t_p90", c->formats[f]->name);
    fputc('\n', fp);
    for (long b = 0; b < o->n_bins; b++) {
        fprintf(fp, "%ld", b * c->bin);
        for (int pass = 0; pass < 2; pass++)
            for (int f = 0; f < o->F; f++)
                for (int k = 0; k < STEPQ_NQ; k++)
                    fprintf(fp, "\t%.6e", (pass ? qs : qy)[((size_t)f * o->n_bins + b) * STEPQ_NQ + k]);
        fputc('\n', fp);
    }
    return stepq_text_commit(fp, c->table);
}

// pooled and median accumulated relative read-out error of each format over the heads of o
// where it did not diverge; ndiv (F) += the heads where it did
static void accumulate(double* pooled, double* median, int* ndiv, const stepq_run_out* o) {
    double* acc = mallocCheck(sizeof(double) * o->H);
    double* work = mallocCheck(sizeof(double) * o->H);
    for (int f = 0; f < o->F; f++) {
        double num = 0, den = 0, q[STEPQ_NQ];
        for (int h = 0; h < o->H; h++) {
            size_t fh = (size_t)f * o->H + h;
            acc[h] = stepq_rel(o->acc_sq[fh], o->acc_ref[h]);  // NaN: diverged
            if (o->diverged[fh] >= 0) {
                ndiv[f]++;
                continue;
            }
            num += o->acc_sq[fh];
            den += o->acc_ref[h];
        }
        stepq_quantiles(q, acc, (size_t)o->H, work);
        pooled[f] = stepq_rel(num, den);
        median[f] = q[2];
    }
    free(acc);
    free(work);
}

// the per-format table: markdown for people (c->report) and a .tsv for the bar chart
static int write_report(const stepq_propagation_cfg* c, const stepq_run_out* o, const double* qs,
                        const seed_summary* ss) {
    const int S = c->n_seeds, F = o->F;
    FILE* md = c->report ? stepq_text_create(c->report) : NULL;
    FILE* tsv = c->formats_table ? stepq_text_create(c->formats_table) : NULL;
    if ((c->report && !md) || (c->formats_table && !tsv)) {
        stepq_error("cannot write %s", c->report && !md ? c->report : c->formats_table);
        stepq_text_abandon(md, c->report);
        stepq_text_abandon(tsv, c->formats_table);
        return STEPQ_ERR;
    }
    double* col = mallocCheck(sizeof(double) * S);
    if (md)
        fprintf(md, "%s; prefill %ld, decode %ld; %d seed%s; acc: sqrt(sum ||y_hat - y||^2 / sum ||y||^2) "
                    "over the decode window, pooled over heads and the median over heads, mean +- 95%% CI "
                    "over seeds; final state error: ||S_hat - S||_F / ||S||_F in the last bin, median over "
                    "heads, first seed; a diverged format (||S_hat|| > 10 ||S||) is left out on those heads.\n\n"
                    "| format | nominal bits | actual bits | acc pooled | acc median | final state error | diverged |\n"
                    "|---|---|---|---|---|---|---|\n",
                c->srcs[0]->desc, c->prefill, c->decode, S, S > 1 ? "s" : "");
    if (tsv) fprintf(tsv, "# format bits_actual pooled_mean pooled_ci95 median_mean median_ci95 final_state diverged\n");
    for (int f = 0; f < F; f++) {
        double m[2], ci[2];
        for (int k = 0; k < 2; k++) {
            for (int si = 0; si < S; si++) col[si] = (k ? ss->median : ss->pooled)[(size_t)si * F + f];
            stepq_mean_ci95(&m[k], &ci[k], col, S);
        }
        double fin = qs[((size_t)f * o->n_bins + o->n_bins - 1) * STEPQ_NQ + 2];
        if (md)
            fprintf(md, "| %s | %.3f | %.3f | %.4g +- %.2g | %.4g +- %.2g | %.4g | %s%d |\n", c->formats[f]->name,
                    c->formats[f]->nominal_bits, stepq_run_bits(o, f), m[0], ci[0], m[1], ci[1], fin,
                    ss->diverged[f] ? "DIVERGED on " : "", ss->diverged[f]);
        if (tsv)
            fprintf(tsv, "%s\t%.4f\t%.6e\t%.6e\t%.6e\t%.6e\t%.6e\t%d\n", c->formats[f]->name,
                    stepq_run_bits(o, f), m[0], ci[0], m[1], ci[1], fin, ss->diverged[f]);
    }
    free(col);
    int bad = md && stepq_text_commit(md, c->report);  // both committed, even when the first fails
    if (tsv && stepq_text_commit(tsv, c->formats_table)) bad = 1;
    return bad ? STEPQ_ERR : STEPQ_OK;
}

static void summary(const stepq_propagation_cfg* c, const stepq_run_out* o, const double* qy,
                    const seed_summary* ss, const double* p1) {
    const int S = c->n_seeds, F = o->F;
    printf("propagation: %d heads, prefill %ld, decode %ld, %d seed%s (%s)\n", o->H, c->prefill,
           c->decode, S, S > 1 ? "s" : "", c->srcs[0]->desc);
    printf("%-15s %8s %8s %11s %11s %21s %21s %9s\n", "format", "nominal", "actual", "err_y first",
           "err_y last", "acc rel median", "acc rel pooled", "P1 resid");
    double* col = mallocCheck(sizeof(double) * S);
    for (int f = 0; f < F; f++) {
        double m[2], ci[2];
        for (int k = 0; k < 2; k++) {
            for (int si = 0; si < S; si++) col[si] = (k ? ss->pooled : ss->median)[(size_t)si * F + f];
            stepq_mean_ci95(&m[k], &ci[k], col, S);
        }
        const double* first = qy + (size_t)f * o->n_bins * STEPQ_NQ;
        const double* last = first + (o->n_bins - 1) * STEPQ_NQ;
        char a[32], b[32];
        snprintf(a, sizeof a, S > 1 ? "%.3e +- %.1e" : "%.3e", m[0], ci[0]);
        snprintf(b, sizeof b, S > 1 ? "%.3e +- %.1e" : "%.3e", m[1], ci[1]);
        printf("%-15s %8.3f %8.3f %11.3e %11.3e %21s %21s %9.2e", c->formats[f]->name,
               c->formats[f]->nominal_bits, stepq_run_bits(o, f), first[2], last[2], a, b, p1[f]);
        if (ss->diverged[f]) printf("  DIVERGED on %d head-runs (excluded)", ss->diverged[f]);
        putchar('\n');
    }
    printf("(err_y: median across heads of ||y_hat-y||/||y|| in the first and last bin of %d steps, "
           "first seed; acc rel: sqrt(sum ||dy||^2 / sum ||y||^2) over the decode window, the median "
           "over heads and pooled over all heads%s; P1 resid: the largest over heads and seeds)\n",
           c->bin, S > 1 ? ", mean +- 95% CI over seeds" : "");
    free(col);
}

// the run's journal as its done/keep hooks (sim/runout.h): heads it holds are read back, heads
// that end are added. A record is head h of seed s (id s 2^32 + h): its numbers in a fixed
// order, err_y, err_S (F x NB floats), acc_sq, p1_resid, bytes (F doubles), diverged (F int64),
// acc_ref, mean_log_gate, half_life (doubles).
typedef struct {
    stepq_journal* journal;
    int seed, H;
} journal_hooks;

static size_t head_record_size(const stepq_run_out* o) {
    return 2 * sizeof(float) * o->F * o->n_bins + 3 * sizeof(double) * o->F + sizeof(int64_t) * o->F +
           3 * sizeof(double);
}

// serialises (to = 1) or restores (to = 0) head h's numbers of o
static void head_transfer(unsigned char* buf, stepq_run_out* o, int h, int to) {
    const int F = o->F, H = o->H;
    const long NB = o->n_bins;
    unsigned char* p = buf;
#define MOVE(dst, n)                                        \
    do {                                                    \
        if (to) memcpy(p, (dst), (n));                      \
        else memcpy((dst), p, (n));                         \
        p += (n);                                           \
    } while (0)
    for (int f = 0; f < F; f++) {
        MOVE(o->err_y + ((size_t)f * H + h) * NB, sizeof(float) * NB);
        MOVE(o->err_S + ((size_t)f * H + h) * NB, sizeof(float) * NB);
    }
    for (int f = 0; f < F; f++) {
        MOVE(&o->acc_sq[(size_t)f * H + h], sizeof(double));
        MOVE(&o->p1_resid[(size_t)f * H + h], sizeof(double));
        MOVE(&o->bytes[(size_t)f * H + h], sizeof(double));
        int64_t d = o->diverged[(size_t)f * H + h];
        if (to) memcpy(p, &d, sizeof d);
        else memcpy(&d, p, sizeof d), o->diverged[(size_t)f * H + h] = (long)d;
        p += sizeof d;
    }
    MOVE(&o->acc_ref[h], sizeof(double));
    MOVE(&o->mean_log_gate[h], sizeof(double));
    MOVE(&o->half_life[h], sizeof(double));
#undef MOVE
}

static uint64_t head_id(int s, int h) { return (uint64_t)(uint32_t)s << 32 | (uint32_t)h; }

// an MPI run keeps the heads its rank runs (head h of seed s is unit s H + h)
static int head_owned(uint64_t id, void* ctx) {
    const journal_hooks* j = ctx;
    return stepq_rank_owns((long)(id >> 32) * j->H + (long)(id & 0xffffffffu));
}

static int journal_done(void* ctx, int h, stepq_run_out* o) {
    const journal_hooks* j = ctx;
    size_t size;
    const unsigned char* data = stepq_journal_find(j->journal, head_id(j->seed, h), &size);
    if (!data || size != head_record_size(o)) return 0;  // the key holds F and NB: sizes agree
    head_transfer((unsigned char*)data, o, h, 0);
    return 1;
}

static int journal_keep(void* ctx, int h, const stepq_run_out* o) {
    const journal_hooks* j = ctx;
    const size_t size = head_record_size(o);
    unsigned char* data = mallocCheck(size);
    head_transfer(data, (stepq_run_out*)o, h, 1);
    const int rc = stepq_journal_add(j->journal, head_id(j->seed, h), data, size);
    free(data);
    return rc;
}

int stepq_propagation(const stepq_propagation_cfg* c) {
    const int S = c->n_seeds, F = c->n_formats;
    stepq_run_cfg rc = {.formats = c->formats, .n_formats = F, .prefill = c->prefill, .decode = c->decode,
                        .bin = c->bin, .label = "propagation", .plan = c->plan,
                        .plan_any_model = c->plan_any_model, .backend = c->backend};
    journal_hooks jh = {.journal = NULL, .H = c->srcs[0]->n_heads};
    if (c->journal_key && c->backend->write) {  // a backend of whole runs keeps none
        char key[256];
        snprintf(key, sizeof key, "%s F %d NB %ld", c->journal_key, F, (c->decode + c->bin - 1) / c->bin);
        jh.journal = stepq_journal_open(c->output, key, "heads", c->resume, head_owned, &jh);
        if (!jh.journal) return STEPQ_ERR;
        rc.done = journal_done;
        rc.keep = journal_keep;
        rc.hook_ctx = &jh;
    }
    stepq_run_out o0, o;
    seed_summary ss = {callocCheck((size_t)S * F, sizeof(double)), callocCheck((size_t)S * F, sizeof(double)),
                       callocCheck((size_t)F, sizeof(int))};
    double* p1 = callocCheck((size_t)F, sizeof(double));
    int r = STEPQ_OK;
    for (int si = 0; si < S && r == STEPQ_OK; si++) {
        stepq_run_out* out = si == 0 ? &o0 : &o;
        rc.seed = jh.seed = si;
        if (stepq_run_heads(out, c->srcs[si], &rc) != STEPQ_OK) {
            r = STEPQ_ERR;
            break;
        }
        accumulate(ss.pooled + (size_t)si * F, ss.median + (size_t)si * F, ss.diverged, out);
        for (int f = 0; f < F; f++)
            for (int h = 0; h < out->H; h++) p1[f] = fmax(p1[f], out->p1_resid[(size_t)f * out->H + h]);
        if (si > 0) stepq_run_out_free(&o);
    }
    if (r == STEPQ_OK) {
        size_t nq = (size_t)o0.F * o0.n_bins * STEPQ_NQ;
        double* qy = mallocCheck(sizeof(double) * nq);
        double* qs = mallocCheck(sizeof(double) * nq);
        band(qy, o0.err_y, o0.F, o0.H, o0.n_bins);
        band(qs, o0.err_S, o0.F, o0.H, o0.n_bins);
        r = write_h5(c, &o0, qy, qs, &ss);
        if (r == STEPQ_OK && c->table) r = write_table(c, &o0, qy, qs);
        if (r == STEPQ_OK && (c->report || c->formats_table)) r = write_report(c, &o0, qs, &ss);
        if (r == STEPQ_OK) summary(c, &o0, qy, &ss, p1);
        free(qy);
        free(qs);
        stepq_run_out_free(&o0);
    }
    stepq_journal_close(jh.journal, r == STEPQ_OK);
    free(ss.pooled);
    free(ss.median);
    free(ss.diverged);
    free(p1);
    return r;
}

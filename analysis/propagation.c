// propagation.c: the propagation driver; see propagation.h for the output layout.
#include "propagation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../quant/common.h"
#include "../quant/h5util.h"
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

static int write_h5(const stepq_propagation_cfg* c, const stepq_run_out* o, const double* qy,
                    const double* qs) {
    hid_t f = h5u_create(c->output);
    if (f < 0) return STEPQ_ERR;
    const int F = o->F, H = o->H;
    const long NB = o->n_bins;
    const char** names = mallocCheck(sizeof(char*) * F);
    double* bn = mallocCheck(sizeof(double) * F);
    double* ba = mallocCheck(sizeof(double) * F);
    for (int i = 0; i < F; i++) {
        names[i] = c->formats[i]->name;
        bn[i] = c->formats[i]->nominal_bits;
        ba[i] = stepq_run_bits(o, i);
    }
    float* step = mallocCheck(sizeof(float) * NB);
    for (long b = 0; b < NB; b++) step[b] = (float)(b * c->bin);
    double* rel = mallocCheck(sizeof(double) * F * H);
    double max_p1 = 0;
    for (int i = 0; i < F * H; i++) {
        rel[i] = o->acc_ref[i % H] > 0 ? sqrt(o->acc_sq[i] / o->acc_ref[i % H]) : 0;
        max_p1 = fmax(max_p1, o->p1_resid[i]);
    }
    hsize_t dF[1] = {(hsize_t)F}, dH[1] = {(hsize_t)H}, dNB[1] = {(hsize_t)NB};
    hsize_t dFHB[3] = {(hsize_t)F, (hsize_t)H, (hsize_t)NB};
    hsize_t dFBQ[3] = {(hsize_t)F, (hsize_t)NB, STEPQ_NQ}, dFH[2] = {(hsize_t)F, (hsize_t)H};
    hsize_t dQ[1] = {STEPQ_NQ};
    hid_t D = H5T_NATIVE_DOUBLE, FL = H5T_NATIVE_FLOAT, I = H5T_NATIVE_INT;
    hid_t g = H5Gcreate2(f, "heads", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = g < 0 || stepq_write_provenance(f, &c->prov) ||
        h5u_attr_str(f, "kind", c->src->kind ? "kda" : "gdn") ||
        h5u_attr_i64(f, "K", o->K) || h5u_attr_i64(f, "V", o->V) ||
        h5u_attr_i64(f, "prefill", c->prefill) || h5u_attr_i64(f, "decode", c->decode) ||
        h5u_attr_i64(f, "bin", c->bin) || h5u_attr_f64(f, "p1_residual_max", max_p1) ||
        h5u_write_strings(f, "formats", names, F, "state formats, in the order of the first axis") ||
        h5u_write(f, "bits_nominal", D, bn, 1, dF, "bits/element", "code width a paper quotes") ||
        h5u_write(f, "bits_actual", D, ba, 1, dF, "bits/element",
                  "8 * packed bytes / (K*V), over all heads (calibrated formats vary by head)") ||
        h5u_write(g, "layer", I, c->src->layer, 1, dH, NULL, "model layer of each head") ||
        h5u_write(g, "head", I, c->src->head, 1, dH, NULL, "head within its layer") ||
        h5u_write(g, "mean_log_gate", D, o->mean_log_gate, 1, dH, "nats/step",
                  "mean log gate l over all steps (KDA: also over key channels)") ||
        h5u_write(g, "half_life", D, o->half_life, 1, dH, "steps", "ln 2 / -mean_log_gate") ||
        h5u_write(f, "decode_step", FL, step, 1, dNB, "steps", "first decode step of each bin") ||
        h5u_write(f, "err_readout", FL, o->err_y, 3, dFHB, "1",
                  "||y_hat - y|| / ||y|| per decode step, mean over the bin [F,H,NB]") ||
        h5u_write(f, "err_state", FL, o->err_S, 3, dFHB, "1",
                  "||S_hat - S||_F / ||S||_F after each decode step, mean over the bin [F,H,NB]") ||
        h5u_write(f, "quantile_levels", D, stepq_quantile_levels, 1, dQ, "1", "levels of *_quantiles") ||
        h5u_write(f, "err_readout_quantiles", D, qy, 3, dFBQ, "1",
                  "quantiles across heads of err_readout [F,NB,5]") ||
        h5u_write(f, "err_state_quantiles", D, qs, 3, dFBQ, "1",
                  "quantiles across heads of err_state [F,NB,5]") ||
        h5u_write(f, "accumulated_readout_sq", D, o->acc_sq, 2, dFH, "(value units)^2",
                  "sum over the decode window of ||y_hat - y||^2 [F,H]") ||
        h5u_write(f, "accumulated_readout_rel", D, rel, 2, dFH, "1",
                  "sqrt(sum ||y_hat - y||^2 / sum ||y||^2) over the decode window [F,H]") ||
        h5u_write(f, "p1_residual", D, o->p1_resid, 2, dFH, "1",
                  "P1 on the run: max over decode of ||(y_hat - y) - E_{t-1}^T A_t^T scale q_t|| "
                  "/ ||y||; float32 rounding only [F,H]");
    if (g >= 0) H5Gclose(g);
    free(names); free(bn); free(ba); free(step); free(rel);
    if (rc) {
        h5u_abandon(f, c->output);
        return STEPQ_ERR;
    }
    return h5u_commit(f, c->output);
}

static int write_table(const stepq_propagation_cfg* c, const stepq_run_out* o, const double* qy,
                       const double* qs) {
    FILE* fp = fopen(c->table, "w");
    if (!fp) {
        stepq_error("cannot write %s", c->table);
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
    return fclose(fp) == 0 ? STEPQ_OK : STEPQ_ERR;
}

static void summary(const stepq_propagation_cfg* c, const stepq_run_out* o, const double* qy) {
    printf("propagation: %d heads, prefill %ld, decode %ld (%s)\n", o->H, c->prefill, c->decode,
           c->src->desc);
    printf("%-15s %9s %9s %13s %13s %13s %13s %10s\n", "format", "nominal", "actual",
           "err_y first", "err_y last", "acc rel med", "acc rel all", "P1 resid");
    double* acc = mallocCheck(sizeof(double) * o->H);
    double* work = mallocCheck(sizeof(double) * o->H);
    for (int f = 0; f < o->F; f++) {
        double p1 = 0, q[STEPQ_NQ], num = 0, den = 0;
        for (int h = 0; h < o->H; h++) {
            size_t fh = (size_t)f * o->H + h;
            acc[h] = o->acc_ref[h] > 0 ? sqrt(o->acc_sq[fh] / o->acc_ref[h]) : 0;
            p1 = fmax(p1, o->p1_resid[fh]);
            num += o->acc_sq[fh];
            den += o->acc_ref[h];
        }
        stepq_quantiles(q, acc, (size_t)o->H, work);
        const double* first = qy + (size_t)f * o->n_bins * STEPQ_NQ;
        const double* last = first + (o->n_bins - 1) * STEPQ_NQ;
        printf("%-15s %9.3f %9.3f %13.3e %13.3e %13.3e %13.3e %10.2e\n", c->formats[f]->name,
               c->formats[f]->nominal_bits, stepq_run_bits(o, f), first[2], last[2], q[2],
               den > 0 ? sqrt(num / den) : 0, p1);
    }
    printf("(err_y: median across heads of ||y_hat-y||/||y|| in the first and last bin of %d "
           "steps; acc rel: sqrt(sum ||dy||^2 / sum ||y||^2) over the decode window, median over "
           "heads, and pooled over all heads)\n", c->bin);
    free(acc);
    free(work);
}

int stepq_propagation(const stepq_propagation_cfg* c) {
    stepq_run_cfg rc = {c->formats, c->n_formats, c->prefill, c->decode, c->bin, 0, "propagation",
                        c->plan};
    stepq_run_out o;
    if (stepq_run_heads(&o, c->src, &rc) != STEPQ_OK) return STEPQ_ERR;
    size_t nq = (size_t)o.F * o.n_bins * STEPQ_NQ;
    double* qy = mallocCheck(sizeof(double) * nq);
    double* qs = mallocCheck(sizeof(double) * nq);
    band(qy, o.err_y, o.F, o.H, o.n_bins);
    band(qs, o.err_S, o.F, o.H, o.n_bins);
    int r = write_h5(c, &o, qy, qs);
    if (r == STEPQ_OK && c->table) r = write_table(c, &o, qy, qs);
    if (r == STEPQ_OK) summary(c, &o, qy);
    free(qy);
    free(qs);
    stepq_run_out_free(&o);
    return r;
}

// replay.c: the replay driver; see replay.h for the output layout.
#include "replay.h"

#include <math.h>
#include <stdlib.h>

#include "../base/common.h"
#include "../base/stats.h"
#include "../base/h5util.h"
#include "runner.h"

static int write_replay(const stepq_replay_cfg* c, const stepq_run_out* o) {
    hid_t f = h5u_create(c->output);
    if (f < 0) return STEPQ_ERR;
    const stepq_source* src = c->src;
    const int H = o->H, K = o->K, V = o->V;
    const long T = o->T, D = T - c->prefill;
    hsize_t dY[3] = {(hsize_t)T, (hsize_t)H, (hsize_t)V}, dS[3] = {(hsize_t)H, (hsize_t)K, (hsize_t)V};
    hsize_t dE[2] = {(hsize_t)H, (hsize_t)D}, dH[1] = {(hsize_t)H};
    hid_t FL = H5T_NATIVE_FLOAT, DB = H5T_NATIVE_DOUBLE;
    double* rel = mallocCheck(sizeof(double) * H);
    for (int h = 0; h < H; h++) rel[h] = stepq_rel(o->acc_sq[h], o->acc_ref[h]);
    int rc = stepq_write_provenance(f, &c->prov) || h5u_attr_str(f, "format", c->format->name) ||
        h5u_attr_str(f, "kind", stepq_kind_name(src->kind)) || h5u_attr_f64(f, "scale", src->scale) ||
        h5u_attr_i64(f, "prefill", c->prefill) ||
        h5u_attr_f64(f, "bits_actual", stepq_run_bits(o, 0)) ||
        h5u_write(f, "y", FL, o->y, 3, dY, "1", "read-out y_hat of the decode-step protocol [T,HV,V]") ||
        h5u_write(f, "y_ref", FL, o->y_ref, 3, dY, "1", "read-out of the float32 reference [T,HV,V]") ||
        h5u_write(f, "S_final", FL, o->S_final, 3, dS, "1", "final state S_hat_T, K-first [HV,K,V]") ||
        h5u_write(f, "S_ref_final", FL, o->S_ref_final, 3, dS, "1", "final reference state [HV,K,V]") ||
        h5u_write(f, "err_readout", FL, o->err_y, 2, dE, "1", "||y_hat - y|| / ||y|| per decode step [HV,D]") ||
        h5u_write(f, "err_state", FL, o->err_S, 2, dE, "1", "||S_hat - S||_F / ||S||_F per decode step [HV,D]") ||
        h5u_write(f, "accumulated_readout_rel", DB, rel, 1, dH, "1",
                  "sqrt(sum ||y_hat - y||^2 / sum ||y||^2) over the decode steps [HV]") ||
        h5u_write(f, "p1_residual", DB, o->p1_resid, 1, dH, "1",
                  "max ||(y_hat - y) - E_{t-1}^T A_t^T scale q_t|| / ||y|| [HV]");
    free(rel);
    if (rc) {
        h5u_abandon(f, c->output);
        return STEPQ_ERR;
    }
    return h5u_commit(f, c->output);
}

int stepq_replay(const stepq_replay_cfg* c) {
    const stepq_format* fmts[1] = {c->format};
    stepq_run_cfg rc = {fmts, 1, c->prefill, c->src->T - c->prefill, 1, 1, "replay", c->plan, NULL, 0, NULL};
    stepq_run_out o;
    if (stepq_run_heads(&o, c->src, &rc) != STEPQ_OK) return STEPQ_ERR;
    int r = write_replay(c, &o);
    stepq_run_out_free(&o);
    return r;
}

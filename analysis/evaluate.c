// evaluate.c: see evaluate.h.
#include "evaluate.h"

#include <math.h>

#include "../base/common.h"
#include "../base/stats.h"
#include "runner.h"

int stepq_evaluate(double* pooled, int* diverged, const stepq_source* src,
                   const stepq_format* const* formats, int n_formats, const stepq_plan* plan,
                   long prefill, long decode, const char* label, const stepq_backend* be) {
    stepq_run_cfg rc = {.formats = (const stepq_format**)formats, .n_formats = n_formats, .prefill = prefill,
                        .decode = decode, .bin = decode, .label = label, .plan = plan, .backend = be};
    stepq_run_out o;
    if (stepq_run_heads(&o, src, &rc) != STEPQ_OK) return STEPQ_ERR;
    for (int f = 0; f < n_formats; f++) {
        double num = 0, den = 0;
        int nd = 0;
        for (int h = 0; h < o.H; h++) {
            size_t fh = (size_t)f * o.H + h;
            if (o.diverged[fh] >= 0) {
                nd++;
                continue;
            }
            num += o.acc_sq[fh];
            den += o.acc_ref[h];
        }
        pooled[f] = stepq_rel(num, den);
        if (diverged) diverged[f] = nd;
    }
    stepq_run_out_free(&o);
    return STEPQ_OK;
}

// runner.c: every head of a source through the decode-step protocol, on the backend a run
// names (sim/backend.h: the CPU's run is sim/run.c); see runner.h.
#include "runner.h"

#include "../base/common.h"
#include "../sim/backend.h"

int stepq_run_heads(stepq_run_out* o, const stepq_source* src, const stepq_run_cfg* cfg) {
    const stepq_backend* be = cfg->backend;
    stepq_assert(be);  // the front end's choice, passed down (sim/backend.h)
    if (!be->write) {  // a backend of whole runs only
        if (src->lockstep) {
            stepq_error("%s: backend %s reads each head through a cursor of its own; this source steps its "
                        "heads together (a model): run it on backend cpu", src->desc, be->name);
            return STEPQ_ERR;
        }
        if (cfg->n_extra) {
            stepq_error("%s: backend %s runs whole runs only; %s observes every step on a backend that steps "
                        "heads (cpu)", src->desc, be->name, cfg->extra[0].name);
            return STEPQ_ERR;
        }
    }
    return be->run_heads(o, src, cfg);
}

double stepq_run_bits(const stepq_run_out* o, int f) {
    double b = 0;
    for (int h = 0; h < o->H; h++) b += o->bytes[(size_t)f * o->H + h];
    return 8.0 * b / ((double)o->H * o->K * o->V);
}

// stream.c: what every source shares.
#include "stream.h"

#include "../base/common.h"

void stepq_source_free(stepq_source* src) {
    if (src) src->destroy(src);
}

int stepq_next_step(stepq_cursor* cur, stepq_step_in* out) {
    const long t = cur->t;
    const int rc = cur->src->next(cur, out);
    if (rc != STEPQ_END) return rc;
    if (cur->h < 0)
        stepq_error("%s ends after %ld steps; more are needed", cur->src->desc, t);
    else
        stepq_error("%s: head %d (layer %d, head %d) ends after %ld steps; more are needed", cur->src->desc,
                cur->h, cur->src->layer[cur->h], cur->src->head[cur->h], t);
    return STEPQ_ERR;
}

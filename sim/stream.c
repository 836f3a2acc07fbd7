// stream.c: what every source shares.
#include "stream.h"

void stepq_source_free(stepq_source* src) {
    if (src) src->destroy(src);
}

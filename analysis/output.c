#include "output.h"

#include <string.h>
#include <time.h>

#include "../base/common.h"
#include "../base/h5util.h"
#include "../base/outfile.h"
#include "stepq_version.h"

const char* stepq_git_revision(void) { return STEPQ_GIT_REVISION; }

int stepq_write_provenance(hid_t f, const stepq_provenance* p) {
    char when[64];
    char* inputs = stepq_inputs_describe();
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    int rc = h5u_attr_str(f, "experiment", p->experiment) ||
           h5u_attr_str(f, "config", p->config_text ? p->config_text : "") ||
           h5u_attr_str(f, "config_path", p->config_path ? p->config_path : "(command line)") ||
           h5u_attr_str(f, "git_revision", STEPQ_GIT_REVISION) ||
           h5u_attr_i64(f, "seed", (long long)p->seed) ||
           h5u_attr_str(f, "source", p->source ? p->source : "") ||
           h5u_attr_str(f, "stepq_version", STEPQ_VERSION) || h5u_attr_str(f, "created", when) ||
           h5u_attr_str(f, "compiler", STEPQ_COMPILER) || h5u_attr_str(f, "build_flags", STEPQ_BUILD_FLAGS) ||
           h5u_attr_str(f, "inputs", inputs[0] ? inputs : "(none: a synthetic source)");
    free(inputs);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

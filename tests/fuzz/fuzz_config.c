// fuzz_config.c: the config layer on arbitrary text. libconfig parses it, the quick group is
// merged, then every getter the experiments use reads it (keys, types, ranges, lists), the
// format list is resolved, a synthetic source is opened and a calibration is built from it, as
// `stepq run` does before any work. Nothing may crash, leak or exit: every bad config must come
// back as an error.
#include <stdlib.h>

#include "../../base/common.h"
#include "../../cli/builders.h"
#include "../../cli/config.h"
#include "fuzzutil.h"

static void getters(const stepq_cfgfile* cf) {
    static const char* const ints[] = {"prefill", "decode", "bin", "threads", "seed", "steps", "warmup",
                                       "sample_every", "max_requests", "calib_steps", "width", NULL};
    static const char* const strs[] = {"experiment", "description", "output", "plot", "plan", "report",
                                       "format", "halflife_format", NULL};
    static const char* const lists[] = {"seeds", "windows", NULL};
    long long v;
    const char* s;
    int* il;
    int n;
    const char** sl;
    for (const char* const* k = ints; *k; k++) cfg_int(cf, NULL, *k, &v, 0, 0, 0, 1LL << 40);
    for (const char* const* k = strs; *k; k++) cfg_str(cf, NULL, *k, &s, 0, NULL);
    for (const char* const* k = lists; *k; k++)
        if (cfg_int_list(cf, NULL, *k, &il, &n, 0) == STEPQ_OK) free(il);
    if (cfg_str_list(cf, NULL, "configs", &sl, &n, 0) == STEPQ_OK) free(sl);
    int err = 0;
    cfg_group(cf, NULL, "source", 0, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    char path[256];
    fz_tmp(path, sizeof path, "config", "cfg");
    FILE* fp = fopen(path, "wb");
    if (!fp) return 0;
    fwrite(data + 1, 1, size - 1, fp);
    fclose(fp);
    stepq_cfgfile cf;
    if (cfg_load(&cf, path, data[0] & 1) != STEPQ_OK) return 0;
    getters(&cf);
    const stepq_format** fmts;
    int nf;
    if (stepq_formats_from_cfg(&fmts, &nf, &cf) == STEPQ_OK) free(fmts);
    const char* type = NULL;
    config_lookup_string(&cf.cfg, "source.type", &type);
    if (type && !strcmp(type, "synthetic")) {  // traces: their loader has its own target
        stepq_source* src;
        if (stepq_source_from_cfg(&src, &cf, 1, -1, NULL, NULL, 0, stepq_backend_default()) == STEPQ_OK) stepq_source_free(src);
        int err = 0;
        const config_setting_t* g = cfg_group(&cf, NULL, "calibrate", 0, &err);
        stepq_calib_build b;
        if (!err && stepq_calib_from_cfg(&b, &cf, g, NULL, NULL, stepq_backend_default()) == STEPQ_OK) stepq_calib_build_free(&b);
    }
    cfg_free(&cf);
    return 0;
}

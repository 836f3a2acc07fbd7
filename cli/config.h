// config.h: strict reading of experiments/*.cfg (libconfig syntax). Every error names the
// file and line: parse errors, unknown keys (a typo must not silently fall back to a default),
// wrong types, values out of range.
#ifndef STEPQ_CONFIG_H
#define STEPQ_CONFIG_H

#include <libconfig.h>

// What the command line adds to a config's run (`stepq run`, `stepq calibrate`): filled by the
// options and handed down with the config, never held in a process global.
typedef struct {
    int quick;            // --quick: apply the config's quick group
    int resume;           // --resume: continue an interrupted run from its journal
    long long threads;    // --threads, or -1: the config's `threads`
    const char* backend;  // --backend, or NULL: the config's `backend` key where it takes one, else "cpu"
    int plan_any_model;   // --plan-any-model: a plan naming no model may serve a model's streams
} stepq_run_opts;

typedef struct {
    config_t cfg;
    const char* path;
    char* text;  // the whole file, stored with every result
    int quick;   // the quick group was applied
    int quick_beside;  // and an output not under results/ moved to quick/ beside it
    const stepq_run_opts* opts;  // the command line's (set by its runner, stepq_run_config)
} stepq_cfgfile;

// quick: merge the config's `quick = { ... }` group over its root first (the small sizes the
// tests run: a key there replaces the root's, a group there merges into the root's group);
// the quick group is removed either way. A quick run's paths under results/ (output, plan,
// report) move to results/quick/, so it never overwrites a full run; the stored text notes the quick run.
int cfg_load(stepq_cfgfile* cf, const char* path, int quick);
// the file a setting was read from: an @include'd file's name, else the config's path
const char* cfg_file_of(const stepq_cfgfile* cf, const config_setting_t* s);
void cfg_free(stepq_cfgfile* cf);

// STEPQ_ERR on a key of group not in allowed (NULL-terminated)
int cfg_check_keys(const stepq_cfgfile* cf, const config_setting_t* group,
                   const char* const* allowed);
// Getters: absent -> *out = def (or an error if required); wrong type or out of [lo, hi] -> error.
int cfg_int(const stepq_cfgfile* cf, const config_setting_t* g, const char* name, long long* out,
            int required, long long def, long long lo, long long hi);
int cfg_float(const stepq_cfgfile* cf, const config_setting_t* g, const char* name, double* out,
              int required, double def, double lo, double hi);
int cfg_bool(const stepq_cfgfile* cf, const config_setting_t* g, const char* name, int* out, int def);
int cfg_str(const stepq_cfgfile* cf, const config_setting_t* g, const char* name,
            const char** out, int required, const char* def);
// list or array of integers (each within 32 bits) / strings; *out malloc'd (NULL when empty or
// absent); cfg_i64_list: of 64-bit integers in [lo, hi] (seeds)
int cfg_int_list(const stepq_cfgfile* cf, const config_setting_t* g, const char* name,
                 int** out, int* n, int required);
int cfg_i64_list(const stepq_cfgfile* cf, const config_setting_t* g, const char* name, long long** out, int* n,
                 int required, long long lo, long long hi);
int cfg_str_list(const stepq_cfgfile* cf, const config_setting_t* g, const char* name,
                 const char*** out, int* n, int required);
config_setting_t* cfg_group(const stepq_cfgfile* cf, const config_setting_t* g, const char* name,
                            int required, int* err);

#endif

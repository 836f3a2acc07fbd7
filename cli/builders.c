// builders.c: see builders.h.
#include "builders.h"

#include "../analysis/runner.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../analysis/output.h"
#include "../analysis/runner.h"
#include "../base/common.h"
#include "../base/outfile.h"
#include "../base/ranks.h"
#include "../sim/synth.h"
#include "../sim/lm.h"
#include "../sim/trace.h"
#include "options.h"

const char* stepq_data_path(char* buf, size_t n, const char* path) {
    struct stat st;
    snprintf(buf, n, "%s", path);
    if (path[0] == '/' || stat(path, &st) == 0) return buf;
    snprintf(buf, n, "%s/%s", STEPQ_SOURCE_DIR, path);
    if (stat(buf, &st) != 0) snprintf(buf, n, "%s", path);  // neither: the message names it as given
    return buf;
}

const stepq_backend* stepq_backend_from_cfg(const stepq_cfgfile* cf, int has_key) {
    const char* name = "cpu";
    if (has_key && cfg_str(cf, NULL, "backend", &name, 0, "cpu")) return NULL;
    if (cf->opts->backend) name = cf->opts->backend;
    if (!stepq_backend_find(name) && strcmp(name, "cuda")) {  // (cuda: named where not built in)
        const config_setting_t* s = config_lookup(&cf->cfg, "backend");
        if (s && !cf->opts->backend)
            stepq_error("%s:%d: backend '%s' is not one of %s", cfg_file_of(cf, s), config_setting_source_line(s),
                        name, STEPQ_BACKEND_NAMES);
        else
            stepq_error("--backend %s is not one of %s", name, STEPQ_BACKEND_NAMES);
        return NULL;
    }
    return stepq_backend_named(name);
}

void stepq_set_threads(long long option, long long n) {
#ifdef _OPENMP
    if (option >= 0) n = option;
    if (n > 0) omp_set_num_threads((int)n);
#else
    (void)option, (void)n;
#endif
}

int stepq_prepare_output(const char* path) {
    // the last moment before the work: the ranks of an MPI run agree on what they run and read
    if (stepq_inputs_check_ranks() != STEPQ_OK) return STEPQ_ERR;
    if (stepq_rank() != 0) return STEPQ_OK;  // rank 0 writes an MPI run's outputs (base/ranks.h)
    return stepq_output_prepare(path);
}

const stepq_backend* stepq_cpu_backend(const stepq_backend* run) {
    return run->write ? run : stepq_backend_default();
}

// ---------------------------------------------------------------------------------------------
// sources

static const char* const keys_source_synth[] = {"type", "preset", "layers", "heads", "knobs",
                                                "model_seed", NULL};
static const char* const keys_source_trace[] = {"type", "path", "normalize", NULL};
static const char* const keys_source_model[] = {"type", "path", "text", "offset", "length", NULL};

// The language model at `dir` reading `length` bytes of `text` from `offset` (method 7): its
// stream captured as a trace, one value head per (layer, head), its forward on the CPU backend
// be. desc (may be NULL) names it.
static int model_source(stepq_source** out, const char* dir, const char* text, long long offset,
                        long long length, char* desc, size_t desc_n, const stepq_backend* be) {
    stepq_lm m;
    uint8_t* bytes;
    long n;
    if (stepq_lm_load(&m, dir)) return STEPQ_ERR;
    if (stepq_lm_read_text(&bytes, &n, text)) {
        stepq_lm_free(&m);
        return STEPQ_ERR;
    }
    int rc = STEPQ_OK;
    if (offset + length > n) {
        stepq_error("%s holds %ld bytes: offset %lld + length %lld do not fit", text, n, offset, length);
        rc = STEPQ_ERR;
    }
    uint64_t h = 0;
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/model.safetensors", dir);
    rc = rc || stepq_file_xxh3(&h, sub);
    if (!rc) {  // the forward stepped as the heads read it (a lockstep source): no capture
        const int kind = m.kind, layers = m.layers, heads = m.heads;
        *out = stepq_lm_source(&m, bytes + offset, (long)length, be);
        snprintf((*out)->desc, sizeof (*out)->desc, "model %.120s (%s, %d x %d heads), xxh3 %016" PRIx64
                 ", on %.200s bytes [%lld, %lld)", dir, stepq_kind_name(kind), layers, heads, h, text, offset,
                 offset + length);
        if (desc) snprintf(desc, desc_n, "%s", (*out)->desc);
    }
    free(bytes);
    stepq_lm_free(&m);
    return rc;
}

static int model_from_cfg(stepq_source** out, const stepq_cfgfile* cf, const config_setting_t* g, char* desc,
                          size_t desc_n, const stepq_backend* be) {
    const char *path, *text;
    long long offset, length;
    if (cfg_check_keys(cf, g, keys_source_model) || cfg_str(cf, g, "path", &path, 1, NULL) ||
        cfg_str(cf, g, "text", &text, 1, NULL) || cfg_int(cf, g, "offset", &offset, 0, 0, 0, 1LL << 40) ||
        cfg_int(cf, g, "length", &length, 1, 0, 1, 1LL << 30))
        return STEPQ_ERR;
    char pb[4096], tb[4096];
    return model_source(out, stepq_data_path(pb, sizeof pb, path), stepq_data_path(tb, sizeof tb, text), offset,
                        length, desc, desc_n, be);
}

// source.knobs = { key_ridge_gain = 8.0; ... }: overrides of the preset's generator knobs; k
// itself when g is NULL
static int knobs_from_cfg(stepq_synth_params* p, const stepq_cfgfile* cf, const config_setting_t* g,
                          const config_setting_t* k) {
    int err = 0;
    if (g) k = cfg_group(cf, g, "knobs", 0, &err);
    if (err) return STEPQ_ERR;
    for (int i = 0; k && i < config_setting_length(k); i++) {
        config_setting_t* e = config_setting_get_elem(k, (unsigned)i);
        int t = config_setting_type(e), line = config_setting_source_line(e);
        if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64 && t != CONFIG_TYPE_FLOAT) {
            stepq_error("%s:%d: knob '%s' must be a number", cfg_file_of(cf, e), line, config_setting_name(e));
            return STEPQ_ERR;
        }
        double v = t == CONFIG_TYPE_FLOAT ? config_setting_get_float(e) : (double)config_setting_get_int64(e);
        if (stepq_synth_set(p, config_setting_name(e), v)) {
            stepq_error("%s:%d: (see the knobs in sim/synth.h)", cfg_file_of(cf, e), line);
            return STEPQ_ERR;
        }
    }
    return STEPQ_OK;
}

// "trace PATH xxh3 HEX" of a trace file
static int describe_trace(char* desc, size_t n, const char* path, int normalize) {
    uint64_t h;
    if (stepq_file_xxh3(&h, path) != STEPQ_OK) return STEPQ_ERR;
    snprintf(desc, n, "trace %s xxh3 %016" PRIx64 "%s", path, h, normalize ? ", q and k normalised on reading" : "");
    return STEPQ_OK;
}

static void describe_list(char* buf, size_t n, const char* name, const int* x, int k) {
    size_t o = strlen(buf);
    o += (size_t)snprintf(buf + o, n - o, " %s=[", name);
    for (int i = 0; i < k && o < n; i++) o += (size_t)snprintf(buf + o, n - o, i ? ",%d" : "%d", x[i]);
    if (o < n) snprintf(buf + o, n - o, "]");
}

// a list of indices must name each one once (a repeated head would be counted twice)
static int no_repeats(const stepq_cfgfile* cf, const config_setting_t* g, const char* name, const int* x, int n) {
    for (int i = 0; i < n; i++)
        for (int k = 0; k < i; k++)
            if (x[k] == x[i]) {
                stepq_error("%s:%d: '%s' lists %d twice", cfg_file_of(cf, config_setting_get_member(g, name)),
                            config_setting_source_line(config_setting_get_member(g, name)), name, x[i]);
                return STEPQ_ERR;
            }
    return STEPQ_OK;
}

static int synth_from_cfg(stepq_source** out, const stepq_cfgfile* cf, const config_setting_t* g,
                          uint64_t seed, long long model, const config_setting_t* extra, char* desc,
                          size_t desc_n) {
    const char* preset;
    int *layers = NULL, *heads = NULL, nl = 0, nh = 0;
    long long model_seed;
    stepq_synth_params p;
    int rc = cfg_check_keys(cf, g, keys_source_synth) || cfg_str(cf, g, "preset", &preset, 1, NULL) ||
             cfg_int(cf, g, "model_seed", &model_seed, 0, 0, 0, (long long)1 << 62) ||
             cfg_int_list(cf, g, "layers", &layers, &nl, 0) ||
             cfg_int_list(cf, g, "heads", &heads, &nh, 0) || no_repeats(cf, g, "layers", layers, nl) ||
             no_repeats(cf, g, "heads", heads, nh) || stepq_synth_preset(&p, preset) ||
             knobs_from_cfg(&p, cf, g, NULL) || (extra && knobs_from_cfg(&p, cf, NULL, extra));
    if (!rc && model >= 0) model_seed = model;
    if (!rc && desc) {
        rc = stepq_synth_describe(desc, desc_n, &p);
        size_t o = strlen(desc);
        snprintf(desc + o, desc_n - o, "; model_seed=%lld", model_seed);
        describe_list(desc, desc_n, "layers", layers, nl);
        describe_list(desc, desc_n, "heads", heads, nh);
    }
    rc = rc || stepq_synth_open(out, &p, (uint64_t)model_seed, seed, layers, nl, heads, nh);
    free(layers);
    free(heads);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

int stepq_source_from_cfg(stepq_source** out, const stepq_cfgfile* cf, uint64_t seed,
                          long long model, const config_setting_t* extra, char* desc, size_t desc_n,
                          const stepq_backend* be) {
    int err = 0;
    config_setting_t* g = cfg_group(cf, NULL, "source", 1, &err);
    const char* type;
    if (err || cfg_str(cf, g, "type", &type, 1, NULL)) return STEPQ_ERR;
    if (!strcmp(type, "synthetic")) return synth_from_cfg(out, cf, g, seed, model, extra, desc, desc_n);
    if (extra) {
        stepq_error("%s:%d: generator knobs need a synthetic source", cfg_file_of(cf, extra), config_setting_source_line(extra));
        return STEPQ_ERR;
    }
    if (!strcmp(type, "model")) return model_from_cfg(out, cf, g, desc, desc_n, stepq_cpu_backend(be));
    if (strcmp(type, "trace")) {
        stepq_error("%s:%d: source type '%s' is not \"synthetic\", \"trace\" or \"model\"", cfg_file_of(cf, config_setting_get_member(g, "type")),
                    config_setting_source_line(config_setting_get_member(g, "type")), type);
        return STEPQ_ERR;
    }
    const char* path;
    int normalize;
    if (cfg_check_keys(cf, g, keys_source_trace) || cfg_str(cf, g, "path", &path, 1, NULL) ||
        cfg_bool(cf, g, "normalize", &normalize, 0) || (desc && describe_trace(desc, desc_n, path, normalize)))
        return STEPQ_ERR;
    return stepq_trace_open(out, path, normalize);  // streamed: checked as it is read
}

// ---------------------------------------------------------------------------------------------
// formats

static int line_of_elem(const stepq_cfgfile* cf, const char* list, int i) {
    return config_setting_source_line(config_setting_get_elem(config_lookup(&cf->cfg, list), (unsigned)i));
}

int stepq_formats_from_cfg(const stepq_format*** out, int* n, const stepq_cfgfile* cf) {
    const char** names;
    if (cfg_str_list(cf, NULL, "formats", &names, n, 1)) return STEPQ_ERR;
    if (*n == 0) {
        stepq_error("%s:%d: 'formats' is empty", cfg_file_of(cf, config_lookup(&cf->cfg, "formats")),
                    config_setting_source_line(config_lookup(&cf->cfg, "formats")));
        return STEPQ_ERR;
    }
    *out = mallocCheck(sizeof(stepq_format*) * (size_t)*n);
    int rc = STEPQ_OK;
    for (int i = 0; i < *n && !rc; i++) {
        (*out)[i] = stepq_format_find(names[i]);
        if (!(*out)[i]) {
            stepq_error("%s:%d: unknown format '%s' (see `stepq formats`)", cfg_file_of(cf, config_setting_get_elem(config_lookup(&cf->cfg, "formats"), (unsigned)i)),
                        line_of_elem(cf, "formats", i), names[i]);
            rc = STEPQ_ERR;
        }
        for (int k = 0; k < i && !rc; k++)
            if ((*out)[k] == (*out)[i]) {
                stepq_error("%s:%d: format '%s' is listed twice", cfg_file_of(cf, config_setting_get_elem(config_lookup(&cf->cfg, "formats"), (unsigned)i)),
                            line_of_elem(cf, "formats", i), names[i]);
                rc = STEPQ_ERR;
            }
    }
    free(names);
    if (rc) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

int stepq_formats_check_plan(const stepq_cfgfile* cf, const stepq_format* const* fmts, int n,
                             const char* plan_path) {
    for (int i = 0; i < n && !plan_path; i++)
        if (stepq_format_needs_plan(fmts[i])) {
            stepq_error("%s:%d: format %s needs a calibration plan: set 'plan' to a plan made by "
                        "`stepq calibrate`, and add a 'calibrate' group to make it here",
                        cf->path, line_of_elem(cf, "formats", i), fmts[i]->name);
            return STEPQ_ERR;
        }
    return STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------
// calibration

const char* const stepq_keys_calibrate[] = {
    "seeds", "traces", "steps", "horizon", "gamma", "rho", "refits", "snapshot_every",
    "reservoir", "pivots", "pivot_fraction", "damp_fraction", "seed", "normalize", "texts", "hold", NULL};

// a calibration's `hold = { scheme; budget; half_life; }` (analysis/calibrate.h: stepq_hold) into
// *h (budget 0 when absent) and a line of the key's text; half_life defaults to the horizon
static int hold_from_cfg(stepq_hold* h, const stepq_cfgfile* cf, const config_setting_t* g, double horizon,
                         char* text, size_t text_n) {
    static const char* const keys[] = {"scheme", "budget", "half_life", NULL};
    int err = 0;
    const char* scheme;
    long long budget;
    memset(h, 0, sizeof *h);
    const config_setting_t* hg = cfg_group(cf, g, "hold", 0, &err);
    if (err || !hg) return err ? STEPQ_ERR : STEPQ_OK;
    if (cfg_check_keys(cf, hg, keys) || cfg_str(cf, hg, "scheme", &scheme, 1, NULL) ||
        cfg_int(cf, hg, "budget", &budget, 1, 0, 4, 6) ||
        cfg_float(cf, hg, "half_life", &h->half_life, 0, horizon, 1, 1e300))
        return STEPQ_ERR;
    h->scheme = -1;
    for (int a = 0; a < STEPQ_N_ALLOC; a++)
        if (!strcmp(scheme, stepq_alloc_names[a])) h->scheme = a;
    if (h->scheme < 0 || stepq_budget_index((int)budget) < 0) {
        char names[256] = "";
        for (int a = 0; a < STEPQ_N_ALLOC; a++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", a ? ", " : "", stepq_alloc_names[a]);
        stepq_error("%s:%d: hold: scheme '%s' budget %lld is not a table of the plan (schemes %s; budgets 4, 6)",
                    cfg_file_of(cf, hg), config_setting_source_line(hg), scheme, budget, names);
        return STEPQ_ERR;
    }
    h->budget = (int)budget;
    const size_t o = strlen(text);
    snprintf(text + o, text_n - o, "%shold: scheme=%s budget=%d half_life=%.17g\n", o && text[o - 1] != '\n' ? "\n" : "",
             scheme, h->budget, h->half_life);
    return STEPQ_OK;
}

// the segments: a run of the synthetic source per seed, a trace file each, or the source's
// language model on each text (its first `steps` bytes); text gets what determines them
static int segments_from_cfg(stepq_calib_build* b, const stepq_cfgfile* cf, const long long* seeds,
                             int ns, const char** traces, int nt, const char** texts, int nx, long long steps,
                             int normalize, const config_setting_t* extra, char* text, size_t text_n,
                             const stepq_backend* be) {
    if (nt) return stepq_calib_trace_segments(b, traces, nt, normalize, text, text_n);
    const int n = ns ? ns : nx;
    const char* model = NULL;
    if (nx && config_lookup_string(&cf->cfg, "model", &model) != CONFIG_TRUE &&
        config_lookup_string(&cf->cfg, "source.path", &model) != CONFIG_TRUE) {
        stepq_error("%s: calibration 'texts' need a model: a root 'model' key or a source of type \"model\"",
                    cf->path);
        return STEPQ_ERR;
    }
    size_t o = strlen(text);
    b->c.segments = callocCheck((size_t)n, sizeof *b->c.segments);
    b->c.n_segments = n;
    for (int i = 0; i < n; i++) {
        char desc[2048];
        if (ns) {
            if (stepq_source_from_cfg(&b->c.segments[i], cf, (uint64_t)seeds[i], -1, extra, desc, sizeof desc, be))
                return STEPQ_ERR;
            if (i == 0) o += (size_t)snprintf(text + o, text_n - o, "source: %s\nseeds:", desc);
            o += (size_t)snprintf(text + o, text_n - o, " %lld", seeds[i]);
        } else {
            char mb[4096], tb[4096];
            if (model_source(&b->c.segments[i], stepq_data_path(mb, sizeof mb, model),
                             stepq_data_path(tb, sizeof tb, texts[i]), 0, steps, desc, sizeof desc, be))
                return STEPQ_ERR;
            o += (size_t)snprintf(text + o, text_n - o, "segment: %s\n", desc);
        }
        if (o >= text_n) return STEPQ_ERR;
    }
    return STEPQ_OK;
}

int stepq_calib_from_cfg(stepq_calib_build* b, const stepq_cfgfile* cf, const config_setting_t* g,
                         const char* output, const config_setting_t* extra, const stepq_backend* be) {
    stepq_calib_settings set;
    long long* seeds = NULL;
    int ns = 0, nt = 0, nx = 0, normalize = 0;
    const char **traces = NULL, **texts = NULL;
    memset(b, 0, sizeof *b);
    int rc = (g && cfg_check_keys(cf, g, stepq_keys_calibrate)) || cfg_bool(cf, g, "normalize", &normalize, 0) ||
        cfg_i64_list(cf, g, "seeds", &seeds, &ns, 0, 0, (long long)1 << 62) ||
        cfg_str_list(cf, g, "traces", &traces, &nt, 0) ||
        cfg_str_list(cf, g, "texts", &texts, &nx, 0);
    // the settings, each with its default and range (analysis/calibrate.c: stepq_calib_knobs)
    for (const stepq_calib_knob* k = stepq_calib_knobs; k->key && !rc; k++) {
        char* at = (char*)&set + k->offset;
        rc = k->integer ? cfg_int(cf, g, k->key, (long long*)at, 0, (long long)k->def, (long long)k->lo, (long long)k->hi)
                        : cfg_float(cf, g, k->key, (double*)at, 0, k->def, k->lo, k->hi);
    }
    if (!rc) {  // a calibration that takes no snapshot: each setting named by its key and the line that set it
        const config_setting_t* grp = g ? g : config_root_setting(&cf->cfg);
        char who[4200], at[STEPQ_CALIB_NKNOBS][4200];
        stepq_calib_names named = {.who = who};
        snprintf(who, sizeof who, "%s:%d", cfg_file_of(cf, grp), g ? (int)config_setting_source_line(g) : 1);
        for (int i = 0; i < STEPQ_CALIB_NKNOBS; i++) {
            const config_setting_t* set_at = config_setting_get_member(grp, stepq_calib_knobs[i].key);
            if (!set_at) continue;  // its default: named by the key alone, the message begun by who
            snprintf(at[i], sizeof at[i], "%s:%d", cfg_file_of(cf, set_at), (int)config_setting_source_line(set_at));
            named.at[i] = at[i];
        }
        rc = stepq_calib_check_snapshots(&set, &named);
    }
    if (!rc && (ns > 0) + (nt > 0) + (nx > 0) != 1) {
        stepq_error("%s: calibration needs one of 'seeds' (runs of the synthetic source), 'traces' (trace "
                    "files) or 'texts' (the model source on each text), one per segment", cf->path);
        rc = STEPQ_ERR;
    }
    char text[STEPQ_CALIB_TEXT_MAX];
    snprintf(text, sizeof text, "stepq %s\n", stepq_git_revision());
    if (!rc && normalize && !nt) {
        stepq_error("%s: 'normalize' applies to calibration traces; this calibration runs the synthetic source", cf->path);
        rc = STEPQ_ERR;
    }
    be = stepq_cpu_backend(be);
    rc = rc || segments_from_cfg(b, cf, seeds, ns, traces, nt, texts, nx, set.steps, normalize, extra, text,
                                 sizeof text, be);
    stepq_hold hold;
    char base[STEPQ_CALIB_TEXT_MAX];  // the key's text without the hold: its base_key
    snprintf(base, sizeof base, "%s", text);
    rc = rc || hold_from_cfg(&hold, cf, g, set.horizon, text, sizeof text);
    if (!rc && hold.budget) {
        stepq_calib_finish(b, &set, base, sizeof base, output, (stepq_provenance){0}, be);
        snprintf(b->base_key, sizeof b->base_key, "%s", b->key);
    }
    if (!rc) {
        stepq_calib_finish(b, &set, text, sizeof text, output,
                           (stepq_provenance){.experiment = "calibrate", .config_path = cf->path,
                                              .config_text = cf->text, .seed = (uint64_t)set.seed},
                           be);
        b->c.hold = hold;
        if (!hold.budget) snprintf(b->base_key, sizeof b->base_key, "%s", b->key);
    }
    free(seeds);
    free(traces);
    free(texts);
    if (rc) stepq_calib_build_free(b);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

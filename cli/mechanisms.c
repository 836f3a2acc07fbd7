// mechanisms.c: the front ends of the mechanism drivers (method 6.3) and of the language
// model's (method 7): each reads its config, builds the driver's struct, runs it and draws its
// figure. The dispatch is experiments.c.
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/bench.h"
#include "../analysis/frontier.h"
#include "../analysis/generate.h"
#include "../analysis/halflife.h"
#include "../analysis/knobs.h"
#include "../analysis/memory.h"
#include "../analysis/nll.h"
#include "../analysis/recall.h"
#include "../analysis/octile.h"
#include "../analysis/regimes.h"
#include "../analysis/robust.h"
#include "../analysis/runner.h"
#include "../analysis/selfcorrect.h"
#include "../base/common.h"
#include "builders.h"
#include "plot.h"
#include "runconfig.h"

// ---------------------------------------------------------------------------------------------
// self-correction

static const char* const keys_selfcorrect[] = {"experiment", "description", "seed", "seeds", "source",
                                               "prefill", "decode", "windows", "formats", "output",
                                               "plot", "threads", "backend", NULL};

// windows (W) <- the config's `windows`, or doublings from 16 up to decode (and decode itself)
static int windows_from_cfg(long** out, int* n, const stepq_cfgfile* cf, long long decode) {
    int* list = NULL;
    if (cfg_int_list(cf, NULL, "windows", &list, n, 0)) return STEPQ_ERR;
    if (*n) {
        *out = mallocCheck(sizeof(long) * *n);
        for (int i = 0; i < *n; i++) {
            (*out)[i] = list[i];
            if (list[i] < 1 || list[i] > decode || (i && list[i] <= list[i - 1])) {
                stepq_error("%s:%d: 'windows' must increase, each in [1, decode = %lld]", cfg_file_of(cf, config_lookup(&cf->cfg, "windows")),
                            config_setting_source_line(config_lookup(&cf->cfg, "windows")), decode);
                free(list);
                free(*out);
                return STEPQ_ERR;
            }
        }
        free(list);
        return STEPQ_OK;
    }
    *out = mallocCheck(sizeof(long) * 64);
    for (long w = 16; w < decode && *n < 63; w *= 2) (*out)[(*n)++] = w;
    (*out)[(*n)++] = (long)decode;
    return STEPQ_OK;
}

int stepq_run_selfcorrect(const stepq_cfgfile* cf) {
    long long prefill, decode;
    const stepq_format** fmts = NULL;
    uint64_t* seeds = NULL;
    long* windows = NULL;
    int nf = 0, S = 0, nw = 0;
    stepq_cfg_common c;
    if (stepq_cfg_read_common(&c, cf, keys_selfcorrect) ||
        cfg_int(cf, NULL, "prefill", &prefill, 1, 0, 0, 1LL << 40) ||
        cfg_int(cf, NULL, "decode", &decode, 1, 0, 1, 1LL << 40) || stepq_formats_from_cfg(&fmts, &nf, cf) ||
        stepq_formats_check_plan(cf, fmts, nf, NULL) || stepq_cfg_seeds(&seeds, &S, cf) ||
        windows_from_cfg(&windows, &nw, cf, decode)) {
        free(fmts);
        free(seeds);
        return STEPQ_ERR;
    }
    stepq_source** srcs = stepq_cfg_sources_for(cf, seeds, S, c.backend);
    int rc = srcs ? STEPQ_OK : STEPQ_ERR;
    if (!rc) {
        stepq_selfcorrect_cfg sc = {.srcs = srcs, .seeds = seeds, .n_seeds = S, .formats = fmts, .n_formats = nf,
                                    .prefill = prefill, .decode = decode, .windows = windows, .n_windows = nw,
                                    .output = c.output, .table = c.plot ? c.table : NULL,
                                    .prov = {.experiment = "selfcorrect", .config_path = cf->path, .config_text = cf->text, .seed = seeds[0], .source = srcs[0]->desc},
                                    .backend = c.backend};
        rc = stepq_prepare_output(c.output) || stepq_selfcorrect(&sc);
        if (!rc) printf("wrote %s\n", c.output);
    }
    if (!rc && c.plot) {
        stepq_plot_vars vars = {0};
        stepq_cfg_plot_vars(&vars, fmts, nf, srcs[0], seeds, S);
        rc = stepq_plot(c.plot, c.table, c.png, &vars);
    }
    stepq_cfg_free_sources(srcs, S);
    free(seeds);
    free(fmts);
    free(windows);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------
// half-life against error

static const char* const keys_halflife[] = {"experiment", "description", "seed", "seeds", "source",
                                            "prefill", "decode", "format", "output", "plot",
                                            "threads", NULL};

int stepq_run_halflife(const stepq_cfgfile* cf) {
    long long prefill, decode;
    const char* fname;
    uint64_t* seeds = NULL;
    int S = 0;
    stepq_cfg_common c;
    if (stepq_cfg_read_common(&c, cf, keys_halflife) ||
        cfg_int(cf, NULL, "prefill", &prefill, 1, 0, 0, 1LL << 40) ||
        cfg_int(cf, NULL, "decode", &decode, 1, 0, 1, 1LL << 40) ||
        cfg_str(cf, NULL, "format", &fname, 0, "int6") || stepq_cfg_seeds(&seeds, &S, cf))
        return STEPQ_ERR;
    const stepq_format* fmt = stepq_format_find(fname);
    if (!fmt || stepq_format_needs_plan(fmt)) {
        stepq_error("%s:%d: format '%s' is not a format that runs without a plan (see `stepq formats`)",
                    cfg_file_of(cf, config_lookup(&cf->cfg, "format")), config_setting_source_line(config_lookup(&cf->cfg, "format")), fname);
        free(seeds);
        return STEPQ_ERR;
    }
    stepq_source** srcs = stepq_cfg_sources_for(cf, seeds, S, c.backend);
    int rc = srcs ? STEPQ_OK : STEPQ_ERR;
    double* sum = mallocCheck(sizeof(double) * S * HL_N_SUMMARY);
    if (!rc) {
        stepq_halflife_cfg hc = {.srcs = srcs, .seeds = seeds, .n_seeds = S, .format = fmt, .prefill = prefill,
                                 .decode = decode, .output = c.output, .table = c.plot ? c.table : NULL,
                                 .prov = {.experiment = "halflife", .config_path = cf->path, .config_text = cf->text, .seed = seeds[0], .source = srcs[0]->desc},
                                 .backend = c.backend};
        rc = stepq_prepare_output(c.output) || stepq_halflife(sum, &hc);
        if (!rc) printf("wrote %s\n", c.output);
    }
    if (!rc && c.plot) {
        stepq_plot_vars vars = {0};
        stepq_cfg_plot_vars(&vars, &fmt, 1, srcs[0], seeds, S);
        rc = stepq_plot(c.plot, c.table, c.png, &vars);
    }
    free(sum);
    stepq_cfg_free_sources(srcs, S);
    free(seeds);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------
// octile sweep of the row influence

static const char* const keys_octile[] = {"experiment", "description", "seed", "seeds", "source",
                                          "calib_seed_offset", "calib_steps", "prefill", "decode",
                                          "width", "output", "plot", "threads", NULL};

int stepq_run_octile(const stepq_cfgfile* cf) {
    long long prefill, decode, csteps, width, offset;
    uint64_t *seeds = NULL, *cseeds = NULL;
    int S = 0;
    stepq_cfg_common c;
    if (stepq_cfg_read_common(&c, cf, keys_octile) ||
        cfg_int(cf, NULL, "prefill", &prefill, 1, 0, 0, 1LL << 40) ||
        cfg_int(cf, NULL, "decode", &decode, 1, 0, 1, 1LL << 40) ||
        cfg_int(cf, NULL, "calib_steps", &csteps, 0, 2048, 2, 1LL << 40) ||
        cfg_int(cf, NULL, "calib_seed_offset", &offset, 0, 1000, 1, 1LL << 40) ||
        cfg_int(cf, NULL, "width", &width, 0, 4, 2, 8) || stepq_cfg_seeds(&seeds, &S, cf))
        return STEPQ_ERR;
    cseeds = mallocCheck(sizeof(uint64_t) * S);
    for (int i = 0; i < S; i++) cseeds[i] = seeds[i] + (uint64_t)offset;  // other streams, same model
    stepq_source** srcs = stepq_cfg_sources_for(cf, seeds, S, c.backend);
    stepq_source** cal = srcs ? stepq_cfg_sources_for(cf, cseeds, S, c.backend) : NULL;
    int rc = cal ? STEPQ_OK : STEPQ_ERR;
    if (!rc) {
        stepq_octile_cfg oc = {.srcs = srcs, .calib = cal, .seeds = seeds, .n_seeds = S, .calib_steps = csteps,
                               .prefill = prefill, .decode = decode, .width = (int)width, .output = c.output,
                               .table = c.plot ? c.table : NULL,
                               .prov = {.experiment = "octile", .config_path = cf->path, .config_text = cf->text, .seed = seeds[0], .source = srcs[0]->desc}, .backend = c.backend};
        rc = stepq_prepare_output(c.output) || stepq_octile(&oc);
        if (!rc) printf("wrote %s\n", c.output);
    }
    if (!rc && c.plot) {
        stepq_plot_vars vars = {0};
        const stepq_format* f = stepq_format_find(width == 8 ? "int8" : width == 6 ? "int6" : "int4");
        stepq_cfg_plot_vars(&vars, &f, 1, srcs[0], seeds, S);
        rc = stepq_plot(c.plot, c.table, c.png, &vars);
    }
    stepq_cfg_free_sources(srcs, S);
    stepq_cfg_free_sources(cal, S);
    free(seeds);
    free(cseeds);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------
// sweeps of the calibration knobs

static const char* const keys_knobs[] = {"experiment", "description", "seed", "seeds", "source",
                                         "calibrate", "sweeps", "formats", "prefill", "decode",
                                         "output", "plot", "threads", NULL};
static const char* const keys_sweep[] = {"knob", "values", "paper", NULL};

// sweeps (n) <- the config's `sweeps = ( { knob = "gamma"; values = [...]; paper = 0.25; }, ... )`
static int sweeps_from_cfg(stepq_knob_sweep** out, double** store, int* n, const stepq_cfgfile* cf) {
    config_setting_t* l = config_lookup(&cf->cfg, "sweeps");
    if (!l || !config_setting_is_list(l) || config_setting_length(l) == 0) {
        stepq_error("%s: 'sweeps' must be a non-empty list ( { knob = ...; values = [...]; }, ... )", cf->path);
        return STEPQ_ERR;
    }
    *n = config_setting_length(l);
    *out = callocCheck((size_t)*n, sizeof **out);
    *store = callocCheck((size_t)*n * 64, sizeof **store);
    for (int i = 0; i < *n; i++) {
        config_setting_t* g = config_setting_get_elem(l, (unsigned)i);
        const char* knob;
        double* values = *store + (size_t)i * 64;
        config_setting_t* vs = config_setting_is_group(g) ? config_setting_get_member(g, "values") : NULL;
        if (!config_setting_is_group(g) || cfg_check_keys(cf, g, keys_sweep) || cfg_str(cf, g, "knob", &knob, 1, NULL) ||
            stepq_knobs_check(knob) || cfg_float(cf, g, "paper", &(*out)[i].paper, 0, NAN, -1e30, 1e30)) {
            if (!config_setting_is_group(g))
                stepq_error("%s:%d: each sweep is a group { knob = ...; values = [...]; }", cfg_file_of(cf, g),
                            config_setting_source_line(g));
            return STEPQ_ERR;
        }
        int nv = vs && (config_setting_is_array(vs) || config_setting_is_list(vs)) ? config_setting_length(vs) : 0;
        if (nv < 1 || nv > 64) {
            stepq_error("%s:%d: sweep of %s needs 'values', a list of 1 to 64 numbers", cfg_file_of(cf, g),
                        config_setting_source_line(g), knob);
            return STEPQ_ERR;
        }
        for (int k = 0; k < nv; k++) {
            config_setting_t* e = config_setting_get_elem(vs, (unsigned)k);
            int t = config_setting_type(e);
            if (t != CONFIG_TYPE_FLOAT && t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) {
                stepq_error("%s:%d: the values of %s must be numbers", cfg_file_of(cf, e), config_setting_source_line(e), knob);
                return STEPQ_ERR;
            }
            values[k] = t == CONFIG_TYPE_FLOAT ? config_setting_get_float(e) : (double)config_setting_get_int64(e);
        }
        (*out)[i] = (stepq_knob_sweep){.knob = knob, .values = values, .n = nv, .paper = (*out)[i].paper};
    }
    return STEPQ_OK;
}

int stepq_run_knobs(const stepq_cfgfile* cf) {
    long long prefill, decode;
    const stepq_format** fmts = NULL;
    uint64_t* seeds = NULL;
    stepq_knob_sweep* sweeps = NULL;
    double* store = NULL;
    int nf = 0, S = 0, nk = 0, err = 0;
    config_setting_t* calib = NULL;
    stepq_calib_build b = {0};
    stepq_cfg_common c;
    if (stepq_cfg_read_common(&c, cf, keys_knobs) ||
        cfg_int(cf, NULL, "prefill", &prefill, 1, 0, 0, 1LL << 40) ||
        cfg_int(cf, NULL, "decode", &decode, 1, 0, 1, 1LL << 40) || stepq_formats_from_cfg(&fmts, &nf, cf) ||
        stepq_cfg_seeds(&seeds, &S, cf) || (calib = cfg_group(cf, NULL, "calibrate", 1, &err), err) ||
        sweeps_from_cfg(&sweeps, &store, &nk, cf) || stepq_calib_from_cfg(&b, cf, calib, NULL, NULL, c.backend)) {
        free(fmts); free(seeds); free(sweeps); free(store);
        return STEPQ_ERR;
    }
    stepq_source** srcs = stepq_cfg_sources_for(cf, seeds, S, c.backend);
    int rc = srcs ? STEPQ_OK : STEPQ_ERR;
    if (!rc) {
        stepq_knobs_cfg kc = {.base = &b.c, .sweeps = sweeps, .n_sweeps = nk, .evals = srcs, .seeds = seeds,
                              .n_seeds = S, .formats = fmts, .n_formats = nf, .prefill = prefill, .decode = decode,
                              .output = c.output, .table = c.plot ? c.table : NULL,
                              .prov = {.experiment = "knobs", .config_path = cf->path, .config_text = cf->text, .seed = seeds[0], .source = srcs[0]->desc}, .backend = c.backend};
        rc = stepq_prepare_output(c.output) || stepq_knobs(&kc);
        if (!rc) printf("wrote %s\n", c.output);
    }
    if (!rc && c.plot) {
        stepq_plot_vars vars = {0};
        char buf[8192];
        stepq_cfg_plot_vars(&vars, fmts, nf, srcs[0], seeds, S);
        size_t o = 0;
        for (int k = 0; k < nk && o < sizeof buf; k++) o += (size_t)snprintf(buf + o, sizeof buf - o, k ? " %s" : "%s", sweeps[k].knob);
        stepq_plot_var(&vars, "knobs", "%s", buf);
        o = 0;
        for (int k = 0; k < nk && o < sizeof buf; k++) o += (size_t)snprintf(buf + o, sizeof buf - o, k ? " %g" : "%g", sweeps[k].paper);
        stepq_plot_var(&vars, "papers", "%s", nk ? buf : "");
        rc = stepq_plot(c.plot, c.table, c.png, &vars);
    }
    stepq_calib_build_free(&b);
    stepq_cfg_free_sources(srcs, S);
    free(fmts); free(seeds); free(sweeps); free(store);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------
// calibration robustness across generator regimes

static const char* const keys_robustness[] = {"experiment", "description", "seed", "seeds", "source",
                                              "calibrate", "regimes", "formats", "prefill", "decode",
                                              "output", "plot", "threads", NULL};
static const char* const keys_regime[] = {"name", "knobs", NULL};

// names (n), knob groups (n) of the config's list `key` = ( { name = ...; knobs = {...}; }, ... )
static int regimes_from_cfg(const char*** names, const config_setting_t*** knobs, int* n,
                            const stepq_cfgfile* cf, const char* key) {
    config_setting_t* l = config_lookup(&cf->cfg, key);
    if (!l || !config_setting_is_list(l) || config_setting_length(l) < 1) {
        stepq_error("%s: '%s' must be a non-empty list ( { name = \"...\"; knobs = { ... }; }, ... )", cf->path, key);
        return STEPQ_ERR;
    }
    *n = config_setting_length(l);
    *names = callocCheck((size_t)*n, sizeof **names);
    *knobs = callocCheck((size_t)*n, sizeof **knobs);
    for (int i = 0; i < *n; i++) {
        config_setting_t* g = config_setting_get_elem(l, (unsigned)i);
        int err = 0;
        if (!config_setting_is_group(g) || cfg_check_keys(cf, g, keys_regime) ||
            cfg_str(cf, g, "name", &(*names)[i], 1, NULL) || ((*knobs)[i] = cfg_group(cf, g, "knobs", 0, &err), err)) {
            if (!config_setting_is_group(g))
                stepq_error("%s:%d: each entry of '%s' is a group { name = ...; knobs = { ... }; }", cfg_file_of(cf, g),
                            config_setting_source_line(g), key);
            return STEPQ_ERR;
        }
        for (int k = 0; k < i; k++)
            if (!strcmp((*names)[k], (*names)[i])) {
                stepq_error("%s:%d: '%s' names '%s' twice", cfg_file_of(cf, g), config_setting_source_line(g), key, (*names)[i]);
                return STEPQ_ERR;
            }
    }
    return STEPQ_OK;
}

// Each regime's calibration (knobs applied to the calibrate group) and its evaluation streams,
// seed by seed: b, cc (R), evals (R, S); freed by free_regime_streams.
typedef struct {
    int R, S, built;
    stepq_calib_build* b;
    stepq_calib_cfg* cc;
    stepq_source** evals;
} regime_streams;

static void free_regime_streams(regime_streams* rs) {
    for (int r = 0; r < rs->built; r++) stepq_calib_build_free(&rs->b[r]);
    for (size_t i = 0; rs->evals && i < (size_t)rs->R * rs->S; i++) stepq_source_free(rs->evals[i]);
    free(rs->b); free(rs->cc); free(rs->evals);
}

static int regime_streams_build(regime_streams* rs, const stepq_cfgfile* cf, const config_setting_t* calib,
                                const config_setting_t* const* knobs, int R, const uint64_t* seeds, int S,
                                const stepq_backend* be) {
    *rs = (regime_streams){.R = R, .S = S, .built = 0, .b = callocCheck((size_t)R, sizeof *rs->b),
                           .cc = callocCheck((size_t)R, sizeof *rs->cc), .evals = callocCheck((size_t)R * S, sizeof *rs->evals)};
    for (int r = 0; r < R; r++) {
        if (stepq_calib_from_cfg(&rs->b[r], cf, calib, NULL, knobs[r], be)) return STEPQ_ERR;
        rs->cc[r] = rs->b[r].c, rs->built++;
        stepq_source** e = stepq_cfg_sources(cf, seeds, S, knobs[r], be);
        if (!e) return STEPQ_ERR;
        memcpy(rs->evals + (size_t)r * S, e, sizeof *e * S);
        free(e);
    }
    return STEPQ_OK;
}

// stepq_cfg_plot_vars and regimes ("name name ...")
static void regime_plot_vars(stepq_plot_vars* v, const stepq_format* const* fmts, int nf, const stepq_source* src,
                             const uint64_t* seeds, int S, const char* const* names, int R) {
    char buf[8192];
    size_t o = 0;
    buf[0] = 0;
    stepq_cfg_plot_vars(v, fmts, nf, src, seeds, S);
    for (int r = 0; r < R && o < sizeof buf; r++) o += (size_t)snprintf(buf + o, sizeof buf - o, r ? " %s" : "%s", names[r]);
    stepq_plot_var(v, "regimes", "%s", buf);
}

// The front end robustness and regimes share: the keys of the root (`halflife_format` is
// regimes' own), the regimes' calibrations and evaluation streams, the driver, its figure.
typedef struct {
    stepq_cfg_common c;
    long long prefill, decode;
    const char *hlname, **names;
    const config_setting_t** knobs;
    const stepq_format** fmts;
    uint64_t* seeds;
    int nf, S, R;
    config_setting_t* calib;
} regime_run;

static void regime_run_free(regime_run* g) {
    free(g->fmts); free(g->seeds); free(g->names); free(g->knobs);
}

static int regime_run_parse(regime_run* g, const stepq_cfgfile* cf, const char* const* keys, int with_hl) {
    int err = 0;
    *g = (regime_run){.prefill = 0};
    if (stepq_cfg_read_common(&g->c, cf, keys) ||
        cfg_int(cf, NULL, "prefill", &g->prefill, 1, 0, 0, 1LL << 40) ||
        cfg_int(cf, NULL, "decode", &g->decode, 1, 0, 1, 1LL << 40) ||
        (with_hl && cfg_str(cf, NULL, "halflife_format", &g->hlname, 0, "int6")) ||
        stepq_formats_from_cfg(&g->fmts, &g->nf, cf) || stepq_cfg_seeds(&g->seeds, &g->S, cf) ||
        (g->calib = cfg_group(cf, NULL, "calibrate", 1, &err), err) ||
        regimes_from_cfg(&g->names, &g->knobs, &g->R, cf, "regimes"))
        return STEPQ_ERR;
    return STEPQ_OK;
}

static int run_regime_driver(const stepq_cfgfile* cf, const char* const* keys, int with_hl) {
    regime_run g;
    const stepq_format* hlf = NULL;
    if (regime_run_parse(&g, cf, keys, with_hl)) {
        regime_run_free(&g);
        return STEPQ_ERR;
    }
    if (with_hl && (!(hlf = stepq_format_find(g.hlname)) || stepq_format_needs_plan(hlf))) {
        stepq_error("%s:%d: halflife_format '%s' must be a format that needs no plan (stepq formats)", cfg_file_of(cf, config_lookup(&cf->cfg, "halflife_format")),
                    config_setting_source_line(config_lookup(&cf->cfg, "halflife_format")), g.hlname);
        regime_run_free(&g);
        return STEPQ_ERR;
    }
    regime_streams rs;
    int rc = regime_streams_build(&rs, cf, g.calib, g.knobs, g.R, g.seeds, g.S, g.c.backend);
    const char* tsv = g.c.plot ? g.c.table : NULL;
    stepq_provenance prov = {.experiment = with_hl ? "regimes" : "robustness", .config_path = cf->path, .config_text = cf->text, .seed = g.seeds[0],
                             .source = rc ? "" : rs.evals[0]->desc};
    if (!rc && with_hl) {
        stepq_regimes_cfg c = {.names = g.names, .calib = rs.cc, .evals = rs.evals, .seeds = g.seeds,
                               .n_regimes = g.R, .n_seeds = g.S, .formats = g.fmts, .n_formats = g.nf,
                               .halflife_format = hlf, .prefill = g.prefill, .decode = g.decode, .output = g.c.output,
                               .table = tsv, .prov = prov, .backend = g.c.backend};
        rc = stepq_prepare_output(g.c.output) || stepq_regimes(&c);
    } else if (!rc) {
        stepq_robust_cfg c = {.names = g.names, .calib = rs.cc, .evals = rs.evals, .seeds = g.seeds,
                              .n_regimes = g.R, .n_seeds = g.S, .formats = g.fmts, .n_formats = g.nf,
                              .prefill = g.prefill, .decode = g.decode, .output = g.c.output, .table = tsv,
                              .prov = prov, .backend = g.c.backend};
        rc = stepq_prepare_output(g.c.output) || stepq_robust(&c);
    }
    if (!rc) printf("wrote %s\n", g.c.output);
    if (!rc && g.c.plot) {
        stepq_plot_vars vars = {0};
        regime_plot_vars(&vars, g.fmts, g.nf, rs.evals[0], g.seeds, g.S, g.names, g.R);
        rc = stepq_plot(g.c.plot, g.c.table, g.c.png, &vars);
    }
    free_regime_streams(&rs);
    regime_run_free(&g);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

int stepq_run_robustness(const stepq_cfgfile* cf) { return run_regime_driver(cf, keys_robustness, 0); }

// ---------------------------------------------------------------------------------------------
// regimes

static const char* const keys_regimes[] = {"experiment", "description", "seed", "seeds", "source",
                                           "calibrate", "regimes", "formats", "halflife_format",
                                           "prefill", "decode", "output", "plot", "threads", NULL};

int stepq_run_regimes(const stepq_cfgfile* cf) { return run_regime_driver(cf, keys_regimes, 1); }

// ---------------------------------------------------------------------------------------------
// memory figure

static const char* const keys_memory[] = {"experiment", "description", "models", "formats",
                                          "max_requests", "output", "plot", NULL};
static const char* const keys_memory_model[] = {"preset", "weights_gb", "conv_mib", "requests", NULL};

// models (n) <- `models = ( { preset = "..."; weights_gb = ...; }, ... )`; defaults from the
// paper's serving settings of the preset (method 4.5)
static int memory_models_from_cfg(stepq_memory_model** out, int* n, const stepq_cfgfile* cf) {
    const config_setting_t* ms = config_lookup(&cf->cfg, "models");
    if (!ms || !config_setting_is_list(ms) || config_setting_length(ms) == 0) {
        stepq_error("%s: 'models' must be a non-empty list ( { preset = \"gdn-qwen-like\"; weights_gb = 53.8; }, ... )",
                    cf->path);
        return STEPQ_ERR;
    }
    *n = config_setting_length(ms);
    *out = callocCheck((size_t)*n, sizeof **out);
    for (int i = 0; i < *n; i++) {
        const config_setting_t* g = config_setting_get_elem(ms, (unsigned)i);
        const char* preset;
        long long requests;
        stepq_memory_model* m = &(*out)[i];
        if (!config_setting_is_group(g)) {
            stepq_error("%s:%d: each model is a group { preset = ...; }", cfg_file_of(cf, g), config_setting_source_line(g));
            return STEPQ_ERR;
        }
        if (cfg_check_keys(cf, g, keys_memory_model) || cfg_str(cf, g, "preset", &preset, 1, NULL))
            return STEPQ_ERR;
        if (stepq_memory_paper_model(m, preset) != STEPQ_OK) {
            stepq_error("%s:%d: unknown preset '%s' (gdn-qwen-like, kda-kimi-like)", cfg_file_of(cf, g),
                        config_setting_source_line(g), preset);
            return STEPQ_ERR;
        }
        if (cfg_float(cf, g, "weights_gb", &m->weights_gb, 0, m->weights_gb, 0, 1e6) ||
            cfg_float(cf, g, "conv_mib", &m->conv_mib, 0, m->conv_mib, 0, 1e6) ||
            cfg_int(cf, g, "requests", &requests, 0, m->requests, 1, 1 << 20))
            return STEPQ_ERR;
        m->requests = (int)requests;
    }
    return STEPQ_OK;
}

int stepq_run_memory(const stepq_cfgfile* cf) {
    long long maxreq;
    const stepq_format** fmts = NULL;
    stepq_memory_model* models = NULL;
    int nf = 0, nm = 0;
    stepq_cfg_common c;
    if (stepq_cfg_read_common(&c, cf, keys_memory) ||
        cfg_int(cf, NULL, "max_requests", &maxreq, 0, 1024, 1, 1 << 20) ||
        stepq_formats_from_cfg(&fmts, &nf, cf) || memory_models_from_cfg(&models, &nm, cf)) {
        free(fmts); free(models);
        return STEPQ_ERR;
    }
    char what[1024] = "";
    for (int m = 0; m < nm; m++)
        snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s", m ? ", " : "", models[m].name);
    stepq_memory_sweep_cfg mc = {.models = models, .n_models = nm, .formats = fmts, .n_formats = nf,
                                 .max_requests = (int)maxreq, .output = c.output, .table = c.plot ? c.table : NULL,
                                 .prov = {.experiment = "memory", .config_path = cf->path, .config_text = cf->text, .seed = 0, .source = what}};
    int rc = stepq_prepare_output(c.output) || stepq_memory_sweep(&mc);
    if (!rc) printf("wrote %s\n", c.output);
    if (!rc && c.plot) {
        stepq_plot_vars vars = {0};
        char buf[8192];
        stepq_plot_var(&vars, "formats", "%s", stepq_format_list(buf, sizeof buf, fmts, nf));
#define MODEL_LIST(name, f, field)                                                                   \
    do {                                                                                             \
        size_t o_ = 0;                                                                               \
        buf[0] = 0;                                                                                  \
        for (int m = 0; m < nm && o_ < sizeof buf; m++)                                              \
            o_ += (size_t)snprintf(buf + o_, sizeof buf - o_, m ? " " f : f, models[m].field);       \
        stepq_plot_var(&vars, name, "%s", buf);                                                      \
    } while (0)
        MODEL_LIST("models", "%s", name);
        MODEL_LIST("weights", "%g", weights_gb);
        MODEL_LIST("convs", "%g", conv_mib);
        MODEL_LIST("requests", "%d", requests);
#undef MODEL_LIST
        stepq_plot_var(&vars, "description", "%s", c.desc);
        rc = stepq_plot(c.plot, c.table, c.png, &vars);
    }
    free(fmts);
    free(models);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------
// nll: extra NLL over decode position on a language model

static const char* const keys_nll[] = {"experiment", "description", "model", "documents", "formats", "plan",
                                       "calibrate", "prefill", "decode", "bin", "octile", "output", "plot",
                                       "threads", "backend", NULL};

static int nll_checks(const stepq_backend* be, const stepq_cfgfile* cf, int nd, long long bin, long long decode,
                      const config_setting_t* calib, const char* plan_path, long long octile) {
    if (octile && (octile % 2 || octile < 4 || !plan_path)) {
        stepq_error("%s:%d: 'octile' is the width of the octile sweep's rows (4, 6 or 8: int4, int6, int8; 0: none) "
                    "and needs 'plan'",
                    cfg_file_of(cf, config_lookup(&cf->cfg, "octile")), config_setting_source_line(config_lookup(&cf->cfg, "octile")));
        return STEPQ_ERR;
    }
    if (nd == 0 || bin > decode || decode % bin) {
        stepq_error("%s: %s", cf->path, nd == 0 ? "'documents' is empty" : "'bin' must divide 'decode'");
        return STEPQ_ERR;
    }
    if (calib && !plan_path) {
        stepq_error("%s: a 'calibrate' group needs 'plan', the file it writes", cf->path);
        return STEPQ_ERR;
    }
    if (!be->write) {  // a backend of whole runs only
        stepq_error("%s: the language model runs on the CPU backends only", cf->path);
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

// What the nll and generate front ends share: the config's texts resolved from the repository
// (stepq_data_path; texts[i] then points into bufs), the model loaded, and the plan read, or
// calibrated when the config has a `calibrate` group. Nothing is loaded when rc (an earlier
// error) is set; lm_run_close frees what was.
typedef struct {
    stepq_lm m;
    int loaded;
    stepq_plan plan, *pp;
    char (*bufs)[4096];
} lm_run;

static int lm_run_open(lm_run* r, const stepq_cfgfile* cf, const char* model_dir, const char** texts, int n,
                       const char* plan_path, const config_setting_t* calib, const stepq_backend* be, int rc) {
    char mbuf[4096];
    r->pp = NULL;
    r->bufs = mallocCheck(sizeof *r->bufs * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) texts[i] = stepq_data_path(r->bufs[i], sizeof r->bufs[i], texts[i]);
    r->loaded = !rc && stepq_lm_load(&r->m, stepq_data_path(mbuf, sizeof mbuf, model_dir)) == STEPQ_OK;
    rc = rc || !r->loaded;
    if (!rc && plan_path) {
        rc = calib ? stepq_cfg_calibrate_plan(cf, calib, plan_path, &r->plan, 1, be) : stepq_plan_read(&r->plan, plan_path);
        if (!rc) r->pp = &r->plan;
    }
    return rc;
}

static void lm_run_close(lm_run* r) {
    if (r->pp) stepq_plan_free(r->pp);
    if (r->loaded) stepq_lm_free(&r->m);
    free(r->bufs);
}

// the nll figure's variables: formats, source, octile_table (the octile sweep's .tsv, or "")
static void nll_plot_vars(stepq_plot_vars* v, const stepq_format* const* fmts, int nf, const stepq_lm* m, int nd,
                          long long prefill, long long decode, const char* otable) {
    char buf[8192];
    stepq_plot_var(v, "formats", "%s", stepq_format_list(buf, sizeof buf, fmts, nf));
    stepq_plot_var(v, "source", "%s; %d held-out documents, native prefill %lld, %lld forced decode steps", m->desc,
                   nd, prefill, decode);
    stepq_plot_var(v, "octile_table", "%s", otable ? otable : "");
}

int stepq_run_nll(const stepq_cfgfile* cf) {
    long long prefill, decode, bin, octile;
    const char *plan_path, *model_dir, **docs = NULL;
    const stepq_format** fmts = NULL;
    int nf = 0, nd = 0, err = 0;
    config_setting_t* calib = NULL;
    stepq_cfg_common c;
    if (stepq_cfg_read_common(&c, cf, keys_nll) ||
        cfg_str(cf, NULL, "model", &model_dir, 1, NULL) || cfg_str_list(cf, NULL, "documents", &docs, &nd, 1) ||
        cfg_str(cf, NULL, "plan", &plan_path, 0, NULL) || (calib = cfg_group(cf, NULL, "calibrate", 0, &err), err) ||
        cfg_int(cf, NULL, "prefill", &prefill, 1, 0, 0, 1LL << 30) ||
        cfg_int(cf, NULL, "decode", &decode, 1, 0, 1, 1LL << 30) ||
        cfg_int(cf, NULL, "bin", &bin, 0, 256, 1, 1LL << 30) || cfg_int(cf, NULL, "octile", &octile, 0, 0, 0, 8) ||
        stepq_formats_from_cfg(&fmts, &nf, cf) || stepq_formats_check_plan(cf, fmts, nf, plan_path)) {
        free(fmts); free(docs);
        return STEPQ_ERR;
    }
    int rc = nll_checks(c.backend, cf, nd, bin, decode, calib, plan_path, octile);
    lm_run lr;
    rc = lm_run_open(&lr, cf, model_dir, docs, nd, plan_path, calib, c.backend, rc);
    char otable[4096];
    stepq_sibling(otable, sizeof otable, c.output, STEPQ_SIB_OCTILE);
    if (!rc) {
        stepq_nll_cfg nc = {.model = &lr.m, .documents = docs, .n_documents = nd, .formats = fmts, .n_formats = nf,
                            .plan = lr.pp, .backend = c.backend, .octile_width = (int)octile, .prefill = prefill,
                            .decode = decode, .bin = (int)bin, .output = c.output, .table = c.plot ? c.table : NULL,
                            .octile_table = c.plot && octile ? otable : NULL,
                            .prov = {.experiment = "nll", .config_path = cf->path, .config_text = cf->text, .seed = 0, .source = lr.m.desc}};
        rc = stepq_prepare_output(c.output) || stepq_nll(&nc);
        if (!rc) printf("wrote %s\n", c.output);
    }
    if (!rc && c.plot) {
        stepq_plot_vars vars = {0};
        nll_plot_vars(&vars, fmts, nf, &lr.m, nd, prefill, decode, octile ? otable : NULL);
        rc = stepq_plot(c.plot, c.table, c.png, &vars);
    }
    lm_run_close(&lr);
    free(fmts);
    free(docs);
    return rc ? STEPQ_ERR : STEPQ_OK;
}


// ---------------------------------------------------------------------------------------------
// generate: free-running generation under each format

static const char* const keys_generate[] = {"experiment", "description", "model", "prompts", "seeds", "seed",
                                            "formats", "plan", "calibrate", "length", "top_k", "output",
                                            "plot", "threads", "backend", NULL};

int stepq_run_generate(const stepq_cfgfile* cf) {
    long long length, topk;
    const char *plan_path, *model_dir, **prompts = NULL;
    const stepq_format** fmts = NULL;
    uint64_t* seeds = NULL;
    int nf = 0, np = 0, S = 0, err = 0;
    config_setting_t* calib = NULL;
    stepq_cfg_common c;
    if (stepq_cfg_read_common(&c, cf, keys_generate) ||
        cfg_str(cf, NULL, "model", &model_dir, 1, NULL) || cfg_str_list(cf, NULL, "prompts", &prompts, &np, 1) ||
        cfg_str(cf, NULL, "plan", &plan_path, 0, NULL) || (calib = cfg_group(cf, NULL, "calibrate", 0, &err), err) ||
        cfg_int(cf, NULL, "length", &length, 1, 0, 64, 1LL << 24) ||
        cfg_int(cf, NULL, "top_k", &topk, 0, 20, 1, 256) || stepq_formats_from_cfg(&fmts, &nf, cf) ||
        stepq_formats_check_plan(cf, fmts, nf, plan_path) || stepq_cfg_seeds(&seeds, &S, cf)) {
        free(fmts); free(prompts); free(seeds);
        return STEPQ_ERR;
    }
    int rc = nll_checks(c.backend, cf, np, 1, 1, calib, plan_path, 0);
    lm_run lr;
    rc = lm_run_open(&lr, cf, model_dir, prompts, np, plan_path, calib, c.backend, rc);
    char samples[4096];
    stepq_sibling(samples, sizeof samples, c.output, STEPQ_SIB_SAMPLES);
    if (!rc) {
        stepq_generate_cfg gc = {.model = &lr.m, .prompts = prompts, .n_prompts = np, .seeds = seeds, .n_seeds = S,
                                 .formats = fmts, .n_formats = nf, .plan = lr.pp, .backend = c.backend,
                                 .length = length, .top_k = (int)topk, .output = c.output,
                                 .table = c.plot ? c.table : NULL, .samples = samples,
                                 .prov = {.experiment = "generate", .config_path = cf->path, .config_text = cf->text, .seed = seeds[0], .source = lr.m.desc}};
        rc = stepq_prepare_output(c.output) || stepq_generate(&gc);
        if (!rc) printf("wrote %s and %s\n", c.output, samples);
    }
    if (!rc && c.plot) {
        stepq_plot_vars vars = {0};
        stepq_plot_var(&vars, "source", "%s; %d prompts x %d seeds, %lld bytes each, temperature 1, top-k %lld",
                       lr.m.desc, np, S, length, topk);
        rc = stepq_plot(c.plot, c.table, c.png, &vars);
    }
    lm_run_close(&lr);
    free(fmts); free(prompts); free(seeds);
    return rc ? STEPQ_ERR : STEPQ_OK;
}


// ---------------------------------------------------------------------------------------------
// recall: answer accuracy per distance under each format

static const char* const keys_recall[] = {"experiment", "description", "model", "set", "documents", "formats",
                                          "plan", "calibrate", "prefill", "length", "output", "plot",
                                          "threads", "backend", NULL};

int stepq_run_recall(const stepq_cfgfile* cf) {
    long long prefill, length, ndocs;
    const char *plan_path, *model_dir, *set;
    const stepq_format** fmts = NULL;
    int nf = 0, err = 0;
    config_setting_t* calib = NULL;
    stepq_cfg_common c;
    if (stepq_cfg_read_common(&c, cf, keys_recall) ||
        cfg_str(cf, NULL, "model", &model_dir, 1, NULL) || cfg_str(cf, NULL, "set", &set, 1, NULL) ||
        cfg_int(cf, NULL, "documents", &ndocs, 0, 0, 0, 1 << 20) ||
        cfg_str(cf, NULL, "plan", &plan_path, 0, NULL) || (calib = cfg_group(cf, NULL, "calibrate", 0, &err), err) ||
        cfg_int(cf, NULL, "prefill", &prefill, 1, 0, 0, 1LL << 30) ||
        cfg_int(cf, NULL, "length", &length, 0, 0, 0, 1LL << 30) || stepq_formats_from_cfg(&fmts, &nf, cf) ||
        stepq_formats_check_plan(cf, fmts, nf, plan_path)) {
        free(fmts);
        return STEPQ_ERR;
    }
    int rc = nll_checks(c.backend, cf, 1, 1, 1, calib, plan_path, 0);
    lm_run lr;
    const char* texts[1] = {set};
    rc = lm_run_open(&lr, cf, model_dir, texts, 1, plan_path, calib, c.backend, rc);
    char buf[8192];
    if (!rc) {
        stepq_recall_cfg rcfg = {.model = &lr.m, .set = texts[0], .max_documents = (int)ndocs, .formats = fmts,
                                 .n_formats = nf, .plan = lr.pp, .backend = c.backend, .prefill = prefill,
                                 .length = length, .output = c.output, .table = c.plot ? c.table : NULL,
                                 .prov = {.experiment = "recall", .config_path = cf->path, .config_text = cf->text, .seed = 0, .source = lr.m.desc}};
        rc = stepq_prepare_output(c.output) || stepq_recall(&rcfg);
        if (!rc) printf("wrote %s\n", c.output);
    }
    if (!rc && c.plot) {
        stepq_plot_vars vars = {0};
        stepq_plot_var(&vars, "formats", "%s", stepq_format_list(buf, sizeof buf, fmts, nf));
        char docs[128] = "all its documents";
        if (ndocs) snprintf(docs, sizeof docs, "the first %lld document(s) of each generator seed", ndocs);
        if (length) snprintf(docs + strlen(docs), sizeof docs - strlen(docs), " (their first %lld bytes)", length);
        stepq_plot_var(&vars, "source", "%s; recall set %s, %s, native prefill %lld bytes", lr.m.desc, set, docs,
                       prefill);
        rc = stepq_plot(c.plot, c.table, c.png, &vars);
    }
    lm_run_close(&lr);
    free(fmts);
    return rc ? STEPQ_ERR : STEPQ_OK;
}


// ---------------------------------------------------------------------------------------------
// frontier: every format's bits, damage, answers and cost on one model (issue 66)

static const char* const keys_frontier[] = {"experiment", "description", "model", "formats", "plan", "calibrate",
                                            "recall", "recall_nll", "prose", "serving", "output", "plot",
                                            "threads", "backend", NULL};
static const char* const keys_frontier_recall[] = {"set", "documents", "prefill", "length", NULL};
static const char* const keys_frontier_nll[] = {"documents", "prefill", "decode", "bin", NULL};

// one nll group of a frontier config (recall_nll, prose)
typedef struct {
    const char** docs;
    int nd;
    long long prefill, decode, bin;
} frontier_nll;

static int frontier_nll_from_cfg(frontier_nll* n, const stepq_cfgfile* cf, const char* name) {
    int err = 0;
    *n = (frontier_nll){0};
    const config_setting_t* g = cfg_group(cf, NULL, name, 1, &err);
    if (err || cfg_check_keys(cf, g, keys_frontier_nll) || cfg_str_list(cf, g, "documents", &n->docs, &n->nd, 1) ||
        cfg_int(cf, g, "prefill", &n->prefill, 1, 0, 0, 1LL << 30) || cfg_int(cf, g, "decode", &n->decode, 1, 0, 1, 1LL << 30) ||
        cfg_int(cf, g, "bin", &n->bin, 1, 0, 1, 1LL << 30))
        return STEPQ_ERR;
    if (n->nd == 0 || n->decode % n->bin) {
        stepq_error("%s:%d: %s: %s", cfg_file_of(cf, g), config_setting_source_line(g), name,
                    n->nd == 0 ? "'documents' is empty" : "'bin' must divide 'decode'");
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

// the config's formats, or, without a 'formats' key, every format of the table that holds the
// model's K x V heads
static int frontier_formats(const stepq_format*** fmts, int* nf, const stepq_cfgfile* cf, int K, int V) {
    if (config_lookup(&cf->cfg, "formats")) return stepq_formats_from_cfg(fmts, nf, cf);
    *fmts = mallocCheck(sizeof(stepq_format*) * (size_t)stepq_n_formats);
    *nf = 0;
    for (int i = 0; i < stepq_n_formats; i++)
        if (stepq_family_holds(stepq_formats[i].family, K, V)) (*fmts)[(*nf)++] = &stepq_formats[i];
    return STEPQ_OK;
}

typedef struct {
    const stepq_cfgfile* cf;
    lm_run* lr;
    const stepq_backend* be;
    const stepq_format* const* fmts;
    int nf;
} frontier_run;

static int frontier_run_nll(const frontier_run* fr, const frontier_nll* n, const char* out) {
    stepq_nll_cfg nc = {.model = &fr->lr->m, .documents = n->docs, .n_documents = n->nd, .formats = fr->fmts,
                        .n_formats = fr->nf, .plan = fr->lr->pp, .backend = fr->be, .prefill = n->prefill,
                        .decode = n->decode, .bin = (int)n->bin, .output = out,
                        .prov = {.experiment = "nll", .config_path = fr->cf->path, .config_text = fr->cf->text,
                                 .seed = 0, .source = fr->lr->m.desc}};
    int rc = stepq_prepare_output(out) || stepq_nll(&nc);
    if (!rc) printf("wrote %s\n", out);
    return rc;
}

int stepq_run_frontier(const stepq_cfgfile* cf) {
    long long ndocs, rprefill, length;
    const char *plan_path, *model_dir, *set, *serving;
    frontier_nll rn = {0}, pr = {0};
    int err = 0;
    config_setting_t *calib = NULL, *rg = NULL;
    stepq_cfg_common c;
    if (stepq_cfg_read_common(&c, cf, keys_frontier) || cfg_str(cf, NULL, "model", &model_dir, 1, NULL) || cfg_str(cf, NULL, "plan", &plan_path, 0, NULL) ||
        cfg_str(cf, NULL, "serving", &serving, 0, NULL) ||
        (calib = cfg_group(cf, NULL, "calibrate", 0, &err), err) || (rg = cfg_group(cf, NULL, "recall", 1, &err), err) ||
        cfg_check_keys(cf, rg, keys_frontier_recall) || cfg_str(cf, rg, "set", &set, 1, NULL) ||
        cfg_int(cf, rg, "documents", &ndocs, 0, 0, 0, 1 << 20) || cfg_int(cf, rg, "prefill", &rprefill, 1, 0, 0, 1LL << 30) ||
        cfg_int(cf, rg, "length", &length, 0, 0, 0, 1LL << 30) || frontier_nll_from_cfg(&rn, cf, "recall_nll") ||
        frontier_nll_from_cfg(&pr, cf, "prose")) {
        free(rn.docs), free(pr.docs);
        return STEPQ_ERR;
    }
    const stepq_backend* be = c.backend;
    const char* output = c.output;
    int rc = nll_checks(be, cf, 1, 1, 1, calib, plan_path, 0);
    // the recall set, then the recall documents and the prose, resolved from the repository in one list
    const int nt = 1 + rn.nd + pr.nd;
    const char** texts = mallocCheck(sizeof(char*) * (size_t)nt);
    texts[0] = set;
    memcpy(texts + 1, rn.docs, sizeof(char*) * (size_t)rn.nd);
    memcpy(texts + 1 + rn.nd, pr.docs, sizeof(char*) * (size_t)pr.nd);
    free(rn.docs), free(pr.docs);
    rn.docs = texts + 1, pr.docs = texts + 1 + rn.nd;
    // the GPU run, read before any work, for every format of the table (NaN without one)
    const stepq_format** table_fmts = mallocCheck(sizeof(stepq_format*) * (size_t)stepq_n_formats);
    double* serve_all = mallocCheck(sizeof(double) * (size_t)stepq_n_formats);
    double requests = NAN;
    for (int i = 0; i < stepq_n_formats; i++) table_fmts[i] = &stepq_formats[i], serve_all[i] = NAN;
    rc = rc || (serving && stepq_frontier_serving(serve_all, &requests, serving, table_fmts, stepq_n_formats));
    lm_run lr;
    rc = lm_run_open(&lr, cf, model_dir, texts, nt, plan_path, calib, be, rc);
    const stepq_format** fmts = NULL;
    int nf = 0;
    rc = rc || frontier_formats(&fmts, &nf, cf, lr.m.K, lr.m.V) || stepq_formats_check_plan(cf, fmts, nf, plan_path);
    double* serve = mallocCheck(sizeof(double) * (size_t)(nf + 1));
    for (int k = 0; k < nf; k++) serve[k] = serve_all[fmts[k] - stepq_formats];
    char f_recall[4096], f_nr[4096], f_np[4096], buf[8192];
    stepq_sibling(f_recall, sizeof f_recall, output, STEPQ_SIB_RECALL);
    stepq_sibling(f_nr, sizeof f_nr, output, STEPQ_SIB_NLL_RECALL);
    stepq_sibling(f_np, sizeof f_np, output, STEPQ_SIB_NLL_PROSE);
    const frontier_run fr = {.cf = cf, .lr = &lr, .be = be, .fmts = fmts, .nf = nf};
    if (!rc) {
        printf("frontier: %d formats on %s\n", nf, lr.m.desc);
        stepq_recall_cfg rcfg = {.model = &lr.m, .set = texts[0], .max_documents = (int)ndocs, .formats = fmts,
                                 .n_formats = nf, .plan = lr.pp, .backend = be, .prefill = rprefill, .length = length,
                                 .output = f_recall,
                                 .prov = {.experiment = "recall", .config_path = cf->path, .config_text = cf->text,
                                          .seed = 0, .source = lr.m.desc}};
        rc = stepq_prepare_output(f_recall) || stepq_recall(&rcfg);
        if (!rc) printf("wrote %s\n", f_recall);
        rc = rc || frontier_run_nll(&fr, &rn, f_nr) || frontier_run_nll(&fr, &pr, f_np);
    }
    double* ratio = callocCheck((size_t)(nf ? nf : 1), sizeof(double));
    if (!rc) {
        stepq_bench_step_ratios(ratio, fmts, nf, cf->quick, stepq_cpu_backend(be));
        stepq_frontier_cfg fc = {.formats = fmts, .n_formats = nf, .plan = lr.pp, .K = lr.m.K, .V = lr.m.V,
                                 .recall = f_recall, .nll_recall = f_nr, .nll_prose = f_np, .step_ratio = ratio,
                                 .serving_ratio = serve, .serving_requests = requests, .serving = serving,
                                 .output = output, .table = c.plot ? c.table : NULL,
                                 .prov = {.experiment = "frontier", .config_path = cf->path, .config_text = cf->text,
                                          .seed = 0, .source = lr.m.desc}};
        rc = stepq_prepare_output(output) || stepq_frontier(&fc);
        if (!rc) printf("wrote %s\n", output);
    }
    if (!rc && c.plot) {
        stepq_plot_vars vars = {0};
        stepq_plot_var(&vars, "source", "%s; every recurrent layer's %d heads of %d x %d in the format", lr.m.desc,
                       lr.m.layers * lr.m.heads, lr.m.K, lr.m.V);
        stepq_plot_var(&vars, "recall_docs", "%d recall documents (%s), native prefill %lld, %lld forced decode steps",
                       rn.nd, set, rn.prefill, rn.decode);
        stepq_plot_var(&vars, "prose_docs", "%d held-out books, native prefill %lld, %lld forced decode steps", pr.nd,
                       pr.prefill, pr.decode);
        stepq_plot_var(&vars, "formats", "%s", stepq_format_list(buf, sizeof buf, fmts, nf));
        rc = stepq_plot(c.plot, c.table, c.png, &vars);
    }
    free(ratio), free(serve), free(serve_all), free(table_fmts);
    lm_run_close(&lr);
    free(fmts), free(texts);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

// main.c: the stepq command line. The only place that parses arguments and configs; it builds
// sources and format lists, then hands plain structs to the drivers in analysis/.
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../analysis/bench.h"
#include "../analysis/calibrate.h"
#include "../analysis/inputstats.h"
#include "../analysis/memory.h"
#include "../analysis/propagation.h"
#include "../analysis/runner.h"
#include "../quant/common.h"
#include "../quant/format.h"
#include "../quant/h5util.h"
#include "../sim/recurrence.h"
#include "../sim/synth.h"
#include "../sim/trace.h"
#include "config.h"

extern char** environ;

// ---------------------------------------------------------------------------------------------
// small helpers

static int wants_help(int argc, char** argv) {
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
    return 0;
}

static long threads_override;  // --threads on the command line wins over a config's value

static void set_threads(long n) {
#ifdef _OPENMP
    if (threads_override > 0) n = threads_override;
    if (n > 0) omp_set_num_threads((int)n);
#else
    (void)n;
#endif
}

// mkdir -p of the directory part of path
static int make_parent(const char* path) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    char* slash = strrchr(buf, '/');
    if (!slash) return STEPQ_OK;
    *slash = 0;
    for (char* p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) && errno != EEXIST) break;
            *p = '/';
        }
    if (mkdir(buf, 0777) && errno != EEXIST) {
        stepq_error("cannot create directory %s: %s", buf, strerror(errno));
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

// "0,2,5-7" -> list; STEPQ_ERR on anything else
static int parse_index_list(int** out, int* n, const char* s, const char* what) {
    *out = NULL;
    *n = 0;
    int cap = 0;
    const char* p = s;
    while (*p) {
        char* end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p) goto bad;
        if (*end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || b < a) goto bad;
        }
        for (long i = a; i <= b; i++) {
            if (*n == cap) *out = realloc(*out, sizeof(int) * (size_t)(cap = cap ? 2 * cap : 16));
            stepq_assert(*out != NULL);
            (*out)[(*n)++] = (int)i;
        }
        p = end;
        if (*p == ',') p++;
        else if (*p) goto bad;
    }
    return STEPQ_OK;
bad:
    stepq_error("%s '%s' is not a list like 0,2,5-7", what, s);
    free(*out);
    *out = NULL;
    return STEPQ_ERR;
}

// ---------------------------------------------------------------------------------------------
// stepq formats

static int cmd_formats(int argc, char** argv) {
    if (wants_help(argc, argv)) {
        puts("usage: stepq formats [--plan PLAN.h5]\n\n"
             "Lists every state format: name, nominal bits, the actual bits per element of its\n"
             "packed bytes, and a summary. Calibrated formats (time*, stepquant*, mlife*, damp)\n"
             "store what their plan says; with --plan their actual bits are averaged over the\n"
             "plan's heads, without it they are shown as '-'. Heads are 128 x 128 without a plan.");
        return 0;
    }
    stepq_plan plan, *p = NULL;
    if (argc == 3 && !strcmp(argv[1], "--plan")) {
        if (stepq_plan_read(&plan, argv[2])) return 1;
        p = &plan;
    } else if (argc > 1) {
        stepq_error("formats: unknown arguments (see --help)");
        return 2;
    }
    int K = p ? p->K : 128, V = p ? p->V : 128;
    printf("%-16s %8s %8s  %s (%d x %d heads%s)\n", "name", "nominal", "actual", "summary", K, V,
           p ? ", averaged over the plan" : "");
    for (int i = 0; i < stepq_n_formats; i++) {
        const stepq_format* f = &stepq_formats[i];
        int planned = f->needs == STEPQ_NEEDS_TABLE || f->needs == STEPQ_NEEDS_DAMP;
        if (planned && !p)
            printf("%-16s %8.3f %8s  %s\n", f->name, f->nominal_bits, "-", f->summary);
        else
            printf("%-16s %8.3f %8.3f  %s\n", f->name, f->nominal_bits, stepq_format_plan_bits(NULL, f, p, K, V),
                   f->summary);
    }
    if (p) stepq_plan_free(p);
    return 0;
}

// ---------------------------------------------------------------------------------------------
// sources from a config group

static const char* const keys_source_synth[] = {"type", "preset", "layers", "heads", "knobs",
                                                "model_seed", NULL};

// source.knobs = { key_ridge_gain = 8.0; ... }: overrides of the preset's generator knobs
static int knobs_from_cfg(stepq_synth_params* p, const stepq_cfgfile* cf, const config_setting_t* g) {
    int err = 0;
    config_setting_t* k = cfg_group(cf, g, "knobs", 0, &err);
    if (err) return STEPQ_ERR;
    for (int i = 0; k && i < config_setting_length(k); i++) {
        config_setting_t* e = config_setting_get_elem(k, (unsigned)i);
        int t = config_setting_type(e), line = config_setting_source_line(e);
        if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64 && t != CONFIG_TYPE_FLOAT) {
            stepq_error("%s:%d: knob '%s' must be a number", cf->path, line, config_setting_name(e));
            return STEPQ_ERR;
        }
        double v = t == CONFIG_TYPE_FLOAT ? config_setting_get_float(e) : (double)config_setting_get_int64(e);
        if (stepq_synth_set(p, config_setting_name(e), v)) {
            stepq_error("%s:%d: (see the knobs in sim/synth.h)", cf->path, line);
            return STEPQ_ERR;
        }
    }
    return STEPQ_OK;
}
static const char* const keys_source_trace[] = {"type", "path", NULL};

// The config's source with stream seed `seed`. A synthetic source's model is the config's
// source.model_seed (default 0) unless model >= 0 overrides it.
static int source_from_cfg(stepq_source** out, const stepq_cfgfile* cf, uint64_t seed,
                           long long model) {
    int err = 0;
    config_setting_t* g = cfg_group(cf, NULL, "source", 1, &err);
    const char* type;
    if (err || cfg_str(cf, g, "type", &type, 1, NULL)) return STEPQ_ERR;
    if (!strcmp(type, "trace")) {
        const char* path;
        if (cfg_check_keys(cf, g, keys_source_trace) || cfg_str(cf, g, "path", &path, 1, NULL))
            return STEPQ_ERR;
        stepq_trace tr;
        if (stepq_trace_read(&tr, path)) return STEPQ_ERR;
        *out = stepq_trace_source(&tr, path);
        return STEPQ_OK;
    }
    if (strcmp(type, "synthetic")) {
        stepq_error("%s:%d: source type '%s' is not \"synthetic\" or \"trace\"", cf->path,
                    config_setting_source_line(config_setting_get_member(g, "type")), type);
        return STEPQ_ERR;
    }
    const char* preset;
    int *layers = NULL, *heads = NULL, nl = 0, nh = 0;
    long long model_seed;
    stepq_synth_params p;
    int rc = cfg_check_keys(cf, g, keys_source_synth) || cfg_str(cf, g, "preset", &preset, 1, NULL) ||
             cfg_int(cf, g, "model_seed", &model_seed, 0, 0, 0, (long long)1 << 62) ||
             cfg_int_list(cf, g, "layers", &layers, &nl, 0) ||
             cfg_int_list(cf, g, "heads", &heads, &nh, 0) || stepq_synth_preset(&p, preset) ||
             knobs_from_cfg(&p, cf, g) ||
             stepq_synth_open(out, &p, (uint64_t)(model >= 0 ? model : model_seed), seed, layers, nl,
                              heads, nh);
    free(layers);
    free(heads);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

static int formats_from_cfg(const stepq_format*** out, int* n, const stepq_cfgfile* cf) {
    const char** names;
    if (cfg_str_list(cf, NULL, "formats", &names, n, 1)) return STEPQ_ERR;
    if (*n == 0) {
        stepq_error("%s: 'formats' is empty", cf->path);
        return STEPQ_ERR;
    }
    *out = mallocCheck(sizeof(stepq_format*) * (size_t)*n);
    for (int i = 0; i < *n; i++)
        if (!((*out)[i] = stepq_format_find(names[i]))) {
            config_setting_t* s = config_setting_get_elem(config_lookup(&cf->cfg, "formats"), (unsigned)i);
            stepq_error("%s:%d: unknown format '%s' (see `stepq formats`)", cf->path,
                        config_setting_source_line(s), names[i]);
            free(names);
            free(*out);
            return STEPQ_ERR;
        }
    free(names);
    return STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------
// plotting: gnuplot renders <base>.png from <base>.tsv with a script of plots/

static int run_gnuplot(const char* script, const char* table, const char* png, const char* vars) {
    char path[4096];
    struct stat sb;
    snprintf(path, sizeof path, "%s", script);
    if (stat(path, &sb) != 0) snprintf(path, sizeof path, "%s/%s", STEPQ_SOURCE_DIR, script);
    char expr[12288];
    snprintf(expr, sizeof expr, "datafile='%s'; outfile='%s'; %s", table, png, vars);
    char* argv[] = {"gnuplot", "-e", expr, path, NULL};
    pid_t pid;
    if (posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ) != 0) {
        stepq_error("gnuplot not found, so %s was not drawn (apt-get install gnuplot-nox); the "
                    "HDF5 result is complete", png);
        return STEPQ_ERR;
    }
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        stepq_error("gnuplot failed on %s", path);
        remove(png);
        return STEPQ_ERR;
    }
    printf("plot: %s (gnuplot %s)\n", png, path);
    return STEPQ_OK;
}

// <output minus .h5><ext>
static void sibling(char* buf, size_t n, const char* output, const char* ext) {
    snprintf(buf, n, "%s", output);
    size_t l = strlen(buf);
    if (l > 3 && !strcmp(buf + l - 3, ".h5")) buf[l - 3] = 0;
    strncat(buf, ext, n - strlen(buf) - 1);
}

// ---------------------------------------------------------------------------------------------
// stepq run CFG

static const char* const keys_propagation[] = {"experiment", "description", "seed", "seeds", "source",
                                               "prefill", "decode", "bin", "formats", "output",
                                               "plot", "threads", "plan", "calibrate", NULL};
static const char* const keys_calibrate_group[] = {
    "seeds", "traces", "steps", "horizon", "gamma", "rho", "refits", "snapshot_every",
    "reservoir", "pivots", "pivot_fraction", "damp_fraction", "seed", NULL};
static const char* const keys_calibrate_root[] = {
    "experiment", "description", "source", "output", "threads", "seeds", "traces", "steps",
    "horizon", "gamma", "rho", "refits", "snapshot_every", "reservoir", "pivots",
    "pivot_fraction", "damp_fraction", "seed", NULL};

// Calibration as a config describes it (the keys of keys_calibrate_group, in group g or at the
// root): native runs of the config's source with each of `seeds` (synthetic) or over each of
// `traces`, then the plan written to `output` (and kept in *out if not NULL).
static int calibrate_from_cfg(const stepq_cfgfile* cf, const config_setting_t* g,
                              const char* output, stepq_plan* out) {
    long long steps, refits, every, reservoir, pivots, seed;
    double horizon, gamma, rho, pfrac, dfrac;
    int *seeds = NULL, ns = 0, nt = 0;
    const char** traces = NULL;
    if ((g && cfg_check_keys(cf, g, keys_calibrate_group)) ||
        cfg_int_list(cf, g, "seeds", &seeds, &ns, 0) || cfg_str_list(cf, g, "traces", &traces, &nt, 0) ||
        cfg_int(cf, g, "steps", &steps, 0, 2048, 1, 1LL << 40) ||
        cfg_float(cf, g, "horizon", &horizon, 0, 2048, 1, 1e9) ||
        cfg_float(cf, g, "gamma", &gamma, 0, 0.25, 0, 10) ||
        cfg_float(cf, g, "rho", &rho, 0, 0.5, 0, 10) ||
        cfg_int(cf, g, "refits", &refits, 0, 1, 0, 100) ||
        cfg_int(cf, g, "snapshot_every", &every, 0, 8, 1, 1LL << 30) ||
        cfg_int(cf, g, "reservoir", &reservoir, 0, 64, 1, 1 << 20) ||
        cfg_int(cf, g, "pivots", &pivots, 0, -1, -1, 1LL << 30) ||
        cfg_float(cf, g, "pivot_fraction", &pfrac, 0, -1, -1, 1) ||
        cfg_float(cf, g, "damp_fraction", &dfrac, 0, (9.9 - 8.125) / (16 - 8.125), 0, 1) ||
        cfg_int(cf, g, "seed", &seed, 0, 1, 0, 1LL << 62)) {
        free(seeds);
        free(traces);
        return STEPQ_ERR;
    }
    if ((ns == 0) == (nt == 0)) {
        stepq_error("%s: calibration needs either 'seeds' (runs of the synthetic source) or "
                    "'traces' (trace files), one per segment", cf->path);
        free(seeds);
        free(traces);
        return STEPQ_ERR;
    }
    int n = ns ? ns : nt, rc = STEPQ_OK;
    stepq_source** seg = callocCheck((size_t)n, sizeof *seg);
    for (int i = 0; i < n && !rc; i++) {
        if (ns) rc = source_from_cfg(&seg[i], cf, (uint64_t)seeds[i], -1);
        else {
            stepq_trace tr;
            rc = stepq_trace_read(&tr, traces[i]);
            if (!rc) seg[i] = stepq_trace_source(&tr, traces[i]);
        }
    }
    if (!rc) {
        int units = seg[0]->n_heads * (seg[0]->kind == STEPQ_KDA ? seg[0]->K : 1);
        // the paper's share: 32 of 2304 GDN heads, 512 of 81920 KDA rows
        if (pfrac < 0) pfrac = seg[0]->kind == STEPQ_KDA ? 512.0 / 81920 : 32.0 / 2304;
        if (pivots < 0) pivots = (long long)lround(pfrac * units);
        char desc[512];
        snprintf(desc, sizeof desc, "%s; %d segments of %lld steps", seg[0]->desc, n, steps);
        stepq_calib_cfg c = {seg, n, steps, horizon, gamma, rho, (int)refits, (int)every,
                             (int)reservoir, (int)pivots, dfrac, (uint64_t)seed, output,
                             {"calibrate", cf->path, cf->text, (uint64_t)seed, desc}};
        rc = make_parent(output) || stepq_calibrate(out, &c);
        if (!rc) printf("wrote plan %s (%d heads, %lld pivot units)\n", output, seg[0]->n_heads, pivots);
    }
    for (int i = 0; i < n; i++) stepq_source_free(seg[i]);
    free(seg);
    free(seeds);
    free(traces);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

static int run_calibrate(const stepq_cfgfile* cf) {
    long long threads;
    const char *output, *desc;
    if (cfg_check_keys(cf, config_root_setting(&cf->cfg), keys_calibrate_root) ||
        cfg_int(cf, NULL, "threads", &threads, 0, 0, 0, 4096) ||
        cfg_str(cf, NULL, "description", &desc, 0, "") ||
        cfg_str(cf, NULL, "output", &output, 1, NULL))
        return STEPQ_ERR;
    set_threads(threads);
    return calibrate_from_cfg(cf, NULL, output, NULL);
}
static const char* const keys_inputstats[] = {"experiment", "description", "seeds", "source",
                                              "steps", "warmup", "sample_every", "output",
                                              "threads", NULL};

static int run_propagation(const stepq_cfgfile* cf) {
    long long seed, prefill, decode, bin, threads;
    const char *output, *plot, *desc, *plan_path;
    const stepq_format** fmts = NULL;
    int nf = 0, err = 0, *seeds_i = NULL, ns = 0;
    config_setting_t* calib = NULL;
    if (cfg_check_keys(cf, config_root_setting(&cf->cfg), keys_propagation) ||
        cfg_str(cf, NULL, "plan", &plan_path, 0, NULL) ||
        (calib = cfg_group(cf, NULL, "calibrate", 0, &err), err) ||
        cfg_int(cf, NULL, "seed", &seed, 0, 1, 0, (long long)1 << 62) ||
        cfg_int_list(cf, NULL, "seeds", &seeds_i, &ns, 0) ||
        cfg_int(cf, NULL, "prefill", &prefill, 1, 0, 0, 1LL << 40) ||
        cfg_int(cf, NULL, "decode", &decode, 1, 0, 1, 1LL << 40) ||
        cfg_int(cf, NULL, "bin", &bin, 0, 1, 1, 1LL << 30) ||
        cfg_int(cf, NULL, "threads", &threads, 0, 0, 0, 4096) ||
        cfg_str(cf, NULL, "description", &desc, 0, "") ||
        cfg_str(cf, NULL, "output", &output, 1, NULL) ||
        cfg_str(cf, NULL, "plot", &plot, 0, NULL) || formats_from_cfg(&fmts, &nf, cf)) {
        free(seeds_i);
        return STEPQ_ERR;
    }
    if (ns && config_lookup(&cf->cfg, "seed")) {
        stepq_error("%s: give 'seed' or 'seeds' (several runs, confidence intervals), not both", cf->path);
        free(fmts);
        free(seeds_i);
        return STEPQ_ERR;
    }
    set_threads(threads);
    if (calib && !plan_path) {
        stepq_error("%s: a 'calibrate' group needs 'plan', the file it writes", cf->path);
        free(fmts);
        free(seeds_i);
        return STEPQ_ERR;
    }
    stepq_plan plan, *pp = NULL;
    int rc = STEPQ_OK;
    if (plan_path) {
        rc = calib ? calibrate_from_cfg(cf, calib, plan_path, &plan) : stepq_plan_read(&plan, plan_path);
        if (!rc) pp = &plan;
    }
    int S = ns ? ns : 1;
    uint64_t* seeds = mallocCheck(sizeof(uint64_t) * S);
    stepq_source** srcs = callocCheck((size_t)S, sizeof *srcs);
    for (int i = 0; i < S && !rc; i++) {
        seeds[i] = ns ? (uint64_t)seeds_i[i] : (uint64_t)seed;
        rc = source_from_cfg(&srcs[i], cf, seeds[i], -1);
    }
    if (!rc) {
        char table[4096], png[4096];
        sibling(table, sizeof table, output, ".tsv");
        sibling(png, sizeof png, output, ".png");
        stepq_propagation_cfg pc = {srcs, seeds, S, fmts, nf, prefill, decode, (int)bin, pp, output,
                                    plot ? table : NULL,
                                    {"propagation", cf->path, cf->text, seeds[0], srcs[0]->desc}};
        rc = make_parent(output) || stepq_propagation(&pc);
        if (!rc) printf("wrote %s\n", output);
        if (!rc && plot) {
            char vars[2048] = "formats='";
            for (int i = 0; i < nf; i++) {
                strncat(vars, fmts[i]->name, sizeof vars - strlen(vars) - 3);
                strncat(vars, i + 1 < nf ? " " : "'", sizeof vars - strlen(vars) - 3);
            }
            rc = run_gnuplot(plot, table, png, vars);
        }
    }
    for (int i = 0; i < S; i++) stepq_source_free(srcs[i]);
    free(srcs);
    free(seeds);
    free(seeds_i);
    free(fmts);
    if (pp) stepq_plan_free(pp);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

static int run_inputstats(const stepq_cfgfile* cf) {
    long long steps, warmup, every, threads;
    const char *output, *desc;
    int* seeds_i = NULL;
    int ns = 0;
    if (cfg_check_keys(cf, config_root_setting(&cf->cfg), keys_inputstats) ||
        cfg_int_list(cf, NULL, "seeds", &seeds_i, &ns, 1) ||
        cfg_int(cf, NULL, "steps", &steps, 1, 0, 1, 1LL << 40) ||
        cfg_int(cf, NULL, "warmup", &warmup, 0, 0, 0, 1LL << 40) ||
        cfg_int(cf, NULL, "sample_every", &every, 0, 256, 1, 1LL << 40) ||
        cfg_int(cf, NULL, "threads", &threads, 0, 0, 0, 4096) ||
        cfg_str(cf, NULL, "description", &desc, 0, "") ||
        cfg_str(cf, NULL, "output", &output, 1, NULL))
        return STEPQ_ERR;
    if (ns == 0) {
        stepq_error("%s: 'seeds' is empty", cf->path);
        return STEPQ_ERR;
    }
    set_threads(threads);
    stepq_source** srcs = callocCheck((size_t)ns, sizeof *srcs);
    uint64_t* seeds = mallocCheck(sizeof(uint64_t) * ns);
    int rc = STEPQ_OK;
    for (int i = 0; i < ns && !rc; i++) {
        seeds[i] = (uint64_t)seeds_i[i];
        // each seed is another draw of the model and of its stream: the statistics of a preset
        rc = source_from_cfg(&srcs[i], cf, seeds[i], (long long)seeds[i]);
    }
    if (!rc) {
        stepq_inputstats_cfg ic = {srcs, seeds, ns, steps, warmup, every, output,
                                   {"inputstats", cf->path, cf->text, seeds[0], srcs[0]->desc}};
        rc = make_parent(output) || stepq_inputstats(&ic);
        if (!rc) printf("wrote %s\n", output);
    }
    for (int i = 0; i < ns; i++) stepq_source_free(srcs[i]);
    free(srcs);
    free(seeds);
    free(seeds_i);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

// the experiment of a config file; only: NULL (any), or the one experiment accepted
static int run_config(int argc, char** argv, const char* only);

static int cmd_run(int argc, char** argv) {
    if (argc < 2 || wants_help(argc, argv)) {
        puts("usage: stepq run CONFIG.cfg [--threads N]\n\n"
             "Runs the experiment a config describes (libconfig syntax, see experiments/), writes\n"
             "its HDF5 file and, where the config names a gnuplot script, its PNG beside it.\n"
             "experiment = \"propagation\": error of each format vs decode step, per head.\n"
             "experiment = \"inputstats\":  ridge / omega / half-life statistics of a source.\n"
             "experiment = \"calibrate\":   a plan for the calibrated formats (as `stepq calibrate`).\n"
             "--threads N overrides the config's threads (0: OpenMP's default); results do not\n"
             "depend on it.");
        return argc < 2 ? 2 : 0;
    }
    return run_config(argc, argv, NULL);
}

static int run_config(int argc, char** argv, const char* only) {
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads_override = atol(argv[++i]);
        else {
            stepq_error("run: unknown option %s (see --help)", argv[i]);
            return 2;
        }
    stepq_cfgfile cf;
    if (cfg_load(&cf, argv[1])) return 1;
    const char* exp;
    int rc = cfg_str(&cf, NULL, "experiment", &exp, 1, NULL);
    if (!rc && only && strcmp(exp, only)) {
        stepq_error("%s:%d: experiment is '%s'; this command runs experiment = \"%s\" configs "
                    "(use `stepq run` for the others)", cf.path,
                    config_setting_source_line(config_lookup(&cf.cfg, "experiment")), exp, only);
        rc = STEPQ_ERR;
    } else if (!rc) {
        if (!strcmp(exp, "propagation")) rc = run_propagation(&cf);
        else if (!strcmp(exp, "inputstats")) rc = run_inputstats(&cf);
        else if (!strcmp(exp, "calibrate")) rc = run_calibrate(&cf);
        else {
            stepq_error("%s:%d: unknown experiment '%s' (propagation, inputstats, calibrate)", cf.path,
                        config_setting_source_line(config_lookup(&cf.cfg, "experiment")), exp);
            rc = STEPQ_ERR;
        }
    }
    cfg_free(&cf);
    return rc ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// stepq replay

static int write_replay(const char* out, const stepq_run_out* o, const stepq_source* src,
                        const stepq_format* fmt, long prefill, const char* cmdline) {
    hid_t f = h5u_create(out);
    if (f < 0) return STEPQ_ERR;
    const int H = o->H, K = o->K, V = o->V;
    const long T = o->T, D = T - prefill;
    hsize_t dY[3] = {(hsize_t)T, (hsize_t)H, (hsize_t)V}, dS[3] = {(hsize_t)H, (hsize_t)K, (hsize_t)V};
    hsize_t dE[2] = {(hsize_t)H, (hsize_t)D}, dH[1] = {(hsize_t)H};
    hid_t FL = H5T_NATIVE_FLOAT, DB = H5T_NATIVE_DOUBLE;
    double* rel = mallocCheck(sizeof(double) * H);
    for (int h = 0; h < H; h++) rel[h] = o->acc_ref[h] > 0 ? sqrt(o->acc_sq[h] / o->acc_ref[h]) : 0;
    stepq_provenance pv = {"replay", NULL, cmdline, 0, src->desc};
    int rc = stepq_write_provenance(f, &pv) || h5u_attr_str(f, "format", fmt->name) ||
        h5u_attr_str(f, "kind", src->kind ? "kda" : "gdn") || h5u_attr_f64(f, "scale", src->scale) ||
        h5u_attr_i64(f, "prefill", prefill) ||
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
        h5u_abandon(f, out);
        return STEPQ_ERR;
    }
    return h5u_commit(f, out);
}

static int cmd_replay(int argc, char** argv) {
    const char *in = NULL, *fmt_name = NULL, *out = NULL, *plan_path = NULL;
    long prefill = 0;
    if (wants_help(argc, argv)) {
        puts("usage: stepq replay --trace IN.h5 --format NAME --out OUT.h5 [--prefill N]\n"
             "                    [--plan PLAN.h5] [--threads N]\n\n"
             "Runs a trace through the decode-step protocol of SPEC 2 in format NAME, beside a\n"
             "float32 reference on the same inputs. With --prefill N the first N steps run at\n"
             "native precision and the boundary state is encoded once (default 0: the trace's\n"
             "S0 is encoded at step 0). Writes y [T,HV,V], y_ref, S_final [HV,K,V], S_ref_final,\n"
             "per-step err_readout and err_state [HV,D], accumulated_readout_rel and p1_residual.\n"
             "Calibrated formats need --plan, made for the trace's heads (layer 0, head = value\n"
             "head) by `stepq calibrate`.");
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) { stepq_error("replay: %s needs a value (see --help)", a); return 2; }
        if (!strcmp(a, "--trace")) in = v;
        else if (!strcmp(a, "--format")) fmt_name = v;
        else if (!strcmp(a, "--out")) out = v;
        else if (!strcmp(a, "--prefill")) prefill = atol(v);
        else if (!strcmp(a, "--plan")) plan_path = v;
        else if (!strcmp(a, "--threads")) threads_override = atol(v), set_threads(0);
        else { stepq_error("replay: unknown option %s (see --help)", a); return 2; }
        i++;
    }
    if (!in || !fmt_name || !out) {
        stepq_error("replay needs --trace, --format and --out (see --help)");
        return 2;
    }
    const stepq_format* fmt = stepq_format_find(fmt_name);
    if (!fmt) {
        stepq_error("unknown format '%s' (see `stepq formats`)", fmt_name);
        return 2;
    }
    stepq_trace tr;
    if (stepq_trace_read(&tr, in)) return 1;
    if (prefill < 0 || prefill >= tr.T) {
        stepq_error("--prefill %ld must be in [0, %ld) for %s", prefill, tr.T, in);
        stepq_trace_free(&tr);
        return 2;
    }
    stepq_plan plan, *pp = NULL;
    if (plan_path) {
        if (stepq_plan_read(&plan, plan_path)) {
            stepq_trace_free(&tr);
            return 1;
        }
        pp = &plan;
    }
    stepq_source* src = stepq_trace_source(&tr, in);
    stepq_run_cfg rc = {&fmt, 1, prefill, src->T - prefill, 1, 1, "replay", pp};
    stepq_run_out o;
    char cmdline[4096];
    snprintf(cmdline, sizeof cmdline, "stepq replay --trace %s --format %s --out %s --prefill %ld",
             in, fmt_name, out, prefill);
    int r = make_parent(out) || stepq_run_heads(&o, src, &rc);
    if (!r) {
        r = write_replay(out, &o, src, fmt, prefill, cmdline);
        stepq_run_out_free(&o);
    }
    stepq_source_free(src);
    if (pp) stepq_plan_free(pp);
    if (!r) printf("wrote %s\n", out);
    return r ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// stepq trace

static int cmd_trace(int argc, char** argv) {
    const char *preset = "gdn-qwen-like", *out = NULL, *ls = NULL, *hs = NULL;
    long steps = 0;
    unsigned long long seed = 1, model_seed = 0;
    if (wants_help(argc, argv)) {
        puts("usage: stepq trace --out OUT.h5 --steps T [--preset NAME] [--layers L] [--heads H]\n"
             "                   [--seed S] [--model-seed M]\n\n"
             "Writes T steps of a synthetic source as a trace file (the layout `stepq replay`\n"
             "reads; see README). --preset gdn-qwen-like (default) or kda-kimi-like; --layers and\n"
             "--heads take lists like 0,2,5-7 (default layer 0, every head); the selected\n"
             "(layer, head) pairs become the trace's heads, H = HV. --model-seed draws the model\n"
             "(default 0, the one every config uses unless it says otherwise), --seed the stream.");
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) { stepq_error("trace: %s needs a value (see --help)", a); return 2; }
        if (!strcmp(a, "--preset")) preset = v;
        else if (!strcmp(a, "--out")) out = v;
        else if (!strcmp(a, "--steps")) steps = atol(v);
        else if (!strcmp(a, "--layers")) ls = v;
        else if (!strcmp(a, "--heads")) hs = v;
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--model-seed")) model_seed = strtoull(v, NULL, 10);
        else { stepq_error("trace: unknown option %s (see --help)", a); return 2; }
        i++;
    }
    if (!out || steps < 1) {
        stepq_error("trace needs --out and --steps >= 1 (see --help)");
        return 2;
    }
    stepq_synth_params p;
    int *layers = NULL, *heads = NULL, nl = 0, nh = 0, zero = 0;
    if (stepq_synth_preset(&p, preset) || (ls && parse_index_list(&layers, &nl, ls, "--layers")) ||
        (hs && parse_index_list(&heads, &nh, hs, "--heads")))
        return 2;
    stepq_source* src;
    int rc = stepq_synth_open(&src, &p, model_seed, seed, ls ? layers : &zero, ls ? nl : 1, heads, nh);
    free(layers);
    free(heads);
    if (rc) return 2;
    stepq_trace tr;
    stepq_trace_capture(&tr, src, steps);
    rc = make_parent(out) || stepq_trace_write(out, &tr, src->desc);
    if (!rc) printf("wrote %s: %s, %ld steps\n", out, src->desc, steps);
    stepq_trace_free(&tr);
    stepq_source_free(src);
    return rc ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// stepq calibrate CFG

static int cmd_calibrate(int argc, char** argv) {
    if (argc < 2 || wants_help(argc, argv)) {
        puts("usage: stepq calibrate CONFIG.cfg [--threads N]\n\n"
             "Makes the plan the calibrated formats run with (SPEC 4.1, 4.3): native runs of the\n"
             "config's source, one segment per entry of `seeds` (synthetic) or `traces`, each from\n"
             "a zero state for `steps` steps; per unit the mean log gate, lifetime weight (horizon),\n"
             "measured lifetime, omega and w per key row, distortions of every width from a\n"
             "reservoir of state snapshots; then pivots and bit allocations for every scheme at\n"
             "budgets 4 and 6, and the DAMP rows. The config is an experiment = \"calibrate\" file\n"
             "(see experiments/calibrate_*.cfg); the plan goes to its `output`.");
        return argc < 2 ? 2 : 0;
    }
    return run_config(argc, argv, "calibrate");
}

// ---------------------------------------------------------------------------------------------
// stepq memory

static int cmd_memory(int argc, char** argv) {
    if (wants_help(argc, argv)) {
        puts("usage: stepq memory [--preset NAME] [--plan PLAN.h5] [--requests N] [--conv-mib X]\n"
             "                    [--weights-gb W]\n\n"
             "Bit accounting and the SGLang state-pool model (SPEC 4.4, 4.5) for a paper-scale\n"
             "preset: STEPQuant's bits by the paper's formula, by the reference code's layout and,\n"
             "with --plan, by the bytes stepq packs; memory per request and of the pool at N\n"
             "requests (5 slots each + 1 sentinel, each slot with a BF16 convolution state of X\n"
             "MiB); the concurrency at which the FP32 pool passes W GB of weights; and every\n"
             "format's nominal and actual bits. Without --preset both presets are reported, with\n"
             "the paper's settings: gdn-qwen-like 64 requests, 2.8125 MiB conv state, 53.8 GB of\n"
             "weights; kda-kimi-like 512 requests, no conv state.");
        return 0;
    }
    stepq_memory_model models[2] = {
        {"gdn-qwen-like", STEPQ_PLAN_GDN, 48, 48, 128, 128, 2.8125, 53.8, 64},
        {"kda-kimi-like", STEPQ_PLAN_KDA, 20, 32, 128, 128, 0.0, 0.0, 512},
    };
    const char *preset = NULL, *plan_path = NULL;
    double conv = -1, weights = -1;
    long requests = -1;
    for (int i = 1; i < argc; i += 2) {
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) { stepq_error("memory: %s needs a value (see --help)", argv[i]); return 2; }
        if (!strcmp(argv[i], "--preset")) preset = v;
        else if (!strcmp(argv[i], "--plan")) plan_path = v;
        else if (!strcmp(argv[i], "--requests")) requests = atol(v);
        else if (!strcmp(argv[i], "--conv-mib")) conv = atof(v);
        else if (!strcmp(argv[i], "--weights-gb")) weights = atof(v);
        else { stepq_error("memory: unknown option %s (see --help)", argv[i]); return 2; }
    }
    stepq_plan plan, *pp = NULL;
    if (plan_path) {
        if (stepq_plan_read(&plan, plan_path)) return 1;
        pp = &plan;
        if (!preset) preset = plan.kind == STEPQ_PLAN_KDA ? "kda-kimi-like" : "gdn-qwen-like";
    }
    int rc = 0, any = 0;
    for (int m = 0; m < 2; m++) {
        if (preset && strcmp(preset, models[m].name)) continue;
        any = 1;
        if (requests > 0) models[m].requests = (int)requests;
        if (conv >= 0) models[m].conv_mib = conv;
        if (weights >= 0) models[m].weights_gb = weights;
        rc |= stepq_memory_report(&models[m], pp) != STEPQ_OK;
        if (!preset && m == 0) putchar('\n');
    }
    if (!any) {
        stepq_error("unknown preset '%s' (gdn-qwen-like, kda-kimi-like)", preset);
        rc = 1;
    }
    if (pp) stepq_plan_free(pp);
    return rc ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// stepq bench

static int cmd_bench(int argc, char** argv) {
    long steps = 2048;
    int heads = 8;
    if (wants_help(argc, argv)) {
        puts("usage: stepq bench [--steps N] [--heads H]\n\n"
             "Times, on one thread and side by side, the synthetic generator of each preset\n"
             "against the float32 recurrence update it feeds, and prints the ratio\n"
             "(generation should cost no more than the update). Defaults: 2048 steps, 8 heads.");
        return 0;
    }
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--steps")) steps = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--heads")) heads = atoi(argv[i + 1]);
        else { stepq_error("bench: unknown option %s (see --help)", argv[i]); return 2; }
    }
    if (steps < 1 || heads < 1 || heads > 48) {
        stepq_error("bench: need --steps >= 1 and 1 <= --heads <= 48");
        return 2;
    }
    for (const char* const* name = stepq_synth_preset_names; *name; name++) {
        stepq_synth_params p;
        stepq_synth_preset(&p, *name);
        int layer = 0;
        int* hs = mallocCheck(sizeof(int) * heads);
        for (int h = 0; h < heads; h++) hs[h] = h;
        stepq_source* src;
        if (stepq_synth_open(&src, &p, 0, 1, &layer, 1, hs, heads)) return 1;
        stepq_bench_stream(src, steps, 3);
        stepq_source_free(src);
        free(hs);
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------

static void usage(FILE* fp) {
    fputs("usage: stepq COMMAND [ARGS]   (stepq COMMAND --help for each)\n\n"
          "  run CONFIG.cfg     run an experiment of experiments/ (HDF5 + PNG out)\n"
          "  replay ...         run a trace file through the decode-step protocol in one format\n"
          "  trace ...          write a synthetic stream as a trace file\n"
          "  calibrate CFG      make a plan (bit allocation, pivots, row influence) for a model\n"
          "  formats            list the state formats with nominal and actual bits\n"
          "  memory             bit accounting and the serving memory model (SPEC 4.4, 4.5)\n"
          "  bench              time the synthetic generator against the update it feeds\n\n"
          "From the repository root, ./stepq installs what is missing, builds, then runs this.\n",
          fp);
}

int main(int argc, char** argv) {
    h5u_quiet();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char* cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "run")) return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "replay")) return cmd_replay(argc - 1, argv + 1);
    if (!strcmp(cmd, "trace")) return cmd_trace(argc - 1, argv + 1);
    if (!strcmp(cmd, "formats")) return cmd_formats(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench")) return cmd_bench(argc - 1, argv + 1);
    if (!strcmp(cmd, "calibrate")) return cmd_calibrate(argc - 1, argv + 1);
    if (!strcmp(cmd, "memory")) return cmd_memory(argc - 1, argv + 1);
    stepq_error("unknown command '%s'", cmd);
    usage(stderr);
    return 2;
}

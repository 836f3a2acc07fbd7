// experiments.c: `stepq run CONFIG.cfg`: reads an experiment config (method 6.4), builds the
// driver's struct and runs it; writes the HDF5 result and, where the config names a gnuplot
// script, the PNG beside it.
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/calibrate.h"
#include "../analysis/forced.h"
#include "../analysis/inputstats.h"
#include "../analysis/output.h"
#include "../base/progress.h"
#include "../analysis/propagation.h"
#include "../analysis/runner.h"
#include "../base/common.h"
#include "../base/outfile.h"
#include "../base/ranks.h"
#include "builders.h"
#include "commands.h"
#include "plot.h"
#include "runconfig.h"

// ---------------------------------------------------------------------------------------------
// calibration, alone or before a run

// The plans this process calibrated (or found at their path), by key: all.cfg's quickstart,
// formats and ablation configs calibrate the same heads alike, and a later one copies the first
// one's plan instead of calibrating again. (knobs, robustness and regimes calibrate in memory
// for each of their values and do not come here.)
enum { MADE_MAX = 128 };
static struct {
    char key[40];
    char path[4096];
} made[MADE_MAX];
static int n_made;

static void remember_made(const char* key, const char* path) {
    if (n_made == MADE_MAX || strlen(path) >= sizeof made[0].path) return;
    snprintf(made[n_made].key, sizeof made[n_made].key, "%s", key);
    snprintf(made[n_made].path, sizeof made[n_made].path, "%s", path);
    n_made++;
}

// A plan of key that this process calibrated into *p (a path other than output, still holding
// that key): its path, or NULL when there is none
static const char* find_made(stepq_plan* p, const char* key, const char* output) {
    for (int i = 0; i < n_made; i++) {
        if (strcmp(made[i].key, key) || !strcmp(made[i].path, output)) continue;
        if (stepq_plan_read(p, made[i].path) == STEPQ_OK && !strcmp(p->calibration_key, key)) {
            stepq_forget_input(made[i].path);  // read to copy, not an input of this run
            return made[i].path;
        }
        if (p->H) stepq_plan_free(p);
        stepq_forget_input(made[i].path);
    }
    return NULL;
}

// Calibrates as cf (group g, or the root) says and writes the plan to output; *out receives
// it in memory when not NULL. reuse: keep a plan already at output that was made from the
// same calibration key (same stepq revision, source, segments and settings) instead. A plan
// of the same key that an earlier config of this process calibrated is copied to output.
int stepq_cfg_calibrate_plan(const stepq_cfgfile* cf, const config_setting_t* g, const char* output,
                             stepq_plan* out, int reuse, const stepq_backend* be) {
    stepq_calib_build b;
    if (stepq_calib_from_cfg(&b, cf, g, output, NULL, be) != STEPQ_OK) return STEPQ_ERR;
    int rc = STEPQ_OK;
    FILE* probe = reuse ? fopen(output, "rb") : NULL;
    if (probe) {
        fclose(probe);
        stepq_plan old;
        if (stepq_plan_read(&old, output) == STEPQ_OK && !strcmp(old.calibration_key, b.key)) {
            printf("plan %s was made from this calibration (key %s): not calibrating again\n",
                   output, b.key);
            remember_made(b.key, output);
            if (out) *out = old;
            else stepq_plan_free(&old);
            stepq_calib_build_free(&b);
            return STEPQ_OK;
        }
        if (old.H) stepq_plan_free(&old);
        else fprintf(stderr, "calibrate: the plan at %s cannot be reused (above): calibrating again\n", output);
        stepq_forget_input(output);  // read only to compare keys: the new plan replaces it
    }
    stepq_plan copy = {0};
    const char* from = find_made(&copy, b.key, output);
    int held = 0;
    if (!from && b.c.hold.budget && (from = find_made(&copy, b.base_key, output))) {
        // a hold is the plan of the same calibration with one table solved again (method 4.3):
        // the plan calibrated without it earlier in this run, held here, is what calibrating gives
        held = 1;
        rc = stepq_hold_long_heads(&copy, &b.c.hold, 0);
        snprintf(copy.calibration_key, sizeof copy.calibration_key, "%s", b.key);
    }
    if (from) {
        // the same datasets as a calibration would write; this config's text and source
        rc = rc || stepq_prepare_output(output) ||
             stepq_plan_write(output, &copy, b.c.prov.config_text, b.c.prov.source);
        if (!rc)
            printf("wrote plan %s: %s %s, made from this calibration%s (key %s) earlier in this run\n", output,
                   held ? "the hold applied to" : "a copy of", from, held ? " without its hold" : "", b.key);
        if (!rc && out) *out = copy;
        else stepq_plan_free(&copy);
    } else {
        rc = stepq_prepare_output(output) || stepq_calibrate(out, &b.c);
        if (!rc)
            printf("wrote plan %s (%d heads, %d pivot units)\n", output, b.c.segments[0]->n_heads,
                   b.c.pivots);
    }
    if (!rc) remember_made(b.key, output);
    // a plan the run goes on to use is one of its inputs: recorded with its checksum in the
    // results' provenance (as a plan read is), and no output may replace it
    if (!rc && out) stepq_note_input(output);
    stepq_calib_build_free(&b);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

static int run_calibrate(const stepq_cfgfile* cf) {
    static const char* const root_only[] = {"experiment", "description", "source", "output", "threads"};
    const char* keys[64];
    int n = 0;
    for (size_t i = 0; i < sizeof root_only / sizeof *root_only; i++) keys[n++] = root_only[i];
    for (const char* const* k = stepq_keys_calibrate; *k; k++) keys[n++] = *k;
    keys[n] = NULL;
    stepq_cfg_common c;
    if (stepq_cfg_read_common(&c, cf, keys)) return STEPQ_ERR;
    return stepq_cfg_calibrate_plan(cf, NULL, c.output, NULL, 0, c.backend);
}

// ---------------------------------------------------------------------------------------------
// propagation

static const char* const keys_propagation[] = {"experiment", "description", "seed", "seeds", "source",
                                               "prefill", "decode", "bin", "formats", "output",
                                               "plot", "threads", "plan", "calibrate", "report", "backend",
                                               NULL};

int stepq_cfg_read_common(stepq_cfg_common* c, const stepq_cfgfile* cf, const char* const* keys) {
    long long threads;
    int has_backend = 0;
    for (const char* const* k = keys; *k; k++) has_backend |= !strcmp(*k, "backend");
    if (cfg_check_keys(cf, config_root_setting(&cf->cfg), keys) ||
        cfg_str(cf, NULL, "description", &c->desc, 0, "") || cfg_str(cf, NULL, "output", &c->output, 1, NULL) ||
        cfg_str(cf, NULL, "plot", &c->plot, 0, NULL) ||
        cfg_int(cf, NULL, "threads", &threads, 0, 0, 0, STEPQ_THREADS_MAX) ||
        !(c->backend = stepq_backend_from_cfg(cf, has_backend)))
        return STEPQ_ERR;
    stepq_set_threads(cf->opts->threads, threads);
    stepq_sibling(c->table, sizeof c->table, c->output, STEPQ_SIB_TABLE);
    stepq_sibling(c->png, sizeof c->png, c->output, STEPQ_SIB_FIGURE);
    return STEPQ_OK;
}

// seeds (S) of a run: `seeds = [...]`, or the one `seed`
int stepq_cfg_seeds(uint64_t** out, int* n, const stepq_cfgfile* cf) {
    long long seed, *list = NULL;
    int ns = 0;
    if (cfg_int(cf, NULL, "seed", &seed, 0, 1, 0, (long long)1 << 62) ||
        cfg_i64_list(cf, NULL, "seeds", &list, &ns, 0, 0, (long long)1 << 62))
        return STEPQ_ERR;
    const config_setting_t* ls = config_lookup(&cf->cfg, "seeds");
    if (ns && config_lookup(&cf->cfg, "seed")) {
        stepq_error("%s: give 'seed' or 'seeds' (several runs, confidence intervals), not both", cf->path);
        free(list);
        return STEPQ_ERR;
    }
    if (ls && ns == 0) {
        stepq_error("%s:%d: 'seeds' is empty", cfg_file_of(cf, ls), config_setting_source_line(ls));
        return STEPQ_ERR;
    }
    for (int i = 0; i < ns; i++)
        for (int k = 0; k < i; k++)
            if (list[k] == list[i]) {
                stepq_error("%s:%d: 'seeds' lists %lld twice (the interval would count one run twice)", cfg_file_of(cf, ls),
                            config_setting_source_line(ls), list[i]);
                free(list);
                return STEPQ_ERR;
            }
    const char* type = NULL;
    config_lookup_string(&cf->cfg, "source.type", &type);
    if (ns > 1 && type && (!strcmp(type, "trace") || !strcmp(type, "model"))) {
        stepq_error("%s:%d: 'seeds' over a %s source: it is one stream, so every seed would rerun it "
                    "and the interval would be a fake zero; give one stream per run", cfg_file_of(cf, ls),
                    config_setting_source_line(ls), type);
        free(list);
        return STEPQ_ERR;
    }
    *n = ns ? ns : 1;
    *out = mallocCheck(sizeof(uint64_t) * (size_t)*n);
    for (int i = 0; i < *n; i++) (*out)[i] = ns ? (uint64_t)list[i] : (uint64_t)seed;
    free(list);
    return STEPQ_OK;
}

// srcs (S) <- the config's source with each seed (the model of source.model_seed), with extra
// knobs (may be NULL); freed by free_sources; NULL (message printed) on an error
stepq_source** stepq_cfg_sources(const stepq_cfgfile* cf, const uint64_t* seeds, int S,
                                 const config_setting_t* extra, const stepq_backend* be) {
    stepq_source** srcs = callocCheck((size_t)S, sizeof *srcs);
    for (int i = 0; i < S; i++)
        if (stepq_source_from_cfg(&srcs[i], cf, seeds[i], -1, extra, NULL, 0, be)) {
            for (int k = 0; k < i; k++) stepq_source_free(srcs[k]);
            free(srcs);
            return NULL;
        }
    return srcs;
}

stepq_source** stepq_cfg_sources_for(const stepq_cfgfile* cf, const uint64_t* seeds, int S,
                                     const stepq_backend* be) {
    return stepq_cfg_sources(cf, seeds, S, NULL, be);
}

void stepq_cfg_free_sources(stepq_source** srcs, int S) {
    for (int i = 0; srcs && i < S; i++) stepq_source_free(srcs[i]);
    free(srcs);
}

const char* stepq_format_list(char* buf, size_t n, const stepq_format* const* fmts, int nf) {
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < nf && o < n; i++) o += (size_t)snprintf(buf + o, n - o, i ? " %s" : "%s", fmts[i]->name);
    return buf;
}

// the variables every plot script takes: formats='fp32 int8 ...' and source='<what ran>', so
// that a figure names its source, heads, seeds and formats
void stepq_cfg_plot_vars(stepq_plot_vars* v, const stepq_format* const* fmts, int nf,
                         const stepq_source* src, const uint64_t* seeds, int S) {
    char buf[8192];
    stepq_plot_var(v, "formats", "%s", stepq_format_list(buf, sizeof buf, fmts, nf));
    size_t o = (size_t)snprintf(buf, sizeof buf, "%s; %d seed%s:", src->desc, S, S > 1 ? "s" : "");
    for (int i = 0; i < S && o < sizeof buf; i++) o += (size_t)snprintf(buf + o, sizeof buf - o, " %llu", (unsigned long long)seeds[i]);
    stepq_plot_var(v, "source", "%s", buf);
}

// what a propagation config must also satisfy once its keys are read
static int propagation_checks(const stepq_backend* be, const stepq_cfgfile* cf, const config_setting_t* calib,
                              const char* plan_path, long long bin, long long decode) {
    if (calib && !plan_path) {
        stepq_error("%s: a 'calibrate' group needs 'plan', the file it writes", cf->path);
        return STEPQ_ERR;
    }
    if (cf->opts->resume && !be->write) {  // a backend of whole runs only
        stepq_error("%s: --resume continues CPU runs; a run on the GPU is not journaled", cf->path);
        return STEPQ_ERR;
    }
    if (bin > decode || decode % bin) {
        stepq_error("%s:%d: 'bin' = %lld must divide 'decode' = %lld (every bin averages the same number of "
                    "steps)", cfg_file_of(cf, config_lookup(&cf->cfg, "bin")), config_setting_source_line(config_lookup(&cf->cfg, "bin")), bin, decode);
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

// what decides a run's numbers: the config after its includes, the stepq revision, and every
// input read so far (the config's own file, a trace, a plan, a model's config and weights, texts),
// by checksum; a journal of another key is refused (journal.h)
static void journal_key(char* key, size_t n, const stepq_cfgfile* cf) {
    uint64_t k = stepq_xxh3(0, cf->text, strlen(cf->text));
    k = stepq_xxh3(k, stepq_git_revision(), strlen(stepq_git_revision()));
    const uint64_t inputs = stepq_inputs_xxh3();
    k = stepq_xxh3(k, &inputs, sizeof inputs);
    snprintf(key, n, "%016" PRIx64, k);
}

// the experiments whose runs are journaled, so that --resume continues them: the runner's heads
// (propagation; the format table and the ablation are propagation configs) and the teacher-forced
// runs of the nll, recall and frontier drivers (analysis/forced.h)
static int journaled(const char* exp) {
    return !strcmp(exp, "propagation") || !strcmp(exp, "nll") || !strcmp(exp, "recall") || !strcmp(exp, "frontier");
}

// the key of a forced-run journal: the config after its includes and the stepq revision (each
// run's own key names the model's weights, the document, the prefill, the format and the plan's
// encoding it ran on, analysis/forced.c; the inputs read so far are another config's in an all run)
static void forced_key(char* key, size_t n, const stepq_cfgfile* cf) {
    uint64_t k = stepq_xxh3(0, cf->text, strlen(cf->text));
    k = stepq_xxh3(k, stepq_git_revision(), strlen(stepq_git_revision()));
    snprintf(key, n, "%016" PRIx64, k);
}

// the run of pc and its outputs: the gnuplot table, figure and formats table beside pc.output,
// the journal under the config's key, then the plot
static int propagate_and_write(const stepq_cfgfile* cf, stepq_propagation_cfg pc, const stepq_cfg_common* c) {
    char ftable[4096], key[64];
    stepq_sibling(ftable, sizeof ftable, pc.output, STEPQ_SIB_FORMATS);
    journal_key(key, sizeof key, cf);
    pc.table = c->plot ? c->table : NULL;
    pc.formats_table = pc.report ? ftable : NULL;
    pc.journal_key = key;
    int rc = stepq_prepare_output(pc.output) || (pc.report && stepq_prepare_output(pc.report)) ||
             stepq_propagation(&pc);
    if (!rc) printf("wrote %s%s%s\n", pc.output, pc.report ? " and " : "", pc.report ? pc.report : "");
    if (!rc && c->plot) {
        stepq_plot_vars vars = {0};
        stepq_cfg_plot_vars(&vars, pc.formats, pc.n_formats, pc.srcs[0], pc.seeds, pc.n_seeds);
        if (pc.report) stepq_plot_var(&vars, "summary", "%s", ftable);
        rc = stepq_plot(c->plot, c->table, c->png, &vars);
    }
    return rc;
}

static int run_propagation(const stepq_cfgfile* cf) {
    long long prefill, decode, bin;
    const char *plan_path, *report;
    const stepq_format** fmts = NULL;
    uint64_t* seeds = NULL;
    int nf = 0, err = 0, S = 0;
    config_setting_t* calib = NULL;
    stepq_cfg_common c;
    if (stepq_cfg_read_common(&c, cf, keys_propagation) ||
        cfg_str(cf, NULL, "plan", &plan_path, 0, NULL) || cfg_str(cf, NULL, "report", &report, 0, NULL) ||
        (calib = cfg_group(cf, NULL, "calibrate", 0, &err), err) ||
        cfg_int(cf, NULL, "prefill", &prefill, 1, 0, 0, 1LL << 40) ||
        cfg_int(cf, NULL, "decode", &decode, 1, 0, 1, 1LL << 40) ||
        cfg_int(cf, NULL, "bin", &bin, 0, 1, 1, 1LL << 30) || stepq_formats_from_cfg(&fmts, &nf, cf) ||
        stepq_formats_check_plan(cf, fmts, nf, plan_path) || stepq_cfg_seeds(&seeds, &S, cf)) {
        free(fmts);
        return STEPQ_ERR;
    }
    if (propagation_checks(c.backend, cf, calib, plan_path, bin, decode)) {
        free(fmts);
        free(seeds);
        return STEPQ_ERR;
    }
    stepq_plan plan, *pp = NULL;
    int rc = STEPQ_OK;
    if (plan_path) {
        rc = calib ? stepq_cfg_calibrate_plan(cf, calib, plan_path, &plan, 1, c.backend) : stepq_plan_read(&plan, plan_path);
        if (!rc) pp = &plan;
    }
    stepq_source** srcs = rc ? NULL : stepq_cfg_sources_for(cf, seeds, S, c.backend);
    rc = rc || !srcs;
    if (!rc) {
        const stepq_propagation_cfg pc = {
            .srcs = srcs, .seeds = seeds, .n_seeds = S, .formats = fmts, .n_formats = nf, .prefill = prefill,
            .decode = decode, .bin = (int)bin, .plan = pp, .output = c.output, .report = report,
            .resume = cf->opts->resume, .prov = {.experiment = "propagation", .config_path = cf->path, .config_text = cf->text, .seed = seeds[0], .source = srcs[0]->desc},
            .backend = c.backend, .plan_any_model = cf->opts->plan_any_model};
        rc = propagate_and_write(cf, pc, &c);
    }
    stepq_cfg_free_sources(srcs, S);
    free(seeds), free(fmts);
    if (pp) stepq_plan_free(pp);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------
// input statistics

static const char* const keys_inputstats[] = {"experiment", "description", "seeds", "source",
                                              "steps", "warmup", "sample_every", "output",
                                              "threads", NULL};

static int run_inputstats(const stepq_cfgfile* cf) {
    long long steps, warmup, every;
    long long* seeds_i = NULL;
    int ns = 0;
    stepq_cfg_common c;
    if (stepq_cfg_read_common(&c, cf, keys_inputstats) ||
        cfg_i64_list(cf, NULL, "seeds", &seeds_i, &ns, 1, 0, (long long)1 << 62) ||
        cfg_int(cf, NULL, "steps", &steps, 1, 0, 1, 1LL << 40) ||
        cfg_int(cf, NULL, "warmup", &warmup, 0, 0, 0, 1LL << 40) ||
        cfg_int(cf, NULL, "sample_every", &every, 0, 256, 1, 1LL << 40))
        return STEPQ_ERR;
    if (ns == 0) {
        stepq_error("%s: 'seeds' is empty", cf->path);
        free(seeds_i);
        return STEPQ_ERR;
    }
    const config_setting_t* ms = config_lookup(&cf->cfg, "source.model_seed");
    if (ms) {
        stepq_error("%s:%d: inputstats draws the model from each seed (the statistics of the preset, not of one "
                    "model), so 'model_seed' would be ignored: remove it", cfg_file_of(cf, ms), config_setting_source_line(ms));
        free(seeds_i);
        return STEPQ_ERR;
    }
    stepq_source** srcs = callocCheck((size_t)ns, sizeof *srcs);
    uint64_t* seeds = mallocCheck(sizeof(uint64_t) * ns);
    int rc = STEPQ_OK;
    for (int i = 0; i < ns && !rc; i++) {
        seeds[i] = (uint64_t)seeds_i[i];
        // each seed is another draw of the model and of its stream: the statistics of a preset
        rc = stepq_source_from_cfg(&srcs[i], cf, seeds[i], (long long)seeds[i], NULL, NULL, 0, c.backend);
    }
    if (!rc) {
        stepq_inputstats_cfg ic = {.srcs = srcs, .seeds = seeds, .n_seeds = ns, .steps = steps, .warmup = warmup,
                                   .sample_every = every, .output = c.output,
                                   .prov = {.experiment = "inputstats", .config_path = cf->path, .config_text = cf->text, .seed = seeds[0], .source = srcs[0]->desc},
                                   .backend = c.backend};
        rc = stepq_prepare_output(c.output) || stepq_inputstats(NULL, &ic);
        if (!rc) printf("wrote %s\n", c.output);
    }
    for (int i = 0; i < ns; i++) stepq_source_free(srcs[i]);
    free(srcs);
    free(seeds);
    free(seeds_i);
    return rc ? STEPQ_ERR : STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------
// all: every config of a list

static const char* const keys_all[] = {"experiment", "description", "configs", "record", NULL};

// The record of an `all` run (its `record` key): one block per config that ended ok, rewritten
// whole after each one, so that `--resume` skips what an earlier, interrupted run finished:
//   done<TAB>KEY<TAB>SECONDS<TAB>CONFIG      KEY: XXH3 of the config's text and stepq's revision
//   input<TAB>XXH3<TAB>PATH                  each input that config read, by checksum
// A config is skipped only where its block names the same key and every input listed still has
// its checksum; anything else (a changed config, a rebuilt plan, another revision) runs again.
static uint64_t all_key(const stepq_cfgfile* sub) {
    uint64_t k = stepq_xxh3(0, sub->text, strlen(sub->text));
    return stepq_xxh3(k, stepq_git_revision(), strlen(stepq_git_revision()));
}

// the block of `record` for config `path` under `key` whose inputs are unchanged: its start
// and length (*len), with its seconds; NULL where there is none
static const char* all_done_block(const char* record, const char* path, uint64_t key, double* secs,
                                  size_t* len) {
    char head[64];
    snprintf(head, sizeof head, "done\t%016" PRIx64 "\t", key);
    for (const char* b = record; b && *b; ) {
        const char* next = strstr(b + 1, "\ndone\t");
        const char* end = next ? next + 1 : b + strlen(b);
        const char* nl = strchr(b, '\n');
        char* stop = NULL;
        double s = 0;
        int match = 0;
        if (!strncmp(b, head, strlen(head)) && nl) {
            s = strtod(b + strlen(head), &stop);
            match = stop && *stop == '\t' && (size_t)(nl - stop - 1) == strlen(path) &&
                    !strncmp(stop + 1, path, strlen(path));
        }
        for (const char* l = nl ? nl + 1 : end; match && l < end; ) {
            const char* e = strchr(l, '\n');
            if (!e || e > end) e = end;
            char file[4096];
            uint64_t want = 0, have = 0;
            int n = (int)(e - l);
            if (n < 24 || n - 23 >= (int)sizeof file || strncmp(l, "input\t", 6)) match = 0;
            else {
                want = strtoull(l + 6, NULL, 16);
                snprintf(file, sizeof file, "%.*s", n - 23, l + 23);
                match = stepq_file_xxh3(&have, file) == STEPQ_OK && have == want;
            }
            l = e + 1;
        }
        if (match) {
            *secs = s;
            *len = (size_t)(end - b);
            return b;
        }
        b = next ? next + 1 : NULL;
    }
    return NULL;
}

typedef struct {
    const char* path;  // the record (the all config's `record`), or NULL: none kept
    char* old;         // with --resume, the record an earlier run left (NULL: none)
    FILE* ms;          // this run's record, an open_memstream of buf
    char* buf;
    size_t len;
} all_rec;

// what ended ok joins the record: the block of an earlier run (block, blen: skipped) or the key
// line of a config that just ran with the inputs it read; then the record is rewritten whole
static int all_record_add(all_rec* r, const char* block, size_t blen, uint64_t key, double secs,
                          const char* config) {
    if (!r->path) return STEPQ_OK;
    if (block) fwrite(block, 1, blen, r->ms);
    else if (config) {
        fprintf(r->ms, "done\t%016" PRIx64 "\t%.1f\t%s\n", key, secs, config);
        for (int i = 0; i < stepq_inputs_count(); i++)
            fprintf(r->ms, "input\t%016" PRIx64 "\t%s\n", stepq_input_xxh3_of(i), stepq_input_path(i));
    }
    fflush(r->ms);
    FILE* fp = stepq_text_create(r->path);
    if (!fp) return STEPQ_ERR;
    fwrite(r->buf, 1, r->len, fp);
    return stepq_text_commit(fp, r->path);
}

static void all_record_close(all_rec* r) {
    if (r->ms) fclose(r->ms);
    free(r->buf);
    free(r->old);
}

// --resume reads what an earlier run finished; a run without it starts the record afresh
static int all_record_open(all_rec* r, const char* path, int resume) {
    *r = (all_rec){.path = path, .old = NULL, .ms = NULL, .buf = NULL, .len = 0};
    if (!path) return STEPQ_OK;
    if (stepq_output_prepare(path)) return STEPQ_ERR;
    size_t n_old = 0;
    r->old = resume ? stepq_read_file(path, (size_t)1 << 30, &n_old) : NULL;
    if (resume && !r->old && stepq_rank() == 0) fprintf(stderr, "resume: no record %s: every config runs\n", path);
    r->ms = open_memstream(&r->buf, &r->len);
    if (!r->ms) {
        stepq_error("%s: cannot keep the record in memory", path);
        return STEPQ_ERR;
    }
    fputs("# stepq run --resume skips the configs done here (cli/experiments.c, run_all)\n", r->ms);
    return all_record_add(r, NULL, 0, 0, 0, NULL);
}

// config `path` of an all config, or its block of an earlier run (*earlier <- 1); *secs <- its
// time, *cpu <- the CPU time it took in this process (every thread; this rank's under MPI); the
// record gains it when it ends ok
static int all_one(const stepq_cfgfile* cf, const char* path, all_rec* r, double* secs, double* cpu,
                   int* earlier) {
    double t0 = stepq_now(), c0 = stepq_cpu_now();
    stepq_inputs_reset();  // each config's outputs record its own inputs (base/outfile.h)
    stepq_cfgfile sub;
    const char *exp = NULL, *done = NULL;
    size_t dlen = 0;
    if (cfg_load(&sub, path, cf->opts->quick)) return 1;
    const uint64_t key = all_key(&sub);
    int rc = cfg_str(&sub, NULL, "experiment", &exp, 1, NULL);
    if (!rc && !strcmp(exp, "all")) {
        stepq_error("%s: an 'all' config lists another 'all' config (%s)", cf->path, path);
        rc = 1;
    }
    const int resumable = !rc && journaled(exp);
    cfg_free(&sub);
    if (rc) return 1;
    if ((done = all_done_block(r->old, path, key, secs, &dlen))) {
        *earlier = 1;
        printf("done in an earlier run (%.1f s; %s)\n", *secs, r->path);
    } else {
        stepq_run_opts o = *cf->opts;
        o.resume = o.resume && resumable;
        rc = stepq_run_config(path, NULL, &o);
        *secs = stepq_now() - t0;
        *cpu = stepq_cpu_now() - c0;
    }
    return rc || all_record_add(r, done, dlen, key, *secs, path) ? 1 : 0;
}

static int run_all(const stepq_cfgfile* cf) {
    const char **paths = NULL, *desc, *record = NULL;
    int n = 0;
    all_rec r;
    if (cfg_check_keys(cf, config_root_setting(&cf->cfg), keys_all) ||
        cfg_str(cf, NULL, "description", &desc, 0, "") || cfg_str(cf, NULL, "record", &record, 0, NULL) ||
        cfg_str_list(cf, NULL, "configs", &paths, &n, 1))
        return STEPQ_ERR;
    if (all_record_open(&r, record, cf->opts->resume)) {
        all_record_close(&r);
        free(paths);
        return STEPQ_ERR;
    }
    double* secs = callocCheck((size_t)n + 1, sizeof(double));
    double* cpu = callocCheck((size_t)n + 1, sizeof(double));
    int* rcs = callocCheck((size_t)n + 1, sizeof(int));
    int* earlier = callocCheck((size_t)n + 1, sizeof(int));
    int failed = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s", paths[i]);
        FILE* probe = fopen(path, "r");
        if (!probe) snprintf(path, sizeof path, "%s/%s", STEPQ_SOURCE_DIR, paths[i]);
        else fclose(probe);
        printf("\n==== %d/%d: %s%s\n", i + 1, n, path, cf->quick ? " (--quick)" : "");
        fflush(stdout);
        rcs[i] = all_one(cf, path, &r, &secs[i], &cpu[i], &earlier[i]);
        failed += rcs[i] != 0;
        fflush(stdout);
        // an MPI run goes on to the next config only where every rank ended this one alike:
        // ranks at different configs would meet in each other's merges (base/ranks.h)
        stepq_ranks_alike(rcs[i] ? STEPQ_ERR : STEPQ_OK, path);
    }
    double total = 0, before = 0, cpu_total = 0;
    printf("\n==== %s: %d configs, %d failed (wall time; CPU time of this process, every thread)\n", cf->path,
           n, failed);
    for (int i = 0; i < n; i++) {
        char c[32] = "";
        if (!earlier[i]) snprintf(c, sizeof c, "%8.1f s CPU", cpu[i]);
        printf("  %-40s %8.1f s %14s  %s\n", paths[i], secs[i], c,
               rcs[i] ? "FAILED" : earlier[i] ? "ok (earlier run)" : "ok");
        total += secs[i];
        before += earlier[i] ? secs[i] : 0;
        cpu_total += cpu[i];
    }
    printf("  %-40s %8.1f s %10.1f s CPU", "total", total, cpu_total);
    if (before > 0) printf(" (%.1f s of it in earlier runs, %s)", before, record);
    printf("\n");
    all_record_close(&r);
    free(secs); free(cpu); free(rcs); free(earlier); free(paths);
    return failed ? STEPQ_ERR : STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------

static const struct {
    const char* name;
    int (*run)(const stepq_cfgfile* cf);
} experiments[] = {
    {"propagation", run_propagation},
    {"inputstats", run_inputstats},
    {"calibrate", run_calibrate},
    {"selfcorrect", stepq_run_selfcorrect},
    {"halflife", stepq_run_halflife},
    {"octile", stepq_run_octile},
    {"knobs", stepq_run_knobs},
    {"robustness", stepq_run_robustness},
    {"memory", stepq_run_memory},
    {"regimes", stepq_run_regimes},
    {"nll", stepq_run_nll},
    {"generate", stepq_run_generate},
    {"recall", stepq_run_recall},
    {"frontier", stepq_run_frontier},
    {"all", run_all},
};

int stepq_run_config(const char* path, const char* only, const stepq_run_opts* o) {
    stepq_cfgfile cf;
    if (cfg_load(&cf, path, o->quick)) return 1;
    cf.opts = o;
    if (o->backend && !stepq_backend_from_cfg(&cf, 0)) {
        cfg_free(&cf);
        return 1;
    }
    const char* exp;
    int rc = cfg_str(&cf, NULL, "experiment", &exp, 1, NULL);
    int line = rc ? 0 : config_setting_source_line(config_lookup(&cf.cfg, "experiment"));
    if (!rc && only && strcmp(exp, only)) {
        stepq_error("%s:%d: experiment is '%s'; this command runs experiment = \"%s\" configs "
                    "(use `stepq run` for the others)", cf.path, line, exp, only);
        rc = STEPQ_ERR;
    } else if (!rc && o->resume && !journaled(exp) && strcmp(exp, "all")) {
        stepq_error("%s:%d: --resume continues the runs of propagation, nll, recall and frontier configs "
                    "(and the format table and the ablation); experiment '%s' starts over", cf.path, line, exp);
        rc = STEPQ_ERR;
    } else if (!rc) {
        size_t i = 0, n = sizeof experiments / sizeof *experiments;
        while (i < n && strcmp(experiments[i].name, exp)) i++;
        const char* output = NULL;
        const int forced = i < n && journaled(exp) && strcmp(exp, "propagation") &&
                           config_lookup_string(&cf.cfg, "output", &output) == CONFIG_TRUE;
        char key[64];
        if (forced) {  // the drivers of teacher-forced runs journal them (analysis/forced.h)
            forced_key(key, sizeof key, &cf);
            stepq_forced_journal_begin(output, key, o->resume);
        }
        if (i < n) rc = experiments[i].run(&cf);
        if (forced) stepq_forced_journal_end(rc == STEPQ_OK);
        if (i == n) {
            char known[256] = "";
            for (size_t k = 0; k < n; k++) {
                strncat(known, k ? ", " : "", sizeof known - strlen(known) - 1);
                strncat(known, experiments[k].name, sizeof known - strlen(known) - 1);
            }
            stepq_error("%s:%d: unknown experiment '%s' (%s)", cf.path, line, exp, known);
            rc = STEPQ_ERR;
        }
    }
    cfg_free(&cf);
    return rc ? 1 : 0;
}

// commands.c: the subcommands other than the experiments of a config (experiments.c).
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/bench.h"
#include "../analysis/calibrate.h"
#include "../analysis/memory.h"
#include "../analysis/robust.h"
#include "../sim/lm.h"
#ifdef STEPQ_WITH_CUDA
#include "../sim/cuda/serving.h"
#endif
#include "../analysis/replay.h"
#include "../analysis/roundtrip.h"
#include "../analysis/output.h"
#include "../base/common.h"
#include "../base/ranks.h"
#include "../quant/format.h"
#include "../sim/synth.h"
#include "../sim/trace.h"
#include "builders.h"
#include "options.h"

#define SEED_MAX ((double)(1LL << 62))
#define STEPS_MAX ((double)(1LL << 40))

// the --threads row every long-running command has
#define THREADS_OPT(to) \
    {.name = "--threads", .type = OPT_INT, .dest = (to), .lo = 0, .hi = STEPQ_THREADS_MAX, .meta = "N"}

// the names of the formats that need a plan, for help texts
static void planned_names(char* buf, size_t n) {
    buf[0] = 0;
    for (int i = 0; i < stepq_n_formats; i++) {
        if (!stepq_format_needs_plan(&stepq_formats[i])) continue;
        strncat(buf, buf[0] ? ", " : "", n - strlen(buf) - 1);
        strncat(buf, stepq_formats[i].name, n - strlen(buf) - 1);
    }
}

static int read_plan(stepq_plan** pp, stepq_plan* plan, const char* path) {
    *pp = NULL;
    if (!path) return STEPQ_OK;
    if (stepq_plan_read(plan, path) != STEPQ_OK) return STEPQ_ERR;
    *pp = plan;
    return STEPQ_OK;
}

// ---------------------------------------------------------------------------------------------
// run, calibrate: a config file

// `run CONFIG.cfg [--threads N]` and `calibrate CONFIG.cfg [--threads N]`
static int config_command(int argc, char** argv, const char* only) {
    const char* path = NULL;
    stepq_run_opts o = {.threads = -1};
    stepq_opt opts[] = {THREADS_OPT(&o.threads),
                        {.name = "--quick", .type = OPT_FLAG, .dest = &o.quick},
                        {.name = "--resume", .type = OPT_FLAG, .dest = &o.resume},
                        {.name = "--backend", .type = OPT_STR, .dest = &o.backend,
                         .meta = "cpu (the default instruction set), reference, x86-64-v2, avx2, avx512 or cuda"},
                        {.name = "--plan-any-model", .type = OPT_FLAG, .dest = &o.plan_any_model},
                        {.name = NULL}};
    if (stepq_parse_options(argc, argv, opts, &path, 1, 1)) return 2;
    return stepq_run_config(path, only, &o);
}

// Commands without units to split over the ranks of an MPI run (method 6.12) refuse to run under
// mpirun: every rank would do all their work, and hold their output in memory (rank 0 writes).
// The benchmarks time one process against this machine's peaks, which ranks beside it would share.
static int refuse_ranks(const char* cmd) {
    if (stepq_nranks() == 1) return STEPQ_OK;
    if (!strncmp(cmd, "bench", 5)) stepq_error("%s times one process on this machine; run it without mpirun", cmd);
    else stepq_error("%s has no units to split over ranks; run it without mpirun", cmd);
    return STEPQ_ERR;
}

int stepq_cmd_run(int argc, char** argv) {
    if (argc < 2 || stepq_wants_help(argc, argv)) {
        puts("usage: stepq run CONFIG.cfg [--threads N] [--quick] [--resume] [--backend cpu|cuda]\n"
             "                 [--plan-any-model]\n\n"
             "Runs the experiment a config describes (libconfig syntax, see experiments/, method\n"
             "6.4), writes its HDF5 file and, where the config names a gnuplot script, its PNG\n"
             "beside it.\n"
             "experiment = \"propagation\": error of each format vs decode step, per head (method 3).\n"
             "experiment = \"inputstats\":  ridge / omega / half-life statistics of a source (method 5).\n"
             "experiment = \"calibrate\":   a plan for the calibrated formats (as `stepq calibrate`).\n"
             "experiment = \"selfcorrect\", \"halflife\", \"octile\", \"knobs\", \"robustness\",\n"
             "  \"regimes\", \"memory\": the mechanism drivers (method 6.3; see their configs).\n"
             "experiment = \"nll\", \"generate\": extra NLL over decode position and free-running\n"
             "  generation of the shipped language models (method 7).\n"
             "experiment = \"recall\": answer accuracy per distance under each format, on a model\n"
             "  trained to remember and the held-out recall set (method 7.5).\n"
             "experiment = \"frontier\": every format's actual bits, extra NLL on recall documents\n"
             "  and prose, answers kept and step cost side by side, and the Pareto frontier\n"
             "  (experiments/frontier_*.cfg).\n"
             "experiment = \"all\": every config of its `configs` list in turn (experiments/all.cfg\n"
             "  reruns every experiment and figure); one that fails is reported and the rest run.\n"
             "--threads N (0 to 4096) overrides the config's threads (0: OpenMP's default); results\n"
             "do not depend on it. --quick applies the config's `quick = { ... }` group first: the\n"
             "small sizes the tests run (its keys replace the root's; its groups merge), and writes\n"
             "under results/quick/. --resume continues an interrupted propagation run (also the\n"
             "format table and the ablation) from OUTPUT.journal, the heads it completed, or an nll,\n"
             "recall or frontier run from the model's runs it completed (each document and format),\n"
             "and ends with the same numbers as an uninterrupted run; an `all` config with a `record` file\n"
             "(all.cfg's) skips under --resume the configs that record lists as done with the same\n"
             "text, inputs and stepq revision, and runs the rest. --backend cuda runs the heads on the\n"
             "GPU engine (method 6.5; the config's `backend` key otherwise, default cpu): the same\n"
             "figures, no journal. --plan-any-model lets a plan that names no model (calibrated on\n"
             "synthetic streams) serve traces of a model, which is otherwise refused.\n"
             "Under mpirun (stepq built with MPI, method 6.12), `mpirun -np N stepq run CONFIG`\n"
             "splits each driver's units (heads x seeds, documents' runs, ...) over the N ranks,\n"
             "and rank 0 writes the same files as one process; each rank keeps a journal,\n"
             "OUTPUT.journal.<r>of<N>, and --resume continues with any rank count.");
        return argc < 2 ? 2 : 0;
    }
    return config_command(argc, argv, NULL);
}

// the command line's name of a calibration knob: --snapshot-every for snapshot_every
static void knob_option(char* buf, size_t n, const char* key) {
    snprintf(buf, n, "--%s", key);
    for (char* p = buf + 2; *p; p++)
        if (*p == '_') *p = '-';
}

static int calibrate_help(void) {
    puts("usage: stepq calibrate CONFIG.cfg [--threads N] [--quick]\n"
         "       stepq calibrate --trace A.h5 [B.h5 ...] --out PLAN.h5 [--steps N] [--horizon H]\n"
         "                       [--normalize] [--threads N] [SETTINGS]\n\n"
         "Makes the plan the calibrated formats run with (method 4.1, 4.3): native runs of a\n"
         "source, one segment per entry of `seeds` (synthetic), trace file or text, each from\n"
         "a zero state for `steps` steps; per unit the mean log gate, lifetime weight (horizon),\n"
         "measured lifetime, omega and w per key row, distortions of every width from a\n"
         "reservoir of state snapshots; then pivots and bit allocations for every scheme at\n"
         "budgets 4 and 6, and the DAMP rows. The plan records the key of what it was made from\n"
         "(a propagation config's `calibrate` group reuses a plan whose key matches instead of\n"
         "calibrating again).\n\n"
         "With CONFIG.cfg: an experiment = \"calibrate\" file (see experiments/calibrate_*.cfg);\n"
         "the plan goes to its `output`.\n\n"
         "With --trace: one segment per trace file (`python -m stepq.hf capture` writes them, as\n"
         "does `stepq trace`), all of one model: the same kind, heads, labels, read-out scale and\n"
         "weights, each checked before any work. The plan goes to --out (written beside it and\n"
         "renamed into place; never over an input) and is the plan of a config with\n"
         "`traces = [...]` and the same settings, key included (method 6.11). --normalize divides\n"
         "q and k by their norms on reading instead of refusing a trace that is not normalised.\n"
         "The settings, a config's keys with '-' for '_' (its defaults, except --steps):");
    for (const stepq_calib_knob* k = stepq_calib_knobs; k->key; k++) {
        char name[64], def[48];
        knob_option(name, sizeof name, k->key);
        if (!strcmp(k->key, "steps")) snprintf(def, sizeof def, "every step of the shortest trace");
        else snprintf(def, sizeof def, "%.6g", k->def);
        printf("  %-18s %s (default %s)\n", name, k->help, def);
    }
    puts("\nexample:\n"
         "  python -m stepq.hf capture --model DIR --text a.txt b.txt --out traces/ --max-tokens 2048\n"
         "  stepq calibrate --trace traces/a.h5 traces/b.h5 --out plan.h5\n"
         "  stepq replay --trace traces/a.h5 --format stepquant6 --plan plan.h5 --out r.h5");
    return 0;
}

// `stepq calibrate --trace A.h5 [B.h5 ...] --out PLAN.h5 [settings]`
static int calibrate_traces(int argc, char** argv) {
    stepq_calib_settings set;
    stepq_calib_defaults(&set);
    set.steps = 0;  // every step of the shortest trace
    const char **traces = NULL, *out = NULL;
    int nt = 0, normalize = 0;
    char names[STEPQ_CALIB_NKNOBS][64];
    stepq_opt opts[STEPQ_CALIB_NKNOBS + 5];
    int n = 0;
    opts[n++] = (stepq_opt){.name = "--trace", .type = OPT_STRS, .dest = &traces, .n = &nt, .required = 1,
                            .meta = "trace files A.h5 B.h5 ..."};
    opts[n++] = (stepq_opt){.name = "--out", .type = OPT_STR, .dest = &out, .required = 1, .meta = "the plan file PLAN.h5"};
    for (const stepq_calib_knob* k = stepq_calib_knobs; k->key; k++) {
        knob_option(names[n - 2], sizeof names[n - 2], k->key);
        opts[n] = (stepq_opt){.name = names[n - 2], .type = k->integer ? OPT_INT : OPT_REAL,
                              .dest = (char*)&set + k->offset, .lo = k->lo, .hi = k->hi};
        n++;
    }
    opts[n++] = (stepq_opt){.name = "--normalize", .type = OPT_FLAG, .dest = &normalize};
    long long threads = -1;
    opts[n++] = (stepq_opt)THREADS_OPT(&threads);
    opts[n] = (stepq_opt){.name = NULL};
    if (stepq_parse_options(argc, argv, opts, NULL, 0, 0)) {
        free(traces);
        return 2;
    }
    stepq_set_threads(threads, 0);
    stepq_calib_names named = {.who = "calibrate"};  // the settings named as the options that set them
    for (int i = 0; i < STEPQ_CALIB_NKNOBS; i++) named.name[i] = names[i];
    stepq_calib_build b;
    int rc = stepq_calib_from_traces(&b, traces, nt, normalize, &set, out, &named, stepq_backend_default());
    if (rc == STEPQ_OK) {
        rc = stepq_prepare_output(out) || stepq_calibrate(NULL, &b.c);
        if (!rc) printf("wrote plan %s (%d heads, %d segments of %ld steps, %d pivot units)\n", out,
                        b.c.segments[0]->n_heads, b.c.n_segments, b.c.steps, b.c.pivots);
        stepq_calib_build_free(&b);
    }
    free(traces);
    return rc ? 1 : 0;
}

int stepq_cmd_calibrate(int argc, char** argv) {
    if (argc < 2 || stepq_wants_help(argc, argv)) {
        calibrate_help();
        return argc < 2 ? 2 : 0;
    }
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--trace")) return calibrate_traces(argc, argv);
    // an option of the trace form without --trace: say so, rather than "unknown option" followed
    // by the config form's options
    for (int i = 1; i < argc; i++) {
        int traces_only = !strcmp(argv[i], "--out") || !strcmp(argv[i], "--normalize");
        for (const stepq_calib_knob* k = stepq_calib_knobs; k->key && !traces_only; k++) {
            char name[64];
            knob_option(name, sizeof name, k->key);
            traces_only = !strcmp(argv[i], name);
        }
        if (traces_only) {
            stepq_error("calibrate: %s goes with --trace (stepq calibrate --trace A.h5 [B.h5 ...] --out PLAN.h5 "
                        "[settings]); a config's plan goes to its `output`, its settings are its keys (see stepq "
                        "calibrate --help)", argv[i]);
            return 2;
        }
    }
    return config_command(argc, argv, "calibrate");
}

// ---------------------------------------------------------------------------------------------
// replay

static int replay_help(void) {
    char planned[512];
    planned_names(planned, sizeof planned);
    printf("usage: stepq replay --trace IN.h5 --format NAME --out OUT.h5 [--prefill N]\n"
           "                    [--plan PLAN.h5 [--plan-any-model]] [--normalize] [--threads N]\n\n"
           "Runs a trace through the decode-step protocol of method 2 in format NAME, beside a\n"
           "float32 reference on the same inputs. With --prefill N the first N steps run at\n"
           "native precision and the boundary state is encoded once (default 0: the trace's\n"
           "S0 is encoded at step 0). Writes y [T,HV,V], y_ref, S_final [HV,K,V], S_ref_final,\n"
           "per-step err_readout and err_state [HV,D], accumulated_readout_rel and p1_residual.\n"
           "These formats need --plan, made for the trace's heads (its layer and head labels, or\n"
           "layer 0 and head = value head) by `stepq calibrate`: %s. A plan is bound to the model\n"
           "of the traces it was calibrated on (their weights_sha256): it is refused for another\n"
           "model's trace, and a plan naming no model (a synthetic preset's) for a trace that names\n"
           "one, unless --plan-any-model says that will do.\n"
           "q and k must be L2-normalised per head and step (within 1e-3), as fla feeds them;\n"
           "--normalize divides them by their norms instead of refusing the trace.\n", planned);
    return 0;
}

int stepq_cmd_replay(int argc, char** argv) {
    const char *in = NULL, *fmt_name = NULL, *out = NULL, *plan_path = NULL;
    long long prefill = 0, threads = -1;
    int normalize = 0, any_model = 0;
    if (stepq_wants_help(argc, argv)) return replay_help();
    stepq_opt opts[] = {
        {.name = "--trace", .type = OPT_STR, .dest = &in, .required = 1, .meta = "a trace file IN.h5"},
        {.name = "--format", .type = OPT_STR, .dest = &fmt_name, .required = 1, .meta = "a format name (see `stepq formats`)"},
        {.name = "--out", .type = OPT_STR, .dest = &out, .required = 1, .meta = "the output file OUT.h5"},
        {.name = "--prefill", .type = OPT_INT, .dest = &prefill, .hi = STEPS_MAX, .meta = "N"},
        {.name = "--plan", .type = OPT_STR, .dest = &plan_path, .meta = "a plan file PLAN.h5"},
        {.name = "--normalize", .type = OPT_FLAG, .dest = &normalize},
        {.name = "--plan-any-model", .type = OPT_FLAG, .dest = &any_model},
        THREADS_OPT(&threads),
        {.name = NULL}};
    if (stepq_parse_options(argc, argv, opts, NULL, 0, 0) || refuse_ranks("replay")) return 2;
    stepq_set_threads(threads, 0);
    const stepq_format* fmt = stepq_format_find(fmt_name);
    if (!fmt) {
        stepq_error("replay: unknown format '%s' (see `stepq formats`)", fmt_name);
        return 2;
    }
    if (stepq_format_needs_plan(fmt) && !plan_path) {
        stepq_error("replay: format %s needs a calibration plan: give --plan PLAN.h5 (made by "
                    "`stepq calibrate` for the trace's heads)", fmt->name);
        return 2;
    }
    stepq_source* src;  // streamed: its values are checked as they are read
    if (stepq_trace_open(&src, in, normalize)) return 1;
    if (prefill >= src->T) {
        stepq_error("replay: --prefill %lld must be below the %ld steps of %s", prefill, src->T, in);
        stepq_source_free(src);
        return 2;
    }
    stepq_plan plan, *pp;
    if (read_plan(&pp, &plan, plan_path)) {
        stepq_source_free(src);
        return 1;
    }
    char cmdline[4096];
    snprintf(cmdline, sizeof cmdline, "stepq replay --trace %s --format %s --out %s --prefill %lld%s",
             in, fmt_name, out, prefill, normalize ? " --normalize" : "");
    stepq_replay_cfg rc = {.src = src, .format = fmt, .prefill = prefill, .plan = pp, .plan_any_model = any_model,
                           .backend = stepq_backend_default(), .output = out,
                           .prov = {.experiment = "replay", .config_path = NULL, .config_text = cmdline, .seed = 0, .source = src->desc}};
    int r = stepq_prepare_output(out) || stepq_replay(&rc);
    stepq_source_free(src);
    if (pp) stepq_plan_free(pp);
    if (!r) printf("wrote %s\n", out);
    return r ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// roundtrip

static int roundtrip_help(void) {
    char planned[512];
    planned_names(planned, sizeof planned);
    printf("usage: stepq roundtrip --in STATES.h5 --format NAME --out OUT.h5 [--kind gdn|kda]\n"
           "                       [--plan PLAN.h5 [--head I]]\n\n"
           "Encodes each head of the dataset S (float, [K,V] or [H,K,V], K-first) of STATES.h5 in\n"
           "format NAME and decodes it back (method 6.2). Writes S_hat (the shape of S), packed\n"
           "(uint8: the bytes the format stores, head after head) and offsets [H+1] (where each\n"
           "head's bytes start), with the format, kind and bits_actual as attributes. --kind (default gdn; a plan's own with --plan)\n"
           "chooses the dual fit's code forms. Head h is encoded with the plan's head I + h\n"
           "(default I = 0). These formats need --plan: %s.\n", planned);
    return 0;
}

int stepq_cmd_roundtrip(int argc, char** argv) {
    const char *in = NULL, *fmt_name = NULL, *out = NULL, *plan_path = NULL, *kind_name = NULL;
    long long head = 0;
    if (stepq_wants_help(argc, argv)) return roundtrip_help();
    stepq_opt opts[] = {
        {.name = "--in", .type = OPT_STR, .dest = &in, .required = 1, .meta = "a state file STATES.h5"},
        {.name = "--format", .type = OPT_STR, .dest = &fmt_name, .required = 1, .meta = "a format name (see `stepq formats`)"},
        {.name = "--out", .type = OPT_STR, .dest = &out, .required = 1, .meta = "the output file OUT.h5"},
        {.name = "--kind", .type = OPT_STR, .dest = &kind_name, .meta = "gdn or kda"},
        {.name = "--plan", .type = OPT_STR, .dest = &plan_path, .meta = "a plan file PLAN.h5"},
        {.name = "--head", .type = OPT_INT, .dest = &head, .hi = 1 << 30, .meta = "I"},
        {.name = NULL}};
    if (stepq_parse_options(argc, argv, opts, NULL, 0, 0) || refuse_ranks("roundtrip")) return 2;
    const stepq_format* fmt = stepq_format_find(fmt_name);
    if (!fmt) {
        stepq_error("roundtrip: unknown format '%s' (see `stepq formats`)", fmt_name);
        return 2;
    }
    int kind = STEPQ_GDN;
    if (kind_name && (kind = stepq_kind_parse(kind_name, 0, "roundtrip", "--kind")) < 0) return 2;
    if (stepq_format_needs_plan(fmt) && !plan_path) {
        stepq_error("roundtrip: format %s needs a calibration plan: give --plan PLAN.h5", fmt->name);
        return 2;
    }
    stepq_plan plan, *pp;
    if (read_plan(&pp, &plan, plan_path)) return 1;
    if (pp && kind_name && pp->kind != kind) {
        stepq_error("roundtrip: --kind %s, but the plan %s is for %s heads", kind_name, plan_path,
                    stepq_kind_name(pp->kind));
        stepq_plan_free(pp);
        return 2;
    }
    if (pp) kind = pp->kind;
    char cmdline[4096];
    snprintf(cmdline, sizeof cmdline, "stepq roundtrip --in %s --format %s --out %s --kind %s%s%s --head %lld", in,
             fmt_name, out, stepq_kind_name(kind), plan_path ? " --plan " : "", plan_path ? plan_path : "", head);
    stepq_roundtrip_cfg rc = {.input = in, .format = fmt, .plan = pp, .plan_head = (int)head, .kind = kind, .output = out, .prov = {.experiment = "roundtrip", .config_path = NULL, .config_text = cmdline, .seed = 0, .source = in}};
    int r = stepq_prepare_output(out) || stepq_roundtrip(&rc);
    if (pp) stepq_plan_free(pp);
    if (!r) printf("wrote %s\n", out);
    return r ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// trace

// the provenance of a trace file (analysis/output.h's, as every result has it)
static int trace_provenance(hid_t f, const void* ctx) { return stepq_write_provenance(f, ctx); }

// "stepq trace ARGS...", the command line a trace file records
static void command_line(char* buf, size_t n, int argc, char** argv) {
    size_t o = (size_t)snprintf(buf, n, "stepq");
    for (int i = 0; i < argc && o < n; i++) o += (size_t)snprintf(buf + o, n - o, " %s", argv[i]);
}

// `trace --model DIR --text FILE`: the model's own stream
static int trace_model(const char* out, const char* dir, const char* text, long long offset, long long steps,
                       int synth_options, const char* cmdline) {
    if (!dir || !text || synth_options) {
        stepq_error("trace: --model DIR and --text FILE go together, without --preset, --layers or --heads");
        return 2;
    }
    stepq_lm m;
    uint8_t* bytes;
    long n;
    if (stepq_lm_load(&m, dir)) return 1;
    if (stepq_lm_read_text(&bytes, &n, text)) {
        stepq_lm_free(&m);
        return 1;
    }
    long T = steps ? (long)steps : n - (long)offset;
    int rc = STEPQ_OK;
    if (offset >= n) {
        stepq_error("trace: %s holds %ld bytes; --offset %lld is past its end", text, n, offset);
        rc = STEPQ_ERR;
    } else if (offset + T > n) {
        stepq_error("trace: %s holds %ld bytes; --offset %lld --steps %ld do not fit", text, n, offset, T);
        rc = STEPQ_ERR;
    }
    char note[1024];
    snprintf(note, sizeof note, "%s on %s bytes [%lld, %lld)", m.desc, text, offset, offset + T);
    if (!rc) {  // the forward stepped as it is written (a lockstep source), a chunk of tokens at a time
        stepq_source* src = stepq_lm_source(&m, bytes + offset, T, stepq_backend_default());
        const stepq_provenance prov = {.experiment = "trace", .config_path = NULL, .config_text = cmdline, .seed = 0, .source = note};
        rc = stepq_prepare_output(out) || stepq_trace_write_source(out, src, T, note, trace_provenance, &prov);
        if (!rc) printf("wrote %s: %s\n", out, note);
        stepq_source_free(src);
    }
    free(bytes);
    stepq_lm_free(&m);
    return rc ? 1 : 0;
}

int stepq_cmd_trace(int argc, char** argv) {
    const char *preset = NULL, *out = NULL, *model = NULL, *text = NULL;
    long long steps = 0, seed = 1, model_seed = 0, offset = 0;
    int *layers = NULL, *heads = NULL, nl = 0, nh = 0;
    if (stepq_wants_help(argc, argv)) {
        puts("usage: stepq trace --out OUT.h5 --steps T [--preset NAME] [--layers L] [--heads H]\n"
             "                   [--seed S] [--model-seed M]\n"
             "       stepq trace --out OUT.h5 --model DIR --text FILE [--offset N] [--steps T]\n\n"
             "Writes T steps of a synthetic source as a trace file (the layout `stepq replay`\n"
             "reads; docs/traces.md). --preset gdn-qwen-like (default) or kda-kimi-like; --layers and\n"
             "--heads take lists like 0,2,5-7 (default layer 0, every head); the selected\n"
             "(layer, head) pairs become the trace's heads, H = HV. --model-seed draws the model\n"
             "(default 0, the one every config uses unless it says otherwise), --seed the stream.\n"
             "With --model (a directory with config.json and model.safetensors, e.g. data/lm/gdn),\n"
             "the language model reads T bytes of FILE from byte N (default: to its end) and the\n"
             "trace holds what every layer's recurrence saw, one value head per (layer, head),\n"
             "labelled so (method 7).");
        return 0;
    }
    stepq_opt opts[] = {
        {.name = "--out", .type = OPT_STR, .dest = &out, .required = 1, .meta = "the output file OUT.h5"},
        {.name = "--steps", .type = OPT_INT, .dest = &steps, .lo = 1, .hi = STEPS_MAX, .meta = "T"},
        {.name = "--preset", .type = OPT_STR, .dest = &preset, .meta = "gdn-qwen-like or kda-kimi-like"},
        {.name = "--layers", .type = OPT_LIST, .dest = &layers, .n = &nl, .hi = 1 << 20, .meta = "L"},
        {.name = "--heads", .type = OPT_LIST, .dest = &heads, .n = &nh, .hi = 1 << 20, .meta = "H"},
        {.name = "--seed", .type = OPT_INT, .dest = &seed, .hi = SEED_MAX, .meta = "S"},
        {.name = "--model-seed", .type = OPT_INT, .dest = &model_seed, .hi = SEED_MAX, .meta = "M"},
        {.name = "--model", .type = OPT_STR, .dest = &model, .meta = "a model directory"},
        {.name = "--text", .type = OPT_STR, .dest = &text, .meta = "a text file"},
        {.name = "--offset", .type = OPT_INT, .dest = &offset, .hi = STEPS_MAX, .meta = "N"},
        {.name = NULL}};
    if (stepq_parse_options(argc, argv, opts, NULL, 0, 0) || refuse_ranks("trace")) return 2;
    char cmdline[4096];
    command_line(cmdline, sizeof cmdline, argc, argv);
    if (model || text) return trace_model(out, model, text, offset, steps, preset || nl || nh, cmdline);
    if (!steps) {
        stepq_error("trace: --steps T is needed for a synthetic source");
        return 2;
    }
    if (!preset) preset = "gdn-qwen-like";
    stepq_synth_params p;
    stepq_source* src = NULL;
    int zero = 0;
    int rc = stepq_synth_preset(&p, preset) ||
             stepq_synth_open(&src, &p, (uint64_t)model_seed, (uint64_t)seed,
                              nl ? layers : &zero, nl ? nl : 1, heads, nh);
    free(layers);
    free(heads);
    if (rc) return 2;
    const stepq_provenance prov = {.experiment = "trace", .config_path = NULL, .config_text = cmdline, .seed = (uint64_t)seed, .source = src->desc};
    rc = stepq_prepare_output(out) || stepq_trace_write_source(out, src, (long)steps, src->desc, trace_provenance, &prov);
    if (!rc) printf("wrote %s: %s, %lld steps\n", out, src->desc, steps);
    stepq_source_free(src);
    return rc ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// formats

int stepq_cmd_formats(int argc, char** argv) {
    const char* plan_path = NULL;
    if (stepq_wants_help(argc, argv)) {
        char planned[512];
        planned_names(planned, sizeof planned);
        printf("usage: stepq formats [--plan PLAN.h5]\n\n"
               "Lists every state format (method 6.2): name, nominal bits, the actual bits per\n"
               "element of its packed bytes, and a summary. These formats need a plan to run: %s.\n"
               "The widths of the table and DAMP formats come from it: with --plan their actual\n"
               "bits are averaged over the plan's heads, without it they are shown as '-'. Heads\n"
               "are 128 x 128 without a plan.\n", planned);
        return 0;
    }
    stepq_opt opts[] = {{.name = "--plan", .type = OPT_STR, .dest = &plan_path, .meta = "a plan file PLAN.h5"}, {.name = NULL}};
    if (stepq_parse_options(argc, argv, opts, NULL, 0, 0)) return 2;
    stepq_plan plan, *p;
    if (read_plan(&p, &plan, plan_path)) return 1;
    int K = p ? p->K : 128, V = p ? p->V : 128;
    printf("%-16s %8s %8s  %s (%d x %d heads%s)\n", "name", "nominal", "actual", "summary", K, V,
           p ? ", averaged over the plan" : "");
    for (int i = 0; i < stepq_n_formats; i++) {
        const stepq_format* f = &stepq_formats[i];
        double b = stepq_format_plan_bits(NULL, f, p, K, V);
        char actual[16] = "-";
        if (!isnan(b)) snprintf(actual, sizeof actual, "%.3f", b);
        printf("%-16s %8.3f %8s  %s\n", f->name, f->nominal_bits, actual, f->summary);
    }
    if (p) stepq_plan_free(p);
    return 0;
}

// ---------------------------------------------------------------------------------------------
// memory

int stepq_cmd_memory(int argc, char** argv) {
    if (stepq_wants_help(argc, argv)) {
        puts("usage: stepq memory [--preset NAME] [--plan PLAN.h5] [--requests N] [--conv-mib X]\n"
             "                    [--weights-gb W]\n\n"
             "Bit accounting and the SGLang state-pool model (method 4.4, 4.5) for a paper-scale\n"
             "preset: STEPQuant's bits by the paper's formula, by the reference code's layout and,\n"
             "with --plan, by the bytes stepq packs; memory per request and of the pool at N\n"
             "requests (5 slots each + 1 sentinel, each slot with a BF16 convolution state of X\n"
             "MiB); the concurrency at which the FP32 pool passes W GB of weights; and every\n"
             "format's nominal and actual bits. Without --preset both presets are reported, with\n"
             "the paper's settings: gdn-qwen-like 64 requests, 2.8125 MiB conv state, 53.8 GB of\n"
             "weights; kda-kimi-like 512 requests, no conv state.");
        return 0;
    }
    const char *preset = NULL, *plan_path = NULL;
    double conv = -1, weights = -1;
    long long requests = -1;
    stepq_opt opts[] = {
        {.name = "--preset", .type = OPT_STR, .dest = &preset, .meta = "gdn-qwen-like or kda-kimi-like"},
        {.name = "--plan", .type = OPT_STR, .dest = &plan_path, .meta = "a plan file PLAN.h5"},
        {.name = "--requests", .type = OPT_INT, .dest = &requests, .lo = 1, .hi = 1 << 24, .meta = "N"},
        {.name = "--conv-mib", .type = OPT_REAL, .dest = &conv, .hi = 1e9, .meta = "X"},
        {.name = "--weights-gb", .type = OPT_REAL, .dest = &weights, .hi = 1e9, .meta = "W"},
        {.name = NULL}};
    if (stepq_parse_options(argc, argv, opts, NULL, 0, 0)) return 2;
    stepq_plan plan, *pp;
    if (read_plan(&pp, &plan, plan_path)) return 1;
    int rc = 0, any = 0;
    for (const char* const* name = stepq_synth_preset_names; *name; name++) {
        if (preset && strcmp(preset, *name)) continue;
        stepq_memory_model m;
        stepq_assert(stepq_memory_paper_model(&m, *name) == STEPQ_OK);
        if (pp && !preset && m.kind != pp->kind) continue;  // a plan alone: the preset of its kind
        if (any) putchar('\n');
        any = 1;
        if (requests > 0) m.requests = (int)requests;
        if (conv >= 0) m.conv_mib = conv;
        if (weights >= 0) m.weights_gb = weights;
        rc |= stepq_memory_report(&m, pp) != STEPQ_OK;
    }
    if (!any && !preset) {
        stepq_error("memory: no preset is a %s model like the plan %s", stepq_kind_name(pp->kind), plan_path);
        rc = 2;
    } else if (!any) {
        stepq_error("memory: unknown preset '%s' (gdn-qwen-like, kda-kimi-like)", preset);
        rc = 2;
    }
    if (pp) stepq_plan_free(pp);
    return rc;
}

// ---------------------------------------------------------------------------------------------
// bench

int stepq_cmd_bench(int argc, char** argv) {
    const char* out = "results/bench/bench.h5";
    int quick = 0;
    long long threads = -1;
    if (stepq_wants_help(argc, argv)) {
        puts("usage: stepq bench [--quick] [--out FILE.h5] [--threads N]\n\n"
             "Times, side by side in one run (thread CPU time and wall time, medians), method 6.5:\n"
             "the machine's FMA peak and copy bandwidth; per format the full decode step of one\n"
             "128 x 128 head with the active kernels and with the reference, beside the plain\n"
             "float32 loop and the float32 step, on one thread and on all; a serving pool of\n"
             "100 MB and 400 MB of states stepped once per token (bytes moved, GB/s); a\n"
             "propagation at paper scale per head, projected to 2304 heads, on all threads and\n"
             "on one (the threads' speed-up); a whole `stepq replay` per head-step in five\n"
             "formats on one thread (process CPU time: a synthetic trace written to TMPDIR, read,\n"
             "stepped beside the reference, measured and written out; removed after); and the\n"
             "synthetic generator against the update it feeds. A table on stdout and FILE.h5\n"
             "(default results/bench/bench.h5).\n"
             "--quick: small sizes. The kernels are the widest this CPU runs, or\n"
             "STEPQ_KERNELS=reference|x86-64-v2|avx2|avx512.");
        return 0;
    }
    stepq_opt opts[] = {{.name = "--quick", .type = OPT_FLAG, .dest = &quick},
                        {.name = "--out", .type = OPT_STR, .dest = &out, .meta = "an output file FILE.h5"},
                        THREADS_OPT(&threads),
                        {.name = NULL}};
    if (stepq_parse_options(argc, argv, opts, NULL, 0, 0) || refuse_ranks("bench")) return 2;
    stepq_set_threads(threads, 0);
    char cmdline[4096];
    snprintf(cmdline, sizeof cmdline, "stepq bench%s --out %s", quick ? " --quick" : "", out);
    const stepq_backend* cpu = stepq_backend_default();  // the kernels bench times (STEPQ_KERNELS)
    stepq_bench_cfg bc = {.quick = quick, .output = out,
                          .prov = {.experiment = "bench", .config_path = NULL, .config_text = cmdline, .seed = 0, .source = "gdn-qwen-like head 5, stream seed 1"}, .backend = cpu};
    if (stepq_prepare_output(out) || stepq_bench(&bc)) return 1;
    printf("\ngenerator: the synthetic source against the float32 update it feeds, one thread\n");
    int hs[4] = {0, 1, 2, 3}, layer = 0;
    for (const char* const* name = stepq_synth_preset_names; *name; name++) {
        stepq_synth_params p;
        stepq_source* src;
        if (stepq_synth_preset(&p, *name) || stepq_synth_open(&src, &p, 0, 1, &layer, 1, hs, 4)) return 1;
        stepq_bench_stream(src, quick ? 256 : 2048, 3, cpu);
        stepq_source_free(src);
    }
    printf("wrote %s\n", out);
    return 0;
}

// ---------------------------------------------------------------------------------------------
// bench-gpu

int stepq_cmd_bench_gpu(int argc, char** argv) {
    const char* out = "results/bench/bench_gpu.h5";
    int quick = 0;
    if (stepq_wants_help(argc, argv)) {
        puts("usage: stepq bench-gpu [--quick] [--out FILE.h5]\n\n"
             "The paper's serving step on the GPU (method 6.5): for B = 32 .. 512 requests of 48\n"
             "gdn-qwen-like heads of 128 x 128 whose packed states live in device memory, the time\n"
             "per step of the FP32 baseline and of int8, int6, int4, stepquant6 and nvfp4 in the\n"
             "block programs (fused and split) and of fp32, int8, int6 and int4 in the lane\n"
             "kernels, the bytes a head-step moves, GB/s against the device copy bandwidth\n"
             "measured in the same run, the speed ratio to FP32 in the same kernels, registers,\n"
             "shared memory and blocks per multiprocessor, and whether the pool fits in L2; every\n"
             "kernel is first checked against the CPU's step. A table on stdout and FILE.h5\n"
             "(default results/bench/bench_gpu.h5). --quick: B = 32, 128, 256, 512, fewer\n"
             "repetitions. Needs a CUDA device of compute capability 8.0 or newer and a build\n"
             "with nvcc.");
        return 0;
    }
    stepq_opt opts[] = {{.name = "--quick", .type = OPT_FLAG, .dest = &quick},
                        {.name = "--out", .type = OPT_STR, .dest = &out, .meta = "an output file FILE.h5"},
                        {.name = NULL}};
    if (stepq_parse_options(argc, argv, opts, NULL, 0, 0) || refuse_ranks("bench-gpu")) return 2;
#ifdef STEPQ_WITH_CUDA
    if (stepq_prepare_output(out) || stepq_bench_gpu(out, quick, stepq_backend_default())) return 1;
    printf("wrote %s\n", out);
    return 0;
#else
    stepq_error("bench-gpu: this stepq was built without CUDA (no nvcc when it was configured)");
    return 1;
#endif
}

// ---------------------------------------------------------------------------------------------
// compare-plans

int stepq_cmd_compare_plans(int argc, char** argv) {
    if (argc < 3 || stepq_wants_help(argc, argv)) {
        puts("usage: stepq compare-plans A.h5 B.h5\n\n"
             "How much two plans of the same model agree (method 4.1; the paper finds 0.98-0.99\n"
             "between corpora): Spearman of their units' lifetime weights L, measured lifetimes\n"
             "M and read-out lifetimes R, and of their key rows' omega, heads matched by (layer,\n"
             "head); and the share of units given the same width in each allocation table.");
        return argc < 3 ? 2 : 0;
    }
    if (argc != 3) {
        stepq_error("compare-plans takes two plan files");
        return 2;
    }
    stepq_plan a, b;
    if (stepq_plan_read(&a, argv[1])) return 1;
    if (stepq_plan_read(&b, argv[2])) {
        stepq_plan_free(&a);
        return 1;
    }
    double sp[STEPQ_N_RANKINGS];
    int rc = stepq_plan_agreement(sp, &a, &b);
    if (!rc) {
        printf("%s\n  vs %s (%d heads, %d units)\n", argv[1], argv[2], a.H, a.H * a.G);
        for (int k = 0; k < STEPQ_N_RANKINGS; k++) printf("  Spearman %-9s %.4f\n", stepq_ranking_names[k], sp[k]);
        printf("  units given the same width:");
        for (int s = 0; s < STEPQ_N_ALLOC; s++)
            for (int q = 0; q < STEPQ_N_BUDGETS; q++) {
                long same = 0, U = (long)a.H * a.G;
                for (int h = 0; h < a.H; h++) {
                    int hb = stepq_plan_find(&b, a.layer[h], a.head[h]);
                    for (int u = 0; u < a.G; u++)
                        same += a.bits[s][q][(size_t)h * a.G + u] == b.bits[s][q][(size_t)hb * b.G + u];
                }
                printf(" %s@%d %.3f", stepq_alloc_names[s], stepq_plan_budgets[q], (double)same / U);
            }
        putchar('\n');
    }
    stepq_plan_free(&a);
    stepq_plan_free(&b);
    return rc ? 1 : 0;
}

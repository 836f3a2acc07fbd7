// main.c: the stepq command line. It dispatches to a subcommand (commands.c, experiments.c);
// only the front end parses arguments (options.c) and configs (config.c, builders.c), then
// hands plain structs to the drivers of analysis/.
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "../base/h5util.h"
#include "../base/ranks.h"
#include "../sim/backend.h"
#ifdef STEPQ_WITH_CUDA
#include "../sim/cuda/engine.h"
#endif
#include "builders.h"
#include "commands.h"
#include "mpi.h"

static const struct {
    const char* name;
    int (*run)(int argc, char** argv);
    const char* args;
    const char* summary;
} commands[] = {
    {.name = "run", .run = stepq_cmd_run, .args = "CONFIG.cfg",
     .summary = "run an experiment of experiments/ (HDF5 + PNG out)"},
    {.name = "replay", .run = stepq_cmd_replay, .args = "...",
     .summary = "run a trace file through the decode-step protocol in one format"},
    {.name = "roundtrip", .run = stepq_cmd_roundtrip, .args = "...",
     .summary = "encode states in a format and decode them back (bytes and S_hat out)"},
    {.name = "trace", .run = stepq_cmd_trace, .args = "...",
     .summary = "write a synthetic stream as a trace file"},
    {.name = "calibrate", .run = stepq_cmd_calibrate, .args = "...",
     .summary = "make a plan from a config or from traces (bit allocation, pivots, row influence)"},
    {.name = "compare-plans", .run = stepq_cmd_compare_plans, .args = "A.h5 B.h5",
     .summary = "Spearman of two plans' lifetime and omega rankings"},
    {.name = "formats", .run = stepq_cmd_formats, .args = "",
     .summary = "list the state formats with nominal and actual bits"},
    {.name = "memory", .run = stepq_cmd_memory, .args = "",
     .summary = "bit accounting and the serving memory model (method 4.4, 4.5)"},
    {.name = "bench", .run = stepq_cmd_bench, .args = "",
     .summary = "time the decode step and codecs against this machine's peaks (method 6.5)"},
    {.name = "bench-gpu", .run = stepq_cmd_bench_gpu, .args = "",
     .summary = "time the packed serving step on the GPU against FP32 (method 6.5)"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE* fp) {
    fputs("usage: stepq COMMAND [ARGS]   (stepq COMMAND --help for each)\n\n", fp);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(fp, "  %-13s %-11s %s\n", commands[i].name, commands[i].args, commands[i].summary);
    fputs("\nFrom the repository root, ./stepq installs what is missing, builds, then runs this.\n"
          "The method the commands cite (\"method 4.2\") is docs/method.md.\n", fp);
}

static int dispatch(int argc, char** argv) {
#ifdef STEPQ_WITH_CUDA
    stepq_backend_set_cuda(&stepq_backend_cuda);
#endif
    if (stepq_backend_init() != 0 || stepq_check_env(1) != STEPQ_OK) return 2;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char* cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (!strcmp(cmd, commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "stepq: error: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}

// under mpirun every rank runs the same command (base/ranks.h: the drivers split their units)
int main(int argc, char** argv) {
    h5u_quiet();
    // a file-size limit (ulimit -f) then fails a write with EFBIG, which every writer reports with
    // its file, instead of killing stepq at the first byte of a journal or an output
    signal(SIGXFSZ, SIG_IGN);
    if (stepq_mpi_init(&argc, &argv) != STEPQ_OK) return 2;
    stepq_ranks_set_command(argc, argv);
    return stepq_ranks_finish(dispatch(argc, argv));
}

// commands.h: the subcommands of `stepq`. Each takes argv with argv[0] = the command's name,
// answers --help, parses its options strictly (options.h) and returns the process exit status:
// 0 done, 1 failed (a message was printed), 2 bad usage.
#ifndef STEPQ_COMMANDS_H
#define STEPQ_COMMANDS_H

#include "config.h"

int stepq_cmd_run(int argc, char** argv);
int stepq_cmd_calibrate(int argc, char** argv);
int stepq_cmd_replay(int argc, char** argv);
int stepq_cmd_roundtrip(int argc, char** argv);
int stepq_cmd_trace(int argc, char** argv);
int stepq_cmd_formats(int argc, char** argv);
int stepq_cmd_memory(int argc, char** argv);
int stepq_cmd_bench(int argc, char** argv);
int stepq_cmd_bench_gpu(int argc, char** argv);
int stepq_cmd_compare_plans(int argc, char** argv);

// experiments.c: runs the config at path; only: NULL (any experiment) or the one accepted; o:
// what the command line adds (--quick, --resume, --threads, --backend, --plan-any-model).
// Returns the exit status.
int stepq_run_config(const char* path, const char* only, const stepq_run_opts* o);

#endif

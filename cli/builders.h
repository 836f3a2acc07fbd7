// builders.h: config groups -> the plain structs the drivers take (sources, format lists,
// calibration settings). Every error names the config file and line.
#ifndef STEPQ_BUILDERS_H
#define STEPQ_BUILDERS_H

#include <stdint.h>

#include "../analysis/calibrate.h"
#include "../quant/format.h"
#include "../sim/env.h"
#include "../sim/headloop.h"
#include "../sim/stream.h"
#include "config.h"

// The config's `source` with stream seed `seed`. A synthetic source's model is the config's
// source.model_seed (default 0) unless model >= 0 overrides it; extra (may be NULL): a group of
// generator knobs applied after source.knobs (a regime of a sweep). desc (may be NULL):
// receives a description of everything that determines the source except the stream seed
// (preset, every knob, model seed, heads; or the trace file and its checksum), for calibration
// keys. be: the run's backend; a model source's forward runs on stepq_cpu_backend(be).
int stepq_source_from_cfg(stepq_source** out, const stepq_cfgfile* cf, uint64_t seed,
                          long long model, const config_setting_t* extra, char* desc, size_t desc_n,
                          const stepq_backend* be);

// The CPU backend of a run on backend `run`: run itself where it steps heads one at a time, else
// (the CUDA engine, whole propagation runs only) the default CPU backend. A calibration and a
// language model's forward run on it.
const stepq_backend* stepq_cpu_backend(const stepq_backend* run);

// The config's `formats`: every name found in the table, none twice; *out malloc'd.
int stepq_formats_from_cfg(const stepq_format*** out, int* n, const stepq_cfgfile* cf);
// STEPQ_ERR (naming the file and the key that gives one) if a format needs a plan and the
// config names none
int stepq_formats_check_plan(const stepq_cfgfile* cf, const stepq_format* const* fmts, int n,
                             const char* plan_path);

// A calibration as a config describes it (method 4.1, 4.3): the keys of a `calibrate` group g,
// or of the root when g is NULL. Builds the segment sources (one per seed of the synthetic
// source, or per trace file) and the settings; key <- the calibration key (hex) of everything
// the plan depends on: the stepq revision, the source, the segments, every setting
// (analysis/calibrate.h: the settings and the key are built there for every front end). be: the
// run's backend; the calibration runs on it where it steps heads one at a time, else (the CUDA
// engine) on the default CPU backend.
int stepq_calib_from_cfg(stepq_calib_build* b, const stepq_cfgfile* cf, const config_setting_t* g,
                         const char* output, const config_setting_t* extra, const stepq_backend* be);

// The keys a calibrate group (or a calibrate config's root, with the root's own keys) takes.
extern const char* const stepq_keys_calibrate[];

// OpenMP threads: the command line's --threads where given (option >= 0), else a config's
// `threads` (0 for both: OpenMP's default)
void stepq_set_threads(long long option, long long config_threads);
// The head loop's backend (sim/headloop.h): --backend (cf->opts), else the config's `backend`
// key (where it takes one, else "cpu"); NULL with the key's line for an unknown name or a
// backend this build or machine lacks.
const stepq_backend* stepq_backend_from_cfg(const stepq_cfgfile* cf, int has_key);
// A path of the repository's own data (data/lm/...) as a config names it: as given when it
// exists from the working directory, else under the source tree stepq was built from (so a
// config runs from any directory); returns buf.
const char* stepq_data_path(char* buf, size_t n, const char* path);

// Just before a run's work, once its inputs are open: path checked as an output
// (stepq_output_check: not empty, a directory, a device or FIFO, or an input read so far), then
// mkdir -p of its directory part
int stepq_prepare_output(const char* path);

#endif

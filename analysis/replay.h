// replay.h: one source (a trace) through the decode-step protocol (method 2) in one format,
// beside the float32 reference on the same inputs, keeping every read-out.
//
// Output (HDF5; root attributes: provenance, format, kind, scale, prefill, bits_actual):
//   y, y_ref [T,HV,V]            read-outs of the protocol and of the reference
//   S_final, S_ref_final [HV,K,V] final states, K-first
//   err_readout, err_state [HV,D] per decode step
//   accumulated_readout_rel, p1_residual [HV]
#ifndef STEPQ_REPLAY_H
#define STEPQ_REPLAY_H

#include "../quant/format.h"
#include "../sim/backend.h"
#include "../sim/stream.h"
#include "output.h"

typedef struct {
    const stepq_source* src;
    const stepq_format* format;
    long prefill;             // native steps before the boundary state is encoded
    const stepq_plan* plan;   // for a calibrated format, or NULL
    int plan_any_model;       // stepq_run_cfg's
    const stepq_backend* backend;  // who steps the heads (sim/backend.h), never NULL
    const char* output;       // .h5
    stepq_provenance prov;
} stepq_replay_cfg;

int stepq_replay(const stepq_replay_cfg* cfg);

#endif

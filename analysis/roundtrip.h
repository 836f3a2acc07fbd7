// roundtrip.h: states through one format's codec and back (method 6.2), as a file: the bytes a
// format stores for each head of a state and what decoding them gives, so that any other binding
// of the codecs (libstepq's Python package) can be compared with this one byte for byte.
//
// Input (HDF5): S, float, [K,V] or [H,K,V], K-first.
// Output (HDF5; root attributes: provenance, format, kind, K, V, plan_head, bits_actual):
//   S_hat   the decoded states, the shape of S
//   packed  uint8, the packed bytes of every head, head after head (head h encoded with the
//           plan's head plan_head + h; a calibrated format's heads differ in bytes)
//   offsets int64 [H+1], where head h's bytes start in packed
#ifndef STEPQ_ROUNDTRIP_H
#define STEPQ_ROUNDTRIP_H

#include "../quant/format.h"
#include "output.h"

typedef struct {
    const char* input;        // .h5 with S
    const stepq_format* format;
    const stepq_plan* plan;   // for a calibrated format, or NULL
    int plan_head;            // the plan's head of S's first head
    int kind;                 // stepq_kind (a plan's own where given)
    const char* output;       // .h5
    stepq_provenance prov;
} stepq_roundtrip_cfg;

int stepq_roundtrip(const stepq_roundtrip_cfg* cfg);

#endif

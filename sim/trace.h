// trace.h: HDF5 trace files, the stream of a real model's layer captured step by step.
//
// Layout (method 6.1; written by `stepq trace`, readable from h5py):
//   q, k  float32 [T, H, K]     as fed to the recurrence (already L2-normalised)
//   v     float32 [T, HV, V]
//   g     float32 [T, HV] (GDN) or [T, HV, K] (KDA)   log gates, <= 0
//   beta  float32 [T, HV]
//   S0    float32 [HV, K, V]    optional initial state (K-first), zeros if absent
//   layer, head  int32 [HV]     optional: the model's layer and head of each value head (a
//                               model's trace: a plan calibrated on it names them); absent:
//                               layer 0, head = value head
//   attributes: kind = "gdn" | "kda"; scale (optional, default 1/sqrt(K))
// HV is a multiple of H; value head j reads q/k head j / (HV/H) (grouped value heads).
#ifndef STEPQ_TRACE_H
#define STEPQ_TRACE_H

#include "stream.h"

typedef struct {
    int kind;            // STEPQ_GDN or STEPQ_KDA
    long T;
    int H, HV, K, V;
    double scale;
    float *q, *k;        // (T, H, K)
    float* v;            // (T, HV, V)
    float* g;            // (T, HV) or (T, HV, K)
    float* beta;         // (T, HV)
    float* S0;           // (HV, K, V) or NULL
    int *layer, *head;   // (HV) labels, or NULL
} stepq_trace;

// Reads and validates a trace: every problem (missing dataset, mismatched shapes, NaN or Inf,
// a positive log gate, beta outside [0,1], a scale that is not finite and positive, a q or k
// whose L2 norm differs from 1 by more than STEPQ_TRACE_NORM_TOL) is reported naming the file,
// dataset and index (step and head). normalize: divide q and k by their norms instead of
// refusing them (the user asked for it: source.normalize, replay --normalize).
#define STEPQ_TRACE_NORM_TOL 1e-3
int stepq_trace_read(stepq_trace* tr, const char* path, int normalize);
// Writes atomically (a failed write leaves nothing at path). note: free text, may be NULL.
int stepq_trace_write(const char* path, const stepq_trace* tr, const char* note);
void stepq_trace_free(stepq_trace* tr);

// A source over the trace's HV value heads (layer label 0, head label = value head). The
// source owns the trace from here on.
stepq_source* stepq_trace_source(stepq_trace* tr, const char* path);

// Captures steps [0, T) of every head of a source into a trace (H = HV = src->n_heads).
void stepq_trace_capture(stepq_trace* tr, const stepq_source* src, long T);

#endif

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
//   attributes: kind = "gdn" | "kda"; scale (optional, default 1/sqrt(K)); weights_sha256
//               (optional: 64 hex digits naming the model's weights, as stepq.hf capture writes);
//               qk_norm_eps (optional, in [0, 1]: q and k were normalised as x / sqrt(|x|^2 + eps),
//               fla's way, so a row's norm lies in [0, 1] and only its excess over 1 is refused;
//               absent or 0: every norm is 1 within STEPQ_TRACE_NORM_TOL)
// HV is a multiple of H; value head j reads q/k head j / (HV/H) (grouped value heads).
#ifndef STEPQ_TRACE_H
#define STEPQ_TRACE_H

#include <math.h>
#include <hdf5.h>

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
    char model_sha256[65];  // attribute weights_sha256: the model's weights (stepq.hf capture), or ""
    double qk_norm_eps;     // attribute qk_norm_eps, or 0
} stepq_trace;

// Reads and validates a trace: every problem (missing dataset, mismatched shapes, NaN or Inf,
// a positive log gate, beta outside [0,1], a scale that is not finite and positive, a q or k
// whose L2 norm differs from 1 by more than STEPQ_TRACE_NORM_TOL, or exceeds 1 by more than it
// where the trace records qk_norm_eps) is reported naming the file,
// dataset and index (step and head). normalize: divide q and k by their norms instead of
// refusing them (the user asked for it: source.normalize, replay --normalize).
#define STEPQ_TRACE_NORM_TOL 1e-3
// the rule on the L2 norm n of one q or k row: within STEPQ_TRACE_NORM_TOL of 1, or (eps > 0:
// normalised as x / sqrt(|x|^2 + eps), which gives norms below 1 where x is small) at most
// 1 + STEPQ_TRACE_NORM_TOL. The trace reader and libstepq's session apply it.
static inline int stepq_qk_norm_ok(double n, double eps) {
    return eps > 0 ? n <= 1.0 + STEPQ_TRACE_NORM_TOL : fabs(n - 1.0) <= STEPQ_TRACE_NORM_TOL;
}

// A step's inputs (and a trace's read-outs), in the order of a trace's datasets
enum { STEPQ_IN_Q, STEPQ_IN_K, STEPQ_IN_V, STEPQ_IN_G, STEPQ_IN_BETA, STEPQ_IN_Y, STEPQ_N_IN };
extern const char* const stepq_input_name[STEPQ_N_IN];  // "q", "k", "v", "g", "beta", "y"
// The reader's rules on the values of input `what` (method 6.1), one definition for every
// checker of inputs (the trace reader's datasets, the trace writer, libstepq's session): each
// value finite and in [*lo, *hi] (g <= 0, beta in [0, 1]); q and k also of an L2 norm per head
// and step that stepq_qk_norm_ok keeps
void stepq_input_range(int what, float* lo, float* hi);
// One head's vector x (n) of input `what` at one step under those rules (eps: the trace's
// qk_norm_eps). STEPQ_OK, or STEPQ_ERR with why <- what is wrong, for a caller to prefix with
// where ("v[5] is inf (not finite)", "q has L2 norm 3; ..."), and *nonfinite <- 1 where a value
// is NaN or infinite. scalar: x is one value named without an index ("beta is 1.5 (...)").
int stepq_input_check(char* why, size_t n_why, int what, const float* x, int n, int scalar, double eps,
                      int* nonfinite);
int stepq_trace_read(stepq_trace* tr, const char* path, int normalize);
// the checksum of what identifies a trace: kind, H, HV, K, V, scale, qk_norm_eps, weights_sha256
// and the layer/head labels, as one line hashed with XXH3 (16 hex digits); every writer stores it
// as the root attribute identity_xxh3 and the readers check it (a trace naming its model must
// carry it), so that a plan is bound to the model its traces came from
void stepq_trace_identity(char out[17], const stepq_trace* t);
// writes weights_sha256 (where t names a model) and identity_xxh3 into an open trace file
int stepq_trace_write_identity(hid_t f, const stepq_trace* t);

// The first value head (of HV labels) whose (layer, head) an earlier head *first already has, or
// -1: the readers refuse such a trace, and sq_trace_open refuses to write one.
int stepq_trace_label_twice(const int* layer, const int* head, int HV, int* first);

// A trace written as it comes (sim/traceout.c; libstepq's sq_trace_*): id gives kind, H, HV, K,
// V, scale, qk_norm_eps, model_sha256 and the labels (copied; the arrays are unused); with_y adds
// a dataset y [T,HV,V] (the model's own read-outs). Blocks of n steps are appended in the
// reader's layout ([n,H,K] q and k, [n,HV,V] v and y, [n,HV] or [n,HV,K] g, [n,HV] beta), each
// value held to the reader's rules first (a refused block writes nothing); the file is written
// beside path and renamed into place by close(w, 1), with 'steps' and the identity checksum;
// close(w, 0), or a failure, leaves nothing. NULL or STEPQ_ERR with a message naming the path. A
// failed write abandons the file at once; every later call is refused with its reason.
#define STEPQ_TRACE_OUT_CHUNK 64  // steps of one head per HDF5 chunk (and per write)
typedef struct stepq_trace_out stepq_trace_out;
stepq_trace_out* stepq_trace_out_open(const char* path, const stepq_trace* id, int with_y);
// a root attribute: a string (str) or an integer (str NULL); the trace's own names are refused
int stepq_trace_out_attr(stepq_trace_out* w, const char* name, const char* str, long long num);
int stepq_trace_out_append(stepq_trace_out* w, long n, const float* q, const float* k, const float* v,
                           const float* g, const float* beta, const float* y);
long stepq_trace_out_steps(const stepq_trace_out* w);
// why the last append failed: a NaN or Inf, a value out of range, or the write
enum { STEPQ_TRACE_OUT_NONFINITE = 1, STEPQ_TRACE_OUT_RANGE = 2, STEPQ_TRACE_OUT_WRITE = 3 };
int stepq_trace_out_why(const stepq_trace_out* w);
int stepq_trace_out_close(stepq_trace_out* w, int commit);
// A source that streams the trace at path (method 6.1): its shapes, kind, scale, S0 and labels
// are read and checked here (the messages of stepq_trace_read); each head's cursor reads q, k,
// v, g and beta in chunks of steps (hyperslabs) and checks every chunk as it reads it, so that
// next() fails naming the dataset and index of the first bad value (STEPQ_ERR), and memory holds
// a chunk per cursor whatever T. The chunk is stepq_trace_chunk_steps() steps.
int stepq_trace_open(stepq_source** out, const char* path, int normalize);
// steps per chunk: STEPQ_TRACE_CHUNK from the environment (1 to STEPQ_TRACE_CHUNK_MAX), else the
// default (stepq_check_env refuses another value: sim/env.h)
#define STEPQ_TRACE_CHUNK_DEFAULT 1024
#define STEPQ_TRACE_CHUNK_MAX (1L << 24)
long stepq_trace_chunk_steps(void);
// chunks read by the streamed sources of this process so far (tests)
long stepq_trace_chunks_read(void);

// Writes atomically (a failed write leaves nothing at path). note: free text, may be NULL.
int stepq_trace_write(const char* path, const stepq_trace* tr, const char* note);
void stepq_trace_free(stepq_trace* tr);

// A source over the trace's HV value heads (layer label 0, head label = value head). The
// source owns the trace from here on.
stepq_source* stepq_trace_source(stepq_trace* tr, const char* path);

// Writes steps [0, T) of every head of src as a trace at path (H = HV = src->n_heads, the
// source's labels and S0), a chunk of steps per head at a time: memory holds a chunk per thread
// (a lockstep source, the language model: a chunk of every head), whatever T. attrs (or NULL)
// is called with the open file before it is committed, to add attributes (the command line's
// provenance: revision, compiler, date, inputs). Atomic like stepq_trace_write; STEPQ_ERR with a
// message.
int stepq_trace_write_source(const char* path, const stepq_source* src, long T, const char* note,
                             int (*attrs)(hid_t f, const void* ctx), const void* ctx);

// Captures steps [0, T) of every head of a source into a trace (H = HV = src->n_heads).
void stepq_trace_capture(stepq_trace* tr, const stepq_source* src, long T);

#endif

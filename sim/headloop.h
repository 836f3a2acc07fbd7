// headloop.h: the head loop (method 6.10), the one place where a head's inputs are read, its
// native prefill is run, its boundary state is encoded and its reference and quantized states
// are stepped through the decode-step protocol of method 2. Every driver runs on it.
//
// Three parts, each a value:
//   - a backend (sim/backend.h): how the quantized states are stepped ({read, write, ...} with
//     NULL for what a backend does not do): the reference protocol, the fused CPU kernels of an
//     instruction set, the CUDA engine (whole runs only); each slot picks its step functions
//     from it once, when a head begins;
//   - slots: the quantized states a head carries, each a format and a protocol variant (the
//     normal protocol, or "cut": the delta write read on the reference state, method 3);
//   - observers: what a driver measures, called at the start of a head, after every step (the
//     view below), at the boundary and at the end of the head. The observers declare what they
//     read (STEPQ_NEED_*); a backend that cannot provide it is refused by name before any work.
//
// One head's engine (stepq_head) is stepped either by stepq_headloop_run, which reads every head
// of a source in parallel (OpenMP; each thread its own engine and observer scratch, so results
// do not depend on the thread count), or by a caller step by step (sim/session.h; the language
// model's heads, sim/lm.c, without the reference).
//
// Legend: F slots, K = d_k, V = d_v, G gates per step (1 GDN, K KDA).
#ifndef STEPQ_HEADLOOP_H
#define STEPQ_HEADLOOP_H

#include "../base/progress.h"
#include "backend.h"
#include "protocol.h"
#include "runout.h"
#include "runstate.h"
#include "stream.h"

// the quantized path of a slot: method 2, method 3's cut protocol, or the row-subset protocol of
// the octile sweep (stepq_qstate_step_rows: the exact state with some rows re-encoded, from the
// exact boundary state or, with rows_boundary, from the boundary state with those rows
// re-encoded)
enum { STEPQ_PROTO_NORMAL = 0, STEPQ_PROTO_CUT = 1, STEPQ_PROTO_ROWS = 2 };

// what observers read beyond the inputs and the reference (a bit set)
enum {
    STEPQ_NEED_PRED = 1u << 0,     // P1's prediction E_{t-1}^T A_t^T (scale q_t) of each slot's
                                   // read-out error, and the step's read-out weights grad
    STEPQ_NEED_MEASURE = 1u << 1,  // ||S_hat_t - S_t||_F^2 and ||S_hat_t||_F^2 of each slot
    STEPQ_NEED_STATES = 1u << 2,   // each slot's X_t before its encode and S_hat_t after it
};

typedef struct {
    const stepq_format* fmt;
    int proto;  // STEPQ_PROTO_*
    // STEPQ_PROTO_ROWS: head h re-encodes its rows i with rows[h * rows_stride + i] == rows_value
    // at fmt's width (fmt: a per-row absmax format, stepq_family_rows) after every decode step;
    // rows_boundary 1: at the boundary too (the language model's octile sweep, method 7.2), 0:
    // the decode starts from the exact boundary state (the octile sweep of method 3 P4)
    const int8_t* rows;
    size_t rows_stride;
    int rows_value;
    int rows_boundary;
} stepq_slot;

// one slot's part of a decode step's view
typedef struct {
    const stepq_qstate* qs;  // the stored state (qs->X is S_hat_t with STEPQ_NEED_STATES)
    const float* y_hat;      // (V) the read-out of X_t
    const float* X_pre;      // (K,V) X_t before its encode (STEPQ_NEED_STATES), else NULL
    const float* pred;       // (V) P1's prediction (STEPQ_NEED_PRED), else NULL
    stepq_qmeasure m;        // STEPQ_NEED_MEASURE
    int live;                // 0: stopped on this head (an observer's stepq_view_stop)
} stepq_slot_view;

// What observers see of a head: at its start (t = 0, no slots yet), at the boundary (the
// native state S after the prefill and every slot just loaded from it), after every step, and
// at its end.
typedef struct {
    int h;                   // the head's index in the source (or session)
    int segment;             // which of the run's sources (stepq_headloop_run_segments), else 0
    long t;                  // steps taken so far in it (the step just taken is t - 1)
    long td;                 // decode steps taken so far; 0 in the prefill and at the boundary
    int decoding;            // 1: the step just taken was a decode step
    const stepq_step_in* in; // the step's inputs (NULL at the start, boundary and end)
    const float* decay;      // (K) the step's decays (decode steps)
    const double* grad;      // (K) the step's read-out weights (decode steps, STEPQ_NEED_PRED)
    const float* S;          // (K,V) the reference state S_t (NULL after the boundary without one)
    const float* y;          // (V) its read-out (after a step; NULL after the boundary without one)
    double ny2, nS2;         // ||y||^2, ||S||_F^2 (decode steps)
    double scale;            // the read-out scale
    int F, K, V, G, kind;
    stepq_slot_view* f;      // (F) the slots (decode steps and the boundary)
    unsigned char* stopped;  // (F) the engine's: an observer stops a slot with stepq_view_stop
} stepq_view;

static inline void stepq_view_stop(const stepq_view* v, int f) { v->stopped[f] = 1; }

typedef struct stepq_observer {
    const char* name;  // the driver's name, in refusals
    unsigned needs;    // STEPQ_NEED_*
    void* ctx;         // the driver's, shared by every thread
    // per-thread scratch from ctx (NULL: none), freed with thread_free
    void* (*thread_init)(void* ctx, const stepq_view* shape);
    void (*thread_free)(void* tls);
    // any of these may be NULL; STEPQ_ERR stops the run (with the observer's own message)
    int (*init_head)(void* ctx, void* tls, const stepq_view* v);
    int (*on_step)(void* ctx, void* tls, const stepq_view* v);
    int (*on_boundary)(void* ctx, void* tls, const stepq_view* v);
    int (*end_head)(void* ctx, void* tls, const stepq_view* v);
} stepq_observer;

typedef struct {
    const stepq_backend* backend;  // who steps the heads, chosen by the front end (never NULL)
    const stepq_slot* slots;       // (F)
    int n_slots;
    const stepq_plan* plan;        // for the formats that need one, or NULL
    const int* plan_index;         // (H) the plan's index of each head (stepq_plan_match), or NULL
    long prefill, decode;          // native steps, then decode steps (decode 0: a native run)
    // 1: no reference after the boundary: a decode step steps the slots alone, as a serving step
    // does (the language model's heads, method 7.1); the float32 reference runs the prefill and
    // gives the boundary state, then stops (the view's S and y are NULL). Nothing measures
    // against it, so stepq_headloop_check refuses observers that read P1's prediction, the state
    // errors or the states (STEPQ_NEED_*) and slots of the cut protocol (its delta write is read
    // on the reference state)
    int no_reference;
    const stepq_observer* obs;     // (n_obs)
    int n_obs;
    stepq_progress* progress;         // ticked once a head (base/progress.h), or NULL
    // per head: 1 to skip it (done by a journal, say), or NULL
    int (*skip)(void* ctx, int h);
    void* skip_ctx;
    int from_zero;                 // 1: every head starts from a zero state, whatever the source's S0
    // 1: run only this rank's heads of an MPI run, head h being the driver's unit unit0 + h
    // (base/ranks.h); the driver merges what the heads wrote with a stepq_split
    int split;
    long unit0;
} stepq_headloop_cfg;

// STEPQ_OK, or STEPQ_ERR (message) when the backend cannot provide what an observer or a slot
// needs, or a run without the reference (no_reference) has an observer or slot that reads it;
// `what` names the driver. stepq_headloop_run checks this itself before any head runs.
int stepq_headloop_check(const stepq_headloop_cfg* cfg, const char* what);

// One head's engine: the reference state and every slot's stored state, with its scratch.
typedef struct {
    const stepq_headloop_cfg* cfg;
    const stepq_backend* be;
    int F, K, V, G, kind;
    double scale;
    stepq_runstate rs;         // the reference: S, y, work, grad
    stepq_qstate* qs;          // (F)
    float *y_hat, *pred, *X_pre;  // (F,V) (F,V) (F,K,V): pred and X_pre only where needed
    const float* S_prev;       // (K,V) S_{t-1}, which the slots' reads take for P1's prediction
                               // (STEPQ_NEED_PRED): the reference's own state where the reads come
                               // before its step, else S_kept
    float* S_kept;             // (K,V) S_{t-1} kept, where several slots read it (decode_step)
    float* decay;              // (K)
    float* u_ref;              // (V) the reference's delta write (cut slots)
    // (F) each slot's halves, picked from the backend once when a head begins (the read may be
    // NULL: cut and row-subset slots read inside their write)
    const struct stepq_slot_fns** fns;
    int any_cut;               // a slot runs the cut protocol
    int decays;                // the steps' decays are read (by a slot of the normal or cut protocol,
                               // or an observer's view); row-subset slots step from the gates
    unsigned char* stopped;    // (F)
    stepq_slot_view* sv;       // (F)
    void** tls;                // (n_obs) each observer's scratch in this engine's thread
    unsigned needs;
    int h, segment;
    long t;
    int loaded;                // the boundary was encoded
    // where a run failed: the step, the slot (-1: the reference), and which part
    long fail_t;
    int fail_f;
    int fail_obs;              // 1: an observer or the source failed (and printed why)
} stepq_head;

// the shape of the heads an engine steps (a source's, or a session's)
typedef struct {
    int kind, K, V, n_gates;
    double scale;  // the read-out scale
} stepq_head_shape;

static inline stepq_head_shape stepq_shape_of(const stepq_source* src) {
    return (stepq_head_shape){.kind = src->kind, .K = src->K, .V = src->V, .n_gates = src->n_gates, .scale = src->scale};
}

void stepq_head_init(stepq_head* e, const stepq_headloop_cfg* cfg, const stepq_head_shape* shape);
void stepq_head_free(stepq_head* e);
// start head h (plan index ph) from S0 (K,V; NULL: zeros)
int stepq_head_begin(stepq_head* e, int h, int ph, const float* S0);
// the next step of the head: native in the prefill, then the boundary, then decode steps.
// STEPQ_ERR where the reference or a slot met a non-finite value (fail_t, fail_f say where) or an
// observer failed
int stepq_head_step(stepq_head* e, const stepq_step_in* in);
// ends the head (end_head of every observer); the slots' states are freed
int stepq_head_end(stepq_head* e);

// Every head of src through the loop (heads in parallel; cfg->skip may pass some over).
// STEPQ_ERR with a message naming the head, step and slot when one fails (the first head's
// failure in head order is reported; the others stop early), the source runs short, or an
// observer fails.
int stepq_headloop_run(const stepq_source* src, const stepq_headloop_cfg* cfg);
// The same over n sources of the same heads (calibration segments, method 4.1): each head runs
// through every source in order, in one thread, so that observers sum a head over the segments
// (view->segment says which; init_head and end_head come once per segment).
int stepq_headloop_run_segments(const stepq_source* const* srcs, int n, const stepq_headloop_cfg* cfg);

#endif

// session.h: the head loop driven step by step from outside (method 6.10). A caller (the
// library's users, a Python hook inside a model's forward) owns the inputs: it feeds one step of
// q, k, v, g, beta for each of a set of heads and reads back, per head, the float32 reference's
// read-out and state and every slot's y_hat, stored state and errors: the same engine
// (stepq_head) and the same numbers as stepq_headloop_run on a source with those inputs.
//
// The first `prefill` steps run at native precision; the step that ends the prefill also encodes
// the boundary state of every slot (prefill 0: the first step encodes the initial state); every
// later step is a decode step of method 2.
//
// Legend: H heads, F slots, K = d_k, V = d_v, G gates per step (1 GDN, K KDA).
#ifndef STEPQ_SESSION_H
#define STEPQ_SESSION_H

#include "headloop.h"

typedef struct {
    stepq_head_shape shape;       // every head's
    int n_heads;                  // H
    const stepq_slot* slots;      // (F), copied
    int n_slots;
    const stepq_plan* plan;       // for the formats that need one, or NULL (kept by the caller)
    const int* plan_index;        // (H) the plan's head of each head, or NULL (head h -> h)
    long prefill;
    unsigned needs;               // STEPQ_NEED_* the caller reads (STEPQ_NEED_MEASURE: errors)
    const stepq_backend* backend; // who steps the heads, chosen by the front end (never NULL)
    const float* S0;              // (H,K,V) initial states, or NULL for zeros
} stepq_session_cfg;

typedef struct stepq_session stepq_session;

// NULL with a message when a format does not fit the shape, needs a plan that is missing or
// does not cover a head, or the backend cannot step heads one at a time
stepq_session* stepq_session_open(const stepq_session_cfg* cfg);
void stepq_session_close(stepq_session* s);
// one step of every head: in (H). STEPQ_ERR with a message naming the head, step and slot where
// a state or read-out is not finite; the session is then finished (every later step fails).
int stepq_session_step(stepq_session* s, const stepq_step_in* in);
// head h after the last step: its view (sim/headloop.h), valid until the next step
const stepq_view* stepq_session_view(const stepq_session* s, int h);
// steps taken
long stepq_session_steps(const stepq_session* s);

#endif

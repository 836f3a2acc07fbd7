// protocol.h: the decode-step protocol of method 2, for one head and one format.
//
//   S_hat_{t-1} = decode(P_{t-1})        stored packed state -> float
//   X_t         = A_t S_hat_{t-1} + B_t  update on the approximate state
//   y_hat_t     = X_t^T (scale q_t)      read-out BEFORE re-quantization
//   P_t         = encode(X_t)
//
// Prefill runs at native precision elsewhere; stepq_qstate_load encodes its boundary state
// once. Between steps X holds S_hat_t = decode(P_t) (decoded right after encoding, which is
// the same arithmetic as decoding at the start of the next step) so callers can measure it.
#ifndef STEPQ_PROTOCOL_H
#define STEPQ_PROTOCOL_H

#include <stdint.h>

#include "../quant/format.h"
#include "../quant/qstate.h"
#include "stream.h"

// plan: NULL, or the plan whose head ph this state belongs to. STEPQ_ERR with a message if the
// format cannot hold a K x V state (stepq_format_fits); STEPQ_ERR without one (the caller says
// what the user should give) if the format needs a plan and none is given.
int stepq_qstate_init(stepq_qstate* st, const stepq_format* fmt, const stepq_plan* plan, int ph,
                      int kind, int K, int V);
void stepq_qstate_free(stepq_qstate* st);
// P <- encode(S), X <- decode(P). STEPQ_ERR if S is not finite.
int stepq_qstate_load(stepq_qstate* st, const float* S);
// One decode step: y (V) <- read-out; work: (V) scratch. STEPQ_ERR if X_t is not finite.
int stepq_qstate_step(stepq_qstate* st, float* y, float* work, const stepq_step_in* in,
                      double scale, int n_gates);
// stepq_qstate_step that also keeps X_t, the state before its encode, in X_pre (K,V).
int stepq_qstate_step_keep(stepq_qstate* st, float* y, float* work, const stepq_step_in* in,
                           double scale, int n_gates, float* X_pre);
// u (V) <- beta (v - (D_t S)^T k): the delta write read on S (the reference state, for the cut
// protocol of method 3); decay (K) the step's decays
void stepq_delta_write(float* u, const float* S, const stepq_step_in* in, const float* decay,
                       int K, int V);
// The cut protocol (method 3): X_t = D_t S_hat_{t-1} + k u_ref^T, the delta write read on the
// reference state instead of the stored one; y <- X_t^T (scale q); then encoded as
// stepq_qstate_step encodes (a replay format every fmt->replay steps). STEPQ_ERR if not finite.
int stepq_qstate_step_cut(stepq_qstate* st, float* y, const float* u_ref, const stepq_step_in* in,
                          const float* decay, double scale);
// The row-subset protocol (the octile sweep, method 3 P4): X_t = A_t X_{t-1} + B_t on the
// exact float32 state X, y <- its read-out, then only the key rows i with sel[i] == value are
// re-encoded (per-row absmax at b bits; the others are kept exactly). STEPQ_ERR if a re-encoded
// row is not finite.
int stepq_qstate_step_rows(stepq_qstate* st, float* y, float* work, const stepq_step_in* in,
                           double scale, int n_gates, const int8_t* sel, int value, int b);
// X (K,V): the rows i with sel[i] == value stored at width b (per-row absmax, as int<b>) and
// read back, in place (the row-subset protocol's re-encode; the language model's octile rows).
// STEPQ_ERR if such a row is not finite.
int stepq_rows_reencode(float* X, const int8_t* sel, int value, int b, int K, int V);
// X (K,V) <- decode(P_t), the stored state (a replay format: the live state it replays to)
void stepq_qstate_decode(const stepq_qstate* st, float* X);

#endif

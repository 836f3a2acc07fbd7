// lm.h: a small delta-rule language model (method 7): fla's GatedDeltaNetForCausalLM or
// KDAForCausalLM, byte vocabulary, loaded from a directory with config.json and
// model.safetensors (tools/lm trains them; data/lm ships two). The forward runs token by
// token; every recurrent layer's state is either native float32 or, after the boundary, held in
// a state format of the table through the decode-step protocol (method 2): each head is stepped
// by the head loop's engine (sim/headloop.h: one slot, no reference, as a serving step), whose
// backend's fused kernels decode a head, update it, read it out and encode it again. The
// equations, tensor by tensor, are in method 7 and in docs/lm-forward.md; a float64 run of the
// same lines checks the float32 one.
#ifndef STEPQ_LM_H
#define STEPQ_LM_H

#include <stdint.h>

#include "../quant/format.h"
#include "../quant/plan.h"
#include "headloop.h"
#include "backend.h"
#include "protocol.h"
#include "trace.h"

typedef struct {
    float *attn_norm, *q_proj, *k_proj, *v_proj;
    float *q_conv, *k_conv, *v_conv;  // (W, D): the checkpoint's (D, 1, W) taps, transposed at load
    float *a_proj, *f_proj0, *f_proj1;  // the gate: GDN a_proj [H, hidden]; KDA f_proj [V, hidden], [D, V]
    float *b_proj, *A_log, *dt_bias;    // [H, hidden], [H], GDN [H] / KDA [D]
    float *g_proj, *g_proj0, *g_proj1, *g_bias;  // the output gate: GDN [D, hidden]; KDA [V, hidden], [D, V], [D]
    float *o_norm, *o_proj, *mlp_norm, *gate_proj, *up_proj, *down_proj;
} stepq_lm_layer;

typedef struct {
    int kind;            // STEPQ_GDN (gated_deltanet) or STEPQ_KDA (kda)
    int layers, heads, K, V, hidden, inter, conv, vocab;
    int D;               // heads * K
    double eps;          // norm_eps
    char* dir;
    char desc[512];      // "model data/lm/gdn (gdn: 4 layers x 4 heads of 128 x 128, ...)"
    uint64_t xxh3;       // the XXH3 64 of config.json's and model.safetensors' bytes (0: not loaded
                         // from files): what the model is, for runs kept by it (analysis/forced.h)
    float *embed, *norm, *lm_head;
    stepq_lm_layer* L;   // (layers)
} stepq_lm;

// Reads dir/config.json and dir/model.safetensors. STEPQ_ERR naming the file and the key or
// tensor: a config stepq does not implement (another model_type, expand_v != 1, no short
// convolution, no output gate, tied embeddings, grouped value heads, a vocabulary other than
// 256), a missing tensor or one whose shape disagrees with config.json.
int stepq_lm_load(stepq_lm* m, const char* dir);
void stepq_lm_free(stepq_lm* m);

// What each layer's recurrence sees at one token (a trace of the model): (L, H, K) q, k
// (normalised, unscaled), (L, H, V) v, (L, H, G) g, (L, H) beta.
typedef struct {
    float *q, *k, *v, *g, *beta;
} stepq_lm_inputs;
void stepq_lm_inputs_alloc(stepq_lm_inputs* in, const stepq_lm* m);
void stepq_lm_inputs_free(stepq_lm_inputs* in);

// One sequence: the short-convolution states and every head's delta-rule state.
typedef struct {
    const stepq_lm* m;
    float* conv;         // (L, 3, W-1, D) the last W-1 pre-convolution q, k, v inputs, oldest first
    float* S;            // (L, H, K, V) native states, up to the boundary
    struct stepq_lm_heads* heads;  // after the boundary: every head's engine (lm.c); else NULL
    const stepq_backend* be;  // steps the native states (its float32 step) and the forward's products
    float* x;            // the residual stream of a token
    void* scratch;       // the per-token scratch of a layer (lm.c)
} stepq_lm_seq;

// A zero state at t = 0; be (a CPU backend the front end chose, never NULL) steps its native
// states and the forward's products.
void stepq_lm_seq_init(stepq_lm_seq* s, const stepq_lm* m, const stepq_backend* be);
void stepq_lm_seq_free(stepq_lm_seq* s);
// dst <- src (native states only: a snapshot after a shared prefill); dst is initialised, on src's
// backend.
void stepq_lm_seq_copy(stepq_lm_seq* dst, const stepq_lm_seq* src);
// The boundary of method 2: every head's native state is encoded in fmt (plan: for the
// calibrated formats; its heads are the model's (layer, head) pairs), and the following
// tokens run through the decode-step protocol on backend be (sim/backend.h; never NULL; one that
// does not step heads one at a time is refused). STEPQ_ERR if the format
// does not fit the heads, the plan lacks a head or a state is not finite.
int stepq_lm_seq_quantize(stepq_lm_seq* s, const stepq_format* fmt, const stepq_plan* plan,
                          const stepq_backend* be);
// The octile protocol (method 7.2), the row-subset protocol on backend be (as above): the
// states stay float32 except the key rows with rows[(l*H + h)*K + i] = 1, which are stored at
// INT-width (per-row absmax, the format int<width>: 4, 6 or 8) now, at the boundary, and again
// after every following token's update and read-out: with every row marked this is the format
// int<width> exactly. rows (not copied) must outlive the sequence's use. STEPQ_ERR if no format
// int<width> exists, the backend is refused or a state is not finite.
int stepq_lm_seq_round_rows(stepq_lm_seq* s, const uint8_t* rows, int width, const stepq_backend* be);
// One token: logits (vocab) of the next byte; in (may be NULL) receives what every layer's
// recurrence saw. STEPQ_ERR if a state went non-finite.
int stepq_lm_step(stepq_lm_seq* s, int token, float* logits, stepq_lm_inputs* in);
// One token for each of n (1 .. STEPQ_LM_BATCH) sequences of one model, sequence i reading
// tokens[i] into logits[i]: every weight matrix read once for all of them (the forward of a
// model this small is bound by reading its weights), each sequence's numbers those of
// stepq_lm_step. failed (n, may be NULL) <- 1 for each sequence whose state went non-finite
// (the others are stepped as usual); STEPQ_ERR if any did.
#define STEPQ_LM_BATCH 32
int stepq_lm_step_many(stepq_lm_seq* const* seqs, int n, const int* tokens, float* const* logits, int* failed);
// A batch of sequences that read the same bytes (the runs of one document: its native decode
// and each format's), stepped together and each leaving it when its state goes non-finite:
// seq[k] (k < n) is the k-th sequence still in it, id[k] its number in the caller's list,
// logits[k] its logits after a step.
typedef struct {
    int n;
    stepq_lm_seq* seq[STEPQ_LM_BATCH];
    int id[STEPQ_LM_BATCH];
    float* logits[STEPQ_LM_BATCH];
} stepq_lm_batch;
void stepq_lm_batch_init(stepq_lm_batch* b);
// s (not copied) joins the batch as number id
void stepq_lm_batch_add(stepq_lm_batch* b, stepq_lm_seq* s, int id);
// One token for every sequence of the batch; the numbers (id) of those whose state went
// non-finite go to failed (n_failed of them) and they leave it (the others keep their order).
void stepq_lm_batch_step(stepq_lm_batch* b, int token, int* failed, int* n_failed);
void stepq_lm_batch_free(stepq_lm_batch* b);  // the logits (the sequences are the caller's)

// How many of a document's runs (decodes of its text from one prefill) a driver steps in one
// batch, for docs documents of runs runs each on this process's threads: all of them while
// every thread gets two documents, else fewer, so that it gets two units (documents x
// batches); none above STEPQ_LM_BATCH. The results do not depend on it.
int stepq_lm_batch_runs(int docs, int runs);

// The float64 run of the same forward (parameters promoted exactly, native states): logits
// (T, vocab) of tokens (T). For checks.
void stepq_lm_forward_f64(const stepq_lm* m, const uint8_t* tokens, long T, double* logits);

// the negative log-likelihood (nats) of byte next under logits (vocab), in float64
double stepq_lm_nll(const float* logits, int vocab, int next);

// Runs the model natively over bytes (T) from a zero state and captures what every layer's
// recurrence sees into a trace whose value heads are the model's (layer, head) pairs, labelled
// so: the whole stream in memory, the reference tests/test_lm.c holds stepq_lm_source against
// (the harness itself reads the model through stepq_lm_source). STEPQ_ERR if a state goes
// non-finite. be: as stepq_lm_seq_init's.
int stepq_lm_capture(stepq_trace* tr, const stepq_lm* m, const uint8_t* bytes, long T, const stepq_backend* be);
// The model as a lockstep stream source (sim/stream.h): its forward runs natively over bytes
// (T, copied) from a zero state as the heads read it, one token for every head at a time, so
// memory holds one token's inputs whatever T; value head l * H + h is layer l's head h,
// labelled so. The source takes m over (m is emptied); be steps its forward (stepq_lm_seq_init).
// A state that goes non-finite fails next.
stepq_source* stepq_lm_source(stepq_lm* m, const uint8_t* bytes, long T, const stepq_backend* be);
// Reads a text file whole (bytes, n); STEPQ_ERR naming it when missing, empty, or larger than
// STEPQ_LM_TEXT_MAX.
#define STEPQ_LM_TEXT_MAX ((size_t)1 << 30)
int stepq_lm_read_text(uint8_t** bytes, long* n, const char* path);

#endif

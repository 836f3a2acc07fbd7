// stream.h: where the inputs of the recurrence come from. One interface, several sources
// (method 6.1): a source serves n_heads independent heads; a cursor reads one head's steps in
// order. Heads never share a cursor, so heads run in parallel and every result is
// independent of the thread count.
#ifndef STEPQ_STREAM_H
#define STEPQ_STREAM_H

#include <stdint.h>

// One step of one (value) head. Pointers stay valid until the next call on the same cursor.
typedef struct {
    const float* q;  // (K) L2-normalised query, unscaled
    const float* k;  // (K) L2-normalised key
    const float* v;  // (V)
    const float* g;  // (n_gates) log gate(s) <= 0: 1 for GDN, K for KDA
    float beta;      // write strength in (0,1)
} stepq_step_in;

typedef struct stepq_source stepq_source;

// what next() returns beside STEPQ_OK and STEPQ_ERR: the head has no more steps
enum { STEPQ_END = 1 };

// Base of every source's cursor (each source embeds it first and adds its own state).
typedef struct stepq_cursor {
    const stepq_source* src;
    int h;   // head index in the source
    long t;  // steps read so far
} stepq_cursor;

struct stepq_source {
    int kind;            // stepq_kind
    int n_heads;         // value heads served
    int K, V;
    int n_gates;         // 1 (GDN) or K (KDA)
    long T;              // steps available; synthetic sources: unlimited (LONG_MAX); a source
                         // that does not know its length ahead (a model stepped as it is read)
                         // says LONG_MAX too and ends with STEPQ_END
    double scale;        // read-out scale, 1/sqrt(K) unless the trace says otherwise
    const float* S0;     // (n_heads, K, V) initial states, or NULL for zeros
    int* layer;          // (n_heads) label of each head: model layer
    int* head;           // (n_heads) label of each head: head within the layer
    char desc[512];      // one line naming the source, stored in output attributes
    char model_sha256[65];  // the model's weights (a captured trace's weights_sha256), or ""
    // > 0: q and k come normalised as x / sqrt(|x|^2 + eps) with this eps, so a row's norm is at
    // most 1 and falls below it where |x| is small (a trace's qk_norm_eps); 0: normalised exactly
    double qk_norm_eps;
    // 0: every head has a cursor of its own (open(src, h)); 1: the heads come in lockstep (a
    // model's layers, stepped token by token): one cursor for all of them, open(src, -1), whose
    // next fills out[0 .. n_heads) with one step of every head
    int lockstep;

    stepq_cursor* (*open)(const stepq_source* src, int h);  // reader of head h from step 0
    // the next step of that head: STEPQ_OK, STEPQ_END after its last step, or STEPQ_ERR with a
    // message naming the input and the index (a streamed trace checks its values as it reads)
    int (*next)(stepq_cursor* cur, stepq_step_in* out);
    void (*close)(stepq_cursor* cur);
    void (*destroy)(stepq_source* src);
    void* impl;
};

void stepq_source_free(stepq_source* src);
// src->next where the caller needs the step: STEPQ_END becomes STEPQ_ERR with a message naming
// the source, the head and the step
int stepq_next_step(stepq_cursor* cur, stepq_step_in* out);

// the step's log gates averaged in double, in order: the run's mean log gate and half-life
// (the CPU runner and the CUDA engine's host side sum it alike)
static inline double stepq_mean_log_gate(const stepq_step_in* in, int n_gates) {
    double s = 0;
    for (int i = 0; i < n_gates; i++) s += in->g[i];
    return s / n_gates;
}

// splitmix64's finaliser: a well-mixed 64-bit function of x
static inline uint64_t stepq_splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// A 32-bit RNG seed for one head from a run's seed and the head's labels: the same head gets
// the same stream whatever subset or thread it runs in.
static inline unsigned long stepq_head_seed(uint64_t seed, int layer, int head) {
    uint64_t label = ((uint64_t)layer << 32) | (uint64_t)(uint32_t)head;
    return (unsigned long)(stepq_splitmix64(seed ^ stepq_splitmix64(label)) & 0xffffffffu);
}

#endif

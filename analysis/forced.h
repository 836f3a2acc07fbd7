// forced.h: teacher-forced runs of a language model over documents (method 7), what the nll and
// recall drivers measure. A run of document d: its first P bytes read natively (the prefill; the
// boundary of method 2), then N steps, step t reading byte P + t and predicting byte P + t + 1,
// natively or with every recurrent layer's state in a format (or, for the octile sweep, a set of
// key rows rounded) through the decode-step protocol. Per step a run gives the NLL of the byte
// that follows (stepq_lm_nll, nats) and the argmax of the logits (the first index among equal
// maxima, as torch.argmax).
//
// A run is a function of the model's weights, the document's bytes, P and what holds the states
// (native, or a format and, where the format reads one, the plan's encoding), not of the batch,
// thread or rank it ran on; and a run of N steps is the first N steps of a longer one. So runs
// are kept for the life of the process, and a driver takes from them what an earlier config of
// the same `stepq run` computed instead of running it again (method 6.9: in all.cfg the recall
// configs' runs serve nll on the same documents, and nll's longer windows the octile and
// ablation configs' shorter ones). Octile runs are not kept: their rows are the document's own.
#ifndef STEPQ_FORCED_H
#define STEPQ_FORCED_H

#include <stdint.h>

#include "../quant/format.h"
#include "../quant/plan.h"
#include "../sim/backend.h"
#include "../sim/lm.h"

// what holds a run's states after the boundary
typedef struct {
    const stepq_format* fmt;  // a format, or NULL: native (or the octile rows below)
    const stepq_plan* plan;   // the plan a calibrated format reads
    const uint8_t* rows;      // the octile sweep: (L*H*K) 1 = a key row rounded at `width` bits
    int width;                // after every step (stepq_lm_seq_round_rows); NULL otherwise
    const char* name;         // for messages
} stepq_forced_spec;

// D documents x R runs each, all on one model
typedef struct {
    const char* what;                // the driver, for messages and progress ("nll", "recall")
    const stepq_lm* model;
    const stepq_backend* backend;    // steps the forward, the states in a format and the octile rows
    long prefill;                    // P
    int D, R;
    uint8_t* const* docs;            // (D) each document's bytes
    const long* len;                 // (D) and their lengths
    const char* const* files;        // (D) for messages
    const long* steps;               // (D) each document's N (0: no runs), P + N < len
    const stepq_forced_spec* specs;  // (D, R) run k of document d: specs[d * R + k]
    // called after each prefill step t of document d (the octile sweep's row magnitudes and, at
    // t = P - 1, its rows); NULL: none
    void (*on_prefill)(void* ctx, int d, long t, const stepq_lm_seq* s);
    void* ctx;
    long N;                          // out: the largest steps[d]
    double* nll;                     // out: (D, R, N) per step; steps past a document's N are 0
    uint8_t* top;                    // out: (D, R, N) the argmax of each step's logits
} stepq_forced_set;

// Every run of the set: those kept from an earlier config are taken, the others run (each
// document's prefill once, then its runs in batches, in parallel, the MPI ranks sharing them as
// unit k * D + d) and kept. Collective: every rank returns with every run's numbers. STEPQ_ERR,
// every rank alike, where a state went non-finite (the document and run named) or memory is short.
int stepq_forced_run(stepq_forced_set* s);
void stepq_forced_free(stepq_forced_set* s);  // nll and top

// The journal of the runs of the config about to run (journal.h): begun with its output and key
// (what the config's driver writes, "<output>.journal"), it is opened at the config's first
// stepq_forced_run, so that a config refused before its work leaves none; from then every run
// that ends is appended, and with resume the runs of an earlier, interrupted run of the config are
// read back and kept as if an earlier config had computed them (a run's numbers are a function
// of what makes its key: the same numbers, bit for bit). Ended with whether the output was written:
// then the journal is removed, else it stays for `stepq run --resume`.
void stepq_forced_journal_begin(const char* output, const char* key, int resume);
void stepq_forced_journal_end(int completed);

// The runs kept so far: how many, and their bytes; and forgetting them (tests)
long stepq_forced_kept(size_t* bytes);
void stepq_forced_forget(void);

#endif

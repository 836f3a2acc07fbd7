// recall.h: how far back a state format lets a language model remember (method 7.5). The
// held-out recall set (tools/lm/recall.py writes it: data/lm/heldout_recall.json) holds
// documents with records woven in, `#0417 = Hezekiah;` and later `#0417 ? Hezekiah;`, each
// answer span recorded with where its value first occurs and its distance (bytes from that
// first occurrence to the answer). For each document: a native prefill of P bytes (the
// boundary of method 2), then the rest of the document forced through the model (teacher
// forcing) natively and with every recurrent layer's state in format F through the decode-step
// protocol. A record counts when its definition line begins at or after the boundary, so that
// what its query asks for has lived in the format for its whole distance.
//
// Per record and run: the answer's NLL (nats, summed over its bytes, teacher-forced) and exact
// match (every answer byte is the argmax at its position: what greedy decoding from the
// answer's start produces). Summaries per distance bucket (the set's buckets) and per decode
// position of the answer (octaves after the boundary): accuracy and extra NLL (format minus
// native, per record), each the mean over documents of the documents' means, with a 95%
// interval over documents and one over the recall generator's seeds.
//
// Output (HDF5): documents [D], document_seed [D], formats [F], buckets [NB, 2], positions
// [NP, 2], record_document, record_distance, record_position, record_length [R], nll [R, 1+F],
// exact [R, 1+F] (column 0: native), n_records [NB]; per bucket exact_mean, exact_ci95,
// exact_ci95_seeds, exact_pooled [1+F, NB], extra_nll_mean, extra_nll_ci95 [F, NB]; per
// position the same with `_pos`. The .tsv beside it: per bucket its geometric middle, then per
// run (native first) accuracy mean and 95% CI over documents.
#ifndef STEPQ_RECALL_H
#define STEPQ_RECALL_H

#include "../quant/format.h"
#include "../sim/lm.h"
#include "output.h"

typedef struct {
    const stepq_lm* model;
    const char* set;         // the recall set's JSON; its documents' files are relative to it
    int max_documents;       // the first N documents of each generator seed of the set; 0: all
    const stepq_format* const* formats;  // (F)
    int n_formats;
    const stepq_plan* plan;  // for the calibrated formats (the model's (layer, head) pairs), or NULL
    const stepq_backend* backend;  // steps the forward and the states in a format (sim/backend.h)
    long prefill;            // the boundary: bytes read natively before the states go into a format
    long length;             // > 0: only the answers within each document's first `length` bytes
    const char* output, *table;
    stepq_provenance prov;
} stepq_recall_cfg;

int stepq_recall(const stepq_recall_cfg* cfg);

#endif

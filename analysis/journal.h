// journal.h: resumable runs. A run records every unit it completes in "<output>.journal" beside
// its temporary output: the runner's heads, seed by seed (propagation, the format table, the
// ablation: analysis/propagation.c), and the teacher-forced runs of a language model (nll,
// recall, frontier: analysis/forced.h); `stepq run CONFIG --resume` reads the units already done
// back instead of running them again, and ends with datasets bit-identical to an uninterrupted
// run (every unit's numbers are a function of the unit alone). The journal starts with a key of
// the run (the config text, the stepq revision and the checksums of every input read: traces,
// plans, a model's files, texts); a journal of another run is refused, never mixed in. A record
// cut short by a kill is dropped. The journal is removed when the run's output is written.
//
// In an MPI run (base/ranks.h) every rank keeps a journal of the units it runs,
// "<output>.journal.<r>of<N>"; a resume reads every journal of the output, whatever rank count
// wrote it (one process's "<output>.journal" too), each rank keeping the units it runs now, and
// the journals of another rank count are removed once their units are in this run's (a run
// without --resume removes every earlier journal of the output: it starts over).
#ifndef STEPQ_JOURNAL_H
#define STEPQ_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

typedef struct stepq_journal stepq_journal;

// Opens this rank's journal of a run under key (a record's bytes are the caller's: a head's
// numbers, a forced run's; what names them in messages, "heads", "runs"). resume: keep the
// records the journals hold, those owned accepts (every one when owned is NULL; an MPI run keeps
// its rank's), one per id; else start a new one. NULL (message) on a journal of another run or
// an I/O error. Collective in an MPI run.
stepq_journal* stepq_journal_open(const char* output, const char* key, const char* what, int resume,
                                  int (*owned)(uint64_t id, void* ctx), void* ctx);
// The bytes of the record id read back (*size of them), or NULL
const unsigned char* stepq_journal_find(const stepq_journal* j, uint64_t id, size_t* size);
// Record i of those read back (0 <= i < stepq_journal_resumed), its id and size; NULL past them
const unsigned char* stepq_journal_record(const stepq_journal* j, long i, uint64_t* id, size_t* size);
// Appends the record id of size bytes and flushes it (thread-safe). STEPQ_ERR on a write error.
int stepq_journal_add(stepq_journal* j, uint64_t id, const void* data, size_t size);
// records read back from an earlier run
long stepq_journal_resumed(const stepq_journal* j);
// Closes; completed: the output is written, remove the journal (collective in an MPI run: removed
// when every rank completed).
void stepq_journal_close(stepq_journal* j, int completed);

#endif

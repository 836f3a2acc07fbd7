// journal.h: resumable runs. A run of the runner (propagation, the format table, the ablation)
// records every head it completes, seed by seed, in "<output>.journal" beside its temporary
// output; `stepq run CONFIG --resume` reads the heads already done back instead of running them
// again, and ends with datasets bit-identical to an uninterrupted run (every head's numbers are
// a function of the head alone). The journal starts with a key of the run (the config text, the
// stepq revision and the checksums of every input read: traces, plans, a model's files, texts);
// a journal of another run is refused, never mixed in. A record cut short
// by a kill is dropped. The journal is removed when the run's output is written.
//
// In an MPI run (base/ranks.h) every rank keeps a journal of the heads it runs,
// "<output>.journal.<r>of<N>"; a resume reads every journal of the output, whatever rank count
// wrote it (one process's "<output>.journal" too), each rank keeping the heads it runs now, and
// the journals of another rank count are removed once their heads are in this run's (a run
// without --resume removes every earlier journal of the output: it starts over).
#ifndef STEPQ_JOURNAL_H
#define STEPQ_JOURNAL_H

#include "runner.h"

typedef struct stepq_journal stepq_journal;

// Opens this rank's journal for a run of F formats, NB bins and H heads per seed. resume: keep
// the heads the journals hold (none if there is none); else start a new one. NULL (message) on a
// journal of another run or an I/O error. Collective in an MPI run.
stepq_journal* stepq_journal_open(const char* output, const char* key, int F, long NB, int H, int resume);
// If head h of seed s is in the journal, fills its numbers into o (allocated by the runner)
// and returns 1; else 0.
int stepq_journal_fill(const stepq_journal* j, int s, int h, stepq_run_out* o);
// Appends head h of seed s from o and flushes it (thread-safe). STEPQ_ERR on a write error.
int stepq_journal_add(stepq_journal* j, int s, int h, const stepq_run_out* o);
// heads read back from an earlier run
long stepq_journal_resumed(const stepq_journal* j);
// Closes; completed: the output is written, remove the journal (collective in an MPI run: removed
// when every rank completed).
void stepq_journal_close(stepq_journal* j, int completed);

#endif

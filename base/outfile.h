// outfile.h: every file stepq writes (HDF5 results and plans, the .tsv tables beside them, the
// Markdown reports, journals) goes to a temporary file of its own, "<path>.tmp.XXXXXX" (mkstemp:
// two processes writing one output never share one), and is renamed into place only when
// complete, so a full disk, a kill or an error never leaves a partial file at the final path.
// The first output installs an atexit() hook, SIGINT/SIGTERM handlers and an MPI abort hook
// (base/ranks.h: MPI_Abort runs no atexit hook) that remove every
// temporary file still pending. An output is refused up front when its path is a directory or
// anything else that is not a regular file (a device, a FIFO), when it would replace a file this
// run reads (an input noted by stepq_note_input: a config, a trace, a plan), or when its
// directory cannot be written; each with one message naming the path. In an MPI run only rank 0
// writes: on the other ranks every output goes to /dev/null (an HDF5 file to memory), and
// nothing is checked, created or renamed there (base/ranks.h).
#ifndef STEPQ_OUTFILE_H
#define STEPQ_OUTFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

// An input this process reads: no output may replace it. stepq_forget_input: it was only read
// to be compared (a plan about to be remade) and may be replaced.
void stepq_note_input(const char* path);
void stepq_forget_input(const char* path);
// *out <- the XXH3 64 of the file at path: the one taken when it was noted as an input (a trace
// of gigabytes is read once), else read now; STEPQ_ERR when it cannot be read
int stepq_input_xxh3(uint64_t* out, const char* path);
// the XXH3 64 of the checksums of every input read so far, in the order they were read (what a
// journal's key covers besides the config: traces, plans, a model's files, texts)
uint64_t stepq_inputs_xxh3(void);
// the inputs noted so far, in the order they were read: how many, the i-th's path and XXH3
int stepq_inputs_count(void);
// which run's inputs these are: changes with every stepq_inputs_reset (each config of an `all`)
int stepq_inputs_generation(void);
const char* stepq_input_path(int i);
uint64_t stepq_input_xxh3_of(int i);
// one line per input read so far, malloc'd: "PATH xxh3=HEX", the XXH3 64 checksum of its bytes
// (stepq_file_xxh3; 0 when it could not be read); "" when there is none
char* stepq_inputs_describe(void);
// Collective, before a run's work (once a run: at its first output): the ranks agree on the binary
// they run (its XXH3), their command line (stepq_ranks_check_command), and every input noted so
// far (the config with its includes, traces, plans, a model's files; their number, paths and
// XXH3, in order), or every rank gets STEPQ_ERR and rank 0 names the first difference (ranks
// started with other configs, or node-local copies of data that differ at one path)
int stepq_inputs_check_ranks(void);
// forgets the inputs noted after the first n (stepq_inputs_count() before a library call that
// reads files: the call leaves the list as it found it, so a later output may replace them)
void stepq_inputs_forget_since(int n);
// forgets every input noted so far: an `all` config starts each of its configs afresh, so that
// each output records (and its journal's key covers) its own inputs, not the earlier configs'
void stepq_inputs_reset(void);

// STEPQ_ERR with a message when an output at path would be refused (the front ends check every
// output of a run before any work; a directory that does not exist yet passes: they make it)
int stepq_output_check(const char* path);
// stepq_output_check, then the directories of path's directory part made where they are missing
// (mkdir -p): the last step before a run's work (STEPQ_ERR naming what cannot be made)
int stepq_output_prepare(const char* path);
// STEPQ_ERR with a message when an output of about `bytes` (its size known up front: a trace, a
// replay's read-outs) would not fit in the free space of the file system its directory is on
// (statvfs: the space an unprivileged write may use); STEPQ_OK where it fits or cannot be told
int stepq_output_space(const char* path, double bytes);
// A new file beside path, "<path>.tmp.XXXXXX" (mkstemp: unique to this process), with the
// permissions a new file gets under the umask instead of mkstemp's 0600: its file descriptor,
// *tmp <- its name (malloc'd, set also on failure); -1 with errno when it cannot be created
int stepq_tmpfile(char** tmp, const char* path);
// 1 when paths a and b name one file: one inode where both exist, else one path once each
// directory is resolved (realpath where it exists, ".", ".." and "//" otherwise): two outputs
// of a run that would write over each other
int stepq_same_file(const char* a, const char* b);
// Checks path, creates its temporary file and registers it for clean-up; *tmp (malloc'd) is
// the name to write. STEPQ_ERR with a message when the output is refused.
int stepq_output_begin(char** tmp, const char* path);
// the temporary file pending for path (malloc'd), or NULL
char* stepq_output_pending(const char* path);
// Renames tmp into place (ok) or removes it (!ok), and forgets it; STEPQ_ERR if ok and the
// rename fails. Frees tmp.
int stepq_output_end(char* tmp, const char* path, int ok);

// A text output (.tsv, .md): NULL with a message when refused or not creatable.
FILE* stepq_text_create(const char* path);
// Closes and renames into place; STEPQ_ERR (message naming the file: disk full?) when a write
// or the close failed, and then nothing is left at path.
int stepq_text_commit(FILE* fp, const char* path);
void stepq_text_abandon(FILE* fp, const char* path);

#endif

// output.h: what every result file carries so it can be read without documentation and
// reproduced: experiment name, the full config text, its path, the git revision, the compiler
// and build flags, the seed, the source, and the path and XXH3 64 checksum of every input file
// read (traces, plans), as root attributes ("PATH xxh3=HEX" per line).
#ifndef STEPQ_OUTPUT_H
#define STEPQ_OUTPUT_H

#include <hdf5.h>
#include <stdint.h>

typedef struct {
    const char* experiment;
    const char* config_path;  // NULL when run from the command line
    const char* config_text;  // the whole config file, or the command line
    uint64_t seed;
    const char* source;       // stepq_source.desc
} stepq_provenance;

int stepq_write_provenance(hid_t file, const stepq_provenance* p);
const char* stepq_git_revision(void);

#endif

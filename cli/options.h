// options.h: the one strict command-line parser of every subcommand. An option is a row of a
// table (name, type, destination, range, what it means); a value is parsed whole and checked
// against its range, and anything else is an error that names the option and says what it
// takes: `--steps 1e3`, `--threads abc`, `--seed -1`, `--prefill 12x`, `--threads 100000`, an
// unknown option, a missing value or a repeated option never become 0, a default or a crash.
#ifndef STEPQ_OPTIONS_H
#define STEPQ_OPTIONS_H

typedef enum {
    OPT_STR,    // const char**
    OPT_INT,    // long long*, within [lo, hi]
    OPT_REAL,   // double*, finite, within [lo, hi]
    OPT_LIST,   // int** + int* count (n): indices like 0,2,5-7, each within [lo, hi]; malloc'd
    OPT_FLAG,   // int*: set to 1, takes no value
    OPT_STRS,   // const char*** + int* count (n): one or more values, up to the next option; malloc'd
} stepq_opt_type;

typedef struct {
    const char* name;     // "--steps"
    stepq_opt_type type;
    void* dest;
    int* n;               // OPT_LIST: the count
    double lo, hi;        // OPT_INT, OPT_REAL, OPT_LIST: the accepted range
    int required;
    const char* meta;     // "N", "FILE.h5", ...: for messages
    int seen;             // set by the parser
} stepq_opt;

// Parses argv[1..argc) (argv[0] is the command) against opts (terminated by a row with a NULL
// name). Arguments that are not options fill pos (at most n_pos; at least min_pos needed).
// Returns STEPQ_OK, or STEPQ_ERR after one message naming the command and the option.
int stepq_parse_options(int argc, char** argv, stepq_opt* opts, const char** pos, int min_pos,
                        int n_pos);

// 1 if argv holds --help or -h
int stepq_wants_help(int argc, char** argv);

// The number parsers of options and configs' overrides: stepq_parse_int and stepq_parse_real
// (base/common.h)

#endif

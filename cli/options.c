// options.c: see options.h.
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"

int stepq_wants_help(int argc, char** argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
    return 0;
}

// "0,2,5-7" -> (n) indices within [lo, hi]
static int cmp_int(const void* a, const void* b) { return (*(const int*)a > *(const int*)b) - (*(const int*)a < *(const int*)b); }

static int parse_list(int** out, int* n, const char* s, long long lo, long long hi) {
    *out = NULL;
    *n = 0;
    int cap = 0;
    const char* p = s;
    if (!*p) return STEPQ_ERR;
    while (*p) {
        char buf[32];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof buf) goto bad;
        memcpy(buf, p, len);
        buf[len] = 0;
        char* dash = strchr(buf + 1, '-');  // a range a-b (a leading '-' would be a sign)
        long long a, b;
        if (dash) *dash = 0;
        if (stepq_parse_int(&a, buf, lo, hi)) goto bad;
        b = a;
        if (dash && (stepq_parse_int(&b, dash + 1, lo, hi) || b < a)) goto bad;
        for (long long i = a; i <= b; i++) {
            if (*n == cap) {
                cap = cap ? 2 * cap : 16;
                int* grown = realloc(*out, sizeof(int) * (size_t)cap);
                stepq_assert(grown != NULL);
                *out = grown;
            }
            (*out)[(*n)++] = (int)i;
        }
        p += len;
        if (*p == ',' && !*++p) goto bad;  // a trailing comma
    }
    {  // each index once (a repeated head would be written twice, with one label)
        int* sorted = mallocCheck(sizeof(int) * (size_t)*n);
        memcpy(sorted, *out, sizeof(int) * (size_t)*n);
        qsort(sorted, (size_t)*n, sizeof(int), cmp_int);
        int repeat = 0;
        for (int i = 1; i < *n && !repeat; i++) repeat = sorted[i] == sorted[i - 1];
        free(sorted);
        if (repeat) goto bad;
    }
    return STEPQ_OK;
bad:
    free(*out);
    *out = NULL;
    *n = 0;
    return STEPQ_ERR;
}

static void what_it_takes(char* buf, size_t n, const stepq_opt* o) {
    switch (o->type) {
    case OPT_STR: snprintf(buf, n, "%s", o->meta ? o->meta : "a value"); break;
    case OPT_INT: snprintf(buf, n, "an integer in [%.0f, %.0f]", o->lo, o->hi); break;
    case OPT_REAL: snprintf(buf, n, "a number in [%g, %g]", o->lo, o->hi); break;
    case OPT_LIST:
        snprintf(buf, n, "a list of indices like 0,2,5-7, each in [%.0f, %.0f] and named once", o->lo, o->hi);
        break;
    case OPT_FLAG: snprintf(buf, n, "no value"); break;
    case OPT_STRS: snprintf(buf, n, "one or more of %s", o->meta ? o->meta : "a value"); break;
    }
}

static int set_value(stepq_opt* o, const char* v, const char* cmd) {
    int rc = STEPQ_OK;
    switch (o->type) {
    case OPT_STR: *(const char**)o->dest = v; break;
    case OPT_INT: rc = stepq_parse_int((long long*)o->dest, v, (long long)o->lo, (long long)o->hi); break;
    case OPT_REAL: rc = stepq_parse_real((double*)o->dest, v, o->lo, o->hi); break;
    case OPT_LIST: rc = parse_list((int**)o->dest, o->n, v, (long long)o->lo, (long long)o->hi); break;
    case OPT_FLAG:
    case OPT_STRS: break;
    }
    if (rc != STEPQ_OK) {
        char takes[128];
        what_it_takes(takes, sizeof takes, o);
        stepq_error("%s: %s '%s' is not valid: it takes %s", cmd, o->name, v, takes);
    }
    return rc;
}

static void list_options(char* buf, size_t n, const stepq_opt* opts) {
    buf[0] = 0;
    for (const stepq_opt* o = opts; o->name; o++) {
        strncat(buf, o == opts ? "" : ", ", n - strlen(buf) - 1);
        strncat(buf, o->name, n - strlen(buf) - 1);
    }
}

// the error for an option given without its value
static int needs_value(const char* cmd, const stepq_opt* o) {
    char takes[128];
    what_it_takes(takes, sizeof takes, o);
    stepq_error("%s: %s needs a value: %s", cmd, o->name, takes);
    return STEPQ_ERR;
}

// the option named a, or NULL after the error naming the options cmd takes
static stepq_opt* find_option(const char* cmd, stepq_opt* opts, const char* a) {
    stepq_opt* o = opts;
    while (o->name && strcmp(o->name, a)) o++;
    if (o->name) return o;
    char known[512];
    list_options(known, sizeof known, opts);
    stepq_error("%s: unknown option %s (it takes %s; see stepq %s --help)", cmd, a, opts->name ? known : "no options",
                cmd);
    return NULL;
}

// an OPT_STRS option at argv[i]: its values are the arguments up to the next option; the count
// taken, or -1 after the error when there is none
static int take_strings(const char* cmd, stepq_opt* o, int argc, char** argv, int i) {
    int k = 0;
    while (i + 1 + k < argc && (argv[i + 1 + k][0] != '-' || argv[i + 1 + k][1] == 0)) k++;
    if (k == 0) {
        needs_value(cmd, o);
        return -1;
    }
    const char** v = mallocCheck(sizeof(char*) * (size_t)k);
    for (int j = 0; j < k; j++) v[j] = argv[i + 1 + j];
    *(const char***)o->dest = v;
    *o->n = k;
    return k;
}

// after the arguments: every required option given, and at least min_pos positional ones
static int check_complete(const char* cmd, const stepq_opt* opts, int np, int min_pos) {
    for (const stepq_opt* o = opts; o->name; o++)
        if (o->required && !o->seen) {
            char takes[128];
            what_it_takes(takes, sizeof takes, o);
            stepq_error("%s: %s is required: %s (see stepq %s --help)", cmd, o->name, takes, cmd);
            return STEPQ_ERR;
        }
    if (np < min_pos) {
        stepq_error("%s: missing argument (see stepq %s --help)", cmd, cmd);
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

int stepq_parse_options(int argc, char** argv, stepq_opt* opts, const char** pos, int min_pos,
                        int n_pos) {
    const char* cmd = argv[0];
    int np = 0;
    for (stepq_opt* o = opts; o->name; o++) o->seen = 0;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (a[0] != '-' || a[1] == 0) {  // a positional argument
            if (np == n_pos) {
                stepq_error("%s: unexpected argument '%s' (see stepq %s --help)", cmd, a, cmd);
                return STEPQ_ERR;
            }
            pos[np++] = a;
            continue;
        }
        stepq_opt* o = find_option(cmd, opts, a);
        if (!o) return STEPQ_ERR;
        if (o->seen) {
            stepq_error("%s: %s is given twice", cmd, o->name);
            return STEPQ_ERR;
        }
        o->seen = 1;
        if (o->type == OPT_FLAG) {
            *(int*)o->dest = 1;
        } else if (i + 1 >= argc) {
            return needs_value(cmd, o);
        } else if (o->type == OPT_STRS) {
            const int k = take_strings(cmd, o, argc, argv, i);
            if (k < 0) return STEPQ_ERR;
            i += k;
        } else if (set_value(o, argv[++i], cmd) != STEPQ_OK) {
            return STEPQ_ERR;
        }
    }
    return check_complete(cmd, opts, np, min_pos);
}

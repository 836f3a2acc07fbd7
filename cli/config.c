#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../base/common.h"
#include "../base/outfile.h"
#include "plot.h"

// dst <- a copy of src (a scalar, array, list or group), added under parent with src's name
static int copy_into(config_setting_t* parent, const config_setting_t* src);

static int copy_value(config_setting_t* dst, const config_setting_t* src) {
    switch (config_setting_type(src)) {
    case CONFIG_TYPE_INT: return config_setting_set_int(dst, config_setting_get_int(src));
    case CONFIG_TYPE_INT64: return config_setting_set_int64(dst, config_setting_get_int64(src));
    case CONFIG_TYPE_FLOAT: return config_setting_set_float(dst, config_setting_get_float(src));
    case CONFIG_TYPE_BOOL: return config_setting_set_bool(dst, config_setting_get_bool(src));
    case CONFIG_TYPE_STRING: return config_setting_set_string(dst, config_setting_get_string(src));
    default:  // array, list, group: the elements
        for (int i = 0; i < config_setting_length(src); i++)
            if (!copy_into(dst, config_setting_get_elem(src, (unsigned)i))) return CONFIG_FALSE;
        return CONFIG_TRUE;
    }
}

static int copy_into(config_setting_t* parent, const config_setting_t* src) {
    const char* name = config_setting_name(src);
    config_setting_t* old = name ? config_setting_get_member(parent, name) : NULL;
    if (old && config_setting_is_group(old) && config_setting_is_group(src)) {  // merge groups
        for (int i = 0; i < config_setting_length(src); i++)
            if (!copy_into(old, config_setting_get_elem(src, (unsigned)i))) return CONFIG_FALSE;
        return CONFIG_TRUE;
    }
    if (old) config_setting_remove(parent, name);
    config_setting_t* dst = config_setting_add(parent, name, config_setting_type(src));
    return dst && copy_value(dst, src);
}

// the root's keys that name outputs (a quick run moves them; every run checks them first)
static const char* const root_outputs[] = {"output", "report"};
// a string setting's value, or NULL (absent, or not a string)
static const char* string_of(const config_setting_t* s) {
    return s && config_setting_type(s) == CONFIG_TYPE_STRING ? config_setting_get_string(s) : NULL;
}

static int apply_quick(stepq_cfgfile* cf, int quick) {
    config_setting_t* root = config_root_setting(&cf->cfg);
    config_setting_t* q = config_setting_get_member(root, "quick");
    if (q && !config_setting_is_group(q)) {
        stepq_error("%s:%d: 'quick' must be a group { ... } of the keys a quick run changes", cfg_file_of(cf, q),
                    config_setting_source_line(q));
        return STEPQ_ERR;
    }
    const config_setting_t* inner = q ? config_setting_get_member(q, "quick") : NULL;
    if (inner) {  // (copying it would replace the group being copied)
        stepq_error("%s:%d: a 'quick' key inside the quick group", cfg_file_of(cf, inner), config_setting_source_line(inner));
        return STEPQ_ERR;
    }
    if (q && quick)
        for (int i = 0; i < config_setting_length(q); i++)
            if (!copy_into(root, config_setting_get_elem(q, (unsigned)i))) {
                stepq_error("%s: cannot apply the quick group", cf->path);
                return STEPQ_ERR;
            }
    if (q) config_setting_remove(root, "quick");
    cf->quick = quick;
    // a quick run writes under results/quick/, never over a full run's results or plan: every
    // path of the root under results/ moves there
    for (int i = 0; quick && i < config_setting_length(root); i++) {
        config_setting_t* s = config_setting_get_elem(root, (unsigned)i);
        const char* v = string_of(s);
        if (!v || strncmp(v, "results/", 8)) continue;
        char moved[4096];
        snprintf(moved, sizeof moved, "results/quick/%s", v + 8);
        config_setting_set_string(s, moved);
    }
    // and an output elsewhere goes to quick/ in its own directory (out/x.h5 -> out/quick/x.h5),
    // unless its path already names a quick/ directory
    for (int i = 0; quick && i < 2; i++) {
        config_setting_t* s = config_setting_get_member(root, root_outputs[i]);
        const char* v = string_of(s);
        if (!v || !strncmp(v, "quick/", 6) || strstr(v, "/quick/")) continue;
        const char* slash = strrchr(v, '/');
        const int dir = slash ? (int)(slash - v + 1) : 0;
        char moved[4096];
        snprintf(moved, sizeof moved, "%.*squick/%s", dir, v, v + dir);
        config_setting_set_string(s, moved);
        cf->quick_beside = 1;
    }
    return STEPQ_OK;
}

// the files a driver writes beside its output (stepq_sibling): tables, the figure, samples
static const char* const sibling_suffixes[] = STEPQ_SIBLING_SUFFIXES;

// the run's outputs (the root's output and report) checked before any work: not a directory,
// device or FIFO, not an input (this config, the plan it names), and the report not the output
// or a file written beside it
static int check_outputs(const stepq_cfgfile* cf) {
    const config_setting_t* root = config_root_setting(&cf->cfg);
    const char* pv = string_of(config_setting_get_member(root, "plan"));
    const config_setting_t* rs = config_setting_get_member(root, "report");
    const char *ov = string_of(config_setting_get_member(root, "output")), *rv = string_of(rs);
    if (ov && rv) {  // the report over the output, or over a file a driver writes beside it
        char clash[4200] = "";
        if (stepq_same_file(rv, ov)) snprintf(clash, sizeof clash, "the output");
        for (size_t i = 0; !clash[0] && i < sizeof sibling_suffixes / sizeof *sibling_suffixes; i++) {
            char sib[4096];
            stepq_sibling(sib, sizeof sib, ov, sibling_suffixes[i]);
            if (stepq_same_file(rv, sib)) snprintf(clash, sizeof clash, "a file written beside the output, %s", sib);
        }
        if (clash[0]) {
            stepq_error("%s:%d: 'report' names %s, %s: one would write over the other (choose another report path)",
                        cfg_file_of(cf, rs), config_setting_source_line(rs), rv, clash);
            return STEPQ_ERR;
        }
    }
    for (int i = 0; i < 2; i++) {
        const config_setting_t* s = config_setting_get_member(root, root_outputs[i]);
        const char* v = string_of(s);
        if (!v) continue;
        if (pv && stepq_same_file(v, pv)) {
            stepq_error("%s:%d: '%s' and 'plan' name one file, %s: the run would write over the plan it reads",
                        cfg_file_of(cf, s), config_setting_source_line(s), root_outputs[i], v);
            return STEPQ_ERR;
        }
        if (stepq_output_check(v) != STEPQ_OK) return STEPQ_ERR;
    }
    return STEPQ_OK;
}

// a NUL byte at line: refused (libconfig would end the text there)
static int nul_byte(const char* path, int line) {
    stepq_error("%s:%d: a NUL byte: a config is text (is it UTF-16, or not a config?)", path, line);
    return STEPQ_ERR;
}

// past the string opening at t[*i] (its escapes, its newlines counted into *line): *i at its
// closing quote; STEPQ_ERR for a NUL byte inside it
static int skip_string(const char* t, size_t n, size_t* i, int* line, const char* path) {
    for ((*i)++; *i < n && t[*i] != '"'; (*i)++) {
        if (t[*i] == '\\' && *i + 1 < n) (*i)++;
        if (t[*i] == '\n') (*line)++;
        if (t[*i] == 0) return nul_byte(path, *line);
    }
    return STEPQ_OK;
}

// 1 when a comment opens at t[*i], *i then at its last byte (a line comment's before the newline);
// a block comment's newlines are counted into *line
static int skip_comment(const char* t, size_t n, size_t* i, int* line) {
    const char c = t[*i];
    if (c == '#' || (c == '/' && *i + 1 < n && t[*i + 1] == '/')) {  // to the end of the line
        while (*i + 1 < n && t[*i + 1] != '\n' && t[*i + 1]) (*i)++;
        return 1;
    }
    if (c == '/' && *i + 1 < n && t[*i + 1] == '*') {
        for (*i += 2; *i + 1 < n && !(t[*i] == '*' && t[*i + 1] == '/'); (*i)++)
            if (t[*i] == '\n') (*line)++;
        (*i)++;
        return 1;
    }
    return 0;
}

// a number's token from t[i]: its digits end at *digits_end, *is_float when it has a point or an
// exponent; returns where its L suffixes end, their count in *longs
static size_t number_token(const char* t, size_t n, size_t i, int hex, size_t* digits_end, int* is_float,
                           int* longs) {
    size_t j;
    *is_float = 0;
    for (j = i + (hex ? 2 : 0); j < n; j++) {
        const char d = t[j];
        if ((d >= '0' && d <= '9') || (hex && ((d >= 'a' && d <= 'f') || (d >= 'A' && d <= 'F')))) continue;
        if (!hex && (d == '.' || d == 'e' || d == 'E')) {
            *is_float = 1;
            if ((d == 'e' || d == 'E') && j + 1 < n && (t[j + 1] == '+' || t[j + 1] == '-')) j++;
            continue;
        }
        break;
    }
    *digits_end = j;
    *longs = 0;
    while (j < n && (t[j] == 'L' || t[j] == 'l')) j++, (*longs)++;
    return j;
}

// the integer of digits t[i, digits_end): refused when it does not fit 64 bits, or needs 64 and
// has no L (the sign is the nearest byte before it but blanks)
static int check_integer(const char* t, size_t i, size_t digits_end, int hex, int longs, const char* path,
                         int line) {
    int neg = 0;
    for (size_t k = i; k-- > 0;) {
        if (t[k] == ' ' || t[k] == '\t') continue;
        neg = t[k] == '-';
        break;
    }
    errno = 0;
    const unsigned long long v = strtoull(t + i, NULL, hex ? 16 : 10);
    const int over64 = errno == ERANGE || v > (neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX);
    const int over32 = v > (neg ? 2147483648ull : 2147483647ull);
    const int len = (int)(digits_end - i);
    if (over64) {
        stepq_error("%s:%d: the integer %.*s does not fit in 64 bits", path, line, len, t + i);
        return STEPQ_ERR;
    }
    if (over32 && !longs) {
        stepq_error("%s:%d: the integer %.*s needs 64 bits: write it %.*sL (libconfig reads an integer "
                    "without L as 32 bits and would cut it; in an array [...], every element then takes an L)", path, line,
                    len, t + i, len, t + i);
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

// What libconfig 1.5 would read wrongly without a word: an integer literal without an L suffix
// is read as 32 bits (decode = 4294967424 became 128, 99999999999999999999 became -1), and a NUL
// byte ends the text. Each is refused naming the file and line. Strings and comments are skipped.
static int check_text(const char* t, size_t n, const char* path) {
    int line = 1;
    for (size_t i = 0; i < n; i++) {
        const char c = t[i];
        if (c == '\n') line++;
        if (c == 0) return nul_byte(path, line);
        if (c == '"') {  // a string, with its escapes
            if (skip_string(t, n, &i, &line, path)) return STEPQ_ERR;
            continue;
        }
        if (skip_comment(t, n, &i, &line)) continue;
        const char p = i ? t[i - 1] : ' ';
        if (!(c >= '0' && c <= '9') || (p >= '0' && p <= '9') || (p >= 'a' && p <= 'z') || (p >= 'A' && p <= 'Z') ||
            p == '_' || p == '.')
            continue;
        // a number: its token, then whether it is an integer, its suffix and its magnitude
        const int hex = c == '0' && i + 1 < n && (t[i + 1] == 'x' || t[i + 1] == 'X');
        size_t digits_end;
        int is_float, longs;
        const size_t j = number_token(t, n, i, hex, &digits_end, &is_float, &longs);
        if (!is_float && check_integer(t, i, digits_end, hex, longs, path, line)) return STEPQ_ERR;
        i = j - 1;
    }
    return STEPQ_OK;
}

// *text (*got bytes) += the n bytes at a, NUL-terminated
static void append(char** text, size_t* got, const char* a, size_t n) {
    char* t = mallocCheck(*got + n + 1);
    memcpy(t, *text, *got);
    memcpy(t + *got, a, n);
    t[*got + n] = 0;
    free(*text);
    *text = t;
    *got += n;
}

// The files `text` @includes (libconfig reads them itself, relative to the working directory),
// each checked as the config is (check_text) and appended to the stored text cf->text (*got
// bytes), so that a result's config holds everything that decided it; depth: of nested includes
static int add_includes(stepq_cfgfile* cf, size_t* got, const char* text, const char* path, int depth) {
    int line = 1;
    for (const char* l = text; *l; line++) {
        const char* e = strchr(l, '\n');
        const size_t len = e ? (size_t)(e - l) : strlen(l);
        const char* a = l;
        while (a < l + len && (*a == ' ' || *a == '\t')) a++;
        if ((size_t)(l + len - a) >= 8 && !strncmp(a, "@include", 8)) {
            const char* q1 = memchr(a, '"', len - (size_t)(a - l));
            const char* q2 = q1 ? memchr(q1 + 1, '"', len - (size_t)(q1 + 1 - l)) : NULL;
            if (!q2 || depth >= 10) {
                stepq_error("%s:%d: %s", path, line, !q2 ? "@include needs a file name in quotes" : "@include nested too deep");
                return STEPQ_ERR;
            }
            char* name = strndup(q1 + 1, (size_t)(q2 - q1 - 1));
            size_t r;
            char* inc = stepq_read_file(name, STEPQ_CONFIG_MAX, &r);
            if (!inc) {
                stepq_error("%s:%d: cannot read the included file %s: %s", path, line, name,
                            errno == EFBIG ? "it holds more than 16 MiB, which no config does" : strerror(errno));
                free(name);
                return STEPQ_ERR;
            }
            int rc = check_text(inc, r, name);
            if (!rc) {  // "# @include "NAME" (line L of PATH):" then its text
                char head[8192];
                const int h = snprintf(head, sizeof head, "\n# @include \"%s\" (line %d of %s):\n", name, line, path);
                append(&cf->text, got, head, (size_t)h);
                append(&cf->text, got, inc, r);
                rc = add_includes(cf, got, inc, name, depth + 1);
            }
            free(inc);
            free(name);
            if (rc) return STEPQ_ERR;
        }
        if (!e) break;
        l = e + 1;
    }
    return STEPQ_OK;
}

int cfg_load(stepq_cfgfile* cf, const char* path, int quick) {
    memset(cf, 0, sizeof *cf);
    cf->path = path;
    size_t got;
    cf->text = stepq_read_file(path, STEPQ_CONFIG_MAX, &got);
    if (!cf->text) {
        stepq_error("%s: cannot open config file: %s", path,
                    errno == EFBIG ? "it holds more than 16 MiB, which no config does" : strerror(errno));
        return STEPQ_ERR;
    }
    config_init(&cf->cfg);
    // libconfig parses the config's own text (it reads the @included files itself); the text
    // stored with the results is that text followed by every included file's
    char* own = mallocCheck(got + 1);  // every byte read (a NUL inside ends a strdup)
    memcpy(own, cf->text, got + 1);
    int bad = check_text(own, got, path) != STEPQ_OK || add_includes(cf, &got, own, path, 0) != STEPQ_OK;
    if (!bad && !config_read_string(&cf->cfg, own)) {
        const char* in = config_error_file(&cf->cfg);  // an included file's name, or NULL: this one
        stepq_error("%s:%d: %s", in ? in : path, config_error_line(&cf->cfg), config_error_text(&cf->cfg));
        bad = 1;
    }
    free(own);
    if (bad) {
        cfg_free(cf);
        return STEPQ_ERR;
    }
    stepq_note_input(path);  // no output may replace the config
    if (apply_quick(cf, quick) != STEPQ_OK || check_outputs(cf) != STEPQ_OK) {
        cfg_free(cf);
        return STEPQ_ERR;
    }
    if (quick) {  // the text stored with every result says so
        static const char note[] = "\n# run with --quick: the quick group applied, results under results/quick/\n";
        static const char beside[] = "\n# run with --quick: the quick group applied, results under results/quick/ or, for an "
                                     "output elsewhere, in quick/ beside it\n";
        const char* n = cf->quick_beside ? beside : note;
        const size_t len = strlen(n) + 1;
        char* t = callocCheck(got + len, 1);
        memcpy(t, cf->text, got);
        memcpy(t + got, n, len);
        free(cf->text);
        cf->text = t;
    }
    return STEPQ_OK;
}

void cfg_free(stepq_cfgfile* cf) {
    config_destroy(&cf->cfg);
    free(cf->text);
    cf->text = NULL;
}

static int line_of(const config_setting_t* s) { return s ? (int)config_setting_source_line(s) : 0; }

const char* cfg_file_of(const stepq_cfgfile* cf, const config_setting_t* s) {
    const char* f = s ? config_setting_source_file(s) : NULL;
    return f ? f : cf->path;
}

int cfg_check_keys(const stepq_cfgfile* cf, const config_setting_t* group,
                   const char* const* allowed) {
    int n = config_setting_length(group);
    for (int i = 0; i < n; i++) {
        const config_setting_t* s = config_setting_get_elem(group, (unsigned)i);
        const char* name = config_setting_name(s);
        int ok = 0;
        for (const char* const* a = allowed; *a && !ok; a++) ok = strcmp(*a, name) == 0;
        if (ok) continue;
        char known[512] = "";
        for (const char* const* a = allowed; *a; a++) {
            strncat(known, a == allowed ? "" : ", ", sizeof known - strlen(known) - 1);
            strncat(known, *a, sizeof known - strlen(known) - 1);
        }
        stepq_error("%s:%d: unknown key '%s' (known here: %s)", cfg_file_of(cf, s), line_of(s), name, known);
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

static config_setting_t* member(const stepq_cfgfile* cf, const config_setting_t* g,
                                const char* name, int required, int* err) {
    config_setting_t* s = config_setting_get_member(g ? g : config_root_setting(&cf->cfg), name);
    if (!s && required) {
        stepq_error("%s:%d: missing required key '%s'", cf->path,
                    g ? line_of(g) : 1, name);
        *err = 1;
    }
    return s;
}

static const char* type_name(int t) {
    switch (t) {
    case CONFIG_TYPE_INT: case CONFIG_TYPE_INT64: return "an integer";
    case CONFIG_TYPE_FLOAT: return "a number";
    case CONFIG_TYPE_STRING: return "a string";
    case CONFIG_TYPE_BOOL: return "a boolean";
    case CONFIG_TYPE_ARRAY: return "an array";
    case CONFIG_TYPE_LIST: return "a list";
    case CONFIG_TYPE_GROUP: return "a group";
    default: return "a setting";
    }
}

static int type_error(const stepq_cfgfile* cf, const config_setting_t* s, const char* want) {
    stepq_error("%s:%d: '%s' must be %s, not %s", cfg_file_of(cf, s), line_of(s), config_setting_name(s),
                want, type_name(config_setting_type(s)));
    return STEPQ_ERR;
}

int cfg_int(const stepq_cfgfile* cf, const config_setting_t* g, const char* name, long long* out,
            int required, long long def, long long lo, long long hi) {
    int err = 0;
    config_setting_t* s = member(cf, g, name, required, &err);
    if (err) return STEPQ_ERR;
    if (!s) { *out = def; return STEPQ_OK; }
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64) return type_error(cf, s, "an integer");
    *out = config_setting_get_int64(s);
    if (*out < lo || *out > hi) {
        stepq_error("%s:%d: '%s' = %lld is out of range [%lld, %lld]", cfg_file_of(cf, s), line_of(s), name,
                    *out, lo, hi);
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

int cfg_bool(const stepq_cfgfile* cf, const config_setting_t* g, const char* name, int* out, int def) {
    int err = 0;
    config_setting_t* s = member(cf, g, name, 0, &err);
    if (err) return STEPQ_ERR;
    if (!s) { *out = def; return STEPQ_OK; }
    if (config_setting_type(s) != CONFIG_TYPE_BOOL) return type_error(cf, s, "true or false");
    *out = config_setting_get_bool(s);
    return STEPQ_OK;
}

int cfg_float(const stepq_cfgfile* cf, const config_setting_t* g, const char* name, double* out,
              int required, double def, double lo, double hi) {
    int err = 0;
    config_setting_t* s = member(cf, g, name, required, &err);
    if (err) return STEPQ_ERR;
    if (!s) { *out = def; return STEPQ_OK; }
    int t = config_setting_type(s);
    if (t == CONFIG_TYPE_FLOAT) *out = config_setting_get_float(s);
    else if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) *out = (double)config_setting_get_int64(s);
    else return type_error(cf, s, "a number");
    if (!(*out >= lo && *out <= hi)) {
        stepq_error("%s:%d: '%s' = %g is out of range [%g, %g]", cfg_file_of(cf, s), line_of(s), name, *out, lo, hi);
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

int cfg_str(const stepq_cfgfile* cf, const config_setting_t* g, const char* name,
            const char** out, int required, const char* def) {
    int err = 0;
    config_setting_t* s = member(cf, g, name, required, &err);
    if (err) return STEPQ_ERR;
    if (!s) { *out = def; return STEPQ_OK; }
    if (config_setting_type(s) != CONFIG_TYPE_STRING) return type_error(cf, s, "a string");
    *out = config_setting_get_string(s);
    return STEPQ_OK;
}

// The list `name` with every element of type `type`; NULL (and *n = 0) when absent or empty.
static config_setting_t* typed_list(const stepq_cfgfile* cf, const config_setting_t* g,
                                    const char* name, int required, int type, const char* what,
                                    int* n, int* err) {
    config_setting_t* s = member(cf, g, name, required, err);
    *n = 0;
    if (!s) return NULL;
    if (!config_setting_is_array(s) && !config_setting_is_list(s)) {
        type_error(cf, s, "a list [...]");
        *err = 1;
        return NULL;
    }
    for (int i = 0; i < config_setting_length(s); i++) {
        config_setting_t* e = config_setting_get_elem(s, (unsigned)i);
        const int t = config_setting_type(e);
        if (t != type && !(type == CONFIG_TYPE_INT && t == CONFIG_TYPE_INT64)) {
            stepq_error("%s:%d: element %d of '%s' must be %s", cfg_file_of(cf, e), line_of(e), i, name, what);
            *err = 1;
            return NULL;
        }
    }
    *n = config_setting_length(s);
    return *n ? s : NULL;
}

int cfg_i64_list(const stepq_cfgfile* cf, const config_setting_t* g, const char* name, long long** out, int* n,
                 int required, long long lo, long long hi) {
    int err = 0;
    config_setting_t* s = typed_list(cf, g, name, required, CONFIG_TYPE_INT, "an integer", n, &err);
    *out = s ? mallocCheck(sizeof(long long) * (size_t)*n) : NULL;
    for (int i = 0; s && i < *n && !err; i++) {
        const long long v = (*out)[i] = config_setting_get_int64_elem(s, i);
        if (v < lo || v > hi) {
            const config_setting_t* e = config_setting_get_elem(s, (unsigned)i);
            stepq_error("%s:%d: element %d of '%s' = %lld is out of range [%lld, %lld]", cfg_file_of(cf, e),
                        line_of(e), i, name, v, lo, hi);
            err = 1;
        }
    }
    if (err) {
        free(*out);
        *out = NULL;
    }
    return err ? STEPQ_ERR : STEPQ_OK;
}

int cfg_int_list(const stepq_cfgfile* cf, const config_setting_t* g, const char* name,
                 int** out, int* n, int required) {
    long long* v;  // read as 64 bits and range-checked there, then narrowed
    *out = NULL;
    if (cfg_i64_list(cf, g, name, &v, n, required, INT_MIN, INT_MAX) != STEPQ_OK) return STEPQ_ERR;
    if (v) *out = mallocCheck(sizeof(int) * (size_t)*n);
    for (int i = 0; v && i < *n; i++) (*out)[i] = (int)v[i];
    free(v);
    return STEPQ_OK;
}

int cfg_str_list(const stepq_cfgfile* cf, const config_setting_t* g, const char* name,
                 const char*** out, int* n, int required) {
    int err = 0;
    config_setting_t* s = typed_list(cf, g, name, required, CONFIG_TYPE_STRING, "a string", n, &err);
    *out = s ? mallocCheck(sizeof(char*) * (size_t)*n) : NULL;
    for (int i = 0; s && i < *n; i++) (*out)[i] = config_setting_get_string_elem(s, i);
    return err ? STEPQ_ERR : STEPQ_OK;
}

config_setting_t* cfg_group(const stepq_cfgfile* cf, const config_setting_t* g, const char* name,
                            int required, int* err) {
    config_setting_t* s = member(cf, g, name, required, err);
    if (s && !config_setting_is_group(s)) {
        type_error(cf, s, "a group { ... }");
        *err = 1;
        return NULL;
    }
    return s;
}

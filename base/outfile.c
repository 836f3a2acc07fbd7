// outfile.c: atomic outputs; see outfile.h.
#include "outfile.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common.h"
#include "ranks.h"

#define MAX_PENDING 16
static struct { char* tmp; char* path; } pending[MAX_PENDING];  // temporary name, final path
static struct input { dev_t dev; ino_t ino; uint64_t xxh3; char* path; } * inputs;  // as many as are read
static int n_inputs, cap_inputs;
static int inputs_generation = 1;  // advanced by stepq_inputs_reset: a new run's inputs

void stepq_note_input(const char* path) {
    struct stat st;  // regular files only: a pipe's bytes cannot be read twice
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return;
    for (int i = 0; i < n_inputs; i++)
        if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino) return;
    if (n_inputs == cap_inputs) {
        cap_inputs = cap_inputs ? 2 * cap_inputs : 16;
        struct input* grown = realloc(inputs, sizeof *inputs * (size_t)cap_inputs);
        stepq_assert(grown != NULL);
        inputs = grown;
    }
    struct input* in = &inputs[n_inputs++];
    in->dev = st.st_dev;
    in->ino = st.st_ino;
    if (stepq_file_xxh3(&in->xxh3, path) != STEPQ_OK) in->xxh3 = 0;
    in->path = strdup(path);
}

void stepq_inputs_reset(void) {
    inputs_generation++;
    for (int i = 0; i < n_inputs; i++) free(inputs[i].path);
    n_inputs = 0;
}

void stepq_inputs_forget_since(int n) {
    for (int i = n < 0 ? 0 : n; i < n_inputs; i++) free(inputs[i].path);
    if (n >= 0 && n < n_inputs) n_inputs = n;
}

int stepq_input_xxh3(uint64_t* out, const char* path) {
    struct stat st;
    if (stat(path, &st) == 0)
        for (int i = 0; i < n_inputs; i++)
            if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino && inputs[i].xxh3) {
                *out = inputs[i].xxh3;
                return STEPQ_OK;
            }
    return stepq_file_xxh3(out, path);
}

void stepq_forget_input(const char* path) {
    struct stat st;
    if (stat(path, &st) != 0) return;
    for (int i = 0; i < n_inputs; i++)
        if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino) {
            free(inputs[i].path);
            inputs[i--] = inputs[--n_inputs];
        }
}

int stepq_inputs_generation(void) { return inputs_generation; }
int stepq_inputs_count(void) { return n_inputs; }
const char* stepq_input_path(int i) { return inputs[i].path; }
uint64_t stepq_input_xxh3_of(int i) { return inputs[i].xxh3; }

int stepq_inputs_check_ranks(void) {
    // once a run, at its first output: what it has read by then (the config, traces, plans, a
    // model); a plan it writes and reads back is rank 0's alone, and is not compared
    static int checked;
    if (stepq_nranks() == 1 || checked == inputs_generation) return STEPQ_OK;
    checked = inputs_generation;
    if (stepq_ranks_check_command()) return STEPQ_ERR;
    char what[4200];
    snprintf(what, sizeof what, "the number of input files (rank 0 read %d)", n_inputs);
    if (stepq_ranks_same((uint64_t)n_inputs, what)) return STEPQ_ERR;
    for (int i = 0; i < n_inputs; i++) {
        snprintf(what, sizeof what, "input %d, %s (its path, or its XXH3 %016llx on rank 0)", i, inputs[i].path,
                 (unsigned long long)inputs[i].xxh3);
        if (stepq_ranks_same(stepq_xxh3(inputs[i].xxh3, inputs[i].path, strlen(inputs[i].path)), what))
            return STEPQ_ERR;
    }
    return STEPQ_OK;
}

uint64_t stepq_inputs_xxh3(void) {
    uint64_t k = 0;
    for (int i = 0; i < n_inputs; i++) k = stepq_xxh3(k, &inputs[i].xxh3, sizeof inputs[i].xxh3);
    return k;
}

char* stepq_inputs_describe(void) {
    size_t n = 1;
    for (int i = 0; i < n_inputs; i++) n += strlen(inputs[i].path) + 24;  // " xxh3=" + 16 hex + '\n'
    char* buf = mallocCheck(n);
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < n_inputs; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s xxh3=%016" PRIx64, i ? "\n" : "", inputs[i].path, inputs[i].xxh3);
    return buf;
}

static void remove_pending(void) {
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i].tmp) {
            remove(pending[i].tmp);
            free(pending[i].tmp);
            free(pending[i].path);
            pending[i].tmp = pending[i].path = NULL;
        }
}

// Ctrl-C or a kill while a file is being written: unlink what is pending (unlink is
// async-signal-safe), then die of the signal as before.
static void on_signal(int sig) {
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i].tmp) unlink(pending[i].tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

// the refusals: a directory, anything else that is not a regular file (a device, a FIFO: it
// would be replaced by one), an input of this run, a directory that cannot be written (or, with
// dir_must_exist, that does not exist: the front ends check before they make it)
static int check(const char* path, int dir_must_exist) {
    struct stat st;
    const size_t len = strlen(path);
    if (!len || path[len - 1] == '/') {
        stepq_error("cannot write '%s': %s (give a file name)", path, len ? "it names a directory" : "the output path is empty");
        return STEPQ_ERR;
    }
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            stepq_error("cannot write %s: it is a directory (give a file name)", path);
            return STEPQ_ERR;
        }
        if (!S_ISREG(st.st_mode)) {
            stepq_error("cannot write %s: it is %s, not a regular file, and the output would replace it (give "
                        "another path)", path, S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                    : S_ISFIFO(st.st_mode)                   ? "a FIFO"
                                                    : S_ISSOCK(st.st_mode)                   ? "a socket"
                                                                                             : "a special file");
            return STEPQ_ERR;
        }
        for (int i = 0; i < n_inputs; i++)
            if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino) {
                stepq_error("cannot write %s: it is %s, an input of this run, which the output would "
                            "replace (choose another output path)", path, inputs[i].path);
                return STEPQ_ERR;
            }
    }
    char* copy = strdup(path);
    const char* dir = dirname(copy);
    struct stat ds;
    const int is_file = stat(dir, &ds) == 0 && !S_ISDIR(ds.st_mode);
    int ok = !is_file && access(dir, W_OK | X_OK) == 0;
    int e = is_file ? ENOTDIR : errno;
    if (!ok && e == ENOENT && !dir_must_exist) ok = 1;
    if (!ok)
        stepq_error("cannot write %s: its directory %s %s", path, dir,
                    e == ENOENT ? "does not exist" : is_file ? "is a file, not a directory" : e == ENOTDIR ? "has a file, not a directory, on its path" : "is not writable");
    free(copy);
    return ok ? STEPQ_OK : STEPQ_ERR;
}

int stepq_output_check(const char* path) { return check(path, 0); }

int stepq_output_prepare(const char* path) {
    if (stepq_output_check(path) != STEPQ_OK) return STEPQ_ERR;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    char* slash = strrchr(buf, '/');
    if (!slash || slash == buf) return STEPQ_OK;
    *slash = 0;
    for (char* p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) && errno != EEXIST) break;
            *p = '/';
        }
    if (mkdir(buf, 0777) && errno != EEXIST) {
        stepq_error("cannot create directory %s: %s", buf, strerror(errno));
        return STEPQ_ERR;
    }
    return STEPQ_OK;
}

int stepq_output_space(const char* path, double bytes) {
    char* copy = strdup(path);
    char* dir = dirname(copy);
    struct statvfs vs;
    // the directory may not exist yet (the front ends make it): its nearest existing ancestor
    while (statvfs(dir, &vs) != 0 && strcmp(dir, "/") && strcmp(dir, ".")) dir = dirname(dir);
    int rc = STEPQ_OK;
    if (statvfs(dir, &vs) == 0) {
        const double avail = (double)vs.f_bavail * (double)vs.f_frsize;
        if (bytes > avail) {
            stepq_error("cannot write %s: it would take about %.3g GB and %s has %.3g GB free", path, bytes / 1e9,
                        dir, avail / 1e9);
            rc = STEPQ_ERR;
        }
    }
    free(copy);
    return rc;
}

int stepq_tmpfile(char** tmp, const char* path) {
    const size_t n = strlen(path) + 12;
    *tmp = mallocCheck(n);
    snprintf(*tmp, n, "%s.tmp.XXXXXX", path);
    const int fd = mkstemp(*tmp);
    if (fd >= 0) {  // the permissions a new file gets (mkstemp's are 0600)
        const mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    }
    return fd;
}

// out <- path's directory, resolved, then '/' and its last component
static void canonical(char* out, size_t n, const char* path) {
    char* d = strdup(path);
    char* b = strdup(path);
    const char* dir = dirname(d);
    const char* base = basename(b);
    char real[PATH_MAX];
    if (realpath(dir, real)) {
        snprintf(out, n, "%s/%s", real, base);
    } else {  // not made yet: lexically, from the working directory
        char abs[2 * PATH_MAX], cwd[PATH_MAX];
        snprintf(abs, sizeof abs, "%s/%s", dir[0] == '/' ? "" : getcwd(cwd, sizeof cwd) ? cwd : ".", dir);
        size_t o = 0;  // components of abs, with "." and "" dropped and ".." taking one back
        out[0] = 0;
        for (char *save = NULL, *c = strtok_r(abs, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
            if (!strcmp(c, ".")) continue;
            if (!strcmp(c, "..")) {
                while (o > 0 && out[--o] != '/') {}
                out[o] = 0;
                continue;
            }
            o += (size_t)snprintf(out + o, o < n ? n - o : 0, "/%s", c);
            if (o >= n) o = n - 1;
        }
        snprintf(out + o, o < n ? n - o : 0, "/%s", base);
    }
    free(d);
    free(b);
}

int stepq_same_file(const char* a, const char* b) {
    struct stat x, y;
    if (stat(a, &x) == 0 && stat(b, &y) == 0) return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
    char ca[2 * PATH_MAX], cb[2 * PATH_MAX];
    canonical(ca, sizeof ca, a);
    canonical(cb, sizeof cb, b);
    return !strcmp(ca, cb);
}

// every rank but 0 of an MPI run writes its copy of each output here, to nothing (ranks.h)
static const char nowhere[] = "/dev/null";

int stepq_output_begin(char** tmp, const char* path) {
    static int registered = 0;
    *tmp = NULL;
    if (stepq_rank() != 0) {  // never registered: nothing of this rank's to remove
        *tmp = strdup(nowhere);
        return STEPQ_OK;
    }
    if (!registered) {
        atexit(remove_pending);
        stepq_ranks_before_abort(remove_pending);  // MPI_Abort runs no atexit hook
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        // a file-size limit (ulimit -f) then fails a write with EFBIG instead of killing stepq
        signal(SIGXFSZ, SIG_IGN);
        registered = 1;
    }
    if (check(path, 1)) return STEPQ_ERR;
    int slot = -1;
    for (int i = 0; i < MAX_PENDING && slot < 0; i++)
        if (!pending[i].tmp) slot = i;
    stepq_assert(slot >= 0 && "too many output files open at once");
    // unique to this process: two runs writing one output each write their own
    char* t;
    int fd = stepq_tmpfile(&t, path);
    if (fd < 0) {
        stepq_error("cannot create %s: %s", t, strerror(errno));
        free(t);
        return STEPQ_ERR;
    }
    close(fd);
    pending[slot].tmp = strdup(t);
    pending[slot].path = strdup(path);
    *tmp = t;
    return STEPQ_OK;
}

char* stepq_output_pending(const char* path) {
    if (stepq_rank() != 0) return strdup(nowhere);
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i].path && !strcmp(pending[i].path, path)) return strdup(pending[i].tmp);
    return NULL;
}

int stepq_output_end(char* tmp, const char* path, int ok) {
    int rc = STEPQ_OK;
    if (stepq_rank() != 0) {
        free(tmp);
        return rc;
    }
    if (ok && rename(tmp, path) != 0) {
        stepq_error("cannot move %s to %s: %s", tmp, path, strerror(errno));
        rc = STEPQ_ERR;
    }
    if (!ok || rc) remove(tmp);
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i].tmp && strcmp(pending[i].tmp, tmp) == 0) {
            free(pending[i].tmp);
            free(pending[i].path);
            pending[i].tmp = pending[i].path = NULL;
        }
    free(tmp);
    return rc;
}

// the open text outputs and their temporary names
static struct { FILE* fp; char* tmp; } texts[MAX_PENDING];

FILE* stepq_text_create(const char* path) {
    char* tmp;
    if (stepq_output_begin(&tmp, path)) return NULL;
    FILE* fp = fopen(tmp, "w");
    if (!fp) {
        stepq_error("cannot create %s: %s", tmp, strerror(errno));
        stepq_output_end(tmp, path, 0);
        return NULL;
    }
    for (int i = 0; i < MAX_PENDING; i++)
        if (!texts[i].fp) {
            texts[i].fp = fp;
            texts[i].tmp = tmp;
            return fp;
        }
    stepq_assert(!"too many text outputs open at once");
    return NULL;
}

static char* take_tmp(FILE* fp) {
    for (int i = 0; i < MAX_PENDING; i++)
        if (texts[i].fp == fp) {
            char* t = texts[i].tmp;
            texts[i].fp = NULL;
            texts[i].tmp = NULL;
            return t;
        }
    stepq_assert(!"not a text output of stepq_text_create");
    return NULL;
}

int stepq_text_commit(FILE* fp, const char* path) {
    char* tmp = take_tmp(fp);
    int bad = ferror(fp) != 0;
    int e = errno;
    bad |= fclose(fp) != 0;
    if (bad) {
        if (errno) e = errno;
        if (e) stepq_error("cannot write %s: %s; nothing was left there", path, strerror(e));
        else stepq_error("cannot write %s (disk full or file too large?); nothing was left there", path);
    }
    return stepq_output_end(tmp, path, !bad) || bad ? STEPQ_ERR : STEPQ_OK;
}

void stepq_text_abandon(FILE* fp, const char* path) {
    if (!fp) return;
    char* tmp = take_tmp(fp);
    fclose(fp);
    stepq_output_end(tmp, path, 0);
}

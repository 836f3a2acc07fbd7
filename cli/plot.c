// plot.c: see plot.h.
#include "plot.h"

#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../base/common.h"
#include "../base/ranks.h"

extern char** environ;

void stepq_plot_var(stepq_plot_vars* v, const char* name, const char* fmt, ...) {
    stepq_assert(v->n < STEPQ_PLOT_MAX_VARS);
    for (const char* c = name; *c; c++) stepq_assert((*c >= 'a' && *c <= 'z') || *c == '_');
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    const int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    stepq_assert(len >= 0);
    char* s = mallocCheck((size_t)len + 1);
    vsnprintf(s, (size_t)len + 1, fmt, ap2);
    va_end(ap2);
    v->name[v->n] = name;
    v->value[v->n++] = s;
}

static void vars_free(stepq_plot_vars* v) {
    for (int i = 0; v && i < v->n; i++) free(v->value[i]);
}

int stepq_plot(const char* script, const char* table, const char* png, stepq_plot_vars* vars) {
    if (stepq_rank() != 0) return STEPQ_OK;  // rank 0 draws an MPI run's figures (base/ranks.h)
    char path[4096];
    struct stat sb;
    snprintf(path, sizeof path, "%s", script);
    if (stat(path, &sb) != 0) snprintf(path, sizeof path, "%s/%s", STEPQ_SOURCE_DIR, script);
    // gnuplot -c SCRIPT "datafile outfile NAME..." TABLE PNG VALUE...
    const int n = vars ? vars->n : 0;
    char names[256] = "datafile outfile";
    char* argv[6 + STEPQ_PLOT_MAX_VARS + 1] = {"gnuplot", "-c", path, names, (char*)table, (char*)png};
    for (int i = 0; i < n; i++) {
        strncat(names, " ", sizeof names - strlen(names) - 1);
        strncat(names, vars->name[i], sizeof names - strlen(names) - 1);
        argv[6 + i] = vars->value[i];
    }
    argv[6 + n] = NULL;
    pid_t pid;
    if (posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ) != 0) {
        stepq_error("gnuplot not found, so %s was not drawn (apt-get install gnuplot-nox); the "
                    "HDF5 result is complete", png);
        vars_free(vars);
        return STEPQ_ERR;
    }
    vars_free(vars);
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        stepq_error("gnuplot failed on %s", path);
        remove(png);
        return STEPQ_ERR;
    }
    printf("plot: %s (gnuplot %s)\n", png, path);
    return STEPQ_OK;
}

void stepq_sibling(char* buf, size_t n, const char* output, const char* ext) {
    snprintf(buf, n, "%s", output);
    size_t l = strlen(buf);
    if (l > 3 && !strcmp(buf + l - 3, ".h5")) buf[l - 3] = 0;
    strncat(buf, ext, n - strlen(buf) - 1);
}

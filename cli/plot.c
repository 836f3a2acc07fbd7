// plot.c: see plot.h.
#include "plot.h"

#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../base/common.h"

extern char** environ;

int stepq_plot(const char* script, const char* table, const char* png, const char* vars) {
    char path[4096];
    struct stat sb;
    snprintf(path, sizeof path, "%s", script);
    if (stat(path, &sb) != 0) snprintf(path, sizeof path, "%s/%s", STEPQ_SOURCE_DIR, script);
    char expr[16384];
    snprintf(expr, sizeof expr, "datafile='%s'; outfile='%s'; %s", table, png, vars);
    char* argv[] = {"gnuplot", "-e", expr, path, NULL};
    pid_t pid;
    if (posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ) != 0) {
        stepq_error("gnuplot not found, so %s was not drawn (apt-get install gnuplot-nox); the "
                    "HDF5 result is complete", png);
        return STEPQ_ERR;
    }
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

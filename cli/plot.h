// plot.h: gnuplot renders a PNG from the table a driver writes beside its HDF5 file, with a
// script of plots/ (found relative to the working directory, else to the source tree).
#ifndef STEPQ_PLOT_H
#define STEPQ_PLOT_H

#include <stddef.h>

// The strings a plot script reads (formats, source, ...): names of our own, values that may hold
// anything a user wrote (a description, a path). They reach gnuplot as arguments of
// `gnuplot -c SCRIPT NAMES VALUE...`, which each script assigns as strings (its first lines),
// so no value is ever read as gnuplot or shell code. gnuplot takes nine arguments: the names,
// datafile, outfile and STEPQ_PLOT_MAX_VARS more.
#define STEPQ_PLOT_MAX_VARS 6
typedef struct {
    int n;
    const char* name[STEPQ_PLOT_MAX_VARS];
    char* value[STEPQ_PLOT_MAX_VARS];
} stepq_plot_vars;

// v gets the variable name (an identifier) with the printf-style value
void stepq_plot_var(stepq_plot_vars* v, const char* name, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// gnuplot -c SCRIPT with datafile = TABLE, outfile = PNG and vars (NULL: none), which it frees;
// STEPQ_ERR (message) if gnuplot is missing or fails, and then no PNG is left behind
int stepq_plot(const char* script, const char* table, const char* png, stepq_plot_vars* vars);

// buf <- output with its .h5 suffix replaced by ext, one of the suffixes below
void stepq_sibling(char* buf, size_t n, const char* output, const char* ext);

// The files a driver writes beside its output, each suffix named once: the config check refuses
// a report that names any of them (STEPQ_SIBLING_SUFFIXES lists them all; add a new one to it).
#define STEPQ_SIB_TABLE ".tsv"            // the table a figure is drawn from
#define STEPQ_SIB_FIGURE ".png"           // the figure
#define STEPQ_SIB_FORMATS "_formats.tsv"  // the per-format summary of an experiment
#define STEPQ_SIB_OCTILE "_octile.tsv"    // the octile sweep's table
#define STEPQ_SIB_SAMPLES "_samples.txt"  // generated text
#define STEPQ_SIB_RECALL "_recall.h5"        // the frontier's recall run
#define STEPQ_SIB_NLL_RECALL "_nll_recall.h5"  // its nll run on the recall documents
#define STEPQ_SIB_NLL_PROSE "_nll_prose.h5"    // and on prose
#define STEPQ_SIBLING_SUFFIXES                                                                      \
    {STEPQ_SIB_TABLE,  STEPQ_SIB_FIGURE,     STEPQ_SIB_FORMATS,  STEPQ_SIB_OCTILE, STEPQ_SIB_SAMPLES, \
     STEPQ_SIB_RECALL, STEPQ_SIB_NLL_RECALL, STEPQ_SIB_NLL_PROSE}

#endif

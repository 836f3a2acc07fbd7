// plot.h: gnuplot renders a PNG from the table a driver writes beside its HDF5 file, with a
// script of plots/ (found relative to the working directory, else to the source tree).
#ifndef STEPQ_PLOT_H
#define STEPQ_PLOT_H

#include <stddef.h>

// gnuplot -e "datafile='TABLE'; outfile='PNG'; VARS" SCRIPT; STEPQ_ERR (message) if gnuplot is
// missing or fails, and then no PNG is left behind
int stepq_plot(const char* script, const char* table, const char* png, const char* vars);

// buf <- output with its .h5 suffix replaced by ext (".tsv", ".png")
void stepq_sibling(char* buf, size_t n, const char* output, const char* ext);

#endif

# recall.gp: recall under each state format (method 7.5), small multiples: one panel per format,
# its exact-match accuracy against the distance from a record's value to its query (colour) beside
# the native float32 model's on the same records (grey), each the mean over documents of the
# documents' shares with its 95% CI as a band. Rendered by `stepq run` from the table beside the
# HDF5 file:
#   gnuplot -e "datafile='X.tsv'; outfile='X.png'; formats='int8 int6'; source='...'" plots/recall.gp
# stepq passes the run's variables with `gnuplot -c` (cli/plot.c): ARG1 names them, ARG2 on
# hold their values, which are assigned as strings and never read as gnuplot code
if (ARGC > 0) { do for [i = 1:words(ARG1)] { eval sprintf("%s = ARGV[%d]", word(ARG1, i), i + 1) } }
if (!exists("datafile")) datafile = 'results/recall/gdn.tsv'
if (!exists("outfile")) outfile = 'results/recall/gdn.png'
if (!exists("formats")) formats = 'int8 int6 int4'
if (!exists("source")) source = ''
nf = words(formats)
cols = (nf < 4 ? nf : 4)
rows = (nf + cols - 1) / cols
set terminal pngcairo size (cols < 2 ? 840 : 420*cols),(330*rows+90) font ",10"
array okabe[8] = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999999"]
set output outfile
set multiplot layout rows,cols title sprintf("Exact-match recall against distance (bytes from the value to its query): mean over documents and 95%% CI; grey: native float32\n%s", source) noenhanced
set grid
set key off
set logscale x 2
set xlabel "distance (bytes)"
set ylabel "answers exact"
set yrange [-0.02:1.02]
# a CI that is NaN (one document in a bucket) draws no band, only the mean
lo(m, c) = (c == c) ? m - c : m
hi(m, c) = (c == c) ? m + c : m
do for [f=1:nf] {
  set title sprintf("%s (grey: native)", word(formats, f)) noenhanced
  c = okabe[(f-1)%6+1]
  plot datafile using 1:(lo(column(3),column(4))):(hi(column(3),column(4))) with filledcurves fc rgb "#999999" fs transparent solid 0.25 noborder, \
       '' using 1:3 with linespoints pt 7 ps 0.5 lw 1.5 lc rgb "#777777", \
       '' using 1:(lo(column(3+2*f),column(4+2*f))):(hi(column(3+2*f),column(4+2*f))) with filledcurves fc rgb c fs transparent solid 0.25 noborder, \
       '' using 1:(column(3+2*f)) with linespoints pt 7 ps 0.5 lw 2 lc rgb c
}
unset multiplot

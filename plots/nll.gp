# nll.gp: extra NLL over decode position (method 7), small multiples: one panel per state format,
# the mean over documents as a line and its 95% CI as a band, zero dashed. Rendered by
# `stepq run` from the table beside the HDF5 file:
#   gnuplot -e "datafile='X.tsv'; outfile='X.png'; formats='int8 int6'; source='...'" plots/nll.gp
# stepq passes the run's variables with `gnuplot -c` (cli/plot.c): ARG1 names them, ARG2 on
# hold their values, which are assigned as strings and never read as gnuplot code
if (ARGC > 0) { do for [i = 1:words(ARG1)] { eval sprintf("%s = ARGV[%d]", word(ARG1, i), i + 1) } }
if (!exists("datafile")) datafile = 'results/nll/gdn.tsv'
if (!exists("outfile")) outfile = 'results/nll/gdn.png'
if (!exists("formats")) formats = 'int8 int6 int4'
if (!exists("source")) source = ''
# what one step of the model reads: a byte (stepq's byte models) or a token (stepq.hf eval)
if (!exists("unit")) unit = 'byte'
nf = words(formats)
cols = (nf < 4 ? nf : 4)
rows = (nf + cols - 1) / cols
# at least 840 px wide, so that the two-line title fits above a single panel
set terminal pngcairo size (cols < 2 ? 840 : 420*cols),(330*rows+90) font ",10"
array okabe[8] = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999999"]
set output outfile
set multiplot layout rows,cols title sprintf("Extra NLL over the native float32 model (nats per %s) against decode position: mean and 95%% CI over documents\n%s", unit, source) noenhanced
set grid
set key off
set xlabel "decode step"
set autoscale xfix
set ylabel sprintf("extra NLL (nats/%s)", unit)
do for [f=1:nf] {
  set title word(formats, f) noenhanced
  c = okabe[(f-1)%8+1]
  # zero as a plotted line: always in the panel's range, never drawn outside it
  plot 0 with lines dt 2 lc rgb "#777777", \
       datafile using 1:(column(2*f)-column(2*f+1)):(column(2*f)+column(2*f+1)) with filledcurves fc rgb c fs transparent solid 0.25 noborder, \
       '' using 1:(column(2*f)) with lines lw 2 lc rgb c
}
unset multiplot

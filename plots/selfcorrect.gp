# selfcorrect.gp: the factor by which cutting the delta self-correction raises the accumulated
# read-out error, against the window length; one panel per continuation (linear: one injected
# error, exact afterwards; nonlinear: re-quantized every step), one line per format with its 95%
# interval over seeds. Rendered by `stepq run` from the table beside the HDF5 file:
#   gnuplot -e "datafile='X.tsv'; outfile='X.png'; formats='int8 int6'; source='...'" plots/selfcorrect.gp
# stepq passes the run's variables with `gnuplot -c` (cli/plot.c): ARG1 names them, ARG2 on
# hold their values, which are assigned as strings and never read as gnuplot code
if (ARGC > 0) { do for [i = 1:words(ARG1)] { eval sprintf("%s = ARGV[%d]", word(ARG1, i), i + 1) } }
if (!exists("datafile")) datafile = 'results/selfcorrect/gdn.tsv'
if (!exists("outfile")) outfile = 'results/selfcorrect/gdn.png'
if (!exists("formats")) formats = 'int8 int6'
if (!exists("source")) source = ''
nf = words(formats)
set terminal pngcairo size 1400,560 font ",11"
array okabe[8] = ["#000000", "#009e73", "#56b4e9", "#e69f00", "#cc79a7", "#0072b2", "#d55e00", "#999999"]
do for [i=1:32] { set linetype i lc rgb okabe[(i-1)%8+1] }
set output outfile
set multiplot layout 1,2 title sprintf("Delta self-correction: cut / normal accumulated read-out error (mean and 95%% CI over seeds)\n%s", source) noenhanced
set logscale x 2
set xlabel "window length (decode steps)"
set ylabel "cut / normal"
set grid
set key outside right top
col(f, k) = 1 + (f-1)*4 + 2*k + 1   # format f, k = 0 linear, 1 nonlinear: mean; +1 its CI
do for [k=0:1] {
  set title (k == 0 ? "linear: one injected error, exact afterwards" : "nonlinear: re-quantized every step")
  plot for [f=1:nf] datafile using 1:(column(col(f,k))):(column(col(f,k)+1)) with yerrorlines lw 2 lc f title word(formats, f) noenhanced
}
unset multiplot

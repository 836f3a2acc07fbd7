# robustness.gp: one panel per calibrated format: the pooled read-out error of the plan calibrated
# on regime a (row) run on the streams of regime b (column), over that of b's own plan (1 on the
# diagonal; above 1: the plan transfers worse). Rendered by `stepq run`:
#   gnuplot -e "datafile='X.tsv'; outfile='X.png'; formats='stepquant6'; regimes='a b c';
#               source='...'" plots/robustness.gp
# stepq passes the run's variables with `gnuplot -c` (cli/plot.c): ARG1 names them, ARG2 on
# hold their values, which are assigned as strings and never read as gnuplot code
if (ARGC > 0) { do for [i = 1:words(ARG1)] { eval sprintf("%s = ARGV[%d]", word(ARG1, i), i + 1) } }
if (!exists("datafile")) datafile = 'results/robustness/gdn.tsv'
if (!exists("outfile")) outfile = 'results/robustness/gdn.png'
if (!exists("formats")) formats = 'stepquant6'
if (!exists("regimes")) regimes = 'a b c'
if (!exists("source")) source = ''
nf = words(formats)
nr = words(regimes)
set terminal pngcairo size (520*nf+200),560 font ",11"
set output outfile
set multiplot layout 1,nf title sprintf("Plans calibrated on one regime, run on another: error over the streams' own plan (mean over seeds)\n%s", source) noenhanced
set palette defined (0.5 "#2166ac", 1.0 "#f7f7f7", 2.0 "#d94801")
set cbrange [0.5:2]
set xrange [-0.5:nr-0.5]
set yrange [nr-0.5:-0.5]
set xlabel "streams of regime"
set ylabel "plan of regime"
set xtics () ; set ytics ()
do for [i=1:nr] { set xtics add (word(regimes, i) i-1); set ytics add (word(regimes, i) i-1) }
do for [f=1:nf] {
  set title word(formats, f) noenhanced
  plot datafile index (f-1) matrix with image notitle, \
       datafile index (f-1) matrix using 1:2:(sprintf("%.3f", $3)) with labels notitle
}
unset multiplot

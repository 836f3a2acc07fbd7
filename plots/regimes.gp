# regimes.gp: the regime map, small multiples against the key participation ratio measured on
# the evaluation streams (log x): (a) row and column ridges of the state; (b) Spearman of
# half-life against accumulated error, against error over the one-shot distortion d, and against
# the persistence of one injected error; (c) each calibrated format's pooled read-out error over
# uniform INT6's (below 1: lifetime-aware allocation pays). Mean and 95% CI over seeds.
# Rendered by `stepq run` from the table beside the HDF5 file:
#   gnuplot -e "datafile='X.tsv'; outfile='X.png'; formats='int6 time6'; source='...'" plots/regimes.gp
# stepq passes the run's variables with `gnuplot -c` (cli/plot.c): ARG1 names them, ARG2 on
# hold their values, which are assigned as strings and never read as gnuplot code
if (ARGC > 0) { do for [i = 1:words(ARG1)] { eval sprintf("%s = ARGV[%d]", word(ARG1, i), i + 1) } }
if (!exists("datafile")) datafile = 'results/regimes/gdn.tsv'
if (!exists("outfile")) outfile = 'results/regimes/gdn.png'
if (!exists("formats")) formats = 'int6 time6 stepquant6 mlife6 rlife6'
if (!exists("source")) source = ''
nf = words(formats)
set terminal pngcairo size 1900,560 font ",11"
array okabe[8] = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999999"]
do for [i=1:32] { set linetype i lc rgb okabe[(i-1)%8+1] }
set output outfile
set multiplot layout 1,3 title sprintf("When does lifetime-aware allocation pay? Sweep of the key concentration (mean and 95%% CI over seeds)\n%s", source) noenhanced
set grid
set logscale x
set xlabel "key participation ratio (directions the keys fill)"
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
set key top right box opaque
set title "(a) state ridges: max / median RMS"
set ylabel "ridge ratio"
set logscale y
plot datafile using 2:4:5 with yerrorlines lw 2 lt 1 title "rows (key channels)", \
     '' using 2:6:7 with yerrorlines lw 2 lt 2 title "columns (value channels)"
unset logscale y
set title "(b) Spearman of half-life against ..."
set ylabel "Spearman"
set yrange [-1:1.15]
set key bottom left box opaque
plot datafile using 2:8:9 with yerrorlines lw 2 lt 1 title "accumulated error", \
     '' using 2:10:11 with yerrorlines lw 2 lt 2 title "error / one-shot distortion d", \
     '' using 2:12:13 with yerrorlines lw 2 lt 3 title "persistence of one injected error"
set yrange [*:*]
set title sprintf("(c) pooled read-out error over %s's", word(formats, 1)) noenhanced
set ylabel sprintf("error / %s error", word(formats, 1)) noenhanced
set key outside right top
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "#777777"
plot for [f=2:nf] datafile using 2:(column(16+2*f)):(column(17+2*f)) with yerrorlines lw 2 lt f title word(formats, f) noenhanced
unset multiplot

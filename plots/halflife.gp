# halflife.gp: every unit's half-life against its accumulated error, against that error over the
# one-shot distortion d (the control: long-lived units hold larger states), and against the
# persistence of one injected error; log-log scatter, first seed. Rendered by `stepq run`:
#   gnuplot -e "datafile='X.tsv'; outfile='X.png'; formats='int6'; source='...'" plots/halflife.gp
# Columns: half_life acc d acc_over_d persistence
# stepq passes the run's variables with `gnuplot -c` (cli/plot.c): ARG1 names them, ARG2 on
# hold their values, which are assigned as strings and never read as gnuplot code
if (ARGC > 0) { do for [i = 1:words(ARG1)] { eval sprintf("%s = ARGV[%d]", word(ARG1, i), i + 1) } }
if (!exists("datafile")) datafile = 'results/halflife/gdn.tsv'
if (!exists("outfile")) outfile = 'results/halflife/gdn.png'
if (!exists("formats")) formats = 'int6'
if (!exists("source")) source = ''
set terminal pngcairo size 1500,500 font ",11"
set output outfile
set multiplot layout 1,3 title sprintf("Half-life against error, %s (one point a unit, first seed)\n%s", formats, source) noenhanced
set logscale xy
set format y "10^{%L}"
set xlabel "half-life (steps)"
set grid
unset key
set title "accumulated error"
plot datafile using 1:2 with points pt 7 ps 0.4 lc rgb "#0072b2"
set title "accumulated error / one-shot distortion d"
plot datafile using 1:4 with points pt 7 ps 0.4 lc rgb "#009e73"
set title "persistence of one injected error"
plot datafile using 1:5 with points pt 7 ps 0.4 lc rgb "#d55e00"
unset multiplot

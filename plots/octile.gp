# octile.gp: the pooled relative read-out error when one octile of each head's key rows is stored
# at INT-b and the rest exactly, against the octile, for rows sorted by omega (row influence), by
# state magnitude and at random; mean and 95% CI over seeds. Rendered by `stepq run`:
#   gnuplot -e "datafile='X.tsv'; outfile='X.png'; formats='int4'; source='...'" plots/octile.gp
# Columns: octile, then per order (omega, magnitude, random) mean and CI.
# stepq passes the run's variables with `gnuplot -c` (cli/plot.c): ARG1 names them, ARG2 on
# hold their values, which are assigned as strings and never read as gnuplot code
if (ARGC > 0) { do for [i = 1:words(ARG1)] { eval sprintf("%s = ARGV[%d]", word(ARG1, i), i + 1) } }
if (!exists("datafile")) datafile = 'results/octile/gdn.tsv'
if (!exists("outfile")) outfile = 'results/octile/gdn.png'
if (!exists("formats")) formats = 'int4'
if (!exists("source")) source = ''
set terminal pngcairo size 1000,600 font ",11"
set output outfile
set title sprintf("One octile of key rows at %s, the rest exact (mean and 95%% CI over seeds)\n%s", formats, source) noenhanced
set xlabel "octile (0: lowest key; 7: highest)"
set ylabel "pooled ||y_hat - y|| / ||y||" noenhanced
set logscale y
set grid
set key outside right top
set xrange [-0.5:7.5]
plot datafile using ($1-0.1):2:3 with yerrorlines lw 2 lc rgb "#0072b2" title "sorted by omega", \
     datafile using 1:4:5 with yerrorlines lw 2 lc rgb "#d55e00" title "sorted by row magnitude", \
     datafile using ($1+0.1):6:7 with yerrorlines lw 2 lc rgb "#999999" title "random order"

# nll_octile.gp: the octile sweep on a language model (method 7.2), small multiples: one panel
# per row order (omega, row magnitude, random), the extra NLL over the whole decode window when
# one octile of every head's key rows is stored at INT-b and the rest stay float32, mean over
# documents with its 95% CI, on one y scale. Rendered by `stepq run` from the octile table:
#   gnuplot -e "octile_table='X_octile.tsv'; outfile='X.png'; source='...'; octile=4" plots/nll_octile.gp
# stepq passes the run's variables with `gnuplot -c` (cli/plot.c): ARG1 names them, ARG2 on
# hold their values, which are assigned as strings and never read as gnuplot code
if (ARGC > 0) { do for [i = 1:words(ARG1)] { eval sprintf("%s = ARGV[%d]", word(ARG1, i), i + 1) } }
if (!exists("octile_table")) octile_table = 'results/nll/octile_gdn_octile.tsv'
if (!exists("outfile")) outfile = 'results/nll/octile_gdn.png'
if (!exists("source")) source = ''
if (!exists("octile")) octile = 4
array titles[3] = ["rows sorted by omega (plan)", "rows sorted by row RMS (prefill)", "rows in a random order"]
set terminal pngcairo size 1260,420 font ",10"
array okabe[3] = ["#0072b2", "#d55e00", "#009e73"]
set output outfile
set multiplot layout 1,3 title sprintf("One octile of every head's key rows at INT%d, the rest float32: extra NLL over the decode window (nats per byte), mean and 95%% CI over documents\n%s", octile, source) noenhanced
set grid
set key off
set xlabel "octile of the rows (1 = lowest)"
set ylabel "extra NLL (nats/byte)"
set xrange [0.5:8.5]
set xtics 1
ymax = 0
ymin = 0
do for [o=1:3] {
  stats octile_table using (column(2*o)+column(2*o+1)) nooutput
  if (STATS_max > ymax) { ymax = STATS_max }
  stats octile_table using (column(2*o)-column(2*o+1)) nooutput
  if (STATS_min < ymin) { ymin = STATS_min }
}
pad = 0.05 * (ymax - ymin)
set yrange [ymin-pad:ymax+pad]
do for [o=1:3] {
  set title titles[o] noenhanced
  c = okabe[o]
  set arrow 1 from graph 0, first 0 to graph 1, first 0 nohead dt 2 lc rgb "#777777"
  plot octile_table using 1:(column(2*o)):(column(2*o+1)) with yerrorlines lw 2 pt 7 lc rgb c
}
unset multiplot

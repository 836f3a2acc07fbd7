# ablation.gp: every format's pooled accumulated read-out error (mean and 95% CI over seeds) as a
# bar on a log axis, its actual bits under its name; a diverged format is marked. Rendered by
# `stepq run` from the per-format table the propagation driver writes beside its HDF5 file:
#   gnuplot -e "summary='X_formats.tsv'; outfile='X.png'; source='...'" plots/ablation.gp
# Columns of the summary: format bits_actual pooled_mean pooled_ci95 median_mean median_ci95
# final_state diverged
# stepq passes the run's variables with `gnuplot -c` (cli/plot.c): ARG1 names them, ARG2 on
# hold their values, which are assigned as strings and never read as gnuplot code
if (ARGC > 0) { do for [i = 1:words(ARG1)] { eval sprintf("%s = ARGV[%d]", word(ARG1, i), i + 1) } }
if (!exists("summary")) summary = 'results/ablation/gdn_formats.tsv'
if (!exists("outfile")) outfile = 'results/ablation/gdn.png'
if (!exists("source")) source = ''
set terminal pngcairo size 1600,640 font ",11"
set output outfile
set title sprintf("Every state format: pooled accumulated read-out error (mean and 95%% CI over seeds); actual bits under each name\n%s", source) noenhanced
set logscale y
set format y "10^{%L}"
set ylabel "sqrt(sum ||y_hat - y||^2 / sum ||y||^2)" noenhanced
set style fill solid 0.75 border -1
set boxwidth 0.7
set grid ytics
set xtics rotate by -50 noenhanced
unset key
set xrange [-0.7:*]
set rmargin 8  # room for the last rotated name
plot summary using 0:($3 > 0 ? $3 : NaN):(0.7):xtic(sprintf("%s (%.2f)", strcol(1), $2)) with boxes lc rgb "#56b4e9", \
     summary using 0:($3 > 0 ? $3 : NaN):($3 - $4 > 0 ? $3 - $4 : $3 * 0.5):($3 + $4) with yerrorbars lc rgb "#000000" pt 0, \
     summary using 0:($3 > 0 ? $3 : NaN):($8 > 0 ? "diverged" : "") with labels offset 0,1 tc rgb "#d55e00"

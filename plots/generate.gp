# generate.gp: free-running generation under each state format (method 7.3), two panels: the
# repeat rate (share of 16-byte windows already seen in the same generation) and the mean line
# length, each format's mean and 95% CI over prompts x seeds. Rendered by `stepq run` from the
# table beside the HDF5 file:  gnuplot -e "datafile='X.tsv'; outfile='X.png'; source='...'" plots/generate.gp
# stepq passes the run's variables with `gnuplot -c` (cli/plot.c): ARG1 names them, ARG2 on
# hold their values, which are assigned as strings and never read as gnuplot code
if (ARGC > 0) { do for [i = 1:words(ARG1)] { eval sprintf("%s = ARGV[%d]", word(ARG1, i), i + 1) } }
if (!exists("datafile")) datafile = 'results/generate/gdn.tsv'
if (!exists("outfile")) outfile = 'results/generate/gdn.png'
if (!exists("source")) source = ''
set terminal pngcairo size 1300,520 font ",11"
set output outfile
set multiplot layout 1,2 title sprintf("Free-running generation with the recurrent states in each format (mean and 95%% CI)\n%s", source) noenhanced
set grid ytics
set key off
set offsets 0.5, 0.5, 0, 0
set xtics rotate by -30 noenhanced
set title "repeat rate: 16-byte windows seen before in the same text"
set ylabel "share"
plot datafile using 1:3:4:xticlabels(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb "#0072b2"
set title "mean line length"
set ylabel "bytes"
plot datafile using 1:5:6:xticlabels(2) with yerrorbars pt 7 ps 1.2 lw 2 lc rgb "#d55e00"
unset multiplot

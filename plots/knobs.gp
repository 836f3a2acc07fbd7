# knobs.gp: small multiples, one panel per calibration knob: the pooled relative read-out error of
# each calibrated format against the knob's value, mean and 95% CI over seeds; the paper's choice
# is the dashed line. Rendered by `stepq run` from the table beside the HDF5 file (one block per
# knob):  gnuplot -e "datafile='X.tsv'; outfile='X.png'; formats='stepquant6 stepquant4';
#         knobs='gamma rho'; papers='0.25 0.5'; source='...'" plots/knobs.gp
# stepq passes the run's variables with `gnuplot -c` (cli/plot.c): ARG1 names them, ARG2 on
# hold their values, which are assigned as strings and never read as gnuplot code
if (ARGC > 0) { do for [i = 1:words(ARG1)] { eval sprintf("%s = ARGV[%d]", word(ARG1, i), i + 1) } }
if (!exists("datafile")) datafile = 'results/knobs/gdn.tsv'
if (!exists("outfile")) outfile = 'results/knobs/gdn.png'
if (!exists("formats")) formats = 'stepquant6 stepquant4'
if (!exists("knobs")) knobs = 'gamma rho horizon pivots refits'
if (!exists("papers")) papers = '0.25 0.5 2048 32 1'
if (!exists("source")) source = ''
nf = words(formats)
nk = words(knobs)
set terminal pngcairo size (330*nk+60),(300*nf+90) font ",10"
array okabe[8] = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999999"]
set output outfile
# one row per format (their errors differ several-fold), one column per knob; each panel's own y
# range, so that a knob's effect is visible
set multiplot layout nf,nk title sprintf("Calibration knobs the paper never swept: pooled read-out error, mean and 95%% CI over seeds; dashed: the paper's choice\n%s", source) noenhanced
set grid
set key off
set offsets graph 0.06, graph 0.06, graph 0.08, graph 0.08
set ylabel "pooled ||y_hat - y|| / ||y||" noenhanced
do for [f=1:nf] {
  do for [k=1:nk] {
    kn = word(knobs, k)
    set title sprintf("%s: %s", word(formats, f), kn) noenhanced
    set xlabel kn noenhanced
    unset logscale x
    set xtics autofreq
    if (kn eq "horizon") { set logscale x 4 }
    if (kn eq "pivots" || kn eq "refits") { set xtics 1 }
    p = real(word(papers, k))
    unset arrow
    if (p == p) { set arrow from p, graph 0 to p, graph 1 nohead dt 2 lc rgb "#777777" }
    plot datafile index (k-1) using 1:(column(2*f)):(column(2*f+1)) with yerrorlines lw 2 pt 7 lc rgb okabe[f]
  }
}
unset multiplot

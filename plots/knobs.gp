# knobs.gp: small multiples, one panel per calibration knob: the pooled relative read-out error of
# each calibrated format against the knob's value, mean and 95% CI over seeds; the paper's choice
# is the dashed line. Rendered by `stepq run` from the table beside the HDF5 file (one block per
# knob):  gnuplot -e "datafile='X.tsv'; outfile='X.png'; formats='stepquant6 stepquant4';
#         knobs='gamma rho'; papers='0.25 0.5'; source='...'" plots/knobs.gp
if (!exists("datafile")) datafile = 'results/knobs/gdn.tsv'
if (!exists("outfile")) outfile = 'results/knobs/gdn.png'
if (!exists("formats")) formats = 'stepquant6 stepquant4'
if (!exists("knobs")) knobs = 'gamma rho horizon pivots refits'
if (!exists("papers")) papers = '0.25 0.5 2048 32 1'
if (!exists("source")) source = ''
nf = words(formats)
nk = words(knobs)
set terminal pngcairo size 1800,520 font ",11"
array okabe[8] = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999999"]
do for [i=1:32] { set linetype i lc rgb okabe[(i-1)%8+1] }
set output outfile
set multiplot layout 1,nk title sprintf("Calibration knobs the paper never swept: pooled read-out error (mean and 95%% CI over seeds); dashed: the paper's choice\n%s", source) noenhanced
set grid
set offsets graph 0.06, graph 0.06, 0, 0
set logscale y
set ylabel "pooled ||y_hat - y|| / ||y||" noenhanced
do for [k=1:nk] {
  set title word(knobs, k)
  set xlabel word(knobs, k)
  p = real(word(papers, k))
  unset arrow
  if (p == p) { set arrow from p, graph 0 to p, graph 1 nohead dt 2 lc rgb "#777777" }
  if (k == nk) { set key outside right top } else { unset key }
  plot for [f=1:nf] datafile index (k-1) using 1:(column(2*f)):(column(2*f+1)) with yerrorlines lw 2 lc f title word(formats, f) noenhanced
}
unset multiplot

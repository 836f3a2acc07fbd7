# propagation.gp: error vs decode step per state format, median across heads with a p10-p90
# band. Rendered by `stepq run` from the table it writes beside the HDF5 file:
#   gnuplot -e "datafile='X.tsv'; outfile='X.png'; formats='fp32 int8'" plots/propagation.gp
# Columns of the table: step, then 5 quantiles (p10 p25 p50 p75 p90) of the read-out error
# per format, then the same of the state error.
if (!exists("datafile")) datafile = 'results/quickstart/quickstart.tsv'
if (!exists("outfile")) outfile = 'results/quickstart/quickstart.png'
if (!exists("formats")) formats = 'fp32 int8 int6 int4'
if (!exists("source")) source = ''
nf = words(formats)

set terminal pngcairo size 1400,560 font ",11"
# a colour-blind-safe cycle (Okabe-Ito) without the pale yellow, repeated past eight formats
array okabe[8] = ["#000000", "#009e73", "#56b4e9", "#e69f00", "#cc79a7", "#0072b2", "#d55e00", "#999999"]
do for [i=1:32] { set linetype i lc rgb okabe[(i-1)%8+1] }
set output outfile
set multiplot layout 1,2 title sprintf("Quantization error carried through the delta-rule recurrence (median and p10-p90 across heads, first seed)\n%s", source) noenhanced
set logscale y
set format y "10^{%L}"
set xlabel "decode step"
set grid
set key outside right top
# a column index: format f (1-based), quantile k (1..5), panel p (0 read-out, 1 state)
col(p, f, k) = 1 + p*5*nf + (f-1)*5 + k

do for [p=0:1] {
  set ylabel (p == 0 ? "||y_hat - y|| / ||y||" : "||S_hat - S||_F / ||S||_F") noenhanced
  set title (p == 0 ? "read-out error" : "state error")
  # formats with an exact state (fp32) are zero everywhere and have no place on a log axis
  plot for [f=1:nf] datafile using 1:(column(col(p,f,1)) > 0 ? column(col(p,f,1)) : NaN):(column(col(p,f,5))) \
         with filledcurves fs transparent solid 0.18 noborder lc f notitle, \
       for [f=1:nf] datafile using 1:(column(col(p,f,3)) > 0 ? column(col(p,f,3)) : NaN) \
         with lines lw 2 lc f title (word(formats, f) eq "fp32" ? "fp32 (exact: 0, not drawn)" : word(formats, f))
}
unset multiplot

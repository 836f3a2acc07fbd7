# propagation.gp: error vs decode step per state format, median across heads with a p10-p90
# band. Rendered by `stepq run` from the table it writes beside the HDF5 file:
#   gnuplot -e "datafile='X.tsv'; outfile='X.png'; formats='fp32 int8'" plots/propagation.gp
# Columns of the table: step, then 5 quantiles (p10 p25 p50 p75 p90) of the read-out error
# per format, then the same of the state error.
# stepq passes the run's variables with `gnuplot -c` (cli/plot.c): ARG1 names them, ARG2 on
# hold their values, which are assigned as strings and never read as gnuplot code
if (ARGC > 0) { do for [i = 1:words(ARG1)] { eval sprintf("%s = ARGV[%d]", word(ARG1, i), i + 1) } }
if (!exists("datafile")) datafile = 'results/quickstart/quickstart.tsv'
if (!exists("outfile")) outfile = 'results/quickstart/quickstart.png'
if (!exists("formats")) formats = 'fp32 int8 int6 int4'
if (!exists("source")) source = ''
nf = words(formats)

# a colour-blind-safe cycle (Okabe-Ito) without the pale yellow, repeated past eight formats
array okabe[8] = ["#000000", "#009e73", "#56b4e9", "#e69f00", "#cc79a7", "#0072b2", "#d55e00", "#999999"]
do for [i=1:32] { set linetype i lc rgb okabe[(i-1)%8+1] }
# One panel per format and error (small multiples: the p10-p90 bands of formats close in error
# would hide each other on one axis); a row shares its y range, so panels compare by position.
set terminal pngcairo size (120 + 260*nf),720 font ",10"
set output outfile
set multiplot layout 2,nf title sprintf("Quantization error carried through the delta-rule recurrence: median (line) and p10-p90 (band) across heads, first seed\n%s", source) noenhanced
set logscale y
set format y "10^{%L}"
set grid
unset key
# a column index: format f (1-based), quantile k (1..5), panel p (0 read-out, 1 state)
col(p, f, k) = 1 + p*5*nf + (f-1)*5 + k

# about four x tics at a round step (1, 2 or 5 times a power of ten)
stats datafile using 1 nooutput
set xrange [STATS_min:STATS_max]
r = STATS_max / 4.0
e = 10**floor(log10(r))
xt = (r/e <= 1 ? 1 : r/e <= 2 ? 2 : r/e <= 5 ? 5 : 10) * e
set xtics xt
array exact[nf]
do for [p=0:1] {
  # the row's range: the smallest positive p10 and the largest p90 of any format, to decades
  lo = 1e30; hi = 0
  unset logscale y  # stats would drop the zeros of an exact format on a log axis
  set yrange [*:*]
  do for [f=1:nf] {
    stats datafile using (column(col(p,f,1)) > 0 ? column(col(p,f,1)) : 1e30) nooutput
    lo = (STATS_min < lo ? STATS_min : lo)
    stats datafile using (column(col(p,f,5)) > 0 ? column(col(p,f,5)) : 0) nooutput
    hi = (STATS_max > hi ? STATS_max : hi)
    exact[f] = (STATS_max <= 0)
  }
  if (hi <= 0 || lo >= hi) { lo = 1e-3; hi = 1 }
  set logscale y
  set yrange [10**floor(log10(lo)):10**ceil(log10(hi))]
  do for [f=1:nf] {
    set title (p == 0 ? word(formats, f) . ": read-out error" : word(formats, f) . ": state error") noenhanced
    set ylabel (f > 1 ? "" : (p == 0 ? "||y_hat - y|| / ||y||" : "||S_hat - S||_F / ||S||_F")) noenhanced
    set xlabel (p == 1 ? "decode step" : "")
    # an exact format (fp32) is zero everywhere and has no place on a log axis
    unset label 1
    if (exact[f]) { set label 1 "exact: 0 at every step" at graph 0.5,0.5 center }
    plot datafile using 1:(column(col(p,f,1)) > 0 ? column(col(p,f,1)) : NaN):(column(col(p,f,5))) \
           with filledcurves fs transparent solid 0.25 noborder lc f, \
         datafile using 1:(column(col(p,f,3)) > 0 ? column(col(p,f,3)) : NaN) with lines lw 2 lc f
  }
}
unset multiplot

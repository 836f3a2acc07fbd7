# memory.gp: the serving memory model (method 4.5) as small multiples, one panel per model: the
# state pool in GiB against concurrent requests for every format (log-log), the weights as a
# dashed line; where a format's pool passes the weights, its line crosses the dashed one.
# Rendered by `stepq run experiments/memory.cfg` from the table beside the HDF5 file:
#   gnuplot -e "datafile='X.tsv'; outfile='X.png'; formats='fp32 int6'; models='gdn-qwen-like';
#               weights='53.8'; convs='2.8125'" plots/memory.gp
# stepq passes the run's variables with `gnuplot -c` (cli/plot.c): ARG1 names them, ARG2 on
# hold their values, which are assigned as strings and never read as gnuplot code
if (ARGC > 0) { do for [i = 1:words(ARG1)] { eval sprintf("%s = ARGV[%d]", word(ARG1, i), i + 1) } }
if (!exists("datafile")) datafile = 'results/memory/memory.tsv'
if (!exists("outfile")) outfile = 'results/memory/memory.png'
if (!exists("formats")) formats = 'fp32 bf16 int8 int6 stepquant6 int4 stepquant4'
if (!exists("models")) models = 'gdn-qwen-like kda-kimi-like'
if (!exists("weights")) weights = '53.8 96'
if (!exists("convs")) convs = '2.8125 0'
if (!exists("requests")) requests = '64 512'
if (!exists("description")) description = ''
nf = words(formats)
nm = words(models)
set terminal pngcairo size (700*nm+220),560 font ",11"
array okabe[8] = ["#000000", "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#999999"]
do for [i=1:32] { set linetype i lc rgb okabe[(i-1)%8+1] }
set output outfile
set multiplot layout 1,nm title sprintf("Recurrent-state pool of a serving engine (SGLang: 5 slots per request + 1; each slot holds the state and the BF16 convolution state)\n%s; no streams simulated: bits per element x state elements of the preset's shape; dotted: the paper's concurrency", description) noenhanced
set grid
set logscale xy
set xlabel "concurrent requests"
set ylabel "state pool (GiB)"
set format y "%g"
set xrange [1:*]
set key outside right top samplen 3
do for [m=1:nm] {
  w = real(word(weights, m)) * 1e9 / 1073741824.0
  set title sprintf("%s (conv state %s MiB per slot; weights %s GB, dashed)", word(models, m), word(convs, m), word(weights, m)) noenhanced
  if (m == nm) { set key } else { unset key }
  unset arrow
  set arrow from real(word(requests, m)), graph 0 to real(word(requests, m)), graph 1 nohead dt 3 lc rgb "#777777"
  if (w > 0) {
    plot for [f=1:nf] datafile index (m-1) using 1:(column(f+1)) with lines lw 2 lt f title word(formats, f) noenhanced, \
         w with lines dt 2 lw 1.5 lc rgb "#777777" title "weights"
  } else {
    plot for [f=1:nf] datafile index (m-1) using 1:(column(f+1)) with lines lw 2 lt f title word(formats, f) noenhanced
  }
}
unset multiplot

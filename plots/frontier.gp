# frontier.gp: the frontier of every format on one model (analysis/frontier.h), two panels, the
# recall documents and held-out prose: each format a labelled point at its actual bits per state
# element (packed bytes) and its extra NLL per byte over the decode window, mean over documents
# with its 95% CI over documents as an error bar; the formats of one series (int8, int6, int4)
# joined; the Pareto frontier dashed. Both axes log. Rendered by `stepq run` from the table
# beside the HDF5 file:
#   gnuplot -e "datafile='X.tsv'; outfile='X.png'; source='...'" plots/frontier.gp
# stepq passes the run's variables with `gnuplot -c` (cli/plot.c): ARG1 names them, ARG2 on
# hold their values, which are assigned as strings and never read as gnuplot code
if (ARGC > 0) { do for [i = 1:words(ARG1)] { eval sprintf("%s = ARGV[%d]", word(ARG1, i), i + 1) } }
if (!exists("datafile")) datafile = 'results/frontier/gdn.tsv'
if (!exists("outfile")) outfile = 'results/frontier/gdn.png'
if (!exists("source")) source = ''
if (!exists("recall_docs")) recall_docs = 'recall documents'
if (!exists("prose_docs")) prose_docs = 'held-out prose'
set terminal pngcairo size 1800,900 font ",10"
set output outfile
# a log axis has no place for 0 or less (fp32 is native, 0 exactly): drawn at the floor
fl = 1e-5
y(m) = (m > fl) ? m : fl
lo(m, c) = (c == c) ? y(m - c) : y(m)
hi(m, c) = (c == c) ? y(m + c) : y(m)
set multiplot layout 1,2 title sprintf("Damage against actual bits per state element: extra NLL per byte over the decode window, mean over documents, bars its 95%% CI over documents; lines join a series (int8-6-4, stepquant6-4, ...); dashed: the Pareto frontier\n%s", source) noenhanced
set logscale x 2
set logscale y 10
set format y "%.0e"
# room beyond the extreme points for their labels
set offsets graph 0.02, graph 0.1, 0, 0
set grid
set xlabel "actual bits per state element (packed bytes; the plan's widths for mixed-width formats)"
set ylabel sprintf("extra NLL over native (nats/byte), values <= %g drawn at %g", fl, fl)
set key outside bottom center horizontal
set linetype cycle 8
array okabe[8] = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999999"]
do for [i = 1:8] { set linetype i lc rgb okabe[i] pt 7 }
do for [p = 1:2] {
  m = 2 * p
  set title (p == 1 ? "recall documents: " . recall_docs : "prose: " . prose_docs) noenhanced
  plot datafile index 0 using 1:(y(column(m))):(column(7)+1) with lines lc variable lw 1.2 notitle, \
       '' index 0 using 1:(y(column(m))):(lo(column(m), column(m+1))):(hi(column(m), column(m+1))):(column(7)+1) with yerrorbars lc variable pt 7 ps 0.8 title "format (95% CI over documents)", \
       '' index 0 using 1:(y(column(m))):6 with labels offset char 0.5,0.5 left font ",7" noenhanced notitle, \
       '' index p using 1:(y(column(2))) with lines dt 2 lw 2.5 lc rgb "#000000" title "Pareto frontier (no format has fewer bits and less damage)"
}
unset multiplot

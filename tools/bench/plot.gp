# SPDX-License-Identifier: GPL-2.0
# Connections per second against concurrency, for both stacks (siw) and the
# kernel TCP floor. tools/bench/report.py runs it with
#   gnuplot -e "datafile='sweep.dat'; outfile='plot.png'; subtitle='...'" plot.gp
# sweep.dat columns: concurrency, then median min max of siw stock, siw ours,
# kernel TCP, softrnic ours (plotted when softrnic=1).
if (!exists("datafile")) datafile = 'sweep.dat'
if (!exists("softrnic")) softrnic = 0
if (!exists("outfile")) outfile = 'plot.png'
if (!exists("subtitle")) subtitle = ''

set terminal pngcairo size 1000,680 enhanced font 'DejaVu Sans,11'
set output outfile
set title "Connection setup rate against concurrency (".(softrnic ? "siw and softrnic" : "siw").", kernel driver)\n{/*0.8 ".subtitle."}"
set xlabel 'connections in flight (log scale)'
set ylabel 'connections per second (established; higher is better)'
set logscale x 2
set format x '%g'
set xtics 2
set yrange [0:*]
set grid ytics lc rgb '#dddddd'
set grid xtics lc rgb '#eeeeee'
set key outside bottom center horizontal Left reverse spacing 1.2
set bmargin (softrnic ? 9 : 7)
set offsets graph 0.03, graph 0.03, graph 0.05, 0
set style line 1 lc rgb '#1f77b4' lw 2 pt 7 ps 1.2
set style line 2 lc rgb '#d62728' lw 2 pt 5 ps 1.2
set style line 3 lc rgb '#7f7f7f' lw 1.5 dt 2 pt 9 ps 1.0
set style line 4 lc rgb '#2ca02c' lw 2 pt 13 ps 1.2
if (softrnic) {
plot datafile using 1:2:3:4 with yerrorlines ls 1 title 'stock rdma\_cm + iw\_cm (in-tree)', \
     ''       using 1:5:6:7 with yerrorlines ls 2 title 'ours (openrdma-cm)', \
     ''       using 1:8:9:10 with yerrorlines ls 3 title 'kernel TCP connect + request/reply (floor)', \
     ''       using 1:11:12:13 with yerrorlines ls 4 title 'softrnic on ours (host-stack iWARP; own veth pair)'
} else {
plot datafile using 1:2:3:4 with yerrorlines ls 1 title 'stock rdma\_cm + iw\_cm (in-tree)', \
     ''       using 1:5:6:7 with yerrorlines ls 2 title 'ours (openrdma-cm)', \
     ''       using 1:8:9:10 with yerrorlines ls 3 title 'kernel TCP connect + request/reply (floor)'
}

# SPDX-License-Identifier: GPL-2.0
# The CM's time per connection (null RNIC) against the number of other live
# ids and against the number of listeners, both stacks: the wall time of a
# connection (top) and the CM's own CPU time in it (bottom, cm_acct.ko, net
# of its probes). tools/bench/report.py runs it with
#   gnuplot -e "datafile='scaling.dat'; outfile='scaling.png'"
# scaling.dat columns: kind (0 ids, 1 listeners), x, then median min max of
# stock and of ours: wall us per connection (3-8), CM own us (9-14).
if (!exists("datafile")) datafile = 'scaling.dat'
if (!exists("outfile")) outfile = 'scaling.png'

set terminal pngcairo size 1200,900 enhanced font 'DejaVu Sans,11'
set output outfile
set multiplot layout 2,2 title "The CM's cost per connection at scale (null RNIC; median, bars: min-max over rounds)"
set logscale x 10
set format x '%g'
set yrange [0:*]
set grid ytics lc rgb '#dddddd'
set key top left
set style line 1 lc rgb '#1f77b4' lw 2 pt 7 ps 1.2
set style line 2 lc rgb '#d62728' lw 2 pt 5 ps 1.2
set ylabel 'wall us per connection'
set xlabel 'other live (resolved) ids'
plot datafile using ($1 == 0 ? $2 : NaN):3:4:5 with yerrorlines ls 1 title 'stock', \
     ''       using ($1 == 0 ? $2 : NaN):6:7:8 with yerrorlines ls 2 title 'ours'
set xlabel 'listening ids'
plot datafile using ($1 == 1 ? $2 : NaN):3:4:5 with yerrorlines ls 1 title 'stock', \
     ''       using ($1 == 1 ? $2 : NaN):6:7:8 with yerrorlines ls 2 title 'ours'
set ylabel "the CM's own CPU us per connection"
set xlabel 'other live (resolved) ids'
plot datafile using ($1 == 0 ? $2 : NaN):9:10:11 with yerrorlines ls 1 title 'stock', \
     ''       using ($1 == 0 ? $2 : NaN):12:13:14 with yerrorlines ls 2 title 'ours'
set xlabel 'listening ids'
plot datafile using ($1 == 1 ? $2 : NaN):9:10:11 with yerrorlines ls 1 title 'stock', \
     ''       using ($1 == 1 ? $2 : NaN):12:13:14 with yerrorlines ls 2 title 'ours'
unset multiplot

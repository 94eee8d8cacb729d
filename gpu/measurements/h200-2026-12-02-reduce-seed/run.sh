#!/bin/bash
set -u
O=$OUT/reduce; mkdir -p $O
date -u > $O/date.txt
# from the source tree's root, this folder copied to .time-probe
nvcc -O2 -arch=sm_90 -std=c++17 -I sim/emulator -I traces/kernels -I sim/stream -I gpu -o .time-probe/reduce-seed .time-probe/reduce-seed.cu > $O/build.txt 2>&1 || { cat $O/build.txt; exit 1; }
.time-probe/reduce-seed > $O/events.txt 2>&1
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum --csv .time-probe/reduce-seed ncu > $O/ncu.csv 2> $O/ncu.stderr
cat $O/events.txt; grep -c gpu__time $O/ncu.csv
cd $OUT && tar czf reduce.tgz reduce && rm -rf reduce

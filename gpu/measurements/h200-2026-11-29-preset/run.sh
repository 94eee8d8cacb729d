#!/bin/bash
# one batch: build the probe, read the device, measure, run ncu; all under $OUT
set -u
O=$OUT/h200   # run from the folder holding probe.cu
mkdir -p $O
cd "$(dirname "$0")"
date -u > $O/date.txt
nvidia-smi -q > $O/nvidia-smi-q.txt 2>&1
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,clocks.sm,clocks.mem,clocks.applications.graphics,pcie.link.gen.max --format=csv > $O/nvidia-smi-query.csv 2>&1
(nvcc --version; ncu --version) > $O/tools.txt 2>&1
nvcc -O3 -arch=sm_90 -o probe probe.cu > $O/build.txt 2>&1 || { cat $O/build.txt; exit 1; }
./probe props > $O/props.txt 2>&1
./probe bw > $O/bandwidth.txt 2>&1
./probe tiny > $O/events.txt 2>&1
timeout 200 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum --csv ./probe ncu > $O/ncu.csv 2> $O/ncu.stderr
nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv >> $O/nvidia-smi-query.csv 2>&1
cat $O/props.txt $O/bandwidth.txt $O/events.txt $O/nvidia-smi-query.csv
cd $OUT && tar czf h200.tgz h200 && rm -rf h200

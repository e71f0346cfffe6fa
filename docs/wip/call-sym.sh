#!/usr/bin/env bash
# The device call for branch wip/device-symmetrize (a directed graph's
# undirected view built on the GPU). Here: make gpu-bins on the branch,
# then pack bin/gpu/hpgraph (and the start binary of main as
# gpu/hpgraph-main), bin/cuda.test, bin/apps-cuda.test and
# ../shared/datasets (as datasets/) into bin/carry/bins.tar.xz, copy this
# script to bin/carry/, and run with carry ["bin/carry"]:
#   OUT=$OUT timeout 580 bash bin/carry/call-sym.sh >/dev/null 2>&1; tail -c 9000 $OUT/log.txt
# Then: tar -xzf prebuilt.tgz; the new hybbuild.cu image goes into
# cuda/prebuilt (the old one out: TestPrebuiltCoversFixedModules says
# which key it wants).
set -u
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
cd "$(dirname "$0")/.." && tar -xJf carry/bins.tar.xz -C . && cd ..
mkdir -p shared bin/shared && ln -sfn $PWD/bin/datasets shared/datasets && ln -sfn $PWD/bin/datasets/tiny bin/shared/tiny && ln -sfn $PWD/bin/datasets/small bin/shared/small
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
G=/tmp/hpgraph-graphs; mkdir -p $G; H=bin/gpu/hpgraph; HM=bin/gpu/hpgraph-main
t() { echo "== $* ($(date +%T))"; }
counts() { echo "$1 exit $2: $(grep -c -- '--- PASS' "$3") PASS, $(grep -c -- '--- FAIL' "$3") FAIL"; grep -E -- '--- FAIL|^panic' "$3" | head; }
t gen
timeout 60 $H gen kron --scale 16 -o $G/kron16.hpg >/dev/null
timeout 60 $H gen kron --scale 21 -o $G/kron21.hpg >/dev/null
timeout 60 $H gen grid --rows 1000 --cols 1000 -o $G/grid1000.hpg >/dev/null
for s in 16 21; do
  timeout 90 $H gen kron --scale $s -o $G/k$s.el >/dev/null
  grep -v '^[#%]' $G/k$s.el > $G/k${s}d.el; awk '!/^[#%]/ && NR%3==0 {print $2, $1}' $G/k$s.el >> $G/k${s}d.el
done
timeout 90 $H convert $G/k21d.el $G/kron21d.hpg 2>&1 | tail -1; rm -f $G/k21.el $G/k21d.el
t prebuild: hybbuild.cu
D=$OUT/prebuilt; mkdir -p $D
XDG_CACHE_HOME=$(mktemp -d) CUDA_CACHE_PATH=$(mktemp -d) HPGRAPH_CUDA_PREBUILD=$D timeout 60 $H run tc $G/k16d.el --backend cuda >/dev/null || echo "prebuild run failed"
ls $D; tar -C $D -czf $OUT/prebuilt.tgz . && rm -rf $D
t cuda tests
HPGRAPH_REQUIRE_GPU=1 timeout 240 bin/cuda.test -test.v -test.run '^(TestDeviceSymmetrizedMatchesHost|TestSymmetrizedOnDeviceRuns|TestBuildOnDeviceMatchesHost|TestDeviceInMatrixMatchesHost|TestDeviceInMatrixRowsChecked|TestDeviceInMatricesMatchCPU|TestDeviceTransposeMatchesHost|TestDeviceOrientationMatchesHost|TestLCCOrientationOnDevice|TestAppsMatchCPU|TestResidentRunsMatchCPU|TestPrefetchedBuild|TestScratchArrays)$' > $OUT/cuda-test.log 2>&1; counts cuda.test $? $OUT/cuda-test.log
timeout 150 bin/apps-cuda.test -test.v > $OUT/apps-test.log 2>&1; counts apps.test $? $OUT/apps-test.log
t verify
timeout 200 $H verify --backend cuda bin/shared/tiny/* bin/shared/small/* $G/kron16.hpg $G/k16d.el > $OUT/verify.log 2>&1; echo "verify exit $?: $(grep -c PASS $OUT/verify.log) PASS, $(grep -c ' FAIL' $OUT/verify.log) FAIL"; grep -E ' FAIL|panic' $OUT/verify.log | head
t directed kron21d: first-run PREPROCESS and answers, new then start
for b in $H $HM; do
  echo "-- $b"
  HPGRAPH_TRACE=1 timeout 120 $b bench $G/kron21d.hpg --backend cuda --algo tc,lcc,cc --runs 3 > $OUT/bench-d.log 2>&1; sed -n '/graph.*algo/,$p' $OUT/bench-d.log; grep -E 'undirected view|prepare' $OUT/bench-d.log | head -4 | cut -c1-250
  for a in tc lcc cc; do timeout 60 $b run $a $G/kron21d.hpg --backend cuda 2>&1 | grep 'time to answer' | cut -c1-260; done
done
t traces: the ranked orientation of LCC step by step, the first runs of sssp and pagerank-iter
HPGRAPH_TRACE=1 timeout 60 $H run lcc $G/kron21.hpg --backend cuda 2>&1 | grep -E 'trace' | cut -c1-400
HPGRAPH_TRACE=1 timeout 120 $H bench $G/kron21.hpg --backend cuda --algo bfs,sssp,pagerank-iter --runs 1 > $OUT/trace-first.log 2>&1; grep -E 'trace' $OUT/trace-first.log | head -24 | cut -c1-300; sed -n '/graph.*algo/,$p' $OUT/trace-first.log
t standing table new / start / new
for b in $H $HM $H; do
  echo "-- $b"
  timeout 150 $b bench $G/kron21.hpg --backend cuda --runs 5 --algo bfs,sssp,pagerank-iter,pagerank-ldbc,tc,cc,cdlp,lcc 2>/dev/null | sed -n '/graph.*algo/,$p'
  timeout 90 $b bench $G/grid1000.hpg --backend cuda --runs 5 --algo bfs,sssp,cc 2>/dev/null | sed -n '/graph.*algo/,$p'
done
t done
tar -C $OUT -czf $OUT/logs.tgz cuda-test.log apps-test.log verify.log bench-d.log trace-first.log 2>/dev/null; rm -f $OUT/cuda-test.log $OUT/apps-test.log $OUT/verify.log $OUT/bench-d.log $OUT/trace-first.log

#!/usr/bin/env bash
# The first device call of the session after session 22 (copy to
# bin/carry/ with the binaries packed as bin/carry/bins.tar.xz: gpu/hpgraph,
# gpu/lccexp, cuda.test, apps-cuda.test; carry bin/carry):
#   OUT=$OUT timeout 590 bash bin/carry/call-lcc.sh >/dev/null 2>&1; tail -c 7000 $OUT/log.txt
# 1. the prebuilt images of hybbuild.cu with the hb_rk kernels (prebuilt.tgz);
# 2. the device's ranked orientation against the host's, and LCC on the GPU
#    against the CPU;
# 3. LCC's first-run PREPROCESS (bench) and the experiment: where LCC's
#    kernel time goes, and the slot candidate.
set -u
L=$OUT/log.txt
exec > >(tee -a $L) 2>&1
cd "$(dirname "$0")/.." && tar -xJf carry/bins.tar.xz -C . && cd ..
nvidia-smi --query-gpu=name,memory.total --format=csv
G=/tmp/hpgraph-graphs; mkdir -p $G
echo "== prebuild"; OUT=$OUT timeout 240 scripts/gpu-prebuild.sh 2>&1 | tail -5; ls -la $OUT/prebuilt.tgz
echo "== cuda.test"
timeout 200 bin/cuda.test -test.run 'TestDeviceOrientationMatchesHost|TestLCCOrientationOnDevice|TestDeviceTransposeMatchesHost|TestDeviceInMatrix' -test.v 2>&1 | grep -E '^(--- |PASS|FAIL|ok|panic)|_test.go' | tail -30
echo "== apps lcc"
timeout 120 bin/apps-cuda.test -test.run 'LCC|Lcc' 2>&1 | tail -5
echo "== verify lcc"
timeout 120 bin/gpu/hpgraph verify --backend cuda --algo lcc $G/kron16.hpg bin/shared/tiny/* 2>&1 | tail -4
echo "== bench lcc, tc (first-run PREPROCESS)"
for i in 1 2; do timeout 120 bin/gpu/hpgraph bench $G/kron21.hpg --backend cuda --algo tc,lcc --runs 5 2>&1 | tail -6; done
echo "== run lcc (time to answer)"
for i in 1 2 3; do /usr/bin/time -f "wall %e s, peak %M KB" timeout 60 bin/gpu/hpgraph run lcc $G/kron21.hpg --backend cuda 2>&1 | tail -4; done
echo "== lccexp"
timeout 200 bin/gpu/lccexp $G/kron21.hpg 2>&1 | tail -30
echo "== done"

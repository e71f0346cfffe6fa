#!/usr/bin/env bash
# Makes the prebuilt kernel images (cuda/jit/prebuilt/README.md) on a GPU
# machine: runs every built-in app the ways the command line runs them
# (run, bench's resident runs, verify) with HPGRAPH_CUDA_PREBUILD, which
# writes the machine code of every kernel source compiled. Then, here:
#   tar -xzf prebuilt.tgz -C cuda/jit/prebuilt
# Usage (from the repository root, bin/ built by make gpu-bins and carried):
#   OUT=dir scripts/gpu-prebuild.sh     # writes $OUT/prebuilt.tgz
set -uo pipefail
OUT=${OUT:-/tmp/hpgraph-prebuild}
H=${H:-bin/gpu/hpgraph}
G=/tmp/hpgraph-graphs
D=$OUT/prebuilt
mkdir -p "$G" "$D"
export HPGRAPH_CUDA_PREBUILD=$D
# An empty kernel cache of its own: an image found in a cache is not
# compiled, so not written to $D (another process's runs, or tests run
# beside this script, had left some images out).
export XDG_CACHE_HOME=$(mktemp -d) CUDA_CACHE_PATH=$(mktemp -d)
[ -f $G/kron16.hpg ] || $H gen kron --scale 16 -o $G/kron16.hpg >/dev/null
[ -f $G/kron21.hpg ] || $H gen kron --scale 21 -o $G/kron21.hpg >/dev/null
[ -f $G/grid1000.hpg ] || $H gen grid --rows 1000 --cols 1000 -o $G/grid1000.hpg >/dev/null
for g in $G/kron21.hpg $G/grid1000.hpg; do
	for a in bfs sssp pagerank pagerank-ldbc "pagerank-ldbc --precision float32" tc cc cdlp lcc; do
		timeout 120 $H run $a $g --backend cuda >/dev/null || echo "run $a $g failed"
	done
	timeout 120 $H run sssp $g --backend cuda --weights random:1-64 >/dev/null || echo "run sssp (weights) $g failed"
	timeout 300 $H bench $g --backend cuda --runs 1 >/dev/null 2>&1 || echo "bench $g failed"
	timeout 120 $H bench $g --backend cuda --runs 1 --precision float32 --algo pagerank-iter,pagerank-ldbc >/dev/null 2>&1 || echo "bench float32 $g failed"
done
timeout 300 $H verify --backend cuda $G/kron16.hpg bin/shared/tiny/* bin/shared/small/* >/dev/null 2>&1 || echo "verify failed"
timeout 120 $H verify --backend cuda --weights random:1-64 --algo sssp $G/kron16.hpg >/dev/null 2>&1 || echo "verify sssp failed"
# CDLP sorts 8-byte labels where the ids lie 2^32 or more apart
# (apps/cdlp/device.go): a graph of such ids makes that variant's image.
printf '1 2\n2 10000000000\n10000000000 1\n2 3\n' >$G/wide-ids.edgelist
timeout 60 $H run cdlp $G/wide-ids.edgelist --backend cuda >/dev/null || echo "run cdlp (wide ids) failed"
# The device transpose (cuda/build/transpose.cu): every context loads it (a
# directed graph's in-matrix is built with it), so the runs above made its
# image; its GPU test compiles it too (bin/cuda-build.test from make gpu-bins).
[ -x bin/cuda-build.test ] && { timeout 300 bin/cuda-build.test -test.run 'TestDeviceTransposeMatchesHost' >/dev/null 2>&1 || echo "cuda-build.test TestDeviceTransposeMatchesHost failed"; }
echo "$(ls $D | wc -l) images, $(du -sh $D | cut -f1)"
tar -C "$D" -czf "$OUT/prebuilt.tgz" .

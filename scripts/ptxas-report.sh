#!/usr/bin/env bash
# Usage: scripts/ptxas-report.sh [KERNEL_REGEX]
# Registers and spills of every kernel of the built-in apps, as ptxas
# assembles them for sm_80 and sm_90, on a machine without a GPU: the
# cuda-compile test writes each app's PTX (HPGRAPH_PTX_DIR), and ptxas
# from Debian's nvidia-cuda-toolkit (CUDA 11.8; fetched once into
# ~/.cache/hpgraph/ptxas, ~84 MB) reports on it. A register count decides
# how many blocks of a kernel fit on a multiprocessor (65,536 registers).
# The driver's own JIT (a newer ptxas) may allocate a little differently.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern=${1:-.}
cache="${XDG_CACHE_HOME:-$HOME/.cache}/hpgraph/ptxas"
ptxas="$cache/usr/bin/ptxas"
if [ ! -x "$ptxas" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  echo "hpgraph: fetching ptxas (nvidia-cuda-toolkit 11.8, once; cached in $cache)" >&2
  ./scripts/debian-download.sh "$work" nvidia-cuda-toolkit
  mkdir -p "$cache"
  dpkg-deb --fsys-tarfile "$work"/nvidia-cuda-toolkit_*.deb | tar -x -C "$cache" ./usr/bin/ptxas
fi
dir=$(mktemp -d)
make -s cuda-compile >/dev/null
nv=$(./scripts/nvrtc.sh)
LD_LIBRARY_PATH=$nv HPGRAPH_NVRTC=$(ls "$nv"/libnvrtc.so.* | head -1) HPGRAPH_REQUIRE_NVRTC=1 HPGRAPH_PTX_DIR=$dir \
  bin/cuda-compile.test -test.run 'TestCompileApps' >/dev/null
printf '%-34s %-22s %5s %6s %6s\n' program kernel regs spillS spillL
for f in "$dir"/*.ptx; do
  arch=${f##*.compute_}
  arch=sm_${arch%.ptx}
  # ptxas 11.8 rejects the .release/.acquire of cluster barriers (PTX 8.0).
  sed -i 's/barrier\.cluster\.arrive\.release/barrier.cluster.arrive/; s/barrier\.cluster\.wait\.acquire/barrier.cluster.wait/' "$f"
  "$ptxas" -arch="$arch" -v "$f" -o /dev/null 2>&1 | awk -v prog="$(basename "${f%.ptx}")" -v pat="$pattern" '
    /Compiling entry function/ { k = $0; sub(/.*function .?/, "", k); sub(/.? for .*/, "", k) }
    /spill stores/ { ss = $5; sl = $9 }
    /Used [0-9]+ registers/ { if (k ~ pat) printf "%-34s %-22s %5d %6d %6d\n", prog, k, $5, ss, sl }'
done
rm -rf "$dir"

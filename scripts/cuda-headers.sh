#!/usr/bin/env bash
# Prints the directory holding include/cuda.h and stubs/libcuda.so, the two
# files the cuda build tag needs to compile and link (the binary itself loads
# the real libcuda.so.1 from the GPU machine's driver at run time).
#
# Order: $CUDA_HOME if it has both files; else a cache directory; else fetch
# Debian's nvidia-cuda-dev package (non-free, ~770 MB) with apt and extract
# just those two files into the cache. The cache lives outside the checkout
# (default ~/.cache/hpgraph/cuda) so CI clones reuse it.
set -euo pipefail

if [ -n "${CUDA_HOME:-}" ] && [ -f "$CUDA_HOME/include/cuda.h" ]; then
  for stubs in "$CUDA_HOME/lib64/stubs" "$CUDA_HOME/lib/stubs" "$CUDA_HOME/targets/x86_64-linux/lib/stubs"; do
    if [ -f "$stubs/libcuda.so" ]; then
      dir="${HPGRAPH_CUDA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hpgraph/cuda}-home"
      mkdir -p "$dir"
      ln -sfn "$CUDA_HOME/include" "$dir/include"
      ln -sfn "$stubs" "$dir/stubs"
      echo "$dir"
      exit 0
    fi
  done
fi

cache="${HPGRAPH_CUDA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hpgraph/cuda}"
if [ -f "$cache/include/cuda.h" ] && [ -f "$cache/stubs/libcuda.so" ]; then
  echo "$cache"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "hpgraph: fetching nvidia-cuda-dev for cuda.h and the libcuda stub (once; cached in $cache)" >&2
"$(dirname "$0")/debian-download.sh" "$work" nvidia-cuda-dev
deb=$(ls "$work"/nvidia-cuda-dev_*.deb)
mkdir -p "$work/x"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/x" \
  ./usr/include/cuda.h ./usr/lib/x86_64-linux-gnu/stubs/libcuda.so
mkdir -p "$cache/include" "$cache/stubs"
cp "$work/x/usr/include/cuda.h" "$cache/include/"
cp -L "$work/x/usr/lib/x86_64-linux-gnu/stubs/libcuda.so" "$cache/stubs/"
echo "$cache"

#!/usr/bin/env bash
# Prints a directory holding libnvrtc.so* (NVRTC, the CUDA runtime
# compiler), so that `make cuda-compile` can compile every kernel for
# compute_80 and compute_90 on a machine with no GPU and no CUDA, as CI
# does. (The test binary needs nothing else: the driver, libcuda.so.1, is
# opened at run time and its absence only skips the tests that need it.)
#
# Order: $CUDA_HOME/lib64 when it has libnvrtc.so; else a cache directory;
# else Debian's libnvrtc11.2 and libnvrtc-builtins11.8 packages (non-free,
# NVRTC 11.8, ~60 MB) extracted into the cache (default
# ~/.cache/hpgraph/nvrtc).
set -euo pipefail

cache="${HPGRAPH_NVRTC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hpgraph/nvrtc}"
mkdir -p "$cache"
# Earlier versions linked the toolkit's libcuda stub here; on
# LD_LIBRARY_PATH it would pass for a driver.
if [ -L "$cache/libcuda.so.1" ]; then rm -f "$cache/libcuda.so.1"; fi

if [ -n "${CUDA_HOME:-}" ] && ls "$CUDA_HOME"/lib64/libnvrtc.so* >/dev/null 2>&1; then
  for f in "$CUDA_HOME"/lib64/libnvrtc*.so*; do ln -sfn "$f" "$cache/$(basename "$f")"; done
  echo "$cache"
  exit 0
fi
if ls "$cache"/libnvrtc.so.* >/dev/null 2>&1; then
  echo "$cache"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "hpgraph: fetching NVRTC (libnvrtc11.2, libnvrtc-builtins11.8) to compile the kernels (once; cached in $cache)" >&2
"$(dirname "$0")/debian-download.sh" "$work" libnvrtc11.2 libnvrtc-builtins11.8
mkdir -p "$work/x"
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/x"; done
cp -a "$work"/x/usr/lib/x86_64-linux-gnu/libnvrtc*.so* "$cache/"
echo "$cache"

#!/usr/bin/env bash
# Fails when a devgen-generated file (zz_device_gen.go) is out of date
# with the Go vertex program beside it: regenerates the examples' and the
# built-in apps' (apps/NAME) device code and asks git whether anything
# changed (or appeared). Then, where NVRTC can be had (scripts/nvrtc.sh: $CUDA_HOME,
# its cache, or Debian's packages), compiles every generated program's
# CUDA for compute_80 and compute_90 (devgen -check), as the GPU backend
# compiles it; where it cannot, says so and skips that part.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
$GO generate ./examples/... ./apps/...
gen=('examples/**/zz_device_gen.go' 'examples/*/zz_device_gen.go' 'apps/*/zz_device_gen.go')
files=$(git ls-files --others --exclude-standard -- "${gen[@]}")
if [ -n "$files" ]; then
  echo "devgen-check: generated files not in git: $files" >&2
  exit 1
fi
if ! git diff --exit-code -- "${gen[@]}"; then
  echo "devgen-check: generated device code is stale; run go generate ./examples/... ./apps/... and commit" >&2
  exit 1
fi
if ! nv=$(scripts/nvrtc.sh) || ! lib=$(ls "$nv"/libnvrtc.so.* 2>/dev/null | head -1) || [ -z "$lib" ]; then
  echo "devgen-check: NVRTC could not be had (scripts/nvrtc.sh failed): the generated CUDA was not compiled" >&2
  exit 0
fi
$GO build -o "${TMPDIR:-/tmp}/devgen-check.$$" ./devgen/cmd/devgen
trap 'rm -f "${TMPDIR:-/tmp}/devgen-check.$$"' EXIT
# Each package with a devgen go:generate line, with that line's flags.
grep -l '^//go:generate go run github.com/hpgraph/hpgraph/devgen/cmd/devgen' examples/*/*.go apps/*/*.go | while read -r f; do
  args=$(sed -n 's|^//go:generate go run github.com/hpgraph/hpgraph/devgen/cmd/devgen||p' "$f" | head -1)
  echo "devgen-check: $(dirname "$f"): compiling with NVRTC" >&2
  # shellcheck disable=SC2086
  (cd "$(dirname "$f")" && LD_LIBRARY_PATH="$nv" HPGRAPH_NVRTC="$lib" "${TMPDIR:-/tmp}/devgen-check.$$" -check -v $args)
done

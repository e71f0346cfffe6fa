#!/usr/bin/env bash
# Fails when a devgen-generated file (zz_device_gen.go) is out of date
# with the Go vertex program beside it: regenerates the examples' and the
# built-in apps' device code and asks git whether anything changed (or
# appeared).
set -euo pipefail
cd "$(dirname "$0")/.."
${GO:-go} generate ./examples/... ./apps/
gen=('examples/**/zz_device_gen.go' 'examples/*/zz_device_gen.go' 'apps/zz_device_gen.go')
files=$(git ls-files --others --exclude-standard -- "${gen[@]}")
if [ -n "$files" ]; then
  echo "devgen-check: generated files not in git: $files" >&2
  exit 1
fi
if ! git diff --exit-code -- "${gen[@]}"; then
  echo "devgen-check: generated device code is stale; run go generate ./examples/... ./apps/ and commit" >&2
  exit 1
fi

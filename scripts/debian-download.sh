#!/usr/bin/env bash
# Usage: scripts/debian-download.sh DIR PACKAGE...
# Downloads the .deb files of Debian bookworm packages (main and non-free)
# into DIR without installing them, through a private apt configuration,
# so the system's sources list is left untouched. Used by nvrtc.sh and
# ptxas-report.sh for the few CUDA files CI and the register report need.
set -euo pipefail
dir=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/sources" "$dir"
cat > "$work/sources/debian.sources" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$work/sources"
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")
apt-get "${apt_opts[@]}" -qq update >&2
(cd "$dir" && apt-get "${apt_opts[@]}" -qq download "$@" >&2)

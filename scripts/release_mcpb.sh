#!/usr/bin/env bash
# The release's MCPB bundles: for every dist archive in ARCHIVES (kobana-mcp-<target>.tar.xz,
# or .zip on Windows), the kobana-mcp binary inside it packed into one bundle per product
# (scripts/build_mcpb.sh), with a <bundle>.sha256 beside each as dist writes for its archives.
#
#   scripts/release_mcpb.sh ARCHIVES OUT_DIR
#   scripts/release_mcpb.sh target/distrib target/mcpb
#
# .github/workflows/release-mcpb.yml runs it on the archives of every target. Fails when
# ARCHIVES holds no archive, or an archive holds no kobana-mcp binary.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "release_mcpb.sh: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: scripts/release_mcpb.sh ARCHIVES OUT_DIR"
archives=$1 out=$2
[ -d "$archives" ] || die "no directory $archives"
mkdir -p "$out"

products=$(ls generated/packaging | sed -n 's/^mcpb-\(.*\)\.manifest\.json$/\1/p')
[ -n "$products" ] || die "no MCPB manifests in generated/packaging"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
count=0
shopt -s nullglob
for archive in "$archives"/kobana-mcp-*.tar.xz "$archives"/kobana-mcp-*.zip; do
  name=$(basename "$archive")
  target=${name#kobana-mcp-}
  target=${target%.tar.xz}
  target=${target%.zip}
  dir="$work/$target"
  mkdir -p "$dir"
  case "$archive" in
    *.zip) unzip -q "$archive" -d "$dir" ;;
    *) tar -xJf "$archive" -C "$dir" ;;
  esac
  binary=$(find "$dir" -type f \( -name kobana-mcp -o -name kobana-mcp.exe \) | head -n 1)
  [ -n "$binary" ] || die "$name holds no kobana-mcp binary"
  for product in $products; do
    built=$(bash scripts/build_mcpb.sh "$product" "$binary" "$target" "$out")
    bundle=${built%%$'\n'*}
    (cd "$(dirname "$bundle")" && sha256sum "$(basename "$bundle")" > "$(basename "$bundle").sha256")
    echo "$bundle"
    count=$((count + 1))
  done
done
[ "$count" -gt 0 ] || die "no kobana-mcp-<target>.tar.xz or .zip archive in $archives"

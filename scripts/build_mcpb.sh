#!/usr/bin/env bash
# Builds the MCPB bundle (a zip: manifest.json + the server binary) of one product from a built
# kobana-mcp binary, for the platform that binary runs on.
#
#   scripts/build_mcpb.sh PRODUCT BINARY TARGET [OUT_DIR]
#   scripts/build_mcpb.sh banking target/x86_64-unknown-linux-musl/dist/kobana-mcp x86_64-unknown-linux-musl dist/
#
# TARGET is the binary's Rust target triple; it picks the platform the bundle declares
# (darwin, linux or win32) and the binary's name inside it (server/kobana-mcp, or
# server/kobana-mcp.exe on Windows). The manifest is generated/packaging/mcpb-PRODUCT.manifest.json
# (generated from the catalog), narrowed to that platform. Writes OUT_DIR/kobana-PRODUCT-TARGET.mcpb
# (default OUT_DIR: target/mcpb) and prints its path and SHA-256 (server.json's fileSha256 for an
# mcpb package). Needs Python 3 (zip and JSON, on every CI runner): python3, or $PYTHON.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "build_mcpb.sh: $*" >&2; exit 1; }

[ $# -ge 3 ] || die "usage: scripts/build_mcpb.sh PRODUCT BINARY TARGET [OUT_DIR]"
product=$1 binary=$2 target=$3 out=${4:-target/mcpb}

manifest="generated/packaging/mcpb-$product.manifest.json"
[ -f "$manifest" ] || die "no manifest for product '$product' ($manifest); products: $(ls generated/packaging | sed -n 's/^mcpb-\(.*\)\.manifest\.json$/\1/p' | tr '\n' ' ')"
[ -f "$binary" ] || die "no binary at $binary (build it first: cargo build --profile dist --target $target)"

case "$target" in
  *-apple-darwin) platform=darwin exe=kobana-mcp ;;
  *-linux-*) platform=linux exe=kobana-mcp ;;
  *-windows-*) platform=win32 exe=kobana-mcp.exe ;;
  *) die "target '$target' is not a macOS, Linux or Windows triple" ;;
esac

mkdir -p "$out"
bundle="$out/kobana-$product-$target.mcpb"

"${PYTHON:-python3}" - "$manifest" "$binary" "$platform" "$exe" "$bundle" <<'PY'
import json, os, sys, zipfile

manifest_path, binary, platform, exe, bundle = sys.argv[1:]
with open(manifest_path, encoding="utf-8") as f:
    manifest = json.load(f)
manifest["compatibility"]["platforms"] = [platform]
manifest["server"]["entry_point"] = "server/" + exe
if platform == "win32":
    # The bundle holds only the .exe: the command names it on every platform it declares.
    manifest["server"]["mcp_config"]["command"] = "${__dirname}/server/" + exe
    manifest["server"]["mcp_config"].pop("platform_overrides", None)

tmp = bundle + ".tmp"
with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as z:
    z.writestr("manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    info = zipfile.ZipInfo("server/" + exe)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100755 << 16)  # a regular file, executable once unpacked
    with open(binary, "rb") as b:
        z.writestr(info, b.read())
os.replace(tmp, bundle)
PY

sha=$(sha256sum "$bundle" | cut -d' ' -f1)
echo "$bundle"
echo "sha256 $sha"

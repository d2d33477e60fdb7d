#!/usr/bin/env bash
# Fetches the published schemas the packaging files are validated against, from package
# registries (the only network CI has), pinned by version and checked by SHA-256:
#
# - the MCP Registry's server.json schema 2025-12-11: the PyPI package skillsaw ships the released
#   schemas byte for byte (its SCHEMA-SOURCE.md names the modelcontextprotocol/static revision;
#   the SHA-256 below is that of https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json);
# - the MCPB manifest schema (manifest_version 0.3, "latest"): the npm package @anthropic-ai/mcpb,
#   the MCPB project's own CLI and schemas.
#
# Usage: scripts/fetch_package_schemas.sh DIR   (writes DIR/server.schema.json and
# DIR/mcpb-manifest.schema.json; a file already there with the right hash is kept).
# Prints the two paths as KEY=path lines for `eval`/`export`.
set -euo pipefail

dir=${1:?usage: scripts/fetch_package_schemas.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

REGISTRY_PYPI=skillsaw==0.22.0
REGISTRY_MEMBER=skillsaw/schemas/mcp_registry/v2025_12_11/server.schema.json
REGISTRY_SHA256=3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0
MCPB_NPM=@anthropic-ai/mcpb@2.1.2
MCPB_MEMBER=package/schemas/mcpb-manifest-latest.schema.json
MCPB_SHA256=3a0ac9d845711a1b9b17dfa5a52f8b60628239d6a86a9db417206a9efc78592d

say() { echo "fetch_package_schemas: $*" >&2; }

matches() { # file sha256
  [ -s "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
}

verify() { # file sha256 what
  local got
  got=$(sha256sum "$1" | cut -d' ' -f1)
  if [ "$got" != "$2" ]; then
    say "$3: SHA-256 $got, expected $2 (the package changed; review before re-pinning)"
    rm -f "$1"
    exit 1
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

registry="$dir/server.schema.json"
if ! matches "$registry" "$REGISTRY_SHA256"; then
  python=${PYTHON:-python3}
  "$python" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$tmp/pypi" "$REGISTRY_PYPI" >&2
  "$python" - "$tmp/pypi" "$REGISTRY_MEMBER" "$registry" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/*.whl")[0]
with zipfile.ZipFile(wheel) as z, open(sys.argv[3], "wb") as out:
    out.write(z.read(sys.argv[2]))
PY
  verify "$registry" "$REGISTRY_SHA256" "server.schema.json from $REGISTRY_PYPI"
  say "server.schema.json (2025-12-11) from PyPI $REGISTRY_PYPI"
fi

mcpb="$dir/mcpb-manifest.schema.json"
if ! matches "$mcpb" "$MCPB_SHA256"; then
  if ! command -v npm >/dev/null 2>&1; then
    say "npm is not installed: it fetches the MCPB manifest schema ($MCPB_NPM)"
    exit 1
  fi
  (cd "$tmp" && npm pack -q "$MCPB_NPM" >/dev/null 2>&1) || { say "npm pack $MCPB_NPM failed"; exit 1; }
  tar -xzf "$tmp"/*.tgz -C "$tmp" "$MCPB_MEMBER"
  cp "$tmp/$MCPB_MEMBER" "$mcpb"
  verify "$mcpb" "$MCPB_SHA256" "mcpb-manifest.schema.json from $MCPB_NPM"
  say "mcpb-manifest.schema.json from npm $MCPB_NPM"
fi

echo "KOBANA_REGISTRY_SCHEMA=$registry"
echo "KOBANA_MCPB_SCHEMA=$mcpb"

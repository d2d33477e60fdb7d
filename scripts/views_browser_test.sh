#!/usr/bin/env bash
# The views' browser test (issue 39; tests/browser/run.mjs): every MCP Apps view rendered from the
# sandbox in Debian's headless Chromium, driven by puppeteer-core, through a host page built on the
# official host SDK (@modelcontextprotocol/ext-apps) and TypeScript client, in pt-BR, es and en;
# the barcode and QR code decoded by zbarimg. Screenshots go to VIEWS_SHOTS_DIR (default
# target/views-shots).
#
# Installs chromium and zbar-tools with apt-get when missing and we are root; the npm packages
# from tests/browser/package-lock.json (npm ci).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "scripts/views_browser_test.sh: $*" >&2; }

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v zbarimg >/dev/null 2>&1 || missing+=(zbar-tools)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    say "missing: ${missing[*]} (apt-get install ${missing[*]})"
    exit 1
  fi
fi

(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
cargo build -q --locked --bin kobana-mcp
KOBANA_MCP_BIN="$PWD/target/debug/kobana-mcp" CHROMIUM="$(command -v chromium)" \
  node tests/browser/run.mjs

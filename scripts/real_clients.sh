#!/usr/bin/env bash
# The install lines, run by the clients that read them (issue 36): installs the real Claude Code
# CLI, mcp-remote and the MCP Inspector from npm (into target/real-clients/, kept between runs),
# puts `kobana-mcp` on PATH, and for one product (default banking) runs what
# generated/docs/install.md says, as written, with a temporary HOME:
#
# - every `claude mcp add` line, each in a fresh HOME: `claude mcp list` (Claude Code's health
#   check) must show the server connected; the proxy line (the real Kobana API, a real token) is
#   checked as registered with its KOBANA_UPSTREAM_URL (a demo token is not one the API knows);
# - the Claude Desktop blocks (stdio, and HTTP through `npx -y mcp-remote`) as the Inspector CLI's
#   `--config`: `tools/list` must answer the same tools over both;
# - the README's Inspector line;
# - the VS Code (`.vscode/mcp.json`, `code --add-mcp`) and Cursor (`mcp.json`, install links)
#   blocks against those clients' published configuration formats (scripts/client_formats.py).
#
# The HTTP lines reach `kobana-mcp serve all --http 127.0.0.1:8080`, started here; when something
# else holds port 8080, the lines run with another port and the script says so.
# Needs Node 20+ with npm (and access to the npm registry on the first run), Python 3, cargo.
# KOBANA_MCP_BIN uses that binary instead of building one. Fails naming the check that failed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
product=${1:-banking}
name="kobana-$product"

say() { echo "real_clients: $*" >&2; }
fail() { say "FAILED: $*"; exit 1; }

# The clients, pinned: a new release is a deliberate change here.
CLAUDE_CODE=@anthropic-ai/claude-code@2.1.332
MCP_REMOTE=mcp-remote@0.15.1
INSPECTOR=@modelcontextprotocol/inspector@2.12.0

command -v npm >/dev/null || fail "npm is not installed (Node 20+)"
command -v python3 >/dev/null || fail "python3 is not installed"

clients=$root/target/real-clients
mkdir -p "$clients"
want="$CLAUDE_CODE $MCP_REMOTE $INSPECTOR"
if [ "$(cat "$clients/.installed" 2>/dev/null)" != "$want" ]; then
  say "installing $want"
  (cd "$clients" && npm install --no-audit --no-fund --loglevel=error $want >/dev/null)
  echo "$want" >"$clients/.installed"
fi

if [ -n "${KOBANA_MCP_BIN:-}" ]; then
  bin=$KOBANA_MCP_BIN
else
  cargo build -q --bin kobana-mcp
  bin=$root/target/debug/kobana-mcp
fi
[ -x "$bin" ] || fail "no kobana-mcp binary at $bin"

work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/bin"
ln -s "$bin" "$work/bin/kobana-mcp"
# The clients' own commands and `kobana-mcp`, as an installed binary would be.
export PATH="$work/bin:$clients/node_modules/.bin:$PATH"
export KOBANA_ACCESS_TOKEN=demo-full
unset KOBANA_UPSTREAM_URL KOBANA_CONFIG KOBANA_HTTP_ADDR KOBANA_DATA_DIR || true
# Claude Code: no update checks, telemetry or error reports from a test.
export DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1

port_answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=8080
if port_answers 8080; then
  port=18080
  while port_answers "$port"; do port=$((port + 1)); done
  say "port 8080 is taken on this machine: the HTTP lines run with port $port instead"
fi

# The product's lines and blocks, with the port the server below listens on.
python3 scripts/client_formats.py extract generated/docs/install.md "$product" "$port" "$work/lines"
python3 scripts/client_formats.py check "$work/lines" "$product"
say "VS Code and Cursor blocks: match the clients' configuration formats"

# The HTTP lines' server: what install.md says to run, with a private data directory.
HOME=$work/server-home kobana-mcp serve all --http "127.0.0.1:$port" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 300); do
  port_answers "$port" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; fail "serve all did not start"; }
  sleep 0.1
done
port_answers "$port" || fail "serve all does not listen on $port"

n=0
while IFS= read -r line; do
  n=$((n + 1))
  home=$work/claude-$n
  mkdir -p "$home"
  # Run as written, from the fresh HOME (Claude Code keys local servers by directory).
  (cd "$home" && HOME=$home bash -c "$line") >"$home/add.log" 2>&1 || { cat "$home/add.log" >&2; fail "line failed: $line"; }
  if [[ $line == *KOBANA_UPSTREAM_URL* ]]; then
    got=$(cd "$home" && HOME=$home claude mcp get "$name" 2>&1) || { echo "$got" >&2; fail "claude mcp get $name after: $line"; }
    grep -q "KOBANA_UPSTREAM_URL=https://api.kobana.com.br" <<<"$got" || { echo "$got" >&2; fail "proxy line registered without KOBANA_UPSTREAM_URL: $line"; }
    say "ok (registered; the proxy needs a real token): $line"
    continue
  fi
  listed=$(cd "$home" && HOME=$home timeout 120 claude mcp list 2>&1) || true
  grep -E "^$name: .*(✔|✓) Connected" <<<"$listed" >/dev/null || { echo "$listed" >&2; fail "claude mcp list does not show $name connected after: $line"; }
  say "ok (connected): $line"
done <"$work/lines/claude.txt"
[ "$n" -ge 3 ] || fail "expected the stdio, proxy and HTTP Claude Code lines, found $n"

# The tools the clients see: the Claude Desktop blocks, through the Inspector CLI (the HTTP block
# launches `npx -y mcp-remote`, found in the clients' directory).
count_tools() { python3 -c 'import json,sys; print(len(json.load(sys.stdin)["tools"]))'; }
inspect() { # config-file → number of tools
  (cd "$clients" && HOME=$work/inspector-home timeout 120 mcp-inspector --cli --config "$1" --server "$name" --method tools/list 2>"$1.err") | count_tools \
    || { cat "$1.err" >&2; fail "Inspector tools/list through $1"; }
}
mkdir -p "$work/inspector-home"
stdio_tools=$(inspect "$work/lines/desktop-stdio.json")
http_tools=$(inspect "$work/lines/desktop-http.json")
[ "$stdio_tools" -gt 0 ] || fail "the stdio server lists no tools"
[ "$stdio_tools" = "$http_tools" ] || fail "stdio lists $stdio_tools tools, HTTP through mcp-remote $http_tools"
say "ok: the Inspector sees $stdio_tools tools over stdio and over HTTP through mcp-remote"

# The README's Inspector line, as written (its port moved with the server's), from the clients'
# directory: `npx -y` takes the pinned Inspector installed there.
inspector_line=$(python3 scripts/client_formats.py readme-inspector README.md "$port")
got=$(cd "$clients" && HOME=$work/inspector-home bash -c "$inspector_line" 2>/dev/null | count_tools) || fail "README's Inspector line: $inspector_line"
[ "$got" -gt 0 ] || fail "README's Inspector line lists no tools"
say "ok: README's Inspector line lists $got tools"
say "all checks passed ($product)"

#!/usr/bin/env bash
# Runs the official MCP conformance suite (pinned in package.json / package-lock.json, with the
# Node 22 it needs) against the conformance fixture server, for both requirement sets, and prints
# per revision the required count, `conformance-<rev>: N passed, M failed`, and beside it the full
# run (required and not-scored scenarios: check totals, then `conformance-<rev>-full: N passed, M
# failed`, scenarios). Exits non-zero when a required scenario fails, or when the full run has a
# failure or a warning that deliberate.json does not explain (see report.mjs).
#
# Environment: CONFORMANCE_PORT (default 3917), CONFORMANCE_SERVER (a command that serves the
# fixture at http://127.0.0.1:$CONFORMANCE_PORT/mcp; default: the `conformance-server` binary of
# the runtime-fixtures crate, runtime/fixtures/).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
port=${CONFORMANCE_PORT:-3917}

cd "$here"
if [ ! -x node_modules/.bin/conformance ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

if [ -z "${CONFORMANCE_SERVER:-}" ]; then
  (cd "$root" && cargo build -q -p runtime-fixtures --bin conformance-server)
  target=${CARGO_TARGET_DIR:-$root/target}
  CONFORMANCE_SERVER="$target/debug/conformance-server 127.0.0.1:$port"
fi

log=$(mktemp)
# shellcheck disable=SC2086
$CONFORMANCE_SERVER >"$log" 2>&1 &
server_pid=$!
cleanup() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  rm -f "$log"
}
trap cleanup EXIT

for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "conformance server exited early:" >&2
    cat "$log" >&2
    exit 1
  fi
  sleep 0.1
done

rm -rf results
status=0
for rev in 2025-11-25 2026-07-28; do
  mkdir -p "results/$rev"
  # The suite's own exit code is not used: report.mjs scores the required scenarios itself.
  npx conformance server --url "http://localhost:$port/mcp" --requirements "$rev" -o "results/$rev" \
    >"results/$rev.log" 2>&1 || true
  npx node report.mjs "results/$rev" "$rev" || status=1
done
exit "$status"

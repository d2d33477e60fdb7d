#!/usr/bin/env bash
# Fault script (issue 12): `kobana-mcp sandbox serve-api` with fault injection, `kobana-mcp serve
# all --upstream` in front of it, a bounded load of write tool calls on both protocol eras under
# timeouts, 5xx, garbage and cut-off answers, connections broken after the write, `kill -9` of the
# proxy, and (when redis-server is installed) Redis stopped, restarted and flushed under a Redis
# ledger. Then the embedded sandbox (issue 37), with an audit file: a full disk for the audit file
# and for the sandbox database (a small tmpfs, mounted when run as root, the phase said skipped
# otherwise), a Redis ledger flushed, stopped and restarted with `kill -9` of the server, and two
# instances started together on a new data directory. Prints, per phase, double executions, lost
# acknowledged writes, lost or broken audit records and outcome-unknown answers; exits non-zero
# when a write ran twice, an acknowledged write or its audit record is missing, an audit line is
# broken, a write told "failed" ran, or an instance did not start.
#
#   bash scripts/fault_script.sh [--calls-per-kind N] [--workers N] [--no-redis] [--phases a,b]
#
# Phases: proxy, proxy-redis, audit-disk, database-disk, ledger-flush, two-instances (default all).
#
# Uses target/release/kobana-mcp (built when missing; KOBANA_MCP_BIN names another binary).
set -euo pipefail
# The rate limits (issue 16) would cut this load short with 429s: off for these runs.
export KOBANA_RATE_LIMIT_READS=0 KOBANA_RATE_LIMIT_WRITES=0 KOBANA_RATE_LIMIT_IP=0
cd "$(dirname "$0")/.."
bin="${KOBANA_MCP_BIN:-target/release/kobana-mcp}"
if [ ! -x "$bin" ]; then
  cargo build --release --locked --bin kobana-mcp
fi
args=("$@")
if ! command -v redis-server >/dev/null 2>&1; then
  echo "fault script: redis-server is not installed: the Redis phase is skipped (apt-get install redis-server)"
  args+=(--no-redis)
fi
exec python3 scripts/fault_driver.py "$bin" "${args[@]}"

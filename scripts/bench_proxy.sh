#!/usr/bin/env bash
# The production path (issue 40): `kobana-mcp serve all --upstream` in front of an API that
# answers in tens of milliseconds, many clients connected at once. Every figure is printed beside
# its target, never asserted; run it on a quiet machine (the load generator, the fake API and the
# servers share its cores).
#
# Pieces (release builds of this checkout):
# - runtime/examples/fake_upstream.rs: the API. Answers after LATENCY_MS ± JITTER_MS, the first
#   GET of each path fetched from `kobana-mcp sandbox serve-api` (the sandbox's real answers) and
#   then served from memory; counts requests, TCP connections accepted, delays applied; makes one
#   path slow (SLOW_MS) or failing on demand.
# - runtime/examples/mcp_load.rs: the clients. CLIENTS at once, each calling one read tool in a
#   loop; 2026-07-28 stateless, or 2025-11-25 where each client opens its own session
#   (`initialize` → `Mcp-Session-Id`, `notifications/initialized`, then every call with that id).
# - scripts/bench_proxy.py: the sections, and the table.
#
# Sections (SECTIONS, comma-separated; default many,slow,fanout,lb,classic):
#   many     CLIENTS clients, both eras, through one instance: calls/s, p50/p99 overhead over the
#            upstream's own delays, peak RSS, upstream connections opened vs calls and open at
#            peak, open file descriptors, errors.
#   slow     one tool's path at SLOW_MS: the other tools' latency beside a run without it.
#   fanout   banking resources/list through the proxy vs the slowest upstream call it made; then
#            with one listed type slow, and one failing.
#   lb       two instances behind deploy/haproxy.cfg (as compose.yaml runs it, addresses made
#            local) sharing a Redis ledger (redis-server on REDIS_PORT, 6506) vs one instance
#            behind the same HAProxy, each instance pinned to one core (taskset).
#   classic  scripts/bench_http.sh (with bench_more.py's sandbox section: billing_invoices_list
#            vs the fixture tool) and scripts/bench_scale.sh, unchanged, their output as is.
#
# A missed target is followed by a `missed, …: CPU seconds …` line: the user + system CPU time of
# each process of that run (server or servers, load generator, fake API, its origin, HAProxy,
# Redis) beside the core-seconds the machine had meanwhile, so the miss shows what bounds it.
#
# Env: CLIENTS (1000), DURATION (seconds counted, 10), WARMUP (seconds, 2), LATENCY_MS (50),
# JITTER_MS (10), SLOW_MS (2000), FANOUT_RUNS (10), ERAS ("2026-07-28 2025-11-25"), REDIS_PORT
# (6506), OUT (results, default /tmp/kobana-bench/proxy), and KOBANA / FAKE / LOAD to measure
# other binaries instead of building. Needs python3, haproxy, redis-server, taskset, ss.
#
# Tiny run to check the script itself (figures meaningless):
#   CLIENTS=20 DURATION=3 WARMUP=1 FANOUT_RUNS=3 SECTIONS=many,slow,fanout,lb scripts/bench_proxy.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
if [ -z "${KOBANA:-}" ] || [ -z "${FAKE:-}" ] || [ -z "${LOAD:-}" ]; then
  # Two builds: `--bin kobana-mcp` names the root package's binary, which `-p runtime` excludes.
  (cd "$root" && cargo build -q --release --bin kobana-mcp &&
    cargo build -q --release -p runtime --example fake_upstream --example mcp_load)
fi
export KOBANA=${KOBANA:-$target/release/kobana-mcp}
export FAKE=${FAKE:-$target/release/examples/fake_upstream}
export LOAD=${LOAD:-$target/release/examples/mcp_load}
export ROOT=$root
# 1,000 clients hold 1,000 connections to the server and as many to the API, in one process each.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
exec python3 "$root/scripts/bench_proxy.py"

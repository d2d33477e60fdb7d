#!/usr/bin/env bash
# HTTP benchmark of the runtime beside the peers of ../shared/bench-peers (static bytes on axum,
# the limit; rmcp, the official Rust SDK), measured in the same run with the same requests:
# tools/list of the 312-tool catalog and tools/call of a small tool, on both wires, 32 concurrent
# clients (oha on the same machine). Interleaved (scripts/bench_rounds.py, bench.py's own pieces):
# every peer up at once, and for each scenario the peers take turns, a 2 s warm-up and one run of
# DURATION (10 s) each, for RUNS (3) rounds, the first peer rotating from round to round, so that
# a machine getting busier or quieter weighs on every peer alike. The table gives medians across
# rounds, each ratio the median of the rounds' own ratios (runs seconds apart) with its min–max;
# RSS peak; stdio cold start (spawn → initialize → tools/list answer, median of 10).
#
# Then scripts/bench_more.py (issue 17): the tools/list tail with and without TCP_NODELAY,
# compressed listings against a static server sending the same compressed bytes, on-the-fly
# compression cost, the sandbox (WAL + read pool) at 1 and 32 connections beside the fixture tool,
# banking resources/list, and the proxy's overhead over `sandbox serve-api`.
#
# Prints figures, never asserts. Env: SCRATCH (default /tmp/kobana-bench: catalog, peer builds,
# oha, results), RUNS (rounds here; runs per figure in bench_more.py), DURATION, CONNS, N (as
# bench-peers), PEERS (default "static rmcp kobana", the first round's order),
# SECTIONS (bench_more.py's, default all; "none" skips it). Needs python3, cargo, a C compiler (the
# TCP_NODELAY shim), network access to crates.io the first time (rmcp, oha).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
peers=${BENCH_PEERS:-$(cd "$root/../shared/bench-peers" 2>/dev/null && pwd || true)}
[ -n "$peers" ] && [ -f "$peers/bench.py" ] || { echo "bench_http.sh: ../shared/bench-peers not found (set BENCH_PEERS)" >&2; exit 1; }
S=${SCRATCH:-/tmp/kobana-bench}
OUT=${OUT:-$S/results}
mkdir -p "$S" "$OUT"

# 1. The catalog, the peers (release, built outside the repository), the load generator.
[ -f "$S/catalog/tools.json" ] || python3 "$peers/build_catalog.py" "$root/../shared/kobana-openapi" "$S/catalog"
(cd "$peers/rust" && CARGO_TARGET_DIR="$S/rust-target" cargo build -q --release --locked)
export OHA=${OHA:-$S/oha/bin/oha}
[ -x "$OHA" ] || cargo install -q oha --locked --version 1.16.0 --root "$S/oha"

# 2. Ours, in release (and a static server for our compressed bytes, and the CLI).
(cd "$root" && cargo build -q --release -p runtime --example bench_server --example static_file)
ours=${CARGO_TARGET_DIR:-$root/target}/release/examples/bench_server
if [ "${SECTIONS:-all}" != none ]; then
  (cd "$root" && cargo build -q --release --bin kobana-mcp)
  # An LD_PRELOAD shim making setsockopt(TCP_NODELAY) a no-op: ours as it was before the option.
  cat > "$S/nonodelay.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
int setsockopt(int fd, int level, int name, const void *val, socklen_t len) {
    static int (*real)(int, int, int, const void *, socklen_t);
    if (!real) real = dlsym(RTLD_NEXT, "setsockopt");
    if (level == IPPROTO_TCP && name == TCP_NODELAY) return 0;
    return real(fd, level, name, val, len);
}
C
  cc -shared -fPIC -O2 -o "$S/nonodelay.so" "$S/nonodelay.c" -ldl
fi
T="$S/rust-target/release"
C="$S/catalog/tools.json"
cat > "$S/peers.json" <<JSON
{
 "static": {"version": "axum 0.8 (static bytes)", "port": 18004, "cmd": ["$T/static_bytes", "$C", "18004"]},
 "rmcp": {"version": "rmcp 3.11.0 (axum 0.8)", "port": 18003, "cmd": ["$T/peer_rmcp", "$C", "http", "18003"],
          "stdio": ["$T/peer_rmcp", "$C", "stdio"]},
 "kobana": {"version": "kobana-mcp runtime $(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo dev)", "port": 18006,
            "cmd": ["$ours", "$C", "http", "18006"], "stdio": ["$ours", "$C", "stdio"]}
}
JSON

# 3. Measure (the bench-peers scripts, unchanged: bench.py's pieces in turns), then the ratios.
rm -rf "$OUT/http.json" "$OUT/coldstart.json" "$OUT"/round*
# oha sends an Accept-Encoding of its own unless told not to: our listings would then be measured
# compressed against peers sending them raw. The table compares identity answers; compression
# is measured by bench_more.py against a static server sending the same compressed bytes.
printf '#!/bin/sh\nexec %s --disable-compression "$@"\n' "$OHA" > "$S/oha-identity"
chmod +x "$S/oha-identity"
echo "load average before: $(cat /proc/loadavg)"
# shellcheck disable=SC2086
OHA="$S/oha-identity" python3 "$root/scripts/bench_rounds.py" "$peers/bench.py" "$S/peers.json" "$OUT" \
  "${RUNS:-3}" ${PEERS:-static rmcp kobana}
python3 "$peers/coldstart.py" "$S/peers.json" "$OUT" rmcp kobana
echo "load average after: $(cat /proc/loadavg)"
python3 "$root/scripts/bench_table.py" "$OUT" "${RUNS:-3}"
echo "raw results: $OUT/http.json, $OUT/coldstart.json"

# 4. Issue 17's further figures, each beside its peer in the same run.
if [ "${SECTIONS:-all}" != none ]; then
  [ "${SECTIONS:-all}" = all ] && unset SECTIONS
  BENCH_SERVER="$ours" STATIC_BYTES="$T/static_bytes" \
    STATIC_FILE="${CARGO_TARGET_DIR:-$root/target}/release/examples/static_file" \
    KOBANA="${CARGO_TARGET_DIR:-$root/target}/release/kobana-mcp" CATALOG="$C" \
    NODELAY_SHIM="$S/nonodelay.so" python3 "$root/scripts/bench_more.py" "$OUT/more"
fi

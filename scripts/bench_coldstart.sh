#!/usr/bin/env bash
# stdio cold start of `kobana-mcp serve <product> --stdio`: time from spawning the process to the
# tools/list answer, N runs per case (default 20), median and p90. Target: under 10 ms.
#
# Cases, for banking (the 311-tool catalog) and billing:
#   2025  initialize + notifications/initialized + tools/list (protocol 2025-11-25)
#   2026  one stateless tools/list carrying the 2026-07-28 `_meta`
# Each run uses a fresh, empty data directory (the worst case: nothing seeded yet).
#
# Prints figures, never asserts. Env: N (runs per case), PRODUCTS (space-separated),
# BIN (skip the build and use this binary).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-20}
PRODUCTS=${PRODUCTS:-"banking billing"}
if [ -z "${BIN:-}" ]; then
  (cd "$root" && cargo build -q --release --bin kobana-mcp)
  BIN=${CARGO_TARGET_DIR:-$root/target}/release/kobana-mcp
fi
[ -x "$BIN" ] || { echo "bench_coldstart.sh: $BIN is not executable" >&2; exit 1; }

exec python3 - "$BIN" "$N" $PRODUCTS <<'PY'
import json, os, shutil, statistics, subprocess, sys, tempfile, time

binary, n, products = sys.argv[1], int(sys.argv[2]), sys.argv[3:]

def msg(obj):
    return (json.dumps(obj) + "\n").encode()

LEGACY = [
    msg({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}}),
    msg({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    msg({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
]
MODERN = [
    msg({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}}),
]

def one_run(product, lines):
    data_dir = tempfile.mkdtemp(prefix="kobana-coldstart-")
    env = dict(os.environ, KOBANA_DATA_DIR=data_dir, RUST_LOG=os.environ.get("RUST_LOG", "warn"))
    try:
        t0 = time.perf_counter()
        p = subprocess.Popen([binary, "serve", product, "--stdio"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        p.stdin.write(b"".join(lines))
        p.stdin.flush()
        tools = None
        for raw in p.stdout:
            # Stop the clock when the answer's line has arrived, before parsing it.
            elapsed = time.perf_counter() - t0
            answer = json.loads(raw)
            if answer.get("id") == 2:
                if "result" not in answer:
                    raise SystemExit(f"{product}: tools/list failed: {answer}")
                tools = len(answer["result"]["tools"])
                break
        p.stdin.close()
        p.wait(timeout=10)
        if tools is None:
            raise SystemExit(f"{product}: no tools/list answer (exit {p.returncode})")
        return elapsed * 1000, tools
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)

def p90(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))]

print(f"stdio cold start, spawn → tools/list answer, {n} runs each ({binary})")
print(f"{'product':<10} {'wire':<5} {'tools':>5} {'median ms':>10} {'p90 ms':>8} {'min ms':>8}")
for product in products:
    for wire, lines in (("2025", LEGACY), ("2026", MODERN)):
        one_run(product, lines)  # warm the page cache
        times, tools = [], 0
        for _ in range(n):
            ms, tools = one_run(product, lines)
            times.append(ms)
        print(f"{product:<10} {wire:<5} {tools:>5} {statistics.median(times):>10.2f} "
              f"{p90(times):>8.2f} {min(times):>8.2f}")
PY

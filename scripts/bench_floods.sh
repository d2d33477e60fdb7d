#!/usr/bin/env bash
# Flood benchmark of issue 12: starts the release `kobana-mcp serve all --http` on loopback (a
# fresh sandbox per flood, so each peak is that flood's), sends one flood, and prints the items
# sent, the bytes answered, what the answers were, and the server's peak RSS (VmHWM from
# /proc/<pid>/status). Floods:
#   batch       one 1,000-member batch of tools/list (banking), then a 100-member one (the limit)
#   initialize  10,000 `initialize` from one read-only token, then one from another person
#   input       N tools/call of a destructive tool from one caller (each answered input_required)
#   methods     N_METHODS requests with distinct unknown method names from a read-only token, then
#               N_METHODS tools/call of distinct unknown tool names, with `/metrics`' size after
#               each (issue 37: metric labels from closed sets; target RSS under 40 MiB, `/metrics`
#               under 200 KB)
# Prints figures, never asserts (target: peak RSS under 200 MB). Env: FLOODS (default all four),
# N_INIT (10000), N_INPUT (10000), N_METHODS (10000), PORT (18731). Needs python3 and cargo.
set -euo pipefail
# The rate limits (issue 16) would cut this load short with 429s: off for these runs.
export KOBANA_RATE_LIMIT_READS=0 KOBANA_RATE_LIMIT_WRITES=0 KOBANA_RATE_LIMIT_IP=0
root=$(cd "$(dirname "$0")/.." && pwd)
FLOODS=${FLOODS:-"batch initialize input methods"}
PORT=${PORT:-18731}
export N_INIT=${N_INIT:-10000} N_INPUT=${N_INPUT:-10000} N_METHODS=${N_METHODS:-10000}
(cd "$root" && cargo build -q --release -p kobana-mcp)
bin=${CARGO_TARGET_DIR:-$root/target}/release/kobana-mcp
scratch=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$scratch"; }
trap cleanup EXIT

for flood in $FLOODS; do
    rm -rf "$scratch/data"
    KOBANA_DATA_DIR="$scratch/data" RUST_LOG=warn "$bin" serve all --http "127.0.0.1:$PORT" \
        >"$scratch/server.log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
        sleep 0.1
    done
    start_kb=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
    python3 - "$flood" "$PORT" <<'PY'
import http.client, json, os, sys

flood, port = sys.argv[1], int(sys.argv[2])
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}

def post(path, token, body, headers=None):
    global conn
    h = {"content-type": "application/json", "accept": "application/json, text/event-stream",
         "authorization": f"Bearer {token}"}
    h.update(headers or {})
    data = json.dumps(body).encode()
    for attempt in (1, 2):
        try:
            conn.request("POST", path, data, h)
            r = conn.getresponse()
            return r.status, r.read(), len(data)
        except (http.client.HTTPException, ConnectionError):
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    raise SystemExit("server unreachable")

def tally(statuses):
    return ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items()))

if flood == "batch":
    for n in (1000, 100):
        batch = [{"jsonrpc": "2.0", "id": i, "method": "tools/list"} for i in range(n)]
        st, body, sent = post("/banking/mcp", "demo-full", batch,
                              {"mcp-protocol-version": "2025-03-26"})
        v = json.loads(body)
        if isinstance(v, list):
            ok = sum(1 for m in v if "result" in m)
            what = f"{ok} results, {len(v) - ok} errors naming a limit"
        else:
            what = v.get("error", {}).get("message", "")[:90]
        print(f"batch of {n} tools/list: request {sent} B → HTTP {st}, answer {len(body)} B ({what})")
elif flood == "initialize":
    n = int(os.environ["N_INIT"])
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "flood", "version": "1"}}}
    statuses, answered = {}, 0
    for _ in range(n):
        st, body, _ = post("/banking/mcp", "demo-readonly", init)
        statuses[st] = statuses.get(st, 0) + 1
        answered += len(body)
    other = post("/banking/mcp", "demo-full", init)[0]
    print(f"{n} initialize from demo-readonly: HTTP {tally(statuses)}; answers {answered} B; "
          f"then demo-full's initialize → HTTP {other}")
elif flood == "input":
    n = int(os.environ["N_INPUT"])
    st, body, _ = post("/banking/mcp", "demo-full",
                       {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}},
                       {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"})
    tools = json.loads(body)["result"]["tools"]
    def simple(t):
        s = t.get("inputSchema", {})
        req = s.get("required", [])
        return all(s.get("properties", {}).get(r, {}).get("type") in ("integer", "string") for r in req)
    tool = next(t for t in tools if t.get("annotations", {}).get("destructiveHint") and simple(t))
    props = tool["inputSchema"].get("properties", {})
    args = {r: (1 if props[r].get("type") == "integer" else "1") for r in tool["inputSchema"].get("required", [])}
    statuses, kinds, answered = {}, {}, 0
    # A client that can answer a form: the destructive call is asked about, not run.
    meta = dict(META, **{"io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}})
    for i in range(n):
        call = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": tool["name"], "arguments": args, "_meta": meta}}
        st, body, _ = post("/banking/mcp", "demo-full", call,
                           {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
                            "mcp-name": tool["name"]})
        statuses[st] = statuses.get(st, 0) + 1
        answered += len(body)
        try:
            v = json.loads(body)
            k = v.get("result", {}).get("resultType") or f"error {v.get('error', {}).get('code')}"
        except ValueError:
            k = "not JSON"
        kinds[k] = kinds.get(k, 0) + 1
    other = post("/billing/mcp", "demo-other-org",
                 {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}},
                 {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"})[0]
    print(f"{n} tools/call {tool['name']} from demo-full: HTTP {tally(statuses)}; answers {tally(kinds)}; "
          f"{answered} B; then demo-other-org's tools/list → HTTP {other}")
elif flood == "methods":
    n = int(os.environ["N_METHODS"])
    def metrics_bytes():
        global conn
        conn.request("GET", "/metrics")
        r = conn.getresponse()
        return r.status, len(r.read())
    before = metrics_bytes()
    statuses = {}
    for i in range(n):
        st, _, _ = post("/banking/mcp", "demo-readonly",
                        {"jsonrpc": "2.0", "id": i, "method": f"flood/method-{i:05d}-" + "x" * 40},
                        {"mcp-protocol-version": "2025-11-25"})
        statuses[st] = statuses.get(st, 0) + 1
    after_methods = metrics_bytes()
    for i in range(n):
        st, _, _ = post("/banking/mcp", "demo-readonly",
                        {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                         "params": {"name": f"flood_tool_{i:05d}", "arguments": {}}},
                        {"mcp-protocol-version": "2025-11-25"})
        statuses[st] = statuses.get(st, 0) + 1
    after_tools = metrics_bytes()
    print(f"{n} distinct unknown methods then {n} distinct unknown tools from demo-readonly: "
          f"HTTP {tally(statuses)}; /metrics {before[1]} B before (HTTP {before[0]}), "
          f"{after_methods[1]} B after the methods, {after_tools[1]} B after the tools")
PY
    peak_kb=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
    echo "  server peak RSS: $((peak_kb / 1024)) MiB (after start: $((start_kb / 1024)) MiB)"
    kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
done

#!/usr/bin/env bash
# Instructions per call of the embedded sandbox's read tool `billing_invoices_list` (issue 17),
# counted by callgrind: exact and repeatable on a busy machine, where wall-clock rates are not.
#
# `kobana-mcp serve billing` runs under `valgrind --tool=callgrind` on a fresh data directory; a
# client outside valgrind sends it `tools/call` requests over one keep-alive HTTP connection, one
# at a time, as scripts/bench_more.py's sandbox section does (the demo token, rate limits off).
# Each run warms the server with W calls of every scenario (seeding the scope, filling SQLite's
# caches), then sends N more of one scenario (none for the baseline run); the instructions of one
# call are (run total − baseline total) / N, every thread counted: hyper, the protocol layers, the
# blocking thread running SQLite, the answer.
#
# Scenarios (SCENARIOS, space-separated NAME=ARGUMENTS-JSON; default: the default 50-record page,
# a 100-record page, and two filtered pages). Env: BIN (a kobana-mcp binary to measure instead of
# building this checkout's release binary, e.g. an older commit's for a before/after), N (calls
# per run, default 300), W (warm-up calls per scenario, default 20), WIRE (protocol version,
# default 2025-11-25), JSON (write the figures there too). Needs valgrind and python3. Prints
# figures, never asserts.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
command -v valgrind >/dev/null || { echo "bench_sandbox_instructions.sh: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
if [ -z "${BIN:-}" ]; then
  (cd "$root" && cargo build -q --release --bin kobana-mcp)
  BIN=${CARGO_TARGET_DIR:-$root/target}/release/kobana-mcp
fi
export BIN
exec python3 - <<'PY'
import http.client, json, os, re, shutil, socket, subprocess, sys, tempfile, time

BIN = os.environ["BIN"]
N = int(os.environ.get("N", "300"))
W = int(os.environ.get("W", "20"))
WIRE = os.environ.get("WIRE", "2025-11-25")
SCENARIOS = [tuple(s.split("=", 1)) for s in os.environ.get(
    "SCENARIOS",
    'default={} per_page_100={"per_page":100} status_paid={"status":"paid"} '
    'status_paid_page_2={"status":"paid","page":2,"per_page":20}',
).split()]
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": WIRE, "Authorization": "Bearer demo-full"}
META = {"io.modelcontextprotocol/protocolVersion": WIRE,
        "io.modelcontextprotocol/clientCapabilities": {}}


def body(args):
    params = {"name": "billing_invoices_list", "arguments": json.loads(args)}
    if WIRE == "2026-07-28":
        params["_meta"] = META
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params},
                      separators=(",", ":"))


def headers():
    h = dict(HEADERS)
    if WIRE == "2026-07-28":
        h.update({"Mcp-Method": "tools/call", "Mcp-Name": "billing_invoices_list"})
    return h


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def send(conn, name, args, count):
    b, h = body(args), headers()
    for _ in range(count):
        conn.request("POST", "/mcp", body=b, headers=h)
        r = conn.getresponse()
        raw = r.read()
        msg = json.loads(raw) if r.status == 200 else {}
        if "result" not in msg or msg["result"].get("isError"):
            sys.exit(f"{name}: unexpected answer {r.status}: {raw[:300]!r}")


def run(extra):
    """Total instructions of one server run: warm-up of every scenario, then `extra`."""
    port = free_port()
    data = tempfile.mkdtemp(prefix="kobana-sandbox-instr-")
    out = tempfile.NamedTemporaryFile(prefix="callgrind.", suffix=".out", delete=False).name
    env = dict(os.environ, KOBANA_RATE_LIMIT_READS="0", KOBANA_RATE_LIMIT_WRITES="0",
               KOBANA_RATE_LIMIT_IP="0")
    # The server's stderr (valgrind's lines, and a request-log line per call) goes to a file: a
    # pipe that nobody reads fills at 64 KiB, and then the server blocks writing its log.
    log = tempfile.NamedTemporaryFile(prefix="server.", suffix=".log")
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no",
         "--compress-strings=no", BIN, "--data-dir", data, "serve", "billing", "--http",
         f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=log, env=env)
    try:
        deadline = time.time() + 300
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
                conn.connect()
                break
            except OSError:
                if server.poll() is not None or time.time() > deadline:
                    sys.exit(f"kobana-mcp did not start: {open(log.name, errors='replace').read()[-2000:]}")
                time.sleep(0.2)
        for name, args in SCENARIOS:
            send(conn, name, args, W)
        if extra:
            send(conn, *extra)
        conn.close()
    finally:
        server.send_signal(2)  # Ctrl-C: the server ends gracefully and callgrind writes its file
        server.wait(timeout=300)
        log.close()
        shutil.rmtree(data, ignore_errors=True)
    text = open(out).read()
    os.unlink(out)
    m = re.search(r"^(?:totals|summary): (\d+)", text, re.M)
    if not m:
        sys.exit("no totals in the callgrind output")
    return int(m.group(1))


print(f"binary: {BIN}\nwire: {WIRE}\nload average: {open('/proc/loadavg').read().split()[0:3]}")
base = run(None)
rows = []
for name, args in SCENARIOS:
    per = (run((name, args, N)) - base) / N
    rows.append({"scenario": name, "arguments": json.loads(args), "calls": N,
                 "instructions_per_call": round(per)})
    print(f"{name:<22} {args:<45} {per:>12,.0f} instructions per call  (over {N})", flush=True)
if os.environ.get("JSON"):
    json.dump({"binary": BIN, "wire": WIRE, "rows": rows}, open(os.environ["JSON"], "w"), indent=1)
PY

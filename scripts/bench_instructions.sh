#!/usr/bin/env bash
# Instructions per request of the release `bench_server` (the runtime serving the 312-tool catalog
# of ../shared/bench-peers, as scripts/bench_http.sh measures it), counted by callgrind: exact and
# repeatable on a busy machine, where wall-clock rates are not (issue 17).
#
# The server runs under `valgrind --tool=callgrind` and a client sends it the requests of
# bench-peers' `scenario()` (the same headers and bodies oha sends) over one keep-alive
# connection, one at a time. Each run starts a server, warms it with W requests of every
# scenario, then sends N more of one scenario (none for the baseline run); the instructions of
# one request are (run total − baseline total) / N. Start-up, warm-up and first-use costs cancel
# out; what remains is everything the process does for a request: hyper reading and writing the
# socket, axum's layers, the connection and protocol layers, the backend, the answer. The client
# runs outside valgrind and is not counted.
#
# Prints one line per scenario (wire, method, instructions per request) and, with JSON=<file>,
# writes them there. With STATIC_BYTES=<path of bench-peers' static_bytes> (scripts/bench_http.sh
# builds it under $SCRATCH/rust-target/release) the static-bytes server is measured alike and the
# ratios printed: what the static server does per request is the floor of hyper and axum. Env: BIN (a bench_server binary to measure instead of building this
# checkout's; e.g. an older commit's, for a before/after), N (tools/call requests per run,
# default 2000), N_LIST (tools/list, default 100), W (warm-up per scenario, default 50),
# SCENARIOS (default "2025-11-25:tools/call 2026-07-28:tools/call 2025-11-25:tools/list
# 2026-07-28:tools/list 2025-11-25:tools/list:br"; a third field is sent as `Accept-Encoding`,
# and the answer must come back in that coding), SCRATCH (default /tmp/kobana-bench: the
# catalog), KEEP (a directory: each run's callgrind file is kept there, named by server and
# scenario, for `callgrind_annotate --inclusive=yes`; the baseline run is `*-base.out`). Needs
# valgrind and python3. Prints figures, never asserts.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
peers=${BENCH_PEERS:-$(cd "$root/../shared/bench-peers" 2>/dev/null && pwd || true)}
[ -n "$peers" ] && [ -f "$peers/bench.py" ] || { echo "bench_instructions.sh: ../shared/bench-peers not found (set BENCH_PEERS)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "bench_instructions.sh: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
S=${SCRATCH:-/tmp/kobana-bench}
mkdir -p "$S"
[ -f "$S/catalog/tools.json" ] || python3 "$peers/build_catalog.py" "$root/../shared/kobana-openapi" "$S/catalog"
if [ -z "${BIN:-}" ]; then
  (cd "$root" && cargo build -q --release -p runtime --example bench_server)
  BIN=${CARGO_TARGET_DIR:-$root/target}/release/examples/bench_server
fi
export BIN PEERS_DIR="$peers" CATALOG="$S/catalog/tools.json"
exec python3 - <<'PY'
import http.client, json, os, re, socket, subprocess, sys, tempfile, time

sys.path.insert(0, os.environ["PEERS_DIR"])
import bench  # noqa: E402  (bench-peers' scenario(): the requests oha sends)

BIN, CATALOG = os.environ["BIN"], os.environ["CATALOG"]
N = int(os.environ.get("N", "2000"))
N_LIST = int(os.environ.get("N_LIST", "100"))
W = int(os.environ.get("W", "50"))
# The static-bytes peer (bench-peers' `static_bytes TOOLS_JSON PORT`), measured alike when given.
STATIC = os.environ.get("STATIC_BYTES", "")
SCENARIOS = [tuple((s.split(":", 2) + [""])[:3]) for s in os.environ.get(
    "SCENARIOS",
    "2025-11-25:tools/call 2026-07-28:tools/call 2025-11-25:tools/list 2026-07-28:tools/list"
    " 2025-11-25:tools/list:br",
).split()]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def send(conn, wire, method, coding, count):
    headers, body = bench.scenario(method, wire)
    if coding:
        headers = {**headers, "Accept-Encoding": coding}
    for _ in range(count):
        conn.request("POST", "/mcp", body=body, headers=headers)
        r = conn.getresponse()
        raw = r.read()
        if coding:
            # A compressed answer is checked by its status and coding (the client does not decode).
            got = r.getheader("Content-Encoding", "")
            if r.status != 200 or got != coding:
                sys.exit(f"{wire} {method} {coding}: HTTP {r.status}, Content-Encoding {got!r}")
            continue
        ok, note = bench.check(r.status, raw, method)
        if not ok:
            sys.exit(f"{wire} {method}: unexpected answer: {note}")


KEEP = os.environ.get("KEEP", "")


def run(argv, extra, scenarios, label):
    """Total instructions of one server run: warm-up of every scenario, then `extra`."""
    port = free_port()
    out = tempfile.NamedTemporaryFile(prefix="callgrind.", suffix=".out", delete=False).name
    # The server's stderr (valgrind's lines, and a request-log line per call) goes to a file: a
    # pipe that nobody reads fills at 64 KiB, and then the server blocks writing its log.
    log = tempfile.NamedTemporaryFile(prefix="server.", suffix=".log")
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no",
         "--compress-strings=no", *argv(port)],
        stdout=subprocess.DEVNULL, stderr=log)
    try:
        deadline = time.time() + 300
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                conn.connect()
                break
            except OSError:
                if server.poll() is not None or time.time() > deadline:
                    sys.exit(f"bench_server did not start: {open(log.name, errors='replace').read()[-2000:]}")
                time.sleep(0.2)
        for wire, method, coding in scenarios:
            send(conn, wire, method, coding, W)
        if extra:
            wire, method, coding, n = extra
            send(conn, wire, method, coding, n)
        conn.close()
    finally:
        server.send_signal(2)  # Ctrl-C: the server ends gracefully and callgrind writes its file
        server.wait(timeout=300)
        log.close()
    text = open(out).read()
    if KEEP:
        os.makedirs(KEEP, exist_ok=True)
        name = "-".join([label, *filter(None, extra[:3])]) if extra else f"{label}-base"
        os.replace(out, os.path.join(KEEP, re.sub(r"[^A-Za-z0-9.-]+", "_", name).strip("_") + ".out"))
    else:
        os.unlink(out)
    m = re.search(r"^(?:totals|summary): (\d+)", text, re.M)
    if not m:
        sys.exit("no totals in the callgrind output")
    return int(m.group(1))


def measure(label, argv, scenarios):
    base = run(argv, None, scenarios, label)
    rows = []
    for wire, method, coding in scenarios:
        n = N_LIST if method == "tools/list" else N
        per = (run(argv, (wire, method, coding, n), scenarios, label) - base) / n
        rows.append({"server": label, "wire": wire, "method": method, "coding": coding,
                     "requests": n, "instructions_per_request": round(per)})
        print(f"{label:<7} {wire:<11} {method:<11} {coding or 'identity':<8} {per:>12,.0f}"
              f" instructions per request  (over {n})", flush=True)
    return rows


print(f"ours: {BIN}\nload average: {open('/proc/loadavg').read().split()[0:3]}")
rows = measure("ours", lambda port: [BIN, CATALOG, "http", str(port)], SCENARIOS)
if STATIC:
    print(f"static: {STATIC}")
    # static_bytes sends its one uncompressed answer whatever is accepted: the compressed rows
    # have no static counterpart here (scripts/bench_more.py's `compress` section has one).
    plain = [s for s in SCENARIOS if not s[2]]
    theirs = measure("static", lambda port: [STATIC, CATALOG, str(port)], plain)
    for o, t in zip([r for r in rows if not r["coding"]], theirs):
        print(f"{o['wire']:<11} {o['method']:<11} {o['coding'] or 'identity':<8} ours/static"
              f" {o['instructions_per_request'] / t['instructions_per_request']:.2f}")
    rows += theirs
if os.environ.get("JSON"):
    json.dump({"binary": BIN, "rows": rows}, open(os.environ["JSON"], "w"), indent=1)
PY

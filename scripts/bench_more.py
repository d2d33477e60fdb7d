#!/usr/bin/env python3
"""Issue 17's figures beyond bench-peers' table, each measured beside its peer in the same run
(run by scripts/bench_http.sh; prints figures, never asserts).

Usage: bench_more.py OUT_DIR  (env: OHA, RUNS, DURATION, CONNS, SECTIONS, and the binaries:
BENCH_SERVER, STATIC_BYTES, STATIC_FILE, KOBANA, CATALOG, NODELAY_SHIM)

Sections (SECTIONS, comma-separated; default all):
  nagle     tools/list p50/p99: ours as built, ours with TCP_NODELAY suppressed (an LD_PRELOAD
            shim turning the setsockopt into a no-op: the old accept loop), static bytes.
  compress  tools/list in br, zstd, gzip: wire size against raw, throughput against a static
            server sending the very same compressed bytes.
  fly       a 16 KiB tools/call answer (not a listing) with and without Accept-Encoding: the cost
            of on-the-fly compression.
  sandbox   billing_invoices_list through `kobana-mcp serve billing` (embedded SQLite sandbox) at
            1 and CONNS connections; at CONNS interleaved with the in-process fixture tool of
            bench_server and with a static server sending the sandbox's very answer bytes (the
            bound of any server giving that answer); banking resources/list p50.
  proxy     billing_invoices_list through `serve billing --upstream` to `sandbox serve-api`, and
            the same request straight to serve-api: p50 at 1 connection, and the difference.
Every figure is the median of RUNS runs (by req/s); the load average is printed beside each. In
nagle, compress and fly every variant's server is up at once and the runs are interleaved (one
run of each per round, the order rotated), each ratio the median of the rounds' own ratios with
its min–max.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

OHA = os.environ["OHA"]
RUNS = int(os.environ.get("RUNS", "3"))
DURATION = os.environ.get("DURATION", "10s")
CONNS = int(os.environ.get("CONNS", "32"))
SECTIONS = os.environ.get("SECTIONS", "nagle,compress,fly,sandbox,proxy").split(",")
CATALOG = os.environ.get("CATALOG", "")
TOOL = "banking_v1_bank_billets_get"
MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}


def load():
    return open("/proc/loadavg").read().split()[0]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, proc, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early: {proc.args}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"server not listening: {proc.args}")


class Server:
    def __init__(self, cmd, port, env=None, log=None):
        self.port = port
        self.proc = subprocess.Popen(cmd, env=env, stdout=log or subprocess.DEVNULL,
                                     stderr=subprocess.STDOUT if log else subprocess.DEVNULL)
        wait_port(port, self.proc)

    def rss_mib(self):
        for line in open(f"/proc/{self.proc.pid}/status"):
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def http(url, body=None, headers=None, method="POST"):
    data = body.encode() if isinstance(body, str) else body
    req = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def oha(url, headers, body, conns, method="POST", duration=None):
    # --disable-compression: oha would otherwise send its own Accept-Encoding and decode; every
    # scenario states the coding it asks for.
    cmd = [OHA, "--no-tui", "--disable-compression", "--output-format", "json",
           "-z", duration or DURATION, "-c", str(conns), "-m", method]
    if body is not None:
        cmd += ["-d", body]
    for k, v in headers.items():
        cmd += ["-H", f"{k}: {v}"]
    out = subprocess.run(cmd + [url], capture_output=True, check=True).stdout
    data = json.loads(out)
    codes = data.get("statusCodeDistribution", {})
    total = sum(codes.values())
    return {"rps": data["summary"]["requestsPerSec"],
            "p50_ms": data["latencyPercentiles"]["p50"] * 1000 if total else None,
            "p99_ms": data["latencyPercentiles"]["p99"] * 1000 if total else None,
            "non_200": total - codes.get("200", 0), "load": load()}


def median_of(url, headers, body, conns=CONNS, method="POST"):
    oha(url, headers, body, conns, method, duration="2s")  # warm-up
    runs = [oha(url, headers, body, conns, method) for _ in range(RUNS)]
    return summary(runs)


def summary(runs):
    """The median run (by req/s), with every run's req/s and the non-200 answers of all."""
    mid = dict(sorted(runs, key=lambda r: r["rps"])[len(runs) // 2])
    mid["runs_rps"] = [round(r["rps"]) for r in runs]
    mid["non_200"] = sum(r["non_200"] for r in runs)
    mid["runs"] = runs
    return mid


def interleaved(targets, conns=CONNS, method="POST"):
    """Every target ({label: (url, headers, body)}, their servers all up) warmed 2 s, then RUNS
    rounds of one run each, the order rotated from round to round: a machine getting busier or
    quieter weighs on each alike, and each round's ratios compare runs seconds apart."""
    labels = list(targets)
    for label in labels:
        url, h, b = targets[label]
        oha(url, h, b, conns, method, duration="2s")
    runs = {label: [] for label in labels}
    for i in range(RUNS):
        k = i % len(labels)
        for label in labels[k:] + labels[:k]:
            url, h, b = targets[label]
            runs[label].append(oha(url, h, b, conns, method))
    return {label: dict(summary(runs[label]), interleaved=True) for label in labels}


def mcp_headers(method, wire="2025-11-25", name=None):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "MCP-Protocol-Version": wire}
    if wire == "2026-07-28":
        h["Mcp-Method"] = method
        if name:
            h["Mcp-Name"] = name
    return h


def mcp_body(method, params=None, wire="2025-11-25"):
    params = dict(params or {})
    if wire == "2026-07-28":
        params["_meta"] = MODERN_META
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
                      separators=(",", ":"))


def fmt(r):
    return (f"{r['rps']:,.0f} req/s, p50 {r['p50_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms "
            f"(runs {r['runs_rps']}, non-200 {r['non_200']}, load {r['load']})")


def ratio(ours, peer, key):
    """The median of the rounds' own ratios and their min–max (rounds paired by index, as
    `interleaved` runs them), or the ratio of the medians for runs that were not interleaved."""
    pairs = [(a[key], b[key]) for a, b in zip(ours.get("runs", []), peer.get("runs", []))
             if a[key] and b[key]]
    if not ours.get("interleaved") or not pairs:
        return f"{ours[key] / peer[key]:.2f}"
    r = sorted(a / b for a, b in pairs)
    med = r[len(r) // 2] if len(r) % 2 else (r[len(r) // 2 - 1] + r[len(r) // 2]) / 2
    return f"{med:.2f}" + (f" ({r[0]:.2f}–{r[-1]:.2f})" if len(r) > 1 else "")


def row(label, ours, peer, peer_name):
    bad = ours["non_200"] + peer["non_200"]
    if bad:
        label += f" (**{bad:,} non-200 answers: not comparable**)"
    print(f"| {label} | {ours['rps']:,.0f} | {peer['rps']:,.0f} | {ratio(ours, peer, 'rps')} | "
          f"{ours['p50_ms']:.2f} / {peer['p50_ms']:.2f} | {ours['p99_ms']:.2f} / {peer['p99_ms']:.2f} "
          f"({ratio(ours, peer, 'p99_ms')}) | {ours['load']} | {peer_name} |", flush=True)


TABLE_HEAD = ("| scenario | ours req/s | peer req/s | ×peer | p50 ms ours / peer | "
              "p99 ms ours / peer (ratio) | load | peer |\n|---|---|---|---|---|---|---|---|")


def bench_server(extra_env=None):
    port = free_port()
    env = dict(os.environ, **(extra_env or {}))
    return Server([os.environ["BENCH_SERVER"], CATALOG, "http", str(port)], port, env=env)


def section_nagle(out):
    print("\n## tools/list tail: TCP_NODELAY (2025-11-25, 604,801-byte answer), interleaved\n"
          + TABLE_HEAD)
    h, b = mcp_headers("tools/list"), mcp_body("tools/list")
    port = free_port()
    servers = [Server([os.environ["STATIC_BYTES"], CATALOG, str(port)], port)]
    targets = {"static": (f"http://127.0.0.1:{port}/mcp", h, b)}
    try:
        for label, env in (("ours, TCP_NODELAY suppressed (old)", {"LD_PRELOAD": os.environ["NODELAY_SHIM"]}),
                           ("ours, TCP_NODELAY (as built)", {})):
            servers.append(bench_server(env))
            targets[label] = (f"http://127.0.0.1:{servers[-1].port}/mcp", h, b)
        results = interleaved(targets)
    finally:
        for srv in servers:
            srv.stop()
    for label in list(targets)[1:]:
        row(label, results[label], results["static"], "static")
    json.dump(results, open(os.path.join(out, "nagle.json"), "w"), indent=1)


def section_compress(out):
    print("\n## Compressed tools/list (2025-11-25): ours vs a static server sending the same bytes, "
          "interleaved\n" + TABLE_HEAD)
    srv = bench_server()
    url = f"http://127.0.0.1:{srv.port}/mcp"
    h, b = mcp_headers("tools/list"), mcp_body("tools/list")
    results = {}
    try:
        _, _, raw = http(url, b, h)
        for coding in ("br", "zstd", "gzip"):
            hc = dict(h, **{"Accept-Encoding": coding})
            t0 = time.monotonic()
            status, headers, wire = http(url, b, hc)
            first_ms = (time.monotonic() - t0) * 1000
            assert headers.get("content-encoding") == coding, headers
            path = os.path.join(out, f"tools_list.{coding}")
            open(path, "wb").write(wire)
            port = free_port()
            static = Server([os.environ["STATIC_FILE"], path, str(port), coding], port)
            try:
                pair = interleaved({"ours": (url, hc, b),
                                    "static": (f"http://127.0.0.1:{port}/mcp", hc, b)})
            finally:
                static.stop()
            ours, peer = pair["ours"], pair["static"]
            results[coding] = {"raw_bytes": len(raw), "wire_bytes": len(wire),
                               "first_request_ms": round(first_ms, 1), "ours": ours, "static": peer}
            row(f"tools/list {coding}: {len(wire):,} B = {100 * len(wire) / len(raw):.1f}% of "
                f"{len(raw):,} (first request {first_ms:.0f} ms)", ours, peer, f"static {coding}")
    finally:
        srv.stop()
    json.dump(results, open(os.path.join(out, "compress.json"), "w"), indent=1)


def section_fly(out):
    print("\n## On-the-fly compression: a 16 KiB tools/call answer (not a listing), ours, "
          "interleaved\n" + TABLE_HEAD)
    srv = bench_server()
    url = f"http://127.0.0.1:{srv.port}/mcp"
    h = mcp_headers("tools/call")
    # The echo backend returns its arguments: a 16 KiB id makes a 16 KiB answer (JSON-ish text).
    words = " ".join(f"billet {i} paid by customer {i * 7 % 1000}" for i in range(600))[:16384]
    b = mcp_body("tools/call", {"name": TOOL, "arguments": {"id": words}})
    codings = ("gzip", "zstd", "br")
    try:
        _, _, raw = http(url, b, h)
        wires = {}
        for coding in codings:
            _, headers, wire = http(url, b, dict(h, **{"Accept-Encoding": coding}))
            wires[coding] = (headers.get("content-encoding"), wire)
        targets = {"identity": (url, h, b)}
        targets.update({c: (url, dict(h, **{"Accept-Encoding": c}), b) for c in codings})
        results = interleaved(targets)
    finally:
        srv.stop()
    plain = results["identity"]
    for coding in codings:
        sent, wire = wires[coding]
        r = results[coding]
        r.update(wire_bytes=len(wire), raw_bytes=len(raw), content_encoding=sent)
        # 2 cores busy: each answer's extra wall time at saturation is about half its extra CPU.
        extra_us = (1 / r["rps"] - 1 / plain["rps"]) * 1e6 * 2
        label = (f"16 KiB answer in {coding}: {len(wire):,} of {len(raw):,} B, "
                 f"≈{extra_us:.0f} µs CPU more per answer")
        if sent != coding:
            label = f"16 KiB answer, {coding} asked: **sent as {sent or 'identity'}, not comparable**"
        row(label, r, plain, "ours, identity")
    json.dump(results, open(os.path.join(out, "fly.json"), "w"), indent=1)


def kobana(args, port, data_dir, log):
    # The CLI's rate limits (600 reads/min per person, 1,200 requests/min per address) would
    # answer most of a benchmark's requests with 429 in microseconds; 0 turns them off.
    env = dict(os.environ, KOBANA_RATE_LIMIT_READS="0", KOBANA_RATE_LIMIT_WRITES="0",
               KOBANA_RATE_LIMIT_IP="0")
    return Server([os.environ["KOBANA"], "--data-dir", data_dir] + args, port, env=env, log=log)


def section_sandbox(out):
    print("\n## Sandbox (embedded SQLite, WAL + read pool): billing_invoices_list\n" + TABLE_HEAD)
    work = tempfile.mkdtemp(prefix="kobana-bench-sandbox-")
    log = open(os.path.join(out, "sandbox.log"), "w")
    results = {}
    try:
        servers = []
        try:
            fx = bench_server()
            servers.append(fx)
            port = free_port()
            srv = kobana(["serve", "billing", "--http", f"127.0.0.1:{port}"], port,
                         os.path.join(work, "billing"), log)
            servers.append(srv)
            url = f"http://127.0.0.1:{port}/mcp"
            # The embedded resolver's demo token (the sandbox serves no anonymous caller).
            h = dict(mcp_headers("tools/call"), Authorization="Bearer demo-full")
            b = mcp_body("tools/call", {"name": "billing_invoices_list", "arguments": {}})
            status, _, body = http(url, b, h)
            msg = json.loads(body)
            assert status == 200 and "result" in msg and not msg["result"].get("isError"), body[:300]
            # The bound of any server giving this answer: a static server sending its very bytes
            # (a default page of 50 invoices, in `structuredContent` and again as text).
            path = os.path.join(out, "billing_invoices_list.json")
            open(path, "wb").write(body)
            sport = free_port()
            servers.append(Server([os.environ["STATIC_FILE"], path, str(sport)], sport))
            one = median_of(url, h, b, conns=1)
            fx_target = (f"http://127.0.0.1:{fx.port}/mcp", mcp_headers("tools/call"),
                         mcp_body("tools/call", {"name": TOOL, "arguments": {"id": "42"}}))
            runs = interleaved({"sandbox": (url, h, b), "fixture": fx_target,
                                "static": (f"http://127.0.0.1:{sport}/mcp", h, b)})
            many, fixture, same = runs["sandbox"], runs["fixture"], runs["static"]
            results.update(fixture=fixture, one=one, many=many, static_same_bytes=same,
                           answer_bytes=len(body), rss_mib=srv.rss_mib())
        finally:
            for s in servers:
                s.stop()
        row("billing_invoices_list, 1 connection", one, fixture, "fixture tool (bench_server echo)")
        row(f"billing_invoices_list, {CONNS} connections", many, fixture,
            "fixture tool (bench_server echo)")
        row(f"static server sending the same {len(body):,} B, {CONNS} connections", same, fixture,
            "fixture tool (bench_server echo)")
        row(f"billing_invoices_list, {CONNS} connections", many, same,
            f"static server sending the same {len(body):,} B")
        print(f"{CONNS} connections vs 1: {many['rps'] / one['rps']:.2f}× "
              f"(target ≥ 1.7×); vs fixture: {ratio(many, fixture, 'rps')}× (target ≥ 0.35×); "
              f"the same bytes sent static vs fixture: {ratio(same, fixture, 'rps')}×; "
              f"RSS {results['rss_mib']} MiB")
        port = free_port()
        srv = kobana(["serve", "banking", "--http", f"127.0.0.1:{port}"], port,
                     os.path.join(work, "banking"), log)
        try:
            url = f"http://127.0.0.1:{port}/mcp"
            h = dict(mcp_headers("resources/list"), Authorization="Bearer demo-full")
            b = mcp_body("resources/list")
            status, _, body = http(url, b, h)
            n = len(json.loads(body).get("result", {}).get("resources", []))
            rl1 = median_of(url, h, b, conns=1)
            rln = median_of(url, h, b)
            results.update(resources_list_1=rl1, resources_list_n=rln, resources=n,
                           resources_bytes=len(body))
            print(f"banking resources/list ({n} entries, {len(body):,} B): 1 connection {fmt(rl1)}; "
                  f"{CONNS} connections {fmt(rln)}")
        finally:
            srv.stop()
    finally:
        json.dump(results, open(os.path.join(out, "sandbox.json"), "w"), indent=1)
        shutil.rmtree(work, ignore_errors=True)


def section_proxy(out):
    print("\n## Proxy overhead: tools/call through `serve --upstream` vs straight to serve-api "
          "(1 connection)\n" + TABLE_HEAD)
    work = tempfile.mkdtemp(prefix="kobana-bench-proxy-")
    log = open(os.path.join(out, "proxy.log"), "w")
    results = {}
    try:
        api_port, mcp_port = free_port(), free_port()
        api = kobana(["sandbox", "serve-api", "--http", f"127.0.0.1:{api_port}"], api_port,
                     os.path.join(work, "api"), log)
        proxy = kobana(["serve", "billing", "--http", f"127.0.0.1:{mcp_port}",
                        "--upstream", f"http://127.0.0.1:{api_port}/{{product}}",
                        "--upstream-serves", "billing", "--auth", "embedded"], mcp_port, os.path.join(work, "proxy"), log)
        try:
            auth = {"Authorization": "Bearer demo-full"}
            direct_url = f"http://127.0.0.1:{api_port}/billing/v1/billing/invoices"
            status, _, body = http(direct_url, None, auth, method="GET")
            assert status == 200, (status, body[:300])
            h = dict(mcp_headers("tools/call"), **auth)
            b = mcp_body("tools/call", {"name": "billing_invoices_list", "arguments": {}})
            status, _, body = http(f"http://127.0.0.1:{mcp_port}/mcp", b, h)
            msg = json.loads(body)
            assert status == 200 and not msg["result"].get("isError"), body[:300]
            direct = median_of(direct_url, auth, None, conns=1, method="GET")
            via = median_of(f"http://127.0.0.1:{mcp_port}/mcp", h, b, conns=1)
            results.update(direct=direct, proxy=via)
            row("billing_invoices_list via proxy", via, direct, "serve-api direct (REST GET)")
            print(f"p50 overhead: {via['p50_ms'] - direct['p50_ms']:.3f} ms (target < 1 ms)")
        finally:
            proxy.stop()
            api.stop()
    finally:
        json.dump(results, open(os.path.join(out, "proxy.json"), "w"), indent=1)
        shutil.rmtree(work, ignore_errors=True)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    print(f"load average at start: {open('/proc/loadavg').read().strip()}")
    for name in SECTIONS:
        globals()[f"section_{name.strip()}"](out)


if __name__ == "__main__":
    main()

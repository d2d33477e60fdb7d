#!/usr/bin/env python3
"""The sections of scripts/bench_proxy.sh (issue 40); see that script for what each measures and
its environment. Prints every figure beside its target, never asserts; writes the raw figures to
OUT/*.json."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

KOBANA, FAKE, LOAD, ROOT = (os.environ[k] for k in ("KOBANA", "FAKE", "LOAD", "ROOT"))
CLIENTS = int(os.environ.get("CLIENTS", "1000"))
DURATION = int(os.environ.get("DURATION", "10"))
WARMUP = int(os.environ.get("WARMUP", "2"))
LATENCY_MS = int(os.environ.get("LATENCY_MS", "50"))
JITTER_MS = int(os.environ.get("JITTER_MS", "10"))
SLOW_MS = int(os.environ.get("SLOW_MS", "2000"))
FANOUT_RUNS = int(os.environ.get("FANOUT_RUNS", "10"))
ERAS = os.environ.get("ERAS", "2026-07-28 2025-11-25").split()
REDIS_PORT = int(os.environ.get("REDIS_PORT", "6506"))
OUT = os.environ.get("OUT", "/tmp/kobana-bench/proxy")
SECTIONS = os.environ.get("SECTIONS", "many,slow,fanout,lb,classic").split(",")
TOKEN = "demo-full"
# Read tools of three products, each a list page the sandbox answers (serve all's default
# toolsets); the first is the one `slow` makes slow.
CALLS = os.environ.get(
    "CALLS",
    "billing_invoices_list={} banking_charge_bank_billet_list={} finance_payables_list={} "
    "finance_receivables_list={}").split()
# The REST path of each call's tool under the API's /{product} (the fake matches path endings).
SLOW_PATH = os.environ.get("SLOW_PATH", "/v1/billing/invoices")
# A banking type that resources/list lists (banking_charge_bank_billet_list's path).
FANOUT_PATH = os.environ.get("FANOUT_PATH", "/v1/bank_billets")
CPUS = os.cpu_count() or 1
MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}


def load():
    return open("/proc/loadavg").read().split()[0]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"exited early: {' '.join(proc.args)}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"not listening on {port}: {' '.join(proc.args)}")


class Proc:
    def __init__(self, cmd, port, env=None, log=None, cpus=None):
        if cpus is not None:
            cmd = ["taskset", "-c", cpus] + cmd
        self.port = port
        self.proc = subprocess.Popen(cmd, env=env, stdout=log or subprocess.DEVNULL,
                                     stderr=subprocess.STDOUT if log else subprocess.DEVNULL)
        if port:
            wait_port(port, self.proc)

    @property
    def pid(self):
        return self.proc.pid

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def http(url, body=None, headers=None, method="POST", timeout=60):
    data = body.encode() if isinstance(body, str) else body
    req = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def mcp(url, method, params=None, era="2026-07-28", session=None):
    """One MCP request; the decoded JSON-RPC message (SSE `data:` lines read too)."""
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "Authorization": f"Bearer {TOKEN}", "MCP-Protocol-Version": era}
    params = dict(params or {})
    if era == "2026-07-28":
        params["_meta"] = MODERN_META
        h["Mcp-Method"] = method
        if "name" in params:
            h["Mcp-Name"] = params["name"]
    if session:
        h["Mcp-Session-Id"] = session
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    status, headers, raw = http(url, body, h)
    text = raw.decode(errors="replace")
    if headers.get("content-type", "").startswith("text/event-stream"):
        datas = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        text = datas[-1] if datas else "{}"
    try:
        return status, json.loads(text)
    except ValueError:
        return status, {"unparsed": text[:300]}


class Sampler:
    """Peaks of a process while a run goes: RSS, open descriptors, and ESTABLISHED TCP
    connections to the API's port (from `ss`, so every process's; only the proxy dials it)."""

    def __init__(self, pids, upstream_port):
        self.pids, self.port = pids, upstream_port
        self.rss_mib = self.fds = self.upstream_open = 0
        self.stop_flag = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def sample(self):
        rss = fds = 0
        for pid in self.pids:
            try:
                for line in open(f"/proc/{pid}/status"):
                    if line.startswith("VmRSS:"):
                        rss += int(line.split()[1]) / 1024
                fds += len(os.listdir(f"/proc/{pid}/fd"))
            except OSError:
                pass
        up = 0
        if self.port:
            out = subprocess.run(["ss", "-Htn", "state", "established", f"dst 127.0.0.1:{self.port}"],
                                 capture_output=True, text=True).stdout
            up = len([line for line in out.splitlines() if line.strip()])
        self.rss_mib, self.fds = max(self.rss_mib, rss), max(self.fds, fds)
        self.upstream_open = max(self.upstream_open, up)

    def loop(self):
        while not self.stop_flag.is_set():
            self.sample()
            self.stop_flag.wait(0.5)

    def stop(self):
        self.stop_flag.set()
        self.thread.join()
        self.sample()
        return {"rss_mib": round(self.rss_mib, 1), "fds": self.fds,
                "upstream_open": self.upstream_open}


CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """utime + stime of a running process, in seconds (0 once it is gone)."""
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


class Cpu:
    """The CPU seconds each named process spends from now until `stop`, beside the core-seconds
    the machine had in that time: where a missed target's time went (the server, the load
    generator, the fake API, HAProxy all share the cores)."""

    def __init__(self, procs):
        self.procs = {name: p.pid for name, p in procs.items() if p is not None}
        self.t0 = time.monotonic()
        self.start = {name: cpu_seconds(pid) for name, pid in self.procs.items()}

    def stop(self, load_s=None):
        out = {name: round(cpu_seconds(pid) - self.start[name], 2)
               for name, pid in self.procs.items()}
        if load_s is not None:
            out["load generator"] = round(load_s, 2)
        out["wall s"] = round(time.monotonic() - self.t0, 2)
        out["core-s available"] = round(out["wall s"] * CPUS, 2)
        return out


def cpu_text(split):
    """`server 12.3 s, load generator 8.1 s, …; 20.0 core-s available (10.0 s × 2 cores)`."""
    procs = ", ".join(f"{k} {v:.1f} s" for k, v in split.items()
                      if k not in ("wall s", "core-s available"))
    return (f"CPU seconds (user + system): {procs}; {split['core-s available']:.1f} core-s "
            f"available ({split['wall s']:.1f} s × {CPUS} cores)")


def run_load(url, clients, era, calls, cpus=None):
    cmd = [LOAD, "--url", url, "--clients", str(clients), "--duration-s", str(DURATION),
           "--warmup-s", str(WARMUP), "--ramp-ms", str(min(2000, clients * 2)), "--era", era,
           "--token", TOKEN]
    for c in calls:
        cmd += ["--call", c]
    if cpus is not None:
        cmd = ["taskset", "-c", cpus] + cmd
    with tempfile.TemporaryFile("w+") as so, tempfile.TemporaryFile("w+") as se:
        proc = subprocess.Popen(cmd, stdout=so, stderr=se, text=True)
        # wait4: the load generator's own CPU time, whatever else this script runs meanwhile.
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        so.seek(0)
        se.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"mcp_load failed: {se.read()[-2000:]}")
        out = json.loads(so.read())
    out["cpu_s"] = usage.ru_utime + usage.ru_stime
    return out


class World:
    """The sandbox API (origin), the fake API in front of it, and kobana-mcp instances."""

    def __init__(self, name):
        self.dir = tempfile.mkdtemp(prefix=f"kobana-bench-proxy-{name}-")
        self.log = open(os.path.join(OUT, f"{name}.log"), "w")
        self.procs = []
        port = free_port()
        self.origin = self.start([KOBANA, "--data-dir", os.path.join(self.dir, "origin"), "sandbox",
                                  "serve-api", "--http", f"127.0.0.1:{port}"], port)
        self.fake = None

    def start(self, cmd, port, env=None, cpus=None):
        p = Proc(cmd, port, env=env, log=self.log, cpus=cpus)
        self.procs.append(p)
        return p

    def start_fake(self, *extra, cpus=None):
        if self.fake:
            self.fake.stop()
        port = free_port()
        self.fake = self.start([FAKE, "--listen", f"127.0.0.1:{port}", "--origin",
                                f"http://127.0.0.1:{self.origin.port}", "--latency-ms",
                                str(LATENCY_MS), "--jitter-ms", str(JITTER_MS), "--slow-ms",
                                str(SLOW_MS)] + list(extra), port, cpus=cpus)
        return self.fake

    def fake_url(self, path):
        return f"http://127.0.0.1:{self.fake.port}{path}"

    def fake_reset(self):
        http(self.fake_url("/_fake/reset"), b"")

    def fake_stats(self):
        return json.loads(http(self.fake_url("/_fake/stats"), method="GET")[2])

    def start_kobana(self, name, extra_env=None, cpus=None, args=()):
        port = free_port()
        env = dict(os.environ, KOBANA_RATE_LIMIT_READS="0", KOBANA_RATE_LIMIT_WRITES="0",
                   KOBANA_RATE_LIMIT_IP="0", RUST_LOG="warn",
                   # Each client holds a connection (and 2025 sessions, one person's).
                   KOBANA_MAX_CONNECTIONS=str(max(1024, 2 * CLIENTS + 64)),
                   KOBANA_MAX_SESSIONS_PER_IDENTITY=str(max(100, 2 * CLIENTS)))
        env.update(extra_env or {})
        return self.start([KOBANA, "--data-dir", os.path.join(self.dir, name), "serve", "all",
                           "--http", f"127.0.0.1:{port}", "--upstream",
                           f"http://127.0.0.1:{self.fake.port}/{{product}}", "--auth", "embedded",
                           # The fake API answers every product's paths (the sandbox's own).
                           "--upstream-serves", "billing,finance,dashboards,inbox"]
                          + list(args), port, env=env, cpus=cpus)

    def close(self):
        for p in reversed(self.procs):
            p.stop()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def warm(base, calls):
    """One call of each tool, checked: fills the fake API's answers from the origin."""
    for c in calls:
        tool, args = c.split("=", 1)
        product = tool.split("_")[0]
        status, msg = mcp(f"{base}/{product}/mcp", "tools/call",
                          {"name": tool, "arguments": json.loads(args)})
        if status != 200 or "result" not in msg or msg["result"].get("isError"):
            raise RuntimeError(f"{tool} through the proxy: HTTP {status} {str(msg)[:400]}")


def target(ok, text):
    return f"{text} {'(met)' if ok else '(**missed**)'}"


def section_many():
    print(f"\n## Many clients: {CLIENTS} clients through one `serve all --upstream`, API at "
          f"{LATENCY_MS} ± {JITTER_MS} ms\n")
    w = World("many")
    results = {}
    try:
        w.start_fake()
        srv = w.start_kobana("mcp")
        base = f"http://127.0.0.1:{srv.port}"
        warm(base, CALLS)
        print("| era | calls/s (bound) | client p50 / p99 ms | API delay p50 / p99 ms | "
              "overhead p50 / p99 ms (target p99 ≤ 5) | RSS peak MiB (≤ 150) | API connections "
              "opened / calls (reused) | open to API at peak | fds peak | errors (0) | load |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for era in ERAS:
            w.fake_reset()
            sampler = Sampler([srv.pid], w.fake.port)
            cpu = Cpu({"server": srv, "fake API": w.fake, "origin": w.origin})
            r = run_load(base, CLIENTS, era, CALLS)
            split = cpu.stop(r["cpu_s"])
            peaks = sampler.stop()
            st = w.fake_stats()
            r.update(peaks=peaks, upstream=st, load=load(), cpu=split)
            results[era] = r
            d = st["delay_ms"]
            o50, o99 = r["p50_ms"] - d["p50"], r["p99_ms"] - d["p99"]
            bound = CLIENTS / (LATENCY_MS / 1000) if LATENCY_MS else float("inf")
            per_call = st["connections"] / max(1, st["requests"])
            opened = f"{st['connections']:,} / {st['requests']:,}"
            print(f"| {era}{' (sessions: ' + str(r['sessions_opened']) + ')' if r['sessions_opened'] else ''} "
                  f"| {r['rps']:,.0f} ({bound:,.0f}) | {r['p50_ms']:.1f} / {r['p99_ms']:.1f} "
                  f"| {d['p50']:.1f} / {d['p99']:.1f} | {target(o99 <= 5, f'{o50:.1f} / {o99:.1f}')} "
                  f"| {target(peaks['rss_mib'] <= 150, str(peaks['rss_mib']))} "
                  f"| {target(per_call < 0.1, opened)} "
                  f"| {peaks['upstream_open']:,} | {peaks['fds']:,} "
                  f"| {target(r['errors'] == 0, str(r['errors']))} | {r['load']} |", flush=True)
            if o99 > 5 or peaks["rss_mib"] > 150 or per_call >= 0.1 or r["errors"]:
                print(f"  missed, {era}: {cpu_text(split)}", flush=True)
            for s in r["error_samples"]:
                print(f"  error sample: {s[:300]}")
        print("\nOverhead = client percentile − the same percentile of the delays the API applied "
              "(JITTER_MS=0 makes it exact per call). 'opened' counts TCP connections the API "
              "accepted during the run (a few are this script's own stats requests).")
    finally:
        w.close()
        json.dump(results, open(os.path.join(OUT, "many.json"), "w"), indent=1)


def section_slow():
    slow_tool = CALLS[0].split("=")[0]
    print(f"\n## Slow upstream: `{slow_tool}` ({SLOW_PATH}) at {SLOW_MS} ms, the other tools at "
          f"{LATENCY_MS} ± {JITTER_MS} ms\n")
    print("Per-upstream connection limits (defaults, README \"Proxy mode\"): at most 1024 calls in "
          "flight, so connections, per API host (`--upstream-max-connections`, "
          "KOBANA_UPSTREAM_MAX_CONNECTIONS) and at most 512 of them per tool "
          "(`--upstream-max-per-tool`, KOBANA_UPSTREAM_MAX_PER_TOOL): the slow tool's calls beyond "
          "its share wait, the other tools keep the rest. A slow call is also bounded by "
          "`--upstream-timeout-ms` (default 20000 per attempt) and `[upstream] max_attempts`.\n")
    w = World("slow")
    results = {}
    others = CALLS[1:]
    n_fast = max(1, CLIENTS * len(others) // len(CALLS))
    try:
        w.start_fake("--slow", SLOW_PATH)
        srv = w.start_kobana("mcp")
        base = f"http://127.0.0.1:{srv.port}"
        warm(base, others)
        era = ERAS[0]
        # Client i calls CALLS[i % len]: with the slow tool first, the fast tools keep n_fast clients.
        alone = run_load(base, n_fast, era, others)
        mixed = run_load(base, CLIENTS, era, CALLS)
        results = {"fast_only": alone, "with_slow": mixed, "load": load()}
        print(f"| tool | p50 / p99 ms, {n_fast} clients on the fast tools only | p50 / p99 ms, "
              f"plus {CLIENTS - n_fast} clients on {slow_tool} (target: unchanged) | errors |")
        print("|---|---|---|---|")
        for c in CALLS:
            tool = c.split("=")[0]
            a, m = alone["by_tool"].get(tool), mixed["by_tool"][tool]
            before = f"{a['p50_ms']:.1f} / {a['p99_ms']:.1f}" if a else "—"
            print(f"| {tool} | {before} | {m['p50_ms']:.1f} / {m['p99_ms']:.1f} | "
                  f"{alone['errors']} / {mixed['errors']} |")
        for s in alone["error_samples"] + mixed["error_samples"]:
            print(f"  error sample: {s[:300]}")
        print(f"load {results['load']}")
    finally:
        w.close()
        json.dump(results, open(os.path.join(OUT, "slow.json"), "w"), indent=1)


def fanout_runs(w, url, runs):
    out = []
    for _ in range(runs):
        w.fake_reset()
        t0 = time.monotonic()
        status, msg = mcp(url, "resources/list")
        wall = (time.monotonic() - t0) * 1000
        st = w.fake_stats()
        res = msg.get("result", {}).get("resources")
        left_out = msg.get("result", {}).get("_meta", {}).get("br.com.kobana/incomplete", {})
        out.append({"wall_ms": wall, "slowest_ms": st["delay_ms"]["max"], "calls": st["requests"],
                    "max_in_flight": st["max_in_flight"], "status": status,
                    "resources": len(res) if res is not None else None,
                    "left_out": [m.get("uriTemplate") for m in left_out.get("missing", [])],
                    "error": None if res is not None else str(msg)[:300]})
    return out


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def section_fanout():
    print(f"\n## Fan-out: banking resources/list through the proxy, API at {LATENCY_MS} ± "
          f"{JITTER_MS} ms ({FANOUT_RUNS} runs, one at a time)\n")
    results = {}
    misses = []
    w = World("fanout")
    try:
        print("| case | wall ms (median) | slowest API call ms | wall / slowest (target ≤ 1.2) "
              "| API calls | most in flight | resources / answer |")
        print("|---|---|---|---|---|---|---|")
        for case, extra in (("all types answer", ()),
                            (f"{FANOUT_PATH} at {SLOW_MS} ms", ("--slow", FANOUT_PATH)),
                            (f"{FANOUT_PATH} failing (503)", ("--fail", FANOUT_PATH))):
            w.start_fake(*extra)
            srv = w.start_kobana(f"mcp-{len(results)}")
            url = f"http://127.0.0.1:{srv.port}/banking/mcp"
            fanout_runs(w, url, 1)  # fills the fake API's answers
            cpu = Cpu({"server": srv, "fake API": w.fake, "origin": w.origin})
            runs = fanout_runs(w, url, FANOUT_RUNS)
            split = cpu.stop()
            srv.stop()
            results[case] = runs
            wall, slowest = median([r["wall_ms"] for r in runs]), median([r["slowest_ms"] for r in runs])
            ratio = median([r["wall_ms"] / r["slowest_ms"] for r in runs if r["slowest_ms"]])
            last = runs[-1]
            answer = last["resources"] if last["error"] is None else f"error: {last['error']}"
            if last.get("left_out"):
                answer = f"{answer}, left out: {', '.join(last['left_out'])}"
            print(f"| {case} | {wall:.0f} | {slowest:.0f} | {target(ratio <= 1.2, f'{ratio:.2f}')} "
                  f"| {last['calls']} | {last['max_in_flight']} | {answer} |", flush=True)
            if not ratio <= 1.2:
                misses.append(f"  missed, {case}: {cpu_text(split)} (the {FANOUT_RUNS} runs)")
        print("\nThe fan-out runs at most 64 listings at once (RecentOptions::concurrency: all of "
              "banking's) and gives each 10 s (per_listing_timeout); a failed or timed-out listing "
              "leaves out only its type, named in the answer's _meta[\"br.com.kobana/incomplete\"] "
              "(runtime/src/backend/recent.rs); each listing is sent once (no read retries: "
              "Backend::call_once).")
        for m in misses:
            print(m)
    finally:
        w.close()
        json.dump(results, open(os.path.join(OUT, "fanout.json"), "w"), indent=1)


def haproxy_config(servers, port):
    """deploy/haproxy.cfg with local addresses: the listener on `port`, the instances at
    `servers` (ports), no Docker resolver, no stats listener."""
    text = open(os.path.join(ROOT, "deploy", "haproxy.cfg")).read()
    text = re.sub(r"\nresolvers docker\n(?:[ \t]+.*\n|\s*#.*\n)*", "\n", text)
    text = text.replace(" init-addr last,libc,none resolvers docker", "")
    text = text.replace("bind :8080", f"bind 127.0.0.1:{port}")
    text = re.sub(r"\n# HAProxy's own metrics.*", "\n", text, flags=re.S)
    text = re.sub(r"\n    server mcp\d .*", "", text)
    text = text.rstrip("\n") + "\n" + "".join(
        f"    server mcp{i + 1} 127.0.0.1:{p}\n" for i, p in enumerate(servers))
    text = text.replace("log stdout format raw local0", "")
    text = text.replace("option httplog", "option dontlog-normal")
    return text


def section_lb():
    if CPUS >= 4:
        pins, rest = ["0", "1"], f"2-{CPUS - 1}"
    else:
        pins, rest = ["0", "1" if CPUS > 1 else "0"], None
    print(f"\n## Two instances behind HAProxy (deploy/haproxy.cfg) vs one, shared Redis ledger, "
          f"each instance pinned to one core ({CPUS} cores: instances on {', '.join(pins)}; "
          f"HAProxy, API and clients on {rest or 'the same cores, unpinned'})\n")
    results = {}
    w = World("lb")
    redis_dir = tempfile.mkdtemp(prefix="kobana-bench-redis-")
    redis = None
    lb = None
    try:
        redis = w.start(["redis-server", "--port", str(REDIS_PORT), "--bind", "127.0.0.1",
                         "--dir", redis_dir, "--appendonly", "yes", "--appendfsync", "everysec",
                         "--maxmemory", "256mb", "--maxmemory-policy", "noeviction"], REDIS_PORT)
        w.start_fake(cpus=rest)
        key = os.urandom(32).hex()
        env = {"KOBANA_LEDGER": f"redis://127.0.0.1:{REDIS_PORT}", "KOBANA_STATE_KEYS": f"k1:{key}",
               "KOBANA_TRUST_PROXY_HEADERS": "true",
               # Rate limits on (shared through Redis, as deployed) but out of reach.
               "KOBANA_RATE_LIMIT_READS": "100000000", "KOBANA_RATE_LIMIT_IP": "100000000"}
        inst = [w.start_kobana(f"mcp{i + 1}", env, cpus=pins[i]) for i in range(2)]
        print("| era | one instance calls/s | two instances calls/s | two / one (target ≥ 1.8) "
              "| p50 / p99 ms one | p50 / p99 ms two | errors | load |")
        print("|---|---|---|---|---|---|---|---|")
        for era in ERAS:
            row = {}
            for n in (1, 2):
                port = free_port()
                cfg = os.path.join(w.dir, f"haproxy{n}.cfg")
                open(cfg, "w").write(haproxy_config([s.port for s in inst[:n]], port))
                lb = w.start(["/usr/sbin/haproxy", "-f", cfg], port, cpus=rest)
                base = f"http://127.0.0.1:{port}"
                warm(base, CALLS)
                cpu = Cpu({**{f"server {i + 1}": s for i, s in enumerate(inst[:n])},
                           "haproxy": lb, "fake API": w.fake, "redis": redis})
                row[n] = run_load(base, CLIENTS, era, CALLS, cpus=rest)
                row[n]["cpu"] = cpu.stop(row[n]["cpu_s"])
                lb.stop()
                lb = None
            results[era] = row
            one, two = row[1], row[2]
            ratio = two["rps"] / one["rps"] if one["rps"] else float("nan")
            print(f"| {era} | {one['rps']:,.0f} | {two['rps']:,.0f} | "
                  f"{target(ratio >= 1.8, f'{ratio:.2f}')} | {one['p50_ms']:.1f} / {one['p99_ms']:.1f} "
                  f"| {two['p50_ms']:.1f} / {two['p99_ms']:.1f} | {one['errors']} / {two['errors']} "
                  f"| {load()} |", flush=True)
            if not ratio >= 1.8:
                for n in (1, 2):
                    print(f"  missed, {era}, {n} instance{'s' if n > 1 else ''}: "
                          f"{cpu_text(row[n]['cpu'])}", flush=True)
            for s in one["error_samples"] + two["error_samples"]:
                print(f"  error sample: {s[:300]}")
        print(f"\nThe bound of either: {CLIENTS} clients / {LATENCY_MS} ms = "
              f"{CLIENTS / max(LATENCY_MS, 1) * 1000:,.0f} calls/s when the instances are not the "
              "limit; raise CLIENTS (or lower LATENCY_MS) until one instance saturates its core.")
    finally:
        if lb:
            lb.stop()
        w.close()
        shutil.rmtree(redis_dir, ignore_errors=True)
        json.dump(results, open(os.path.join(OUT, "lb.json"), "w"), indent=1)


def section_classic():
    print("\n## scripts/bench_http.sh (with bench_more.py's sandbox section) and "
          "scripts/bench_scale.sh, unchanged\n", flush=True)
    for script, env in (("bench_http.sh", {"SECTIONS": os.environ.get("HTTP_SECTIONS", "sandbox,proxy")}),
                        ("bench_scale.sh", {})):
        r = subprocess.run(["bash", os.path.join(ROOT, "scripts", script)],
                           env=dict(os.environ, **env))
        if r.returncode:
            print(f"{script} exited with {r.returncode}")


def main():
    os.makedirs(OUT, exist_ok=True)
    print(f"kobana-mcp: {KOBANA}\nload average at start: {open('/proc/loadavg').read().strip()}; "
          f"{CPUS} cores; CLIENTS={CLIENTS} DURATION={DURATION}s WARMUP={WARMUP}s "
          f"LATENCY_MS={LATENCY_MS} JITTER_MS={JITTER_MS}")
    for name in SECTIONS:
        globals()[f"section_{name.strip()}"]()
    print(f"\nraw figures: {OUT}/*.json; load average at end: {load()}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Fault script driver (see scripts/fault_script.sh): proxy <-> `sandbox serve-api` under faults.

Starts `kobana-mcp sandbox serve-api` (with fault injection) and `kobana-mcp serve all --upstream`
in front of it on loopback, drives a bounded load of write tool calls on both protocol eras
while injecting faults, then counts, from serve-api's own store (its SQLite file):

- double executions: logical calls that created more than one record;
- lost acknowledged writes: calls the client got a success for whose record is not there;
- failed but ran: calls the client was told failed (a known outcome) that created a record;
- outcome unknown: answers that said the outcome is unknown (or a broken connection), and the
  logical calls still unknown after their retries.

A logical call is one write with its own amount (no two calls share one); after an unknown
outcome the client runs the same call again, as a person would, up to a few times. Faults: the
API answering late (beyond the proxy's timeout), 5xx, garbage and cut-off bodies, connections
broken after the write ran, `kill -9` of the proxy under load, and with a Redis ledger, Redis
stopped and restarted (persistence on) and flushed.

Then the embedded sandbox (`serve all` without `--upstream`, `--audit-file` on), one phase each:
- a full disk for the audit file (a small tmpfs filled and freed under load): a write is refused
  before it runs while its record cannot be written;
- a full disk for the sandbox database (its data directory on a small tmpfs, filled and freed);
- a Redis ledger stopped, restarted and flushed, and `kill -9` of the server, under confirmations;
- two instances started together on a new data directory (several times), then load on both.
The full-disk phases need root (`mount -t tmpfs`) and say they are skipped otherwise; the Redis
and two-instance ones use Redis when installed. Each embedded phase also reads the audit files:
broken lines (not whole JSON records) and acknowledged writes without a record are counted.

Standard library only. Exit status 1 when double executions, lost acknowledged writes,
failed-but-ran writes, lost or broken audit records, or an instance that did not start are found.
"""

import argparse
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
TOKEN = "demo-full"
TIMEOUT_MS = 500
# Each fault is queued on serve-api and hits its next request, whichever it is.
HTTP_FAULTS = ["timeout:900", "500", "503", "malformed", "truncate", "reset"]
ATTEMPTS = 5
# Answers that say nothing ran this time (ledger, audit sink or sandbox storage unavailable, a
# confirmation that could not be given): the call is tried again later, as a person would.
RETRYABLE = ("unavailable", "confirmation", "sandbox_error")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, seconds=30.0):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


class Unknown(Exception):
    """The outcome of this attempt is not known (broken connection, no answer)."""


def post(url, body, headers, timeout=15.0):
    data = json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST")
    for k, v in headers.items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            ctype = resp.headers.get("content-type", "")
            text = resp.read().decode("utf-8", "replace")
            status = resp.status
    except urllib.error.HTTPError as e:
        ctype = e.headers.get("content-type", "")
        text = e.read().decode("utf-8", "replace")
        status = e.code
    except (OSError, urllib.error.URLError) as e:
        raise Unknown(f"{type(e).__name__}: {e}") from e
    if ctype.startswith("text/event-stream"):
        msgs = []
        for line in text.splitlines():
            if line.startswith("data:"):
                try:
                    msgs.append(json.loads(line[5:].strip()))
                except ValueError:
                    pass
        msgs = [m for m in msgs if "id" in m]
        if not msgs:
            raise Unknown(f"HTTP {status}: an event stream without an answer")
        return status, msgs[-1]
    try:
        return status, json.loads(text) if text.strip() else None
    except ValueError:
        raise Unknown(f"HTTP {status}: not JSON: {text[:120]!r}")


class Client:
    def __init__(self, base, product, era):
        self.url = f"{base}/{product}/mcp"
        self.era = era
        self.next_id = 0
        self.lock = threading.Lock()

    def call(self, name, args, state=None, responses=None):
        with self.lock:
            self.next_id += 1
            rid = self.next_id
        params = {"name": name, "arguments": args}
        if state is not None:
            params["requestState"] = state
        if responses is not None:
            params["inputResponses"] = responses
        headers = {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "authorization": f"Bearer {TOKEN}",
            "mcp-protocol-version": self.era,
        }
        if self.era == MODERN:
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            }
            headers["mcp-method"] = "tools/call"
            headers["mcp-name"] = name
        body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}
        status, msg = post(self.url, body, headers)
        if msg is None:
            raise Unknown(f"HTTP {status} without a body")
        return msg


def outcome_of(msg):
    """('ok', result) | ('unknown', why) | ('failed', why) | ('input', result)."""
    if "error" in msg:
        return "failed", f"JSON-RPC error {msg['error']}"
    r = msg.get("result") or {}
    if r.get("resultType") == "input_required":
        return "input", r
    if r.get("isError"):
        sc = r.get("structuredContent") or {}
        err = sc.get("error") if isinstance(sc, dict) else None
        code = err.get("code") if isinstance(err, dict) else None
        text = ""
        if r.get("content"):
            text = r["content"][0].get("text", "")
        if code == "outcome_unknown":
            return "unknown", text[:160]
        return "failed", f"{code}: {text[:160]}"
    return "ok", r


class Procs:
    """The processes under test, restartable."""

    def __init__(self, binary, work, redis):
        self.binary = binary
        self.work = work
        self.api_port = free_port()
        self.mcp_port = free_port()
        self.redis_port = free_port() if redis else None
        self.api = self.proxy = self.redis = None
        self.env = dict(os.environ)
        self.env["KOBANA_STATE_KEYS"] = "fault:" + "ab" * 32
        # finance_transfers_create is in a toolset finance does not offer by default.
        self.env["KOBANA_TOOLSETS"] = "all"
        self.env.setdefault("RUST_LOG", "error")
        self.logs = open(os.path.join(work, "processes.log"), "ab")

    def start_redis(self):
        d = os.path.join(self.work, "redis")
        os.makedirs(d, exist_ok=True)
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "yes", "--appendfsync", "always",
             "--maxmemory-policy", "noeviction", "--dir", d],
            stdout=self.logs, stderr=self.logs)
        if not wait_port(self.redis_port):
            raise SystemExit("fault script: redis-server did not start")

    def redis_cmd(self, *words):
        payload = f"*{len(words)}\r\n" + "".join(f"${len(w)}\r\n{w}\r\n" for w in words)
        with socket.create_connection(("127.0.0.1", self.redis_port), timeout=5) as s:
            s.sendall(payload.encode())
            try:
                return s.recv(256)
            except OSError:
                return b""

    def stop_redis(self):
        # SHUTDOWN writes the append-only file; the data survive the restart.
        self.redis_cmd("SHUTDOWN")
        try:
            self.redis.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.redis.kill()
            self.redis.wait()

    def start_api(self):
        self.api = subprocess.Popen(
            [self.binary, "--data-dir", os.path.join(self.work, "api"), "sandbox", "serve-api",
             "--http", f"127.0.0.1:{self.api_port}", "--allow-fault-injection"],
            env=self.env, stdout=self.logs, stderr=self.logs)
        if not wait_port(self.api_port):
            raise SystemExit("fault script: serve-api did not start")

    def start_proxy(self):
        cmd = [self.binary, "--data-dir", os.path.join(self.work, "proxy"), "serve", "all",
               "--http", f"127.0.0.1:{self.mcp_port}",
               "--upstream", f"http://127.0.0.1:{self.api_port}/{{product}}",
               "--upstream-timeout-ms", str(TIMEOUT_MS),
               # serve-api implements every product's paths, published or not.
               "--upstream-serves", "billing,finance,dashboards,inbox",
               # serve-api has no identity endpoint; both sides know the demo tokens.
               "--auth", "embedded"]
        if self.redis_port:
            cmd += ["--ledger", f"redis://127.0.0.1:{self.redis_port}"]
        self.proxy = subprocess.Popen(cmd, env=self.env, stdout=self.logs, stderr=self.logs)
        if not wait_port(self.mcp_port):
            raise SystemExit("fault script: the proxy did not start (see processes.log)")

    def kill_proxy(self):
        self.proxy.send_signal(signal.SIGKILL)
        self.proxy.wait()

    def fault(self, spec):
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.api_port}/_sandbox/faults",
            data=json.dumps({"fault": spec}).encode(), method="POST")
        req.add_header("content-type", "application/json")
        with urllib.request.urlopen(req, timeout=5) as resp:
            resp.read()

    def stop_all(self):
        for p in (self.proxy, self.api, self.redis):
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()

    def db(self):
        d = os.path.join(self.work, "api")
        for root, _, files in os.walk(d):
            for f in files:
                if f.endswith((".db", ".sqlite", ".sqlite3")):
                    return os.path.join(root, f)
        raise SystemExit(f"fault script: no sandbox database under {d}")


def records(db, product, rtype):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        rows = con.execute(
            "SELECT json FROM records WHERE product = ? AND type = ?", (product, rtype)).fetchall()
    finally:
        con.close()
    return [json.loads(r[0]) for r in rows]


def amount_counts(db):
    counts = {}
    for product, rtype in (("billing", "payments"), ("finance", "transfers")):
        for rec in records(db, product, rtype):
            a = rec.get("amount")
            if isinstance(a, (int, float)):
                key = (product, round(float(a), 2))
                counts[key] = counts.get(key, 0) + 1
    return counts


def first_id(msg):
    sc = (msg.get("result") or {}).get("structuredContent") or {}
    for v in (sc, sc.get("result"), sc.get("data")):
        if isinstance(v, list) and v:
            return v[0].get("uid") or v[0].get("id"), v
    raise SystemExit(f"fault script: no records in {json.dumps(msg)[:300]}")


class Call:
    def __init__(self, seq, era, tool, product, args, amount):
        self.seq, self.era, self.tool, self.product = seq, era, tool, product
        self.args, self.amount = args, amount
        self.acked = False
        self.final = None  # ok | failed | unknown
        self.unknowns = 0
        self.why = ""
        # (start, end, outcome) of each attempt, to set beside the faults of that time.
        self.trail = []


def run_call(call, bases):
    """Runs one logical call; each attempt goes to one of `bases` (instances), at random."""
    for attempt in range(ATTEMPTS):
        if attempt:
            time.sleep(0.4 + random.random() * 0.4)
        client = Client(random.choice(bases), call.product, call.era)
        t0 = time.time()
        try:
            kind, r = outcome_of(client.call(call.tool, call.args))
            if kind == "input":
                kind, r = outcome_of(client.call(
                    call.tool, call.args, r["requestState"],
                    {"confirm": {"action": "accept", "content": {"confirm": True}}}))
        except Unknown as e:
            kind, r = "unknown", str(e)
        call.trail.append((t0, time.time(), kind if kind == "ok" else f"{kind}: {str(r)[:90]}"))
        if kind == "ok":
            call.acked, call.final = True, "ok"
            return
        if kind == "unknown":
            call.unknowns += 1
            call.final, call.why = "unknown", r
            continue
        if kind == "failed" and any(w in r for w in RETRYABLE):
            # Nothing ran this time (the ledger or the API could not be reached): try again
            # later. After an earlier unknown outcome the call stays unknown: this answer says
            # nothing about the earlier attempt.
            if call.final != "unknown":
                call.final, call.why = "failed", r
            continue
        call.final, call.why = "failed", r if isinstance(r, str) else ""
        return


def setup_ids(base):
    """A billing invoice and two finance accounts to write against."""
    inv = Client(base, "billing", LEGACY).call("billing_invoices_list", {"per_page": 5})
    invoice_id, _ = first_id(inv)
    acc = Client(base, "finance", LEGACY).call("finance_financial_accounts_list", {"per_page": 5})
    _, accounts = first_id(acc)
    if len(accounts) < 2:
        raise SystemExit("fault script: two financial accounts are needed")
    return (invoice_id, accounts[0].get("uid") or accounts[0].get("id"),
            accounts[1].get("uid") or accounts[1].get("id"))


def build_calls(ids, calls_per_kind, seed, rnd):
    """Logical calls on both eras, each with its own amount, shuffled."""
    invoice_id, from_acc, to_acc = ids
    calls = []
    seq = 0
    kinds = [(era, tool) for era in (MODERN, LEGACY)
             for tool in ("billing_payments_create", "finance_transfers_create")]
    for _ in range(calls_per_kind):
        for era, tool in kinds:
            seq += 1
            amount = round(7000 + seed * 100 + seq / 100, 2)
            if tool == "billing_payments_create":
                args = {"invoice_id": invoice_id, "amount": amount, "method": "pix"}
                product = "billing"
            else:
                args = {"from_account_id": from_acc, "to_account_id": to_acc,
                        "amount": amount, "description": f"fault {seed}-{seq}"}
                product = "finance"
            calls.append(Call(seq, era, tool, product, args, amount))
    rnd.shuffle(calls)
    return calls


def drive(calls, bases, workers, chaos_step, rnd, events):
    """Runs `calls` on `workers` threads while `chaos_step()` runs every 0.15-0.35 s; returns
    when every call is done, with the start time and the seconds it took."""
    pending = list(calls)
    lock = threading.Lock()
    done = threading.Event()

    def worker():
        while True:
            with lock:
                if not pending:
                    return
                c = pending.pop()
            run_call(c, bases)

    def chaos():
        n = 0
        while not done.is_set():
            time.sleep(0.15 + rnd.random() * 0.2)
            n += 1
            try:
                what = chaos_step(n)
                if what:
                    events.append((time.time(), what))
            except (OSError, urllib.error.URLError) as e:
                events.append((time.time(), f"fault injection failed: {e}"))

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    chaos_t = threading.Thread(target=chaos)
    started = time.time()
    chaos_t.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    chaos_t.join()
    return started, time.time() - started


def tally(calls, before, after, events, started, elapsed, audit=None):
    """The phase's result; `audit` (lines of the audit files) adds the audit counts."""
    result = {"calls": len(calls), "seconds": round(elapsed, 1), "double": [], "lost": [],
              "failed_but_ran": [], "unknown_answers": 0, "still_unknown": 0, "acked": 0,
              "failed": 0, "failed_why": {}, "events": {}, "audit": None, "notes": []}
    for _, e in events:
        key = e.split(":")[0]
        result["events"][key] = result["events"].get(key, 0) + 1
    audited = {}
    if audit is not None:
        broken, records = [], 0
        for where, line in audit:
            try:
                rec = json.loads(line)
                if not isinstance(rec, dict):
                    raise ValueError("not an object")
            except ValueError:
                broken.append(f"{where}: {line[:100]!r}")
                continue
            records += 1
            amount = (rec.get("arguments") or {}).get("amount")
            if rec.get("outcome") in ("ok", "replayed") and isinstance(amount, (int, float)):
                key = (rec.get("product"), round(float(amount), 2))
                audited[key] = audited.get(key, 0) + 1
        result["audit"] = {"records": records, "broken": broken, "lost": []}
    for c in calls:
        key = (c.product, c.amount)
        ran = after.get(key, 0) - before.get(key, 0)
        label = f"{c.era} {c.tool} amount={c.amount}"
        result["unknown_answers"] += c.unknowns
        if ran > 1:
            lines = [f"{label}: ran {ran} times; attempts:"]
            for t0, t1, what in c.trail:
                near = [e for t, e in events if t0 - 1.0 <= t <= t1 + 0.2]
                lines.append(f"         {t0 - started:6.2f}-{t1 - started:6.2f} s {what}"
                             f" (faults then: {', '.join(near) or 'none'})")
            result["double"].append("\n".join(lines))
        if c.acked:
            result["acked"] += 1
            if ran == 0:
                result["lost"].append(f"{label}: acknowledged, not in the store")
            if audit is not None and not audited.get(key):
                result["audit"]["lost"].append(f"{label}: acknowledged, no audit record")
        elif c.final == "unknown":
            result["still_unknown"] += 1
        elif c.final == "failed":
            result["failed"] += 1
            reason = f"{c.era} {c.tool}: {c.why[:110]}"
            result["failed_why"][reason] = result["failed_why"].get(reason, 0) + 1
            if ran > 0:
                lines = [f"{label}: told failed ({c.why}), ran {ran}; attempts:"]
                for t0, t1, what in c.trail:
                    lines.append(f"         {t0 - started:6.2f}-{t1 - started:6.2f} s {what}")
                result["failed_but_ran"].append("\n".join(lines))
        if audit is not None and ran > 0 and not c.acked and not audited.get(key):
            result["notes"].append(f"{label}: ran, not acknowledged, no audit record "
                                   "(the server was killed in between)")
    return result


def phase(binary, work, redis, calls_per_kind, workers, seed):
    """The proxy in front of serve-api, under HTTP faults, kill -9 and (redis) Redis faults."""
    rnd = random.Random(seed)
    procs = Procs(binary, work, redis)
    events = []
    try:
        if redis:
            procs.start_redis()
        procs.start_api()
        procs.start_proxy()
        base = f"http://127.0.0.1:{procs.mcp_port}"
        calls = build_calls(setup_ids(base), calls_per_kind, seed, rnd)
        before = amount_counts(procs.db())

        def step(n):
            if n % 25 == 0:
                procs.kill_proxy()
                time.sleep(0.3)
                procs.start_proxy()
                return "kill -9 proxy"
            if redis and n % 40 == 13:
                procs.stop_redis()
                time.sleep(0.5)
                procs.start_redis()
                return "redis stop+restart"
            if redis and n % 60 == 31:
                procs.redis_cmd("FLUSHALL")
                return "redis flushall"
            spec = rnd.choice(HTTP_FAULTS)
            procs.fault(spec)
            return spec

        started, elapsed = drive(calls, [base], workers, step, rnd, events)
        # Answers still sleeping in serve-api (timeout faults) finish their writes first.
        time.sleep(1.2)
        after = amount_counts(procs.db())
    finally:
        procs.stop_all()
    return tally(calls, before, after, events, started, elapsed)


class SmallDisk:
    """A small tmpfs of its own (root: `mount -t tmpfs`), filled and freed on demand."""

    def __init__(self, path, size):
        self.path = path
        os.makedirs(path, exist_ok=True)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise OSError(r.stderr.strip() or f"mount exited {r.returncode}")
        self.filler = os.path.join(path, "filler")

    def fill(self):
        block = b"\0" * (16 * 1024)
        # Unbuffered: a buffered close would raise when flushing into the full disk.
        with open(self.filler, "ab", buffering=0) as f:
            try:
                while True:
                    f.write(block)
                    f.flush()
            except OSError:
                pass

    def free(self):
        try:
            os.remove(self.filler)
        except FileNotFoundError:
            pass

    def unmount(self):
        subprocess.run(["umount", "-l", self.path], capture_output=True)


class Embedded:
    """`serve all` on the embedded sandbox: one or more instances over one data directory, each
    with its own audit file, on a memory or a shared Redis ledger."""

    def __init__(self, binary, work, data_dir, audit_dir, ledger_url, instances=1):
        self.binary, self.work = binary, work
        self.data_dir, self.audit_dir, self.ledger_url = data_dir, audit_dir, ledger_url
        self.ports = [free_port() for _ in range(instances)]
        self.procs = [None] * instances
        self.env = dict(os.environ)
        self.env["KOBANA_STATE_KEYS"] = "fault:" + "ab" * 32
        # finance_transfers_create is in a toolset finance does not offer by default.
        self.env["KOBANA_TOOLSETS"] = "all"
        self.env.setdefault("RUST_LOG", "error")
        self.logs = open(os.path.join(work, "processes.log"), "ab")

    def audit_file(self, i):
        return os.path.join(self.audit_dir, f"audit-{i}.jsonl")

    def spawn(self, i):
        cmd = [self.binary, "--data-dir", self.data_dir, "serve", "all",
               "--http", f"127.0.0.1:{self.ports[i]}", "--audit-file", self.audit_file(i)]
        if self.ledger_url:
            cmd += ["--ledger", self.ledger_url]
        self.procs[i] = subprocess.Popen(cmd, env=self.env, stdout=self.logs, stderr=self.logs)

    def wait_up(self, i):
        """Whether instance `i` listens (and is still running)."""
        ok = wait_port(self.ports[i])
        return ok and self.procs[i].poll() is None

    def start(self, i):
        self.spawn(i)
        if not self.wait_up(i):
            raise SystemExit("fault script: the server did not start (see processes.log)")

    def kill(self, i):
        self.procs[i].send_signal(signal.SIGKILL)
        self.procs[i].wait()

    def bases(self):
        return [f"http://127.0.0.1:{p}" for p in self.ports]

    def stop_all(self):
        for p in self.procs:
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()

    def db(self):
        return os.path.join(self.data_dir, "sandbox.sqlite3")

    def audit_lines(self):
        """Every line of every audit file (rotated ones too), with where it is."""
        out = []
        for name in sorted(os.listdir(self.audit_dir)):
            if not name.startswith("audit-"):
                continue
            with open(os.path.join(self.audit_dir, name), "rb") as f:
                data = f.read().decode("utf-8", "replace")
            lines = data.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            elif lines:
                # A last line without its newline is a record cut short.
                lines[-1] = lines[-1] + "\x00<no newline>"
            out += [(f"{name}:{n + 1}", line) for n, line in enumerate(lines)]
        return out


def embedded_phase(binary, work, kind, calls_per_kind, workers, seed, redis_ok):
    """One embedded-sandbox phase; `None` with a reason when it cannot run here."""
    rnd = random.Random(seed)
    events = []
    disk = None
    redis = None
    data_dir = os.path.join(work, "data")
    audit_dir = os.path.join(work, "audit")
    os.makedirs(audit_dir, exist_ok=True)
    try:
        if kind in ("audit disk", "database disk"):
            if os.geteuid() != 0:
                return None, "needs root to mount a small tmpfs"
            try:
                if kind == "audit disk":
                    # Room for the 4 MiB headroom the audit sink asks for, and a little more.
                    disk = SmallDisk(os.path.join(work, "audit"), "6m")
                else:
                    disk = SmallDisk(os.path.join(work, "data"), "96m")
            except OSError as e:
                return None, f"cannot mount a tmpfs ({e})"
        ledger_url = None
        if kind in ("ledger flush", "two instances") and redis_ok:
            redis = Procs(binary, work, True)
            redis.start_redis()
            ledger_url = f"redis://127.0.0.1:{redis.redis_port}"
        elif kind == "ledger flush":
            return None, "needs redis-server"
        instances = 2 if kind == "two instances" else 1
        srv = Embedded(binary, work, data_dir, audit_dir, ledger_url, instances)
        start_failures = []
        if kind == "two instances":
            # Both started at once on a new data directory, several times: each must come up.
            trials = 4
            for t in range(trials):
                if t:
                    srv.stop_all()
                    shutil.rmtree(data_dir, ignore_errors=True)
                for i in range(instances):
                    srv.spawn(i)
                for i in range(instances):
                    if not srv.wait_up(i):
                        start_failures.append(f"trial {t + 1}: instance {i + 1} did not start")
                        if srv.procs[i].poll() is None:
                            srv.procs[i].kill()
                            srv.procs[i].wait()
                        srv.start(i)
            events.append((time.time(), f"started together x{trials}"))
        else:
            srv.start(0)
        bases = srv.bases()
        calls = build_calls(setup_ids(bases[0]), calls_per_kind, seed, rnd)
        before = amount_counts(srv.db())

        def step(n):
            if kind in ("audit disk", "database disk"):
                if n % 8 == 1:
                    disk.fill()
                    return "disk full"
                if n % 8 == 5:
                    disk.free()
                    return "disk freed"
                return None
            if kind == "ledger flush":
                if n % 5 == 2:
                    redis.redis_cmd("FLUSHALL")
                    return "redis flushall"
                if n % 23 == 11:
                    redis.stop_redis()
                    time.sleep(0.5)
                    redis.start_redis()
                    return "redis stop+restart"
                if n % 17 == 0:
                    srv.kill(0)
                    time.sleep(0.2)
                    srv.start(0)
                    return "kill -9 server"
                return None
            if kind == "two instances" and redis is not None and n % 9 == 4:
                redis.redis_cmd("FLUSHALL")
                return "redis flushall"
            return None

        started, elapsed = drive(calls, bases, workers, step, rnd, events)
        if disk is not None:
            disk.free()
        srv.stop_all()
        after = amount_counts(srv.db())
        result = tally(calls, before, after, events, started, elapsed, srv.audit_lines())
        if kind == "two instances":
            result["start_failures"] = start_failures
        return result, None
    finally:
        if "srv" in locals():
            srv.stop_all()
        if redis is not None:
            redis.stop_all()
        if disk is not None:
            disk.unmount()


def report(name, r, d):
    """Prints one phase's rows; answers how many bad findings it had."""
    print(f"== {name}: {r['calls']} logical write calls in {r['seconds']} s "
          f"(faults: {', '.join(f'{k} x{v}' for k, v in sorted(r['events'].items()))})")
    print(f"   acknowledged: {r['acked']}, told failed: {r['failed']}, "
          f"still unknown after {ATTEMPTS} attempts: {r['still_unknown']}")
    for why, n in sorted(r["failed_why"].items()):
        print(f"     told failed x{n}: {why}")
    print(f"   outcome-unknown answers: {r['unknown_answers']}")
    print(f"   double executions: {len(r['double'])}")
    print(f"   lost acknowledged writes: {len(r['lost'])}")
    print(f"   told failed but ran: {len(r['failed_but_ran'])}")
    findings = r["double"] + r["lost"] + r["failed_but_ran"]
    a = r.get("audit")
    if a is not None:
        print(f"   audit records: {a['records']}, broken: {len(a['broken'])}, "
              f"acknowledged writes without one: {len(a['lost'])}")
        findings += a["broken"] + a["lost"]
    if "start_failures" in r:
        print(f"   instances that did not start: {len(r['start_failures'])}")
        findings += r["start_failures"]
    for line in findings:
        print(f"     - {line}")
    for line in r.get("notes", []):
        print(f"     (note) {line}")
    if findings:
        log = os.path.join(d, "processes.log")
        with open(log, "rb") as f:
            tail = f.read()[-3000:].decode("utf-8", "replace")
        print(f"   processes.log (tail):\n{tail}")
    return len(findings)


EMBEDDED = ["audit disk", "database disk", "ledger flush", "two instances"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--calls-per-kind", type=int, default=12,
                    help="logical calls per (era, tool) and phase")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--no-redis", action="store_true")
    ap.add_argument("--phases", default="all",
                    help="comma-separated: proxy, proxy-redis, " + ", ".join(
                        k.replace(" ", "-") for k in EMBEDDED) + " (default all)")
    a = ap.parse_args()
    wanted = None if a.phases == "all" else {w.strip() for w in a.phases.split(",")}
    phases = [("memory ledger", "proxy", False)]
    if not a.no_redis:
        phases.append(("redis ledger", "proxy-redis", True))
    bad = 0
    with tempfile.TemporaryDirectory(prefix="kobana-faults-") as work:
        i = 0
        for name, key, redis in phases:
            if wanted is not None and key not in wanted:
                continue
            d = os.path.join(work, f"phase{i}")
            os.makedirs(d)
            i += 1
            r = phase(a.binary, d, redis, a.calls_per_kind, a.workers, seed=i)
            bad += report(f"proxy, {name}", r, d)
        for kind in EMBEDDED:
            if wanted is not None and kind.replace(" ", "-") not in wanted:
                continue
            d = os.path.join(work, f"phase{i}")
            os.makedirs(d)
            i += 1
            r, skipped = embedded_phase(a.binary, d, kind, a.calls_per_kind, a.workers,
                                        seed=i, redis_ok=not a.no_redis)
            if r is None:
                print(f"== embedded sandbox, {kind}: skipped ({skipped})")
                continue
            bad += report(f"embedded sandbox, {kind}", r, d)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

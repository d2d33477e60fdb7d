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

Standard library only. Exit status 1 when double executions, lost acknowledged writes or
failed-but-ran writes are found.
"""

import argparse
import json
import os
import random
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


def run_call(call, base):
    client = Client(base, call.product, call.era)
    for attempt in range(ATTEMPTS):
        if attempt:
            time.sleep(0.4 + random.random() * 0.4)
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
        if kind == "failed" and ("unavailable" in r or "confirmation" in r):
            # Nothing ran this time (the ledger or the API could not be reached): try again
            # later. After an earlier unknown outcome the call stays unknown: this answer says
            # nothing about the earlier attempt.
            if call.final != "unknown":
                call.final, call.why = "failed", r
            continue
        call.final, call.why = "failed", r if isinstance(r, str) else ""
        return


def phase(binary, work, redis, calls_per_kind, workers, seed):
    rnd = random.Random(seed)
    procs = Procs(binary, work, redis)
    events = []
    try:
        if redis:
            procs.start_redis()
        procs.start_api()
        procs.start_proxy()
        base = f"http://127.0.0.1:{procs.mcp_port}"
        inv = Client(base, "billing", LEGACY).call("billing_invoices_list", {"per_page": 5})
        invoice_id, _ = first_id(inv)
        acc = Client(base, "finance", LEGACY).call("finance_financial_accounts_list",
                                                    {"per_page": 5})
        _, accounts = first_id(acc)
        if len(accounts) < 2:
            raise SystemExit("fault script: two financial accounts are needed")
        from_acc = accounts[0].get("uid") or accounts[0].get("id")
        to_acc = accounts[1].get("uid") or accounts[1].get("id")
        before = amount_counts(procs.db())

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

        pending = list(calls)
        lock = threading.Lock()
        done = threading.Event()

        def worker():
            while True:
                with lock:
                    if not pending:
                        return
                    c = pending.pop()
                run_call(c, base)

        def chaos():
            n = 0
            while not done.is_set():
                time.sleep(0.15 + rnd.random() * 0.2)
                n += 1
                try:
                    if n % 25 == 0:
                        procs.kill_proxy()
                        events.append((time.time(), "kill -9 proxy"))
                        time.sleep(0.3)
                        procs.start_proxy()
                    elif redis and n % 40 == 13:
                        procs.stop_redis()
                        events.append((time.time(), "redis stop"))
                        time.sleep(0.5)
                        procs.start_redis()
                        events.append((time.time(), "redis restart"))
                    elif redis and n % 60 == 31:
                        procs.redis_cmd("FLUSHALL")
                        events.append((time.time(), "redis flushall"))
                    else:
                        spec = rnd.choice(HTTP_FAULTS)
                        procs.fault(spec)
                        events.append((time.time(), spec))
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
        elapsed = time.time() - started
        # Answers still sleeping in serve-api (timeout faults) finish their writes first.
        time.sleep(1.2)
        after = amount_counts(procs.db())
    finally:
        procs.stop_all()

    result = {"calls": len(calls), "seconds": round(elapsed, 1), "double": [], "lost": [],
              "failed_but_ran": [], "unknown_answers": 0, "still_unknown": 0, "acked": 0,
              "failed": 0, "failed_why": {}, "events": {}}
    for _, e in events:
        key = e.split(":")[0]
        result["events"][key] = result["events"].get(key, 0) + 1
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
                result["lost"].append(f"{label}: acknowledged, not in serve-api's store")
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
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--calls-per-kind", type=int, default=12,
                    help="logical calls per (era, tool) and phase")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--no-redis", action="store_true")
    a = ap.parse_args()
    phases = [("memory ledger", False)]
    if not a.no_redis:
        phases.append(("redis ledger", True))
    bad = 0
    with tempfile.TemporaryDirectory(prefix="kobana-faults-") as work:
        for i, (name, redis) in enumerate(phases):
            d = os.path.join(work, f"phase{i}")
            os.makedirs(d)
            r = phase(a.binary, d, redis, a.calls_per_kind, a.workers, seed=i + 1)
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
            for line in r["double"] + r["lost"] + r["failed_but_ran"]:
                print(f"     - {line}")
            bad += len(r["double"]) + len(r["lost"]) + len(r["failed_but_ran"])
            if r["double"] or r["lost"] or r["failed_but_ran"]:
                log = os.path.join(d, "processes.log")
                with open(log, "rb") as f:
                    tail = f.read()[-3000:].decode("utf-8", "replace")
                print(f"   processes.log (tail):\n{tail}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

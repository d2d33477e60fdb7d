#!/usr/bin/env python3
"""bench-peers' measurement, interleaved: every peer up at once, and for each scenario the peers
take turns, one run each, round after round (run by scripts/bench_http.sh; prints figures, never
asserts).

Usage: bench_rounds.py BENCH_PY CONFIG_JSON OUT_DIR ROUNDS peer...

bench-peers' bench.py (read-only, in ../shared) runs one peer through all its scenarios, then the
next: on a shared machine the drift between peers minutes apart showed up as a ratio. This
wrapper imports bench.py and uses its own pieces (`scenario`, `probe`, `check`, `run_oha`,
`wait_ready`, RSS sampling; OHA, DURATION and CONNS from the environment as there), so requests,
warm-up (2 s before every run) and figures are bench.py's; only the order changes. In round n
the peers start from the n-th in turn, so none always runs first or last. Writes
OUT_DIR/round<n>/http.json in bench.py's shape, one run per peer and scenario.
"""
import importlib.util
import json
import os
import signal
import subprocess
import sys

WIRES = ("2025-11-25", "2026-07-28")
METHODS = ("tools/list", "tools/call")


def load_bench(path):
    spec = importlib.util.spec_from_file_location("bench_peers_bench", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def stop(proc):
    os.kill(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


def main():
    bench = load_bench(sys.argv[1])
    config = json.load(open(sys.argv[2]))
    out, rounds, peers = sys.argv[3], int(sys.argv[4]), sys.argv[5:] or None
    peers = peers or list(config)
    os.makedirs(out, exist_ok=True)
    procs, logs, base = {}, [], {}
    try:
        for name in peers:
            log = open(os.path.join(out, f"{name}.log"), "w")
            logs.append(log)
            procs[name] = subprocess.Popen(config[name]["cmd"], stdout=log, stderr=subprocess.STDOUT)
        for name in peers:
            url = f"http://127.0.0.1:{config[name]['port']}/mcp"
            bench.wait_ready(url, procs[name])
            base[name] = {"peer": name, "version": config[name]["version"], "pid": procs[name].pid,
                          "rss_idle_mib": round(bench.rss_kib(bench.tree(procs[name].pid)) / 1024, 1)}
        # One probe per peer and scenario, as bench.py does: a peer whose answer is wrong is not
        # measured on that scenario.
        probes = {}
        for name in peers:
            url = f"http://127.0.0.1:{config[name]['port']}/mcp"
            for wire in WIRES:
                for method in METHODS:
                    headers, body = bench.scenario(method, wire)
                    status, raw = bench.probe(url, headers, body)
                    ok, note = bench.check(status, raw, method)
                    probes[name, wire, method] = (ok, note)
                    print(f"{name} {wire} {method}: {note}", flush=True)
        for n in range(1, rounds + 1):
            k = (n - 1) % len(peers)
            order = peers[k:] + peers[:k]
            print(f"round {n} of {rounds}: {' '.join(order)} (load {open('/proc/loadavg').read().split()[0]})",
                  flush=True)
            results = {name: dict(base[name], scenarios=[]) for name in peers}
            for wire in WIRES:
                for method in METHODS:
                    headers, body = bench.scenario(method, wire)
                    line = []
                    for name in order:
                        ok, note = probes[name, wire, method]
                        row = {"wire": wire, "method": method, "probe_ok": ok, "probe": note}
                        if ok:
                            url = f"http://127.0.0.1:{config[name]['port']}/mcp"
                            pid = procs[name].pid
                            bench.run_oha(url, headers, body, "2s", pid)  # warm-up, not recorded
                            run = bench.run_oha(url, headers, body, bench.DURATION, pid)
                            row["runs"] = [run]
                            row["median"] = run
                            line.append(f"{name} {run['rps']:,.0f}/s p99 {run['p99_ms']:.2f} ms"
                                        + (f" non-200 {run['non_200']}" if run["non_200"] else ""))
                        results[name]["scenarios"].append(row)
                    print(f"   {wire} {method}: " + "; ".join(line), flush=True)
            round_dir = os.path.join(out, f"round{n}")
            os.makedirs(round_dir, exist_ok=True)
            json.dump(results, open(os.path.join(round_dir, "http.json"), "w"), indent=1)
    finally:
        for proc in procs.values():
            stop(proc)
        for log in logs:
            log.close()


if __name__ == "__main__":
    main()

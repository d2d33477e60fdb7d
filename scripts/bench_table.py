#!/usr/bin/env python3
"""The table of scripts/bench_http.sh from its interleaved rounds (prints figures, never asserts).

Usage: bench_table.py OUT_DIR ROUNDS

Reads OUT_DIR/round<N>/http.json (scripts/bench_rounds.py: bench-peers' bench.py shape, one run
per peer and scenario per round) and OUT_DIR/coldstart.json. Per peer and scenario: the median of
the rounds' req/s and p99. Per ratio (ours ÷ static, ours ÷ rmcp, p99 ours ÷ static): the median
of each round's own ratio, and its min–max across rounds, since the runs paired in one round
were seconds apart while the rounds span many minutes. Writes OUT_DIR/http.json in bench.py's shape (every round's run under
"runs", the median-rps run as "median") for whatever reads that file.
"""
import json
import os
import statistics
import sys

WIRES = ("2025-11-25", "2026-07-28")
METHODS = ("tools/list", "tools/call")


def load_rounds(out, rounds):
    found = []
    for n in range(1, rounds + 1):
        path = os.path.join(out, f"round{n}", "http.json")
        if os.path.exists(path):
            found.append(json.load(open(path)))
        else:
            print(f"round {n}: no results ({path})")
    return found


def run_of(results, peer, wire, method):
    """The one run of `peer` in this round, or None (peer absent, probe failed)."""
    for s in results.get(peer, {}).get("scenarios", []):
        if s["wire"] == wire and s["method"] == method and s.get("runs"):
            return s["runs"][0]
    return None


def spread(values, fmt):
    if not values:
        return "n/a"
    med = statistics.median(values)
    if len(values) == 1:
        return format(med, fmt)
    return f"{format(med, fmt)} ({format(min(values), fmt)}–{format(max(values), fmt)})"


def main():
    out, rounds = sys.argv[1], int(sys.argv[2])
    per_round = load_rounds(out, rounds)
    peers = sorted({p for r in per_round for p in r})
    merged = {}
    for peer in peers:
        first = next(r[peer] for r in per_round if peer in r)
        idle = [r[peer]["rss_idle_mib"] for r in per_round if "rss_idle_mib" in r.get(peer, {})]
        entry = {"peer": peer, "version": first.get("version"), "rounds": len(per_round),
                 "rss_idle_mib": statistics.median(idle) if idle else None, "scenarios": []}
        for wire in WIRES:
            for method in METHODS:
                runs = [x for x in (run_of(r, peer, wire, method) for r in per_round) if x]
                row = {"wire": wire, "method": method, "runs": runs}
                if runs:
                    row["median"] = sorted(runs, key=lambda x: x["rps"])[len(runs) // 2]
                entry["scenarios"].append(row)
        merged[peer] = entry
    json.dump(merged, open(os.path.join(out, "http.json"), "w"), indent=1)

    print()
    print(f"Medians of {len(per_round)} interleaved rounds; each ratio is the median of the rounds' "
          "own ratios, (min–max) across rounds.")
    print()
    print("| wire | method | kobana req/s | static req/s | rmcp req/s | ×static (min–max) | ×rmcp (min–max) | "
          "p99 ms kobana / static | p99 ratio (min–max) | non-200 | RSS peak MiB kobana |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for wire in WIRES:
        for method in METHODS:
            k_runs, s_runs, r_runs, x_static, x_rmcp, x_p99 = [], [], [], [], [], []
            non_200 = 0
            for r in per_round:
                k, s, m = (run_of(r, p, wire, method) for p in ("kobana", "static", "rmcp"))
                for run, acc in ((k, k_runs), (s, s_runs), (m, r_runs)):
                    if run:
                        acc.append(run)
                        non_200 += run.get("non_200") or 0
                if k and s:
                    x_static.append(k["rps"] / s["rps"])
                    if k["p99_ms"] and s["p99_ms"]:
                        x_p99.append(k["p99_ms"] / s["p99_ms"])
                if k and m:
                    x_rmcp.append(k["rps"] / m["rps"])
            if not k_runs:
                print(f"| {wire} | {method} | missing result | | | | | | | | |")
                continue

            def med(runs, key, fmt):
                vals = [x[key] for x in runs if x.get(key) is not None]
                return format(statistics.median(vals), fmt) if vals else "n/a"

            rss = max(x["rss_peak_mib"] for x in k_runs)
            print(f"| {wire} | {method} | {med(k_runs, 'rps', ',.0f')} | {med(s_runs, 'rps', ',.0f')} | "
                  f"{med(r_runs, 'rps', ',.0f')} | {spread(x_static, '.2f')} | {spread(x_rmcp, '.1f')} | "
                  f"{med(k_runs, 'p99_ms', '.2f')} / {med(s_runs, 'p99_ms', '.2f')} | "
                  f"{spread(x_p99, '.2f')} | {non_200 or 0}{' **not comparable**' if non_200 else ''} | "
                  f"{rss} |")
    cold_path = os.path.join(out, "coldstart.json")
    cold = json.load(open(cold_path)) if os.path.exists(cold_path) else {}
    for peer in ("kobana", "rmcp"):
        c = cold.get(peer)
        if c:
            fields = {k: v for k, v in c.items() if "median" in k or k.endswith("_ms")}
            print(f"stdio cold start {peer}: {json.dumps(fields)}")
    print("idle RSS MiB (median of rounds): "
          + ", ".join(f"{p} {merged.get(p, {}).get('rss_idle_mib')}" for p in ("kobana", "static", "rmcp")))


if __name__ == "__main__":
    main()

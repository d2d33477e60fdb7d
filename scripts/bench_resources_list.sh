#!/usr/bin/env bash
# Benchmark of the resources/list fan-out: 60 types, an upstream taking 50 ms per call.
# Prints the median wall time per pool size (target: well under 1 s with the default pool).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet --release --example bench_resources_list

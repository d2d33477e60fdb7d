#!/usr/bin/env bash
# A bounded run of every fuzz target in fuzz/ (the cargo-fuzz layout, its own workspace): builds
# them with libFuzzer's coverage instrumentation and runs each for FUZZ_SECONDS (default 12),
# starting from fuzz/seeds/<target> and, for the catalog loader, the real catalogs. Prints the
# executions per target; fails when a target crashes (the input is kept in fuzz/artifacts/<target>/,
# reproduce with `fuzz/target/x86_64-unknown-linux-gnu/release/<target> <file>`).
#
# The build is what `cargo fuzz build -s none` does, with plain stable cargo: no nightly toolchain
# (sanitizers need one) and no cargo-fuzz install. With cargo-fuzz and nightly at hand, longer
# runs with AddressSanitizer are `cd fuzz && cargo +nightly fuzz run <target>`.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

seconds="${FUZZ_SECONDS:-12}"
targets=(jsonrpc_reader state_open uri_template catalog_load)
if [ "$#" -gt 0 ]; then targets=("$@"); fi

host="$(rustc -vV | sed -n 's/^host: //p')"
# `--target` keeps the instrumentation off build scripts and proc macros (they are not linked
# with libFuzzer); `--cfg fuzzing` is the cfg cargo-fuzz sets.
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
build_start=$SECONDS
cargo build --release --locked --target "$host" --bins
echo "fuzz: built in $((SECONDS - build_start)) s"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=()
for t in "${targets[@]}"; do
  corpus="$work/corpus-$t"
  mkdir -p "$corpus" "artifacts/$t"
  if [ -d "seeds/$t" ]; then cp seeds/"$t"/* "$corpus"/; fi
  if [ "$t" = catalog_load ]; then cp ../catalog/*.yaml "$corpus"/; fi
  log="$work/$t.log"
  status=0
  "target/$host/release/$t" "$corpus" -max_total_time="$seconds" -rss_limit_mb=1024 \
    -timeout=10 -print_final_stats=1 -artifact_prefix="artifacts/$t/" >"$log" 2>&1 || status=$?
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $t CRASHED after ${runs:-?} executions (exit $status):"
    grep -E "panicked|ERROR|Test unit written|Assertion|assert" "$log" | head -20 || tail -30 "$log"
    failed+=("$t")
  else
    echo "fuzz: $t: ${runs:-?} executions in ${seconds} s, no crash"
  fi
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: crashes in: ${failed[*]} (inputs in fuzz/artifacts/)" >&2
  exit 1
fi

#!/usr/bin/env bash
# Benchmarks the catalog generator and prints figures (no pass/fail: targets are read by people).
#
#   scripts/bench_codegen.sh           median wall time of 5 full generations (release build of codegen)
#   scripts/bench_codegen.sh --build   also: clean build of the `generated` crate, and its incremental
#                                      rebuild after a one-line YAML edit
#
# Everything runs on a copy of the repository in a temp folder, so the working tree is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

build_too=false
[[ "${1:-}" == "--build" ]] && build_too=true

now_ns() { date +%s%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== generation: all catalogs, release build of codegen =="
cargo build -q --release -p codegen
bin="$root/target/release/codegen"
mkdir -p "$work/gen"
cp -r catalog generated "$work/gen/"
ncat=$(find catalog -maxdepth 2 -name '*.yaml' | wc -l)
lines=$(cat catalog/*.yaml catalog/fixtures/*.yaml 2>/dev/null | wc -l)
"$bin" --root "$work/gen" >/dev/null # warm-up; brings the copy up to date
runs=()
for i in 1 2 3 4 5; do
  t0=$(now_ns)
  "$bin" --root "$work/gen" >/dev/null
  t1=$(now_ns)
  runs+=("$(elapsed "$t0" "$t1")")
done
echo "catalogs: $ncat files, $lines YAML lines"
echo "runs (s): ${runs[*]}"
echo "median generation wall time: $(median "${runs[@]}") s"

if $build_too; then
  echo
  echo "== build of the generated crate (copy of the repository, own target dir) =="
  mkdir -p "$work/repo"
  tar --exclude=./target --exclude=./.git -cf - . | tar -xf - -C "$work/repo"
  export CARGO_TARGET_DIR="$work/target"
  cd "$work/repo"
  t0=$(now_ns); cargo build -q -p generated; t1=$(now_ns)
  echo "clean build, every dependency included: $(elapsed "$t0" "$t1") s"
  cargo clean -q -p generated
  t0=$(now_ns); cargo build -q -p generated; t1=$(now_ns)
  echo "clean build of the generated crate alone (deps already built): $(elapsed "$t0" "$t1") s"
  # One-line edit: the first plain (unquoted) tool title of the first catalog that has one.
  file="" line=""
  for f in catalog/*.yaml; do
    line=$(grep -n -E "^    title: [A-Za-z][^'\"#:]*\$" "$f" | head -n 1 | cut -d: -f1 || true)
    if [[ -n "$line" ]]; then file=$f; break; fi
  done
  sed -i "${line}s/\$/ (edited)/" "$file"
  t0=$(now_ns); cargo build -q -p generated; t1=$(now_ns)
  echo "incremental rebuild after a one-line edit of $file:$line: $(elapsed "$t0" "$t1") s"
fi

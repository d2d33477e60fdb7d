#!/usr/bin/env bash
# Ten times the catalog (issue 17): the same figures at 1× (the repository's catalogs, banking's
# ~311 tools the largest) and at 10× (a synthetic product `scale` of 3,000 tools and 600 templates
# from scripts/gen_scale_catalog.py, added to a copy of the repository; never checked in):
#   - codegen wall and CPU time (release codegen, median of 3; target < 3 s at 10×), and the CPU
#     time of the dev-profile codegen that `generated/build.rs` runs on every catalog edit
#   - incremental build of `generated` after a one-line YAML edit (dev profile)
#   - kobana-mcp release binary size
#   - stdio cold start to the first tools/list answer (scripts/bench_coldstart.sh, median; < 20 ms)
#   - idle RSS of `serve <product> --http`, and after 2,000 tools/list + tools/call (issue 34's
#     targets at 1×: idle <= 30 MiB, loaded <= 40 MiB)
# Prints figures, never asserts. The copy builds in this worktree's target directory (sharing the
# compiled dependencies; only the workspace crates build again), then the 1× binary is rebuilt so
# target/release/kobana-mcp is left as it was. Each timing is printed with the load average
# beside it (the machine is shared). Env: N (cold starts per case, default 20),
# CODEGEN (a codegen binary to use instead of building it in release), SKIP_INCREMENTAL=1,
# SKIP_X10_BINARY=1 (no 10× release build: binary figures at 1× only).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
N=${N:-20}
now_ns() { date +%s%N; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
cpu_of() { # user+sys seconds of a command
  /usr/bin/env time -f "%U %S" -o "$work/time" "$@" >/dev/null 2>&1
  awk '{ printf "%.2f", $1 + $2 }' "$work/time"
}
echo "load average at start: $(cat /proc/loadavg)"

# The copy: sources only, with the synthetic catalog beside the real ones.
mkdir -p "$work/x10"
(cd "$root" && tar --exclude=./target --exclude=./.git -cf - .) | tar -xf - -C "$work/x10"
python3 "$root/scripts/gen_scale_catalog.py" "$work/x10/catalog/scale.yaml" 3000 600

codegen=${CODEGEN:-}
if [ -z "$codegen" ]; then
  (cd "$root" && cargo build -q --release -p codegen)
  codegen="$target/release/codegen"
fi
# The dev-profile generator: what `cargo build` runs (generated/build.rs) after a catalog edit.
(cd "$root" && cargo build -q -p codegen --bin codegen)
cp "$target/debug/codegen" "$work/codegen-dev"
declare -A gen_wall gen_cpu gen_dev
for scale in 1 10; do
  dir=$root
  [ $scale = 10 ] && dir=$work/x10
  mkdir -p "$work/gen$scale"
  cp -r "$dir/catalog" "$dir/generated" "$work/gen$scale/"
  "$codegen" --root "$work/gen$scale" >/dev/null # brings the copy up to date
  walls=() cpus=()
  for _ in 1 2 3; do
    t0=$(now_ns)
    c=$(cpu_of "$codegen" --root "$work/gen$scale")
    t1=$(now_ns)
    walls+=("$(elapsed "$t0" "$t1")") cpus+=("$c")
  done
  gen_wall[$scale]=$(median "${walls[@]}") gen_cpu[$scale]=$(median "${cpus[@]}")
  echo "codegen ${scale}×: wall ${walls[*]} s, CPU ${cpus[*]} s (load $(load))"
  gen_dev[$scale]=$(cpu_of "$work/codegen-dev" --root "$work/gen$scale")
  echo "codegen ${scale}×, dev profile (build.rs): CPU ${gen_dev[$scale]} s (load $(load))"
done
# banking's tools: the `- name:` entries of its top-level `tools:` list.
tools1=$(awk '/^tools:/ { t = 1; next } /^[a-z_]+:/ { t = 0 } t && /^- name: / { n++ } END { print n }' "$root/catalog/banking.yaml")

# Incremental dev build of `generated` after a one-line edit (a seed count), 1× in the
# repository's own copy, 10× in the scaled copy; each copy is built once first.
declare -A incr
for scale in 1 10; do
  [ "${SKIP_INCREMENTAL:-}" = 1 ] && { incr[$scale]="-"; continue; }
  mkdir -p "$work/b$scale"
  if [ $scale = 1 ]; then
    (cd "$root" && tar --exclude=./target --exclude=./.git -cf - .) | tar -xf - -C "$work/b$scale"
    file=catalog/billing.yaml
  else
    cp -r "$work/x10/." "$work/b$scale/"
    file=catalog/scale.yaml
  fi
  (cd "$work/b$scale" && CARGO_TARGET_DIR="$target" cargo build -q -p generated)
  # A (non-singleton) record's seed count, one more: every text must have its translations (an edited title
  # would be refused), a number changes the generated tables all the same.
  python3 - "$work/b$scale/$file" <<'PY'
import re, sys
path = sys.argv[1]
lines = open(path).read().split("\n")
for i, line in enumerate(lines):
    m = re.fullmatch(r"(    seed_count: )(\d+)", line)
    if m and int(m.group(2)) > 1:  # a singleton's 1 must stay 1
        lines[i] = m.group(1) + str(int(m.group(2)) + 1)
        break
else:
    sys.exit(f"{path}: no seed_count line to edit")
open(path, "w").write("\n".join(lines))
PY
  t0=$(now_ns)
  (cd "$work/b$scale" && CARGO_TARGET_DIR="$target" cargo build -q -p generated)
  t1=$(now_ns)
  incr[$scale]=$(elapsed "$t0" "$t1")
  echo "incremental build ${scale}×: ${incr[$scale]} s (load $(load))"
done

declare -A size cold idle loaded cold25 cold26
measure_binary() { # scale product bin
  local scale=$1 product=$2 bin=$3
  size[$scale]=$(stat -c %s "$bin")
  BIN="$bin" N=$N PRODUCTS="$product" "$root/scripts/bench_coldstart.sh" > "$work/cold$scale" 2>&1 || true
  cold[$scale]="$(grep -E "^$product " "$work/cold$scale" | tr '\n' ' ') (load $(load))"
  # The median column of each wire's row.
  cold25[$scale]=$(awk -v p="$product" '$1 == p && $2 ~ /2025/ { print $4 }' "$work/cold$scale")
  cold26[$scale]=$(awk -v p="$product" '$1 == p && $2 ~ /2026/ { print $4 }' "$work/cold$scale")
  local port data
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  data=$(mktemp -d -p "$work")
  # No rate limits: the 2,000 requests below come from one identity and one address.
  KOBANA_RATE_LIMIT_READS=0 KOBANA_RATE_LIMIT_WRITES=0 KOBANA_RATE_LIMIT_IP=0 \
    "$bin" --data-dir "$data" serve "$product" --http "127.0.0.1:$port" >/dev/null 2>&1 &
  local pid=$!
  python3 - "$port" "$pid" "$product" > "$work/rss" 2> "$work/held$scale" <<'PY'
import json, socket, sys, time, urllib.request
port, pid, product = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def rss():
    for l in open(f"/proc/{pid}/status"):
        if l.startswith("VmRSS:"):
            return round(int(l.split()[1]) / 1024, 1)
def held():
    # What holds the RSS (/proc/<pid>/smaps): the mapped binary, the heap (brk heap and the
    # anonymous mappings of the other malloc arenas and thread stacks), shared libraries.
    parts, name = {"binary": 0, "heap+anon": 0, "libraries": 0}, ""
    for l in open(f"/proc/{pid}/smaps"):
        f = l.split()
        if "-" in f[0] and len(f) >= 5:
            name = f[5] if len(f) > 5 else ""
        elif f[0] == "Rss:":
            k = ("heap+anon" if name in ("", "[heap]", "[stack]") or name.startswith("[anon")
                 else "binary" if name.endswith("kobana-mcp") or "kobana-mcp-x" in name else "libraries")
            parts[k] += int(f[1])
    return " ".join(f"{k} {v / 1024:.1f}" for k, v in parts.items())
for _ in range(300):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close(); break
    except OSError:
        time.sleep(0.1)
time.sleep(0.5)
idle = rss()
idle_held = held()
# The embedded resolver's demo token (the sandbox serves no anonymous caller).
h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
     "MCP-Protocol-Version": "2025-11-25", "Authorization": "Bearer demo-full"}
def post(body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=json.dumps(body).encode(), headers=h)
    return json.loads(urllib.request.urlopen(req, timeout=30).read())
tools = post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})["result"]["tools"]
read = next(t["name"] for t in tools if t["name"].endswith("_list"))
for i in range(1000):
    post({"jsonrpc": "2.0", "id": i, "method": "tools/list"})
    post({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": read, "arguments": {}}})
print(idle, rss())
print(f"RSS held, MiB: idle: {idle_held}; loaded: {held()}", file=sys.stderr)
PY
  kill "$pid"; wait "$pid" 2>/dev/null || true
  read -r idle[$scale] loaded[$scale] < "$work/rss"
}

size[10]=0 idle[10]="-" loaded[10]="-" cold[10]="not measured (SKIP_X10_BINARY)" cold25[10]="-" cold26[10]="-"
# Both binaries are measured from copies: the 10× build replaces target/release/kobana-mcp,
# and cargo, finding the 1× unit fresh, would not put it back; the copy is restored at the end.
(cd "$root" && cargo build -q --release --bin kobana-mcp)
cp "$target/release/kobana-mcp" "$work/kobana-mcp-x1"
if [ "${SKIP_X10_BINARY:-}" != 1 ]; then
  t0=$(now_ns)
  (cd "$work/x10" && CARGO_TARGET_DIR="$target" cargo build -q --release --bin kobana-mcp)
  echo "10× release build of kobana-mcp: $(elapsed "$t0" "$(now_ns)") s (load $(load))"
  cp "$target/release/kobana-mcp" "$work/kobana-mcp-x10"
  cp "$work/kobana-mcp-x1" "$target/release/kobana-mcp"
fi
measure_binary 1 banking "$work/kobana-mcp-x1"
[ "${SKIP_X10_BINARY:-}" != 1 ] && measure_binary 10 scale "$work/kobana-mcp-x10"

echo
echo "| figure | 1× (banking, $tools1 tools; all catalogs) | 10× (scale: 3,000 tools, 600 templates) | growth | target |"
echo "|---|---|---|---|---|"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%.1f×", b / a; else print "-" }'; }
echo "| codegen wall s, release | ${gen_wall[1]} | ${gen_wall[10]} | $(ratio "${gen_wall[1]}" "${gen_wall[10]}") | < 3 s |"
echo "| codegen CPU s, release | ${gen_cpu[1]} | ${gen_cpu[10]} | $(ratio "${gen_cpu[1]}" "${gen_cpu[10]}") | < 3 s |"
echo "| codegen CPU s, dev profile (what build.rs runs) | ${gen_dev[1]} | ${gen_dev[10]} | $(ratio "${gen_dev[1]}" "${gen_dev[10]}") | |"
echo "| incremental build of generated after a one-line edit, s | ${incr[1]} | ${incr[10]} | $(ratio "${incr[1]}" "${incr[10]}") | |"
if true; then
  echo "| kobana-mcp binary, MiB | $(awk -v s="${size[1]}" 'BEGIN{printf "%.1f", s/1048576}') | $(awk -v s="${size[10]}" 'BEGIN{printf "%.1f", s/1048576}') | $(ratio "${size[1]}" "${size[10]}") | |"
  echo "| idle RSS MiB (serve --http) | ${idle[1]} | ${idle[10]} | $(ratio "${idle[1]}" "${idle[10]}") | <= 30 at 1× |"
  echo "| RSS after 1,000 tools/list + tools/call, MiB | ${loaded[1]} | ${loaded[10]} | $(ratio "${loaded[1]}" "${loaded[10]}") | <= 40 at 1× |"
  echo "| stdio cold start to tools/list, 2025 wire, median ms | ${cold25[1]:--} | ${cold25[10]:--} | $(ratio "${cold25[1]:-0}" "${cold25[10]:-0}") | < 20 at 10× |"
  echo "| stdio cold start to tools/list, 2026 wire, median ms | ${cold26[1]:--} | ${cold26[10]:--} | $(ratio "${cold26[1]:-0}" "${cold26[10]:-0}") | < 20 at 10× |"
  echo "RSS 1× $(cat "$work/held1")"
  [ -f "$work/held10" ] && echo "RSS 10× $(cat "$work/held10")"
  echo "stdio cold start 1×: ${cold[1]}"
  echo "stdio cold start 10×: ${cold[10]}"
fi
echo "load average at end: $(cat /proc/loadavg)"

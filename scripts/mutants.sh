#!/usr/bin/env bash
# Mutation testing of the money path (issue 42): do the tests notice when the code is wrong?
# cargo-mutants changes one expression at a time and runs the tests that cover the file; a change
# they do not notice is a missed mutant.
#
#   scripts/mutants.sh [--all] [FILE…]     every mutant of the money-path files (or of FILE…; with
#                                          --all also connection/ and the selection rule), then a
#                                          table: caught / missed / unviable / timeouts per file
#   scripts/mutants.sh --diff [BASE]       only the mutants on lines changed since BASE (default:
#                                          the merge base with origin/main; on main itself, the
#                                          last commit's first parent): for CI. Nothing to do, and
#                                          no build, when no listed file changed.
#   --re REGEX                             only the mutants whose name REGEX matches
#   --install                              installs the pinned cargo-mutants (in target/) when
#                                          it is missing and there is something to test
#
# Fails (status 2) on a missed mutant. Equivalent mutants (no test can notice them by design) are
# listed with their reasons in scripts/mutants-equivalent.txt and not tested.
#
# Runs in place (no copy of the tree: disk is tight), one file at a time with the tests that cover
# it: each mutant costs an incremental rebuild of its crate. The sources are restored after each
# mutant, also on Ctrl-C; do not edit the tree while it runs. May be set: CARGO_MUTANTS (default:
# cargo-mutants on PATH, else the one --install put in target/ci-cargo-mutants), MUTANTS_TIMEOUT
# (seconds per test run, default 180), MUTANTS_OUT (cargo-mutants' reports, default
# target/mutants). The Redis ledger's tests need REDIS_URL: when unset, a private redis-server is
# started for the run.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "scripts/mutants.sh: $*" >&2; }

# The files, and the tests that cover each, `;`-separated: the file's package; the package whose
# tests run; their `cargo test` arguments; the test name filter; the mutants examined (a regex on
# cargo-mutants' names; empty: all of the file's). The proxy's upstream is examined on its write
# path (attempts, retries, unknown outcomes, the idempotency headers) with the tests that drive
# writes through it (the proxy's and the exactly-once walk); the sandbox's API where it handles
# idempotency keys (its `run` handler, the request print, the replay mark, and the bearer token
# a key belongs to) with its own tests, which call the handler directly (api_tests.rs).
money_path() {
  cat <<'EOF'
runtime/src/confirm/idempotency.rs;runtime;runtime;--lib;;
runtime/src/confirm/gate.rs;runtime;runtime;--lib;;
runtime/src/confirm/ledger.rs;runtime;runtime;--lib;;
runtime/src/confirm/redis_ledger.rs;runtime;runtime;--lib;;
runtime/src/confirm/form.rs;runtime;runtime;--lib;;
runtime/src/backend/upstream.rs;runtime;kobana-mcp;--test proxy --test exactly_once;;attempt|forward|e_is_retryable|retry_after|is_write|for Upstream>::call
runtime/sandbox/src/api.rs;runtime-sandbox;runtime-sandbox;--lib;api::;in run$|replace run -> |RequestPrint|Slot::|mark_replayed|bearer
EOF
}
# Who may call what: figures on request (--all), not yet held to zero missed.
who_may_call() {
  cat <<'EOF'
runtime/src/connection/*.rs;runtime;runtime;--lib;connection::;
runtime/model/src/selection.rs;runtime-model;runtime-model;--lib;selection::;
EOF
}

equivalent_file=scripts/mutants-equivalent.txt
mutants=${CARGO_MUTANTS:-cargo-mutants}
if ! command -v "$mutants" >/dev/null 2>&1 && [ -x target/ci-cargo-mutants/bin/cargo-mutants ]; then
  mutants=$PWD/target/ci-cargo-mutants/bin/cargo-mutants
fi
timeout=${MUTANTS_TIMEOUT:-180}
out=${MUTANTS_OUT:-target/mutants}

mode=full
install=no
only=
base=
table_all=no
wanted=()
while [ $# -gt 0 ]; do
  case $1 in
    --diff)
      mode=diff
      if [ $# -gt 1 ] && [ "${2#-}" = "$2" ]; then base=$2; shift; fi
      ;;
    --all) table_all=yes ;;
    --install) install=yes ;;
    --re)
      [ $# -gt 1 ] || { say "--re needs a regex"; exit 1; }
      only=$2
      shift
      ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    -*) say "unknown option $1 (see --help)"; exit 1 ;;
    *) wanted+=("$1") ;;
  esac
  shift
done

table=$(money_path)
if [ "$table_all" = yes ]; then table+=$'\n'$(who_may_call); fi
if [ ${#wanted[@]} -gt 0 ]; then
  picked=
  for f in "${wanted[@]}"; do
    row=$( (money_path; who_may_call) | awk -F';' -v f="$f" '$1 == f' )
    if [ -z "$row" ]; then
      say "$f is not a file this script knows the covering tests of (see money_path in $0)"
      exit 1
    fi
    picked+=${picked:+$'\n'}$row
  done
  table=$picked
fi

# The equivalent mutants, as one anchored regex each: `<file>: <description>` in the list matches
# cargo-mutants' `<file>:<line>:<col>: <description>`, so a line moving keeps its entry.
equivalent_res=()
while IFS= read -r line; do
  case $line in '' | '#'*) continue ;; esac
  case $line in
    *'  # '?*) ;;
    *) say "$equivalent_file: no reason given (\`  # why\`) for: $line"; exit 1 ;;
  esac
  mutant=${line%%  # *}
  file=${mutant%%: *}
  what=${mutant#*: }
  re=$(printf '%s' "$what" | sed 's/[][\.*^$(){}?+|]/\\&/g')
  equivalent_res+=("^$(printf '%s' "$file" | sed 's/[][\.*^$(){}?+|]/\\&/g'):[0-9]+(:[0-9]+)?: $re\$")
done <"$equivalent_file"

# The diff to examine, and the files of the table it touches.
diff_file=
if [ "$mode" = diff ]; then
  if [ -z "$base" ]; then
    upstream=origin/main
    git rev-parse -q --verify "$upstream" >/dev/null || upstream=main
    base=$(git merge-base HEAD "$upstream" 2>/dev/null || true)
    if [ -z "$base" ] || [ "$base" = "$(git rev-parse HEAD)" ]; then
      # On main itself: what its last commit (a merge: what it brought in) changed.
      base=$(git rev-parse -q --verify 'HEAD^' || true)
    fi
    if [ -z "$base" ]; then
      say "no base to compare with (no origin/main, main or parent commit): pass one to --diff"
      exit 1
    fi
  fi
  changed=$(git diff --name-only "$base" --)
  touched=
  while IFS=';' read -r file rest; do
    # shellcheck disable=SC2053 # $file may be a glob (connection/*.rs)
    for c in $changed; do
      if [[ $c == $file ]]; then touched+=${touched:+$'\n'}$file\;$rest; break; fi
    done
  done <<<"$table"
  if [ -z "$touched" ]; then
    echo "mutants: no change to the money path since $(git rev-parse --short "$base"): nothing to test"
    exit 0
  fi
  table=$touched
  mkdir -p "$out"
  diff_file=$out/changes.diff
  git diff "$base" -- >"$diff_file"
fi

# The cargo-mutants this script is written for (its options and exit codes).
version=27.1.0
if [ "$("$mutants" mutants --version 2>/dev/null)" != "cargo-mutants $version" ]; then
  if [ "$install" != yes ]; then
    say "cargo-mutants $version is not installed (cargo install cargo-mutants --version $version --locked, or --install)"
    exit 1
  fi
  root=target/ci-cargo-mutants
  say "installing cargo-mutants $version in $root"
  cargo install --quiet --locked --root "$root" cargo-mutants --version "$version"
  mutants=$PWD/$root/bin/cargo-mutants
fi

if [ -z "${REDIS_URL:-}" ] && grep -q '^runtime/src/confirm/' <<<"$table"; then
  if ! command -v redis-server >/dev/null 2>&1; then
    say "the Redis ledger's tests need REDIS_URL or redis-server (apt-get install redis-server)"
    exit 1
  fi
  port=6491
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  redis_dir=$(mktemp -d)
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly yes --dir "$redis_dir" \
    --daemonize yes --pidfile "$redis_dir/redis.pid" >/dev/null
  trap 'kill "$(cat "$redis_dir/redis.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$redis_dir"' EXIT
  export REDIS_URL="redis://127.0.0.1:$port"
  for _ in $(seq 50); do [ -s "$redis_dir/redis.pid" ] && break; sleep 0.1; done
fi

# An entry that names no mutant of today's code is stale: refused, so it cannot hide a new one.
if [ ${#equivalent_res[@]} -gt 0 ]; then
  listed=$("$mutants" mutants --list --workspace)
  for re in "${equivalent_res[@]}"; do
    if ! grep -Eq "$re" <<<"$listed"; then
      say "$equivalent_file: an entry names no mutant of the code (stale; remove it): $re"
      exit 1
    fi
  done
fi

# An incremental build per mutant: only the mutated crate is compiled again, in seconds rather
# than minutes.
export CARGO_INCREMENTAL=1

# How many mutants of one file's run had this outcome (caught, missed, unviable, timeout).
count() {
  local f=$out/$name/mutants.out/$1.txt
  if [ -f "$f" ]; then grep -c . "$f" || true; else echo 0; fi
}

status=0
results=()
while IFS=';' read -r file package test_package test_args filter examine; do
  [ -n "$file" ] || continue
  name=$(printf '%s' "$file" | tr '/*' '__')
  args=(--in-place --baseline skip --no-shuffle --timeout "$timeout" --package "$package"
    --test-package "$test_package" --file "$file" --output "$out/$name")
  # Both filters hold: cargo-mutants examines what any --re matches, so the mutants both match
  # are listed and named one by one (a regex made of the two would miss a name both match in
  # the same place, `in run$` and `delete ! in run`).
  if [ -n "$examine" ] && [ -n "$only" ]; then
    both=$("$mutants" mutants --list --package "$package" --file "$file" --re "$examine" |
      grep -E -- "$only" | sed 's/[][\.*^$(){}?+|]/\\&/g' | paste -sd'|' || true)
    args+=(--re "^(?:$both)\$")
  elif [ -n "$examine$only" ]; then
    args+=(--re "$examine$only")
  fi
  for re in "${equivalent_res[@]}"; do args+=(--exclude-re "$re"); done
  [ -n "$diff_file" ] && args+=(--in-diff "$diff_file")
  # The covering tests: `cargo test <test_args> -- <filter>`; the build too is limited to them.
  read -ra cargo_args <<<"$test_args"
  for a in "${cargo_args[@]}"; do args+=("--cargo-arg=$a"); done
  [ -n "$filter" ] && args+=(-- -- "$filter")
  # A run that finds no mutant writes no outcomes: an earlier run's must not be counted as its.
  rm -rf "$out/$name/mutants.out" "$out/$name/mutants.out.old"
  mkdir -p "$out/$name"
  echo "== $file (cargo test -p $test_package $test_args${filter:+ -- $filter}) =="
  started=$SECONDS
  rc=0
  "$mutants" mutants "${args[@]}" || rc=$?
  # 0: all caught; 2: missed; 3: timeouts; anything else (1: usage, 4: the tests fail unmutated).
  case $rc in 0 | 2 | 3) ;; *) say "cargo-mutants failed on $file (status $rc)"; exit 1 ;; esac
  [ "$rc" = 2 ] && status=2
  results+=("$(printf '%-40s %6s %6s %8s %8s %6ss' "$file" "$(count caught)" "$(count missed)" \
    "$(count unviable)" "$(count timeout)" $((SECONDS - started)))")
  if [ -s "$out/$name/mutants.out/missed.txt" ]; then
    sed 's/^/  MISSED: /' "$out/$name/mutants.out/missed.txt"
  fi
done <<<"$table"

echo
printf '%-40s %6s %6s %8s %8s %7s\n' file caught missed unviable timeouts time
printf '%s\n' "${results[@]}"
if [ "$status" != 0 ]; then
  say "missed mutants (above): add a test that fails on each, or list it with its reason in $equivalent_file"
fi
exit "$status"

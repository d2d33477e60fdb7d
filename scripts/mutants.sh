#!/usr/bin/env bash
# Mutation testing of the money path and of who may call what (issue 42): do the tests notice
# when the code is wrong?
# cargo-mutants changes one expression at a time and runs the tests that cover the file; a change
# they do not notice is a missed mutant.
#
#   scripts/mutants.sh [FILE…]             every mutant of the money-path files and of the rule
#                                          of who may call what (or of FILE…), then a
#                                          table: caught / missed / unviable / timeouts per file
#   scripts/mutants.sh --diff [BASE]       only the mutants on lines changed since BASE, or without
#                                          BASE since each file was last examined whole with none
#                                          missed (scripts/mutants-checked.txt): for CI, which so
#                                          examines a landing of several commits whole. Nothing to
#                                          do, and no build, when no listed file changed.
#
# A whole run of a file (no --diff, no --re) with none missed and no timeout records the file's
# blob in scripts/mutants-checked.txt; commit it with the file.
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
# path (attempts, retries, unknown outcomes, the idempotency headers) with its own tests against
# a scripted API (upstream_tests.rs; a mutant costs a rebuild of the runtime crate alone; only
# those, whose scripts end, so a mutant that retries forever fails them instead of hanging); the
# sandbox's API where it handles idempotency keys (its `run` handler, the request print, the
# replay mark, and the bearer token a key belongs to) with its own tests, which call the handler
# directly (api_tests.rs).
money_path() {
  cat <<'EOF'
runtime/src/confirm/idempotency.rs;runtime;runtime;--lib;;
runtime/src/confirm/gate.rs;runtime;runtime;--lib;;
runtime/src/confirm/ledger.rs;runtime;runtime;--lib;;
runtime/src/confirm/redis_ledger.rs;runtime;runtime;--lib;;
runtime/src/confirm/form.rs;runtime;runtime;--lib;;
runtime/src/backend/upstream.rs;runtime;runtime;--lib;backend::upstream::write_path_tests::;attempt|forward|e_is_retryable|retry_after|is_write|for Upstream>::call
runtime/sandbox/src/api.rs;runtime-sandbox;runtime-sandbox;--lib;api::;in run$|replace run -> |RequestPrint|Slot::|mark_replayed|bearer
EOF
}
# Who may call what (sessions, eras, batches; the selection of tools a request may call): held
# to zero missed like the money path.
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
wanted=()
while [ $# -gt 0 ]; do
  case $1 in
    --diff)
      mode=diff
      if [ $# -gt 1 ] && [ "${2#-}" = "$2" ]; then base=$2; shift; fi
      ;;
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

table=$(money_path; who_may_call)
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

# The diff to examine, and the files of the table it touches. Without a base, each file's lines
# changed since it was last examined whole with no missed mutant (its blob in $checked_file): a
# landing of several merges is examined whole, not only its last commit, and a file never
# examined whole is examined whole. With a base: the lines changed since that commit.
checked_file=scripts/mutants-checked.txt
checked_blob() { awk -v f="$1" '$1 == f { print $2 }' "$checked_file" 2>/dev/null; }
diff_file=
if [ "$mode" = diff ]; then
  mkdir -p "$out"
  diff_file=$out/changes.diff
  : >"$diff_file"
  touched=
  while IFS=';' read -r file rest; do
    [ -n "$file" ] || continue
    changed=no
    # shellcheck disable=SC2086 # $file may be a glob (connection/*.rs)
    for f in $file; do
      [ -f "$f" ] || continue
      if [ -n "$base" ]; then
        git diff "$base" -- "$f" >>"$diff_file.part"
      else
        was=$(checked_blob "$f")
        [ "$was" = "$(git hash-object "$f")" ] && continue
        old=$(mktemp)
        if [ -n "$was" ] && git cat-file -e "$was" 2>/dev/null; then
          git cat-file blob "$was" >"$old"
        else
          if [ -n "$was" ]; then
            echo "mutants: $f was last examined whole as blob $was, which this clone does not hold: examined whole"
          else
            echo "mutants: $f has no record in $checked_file of a whole run: examined whole"
          fi
        fi
        diff -u --label "a/$f" --label "b/$f" "$old" "$f" >>"$diff_file.part" || true
        rm -f "$old"
      fi
      if [ -s "$diff_file.part" ]; then
        changed=yes
        cat "$diff_file.part" >>"$diff_file"
      fi
      rm -f "$diff_file.part"
    done
    [ "$changed" = yes ] && touched+=${touched:+$'\n'}$file\;$rest
  done <<<"$table"
  if [ -z "$touched" ]; then
    if [ -n "$base" ]; then
      echo "mutants: no change to the money path or to who may call what since $(git rev-parse --short "$base"): nothing to test"
    else
      echo "mutants: every file of the money path and of who may call what is as it was when last examined whole ($checked_file): nothing to test"
    fi
    exit 0
  fi
  table=$touched
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
recorded=()
while IFS=';' read -r file package test_package test_args filter examine; do
  [ -n "$file" ] || continue
  name=$(printf '%s' "$file" | tr '/*' '__')
  args=(--in-place --baseline skip --no-shuffle --timeout "$timeout" --package "$package"
    --test-package "$test_package" --file "$file" --output "$out/$name")
  # Both filters hold: cargo-mutants examines what any --re matches, so the mutants both match
  # are listed here and named exactly (one regex could not say "and" when both match one word).
  if [ -n "$examine" ] && [ -n "$only" ]; then
    picked=$("$mutants" mutants --list --package "$package" --file "$file" --re "$examine" |
      grep -E -- "$only" || true)
    if [ -z "$picked" ]; then
      echo "== $file: no mutant the row examines matches --re $only =="
      continue
    fi
    args+=(--re "$(printf '%s\n' "$picked" | sed 's/[][\.*^$(){}?+|]/\\&/g; s/^/^/; s/$/$/' | paste -sd'|')")
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
  # A whole run (every mutant of the row) with none missed and no timeout is recorded: --diff
  # then examines only what changes after it. Only a committed file's blob is recorded, so that
  # a clone of the commit holds it.
  if [ "$mode" = full ] && [ -z "$only" ] && [ "$rc" = 0 ]; then
    # shellcheck disable=SC2086 # $file may be a glob (connection/*.rs)
    for f in $file; do
      if git ls-files --error-unmatch -- "$f" >/dev/null 2>&1 && git diff --quiet HEAD -- "$f"; then
        blob=$(git hash-object "$f")
        { grep -v "^$f " "$checked_file" 2>/dev/null || true; echo "$f $blob"; } | LC_ALL=C sort >"$checked_file.new"
        mv "$checked_file.new" "$checked_file"
        recorded+=("$f")
      else
        say "$f differs from HEAD: its whole run is not recorded in $checked_file (commit, then run again)"
      fi
    done
  fi
done <<<"$table"

echo
printf '%-40s %6s %6s %8s %8s %7s\n' file caught missed unviable timeouts time
printf '%s\n' "${results[@]}"
if [ ${#recorded[@]} -gt 0 ]; then
  echo "recorded in $checked_file as examined whole with none missed (commit it): ${recorded[*]}"
fi
if [ "$status" != 0 ]; then
  say "missed mutants (above): add a test that fails on each, or list it with its reason in $equivalent_file"
fi
exit "$status"

#!/usr/bin/env bash
# The project's test command (README): starts what the tests need, then runs every test.
#
# - Redis, for the confirmation-ledger tests that run against a real Redis (REDIS_URL).
# - The official Python MCP SDK client, in a private virtualenv, for the real-client tests
#   (KOBANA_TEST_PYTHON).
# Installs redis-server (and python3-venv) with apt-get when missing and we are root.
#
# - The published schemas of server.json (PyPI) and MCPB manifests (npm), for the packaging tests
#   (KOBANA_REGISTRY_SCHEMA, KOBANA_MCPB_SCHEMA; scripts/fetch_package_schemas.sh).
#
# Tests that need Redis, Python, the package schemas, Kobana's real OpenAPI specs or Node (the views'
# chart data) fail when it is missing, unless KOBANA_TEST_SKIP (comma-separated: redis, python,
# schemas, specs, node) opts out; each
# skipped test says so.
# What the tests need from the specs and the product documents is checked in under
# catalog/facts/, so a bare clone passes; the specs themselves (KOBANA_SPECS_DIR, default
# ../shared) are only needed by the importer's tests, which this script opts out of, saying so,
# when the specs are absent. `codegen-tools facts --check` verifies catalog/facts/ against them (CI).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "scripts/test.sh: $*" >&2; }

install_with_apt() { # package…
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if ! command -v redis-server >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    install_with_apt redis-server
  else
    say "redis-server is not installed (apt-get install redis-server)"
    exit 1
  fi
fi
# The test Redis must be this run's own: a second run sharing the port would silently talk to the
# first run's Redis and lose it when that run ends. An explicit KOBANA_TEST_REDIS_PORT that already
# answers is refused; the default takes the first free port from 6391.
port_answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if [ -n "${KOBANA_TEST_REDIS_PORT:-}" ]; then
  redis_port=$KOBANA_TEST_REDIS_PORT
  if port_answers "$redis_port"; then
    say "port $redis_port (KOBANA_TEST_REDIS_PORT) is already in use, by another test run or server; choose a free one"
    exit 1
  fi
else
  redis_port=6391
  while port_answers "$redis_port"; do
    redis_port=$((redis_port + 1))
    if [ "$redis_port" -gt 6490 ]; then
      say "no free port in 6391-6490 for the test Redis (set KOBANA_TEST_REDIS_PORT)"
      exit 1
    fi
  done
fi
redis_dir=$(mktemp -d)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly yes --appendfsync everysec \
  --maxmemory-policy noeviction \
  --dir "$redis_dir" --daemonize yes --pidfile "$redis_dir/redis.pid" >/dev/null
trap 'kill "$(cat "$redis_dir/redis.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$redis_dir"' EXIT
export REDIS_URL="redis://127.0.0.1:$redis_port"
# Ours answers `CONFIG GET dir` with this run's directory; anything else on the port is not ours.
# In a subshell: `exec` redirections there (the connection, silenced errors) end with it.
our_redis() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$redis_port" || exit 1
    printf 'CONFIG GET dir\r\n' >&3
    for _ in 1 2 3 4 5; do
      IFS= read -r -t 1 line <&3 || exit 1
      case $line in *"$redis_dir"*) exit 0 ;; esac
    done
    exit 1
  ) 2>/dev/null
}
redis_up=no
for _ in $(seq 50); do
  if our_redis; then redis_up=yes; break; fi
  sleep 0.1
done
if [ "$redis_up" != yes ]; then
  say "redis-server did not start on port $redis_port, or another process owns it (set KOBANA_TEST_REDIS_PORT to a free port)"
  exit 1
fi

venv=.venv-test
if [ ! -x "$venv/bin/python" ]; then
  if ! command -v python3 >/dev/null 2>&1; then
    say "python3 is not installed (apt-get install python3 python3-venv)"
    exit 1
  fi
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
      install_with_apt python3-venv
    else
      say "python3 -m venv is unavailable: install the python3-venv package (apt-get install python3-venv)"
      exit 1
    fi
  fi
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --disable-pip-version-check -r tests/python/requirements.txt
export KOBANA_TEST_PYTHON="$PWD/$venv/bin/python"

# The published schemas of the MCP Registry's server.json and of MCPB manifests, from PyPI and
# npm, pinned by SHA-256 (tests/packaging.rs validates the generated packaging files with them).
schema_env=$(PYTHON="$PWD/$venv/bin/python" bash scripts/fetch_package_schemas.sh "$venv/package-schemas")
while IFS='=' read -r key value; do
  export "$key=$value"
done <<<"$schema_env"

specs_dir=${KOBANA_SPECS_DIR:-../shared}
if [ ! -d "$specs_dir/kobana-openapi" ]; then
  say "$specs_dir/kobana-openapi is absent: skipping the tests that need the real OpenAPI specs (the importer's); the rest read catalog/facts/"
  export KOBANA_TEST_SKIP="${KOBANA_TEST_SKIP:+$KOBANA_TEST_SKIP,}specs"
fi

cargo test --workspace --locked "$@"

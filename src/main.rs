//! `kobana-mcp`: serve Kobana's MCP products on the embedded sandbox or as a proxy to the Kobana
//! API, and manage the sandbox.
//!
//! ```text
//! kobana-mcp serve <product|all> [--stdio | --http ADDR] [--upstream URL] [--data-dir D] [--config FILE]
//!                  [--ledger memory|redis://…] [--state-keys KID:HEX,…]
//!                  [--rate-limit-reads N] [--rate-limit-writes N] [--rate-limit-ip N]
//!                  [--scope-challenge] [--trust-proxy-headers]
//! kobana-mcp sandbox seed|reset [--products a,b]
//! kobana-mcp sandbox serve-api --http ADDR
//! kobana-mcp doctor [product|all] [serve's flags]
//! ```
//!
//! Defaults: HTTP on 127.0.0.1:8080 (`all` serves `/<product>/mcp`, one product `/mcp`), the
//! embedded sandbox in the per-user data directory, seeded on first use, tokens from the demo
//! identities file. Logs go to stderr (`RUST_LOG`, default `info`). Several instances share a
//! Redis ledger (`KOBANA_LEDGER`) and the `requestState` keys (`KOBANA_STATE_KEYS`). Over stdio
//! the sandbox opens on the first tool call, so the first answers come from the catalog alone.

mod access;
mod config;
mod doctor;
mod healthcheck;
mod lazy_sandbox;
mod log_format;
mod log_queue;
mod preflight;
mod settings;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use clap::{Args, Parser, Subcommand};
use runtime::auth::http::{metadata_router, HttpAuth, ProtectedResource};
use runtime::auth::EmbeddedResolver;
use runtime::server::{Server, ServerConfig};
use runtime_model::backend::Backend;
use runtime_model::catalog::Product;
use runtime_sandbox::Sandbox;

use lazy_sandbox::LazySandbox;

/// What `--help` tells a first-time user besides the flags.
const SERVE_NOTES: &str = "\
Endpoints (HTTP): one product is served at /mcp, `all` at /<product>/mcp (/banking/mcp, …);
OAuth protected-resource metadata at /.well-known/oauth-protected-resource.
Every HTTP request needs `Authorization: Bearer <token>`.

stdio: `serve <product> --stdio` reads the caller's token from KOBANA_ACCESS_TOKEN and the
default workspace from KOBANA_WORKSPACE_ID (on the sandbox, without a token, the demo identity).

Demo tokens (sandbox only, public): demo-full, demo-readonly, demo-limited, … in
runtime/identities.yaml (compiled in; --identities FILE to use your own).

Check a setup with `kobana-mcp doctor [PRODUCT] [the same flags]`.";

#[derive(Debug, Parser)]
#[command(
    name = "kobana-mcp",
    version,
    about = "Kobana's MCP servers (banking, billing, finance, dashboards, inbox)",
    after_help = SERVE_NOTES
)]
struct Cli {
    /// Configuration file (TOML; see kobana-mcp.example.toml). Default: ./kobana-mcp.toml if present.
    #[arg(long, global = true, env = "KOBANA_CONFIG")]
    config: Option<PathBuf>,
    /// Sandbox data directory. Default: $XDG_DATA_HOME/kobana-mcp or ~/.local/share/kobana-mcp.
    #[arg(long, global = true, env = "KOBANA_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// Seed of the deterministic sandbox data (default 42).
    #[arg(long, global = true, env = "KOBANA_SEED")]
    seed: Option<u64>,
    #[command(subcommand)]
    command: Command,
}

// Parsed once per process: the size of the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Serve one product, or `all`, over stdio or Streamable HTTP.
    #[command(after_help = SERVE_NOTES)]
    Serve(Box<ServeArgs>),
    /// Check what `serve` would use, with the same flags: the configuration, the upstream (or
    /// the sandbox), the identity service and the ledger. One line per check; exits 1 when
    /// something is wrong.
    Doctor(Box<ServeArgs>),
    /// Manage the embedded sandbox.
    Sandbox {
        #[command(subcommand)]
        command: SandboxCommand,
    },
    /// Probe a running server's health route (the container image's HEALTHCHECK): exits 0 on a
    /// 2xx answer, 1 otherwise.
    Healthcheck(HealthcheckArgs),
}

#[derive(Debug, Args)]
struct HealthcheckArgs {
    /// The URL to GET (plain HTTP).
    #[arg(long, default_value = healthcheck::DEFAULT_URL)]
    url: String,
    /// Seconds to wait for the connection and the answer.
    #[arg(long, default_value_t = 3)]
    timeout_secs: u64,
}

#[derive(Debug, Args)]
struct TransportArgs {
    /// Serve one connection over stdin/stdout (one product only).
    #[arg(long, conflicts_with = "http")]
    stdio: bool,
    /// Serve Streamable HTTP on this address (default 127.0.0.1:8080).
    #[arg(long, env = "KOBANA_HTTP_ADDR", value_name = "ADDR")]
    http: Option<String>,
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// A product name (banking, billing, finance, dashboards, inbox) or `all`.
    #[arg(default_value = "all")]
    product: String,
    #[command(flatten)]
    transport: TransportArgs,
    /// Proxy mode: forward tool calls to this Kobana API base URL (`{product}` is replaced by the
    /// product name). Without it, the embedded sandbox answers.
    #[arg(long, env = "KOBANA_UPSTREAM_URL", value_name = "URL")]
    upstream: Option<String>,
    /// Timeout of each upstream attempt, in milliseconds.
    #[arg(long, env = "KOBANA_UPSTREAM_TIMEOUT_MS", value_name = "MS")]
    upstream_timeout_ms: Option<u64>,
    /// Sandbox only: how long a tool the catalog marks `task:` (imports, batches, reports) works
    /// before it answers, in milliseconds (it reports progress on the way). 0: at once.
    #[arg(
        long,
        env = "KOBANA_SANDBOX_TASK_DELAY_MS",
        value_name = "MS",
        default_value_t = 3000
    )]
    sandbox_task_delay_ms: u64,
    /// How long a task and its result stay readable (Tasks extension), in seconds.
    #[arg(
        long,
        env = "KOBANA_TASK_TTL_SECS",
        value_name = "SECS",
        default_value_t = 3600
    )]
    task_ttl_secs: u64,
    /// Proxy mode: how long a task re-reads a record the Kobana API is still working on (an
    /// import, a sync) before it answers with the last state read, in seconds.
    #[arg(
        long,
        env = "KOBANA_TASK_FOLLOW_SECS",
        value_name = "SECS",
        default_value_t = 1800
    )]
    task_follow_secs: u64,
    /// Externally visible base URL (OAuth metadata, signed download links).
    #[arg(long, env = "KOBANA_PUBLIC_URL", value_name = "URL")]
    public_url: Option<String>,
    /// Identities file for the embedded token resolver (default: the demo identities).
    #[arg(long, env = "KOBANA_IDENTITIES_FILE", value_name = "FILE")]
    identities: Option<PathBuf>,
    /// Token resolver: `embedded` (default with the sandbox) or `upstream` (default in proxy mode).
    #[arg(long, env = "KOBANA_AUTH", value_name = "embedded|upstream")]
    auth: Option<String>,
    /// Browser origin allowed besides loopback (repeatable; env: comma-separated).
    #[arg(
        long = "allowed-origin",
        env = "KOBANA_ALLOWED_ORIGINS",
        value_delimiter = ','
    )]
    allowed_origins: Vec<String>,
    /// Confirmation ledger: `memory` (default; one process) or a `redis://…` URL shared by every
    /// instance behind one load balancer, so a confirmation is used once across all of them.
    #[arg(long, env = "KOBANA_LEDGER", value_name = "memory|redis://…")]
    ledger: Option<String>,
    /// Keys sealing `requestState` (`kid:hexkey,…`, the first signs; keys of 16+ bytes). Instances
    /// sharing a ledger must share these keys. Prefer KOBANA_STATE_KEYS or `serve.state_keys` in
    /// the config file: a flag's value is visible to every user in `ps`. Default: one random key
    /// per process.
    #[arg(
        long,
        env = "KOBANA_STATE_KEYS",
        hide_env_values = true,
        value_name = "KID:HEX,…"
    )]
    state_keys: Option<String>,
    /// The language of every text (`pt-BR`, `es` or `en`; `es-AR` → `es`, `pt` → `pt-BR`): over
    /// stdio the client's, over HTTP what a request whose Accept-Language (or 2026 `_meta`
    /// acceptLanguage) names none of ours gets. Default: each product's own (the language of its
    /// document).
    #[arg(long, env = "KOBANA_LOCALE", value_name = "pt-BR|es|en")]
    locale: Option<String>,
    /// Start even when the Redis ledger may lose keys (no persistence, an evicting
    /// maxmemory-policy, or Redis unreachable at start): warns instead of refusing.
    #[arg(long, env = "KOBANA_ALLOW_VOLATILE_LEDGER")]
    allow_volatile_ledger: bool,
    /// How long a write whose outcome is unknown keeps its idempotency key, in seconds
    /// (re-running the same call within it is answered with the first result). Default 86400.
    #[arg(long, env = "KOBANA_IDEMPOTENCY_WINDOW_SECS", value_name = "SECS")]
    idempotency_window_secs: Option<u64>,
    /// Proxy mode: retry a write that carries an idempotency key (timeouts, 5xx). Only when the
    /// upstream honours the key; by default a write is sent once.
    #[arg(long, env = "KOBANA_UPSTREAM_RETRY_KEYED_WRITES")]
    upstream_retry_keyed_writes: bool,
    /// A tool's JSON answer larger than this many tokens (bytes / 4 of its JSON) is cut to its
    /// first whole records, with a note saying how to get the rest. 0 never cuts. Default 25000.
    #[arg(long, env = "KOBANA_RESULT_BUDGET_TOKENS", value_name = "TOKENS")]
    result_budget_tokens: Option<usize>,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    access: access::AccessArgs,
    #[command(flatten)]
    telemetry: TelemetryArgs,
    #[command(flatten)]
    selection: SelectionArgs,
}

/// Metrics, traces and the audit trail (README, "Operating it").
#[derive(Debug, Args)]
struct TelemetryArgs {
    /// Serve Prometheus `/metrics` on this address instead of the MCP listener (works with
    /// --stdio too).
    #[arg(long, env = "KOBANA_METRICS_ADDR", value_name = "ADDR")]
    metrics_addr: Option<String>,
    /// Export metrics and traces over OTLP/HTTP (protobuf) to this collector base URL
    /// (`http://127.0.0.1:4318`; /v1/metrics and /v1/traces are appended).
    #[arg(long, env = "KOBANA_OTLP_ENDPOINT", value_name = "URL")]
    otlp_endpoint: Option<String>,
    /// Write one JSON audit record per write or destructive call to this file (JSON Lines,
    /// appended, rotated by size; secrets removed).
    #[arg(
        long,
        env = "KOBANA_AUDIT_FILE",
        value_name = "FILE",
        conflicts_with = "audit_stderr"
    )]
    audit_file: Option<PathBuf>,
    /// Rotate the audit file when it reaches this size (default 104857600).
    #[arg(long, env = "KOBANA_AUDIT_MAX_BYTES", value_name = "BYTES")]
    audit_max_bytes: Option<u64>,
    /// Rotated audit files kept (`FILE.1` … `FILE.N`; default 10).
    #[arg(long, env = "KOBANA_AUDIT_KEEP", value_name = "N")]
    audit_keep: Option<usize>,
    /// Write the audit records to stderr instead of a file. An audit record is never dropped,
    /// so stderr must be read: a stderr nobody reads stops the writes it audits (a log line,
    /// by contrast, is dropped with a notice). `--audit-file` is the production setting.
    #[arg(long, env = "KOBANA_AUDIT_STDERR")]
    audit_stderr: bool,
}

/// Serves `/metrics` alone on `listener` (bound by the checks) until the process ends.
fn serve_metrics(
    listener: tokio::net::TcpListener,
    telemetry: runtime::telemetry::Telemetry,
) -> anyhow::Result<()> {
    tracing::info!(addr = %listener.local_addr()?, "serving Prometheus /metrics");
    let app = runtime::transport::health::metrics_router(telemetry);
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "metrics listener stopped");
        }
    });
    Ok(())
}

/// Exports what is pending and stops the exporters (off the async runtime: the SDK blocks).
async fn stop_telemetry(telemetry: runtime::telemetry::Telemetry) {
    let _ = tokio::task::spawn_blocking(move || telemetry.shutdown()).await;
}

/// Which tools the server offers (the ceiling of every request) and what a client that names
/// none gets. Without any of these: every tool may be selected, and a client naming nothing gets
/// the product's default toolsets.
#[derive(Debug, Args)]
struct SelectionArgs {
    /// Toolsets, comma-separated (`billets,pix`; `default`, `all` and `discovery` too). See each
    /// product's toolsets in `generated/docs/<product>.md`.
    #[arg(long, env = "KOBANA_TOOLSETS", value_name = "a,b|default|all")]
    toolsets: Option<String>,
    /// Tools added to the toolsets, comma-separated.
    #[arg(long, env = "KOBANA_TOOLS", value_name = "TOOL,…")]
    tools: Option<String>,
    /// Tools taken out, comma-separated (wins over --toolsets and --tools).
    #[arg(long, env = "KOBANA_EXCLUDE_TOOLS", value_name = "TOOL,…")]
    exclude_tools: Option<String>,
    /// Only read-only tools (wins over --toolsets and --tools).
    #[arg(long, env = "KOBANA_READ_ONLY")]
    read_only: bool,
    /// Discovery mode: adds toolset `discovery` (search, describe and call tools).
    #[arg(long, env = "KOBANA_DISCOVERY")]
    discovery: bool,
}

/// What one caller may hold or send (defaults: `runtime::server::ServerConfig::new`).
#[derive(Debug, Clone, Args)]
struct LimitArgs {
    /// Most members of one JSON-RPC batch (default 100).
    #[arg(long, env = "KOBANA_MAX_BATCH_MEMBERS", value_name = "N")]
    max_batch_members: Option<usize>,
    /// Most bytes of one batch's answer; later members get an error (default 8388608).
    #[arg(long, env = "KOBANA_MAX_BATCH_ANSWER_BYTES", value_name = "BYTES")]
    max_batch_answer_bytes: Option<usize>,
    /// Longest one batch may run, in seconds (default 60).
    #[arg(long, env = "KOBANA_BATCH_TIMEOUT_SECS", value_name = "SECS")]
    batch_timeout_secs: Option<u64>,
    /// HTTP: a 2025 session unused this long ends, in seconds (default 1800).
    #[arg(long, env = "KOBANA_SESSION_IDLE_SECS", value_name = "SECS")]
    session_idle_secs: Option<u64>,
    /// HTTP: most 2025 sessions of one person; one more ends their least recently used (default 100).
    #[arg(long, env = "KOBANA_MAX_SESSIONS_PER_IDENTITY", value_name = "N")]
    max_sessions_per_identity: Option<usize>,
    /// HTTP: most connections served at once (default 1024).
    #[arg(long, env = "KOBANA_MAX_CONNECTIONS", value_name = "N")]
    max_connections: Option<usize>,
    /// HTTP: seconds a connection has to send a request's headers (default 10).
    #[arg(long, env = "KOBANA_HEADER_READ_TIMEOUT_SECS", value_name = "SECS")]
    header_read_timeout_secs: Option<u64>,
}

impl LimitArgs {
    /// Overrides the defaults of `config` with the limits given.
    fn apply(&self, config: &mut ServerConfig) {
        use std::time::Duration;
        if let Some(n) = self.max_batch_members {
            config.max_batch_members = n;
        }
        if let Some(n) = self.max_batch_answer_bytes {
            config.max_batch_answer_bytes = n;
        }
        if let Some(s) = self.batch_timeout_secs {
            config.batch_timeout = Duration::from_secs(s);
        }
        if let Some(s) = self.session_idle_secs {
            config.session_idle_timeout = Duration::from_secs(s);
        }
        if let Some(n) = self.max_sessions_per_identity {
            config.max_sessions_per_identity = n;
        }
        if let Some(n) = self.max_connections {
            config.max_connections = n;
        }
        if let Some(s) = self.header_read_timeout_secs {
            config.header_read_timeout = Duration::from_secs(s);
        }
    }
}

#[derive(Debug, Subcommand)]
enum SandboxCommand {
    /// (Re)create the seed data: every scope used so far, plus the demo organization.
    Seed(ProductsArg),
    /// Delete the sandbox data (it is seeded again on next use).
    Reset(ProductsArg),
    /// Serve the sandbox as a Kobana-like REST API (for proxy mode and its tests).
    ServeApi(ServeApiArgs),
}

#[derive(Debug, Args)]
struct ProductsArg {
    /// Products to act on (comma-separated); default: all.
    #[arg(long, value_delimiter = ',')]
    products: Vec<String>,
}

#[derive(Debug, Args)]
struct ServeApiArgs {
    /// Listen address.
    #[arg(
        long,
        env = "KOBANA_SANDBOX_API_ADDR",
        default_value = "127.0.0.1:9090",
        value_name = "ADDR"
    )]
    http: String,
    /// Products to serve (comma-separated); default: all.
    #[arg(long, value_delimiter = ',')]
    products: Vec<String>,
    /// Accept any bearer token as the full demo identity (default: the demo identities file).
    #[arg(long)]
    any_token: bool,
    /// Mount `POST /_sandbox/faults` to queue injected faults (tests only).
    #[arg(long)]
    allow_fault_injection: bool,
}

/// Log lines to stderr through [`log_queue`], so that a stderr nobody reads never stops a
/// request. The returned guard writes what is queued when dropped. Without the writer thread
/// (the system refused one), lines go straight to stderr as before.
fn init_logging() -> Option<log_queue::Flush> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let logger = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .event_format(log_format::LineFormat::default());
    match log_queue::start(std::io::stderr()) {
        Ok((queue, flush)) => {
            logger.with_writer(queue).init();
            Some(flush)
        }
        Err(e) => {
            logger.with_writer(std::io::stderr).init();
            tracing::warn!(error = %e, "no log writer thread: log lines are written in place");
            None
        }
    }
}

fn main() {
    // Before the runtime starts its threads: each may get a malloc arena of its own.
    runtime_sandbox::memory::tune_allocator();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("kobana-mcp: cannot start the async runtime: {e}");
            std::process::exit(1);
        }
    };
    rt.block_on(async_main());
}

async fn async_main() {
    let log = init_logging();
    let inputs = settings::Inputs::parse();
    let outcome = run(inputs).await;
    // The queued log lines are written first: `std::process::exit` runs no destructors.
    drop(log);
    if let Err(e) = outcome {
        if !e.is::<Reported>() {
            eprintln!("kobana-mcp: {e:#}");
        }
        std::process::exit(1);
    }
}

/// A failure already reported in full (a `doctor` that found problems): exit 1, say nothing more.
#[derive(Debug)]
struct Reported;

impl std::fmt::Display for Reported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("reported above")
    }
}

impl std::error::Error for Reported {}

async fn run(inputs: settings::Inputs) -> anyhow::Result<()> {
    match &inputs.cli.command {
        // Reports settings that do not resolve as its lines, not as an error.
        Command::Doctor(_) => match doctor::run(&inputs).await {
            true => Ok(()),
            false => Err(Reported.into()),
        },
        Command::Serve(_) => serve(&inputs).await,
        Command::Sandbox { command } => {
            sandbox(command, settings::Settings::resolve(&inputs)?).await
        }
        Command::Healthcheck(args) => {
            healthcheck::run(&args.url, Duration::from_secs(args.timeout_secs))
        }
    }
}

/// The products named on the command line (`all`, one name, or a comma-separated list).
fn select_products(names: &[String]) -> anyhow::Result<Vec<&'static Product>> {
    let all = generated::PRODUCTS;
    if names.is_empty() || names.iter().any(|n| n == "all") {
        if all.is_empty() {
            bail!("no product catalog is compiled in (generated::PRODUCTS is empty)");
        }
        return Ok(all.to_vec());
    }
    names
        .iter()
        .map(|n| {
            all.iter().copied().find(|p| p.name == n).ok_or_else(|| {
                let known: Vec<&str> = all.iter().map(|p| p.name).collect();
                anyhow!(
                    "unknown product `{n}`; known: {}, or `all`",
                    known.join(", ")
                )
            })
        })
        .collect()
}

/// A listen address: `IP:PORT`, or `HOST:PORT` with a host name (`localhost:8080`), resolved
/// (IPv4 preferred, as clients given `localhost` most often try it first).
fn parse_addr(s: &str) -> anyhow::Result<SocketAddr> {
    if let Ok(addr) = s.parse() {
        return Ok(addr);
    }
    use std::net::ToSocketAddrs;
    let resolved: Vec<SocketAddr> = s
        .to_socket_addrs()
        .with_context(|| {
            format!("`{s}` is not a listen address (expected HOST:PORT, e.g. 127.0.0.1:8080 or localhost:8080)")
        })?
        .collect();
    resolved
        .iter()
        .find(|a| a.is_ipv4())
        .or(resolved.first())
        .copied()
        .ok_or_else(|| anyhow!("`{s}` resolves to no address"))
}

/// Resolves on Ctrl-C or SIGTERM. SIGTERM is how `docker stop`, Kubernetes and systemd ask a
/// server to end: without it the process died at once, losing the audit records and spans not
/// yet exported and cutting the requests in flight.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM; only Ctrl-C stops the server gracefully");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
    tracing::info!("shutting down");
}

async fn serve(inputs: &settings::Inputs) -> anyhow::Result<()> {
    let settings = settings::Settings::resolve(inputs)?;
    let s = settings
        .serve
        .as_ref()
        .ok_or_else(|| anyhow!("serve's settings are missing"))?;
    runtime_sandbox::memory::spawn_periodic_trim(runtime_sandbox::memory::TRIM_EVERY);
    // The checks `doctor` reports: `serve` refuses the first that fails.
    let mut report = preflight::Report::silent();
    let ready = preflight::run(&settings, preflight::Purpose::Serve, &mut report).await;
    if let Some(first) = report.failures().first() {
        let more = report.failures().len() - 1;
        if more == 0 {
            bail!("{first}");
        }
        bail!("{first} (and {more} more problem(s): `kobana-mcp doctor` with the same settings lists them)");
    }
    let ready = ready.ok_or_else(|| anyhow!("nothing to serve"))?;
    for w in &ready.ledger_warnings {
        tracing::warn!("confirmation ledger may lose keys (--allow-volatile-ledger): {w}");
        eprintln!("warning: confirmation ledger may lose keys (--allow-volatile-ledger): {w}");
    }
    let missing = |what: &str| anyhow!("{what} was not prepared");
    let products = ready.products.clone();
    let stdio = s.stdio;
    let public_url = s.public_url_or_default();
    let ledger = ready.ledger.clone().ok_or_else(|| missing("the ledger"))?;
    // Each is `Ok` once the settings resolved.
    let sealer = s.state_keys.clone()?;
    let locale = s.locale.clone()?;
    let selection = s.selection.clone()?;
    let telemetry = ready
        .telemetry
        .clone()
        .ok_or_else(|| missing("telemetry"))?;
    if let Some(e) = &s.otlp_endpoint {
        tracing::info!(endpoint = %e, "exporting metrics and traces over OTLP/HTTP");
    }
    let metrics_route = ready.metrics_listener.is_none();
    if let Some(listener) = ready.metrics_listener {
        serve_metrics(listener, telemetry.clone())?;
    }
    let mut probes = Vec::new();
    let resolver = ready
        .resolver
        .clone()
        .ok_or_else(|| missing("the token resolver"))?;
    if let Some(base) = &ready.identity_base {
        // Any HTTP answer from the identity service's host means it is reachable.
        probes.push(runtime::telemetry::health::Probe::http(
            "identity",
            format!("{}/v2/me", base.trim_end_matches('/')),
        ));
    }

    let backend: Arc<dyn Backend>;
    let mut sandbox_handle = None;
    if let Some(upstream) = ready.upstream {
        tracing::info!(upstream = ?s.upstream.as_ref().and_then(|u| u.base_url.clone()), "proxy mode: tool calls go to the Kobana API");
        backend = Arc::new(upstream);
    } else {
        let mut cfg = settings.served_sandbox(s);
        let (data_dir, seed) = (&settings.data_dir, settings.seed);
        // On stdio there is no HTTP server for signed download links: serve them from a private
        // loopback listener, unless a public URL was configured.
        let files_listener = if stdio && s.public_url.is_none() {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
            cfg.public_url = format!("http://{}", l.local_addr()?);
            Some(l)
        } else {
            None
        };
        if stdio {
            // Cold start: the first answers need only the catalog; the sandbox opens (and each
            // scope seeds) on the first tool call.
            let lazy = LazySandbox::new(cfg.clone());
            if let Some(listener) = files_listener {
                let (lazy, products) = (lazy.clone(), products.clone());
                tracing::info!(url = %cfg.public_url, "signed downloads served here");
                tokio::spawn(async move {
                    // Links exist only once a call opened the sandbox; until then connections
                    // wait in the listen backlog.
                    let Some(sb) = lazy.opened().await else {
                        return;
                    };
                    let router = runtime_sandbox::api::files_router(sb, products);
                    if let Err(e) = axum::serve(listener, router).await {
                        tracing::error!(error = %e, "signed-download server stopped");
                    }
                });
            }
            tracing::info!(data_dir = %data_dir.display(), seed, "sandbox mode (opened on first call)");
            backend = Arc::new(lazy);
        } else {
            // Opened by the checks.
            let sb = ready.sandbox.ok_or_else(|| missing("the sandbox"))?;
            tracing::info!(db = %sb.db_path().display(), seed, "sandbox mode");
            let db = sb.db_path().to_path_buf();
            probes.push(runtime::telemetry::health::Probe::new(
                "sandbox",
                move || {
                    let db = db.clone();
                    async move {
                        if db.exists() {
                            Ok(format!("{} open", db.display()))
                        } else {
                            Err(format!("{} is missing", db.display()))
                        }
                    }
                },
            ));
            sandbox_handle = Some(sb.clone());
            backend = Arc::new(sb);
        }
    }

    // What the server is configured with on every transport: the confirmation ledger and state
    // keys, the idempotency window, tasks, language, telemetry, the tool selection, bounds,
    // access rules and the result budget.
    let shared = |config: &mut ServerConfig| -> anyhow::Result<()> {
        config.ledger = Some(ledger.clone());
        config.sealer = sealer.clone();
        config.idempotency_window = s.idempotency_window;
        config.tasks.ttl = s.task_ttl;
        config.tasks.follow_for = s.task_follow;
        config.engine.locale = locale;
        config.telemetry = Some(telemetry.clone());
        config.selection = Some(selection.clone());
        s.limits.apply(config);
        access::apply(s, config)?;
        if let Some(n) = s.result_budget_tokens {
            config.engine.result_budget_tokens = n;
        }
        Ok(())
    };
    if stdio {
        let (who, notice) = ready
            .stdio_caller
            .ok_or_else(|| missing("the stdio caller"))?;
        if let Some(n) = notice {
            eprintln!("{n}");
        }
        let mut config = ServerConfig::new(products.clone(), backend, (*who.identity).clone());
        shared(&mut config)?;
        // Proxy mode forwards it upstream with every call.
        config.default_bearer_token = s.stdio_credentials.token.as_deref().map(Arc::from);
        let server = Server::new(config)?;
        // A signal ends the session like the end of stdin does, and the exporters still flush.
        let served = tokio::select! {
            r = runtime::transport::stdio::run(server, products[0].name) => r,
            _ = shutdown_signal() => Ok(()),
        };
        stop_telemetry(telemetry).await;
        served?;
        return Ok(());
    }

    let listener = ready.listener.ok_or_else(|| missing("the HTTP listener"))?;
    let mut config = ServerConfig::new(
        products.clone(),
        backend,
        runtime::server::unrestricted_identity("anonymous"),
    );
    shared(&mut config)?;
    config.auth = Some(Arc::new(HttpAuth::new(resolver, &public_url)));
    config.allowed_origins = s.allowed_origins.clone();
    config.allowed_hosts = s.allowed_hosts.clone();
    config.metrics_route = metrics_route;
    config.probes = probes;
    let limits = runtime::transport::http::ConnectionLimits::of(&config);
    let server = Server::new(config)?;
    let meta =
        ProtectedResource::for_products(&public_url, s.authorization_servers.clone(), &products);
    // The metadata and the signed download links (inbox `.eml`) beside the MCP routes, under the
    // same per-IP limit.
    let mut extra = metadata_router(meta);
    if let Some(sb) = sandbox_handle {
        extra = extra.merge(runtime_sandbox::api::files_router(sb, products.clone()));
    }
    let app = runtime::transport::http::router_with(server, extra);
    let paths: Vec<String> = if products.len() == 1 {
        vec!["/mcp".into()]
    } else {
        products
            .iter()
            .map(|p| format!("/{}/mcp", p.name))
            .collect()
    };
    tracing::info!(addr = %listener.local_addr()?, endpoints = ?paths, "serving MCP over HTTP");
    let served =
        runtime::transport::http::serve_router(app, listener, limits, shutdown_signal()).await;
    stop_telemetry(telemetry).await;
    served?;
    Ok(())
}

async fn sandbox(command: &SandboxCommand, settings: settings::Settings) -> anyhow::Result<()> {
    let cfg = settings.sandbox();
    match command {
        SandboxCommand::Seed(p) => {
            let sb = Sandbox::open(&cfg)?;
            for product in select_products(&p.products)? {
                let sb2 = sb.clone();
                let out = tokio::task::spawn_blocking(move || {
                    sb2.reseed(product, &[Sandbox::demo_scope(product)])
                })
                .await??;
                for (scope, counts) in out {
                    let total: i64 = counts
                        .as_object()
                        .map(|m| m.values().filter_map(|v| v.as_i64()).sum())
                        .unwrap_or(0);
                    println!(
                        "seeded {} organization={} workspace={}: {total} records {counts}",
                        product.name,
                        scope.organization,
                        if scope.workspace.is_empty() {
                            "-"
                        } else {
                            &scope.workspace
                        }
                    );
                }
            }
            println!("sandbox: {}", sb.db_path().display());
        }
        SandboxCommand::Reset(p) => {
            let sb = Sandbox::open(&cfg)?;
            for product in select_products(&p.products)? {
                let n = sb.reset(product)?;
                println!("reset {}: {n} records deleted", product.name);
            }
        }
        SandboxCommand::ServeApi(a) => {
            let products = select_products(&a.products)?;
            let sb = Sandbox::open(&cfg)?;
            let identities: runtime_sandbox::api::IdentityLookup = if a.any_token {
                runtime_sandbox::api::any_token()
            } else {
                let resolver = EmbeddedResolver::builtin(&products)?;
                Arc::new(move |token: &str| resolver.lookup(token).cloned())
            };
            let mut state = runtime_sandbox::api::ApiState::new(sb, products.clone(), identities);
            state.admin = a.allow_fault_injection;
            let addr = parse_addr(&a.http)?;
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("cannot listen on {addr}"))?;
            let bound = listener.local_addr()?;
            tracing::info!(addr = %bound, "sandbox REST API; proxy with --upstream http://{bound}/{{product}}");
            axum::serve(listener, runtime_sandbox::api::router(state))
                .with_graceful_shutdown(shutdown_signal())
                .await?;
        }
    }
    Ok(())
}

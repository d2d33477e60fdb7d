//! The command line: `kobana-mcp`'s subcommands, flags and their environment variables (clap),
//! and the parsing of the values they name (products, addresses). What the flags mean once merged
//! with the environment and the config file is `crate::settings`'s.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{anyhow, bail, Context};
use clap::{Args, Parser, Subcommand};
use runtime::server::ServerConfig;
use runtime_model::catalog::Product;

use crate::healthcheck;

/// What `--help` tells a first-time user besides the flags.
pub(crate) const SERVE_NOTES: &str = "\
Endpoints (HTTP): each product at /<product>/mcp (/banking/mcp, …), one product also at /mcp;
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
pub(crate) struct Cli {
    /// Configuration file (TOML; see kobana-mcp.example.toml). Default: ./kobana-mcp.toml if present.
    #[arg(long, global = true, env = "KOBANA_CONFIG")]
    pub(crate) config: Option<PathBuf>,
    /// Sandbox data directory. Default: $XDG_DATA_HOME/kobana-mcp, on Windows %LOCALAPPDATA%\kobana-mcp,
    /// else ~/.local/share/kobana-mcp.
    #[arg(long, global = true, env = "KOBANA_DATA_DIR")]
    pub(crate) data_dir: Option<PathBuf>,
    /// Seed of the deterministic sandbox data (default 42).
    #[arg(long, global = true, env = "KOBANA_SEED")]
    pub(crate) seed: Option<u64>,
    #[command(subcommand)]
    pub(crate) command: Command,
}

// Parsed once per process: the size of the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
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
pub(crate) struct HealthcheckArgs {
    /// The URL to GET (plain HTTP).
    #[arg(long, default_value = healthcheck::DEFAULT_URL)]
    pub(crate) url: String,
    /// Seconds to wait for the connection and the answer.
    #[arg(long, default_value_t = 3)]
    pub(crate) timeout_secs: u64,
}

#[derive(Debug, Args)]
pub(crate) struct TransportArgs {
    /// Serve one connection over stdin/stdout (one product only).
    #[arg(long, conflicts_with = "http")]
    pub(crate) stdio: bool,
    /// Serve Streamable HTTP on this address (default 127.0.0.1:8080).
    #[arg(long, env = "KOBANA_HTTP_ADDR", value_name = "ADDR")]
    pub(crate) http: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// A product name (banking, billing, finance, dashboards, inbox) or `all`.
    #[arg(default_value = "all")]
    pub(crate) product: String,
    #[command(flatten)]
    pub(crate) transport: TransportArgs,
    /// Proxy mode: forward tool calls to this Kobana API base URL (`{product}` is replaced by the
    /// product name). Without it, the embedded sandbox answers.
    #[arg(long, env = "KOBANA_UPSTREAM_URL", value_name = "URL")]
    pub(crate) upstream: Option<String>,
    /// Proxy mode: the products without a published Kobana API (billing, finance, dashboards,
    /// inbox: their paths are this project's own) whose paths the upstream implements,
    /// comma-separated. `serve --upstream` refuses to proxy any other such product.
    #[arg(long, env = "KOBANA_UPSTREAM_SERVES", value_name = "PRODUCTS")]
    pub(crate) upstream_serves: Option<String>,
    /// Timeout of each upstream attempt, in milliseconds.
    #[arg(long, env = "KOBANA_UPSTREAM_TIMEOUT_MS", value_name = "MS")]
    pub(crate) upstream_timeout_ms: Option<u64>,
    /// Proxy mode: most calls in flight to one API host at once, so most connections open to it
    /// (one per call in flight; as many idle ones kept). 0: no cap. Default 1024.
    #[arg(long, env = "KOBANA_UPSTREAM_MAX_CONNECTIONS", value_name = "N")]
    pub(crate) upstream_max_connections: Option<usize>,
    /// Proxy mode: most of those one tool may hold, so a tool stuck on a slow API path does not
    /// hold up the others (its further calls wait). 0: only the host's cap. Default 512.
    #[arg(long, env = "KOBANA_UPSTREAM_MAX_PER_TOOL", value_name = "N")]
    pub(crate) upstream_max_per_tool: Option<usize>,
    /// Sandbox only: how long a tool the catalog marks `task:` (imports, batches, reports) works
    /// before it answers, in milliseconds (it reports progress on the way). 0: at once.
    #[arg(
        long,
        env = "KOBANA_SANDBOX_TASK_DELAY_MS",
        value_name = "MS",
        default_value_t = 3000
    )]
    pub(crate) sandbox_task_delay_ms: u64,
    /// How long a task and its result stay readable (Tasks extension), in seconds.
    #[arg(
        long,
        env = "KOBANA_TASK_TTL_SECS",
        value_name = "SECS",
        default_value_t = 3600
    )]
    pub(crate) task_ttl_secs: u64,
    /// Proxy mode: how long a task re-reads a record the Kobana API is still working on (an
    /// import, a sync) before it answers with the last state read, in seconds.
    #[arg(
        long,
        env = "KOBANA_TASK_FOLLOW_SECS",
        value_name = "SECS",
        default_value_t = 1800
    )]
    pub(crate) task_follow_secs: u64,
    /// Externally visible base URL (OAuth metadata, signed download links).
    #[arg(long, env = "KOBANA_PUBLIC_URL", value_name = "URL")]
    pub(crate) public_url: Option<String>,
    /// Identities file for the embedded token resolver (default: the demo identities).
    #[arg(long, env = "KOBANA_IDENTITIES_FILE", value_name = "FILE")]
    pub(crate) identities: Option<PathBuf>,
    /// Token resolver: `embedded` (default with the sandbox) or `upstream` (default in proxy mode).
    #[arg(long, env = "KOBANA_AUTH", value_name = "embedded|upstream")]
    pub(crate) auth: Option<String>,
    /// Browser origin allowed besides loopback (repeatable; env: comma-separated).
    #[arg(
        long = "allowed-origin",
        env = "KOBANA_ALLOWED_ORIGINS",
        value_delimiter = ','
    )]
    pub(crate) allowed_origins: Vec<String>,
    /// Confirmation ledger: `memory` (default; one process) or a `redis://…` URL shared by every
    /// instance behind one load balancer, so a confirmation is used once across all of them.
    #[arg(long, env = "KOBANA_LEDGER", value_name = "memory|redis://…")]
    pub(crate) ledger: Option<String>,
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
    pub(crate) state_keys: Option<String>,
    /// The language of every text (`pt-BR`, `es` or `en`; `es-AR` → `es`, `pt` → `pt-BR`): over
    /// stdio the client's, over HTTP what a request whose Accept-Language (or 2026 `_meta`
    /// acceptLanguage) names none of ours gets. Default: each product's own (the language of its
    /// document).
    #[arg(long, env = "KOBANA_LOCALE", value_name = "pt-BR|es|en")]
    pub(crate) locale: Option<String>,
    /// Start even when the Redis ledger may lose keys (no persistence, an evicting
    /// maxmemory-policy, or Redis unreachable at start): warns instead of refusing.
    #[arg(long, env = "KOBANA_ALLOW_VOLATILE_LEDGER")]
    pub(crate) allow_volatile_ledger: bool,
    /// How long a write whose outcome is unknown keeps its idempotency key, in seconds
    /// (re-running the same call within it is answered with the first result). Default 86400.
    #[arg(long, env = "KOBANA_IDEMPOTENCY_WINDOW_SECS", value_name = "SECS")]
    pub(crate) idempotency_window_secs: Option<u64>,
    /// Proxy mode: retry a write that carries an idempotency key (timeouts, 5xx). Only when the
    /// upstream honours the key; by default a write is sent once.
    #[arg(long, env = "KOBANA_UPSTREAM_RETRY_KEYED_WRITES")]
    pub(crate) upstream_retry_keyed_writes: bool,
    /// A tool's JSON answer larger than this many tokens (bytes / 4 of its JSON) is cut to its
    /// first whole records, with a note saying how to get the rest. 0 never cuts. Default 25000.
    #[arg(long, env = "KOBANA_RESULT_BUDGET_TOKENS", value_name = "TOKENS")]
    pub(crate) result_budget_tokens: Option<usize>,
    #[command(flatten)]
    pub(crate) limits: LimitArgs,
    #[command(flatten)]
    pub(crate) access: AccessArgs,
    #[command(flatten)]
    pub(crate) telemetry: TelemetryArgs,
    #[command(flatten)]
    pub(crate) selection: SelectionArgs,
}

/// Metrics, traces and the audit trail (README, "Operating it").
#[derive(Debug, Args)]
pub(crate) struct TelemetryArgs {
    /// Serve Prometheus `/metrics` on this address instead of the MCP listener (works with
    /// --stdio too).
    #[arg(long, env = "KOBANA_METRICS_ADDR", value_name = "ADDR")]
    pub(crate) metrics_addr: Option<String>,
    /// Export metrics and traces over OTLP/HTTP (protobuf) to this collector base URL
    /// (`http://127.0.0.1:4318`; /v1/metrics and /v1/traces are appended).
    #[arg(long, env = "KOBANA_OTLP_ENDPOINT", value_name = "URL")]
    pub(crate) otlp_endpoint: Option<String>,
    /// Write one JSON audit record per write or destructive call to this file (JSON Lines,
    /// appended, rotated by size; secrets removed).
    #[arg(
        long,
        env = "KOBANA_AUDIT_FILE",
        value_name = "FILE",
        conflicts_with = "audit_stderr"
    )]
    pub(crate) audit_file: Option<PathBuf>,
    /// Rotate the audit file when it reaches this size (default 104857600).
    #[arg(long, env = "KOBANA_AUDIT_MAX_BYTES", value_name = "BYTES")]
    pub(crate) audit_max_bytes: Option<u64>,
    /// Rotated audit files kept (`FILE.1` … `FILE.N`; default 10).
    #[arg(long, env = "KOBANA_AUDIT_KEEP", value_name = "N")]
    pub(crate) audit_keep: Option<usize>,
    /// Write the audit records to stderr instead of a file. An audit record is never dropped,
    /// so stderr must be read: a stderr nobody reads stops the writes it audits (a log line,
    /// by contrast, is dropped with a notice). `--audit-file` is the production setting.
    #[arg(long, env = "KOBANA_AUDIT_STDERR")]
    pub(crate) audit_stderr: bool,
}

/// Which tools the server offers (the ceiling of every request) and what a client that names
/// none gets. Without any of these: every tool may be selected, and a client naming nothing gets
/// the product's default toolsets.
#[derive(Debug, Args)]
pub(crate) struct SelectionArgs {
    /// Toolsets, comma-separated (`billets,pix`; `default`, `all` and `discovery` too). See each
    /// product's toolsets in `generated/docs/<product>.md`.
    #[arg(long, env = "KOBANA_TOOLSETS", value_name = "a,b|default|all")]
    pub(crate) toolsets: Option<String>,
    /// Tools added to the toolsets, comma-separated.
    #[arg(long, env = "KOBANA_TOOLS", value_name = "TOOL,…")]
    pub(crate) tools: Option<String>,
    /// Tools taken out, comma-separated (wins over --toolsets and --tools).
    #[arg(long, env = "KOBANA_EXCLUDE_TOOLS", value_name = "TOOL,…")]
    pub(crate) exclude_tools: Option<String>,
    /// Only read-only tools (wins over --toolsets and --tools).
    #[arg(long, env = "KOBANA_READ_ONLY")]
    pub(crate) read_only: bool,
    /// Discovery mode: adds toolset `discovery` (search, describe and call tools).
    #[arg(long, env = "KOBANA_DISCOVERY")]
    pub(crate) discovery: bool,
}

/// What one caller may hold or send (defaults: `runtime::server::ServerConfig::new`).
#[derive(Debug, Clone, Args)]
pub(crate) struct LimitArgs {
    /// Most members of one JSON-RPC batch (default 100).
    #[arg(long, env = "KOBANA_MAX_BATCH_MEMBERS", value_name = "N")]
    pub(crate) max_batch_members: Option<usize>,
    /// Most bytes of one batch's answer; later members get an error (default 8388608).
    #[arg(long, env = "KOBANA_MAX_BATCH_ANSWER_BYTES", value_name = "BYTES")]
    pub(crate) max_batch_answer_bytes: Option<usize>,
    /// Longest one batch may run, in seconds (default 60).
    #[arg(long, env = "KOBANA_BATCH_TIMEOUT_SECS", value_name = "SECS")]
    pub(crate) batch_timeout_secs: Option<u64>,
    /// HTTP: a 2025 session unused this long ends, in seconds (default 1800).
    #[arg(long, env = "KOBANA_SESSION_IDLE_SECS", value_name = "SECS")]
    pub(crate) session_idle_secs: Option<u64>,
    /// HTTP: most 2025 sessions of one person; one more ends their least recently used (default 100).
    #[arg(long, env = "KOBANA_MAX_SESSIONS_PER_IDENTITY", value_name = "N")]
    pub(crate) max_sessions_per_identity: Option<usize>,
    /// HTTP: most connections served at once (default 1024).
    #[arg(long, env = "KOBANA_MAX_CONNECTIONS", value_name = "N")]
    pub(crate) max_connections: Option<usize>,
    /// HTTP: seconds a connection has to send a request's headers (default 10).
    #[arg(long, env = "KOBANA_HEADER_READ_TIMEOUT_SECS", value_name = "SECS")]
    pub(crate) header_read_timeout_secs: Option<u64>,
}

impl LimitArgs {
    /// Overrides the defaults of `config` with the limits given.
    pub(crate) fn apply(&self, config: &mut ServerConfig) {
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
pub(crate) enum SandboxCommand {
    /// (Re)create the seed data: every scope used so far, plus the demo organization.
    Seed(ProductsArg),
    /// Delete the sandbox data (it is seeded again on next use).
    Reset(ProductsArg),
    /// Serve the sandbox as a Kobana-like REST API (for proxy mode and its tests).
    ServeApi(ServeApiArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ProductsArg {
    /// Products to act on (comma-separated); default: all.
    #[arg(long, value_delimiter = ',')]
    pub(crate) products: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ServeApiArgs {
    /// Listen address.
    #[arg(
        long,
        env = "KOBANA_SANDBOX_API_ADDR",
        default_value = "127.0.0.1:9090",
        value_name = "ADDR"
    )]
    pub(crate) http: String,
    /// Products to serve (comma-separated); default: all.
    #[arg(long, value_delimiter = ',')]
    pub(crate) products: Vec<String>,
    /// Accept any bearer token as the full demo identity (default: the demo identities file).
    #[arg(long)]
    pub(crate) any_token: bool,
    /// Mount `POST /_sandbox/faults` to queue injected faults (tests only).
    #[arg(long)]
    pub(crate) allow_fault_injection: bool,
}

/// The products named on the command line (`all`, one name, or a comma-separated list).
pub(crate) fn select_products(names: &[String]) -> anyhow::Result<Vec<&'static Product>> {
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
pub(crate) fn parse_addr(s: &str) -> anyhow::Result<SocketAddr> {
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

/// The access flags: rate limits, scope challenges, trusted proxy headers (`crate::access`
/// applies them once `crate::settings` merged them with the config file's `[access]`).
/// Defaults ([`runtime::limits`]): 600 reads and 60 writes per identity, 1200 requests per
/// client IP, per minute.
#[derive(Debug, Args)]
pub struct AccessArgs {
    /// Calls of read-only tools and resource reads per identity (person in an organization) per
    /// minute; over it, HTTP 429 with Retry-After (stdio: a JSON-RPC error). 0 = no limit.
    /// Default 600. Shared through Redis when the ledger is a redis:// URL.
    #[arg(long, env = "KOBANA_RATE_LIMIT_READS", value_name = "N")]
    pub rate_limit_reads: Option<u32>,
    /// Calls of all other tools (writes) per identity per minute; 0 = no limit. Default 60.
    #[arg(long, env = "KOBANA_RATE_LIMIT_WRITES", value_name = "N")]
    pub rate_limit_writes: Option<u32>,
    /// HTTP requests per client IP per minute, counted before the body is read or the token
    /// checked; 0 = no limit. Default 1200.
    #[arg(long, env = "KOBANA_RATE_LIMIT_IP", value_name = "N")]
    pub rate_limit_ip: Option<u32>,
    /// The window the rate limits count in, in seconds (default 60; for tests).
    #[arg(
        long,
        env = "KOBANA_RATE_LIMIT_WINDOW_SECS",
        value_name = "SECS",
        hide = true
    )]
    pub rate_limit_window_secs: Option<u64>,
    /// HTTP: answer a tool call whose scope the token lacks with 403 and
    /// `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` (OAuth step-up), instead
    /// of an insufficient_scope tool error. For clients of an external authorization server.
    #[arg(long, env = "KOBANA_SCOPE_CHALLENGE")]
    pub scope_challenge: bool,
    /// HTTP behind a proxy: take the client IP (rate limits, logs) from Forwarded /
    /// X-Forwarded-For, and the public origin of the OAuth metadata URL from
    /// X-Forwarded-Proto / X-Forwarded-Host. Without it those headers are ignored.
    #[arg(long, env = "KOBANA_TRUST_PROXY_HEADERS")]
    pub trust_proxy_headers: bool,
}

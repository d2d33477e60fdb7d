//! The `serve` flags of who may do how much: rate limits, step-up scope challenges, and trusting
//! a proxy's forwarded headers (issue 16). Each flag has an environment variable and a key of
//! the same name in the config file's `[access]` section; flag > environment > file > default
//! (merged by `crate::settings`).

use std::sync::Arc;

use clap::Args;
use runtime::limits::RateLimiter;
use runtime::server::ServerConfig;
use serde::Deserialize;

use crate::settings::ServeSettings;

/// Flags (defaults: [`runtime::limits`]: 600 reads and 60 writes per identity, 1200 requests
/// per client IP, per minute).
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

/// The config file's `[access]` section.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessSection {
    pub rate_limit_reads: Option<u32>,
    pub rate_limit_writes: Option<u32>,
    pub rate_limit_ip: Option<u32>,
    pub rate_limit_window_secs: Option<u64>,
    pub scope_challenge: Option<bool>,
    pub trust_proxy_headers: Option<bool>,
}

/// Installs the limiter (in Redis when the ledger is a Redis URL) and the HTTP switches the
/// settings resolved (`crate::settings` merges these flags with `[access]`).
pub fn apply(s: &ServeSettings, config: &mut ServerConfig) -> anyhow::Result<()> {
    let limits = s.rate_limits;
    let limiter = RateLimiter::from_ledger_setting(limits, s.ledger_setting())
        .map_err(|e| anyhow::anyhow!("rate limits (shared through the ledger's Redis): {e}"))?;
    tracing::info!(
        reads = limits.reads,
        writes = limits.writes,
        ip = limits.ip,
        window_secs = limits.window.as_secs(),
        "rate limits (0 = off)"
    );
    config.rate_limiter = Some(Arc::new(limiter));
    config.scope_challenge = s.scope_challenge;
    config.trust_proxy_headers = s.trust_proxy_headers;
    Ok(())
}

//! The `serve` flags of who may do how much: rate limits, step-up scope challenges, and trusting
//! a proxy's forwarded headers (issue 16). Each flag has an environment variable and a key of
//! the same name in the config file's `[access]` section; flag > environment > file > default
//! (merged by `crate::settings`).

use std::sync::Arc;

use runtime::limits::RateLimiter;
use runtime::server::ServerConfig;

use crate::settings::ServeSettings;

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

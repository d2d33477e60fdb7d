//! Server-side confirmation of destructive tools, driven entirely by the product's
//! [`Policy`](runtime_model::catalog::Policy) (no code per product).
//!
//! [`Confirmer::gate`] is called by `tools/call` after the permission and argument checks and
//! before anything runs. It answers [`Gate::Run`], [`Gate::InputRequired`] (a one-question yes/no
//! form, 2026-07-28 with form elicitation) or [`Gate::Refuse`] (an `isError` result with an
//! application error).
//!
//! The confirmation binds the tool, the canonical hash of its arguments, and the identity fields
//! the policy names (person, organization, workspace), for `confirmation_ttl_secs`. Its single use
//! is enforced by a [`Ledger`] before the tool runs.

pub mod facts;
pub mod form;
mod gate;
pub mod idempotency;
pub mod ledger;
pub mod redis_ledger;
pub mod timed;

pub use facts::{Looked, RecordReader};
pub use gate::{Confirmed, Confirmer, Gate, GateRequest, CONFIRM_FIELD, INPUT_KEY};
pub use idempotency::{CallKeys, Outcome};
pub use ledger::{FailingLedger, Ledger, LedgerError, MemoryLedger};
pub use redis_ledger::RedisLedger;

use std::sync::Arc;

/// Environment variable choosing the ledger: unset or `memory` → [`MemoryLedger`];
/// `redis://…` / `rediss://…` → [`RedisLedger`].
pub const LEDGER_ENV: &str = "KOBANA_LEDGER";

/// Environment variable that lets a server start on a Redis ledger that may lose keys (warns).
pub const ALLOW_VOLATILE_ENV: &str = "KOBANA_ALLOW_VOLATILE_LEDGER";

/// Checks at start that the ledger a setting names keeps its keys: for Redis, persistence on and
/// `maxmemory-policy noeviction` ([`RedisLedger::durability_problems`]). A Redis that can lose
/// keys, or that cannot be asked, is an error — unless `allow_volatile`, which turns each problem
/// into a warning returned to the caller. The memory ledger needs no check (it lives and dies
/// with the process, and says so in the README).
pub async fn verify_durable(
    setting: Option<&str>,
    allow_volatile: bool,
) -> Result<Vec<String>, String> {
    let Some(url) = setting
        .map(str::trim)
        .filter(|s| s.starts_with("redis://") || s.starts_with("rediss://"))
    else {
        return Ok(Vec::new());
    };
    let ledger = RedisLedger::new(url).map_err(|e| e.to_string())?;
    let problems = match ledger.durability_problems().await {
        Ok(p) => p,
        Err(e) => vec![format!(
            "cannot verify that Redis keeps the ledger's keys ({e})"
        )],
    };
    if problems.is_empty() || allow_volatile {
        return Ok(problems);
    }
    Err(format!(
        "the Redis confirmation ledger can lose keys, and a lost key lets a used confirmation run again: {}. Fix the Redis settings (README, \"Several instances\"), or start anyway with --allow-volatile-ledger / {ALLOW_VOLATILE_ENV}=1",
        problems.join("; ")
    ))
}

/// Builds the ledger a `KOBANA_LEDGER`-style setting names. The Redis ledger connects lazily;
/// the CLI checks it first with [`verify_durable`].
pub fn ledger_from_setting(setting: Option<&str>) -> Result<Arc<dyn Ledger>, LedgerError> {
    match setting.map(str::trim).filter(|s| !s.is_empty()) {
        None | Some("memory") => Ok(Arc::new(MemoryLedger::new())),
        Some(url) if url.starts_with("redis://") || url.starts_with("rediss://") => {
            Ok(Arc::new(RedisLedger::new(url)?))
        }
        Some(other) => Err(LedgerError::Unavailable(format!(
            "{LEDGER_ENV} must be `memory` or a redis:// URL, found {other:?}"
        ))),
    }
}

/// The ledger `KOBANA_LEDGER` names (memory when unset).
pub fn ledger_from_env() -> Result<Arc<dyn Ledger>, LedgerError> {
    ledger_from_setting(std::env::var(LEDGER_ENV).ok().as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledger_settings() {
        assert!(ledger_from_setting(None).is_ok());
        assert!(ledger_from_setting(Some("memory")).is_ok());
        assert!(ledger_from_setting(Some("redis://127.0.0.1:6379")).is_ok());
        let e = ledger_from_setting(Some("postgres://x")).err().unwrap();
        assert!(e.to_string().contains(LEDGER_ENV));
    }
}

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

mod gate;
pub mod idempotency;
pub mod ledger;
pub mod redis_ledger;
#[cfg(test)]
pub(crate) mod testing;

pub use gate::{Confirmed, Confirmer, Gate, GateRequest, CONFIRM_FIELD, INPUT_KEY};
pub use idempotency::{CallKeys, Outcome};
pub use ledger::{FailingLedger, Ledger, LedgerError, MemoryLedger};
pub use redis_ledger::RedisLedger;

use std::sync::Arc;

/// Environment variable choosing the ledger: unset or `memory` → [`MemoryLedger`];
/// `redis://…` / `rediss://…` → [`RedisLedger`].
pub const LEDGER_ENV: &str = "KOBANA_LEDGER";

/// Builds the ledger a `KOBANA_LEDGER`-style setting names. The Redis ledger connects lazily, so
/// a server starts even when Redis is down (and refuses destructive tools until it is up).
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

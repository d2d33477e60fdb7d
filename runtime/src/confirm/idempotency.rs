//! The idempotency key of a write — its one home.
//!
//! A call that writes (a tool with an HTTP binding that is not read-only) carries an
//! `Idempotency-Key` upstream. The key lives in the ledger under the call's fingerprint (tool,
//! canonical arguments, person, organization, workspace) while the call's outcome is not known:
//! - first call: a new key is stored for the window (24 h by default) and sent;
//! - known outcome (an answer, or an error that says nothing changed): the record is removed, so
//!   a deliberate repeat of the same call gets a new key and runs again;
//! - unknown outcome (timeout, reset, 5xx after sending): the record stays, so re-running the
//!   same call within the window sends the same key and the upstream answers the first result
//!   instead of running twice.
//!
//! A confirmed call proposes the key derived from its confirmation's nonce
//! ([`confirmed_key`]): should the ledger lose its records, a replayed confirmation still sends
//! the key of its first run, and the upstream does not run it twice.

use std::sync::Arc;
use std::time::Duration;

use runtime_model::catalog::{Binding, Product, Tool};
use runtime_model::identity::Identity;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::ledger::{Ledger, LedgerError};
use crate::state::new_nonce;
use runtime_model::canonical;
use runtime_model::catalog::ConfirmationBinding;

/// How long an unknown outcome keeps its key by default.
pub const DEFAULT_WINDOW: Duration = Duration::from_secs(24 * 60 * 60);

/// Namespace of call records in the ledger.
const CALL_PREFIX: &str = "call:";

/// What became of a call, as far as this server knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The upstream answered success: it ran.
    Ran,
    /// The upstream answered an error that means nothing changed.
    Failed,
    /// The request may or may not have run (timeout, reset, 5xx after sending).
    Unknown,
}

impl Outcome {
    /// The outcome of a backend result.
    pub fn of<T>(r: &Result<T, runtime_model::backend::BackendError>) -> Self {
        match r {
            Ok(_) => Outcome::Ran,
            Err(runtime_model::backend::BackendError::OutcomeUnknown(_)) => Outcome::Unknown,
            Err(_) => Outcome::Failed,
        }
    }

    /// How it is written in a confirmation's ledger record.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ran => "ran",
            Outcome::Failed => "failed",
            Outcome::Unknown => "unknown",
        }
    }
}

/// Whether calls of this tool carry an idempotency key: HTTP-bound tools that write.
pub fn needs_key(tool: &Tool) -> bool {
    matches!(tool.binding, Binding::Http(_)) && !tool.annotations.read_only
}

/// The owner a ledger record is charged to (its quota): the person in their organization.
pub fn owner(identity: &Identity) -> String {
    runtime_model::identity::principal(
        identity,
        None,
        ConfirmationBinding {
            person: true,
            organization: true,
            workspace: false,
        },
    )
}

/// The fingerprint of a call: product, tool, canonical arguments (numbers normalized, keys
/// sorted), person, organization and workspace.
pub fn call_fingerprint(
    product: &Product,
    tool: &Tool,
    args: &Map<String, Value>,
    identity: &Identity,
    workspace: Option<&str>,
) -> String {
    let args_hash = canonical::sha256_hex(&Value::Object(args.clone()));
    let mut h = Sha256::new();
    for part in [
        "kobana-mcp/call",
        product.name,
        tool.name,
        &args_hash,
        &identity.person,
        &identity.organization,
        workspace.unwrap_or(""),
    ] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    hex::encode(h.finalize())
}

/// The key a confirmed call proposes: derived from (not equal to) the confirmation's ledger
/// nonce, so the nonce never leaves the server and each confirmation maps to one upstream key.
pub fn confirmed_key(nonce: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"kobana-mcp/confirmed-call\0");
    h.update(nonce.as_bytes());
    hex::encode(h.finalize())
}

/// Claims and settles the keys of writes in the ledger. Cheap to clone.
#[derive(Clone)]
pub struct CallKeys {
    ledger: Arc<dyn Ledger>,
    window: Duration,
}

impl CallKeys {
    pub fn new(ledger: Arc<dyn Ledger>, window: Duration) -> Self {
        Self {
            ledger,
            window: window.max(Duration::from_secs(1)),
        }
    }

    /// How long an unknown outcome keeps its key.
    pub fn window(&self) -> Duration {
        self.window
    }

    /// The key to send for the call with this fingerprint: the key of an earlier run whose
    /// outcome is unknown, else `proposed` (or a new random key), recorded for the window.
    pub async fn claim(
        &self,
        fingerprint: &str,
        proposed: Option<String>,
        owner: &str,
    ) -> Result<String, LedgerError> {
        let key = match proposed {
            Some(k) => k,
            None => new_nonce().map_err(|e| {
                LedgerError::Unavailable(format!("no randomness for an idempotency key: {e}"))
            })?,
        };
        let record = format!("{CALL_PREFIX}{fingerprint}");
        match self
            .ledger
            .put_new(&record, &key, self.window, owner)
            .await?
        {
            None => Ok(key),
            Some(earlier) => Ok(earlier),
        }
    }

    /// Settles a call: a known outcome frees its fingerprint (a repeat gets a new key); an unknown
    /// one keeps the key for the window. Best effort: a failure is logged, and at worst a
    /// deliberate repeat within the window is answered with the first result.
    pub async fn settle(&self, fingerprint: &str, key: &str, outcome: Outcome) {
        if outcome == Outcome::Unknown {
            return;
        }
        let record = format!("{CALL_PREFIX}{fingerprint}");
        if let Err(e) = self.ledger.remove_if(&record, key).await {
            tracing::warn!(error = %e, "could not free an idempotency key after a known outcome");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::confirm::testing::{tool, LENIENT};
    use crate::confirm::MemoryLedger;

    fn person(p: &str, o: &str) -> Identity {
        Identity {
            person: p.into(),
            name: String::new(),
            organization: o.into(),
            scopes: Default::default(),
            permissions: Default::default(),
            workspaces: Default::default(),
            default_workspace: None,
        }
    }

    #[test]
    fn the_fingerprint_normalizes_arguments_and_binds_the_caller() {
        let t = tool("test_things_delete");
        let a: Map<String, Value> =
            serde_json::from_str(r#"{"amount": 10, "m": {"b": 1, "a": 2}}"#).unwrap();
        let b: Map<String, Value> =
            serde_json::from_str(r#"{"m": {"a": 2.0, "b": 1}, "amount": 10.0}"#).unwrap();
        let p = person("p", "o");
        let fa = call_fingerprint(&LENIENT, t, &a, &p, Some("ws"));
        assert_eq!(fa, call_fingerprint(&LENIENT, t, &b, &p, Some("ws")));
        assert_ne!(
            fa,
            call_fingerprint(&LENIENT, t, &a, &person("q", "o"), Some("ws"))
        );
        assert_ne!(
            fa,
            call_fingerprint(&LENIENT, t, &a, &person("p", "o2"), Some("ws"))
        );
        assert_ne!(fa, call_fingerprint(&LENIENT, t, &a, &p, Some("ws2")));
        assert_ne!(
            fa,
            call_fingerprint(&LENIENT, tool("test_things_update"), &a, &p, Some("ws"))
        );
    }

    #[tokio::test]
    async fn unknown_outcomes_keep_the_key_and_known_ones_free_it() {
        let keys = CallKeys::new(Arc::new(MemoryLedger::new()), DEFAULT_WINDOW);
        let first = keys.claim("fp", None, "o").await.unwrap();
        keys.settle("fp", &first, Outcome::Unknown).await;
        // The re-run sends the same key, even when it proposes its own (a new confirmation).
        let again = keys.claim("fp", Some("other".into()), "o").await.unwrap();
        assert_eq!(again, first);
        keys.settle("fp", &again, Outcome::Ran).await;
        // A deliberate repeat after the known outcome is a new call.
        let repeat = keys.claim("fp", None, "o").await.unwrap();
        assert_ne!(repeat, first);
        keys.settle("fp", &repeat, Outcome::Failed).await;
        assert_eq!(keys.claim("fp", Some("c".into()), "o").await.unwrap(), "c");
    }
}

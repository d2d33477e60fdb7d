//! The idempotency key of a write — its one home.
//!
//! A call that writes (a tool with an HTTP binding that is not read-only) carries an
//! `Idempotency-Key` upstream. The key is derived, not drawn: `H("kobana-mcp/key" ‖ fingerprint ‖
//! generation)`, where the fingerprint is the call (tool, canonical arguments, person,
//! organization, workspace) and the generation is kept in the ledger under `call:<fingerprint>`
//! for the window (24 h by default; absent → 0):
//! - unknown outcome (timeout, reset, 5xx after sending): the generation stays, so re-running the
//!   same call sends the same key and the upstream answers the first result instead of running
//!   twice — also after the ledger lost its records (`kill -9` of a memory ledger, a flushed
//!   Redis), because the key is recomputed from the call, never looked up;
//! - known outcome (an answer, or an error that says nothing changed): the generation advances
//!   for the window, so a deliberate repeat gets a new key and runs again;
//! - a confirmed call uses the same key: the confirmation gates whether it runs, the key which
//!   upstream run it is, so a replayed or re-asked confirmation after ledger loss cannot run twice.
//!
//! After ledger loss the generation falls back to 0, so a deliberate repeat within the upstream's
//! window is answered with the first result. The upstream marks such an answer
//! (`Idempotent-Replayed: true`); the backend says so in the tool result and the engine advances
//! the generation ([`Outcome::Replayed`]), so calling again runs anew.
//!
//! While the ledger cannot record (Redis stopped, a full memory ledger), a write that needs no
//! confirmation still runs, with the key of generation 0 ([`Claimed::during_outage`]): the rule
//! and what a repeat gets are on that function.

use std::sync::Arc;
use std::time::Duration;

use runtime_model::catalog::{Binding, Product, Tool};
use runtime_model::identity::Identity;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::ledger::{Ledger, LedgerError};
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
    /// The upstream answered the stored result of an earlier run with the same key: nothing new
    /// ran. Known, so the generation advances and calling again runs anew.
    Replayed,
}

impl Outcome {
    /// The outcome of a backend result.
    pub fn of(
        r: &Result<runtime_model::backend::Output, runtime_model::backend::BackendError>,
    ) -> Self {
        match r {
            Ok(runtime_model::backend::Output::Replayed(_)) => Outcome::Replayed,
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
            Outcome::Replayed => "replayed",
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

/// The key of the call with this fingerprint in this generation.
pub fn call_key(fingerprint: &str, generation: u64) -> String {
    let mut h = Sha256::new();
    h.update(b"kobana-mcp/key\0");
    h.update(fingerprint.as_bytes());
    h.update([0u8]);
    h.update(generation.to_string().as_bytes());
    hex::encode(h.finalize())
}

/// A claimed key, and the ledger value it was derived from (to settle it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    /// The key to send.
    pub key: String,
    /// The generation the key belongs to.
    pub generation: u64,
    /// The ledger record's value when claimed; `None`: the ledger could not be reached, nothing
    /// was recorded ([`Claimed::during_outage`]).
    seen: Option<String>,
}

impl Claimed {
    /// The key of a write that needs no confirmation, claimed while the ledger cannot record.
    ///
    /// The product documents' rule: only a destructive tool asks for a confirmation, and only a
    /// 2026-07-28 client that declares form elicitation can give one; that confirmation is
    /// single use, so when the server cannot record it, the call is refused with
    /// `confirmation_unavailable` and nothing changes (finance, dashboards, inbox). Everything
    /// else keeps working: reads and ordinary writes in every product, and in banking and
    /// billing a destructive tool called by a 2025 client (or one without form elicitation)
    /// runs directly, its confirmation left to the client. The ledger is needed only for the
    /// confirmation, so an outage refuses only that; the gate decides which calls those are,
    /// and a confirmed call whose key cannot be recorded is still refused.
    ///
    /// What still holds without the ledger: the key is that of generation 0, derived from the
    /// call alone, so a retry of the same call (same tool, arguments, person, organization,
    /// workspace) during the outage, or after it when the ledger holds no later generation,
    /// sends the same key and the API, or the embedded sandbox's kept answers, answer the first
    /// result instead of running it twice. The price: a deliberate repeat during the outage is a
    /// retry too. While the API or the sandbox keeps that key (the idempotency window) it gets
    /// the first answer, marked as replayed (nothing new ran); once the ledger is back the
    /// repeat gets its ledger generation's key (a ledger that never saw the call answers that
    /// replay once more, which advances it), and with any argument changed it is another call.
    /// Nothing is recorded, so settling such a claim changes nothing ([`CallKeys::settle`]).
    pub fn during_outage(fingerprint: &str) -> Self {
        Self {
            key: call_key(fingerprint, 0),
            generation: 0,
            seen: None,
        }
    }
}

/// Whether a ledger error means the ledger cannot record at all (down, or a full memory ledger),
/// as opposed to one caller being over its quota (refused whatever the call).
pub fn ledger_is_down(e: &LedgerError) -> bool {
    matches!(e, LedgerError::Unavailable(_) | LedgerError::Full)
}

fn seen_generation(claimed: &Claimed) -> Option<u64> {
    claimed.seen.as_deref().and_then(|s| s.parse().ok())
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

    /// How long a generation is kept.
    pub fn window(&self) -> Duration {
        self.window
    }

    /// The call's current generation, read only: what a confirmation question seals, so the
    /// confirmed run sends the key of the generation the person saw (see [`CallKeys::claim`]).
    /// `None` for a record of an earlier version (a key, not a generation).
    pub async fn generation(&self, fingerprint: &str) -> Result<Option<u64>, LedgerError> {
        let record = format!("{CALL_PREFIX}{fingerprint}");
        Ok(match self.ledger.get(&record).await? {
            None => Some(0),
            Some(v) => v.parse().ok(),
        })
    }

    /// The key to send for the call with this fingerprint: that of `sealed` (the generation a
    /// confirmation question was asked in) when given, else of the call's current generation —
    /// 0 when the ledger holds none, which it then records for the window, charged to `owner`
    /// so in-flight calls count against the caller's quota.
    ///
    /// A sealed generation makes a confirmation's key its own: replaying its `requestState`
    /// after the ledger forgot it was used sends the key of its first run (the upstream answers
    /// that result), and a confirmation re-asked after an unknown outcome whose record was lost
    /// is asked in generation 0 again, the key of that run.
    ///
    /// A record that is not a generation is a key stored by an earlier version of this server
    /// (a random key kept for an unknown outcome): it is sent as is, so the upgrade does not
    /// run that call twice.
    pub async fn claim(
        &self,
        fingerprint: &str,
        owner: &str,
        sealed: Option<u64>,
    ) -> Result<Claimed, LedgerError> {
        let record = format!("{CALL_PREFIX}{fingerprint}");
        let seen = match self
            .ledger
            .put_new(&record, "0", self.window, owner)
            .await?
        {
            None => "0".to_string(),
            Some(earlier) => earlier,
        };
        Ok(match (sealed, seen.parse::<u64>()) {
            (Some(generation), Ok(_)) | (None, Ok(generation)) => Claimed {
                key: call_key(fingerprint, generation),
                generation,
                seen: Some(seen),
            },
            (_, Err(_)) => Claimed {
                key: seen.clone(),
                generation: 0,
                seen: Some(seen),
            },
        })
    }

    /// Settles a call: an unknown outcome keeps the generation (a re-run sends the same key); a
    /// known one advances it for the window (a deliberate repeat gets a new key). Best effort: a
    /// failure is logged, and at worst a deliberate repeat within the window is answered with
    /// the first result — marked as replayed by the upstream, which advances it then.
    ///
    /// The advanced record is not charged to the caller: it exists only after the upstream
    /// answered, so its number is bounded by what the upstream accepts, and charging it would
    /// cap how many distinct writes a person may make in a day.
    pub async fn settle(&self, fingerprint: &str, claimed: &Claimed, outcome: Outcome) {
        // Claimed during an outage: nothing was recorded, so there is nothing to advance.
        let Some(seen) = claimed.seen.as_deref() else {
            return;
        };
        if outcome == Outcome::Unknown {
            return;
        }
        // A confirmation sealed in an older generation than the ledger's leaves it alone: the
        // current generation may hold another run whose outcome is unknown.
        if seen_generation(claimed).is_some_and(|g| g > claimed.generation) {
            return;
        }
        let record = format!("{CALL_PREFIX}{fingerprint}");
        let next = (claimed.generation + 1).to_string();
        let advanced = async {
            self.ledger.remove_if(&record, seen).await?;
            match self.ledger.put_new(&record, &next, self.window, "").await? {
                None => Ok(()),
                // A concurrent claim recorded generation 0 in between: move it on.
                Some(other) if other.parse::<u64>().is_ok_and(|g| g <= claimed.generation) => self
                    .ledger
                    .compare_and_set(&record, &other, &next)
                    .await
                    .map(|_| ()),
                Some(_) => Ok(()),
            }
        };
        if let Err(e) = advanced.await {
            tracing::warn!(error = %e, "could not advance an idempotency key after a known outcome");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::confirm::MemoryLedger;
    use runtime_model::backend::BoxFuture;
    use std::sync::Mutex;
    use test_support::policies::{tool, LENIENT};

    /// A memory ledger that notes the lifetime of each record it is asked to write, and runs
    /// other callers' steps at the one point [`CallKeys::settle`] is not atomic: after it removed
    /// the record it saw, before it records the next generation. Deterministic, unlike a race.
    #[derive(Default)]
    struct Interleaved {
        inner: Arc<MemoryLedger>,
        between: Mutex<Option<BoxFuture<'static, ()>>>,
        ttls: Mutex<Vec<Duration>>,
    }

    impl Interleaved {
        /// Runs `steps` (on the inner ledger) right after the next successful `remove_if`.
        fn then_between(&self, steps: impl std::future::Future<Output = ()> + Send + 'static) {
            *self.between.lock().unwrap() = Some(Box::pin(steps));
        }
    }

    impl Ledger for Interleaved {
        fn put_new<'a>(
            &'a self,
            key: &'a str,
            value: &'a str,
            ttl: Duration,
            owner: &'a str,
        ) -> BoxFuture<'a, Result<Option<String>, LedgerError>> {
            self.ttls.lock().unwrap().push(ttl);
            self.inner.put_new(key, value, ttl, owner)
        }
        fn compare_and_set<'a>(
            &'a self,
            key: &'a str,
            expected: &'a str,
            new: &'a str,
        ) -> BoxFuture<'a, Result<bool, LedgerError>> {
            self.inner.compare_and_set(key, expected, new)
        }
        fn remove_if<'a>(
            &'a self,
            key: &'a str,
            value: &'a str,
        ) -> BoxFuture<'a, Result<bool, LedgerError>> {
            Box::pin(async move {
                let removed = self.inner.remove_if(key, value).await?;
                let between = self.between.lock().unwrap().take();
                if let (true, Some(steps)) = (removed, between) {
                    steps.await;
                }
                Ok(removed)
            })
        }
        fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, LedgerError>> {
            self.inner.get(key)
        }
        fn release<'a>(
            &'a self,
            key: &'a str,
            owner: &'a str,
        ) -> BoxFuture<'a, Result<(), LedgerError>> {
            self.inner.release(key, owner)
        }
    }

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
    async fn unknown_outcomes_keep_the_key_and_known_ones_advance_it() {
        let keys = CallKeys::new(Arc::new(MemoryLedger::new()), DEFAULT_WINDOW);
        let first = keys.claim("fp", "o", None).await.unwrap();
        assert_eq!(first.key, call_key("fp", 0));
        assert_ne!(first.key, call_key("fq", 0), "the key binds the call");
        keys.settle("fp", &first, Outcome::Unknown).await;
        let again = keys.claim("fp", "o", None).await.unwrap();
        assert_eq!(again.key, first.key);
        keys.settle("fp", &again, Outcome::Ran).await;
        // A deliberate repeat after the known outcome is a new call.
        let repeat = keys.claim("fp", "o", None).await.unwrap();
        assert_eq!(repeat.key, call_key("fp", 1));
        keys.settle("fp", &repeat, Outcome::Failed).await;
        let third = keys.claim("fp", "o", None).await.unwrap();
        assert_eq!(third.key, call_key("fp", 2));
        keys.settle("fp", &third, Outcome::Replayed).await;
        assert_eq!(
            keys.claim("fp", "o", None).await.unwrap().key,
            call_key("fp", 3)
        );
    }

    #[tokio::test]
    async fn the_key_of_an_unknown_outcome_survives_the_loss_of_the_ledger() {
        let first = CallKeys::new(Arc::new(MemoryLedger::new()), DEFAULT_WINDOW);
        let k = first.claim("fp", "o", None).await.unwrap();
        first.settle("fp", &k, Outcome::Unknown).await;
        // A new process (kill -9 of a memory ledger, a flushed Redis) computes the same key.
        let fresh = CallKeys::new(Arc::new(MemoryLedger::new()), DEFAULT_WINDOW);
        assert_eq!(fresh.claim("fp", "o", None).await.unwrap().key, k.key);
    }

    #[tokio::test]
    async fn a_sealed_generation_names_the_key_and_advances_only_from_the_current_one() {
        let keys = CallKeys::new(Arc::new(MemoryLedger::new()), DEFAULT_WINDOW);
        assert_eq!(keys.generation("fp").await, Ok(Some(0)));
        let first = keys.claim("fp", "o", Some(0)).await.unwrap();
        keys.settle("fp", &first, Outcome::Ran).await;
        assert_eq!(keys.generation("fp").await, Ok(Some(1)));
        // A confirmation asked in generation 0, run now, sends generation 0's key (the API
        // answers the first result) and leaves generation 1 for the next call.
        let old = keys.claim("fp", "o", Some(0)).await.unwrap();
        assert_eq!(old.key, first.key);
        keys.settle("fp", &old, Outcome::Replayed).await;
        assert_eq!(keys.generation("fp").await, Ok(Some(1)));
        // After ledger loss, a confirmation sealed in generation 1 still sends generation 1's
        // key, and moves the new ledger past it.
        let fresh = CallKeys::new(Arc::new(MemoryLedger::new()), DEFAULT_WINDOW);
        let later = fresh.claim("fp", "o", Some(1)).await.unwrap();
        assert_eq!(later.key, call_key("fp", 1));
        fresh.settle("fp", &later, Outcome::Ran).await;
        assert_eq!(fresh.generation("fp").await, Ok(Some(2)));
    }

    #[tokio::test]
    async fn a_key_stored_by_the_previous_version_is_sent_as_is() {
        let ledger = Arc::new(MemoryLedger::new());
        ledger
            .put_new("call:fp", "legacy-random-key", DEFAULT_WINDOW, "o")
            .await
            .unwrap();
        let keys = CallKeys::new(ledger, DEFAULT_WINDOW);
        let k = keys.claim("fp", "o", None).await.unwrap();
        assert_eq!(k.key, "legacy-random-key");
        keys.settle("fp", &k, Outcome::Ran).await;
        assert_eq!(
            keys.claim("fp", "o", None).await.unwrap().key,
            call_key("fp", 1)
        );
    }

    /// The help and the README promise a 24 h window (86,400 s): every record of a call key
    /// lives that long, and a window below a second is raised to one.
    #[tokio::test]
    async fn call_records_live_for_the_window() {
        let ledger = Arc::new(Interleaved::default());
        let keys = CallKeys::new(ledger.clone(), DEFAULT_WINDOW);
        assert_eq!(keys.window(), Duration::from_secs(86_400));
        let k = keys.claim("fp", "o", None).await.unwrap();
        keys.settle("fp", &k, Outcome::Ran).await;
        let short = CallKeys::new(ledger.clone(), Duration::ZERO);
        assert_eq!(short.window(), Duration::from_secs(1));
        short.claim("fq", "o", None).await.unwrap();
        assert_eq!(
            *ledger.ttls.lock().unwrap(),
            [
                Duration::from_secs(86_400),
                Duration::from_secs(86_400),
                Duration::from_secs(1)
            ]
        );
    }

    /// A confirmation sealed two generations back (the ledger moved on twice since it was asked)
    /// leaves the current generation alone: it may hold a run whose outcome is unknown.
    #[tokio::test]
    async fn a_confirmation_sealed_generations_ago_leaves_the_current_one() {
        let keys = CallKeys::new(Arc::new(MemoryLedger::new()), DEFAULT_WINDOW);
        for _ in 0..2 {
            let k = keys.claim("fp", "o", None).await.unwrap();
            keys.settle("fp", &k, Outcome::Ran).await;
        }
        assert_eq!(keys.generation("fp").await, Ok(Some(2)));
        let old = keys.claim("fp", "o", Some(0)).await.unwrap();
        assert_eq!(old.key, call_key("fp", 0));
        keys.settle("fp", &old, Outcome::Ran).await;
        assert_eq!(keys.generation("fp").await, Ok(Some(2)));
    }

    /// The race settling exists for: another claim of the same call lands between the removal
    /// of the settled record and the recording of the next generation. It recorded generation 0
    /// (it saw no record), the run that settles had that generation: the next one is recorded
    /// all the same, so a deliberate repeat gets a new key.
    #[tokio::test]
    async fn a_claim_between_the_steps_of_settling_is_moved_on() {
        let ledger = Arc::new(Interleaved::default());
        let keys = CallKeys::new(ledger.clone(), DEFAULT_WINDOW);
        let first = keys.claim("fp", "o", None).await.unwrap();
        let other = CallKeys::new(ledger.inner.clone(), DEFAULT_WINDOW);
        let (tx, mut rx) = tokio::sync::oneshot::channel();
        ledger.then_between(async move {
            let _ = tx.send(other.claim("fp", "o", None).await);
        });
        keys.settle("fp", &first, Outcome::Ran).await;
        // Settling ran the other claim in its midst, or never reached that point.
        let between = rx.try_recv().expect("settling removed the record").unwrap();
        assert_eq!(between.key, call_key("fp", 0), "the claim came in between");
        assert_eq!(keys.generation("fp").await, Ok(Some(1)));
    }

    /// The same race where the other claims ran and settled twice in between: the ledger is
    /// past the settling run's next generation, and moving it back would send an old key.
    #[tokio::test]
    async fn runs_settled_between_the_steps_of_settling_are_left_alone() {
        let ledger = Arc::new(Interleaved::default());
        let keys = CallKeys::new(ledger.clone(), DEFAULT_WINDOW);
        let first = keys.claim("fp", "o", None).await.unwrap();
        let other = CallKeys::new(ledger.inner.clone(), DEFAULT_WINDOW);
        ledger.then_between(async move {
            for _ in 0..2 {
                let k = other.claim("fp", "o", None).await.unwrap();
                other.settle("fp", &k, Outcome::Ran).await;
            }
        });
        keys.settle("fp", &first, Outcome::Ran).await;
        assert_eq!(keys.generation("fp").await, Ok(Some(2)));
    }
}

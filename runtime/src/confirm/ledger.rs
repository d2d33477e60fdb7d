//! The confirmation ledger: makes a confirmation single-use.
//!
//! A sealed `requestState` proves *what* was confirmed and *by whom*, but a client can send it
//! again (a retry after a timeout, a replay). Before a confirmed tool runs, its state's nonce is
//! recorded here atomically; only the first recording runs the tool. Entries expire with the
//! confirmation (after that the state itself is refused as expired), so the ledger stays small.
//!
//! Two implementations behind [`Ledger`], passing the same test suite:
//! - [`MemoryLedger`]: one process (the default);
//! - [`super::RedisLedger`]: several server instances sharing one Redis (`SET key 1 NX EX ttl`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use runtime_model::backend::BoxFuture;

/// Why the ledger could not record. The caller must then run nothing
/// (`confirmation_unavailable`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LedgerError {
    /// The ledger is full of live entries (memory) — refusing is safer than forgetting one.
    #[error("the confirmation ledger is full")]
    Full,
    /// The ledger's store did not answer, or answered an error.
    #[error("the confirmation ledger is unavailable: {0}")]
    Unavailable(String),
}

/// Records single-use keys.
pub trait Ledger: Send + Sync + 'static {
    /// Records `key` for `ttl`. `Ok(true)` the first time, `Ok(false)` while a previous record of
    /// the same key lives. Atomic: of concurrent calls with one key, exactly one gets `true`.
    fn record_once<'a>(
        &'a self,
        key: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, LedgerError>>;
}

/// Default bound of [`MemoryLedger`].
pub const DEFAULT_MEMORY_CAPACITY: usize = 100_000;

/// An in-process ledger with expiring entries.
pub struct MemoryLedger {
    entries: Mutex<HashMap<String, Instant>>,
    capacity: usize,
}

impl Default for MemoryLedger {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_MEMORY_CAPACITY)
    }
}

impl MemoryLedger {
    pub fn new() -> Self {
        Self::default()
    }

    /// A ledger holding at most `capacity` live entries; beyond that it answers
    /// [`LedgerError::Full`] rather than evicting a live entry (which would re-enable a replay).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            capacity,
        }
    }

    fn record(&self, key: &str, ttl: Duration) -> Result<bool, LedgerError> {
        let now = Instant::now();
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(expires) = entries.get(key) {
            if *expires > now {
                return Ok(false);
            }
        }
        if entries.len() >= self.capacity && !entries.contains_key(key) {
            entries.retain(|_, expires| *expires > now);
            if entries.len() >= self.capacity {
                return Err(LedgerError::Full);
            }
        }
        entries.insert(key.to_string(), now + ttl);
        Ok(true)
    }
}

impl Ledger for MemoryLedger {
    fn record_once<'a>(
        &'a self,
        key: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        let result = self.record(key, ttl);
        Box::pin(async move { result })
    }
}

impl<L: Ledger + ?Sized> Ledger for std::sync::Arc<L> {
    fn record_once<'a>(
        &'a self,
        key: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        (**self).record_once(key, ttl)
    }
}

/// A ledger that always fails: for tests of `confirmation_unavailable`, and as what a server uses
/// when its configured ledger could not be set up and it must not run destructive tools.
pub struct FailingLedger(pub String);

impl Ledger for FailingLedger {
    fn record_once<'a>(
        &'a self,
        _key: &'a str,
        _ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        let e = LedgerError::Unavailable(self.0.clone());
        Box::pin(async move { Err(e) })
    }
}

/// The shared behaviour every ledger must have; run against each implementation.
#[cfg(test)]
pub(crate) mod suite {
    use super::*;
    use std::sync::Arc;

    fn unique(prefix: &str) -> String {
        format!(
            "test:{prefix}:{}",
            crate::state::new_nonce().expect("randomness")
        )
    }

    pub async fn first_use_then_replay(l: &dyn Ledger) {
        let k = unique("first");
        assert_eq!(l.record_once(&k, Duration::from_secs(30)).await, Ok(true));
        assert_eq!(l.record_once(&k, Duration::from_secs(30)).await, Ok(false));
        assert_eq!(l.record_once(&k, Duration::from_secs(30)).await, Ok(false));
        let other = unique("other");
        assert_eq!(
            l.record_once(&other, Duration::from_secs(30)).await,
            Ok(true)
        );
    }

    pub async fn entries_expire(l: &dyn Ledger) {
        let k = unique("expire");
        assert_eq!(l.record_once(&k, Duration::from_secs(1)).await, Ok(true));
        assert_eq!(l.record_once(&k, Duration::from_secs(1)).await, Ok(false));
        tokio::time::sleep(Duration::from_millis(2100)).await;
        assert_eq!(l.record_once(&k, Duration::from_secs(1)).await, Ok(true));
    }

    pub async fn concurrent_recordings_admit_exactly_one(l: Arc<dyn Ledger>) {
        let k = Arc::new(unique("race"));
        let mut tasks = Vec::new();
        for _ in 0..16 {
            let l = l.clone();
            let k = k.clone();
            tasks.push(tokio::spawn(async move {
                l.record_once(&k, Duration::from_secs(30)).await
            }));
        }
        let mut firsts = 0;
        for t in tasks {
            if t.await.unwrap().unwrap() {
                firsts += 1;
            }
        }
        assert_eq!(firsts, 1);
    }

    pub async fn run_all(l: Arc<dyn Ledger>) {
        first_use_then_replay(&*l).await;
        entries_expire(&*l).await;
        concurrent_recordings_admit_exactly_one(l).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[tokio::test]
    async fn memory_ledger_passes_the_suite() {
        suite::run_all(Arc::new(MemoryLedger::new())).await;
    }

    #[tokio::test]
    async fn a_full_memory_ledger_refuses_rather_than_forgets() {
        let l = MemoryLedger::with_capacity(2);
        assert_eq!(l.record_once("a", Duration::from_secs(30)).await, Ok(true));
        assert_eq!(l.record_once("b", Duration::from_secs(30)).await, Ok(true));
        assert_eq!(
            l.record_once("c", Duration::from_secs(30)).await,
            Err(LedgerError::Full)
        );
        // Still answers replays of what it holds.
        assert_eq!(l.record_once("a", Duration::from_secs(30)).await, Ok(false));
        // Expired entries make room.
        let l = MemoryLedger::with_capacity(1);
        assert_eq!(
            l.record_once("a", Duration::from_millis(10)).await,
            Ok(true)
        );
        tokio::time::sleep(Duration::from_millis(30)).await;
        assert_eq!(l.record_once("b", Duration::from_secs(30)).await, Ok(true));
    }

    #[tokio::test]
    async fn the_failing_ledger_fails() {
        let l = FailingLedger("down".into());
        assert!(matches!(
            l.record_once("a", Duration::from_secs(1)).await,
            Err(LedgerError::Unavailable(m)) if m == "down"
        ));
    }
}

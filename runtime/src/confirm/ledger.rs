//! The confirmation ledger: a small store of expiring records, shared by the server instances.
//!
//! It holds two kinds of records (see [`super::idempotency`] and [`super::Confirmer`]):
//! - a confirmation's nonce → where its single use stands (`reserved:…`, `running`, then the
//!   outcome), so a replayed `requestState` never runs twice and its answer says what happened;
//! - a call's fingerprint → the idempotency key of that call while its outcome is unknown, so a
//!   re-run reuses the key and the upstream answers the first result instead of running again.
//!
//! Every record is charged to an owner (the caller: person and organization). One owner may hold
//! at most a quota of live records, so one caller flooding confirmations cannot fill the store
//! for everyone ([`LedgerError::QuotaExceeded`]); the memory ledger also keeps a global cap as a
//! last resort ([`LedgerError::Full`]). Owner `""` is not charged (tests, internal records).
//!
//! Two implementations behind [`Ledger`], passing the same test suite:
//! - [`MemoryLedger`]: one process (the default);
//! - [`super::RedisLedger`]: several server instances sharing one Redis (atomic Lua scripts).

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use runtime_model::backend::BoxFuture;

/// Why the ledger could not record. The caller must then run nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LedgerError {
    /// The ledger is full of live entries (memory) — refusing is safer than forgetting one.
    #[error("the confirmation ledger is full")]
    Full,
    /// This owner holds its quota of live records; others are not affected.
    #[error("this caller holds {0} pending confirmations or calls, the most allowed at once")]
    QuotaExceeded(usize),
    /// The ledger's store did not answer, or answered an error.
    #[error("the confirmation ledger is unavailable: {0}")]
    Unavailable(String),
}

/// Default number of live records one owner may hold.
pub const DEFAULT_OWNER_QUOTA: usize = 1_000;

/// An atomic store of expiring string records.
pub trait Ledger: Send + Sync + 'static {
    /// Records `key` = `value` for `ttl`, charged to `owner`, unless a live record of `key`
    /// exists. `Ok(None)`: recorded; `Ok(Some(v))`: the live record's value, nothing changed.
    /// Atomic: of concurrent calls with one key, exactly one gets `Ok(None)`.
    fn put_new<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
        ttl: Duration,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, LedgerError>>;

    /// Sets a live record from `expected` to `new`, keeping its expiry. `Ok(false)` when the
    /// record is gone or holds another value. Atomic.
    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: &'a str,
        new: &'a str,
    ) -> BoxFuture<'a, Result<bool, LedgerError>>;

    /// Removes the record when it holds `value`. `Ok(false)` when it did not. Atomic.
    fn remove_if<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
    ) -> BoxFuture<'a, Result<bool, LedgerError>>;

    /// The value of a live record of `key`, if any. Reads only.
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, LedgerError>>;

    /// Stops charging the record `key` to `owner`'s quota (it lives on until it expires): for a
    /// record that is kept to be read but no longer holds work, a finished task. Nothing
    /// happens when the record is gone or charged to someone else. Required (no default): a
    /// wrapper that forgot to pass it on would keep every finished task charged.
    fn release<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<(), LedgerError>>;

    /// Records `key` for `ttl`. `Ok(true)` the first time, `Ok(false)` while a previous record of
    /// the same key lives.
    fn record_once<'a>(
        &'a self,
        key: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        Box::pin(async move { self.put_new(key, "1", ttl, "").await.map(|v| v.is_none()) })
    }
}

/// The ledger key the readiness probe reads (never written).
const PROBE_KEY: &str = "kobana-mcp:readiness-probe";

/// The readiness probe of a ledger: it answers a read (memory: always; Redis: when reachable).
pub fn readiness_probe(
    ledger: std::sync::Arc<dyn Ledger>,
    what: impl Into<String>,
) -> crate::telemetry::health::Probe {
    let what = what.into();
    crate::telemetry::health::Probe::new("ledger", move || {
        let (ledger, what) = (ledger.clone(), what.clone());
        async move {
            ledger
                .get(PROBE_KEY)
                .await
                .map(|_| format!("{what} answers"))
                .map_err(|e| format!("{what}: {e}"))
        }
    })
}

/// Default global bound of [`MemoryLedger`].
pub const DEFAULT_MEMORY_CAPACITY: usize = 100_000;

struct Entry {
    value: String,
    expires: Instant,
    owner: String,
}

#[derive(Default)]
struct Entries {
    map: HashMap<String, Entry>,
    /// The keys of each owner's records, expired ones included until purged (owner `""` is
    /// not counted). A caller at its quota purges only its own records: O(quota), not O(n).
    owners: HashMap<String, HashSet<String>>,
}

impl Entries {
    fn remove(&mut self, key: &str) {
        let Some(e) = self.map.remove(key) else {
            return;
        };
        if let Some(keys) = self.owners.get_mut(&e.owner) {
            keys.remove(key);
            if keys.is_empty() {
                self.owners.remove(&e.owner);
            }
        }
    }

    fn held(&self, owner: &str) -> usize {
        self.owners.get(owner).map_or(0, HashSet::len)
    }

    fn expired_of<'a>(&self, keys: impl Iterator<Item = &'a String>, now: Instant) -> Vec<String> {
        keys.filter(|k| self.map.get(*k).is_none_or(|e| e.expires <= now))
            .cloned()
            .collect()
    }

    fn purge_owner(&mut self, owner: &str, now: Instant) {
        let expired = match self.owners.get(owner) {
            Some(keys) => self.expired_of(keys.iter(), now),
            None => return,
        };
        for k in expired {
            self.remove(&k);
        }
    }

    fn purge(&mut self, now: Instant) {
        let expired = self.expired_of(self.map.keys(), now);
        for k in expired {
            self.remove(&k);
        }
    }

    fn live(&self, key: &str, now: Instant) -> Option<&Entry> {
        self.map.get(key).filter(|e| e.expires > now)
    }
}

/// An in-process ledger with expiring entries.
pub struct MemoryLedger {
    entries: Mutex<Entries>,
    capacity: usize,
    owner_quota: usize,
}

impl Default for MemoryLedger {
    fn default() -> Self {
        Self::with_limits(DEFAULT_MEMORY_CAPACITY, DEFAULT_OWNER_QUOTA)
    }
}

impl MemoryLedger {
    pub fn new() -> Self {
        Self::default()
    }

    /// A ledger holding at most `capacity` live entries; beyond that it answers
    /// [`LedgerError::Full`] rather than evicting a live entry (which would re-enable a replay).
    pub fn with_capacity(capacity: usize) -> Self {
        Self::with_limits(capacity, DEFAULT_OWNER_QUOTA)
    }

    /// A ledger with a global cap and a per-owner quota.
    pub fn with_limits(capacity: usize, owner_quota: usize) -> Self {
        Self {
            entries: Mutex::new(Entries::default()),
            capacity,
            owner_quota,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn put(
        &self,
        key: &str,
        value: &str,
        ttl: Duration,
        owner: &str,
    ) -> Result<Option<String>, LedgerError> {
        let now = Instant::now();
        let mut entries = self.lock();
        if let Some(e) = entries.live(key, now) {
            return Ok(Some(e.value.clone()));
        }
        entries.remove(key);
        if !owner.is_empty() && entries.held(owner) >= self.owner_quota {
            entries.purge_owner(owner, now);
            if entries.held(owner) >= self.owner_quota {
                return Err(LedgerError::QuotaExceeded(self.owner_quota));
            }
        }
        if entries.map.len() >= self.capacity {
            entries.purge(now);
            if entries.map.len() >= self.capacity {
                return Err(LedgerError::Full);
            }
        }
        if !owner.is_empty() {
            entries
                .owners
                .entry(owner.to_string())
                .or_default()
                .insert(key.to_string());
        }
        entries.map.insert(
            key.to_string(),
            Entry {
                value: value.to_string(),
                expires: now + ttl,
                owner: owner.to_string(),
            },
        );
        Ok(None)
    }

    fn cas(&self, key: &str, expected: &str, new: &str) -> bool {
        let now = Instant::now();
        let mut entries = self.lock();
        match entries.map.get_mut(key) {
            Some(e) if e.expires > now && e.value == expected => {
                e.value = new.to_string();
                true
            }
            _ => false,
        }
    }

    fn release_now(&self, key: &str, owner: &str) {
        let mut entries = self.lock();
        let charged = entries
            .map
            .get(key)
            .is_some_and(|e| !owner.is_empty() && e.owner == owner);
        if !charged {
            return;
        }
        if let Some(e) = entries.map.get_mut(key) {
            e.owner.clear();
        }
        if let Some(keys) = entries.owners.get_mut(owner) {
            keys.remove(key);
            if keys.is_empty() {
                entries.owners.remove(owner);
            }
        }
    }

    fn remove_when(&self, key: &str, value: &str) -> bool {
        let now = Instant::now();
        let mut entries = self.lock();
        let matches = entries.live(key, now).is_some_and(|e| e.value == value);
        if matches {
            entries.remove(key);
        }
        matches
    }
}

impl Ledger for MemoryLedger {
    fn release<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<(), LedgerError>> {
        self.release_now(key, owner);
        Box::pin(async { Ok(()) })
    }
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, LedgerError>> {
        let v = self
            .lock()
            .live(key, Instant::now())
            .map(|e| e.value.clone());
        Box::pin(async move { Ok(v) })
    }
    fn put_new<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
        ttl: Duration,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, LedgerError>> {
        let r = self.put(key, value, ttl, owner);
        Box::pin(async move { r })
    }

    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: &'a str,
        new: &'a str,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        let r = self.cas(key, expected, new);
        Box::pin(async move { Ok(r) })
    }

    fn remove_if<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        let r = self.remove_when(key, value);
        Box::pin(async move { Ok(r) })
    }
}

impl<L: Ledger + ?Sized> Ledger for std::sync::Arc<L> {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, LedgerError>> {
        (**self).get(key)
    }
    fn put_new<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
        ttl: Duration,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, LedgerError>> {
        (**self).put_new(key, value, ttl, owner)
    }
    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: &'a str,
        new: &'a str,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        (**self).compare_and_set(key, expected, new)
    }
    fn remove_if<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        (**self).remove_if(key, value)
    }
    fn release<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<(), LedgerError>> {
        (**self).release(key, owner)
    }
}

/// A ledger that always fails: for tests of `confirmation_unavailable`, and as what a server uses
/// when its configured ledger could not be set up and it must not run destructive tools.
pub struct FailingLedger(pub String);

impl FailingLedger {
    fn fail<'a, T: Send + 'a>(&self) -> BoxFuture<'a, Result<T, LedgerError>> {
        let e = LedgerError::Unavailable(self.0.clone());
        Box::pin(async move { Err(e) })
    }
}

impl Ledger for FailingLedger {
    fn release<'a>(
        &'a self,
        _key: &'a str,
        _owner: &'a str,
    ) -> BoxFuture<'a, Result<(), LedgerError>> {
        self.fail()
    }
    fn get<'a>(&'a self, _key: &'a str) -> BoxFuture<'a, Result<Option<String>, LedgerError>> {
        self.fail()
    }
    fn put_new<'a>(
        &'a self,
        _key: &'a str,
        _value: &'a str,
        _ttl: Duration,
        _owner: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, LedgerError>> {
        self.fail()
    }
    fn compare_and_set<'a>(
        &'a self,
        _key: &'a str,
        _expected: &'a str,
        _new: &'a str,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        self.fail()
    }
    fn remove_if<'a>(
        &'a self,
        _key: &'a str,
        _value: &'a str,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        self.fail()
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

    pub async fn values_compare_and_remove(l: &dyn Ledger) {
        let k = unique("values");
        let ttl = Duration::from_secs(30);
        assert_eq!(l.get(&k).await, Ok(None));
        assert_eq!(l.put_new(&k, "a", ttl, "").await, Ok(None));
        assert_eq!(l.get(&k).await, Ok(Some("a".into())));
        assert_eq!(l.put_new(&k, "b", ttl, "").await, Ok(Some("a".into())));
        assert_eq!(l.compare_and_set(&k, "b", "c").await, Ok(false));
        assert_eq!(l.compare_and_set(&k, "a", "c").await, Ok(true));
        assert_eq!(l.put_new(&k, "d", ttl, "").await, Ok(Some("c".into())));
        assert_eq!(l.remove_if(&k, "a").await, Ok(false));
        assert_eq!(l.remove_if(&k, "c").await, Ok(true));
        assert_eq!(l.get(&k).await, Ok(None));
        assert_eq!(l.compare_and_set(&k, "c", "e").await, Ok(false));
        assert_eq!(l.put_new(&k, "f", ttl, "").await, Ok(None));
    }

    pub async fn owners_have_a_quota(l: &dyn Ledger, quota: usize) {
        let flooder = unique("flooder");
        let other = unique("other-owner");
        let ttl = Duration::from_secs(30);
        let mut flooded = Vec::new();
        for i in 0..quota {
            let k = unique(&format!("flood{i}"));
            assert_eq!(l.put_new(&k, "x", ttl, &flooder).await, Ok(None));
            flooded.push(k);
        }
        let k = unique("flood-over");
        assert_eq!(
            l.put_new(&k, "x", ttl, &flooder).await,
            Err(LedgerError::QuotaExceeded(quota))
        );
        let k = unique("other");
        assert_eq!(l.put_new(&k, "x", ttl, &other).await, Ok(None));
        // Removing one of the flooder's records gives its room back.
        assert_eq!(l.remove_if(&k, "x").await, Ok(true));
        // Releasing one of the flooder's records gives its room back too, and the record stays
        // readable; releasing it for another owner does nothing.
        let k = unique("flood-again");
        assert_eq!(l.release(&flooded[0], &other).await, Ok(()));
        assert_eq!(
            l.put_new(&k, "x", ttl, &flooder).await,
            Err(LedgerError::QuotaExceeded(quota))
        );
        assert_eq!(l.release(&flooded[0], &flooder).await, Ok(()));
        assert_eq!(l.get(&flooded[0]).await, Ok(Some("x".into())));
        assert_eq!(l.put_new(&k, "x", ttl, &flooder).await, Ok(None));
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
        values_compare_and_remove(&*l).await;
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
        suite::owners_have_a_quota(&MemoryLedger::with_limits(100, 5), 5).await;
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
    async fn expired_records_give_an_owner_its_room_back() {
        let l = MemoryLedger::with_limits(100, 1);
        let short = Duration::from_millis(10);
        assert_eq!(l.put_new("a", "x", short, "o").await, Ok(None));
        assert_eq!(
            l.put_new("b", "x", short, "o").await,
            Err(LedgerError::QuotaExceeded(1))
        );
        tokio::time::sleep(Duration::from_millis(30)).await;
        assert_eq!(l.put_new("b", "x", short, "o").await, Ok(None));
    }

    /// Owner `""` is never charged, whatever the quota (records the server keeps for itself).
    #[tokio::test]
    async fn the_uncharged_owner_has_no_quota() {
        let l = MemoryLedger::with_limits(10, 0);
        let ttl = Duration::from_secs(30);
        assert_eq!(l.put_new("a", "x", ttl, "").await, Ok(None));
        assert_eq!(
            l.put_new("b", "x", ttl, "o").await,
            Err(LedgerError::QuotaExceeded(0))
        );
    }

    /// A release by someone the record is not charged to changes nothing: the record stays
    /// charged to its owner until it expires, and then gives the owner its room back.
    #[tokio::test]
    async fn a_release_by_another_owner_leaves_the_charge_alone() {
        let l = MemoryLedger::with_limits(100, 1);
        let short = Duration::from_millis(10);
        assert_eq!(l.put_new("a", "x", short, "o").await, Ok(None));
        assert_eq!(l.release("a", "someone-else").await, Ok(()));
        assert_eq!(
            l.put_new("b", "x", short, "o").await,
            Err(LedgerError::QuotaExceeded(1))
        );
        tokio::time::sleep(Duration::from_millis(30)).await;
        assert_eq!(l.put_new("b", "x", short, "o").await, Ok(None));
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

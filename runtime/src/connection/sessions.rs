//! The 2025 sessions of an HTTP server (stdio's one session is the process's, kept by its loop).
//!
//! A session belongs to the product whose endpoint opened it and to the identity (person in an
//! organization) that opened it: another product's endpoint, or another identity presenting its
//! id, finds no such session (404), so cannot use or end it. Its id is 16 random bytes in hex
//! (visible ASCII, as `Mcp-Session-Id` requires).
//!
//! Bounded ([`SessionLimits`]): a session unused for the idle time ends; one identity holds at
//! most `per_identity` sessions (opening one more ends its least recently used one, so a flood of
//! `initialize` costs only the flooder's own sessions); all together at most `max` (then 503).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use tokio::sync::mpsc;

use crate::contract::call::Session;
use crate::contract::RpcError;

/// The session a message names, as its transport found it.
pub enum SessionRef {
    /// The message names no session (stdio before `initialize`, HTTP without `Mcp-Session-Id`).
    None,
    Found(Arc<Session>),
    /// It names a session that ended, never existed, or is another identity's (HTTP 404:
    /// initialize again).
    Unknown,
}

/// How many sessions, and for how long.
#[derive(Debug, Clone, Copy)]
pub struct SessionLimits {
    /// All identities together; past it `initialize` gets 503.
    pub max: usize,
    /// One identity; past it its least recently used session ends.
    pub per_identity: usize,
    /// Unused for this long, a session ends.
    pub idle: Duration,
}

/// Open sessions, shared by every endpoint of one server.
pub struct SessionTable {
    limits: SessionLimits,
    inner: Mutex<Inner>,
    clock: Clock,
}

/// The time the table reads: the system's, or (in tests) one the test moves, so idle times and
/// sweeps are tested at exact instants rather than by sleeping.
enum Clock {
    System,
    #[cfg(test)]
    Manual(Arc<Mutex<Instant>>),
}

impl Clock {
    fn now(&self) -> Instant {
        match self {
            Clock::System => Instant::now(),
            #[cfg(test)]
            Clock::Manual(now) => *now.lock().unwrap_or_else(|e| e.into_inner()),
        }
    }
}

struct Inner {
    map: HashMap<String, Entry>,
    last_sweep: Instant,
}

struct Entry {
    product: &'static str,
    /// Who opened it ([`super::Caller::owner`]).
    owner: Arc<str>,
    last_used: Instant,
    session: Arc<Session>,
    /// The open GET stream, if any (dropped, so closed, when the session ends).
    stream: Option<mpsc::Sender<Bytes>>,
}

impl Entry {
    fn is(&self, product: &str, owner: &str) -> bool {
        self.product == product && &*self.owner == owner
    }

    /// Whether it has been unused for the idle time (at `now`): then it has ended.
    fn expired(&self, now: Instant, idle: Duration) -> bool {
        now.duration_since(self.last_used) >= idle
    }
}

/// Why a session could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// `max` sessions are open already.
    Full,
    /// The server cannot make an id or keep the table.
    Fault(RpcError),
}

impl SessionTable {
    pub fn new(limits: SessionLimits) -> Self {
        Self::with_clock(limits, Clock::System)
    }

    fn with_clock(limits: SessionLimits, clock: Clock) -> Self {
        Self {
            limits,
            inner: Mutex::new(Inner {
                map: HashMap::new(),
                last_sweep: clock.now(),
            }),
            clock,
        }
    }

    /// The session a message names (`None` when it names none), for `owner` on `product`'s
    /// endpoint; using it makes it recent.
    pub fn lookup(&self, id: Option<&str>, product: &str, owner: &str) -> SessionRef {
        let Some(id) = id else {
            return SessionRef::None;
        };
        let Ok(mut inner) = self.inner.lock() else {
            return SessionRef::Unknown;
        };
        let idle = self.limits.idle;
        let now = self.clock.now();
        match inner.map.get_mut(id) {
            Some(e) if e.expired(now, idle) => {
                inner.map.remove(id);
                SessionRef::Unknown
            }
            Some(e) if e.is(product, owner) => {
                e.last_used = now;
                SessionRef::Found(e.session.clone())
            }
            _ => SessionRef::Unknown,
        }
    }

    /// Opens a session of `product` for `owner`, built by `make` from its new id.
    pub fn open(
        &self,
        product: &'static str,
        owner: &str,
        make: impl FnOnce(String) -> Arc<Session>,
    ) -> Result<String, OpenError> {
        let id = crate::state::random_bytes(16)
            .map(hex::encode)
            .map_err(|e| OpenError::Fault(RpcError::internal(format!("no randomness: {e}"))))?;
        let mut inner = self
            .inner
            .lock()
            .map_err(|_| OpenError::Fault(RpcError::internal("session table poisoned")))?;
        let now = self.clock.now();
        let idle = self.limits.idle;
        // Expired sessions go at most four times per idle period, or when the table is full.
        if inner.map.len() >= self.limits.max || now.duration_since(inner.last_sweep) >= idle / 4 {
            inner.map.retain(|_, e| !e.expired(now, idle));
            inner.last_sweep = now;
        }
        let mut own = 0;
        let mut oldest: Option<(&String, Instant)> = None;
        for (k, e) in &inner.map {
            if &*e.owner == owner {
                own += 1;
                if oldest.is_none_or(|(_, t)| e.last_used < t) {
                    oldest = Some((k, e.last_used));
                }
            }
        }
        if own >= self.limits.per_identity {
            if let Some(k) = oldest.map(|(k, _)| k.clone()) {
                inner.map.remove(&k);
            }
        }
        if inner.map.len() >= self.limits.max {
            return Err(OpenError::Full);
        }
        let session = make(id.clone());
        inner.map.insert(
            id.clone(),
            Entry {
                product,
                owner: owner.into(),
                last_used: now,
                session,
                stream: None,
            },
        );
        Ok(id)
    }

    /// Keeps `stream` open as long as the session lives; false when `owner` has no such session.
    pub fn attach_stream(
        &self,
        id: &str,
        product: &str,
        owner: &str,
        stream: mpsc::Sender<Bytes>,
    ) -> bool {
        if !matches!(self.lookup(Some(id), product, owner), SessionRef::Found(_)) {
            return false;
        }
        let Ok(mut inner) = self.inner.lock() else {
            return false;
        };
        match inner.map.get_mut(id).filter(|e| e.is(product, owner)) {
            Some(entry) => {
                entry.stream = Some(stream);
                true
            }
            None => false,
        }
    }

    /// Ends `owner`'s session; false when `owner` has no such session (another identity's
    /// session is left alone).
    pub fn close(&self, id: &str, product: &str, owner: &str) -> bool {
        if !matches!(self.lookup(Some(id), product, owner), SessionRef::Found(_)) {
            return false;
        }
        self.inner
            .lock()
            .ok()
            .and_then(|mut inner| inner.map.remove(id))
            .is_some()
    }

    /// How many sessions are open (expired ones not yet swept included).
    pub fn len(&self) -> usize {
        self.inner.lock().map_or(0, |i| i.map.len())
    }

    /// Whether no session is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Ends every session (server shutdown: open GET streams close).
    pub fn close_all(&self) {
        if let Ok(mut inner) = self.inner.lock() {
            inner.map.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A table whose clock the test moves (`tick`), starting at `now`.
    struct Timed {
        table: SessionTable,
        now: Arc<Mutex<Instant>>,
    }

    impl Timed {
        fn new(max: usize, per_identity: usize, idle: Duration) -> Self {
            let now = Arc::new(Mutex::new(Instant::now()));
            let limits = SessionLimits {
                max,
                per_identity,
                idle,
            };
            Timed {
                table: SessionTable::with_clock(limits, Clock::Manual(now.clone())),
                now,
            }
        }
        fn tick(&self, by: Duration) {
            *self.now.lock().unwrap() += by;
        }
    }

    impl std::ops::Deref for Timed {
        type Target = SessionTable;
        fn deref(&self) -> &SessionTable {
            &self.table
        }
    }

    fn table(max: usize, per_identity: usize, idle: Duration) -> Timed {
        Timed::new(max, per_identity, idle)
    }

    fn try_open(t: &SessionTable, owner: &str) -> Result<String, OpenError> {
        t.open("p", owner, |id| {
            Arc::new(Session::new(id, "2025-06-18", json!({})))
        })
    }

    fn open(t: &SessionTable, owner: &str) -> String {
        try_open(t, owner).unwrap()
    }

    fn found(t: &SessionTable, id: &str, owner: &str) -> bool {
        matches!(t.lookup(Some(id), "p", owner), SessionRef::Found(_))
    }

    /// Finding 7: a session presented by another identity is not found and cannot be ended.
    #[test]
    fn a_session_belongs_to_the_identity_that_opened_it() {
        let t = table(10, 10, Duration::from_secs(60));
        let id = open(&t, "alice");
        assert!(matches!(
            t.lookup(Some(&id), "p", "mallory"),
            SessionRef::Unknown
        ));
        assert!(!t.close(&id, "p", "mallory"));
        let (tx, _rx) = mpsc::channel(1);
        assert!(!t.attach_stream(&id, "p", "mallory", tx));
        assert!(found(&t, &id, "alice"));
        assert!(t.close(&id, "p", "alice"));
        assert!(!found(&t, &id, "alice"), "ended");
        assert!(!t.close(&id, "p", "alice"), "already ended");
    }

    /// A session belongs to the product whose endpoint opened it: its owner on another product's
    /// endpoint finds nothing, and cannot end it or attach a stream to it there.
    #[test]
    fn a_session_belongs_to_the_product_that_opened_it() {
        let t = table(10, 10, Duration::from_secs(60));
        let id = open(&t, "alice");
        assert!(matches!(
            t.lookup(Some(&id), "q", "alice"),
            SessionRef::Unknown
        ));
        let (tx, _rx) = mpsc::channel(1);
        assert!(!t.attach_stream(&id, "q", "alice", tx));
        assert!(!t.close(&id, "q", "alice"));
        assert!(found(&t, &id, "alice"));
        assert!(matches!(t.lookup(None, "p", "alice"), SessionRef::None));
    }

    /// A GET stream lives as long as its session: ending the session (or every session, at
    /// shutdown) closes it.
    #[test]
    fn a_session_s_stream_closes_when_the_session_ends() {
        // Closed: its sender is gone (no waiting: an open stream would answer `Empty`).
        let closed = |rx: &mut mpsc::Receiver<Bytes>| {
            matches!(rx.try_recv(), Err(mpsc::error::TryRecvError::Disconnected))
        };
        let t = table(10, 10, Duration::from_secs(60));
        let id = open(&t, "alice");
        let (tx, mut rx) = mpsc::channel(1);
        assert!(t.attach_stream(&id, "p", "alice", tx));
        assert!(t.close(&id, "p", "alice"));
        assert!(closed(&mut rx), "the stream closed with its session");

        let ids = [open(&t, "alice"), open(&t, "bob")];
        let (tx, mut rx) = mpsc::channel(1);
        assert!(t.attach_stream(&ids[1], "p", "bob", tx));
        assert!(!t.is_empty());
        assert_eq!(t.len(), 2);
        t.close_all();
        assert!(t.is_empty());
        assert_eq!(t.len(), 0);
        assert!(closed(&mut rx), "closed at shutdown");
        assert!(!found(&t, &ids[0], "alice") && !found(&t, &ids[1], "bob"));
    }

    /// Finding 7: one identity's flood ends only its own least recently used sessions; others
    /// still open one.
    #[test]
    fn one_identity_is_capped_without_touching_others() {
        let t = table(5, 3, Duration::from_secs(60));
        let bob = open(&t, "bob");
        let first = open(&t, "flood");
        for _ in 0..1000 {
            t.tick(Duration::from_millis(1));
            open(&t, "flood");
        }
        assert_eq!(t.len(), 4);
        assert!(!found(&t, &first, "flood"));
        assert!(found(&t, &bob, "bob"));
        open(&t, "carol");
    }

    /// The session an identity over its cap loses is the one it used least recently, not the
    /// oldest opened (several rounds: the table's order differs from one to the next).
    #[test]
    fn the_least_recently_used_session_is_the_one_that_ends() {
        for _ in 0..20 {
            let t = table(10, 4, Duration::from_secs(60));
            let mut ids = Vec::new();
            for _ in 0..4 {
                ids.push(open(&t, "alice"));
                t.tick(Duration::from_secs(1));
            }
            // Used in the order 0, 2, 3: the second opened is now the least recently used.
            for i in [0, 2, 3] {
                assert!(found(&t, &ids[i], "alice"));
                t.tick(Duration::from_secs(1));
            }
            let fifth = open(&t, "alice");
            assert!(!found(&t, &ids[1], "alice"));
            for id in [&ids[0], &ids[2], &ids[3], &fifth] {
                assert!(found(&t, id, "alice"));
            }
            assert_eq!(t.len(), 4);
        }
    }

    /// Finding 7: a session unused for the idle time ends; using it keeps it; an ended one is
    /// swept from the table at the next open.
    #[test]
    fn idle_sessions_expire() {
        let idle = Duration::from_secs(60);
        let t = table(10, 10, idle);
        let id = open(&t, "alice");
        t.tick(idle - Duration::from_millis(1));
        assert!(
            found(&t, &id, "alice"),
            "used in time: kept, and now recent"
        );
        t.tick(idle - Duration::from_millis(1));
        assert!(found(&t, &id, "alice"));
        t.tick(idle);
        assert!(!found(&t, &id, "alice"), "unused for the idle time");
        let kept = open(&t, "bob");
        t.tick(idle);
        open(&t, "alice");
        assert_eq!(t.len(), 1, "the expired session was swept");
        assert!(!found(&t, &kept, "bob"));
    }

    /// A full table first ends the sessions that expired, even right after a sweep, before it
    /// refuses a new one; a session idle for exactly the idle time has expired.
    #[test]
    fn a_full_table_sweeps_before_refusing() {
        let idle = Duration::from_secs(60);
        let t = table(2, 10, idle);
        open(&t, "a");
        t.tick(Duration::from_secs(50));
        // Swept here (50 s since the last sweep), nothing expired yet.
        open(&t, "b");
        t.tick(Duration::from_secs(10));
        // 10 s since the sweep (less than idle / 4), full, and "a" expired just now.
        let c = open(&t, "c");
        assert_eq!(t.len(), 2);
        assert!(found(&t, &c, "c"));
        // Full of live sessions: refused.
        assert!(matches!(try_open(&t, "d"), Err(OpenError::Full)));
    }
}

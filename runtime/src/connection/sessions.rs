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
        Self {
            limits,
            inner: Mutex::new(Inner {
                map: HashMap::new(),
                last_sweep: Instant::now(),
            }),
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
        let now = Instant::now();
        match inner.map.get_mut(id) {
            Some(e) if now.duration_since(e.last_used) >= idle => {
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
        let now = Instant::now();
        let idle = self.limits.idle;
        // Expired sessions go at most four times per idle period, or when the table is full.
        if inner.map.len() >= self.limits.max || now.duration_since(inner.last_sweep) >= idle / 4 {
            inner
                .map
                .retain(|_, e| now.duration_since(e.last_used) < idle);
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

    fn table(max: usize, per_identity: usize, idle: Duration) -> SessionTable {
        SessionTable::new(SessionLimits {
            max,
            per_identity,
            idle,
        })
    }

    fn open(t: &SessionTable, owner: &str) -> String {
        t.open("p", owner, |id| {
            Arc::new(Session::new(id, "2025-06-18", json!({})))
        })
        .unwrap()
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
        assert!(matches!(
            t.lookup(Some(&id), "p", "alice"),
            SessionRef::Found(_)
        ));
        assert!(t.close(&id, "p", "alice"));
    }

    /// Finding 7: one identity's flood ends only its own oldest sessions; others still open one.
    #[test]
    fn one_identity_is_capped_without_touching_others() {
        let t = table(5, 3, Duration::from_secs(60));
        let bob = open(&t, "bob");
        let first = open(&t, "flood");
        for _ in 0..1000 {
            open(&t, "flood");
        }
        assert_eq!(t.len(), 4);
        assert!(matches!(
            t.lookup(Some(&first), "p", "flood"),
            SessionRef::Unknown
        ));
        assert!(matches!(
            t.lookup(Some(&bob), "p", "bob"),
            SessionRef::Found(_)
        ));
        open(&t, "carol");
    }

    /// Finding 7: an idle session ends; a used one stays.
    #[test]
    fn idle_sessions_expire() {
        let t = table(10, 10, Duration::from_millis(50));
        let id = open(&t, "alice");
        std::thread::sleep(Duration::from_millis(80));
        assert!(matches!(
            t.lookup(Some(&id), "p", "alice"),
            SessionRef::Unknown
        ));
        open(&t, "alice");
        assert_eq!(t.len(), 1, "the expired session was swept");
    }
}

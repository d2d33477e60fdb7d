//! The 2025 sessions of an HTTP server (stdio's one session is the process's, kept by its loop).
//!
//! A session belongs to the product whose endpoint opened it: another product's endpoint does not
//! see it. Its id is 16 random bytes in hex (visible ASCII, as `Mcp-Session-Id` requires).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use tokio::sync::mpsc;

use crate::contract::call::Session;
use crate::contract::RpcError;

/// The session a message names, as its transport found it.
pub enum SessionRef {
    /// The message names no session (stdio before `initialize`, HTTP without `Mcp-Session-Id`).
    None,
    Found(Arc<Session>),
    /// It names a session that ended or never existed (HTTP 404: initialize again).
    Unknown,
}

/// Open sessions, shared by every endpoint of one server.
#[derive(Default)]
pub struct SessionTable {
    map: Mutex<HashMap<String, Entry>>,
}

struct Entry {
    product: &'static str,
    session: Arc<Session>,
    /// The open GET stream, if any (dropped, so closed, when the session ends).
    stream: Option<mpsc::Sender<Bytes>>,
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
    /// The session a message names (`None` when it names none).
    pub fn lookup(&self, id: Option<&str>, product: &str) -> SessionRef {
        let Some(id) = id else {
            return SessionRef::None;
        };
        let found = self.map.lock().ok().and_then(|m| {
            m.get(id)
                .filter(|e| e.product == product)
                .map(|e| e.session.clone())
        });
        match found {
            Some(s) => SessionRef::Found(s),
            None => SessionRef::Unknown,
        }
    }

    /// Opens a session of `product` built by `make` from its new id; at most `max` at once.
    pub fn open(
        &self,
        product: &'static str,
        max: usize,
        make: impl FnOnce(String) -> Arc<Session>,
    ) -> Result<String, OpenError> {
        let id = crate::state::random_bytes(16)
            .map(hex::encode)
            .map_err(|e| OpenError::Fault(RpcError::internal(format!("no randomness: {e}"))))?;
        let mut map = self
            .map
            .lock()
            .map_err(|_| OpenError::Fault(RpcError::internal("session table poisoned")))?;
        if map.len() >= max {
            return Err(OpenError::Full);
        }
        let session = make(id.clone());
        map.insert(
            id.clone(),
            Entry {
                product,
                session,
                stream: None,
            },
        );
        Ok(id)
    }

    /// Keeps `stream` open as long as the session lives; false when there is no such session.
    pub fn attach_stream(&self, id: &str, product: &str, stream: mpsc::Sender<Bytes>) -> bool {
        let Ok(mut map) = self.map.lock() else {
            return false;
        };
        match map.get_mut(id).filter(|e| e.product == product) {
            Some(entry) => {
                entry.stream = Some(stream);
                true
            }
            None => false,
        }
    }

    /// Ends a session; false when there is no such session.
    pub fn close(&self, id: &str, product: &str) -> bool {
        self.map
            .lock()
            .ok()
            .and_then(|mut m| {
                if m.get(id).is_some_and(|e| e.product == product) {
                    m.remove(id)
                } else {
                    None
                }
            })
            .is_some()
    }

    /// Ends every session (server shutdown: open GET streams close).
    pub fn close_all(&self) {
        if let Ok(mut m) = self.map.lock() {
            m.clear();
        }
    }
}

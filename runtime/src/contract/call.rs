//! What one request carries besides its params: era, caller, client capabilities, and the channel
//! back to the client for notifications (and, on the 2025 wire, server→client requests).
//!
//! Nothing here is cached per connection: the connection layer builds a fresh [`Call`] for every request
//! (2026 capabilities come from that request's `_meta`; 2025 ones from the session's `initialize`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use runtime_model::identity::Identity;
use runtime_model::selection::Selection;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use super::era::{Era, LogLevel};
use super::error::RpcError;

/// How long a server→client request (2025 era) may stay unanswered.
pub const CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// One request's context.
#[derive(Clone)]
pub struct Call {
    pub era: Era,
    pub identity: Arc<Identity>,
    /// The bearer token, forwarded to the backend in proxy mode.
    pub bearer_token: Option<Arc<str>>,
    /// The client's capabilities (`ClientCapabilities` object; `{}` when none).
    pub client_caps: Arc<Value>,
    /// `_meta.progressToken` of this request.
    pub progress_token: Option<Value>,
    /// The level at or above which `notifications/message` may be sent; `None` = never.
    pub log_level: Option<LogLevel>,
    pub peer: Peer,
    /// The 2025 session this request belongs to, if any.
    pub session: Option<Arc<Session>>,
    /// The tools this request sees (its toolsets within the server's ceiling); `None` = the
    /// engine's default selection.
    pub selection: Option<Arc<Selection>>,
    /// The language preference of this request, as sent (`Accept-Language` grammar): the 2026
    /// `_meta` `acceptLanguage` when present, else the HTTP `Accept-Language` header. The engine
    /// matches it against the product's locales (`runtime_model::locale`).
    pub accept_language: Option<Arc<str>>,
    /// The client address (HTTP: the TCP peer, or the one trusted proxy headers name); `None` on
    /// stdio. Its request log line carries it.
    pub client_ip: Option<std::net::IpAddr>,
    /// Where the layers note what they learn while the request runs, for its metrics, span and
    /// audit record ([`super::facts::Notes`]; the engine sets a recording one on a measured
    /// request).
    pub notes: super::facts::Notes,
}

impl Call {
    /// A context with no channel back (tests, benchmarks).
    pub fn detached(era: Era, identity: Arc<Identity>, client_caps: Value) -> Self {
        Self {
            era,
            identity,
            bearer_token: None,
            client_caps: Arc::new(client_caps),
            progress_token: None,
            log_level: None,
            peer: Peer::none(),
            session: None,
            selection: None,
            accept_language: None,
            client_ip: None,
            notes: super::facts::Notes::NONE,
        }
    }

    /// This context with a selection (tests, and the transports that resolve one).
    pub fn with_selection(mut self, selection: Arc<Selection>) -> Self {
        self.selection = Some(selection);
        self
    }

    fn cap(&self, name: &str) -> Option<&Value> {
        self.client_caps.get(name).filter(|v| !v.is_null())
    }
    /// Form elicitation (`elicitation: {}` counts as form, for back-compat).
    pub fn has_form_elicitation(&self) -> bool {
        match self.cap("elicitation") {
            Some(Value::Object(m)) => m.is_empty() || m.contains_key("form"),
            Some(_) => true,
            None => false,
        }
    }
    pub fn has_url_elicitation(&self) -> bool {
        self.cap("elicitation").and_then(|e| e.get("url")).is_some()
    }
    pub fn has_sampling(&self) -> bool {
        self.cap("sampling").is_some()
    }
    pub fn has_roots(&self) -> bool {
        self.cap("roots").is_some()
    }

    /// Sends `notifications/progress` when the request asked for progress.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let mut params = json!({"progressToken": token, "progress": progress});
        if let Some(t) = total {
            params["total"] = json!(t);
        }
        if let Some(m) = message {
            params["message"] = json!(m);
        }
        self.peer.notify("notifications/progress", params);
    }

    /// Sends `notifications/message` when the request (2026) or session (2025) asked for logs at
    /// this level or below.
    pub fn log(&self, level: LogLevel, logger: &str, data: Value) {
        match self.log_level {
            Some(min) if level >= min => self.peer.notify(
                "notifications/message",
                json!({"level": level.as_str(), "logger": logger, "data": data}),
            ),
            _ => {}
        }
    }
}

/// The channel back to the client for one request.
#[derive(Clone, Default)]
pub struct Peer {
    out: Option<mpsc::UnboundedSender<Vec<u8>>>,
    requests: Option<Arc<ClientRequests>>,
}

impl Peer {
    pub fn none() -> Self {
        Self::default()
    }
    /// Notifications only (2026 responses, sessionless 2025 requests).
    pub fn notifications(out: mpsc::UnboundedSender<Vec<u8>>) -> Self {
        Self {
            out: Some(out),
            requests: None,
        }
    }
    /// Notifications and server→client requests (2025 sessions and stdio).
    pub fn with_requests(
        out: mpsc::UnboundedSender<Vec<u8>>,
        requests: Arc<ClientRequests>,
    ) -> Self {
        Self {
            out: Some(out),
            requests: Some(requests),
        }
    }
    pub fn notify(&self, method: &str, params: Value) {
        if let Some(out) = &self.out {
            let _ = out.send(
                serde_json::to_vec(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
                    .unwrap_or_default(),
            );
        }
    }
    /// Whether [`Peer::request`] can reach the client.
    pub fn can_request(&self) -> bool {
        self.out.is_some() && self.requests.is_some()
    }
    /// Sends a server→client request and waits for its answer (2025 era only).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let (Some(out), Some(reqs)) = (&self.out, &self.requests) else {
            return Err(RpcError::internal(format!(
                "cannot send {method} to this client: no open stream for server requests"
            )));
        };
        let (id, rx) = reqs.register();
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if out
            .send(serde_json::to_vec(&msg).unwrap_or_default())
            .is_err()
        {
            reqs.forget(&id);
            return Err(RpcError::internal("the client stream closed"));
        }
        match tokio::time::timeout(CLIENT_REQUEST_TIMEOUT, rx).await {
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err(e))) => Err(RpcError::internal(format!(
                "the client answered {method} with an error: {e}"
            ))),
            Ok(Err(_)) => Err(RpcError::internal("the client stream closed")),
            Err(_) => {
                reqs.forget(&id);
                Err(RpcError::internal(format!(
                    "the client did not answer {method} in time"
                )))
            }
        }
    }
}

type Pending = oneshot::Sender<Result<Value, Value>>;

/// Server→client requests waiting for an answer, per 2025 session (HTTP) or process (stdio).
#[derive(Default)]
pub struct ClientRequests {
    next: AtomicU64,
    pending: Mutex<HashMap<String, Pending>>,
}

impl ClientRequests {
    fn key(id: &Value) -> String {
        id.to_string()
    }
    fn register(&self) -> (Value, oneshot::Receiver<Result<Value, Value>>) {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = Value::from(format!("srv-{n}"));
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.pending.lock() {
            p.insert(Self::key(&id), tx);
        }
        (id, rx)
    }
    fn forget(&self, id: &Value) {
        if let Ok(mut p) = self.pending.lock() {
            p.remove(&Self::key(id));
        }
    }
    /// Delivers a client response; false when no request with that id is waiting.
    pub fn resolve(&self, id: &Value, outcome: Result<Value, Value>) -> bool {
        let tx = self
            .pending
            .lock()
            .ok()
            .and_then(|mut p| p.remove(&Self::key(id)));
        match tx {
            Some(tx) => tx.send(outcome).is_ok(),
            None => false,
        }
    }
}

/// The state of one 2025-era session (an HTTP `Mcp-Session-Id`, or the stdio process after
/// `initialize`): what the handshake negotiated and what later requests set.
pub struct Session {
    pub id: String,
    pub version: &'static str,
    pub client_caps: Arc<Value>,
    pub log_level: Mutex<Option<LogLevel>>,
    pub subscriptions: Mutex<std::collections::BTreeSet<String>>,
    pub requests: Arc<ClientRequests>,
    /// The tool selection fixed by the `initialize` request (its headers and URL path); every
    /// later request of the session is served with it. `None` = the engine's default.
    pub selection: Option<Arc<Selection>>,
}

impl Session {
    pub fn new(id: String, version: &'static str, client_caps: Value) -> Self {
        Self {
            id,
            version,
            client_caps: Arc::new(client_caps),
            log_level: Mutex::new(None),
            subscriptions: Mutex::new(Default::default()),
            requests: Arc::new(ClientRequests::default()),
            selection: None,
        }
    }

    /// This session with the selection its `initialize` request resolved.
    pub fn with_selection(mut self, selection: Option<Arc<Selection>>) -> Self {
        self.selection = selection;
        self
    }
    pub fn log_level(&self) -> Option<LogLevel> {
        self.log_level.lock().ok().and_then(|l| *l)
    }
}

//! The connection layer: what happens to a message between the bytes a transport read and the
//! bytes it writes back, the same whichever transport brought it.
//!
//! A transport reads a message and hands it to [`route`] with what only it knows: the caller
//! ([`Caller`]: HTTP's auth layer, stdio's process token), the session the message names
//! ([`SessionRef`]: HTTP's `Mcp-Session-Id`, stdio's process after `initialize`) and the version
//! it carries outside the body ([`Outer`]: HTTP's `MCP-Protocol-Version`, nothing on stdio).
//! [`route`] chooses the era ([`era`] has the rule), reads the 2026 `_meta` ([`modern`]), and
//! answers with a [`Step`]: a handshake to open a session with, a request with its [`Call`]
//! built, or a refusal with its error. The transport then runs the request through [`answer`]
//! (the time limit), and writes [`encode()`]'s bytes: JSON, SSE events (HTTP) or a line (stdio).
//! Batches (2025-03-26 only) go through [`batches::batch`], within their [`batches::BatchBounds`].
//!
//! What stays in the transports: reading and writing bytes, HTTP's headers (the 2026
//! `Mcp-Method`/`Mcp-Name`/`Mcp-Param-*` checks), status codes, SSE, GET/DELETE, and the Origin
//! and auth layers.

pub mod batches;
pub mod encode;
pub mod era;
pub mod modern;
pub mod sessions;

use std::sync::Arc;
use std::time::Duration;

use runtime_model::identity::Identity;
use runtime_model::selection::Selection;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::contract::call::{Call, Peer, Session};
use crate::contract::era::Era;
use crate::contract::error::{RpcError, HEADER_MISMATCH};
use crate::protocol::engine::Engine;
use crate::rpc::jsonrpc::{self, Incoming, Request};
use crate::rpc::meta::Meta;
use crate::rpc::reply::Reply;
pub use encode::{encode, encode_reply, Encoded};
pub use sessions::{SessionLimits, SessionRef, SessionTable};

/// Who is calling, as the transport learned it.
#[derive(Clone)]
pub struct Caller {
    pub identity: Arc<Identity>,
    /// The bearer token, forwarded to the backend in proxy mode.
    pub bearer: Option<Arc<str>>,
    /// The tool selection this message's transport resolved (HTTP: its `Kobana-*` headers and
    /// URL path within the server's ceiling), and whether the message named one at all. `None`
    /// = the engine's default (stdio: the server's own selection).
    pub selection: Option<Arc<Selection>>,
    pub names_selection: bool,
    /// HTTP's `Accept-Language` (nothing on stdio, whose language is the server's `--locale`).
    pub accept_language: Option<Arc<str>>,
    /// The client address (HTTP: the TCP peer or trusted proxy headers); none on stdio.
    pub client_ip: Option<std::net::IpAddr>,
}

impl Caller {
    /// Who owns the sessions this caller opens: the person within the organization (a token
    /// rotated for the same person keeps its sessions; another person's token does not see them).
    pub fn owner(&self) -> String {
        runtime_model::canonical::to_string(&json!({
            "organization": self.identity.organization,
            "person": self.identity.person,
        }))
    }
}

/// The protocol version a transport carries outside the body.
#[derive(Debug, Clone, Copy)]
pub enum Outer<'a> {
    /// The transport has no such place (stdio).
    NotCarried,
    /// HTTP without `MCP-Protocol-Version`.
    Absent,
    /// HTTP's `MCP-Protocol-Version`, trimmed.
    Header(&'a str),
}

impl<'a> Outer<'a> {
    fn stated(self) -> Option<&'a str> {
        match self {
            Outer::Header(v) => Some(v),
            Outer::NotCarried | Outer::Absent => None,
        }
    }
}

/// What [`route`] made of one message.
pub enum Step {
    /// A notification: nothing to answer.
    Notification,
    /// A client's answer to a server→client request; `delivered` is false when it names no
    /// session (HTTP answers 400; stdio has nobody to tell).
    Response { delivered: bool },
    /// The 2025 handshake: open a session from it, then send [`Handshake::answer`].
    Initialize(Handshake),
    /// A request to answer, with its context built.
    Serve(Request, Call),
    /// Refused before any method ran.
    Refused {
        id: Value,
        error: RpcError,
        why: Refusal,
    },
}

/// Why a message was refused (HTTP picks its status from it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not JSON, or not a JSON-RPC message (-32700, -32600).
    Malformed,
    /// A 2026 request whose `_meta` or version is wrong (-32602, -32020, -32022).
    Modern,
    /// A 2025 request stating a revision we do not serve (-32600).
    UnsupportedVersion,
    /// It names a session that ended or never existed (-32600).
    UnknownSession,
    /// A 2025 request naming a tool selection other than the one its session was opened with
    /// (-32600, HTTP 400).
    SelectionChanged,
}

/// A 2025 `initialize`: the negotiated version and the client's capabilities.
pub struct Handshake {
    pub id: Value,
    pub version: &'static str,
    client_caps: Value,
    /// The selection the `initialize` request named; the session keeps it.
    selection: Option<Arc<Selection>>,
    /// The language preference of the `initialize` request (`_meta`, else HTTP's header).
    pub accept_language: Option<Arc<str>>,
}

impl Handshake {
    fn read(req: Request, caller: &Caller) -> Self {
        let version =
            era::negotiate_legacy(req.params.get("protocolVersion").and_then(Value::as_str));
        let client_caps = match req.params.get("capabilities") {
            Some(c @ Value::Object(_)) => c.clone(),
            _ => json!({}),
        };
        Self {
            accept_language: modern::accept_language(req.meta()).or(caller.accept_language.clone()),
            id: req.id,
            version,
            client_caps,
            selection: caller.selection.clone(),
        }
    }

    /// The session this handshake opens, under the id its transport gives it.
    pub fn session(&self, id: String) -> Arc<Session> {
        Arc::new(
            Session::new(id, self.version, self.client_caps.clone())
                .with_selection(self.selection.clone()),
        )
    }

    /// The `initialize` answer.
    pub fn answer(&self, engine: &Engine) -> Vec<u8> {
        let locale = engine.locale_for(self.accept_language.as_deref());
        jsonrpc::encode_result(
            &self.id,
            &engine.initialize_result_for(self.version, locale, &self.client_caps),
        )
    }
}

/// Whether a body is a JSON-RPC batch (a JSON array).
pub fn is_batch(bytes: &[u8]) -> bool {
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
}

/// Parses one message and routes it ([`route`]).
pub fn route_bytes(bytes: &[u8], session: SessionRef, outer: Outer<'_>, caller: &Caller) -> Step {
    match jsonrpc::parse_bytes(bytes) {
        Ok(msg) => route(msg, session, outer, caller),
        Err(rej) => Step::Refused {
            id: rej.id,
            error: rej.error,
            why: Refusal::Malformed,
        },
    }
}

/// Chooses the era of one message and builds what serving it needs (the rule: [`era`]).
pub fn route(msg: Incoming, session: SessionRef, outer: Outer<'_>, caller: &Caller) -> Step {
    let mut req = match msg {
        Incoming::Request(r) => r,
        Incoming::Notification { .. } => {
            return match session {
                SessionRef::Unknown => unknown_session(Value::Null),
                _ => Step::Notification,
            }
        }
        Incoming::Response { id, outcome } => {
            return match session {
                SessionRef::Found(s) => {
                    s.requests.resolve(&id, outcome);
                    Step::Response { delivered: true }
                }
                SessionRef::Unknown => unknown_session(Value::Null),
                SessionRef::None => Step::Response { delivered: false },
            }
        }
    };
    let modern_meta = modern::has_modern_meta(req.meta());
    // A 2026 request naming `initialize` is a removed method: the engine answers -32601.
    if req.method == "initialize" && !modern_meta {
        return Step::Initialize(Handshake::read(req, caller));
    }
    let discover = req.method == "server/discover";
    if let Some(v) = outer.stated() {
        // A header naming no revision we know, on a request whose body does not say 2026 either:
        // nothing tells which era the client speaks, so say what the header should be.
        if !modern_meta && !discover && !era::is_known_name(v) {
            return Step::Refused {
                id: req.id,
                error: era::unsupported_header(v),
                why: Refusal::UnsupportedVersion,
            };
        }
    }
    let modern_wire =
        modern_meta || discover || outer.stated().is_some_and(|v| !era::is_legacy_name(v));
    if modern_wire {
        return match modern_call(&mut req, outer, caller) {
            Ok(call) => Step::Serve(req, call),
            Err(error) => Step::Refused {
                id: req.id,
                error,
                why: Refusal::Modern,
            },
        };
    }
    match session {
        SessionRef::Found(s) => {
            // A session's selection is fixed by its `initialize`: a later request may repeat it
            // or name none, never change it (its listings would no longer match what the client
            // was told).
            if caller.names_selection && caller.selection != s.selection {
                return Step::Refused {
                    id: req.id,
                    error: RpcError::invalid_request(
                        "This session's tool selection was fixed by its initialize request (Kobana-Toolsets, Kobana-Tools, Kobana-Exclude-Tools, Kobana-Read-Only and the URL path); a later request may send the same selection or none. To change it, initialize a new session.",
                    ),
                    why: Refusal::SelectionChanged,
                };
            }
            let call = legacy_call(caller, s.version, Some(s), req.meta());
            Step::Serve(req, call)
        }
        SessionRef::Unknown => unknown_session(req.id),
        SessionRef::None => match era::sessionless_version(outer.stated()) {
            Ok(version) => {
                let call = legacy_call(caller, version, None, req.meta());
                Step::Serve(req, call)
            }
            Err(error) => Step::Refused {
                id: req.id,
                error,
                why: Refusal::UnsupportedVersion,
            },
        },
    }
}

fn unknown_session(id: Value) -> Step {
    Step::Refused {
        id,
        error: RpcError::invalid_request(
            "Session not found: it ended or never existed; initialize again",
        ),
        why: Refusal::UnknownSession,
    }
}

/// A 2026 request's context: `_meta` present (-32602) → the transport's version agrees with it
/// (-32020) → the version is served (-32022).
fn modern_call(req: &mut Request, outer: Outer<'_>, caller: &Caller) -> Result<Call, RpcError> {
    let mut none = Meta::default();
    let meta = modern::read_meta(req.meta.as_deref_mut().unwrap_or(&mut none))?;
    match outer {
        Outer::NotCarried => {}
        Outer::Absent => {
            return Err(RpcError::new(
                HEADER_MISMATCH,
                "Header mismatch: the MCP-Protocol-Version header is required",
            ))
        }
        Outer::Header(v) if v != meta.version => {
            return Err(RpcError::new(
                HEADER_MISMATCH,
                format!(
                    "Header mismatch: MCP-Protocol-Version {v:?} differs from _meta protocolVersion {:?}",
                    meta.version
                ),
            ))
        }
        Outer::Header(_) => {}
    }
    modern::check_version(&meta.version)?;
    Ok(Call {
        era: Era::Modern,
        identity: caller.identity.clone(),
        bearer_token: caller.bearer.clone(),
        client_caps: shared_caps(meta.client_caps),
        progress_token: modern::progress_token(req.meta()),
        log_level: meta.log_level,
        peer: Peer::none(),
        session: None,
        selection: caller.selection.clone(),
        accept_language: modern::accept_language(req.meta()).or(caller.accept_language.clone()),
        client_ip: caller.client_ip,
        notes: Default::default(),
    })
}

/// A 2025 request's context: capabilities and log level from its session, if any.
fn legacy_call(
    caller: &Caller,
    version: &'static str,
    session: Option<Arc<Session>>,
    meta: &Meta,
) -> Call {
    Call {
        era: Era::Legacy(version),
        identity: caller.identity.clone(),
        bearer_token: caller.bearer.clone(),
        client_caps: session
            .as_ref()
            .map_or_else(no_capabilities, |s| s.client_caps.clone()),
        progress_token: modern::progress_token(meta),
        log_level: session.as_ref().and_then(|s| s.log_level()),
        peer: Peer::none(),
        selection: match &session {
            Some(s) => s.selection.clone(),
            None => caller.selection.clone(),
        },
        session,
        accept_language: modern::accept_language(meta).or(caller.accept_language.clone()),
        client_ip: caller.client_ip,
        notes: Default::default(),
    }
}

/// The capabilities of a client that states none (`{}`), shared: a sessionless 2025 request and
/// most 2026 requests (`clientCapabilities: {}`) would otherwise allocate one each.
fn no_capabilities() -> Arc<Value> {
    static NONE: std::sync::LazyLock<Arc<Value>> =
        std::sync::LazyLock::new(|| Arc::new(Value::Object(serde_json::Map::new())));
    NONE.clone()
}

/// A request's capabilities as the call keeps them: the shared `{}` when it states none.
fn shared_caps(caps: Value) -> Arc<Value> {
    match &caps {
        Value::Object(m) if m.is_empty() => no_capabilities(),
        _ => Arc::new(caps),
    }
}

/// Whether anything can reach the client before the answer (a progress token, a log level, or a
/// session's stream for server→client requests). When not, a transport needs no channel.
pub fn may_send_before_answer(call: &Call) -> bool {
    call.session.is_some() || call.progress_token.is_some() || call.log_level.is_some()
}

/// Gives a request its channel back to the client: notifications, plus server→client requests
/// when it belongs to a session.
pub fn attach(call: &mut Call, out: mpsc::UnboundedSender<Vec<u8>>) {
    call.peer = match &call.session {
        Some(s) => Peer::with_requests(out, s.requests.clone()),
        None => Peer::notifications(out),
    };
}

/// Answers one request within `limit`; past it the work is dropped and the answer is an error.
pub async fn answer(engine: &Engine, req: &Request, call: &Call, limit: Duration) -> Reply {
    answer_within(engine, req, call, limit, "the request time limit").await
}

/// [`answer`], with the error naming which limit (`what`) was reached.
async fn answer_within(
    engine: &Engine,
    req: &Request,
    call: &Call,
    limit: Duration,
    what: &str,
) -> Reply {
    match tokio::time::timeout(limit, engine.handle(req, call)).await {
        Ok(r) => r,
        Err(_) => Reply::Error(RpcError::internal(format!(
            "Request timed out after {} ms ({what})",
            limit.as_millis()
        ))),
    }
}

#[cfg(test)]
mod tests;

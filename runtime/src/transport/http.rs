//! Streamable HTTP (axum): both protocol eras on one endpoint.
//!
//! Per POST, the era is chosen from the request itself: `initialize` opens a 2025 session
//! (`Mcp-Session-Id`); a request with that header belongs to its session; a request carrying the
//! 2026 `_meta` or a non-legacy `MCP-Protocol-Version` is served statelessly under 2026-07-28
//! (headers checked: -32020/-32022 with HTTP 400); anything else is a sessionless 2025 request
//! (version from the header, `2025-03-26` when absent).
//!
//! A response is JSON unless the handler sends a notification (progress, log) or a 2025
//! server→client request before it finishes: then it switches to SSE, streaming those messages
//! and closing with the response. On 2026, a client that closes the stream cancels the request.
//!
//! Layers: Origin/Host guard (403, DNS-rebinding protection) → auth (when configured) → handler
//! (body-size limit → 413, request time limit → JSON-RPC error).

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

use super::body::{self, Chunks};
use super::headers;
use crate::auth::Authenticated;
use crate::protocol::context::{Call, Peer, Session};
use crate::protocol::engine::{Engine, Reply};
use crate::protocol::era::{self, Era};
use crate::protocol::jsonrpc::{self, Incoming, Request as RpcRequest, RpcError};
use crate::protocol::modern;
use crate::server::Server;

/// Sessions of the 2025 wire, shared by every route of one router.
#[derive(Default)]
struct Sessions {
    map: Mutex<HashMap<String, SessionEntry>>,
}

struct SessionEntry {
    product: &'static str,
    session: Arc<Session>,
    /// The open GET stream, if any (dropped when the session ends).
    get_stream: Option<mpsc::Sender<Bytes>>,
}

impl Sessions {
    fn get(&self, id: &str, product: &str) -> Option<Arc<Session>> {
        let map = self.map.lock().ok()?;
        map.get(id)
            .filter(|e| e.product == product)
            .map(|e| e.session.clone())
    }
    fn close_all(&self) {
        if let Ok(mut m) = self.map.lock() {
            m.clear();
        }
    }
}

#[derive(Clone)]
struct Route {
    server: Arc<Server>,
    engine: Arc<Engine>,
    sessions: Arc<Sessions>,
}

/// The MCP router of a server: `/mcp` for one product, `/<product>/mcp` for several. With
/// [`crate::server::ServerConfig::auth`] set, the auth layer runs inside the Origin guard.
pub fn router(server: Arc<Server>) -> Router {
    router_with_sessions(server, Arc::new(Sessions::default()))
}

fn router_with_sessions(server: Arc<Server>, sessions: Arc<Sessions>) -> Router {
    let mut r = Router::new();
    let single = server.engines().len() == 1;
    for engine in server.engines() {
        let path = if single {
            "/mcp".to_string()
        } else {
            format!("/{}/mcp", engine.product.name)
        };
        let route = Route {
            server: server.clone(),
            engine: engine.clone(),
            sessions: sessions.clone(),
        };
        r = r.route(
            &path,
            post(handle_post)
                .get(handle_get)
                .delete(handle_delete)
                .with_state(route),
        );
    }
    if let Some(auth) = &server.config.auth {
        r = r.layer(middleware::from_fn_with_state(
            auth.clone(),
            crate::auth::http::authenticate,
        ));
    }
    // No tower-http trace layer: the engine logs one line per request (protocol::request_log),
    // and a span per HTTP request would cost every request for nothing by default.
    r.layer(middleware::from_fn_with_state(server.clone(), guard))
}

/// Binds `addr` and serves until `shutdown` resolves; in-flight requests are finished, open 2025
/// GET streams are closed.
pub async fn serve(
    server: Arc<Server>,
    addr: SocketAddr,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    serve_listener(server, listener, shutdown).await
}

/// Like [`serve`], on an already bound listener (tests bind port 0).
pub async fn serve_listener(
    server: Arc<Server>,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let sessions = Arc::new(Sessions::default());
    let app = router_with_sessions(server, sessions.clone());
    tracing::info!(addr = ?listener.local_addr().ok(), "serving MCP over HTTP");
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            sessions.close_all();
        })
        .await
}

// ---------------------------------------------------------------------------------------------
// Responses

fn json_response(status: StatusCode, bytes: Vec<u8>) -> Response {
    let mut r = Response::new(Body::from(bytes));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn error_response(status: StatusCode, id: &Value, err: &RpcError) -> Response {
    json_response(status, jsonrpc::encode_error(id, err))
}

fn empty(status: StatusCode) -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = status;
    r
}

fn sse_response(body: Body) -> Response {
    let mut r = Response::new(body);
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

/// The HTTP status of an engine answer: 2026 maps -32601 to 404 and -32021 to 400.
fn status_of(era: Era, reply: &Reply) -> StatusCode {
    match (era, reply) {
        (Era::Modern, Reply::Error(e)) if e.code == jsonrpc::METHOD_NOT_FOUND => {
            StatusCode::NOT_FOUND
        }
        (Era::Modern, Reply::Error(e)) if e.code == jsonrpc::MISSING_CLIENT_CAPABILITY => {
            StatusCode::BAD_REQUEST
        }
        _ => StatusCode::OK,
    }
}

fn encode_reply(id: &Value, reply: &Reply) -> Vec<u8> {
    match reply {
        Reply::Value(v) => jsonrpc::encode_result(id, v),
        Reply::Raw(page) => jsonrpc::encode_page_result(id, page),
        Reply::Error(e) => jsonrpc::encode_error(id, e),
    }
}

fn reply_response(era: Era, id: &Value, reply: Reply) -> Response {
    let status = status_of(era, &reply);
    if let Reply::Raw(page) = &reply {
        // Splice the shared page bytes between the envelope's head and tail: no copy.
        let mut head = Vec::with_capacity(48);
        head.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        let _ = serde_json::to_writer(&mut head, id);
        head.extend_from_slice(b",\"result\":");
        let parts = std::iter::once(Bytes::from(head))
            .chain(page.segments().iter().cloned())
            .chain(std::iter::once(Bytes::from_static(b"}")));
        let mut r = Response::new(Body::new(Chunks::new(parts)));
        *r.status_mut() = status;
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        return r;
    }
    json_response(status, encode_reply(id, &reply))
}

// ---------------------------------------------------------------------------------------------
// Guard layer

fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']')
            .next()
            .map(|h| format!("[{h}]"))
            .unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or("").to_string()
    };
    matches!(name.as_str(), "localhost" | "127.0.0.1" | "[::1]")
}

fn origin_allowed(server: &Server, origin: &str) -> bool {
    if server.config.allowed_origins.iter().any(|o| o == origin) {
        return true;
    }
    match origin.split_once("://") {
        Some(("http" | "https", rest)) => is_loopback_host(rest.split('/').next().unwrap_or("")),
        _ => false,
    }
}

fn host_allowed(server: &Server, host: &str) -> bool {
    if !server.config.check_host || is_loopback_host(host) {
        return true;
    }
    let name = host.rsplit_once(':').map_or(host, |(h, p)| {
        if p.bytes().all(|b| b.is_ascii_digit()) {
            h
        } else {
            host
        }
    });
    server
        .config
        .allowed_hosts
        .iter()
        .any(|h| h == name || h == host)
}

/// DNS-rebinding protection: a foreign `Origin` or `Host` gets 403 with a JSON-RPC error body.
async fn guard(State(server): State<Arc<Server>>, req: Request, next: Next) -> Response {
    let h = req.headers();
    if let Some(origin) = h.get(header::ORIGIN) {
        let ok = origin.to_str().is_ok_and(|o| origin_allowed(&server, o));
        if !ok {
            let msg = format!("Origin {:?} is not allowed", origin.to_str().unwrap_or("?"));
            return error_response(
                StatusCode::FORBIDDEN,
                &Value::Null,
                &RpcError::invalid_request(msg),
            );
        }
    }
    if let Some(host) = h.get(header::HOST) {
        let ok = host.to_str().is_ok_and(|v| host_allowed(&server, v));
        if !ok {
            let msg = format!("Host {:?} is not allowed", host.to_str().unwrap_or("?"));
            return error_response(
                StatusCode::FORBIDDEN,
                &Value::Null,
                &RpcError::invalid_request(msg),
            );
        }
    }
    next.run(req).await
}

// ---------------------------------------------------------------------------------------------
// POST

struct Caller {
    identity: Arc<runtime_model::identity::Identity>,
    bearer: Option<Arc<str>>,
}

fn caller(route: &Route, ext: &axum::http::Extensions) -> Caller {
    match ext.get::<Authenticated>() {
        Some(a) => Caller {
            identity: a.identity.clone(),
            bearer: Some(a.token.clone()),
        },
        None => Caller {
            identity: route.server.config.default_identity.clone(),
            bearer: None,
        },
    }
}

async fn handle_post(State(route): State<Route>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let limit = route.server.config.max_body_bytes;
    let bytes = match axum::body::to_bytes(body, limit).await {
        Ok(b) => b,
        Err(_) => {
            let err = RpcError::invalid_request(format!(
                "Request body exceeds the limit of {limit} bytes"
            ));
            return error_response(StatusCode::PAYLOAD_TOO_LARGE, &Value::Null, &err);
        }
    };
    let who = caller(&route, &parts.extensions);
    let h = &parts.headers;
    let session_header = h
        .get(headers::SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let version_header = h
        .get(headers::PROTOCOL_VERSION)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_string());

    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        // Boxed, like every branch below: this handler's future would otherwise be as large as
        // its largest branch, and every request would copy it whole when axum boxes it.
        return Box::pin(handle_batch(
            &route,
            &who,
            &bytes,
            session_header.as_deref(),
            version_header.as_deref(),
        ))
        .await;
    }
    let msg = match jsonrpc::parse_bytes(&bytes) {
        Ok(m) => m,
        Err(rej) => return error_response(StatusCode::BAD_REQUEST, &rej.id, &rej.error),
    };
    let session = match &session_header {
        Some(id) => match route.sessions.get(id, route.engine.product.name) {
            Some(s) => Some(s),
            None => {
                let is_init = matches!(&msg, Incoming::Request(r) if r.method == "initialize");
                if !is_init {
                    let id = match &msg {
                        Incoming::Request(r) => r.id.clone(),
                        _ => Value::Null,
                    };
                    return error_response(
                        StatusCode::NOT_FOUND,
                        &id,
                        &RpcError::invalid_request(
                            "Session not found: it ended or never existed; initialize again",
                        ),
                    );
                }
                None
            }
        },
        None => None,
    };
    match msg {
        Incoming::Notification { .. } => empty(StatusCode::ACCEPTED),
        Incoming::Response { id, outcome } => match &session {
            Some(s) => {
                s.requests.resolve(&id, outcome);
                empty(StatusCode::ACCEPTED)
            }
            None => error_response(
                StatusCode::BAD_REQUEST,
                &Value::Null,
                &RpcError::invalid_request(
                    "A response to a server request needs the Mcp-Session-Id it belongs to",
                ),
            ),
        },
        // A 2026 request naming `initialize` is a removed method (404 + -32601 below).
        Incoming::Request(req)
            if req.method == "initialize" && !modern::has_modern_meta(&req.params) =>
        {
            initialize(&route, &req)
        }
        Incoming::Request(req) => {
            if let Some(s) = session {
                let call = legacy_call(&who, s.version, Some(s), &req.params);
                return Box::pin(run(&route, req, call)).await;
            }
            let modern_wire = modern::has_modern_meta(&req.params)
                || req.method == "server/discover"
                || version_header
                    .as_deref()
                    .is_some_and(|v| !era::is_legacy_name(v));
            if modern_wire {
                return Box::pin(modern_request(
                    &route,
                    &who,
                    h,
                    version_header.as_deref(),
                    req,
                ))
                .await;
            }
            let version = version_header
                .as_deref()
                .and_then(era::legacy_version)
                .unwrap_or("2025-03-26");
            if version_header.is_some()
                && era::legacy_version(version_header.as_deref().unwrap_or("")).is_none()
            {
                let v = version_header.unwrap_or_default();
                let err =
                    RpcError::invalid_request(format!("Unsupported MCP-Protocol-Version {v:?}"))
                        .with_data(json!({"supported": era::SUPPORTED, "requested": v}));
                return error_response(StatusCode::BAD_REQUEST, &req.id, &err);
            }
            let call = legacy_call(&who, version, None, &req.params);
            Box::pin(run(&route, req, call)).await
        }
    }
}

fn legacy_call(
    who: &Caller,
    version: &'static str,
    session: Option<Arc<Session>>,
    params: &Map<String, Value>,
) -> Call {
    Call {
        era: Era::Legacy(version),
        identity: who.identity.clone(),
        bearer_token: who.bearer.clone(),
        client_caps: session
            .as_ref()
            .map_or_else(|| Arc::new(json!({})), |s| s.client_caps.clone()),
        progress_token: modern::progress_token(params),
        log_level: session.as_ref().and_then(|s| s.log_level()),
        peer: Peer::none(),
        session,
    }
}

fn initialize(route: &Route, req: &RpcRequest) -> Response {
    let requested = req.params.get("protocolVersion").and_then(Value::as_str);
    let version = era::negotiate_legacy(requested);
    let caps = match req.params.get("capabilities") {
        Some(c @ Value::Object(_)) => c.clone(),
        _ => json!({}),
    };
    let id = match crate::state::random_bytes(16) {
        Ok(b) => hex::encode(b),
        Err(e) => {
            return error_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                &req.id,
                &RpcError::internal(format!("no randomness: {e}")),
            )
        }
    };
    let session = Arc::new(Session::new(id.clone(), version, caps));
    {
        let Ok(mut map) = route.sessions.map.lock() else {
            return error_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                &req.id,
                &RpcError::internal("session table poisoned"),
            );
        };
        if map.len() >= route.server.config.max_sessions {
            return error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                &req.id,
                &RpcError::internal("Too many open sessions; try again later"),
            );
        }
        map.insert(
            id.clone(),
            SessionEntry {
                product: route.engine.product.name,
                session,
                get_stream: None,
            },
        );
    }
    let mut r = json_response(
        StatusCode::OK,
        jsonrpc::encode_result(&req.id, &route.engine.initialize_result(version)),
    );
    if let Ok(v) = HeaderValue::from_str(&id) {
        r.headers_mut().insert(headers::SESSION_ID, v);
    }
    r
}

/// The 2026 pipeline: `_meta` presence (-32602) → header/`_meta` version agreement (-32020) →
/// version support (-32022) → `Mcp-Method`/`Mcp-Name` (-32020), all HTTP 400.
async fn modern_request(
    route: &Route,
    who: &Caller,
    h: &HeaderMap,
    version_header: Option<&str>,
    req: RpcRequest,
) -> Response {
    let bad = |err: RpcError| error_response(StatusCode::BAD_REQUEST, &req.id, &err);
    let meta = match modern::read_meta(&req.params) {
        Ok(m) => m,
        Err(e) => return bad(e),
    };
    match version_header {
        None => return bad(RpcError::new(jsonrpc::HEADER_MISMATCH, "Header mismatch: the MCP-Protocol-Version header is required")),
        Some(v) if v != meta.version => {
            return bad(RpcError::new(
                jsonrpc::HEADER_MISMATCH,
                format!("Header mismatch: MCP-Protocol-Version {v:?} differs from _meta protocolVersion {:?}", meta.version),
            ))
        }
        Some(_) => {}
    }
    if let Err(e) = modern::check_version(&meta.version) {
        return bad(e);
    }
    if let Err(e) = headers::check_method_and_name(h, &req.method, &req.params) {
        return bad(e);
    }
    if req.method == "tools/call" {
        let idx = req
            .params
            .get("name")
            .and_then(Value::as_str)
            .and_then(|n| route.engine.tool_index(n));
        if let Some(idx) = idx {
            if let Err(e) =
                headers::check_param_headers(h, route.engine.param_headers(idx), &req.params)
            {
                return bad(e);
            }
        }
    }
    let call = Call {
        era: Era::Modern,
        identity: who.identity.clone(),
        bearer_token: who.bearer.clone(),
        client_caps: Arc::new(meta.client_caps),
        progress_token: modern::progress_token(&req.params),
        log_level: meta.log_level,
        peer: Peer::none(),
        session: None,
    };
    run(route, req, call).await
}

type ReplyFuture = Pin<Box<dyn Future<Output = Reply> + Send>>;

/// The answer to a request that ran out of time (its work was dropped, so nothing more happens).
fn timed_out(limit: std::time::Duration) -> Reply {
    Reply::Error(RpcError::internal(format!(
        "Request timed out after {} s",
        limit.as_secs()
    )))
}

/// Runs one request, answering JSON, or SSE once the handler emits a message before finishing.
async fn run(route: &Route, req: RpcRequest, mut call: Call) -> Response {
    let era = call.era;
    let limit = route.server.config.request_timeout;
    if call.session.is_none() && call.progress_token.is_none() && call.log_level.is_none() {
        // Nothing can reach the client before the answer (no progress token, no log level, no
        // stream for server requests): answer JSON without setting up a message channel.
        let reply = match tokio::time::timeout(limit, route.engine.handle(&req, &call)).await {
            Ok(r) => r,
            Err(_) => timed_out(limit),
        };
        return reply_response(era, &req.id, reply);
    }
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    call.peer = match &call.session {
        Some(s) => Peer::with_requests(tx, s.requests.clone()),
        None => Peer::notifications(tx),
    };
    let id = req.id.clone();
    let engine = route.engine.clone();
    let mut fut: ReplyFuture = Box::pin(async move {
        match tokio::time::timeout(limit, engine.handle(&req, &call)).await {
            Ok(r) => r,
            Err(_) => timed_out(limit),
        }
    });
    let first = tokio::select! {
        biased;
        reply = &mut fut => {
            let mut queued = Vec::new();
            while let Ok(m) = rx.try_recv() {
                queued.push(m);
            }
            if queued.is_empty() {
                return reply_response(era, &id, reply);
            }
            let mut out = Vec::new();
            for m in queued {
                out.extend_from_slice(&body::sse_event(&m));
            }
            out.extend_from_slice(&body::sse_event(&encode_reply(&id, &reply)));
            return sse_response(Body::from(out));
        }
        Some(first) = rx.recv() => first,
    };
    let (btx, brx) = mpsc::channel::<Bytes>(32);
    let cancel_on_close = era.is_modern();
    tokio::spawn(async move {
        if btx.send(body::sse_event(&first)).await.is_err() && cancel_on_close {
            return;
        }
        let mut open = true;
        loop {
            tokio::select! {
                biased;
                m = rx.recv(), if open => match m {
                    Some(m) => {
                        if btx.send(body::sse_event(&m)).await.is_err() && cancel_on_close {
                            return; // dropping `fut` cancels the request (2026 semantics)
                        }
                    }
                    None => open = false,
                },
                reply = &mut fut => {
                    while let Ok(m) = rx.try_recv() {
                        let _ = btx.send(body::sse_event(&m)).await;
                    }
                    let _ = btx.send(body::sse_event(&encode_reply(&id, &reply))).await;
                    return;
                }
            }
        }
    });
    sse_response(Body::new(body::Channel::new(brx)))
}

/// JSON-RPC batches: 2025-03-26 only.
async fn handle_batch(
    route: &Route,
    who: &Caller,
    bytes: &[u8],
    session_id: Option<&str>,
    version_header: Option<&str>,
) -> Response {
    let session = session_id.and_then(|id| route.sessions.get(id, route.engine.product.name));
    let version = session
        .as_ref()
        .map(|s| s.version)
        .or(match version_header {
            None => Some("2025-03-26"),
            Some(v) => era::legacy_version(v),
        });
    if version != Some("2025-03-26") {
        let err = RpcError::invalid_request(
            "JSON-RPC batches are only accepted on protocol revision 2025-03-26",
        );
        return error_response(StatusCode::BAD_REQUEST, &Value::Null, &err);
    }
    let items: Vec<Value> = match serde_json::from_slice(bytes) {
        Ok(Value::Array(a)) if !a.is_empty() => a,
        Ok(_) => {
            let err = RpcError::invalid_request("Invalid Request: an empty batch");
            return error_response(StatusCode::BAD_REQUEST, &Value::Null, &err);
        }
        Err(e) => {
            let err = RpcError::new(jsonrpc::PARSE_ERROR, format!("Parse error: {e}"));
            return error_response(StatusCode::BAD_REQUEST, &Value::Null, &err);
        }
    };
    let mut out: Vec<Value> = Vec::new();
    for item in items {
        match jsonrpc::parse_value(item) {
            Ok(Incoming::Request(req)) => {
                let call = legacy_call(who, "2025-03-26", session.clone(), &req.params);
                let reply = route.engine.handle(&req, &call).await;
                let bytes = encode_reply(&req.id, &reply);
                out.push(serde_json::from_slice(&bytes).unwrap_or(Value::Null));
            }
            Ok(Incoming::Response { id, outcome }) => {
                if let Some(s) = &session {
                    s.requests.resolve(&id, outcome);
                }
            }
            Ok(Incoming::Notification { .. }) => {}
            Err(rej) => out.push(
                serde_json::json!({"jsonrpc": "2.0", "id": rej.id, "error": rej.error.to_value()}),
            ),
        }
    }
    if out.is_empty() {
        return empty(StatusCode::ACCEPTED);
    }
    json_response(StatusCode::OK, serde_json::to_vec(&out).unwrap_or_default())
}

// ---------------------------------------------------------------------------------------------
// GET / DELETE (2025 sessions)

async fn handle_get(State(route): State<Route>, h: HeaderMap) -> Response {
    let Some(id) = h.get(headers::SESSION_ID).and_then(|v| v.to_str().ok()) else {
        return empty(StatusCode::METHOD_NOT_ALLOWED);
    };
    let (tx, rx) = mpsc::channel::<Bytes>(8);
    {
        let Ok(mut map) = route.sessions.map.lock() else {
            return empty(StatusCode::INTERNAL_SERVER_ERROR);
        };
        match map
            .get_mut(id)
            .filter(|e| e.product == route.engine.product.name)
        {
            Some(entry) => entry.get_stream = Some(tx.clone()),
            None => {
                return error_response(
                    StatusCode::NOT_FOUND,
                    &Value::Null,
                    &RpcError::invalid_request("Session not found"),
                )
            }
        }
    }
    // A comment opens the stream; nothing else is sent on it (the server is stateless), and it
    // ends when the session does.
    let _ = tx.try_send(Bytes::from_static(b": stream open\n\n"));
    drop(tx);
    sse_response(Body::new(body::Channel::new(rx)))
}

async fn handle_delete(State(route): State<Route>, h: HeaderMap) -> Response {
    let Some(id) = h.get(headers::SESSION_ID).and_then(|v| v.to_str().ok()) else {
        return empty(StatusCode::METHOD_NOT_ALLOWED);
    };
    let removed = route
        .sessions
        .map
        .lock()
        .ok()
        .and_then(|mut m| {
            if m.get(id)
                .is_some_and(|e| e.product == route.engine.product.name)
            {
                m.remove(id)
            } else {
                None
            }
        })
        .is_some();
    if removed {
        empty(StatusCode::OK)
    } else {
        error_response(
            StatusCode::NOT_FOUND,
            &Value::Null,
            &RpcError::invalid_request("Session not found"),
        )
    }
}

#[allow(dead_code)]
fn _addr(_: SocketAddr) {}

//! Streamable HTTP (axum): both protocol eras on one endpoint.
//!
//! This file moves bytes and speaks HTTP: what a message means (era, `initialize` and sessions,
//! the call context, the time limit, the answer's bytes, batches) is the connection layer's
//! ([`crate::connection`]), as for stdio. Here: the body limit (413), `Mcp-Session-Id`, the
//! `MCP-Protocol-Version` handed to the connection, the 2026 `Mcp-Method`/`Mcp-Name`/
//! `Mcp-Param-*` checks, status codes, and SSE.
//!
//! A response is JSON unless the handler sends a notification (progress, log) or a 2025
//! server→client request before it finishes: then it switches to SSE, streaming those messages
//! and closing with the response. On 2026, a client that closes the stream cancels the request.
//!
//! Layers: Origin/Host guard (403, [`super::guard`]) → auth (when configured) → handler
//! (body-size limit → 413, request time limit → JSON-RPC error). Beside them, unguarded:
//! `/healthz`, `/readyz`, `/metrics` ([`super::health`]) and the caller's extra routes
//! ([`router_with`]). Over all of them: the client address and the per-IP limit
//! ([`super::client`]).

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use serde_json::Value;
use tokio::sync::mpsc;
use tower::{Layer, Service};

use super::auth::{AuthLayer, Authenticate};
use super::body;
use super::client::{Client, ClientLayer};
use super::encoding;
use super::guard::{Guard, GuardLayer};
use super::headers;
use super::layer::LayerFuture;
use super::response::{empty, error_response, json_response, sse_response};
use crate::auth::Authenticated;
use crate::connection::sessions::OpenError;
use crate::connection::{self, Caller, Encoded, Handshake, Outer, Refusal, SessionTable, Step};
use crate::contract::call::Call;
use crate::contract::error::{METHOD_NOT_FOUND, MISSING_CLIENT_CAPABILITY, RATE_LIMITED};
use crate::contract::{Era, RpcError};
use crate::protocol::engine::Engine;
use crate::rpc::jsonrpc::Request as RpcRequest;
use crate::rpc::reply::Reply;
use crate::server::Server;

#[derive(Clone)]
struct Route {
    server: Arc<Server>,
    engine: Arc<Engine>,
    sessions: Arc<SessionTable>,
    /// The path before the endpoint: `/<product>` under several products, empty for one.
    base: String,
}

/// The HTTP service of a server ([`router`]): a `tower` service over every route, cheap to
/// clone (each connection's requests run on a clone).
///
/// Layers, outermost first: the client address and the per-IP limit ([`Client`], over every
/// route: probes, metadata, downloads and unknown paths too, since each is a request anyone can
/// send and `/readyz` asks Redis and the identity service; a load balancer's health checks, one
/// every few seconds, stay far below it), then [`Dispatch`]: an MCP `POST` goes straight to its
/// endpoint through the Origin guard ([`Guard`]) and auth ([`Authenticate`]), everything else
/// through axum's router (GET/DELETE on the endpoint, behind the same two layers; probes,
/// scrapes and the caller's extra routes, outside them).
///
/// The hot path is hand-written `tower` services rather than axum's routing and `from_fn`
/// layers: those cost each `tools/call` about twenty allocations (a boxed future, a `Next`, a
/// cloned state and a boxed service per layer, the route's own, and extensions inserted for the
/// matched path, its parameters and the client address), and a copy of the request's future at
/// each (issue 17).
#[derive(Clone)]
pub struct App {
    inner: Client<Dispatch>,
}

impl App {
    /// This service for one connection, whose peer is `peer` (the client address unless trusted
    /// proxy headers say otherwise).
    pub fn for_peer(self, peer: SocketAddr) -> Self {
        Self {
            inner: self.inner.for_peer(peer),
        }
    }
}

impl<B> Service<axum::http::Request<B>> for App
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = <Client<Dispatch> as Service<Request>>::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Service::<Request>::poll_ready(&mut self.inner, cx)
    }

    fn call(&mut self, req: axum::http::Request<B>) -> Self::Future {
        self.inner.call(req.map(Body::new))
    }
}

/// Sends an MCP `POST` to its endpoint (its handler behind the guard and auth), anything else to
/// axum's router.
#[derive(Clone)]
pub struct Dispatch {
    post: Guard<Authenticate<McpPost>>,
    endpoints: Arc<[Route]>,
    other: Router,
}

impl Service<Request> for Dispatch {
    type Response = Response;
    type Error = Infallible;
    type Future = DispatchFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // Every service below is always ready (axum's router and handlers, our layers).
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> Self::Future {
        if req.method() == Method::POST && endpoint(&self.endpoints, req.uri().path()).is_some() {
            DispatchFuture::Mcp(self.post.call(req))
        } else {
            DispatchFuture::Other(self.other.call(req))
        }
    }
}

/// The answer to one request, as the endpoint's handler starts it: boxed once where it starts,
/// so no layer above ever moves the (large) future.
pub type Answer = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

/// What [`Dispatch`] answers with.
pub enum DispatchFuture {
    Mcp(LayerFuture<LayerFuture<Answer>>),
    Other(axum::routing::future::RouteFuture<Infallible>),
}

impl Future for DispatchFuture {
    type Output = Result<Response, Infallible>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            DispatchFuture::Mcp(f) => Pin::new(f).poll(cx),
            DispatchFuture::Other(f) => Pin::new(f).poll(cx),
        }
    }
}

/// The endpoint a path names: `<base>/mcp`, `<base>/readonly/mcp` or `<base>/x/<toolsets>/mcp`
/// ([`super::selection::ROUTES`], as axum's router matches them: `<toolsets>` one non-empty
/// segment).
fn endpoint<'r>(endpoints: &'r [Route], path: &str) -> Option<&'r Route> {
    endpoints.iter().find(|r| {
        let Some(rest) = path.strip_prefix(r.base.as_str()) else {
            return false;
        };
        rest == "/mcp"
            || rest == "/readonly/mcp"
            || rest
                .strip_prefix("/x/")
                .and_then(|t| t.strip_suffix("/mcp"))
                .is_some_and(|t| !t.is_empty() && !t.contains('/'))
    })
}

/// The MCP endpoints' `POST` handler as a service.
#[derive(Clone)]
struct McpPost {
    endpoints: Arc<[Route]>,
}

impl Service<Request> for McpPost {
    type Response = Response;
    type Error = Infallible;
    type Future = Answer;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> Self::Future {
        match endpoint(&self.endpoints, req.uri().path()) {
            Some(route) => {
                let route = route.clone();
                // No `Content-Length` set here: hyper writes it from the body's exact size.
                Box::pin(async move { Ok(handle_post(route, req).await) })
            }
            // Dispatch sends only endpoint paths here.
            None => Box::pin(std::future::ready(Ok(empty(StatusCode::NOT_FOUND)))),
        }
    }
}

/// The MCP service of a server: `/<product>/mcp` for each product, and `/mcp` too for one. With
/// [`crate::server::ServerConfig::auth`] set, the auth layer runs inside the Origin guard.
pub fn router(server: Arc<Server>) -> App {
    router_with(server, Router::new())
}

/// [`router`] with `extra` routes beside the MCP ones (the CLI's OAuth protected-resource
/// metadata and signed downloads): like the probes, outside the Origin guard and auth, but
/// counted by the per-IP limit like every request.
pub fn router_with(server: Arc<Server>, extra: Router) -> App {
    let sessions = Arc::new(SessionTable::new(server.config.session_limits()));
    router_with_sessions(server, sessions, extra)
}

fn router_with_sessions(server: Arc<Server>, sessions: Arc<SessionTable>, extra: Router) -> App {
    server
        .telemetry()
        .count_sessions(&sessions, SessionTable::len);
    let mut r = Router::new();
    let single = server.engines().len() == 1;
    let mut endpoints = Vec::new();
    // One product answers at `/mcp` and, like under `serve all`, at `/<product>/mcp`: the install
    // lines name the product's path whichever way the server was started.
    let bases = server.engines().iter().flat_map(|engine| {
        let own = format!("/{}", engine.product.name);
        let bases = if single {
            vec![String::new(), own]
        } else {
            vec![own]
        };
        bases.into_iter().map(move |base| (engine, base))
    });
    for (engine, base) in bases {
        let route = Route {
            server: server.clone(),
            engine: engine.clone(),
            sessions: sessions.clone(),
            base: base.clone(),
        };
        // `/mcp`, and the selection paths `/x/<toolsets>/mcp` and `/readonly/mcp`. Their POSTs
        // take the direct path ([`Dispatch`]); the router keeps the same handler for its method
        // routing (405 and `Allow` for other methods).
        for suffix in super::selection::ROUTES {
            r = r.route(
                &format!("{base}{suffix}"),
                post(|State(route): State<Route>, req: Request| handle_post(route, req))
                    .get(handle_get)
                    .delete(handle_delete)
                    .with_state(route.clone()),
            );
        }
        endpoints.push(route);
    }
    let paths: Arc<[String]> = endpoints
        .iter()
        .map(|r| format!("{}/mcp", r.base))
        .collect();
    let endpoints: Arc<[Route]> = endpoints.into();
    let auth = AuthLayer::for_server(server.clone());
    let guard = GuardLayer::new(server.clone());
    let fallback_server = server.clone();
    let post = guard.layer(auth.layer(McpPost {
        endpoints: endpoints.clone(),
    }));
    // No tower-http trace layer: the engine logs one line per request (telemetry::request_log),
    // and a span per HTTP request would cost every request for nothing by default.
    let other = r
        .layer(auth)
        .layer(guard)
        // Probes and scrapes come without Origin or a loopback Host: outside the guard and auth.
        .merge(super::health::router(server.clone()))
        .merge(extra)
        .fallback(move |uri: axum::http::Uri, headers: HeaderMap| {
            let paths = paths.clone();
            let locale = super::client::unrouted_locale(&fallback_server, &headers);
            async move { with_language(not_found(uri.path(), &paths, locale), locale) }
        });
    App {
        inner: ClientLayer::new(server).layer(Dispatch {
            post,
            endpoints,
            other,
        }),
    }
}

/// A path no route serves: a 404 whose JSON body names the MCP endpoints this server has, so a
/// mistyped product or a `/mcp` under `serve all` points at the right URL instead of an empty
/// answer. The message is in `locale` (the server's, or the request's `Accept-Language`).
fn not_found(path: &str, paths: &[String], locale: runtime_model::locale::Locale) -> Response {
    let message = runtime_model::texts::Text::HttpNoEndpoint
        .fill(locale, &[("path", &path), ("paths", &paths.join(", "))]);
    let body = serde_json::json!({
        "error": "not_found",
        "message": message,
        "paths": paths,
    });
    json_response(StatusCode::NOT_FOUND, body.to_string())
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
    let sessions = Arc::new(SessionTable::new(server.config.session_limits()));
    let limits = ConnectionLimits::of(&server.config);
    let app = router_with_sessions(server, sessions.clone(), Router::new());
    tracing::info!(addr = ?listener.local_addr().ok(), "serving MCP over HTTP");
    serve_router(app, listener, limits, async move {
        shutdown.await;
        // Open 2025 GET streams end with their sessions.
        sessions.close_all();
    })
    .await
}

/// How many connections an HTTP listener serves, and how long one may take to send headers.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// Served at once; the next ones wait in the kernel's listen queue.
    pub max_connections: usize,
    /// A connection that does not finish a request's headers within this time (counted from
    /// when it opened, or from its previous answer) is closed.
    pub header_read_timeout: std::time::Duration,
}

impl ConnectionLimits {
    pub fn of(config: &crate::server::ServerConfig) -> Self {
        Self {
            max_connections: config.max_connections.max(1),
            header_read_timeout: config.header_read_timeout,
        }
    }
}

/// Serves `app` on `listener` within `limits` until `shutdown` resolves; in-flight requests are
/// finished. (The CLI serves the MCP service with its metadata and download routes:
/// [`router_with`].)
///
/// The accept loop is ours rather than `axum::serve`'s because that one has neither bound: a
/// connection that never finished its headers was held forever, and connections were unlimited.
/// HTTP/1.1 only: HTTP/2 would escape the header timeout, and MCP clients speak HTTP/1.1.
pub async fn serve_router(
    app: App,
    listener: tokio::net::TcpListener,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::server::graceful::GracefulShutdown;
    use hyper_util::service::TowerToHyperService;

    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let mut http1 = hyper::server::conn::http1::Builder::new();
    http1
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => match slot {
                Ok(s) => s,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: wait, then accept again.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let (stream, peer) = stream;
        // TCP_NODELAY: a listing's answer leaves in more than one write (hyper flushes its write
        // queue once it holds ~400 KB, then sends the page's last segments and the envelope's
        // tail). With Nagle's algorithm that small last write waits for the ACK of the data
        // before it, which the client delays (up to 40 ms): the p99 of `tools/list` was that
        // delay (issue 17; `scripts/bench_more.py` measures it with the option suppressed). Every
        // answer is queued whole before hyper writes it, so no tiny segments result from it.
        let _ = stream.set_nodelay(true);
        // The connection's service knows its peer (the client address of rate limits, logs).
        let service = TowerToHyperService::new(app.clone().for_peer(peer));
        let conn = graceful.watch(http1.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            let _ = conn.await;
            drop(slot);
        });
    }
    graceful.shutdown().await;
    Ok(())
}

/// The HTTP status of an engine answer: 2026 maps -32601 to 404 and -32021 to 400.
fn status_of(era: Era, reply: &Reply) -> StatusCode {
    match (era, reply) {
        (_, Reply::Error(e)) if e.code == RATE_LIMITED => StatusCode::TOO_MANY_REQUESTS,
        (Era::Modern, Reply::Error(e)) if e.code == METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        (Era::Modern, Reply::Error(e)) if e.code == MISSING_CLIENT_CAPABILITY => {
            StatusCode::BAD_REQUEST
        }
        _ => StatusCode::OK,
    }
}

/// The HTTP status of a message refused before it ran.
fn status_of_refusal(why: Refusal) -> StatusCode {
    match why {
        Refusal::Malformed | Refusal::Modern | Refusal::UnsupportedVersion => {
            StatusCode::BAD_REQUEST
        }
        Refusal::UnknownSession => StatusCode::NOT_FOUND,
        Refusal::SelectionChanged => StatusCode::BAD_REQUEST,
    }
}

async fn reply_response(
    era: Era,
    id: &Value,
    reply: Reply,
    coding: encoding::Accepted,
) -> Response {
    let status = status_of(era, &reply);
    let retry_after = retry_after_of(&reply);
    let mut r = encoding::json_answer(status, connection::encode(id, reply), coding).await;
    if let Some(secs) = retry_after {
        r.headers_mut()
            .insert(axum::http::header::RETRY_AFTER, HeaderValue::from(secs));
    }
    r
}

/// The `Retry-After` seconds of a rate-limit error (from its `data.retryAfterSecs`).
fn retry_after_of(reply: &Reply) -> Option<u64> {
    match reply {
        Reply::Error(e) if e.code == RATE_LIMITED => e
            .data
            .as_ref()
            .and_then(|d| d.get("retryAfterSecs"))
            .and_then(Value::as_u64)
            .or(Some(1)),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// POST

fn caller(route: &Route, ext: &axum::http::Extensions, headers: &HeaderMap) -> Caller {
    let accept_language = headers
        .get(axum::http::header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .map(Arc::from);
    match ext.get::<Authenticated>() {
        Some(a) => Caller {
            identity: a.identity.clone(),
            bearer: Some(a.token.clone()),
            selection: None,
            names_selection: false,
            accept_language,
            client_ip: super::peer::ClientAddr::of(ext),
        },
        None => Caller {
            identity: route.server.config.default_identity.clone(),
            bearer: None,
            selection: None,
            names_selection: false,
            accept_language,
            client_ip: super::peer::ClientAddr::of(ext),
        },
    }
}

/// Says which language the answer is in (`Content-Language`) and that it depends on
/// `Accept-Language` (`Vary`), so a cache never serves one person's language to another.
fn with_language(mut resp: Response, locale: runtime_model::locale::Locale) -> Response {
    use axum::http::header::{CONTENT_LANGUAGE, VARY};
    use axum::http::HeaderValue;
    let h = resp.headers_mut();
    h.insert(CONTENT_LANGUAGE, HeaderValue::from_static(locale.tag()));
    h.append(VARY, HeaderValue::from_static("Accept-Language"));
    resp
}

async fn handle_post(route: Route, req: Request) -> Response {
    // The language of the answer: the request's own preference (2026 `_meta`) when it has one,
    // else the header's; the body is read below, so the header's choice comes first.
    let header_locale = route.engine.locale_for(
        req.headers()
            .get(axum::http::header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok()),
    );
    let (resp, locale) = post_answer(route, req).await;
    with_language(resp, locale.unwrap_or(header_locale))
}

/// The answer to a POST, and the locale it used when a request chose one.
async fn post_answer(
    route: Route,
    req: Request,
) -> (Response, Option<runtime_model::locale::Locale>) {
    let (parts, body) = req.into_parts();
    let limit = route.server.config.max_body_bytes;
    let bytes = match body::read_limited(body, limit).await {
        Some(b) => b,
        None => {
            let status = StatusCode::PAYLOAD_TOO_LARGE;
            let ip = super::peer::ClientAddr::of(&parts.extensions);
            crate::telemetry::request_log::log_refused("", "", status.as_u16(), ip);
            let err = RpcError::invalid_request(format!(
                "Request body exceeds the limit of {limit} bytes"
            ));
            return (
                error_response(StatusCode::PAYLOAD_TOO_LARGE, &Value::Null, &err),
                None,
            );
        }
    };
    let mut who = caller(&route, &parts.extensions, &parts.headers);
    let h = &parts.headers;
    match super::selection::resolve(&route.engine.ceiling, h, parts.uri.path(), &route.base) {
        Ok((selection, named)) => {
            who.selection = selection;
            who.names_selection = named;
        }
        Err(why) => {
            // Refused before the body is read: the header's language (the detail names the
            // toolsets, tools and headers as they were sent).
            let locale = route.engine.locale_for(
                h.get(axum::http::header::ACCEPT_LANGUAGE)
                    .and_then(|v| v.to_str().ok()),
            );
            let err = RpcError::invalid_params(super::selection::refusal(&why, locale));
            return (
                error_response(StatusCode::BAD_REQUEST, &Value::Null, &err),
                Some(locale),
            );
        }
    }
    let coding = encoding::negotiate(h);
    let session_id = h.get(headers::SESSION_ID).and_then(|v| v.to_str().ok());
    let outer = match h.get(headers::PROTOCOL_VERSION).map(|v| v.to_str()) {
        Some(Ok(v)) => Outer::Header(v.trim()),
        None => Outer::Absent,
        // Not visible ASCII: no revision is written so; refused, never taken as absent.
        Some(Err(_)) => {
            let shown = h
                .get(headers::PROTOCOL_VERSION)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
                .unwrap_or_default();
            let err = crate::connection::era::unsupported_header(&shown);
            return (
                error_response(StatusCode::BAD_REQUEST, &Value::Null, &err),
                None,
            );
        }
    };
    // Who owns a session is the identity's canonical JSON, not cheap to write: only a request
    // naming a session (or opening one, below) needs it.
    let session = match session_id {
        Some(_) => route
            .sessions
            .lookup(session_id, route.engine.product.name, &who.owner()),
        None => connection::SessionRef::None,
    };
    if connection::is_batch(&bytes) {
        // Boxed, like every branch below: this handler's future would otherwise be as large as
        // its largest branch, and every request would copy it whole when axum boxes it.
        let bounds = route.server.config.batch_bounds();
        let answer = Box::pin(connection::batches::batch(
            &route.engine,
            &bytes,
            session,
            outer,
            &who,
            &bounds,
        ))
        .await;
        let resp = match answer {
            Ok(Some(out)) => {
                encoding::json_answer(StatusCode::OK, Encoded::Whole(out), coding).await
            }
            Ok(None) => empty(StatusCode::ACCEPTED),
            Err(e) => error_response(StatusCode::BAD_REQUEST, &Value::Null, &e),
        };
        return (resp, None);
    }
    match connection::route_bytes(&bytes, session, outer, &who) {
        Step::Notification | Step::Response { delivered: true } => {
            (empty(StatusCode::ACCEPTED), None)
        }
        Step::Response { delivered: false } => (
            error_response(
                StatusCode::BAD_REQUEST,
                &Value::Null,
                &RpcError::invalid_request(
                    "A response to a server request needs the Mcp-Session-Id it belongs to",
                ),
            ),
            None,
        ),
        Step::Refused { id, error, why } => {
            // Refused before any method ran (not JSON-RPC, an unknown session or revision): no
            // engine logs it, so its line is written here.
            let status = status_of_refusal(why);
            let ip = super::peer::ClientAddr::of(&parts.extensions);
            crate::telemetry::request_log::log_refused("", "", status.as_u16(), ip);
            (error_response(status, &id, &error), None)
        }
        Step::Initialize(handshake) => {
            let locale = route
                .engine
                .locale_for(handshake.accept_language.as_deref());
            let answer = initialize(&route, &who.owner(), &handshake, who.client_ip);
            (answer, Some(locale))
        }
        Step::Serve(req, call) => {
            let locale = route.engine.locale(&call);
            if call.era.is_modern() {
                if let Err(mut e) = check_modern_headers(&route, h, &req) {
                    e.message = crate::rpc::protocol_errors::translate(&e.message, locale);
                    return (
                        error_response(StatusCode::BAD_REQUEST, &req.id, &e),
                        Some(locale),
                    );
                }
            }
            if let Some(challenge) =
                super::step_up::challenge(&route.server, &route.engine, &parts, &req, &call)
            {
                return (challenge, Some(locale));
            }
            (Box::pin(run(&route, req, call, coding)).await, Some(locale))
        }
    }
}

/// Opens a 2025 session and answers `initialize` with its `Mcp-Session-Id`.
fn initialize(
    route: &Route,
    owner: &str,
    handshake: &Handshake,
    client_ip: Option<std::net::IpAddr>,
) -> Response {
    let started = std::time::Instant::now();
    let response = open_session(route, owner, handshake);
    // Both refusals (too many sessions, a fault) are internal errors.
    let code =
        (response.status() != StatusCode::OK).then_some(crate::contract::error::INTERNAL_ERROR);
    crate::telemetry::request_log::log_initialize(started, code, client_ip);
    response
}

fn open_session(route: &Route, owner: &str, handshake: &Handshake) -> Response {
    let opened = route
        .sessions
        .open(route.engine.product.name, owner, |id| handshake.session(id));
    let id = match opened {
        Ok(id) => id,
        Err(OpenError::Full) => {
            let err = RpcError::internal("Too many open sessions; try again later");
            return error_response(StatusCode::SERVICE_UNAVAILABLE, &handshake.id, &err);
        }
        Err(OpenError::Fault(err)) => {
            return error_response(StatusCode::INTERNAL_SERVER_ERROR, &handshake.id, &err)
        }
    };
    let mut r = json_response(StatusCode::OK, handshake.answer(&route.engine));
    if let Ok(v) = HeaderValue::from_str(&id) {
        r.headers_mut().insert(headers::SESSION_ID, v);
    }
    r
}

/// The 2026 headers that repeat the body: `Mcp-Method`/`Mcp-Name`, then a tool's `Mcp-Param-*`
/// (-32020, HTTP 400).
fn check_modern_headers(route: &Route, h: &HeaderMap, req: &RpcRequest) -> Result<(), RpcError> {
    headers::check_method_and_name(h, &req.method, &req.params)?;
    if req.method == "tools/call" && route.engine.mirrors_arguments() {
        let idx = req
            .params
            .get("name")
            .and_then(Value::as_str)
            .and_then(|n| route.engine.tool_index(n));
        if let Some(idx) = idx {
            headers::check_param_headers(h, route.engine.param_headers(idx), &req.params)?;
        }
    }
    Ok(())
}

type ReplyFuture = Pin<Box<dyn Future<Output = Reply> + Send>>;

/// Runs one request, answering JSON, or SSE once the handler emits a message before finishing.
async fn run(
    route: &Route,
    req: RpcRequest,
    mut call: Call,
    coding: encoding::Accepted,
) -> Response {
    let era = call.era;
    let limit = route.server.config.request_timeout;
    if !connection::may_send_before_answer(&call) {
        // Nothing can reach the client before the answer: answer JSON without a message channel.
        let reply = connection::answer(&route.engine, &req, &call, limit).await;
        return reply_response(era, &req.id, reply, coding).await;
    }
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    connection::attach(&mut call, tx);
    let id = req.id.clone();
    let engine = route.engine.clone();
    // Polled by a task of its own once the answer streams (the client address goes with it, in
    // the call).
    let mut fut: ReplyFuture =
        Box::pin(async move { connection::answer(&engine, &req, &call, limit).await });
    let first = tokio::select! {
        biased;
        reply = &mut fut => {
            let mut queued = Vec::new();
            while let Ok(m) = rx.try_recv() {
                queued.push(m);
            }
            if queued.is_empty() {
                return reply_response(era, &id, reply, coding).await;
            }
            let mut out = Vec::new();
            for m in queued {
                out.extend_from_slice(&body::sse_event(&m));
            }
            out.extend_from_slice(&body::sse_event(&connection::encode_reply(&id, &reply)));
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
                    let _ = btx.send(body::sse_event(&connection::encode_reply(&id, &reply))).await;
                    return;
                }
            }
        }
    });
    sse_response(Body::new(body::Channel::new(brx)))
}

// ---------------------------------------------------------------------------------------------
// GET / DELETE (2025 sessions)

async fn handle_get(State(route): State<Route>, req: Request) -> Response {
    let owner = caller(&route, req.extensions(), req.headers()).owner();
    let h = req.headers();
    let Some(id) = h.get(headers::SESSION_ID).and_then(|v| v.to_str().ok()) else {
        return empty(StatusCode::METHOD_NOT_ALLOWED);
    };
    let (tx, rx) = mpsc::channel::<Bytes>(8);
    if !route
        .sessions
        .attach_stream(id, route.engine.product.name, &owner, tx.clone())
    {
        return error_response(
            StatusCode::NOT_FOUND,
            &Value::Null,
            &RpcError::invalid_request("Session not found"),
        );
    }
    // A comment opens the stream; nothing else is sent on it (the server is stateless), and it
    // ends when the session does.
    let _ = tx.try_send(Bytes::from_static(b": stream open\n\n"));
    drop(tx);
    sse_response(Body::new(body::Channel::new(rx)))
}

async fn handle_delete(State(route): State<Route>, req: Request) -> Response {
    let owner = caller(&route, req.extensions(), req.headers()).owner();
    let h = req.headers();
    let Some(id) = h.get(headers::SESSION_ID).and_then(|v| v.to_str().ok()) else {
        return empty(StatusCode::METHOD_NOT_ALLOWED);
    };
    // Another identity's session is "not found": it can neither learn of it nor end it.
    if route.sessions.close(id, route.engine.product.name, &owner) {
        empty(StatusCode::OK)
    } else {
        error_response(
            StatusCode::NOT_FOUND,
            &Value::Null,
            &RpcError::invalid_request("Session not found"),
        )
    }
}

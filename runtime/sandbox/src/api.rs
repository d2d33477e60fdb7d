//! `kobana-mcp sandbox serve-api`: the sandbox as a Kobana-like REST API over HTTP, so the proxy
//! backend can be run and tested against a real HTTP upstream.
//!
//! Routes come from every [`HttpBinding`] of every product, mounted under `/<product>`:
//! `GET /banking/v1/bank_billets/{id}` runs the tool bound to `GET /v1/bank_billets/{id}`. Point
//! the proxy at it with an upstream of `http://ADDR/{product}`.
//!
//! Also served: `GET /files/<product>/<type>/<id>?…&sig=…`, the signed downloads (see
//! [`crate::files`]).
//!
//! Bodies are JSON, or for the upload operations (multipart bindings) a `multipart/form-data`
//! form, read back into the tool's arguments the way the proxy built it (file parts base64-encoded
//! into their argument, bracketed text names into objects and arrays, text typed by the input
//! schema), so the proxy → serve-api path runs the same sandbox call as a direct one.
//!
//! Idempotency, as the Kobana API does: a write (any method but GET) carrying an
//! `Idempotency-Key` (or `X-Idempotency-Key`) already answered for the same token and the same
//! request (method, path, query, body) answers the first response again without running
//! anything; the same key with another request is 422 `idempotency_key_reused`; while the first
//! request runs, the same key is 409 `idempotency_key_in_use`. A request that failed (nothing
//! changed) frees its key. Keys are kept for the life of the process; beyond it, the sandbox's
//! store keeps a keyed write's answer for 24 h, so the same key sent to the same operation after a
//! restart is answered that first response too (marked replayed).
//!
//! Fault injection (serve-api only; never reachable from the MCP side): the request header
//! `X-Sandbox-Fault`, or faults queued through [`Faults`] (tests) or `POST /_sandbox/faults`
//! (when enabled): `timeout[:ms]`, `500`, `503[:retry_after]`, `429[:retry_after]`, `truncate`,
//! `malformed`, `reset` (the write runs, the answer breaks off).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Multipart, Path, RawQuery, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use runtime_model::backend::{Backend, BackendError, CallContext, Output};
use runtime_model::catalog::{Binding, BodyMode, FileField, HttpBinding, Operation, Product, Tool};
use runtime_model::identity::Identity;
use runtime_model::upload;
use serde_json::{json, Map, Value};

use crate::envelope;
use crate::files::FileRef;
use crate::{store, Sandbox};

/// Resolves a bearer token to an identity; `None` answers 401.
pub type IdentityLookup = Arc<dyn Fn(&str) -> Option<Identity> + Send + Sync>;

/// The identity used by [`any_token`]: every scope and permission, one organization.
pub fn demo_identity() -> Identity {
    Identity {
        person: "person_demo".into(),
        name: "Demo".into(),
        organization: crate::DEMO_ORGANIZATION.into(),
        scopes: ["all".to_string()].into_iter().collect(),
        permissions: ["*".to_string()].into_iter().collect(),
        workspaces: Default::default(),
        default_workspace: Some(crate::DEMO_WORKSPACE.into()),
    }
}

/// Accepts any bearer token as [`demo_identity`] (tests, `serve-api --any-token`). The CLI
/// otherwise resolves tokens with the embedded identities file.
pub fn any_token() -> IdentityLookup {
    Arc::new(|_token: &str| Some(demo_identity()))
}

/// An injected failure.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// Process the request, then wait this long before answering.
    Timeout(Duration),
    /// Answer this status, with `Retry-After` seconds when given.
    Status(u16, Option<u64>),
    /// Cut the JSON body in half.
    Truncate,
    /// Answer a body that is not JSON with a JSON content type.
    Malformed,
    /// Process the request, send the status and half the body, then break the connection.
    Reset,
}

impl Fault {
    pub fn parse(s: &str) -> Result<Fault, String> {
        let (head, arg) = match s.trim().split_once(':') {
            Some((h, a)) => (h, Some(a)),
            None => (s.trim(), None),
        };
        let num = |a: Option<&str>| -> Result<Option<u64>, String> {
            a.map(|v| {
                v.parse::<u64>()
                    .map_err(|_| format!("fault `{s}`: `{v}` is not a number"))
            })
            .transpose()
        };
        Ok(match head {
            "timeout" => Fault::Timeout(Duration::from_millis(num(arg)?.unwrap_or(30_000))),
            "truncate" => Fault::Truncate,
            "malformed" => Fault::Malformed,
            "reset" => Fault::Reset,
            code => {
                let status = code
                    .parse::<u16>()
                    .ok()
                    .filter(|c| (400..600).contains(c))
                    .ok_or_else(|| format!("unknown fault `{s}` (timeout[:ms], 4xx/5xx[:retry_after], truncate, malformed, reset)"))?;
                Fault::Status(status, num(arg)?)
            }
        })
    }
}

/// Faults queued for the next requests (one per request, in order).
#[derive(Debug, Clone, Default)]
pub struct Faults(Arc<Mutex<VecDeque<Fault>>>);

impl Faults {
    pub fn push(&self, fault: Fault) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push_back(fault);
    }
    fn next(&self) -> Option<Fault> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).pop_front()
    }
    pub fn clear(&self) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

type Replay = (StatusCode, String, Bytes);

/// Shared state of the REST API.
#[derive(Clone)]
pub struct ApiState {
    pub sandbox: Sandbox,
    pub products: Vec<&'static Product>,
    pub identities: IdentityLookup,
    pub faults: Faults,
    /// Whether `POST /_sandbox/faults` is mounted.
    pub admin: bool,
    idempotent: Arc<Mutex<HashMap<(String, String), Slot>>>,
}

impl ApiState {
    pub fn new(
        sandbox: Sandbox,
        products: Vec<&'static Product>,
        identities: IdentityLookup,
    ) -> Self {
        ApiState {
            sandbox,
            products,
            identities,
            faults: Faults::default(),
            admin: false,
            idempotent: Arc::new(Mutex::new(HashMap::new())),
        }
    }
}

/// The whole REST API.
pub fn router(state: ApiState) -> Router {
    let mut r = Router::new();
    if state.admin {
        r = r.route("/_sandbox/faults", post(queue_fault));
    }
    r.merge(files_router(state.sandbox.clone(), state.products.clone()))
        .fallback(handle)
        .with_state(state)
}

/// The signed download route alone, for servers that hand out the sandbox's signed URLs.
pub fn files_router<S>(sandbox: Sandbox, products: Vec<&'static Product>) -> Router<S> {
    Router::new()
        .route("/files/{product}/{record}/{id}", get(download))
        .with_state((sandbox, products))
}

async fn queue_fault(State(state): State<ApiState>, body: Bytes) -> Response {
    let text = String::from_utf8_lossy(&body);
    let spec = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v.get("fault").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| text.trim().to_string());
    match Fault::parse(&spec) {
        Ok(f) => {
            state.faults.push(f);
            (StatusCode::NO_CONTENT, "").into_response()
        }
        Err(e) => error(StatusCode::BAD_REQUEST, "invalid_fault", &e),
    }
}

fn error(status: StatusCode, code: &str, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        json!({"status": status.as_u16(), "error": code, "message": message}).to_string(),
    )
        .into_response()
}

fn backend_error(e: &BackendError) -> Response {
    let (status, code) = match e {
        BackendError::NotFound(_) => (StatusCode::NOT_FOUND, "not_found"),
        BackendError::Invalid(_) => (StatusCode::UNPROCESSABLE_ENTITY, "invalid"),
        BackendError::Conflict(_) => (StatusCode::CONFLICT, "invalid_state"),
        BackendError::Upstream { .. } => (StatusCode::BAD_GATEWAY, "upstream_error"),
        BackendError::Unavailable(_) | BackendError::OutcomeUnknown(_) => {
            (StatusCode::SERVICE_UNAVAILABLE, "unavailable")
        }
        BackendError::Unsupported(_) => (StatusCode::NOT_IMPLEMENTED, "unsupported"),
        BackendError::Storage(_) => (StatusCode::INTERNAL_SERVER_ERROR, "storage"),
    };
    error(status, code, &e.to_string())
}

fn method_of(m: &Method) -> Option<runtime_model::catalog::HttpMethod> {
    use runtime_model::catalog::HttpMethod as H;
    Some(match *m {
        Method::GET => H::Get,
        Method::POST => H::Post,
        Method::PUT => H::Put,
        Method::PATCH => H::Patch,
        Method::DELETE => H::Delete,
        _ => return None,
    })
}

fn segments(path: &str) -> Vec<&str> {
    path.split('/').filter(|s| !s.is_empty()).collect()
}

/// A matched route: the tool, its binding, and the path variables' values.
type Matched<'p> = (
    &'static Tool,
    &'static HttpBinding,
    Vec<(&'static str, &'p str)>,
);

/// The tool whose binding matches, preferring the most literal segments, and its path variables.
fn route<'p>(
    product: &'static Product,
    method: runtime_model::catalog::HttpMethod,
    rest: &[&'p str],
) -> Option<Matched<'p>> {
    let mut best: Option<(usize, Matched<'p>)> = None;
    for tool in product.tools {
        let Binding::Http(ref h) = tool.binding else {
            continue;
        };
        if h.method != method {
            continue;
        }
        let pattern = segments(h.path);
        if pattern.len() != rest.len() {
            continue;
        }
        let mut vars = Vec::new();
        let mut literal = 0;
        let ok = pattern.iter().zip(rest).all(|(p, s)| {
            if let Some(var) = p.strip_prefix('{').and_then(|v| v.strip_suffix('}')) {
                vars.push((var, *s));
                true
            } else if p == s {
                literal += 1;
                true
            } else {
                false
            }
        });
        if ok && best.as_ref().is_none_or(|b| literal > b.0) {
            best = Some((literal, (tool, h, vars)));
        }
    }
    best.map(|(_, m)| m)
}

/// Decodes a path segment or query component the way HTTP servers do: `%XX` escapes, invalid
/// UTF-8 replaced, and (in a query only) `+` as a space.
fn percent_decode(s: &str, plus_is_space: bool) -> String {
    let spaced;
    let s = if plus_is_space && s.contains('+') {
        spaced = s.replace('+', " ");
        &spaced
    } else {
        s
    };
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

/// Query pairs as arguments: repeated keys and `key[]` become arrays.
fn query_args(query: Option<&str>, args: &mut Map<String, Value>) {
    let Some(q) = query else { return };
    for pair in q.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (k, v) = (percent_decode(k, true), percent_decode(v, true));
        let (k, is_array) = match k.strip_suffix("[]") {
            Some(base) => (base.to_string(), true),
            None => (k, false),
        };
        match args.get_mut(&k) {
            Some(Value::Array(a)) => a.push(Value::String(v)),
            Some(existing) => {
                let first = existing.take();
                *existing = Value::Array(vec![first, Value::String(v)]);
            }
            None if is_array => {
                args.insert(k, Value::Array(vec![Value::String(v)]));
            }
            None => {
                args.insert(k, Value::String(v));
            }
        }
    }
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = v.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_string())
        .filter(|t| !t.is_empty())
}

/// `GET /<product>/v2/me`: who the bearer is, in the shape of the Kobana API's identity endpoint
/// (`data.account`, `data.user`, `data.access_token`, `data.workspaces`), so that a proxy using
/// the upstream resolver authenticates the demo tokens against this API (the README's proxy
/// quick start).
fn me(state: &ApiState, headers: &HeaderMap) -> Response {
    let Some(token) = bearer(headers) else {
        return error(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "missing bearer token",
        );
    };
    let Some(identity) = (state.identities)(&token) else {
        return error(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "invalid bearer token",
        );
    };
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        envelope::me(&identity, &envelope::token_uid(&token)).to_string(),
    )
        .into_response()
}

async fn handle(
    State(state): State<ApiState>,
    method: Method,
    uri: axum::http::Uri,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let fault = match headers.get("x-sandbox-fault").map(|v| v.to_str()) {
        Some(Ok(spec)) => match Fault::parse(spec) {
            Ok(f) => Some(f),
            Err(e) => return error(StatusCode::BAD_REQUEST, "invalid_fault", &e),
        },
        Some(Err(_)) => {
            return error(
                StatusCode::BAD_REQUEST,
                "invalid_fault",
                "unreadable X-Sandbox-Fault",
            )
        }
        None => state.faults.next(),
    };
    if let Some(Fault::Status(code, retry_after)) = fault {
        let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut resp = error(
            status,
            "injected_fault",
            &format!("injected fault: HTTP {code}"),
        );
        if let Some(secs) = retry_after {
            if let Ok(v) = secs.to_string().parse() {
                resp.headers_mut().insert(header::RETRY_AFTER, v);
            }
        }
        return resp;
    }
    let resp = run(
        &state,
        &method,
        uri.path(),
        query.as_deref(),
        &headers,
        &body,
    )
    .await;
    if let Some(Fault::Timeout(d)) = fault {
        // The request is processed, only the answer is late: the case where a retry without an
        // idempotency key would run the call twice.
        tokio::time::sleep(d).await;
    }
    match fault {
        Some(Fault::Truncate) => corrupt(resp, true).await,
        Some(Fault::Malformed) => corrupt(resp, false).await,
        Some(Fault::Reset) => reset(resp).await,
        _ => resp,
    }
}

/// The answer's status and first half, then an error that makes the server drop the connection:
/// the client sees the write accepted and the connection broken before the answer ended.
async fn reset(resp: Response) -> Response {
    let status = resp.status();
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap_or_default();
    let half = bytes.slice(0..bytes.len() / 2);
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        Body::new(BrokenBody(Some(half))),
    )
        .into_response()
}

/// A body that yields its bytes, then fails (see [`reset`]).
struct BrokenBody(Option<Bytes>);

impl http_body::Body for BrokenBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        std::task::Poll::Ready(Some(match self.0.take() {
            Some(b) => Ok(http_body::Frame::data(b)),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionReset,
                "injected fault: connection reset",
            )),
        }))
    }
}

async fn corrupt(resp: Response, truncate: bool) -> Response {
    let status = resp.status();
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .unwrap_or_default();
    let body = if truncate {
        bytes.slice(0..bytes.len() / 2)
    } else {
        Bytes::from_static(b"<html>502 Bad Gateway</html>{not json")
    };
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        Body::from(body),
    )
        .into_response()
}

async fn run(
    state: &ApiState,
    method: &Method,
    path: &str,
    query: Option<&str>,
    headers: &HeaderMap,
    body: &Bytes,
) -> Response {
    let segs = segments(path);
    let Some((first, rest)) = segs.split_first() else {
        return error(
            StatusCode::NOT_FOUND,
            "not_found",
            "no route: give /<product>/<api path>",
        );
    };
    let Some(product) = state.products.iter().copied().find(|p| p.name == *first) else {
        return error(
            StatusCode::NOT_FOUND,
            "not_found",
            &format!("no product `{first}`"),
        );
    };
    let Some(m) = method_of(method) else {
        return error(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            method.as_str(),
        );
    };
    if m == runtime_model::catalog::HttpMethod::Get && rest == ["v2", "me"] {
        return me(state, headers);
    }
    let Some((tool, binding, vars)) = route(product, m, rest) else {
        return error(
            StatusCode::NOT_FOUND,
            "not_found",
            &format!("no {} route for {path}", method.as_str()),
        );
    };
    let Some(token) = bearer(headers) else {
        return error(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "missing bearer token",
        );
    };
    let Some(identity) = (state.identities)(&token) else {
        return error(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "invalid bearer token",
        );
    };

    let mut args = Map::new();
    let is_form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.to_ascii_lowercase().starts_with("multipart/form-data"));
    if is_form {
        let BodyMode::Multipart { files } = binding.body else {
            return error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "invalid_body",
                &format!(
                    "{} {path} takes a JSON body, not a multipart form",
                    method.as_str()
                ),
            );
        };
        match form_args(headers, body, files, tool).await {
            Ok(a) => args = a,
            Err(resp) => return resp,
        }
    } else if !body.is_empty() {
        match serde_json::from_slice::<Value>(body) {
            Ok(Value::Object(obj)) => {
                for (k, v) in obj {
                    match (v, &binding.body) {
                        (
                            Value::Object(inner),
                            runtime_model::catalog::BodyMode::Wrapped(key, _),
                        ) if k == *key => args.extend(inner),
                        (v, _) => {
                            args.insert(k, v);
                        }
                    }
                }
            }
            Ok(_) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    "invalid_body",
                    "the body must be a JSON object",
                )
            }
            Err(e) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    "invalid_body",
                    &format!("the body is not JSON: {e}"),
                )
            }
        }
    }
    query_args(query, &mut args);
    for (var, value) in vars {
        let arg = binding
            .path_params
            .iter()
            .find(|(v, _)| *v == var)
            .map(|(_, a)| *a)
            .unwrap_or(var);
        args.insert(arg.to_string(), Value::String(percent_decode(value, false)));
    }

    let idem = headers
        .get("idempotency-key")
        .or_else(|| headers.get("x-idempotency-key"))
        .and_then(|v| v.to_str().ok())
        .filter(|k| !k.is_empty())
        .map(str::to_string);
    let replay_key = idem
        .clone()
        .filter(|_| *method != Method::GET)
        .map(|k| (token.clone(), k));
    let request = RequestPrint::of(method, path, query, body);
    if let Some(key) = &replay_key {
        let mut seen = state.idempotent.lock().unwrap_or_else(|p| p.into_inner());
        match seen.get(key) {
            Some(slot) if slot.request() != &request => {
                return error(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "idempotency_key_reused",
                    &format!(
                        "this Idempotency-Key was first used for another request ({}); use a new key for a new request",
                        slot.request().summary
                    ),
                );
            }
            Some(Slot::InFlight(_)) => {
                return error(
                    StatusCode::CONFLICT,
                    "idempotency_key_in_use",
                    "a request with this Idempotency-Key is still being processed; retry later with the same key",
                );
            }
            Some(Slot::Done(_, (status, ct, bytes))) => {
                let mut resp = (
                    *status,
                    [(header::CONTENT_TYPE, ct.clone())],
                    Body::from(bytes.clone()),
                )
                    .into_response();
                mark_replayed(&mut resp);
                return resp;
            }
            None => {
                seen.insert(key.clone(), Slot::InFlight(request.clone()));
            }
        }
    }
    let workspace = headers
        .get("kobana-workspace-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .or_else(|| identity.default_workspace.clone());
    let ctx = CallContext {
        product,
        identity: identity.into(),
        bearer_token: Some(token),
        workspace,
        idempotency_key: idem,
        locale: product.default_locale,
        progress: Default::default(),
        attempts: Default::default(),
    };
    let started = std::time::Instant::now();
    // A list page comes as its records' stored text, sent as it is.
    let outcome = state.sandbox.call_json_text(&ctx, tool, &args).await;
    tracing::info!(
        method = method.as_str(),
        path,
        tool = tool.name,
        ms = started.elapsed().as_millis() as u64,
        ok = outcome.is_ok(),
        "serve-api request"
    );
    let ok_status = if matches!(tool.operation, Operation::Create { .. }) {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let json_type = || "application/json".to_string();
    // The sandbox's store keeps a keyed write's answer (24 h) beyond this process's memory of
    // its keys: when it answers a key it already ran (serve-api restarted since, or another
    // token of the same organization used the key), that is the first answer again.
    let (outcome, replayed) = match outcome {
        Ok(Output::Replayed(first)) => (Ok(*first), true),
        other => (other, false),
    };
    let answer = match outcome {
        Ok(Output::Json(v)) => Ok((ok_status, json_type(), Bytes::from(v.to_string()))),
        Ok(Output::JsonText(text)) => Ok((ok_status, json_type(), Bytes::from(text.into_string()))),
        Ok(Output::Bytes { mime_type, data }) => Ok((StatusCode::OK, mime_type, Bytes::from(data))),
        Ok(Output::Replayed(_)) => Err(error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "the sandbox answered a replay of a replay",
        )),
        Err(e) => Err(backend_error(&e)),
    };
    let (status, ct, bytes) = match answer {
        Ok(a) => a,
        Err(resp) => {
            // Nothing changed: the key is free for a retry of the same request.
            if let Some(key) = &replay_key {
                state
                    .idempotent
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(key);
            }
            return resp;
        }
    };
    if let Some(key) = replay_key {
        state
            .idempotent
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(
                key,
                Slot::Done(request, (status, ct.clone(), bytes.clone())),
            );
    }
    let mut resp = (status, [(header::CONTENT_TYPE, ct)], Body::from(bytes)).into_response();
    if replayed {
        mark_replayed(&mut resp);
    }
    resp
}

/// Marks an answer as the first answer of its idempotency key again (nothing ran).
fn mark_replayed(resp: &mut Response) {
    resp.headers_mut().insert(
        runtime_model::backend::IDEMPOTENT_REPLAYED,
        header::HeaderValue::from_static("true"),
    );
}

/// What identifies a request for its idempotency key: method, path, query and body.
#[derive(Debug, Clone, PartialEq)]
struct RequestPrint {
    summary: String,
    body: Bytes,
}

impl RequestPrint {
    fn of(method: &Method, path: &str, query: Option<&str>, body: &Bytes) -> Self {
        let summary = match query {
            Some(q) if !q.is_empty() => format!("{} {path}?{q}", method.as_str()),
            _ => format!("{} {path}", method.as_str()),
        };
        RequestPrint {
            summary,
            body: body.clone(),
        }
    }
}

/// One idempotency key's request, and its answer once it has one.
#[derive(Debug, Clone)]
enum Slot {
    InFlight(RequestPrint),
    Done(RequestPrint, Replay),
}

impl Slot {
    fn request(&self) -> &RequestPrint {
        match self {
            Slot::InFlight(r) | Slot::Done(r, _) => r,
        }
    }
}

/// The arguments a multipart form carries for an upload tool.
async fn form_args(
    headers: &HeaderMap,
    body: &Bytes,
    files: &'static [FileField],
    tool: &'static Tool,
) -> Result<Map<String, Value>, Response> {
    let invalid = |m: String| error(StatusCode::BAD_REQUEST, "invalid_body", &m);
    let mut request = axum::http::Request::new(Body::from(body.clone()));
    if let Some(ct) = headers.get(header::CONTENT_TYPE) {
        request
            .headers_mut()
            .insert(header::CONTENT_TYPE, ct.clone());
    }
    let mut form = Multipart::from_request(request, &())
        .await
        .map_err(|e| invalid(format!("the multipart form cannot be read: {e}")))?;
    let mut texts = Vec::new();
    let mut uploads = Vec::new();
    loop {
        let field = match form.next_field().await {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(e) => return Err(invalid(format!("the multipart form is malformed: {e}"))),
        };
        let name = field.name().unwrap_or_default().to_string();
        let filename = field.file_name().map(str::to_string);
        let data = field
            .bytes()
            .await
            .map_err(|e| invalid(format!("the form part `{name}` cannot be read: {e}")))?;
        match filename {
            Some(f) => uploads.push((name, Some(f), data.to_vec())),
            None => {
                let value = String::from_utf8(data.to_vec())
                    .map_err(|_| invalid(format!("the text part `{name}` is not UTF-8")))?;
                texts.push(upload::TextPart { name, value });
            }
        }
    }
    let args = upload::args_from_form(files, texts, uploads).map_err(|e| backend_error(&e))?;
    let mut value = Value::Object(args);
    if let Ok(schema) = serde_json::from_str::<Value>(tool.input_schema_json) {
        upload::coerce_to_schema(&mut value, &schema);
    }
    match value {
        Value::Object(m) => Ok(m),
        _ => Ok(Map::new()),
    }
}

async fn download(
    State((sandbox, products)): State<(Sandbox, Vec<&'static Product>)>,
    Path((product, record, id)): Path<(String, String, String)>,
    RawQuery(query): RawQuery,
) -> Response {
    let mut q = Map::new();
    query_args(query.as_deref(), &mut q);
    let get = |k: &str| {
        q.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let Some(p) = products.iter().copied().find(|p| p.name == product) else {
        return error(
            StatusCode::NOT_FOUND,
            "not_found",
            &format!("no product `{product}`"),
        );
    };
    let Some(rt) = p.record(&record) else {
        return error(
            StatusCode::NOT_FOUND,
            "not_found",
            &format!("no record type `{record}`"),
        );
    };
    let Ok(expires) = get("expires").parse::<i64>() else {
        return error(
            StatusCode::FORBIDDEN,
            "invalid_signature",
            "`expires` is missing or not a number",
        );
    };
    let r = FileRef {
        product: product.clone(),
        record: record.clone(),
        id: id.clone(),
        organization: get("org"),
        workspace: get("ws"),
        expires,
    };
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    if let Err(why) = sandbox.files().verify(&r, &get("sig"), now) {
        return error(StatusCode::FORBIDDEN, "invalid_signature", why);
    }
    let scope = store::Scope {
        product,
        organization: r.organization.clone(),
        workspace: r.workspace.clone(),
    };
    let sb = sandbox.clone();
    let found = sandbox
        .blocking(move || sb.record_blocking(&scope, &record, &id))
        .await;
    match found {
        Ok(Ok(Some(row))) => {
            let is_mail = rt.name.contains("email")
                || rt.name.contains("message")
                || rt.fields.iter().any(|f| f.name == "subject");
            if is_mail {
                (
                    [(header::CONTENT_TYPE, "message/rfc822")],
                    crate::files::eml(rt, &row.json),
                )
                    .into_response()
            } else {
                (
                    [(header::CONTENT_TYPE, "application/pdf")],
                    crate::files::pdf(rt, &row.json),
                )
                    .into_response()
            }
        }
        Ok(Ok(None)) => error(
            StatusCode::NOT_FOUND,
            "not_found",
            "the record no longer exists",
        ),
        Ok(Err(e)) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            &e.to_string(),
        ),
        Err(e) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            &e.to_string(),
        ),
    }
}

/// Serves the REST API on an already bound listener until the process stops.
pub async fn serve(listener: tokio::net::TcpListener, state: ApiState) -> std::io::Result<()> {
    axum::serve(listener, router(state)).await
}

#[cfg(test)]
#[path = "api_tests.rs"]
mod tests;

//! The upstream proxy backend: every tool call becomes one request to the Kobana API.
//!
//! - Host: the product's `api_base_url` from the catalog, or the server's configured override
//!   ([`UpstreamConfig::base_url`], from the CLI/config/env only). Nothing a client sends (header,
//!   argument) can change it: arguments only fill the binding's path variables, which are
//!   percent-encoded as one segment each.
//! - Request: path, query and body from the tool's [`HttpBinding`]; the caller's bearer token;
//!   `Kobana-Workspace-Id` when the call runs in a workspace. A multipart binding (a file upload)
//!   sends a real `multipart/form-data` form: the base64 file arguments decoded into file parts,
//!   the other arguments as text parts (see [`runtime_model::upload`]); a file argument that is
//!   not base64 is [`BackendError::Invalid`] naming it, and nothing is sent.
//! - Every attempt has a timeout. Reads (read-only tools) with idempotent methods are retried a
//!   bounded number of times on timeouts, connection failures, 429, 500, 502, 503 and 504, with
//!   exponential backoff, honouring `Retry-After`. A write (a tool that is not read-only) is
//!   sent once — unless it carries an idempotency key and [`UpstreamConfig::retry_keyed_writes`]
//!   says the upstream honours keys. A connection that could not be opened sent nothing: a call
//!   that is retried tries again, and one sent once (an unkeyed write) reports it as
//!   [`BackendError::Unavailable`], "nothing was sent", never as an unknown outcome. A fan-out
//!   part ([`Backend::call_once`], `resources/list`'s listings) is never retried: one failing
//!   part would hold up the whole answer for its backoff.
//! - The idempotency key is the engine's ([`CallContext::idempotency_key`]; its one home is
//!   `confirm::idempotency`), sent as `Idempotency-Key` and `X-Idempotency-Key` on every attempt.
//! - Answers: 2xx JSON → [`Output::Json`]; 2xx non-JSON (PDF, XML) → [`Output::Bytes`]; a
//!   write's 2xx marked `Idempotent-Replayed: true` → [`Output::Replayed`] (nothing new ran); 404 →
//!   [`BackendError::NotFound`]; other 4xx/5xx → [`BackendError::Upstream`] with the API's
//!   message; unreadable or malformed JSON, timeouts → [`BackendError::Unavailable`] saying so.
//!   For a write, a timeout or broken connection after sending, a 5xx, an unreadable 2xx answer,
//!   or a 409 on our own retry is [`BackendError::OutcomeUnknown`]: it may have run.
//! - Errors name the product, never the upstream URL (that goes to the log).
//! - Connections: HTTP/1.1 (one request per connection at a time), so the calls in flight to an
//!   API host are its open connections. [`UpstreamConfig::max_connections`] caps them per host
//!   (scheme, host and port: `{product}` bases on one host share the cap, as they share reqwest's
//!   pool) and the pool keeps at most that many idle; [`UpstreamConfig::max_per_tool`] caps each
//!   tool's share, so a tool stuck on a slow API path holds at most that many and the others keep
//!   theirs (no head-of-line blocking). A call waits for its slots (its tool's first, so a slow
//!   tool's queue never holds a host slot) at most the attempt timeout; one that gets none is
//!   [`BackendError::Unavailable`], nothing sent.

use runtime_model::backend::IDEMPOTENT_REPLAYED;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE, RETRY_AFTER};
use runtime_model::backend::{Backend, BackendError, BoxFuture, CallContext, Output};
use runtime_model::catalog::{
    Binding, BodyMode, HttpBinding, HttpMethod, Operation, Product, Tool,
};
use runtime_model::upload::{self, Form};
use runtime_model::uri_template::{encode_component, UriTemplate};
use serde_json::{Map, Value};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Largest upstream answer read (bigger ones are refused, not buffered).
const MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;

/// Proxy settings. Built by the CLI from flags, config file and environment — never from a request.
#[derive(Debug, Clone)]
pub struct UpstreamConfig {
    /// Base URL for every product, overriding the catalogs' `api_base_url`. `{product}` is
    /// replaced by the product name (`http://127.0.0.1:9000/{product}` for `sandbox serve-api`).
    pub base_url: Option<String>,
    /// Per-product base URLs (win over `base_url`).
    pub product_base_urls: HashMap<String, String>,
    /// Timeout of each attempt (connect + answer).
    pub timeout: Duration,
    /// Attempts for idempotent methods (1 = no retry).
    pub max_attempts: u32,
    /// First backoff delay; doubled on each retry.
    pub backoff: Duration,
    /// Longest `Retry-After` honoured; a longer one ends the retries.
    pub max_retry_after: Duration,
    /// Token sent when the call carries none (a stdio connection's `KOBANA_ACCESS_TOKEN`).
    pub default_token: Option<String>,
    /// Whether a write that carries an idempotency key may be retried: only when the upstream
    /// honours the key (the same key answers the first result). Off by default: a write is then
    /// sent once, and an unknown outcome is reported as such.
    pub retry_keyed_writes: bool,
    /// Most calls in flight to one API host at once, so most connections open to it (HTTP/1.1:
    /// one per call in flight), and most idle ones kept for reuse. 0: no cap.
    pub max_connections: usize,
    /// Most of those a single tool may hold at once, so one slow tool cannot take every
    /// connection and hold up the calls of the others. 0: no cap besides `max_connections`.
    pub max_per_tool: usize,
}

/// Default [`UpstreamConfig::max_connections`]: a thousand clients each with a call in flight
/// (issue 40's load) get a connection each.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// Default [`UpstreamConfig::max_per_tool`]: half the connections, so a tool whose API path
/// stalls leaves the other half to every other tool.
pub const DEFAULT_MAX_PER_TOOL: usize = 512;

impl UpstreamConfig {
    /// The caps in words, for `doctor` and the startup log line: `1024 connections per API
    /// host, 512 per tool`.
    pub fn limits_text(&self) -> String {
        let cap = |n: usize| {
            if n == 0 {
                "no cap".to_string()
            } else {
                n.to_string()
            }
        };
        format!(
            "{} connections per API host, {} per tool (a tool's calls beyond it wait; the others do not)",
            cap(self.max_connections),
            cap(self.per_tool_cap())
        )
    }

    /// The per-tool cap as applied: never above `max_connections`.
    fn per_tool_cap(&self) -> usize {
        match (self.max_per_tool, self.max_connections) {
            (0, host) => host,
            (tool, 0) => tool,
            (tool, host) => tool.min(host),
        }
    }
}

impl Default for UpstreamConfig {
    fn default() -> Self {
        UpstreamConfig {
            base_url: None,
            product_base_urls: HashMap::new(),
            timeout: Duration::from_secs(20),
            max_attempts: 3,
            backoff: Duration::from_millis(200),
            max_retry_after: Duration::from_secs(10),
            default_token: None,
            retry_keyed_writes: false,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_per_tool: DEFAULT_MAX_PER_TOOL,
        }
    }
}

/// The proxy backend.
#[derive(Debug, Clone)]
pub struct Upstream {
    client: reqwest::Client,
    config: UpstreamConfig,
    gates: Arc<Gates>,
}

/// The slots of [`UpstreamConfig::max_connections`] (per API host) and
/// [`UpstreamConfig::max_per_tool`] (per host and tool), made on first use.
#[derive(Debug, Default)]
struct Gates {
    hosts: Mutex<HashMap<String, Arc<Semaphore>>>,
    tools: Mutex<HashMap<(String, &'static str), Arc<Semaphore>>>,
}

/// The slots one attempt holds until its answer is read.
struct Slots {
    _tool: Option<OwnedSemaphorePermit>,
    _host: Option<OwnedSemaphorePermit>,
}

fn gate<K: std::hash::Hash + Eq>(
    map: &Mutex<HashMap<K, Arc<Semaphore>>>,
    key: K,
    permits: usize,
) -> Option<Arc<Semaphore>> {
    if permits == 0 {
        return None;
    }
    let mut map = map.lock().unwrap_or_else(|p| p.into_inner());
    Some(
        map.entry(key)
            .or_insert_with(|| Arc::new(Semaphore::new(permits)))
            .clone(),
    )
}

/// The connection pool's key of a URL: scheme, host and port.
fn host_of(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(u) => format!(
            "{}://{}:{}",
            u.scheme(),
            u.host_str().unwrap_or_default(),
            u.port_or_known_default().unwrap_or_default()
        ),
        Err(_) => url.to_string(),
    }
}

impl Upstream {
    pub fn new(config: UpstreamConfig) -> Result<Self, String> {
        let mut builder = reqwest::Client::builder();
        if config.max_connections > 0 {
            // Idle connections beyond the cap would be connections the cap never lets be used.
            builder = builder.pool_max_idle_per_host(config.max_connections);
        }
        let client = builder
            .timeout(config.timeout)
            .connect_timeout(config.timeout)
            .user_agent(concat!("kobana-mcp/", env!("CARGO_PKG_VERSION")))
            // Never follow a redirect to another host with the caller's token.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Upstream {
            client,
            config,
            gates: Arc::default(),
        })
    }

    /// Waits for a slot of `tool` on `host`, then one of `host` ([`Gates`]), at most the attempt
    /// timeout; `None` when none came in time.
    async fn slots(&self, host: &str, tool: &'static str) -> Option<Slots> {
        let tool_gate = gate(
            &self.gates.tools,
            (host.to_string(), tool),
            self.config.per_tool_cap(),
        );
        let host_gate = gate(
            &self.gates.hosts,
            host.to_string(),
            self.config.max_connections,
        );
        let wait = async {
            let tool = match tool_gate {
                Some(g) => Some(g.acquire_owned().await.ok()?),
                None => None,
            };
            let host = match host_gate {
                Some(g) => Some(g.acquire_owned().await.ok()?),
                None => None,
            };
            Some(Slots {
                _tool: tool,
                _host: host,
            })
        };
        tokio::time::timeout(self.config.timeout, wait)
            .await
            .ok()
            .flatten()
    }

    /// The API base URL used for a product.
    pub fn base_url(&self, product: &Product) -> String {
        let raw = self
            .config
            .product_base_urls
            .get(product.name)
            .or(self.config.base_url.as_ref())
            .map(|s| s.replace("{product}", product.name))
            .unwrap_or_else(|| product.api_base_url.to_string());
        raw.trim_end_matches('/').to_string()
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The body of an upstream request.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestBody {
    Json(Value),
    /// A `multipart/form-data` form, rebuilt into a request for each attempt.
    Multipart(Form),
}

/// The request a binding makes from the arguments: path (with query) and body.
pub fn build_request(
    tool: &Tool,
    binding: &HttpBinding,
    args: &Map<String, Value>,
) -> Result<(String, Option<RequestBody>), BackendError> {
    let mut values: Vec<(&str, String)> = Vec::new();
    let mut used: Vec<&str> = Vec::new();
    for (var, arg) in binding.path_params {
        let value = match args.get(*arg) {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            Some(other) if !other.is_null() => {
                return Err(BackendError::Invalid(format!(
                    "`{arg}` must be a string or number (path of {}), got {other}",
                    tool.name
                )))
            }
            _ => {
                return Err(BackendError::Invalid(format!(
                    "`{arg}` is required (path of {})",
                    tool.name
                )))
            }
        };
        values.push((var, value));
        used.push(arg);
    }
    // One segment per value, `.` and `..` included (see `uri_template::encode_component`).
    let mut path = UriTemplate::parse(binding.path)
        .ok()
        .and_then(|t| t.fill(|var| values.iter().find(|(v, _)| *v == var).map(|(_, x)| x)))
        .ok_or_else(|| {
            BackendError::Invalid(format!(
                "the path `{}` of {} has a variable that is not a path parameter",
                binding.path, tool.name
            ))
        })?;
    let mut query: Vec<String> = Vec::new();
    for name in binding.query_params {
        used.push(name);
        match args.get(*name) {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for item in items {
                    query.push(format!(
                        "{}[]={}",
                        encode_component(name),
                        encode_component(&scalar(item))
                    ));
                }
            }
            Some(v) => query.push(format!(
                "{}={}",
                encode_component(name),
                encode_component(&scalar(v))
            )),
        }
    }
    if !query.is_empty() {
        path.push('?');
        path.push_str(&query.join("&"));
    }
    let pick = |fields: &[&str]| -> Map<String, Value> {
        fields
            .iter()
            .filter_map(|f| args.get(*f).map(|v| (f.to_string(), v.clone())))
            .collect()
    };
    let body = match binding.body {
        BodyMode::None => None,
        BodyMode::Fields(fields) => Some(RequestBody::Json(Value::Object(pick(fields)))),
        BodyMode::Rest => Some(RequestBody::Json(Value::Object(
            args.iter()
                .filter(|(k, _)| !used.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ))),
        BodyMode::Wrapped(key, fields) => {
            let mut outer = Map::new();
            outer.insert(key.to_string(), Value::Object(pick(fields)));
            Some(RequestBody::Json(Value::Object(outer)))
        }
        BodyMode::Multipart { files } => Some(RequestBody::Multipart(upload::build_form(
            files, args, &used,
        )?)),
    };
    Ok((path, body))
}

/// Whether a call writes: its tool is not read-only. A write is sent at most once unless it
/// carries an idempotency key and [`UpstreamConfig::retry_keyed_writes`] says the upstream
/// honours it; its timeouts, broken connections and 5xx are [`BackendError::OutcomeUnknown`].
pub fn is_write(tool: &Tool) -> bool {
    !tool.annotations.read_only
}

/// The message of an upstream error body (`message`, `error`, `errors[…]`), else its text.
fn upstream_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let from_json = serde_json::from_slice::<Value>(body).ok().and_then(|v| {
        let s = |v: &Value| v.as_str().map(str::to_string);
        s(&v["message"])
            .or_else(|| s(&v["error"]["message"]))
            .or_else(|| s(&v["error"]))
            .or_else(|| {
                v["errors"].as_array().map(|errs| {
                    errs.iter()
                        .filter_map(|e| {
                            s(e).or_else(|| s(&e["detail"]))
                                .or_else(|| s(&e["title"]))
                                .or_else(|| s(&e["message"]))
                        })
                        .collect::<Vec<_>>()
                        .join("; ")
                })
            })
            .filter(|m| !m.is_empty())
    });
    let msg = from_json.unwrap_or_else(|| text.trim().to_string());
    let mut msg: String = msg.chars().take(500).collect();
    if msg.is_empty() {
        msg = "(empty body)".into();
    }
    msg
}

enum Attempt {
    Done(Result<Output, BackendError>),
    /// A failure that a retry may fix, with the delay the server asked for. For a write, an
    /// [`BackendError::OutcomeUnknown`] here means the request may have run.
    Retry(BackendError, Option<Duration>),
}

/// A reqwest error as a client may see it: without the URL (internal hosts stay in the logs).
fn describe(e: reqwest::Error) -> String {
    use std::error::Error as _;
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    headers
        .get(RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}

/// A reqwest form from a [`Form`] (built anew for each attempt: a form is consumed by sending).
fn multipart_form(form: &Form) -> reqwest::multipart::Form {
    let mut out = reqwest::multipart::Form::new();
    for t in &form.texts {
        out = out.text(t.name.clone(), t.value.clone());
    }
    for f in &form.files {
        let part = reqwest::multipart::Part::bytes(f.data.clone()).file_name(f.filename.clone());
        // The media type comes from the catalog; one reqwest cannot parse is sent as bytes.
        let part = match part.mime_str(&f.media_type) {
            Ok(p) => p,
            Err(_) => reqwest::multipart::Part::bytes(f.data.clone())
                .file_name(f.filename.clone())
                .mime_str(upload::OCTET_STREAM)
                .unwrap_or_else(|_| reqwest::multipart::Part::bytes(f.data.clone())),
        };
        out = out.part(f.name.clone(), part);
    }
    out
}

fn is_json(ct: &str) -> bool {
    ct.is_empty() || ct.contains("json")
}

/// How one attempt of a call is judged.
#[derive(Clone, Copy)]
struct Sent {
    /// The tool writes ([`is_write`]).
    write: bool,
    /// This is a retry of an attempt whose outcome is unknown.
    retry: bool,
    /// The tool, whose share of the connections the attempt takes ([`Gates`]).
    tool: &'static str,
}

impl Upstream {
    /// "the Kobana API (banking)": how clients see the upstream (never its URL).
    fn api(ctx: &CallContext) -> String {
        format!("the Kobana API ({})", ctx.product.name)
    }

    async fn attempt(
        &self,
        ctx: &CallContext,
        method: reqwest::Method,
        url: &str,
        headers: &HeaderMap,
        body: Option<&RequestBody>,
        sent: Sent,
    ) -> Attempt {
        let api = Self::api(ctx);
        let ms = self.config.timeout.as_millis();
        // Held until the answer is read: the connection is busy until then.
        let Some(_slots) = self.slots(&host_of(url), sent.tool).await else {
            tracing::warn!(
                product = ctx.product.name,
                tool = sent.tool,
                "upstream connection slots all busy"
            );
            return Attempt::Done(Err(BackendError::Unavailable(format!(
                "{api} has as many calls in flight from this server as it allows ({}); none ended within {ms} ms; nothing was sent",
                self.config.limits_text()
            ))));
        };
        let method_name = method.as_str().to_string();
        let mut req = self.client.request(method, url).headers(headers.clone());
        match body {
            Some(RequestBody::Json(b)) => req = req.json(b),
            Some(RequestBody::Multipart(form)) => req = req.multipart(multipart_form(form)),
            None => {}
        }
        let started = std::time::Instant::now();
        let sent_at = req.send().await;
        let (status, error) = match &sent_at {
            Ok(r) => (Some(r.status().as_u16()), None),
            Err(e) if e.is_timeout() => (None, Some("timeout")),
            Err(e) if e.is_connect() => (None, Some("connect_error")),
            Err(_) => (None, Some("connection_broken")),
        };
        let request_id = sent_at.as_ref().ok().and_then(|r| {
            r.headers()
                .get("x-request-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        });
        ctx.attempts.report(&runtime_model::backend::HttpAttempt {
            product: ctx.product.name,
            method: &method_name,
            took: started.elapsed(),
            status,
            error,
            request_id: request_id.as_deref(),
        });
        let resp = match sent_at {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(product = ctx.product.name, url, error = %e, "upstream request failed");
                // Not connected: nothing was sent, whatever the method.
                if e.is_connect() {
                    return Attempt::Retry(
                        BackendError::Unavailable(format!(
                            "cannot reach {api}: {}; nothing was sent",
                            describe(e)
                        )),
                        None,
                    );
                }
                let what = if e.is_timeout() {
                    format!("{api} did not answer within {ms} ms")
                } else {
                    format!("the connection to {api} broke: {}", describe(e))
                };
                let err = if sent.write {
                    BackendError::OutcomeUnknown(format!("{what} after the request was sent"))
                } else {
                    BackendError::Unavailable(what)
                };
                return Attempt::Retry(err, None);
            }
        };
        let status = resp.status().as_u16();
        let wait = retry_after(resp.headers());
        // The API answered the stored result of an earlier request with this key: say so.
        let replayed = sent.write
            && resp
                .headers()
                .get(IDEMPOTENT_REPLAYED)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        let mark = move |out: Output| {
            if replayed {
                Output::Replayed(Box::new(out))
            } else {
                out
            }
        };
        // A redirect is where the answer is (a ready export file, "será um redirect"): the
        // caller gets that address, not an error, and nothing follows it with the caller's token.
        if (300..400).contains(&status) {
            if let Some(location) = redirect_target(url, resp.headers()) {
                return Attempt::Done(Ok(mark(Output::Json(serde_json::json!({
                    "http_status": status,
                    "location": location,
                })))));
            }
        }
        let ct = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        // A write the API accepted (2xx) ran: an answer we cannot read leaves its outcome unknown
        // to the caller, never "failed".
        let unreadable = |why: String| -> BackendError {
            if sent.write && (200..300).contains(&status) {
                BackendError::OutcomeUnknown(format!(
                    "{api} accepted the request (HTTP {status}) but {why}"
                ))
            } else {
                BackendError::Unavailable(format!("{api} {why} (HTTP {status})"))
            }
        };
        if resp
            .content_length()
            .is_some_and(|n| n as usize > MAX_RESPONSE_BYTES)
        {
            return Attempt::Done(Err(unreadable(format!(
                "its answer is larger than {MAX_RESPONSE_BYTES} bytes"
            ))));
        }
        let bytes = match resp.bytes().await {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!(product = ctx.product.name, url, error = %e, "upstream answer unreadable");
                let why = if e.is_timeout() {
                    format!("its answer did not arrive within {ms} ms")
                } else {
                    format!("its answer could not be read completely: {}", describe(e))
                };
                let err = unreadable(why);
                return if sent.write || !e_is_retryable(status) {
                    Attempt::Done(Err(err))
                } else {
                    Attempt::Retry(err, None)
                };
            }
        };
        if (200..300).contains(&status) {
            if !is_json(&ct) {
                let mime = ct.split(';').next().unwrap_or("").trim().to_string();
                return Attempt::Done(Ok(mark(Output::Bytes {
                    mime_type: mime,
                    data: bytes.to_vec(),
                })));
            }
            if bytes.iter().all(u8::is_ascii_whitespace) {
                return Attempt::Done(Ok(mark(Output::Json(Value::Object(Map::new())))));
            }
            return Attempt::Done(match serde_json::from_slice::<Value>(&bytes) {
                Ok(v) => Ok(mark(Output::Json(v))),
                Err(e) => Err(unreadable(format!(
                    "answered malformed JSON ({} bytes): {e}",
                    bytes.len()
                ))),
            });
        }
        let message = upstream_message(&bytes);
        if sent.write && (status >= 500 || (status == 409 && sent.retry)) {
            // 5xx after sending: it may have run. 409 on our own retry: most likely the first
            // attempt ran (the record changed state, or the key is still being processed).
            let err = BackendError::OutcomeUnknown(format!(
                "{api} answered HTTP {status} ({message}) after the request was sent"
            ));
            return if status >= 500 {
                Attempt::Retry(err, wait)
            } else {
                Attempt::Done(Err(err))
            };
        }
        let err = if status == 404 {
            BackendError::NotFound(message)
        } else {
            BackendError::Upstream { status, message }
        };
        if matches!(status, 429 | 500 | 502 | 503 | 504) {
            Attempt::Retry(err, wait)
        } else {
            Attempt::Done(Err(err))
        }
    }

    /// One call: `retries` says whether a failed read may be sent again per the config
    /// (`false` for [`Backend::call_once`]: a fan-out part gets one attempt).
    async fn forward(
        &self,
        ctx: &CallContext,
        tool: &'static Tool,
        args: &Map<String, Value>,
        retries: bool,
    ) -> Result<Output, BackendError> {
        let Binding::Http(ref binding) = tool.binding else {
            return Err(BackendError::Unsupported(format!(
                "`{}` has no HTTP binding to forward (it is an extension tool)",
                tool.name
            )));
        };
        let (path, body) = build_request(tool, binding, args)?;
        let url = format!("{}{}", self.base_url(ctx.product), path);
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static(ACCEPTED));
        if let Some(token) = ctx
            .bearer_token
            .as_ref()
            .or(self.config.default_token.as_ref())
        {
            let v = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
                BackendError::Invalid(
                    "the bearer token has characters a header cannot carry".into(),
                )
            })?;
            headers.insert(AUTHORIZATION, v);
        }
        if let Some(ws) = ctx
            .workspace
            .as_ref()
            .filter(|_| ctx.product.policy.workspaced)
        {
            if let Ok(v) = HeaderValue::from_str(ws) {
                headers.insert("kobana-workspace-id", v);
            }
        }
        let write = is_write(tool);
        // The engine's key (see `confirm::idempotency`), under both spellings: Kobana's API
        // documents `X-Idempotency-Key`; `Idempotency-Key` is the common one.
        let keyed = match ctx.idempotency_key.as_deref().filter(|k| !k.is_empty()) {
            Some(key) => match HeaderValue::from_str(key) {
                Ok(v) => {
                    headers.insert("idempotency-key", v.clone());
                    headers.insert("x-idempotency-key", v);
                    true
                }
                Err(_) => false,
            },
            None => false,
        };
        let method = match binding.method {
            HttpMethod::Get => reqwest::Method::GET,
            HttpMethod::Post => reqwest::Method::POST,
            HttpMethod::Put => reqwest::Method::PUT,
            HttpMethod::Patch => reqwest::Method::PATCH,
            HttpMethod::Delete => reqwest::Method::DELETE,
        };
        let retryable = if write {
            keyed && self.config.retry_keyed_writes
        } else {
            binding.method.is_idempotent()
        };
        let attempts = if retryable && retries {
            self.config.max_attempts.max(1)
        } else {
            1
        };
        let mut delay = self.config.backoff;
        let mut n = 1;
        // The first attempt whose outcome is unknown: once one may have run, no later answer
        // can say the call failed.
        let mut uncertain: Option<String> = None;
        let result = loop {
            let sent = Sent {
                write,
                retry: uncertain.is_some(),
                tool: tool.name,
            };
            match self
                .attempt(ctx, method.clone(), &url, &headers, body.as_ref(), sent)
                .await
            {
                Attempt::Done(result) => break result,
                Attempt::Retry(err, wait) => {
                    if let BackendError::OutcomeUnknown(m) = &err {
                        uncertain.get_or_insert_with(|| m.clone());
                    }
                    if n >= attempts {
                        break Err(err);
                    }
                    let pause = match wait {
                        Some(w) if w > self.config.max_retry_after => break Err(err),
                        Some(w) => w,
                        None => delay,
                    };
                    tracing::debug!(tool = tool.name, attempt = n, ?pause, error = %err, "retrying upstream call");
                    tokio::time::sleep(pause).await;
                    delay = delay.saturating_mul(2);
                    n += 1;
                }
            }
        };
        match (result, uncertain) {
            (Err(BackendError::OutcomeUnknown(m)), _) => Err(BackendError::OutcomeUnknown(m)),
            (Err(last), Some(first)) => Err(BackendError::OutcomeUnknown(format!(
                "{first}; a retry with the same idempotency key then answered: {last}"
            ))),
            (result, _) => result,
        }
    }
}

fn e_is_retryable(status: u16) -> bool {
    (200..300).contains(&status) || matches!(status, 429 | 500 | 502 | 503 | 504)
}

impl Backend for Upstream {
    fn call<'a>(
        &'a self,
        ctx: &'a CallContext,
        tool: &'static Tool,
        args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        Box::pin(self.answer(ctx, tool, args, true))
    }

    /// One attempt, whatever [`UpstreamConfig::max_attempts`] says: a fan-out part's failure
    /// is left out of its answer at once, not retried with backoff while the others wait.
    fn call_once<'a>(
        &'a self,
        ctx: &'a CallContext,
        tool: &'static Tool,
        args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        Box::pin(self.answer(ctx, tool, args, false))
    }
}

impl Upstream {
    /// [`Backend::call`]'s answer, the failed reads retried when `retries` holds.
    async fn answer(
        &self,
        ctx: &CallContext,
        tool: &'static Tool,
        args: &Map<String, Value>,
        retries: bool,
    ) -> Result<Output, BackendError> {
        let out = self.forward(ctx, tool, args, retries).await?;
        if let (
            Operation::GetWhere {
                record,
                id_arg,
                field,
                value,
            },
            Output::Json(v),
        ) = (tool.operation, &out)
        {
            // The endpoint reads a wider type (any payment): answer only records of this
            // tool's kind, as the sandbox does.
            let rec = v.get("data").filter(|d| d.is_object()).unwrap_or(v);
            let got = rec.get(field).map(|g| match g {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
            if got.as_deref() != Some(value) {
                let id = args.get(id_arg).map(|v| v.to_string()).unwrap_or_default();
                return Err(BackendError::NotFound(format!(
                    "{record} {id} with {field} `{value}` (its {field} is `{}`)",
                    got.unwrap_or_default()
                )));
            }
        }
        Ok(out)
    }
}

/// What every forwarded request accepts: JSON first, and whatever else an operation documents
/// (a CNAB file's `text/plain`, a PDF): a non-JSON answer is passed on as a file. Sending
/// `application/json` alone made a validating API refuse the operations that answer files (406).
const ACCEPTED: &str = "application/json, */*;q=0.5";

/// The absolute address a 3xx answer points to (its `Location`, resolved against the request's
/// URL); `None` when it names none or none that parses.
fn redirect_target(request_url: &str, headers: &HeaderMap) -> Option<String> {
    let location = headers.get(reqwest::header::LOCATION)?.to_str().ok()?;
    let base = reqwest::Url::parse(request_url).ok()?;
    base.join(location.trim()).ok().map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn upstream_messages_are_extracted() {
        assert_eq!(upstream_message(br#"{"message":"boom"}"#), "boom");
        assert_eq!(
            upstream_message(br#"{"errors":[{"title":"a"},{"detail":"b"}]}"#),
            "a; b"
        );
        assert_eq!(upstream_message(br#"{"error":{"message":"x"}}"#), "x");
        assert_eq!(upstream_message(b"plain text"), "plain text");
        assert_eq!(upstream_message(b""), "(empty body)");
    }

    #[test]
    fn path_arguments_cannot_retarget_the_host() {
        static BINDING: HttpBinding = HttpBinding {
            method: HttpMethod::Get,
            path: "/v1/things/{id}",
            path_params: &[("id", "id")],
            query_params: &["status"],
            body: BodyMode::None,
            operation_ref: None,
        };
        static TOOL: Tool = Tool {
            annotations: runtime_model::catalog::Annotations {
                read_only: true,
                idempotent: true,
                open_world: true,
                ..runtime_model::catalog::Annotations::NONE
            },
            ..Tool::bare("t", Binding::Http(BINDING))
        };
        let args = json!({"id": "../../@evil.example/x?y=1", "status": ["a b", "c"]});
        let (path, body) = build_request(&TOOL, &BINDING, args.as_object().unwrap()).unwrap();
        assert_eq!(
            path,
            "/v1/things/..%2F..%2F%40evil.example%2Fx%3Fy%3D1?status[]=a%20b&status[]=c"
        );
        assert!(body.is_none());
        let err = build_request(&TOOL, &BINDING, &Map::new()).unwrap_err();
        assert_eq!(
            err,
            BackendError::Invalid("`id` is required (path of t)".into())
        );
    }

    mod multipart {
        use super::*;
        use axum::extract::Multipart;
        use axum::http::{HeaderMap as AxumHeaders, StatusCode};
        use std::sync::{Arc, Mutex};
        use std::time::Duration;

        use runtime_model::catalog::FileField;

        static FILES: &[FileField] = &[
            FileField {
                arg: &["source"],
                filename_arg: Some(&["source_filename"]),
                filename_is_field: false,
                default_filename: "extrato.ret",
                media_type: "text/plain",
            },
            FileField {
                arg: &["files", "pfx_file"],
                filename_arg: None,
                filename_is_field: false,
                default_filename: "certificate.pfx",
                media_type: "application/x-pkcs12",
            },
        ];
        static BINDING: HttpBinding = HttpBinding {
            method: HttpMethod::Post,
            path: "/v2/accounts/{account_uid}/imports",
            path_params: &[("account_uid", "account_uid")],
            query_params: &[],
            body: BodyMode::Multipart { files: FILES },
            operation_ref: None,
        };
        static TOOL: Tool = Tool::bare("upload", Binding::Http(BINDING));

        /// One part as the test server parsed it: name, filename, content type, bytes.
        type SeenPart = (String, Option<String>, Option<String>, Vec<u8>);

        #[derive(Default)]
        struct Seen {
            requests: usize,
            path: String,
            content_type: String,
            idempotency_key: Option<String>,
            parts: Vec<SeenPart>,
        }

        /// A server that parses every request as a multipart form; answers `status`.
        async fn server(status: StatusCode) -> (String, Arc<Mutex<Seen>>) {
            let seen = Arc::new(Mutex::new(Seen::default()));
            let state = seen.clone();
            let app = axum::Router::new().fallback(
                move |uri: axum::http::Uri, headers: AxumHeaders, mut form: Multipart| {
                    let state = state.clone();
                    async move {
                        let mut parts = Vec::new();
                        while let Some(field) = form.next_field().await.unwrap() {
                            let name = field.name().unwrap_or_default().to_string();
                            let filename = field.file_name().map(str::to_string);
                            let ct = field.content_type().map(str::to_string);
                            let bytes = field.bytes().await.unwrap().to_vec();
                            parts.push((name, filename, ct, bytes));
                        }
                        let mut s = state.lock().unwrap();
                        s.requests += 1;
                        s.path = uri.path().to_string();
                        s.content_type = headers
                            .get("content-type")
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or_default()
                            .to_string();
                        s.idempotency_key = headers
                            .get("idempotency-key")
                            .and_then(|v| v.to_str().ok())
                            .map(str::to_string);
                        s.parts = parts;
                        (
                            status,
                            [("content-type", "application/json")],
                            r#"{"uid":"imp_1","status":"enqueued"}"#,
                        )
                    }
                },
            );
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let base = format!("http://{}", listener.local_addr().unwrap());
            tokio::spawn(async move { axum::serve(listener, app).await });
            (base, seen)
        }

        pub(super) fn upstream(base: &str) -> Upstream {
            Upstream::new(UpstreamConfig {
                base_url: Some(base.to_string()),
                timeout: Duration::from_secs(5),
                backoff: Duration::from_millis(10),
                ..UpstreamConfig::default()
            })
            .unwrap()
        }

        pub(super) fn ctx() -> CallContext {
            crate::backend::upstream::write_path_tests::ctx_with(
                Some(&"k".repeat(64)),
                Default::default(),
            )
        }

        fn args() -> Map<String, Value> {
            json!({
                "account_uid": "acc_1",
                // "CNAB\n" followed by two non-UTF-8 bytes.
                "source": "Q05BQgr//g==",
                "source_filename": "RET 01.ret",
                "external_id": "ext-9",
                "amount": 12.5,
                "notify": true,
                "custom_data": {"codigo": "123", "vip": false},
                "tags": ["a", "b"],
                "files": {"pfx_file": "AAEC/w==", "pfx_password": "s3cret"},
                "ignored": null,
            })
            .as_object()
            .cloned()
            .unwrap()
        }

        #[tokio::test]
        async fn uploads_are_sent_as_a_real_multipart_form() {
            let (base, seen) = server(StatusCode::CREATED).await;
            let out = upstream(&base).call(&ctx(), &TOOL, &args()).await.unwrap();
            assert_eq!(
                out,
                Output::Json(json!({"uid": "imp_1", "status": "enqueued"}))
            );
            let s = seen.lock().unwrap();
            assert_eq!(s.requests, 1);
            assert_eq!(s.path, "/v2/accounts/acc_1/imports");
            assert!(
                s.content_type.starts_with("multipart/form-data; boundary="),
                "{}",
                s.content_type
            );
            assert_eq!(s.idempotency_key, Some("k".repeat(64)), "the engine's key");
            let text = |name: &str, value: &str| -> SeenPart {
                (name.into(), None, None, value.as_bytes().to_vec())
            };
            assert_eq!(
                s.parts,
                vec![
                    text("external_id", "ext-9"),
                    text("amount", "12.5"),
                    text("notify", "true"),
                    text("custom_data[codigo]", "123"),
                    text("custom_data[vip]", "false"),
                    text("tags[]", "a"),
                    text("tags[]", "b"),
                    text("files[pfx_password]", "s3cret"),
                    (
                        "source".into(),
                        Some("RET 01.ret".into()),
                        Some("text/plain".into()),
                        b"CNAB\n\xff\xfe".to_vec()
                    ),
                    (
                        "files[pfx_file]".into(),
                        Some("certificate.pfx".into()),
                        Some("application/x-pkcs12".into()),
                        vec![0, 1, 2, 255]
                    ),
                ]
            );
        }

        #[tokio::test]
        async fn bad_base64_is_refused_before_any_request() {
            let (base, seen) = server(StatusCode::CREATED).await;
            let mut a = args();
            a.insert("files".into(), json!({"pfx_file": "%%% not base64"}));
            let err = upstream(&base).call(&ctx(), &TOOL, &a).await.unwrap_err();
            match err {
                BackendError::Invalid(m) => {
                    assert!(m.starts_with("`files.pfx_file` is not valid base64"), "{m}")
                }
                other => panic!("{other:?}"),
            }
            assert_eq!(seen.lock().unwrap().requests, 0);
        }

        #[tokio::test]
        async fn a_failed_upload_is_not_retried() {
            let (base, seen) = server(StatusCode::SERVICE_UNAVAILABLE).await;
            let err = upstream(&base)
                .call(&ctx(), &TOOL, &args())
                .await
                .unwrap_err();
            // A 5xx after sending a write: it may have run; sent once, never "failed".
            assert!(
                matches!(&err, BackendError::OutcomeUnknown(m) if m.contains("HTTP 503") && !m.contains("127.0.0.1")),
                "{err:?}"
            );
            assert_eq!(seen.lock().unwrap().requests, 1);
        }
    }

    /// The connection caps: calls in flight to one host are capped, and a tool stuck on a slow
    /// path holds only its share, so the other tools' calls go through meanwhile. Proved with a
    /// gate the test opens, never with timing.
    mod limits {
        use super::multipart::ctx;
        use super::*;
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Arc;
        use tokio::sync::watch;

        static SLOW: HttpBinding = HttpBinding {
            method: HttpMethod::Get,
            path: "/slow",
            path_params: &[],
            query_params: &[],
            body: BodyMode::None,
            operation_ref: None,
        };
        static FAST: HttpBinding = HttpBinding {
            path: "/fast",
            ..SLOW
        };
        const READ: runtime_model::catalog::Annotations = runtime_model::catalog::Annotations {
            read_only: true,
            idempotent: true,
            ..runtime_model::catalog::Annotations::NONE
        };
        static SLOW_TOOL: Tool = Tool {
            annotations: READ,
            ..Tool::bare("slow_list", Binding::Http(SLOW))
        };
        static FAST_TOOL: Tool = Tool {
            annotations: READ,
            ..Tool::bare("fast_list", Binding::Http(FAST))
        };

        /// `/slow` answers once the test opens the gate; `/fast` at once. Counts the slow
        /// requests in flight now and at most.
        struct Api {
            base: String,
            slow_now: Arc<AtomicUsize>,
            slow_peak: Arc<AtomicUsize>,
            open: watch::Sender<bool>,
        }

        async fn api() -> Api {
            let (open, gate) = watch::channel(false);
            let slow_now = Arc::new(AtomicUsize::new(0));
            let slow_peak = Arc::new(AtomicUsize::new(0));
            let (now, peak) = (slow_now.clone(), slow_peak.clone());
            let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
                let (now, peak, mut gate) = (now.clone(), peak.clone(), gate.clone());
                async move {
                    if uri.path() == "/slow" {
                        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                        peak.fetch_max(n, Ordering::SeqCst);
                        let _ = gate.wait_for(|open| *open).await;
                        now.fetch_sub(1, Ordering::SeqCst);
                    }
                    ([("content-type", "application/json")], "[]")
                }
            });
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let base = format!("http://{}", listener.local_addr().unwrap());
            tokio::spawn(async move { axum::serve(listener, app).await });
            Api {
                base,
                slow_now,
                slow_peak,
                open,
            }
        }

        fn upstream(base: &str, max_connections: usize, max_per_tool: usize) -> Arc<Upstream> {
            Arc::new(
                Upstream::new(UpstreamConfig {
                    base_url: Some(base.to_string()),
                    timeout: Duration::from_secs(30),
                    max_connections,
                    max_per_tool,
                    ..UpstreamConfig::default()
                })
                .unwrap(),
            )
        }

        /// Starts `n` calls of the slow tool, each on its own task.
        fn start_slow(up: &Arc<Upstream>, n: usize) -> Vec<tokio::task::JoinHandle<bool>> {
            (0..n)
                .map(|_| {
                    let up = up.clone();
                    tokio::spawn(
                        async move { up.call(&ctx(), &SLOW_TOOL, &Map::new()).await.is_ok() },
                    )
                })
                .collect()
        }

        /// Waits (the test's only wait) until the API holds `n` slow requests.
        async fn until_in_flight(api: &Api, n: usize) {
            for _ in 0..3000 {
                if api.slow_now.load(Ordering::SeqCst) >= n {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            panic!(
                "the API never held {n} slow requests (holds {})",
                api.slow_now.load(Ordering::SeqCst)
            );
        }

        async fn finish(api: &Api, calls: Vec<tokio::task::JoinHandle<bool>>) {
            api.open.send_replace(true);
            for c in calls {
                assert!(c.await.unwrap(), "a slow call failed once let through");
            }
        }

        #[tokio::test]
        async fn calls_in_flight_to_one_host_are_capped() {
            let api = api().await;
            let up = upstream(&api.base, 2, 0);
            let calls = start_slow(&up, 5);
            until_in_flight(&api, 2).await;
            // The three others wait for a connection; once the first two end, they go.
            for _ in 0..20 {
                tokio::task::yield_now().await;
            }
            assert_eq!(api.slow_now.load(Ordering::SeqCst), 2);
            finish(&api, calls).await;
            assert_eq!(
                api.slow_peak.load(Ordering::SeqCst),
                2,
                "never more than the cap"
            );
        }

        #[tokio::test]
        async fn a_slow_tool_does_not_hold_up_the_others() {
            let api = api().await;
            // Three connections, at most two for one tool: the slow tool's four calls hold two.
            let up = upstream(&api.base, 3, 2);
            let slow = start_slow(&up, 4);
            until_in_flight(&api, 2).await;
            // Another tool's calls, one after another and two at once, all answered while the
            // slow ones are still outstanding.
            for _ in 0..3 {
                assert!(up.call(&ctx(), &FAST_TOOL, &Map::new()).await.is_ok());
            }
            let (c, none) = (ctx(), Map::new());
            let (a, b) = tokio::join!(
                up.call(&c, &FAST_TOOL, &none),
                up.call(&c, &FAST_TOOL, &none)
            );
            assert!(a.is_ok() && b.is_ok());
            assert!(
                slow.iter().all(|c| !c.is_finished()),
                "no slow call ended yet"
            );
            assert_eq!(
                api.slow_now.load(Ordering::SeqCst),
                2,
                "the slow tool holds only its share"
            );
            finish(&api, slow).await;
            assert_eq!(api.slow_peak.load(Ordering::SeqCst), 2);
        }
    }

    /// What the API answers beyond JSON: a redirect to a ready file, and a file itself.
    mod answers {
        use super::multipart::{ctx, upstream};
        use super::*;
        use axum::http::{HeaderMap as AxumHeaders, StatusCode};
        use std::sync::{Arc, Mutex};

        static BINDING: HttpBinding = HttpBinding {
            method: HttpMethod::Get,
            path: "/v1/exports/{id}",
            path_params: &[("id", "id")],
            query_params: &[],
            body: BodyMode::None,
            operation_ref: None,
        };
        static TOOL: Tool = Tool {
            annotations: runtime_model::catalog::Annotations {
                read_only: true,
                ..runtime_model::catalog::Annotations::NONE
            },
            ..Tool::bare("export_get", Binding::Http(BINDING))
        };

        /// Answers `/v1/exports/ready` with a 302 to a relative file path, `/v1/exports/raw`
        /// with a text file, and records the `Accept` of each request.
        async fn api() -> (String, Arc<Mutex<Vec<String>>>) {
            let accepts = Arc::new(Mutex::new(Vec::new()));
            let seen = accepts.clone();
            let app =
                axum::Router::new().fallback(move |uri: axum::http::Uri, headers: AxumHeaders| {
                    let seen = seen.clone();
                    async move {
                        let accept = headers
                            .get("accept")
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or_default()
                            .to_string();
                        seen.lock().unwrap().push(accept);
                        match uri.path() {
                            "/v1/exports/ready" => (
                                StatusCode::FOUND,
                                [("location", "/files/export-7.csv?sig=abc")],
                                String::new(),
                            ),
                            _ => (
                                StatusCode::OK,
                                [("content-type", "text/plain")],
                                "01REMESSA".to_string(),
                            ),
                        }
                    }
                });
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let base = format!("http://{}", listener.local_addr().unwrap());
            tokio::spawn(async move { axum::serve(listener, app).await });
            (base, accepts)
        }

        fn id(id: &str) -> Map<String, Value> {
            json!({ "id": id }).as_object().cloned().unwrap()
        }

        /// A documented redirect (a ready export) is where the file is: the caller gets its
        /// absolute address, not `upstream_error "HTTP 302"`, and nothing follows it.
        #[tokio::test]
        async fn a_redirect_answers_where_the_file_is() {
            let (base, accepts) = api().await;
            let out = upstream(&base)
                .call(&ctx(), &TOOL, &id("ready"))
                .await
                .expect("a redirect is an answer");
            let Output::Json(v) = out else {
                panic!("not JSON: {out:?}")
            };
            assert_eq!(
                v,
                json!({"http_status": 302, "location": format!("{base}/files/export-7.csv?sig=abc")})
            );
            assert_eq!(
                accepts.lock().unwrap().len(),
                1,
                "the redirect was followed"
            );
        }

        /// Every request accepts JSON first and any other type an operation answers, so an
        /// operation that answers a file (`text/plain`) is not refused with 406; its answer is
        /// passed on as a file.
        #[tokio::test]
        async fn requests_accept_the_files_operations_answer() {
            let (base, accepts) = api().await;
            let out = upstream(&base)
                .call(&ctx(), &TOOL, &id("raw"))
                .await
                .expect("a file");
            assert!(
                matches!(&out, Output::Bytes { mime_type, data } if mime_type == "text/plain" && data == b"01REMESSA"),
                "{out:?}"
            );
            let accept = accepts.lock().unwrap()[0].clone();
            assert!(accept.starts_with("application/json"), "{accept}");
            assert!(accept.contains("*/*"), "{accept}");
        }
    }
}

#[cfg(test)]
#[path = "upstream_tests.rs"]
mod write_path_tests;

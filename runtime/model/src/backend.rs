//! Where tool calls go: the embedded SQLite sandbox, or the upstream Kobana API.
//!
//! A backend executes one tool of one product for one caller. It knows nothing about MCP: the
//! protocol layer has already checked permissions and confirmations, and turns the outcome into a
//! `CallToolResult` or a resource read in the caller's era.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::catalog::{Product, Tool};
use crate::identity::Identity;

/// A boxed, sendable future (keeps [`Backend`] object-safe without extra crates).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Everything a backend may need to know about the call besides the tool and its arguments.
#[derive(Debug, Clone)]
pub struct CallContext {
    pub product: &'static Product,
    /// Shared with the request that makes the call (no copy per call).
    pub identity: Arc<Identity>,
    /// The caller's bearer token, forwarded upstream in proxy mode.
    pub bearer_token: Option<String>,
    /// The workspace the call runs in (tool `workspace_id` argument, or the connection default).
    pub workspace: Option<String>,
    /// For calls that write: the call's idempotency key (its one home is the runtime's
    /// `confirm::idempotency`), the same on every attempt and on a re-run after an unknown
    /// outcome, so the upstream runs the call once.
    pub idempotency_key: Option<String>,
    /// The request's locale: the language of the texts a backend writes for the caller (the
    /// sandbox's task progress). Upstream calls do not forward it.
    pub locale: crate::locale::Locale,
    /// Where the call reports how far it got (a task's `statusMessage`); none in a request.
    pub progress: Progress,
    /// Where a backend that calls an API over HTTP reports each attempt (the runtime: its
    /// metrics and the request's audit facts); none outside a measured request.
    pub attempts: Attempts,
}

/// The response header by which an API says a write's answer is the stored one of an earlier
/// request with the same idempotency key (`Idempotent-Replayed: true`): nothing new ran.
pub const IDEMPOTENT_REPLAYED: &str = "idempotent-replayed";

/// What a tool produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// A JSON document (record, list page, action result).
    Json(Value),
    /// A JSON document already written as text: only [`Backend::call_json_text`] answers it, for
    /// callers that send the answer on as text and so never need its `Value` tree (the sandbox's
    /// list pages, joined from the records' stored text). [`Output::parsed`] turns it into
    /// [`Output::Json`] where a value is needed.
    JsonText(JsonText),
    /// A file (PDF, XML, attachment, …).
    Bytes { mime_type: String, data: Vec<u8> },
    /// The upstream's stored answer to an earlier call with the same idempotency key
    /// (`Idempotent-Replayed: true`): nothing new ran. The caller is told so.
    Replayed(Box<Output>),
}

impl Output {
    /// This output with a [`Output::JsonText`] (also one inside [`Output::Replayed`]) parsed into
    /// [`Output::Json`]; any other output as it is.
    pub fn parsed(self) -> Result<Output, BackendError> {
        Ok(match self {
            Output::JsonText(text) => Output::Json(text.to_value()?),
            Output::Replayed(inner) => Output::Replayed(Box::new(inner.parsed()?)),
            other => other,
        })
    }
}

/// The text of one JSON document, as `serde_json` writes it compactly (the same text as
/// `value.to_string()` of the document it parses to), so it can be sent on as it is: a reply
/// that carries it is byte-identical to one that serialized the parsed value. It may come with
/// the same text as it reads inside a JSON string ([`JsonText::in_string`]), for the text block of
/// a tool result, when the backend holds that too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonText {
    text: String,
    in_string: Option<String>,
}

impl JsonText {
    /// Text the caller vouches for: one JSON document in `serde_json`'s compact form (no
    /// whitespace around or between tokens), for example one assembled from pieces that
    /// `serde_json` wrote. Not checked here: checking would cost what this type saves.
    pub fn from_trusted(text: String) -> JsonText {
        JsonText {
            text,
            in_string: None,
        }
    }

    /// [`JsonText::from_trusted`], with `in_string`, which the caller also vouches for: `text`
    /// escaped exactly as `serde_json` escapes a string (`\"`, `\\`, `\b \f \n \r \t`,
    /// other control bytes as lowercase `\u00XX`, nothing else), without the quotes. Escaping is
    /// byte by byte, so the escaped text of a page is its pieces' escaped texts joined: a backend
    /// that stores them (the sandbox) saves the escaping pass over every answer.
    pub fn from_trusted_with_in_string(text: String, in_string: String) -> JsonText {
        JsonText {
            text,
            in_string: Some(in_string),
        }
    }

    /// The text escaped for a JSON string (without quotes), when the backend gave it.
    pub fn in_string(&self) -> Option<&str> {
        self.in_string.as_deref()
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn into_string(self) -> String {
        self.text
    }

    /// The text and, when the backend gave it, its escaped form ([`JsonText::in_string`]),
    /// owned: a large answer goes into the reply as they are, without a copy.
    pub fn into_parts(self) -> (String, Option<String>) {
        (self.text, self.in_string)
    }

    pub fn len(&self) -> usize {
        self.text.len()
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Whether the document is an object (its first token is `{`).
    pub fn is_object(&self) -> bool {
        self.text.trim_start().starts_with('{')
    }

    /// The document as a value; text that is not JSON (a backend that broke its word) is an
    /// unreadable answer.
    pub fn to_value(&self) -> Result<Value, BackendError> {
        serde_json::from_str(&self.text).map_err(|e| {
            BackendError::Unavailable(format!("the backend answered text that is not JSON: {e}"))
        })
    }
}

/// Why a call failed. Every variant but [`BackendError::OutcomeUnknown`] means nothing was
/// changed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BackendError {
    /// The record does not exist (in this organization / workspace).
    #[error("not found: {0}")]
    NotFound(String),
    /// The arguments are not acceptable (names what is wrong).
    #[error("invalid arguments: {0}")]
    Invalid(String),
    /// The action is illegal in the record's current state.
    #[error("conflict: {0}")]
    Conflict(String),
    /// The upstream API answered with an error status.
    #[error("upstream error {status}: {message}")]
    Upstream { status: u16, message: String },
    /// The backend could not be reached or timed out, or answered something unreadable.
    #[error("backend unavailable: {0}")]
    Unavailable(String),
    /// The embedded sandbox's local storage failed (data directory unusable, disk full, database
    /// unreadable): a local problem, never the Kobana API's.
    #[error("sandbox storage: {0}")]
    Storage(String),
    /// A write was sent and its outcome is unknown (timeout, broken connection, 5xx after
    /// sending): it may have run. Never reported as a failure; says what to check.
    #[error("outcome unknown: {0}")]
    OutcomeUnknown(String),
    /// Not implemented by this backend.
    #[error("not supported: {0}")]
    Unsupported(String),
}

/// Executes tools.
pub trait Backend: Send + Sync + 'static {
    fn call<'a>(
        &'a self,
        ctx: &'a CallContext,
        tool: &'static Tool,
        args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>>;

    /// [`Backend::call`] for a caller that sends a JSON answer on as text: the answer may come
    /// as [`Output::JsonText`] (never as anything [`Backend::call`] would not answer, once
    /// [`Output::parsed`]). A backend that holds its answers as text (the sandbox's stored
    /// records) saves building and serializing their `Value` tree; the default is `call`.
    fn call_json_text<'a>(
        &'a self,
        ctx: &'a CallContext,
        tool: &'static Tool,
        args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        self.call(ctx, tool, args)
    }

    /// [`Backend::call`] with a single attempt: for one part of a fan-out (`resources/list`'s
    /// listings), whose answer waits for its slowest part. A backend that retries a failed read
    /// with backoff (the upstream proxy) must not do it here: the whole answer would wait for
    /// the retries of one failing part, while the fan-out already leaves out a failed part,
    /// says so and is not cached, so the client's next call is the retry. The default, for
    /// backends that never retry, is `call`.
    fn call_once<'a>(
        &'a self,
        ctx: &'a CallContext,
        tool: &'static Tool,
        args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        self.call(ctx, tool, args)
    }

    /// Whether this backend executes the catalog's operations itself (the sandbox), so tools with
    /// no Kobana endpoint work; a proxy only forwards HTTP bindings.
    fn executes_operations(&self) -> bool {
        false
    }

    /// For a record type addressed by its owner's uid
    /// ([`crate::catalog::RecordType::keyed_by_owner`]): the address (the id field's value) of
    /// the record of `tool`'s type, in the scope `ctx` and `args` give, whose own uid is
    /// `own_uid`, when this backend holds the records and finds it exactly and cheaply. `None`
    /// otherwise: the default, and the proxy's, which never scans the API to find it.
    fn address_of_own_uid<'a>(
        &'a self,
        ctx: &'a CallContext,
        tool: &'static Tool,
        args: &'a Map<String, Value>,
        own_uid: &'a str,
    ) -> BoxFuture<'a, Option<String>> {
        let _ = (ctx, tool, args, own_uid);
        Box::pin(async { None })
    }
}

/// Where a long call reports how far it got: `(done, total, message)`. Set by whoever runs the
/// call in the background (the runtime's task runner keeps the latest report on the task, as
/// its `statusMessage`); a call made in a request has none ([`Progress::default`]), and its
/// reports go nowhere. A value in the [`CallContext`] rather than ambient state, so a backend
/// reports to the call it was given, whichever thread or task runs it.
#[derive(Clone, Default)]
pub struct Progress(Option<ProgressSink>);

/// What receives a call's [`Progress`] reports.
pub type ProgressSink = Arc<dyn Fn(f64, Option<f64>, &str) + Send + Sync>;

impl Progress {
    /// Reports to `sink`.
    pub fn to(sink: impl Fn(f64, Option<f64>, &str) + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(sink)))
    }

    /// Reports progress of the call, when someone listens.
    pub fn report(&self, done: f64, total: Option<f64>, message: &str) {
        if let Some(sink) = &self.0 {
            sink(done, total, message);
        }
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(reported)"
        } else {
            "Progress(none)"
        })
    }
}

/// One HTTP attempt a backend made for a call ([`Attempts`]).
#[derive(Debug, Clone, Copy)]
pub struct HttpAttempt<'a> {
    pub product: &'static str,
    /// The HTTP method.
    pub method: &'a str,
    pub took: std::time::Duration,
    /// The answer's status; `None`: no answer (`error` says why).
    pub status: Option<u16>,
    /// Why there was no answer (`timeout`, `connect_error`, `connection_broken`).
    pub error: Option<&'static str>,
    /// The answer's request id header.
    pub request_id: Option<&'a str>,
}

/// What receives a call's [`HttpAttempt`] reports.
pub trait AttemptSink: Send + Sync {
    fn attempt(&self, attempt: &HttpAttempt<'_>);
}

/// Where a call's HTTP attempts are reported, like [`Progress`] a value in the [`CallContext`]
/// rather than ambient state: a backend reports to the call it was given, whichever task runs
/// it. None by default: the reports go nowhere.
#[derive(Clone, Default)]
pub struct Attempts(Option<Arc<dyn AttemptSink>>);

impl Attempts {
    /// Reports to `sink`.
    pub fn to(sink: Arc<dyn AttemptSink>) -> Self {
        Self(Some(sink))
    }

    /// Reports one attempt, when someone listens.
    pub fn report(&self, attempt: &HttpAttempt<'_>) {
        if let Some(sink) = &self.0 {
            sink.attempt(attempt);
        }
    }
}

impl std::fmt::Debug for Attempts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Attempts(reported)"
        } else {
            "Attempts(none)"
        })
    }
}

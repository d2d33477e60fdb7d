//! What the layers below the engine learn while one request runs, for its metrics, span and
//! audit record.
//!
//! The engine's request wrapper opens the scope ([`scope`]); the confirmation gate, the ledger
//! claim of an idempotency key, the upstream proxy and `tools/call` note what they see. Outside a
//! scope (a task the request spawned, a test calling a layer directly) noting does nothing.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry::KeyValue;
use serde_json::Value;

use super::Telemetry;

/// A confirmation gate verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmEvent {
    /// The question was asked (first call, or a replay asked again).
    Asked,
    /// A yes started the tool.
    Accepted,
    /// The person said no.
    Declined,
    /// A used confirmation came back.
    Replayed,
    /// The ledger could not record it (or the caller is over quota): nothing ran.
    Unavailable,
    /// A destructive tool the era cannot confirm, refused by the policy.
    Required,
}

impl ConfirmEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Asked => "asked",
            Self::Accepted => "accepted",
            Self::Declined => "declined",
            Self::Replayed => "replayed",
            Self::Unavailable => "unavailable",
            Self::Required => "required",
        }
    }
}

/// A write (or destructive call) being answered: what its audit record says about the call.
#[derive(Debug, Clone)]
pub struct WriteCall {
    pub product: &'static str,
    pub tool: &'static str,
    pub destructive: bool,
    pub person: String,
    pub organization: String,
    pub workspace: Option<String>,
    /// Canonical-JSON SHA-256 of the arguments as sent.
    pub arguments_sha256: String,
    /// The arguments with secrets replaced ([`super::audit::redact`]).
    pub arguments: Value,
}

/// Everything noted during one request.
#[derive(Debug, Default, Clone)]
pub struct Facts {
    /// The application error code of an `isError` tool result.
    pub tool_error: Option<String>,
    pub confirmation: Option<ConfirmEvent>,
    /// The ledger id of the confirmation the call used or was asked with.
    pub confirmation_id: Option<String>,
    /// The status of the last upstream answer, and its request id header.
    pub upstream_status: Option<u16>,
    pub upstream_request_id: Option<String>,
    pub idempotency_key: Option<String>,
    /// Set by `tools/call` for a tool that writes.
    pub write: Option<WriteCall>,
    /// Upstream said the answer is the stored result of an earlier identical call.
    pub replayed: bool,
    /// The ledger could not record what the call needed: a confirmation (refused) or a write's
    /// idempotency key (run with its generation-0 key, `idempotency::Claimed::during_outage`).
    pub ledger_down: bool,
}

struct Scope {
    facts: Arc<Mutex<Facts>>,
    telemetry: Option<Telemetry>,
}

tokio::task_local! {
    static CURRENT: Scope;
}

/// Runs `fut` noting into `facts`, which the caller keeps (it reads them even when `fut` is
/// dropped before it finishes).
pub async fn scope<F: std::future::Future>(
    telemetry: Option<Telemetry>,
    facts: Arc<Mutex<Facts>>,
    fut: F,
) -> F::Output {
    CURRENT.scope(Scope { facts, telemetry }, fut).await
}

fn note(f: impl FnOnce(&mut Facts)) {
    let _ = CURRENT.try_with(|c| {
        if let Ok(mut facts) = c.facts.lock() {
            f(&mut facts);
        }
    });
}

fn telemetry() -> Option<Telemetry> {
    CURRENT.try_with(|c| c.telemetry.clone()).ok().flatten()
}

/// The tool result being answered is an `isError` result with this code.
pub fn note_tool_error(code: Option<&str>) {
    note(|f| f.tool_error = Some(code.unwrap_or("unknown").to_string()));
}

/// The confirmation gate's verdict, with the confirmation's ledger id when it has one.
/// A question asked after another verdict of the same request (a replay asked again) leaves
/// that verdict and its id.
pub fn note_confirmation(event: ConfirmEvent, id: Option<&str>) {
    note(|f| {
        if event == ConfirmEvent::Asked && f.confirmation.is_some() {
            return;
        }
        f.confirmation = Some(event);
        if let Some(id) = id {
            f.confirmation_id = Some(id.to_string());
        }
    });
}

/// The idempotency key a write is sent with.
pub fn note_idempotency_key(key: &str) {
    note(|f| f.idempotency_key = Some(key.to_string()));
}

/// The ledger could not record what this call needed; its audit record says so.
pub fn note_ledger_down() {
    note(|f| f.ledger_down = true);
}

/// The call is a write; its audit record will describe it so.
pub fn note_write(call: WriteCall) {
    note(|f| f.write = Some(call));
}

/// The upstream answered with the stored result of an earlier identical call.
pub fn note_replayed() {
    note(|f| f.replayed = true);
}

/// A `resources/list` answered without the records of the template `uri_template` (its listing
/// failed or timed out): counted, so a type whose listing keeps failing shows.
pub fn listing_left_out(product: &'static str, uri_template: &'static str) {
    if let Some(t) = telemetry() {
        t.instruments().listings_left_out.add(
            1,
            &[
                KeyValue::new("kobana.product", product),
                KeyValue::new("kobana.resource.template", uri_template),
            ],
        );
    }
}

/// One HTTP attempt to the upstream: its duration and status (`None`: no answer, `error` says
/// why) go to the `http.client.request.duration` histogram; the status and request id are
/// noted for the audit record.
pub fn upstream_attempt(
    product: &'static str,
    method: &str,
    took: Duration,
    status: Option<u16>,
    error: Option<&'static str>,
    request_id: Option<&str>,
) {
    if let Some(t) = telemetry() {
        let mut attrs = vec![
            KeyValue::new("http.request.method", method.to_string()),
            KeyValue::new("kobana.product", product),
        ];
        if let Some(s) = status {
            attrs.push(KeyValue::new("http.response.status_code", i64::from(s)));
            if s >= 500 {
                attrs.push(KeyValue::new("error.type", s.to_string()));
            }
        }
        if let Some(e) = error {
            attrs.push(KeyValue::new("error.type", e));
        }
        t.instruments().upstream.record(took.as_secs_f64(), &attrs);
    }
    note(|f| {
        f.upstream_status = status;
        f.upstream_request_id = request_id.map(str::to_string);
    });
}

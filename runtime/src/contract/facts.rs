//! What the layers below the engine learn while one request runs ([`Facts`]), for its metrics,
//! span and audit record, and the handle they note it through ([`Notes`]).
//!
//! The handle travels in the request's [`super::Call`] (`notes`): the engine gives a measured
//! request one that records ([`Notes::recording`]); the confirmation gate, the ledger claim of an
//! idempotency key, the backend (through its `CallContext`'s [`Attempts`]) and `tools/call` note
//! into it. Any other call's handle ([`Notes::NONE`]: a request nobody measures, a task the
//! request started, a test calling a layer directly) notes nothing.

use std::sync::{Arc, Mutex};

use runtime_model::backend::{AttemptSink, Attempts, HttpAttempt};
use serde_json::Value;

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
    /// The arguments with secrets replaced (`telemetry::audit::redact`).
    pub arguments: Value,
}

/// Everything noted during one request.
#[derive(Debug, Default, Clone)]
pub struct Facts {
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

/// Where one request's layers note its [`Facts`]. Cloning shares them.
#[derive(Clone, Default)]
pub struct Notes(Option<Arc<Recording>>);

/// The facts of a request being recorded, and who else hears of its HTTP attempts (the
/// server's metrics).
struct Recording {
    facts: Mutex<Facts>,
    attempts: Attempts,
}

impl Notes {
    /// Notes nothing.
    pub const NONE: Notes = Notes(None);

    /// A handle that records; each HTTP attempt is also reported to `attempts`.
    pub fn recording(attempts: Attempts) -> Self {
        Notes(Some(Arc::new(Recording {
            facts: Mutex::new(Facts::default()),
            attempts,
        })))
    }

    /// What was noted so far (nothing, for [`Notes::NONE`]).
    pub fn facts(&self) -> Facts {
        self.0
            .as_ref()
            .and_then(|r| r.facts.lock().ok().map(|f| f.clone()))
            .unwrap_or_default()
    }

    /// Where a backend call made for this request reports its HTTP attempts: its metrics and
    /// these facts (the last answer's status and request id). None for [`Notes::NONE`].
    pub fn attempts(&self) -> Attempts {
        match &self.0 {
            Some(r) => Attempts::to(r.clone()),
            None => Attempts::default(),
        }
    }

    fn note(&self, f: impl FnOnce(&mut Facts)) {
        if let Some(r) = &self.0 {
            if let Ok(mut facts) = r.facts.lock() {
                f(&mut facts);
            }
        }
    }

    /// The confirmation gate's verdict, with the confirmation's ledger id when it has one.
    /// A question asked after another verdict of the same request (a replay asked again) leaves
    /// that verdict and its id.
    pub fn confirmation(&self, event: ConfirmEvent, id: Option<&str>) {
        self.note(|f| {
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
    pub fn idempotency_key(&self, key: &str) {
        self.note(|f| f.idempotency_key = Some(key.to_string()));
    }

    /// The ledger could not record what this call needed; its audit record says so.
    pub fn ledger_down(&self) {
        self.note(|f| f.ledger_down = true);
    }

    /// The call is a write; its audit record will describe it so.
    pub fn write(&self, call: WriteCall) {
        self.note(|f| f.write = Some(call));
    }

    /// The upstream answered with the stored result of an earlier identical call.
    pub fn replayed(&self) {
        self.note(|f| f.replayed = true);
    }
}

impl AttemptSink for Recording {
    fn attempt(&self, attempt: &HttpAttempt<'_>) {
        self.attempts.report(attempt);
        if let Ok(mut f) = self.facts.lock() {
            f.upstream_status = attempt.status;
            f.upstream_request_id = attempt.request_id.map(str::to_string);
        }
    }
}

impl std::fmt::Debug for Notes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Notes(recording)"
        } else {
            "Notes(none)"
        })
    }
}

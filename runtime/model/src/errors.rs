//! Every application error the servers emit, in one place.
//!
//! Protocol errors (JSON-RPC -32700 … -32603, -32002, -32020 … -32022) follow the MCP revisions
//! and live in the runtime's protocol module. The errors here are Kobana's own: the codes a tool
//! result (`isError: true`) or a refused resource read carries. The runtime builds every such
//! answer from this table, and the generated docs list it per product (a product sees only the
//! errors its policies can produce; see [`AppError::applies_to`]).
//!
//! Tool results carry them as `structuredContent: {"error": {"code", "message", …}}` plus the same
//! text in a text block. Refused resource reads and prompt/completion refusals carry them as a
//! JSON-RPC error with [`AppError::rpc_code`] and `data: {"error": code, …}`.

use crate::catalog::{Policy, ReplayPolicy, UnconfirmableDestructive};
use crate::locale::Locale;
use crate::texts::Text;

/// One application error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppError {
    /// Wire code, e.g. `insufficient_scope`.
    pub code: &'static str,
    /// JSON-RPC error code used when the error is a protocol-level refusal (outside the range
    /// the MCP specification reserves).
    pub rpc_code: i64,
    /// The message sent (English; the model reads it): [`AppError::text`] in English.
    pub message: &'static str,
    /// The message in every locale (`catalog/texts/runtime.yaml`).
    pub text: Text,
    /// When it happens, for the docs.
    pub when: &'static str,
    pub scope: ErrorScope,
}

/// Which products can produce an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorScope {
    /// Every product.
    All,
    /// Products that refuse destructive tools they cannot confirm.
    RefusingUnconfirmable,
    /// Products that answer replays with `confirmation_replayed`.
    RefusingReplay,
    /// Products that ask again on replay.
    AskingAgainOnReplay,
    /// Workspaced products.
    Workspaced,
    /// Declines: the code is the product's own spelling (`decline_code`).
    Decline,
}

impl AppError {
    pub fn applies_to(&self, policy: &Policy) -> bool {
        match self.scope {
            ErrorScope::All | ErrorScope::Decline => true,
            ErrorScope::RefusingUnconfirmable => {
                policy.unconfirmable_destructive == UnconfirmableDestructive::Refuse
            }
            ErrorScope::RefusingReplay => policy.replay == ReplayPolicy::Refuse,
            ErrorScope::AskingAgainOnReplay => policy.replay == ReplayPolicy::AskAgain,
            ErrorScope::Workspaced => policy.workspaced,
        }
    }
}

pub const INSUFFICIENT_SCOPE: AppError = AppError {
    code: "insufficient_scope",
    rpc_code: -31001,
    message: Text::ErrorInsufficientScope.get(Locale::En),
    text: Text::ErrorInsufficientScope,
    when: "The token does not carry the OAuth scope of the tool (or of the tool that reads the resource).",
    scope: ErrorScope::All,
};

pub const INSUFFICIENT_PERMISSION: AppError = AppError {
    code: "insufficient_permission",
    rpc_code: -31002,
    message: Text::ErrorInsufficientPermission.get(Locale::En),
    text: Text::ErrorInsufficientPermission,
    when: "The person's role lacks the permission of the tool (or of the tool that reads the resource).",
    scope: ErrorScope::All,
};

pub const WORKSPACE_REQUIRED: AppError = AppError {
    code: "workspace_required",
    rpc_code: -31003,
    message: Text::ErrorWorkspaceRequired.get(Locale::En),
    text: Text::ErrorWorkspaceRequired,
    when: "A record resource is read while the person reaches several workspaces and the connection set no default.",
    scope: ErrorScope::Workspaced,
};

pub const CONTENT_TOO_LARGE: AppError = AppError {
    code: "content_too_large",
    rpc_code: -31004,
    message: Text::ErrorContentTooLarge.get(Locale::En),
    text: Text::ErrorContentTooLarge,
    when: "A PDF or attachment read as a resource is above its size limit (10 MB).",
    scope: ErrorScope::All,
};

pub const UPSTREAM_ERROR: AppError = AppError {
    code: "upstream_error",
    rpc_code: -31005,
    message: Text::ErrorUpstreamError.get(Locale::En),
    text: Text::ErrorUpstreamError,
    when: "The upstream API answered 4xx/5xx (other than 404 on a read), timed out, or sent malformed JSON.",
    scope: ErrorScope::All,
};

pub const SANDBOX_ERROR: AppError = AppError {
    code: "sandbox_error",
    rpc_code: -31016,
    message: Text::ErrorSandboxError.get(Locale::En),
    text: Text::ErrorSandboxError,
    when: "The embedded sandbox cannot use its local storage: the data directory cannot be created or opened, or the disk is full. The call did not run; the detail names the cause.",
    scope: ErrorScope::All,
};

pub const AUDIT_UNAVAILABLE: AppError = AppError {
    code: "audit_unavailable",
    rpc_code: -31017,
    message: Text::ErrorAuditUnavailable.get(Locale::En),
    text: Text::ErrorAuditUnavailable,
    when: "The audit file cannot take the call's record (its disk is full or it cannot be written). A write is refused before it runs, since its record could not be kept; try again once the operator has freed space.",
    scope: ErrorScope::All,
};

pub const INVALID_ARGUMENTS: AppError = AppError {
    code: "invalid_arguments",
    rpc_code: -32602,
    message: Text::ErrorInvalidArguments.get(Locale::En),
    text: Text::ErrorInvalidArguments,
    when:
        "A tool call's arguments fail the input schema; the result names each offending argument.",
    scope: ErrorScope::All,
};

pub const INVALID_STATE_TRANSITION: AppError = AppError {
    code: "invalid_state",
    rpc_code: -31006,
    message: Text::ErrorInvalidState.get(Locale::En),
    text: Text::ErrorInvalidState,
    when:
        "An action (cancel, pay, approve, …) is called on a record whose status does not allow it.",
    scope: ErrorScope::All,
};

pub const NOT_FOUND: AppError = AppError {
    code: "not_found",
    rpc_code: -31007,
    message: Text::ErrorNotFound.get(Locale::En),
    text: Text::ErrorNotFound,
    when: "A tool addresses a record that does not exist in this organization or workspace.",
    scope: ErrorScope::All,
};

pub const NOT_AVAILABLE: AppError = AppError {
    code: "not_available",
    rpc_code: -31008,
    message: Text::ErrorNotAvailable.get(Locale::En),
    text: Text::ErrorNotAvailable,
    when: "A resource template (or its reading tool) whose records the API cannot read: no endpoint, or no read by id. The catalog's limitation note says which.",
    scope: ErrorScope::All,
};

pub const CONFIRMATION_REQUIRED: AppError = AppError {
    code: "confirmation_required",
    rpc_code: -31010,
    message: Text::ErrorConfirmationRequired.get(Locale::En),
    text: Text::ErrorConfirmationRequired,
    when: "A destructive tool is called on a 2025-era client, or a 2026-07-28 client without form elicitation. Nothing runs.",
    scope: ErrorScope::RefusingUnconfirmable,
};

pub const CONFIRMATION_REPLAYED: AppError = AppError {
    code: "confirmation_replayed",
    rpc_code: -31011,
    message: Text::ErrorConfirmationReplayed.get(Locale::En),
    text: Text::ErrorConfirmationReplayed,
    when: "A confirmed call is sent again with the same requestState. Nothing runs; the message says what became of the first use (ran, refused by the API, outcome unknown, or not run at all).",
    scope: ErrorScope::RefusingReplay,
};

pub const CONFIRMATION_UNAVAILABLE: AppError = AppError {
    code: "confirmation_unavailable",
    rpc_code: -31012,
    message: Text::ErrorConfirmationUnavailable.get(Locale::En),
    text: Text::ErrorConfirmationUnavailable,
    when: "The confirmation ledger (memory or Redis) cannot record the confirmation. Nothing runs.",
    scope: ErrorScope::All,
};

pub const CONFIRMATION_QUOTA_EXCEEDED: AppError = AppError {
    code: "confirmation_quota_exceeded",
    rpc_code: -31014,
    message: Text::ErrorConfirmationQuotaExceeded.get(Locale::En),
    text: Text::ErrorConfirmationQuotaExceeded,
    when: "One caller holds its quota of live confirmation records (per person and organization). Other callers are not affected. Nothing runs.",
    scope: ErrorScope::All,
};

pub const OUTCOME_UNKNOWN: AppError = AppError {
    code: "outcome_unknown",
    rpc_code: -31015,
    message: Text::ErrorOutcomeUnknown.get(Locale::En),
    text: Text::ErrorOutcomeUnknown,
    when: "A write was sent and then timed out, the connection broke, or the API answered 5xx (or 409 after a retry). This is not a failure: the action may have happened.",
    scope: ErrorScope::All,
};

/// The notice added when a replayed confirmation is asked again (banking, billing); the gate
/// appends what became of the first use.
pub const REPLAY_NOTICE: &str = Text::ReplayNotice.get(Locale::En);

/// A declined confirmation. The code is the product's `decline_code`.
pub const USER_DECLINED: AppError = AppError {
    code: "user_declined",
    rpc_code: -31013,
    message: Text::ErrorUserDeclined.get(Locale::En),
    text: Text::ErrorUserDeclined,
    when: "The confirmation form was declined, cancelled, or answered no. Nothing runs.",
    scope: ErrorScope::Decline,
};

/// Every application error, in docs order.
pub const ALL: &[AppError] = &[
    INSUFFICIENT_SCOPE,
    INSUFFICIENT_PERMISSION,
    WORKSPACE_REQUIRED,
    NOT_FOUND,
    NOT_AVAILABLE,
    INVALID_ARGUMENTS,
    INVALID_STATE_TRANSITION,
    CONTENT_TOO_LARGE,
    UPSTREAM_ERROR,
    SANDBOX_ERROR,
    AUDIT_UNAVAILABLE,
    USER_DECLINED,
    CONFIRMATION_REQUIRED,
    CONFIRMATION_REPLAYED,
    CONFIRMATION_UNAVAILABLE,
    CONFIRMATION_QUOTA_EXCEEDED,
    OUTCOME_UNKNOWN,
];

impl AppError {
    /// The message in `locale` (English is [`AppError::message`] itself). The person reads it
    /// through the model, so it is written in their language; the code stays as it is.
    pub fn message_in(&self, locale: Locale) -> &'static str {
        self.text.get(locale)
    }
}

/// The application error whose code is `code` (a decline under either spelling).
pub fn by_code(code: &str) -> Option<&'static AppError> {
    ALL.iter().find(|e| {
        e.code == code || (e.scope == ErrorScope::Decline && e.code.eq_ignore_ascii_case(code))
    })
}

/// [`REPLAY_NOTICE`] in `locale`.
pub fn replay_notice(locale: Locale) -> &'static str {
    Text::ReplayNotice.get(locale)
}

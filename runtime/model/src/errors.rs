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

/// One application error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppError {
    /// Wire code, e.g. `insufficient_scope`.
    pub code: &'static str,
    /// JSON-RPC error code used when the error is a protocol-level refusal (outside the range
    /// the MCP specification reserves).
    pub rpc_code: i64,
    /// The message sent (English; the model reads it).
    pub message: &'static str,
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
    message: "The access token lacks the scope this needs",
    when: "The token does not carry the OAuth scope of the tool (or of the tool that reads the resource).",
    scope: ErrorScope::All,
};

pub const INSUFFICIENT_PERMISSION: AppError = AppError {
    code: "insufficient_permission",
    rpc_code: -31002,
    message: "Your role lacks the permission this needs",
    when: "The person's role lacks the permission of the tool (or of the tool that reads the resource).",
    scope: ErrorScope::All,
};

pub const WORKSPACE_REQUIRED: AppError = AppError {
    code: "workspace_required",
    rpc_code: -31003,
    message: "This connection has no default workspace; set one, or use the tools with workspace_id",
    when: "A record resource is read while the person reaches several workspaces and the connection set no default.",
    scope: ErrorScope::Workspaced,
};

pub const CONTENT_TOO_LARGE: AppError = AppError {
    code: "content_too_large",
    rpc_code: -31004,
    message: "The file is larger than the resource size limit",
    when: "A PDF or attachment read as a resource is above its size limit (10 MB).",
    scope: ErrorScope::All,
};

pub const UPSTREAM_ERROR: AppError = AppError {
    code: "upstream_error",
    rpc_code: -31005,
    message: "The Kobana API answered with an error",
    when: "The upstream API answered 4xx/5xx (other than 404 on a read), timed out, or sent malformed JSON.",
    scope: ErrorScope::All,
};

pub const INVALID_ARGUMENTS: AppError = AppError {
    code: "invalid_arguments",
    rpc_code: -32602,
    message: "The arguments do not match the tool's input schema",
    when:
        "A tool call's arguments fail the input schema; the result names each offending argument.",
    scope: ErrorScope::All,
};

pub const INVALID_STATE_TRANSITION: AppError = AppError {
    code: "invalid_state",
    rpc_code: -31006,
    message: "The action is not allowed in the record's current state",
    when:
        "An action (cancel, pay, approve, …) is called on a record whose status does not allow it.",
    scope: ErrorScope::All,
};

pub const NOT_FOUND: AppError = AppError {
    code: "not_found",
    rpc_code: -31007,
    message: "No such record",
    when: "A tool addresses a record that does not exist in this organization or workspace.",
    scope: ErrorScope::All,
};

pub const NOT_AVAILABLE: AppError = AppError {
    code: "not_available",
    rpc_code: -31008,
    message: "This record type has no operation in the Kobana API yet",
    when: "A resource template (or its reading tool) whose records the API cannot read: no endpoint, or no read by id. The catalog's limitation note says which.",
    scope: ErrorScope::All,
};

pub const CONFIRMATION_REQUIRED: AppError = AppError {
    code: "confirmation_required",
    rpc_code: -31010,
    message: "This tool is destructive and needs a confirmation this client cannot give: use a 2026-07-28 client that declares form elicitation",
    when: "A destructive tool is called on a 2025-era client, or a 2026-07-28 client without form elicitation. Nothing runs.",
    scope: ErrorScope::RefusingUnconfirmable,
};

pub const CONFIRMATION_REPLAYED: AppError = AppError {
    code: "confirmation_replayed",
    rpc_code: -31011,
    message: "This confirmation was already used; it does not run again",
    when: "A confirmed call is sent again with the same requestState. Nothing runs; the message says what became of the first use (ran, refused by the API, outcome unknown, or not run at all).",
    scope: ErrorScope::RefusingReplay,
};

pub const CONFIRMATION_UNAVAILABLE: AppError = AppError {
    code: "confirmation_unavailable",
    rpc_code: -31012,
    message:
        "The server cannot record the confirmation right now; nothing was run, try again later",
    when: "The confirmation ledger (memory or Redis) cannot record the confirmation. Nothing runs.",
    scope: ErrorScope::All,
};

pub const CONFIRMATION_QUOTA_EXCEEDED: AppError = AppError {
    code: "confirmation_quota_exceeded",
    rpc_code: -31014,
    message: "You have too many confirmations or calls pending at once; nothing was run. Let the pending ones finish or expire, then try again",
    when: "One caller holds its quota of live confirmation records (per person and organization). Other callers are not affected. Nothing runs.",
    scope: ErrorScope::All,
};

pub const OUTCOME_UNKNOWN: AppError = AppError {
    code: "outcome_unknown",
    rpc_code: -31015,
    message: "The Kobana API did not say whether this ran: it may have run. Check the record (list or get it) before doing anything else. Calling this tool again with the same arguments within the idempotency window sends the same idempotency key, so the API answers the first result instead of running it twice",
    when: "A write was sent and then timed out, the connection broke, or the API answered 5xx (or 409 after a retry). This is not a failure: the action may have happened.",
    scope: ErrorScope::All,
};

/// The notice added when a replayed confirmation is asked again (banking, billing); the gate
/// appends what became of the first use.
pub const REPLAY_NOTICE: &str = "This approval was already used.";

/// A declined confirmation. The code is the product's `decline_code`.
pub const USER_DECLINED: AppError = AppError {
    code: "user_declined",
    rpc_code: -31013,
    message: "You declined the confirmation; nothing was changed",
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
    pub fn message_in(&self, locale: crate::locale::Locale) -> &'static str {
        use crate::locale::Locale::{En, Es, PtBr};
        match (self.code, locale) {
            (_, En) => self.message,
            ("insufficient_scope", PtBr) => "O token de acesso não tem o escopo de que esta operação precisa",
            ("insufficient_scope", Es) => "El token de acceso no tiene el alcance (scope) que esta operación necesita",
            ("insufficient_permission", PtBr) => "O seu perfil não tem a permissão de que esta operação precisa",
            ("insufficient_permission", Es) => "Tu rol no tiene el permiso que esta operación necesita",
            ("workspace_required", PtBr) => "Esta conexão não tem um workspace padrão; defina um, ou use as ferramentas com workspace_id",
            ("workspace_required", Es) => "Esta conexión no tiene un workspace predeterminado; define uno, o usa las herramientas con workspace_id",
            ("content_too_large", PtBr) => "O arquivo é maior que o limite de tamanho do recurso",
            ("content_too_large", Es) => "El archivo supera el límite de tamaño del recurso",
            ("upstream_error", PtBr) => "A API da Kobana respondeu com um erro",
            ("upstream_error", Es) => "La API de Kobana respondió con un error",
            ("invalid_arguments", PtBr) => "Os argumentos não correspondem ao esquema de entrada da ferramenta",
            ("invalid_arguments", Es) => "Los argumentos no coinciden con el esquema de entrada de la herramienta",
            ("invalid_state", PtBr) => "A ação não é permitida no estado atual do registro",
            ("invalid_state", Es) => "La acción no está permitida en el estado actual del registro",
            ("not_found", PtBr) => "Registro não encontrado",
            ("not_found", Es) => "No existe ese registro",
            ("not_available", PtBr) => "Este tipo de registro ainda não tem uma operação na API da Kobana",
            ("not_available", Es) => "Este tipo de registro todavía no tiene una operación en la API de Kobana",
            ("confirmation_required", PtBr) => "Esta ferramenta é destrutiva e precisa de uma confirmação que este cliente não consegue dar: use um cliente 2026-07-28 que declare elicitação por formulário",
            ("confirmation_required", Es) => "Esta herramienta es destructiva y necesita una confirmación que este cliente no puede dar: usa un cliente 2026-07-28 que declare elicitación por formulario",
            ("confirmation_replayed", PtBr) => "Esta confirmação já foi usada; ela não executa de novo",
            ("confirmation_replayed", Es) => "Esta confirmación ya se usó; no se ejecuta de nuevo",
            ("confirmation_unavailable", PtBr) => "O servidor não consegue registrar a confirmação agora; nada foi executado, tente de novo mais tarde",
            ("confirmation_unavailable", Es) => "El servidor no puede registrar la confirmación en este momento; no se ejecutó nada, inténtalo de nuevo más tarde",
            ("confirmation_quota_exceeded", PtBr) => "Você tem confirmações ou chamadas pendentes demais ao mesmo tempo; nada foi executado. Deixe as pendentes terminarem ou expirarem e tente de novo",
            ("confirmation_quota_exceeded", Es) => "Tienes demasiadas confirmaciones o llamadas pendientes a la vez; no se ejecutó nada. Deja que las pendientes terminen o caduquen y vuelve a intentarlo",
            ("outcome_unknown", PtBr) => "A API da Kobana não informou se isto foi executado: pode ter sido. Confira o registro (liste-o ou consulte-o) antes de fazer qualquer outra coisa. Chamar esta ferramenta de novo com os mesmos argumentos dentro da janela de idempotência envia a mesma chave de idempotência, e a API devolve o primeiro resultado em vez de executar duas vezes",
            ("outcome_unknown", Es) => "La API de Kobana no indicó si esto se ejecutó: puede que sí. Revisa el registro (lístalo o consúltalo) antes de hacer cualquier otra cosa. Llamar de nuevo a esta herramienta con los mismos argumentos dentro de la ventana de idempotencia envía la misma clave de idempotencia, así que la API responde con el primer resultado en lugar de ejecutarlo dos veces",
            ("user_declined", PtBr) => "Você recusou a confirmação; nada foi alterado",
            ("user_declined", Es) => "Rechazaste la confirmación; no se cambió nada",
            (_, _) => self.message,
        }
    }
}

/// The application error whose code is `code` (a decline under either spelling).
pub fn by_code(code: &str) -> Option<&'static AppError> {
    ALL.iter().find(|e| {
        e.code == code || (e.scope == ErrorScope::Decline && e.code.eq_ignore_ascii_case(code))
    })
}

/// [`REPLAY_NOTICE`] in `locale`.
pub fn replay_notice(locale: crate::locale::Locale) -> &'static str {
    match locale {
        crate::locale::Locale::En => REPLAY_NOTICE,
        crate::locale::Locale::PtBr => "Esta aprovação já foi usada.",
        crate::locale::Locale::Es => "Esta aprobación ya se usó.",
    }
}

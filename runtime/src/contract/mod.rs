//! The handler contract: what a hand-written handler (an extension) receives and answers, and the
//! parts of a request it sees.
//!
//! `protocol` (which calls handlers) and `extensions` (which implements them) both import this
//! module, and it imports neither: the runtime depends one way, from transports through the
//! connection layer and the protocol down to this contract and the model.
//!
//! - [`call`]: one request's context ([`Call`]): era, caller, client capabilities, channel back.
//! - [`facts`]: what the layers learn while a request runs, noted through the handle its
//!   [`Call`] carries ([`facts::Notes`]).
//! - [`era`]: protocol revisions, `_meta` keys, log levels.
//! - [`error`]: the JSON-RPC error every handler and method answers with ([`RpcError`]).
//! - Here: [`ExtCtx`], [`Target`], [`ExtOutcome`], [`ToolOutput`], [`InputNeeded`], [`Handler`],
//!   [`TaskPhase`], [`TaskInputs`], [`ProductExtension`], and [`Extensions`], the registry an
//!   engine is built with.

pub mod call;
pub mod era;
pub mod error;
pub mod facts;

use runtime_model::backend::{Backend, BoxFuture, Progress};
use runtime_model::catalog::{Product, Prompt, Tool};
use serde_json::{Map, Value};
use std::sync::Arc;

pub use call::Call;
pub use era::Era;
pub use error::RpcError;

/// What a handler is serving.
#[derive(Clone, Copy)]
pub enum Target<'a> {
    /// `tools/call` of this tool.
    Tool(&'static Tool),
    /// `resources/read` of this URI, read by this tool.
    Resource { tool: &'static Tool, uri: &'a str },
    /// `prompts/get` of this prompt.
    Prompt(&'static Prompt),
}

/// Everything a handler sees.
pub struct ExtCtx<'a> {
    pub product: &'static Product,
    pub target: Target<'a>,
    pub call: &'a Call,
    /// Tool arguments, template variables mapped to arguments, or prompt arguments.
    pub args: &'a Map<String, Value>,
    /// Verified answers to the input requests of the previous round, by key (empty on round one).
    pub answers: &'a Map<String, Value>,
    /// The `data` of the previous [`InputNeeded`] (`Null` on round one).
    pub round: &'a Value,
    pub backend: &'a Arc<dyn Backend>,
    /// Whether this call may become, or already is, a task (Tasks extension, 2026-07-28).
    pub task: TaskPhase<'a>,
    /// The request's locale (what the handler writes for the caller is in it).
    pub locale: runtime_model::locale::Locale,
}

/// Where a tool call stands with the Tasks extension.
#[derive(Clone, Copy, Default)]
pub enum TaskPhase<'a> {
    /// No task: the call answers in the request.
    #[default]
    None,
    /// The client declared the extension and the catalog lets the tool run as a task: the
    /// handler may answer [`ExtOutcome::StartTask`] to be called again inside a task (after it
    /// asked for whatever input it needs in the request), or answer at once.
    Offered,
    /// Running inside a task: asking for input parks the task (`input_required`) until
    /// `tasks/update` brings the answers.
    Running(&'a dyn TaskInputs),
}

/// How a handler running inside a task gets the answers to its input requests.
pub trait TaskInputs: Send + Sync {
    /// Parks the task on `needed` and waits until every request is answered (or the task is
    /// cancelled or expires: then an error, and the handler's work is dropped).
    fn wait_for_input<'a>(
        &'a self,
        needed: &'a InputNeeded,
    ) -> BoxFuture<'a, Result<Map<String, Value>, RpcError>>;

    /// Whether the task was cancelled (on any instance) or is gone: work that may stop early
    /// (following the API's asynchronous work) stops.
    fn is_cancelled(&self) -> BoxFuture<'_, bool>;

    /// The first answer of tool `idx` inside the task: when it is a record the API is still
    /// working on, the task may read it again until it is done. Answers the tool whose answer it
    /// is (the get tool after a follow) and the answer; by default, the answer as it is.
    fn follow<'a>(
        &'a self,
        call: &'a Call,
        idx: usize,
        args: &'a Map<String, Value>,
        answer: Value,
    ) -> BoxFuture<'a, (usize, Value)> {
        let _ = (call, args);
        Box::pin(async move { (idx, answer) })
    }

    /// Where the task's backend calls report how far they got: the task's `statusMessage`.
    fn progress(&self) -> Progress;
}

impl TaskPhase<'_> {
    /// Where a backend call made in this phase reports its progress: the task's, when running
    /// inside one; nowhere otherwise.
    pub fn progress(&self) -> Progress {
        match self {
            TaskPhase::Running(run) => run.progress(),
            TaskPhase::None | TaskPhase::Offered => Progress::default(),
        }
    }
}

impl ExtCtx<'_> {
    /// The accepted form-elicitation answer for `key`: `Some(content)` when accepted.
    pub fn accepted(&self, key: &str) -> Option<&Map<String, Value>> {
        let a = self.answers.get(key)?;
        if a.get("action").and_then(Value::as_str) != Some("accept") {
            return None;
        }
        a.get("content").and_then(Value::as_object)
    }
}

/// A tool result built by a handler.
#[derive(Debug, Clone, Default)]
pub struct ToolOutput {
    pub content: Vec<Value>,
    pub structured: Option<Value>,
    pub is_error: bool,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![serde_json::json!({"type": "text", "text": text.into()})],
            ..Self::default()
        }
    }

    /// A result carrying an application error: `structuredContent.error` (code, the English
    /// message and `detail` after it, `extra` fields) and a text block that is exactly that JSON,
    /// so the answer's language pass (`protocol::language`) rewrites both the same way and they
    /// never disagree.
    pub fn app_error(
        err: &runtime_model::errors::AppError,
        detail: Option<&str>,
        extra: serde_json::Map<String, serde_json::Value>,
    ) -> Self {
        let message = match detail {
            Some(d) => format!("{}: {d}", err.message),
            None => err.message.to_string(),
        };
        let mut e = serde_json::Map::new();
        e.insert("code".into(), serde_json::json!(err.code));
        e.insert("message".into(), serde_json::json!(message));
        e.extend(extra);
        let structured = serde_json::json!({ "error": e });
        Self {
            content: vec![serde_json::json!({"type": "text", "text": structured.to_string()})],
            structured: Some(structured),
            is_error: true,
        }
    }
}

/// Input the handler needs from the client before it can finish.
#[derive(Debug, Clone)]
pub struct InputNeeded {
    /// `(key, {"method": …, "params": …})`, keys unique.
    pub requests: Vec<(String, Value)>,
    /// Handed back as `ExtCtx::round` on the next call (sealed into `requestState` on 2026).
    pub data: Value,
}

/// What a handler answers.
#[derive(Debug, Clone)]
pub enum ExtOutcome {
    Tool(ToolOutput),
    /// `contents` of a `resources/read` result.
    Resource(Vec<Value>),
    /// A `GetPromptResult` (`description?`, `messages`).
    Prompt(Value),
    Input(InputNeeded),
    /// A backend's answer, rendered exactly as a tool bound to HTTP would render it.
    Backend(Result<runtime_model::backend::Output, runtime_model::backend::BackendError>),
    /// Only under [`TaskPhase::Offered`]: create a task and call the handler again inside it
    /// (with the same arguments, answers and round).
    StartTask,
}

/// A handler body.
pub type Handler = for<'a> fn(&'a ExtCtx<'a>) -> BoxFuture<'a, Result<ExtOutcome, RpcError>>;

/// The hand-written parts of one product.
pub struct ProductExtension {
    /// The product name these parts belong to.
    pub product: &'static str,
    /// Tool handlers by the name the catalog's `handler:` gives.
    pub tools: &'static [(&'static str, Handler)],
    /// Prompts rendered by code instead of their template, by prompt name.
    pub prompts: &'static [(&'static str, Handler)],
    /// Advertise and accept `resources/subscribe` on the 2025 wire (a fixture needs it; real
    /// products are stateless and never do).
    pub resource_subscribe: bool,
    /// Whether a tool served by these handlers can answer behind a backend that does not execute
    /// the catalog's operations (the upstream proxy); a tool it cannot serve there is left out of
    /// `tools/list`. `None`: every tool can.
    pub serves_behind_proxy: Option<fn(&'static Product, &Tool) -> bool>,
}

/// The extension modules a server serves, handed to each engine when it is built (no global
/// lookup: a test or a fixture server chooses its own set).
#[derive(Clone, Copy)]
pub struct Extensions {
    parts: &'static [&'static ProductExtension],
    /// Parts a crate outside the runtime adds to a set ([`Extensions::with`]).
    added: &'static [&'static ProductExtension],
}

impl Extensions {
    /// No hand-written parts at all.
    pub const NONE: Extensions = Extensions::new(&[]);

    pub const fn new(parts: &'static [&'static ProductExtension]) -> Self {
        Self { parts, added: &[] }
    }

    /// This set and `added` after it: how a crate outside the runtime serves handlers of its own
    /// beside the runtime's (`runtime-fixtures` adds the conformance fixture's to
    /// [`crate::extensions::ALL`]) without the runtime knowing about it. Adds once: a set that
    /// already has additions is refused at compile time (in a `static`), so lookups stay two
    /// slices deep.
    pub const fn with(self, added: &'static [&'static ProductExtension]) -> Self {
        assert!(
            self.added.is_empty(),
            "Extensions::with: this set already has additions"
        );
        Self {
            parts: self.parts,
            added,
        }
    }

    /// Every part, the set's own first.
    fn all(&self) -> impl Iterator<Item = &'static ProductExtension> {
        self.parts.iter().chain(self.added).copied()
    }

    /// The extension parts of a product, if it has any.
    pub fn for_product(&self, product: &str) -> Option<&'static ProductExtension> {
        self.all().find(|e| e.product == product)
    }

    /// A tool handler by name, searched in every extension module.
    pub fn tool_handler(&self, name: &str) -> Option<Handler> {
        self.all()
            .flat_map(|e| e.tools.iter())
            .find(|(n, _)| *n == name)
            .map(|(_, h)| *h)
    }

    /// Whether `tool` can answer behind a backend that does not execute the catalog's operations:
    /// every extension that has a say must agree.
    pub fn serves_behind_proxy(&self, product: &'static Product, tool: &Tool) -> bool {
        self.all()
            .filter_map(|e| e.serves_behind_proxy)
            .all(|serves| serves(product, tool))
    }

    /// A prompt handler of a product.
    pub fn prompt_handler(&self, product: &str, prompt: &str) -> Option<Handler> {
        self.for_product(product)?
            .prompts
            .iter()
            .find(|(n, _)| *n == prompt)
            .map(|(_, h)| *h)
    }
}

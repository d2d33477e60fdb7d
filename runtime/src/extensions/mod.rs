//! Hand-written handler bodies, looked up by the name a catalog gives (`Binding::Extension(name)`).
//!
//! A catalog describes a tool's name, schema, annotations and permission; when its behaviour cannot
//! be an HTTP binding, the catalog names a handler and the body lives here. Handlers are plain
//! functions over an [`ExtCtx`]: they can send progress and log notifications through
//! `ctx.call`, and ask the client for input by answering [`ExtOutcome::Input`]. The protocol
//! engine turns that into a 2026 `input_required` result (sealed `requestState`) or into real
//! server→client requests on the 2025 wire, and calls the handler again with the answers, so a
//! handler never knows which era it serves.
//!
//! A product may also replace the rendering of a prompt ([`ProductExtension::prompts`]) and
//! declare the rare capability a fixture needs ([`ProductExtension::resource_subscribe`]).

pub mod catalog;
pub mod conformance;

use runtime_model::backend::{Backend, BoxFuture};
use runtime_model::catalog::{Product, Prompt, Tool};
use serde_json::{Map, Value};
use std::sync::Arc;

use crate::protocol::context::Call;
use crate::protocol::jsonrpc::RpcError;

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
}

/// Every extension module.
pub static REGISTRY: &[&ProductExtension] = &[&catalog::EXTENSION, &conformance::EXTENSION];

/// The extension parts of a product, if it has any.
pub fn for_product(product: &str) -> Option<&'static ProductExtension> {
    REGISTRY.iter().copied().find(|e| e.product == product)
}

/// A tool handler by name, searched in every extension module.
pub fn tool_handler(name: &str) -> Option<Handler> {
    REGISTRY
        .iter()
        .flat_map(|e| e.tools.iter())
        .find(|(n, _)| *n == name)
        .map(|(_, h)| *h)
}

/// A prompt handler of a product.
pub fn prompt_handler(product: &str, prompt: &str) -> Option<Handler> {
    for_product(product)?
        .prompts
        .iter()
        .find(|(n, _)| *n == prompt)
        .map(|(_, h)| *h)
}

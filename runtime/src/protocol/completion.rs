//! `completion/complete`: the completion source of a prompt argument or template variable, served
//! under the caller's permissions (ids come from the list tool only when the caller may call it).

use runtime_model::backend::Output;
use runtime_model::catalog::CompletionKind;
use serde_json::{json, Map, Value};

use super::dates;
use super::engine::Engine;
use super::reply::Reply;
use crate::contract::Call;
use crate::contract::RpcError;

/// The most values one answer carries (the schema's `maxItems`).
pub const MAX_VALUES: usize = 100;

impl Engine {
    pub(crate) async fn complete(&self, call: &Call, params: &Map<String, Value>) -> Reply {
        let reference = params.get("ref").and_then(Value::as_object);
        let arg_name = params.pointer_str("argument", "name");
        let prefix = params.pointer_str("argument", "value").unwrap_or("");
        let (Some(reference), Some(arg_name)) = (reference, arg_name) else {
            return RpcError::invalid_params(
                "Invalid params: completion/complete needs `ref` and `argument.name`",
            )
            .into();
        };
        let view = self.listings.view(&call.identity);
        let source_id = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => {
                let name = reference.get("name").and_then(Value::as_str).unwrap_or("");
                let Some(idx) = self.product.prompts.iter().position(|p| p.name == name) else {
                    return RpcError::invalid_params(format!("Unknown prompt: {name}")).into();
                };
                if !view.usable_prompts[idx] {
                    return RpcError::invalid_params(format!("Unknown prompt: {name}")).into();
                }
                let Some(arg) = self.product.prompts[idx]
                    .arguments
                    .iter()
                    .find(|a| a.name == arg_name)
                else {
                    return RpcError::invalid_params(format!(
                        "Prompt {name} has no argument `{arg_name}`"
                    ))
                    .into();
                };
                arg.complete
            }
            Some("ref/resource") => {
                let uri = reference.get("uri").and_then(Value::as_str).unwrap_or("");
                if let Some(t) = self
                    .product
                    .templates
                    .iter()
                    .find(|t| t.uri_template == uri)
                {
                    if !view.can_call(self.product, t.read_by) {
                        return RpcError::invalid_params(format!(
                            "Unknown resource template: {uri}"
                        ))
                        .into();
                    }
                    t.completions
                        .iter()
                        .find(|(v, _)| *v == arg_name)
                        .map(|(_, s)| *s)
                } else if self.product.resources.iter().any(|r| r.uri == uri) {
                    None
                } else {
                    return RpcError::invalid_params(format!(
                        "Unknown resource or template: {uri}"
                    ))
                    .into();
                }
            }
            _ => {
                return RpcError::invalid_params(
                    "Invalid params: ref.type must be ref/prompt or ref/resource",
                )
                .into()
            }
        };
        let candidates = match source_id.and_then(|id| self.product.completion(id)) {
            Some(source) => self.candidates(call, &view, source.kind).await,
            None => Vec::new(),
        };
        let matching: Vec<String> = candidates
            .into_iter()
            .filter(|v| v.starts_with(prefix))
            .collect();
        let total = matching.len();
        let values: Vec<String> = matching.into_iter().take(MAX_VALUES).collect();
        let result = json!({"completion": {"values": values, "total": total, "hasMore": total > MAX_VALUES}});
        Reply::Value(self.finish(call, result, false))
    }

    async fn candidates(
        &self,
        call: &Call,
        view: &super::listing::View,
        kind: CompletionKind,
    ) -> Vec<String> {
        let today = dates::today();
        match kind {
            CompletionKind::Fixed(values) => values.iter().map(|s| s.to_string()).collect(),
            CompletionKind::SchemaNames => self
                .product
                .records
                .iter()
                .map(|r| r.name.to_string())
                .collect(),
            CompletionKind::LastMonths(n) => (0..n)
                .map(|i| dates::fmt_month(dates::month_start(today, i)))
                .collect(),
            CompletionKind::TodayAndMonthStarts(n) => std::iter::once(dates::fmt_date(today))
                .chain((0..n).map(|i| dates::fmt_date(dates::month_start(today, i))))
                .collect(),
            CompletionKind::None => Vec::new(),
            CompletionKind::ListIds { tool, field, limit } => {
                let Some(t) = self.product.tool(tool) else {
                    return Vec::new();
                };
                if !view.can_call(self.product, tool) {
                    return Vec::new();
                }
                if self.product.policy.workspaced && call.identity.default_workspace.is_none() {
                    return Vec::new();
                }
                let args = Map::new();
                let ctx = self.call_context(call, &args);
                match self.backend.call(&ctx, t, &args).await {
                    Ok(Output::Json(v)) => ids_of(&v, field, limit as usize),
                    _ => Vec::new(),
                }
            }
        }
    }
}

/// The `field` of each item of a list answer (the array itself, or the first array member).
fn ids_of(v: &Value, field: &str, limit: usize) -> Vec<String> {
    let items = crate::backend::records::list_items(v).or_else(|| match v {
        Value::Object(m) => m.values().find_map(Value::as_array),
        _ => None,
    });
    items
        .into_iter()
        .flatten()
        .filter_map(|i| match i.get(field) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        })
        .take(limit.min(MAX_VALUES))
        .collect()
}

trait PointerStr {
    fn pointer_str(&self, a: &str, b: &str) -> Option<&str>;
}

impl PointerStr for Map<String, Value> {
    fn pointer_str(&self, a: &str, b: &str) -> Option<&str> {
        self.get(a)?.get(b)?.as_str()
    }
}

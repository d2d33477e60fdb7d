//! `prompts/get`: permission (every `uses` tool callable) → argument checks and defaults →
//! the prompt's template (or its extension handler).

use crate::rpc::params::Params;
use runtime_model::catalog::{ArgFormat, Prompt};
use serde_json::{json, Map, Value};

use super::dates;
use super::engine::Engine;
use super::tools::Dispatched;
use crate::contract::Call;
use crate::contract::RpcError;
use crate::contract::Target;
use crate::rpc::reply::Reply;

/// Checks the arguments of a prompt and fills defaults; -32602 naming the argument on failure.
pub fn resolve_arguments(
    prompt: &Prompt,
    given: Option<&Value>,
) -> Result<Map<String, Value>, RpcError> {
    let given = match given {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => {
            return Err(RpcError::invalid_params(
                "Invalid params: `arguments` must be an object of strings",
            ))
        }
    };
    let today = dates::today();
    let mut out = Map::new();
    for (k, v) in &given {
        if !v.is_string() {
            return Err(RpcError::invalid_params(format!(
                "Invalid argument `{k}`: prompt arguments are strings"
            )));
        }
    }
    for arg in prompt.arguments {
        let value = match given.get(arg.name).and_then(Value::as_str) {
            Some(v) => v.to_string(),
            None => match arg.default {
                Some(d) => dates::resolve_default(d, today),
                None if arg.required => {
                    return Err(RpcError::invalid_params(format!(
                        "Missing required argument `{}` of prompt {}",
                        arg.name, prompt.name
                    )))
                }
                None => continue,
            },
        };
        if arg.required && value.trim().is_empty() {
            return Err(RpcError::invalid_params(format!(
                "Invalid argument `{}` of prompt {}: it is required and must not be empty",
                arg.name, prompt.name
            )));
        }
        match arg.format {
            ArgFormat::Date if !dates::is_date(&value) => {
                return Err(RpcError::invalid_params(format!(
                    "Invalid argument `{}`: {value:?} is not a date (YYYY-MM-DD)",
                    arg.name
                )))
            }
            ArgFormat::Month if !dates::is_month(&value) => {
                return Err(RpcError::invalid_params(format!(
                    "Invalid argument `{}`: {value:?} is not a month (YYYY-MM)",
                    arg.name
                )))
            }
            _ => {}
        }
        out.insert(arg.name.to_string(), Value::String(value));
    }
    Ok(out)
}

impl Engine {
    pub(crate) async fn get_prompt(&self, call: &Call, params: &Params) -> Reply {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return RpcError::invalid_params("Invalid params: prompts/get needs `name` (a string)")
                .into();
        };
        let Some(idx) = self.product.prompts.iter().position(|p| p.name == name) else {
            return RpcError::invalid_params(format!("Unknown prompt: {name}")).into();
        };
        let prompt = &self.product.prompts[idx];
        let locale = self.locale(call);
        if !self.view(call).usable_prompts[idx] {
            return RpcError::invalid_params(format!(
                "Prompt {name} is not available: it uses tools this caller cannot call"
            ))
            .into();
        }
        let args = match resolve_arguments(prompt, params.get("arguments")) {
            Ok(a) => a,
            Err(e) => return e.into(),
        };
        if let Some(handler) = self.extensions.prompt_handler(self.product.name, name) {
            return match self
                .run_handler(
                    call,
                    handler,
                    Target::Prompt(prompt),
                    &args,
                    params,
                    ("prompts/get", name),
                    crate::contract::TaskPhase::None,
                )
                .await
            {
                Ok(Dispatched::Prompt(v)) => Reply::Value(self.finish(call, v, false)),
                Ok(Dispatched::InputRequired(v)) => Reply::InputRequired(v),
                Ok(_) => RpcError::internal(format!(
                    "the handler of prompt {name} did not answer a prompt"
                ))
                .into(),
                Err(e) => e.into(),
            };
        }
        let template = match self.prompt_envs[locale.index()].get_template(name) {
            Ok(t) => t,
            Err(e) => {
                return RpcError::internal(format!("prompt {name} has an invalid template: {e}"))
                    .into()
            }
        };
        let mut ctx = args.clone();
        ctx.insert("today".into(), json!(dates::fmt_date(dates::today())));
        let text = match template.render(minijinja::Value::from_serialize(&ctx)) {
            Ok(t) => t,
            Err(e) => {
                return RpcError::internal(format!("prompt {name} failed to render: {e}")).into()
            }
        };
        let description = self
            .product
            .texts(locale)
            .map_or(prompt.description, |t| t.prompts[idx].description);
        let result = json!({
            "description": description,
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        });
        Reply::Value(self.finish(call, result, false))
    }
}

//! Discovery mode: three tools that let a model find and use any tool of the product without
//! every descriptor in its context: search the tools, describe chosen ones (their full
//! descriptors with schemas), and call one.
//!
//! They are the same for every product, so the runtime serves them uniformly rather than each
//! catalog repeating them: their names are `<tool_prefix>search_tools`, `…describe_tools`,
//! `…call_tool` ([`runtime_model::selection::discovery_tool_names`]; the generator refuses a
//! catalog tool with one of those names), their descriptors are built once per product, and they
//! are listed and callable when the request's selection turns discovery on (toolset `discovery`
//! or `--discovery`).
//!
//! They reach the selection's `reachable` tools (the server's ceiling, minus the request's own
//! exclusions and read-only) that the caller's permissions allow; anything else is answered as
//! an unknown tool. Calling through `call_tool` is the direct call's path
//! (`Engine::call_tool_as`): permissions, the ceiling, input validation, the confirmation gate
//! (on 2026-07-28 a destructive tool still answers `input_required`; the client retries
//! `call_tool` with `inputResponses` and `requestState`, forwarded as they are), idempotency keys
//! and output schemas.
//!
//! Search ranks with BM25 ([`super::discovery_tools::Index`]) over each tool's name (its
//! `_`-separated words), title, description and argument names, with words lowercased, accents
//! folded (the catalogs write Portuguese and Spanish too) and a plural `s` dropped.

use crate::rpc::params::Params;
use serde_json::{json, Map, Value};

use super::discovery_tools::{Kind, DEFAULT_RESULTS, MAX_DESCRIBE, MAX_QUERY_BYTES, MAX_RESULTS};
use super::engine::Engine;
use super::tools::Access;
use crate::contract::{Call, RpcError, ToolOutput};
use crate::limits::Class;
use crate::rpc::reply::Reply;
use runtime_model::locale::Locale;
use runtime_model::texts::Text;

/// The first sentence of a description, at most 240 characters.
fn short(description: &str) -> String {
    let first = description
        .split_inclusive(". ")
        .next()
        .unwrap_or(description)
        .trim();
    if first.chars().count() <= 240 {
        first.to_string()
    } else {
        let cut: String = first.chars().take(239).collect();
        format!("{cut}…")
    }
}

/// What was wrong with a discovery tool's arguments, in the caller's locale (argument names
/// stay as they are). `n` is the bound the problem names, if any.
#[derive(Clone, Copy)]
enum Problem {
    NameRequired,
    ArgumentsObject,
    QueryRequired,
    QueryTooLong,
    Limit,
    NamesStrings,
    NamesList,
}

fn problem(p: Problem, locale: Locale) -> String {
    match p {
        Problem::NameRequired => Text::DiscoveryNameRequired.get(locale).into(),
        Problem::ArgumentsObject => Text::DiscoveryArgumentsObject.get(locale).into(),
        Problem::QueryRequired => Text::DiscoveryQueryRequired.get(locale).into(),
        Problem::QueryTooLong => {
            Text::DiscoveryQueryTooLong.fill(locale, &[("max", &MAX_QUERY_BYTES)])
        }
        Problem::Limit => Text::DiscoveryLimitRange.fill(locale, &[("max", &MAX_RESULTS)]),
        Problem::NamesStrings => Text::DiscoveryNamesStrings.get(locale).into(),
        Problem::NamesList => Text::DiscoveryNamesList.fill(locale, &[("max", &MAX_DESCRIBE)]),
    }
}

fn invalid(call: &Call, engine: &Engine, p: Problem) -> Reply {
    let detail = problem(p, engine.locale(call));
    let out = super::tools::app_error_output(
        &runtime_model::errors::INVALID_ARGUMENTS,
        Some(&detail),
        Map::new(),
    );
    engine.tool_reply(call, out)
}

impl Engine {
    /// Whether the caller may reach tool `idx` through the discovery tools.
    fn discoverable(&self, call: &Call, idx: usize) -> bool {
        self.selection(call).reachable(idx)
            && !self.listings.is_unlisted(idx)
            && call.identity.can_call(&self.product.tools[idx]).is_ok()
    }

    /// The rate limit a `tools/call` of a discovery tool counts against, when `params` names
    /// one this request may call (`None`: it names no discovery tool, and is answered as an
    /// unknown tool). Search and describe count as reads; `call_tool` counts in the class of the
    /// tool it calls, as the direct call does ([`Class::of_tool`]), and as a read when it names
    /// no tool of the catalog (it is refused without running anything).
    pub(crate) fn discovery_rate_class(&self, call: &Call, params: &Params) -> Option<Class> {
        let name = params.get("name").and_then(Value::as_str)?;
        let kind = super::discovery_tools::which(self.product, name)?;
        if !self.selection(call).discovery() {
            return None;
        }
        Some(match kind {
            Kind::Search | Kind::Describe => Class::Reads,
            Kind::Call => params
                .get("arguments")
                .and_then(|a| a.get("name"))
                .and_then(Value::as_str)
                .and_then(|inner| self.tool_index(inner))
                .map_or(Class::Reads, |idx| Class::of_tool(&self.product.tools[idx])),
        })
    }

    /// Answers a call of a discovery tool (the caller's selection has discovery on).
    pub(crate) async fn discovery_call(&self, call: &Call, kind: Kind, params: &Params) -> Reply {
        let args = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => {
                return RpcError::invalid_params("Invalid params: `arguments` must be an object")
                    .into()
            }
        };
        match kind {
            Kind::Search => self.search(call, &args),
            Kind::Describe => self.describe(call, &args),
            Kind::Call => {
                let Some(name) = args.get("name").and_then(Value::as_str) else {
                    return invalid(call, self, Problem::NameRequired);
                };
                let inner_args = match args.get("arguments") {
                    None | Some(Value::Null) => Value::Object(Map::new()),
                    Some(v @ Value::Object(_)) => v.clone(),
                    Some(_) => return invalid(call, self, Problem::ArgumentsObject),
                };
                let mut inner = Params::new();
                inner.insert("name".into(), json!(name));
                inner.insert("arguments".into(), inner_args);
                // The confirmation round trip of a destructive tool: its answers come back on
                // the retried call_tool, beside its `arguments`.
                for key in ["inputResponses", "requestState"] {
                    if let Some(v) = params.get(key) {
                        inner.insert(key.into(), v.clone());
                    }
                }
                Box::pin(self.call_tool_as(call, &inner, Access::Discovery)).await
            }
        }
    }

    fn search(&self, call: &Call, args: &Map<String, Value>) -> Reply {
        let Some(query) = args.get("query").and_then(Value::as_str) else {
            return invalid(call, self, Problem::QueryRequired);
        };
        // Ranking costs in the query's length: a query is a few words, never a document.
        if query.len() > MAX_QUERY_BYTES {
            return invalid(call, self, Problem::QueryTooLong);
        }
        let limit = match args.get("limit") {
            None | Some(Value::Null) => DEFAULT_RESULTS,
            Some(v) => match v.as_u64() {
                Some(n) if (1..=MAX_RESULTS as u64).contains(&n) => n as usize,
                _ => return invalid(call, self, Problem::Limit),
            },
        };
        // The locale's title and description of each tool; a table built by hand has none.
        let texts = self.product.texts(self.locale(call));
        let index = self.discovery_index();
        let ranked = index.rank(query, |i| self.discoverable(call, i));
        let total = ranked.len();
        let tools: Vec<Value> = ranked
            .into_iter()
            .take(limit)
            .map(|(i, score)| {
                let t = &self.product.tools[i];
                let (title, description) = texts
                    .and_then(|x| x.tools.get(i))
                    .map_or((t.title, t.description), |x| (x.title, x.description));
                json!({
                    "name": t.name,
                    "title": title,
                    "description": short(description),
                    "readOnly": t.annotations.read_only,
                    "destructive": t.annotations.destructive,
                    "score": (score * 1000.0).round() / 1000.0,
                })
            })
            .collect();
        let answer = json!({"query": query, "matches": total, "tools": tools});
        self.tool_reply(
            call,
            ToolOutput {
                content: vec![json!({"type": "text", "text": answer.to_string()})],
                structured: Some(answer),
                is_error: false,
            },
        )
    }

    fn describe(&self, call: &Call, args: &Map<String, Value>) -> Reply {
        let names: Vec<&str> = match args.get("names") {
            Some(Value::Array(a)) if !a.is_empty() && a.len() <= MAX_DESCRIBE => {
                match a.iter().map(Value::as_str).collect::<Option<Vec<_>>>() {
                    Some(n) => n,
                    None => return invalid(call, self, Problem::NamesStrings),
                }
            }
            _ => return invalid(call, self, Problem::NamesList),
        };
        let texts = self.product.texts(self.locale(call));
        let mut tools = Vec::new();
        let mut unknown = Vec::new();
        for name in names {
            match self
                .tool_index(name)
                .filter(|&i| self.discoverable(call, i))
            {
                Some(i) => {
                    let descriptor = texts
                        .and_then(|x| x.tools.get(i))
                        .map_or(self.product.tools[i].descriptor_json, |x| x.descriptor_json);
                    tools.push(serde_json::from_str::<Value>(descriptor).unwrap_or(Value::Null))
                }
                None => unknown.push(json!(name)),
            }
        }
        let mut answer = json!({"tools": tools});
        if !unknown.is_empty() {
            answer["unknown"] = Value::Array(unknown);
        }
        self.tool_reply(
            call,
            ToolOutput {
                content: vec![json!({"type": "text", "text": answer.to_string()})],
                structured: Some(answer),
                is_error: false,
            },
        )
    }
}

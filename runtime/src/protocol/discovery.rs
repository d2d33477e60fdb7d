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
//! ([`Engine::call_tool_as`]): permissions, the ceiling, input validation, the confirmation gate
//! (on 2026-07-28 a destructive tool still answers `input_required`; the client retries
//! `call_tool` with `inputResponses` and `requestState`, forwarded as they are), idempotency keys
//! and output schemas.
//!
//! Search ranks with BM25 over each tool's name (its `_`-separated words), title, description and
//! argument names, with words lowercased, accents folded (the catalogs write Portuguese and
//! Spanish too) and a plural `s` dropped.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use runtime_model::catalog::Product;
use runtime_model::selection::discovery_tool_names;
use serde_json::{json, Map, Value};

use super::engine::Engine;
use super::reply::Reply;
use super::tools::Access;
use crate::contract::{Call, RpcError, ToolOutput};

/// Which discovery tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Search,
    Describe,
    Call,
}

/// Most results of one search.
pub const MAX_RESULTS: usize = 50;
/// Results of a search that does not say.
pub const DEFAULT_RESULTS: usize = 10;
/// Most tools one `describe_tools` call describes.
pub const MAX_DESCRIBE: usize = 20;

/// The discovery tool `name` names, if any.
pub fn which(product: &Product, name: &str) -> Option<Kind> {
    let prefix = product.tool_prefix;
    let rest = name.strip_prefix(prefix)?;
    match rest {
        "search_tools" => Some(Kind::Search),
        "describe_tools" => Some(Kind::Describe),
        "call_tool" => Some(Kind::Call),
        _ => None,
    }
}

/// The three descriptors of a product's discovery tools, built once per product (kept for the
/// process's life, like the generated tables they describe).
pub fn descriptors(product: &'static Product) -> [&'static str; 3] {
    static BUILT: OnceLock<Mutex<HashMap<usize, [&'static str; 3]>>> = OnceLock::new();
    let key = product as *const Product as usize;
    let map = BUILT.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = match map.lock() {
        Ok(m) => m,
        Err(poisoned) => poisoned.into_inner(),
    };
    *map.entry(key).or_insert_with(|| {
        let [search, describe, call] = discovery_tool_names(product.tool_prefix);
        let title = if product.title.is_empty() {
            product.name
        } else {
            product.title
        };
        let leak = |v: Value| -> &'static str { Box::leak(v.to_string().into_boxed_str()) };
        [
            leak(json!({
                "name": search,
                "title": "Search the tools",
                "description": format!("Searches the tools of {title} by what they do: ranked over their names, titles, descriptions and argument names. Answers the best matches (name, title, a short description, whether they only read or are destructive). Then describe the chosen ones with {describe} and run one with {call}."),
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "What you want to do, in words (any of the catalog's languages), e.g. \"cancel a billet\"."},
                        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "description": format!("Most results (default {DEFAULT_RESULTS}).")}
                    },
                    "required": ["query"]
                },
                "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
            })),
            leak(json!({
                "name": describe,
                "title": "Describe tools",
                "description": format!("The full descriptors of the named tools of {title}: description, input schema, output schema and annotations, as tools/list would give them. Call them with {call}."),
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "names": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_DESCRIBE, "description": "Tool names, as the search answered them."}
                    },
                    "required": ["names"]
                },
                "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
            })),
            leak(json!({
                "name": call,
                "title": "Call a tool",
                "description": format!("Runs one tool of {title} by name with its arguments, exactly as a direct call would: the same permissions, argument checks and confirmation of destructive tools. Describe the tool first with {describe} to know its arguments."),
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "The tool's name."},
                        "arguments": {"type": "object", "description": "The tool's arguments, as its input schema says."}
                    },
                    "required": ["name"]
                },
                "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}
            })),
        ]
    })
}

/// Words of a text for matching: lowercase, accents folded, split on anything that is not a
/// letter or digit, one-letter words dropped, a final plural `s` dropped.
pub fn words(text: &str) -> Vec<String> {
    let folded: String = text
        .chars()
        .flat_map(char::to_lowercase)
        .map(fold)
        .collect();
    folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() > 1)
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.chars().count() > 2 => stem.to_string(),
            _ => w.to_string(),
        })
        .collect()
}

fn fold(c: char) -> char {
    match c {
        'á' | 'à' | 'â' | 'ã' | 'ä' => 'a',
        'é' | 'è' | 'ê' | 'ë' => 'e',
        'í' | 'ì' | 'î' | 'ï' => 'i',
        'ó' | 'ò' | 'ô' | 'õ' | 'ö' => 'o',
        'ú' | 'ù' | 'û' | 'ü' => 'u',
        'ç' => 'c',
        'ñ' => 'n',
        other => other,
    }
}

/// The search index of one product: each tool's words with their weights.
#[derive(Debug)]
pub struct Index {
    /// Per tool: word → weighted count.
    docs: Vec<HashMap<String, f64>>,
    /// Per tool: weighted length.
    lengths: Vec<f64>,
    average: f64,
    /// Word → how many tools have it.
    df: HashMap<String, usize>,
}

impl Index {
    /// Names weigh 3, titles 2, argument names 1.5, descriptions 1.
    pub fn build(product: &Product) -> Self {
        let mut docs = Vec::with_capacity(product.tools.len());
        for t in product.tools {
            let mut doc: HashMap<String, f64> = HashMap::new();
            let mut add = |text: &str, weight: f64| {
                for w in words(text) {
                    *doc.entry(w).or_default() += weight;
                }
            };
            let bare = t.name.strip_prefix(product.tool_prefix).unwrap_or(t.name);
            add(bare, 3.0);
            add(t.title, 2.0);
            add(t.description, 1.0);
            if let Ok(Value::Object(schema)) = serde_json::from_str::<Value>(t.input_schema_json) {
                if let Some(Value::Object(props)) = schema.get("properties") {
                    for name in props.keys() {
                        add(name, 1.5);
                    }
                }
            }
            docs.push(doc);
        }
        let lengths: Vec<f64> = docs.iter().map(|d| d.values().sum()).collect();
        let average = if lengths.is_empty() {
            1.0
        } else {
            (lengths.iter().sum::<f64>() / lengths.len() as f64).max(1.0)
        };
        let mut df: HashMap<String, usize> = HashMap::new();
        for d in &docs {
            for w in d.keys() {
                *df.entry(w.clone()).or_default() += 1;
            }
        }
        Index {
            docs,
            lengths,
            average,
            df,
        }
    }

    /// BM25 scores of the tools `eligible` allows, best first (ties by catalog order), zero
    /// scores left out.
    pub fn rank(&self, query: &str, eligible: impl Fn(usize) -> bool) -> Vec<(usize, f64)> {
        const K1: f64 = 1.2;
        const B: f64 = 0.75;
        let n = self.docs.len() as f64;
        let mut terms = words(query);
        terms.sort();
        terms.dedup();
        let mut scored: Vec<(usize, f64)> = self
            .docs
            .iter()
            .enumerate()
            .filter(|(i, _)| eligible(*i))
            .map(|(i, doc)| {
                let score: f64 = terms
                    .iter()
                    .filter_map(|t| {
                        let tf = *doc.get(t)?;
                        let df = *self.df.get(t)? as f64;
                        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                        let norm = K1 * (1.0 - B + B * self.lengths[i] / self.average);
                        Some(idf * tf * (K1 + 1.0) / (tf + norm))
                    })
                    .sum();
                (i, score)
            })
            .filter(|(_, s)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored
    }
}

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

fn invalid(call: &Call, engine: &Engine, detail: String) -> Reply {
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
            && call.identity.can_call(&self.product.tools[idx]).is_ok()
    }

    /// Answers a call of a discovery tool (the caller's selection has discovery on).
    pub(crate) async fn discovery_call(
        &self,
        call: &Call,
        kind: Kind,
        params: &Map<String, Value>,
    ) -> Reply {
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
                    return invalid(call, self, "argument `name` (a string) is required".into());
                };
                let inner_args = match args.get("arguments") {
                    None | Some(Value::Null) => Value::Object(Map::new()),
                    Some(v @ Value::Object(_)) => v.clone(),
                    Some(_) => {
                        return invalid(call, self, "argument `arguments` must be an object".into())
                    }
                };
                let mut inner = Map::new();
                inner.insert("name".into(), json!(name));
                inner.insert("arguments".into(), inner_args);
                // The confirmation round trip of a destructive tool: its answers come back on
                // the retried call_tool, beside its `arguments`.
                for key in ["inputResponses", "requestState", "_meta"] {
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
            return invalid(call, self, "argument `query` (a string) is required".into());
        };
        let limit = match args.get("limit") {
            None | Some(Value::Null) => DEFAULT_RESULTS,
            Some(v) => match v.as_u64() {
                Some(n) if (1..=MAX_RESULTS as u64).contains(&n) => n as usize,
                _ => {
                    return invalid(
                        call,
                        self,
                        format!("argument `limit` must be an integer from 1 to {MAX_RESULTS}"),
                    )
                }
            },
        };
        let index = self.discovery_index();
        let ranked = index.rank(query, |i| self.discoverable(call, i));
        let total = ranked.len();
        let tools: Vec<Value> = ranked
            .into_iter()
            .take(limit)
            .map(|(i, score)| {
                let t = &self.product.tools[i];
                json!({
                    "name": t.name,
                    "title": t.title,
                    "description": short(t.description),
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
                    None => {
                        return invalid(call, self, "argument `names` must hold strings".into())
                    }
                }
            }
            _ => {
                return invalid(
                    call,
                    self,
                    format!("argument `names` must be a list of 1 to {MAX_DESCRIBE} tool names"),
                )
            }
        };
        let mut tools = Vec::new();
        let mut unknown = Vec::new();
        for name in names {
            match self
                .tool_index(name)
                .filter(|&i| self.discoverable(call, i))
            {
                Some(i) => tools.push(
                    serde_json::from_str::<Value>(self.product.tools[i].descriptor_json)
                        .unwrap_or(Value::Null),
                ),
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

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn words_fold_accents_case_and_plurals() {
        assert_eq!(words("Emissão de Boletos"), vec!["emissao", "de", "boleto"]);
        assert_eq!(words("bank_billet_list"), vec!["bank", "billet", "list"]);
        assert_eq!(words("a PIX"), vec!["pix"]);
    }
}

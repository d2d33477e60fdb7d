//! Each tool's JSON Schemas, compiled on first use and kept for the life of the engine: the input
//! schema (checked on every `tools/call`) and the output schema (checked on every JSON answer).
//! Lookup is by tool index, with no lock: this is on the path of every call.

use std::borrow::Cow;
use std::sync::OnceLock;

use runtime_model::catalog::{Product, Tool};
use serde_json::Value;

/// A compiled schema, or why it does not compile (a catalog bug: tests compile every schema).
pub(crate) type Compiled = Result<jsonschema::Validator, String>;

/// The compiled schemas of one product's tools, by index in `product.tools`.
pub(crate) struct ToolSchemas {
    product: &'static Product,
    input: Vec<OnceLock<Compiled>>,
    output: Vec<OnceLock<Compiled>>,
    string_ids: Vec<OnceLock<Vec<String>>>,
}

impl ToolSchemas {
    pub(crate) fn new(product: &'static Product) -> Self {
        let slots = || product.tools.iter().map(|_| OnceLock::new()).collect();
        Self {
            product,
            input: slots(),
            output: slots(),
            string_ids: product.tools.iter().map(|_| OnceLock::new()).collect(),
        }
    }

    /// The input schema of tool `idx`.
    pub(crate) fn input(&self, idx: usize) -> &Compiled {
        let tool = &self.product.tools[idx];
        self.input[idx].get_or_init(|| compile("input", tool, tool.input_schema_json))
    }

    /// The output schema of tool `idx`; `None` when it declares none.
    pub(crate) fn output(&self, idx: usize) -> Option<&Compiled> {
        let tool = &self.product.tools[idx];
        let text = tool.output_schema_json?;
        Some(self.output[idx].get_or_init(|| compile("output", tool, text)))
    }

    /// The arguments of a call to tool `idx` with every id the API gives as a number accepted as
    /// it was given: an id-like argument (`id`, `…_id`) its schema declares a string, sent as a
    /// JSON integer, becomes that integer's decimal string, before validation, the gate and the
    /// backend. A listing answers `"id": 129` and a model copies the number; the path and query
    /// carry the same text either way. Anything else is left for validation to judge.
    pub(crate) fn with_string_ids<'a>(&self, idx: usize, args: &'a Value) -> Cow<'a, Value> {
        let tool = &self.product.tools[idx];
        let names = self.string_ids[idx].get_or_init(|| string_ids(tool.input_schema_json));
        let Value::Object(m) = args else {
            return Cow::Borrowed(args);
        };
        let is_number = |n: &String| m.get(n).is_some_and(|v| v.is_i64() || v.is_u64());
        if !names.iter().any(is_number) {
            return Cow::Borrowed(args);
        }
        let mut m = m.clone();
        for n in names {
            if let Some(v) = m.get_mut(n).filter(|v| v.is_i64() || v.is_u64()) {
                *v = Value::String(v.to_string());
            }
        }
        Cow::Owned(Value::Object(m))
    }
}

/// The top-level id-like arguments (`id`, `…_id`) an input schema declares `type: string`.
fn string_ids(schema_json: &str) -> Vec<String> {
    let schema: Value = serde_json::from_str(schema_json).unwrap_or(Value::Null);
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .filter(|(name, _)| *name == "id" || name.ends_with("_id"))
        .filter(|(_, p)| p.get("type").and_then(Value::as_str) == Some("string"))
        .map(|(name, _)| name.clone())
        .collect()
}

fn compile(kind: &str, tool: &Tool, text: &str) -> Compiled {
    let schema: Value = serde_json::from_str(text)
        .map_err(|e| format!("the {kind} schema of {} is not JSON: {e}", tool.name))?;
    jsonschema::validator_for(&schema)
        .map_err(|e| format!("the {kind} schema of {} does not compile: {e}", tool.name))
}

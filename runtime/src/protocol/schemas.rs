//! Each tool's JSON Schemas, compiled on first use and kept for the life of the engine: the input
//! schema (checked on every `tools/call`) and the output schema (checked on every JSON answer).
//! Lookup is by tool index, with no lock: this is on the path of every call.

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
}

impl ToolSchemas {
    pub(crate) fn new(product: &'static Product) -> Self {
        let slots = || product.tools.iter().map(|_| OnceLock::new()).collect();
        Self {
            product,
            input: slots(),
            output: slots(),
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
}

fn compile(kind: &str, tool: &Tool, text: &str) -> Compiled {
    let schema: Value = serde_json::from_str(text)
        .map_err(|e| format!("the {kind} schema of {} is not JSON: {e}", tool.name))?;
    jsonschema::validator_for(&schema)
        .map_err(|e| format!("the {kind} schema of {} does not compile: {e}", tool.name))
}

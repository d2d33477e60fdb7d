//! Where a product's `tools/list` bytes go, and what the portability lint says about it.
//!
//! `cargo run -p codegen -- listing-report` prints, per product, the bytes of the full 2025-11-25
//! `tools/list` result (`{"tools":[…]}`, one page, as the server sends it), split by descriptor
//! part, and the portability findings by rule ([`runtime_model::schema_lint`]). The figures are
//! computed from the descriptors the generator emits, so they are the served bytes.

use std::collections::BTreeMap;

use runtime_model::schema_lint;
use serde_json::Value;

use crate::descriptors;
use crate::model::Catalog;

/// The figures of one product.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub product: String,
    pub tools: usize,
    /// Bytes of `{"tools":[…]}` with every tool.
    pub total: usize,
    /// Bytes per descriptor key (`"key":value` plus its separator), summed over the tools.
    pub parts: BTreeMap<String, usize>,
    /// Portability findings by rule.
    pub findings: BTreeMap<&'static str, usize>,
    /// Names over the name budget.
    pub long_names: Vec<String>,
}

/// The descriptors of `c`, in listing order, as emitted.
pub fn descriptors_of(c: &Catalog) -> Vec<Value> {
    let plan = descriptors::Plan::of(c);
    descriptors::sorted_tools(c)
        .into_iter()
        .map(|t| descriptors::tool_with(c, t, &plan))
        .collect()
}

/// The figures of a list of tool descriptors.
pub fn measure(product: &str, tools: &[Value], name_budget: usize) -> Report {
    let listing = serde_json::json!({ "tools": tools });
    let mut r = Report {
        product: product.to_string(),
        tools: tools.len(),
        total: serde_json::to_string(&listing)
            .map(|s| s.len())
            .unwrap_or(0),
        ..Report::default()
    };
    for t in tools {
        if let Value::Object(m) = t {
            for (k, v) in m {
                let bytes = serde_json::to_string(v).map(|s| s.len()).unwrap_or(0) + k.len() + 4;
                *r.parts.entry(k.clone()).or_default() += bytes;
            }
        }
        for f in schema_lint::lint_tool(t) {
            *r.findings.entry(f.rule).or_default() += 1;
        }
        if let Some(name) = t.get("name").and_then(Value::as_str) {
            if name.chars().count() > name_budget {
                r.long_names.push(name.to_string());
            }
        }
    }
    r
}

impl Report {
    /// Every finding, whatever its rule.
    pub fn warnings(&self) -> usize {
        self.findings.values().sum()
    }

    /// Lines for a terminal.
    pub fn lines(&self) -> Vec<String> {
        let parts: Vec<String> = self.parts.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let findings: Vec<String> = self
            .findings
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        vec![
            format!(
                "{}: {} tools, tools/list {} bytes (2025-11-25, one page), ~{} tokens; portability findings {}{}",
                self.product,
                self.tools,
                self.total,
                self.total / 4,
                self.warnings(),
                if findings.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", findings.join(", "))
                }
            ),
            format!("  bytes by part: {}", parts.join(", ")),
        ]
    }
}

//! The semantic checks a parsed catalog must pass before anything is generated.
//!
//! Shape errors (unknown keys, wrong types, missing keys) are caught by `serde_yaml` in
//! [`crate::load`]. This module checks what a type cannot say: references between parts of the
//! catalog, naming rules, MCP annotation rules, schema restrictions, templates that compile. Each
//! rule reports every violation it finds, pointing at the offending key, with what would be valid.
//!
//! One file per catalog section: `product` (product and policies), `records` (record types and
//! singletons), `tools` (names, schemas, annotations, operations), `binding` (HTTP bindings and
//! multipart uploads), `resources` (fixed resources and URI templates), `prompts`, `completions`
//! and `exclusions`. Each adds its checks to the one `Validator`; the pure rules they share are in
//! [`grammar`] and [`json_schema`].

mod binding;
mod completions;
mod exclusions;
pub mod grammar;
pub mod json_schema;
mod listing;
mod names;
mod product;
mod prompts;
mod records;
mod resources;
mod task;
mod tools;
mod toolsets;

use std::collections::HashMap;

use crate::diag::Diagnostic;
use crate::load::Loaded;
use crate::model::Tool;

use grammar::{closest, one_of};
pub use grammar::{template_vars, MAX_TOOL_NAME, SEED_HINT, SEED_SIMPLE};
pub use json_schema::{
    base64_properties, is_list_tool, property_at, schema_properties, schema_required,
};

/// Checks one catalog; returns every problem found (empty when valid).
pub fn validate(l: &Loaded) -> Vec<Diagnostic> {
    let mut v = Validator {
        l,
        out: Vec::new(),
        tools: l
            .catalog
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.as_str(), (i, t)))
            .collect(),
    };
    v.product();
    v.policies();
    v.records();
    v.tools();
    v.singletons();
    v.owner_keyed();
    v.resources_and_templates();
    v.prompts();
    v.completions();
    v.exclusions();
    v.toolsets();
    v.listing();
    v.names();
    let mut out = v.out;
    out.extend(crate::confirmation::validate(l));
    out
}

/// Checks across catalogs: product names are unique.
pub fn validate_set(all: &[Loaded]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for l in all {
        let name = l.catalog.product.name.as_str();
        if let Some(first) = seen.insert(name, &l.source.display) {
            out.push(l.at_value(
                "product.name",
                format!("product `{name}` is already defined in {first}"),
                Some("each catalog names a different product".into()),
            ));
        }
    }
    out
}

/// The checks of one catalog, gathering every problem.
struct Validator<'a> {
    l: &'a Loaded,
    out: Vec<Diagnostic>,
    tools: HashMap<&'a str, (usize, &'a Tool)>,
}

impl<'a> Validator<'a> {
    fn key(&mut self, path: &str, message: String, hint: Option<String>) {
        self.out.push(self.l.at_key(path, message, hint));
    }

    fn value(&mut self, path: &str, message: String, hint: Option<String>) {
        self.out.push(self.l.at_value(path, message, hint));
    }

    /// A reference to a tool: reports when it does not exist.
    fn tool_ref(&mut self, path: &str, name: &str, what: &str) -> Option<&'a Tool> {
        if let Some((_, t)) = self.tools.get(name) {
            return Some(t);
        }
        let names: Vec<&str> = self.tools.keys().copied().collect();
        let hint = match closest(name, names.iter().copied()) {
            Some(c) => format!("did you mean `{c}`? {what} must name a tool of this catalog"),
            None => format!("{what} must name a tool of this catalog's `tools`"),
        };
        self.value(path, format!("unknown tool `{name}`"), Some(hint));
        None
    }

    fn completion_ref(&mut self, path: &str, id: &str) {
        let c = &self.l.catalog.completions;
        if !c.contains_key(id) {
            let hint = if c.is_empty() {
                "define it under the top-level `completions:` map".to_string()
            } else {
                format!(
                    "one of {} (keys of `completions:`), or define `{id}` there",
                    one_of(&c.keys().map(String::as_str).collect::<Vec<_>>())
                )
            };
            self.value(
                path,
                format!("unknown completion source `{id}`"),
                Some(hint),
            );
        }
    }

    fn record_ref(&mut self, path: &str, name: &str) -> bool {
        let records = &self.l.catalog.records;
        if records.contains_key(name) {
            return true;
        }
        let hint = if records.is_empty() {
            "declare the record type under the top-level `records:` map".to_string()
        } else {
            format!(
                "one of {}",
                one_of(&records.keys().map(String::as_str).collect::<Vec<_>>())
            )
        };
        self.value(path, format!("unknown record type `{name}`"), Some(hint));
        false
    }
}

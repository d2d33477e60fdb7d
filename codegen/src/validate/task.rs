//! The `task:` setting of a tool (the 2026-07-28 Tasks extension) and the JSON Schema 2020-12
//! constructs an input schema may use.
//!
//! Task rules:
//! - `required` needs a tool that is not read-only: a read must stay callable by every client,
//!   and `required` turns away clients that do not declare the tasks extension.
//! - a read-only tool may be `optional` only with a `task_note` saying why the read takes long
//!   (generating a report); an ordinary read answers in the request.
//! - `task_note` without `task:` is a leftover.
//!
//! Input schemas (see `catalog/README.md`): `$schema`, when given, names draft 2020-12, and
//! every `$ref` points into the same schema
//! (`#/$defs/…` or an `$anchor`): a tool's schema travels alone in `tools/list`, so a client
//! has nothing else to resolve it against. Top-level composition (`anyOf`/`oneOf`/`allOf`/`not`/
//! `$ref`) and top-level `if`/`then`/`else` stay refused on product catalogs (stricter clients
//! reject them at the root); a fixture catalog may use them, since it exists to exercise the
//! protocol. That every schema compiles as JSON Schema 2020-12 is checked by `codegen-tools
//! --check` (`codegen_tools::input_schemas`), which CI runs: compiling needs the `jsonschema`
//! crate, which `generated/build.rs` does not build.

use super::Validator;
use crate::locate::key_path;
use crate::model::{TaskSetting, Tool};

/// The dialect URI of JSON Schema 2020-12.
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

impl<'a> Validator<'a> {
    pub(super) fn task(&mut self, base: &str, t: &Tool) {
        let tpath = key_path(base, "task");
        let read_only = t.annotations.read_only;
        match (t.task, read_only) {
            (TaskSetting::Required, true) => self.value(
                &tpath,
                "a read-only tool cannot be `task: required`".into(),
                Some("`task: optional` with a `task_note` (every client can still call it), or `task: never`".into()),
            ),
            (TaskSetting::Optional, true)
                if t.task_note.as_deref().is_none_or(|n| n.trim().is_empty()) =>
            {
                self.key(
                    base,
                    "a read-only tool marked `task: optional` has no `task_note`".into(),
                    Some("add `task_note:` saying why this read takes long (a report), or remove `task:`".into()),
                )
            }
            (TaskSetting::Never, _) if t.task_note.is_some() => self.key(
                &key_path(base, "task_note"),
                "`task_note` on a tool that never runs as a task".into(),
                Some("remove it, or set `task: optional`".into()),
            ),
            _ => {}
        }
    }

    /// JSON Schema 2020-12 checks of an input schema (after the structural ones in
    /// `input_schema`).
    pub(super) fn input_schema_2020_12(&mut self, base: &str, t: &Tool) {
        let path = key_path(base, "input_schema");
        let Ok(json) = serde_json::to_value(&t.input_schema) else {
            return; // reported by `input_schema`
        };
        if let Some(s) = json.get("$schema") {
            if s.as_str() != Some(DRAFT_2020_12) {
                self.value(
                    &key_path(&path, "$schema"),
                    format!("`$schema` is {s}, not JSON Schema 2020-12"),
                    Some(format!(
                        "`$schema: {DRAFT_2020_12}`, or leave it out (2020-12 is assumed)"
                    )),
                );
            }
        }
        let mut refs = Vec::new();
        collect_refs(&json, &mut refs);
        for r in refs {
            if !r.starts_with('#') {
                self.value(
                    &path,
                    format!("`$ref: {r}` points outside the schema"),
                    Some("refer to `#/$defs/<name>` or to an `$anchor` of this schema: a client resolves nothing else".into()),
                );
            }
        }
        if !self.l.catalog.product.fixture {
            for k in ["if", "then", "else"] {
                if json.get(k).is_some() {
                    self.key(
                        &key_path(&path, k),
                        format!("top-level `{k}` in an input schema"),
                        Some("stricter clients reject conditionals at the root: put them inside a property, or describe the rule in the description".into()),
                    );
                }
            }
        }
    }
}

fn collect_refs(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("$ref", serde_json::Value::String(s)) => out.push(s.clone()),
                    _ => collect_refs(x, out),
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_refs(x, out)),
        _ => {}
    }
}

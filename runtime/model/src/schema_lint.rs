//! Portability checks for the JSON Schemas a `tools/list` carries.
//!
//! A schema can be legal JSON Schema 2020-12 and still be refused or degraded by the clients
//! and model providers it travels to. The MCP Inspector (since its tool-schema portability lint,
//! modelcontextprotocol/inspector#2121) flags, per schema position:
//!
//! - `type-union` (warning): `type` written as an array (`["string","null"]`). Consumers that
//!   translate tool schemas into a single-`type` dialect (the OpenAPI 3.0 subset of Gemini
//!   function declarations) reject or drop it; the portable spelling is `anyOf` branches with one
//!   `type` each.
//! - `untyped` (warning): a schema reached through `properties`, `items`, `additionalProperties`
//!   or a combinator branch that says nothing about its type (none of `type`, `enum`, `const`,
//!   `$ref`, `anyOf`, `oneOf`, `allOf`): Gemini and OpenAI's strict mode refuse such leaves.
//! - `boolean-schema` (error): a bare `true`/`false` where a subschema is expected (Claude Code
//!   refuses `tools/list` over it).
//! - `input-root` (error): an `inputSchema` whose root is not `type: "object"` (MCP requires it).
//!
//! We add the cheap rules of the stricter function-calling providers (OpenAI structured outputs,
//! Gemini function declarations), so that what we emit is accepted there as well:
//!
//! - `format` (warning): a `format` outside the set OpenAI accepts ([`PORTABLE_FORMATS`]);
//! - `array-items` (warning): `type: "array"` without `items` (VS Code and OpenAI refuse it);
//! - `ref` (warning): `$ref`/`$defs`/`definitions` (Gemini refuses references);
//! - `openapi-keyword` (warning): OpenAPI-only keywords (`nullable`, `discriminator`) leaked into
//!   JSON Schema.
//!
//! The walk is structural (it never resolves anything) and bounded by [`MAX_DEPTH`]. The rules
//! are listed in `catalog/README.md`; the generator refuses an emitted descriptor with a finding,
//! and `tests/listing_portability.rs` runs them over every product's `tools/list` on both eras.

use std::fmt;

use serde_json::{Map, Value};

/// The `format` values OpenAI's structured outputs accept (Gemini accepts fewer, and ignores
/// the rest rather than failing).
pub const PORTABLE_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Nesting beyond this is not walked (and is itself a finding).
pub const MAX_DEPTH: usize = 32;

/// Which schema of a tool a finding is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaKind {
    Input,
    Output,
}

impl SchemaKind {
    pub fn key(self) -> &'static str {
        match self {
            SchemaKind::Input => "inputSchema",
            SchemaKind::Output => "outputSchema",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Warning,
    Error,
}

/// One problem, at a JSON Pointer inside the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: SchemaKind,
    pub rule: &'static str,
    pub severity: Severity,
    /// JSON Pointer from the schema's root (`/properties/label/type`).
    pub pointer: String,
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(
            f,
            "{sev} [{}] {}{at}: {}",
            self.rule,
            self.kind.key(),
            self.message
        )
    }
}

/// Every finding of one tool descriptor (`inputSchema` and, when present, `outputSchema`).
pub fn lint_tool(descriptor: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    match descriptor.get("inputSchema") {
        Some(s) => lint_schema(s, SchemaKind::Input, &mut out),
        None => out.push(Finding {
            kind: SchemaKind::Input,
            rule: "input-root",
            severity: Severity::Error,
            pointer: String::new(),
            message: "the tool has no inputSchema".into(),
        }),
    }
    if let Some(s) = descriptor.get("outputSchema") {
        lint_schema(s, SchemaKind::Output, &mut out);
    }
    out
}

/// Every finding of one schema.
pub fn lint_schema(schema: &Value, kind: SchemaKind, out: &mut Vec<Finding>) {
    if kind == SchemaKind::Input && schema.get("type").and_then(Value::as_str) != Some("object") {
        out.push(Finding {
            kind,
            rule: "input-root",
            severity: Severity::Error,
            pointer: String::new(),
            message: "an inputSchema's root must be `type: \"object\"`".into(),
        });
    }
    let mut w = Walk { kind, out };
    // The root may be anything an object root allows; `untyped` applies to subschemas only.
    w.node(schema, "", 0, false);
}

struct Walk<'a> {
    kind: SchemaKind,
    out: &'a mut Vec<Finding>,
}

/// Keywords whose value is one subschema.
const SINGLE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "if",
    "then",
    "else",
];
/// Keywords whose value is a map of subschemas.
const MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];
/// Keywords whose value is a list of subschemas.
const LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// What makes a subschema typed (it says what its values are).
const TYPING: &[&str] = &["type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf"];

impl Walk<'_> {
    fn push(&mut self, rule: &'static str, severity: Severity, pointer: &str, message: String) {
        self.out.push(Finding {
            kind: self.kind,
            rule,
            severity,
            pointer: pointer.to_string(),
            message,
        });
    }

    fn node(&mut self, v: &Value, ptr: &str, depth: usize, sub: bool) {
        if depth > MAX_DEPTH {
            self.push(
                "depth",
                Severity::Warning,
                ptr,
                format!("nested deeper than {MAX_DEPTH} levels"),
            );
            return;
        }
        let m = match v {
            Value::Object(m) => m,
            Value::Bool(b) => {
                self.push(
                    "boolean-schema",
                    Severity::Error,
                    ptr,
                    format!("a bare `{b}` where a schema object is expected"),
                );
                return;
            }
            _ => return,
        };
        self.keywords(m, ptr, sub);
        for (k, child) in m {
            let here = format!("{ptr}/{}", escape(k));
            if SINGLE.contains(&k.as_str()) {
                // `additionalProperties: false` / `true` is a switch, not a subschema.
                if k == "additionalProperties" && child.is_boolean() {
                    continue;
                }
                self.node(child, &here, depth + 1, true);
            } else if MAPS.contains(&k.as_str()) {
                if let Value::Object(map) = child {
                    for (name, s) in map {
                        self.node(s, &format!("{here}/{}", escape(name)), depth + 1, true);
                    }
                }
            } else if LISTS.contains(&k.as_str()) {
                if let Value::Array(list) = child {
                    for (i, s) in list.iter().enumerate() {
                        self.node(s, &format!("{here}/{i}"), depth + 1, true);
                    }
                }
            }
        }
    }

    fn keywords(&mut self, m: &Map<String, Value>, ptr: &str, sub: bool) {
        if let Some(Value::Array(types)) = m.get("type") {
            self.push(
                "type-union",
                Severity::Warning,
                &format!("{ptr}/type"),
                format!(
                    "`type` is an array ({}); write `anyOf` branches with one `type` each",
                    Value::Array(types.clone())
                ),
            );
        }
        if sub && !TYPING.iter().any(|k| m.contains_key(*k)) {
            self.push(
                "untyped",
                Severity::Warning,
                ptr,
                "the schema declares no `type` (nor enum, const, $ref or a combinator)".into(),
            );
        }
        if let Some(f) = m.get("format").and_then(Value::as_str) {
            if !PORTABLE_FORMATS.contains(&f) {
                self.push(
                    "format",
                    Severity::Warning,
                    &format!("{ptr}/format"),
                    format!("`format: {f}` is not one the strict providers accept"),
                );
            }
        }
        let is_array = match m.get("type") {
            Some(Value::String(t)) => t == "array",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
            _ => false,
        };
        if is_array && !m.contains_key("items") && !m.contains_key("prefixItems") {
            self.push(
                "array-items",
                Severity::Warning,
                ptr,
                "`type: \"array\"` without `items`".into(),
            );
        }
        for k in ["$ref", "$defs", "definitions"] {
            if m.contains_key(k) {
                self.push(
                    "ref",
                    Severity::Warning,
                    &format!("{ptr}/{}", escape(k)),
                    format!("`{k}`: references are refused by some providers; inline the schema"),
                );
            }
        }
        for k in ["nullable", "discriminator"] {
            if m.contains_key(k) {
                self.push(
                    "openapi-keyword",
                    Severity::Warning,
                    &format!("{ptr}/{k}"),
                    format!("`{k}` is OpenAPI, not JSON Schema"),
                );
            }
        }
    }
}

/// A JSON Pointer reference token (RFC 6901).
fn escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(tool: Value) -> Vec<(&'static str, String)> {
        lint_tool(&tool)
            .into_iter()
            .map(|f| (f.rule, f.pointer))
            .collect()
    }

    #[test]
    fn a_portable_tool_has_no_findings() {
        let t = json!({
            "inputSchema": {"type": "object", "additionalProperties": false, "properties": {
                "d": {"type": "string", "format": "date"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "n": {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "x"},
                "e": {"enum": ["a", "b"]}
            }},
            "outputSchema": {"type": "object"}
        });
        assert_eq!(rules(t), vec![]);
    }

    #[test]
    fn each_rule_fires_where_it_should() {
        let t = json!({
            "inputSchema": {"type": "object", "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"description": "no type"},
                "c": true,
                "d": {"type": "string", "format": "float"},
                "e": {"type": "array"},
                "f": {"$ref": "#/$defs/x"},
                "g": {"type": "string", "nullable": true},
                "h/i": {"type": "object", "properties": {"j": {}}}
            }},
            "outputSchema": {"type": "object", "properties": {"k": {"anyOf": [{"type": "string"}, {}]}}}
        });
        let got = rules(t);
        let want: Vec<(&str, String)> = vec![
            ("type-union", "/properties/a/type".into()),
            ("untyped", "/properties/b".into()),
            ("boolean-schema", "/properties/c".into()),
            ("format", "/properties/d/format".into()),
            ("array-items", "/properties/e".into()),
            ("ref", "/properties/f/$ref".into()),
            ("openapi-keyword", "/properties/g/nullable".into()),
            ("untyped", "/properties/h~1i/properties/j".into()),
            ("untyped", "/properties/k/anyOf/1".into()),
        ];
        for w in &want {
            assert!(
                got.contains(&(w.0, w.1.clone())),
                "missing {w:?} in {got:?}"
            );
        }
        assert_eq!(got.len(), want.len(), "{got:?}");
    }

    #[test]
    fn the_input_root_must_be_an_object() {
        assert_eq!(
            rules(json!({"inputSchema": {"type": "string"}})),
            vec![("input-root", String::new())]
        );
        assert_eq!(rules(json!({})), vec![("input-root", String::new())]);
        // An output root may be anything; only subschemas must be typed.
        assert_eq!(
            rules(json!({"inputSchema": {"type": "object"}, "outputSchema": {}})),
            vec![]
        );
    }
}

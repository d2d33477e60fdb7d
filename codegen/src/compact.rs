//! How a tool's schemas are written into `tools/list`: smaller and portable, never different in
//! what they let a client send or promise about what it gets back.
//!
//! The catalog keeps the full schemas; the runtime validates every call's arguments and every
//! JSON answer against those (`Tool::input_schema_json` / `output_schema_json`). The listing
//! carries the forms below, chosen so that a client following the listing is never refused for
//! following it and never handed an answer that breaks what the listing says:
//!
//! **Input schemas** (what the model writes) keep every property, every description and every
//! constraint a model needs to write a valid call, and lose only what is not portable or says
//! nothing a model acts on:
//! - `type: [X, "null"]` becomes `type: X` (and `null` leaves an `enum`): the listing no longer
//!   offers `null` (omitting an optional argument says the same), the server still accepts it.
//!   A union of several non-null types becomes `anyOf` branches, one `type` each.
//! - `format` is kept only where it tells a model how to write the value ([`INPUT_FORMATS`]:
//!   dates, times, durations); `uuid`, `email` (the model copies those values, it does not compose
//!   them) and formats some providers refuse (`float`, `password`, `uri`…) are left out.
//! - `maxLength` is dropped (the server checks it and names the argument and the limit when a
//!   call exceeds it).
//! - the root's `additionalProperties: false` is dropped: the server refuses an unknown argument,
//!   naming it, whatever the listing says.
//! - the paging arguments `page` and `per_page` lose their description when the product's
//!   instructions (sent once, on `initialize`) already state the paging convention; their type,
//!   bounds and default stay.
//!
//! **Output schemas** (what a client may validate `structuredContent` against) are listed in
//! their portable form when the product's whole listing so built stays within
//! [`LISTING_WHOLE_MAX`] bytes (finance, inbox), or when the schema itself is small
//! ([`OUTPUT_INLINE_MAX`] bytes); otherwise (banking) they are summarized to their root:
//! `{"type": "object"}`. A summary is a widening — everything the full
//! schema accepts, it accepts — so a client validating against the listing never rejects a
//! conforming answer. Models do not read output schemas when they choose and call tools (the
//! Anthropic and OpenAI tool formats carry input schemas only); the record's full shape is in the
//! product's schemas catalog resource and in the generated docs, and the server still checks
//! every answer against the full schema. Derived banking schemas are 1–20 KB each; listed whole
//! they were half of banking's `tools/list`.
//!
//! The portable form of a schema writes a nullable type as `anyOf: [{type: X, …}, {type:
//! "null"}]` (the Inspector's `type-union` rule), keeping `description` outside the branches.
//!
//! [`PORTABLE_FORMATS`]: runtime_model::schema_lint::PORTABLE_FORMATS

use runtime_model::schema_lint::PORTABLE_FORMATS;
use serde_json::{json, Map, Value};

/// An output schema whose portable form is at most this many bytes is listed whole.
pub const OUTPUT_INLINE_MAX: usize = 300;

/// A product whose listing, with every output schema whole, stays within this many bytes (about
/// 25,000 tokens, the default result budget) lists them whole.
pub const LISTING_WHOLE_MAX: usize = 100_000;

/// The formats an input schema keeps: those that say how to write a value.
pub const INPUT_FORMATS: &[&str] = &["date-time", "time", "date", "duration"];

/// The arguments every list tool pages with (the sandbox's and Kobana's convention).
pub const PAGING_ARGS: &[&str] = &["page", "per_page"];

/// What the product says once, for every tool, so a descriptor need not repeat it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Said {
    /// The instructions name `page` and `per_page`.
    pub paging: bool,
}

impl Said {
    /// What the product's `instructions` say.
    pub fn by(instructions: &str) -> Said {
        Said {
            paging: PAGING_ARGS.iter().all(|a| instructions.contains(a)),
        }
    }
}

/// How a tool description names the Kobana API operation it calls, in each locale.
const API_REFERENCE_MARKERS: &[&str] = &["Kobana API: ", "API da Kobana: ", "API de Kobana: "];

/// A tool's description as `tools/list` carries it: without the sentence naming the Kobana API
/// operation the tool calls (`Kobana API: POST /v1/bank_billet_accounts ("Criar Carteira de
/// Cobrança").`). A model chooses and calls tools by their name, title, description and
/// arguments; the endpoint is for the people who debug a call, and the generated docs and the
/// catalog keep it. In banking it is about a twentieth of the listing.
pub fn description(text: &str) -> String {
    for marker in API_REFERENCE_MARKERS {
        let Some(at) = text.find(marker) else {
            continue;
        };
        let rest = &text[at + marker.len()..];
        let sentence_end = rest.find(". ").map_or(rest.len(), |i| i + 1);
        let end = match rest.find("(\"") {
            // `METHOD /path ("Title").`: up to the closing quote and parenthesis.
            Some(open) if open < sentence_end => match rest[open..].find("\")") {
                Some(close) => {
                    let after = open + close + 2;
                    after + usize::from(rest[after..].starts_with('.'))
                }
                None => sentence_end,
            },
            _ => sentence_end,
        };
        let kept = format!("{} {}", text[..at].trim_end(), rest[end..].trim_start());
        let kept = kept.trim();
        if kept.is_empty() {
            return text.to_string();
        }
        return kept.to_string();
    }
    text.to_string()
}

/// The input schema as `tools/list` carries it.
pub fn input_schema(schema: &Value, said: Said) -> Value {
    let mut out = input_node(schema);
    if let Value::Object(m) = &mut out {
        if m.get("additionalProperties") == Some(&Value::Bool(false)) {
            m.remove("additionalProperties");
        }
        if said.paging {
            if let Some(Value::Object(props)) = m.get_mut("properties") {
                for arg in PAGING_ARGS {
                    if let Some(Value::Object(p)) = props.get_mut(*arg) {
                        p.remove("description");
                    }
                }
            }
        }
    }
    out
}

/// The output schema as `tools/list` carries it: whole (portable) when `whole` (the product's
/// listing fits [`LISTING_WHOLE_MAX`] with every schema whole) or when small, else its root.
pub fn output_schema(schema: &Value, whole: bool) -> Value {
    let portable = portable(schema);
    let len = serde_json::to_string(&portable)
        .map(|s| s.len())
        .unwrap_or(usize::MAX);
    if whole || len <= OUTPUT_INLINE_MAX {
        portable
    } else {
        json!({"type": "object"})
    }
}

/// Applies `f` to every subschema of `m` (properties, items, combinators…), in place.
fn map_children(m: &mut Map<String, Value>, f: &dyn Fn(&Value) -> Value) {
    for (k, v) in m.iter_mut() {
        match k.as_str() {
            "items"
            | "not"
            | "contains"
            | "propertyNames"
            | "if"
            | "then"
            | "else"
            | "additionalProperties"
            | "unevaluatedProperties"
            | "unevaluatedItems"
                if v.is_object() =>
            {
                *v = f(v);
            }
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                if let Value::Object(props) = v {
                    for p in props.values_mut() {
                        *p = f(p);
                    }
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                if let Value::Array(list) = v {
                    for s in list.iter_mut() {
                        *s = f(s);
                    }
                }
            }
            _ => {}
        }
    }
}

fn input_node(schema: &Value) -> Value {
    let Value::Object(src) = schema else {
        return schema.clone();
    };
    let mut m = src.clone();
    map_children(&mut m, &input_node);
    m.remove("maxLength");
    if let Some(f) = m.get("format").and_then(Value::as_str) {
        if !INPUT_FORMATS.contains(&f) {
            m.remove("format");
        }
    }
    if let Some(Value::Array(types)) = m.get("type").cloned() {
        let non_null: Vec<Value> = types.into_iter().filter(|t| t != "null").collect();
        if let Some(Value::Array(values)) = m.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
        match non_null.as_slice() {
            [one] => {
                m.insert("type".into(), one.clone());
            }
            [] => {
                m.remove("type");
            }
            many => {
                m.remove("type");
                let branches = many.iter().map(|t| json!({"type": t})).collect();
                m.insert("anyOf".into(), Value::Array(branches));
            }
        }
    }
    Value::Object(m)
}

/// A `format` outside [`PORTABLE_FORMATS`] leaves the schema (a widening: formats only narrow).
fn drop_unportable_format(m: &mut Map<String, Value>) {
    if let Some(f) = m.get("format").and_then(Value::as_str) {
        if !PORTABLE_FORMATS.contains(&f) {
            m.remove("format");
        }
    }
}

/// Keywords that annotate a schema rather than constrain it: they stay outside the `anyOf`
/// branches a type union becomes.
const ANNOTATIONS: &[&str] = &["description", "title", "default", "examples", "deprecated"];

/// The portable form: every type union becomes `anyOf` branches with one `type` each.
pub fn portable(schema: &Value) -> Value {
    let Value::Object(src) = schema else {
        return schema.clone();
    };
    let mut m = src.clone();
    map_children(&mut m, &portable);
    drop_unportable_format(&mut m);
    let Some(Value::Array(types)) = m.get("type").cloned() else {
        return Value::Object(m);
    };
    m.remove("type");
    let mut outer = Map::new();
    for k in ANNOTATIONS {
        if let Some(v) = m.remove(*k) {
            outer.insert((*k).to_string(), v);
        }
    }
    let nullable = types.iter().any(|t| t == "null");
    let enum_values = m.remove("enum");
    let mut branches = Vec::new();
    for t in types.iter().filter(|t| *t != "null") {
        let mut b = Map::new();
        b.insert("type".into(), t.clone());
        // Constraints follow their type's branch (object keywords to the object branch…).
        for (k, v) in &m {
            if applies_to(k, t.as_str().unwrap_or_default()) {
                b.insert(k.clone(), v.clone());
            }
        }
        if let Some(Value::Array(values)) = &enum_values {
            let mine: Vec<Value> = values
                .iter()
                .filter(|v| value_has_type(v, t.as_str().unwrap_or_default()))
                .cloned()
                .collect();
            b.insert("enum".into(), Value::Array(mine));
        }
        branches.push(Value::Object(b));
    }
    if nullable {
        branches.push(json!({"type": "null"}));
    }
    // Keywords no branch took (none today) stay beside the union.
    for (k, v) in m {
        if !types
            .iter()
            .any(|t| applies_to(&k, t.as_str().unwrap_or_default()))
        {
            outer.insert(k, v);
        }
    }
    if branches.len() == 1 {
        if let Some(Value::Object(only)) = branches.pop() {
            outer.extend(only);
        }
        return Value::Object(outer);
    }
    outer.insert("anyOf".into(), Value::Array(branches));
    Value::Object(outer)
}

/// Whether keyword `k` constrains values of JSON type `t`.
fn applies_to(k: &str, t: &str) -> bool {
    const OBJECT: &[&str] = &[
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "dependentRequired",
        "dependentSchemas",
        "unevaluatedProperties",
    ];
    const ARRAY: &[&str] = &[
        "items",
        "prefixItems",
        "contains",
        "minItems",
        "maxItems",
        "uniqueItems",
        "unevaluatedItems",
    ];
    const STRING: &[&str] = &[
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "contentEncoding",
        "contentMediaType",
    ];
    const NUMBER: &[&str] = &[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ];
    match t {
        "object" => OBJECT.contains(&k),
        "array" => ARRAY.contains(&k),
        "string" => STRING.contains(&k),
        "number" | "integer" => NUMBER.contains(&k),
        _ => false,
    }
}

fn value_has_type(v: &Value, t: &str) -> bool {
    match (v, t) {
        (Value::String(_), "string") => true,
        (Value::Number(n), "integer") => n.is_i64() || n.is_u64(),
        (Value::Number(_), "number") => true,
        (Value::Bool(_), "boolean") => true,
        (Value::Object(_), "object") => true,
        (Value::Array(_), "array") => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_reference_sentence_is_left_to_the_docs() {
        assert_eq!(
            description("Creates a billet wallet. Kobana API: POST /v1/bank_billet_accounts (\"Criar Carteira\"). Cria uma carteira."),
            "Creates a billet wallet. Cria uma carteira."
        );
        assert_eq!(
            description(
                "Lê um boleto. API da Kobana: GET /v2/charge/bank_billets/{uid} (\"Buscar\")."
            ),
            "Lê um boleto."
        );
        assert_eq!(
            description("Lee pagos. API de Kobana: GET /v2/payments. Devuelve una página."),
            "Lee pagos. Devuelve una página."
        );
        assert_eq!(description("No reference here."), "No reference here.");
    }

    #[test]
    fn input_unions_lose_null_and_keep_everything_a_model_needs() {
        let s = json!({"type": "object", "additionalProperties": false, "required": ["a"],
        "properties": {
            "a": {"type": ["string", "null"], "maxLength": 5, "description": "A", "enum": ["x", null]},
            "b": {"type": "number", "format": "float", "minimum": 0},
            "c": {"type": "string", "format": "date"},
            "d": {"type": ["integer", "string"]},
            "e": {"type": "object", "additionalProperties": false, "properties": {"f": {"type": ["boolean", "null"]}}}
        }});
        assert_eq!(
            input_schema(&s, Said::default()),
            json!({"type": "object", "required": ["a"], "properties": {
                "a": {"type": "string", "description": "A", "enum": ["x"]},
                "b": {"type": "number", "minimum": 0},
                "c": {"type": "string", "format": "date"},
                "d": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                "e": {"type": "object", "additionalProperties": false, "properties": {"f": {"type": "boolean"}}}
            }})
        );
    }

    #[test]
    fn paging_arguments_are_described_once_when_the_instructions_say_it() {
        let s = json!({"type": "object", "properties": {
            "page": {"type": "integer", "minimum": 1, "description": "Page"},
            "per_page": {"type": "integer", "maximum": 50, "default": 50, "description": "Size"},
            "q": {"type": "string", "description": "Query"},
            "id": {"type": "string", "format": "uuid"},
            "at": {"type": "string", "format": "date-time"}
        }});
        let said = Said::by("Lists are paginated (page, per_page up to 50).");
        assert!(said.paging);
        assert_eq!(
            input_schema(&s, said),
            json!({"type": "object", "properties": {
                "page": {"type": "integer", "minimum": 1},
                "per_page": {"type": "integer", "maximum": 50, "default": 50},
                "q": {"type": "string", "description": "Query"},
                "id": {"type": "string"},
                "at": {"type": "string", "format": "date-time"}
            }})
        );
        let silent = input_schema(&s, Said::by("Kobana billing."));
        assert_eq!(silent["properties"]["page"]["description"], "Page");
    }

    #[test]
    fn portable_unions_become_any_of_with_constraints_in_their_branch() {
        let s = json!({"type": "object", "properties": {
            "s": {"type": ["string", "null"], "description": "S", "enum": ["a", "b", null], "maxLength": 3},
            "o": {"type": ["object", "null"], "properties": {"n": {"type": ["number", "null"]}}},
            "plain": {"type": "integer"}
        }});
        assert_eq!(
            portable(&s),
            json!({"type": "object", "properties": {
                "s": {"description": "S", "anyOf": [{"type": "string", "maxLength": 3, "enum": ["a", "b"]}, {"type": "null"}]},
                "o": {"anyOf": [{"type": "object", "properties": {"n": {"anyOf": [{"type": "number"}, {"type": "null"}]}}}, {"type": "null"}]},
                "plain": {"type": "integer"}
            }})
        );
    }

    #[test]
    fn large_output_schemas_are_summarized_to_their_root_and_small_ones_kept() {
        let small = json!({"type": "object", "properties": {"url": {"type": "string"}}});
        assert_eq!(output_schema(&small, false), small);
        let mut props = Map::new();
        for i in 0..40 {
            props.insert(format!("field_{i}"), json!({"type": ["string", "null"]}));
        }
        let large = json!({"type": "object", "properties": props});
        assert_eq!(output_schema(&large, false), json!({"type": "object"}));
        // A product whose listing fits keeps it whole, in portable form.
        assert_eq!(output_schema(&large, true), portable(&large));
    }

    /// The summary and the portable form accept everything the full schema accepts.
    #[test]
    fn listed_output_schemas_accept_what_the_full_schema_accepts() {
        let full = json!({"type": "object", "properties": {
            "s": {"type": ["string", "null"], "enum": ["a", null]},
            "n": {"type": ["integer", "null"], "minimum": 1}
        }});
        let listed = portable(&full);
        for answer in [
            json!({"s": "a", "n": 2}),
            json!({"s": null, "n": null}),
            json!({}),
        ] {
            assert!(jsonschema::is_valid(&full, &answer));
            assert!(jsonschema::is_valid(&listed, &answer), "{answer}");
        }
        for wrong in [json!({"s": "b"}), json!({"n": 0}), json!({"n": "x"})] {
            assert!(!jsonschema::is_valid(&full, &wrong));
            assert!(!jsonschema::is_valid(&listed, &wrong), "{wrong}");
        }
    }
}

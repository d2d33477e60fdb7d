//! Output schemas from an operation's 2xx JSON response, and the rule that decides whether the
//! spec's schema is usable as a tool's `outputSchema`.
//!
//! MCP makes a declared `outputSchema` a promise: every `structuredContent` must conform, and
//! clients may reject answers that do not. So the schema derived here keeps only what a real answer
//! is bound by (types, nesting, enums of state fields) and drops what would make honest answers
//! fail or only bloats `tools/list`:
//!
//! * `$ref`s are inlined (a cycle, or nesting deeper than 8 levels, becomes `{}`: anything);
//! * OpenAPI `nullable: true` becomes a 2020-12 type array (`[string, "null"]`, and `null` joins an
//!   enum); `anyOf [X, {type: null}]` becomes X with `null` in its type; `oneOf` becomes `anyOf`
//!   (the API does not guarantee its variants are exclusive);
//! * `required` is dropped: Kobana's component schemas are shared by requests and answers, so their
//!   `required` lists say what a *request* must send, not what every answer holds;
//! * objects are never closed (`additionalProperties: false` is dropped): the API adds fields;
//! * `writeOnly` properties are dropped (never in an answer); `example(s)`, `format`, `readOnly`,
//!   `deprecated`, `title` and value constraints (`minimum`, `pattern`, `maxLength`, …) are dropped;
//! * descriptions are cut to their first sentence, at most 100 characters;
//!   enums longer than 40 values are dropped (the field stays a typed string);
//! * alternatives that are all records (`anyOf` of objects, e.g. a payment that is a billet, a
//!   Pix or a utility payment) are merged into one record holding every variant's fields.
//!
//! [`compact`] then keeps `tools/list` small (the banking catalog's schemas went from 1 MB to
//! about 0.4 MB with it): no descriptions (the input schemas, the tool descriptions and the
//! schemas catalog resource describe the fields), and records nested deeper than
//! [`MAX_PROPERTY_LEVELS`] are plain objects.
//!
//! The conversion itself is in [`super::convert`]. The usability rule ([`derive()`]) is written down in `catalog/README.md` ("Output schemas").

use serde_json::{Map, Value};

use super::convert::convert;
use super::spec::{Spec, SpecOperation};

/// Property levels [`compact`] keeps: envelope (1), record fields (2), their sub-records (3) and
/// those sub-records' fields (4); below that an object is just `type: object`.
pub const MAX_PROPERTY_LEVELS: usize = 4;

/// The outcome for one operation.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The schema to declare, and the HTTP status whose response it comes from.
    Usable {
        status: String,
        schema: Map<String, Value>,
    },
    /// Why the spec's answer cannot be declared (one sentence, for the report).
    Unusable(String),
}

impl Verdict {
    pub fn schema(&self) -> Option<&Map<String, Value>> {
        match self {
            Verdict::Usable { schema, .. } => Some(schema),
            Verdict::Unusable(_) => None,
        }
    }
}

/// The 2xx answer with a JSON body: status, schema (raw) and example (raw), if any.
fn success_json<'a>(
    op: &SpecOperation<'a>,
) -> Result<(String, &'a Value, Option<&'a Value>), String> {
    let responses = op
        .op
        .get("responses")
        .and_then(Value::as_object)
        .ok_or_else(|| "the spec gives no responses".to_string())?;
    let mut codes: Vec<&String> = responses.keys().filter(|k| k.starts_with('2')).collect();
    codes.sort();
    if codes.is_empty() {
        return Err("the spec gives no 2xx response".into());
    }
    for code in &codes {
        let Some(json) = responses[code.as_str()]
            .get("content")
            .and_then(|c| c.get("application/json"))
        else {
            continue;
        };
        return match json.get("schema") {
            Some(schema) => Ok(((*code).clone(), schema, json.get("example"))),
            None => Err(format!(
                "the {code} answer is JSON but the spec gives no schema for it"
            )),
        };
    }
    Err(format!(
        "the {} answer has no JSON body (no content, or a file)",
        codes
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join("/")
    ))
}

/// Derives the output schema of one operation and decides whether it is usable:
///
/// 1. the operation has a 2xx response with an `application/json` schema;
/// 2. its root, once `$ref`s are inlined, is an object with properties (a bare array, as v1 lists
///    answer, cannot be an MCP `outputSchema`);
/// 3. the record is described: a v2 envelope's `data` (or a v1 record) has properties, or is an
///    array whose items have them — a free-form `{type: object}` promises nothing;
/// 4. the spec's own example of that answer conforms to the derived schema (a spec that
///    contradicts itself does not describe what the API answers).
///
/// The fifth condition — the sandbox's answer conforms — is checked by `tests/output_schemas.rs`.
pub fn derive(spec: &Spec, op: &SpecOperation<'_>) -> Verdict {
    let (status, raw, example) = match success_json(op) {
        Ok(x) => x,
        Err(why) => return Verdict::Unusable(why),
    };
    let converted = convert(spec, raw, 0, &mut Vec::new());
    let Value::Object(schema) = converted else {
        return Verdict::Unusable("the answer's schema is not an object schema".into());
    };
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        let what = match schema.get("type") {
            Some(Value::String(t)) => format!("a bare {t}"),
            _ => "not typed as an object".to_string(),
        };
        return Verdict::Unusable(format!(
            "the answer is {what}; MCP needs an object at the root of structured content"
        ));
    }
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Verdict::Unusable("the answer is a free-form object (no properties)".into());
    };
    if props.is_empty() {
        return Verdict::Unusable("the answer is a free-form object (no properties)".into());
    }
    let v2 = op.path.starts_with("/v2");
    if let Some(data) = props.get("data").filter(|_| v2) {
        if !describes_fields(data) {
            return Verdict::Unusable(
                "the envelope's `data` is free-form: the spec does not describe the record".into(),
            );
        }
    }
    if let Some(example) = example {
        if let Some(at) = first_mismatch(&Value::Object(schema.clone()), example) {
            return Verdict::Unusable(format!(
                "the spec's own {status} example does not match its schema at `{}`",
                if at.is_empty() { "/" } else { at.as_str() }
            ));
        }
    }
    Verdict::Usable {
        status,
        schema: compact(schema),
    }
}

/// The form written into catalogs: no descriptions, and no `properties` below
/// [`MAX_PROPERTY_LEVELS`] (a superset of the full schema: every answer that conforms to the full
/// schema conforms to this one).
pub fn compact(schema: Map<String, Value>) -> Map<String, Value> {
    match prune(Value::Object(schema), 0) {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn prune(v: Value, level: usize) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(k, _)| k != "description")
                .filter(|(k, _)| !(k == "properties" && level >= MAX_PROPERTY_LEVELS))
                .map(|(k, v)| match k.as_str() {
                    "properties" => {
                        let props = match v {
                            Value::Object(p) => p
                                .into_iter()
                                .map(|(name, sub)| (name, prune(sub, level + 1)))
                                .collect(),
                            _ => Map::new(),
                        };
                        (k, Value::Object(props))
                    }
                    "items" | "additionalProperties" => (k, prune(v, level)),
                    "anyOf" | "allOf" => {
                        let parts = match v {
                            Value::Array(a) => a.into_iter().map(|p| prune(p, level)).collect(),
                            other => vec![other],
                        };
                        (k, Value::Array(parts))
                    }
                    _ => (k, v),
                })
                .collect(),
        ),
        other => other,
    }
}

/// Whether a schema names at least one field of a record (directly, via its items, or in every
/// alternative).
fn describes_fields(schema: &Value) -> bool {
    if schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty())
    {
        return true;
    }
    if let Some(items) = schema.get("items") {
        return describes_fields(items);
    }
    for key in ["anyOf", "allOf"] {
        if let Some(parts) = schema.get(key).and_then(Value::as_array) {
            return !parts.is_empty() && parts.iter().all(describes_fields);
        }
    }
    false
}

/// Where `value` first fails `schema` (a JSON pointer, empty for the root), checked by the
/// `jsonschema` crate, the validator the runtime and the tests use too.
pub fn first_mismatch(schema: &Value, value: &Value) -> Option<String> {
    match jsonschema::validator_for(schema) {
        Ok(validator) => validator
            .iter_errors(value)
            .next()
            .map(|e| e.instance_path().to_string()),
        Err(e) => Some(format!("(the derived schema does not compile: {e})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(doc: Value) -> Spec {
        Spec::inline(doc)
    }

    /// A v2-style spec: a list and a get answering `{status, data}` around a self-referencing
    /// record with a nullable field, a write-only field, an anyOf-null field and examples.
    fn kobana_like() -> Spec {
        spec(json!({
            "paths": {
                "/v2/things": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"type": "object", "properties": {
                        "status": {"type": "integer", "example": 200},
                        "data": {"type": "array", "items": {"$ref": "#/components/schemas/thing"}},
                        "pagination": {"type": "object", "required": ["page"], "properties": {
                            "page": {"type": "integer"},
                            "next_url": {"anyOf": [{"type": "string", "format": "uri"}, {"type": "null"}]}}}}},
                    "example": {"status": 200, "data": [{"uid": "a", "status": "opened", "parent": null}],
                                "pagination": {"page": 1, "next_url": null}}}}}}}},
                "/v2/things/{uid}": {
                    "get": {"responses": {"200": {"description": "ok", "content": {"application/json": {
                        "schema": {"type": "object", "properties": {"status": {"type": "integer"},
                                   "data": {"$ref": "#/components/schemas/thing"}}},
                        "example": {"status": 200, "data": {"uid": "a", "status": "lost"}}}}}}},
                    "delete": {"responses": {"204": {"description": "gone"}}}
                },
                "/v1/things": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"type": "array", "items": {"$ref": "#/components/schemas/thing"}}}}}}}},
                "/v2/blobs": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"type": "object", "properties": {"status": {"type": "integer"}, "data": {"type": "object"}}}}}}}}}
            },
            "components": {"schemas": {"thing": {
                "type": "object",
                "required": ["uid", "amount"],
                "additionalProperties": false,
                "properties": {
                    "uid": {"type": "string", "format": "uuid", "readOnly": true, "example": "x",
                            "description": "UID of the thing. It is unique.\nSecond line."},
                    "status": {"type": "string", "enum": ["opened", "paid"], "nullable": true},
                    "amount": {"type": "number", "minimum": 0.01, "multipleOf": 0.01},
                    "secret": {"type": "string", "writeOnly": true},
                    "parent": {"anyOf": [{"$ref": "#/components/schemas/thing"}, {"type": "null"}]},
                    "kind": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
                }
            }}}
        }))
    }

    fn verdict(s: &Spec, method: &str, path: &str) -> Verdict {
        let ops = s.operations();
        let op = ops
            .iter()
            .find(|o| o.method == method && o.path == path)
            .unwrap();
        derive(s, op)
    }

    #[test]
    fn a_v2_list_envelope_is_usable_with_refs_inlined_and_openapi_keys_converted() {
        let s = kobana_like();
        let Verdict::Usable { status, schema } = verdict(&s, "GET", "/v2/things") else {
            panic!("expected usable")
        };
        assert_eq!(status, "200");
        let schema = Value::Object(schema);
        let thing = &schema["properties"]["data"]["items"];
        assert_eq!(thing["type"], "object");
        // required and additionalProperties:false never reach an output schema
        assert!(thing.get("required").is_none());
        assert!(thing.get("additionalProperties").is_none());
        assert!(schema["properties"]["pagination"].get("required").is_none());
        // format, readOnly, example, constraints and (in the compact form) descriptions dropped
        assert_eq!(thing["properties"]["uid"], json!({"type": "string"}));
        assert_eq!(thing["properties"]["amount"], json!({"type": "number"}));
        // nullable → type array, and null joins the enum
        assert_eq!(
            thing["properties"]["status"],
            json!({"type": ["string", "null"], "enum": ["opened", "paid", null]})
        );
        // write-only fields are never answered
        assert!(thing["properties"].get("secret").is_none());
        // the self-reference is cut to `{}` (anything), so the anyOf constrains nothing
        assert_eq!(thing["properties"]["parent"], json!({}));
        // oneOf → anyOf
        assert_eq!(
            thing["properties"]["kind"],
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})
        );
        assert_eq!(
            schema["properties"]["pagination"]["properties"]["next_url"],
            json!({"type": ["string", "null"]})
        );
        assert!(!schema.to_string().contains("example"));
    }

    #[test]
    fn the_usability_rule_names_why_a_schema_is_refused() {
        let s = kobana_like();
        let why = |method, path| match verdict(&s, method, path) {
            Verdict::Unusable(w) => w,
            Verdict::Usable { .. } => panic!("{method} {path} should be unusable"),
        };
        assert!(why("DELETE", "/v2/things/{uid}").contains("no JSON body"));
        assert!(why("GET", "/v1/things").contains("bare array"));
        assert!(why("GET", "/v2/blobs").contains("`data` is free-form"));
        // the example says status `lost`, which the enum does not allow
        let w = why("GET", "/v2/things/{uid}");
        assert!(
            w.contains("example does not match its schema at `/data/status`"),
            "{w}"
        );
    }

    #[test]
    fn examples_are_checked_against_the_derived_schema() {
        let s = kobana_like();
        let schema = Value::Object(verdict(&s, "GET", "/v2/things").schema().unwrap().clone());
        let ok = [
            json!({"status": 200, "data": [{"uid": "a", "status": null, "amount": 1}]}),
            json!({"status": 200, "data": [{"parent": null, "kind": 3, "extra": [1]}]}),
            json!({"status": 1.0, "data": []}),
            // `parent` refers back to a record being inlined (a cycle): it is `{}`, anything
            json!({"status": 200, "data": [{"parent": {"uid": 3}}]}),
        ];
        for case in ok {
            assert_eq!(first_mismatch(&schema, &case), None, "{case}");
        }
        let bad = [
            (
                json!({"status": 200, "data": [{"uid": "a", "status": "gone"}]}),
                "/data/0/status",
            ),
            (json!({"status": "200", "data": []}), "/status"),
            (json!({"data": {"uid": "a"}}), "/data"),
            (
                json!({"status": 1.0, "data": [{"kind": true}]}),
                "/data/0/kind",
            ),
        ];
        for (case, at) in bad {
            assert_eq!(
                first_mismatch(&schema, &case).as_deref(),
                Some(at),
                "{case}"
            );
        }
    }

    #[test]
    fn record_alternatives_merge_and_compact_cuts_deep_records() {
        let s = spec(json!({"paths": {}, "components": {"schemas": {
            "pix": {"type": "object", "description": "A Pix. Paid.", "properties": {
                "kind": {"type": "string"}, "pix": {"type": "object"}, "amount": {"type": "number"}}},
            "billet": {"type": "object", "properties": {
                "kind": {"type": "string"}, "amount": {"type": "integer"}, "line": {"type": "string"}}}
        }}}));
        let payment = json!({"description": "The payment", "nullable": true, "anyOf": [
            {"$ref": "#/components/schemas/pix"}, {"$ref": "#/components/schemas/billet"}]});
        let full = convert(&s, &payment, 0, &mut Vec::new());
        assert_eq!(full["description"], "The payment");
        assert_eq!(full["type"], json!(["object", "null"]));
        assert!(full.get("anyOf").is_none());
        assert_eq!(full["properties"]["kind"], json!({"type": "string"}));
        assert_eq!(
            full["properties"]["amount"],
            json!({"anyOf": [{"type": "number"}, {"type": "integer"}]})
        );
        assert_eq!(full["properties"]["line"], json!({"type": "string"}));
        // every variant's answer conforms to the merged record, and so does null
        let validator = jsonschema::validator_for(&full).unwrap();
        assert!(validator.is_valid(&json!({"kind": "pix", "pix": {}, "amount": 1.5})));
        assert!(validator.is_valid(&json!({"kind": "billet", "line": "x", "amount": 2})));
        assert!(validator.is_valid(&Value::Null));
        assert!(!validator.is_valid(&json!({"amount": "2"})));

        let mut deep = json!({"type": "object"});
        for name in ["e", "d", "c", "b", "a"] {
            deep = json!({"type": "object", "description": name, "properties": {name: deep}});
        }
        let Value::Object(m) = deep else { panic!() };
        let compacted = Value::Object(compact(m));
        assert!(!compacted.to_string().contains("description"));
        assert_eq!(
            compacted["properties"]["a"]["properties"]["b"]["properties"]["c"]["properties"]["d"],
            json!({"type": "object"})
        );
    }
}

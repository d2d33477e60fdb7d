//! Output schemas from an operation's 2xx JSON response, and the rule that decides whether the
//! spec's schema is usable as a tool's `outputSchema`.
//!
//! MCP makes a declared `outputSchema` a promise: every `structuredContent` must conform, and
//! clients may reject answers that do not. So the schema derived here keeps only what a real answer
//! is bound by (types, nesting, enums of state fields) and drops what would make honest answers
//! fail or only bloats `tools/list`:
//!
//! * `$ref`s are inlined (a cycle, or nesting deeper than `MAX_DEPTH`, becomes `{}`: anything);
//! * OpenAPI `nullable: true` becomes a 2020-12 type array (`[string, "null"]`, and `null` joins an
//!   enum); `anyOf [X, {type: null}]` becomes X with `null` in its type; `oneOf` becomes `anyOf`
//!   (the API does not guarantee its variants are exclusive);
//! * `required` is dropped: Kobana's component schemas are shared by requests and answers, so their
//!   `required` lists say what a *request* must send, not what every answer holds;
//! * objects are never closed (`additionalProperties: false` is dropped): the API adds fields;
//! * `writeOnly` properties are dropped (never in an answer); `example(s)`, `format`, `readOnly`,
//!   `deprecated`, `title` and value constraints (`minimum`, `pattern`, `maxLength`, …) are dropped;
//! * descriptions are cut to their first sentence, at most [`DESCRIPTION_LIMIT`] characters;
//!   enums longer than `MAX_ENUM` values are dropped (the field stays a typed string);
//! * alternatives that are all records (`anyOf` of objects, e.g. a payment that is a billet, a
//!   Pix or a utility payment) are merged into one record holding every variant's fields.
//!
//! [`compact`] then keeps `tools/list` small (the banking catalog's schemas went from 1 MB to
//! about 0.4 MB with it): no descriptions (the input schemas, the tool descriptions and the
//! schemas catalog resource describe the fields), and records nested deeper than
//! [`MAX_PROPERTY_LEVELS`] are plain objects.
//!
//! The usability rule ([`derive()`]) is written down in `catalog/README.md` ("Output schemas").

use serde_json::{Map, Value};

use super::spec::{Spec, SpecOperation};

/// How deep `$ref`s are followed; Kobana's records nest a few levels (billet → payer → address).
const MAX_DEPTH: usize = 8;

/// Longest description kept (the first sentence, cut with an ellipsis beyond this).
pub const DESCRIPTION_LIMIT: usize = 100;

/// Property levels [`compact`] keeps: envelope (1), record fields (2), their sub-records (3) and
/// those sub-records' fields (4); below that an object is just `type: object`.
pub const MAX_PROPERTY_LEVELS: usize = 4;

/// Enums longer than this are dropped from output schemas (event codes run to hundreds).
const MAX_ENUM: usize = 40;

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
        if let Err(at) = conforms(&Value::Object(schema.clone()), example, "") {
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

/// Converts one OpenAPI schema into the output-schema subset (see the module docs).
pub fn convert(spec: &Spec, schema: &Value, depth: usize, seen: &mut Vec<String>) -> Value {
    let Some(obj) = schema.as_object() else {
        return schema.clone();
    };
    if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
        if depth > MAX_DEPTH || seen.iter().any(|s| s == reference) {
            return Value::Object(Map::new());
        }
        let Some(target) = reference
            .strip_prefix('#')
            .and_then(|p| spec.doc.pointer(p))
        else {
            return Value::Object(Map::new());
        };
        // Kobana's `{data, create, update}` components (EDI boxes, mailbox entries) are not
        // schemas: their `data` part is the record an answer carries.
        let target = match target.get("data") {
            Some(data) if !is_schema(target) => data,
            _ => target,
        };
        seen.push(reference.to_string());
        let mut out = convert(spec, target, depth + 1, seen);
        seen.pop();
        // A description next to the `$ref` speaks about this use of the record: it wins.
        if let (Value::Object(m), Some(d)) = (&mut out, obj.get("description")) {
            let text = short_description(d.as_str().unwrap_or(""));
            if !text.is_empty() {
                m.insert("description".into(), text.into());
            }
        }
        return out;
    }
    let mut out = Map::new();
    if let Some(t) = obj.get("type") {
        out.insert("type".into(), t.clone());
    }
    if let Some(d) = obj.get("description").and_then(Value::as_str) {
        let text = short_description(d);
        if !text.is_empty() {
            out.insert("description".into(), text.into());
        }
    }
    if let Some(values) = obj.get("enum").and_then(Value::as_array) {
        if values.len() <= MAX_ENUM {
            out.insert("enum".into(), Value::Array(values.clone()));
        }
    }
    if let Some(c) = obj.get("const") {
        out.insert("const".into(), c.clone());
    }
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        let mut flat = Map::new();
        for (name, sub) in props {
            if is_write_only(spec, sub) {
                continue;
            }
            flat.insert(name.clone(), convert(spec, sub, depth + 1, seen));
        }
        out.insert("properties".into(), Value::Object(flat));
    }
    if let Some(items) = obj.get("items") {
        out.insert("items".into(), convert(spec, items, depth + 1, seen));
    }
    if let Some(extra) = obj.get("additionalProperties").filter(|v| v.is_object()) {
        out.insert(
            "additionalProperties".into(),
            convert(spec, extra, depth + 1, seen),
        );
    }
    for combinator in ["anyOf", "oneOf", "allOf"] {
        let Some(parts) = obj.get(combinator).and_then(Value::as_array) else {
            continue;
        };
        let mut converted: Vec<Value> = Vec::new();
        for p in parts {
            let c = convert(spec, p, depth + 1, seen);
            if !converted.contains(&c) {
                converted.push(c);
            }
        }
        if combinator == "allOf" {
            // An empty part (`{}`) constrains nothing; drop it.
            converted.retain(|c| c.as_object().is_some_and(|m| !m.is_empty()));
            if !converted.is_empty() {
                out.insert("allOf".into(), Value::Array(converted));
            }
            continue;
        }
        // Alternatives: any unconstrained one makes the whole thing unconstrained.
        if converted.iter().any(|c| {
            c.as_object()
                .is_some_and(|m| m.keys().all(|k| k == "description"))
        }) {
            continue;
        }
        let (nulls, others): (Vec<Value>, Vec<Value>) =
            converted.into_iter().partition(is_null_type);
        match (nulls.is_empty(), others.len()) {
            (false, 0) => {
                out.insert("type".into(), "null".into());
            }
            (false, 1) if others[0].get("type").is_some() => {
                let Value::Object(mut only) = others[0].clone() else {
                    continue;
                };
                add_null(&mut only);
                merge_missing(&mut out, only);
            }
            (true, 1) => {
                if let Value::Object(only) = others[0].clone() {
                    merge_missing(&mut out, only);
                }
            }
            (no_null, _) => {
                let mut alts = others;
                match merge_records(&alts) {
                    Some(mut record) => {
                        if !no_null {
                            add_null(&mut record);
                        }
                        merge_missing(&mut out, record);
                    }
                    None => {
                        if !no_null {
                            alts.push(serde_json::json!({"type": "null"}));
                        }
                        out.insert("anyOf".into(), Value::Array(alts));
                    }
                }
            }
        }
    }
    if obj.get("nullable").and_then(Value::as_bool) == Some(true) {
        add_null(&mut out);
        // `nullable` covers the alternatives too: null must pass the anyOf.
        if let Some(Value::Array(alts)) = out.get_mut("anyOf") {
            if !alts.iter().any(is_null_type) {
                alts.push(serde_json::json!({"type": "null"}));
            }
        }
    }
    Value::Object(out)
}

/// Whether a component is a schema (rather than Kobana's `{data, create, update}` bundle).
fn is_schema(v: &Value) -> bool {
    [
        "type",
        "properties",
        "items",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "enum",
    ]
    .iter()
    .any(|k| v.get(k).is_some())
}

/// Alternatives that are all records with fields, as one record: every variant's fields, a field
/// the variants type differently becoming the `anyOf` of its distinct schemas. `None` when some
/// alternative is not such a record.
fn merge_records(alts: &[Value]) -> Option<Map<String, Value>> {
    let mut fields: Vec<(String, Vec<Value>)> = Vec::new();
    for alt in alts {
        if alt.get("type").and_then(Value::as_str) != Some("object") {
            return None;
        }
        let props = alt.get("properties").and_then(Value::as_object)?;
        for (name, schema) in props {
            match fields.iter_mut().find(|(n, _)| n == name) {
                Some((_, schemas)) if !schemas.contains(schema) => schemas.push(schema.clone()),
                Some(_) => {}
                None => fields.push((name.clone(), vec![schema.clone()])),
            }
        }
    }
    let mut props = Map::new();
    for (name, mut schemas) in fields {
        let schema = if schemas.len() == 1 {
            schemas.remove(0)
        } else {
            serde_json::json!({ "anyOf": schemas })
        };
        props.insert(name, schema);
    }
    let mut record = Map::new();
    record.insert("type".into(), "object".into());
    record.insert("properties".into(), Value::Object(props));
    Some(record)
}

/// Keys of `extra` that `out` lacks are copied (the outer description wins).
fn merge_missing(out: &mut Map<String, Value>, extra: Map<String, Value>) {
    for (k, v) in extra {
        out.entry(k).or_insert(v);
    }
}

fn is_null_type(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("null")
}

/// Lets `null` through a typed schema: into its `type` (string or array) and its `enum`.
fn add_null(m: &mut Map<String, Value>) {
    match m.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = std::mem::take(t);
            m.insert("type".into(), serde_json::json!([t, "null"]));
        }
        Some(Value::Array(types)) if !types.iter().any(|t| t == "null") => {
            types.push("null".into());
        }
        _ => {}
    }
    if let Some(Value::Array(values)) = m.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
}

/// A property the API never sends back (`writeOnly: true`, on it or on the record it names).
fn is_write_only(spec: &Spec, schema: &Value) -> bool {
    if schema.get("writeOnly").and_then(Value::as_bool) == Some(true) {
        return true;
    }
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|p| spec.doc.pointer(p))
        .and_then(|t| t.get("writeOnly"))
        .and_then(Value::as_bool)
        == Some(true)
}

/// The first sentence (or line), at most [`DESCRIPTION_LIMIT`] characters, without markdown
/// emphasis noise.
pub fn short_description(text: &str) -> String {
    let first_line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let flat = first_line.split_whitespace().collect::<Vec<_>>().join(" ");
    let sentence = match flat.find(". ") {
        Some(i) => &flat[..=i],
        None => flat.as_str(),
    };
    if sentence.chars().count() <= DESCRIPTION_LIMIT {
        return sentence.to_string();
    }
    let cut: String = sentence.chars().take(DESCRIPTION_LIMIT - 1).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > DESCRIPTION_LIMIT / 2 => cut[..i].to_string(),
        _ => cut,
    };
    format!("{}…", cut.trim_end_matches([',', ';', ':', ' ']))
}

/// Whether `value` conforms to `schema`, for the subset [`convert`] produces (type, enum,
/// const, properties, items, additionalProperties, anyOf, allOf). `Err` holds the JSON pointer of
/// the first value that does not. Used on the spec's own examples; the runtime and the tests use
/// the `jsonschema` crate.
pub fn conforms(schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    let Some(s) = schema.as_object() else {
        return match schema {
            Value::Bool(false) => Err(at.to_string()),
            _ => Ok(()),
        };
    };
    if let Some(t) = s.get("type") {
        let types: Vec<&str> = match t {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.is_empty() && !types.iter().any(|t| has_type(value, t)) {
            return Err(at.to_string());
        }
    }
    if let Some(values) = s.get("enum").and_then(Value::as_array) {
        if !values.iter().any(|v| json_equal(v, value)) {
            return Err(at.to_string());
        }
    }
    if let Some(c) = s.get("const") {
        if !json_equal(c, value) {
            return Err(at.to_string());
        }
    }
    if let Value::Object(fields) = value {
        let props = s.get("properties").and_then(Value::as_object);
        for (name, v) in fields {
            let here = format!("{at}/{}", escape_pointer(name));
            match props.and_then(|p| p.get(name)) {
                Some(sub) => conforms(sub, v, &here)?,
                None => {
                    if let Some(extra) = s.get("additionalProperties") {
                        conforms(extra, v, &here)?;
                    }
                }
            }
        }
    }
    if let (Value::Array(elements), Some(items)) = (value, s.get("items")) {
        for (i, e) in elements.iter().enumerate() {
            conforms(items, e, &format!("{at}/{i}"))?;
        }
    }
    if let Some(parts) = s.get("allOf").and_then(Value::as_array) {
        for p in parts {
            conforms(p, value, at)?;
        }
    }
    if let Some(parts) = s.get("anyOf").and_then(Value::as_array) {
        if !parts.is_empty() && !parts.iter().any(|p| conforms(p, value, at).is_ok()) {
            return Err(at.to_string());
        }
    }
    Ok(())
}

fn has_type(v: &Value, t: &str) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "number" => v.is_number(),
        // JSON Schema: 1.0 is an integer.
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => true,
    }
}

/// JSON equality where `1` equals `1.0` (as JSON Schema compares numbers).
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn escape_pointer(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
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
    fn the_example_checker_agrees_with_the_jsonschema_crate() {
        let s = kobana_like();
        let schema = Value::Object(verdict(&s, "GET", "/v2/things").schema().unwrap().clone());
        let validator = jsonschema::validator_for(&schema).unwrap();
        let cases = [
            json!({"status": 200, "data": [{"uid": "a", "status": null, "amount": 1}]}),
            json!({"status": 200, "data": [{"uid": "a", "status": "gone"}]}),
            json!({"status": 200, "data": [{"parent": {"uid": 3}}]}),
            json!({"status": 200, "data": [{"parent": null, "kind": 3, "extra": [1]}]}),
            json!({"status": "200", "data": []}),
            json!({"status": 1.0, "data": [{"kind": true}]}),
            json!({"data": {"uid": "a"}}),
        ];
        for case in cases {
            assert_eq!(
                conforms(&schema, &case, "").is_ok(),
                validator.is_valid(&case),
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

    #[test]
    fn descriptions_are_cut_to_a_short_first_sentence() {
        assert_eq!(short_description("Amount. In BRL."), "Amount.");
        assert_eq!(short_description("\n  First line\nsecond"), "First line");
        let long = "word ".repeat(60);
        let cut = short_description(&long);
        assert!(cut.chars().count() <= DESCRIPTION_LIMIT, "{cut}");
        assert!(cut.ends_with('…'));
    }
}

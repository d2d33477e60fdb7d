//! The conversion of an OpenAPI answer schema into the output-schema subset [`super::output`]
//! declares: `$ref`s inlined, nullability as type arrays, `oneOf` as `anyOf`, record alternatives
//! merged, `required`, closing, `writeOnly` fields and value constraints dropped, descriptions cut
//! to a first sentence (the full list is in `super::output`'s docs).

use serde_json::{Map, Value};

use super::spec::Spec;

/// How deep `$ref`s are followed; Kobana's records nest a few levels (billet → payer → address).
const MAX_DEPTH: usize = 8;

/// Longest description kept (the first sentence, cut with an ellipsis beyond this).
pub const DESCRIPTION_LIMIT: usize = 100;

/// Enums longer than this are dropped from output schemas (event codes run to hundreds).
const MAX_ENUM: usize = 40;

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
    // A record typed `null` (Kobana's `GET /v2/me` types its `user` `null` beside `oneOf [user,
    // null]`) is a nullable record mistyped: typed `null` alone, every real answer carrying one
    // would fail its schema.
    if is_null_type(&Value::Object(out.clone())) && out.contains_key("properties") {
        out.insert("type".into(), serde_json::json!(["object", "null"]));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_typed_null_beside_its_alternatives_is_a_nullable_record() {
        let spec = Spec {
            path: std::path::PathBuf::new(),
            doc: serde_json::json!({"components": {"schemas": {"user": {
                "type": "object", "properties": {"uid": {"type": "string"}}
            }}}}),
        };
        let schema = serde_json::json!({
            "oneOf": [{"$ref": "#/components/schemas/user"}, {"type": "null"}],
            "type": "null"
        });
        let out = convert(&spec, &schema, 0, &mut Vec::new());
        assert_eq!(out["type"], serde_json::json!(["object", "null"]), "{out}");
        assert_eq!(out["properties"]["uid"]["type"], "string", "{out}");
        let plain = convert(
            &spec,
            &serde_json::json!({"type": "null"}),
            0,
            &mut Vec::new(),
        );
        assert_eq!(plain["type"], "null");
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

//! Reading OpenAPI 3.1 JSON specs: their operations, and their parameters and request bodies
//! flattened into one object-rooted JSON Schema, the shape an MCP tool's `inputSchema` must have.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde_json::{Map, Value};

/// The HTTP methods that make an operation (other keys of a path item are not operations).
pub const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

/// How deep `$ref`s are followed before a nested schema is cut to `{type: object}`: the Kobana
/// specs have self-referencing component schemas, and a tool schema only needs the first levels.
const MAX_DEPTH: usize = 6;

/// An enum longer than this becomes a description listing a few values: Kobana's 808 event codes
/// would make every tool list heavy for no gain in choosing a tool. Shorter ones (a subaccount's
/// 297 business subcategories, 249 CNAB occurrences) are values a model must choose among, and
/// the coverage gate compares them with the tools (`super::contract`).
const MAX_ENUM: usize = 300;

/// One OpenAPI document.
#[derive(Debug, Clone)]
pub struct Spec {
    pub path: PathBuf,
    pub doc: Value,
}

/// One operation of a spec.
#[derive(Debug, Clone)]
pub struct SpecOperation<'a> {
    /// Upper-case: `GET`, `POST`, …
    pub method: String,
    /// As written in the spec, e.g. `/v1/bank_billets/{id}`.
    pub path: String,
    pub op: &'a Value,
    /// Parameters declared on the path item (shared by its operations).
    pub common_params: &'a [Value],
    pub spec: &'a Spec,
}

impl SpecOperation<'_> {
    /// `GET /v1/bank_billets/{id}`.
    pub fn label(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
    pub fn key(&self) -> OperationKey {
        OperationKey::new(&self.method, &self.path)
    }
    pub fn summary(&self) -> &str {
        self.op.get("summary").and_then(Value::as_str).unwrap_or("")
    }
    pub fn description(&self) -> &str {
        self.op
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
}

/// Method + path with every path parameter's name erased (and no trailing slash), so that
/// `/v1/x/{id}` and `/v1/x/{uid}` are the same operation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OperationKey(String);

impl OperationKey {
    pub fn new(method: &str, path: &str) -> Self {
        let mut norm = String::with_capacity(path.len());
        let mut in_param = false;
        for c in path.chars() {
            match c {
                '{' => {
                    in_param = true;
                    norm.push_str("{}");
                }
                '}' => in_param = false,
                _ if in_param => {}
                _ => norm.push(c),
            }
        }
        while norm.len() > 1 && norm.ends_with('/') {
            norm.pop();
        }
        OperationKey(format!("{} {}", method.to_ascii_uppercase(), norm))
    }

    /// `GET /v1/x/{}`: the method and the normalized path.
    pub fn text(&self) -> &str {
        &self.0
    }

    /// Parses `GET /v1/userinfo` (the form exclusions use).
    pub fn parse(text: &str) -> Option<Self> {
        let (method, path) = text.trim().split_once(' ')?;
        let method = method.trim();
        let path = path.trim();
        let known = METHODS.iter().any(|m| m.eq_ignore_ascii_case(method));
        if !known || !path.starts_with('/') {
            return None;
        }
        Some(Self::new(method, path))
    }
}

impl Spec {
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the OpenAPI spec {}", path.display()))?;
        let doc: Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not valid JSON", path.display()))?;
        if doc.get("paths").and_then(Value::as_object).is_none() {
            bail!(
                "{} has no `paths` object: not an OpenAPI document",
                path.display()
            );
        }
        Ok(Spec {
            path: path.to_path_buf(),
            doc,
        })
    }

    /// Every operation, in the spec's path order.
    pub fn operations(&self) -> Vec<SpecOperation<'_>> {
        let mut out = Vec::new();
        let Some(paths) = self.doc.get("paths").and_then(Value::as_object) else {
            return out;
        };
        for (path, item) in paths {
            let common = item
                .get("parameters")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            for m in METHODS {
                if let Some(op) = item.get(m) {
                    out.push(SpecOperation {
                        method: m.to_ascii_uppercase(),
                        path: path.clone(),
                        op,
                        common_params: common,
                        spec: self,
                    });
                }
            }
        }
        out
    }

    /// Follows a local `$ref` (`#/components/...`).
    pub(super) fn lookup(&self, reference: &str) -> Option<&Value> {
        let pointer = reference.strip_prefix('#')?;
        self.doc.pointer(pointer)
    }
}

/// The tool-facing view of one operation's inputs.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// Object-rooted JSON Schema of every argument.
    pub schema: Map<String, Value>,
    /// Path parameters in order of appearance.
    pub path: Vec<String>,
    pub query: Vec<String>,
    /// Arguments sent in the body (empty when there is no body).
    pub body: Vec<String>,
    /// Whether every body property became an argument (so `body: rest` describes it).
    pub body_is_rest: bool,
    /// The body's media type when it is not JSON (file uploads).
    pub body_media_type: Option<String>,
    /// For a `multipart/form-data` body: the (dotted) arguments that are files, already turned
    /// from `format: binary` into base64 strings.
    pub files: Vec<String>,
}

/// Turns every `format: binary` string property (at any depth) into a base64 string argument,
/// collecting the dotted paths: a model passes a file's bytes base64-encoded.
fn binary_to_base64(props: &mut Map<String, Value>, prefix: &str, out: &mut Vec<String>) {
    for (name, schema) in props.iter_mut() {
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        let Some(obj) = schema.as_object_mut() else {
            continue;
        };
        if obj.get("format").and_then(Value::as_str) == Some("binary") {
            obj.remove("format");
            obj.insert("type".into(), "string".into());
            obj.insert("contentEncoding".into(), "base64".into());
            let text = obj
                .get("description")
                .and_then(Value::as_str)
                .map(|d| d.trim_end_matches('.').to_string())
                .filter(|d| !d.is_empty());
            let description = match text {
                Some(d) => format!("{d}: file content, base64-encoded."),
                None => "File content, base64-encoded.".to_string(),
            };
            obj.insert("description".into(), description.into());
            out.push(path);
        } else if let Some(Value::Object(inner)) = obj.get_mut("properties") {
            binary_to_base64(inner, &path, out);
        }
    }
}

/// Builds the arguments of an operation: path and query parameters plus the request body's
/// properties, `$ref`s resolved, combinators merged, so the root is a plain object.
pub fn inputs(op: &SpecOperation<'_>) -> Inputs {
    let spec = op.spec;
    let mut props = Map::new();
    let mut required: Vec<String> = Vec::new();
    let mut out = Inputs::default();
    let op_params = op
        .op
        .get("parameters")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for raw in op.common_params.iter().chain(op_params) {
        let param = match raw.get("$ref").and_then(Value::as_str) {
            Some(r) => match spec.lookup(r) {
                Some(p) => p,
                None => continue,
            },
            None => raw,
        };
        let (Some(name), Some(location)) = (
            param.get("name").and_then(Value::as_str),
            param.get("in").and_then(Value::as_str),
        ) else {
            continue;
        };
        let description = tidy(
            param
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or(""),
        );
        let mut schema = match location {
            // A path segment is text; its documented values (`send`/`cancel`) stay.
            "path" => {
                let mut m = Map::new();
                m.insert("type".into(), "string".into());
                let own = flatten(spec, param.get("schema").unwrap_or(&Value::Null), 0);
                if let Some(values) = own.get("enum") {
                    m.insert("enum".into(), values.clone());
                }
                m
            }
            "query" => match flatten(spec, param.get("schema").unwrap_or(&Value::Null), 0) {
                Value::Object(m) => m,
                _ => Map::new(),
            },
            _ => continue, // headers (User-Agent, idempotency keys) are the transport's business
        };
        if !description.is_empty() {
            schema.insert("description".into(), description.into());
        }
        let list = if location == "path" {
            &mut out.path
        } else {
            &mut out.query
        };
        if !list.iter().any(|n| n == name) {
            list.push(name.to_string());
        }
        let is_required = location == "path"
            || param
                .get("required")
                .and_then(Value::as_bool)
                .unwrap_or(false);
        if is_required && !required.iter().any(|r| r == name) {
            required.push(name.to_string());
        }
        props.insert(name.to_string(), Value::Object(schema));
    }
    // Path variables the spec forgot to declare are still arguments.
    for var in path_variables(&op.path) {
        if !props.contains_key(&var) {
            let mut m = Map::new();
            m.insert("type".into(), "string".into());
            props.insert(var.clone(), Value::Object(m));
            required.push(var.clone());
            out.path.push(var);
        }
    }
    if let Some((media, body)) = request_body(spec, op) {
        if media != "application/json" {
            out.body_media_type = Some(media);
        }
        let body_props = body
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let body_required: BTreeSet<String> = string_list(body.get("required"));
        for (name, schema) in &body_props {
            if props.contains_key(name) {
                continue; // a path/query argument of the same name wins
            }
            props.insert(name.clone(), schema.clone());
            out.body.push(name.clone());
            if body_required.contains(name) {
                required.push(name.clone());
            }
        }
        out.body_is_rest = !out.body.is_empty() && out.body.len() == body_props.len();
        if out.body_media_type.as_deref() == Some("multipart/form-data") {
            let mut body_args: Map<String, Value> = out
                .body
                .iter()
                .filter_map(|n| props.get(n).map(|v| (n.clone(), v.clone())))
                .collect();
            binary_to_base64(&mut body_args, "", &mut out.files);
            for (name, schema) in body_args {
                props.insert(name, schema);
            }
        }
    }
    out.schema.insert("type".into(), "object".into());
    out.schema.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        out.schema.insert(
            "required".into(),
            Value::Array(required.into_iter().map(Value::String).collect()),
        );
    }
    out.schema
        .insert("additionalProperties".into(), Value::Bool(false));
    out
}

/// The request body's media type and flattened schema. Kobana's `v2_edi_box`-style component
/// schemas are `{data, create, update}` rather than a schema: POST takes `create`, others `update`.
fn request_body(spec: &Spec, op: &SpecOperation<'_>) -> Option<(String, Map<String, Value>)> {
    let content = op.op.get("requestBody")?.get("content")?.as_object()?;
    let (media, entry) = content
        .iter()
        .find(|(k, _)| k.as_str() == "application/json")
        .or_else(|| content.iter().next())?;
    let mut raw = entry.get("schema").cloned().unwrap_or(Value::Null);
    if let Some(target) = raw
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| spec.lookup(r))
    {
        if target.get("properties").is_none() && target.get("create").is_some() {
            let part = if op.method == "POST" {
                "create"
            } else {
                "update"
            };
            raw = target
                .get(part)
                .or_else(|| target.get("create"))
                .cloned()
                .unwrap_or(Value::Null);
        }
    }
    match flatten(spec, &raw, 0) {
        Value::Object(m) => Some((media.clone(), m)),
        _ => Some((media.clone(), Map::new())),
    }
}

/// Resolves `$ref`s and merges `allOf`/`oneOf`/`anyOf` into plain properties, keeping only the
/// JSON Schema keywords a tool schema needs (no examples, no OpenAPI-only keys).
pub fn flatten(spec: &Spec, schema: &Value, depth: usize) -> Value {
    flatten_seen(spec, schema, depth, &mut Vec::new())
}

fn flatten_seen(spec: &Spec, schema: &Value, depth: usize, seen: &mut Vec<String>) -> Value {
    let Some(obj) = schema.as_object() else {
        return schema.clone();
    };
    if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
        if depth > MAX_DEPTH || seen.iter().any(|s| s == reference) {
            return cut(obj);
        }
        let Some(target) = spec.lookup(reference) else {
            return cut(obj);
        };
        seen.push(reference.to_string());
        let out = flatten_seen(spec, target, depth + 1, seen);
        seen.pop();
        return out;
    }
    let mut out = Map::new();
    for (key, value) in obj {
        match key.as_str() {
            "properties" => {
                if let Some(props) = value.as_object() {
                    let mut flat = Map::new();
                    for (name, sub) in props {
                        flat.insert(name.clone(), flatten_seen(spec, sub, depth + 1, seen));
                    }
                    out.insert(key.clone(), Value::Object(flat));
                }
            }
            "items" => {
                out.insert(key.clone(), flatten_seen(spec, value, depth + 1, seen));
            }
            "additionalProperties" => {
                let v = if value.is_object() {
                    flatten_seen(spec, value, depth + 1, seen)
                } else {
                    value.clone()
                };
                out.insert(key.clone(), v);
            }
            "description" => {
                let text = tidy(value.as_str().unwrap_or(""));
                if !text.is_empty() {
                    out.insert(key.clone(), text.into());
                }
            }
            "type" | "enum" | "format" | "required" | "default" | "minimum" | "maximum"
            | "minLength" | "maxLength" | "pattern" | "minItems" | "maxItems" | "const" => {
                out.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
    for combinator in ["allOf", "oneOf", "anyOf"] {
        if let Some(parts) = obj.get(combinator).and_then(Value::as_array) {
            let flat: Vec<Value> = parts
                .iter()
                .map(|p| flatten_seen(spec, p, depth + 1, seen))
                .collect();
            merge_into(&mut out, &flat, combinator == "allOf");
        }
    }
    if obj.get("nullable").and_then(Value::as_bool) == Some(true) {
        if let Some(Value::String(t)) = out.get("type").cloned() {
            out.insert("type".into(), serde_json::json!([t, "null"]));
        }
    }
    shorten_enum(&mut out);
    keep_known_required(&mut out);
    Value::Object(out)
}

/// A `$ref` not followed: an untyped object, keeping the referrer's description.
fn cut(obj: &Map<String, Value>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), "object".into());
    if let Some(d) = obj.get("description") {
        m.insert("description".into(), d.clone());
    }
    Value::Object(m)
}

/// Merges alternatives into one object schema: the union of their properties; required is the
/// union for `allOf` and the intersection for `oneOf`/`anyOf` (only what every variant needs).
fn merge_into(out: &mut Map<String, Value>, parts: &[Value], all_of: bool) {
    let mut required: Option<BTreeSet<String>> = None;
    let mut any_props = false;
    for part in parts {
        if let Some(props) = part.get("properties").and_then(Value::as_object) {
            any_props = true;
            let target = out
                .entry("properties")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(t) = target {
                for (k, v) in props {
                    t.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
        let r: BTreeSet<String> = string_list(part.get("required"));
        required = Some(match required {
            None => r,
            Some(acc) if all_of => acc.union(&r).cloned().collect(),
            Some(acc) => acc.intersection(&r).cloned().collect(),
        });
    }
    if any_props {
        out.insert("type".into(), "object".into());
    } else if let Some(first) = parts.first().and_then(Value::as_object) {
        for k in ["type", "format", "enum"] {
            if let (Some(v), false) = (first.get(k), out.contains_key(k)) {
                out.insert(k.into(), v.clone());
            }
        }
    }
    let mut all: BTreeSet<String> = string_list(out.get("required"));
    all.extend(required.unwrap_or_default());
    if !all.is_empty() {
        out.insert(
            "required".into(),
            Value::Array(all.into_iter().map(Value::String).collect()),
        );
    }
}

fn shorten_enum(out: &mut Map<String, Value>) {
    let Some(values) = out.get("enum").and_then(Value::as_array) else {
        return;
    };
    if values.len() <= MAX_ENUM {
        return;
    }
    let examples: Vec<String> = values
        .iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        .take(8)
        .collect();
    let note = format!(
        "One of {} values, e.g. {}.",
        values.len(),
        examples.join(", ")
    );
    let description = match out.get("description").and_then(Value::as_str) {
        Some(d) => format!("{d} {note}"),
        None => note,
    };
    out.insert("description".into(), description.into());
    out.remove("enum");
}

/// `required` may only name declared properties (and must be an array).
fn keep_known_required(out: &mut Map<String, Value>) {
    let Some(req) = out.get("required") else {
        return;
    };
    let Some(props) = out.get("properties").and_then(Value::as_object) else {
        if !req.is_array() {
            out.remove("required");
        }
        return;
    };
    let kept: Vec<Value> = string_list::<BTreeSet<String>>(Some(req))
        .into_iter()
        .filter(|r| props.contains_key(r))
        .map(Value::String)
        .collect();
    if kept.is_empty() {
        out.remove("required");
    } else {
        out.insert("required".into(), Value::Array(kept));
    }
}

/// The strings of a JSON array (a schema's `required`), in the collection the caller wants.
pub(super) fn string_list<C: FromIterator<String> + Default>(v: Option<&Value>) -> C {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// `{id}` names of a path template, in order.
pub fn path_variables(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        let Some(len) = rest[start..].find('}') else {
            break;
        };
        out.push(rest[start + 1..start + len].to_string());
        rest = &rest[start + len + 1..];
    }
    out
}

/// Collapses whitespace and cuts long text at a sentence end, for one-line descriptions.
pub fn tidy(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    const LIMIT: usize = 400;
    if flat.chars().count() <= LIMIT {
        return flat;
    }
    let cut: String = flat.chars().take(LIMIT).collect();
    match cut.rfind(". ") {
        Some(i) if i > 120 => cut[..=i].to_string(),
        _ => format!("{}…", cut.trim_end()),
    }
}

impl Spec {
    /// A spec held in memory (tests), named `inline.json` in messages.
    #[cfg(test)]
    pub(crate) fn inline(doc: Value) -> Spec {
        Spec {
            path: PathBuf::from("inline.json"),
            doc,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(doc: Value) -> Spec {
        Spec::inline(doc)
    }

    #[test]
    fn operation_keys_ignore_parameter_names_and_trailing_slashes() {
        assert_eq!(
            OperationKey::new("get", "/v1/x/{id}"),
            OperationKey::new("GET", "/v1/x/{uid}")
        );
        assert_eq!(
            OperationKey::new("GET", "/v1/batches/{id}/"),
            OperationKey::new("GET", "/v1/batches/{id}")
        );
        assert_ne!(
            OperationKey::new("GET", "/v1/x/{id}"),
            OperationKey::new("PUT", "/v1/x/{id}")
        );
        assert_eq!(
            OperationKey::parse("DELETE /v2/x/{uid}"),
            Some(OperationKey::new("DELETE", "/v2/x/{a}"))
        );
        assert_eq!(OperationKey::parse("FETCH /v2/x"), None);
        assert_eq!(OperationKey::parse("GET v2/x"), None);
    }

    #[test]
    fn inputs_flatten_refs_and_combinators_into_an_object_root() {
        let s = spec(json!({
            "paths": {"/v1/things/{id}/{type}": {"put": {
                "parameters": [
                    {"name": "User-Agent", "in": "header", "schema": {"type": "string"}},
                    {"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}},
                    {"name": "type", "in": "path", "required": true, "schema": {"type": "string", "enum": ["send", "cancel"]}},
                    {"name": "dry_run", "in": "query", "schema": {"type": "boolean"}}
                ],
                "requestBody": {"content": {"application/json": {"schema": {
                    "oneOf": [{"$ref": "#/components/schemas/a"}, {"$ref": "#/components/schemas/b"}]
                }}}}
            }}},
            "components": {"schemas": {
                "a": {"type": "object", "required": ["amount", "kind"], "properties": {
                    "amount": {"type": "number", "example": 10}, "kind": {"type": "string"},
                    "owner": {"$ref": "#/components/schemas/a"}}},
                "b": {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string"}, "key": {"type": "string", "nullable": true}}}
            }}
        }));
        let ops = s.operations();
        assert_eq!(ops.len(), 1);
        let i = inputs(&ops[0]);
        let schema = Value::Object(i.schema.clone());
        assert_eq!(schema["type"], "object");
        assert!(schema.get("oneOf").is_none());
        assert_eq!(schema["properties"]["id"]["type"], "string");
        // a path segment keeps its documented values (issue 38: protest's send/cancel)
        assert_eq!(
            schema["properties"]["type"],
            json!({"type": "string", "enum": ["send", "cancel"]})
        );
        assert_eq!(schema["properties"]["amount"], json!({"type": "number"}));
        assert_eq!(
            schema["properties"]["key"]["type"],
            json!(["string", "null"])
        );
        // the self-reference is cut, not followed forever
        assert_eq!(schema["properties"]["owner"], json!({"type": "object"}));
        assert!(schema["properties"].get("User-Agent").is_none());
        // oneOf: only what every variant requires
        assert_eq!(schema["required"], json!(["id", "type", "kind"]));
        assert_eq!(i.path, vec!["id", "type"]);
        assert_eq!(i.query, vec!["dry_run"]);
        assert_eq!(i.body, vec!["amount", "kind", "owner", "key"]);
        assert!(i.body_is_rest);
    }

    #[test]
    fn nonstandard_create_update_components_pick_the_method_part() {
        let s = spec(json!({
            "paths": {"/v2/boxes": {"post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/box"}}}}}},
                      "/v2/boxes/{uid}": {"put": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/box"}}}}}}},
            "components": {"schemas": {"box": {
                "data": {"type": "object"},
                "create": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
                "update": {"type": "object", "properties": {"label": {"type": "string"}}}
            }}}
        }));
        let ops = s.operations();
        let create = inputs(&ops[0]);
        let update = inputs(&ops[1]);
        assert_eq!(create.body, vec!["name"]);
        assert_eq!(Value::Object(create.schema)["required"], json!(["name"]));
        assert_eq!(update.body, vec!["label"]);
    }

    #[test]
    fn huge_enums_become_a_description() {
        let values: Vec<Value> = (0..400).map(|i| Value::String(format!("e{i}"))).collect();
        let s = spec(json!({"paths": {}}));
        let out = flatten(&s, &json!({"type": "string", "enum": values}), 0);
        assert!(out.get("enum").is_none());
        assert!(out["description"]
            .as_str()
            .unwrap()
            .starts_with("One of 400 values, e.g. e0"));
    }

    #[test]
    fn path_variables_in_order() {
        assert_eq!(
            path_variables("/v2/a/{fa_uid}/b/{uid}"),
            vec!["fa_uid".to_string(), "uid".to_string()]
        );
    }
}

//! The API's contract per operation, and the tools' agreement with it.
//!
//! The coverage gate knows which operation each tool binds; this part compares what a call must
//! hold. Per operation, the specification says ([`Contract`]): the arguments every call must give
//! (path parameters, required query parameters, the body fields every alternative requires), the
//! documented values of each path, query and top-level body argument, and, when the body is a
//! `oneOf` of alternatives told apart by a kind (`kind: pix` needs `pix`), the fields each kind
//! requires. The lock files carry it (`catalog/facts/openapi/`), so the gate runs without the
//! specs.
//!
//! The catalog's tools are then compared with it ([`compare`]): each tool bound to an operation
//! requires what the API requires and nothing else, lists the same values, and, for an operation
//! with kinds, serves one kind (its kind argument's values are that kind's; it requires that
//! kind's fields and offers no other kind's), every kind being served by some tool: top-level
//! `oneOf` is refused by the catalog (Claude's and OpenAI's APIs reject it at the root), so a kind
//! is a tool of its own.
//!
//! What does not agree on purpose is declared in one file per product,
//! `catalog/contract/<product>.yaml` ([`Declared`]): `corrections` fix a specification defect
//! before the comparison (a filter typed `integer` whose values are the strings `"0"`, `"1"`;
//! values listed only in prose; requirements stated only in prose), and `differences` accept a
//! difference, each with its reason. A difference neither corrected nor declared fails the gate,
//! as does a declaration that no longer matches anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::spec::{path_variables, Spec, SpecOperation};

/// Enums longer than this are carried as a description by the importer (event codes run to
/// hundreds); the comparison still sees them.
pub const LONG_ENUM: usize = 40;

/// What the API requires of one operation's call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Contract {
    /// Arguments every call gives: path parameters, required query parameters and the body
    /// fields every alternative requires.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<String>,
    /// Documented values of path, query and top-level body arguments (`null` left out).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub enums: BTreeMap<String, Vec<Value>>,
    /// The declared `type` of each argument with documented values.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub types: BTreeMap<String, String>,
    /// The body's alternatives, when they require different fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<Kind>,
}

impl Contract {
    pub fn is_empty(&self) -> bool {
        self == &Contract::default()
    }
}

/// One alternative of a body: the values of the argument that names it, and the fields it
/// requires beyond [`Contract::required`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kind {
    pub by: String,
    pub values: Vec<Value>,
    pub requires: Vec<String>,
}

/// `v`, with its local `$ref`s followed ([`Spec::lookup`]), at most 16 deep.
fn lookup<'a>(spec: &'a Spec, v: &'a Value) -> &'a Value {
    let mut cur = v;
    for _ in 0..16 {
        match cur
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| spec.lookup(r))
        {
            Some(target) => cur = target,
            None => break,
        }
    }
    cur
}

fn strings(v: Option<&Value>) -> Vec<String> {
    super::spec::string_list(v)
}

/// The values of a schema (or of its items), `null` left out.
fn values_of(schema: &Value) -> Option<Vec<Value>> {
    let own = schema
        .get("enum")
        .or_else(|| schema.get("items").and_then(|i| i.get("enum")))?;
    let values: Vec<Value> = own
        .as_array()?
        .iter()
        .filter(|v| !v.is_null())
        .cloned()
        .collect();
    (!values.is_empty()).then_some(values)
}

fn type_of(schema: &Value) -> Option<String> {
    let t = match schema.get("type") {
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        Some(Value::String(t)) => Some(t.as_str()),
        _ => None,
    }?;
    if t == "array" {
        return schema
            .get("items")
            .and_then(type_of)
            .or(Some(t.to_string()));
    }
    Some(t.to_string())
}

/// The contract of one operation, as its specification writes it.
pub fn of(op: &SpecOperation<'_>) -> Contract {
    let spec = op.spec;
    let mut c = Contract::default();
    let own = op
        .op
        .get("parameters")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for raw in op.common_params.iter().chain(own) {
        let param = lookup(spec, raw);
        let (Some(name), Some(place)) = (
            param.get("name").and_then(Value::as_str),
            param.get("in").and_then(Value::as_str),
        ) else {
            continue;
        };
        if place != "path" && place != "query" {
            continue;
        }
        let required = place == "path" || param.get("required") == Some(&Value::Bool(true));
        if required && !c.required.iter().any(|r| r == name) {
            c.required.push(name.to_string());
        }
        let schema = lookup(spec, param.get("schema").unwrap_or(&Value::Null));
        if let Some(values) = values_of(schema) {
            c.enums.insert(name.to_string(), values);
            if let Some(t) = type_of(schema) {
                c.types.insert(name.to_string(), t);
            }
        }
    }
    for var in path_variables(&op.path) {
        if !c.required.contains(&var) {
            c.required.push(var);
        }
    }
    if let Some(body) = body_schema(op) {
        body_contract(spec, body, &mut c);
    }
    c
}

/// The JSON (else first) request body schema, `$ref`s followed; Kobana's `{data, create,
/// update}` components give their `create` part to a POST, `update` to the others.
fn body_schema<'a>(op: &SpecOperation<'a>) -> Option<&'a Value> {
    let content = op.op.get("requestBody")?.get("content")?.as_object()?;
    let entry = content
        .get("application/json")
        .or_else(|| content.values().next())?;
    let schema = lookup(op.spec, entry.get("schema")?);
    if schema.get("properties").is_none() && schema.get("create").is_some() {
        let part = if op.method == "POST" {
            "create"
        } else {
            "update"
        };
        return Some(lookup(
            op.spec,
            schema.get(part).or_else(|| schema.get("create"))?,
        ));
    }
    Some(schema)
}

fn body_contract(spec: &Spec, body: &Value, c: &mut Contract) {
    let variants: Vec<&Value> = ["oneOf", "anyOf"]
        .iter()
        .filter_map(|k| body.get(*k).and_then(Value::as_array))
        .flatten()
        .map(|v| lookup(spec, v))
        .collect();
    let mut props: BTreeMap<String, &Value> = BTreeMap::new();
    for holder in std::iter::once(body).chain(variants.iter().copied()) {
        if let Some(p) = holder.get("properties").and_then(Value::as_object) {
            for (k, v) in p {
                props.entry(k.clone()).or_insert(lookup(spec, v));
            }
        }
    }
    let mut required: Vec<String> = strings(body.get("required"));
    let common: BTreeSet<String> = variants
        .iter()
        .map(|v| {
            strings(v.get("required"))
                .into_iter()
                .collect::<BTreeSet<_>>()
        })
        .reduce(|a, b| a.intersection(&b).cloned().collect())
        .unwrap_or_default();
    required.extend(common.iter().cloned());
    for r in required {
        if props.contains_key(&r) && !c.required.contains(&r) {
            c.required.push(r);
        }
    }
    for (name, schema) in &props {
        // The values an alternative's own schema of the argument gives, over every alternative.
        let mut values = values_of(schema).unwrap_or_default();
        for v in &variants {
            if let Some(more) = v
                .get("properties")
                .and_then(|p| p.get(name))
                .map(|s| lookup(spec, s))
                .and_then(values_of)
            {
                for x in more {
                    if !values.contains(&x) {
                        values.push(x);
                    }
                }
            }
        }
        if !values.is_empty() && !c.enums.contains_key(name) {
            c.enums.insert(name.clone(), values);
            if let Some(t) = type_of(schema) {
                c.types.insert(name.clone(), t);
            }
        }
    }
    // Alternatives requiring different fields are kinds, named by the common required argument
    // with values (`kind`). When an alternative's schema of it lists every kind's values (a
    // defect of /v2/payments), its own value is the one naming a field it requires.
    let by = common.iter().find(|r| c.enums.contains_key(*r)).cloned();
    let extras: Vec<Vec<String>> = variants
        .iter()
        .map(|v| {
            strings(v.get("required"))
                .into_iter()
                .filter(|r| !common.contains(r))
                .collect()
        })
        .collect();
    if let (Some(by), true) = (by, extras.iter().any(|e| !e.is_empty())) {
        for (v, requires) in variants.iter().zip(extras) {
            let mut values = v
                .get("properties")
                .and_then(|p| p.get(&by))
                .map(|s| lookup(spec, s))
                .and_then(values_of)
                .unwrap_or_default();
            if values.len() > 1 {
                let named: Vec<Value> = values
                    .iter()
                    .filter(|x| x.as_str().is_some_and(|s| requires.iter().any(|r| r == s)))
                    .cloned()
                    .collect();
                if !named.is_empty() {
                    values = named;
                }
            }
            c.kinds.push(Kind {
                by: by.clone(),
                values,
                requires,
            });
        }
    }
}

/// `catalog/contract/<product>.yaml`: corrections of the specification and accepted differences.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declared {
    #[serde(default)]
    pub corrections: Vec<Correction>,
    #[serde(default)]
    pub differences: Vec<Accepted>,
}

/// A specification defect, corrected before the comparison: the argument's type, its values,
/// or the kinds of the body (requirements the specification states only in prose).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Correction {
    /// `GET /v1/webhook_deliveries`.
    pub operation: String,
    #[serde(default)]
    pub argument: Option<String>,
    #[serde(default, rename = "type")]
    pub type_: Option<String>,
    #[serde(default, rename = "enum")]
    pub values: Option<Vec<Value>>,
    #[serde(default)]
    pub kinds: Option<Vec<Kind>>,
    pub reason: String,
}

/// A difference kept on purpose.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Accepted {
    pub tool: String,
    pub argument: String,
    pub check: Check,
    pub reason: String,
}

/// What a difference is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// The API requires the argument; the tool does not.
    Required,
    /// The tool requires the argument; the API does not.
    NotRequired,
    /// The API's argument is not an argument of the tool.
    Argument,
    /// The documented values differ.
    Enum,
    /// The types differ, or the specification's type contradicts its values.
    Type,
    /// The tool's kind argument spans kinds that need different fields, or a kind has no tool.
    Kind,
    /// The tool offers a field only another kind uses.
    Offers,
}

impl Check {
    fn as_str(self) -> &'static str {
        match self {
            Check::Required => "required",
            Check::NotRequired => "not_required",
            Check::Argument => "argument",
            Check::Enum => "enum",
            Check::Type => "type",
            Check::Kind => "kind",
            Check::Offers => "offers",
        }
    }
}

/// One difference between a tool and its operation's contract.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Difference {
    pub tool: String,
    pub argument: String,
    pub check: Check,
    pub message: String,
}

impl Difference {
    pub fn line(&self) -> String {
        format!(
            "`{}` `{}` ({}): {}",
            self.tool,
            self.argument,
            self.check.as_str(),
            self.message
        )
    }
}

/// The path of a product's declarations.
pub fn declared_path(catalog_dir: &Path, product: &str) -> PathBuf {
    catalog_dir.join("contract").join(format!("{product}.yaml"))
}

impl Declared {
    /// The product's declarations; none when the file does not exist.
    pub fn read(path: &Path) -> anyhow::Result<Declared> {
        if !path.is_file() {
            return Ok(Declared::default());
        }
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        serde_yaml::from_str(&text).with_context(|| format!("{} is malformed", path.display()))
    }
}

/// A tool bound to an operation, as the catalog writes it.
#[derive(Debug, Clone)]
pub struct BoundTool {
    pub name: String,
    /// The binding's path (its variables name the tool's arguments).
    pub path: String,
    pub schema: Value,
}

fn tool_values(prop: &Value) -> Vec<Value> {
    values_of(prop).unwrap_or_default()
}

fn same_values(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().all(|x| b.contains(x))
}

fn show(values: &[Value]) -> String {
    if values.len() > 8 {
        let head: Vec<String> = values.iter().take(6).map(Value::to_string).collect();
        return format!("[{}, … {} values]", head.join(", "), values.len());
    }
    let all: Vec<String> = values.iter().map(Value::to_string).collect();
    format!("[{}]", all.join(", "))
}

/// Applies the corrections of `operation` to its contract; returns what each changed.
pub fn correct(operation: &str, contract: &mut Contract, corrections: &[Correction]) -> Vec<bool> {
    let key = super::spec::OperationKey::parse(operation);
    corrections
        .iter()
        .map(|fix| {
            if super::spec::OperationKey::parse(&fix.operation) != key {
                return false;
            }
            let before = contract.clone();
            if let Some(arg) = &fix.argument {
                if let Some(t) = &fix.type_ {
                    contract.types.insert(arg.clone(), t.clone());
                }
                if let Some(v) = &fix.values {
                    contract.enums.insert(arg.clone(), v.clone());
                    if let Some(t) = fix.type_.clone().or_else(|| {
                        v.first()
                            .map(|x| if x.is_string() { "string" } else { "integer" }.to_string())
                    }) {
                        contract.types.entry(arg.clone()).or_insert(t);
                    }
                }
            }
            if let Some(kinds) = &fix.kinds {
                contract.kinds = kinds.clone();
            }
            *contract != before
        })
        .collect()
}

/// Every difference between the tools bound to one operation and its (corrected) contract.
pub fn compare(contract: &Contract, spec_path: &str, tools: &[BoundTool]) -> Vec<Difference> {
    let mut out = Vec::new();
    let spec_vars = path_variables(spec_path);
    for tool in tools {
        // Path variables are matched by position: the binding may name them its own way.
        let rename: BTreeMap<String, String> = spec_vars
            .iter()
            .cloned()
            .zip(path_variables(&tool.path))
            .collect();
        let arg = |name: &str| {
            rename
                .get(name)
                .cloned()
                .unwrap_or_else(|| name.to_string())
        };
        let props = tool
            .schema
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_else(Map::new);
        let required: BTreeSet<String> = strings(tool.schema.get("required")).into_iter().collect();
        let mut diff = |argument: &str, check: Check, message: String| {
            out.push(Difference {
                tool: tool.name.clone(),
                argument: argument.to_string(),
                check,
                message,
            })
        };
        // The kind this tool serves, when the operation has kinds.
        let mut own_kind: Option<&Kind> = None;
        if let Some(first) = contract.kinds.first() {
            let by = arg(&first.by);
            let offered = props.get(&by).map(tool_values).unwrap_or_default();
            own_kind = contract
                .kinds
                .iter()
                .find(|k| !offered.is_empty() && offered.iter().all(|v| k.values.contains(v)));
            if own_kind.is_none() {
                diff(
                    &by,
                    Check::Kind,
                    format!(
                        "the tool offers `{by}` {} but the API's kinds need different fields ({}): give each kind its own tool",
                        show(&offered),
                        contract
                            .kinds
                            .iter()
                            .map(|k| format!("{} needs {}", show(&k.values), k.requires.join(", ")))
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                );
            }
            if let Some(k) = own_kind {
                for r in &k.requires {
                    if !required.contains(&arg(r)) {
                        diff(
                            &arg(r),
                            Check::Required,
                            format!(
                                "the API requires `{r}` for `{by}` {}; the tool does not",
                                show(&k.values)
                            ),
                        );
                    }
                }
                for other in contract.kinds.iter().filter(|o| *o != k) {
                    for r in other.requires.iter().filter(|r| !k.requires.contains(r)) {
                        if props.contains_key(&arg(r)) {
                            diff(
                                &arg(r),
                                Check::Offers,
                                format!(
                                    "the tool offers `{r}`, which only `{by}` {} uses: its kind can never send it",
                                    show(&other.values)
                                ),
                            );
                        }
                    }
                }
            }
        }
        for r in &contract.required {
            let a = arg(r);
            if !required.contains(&a) {
                diff(
                    &a,
                    Check::Required,
                    format!("the API requires `{r}`; the tool does not"),
                );
            }
        }
        for a in &required {
            let spec_side = rename
                .iter()
                .find(|(_, t)| *t == a)
                .map(|(s, _)| s.clone())
                .unwrap_or_else(|| a.clone());
            let by_kind = own_kind.is_some_and(|k| k.requires.contains(&spec_side));
            if !contract.required.contains(&spec_side) && !by_kind {
                diff(
                    a,
                    Check::NotRequired,
                    format!("the tool requires `{a}`; the API does not"),
                );
            }
        }
        for (name, values) in &contract.enums {
            let a = arg(name);
            let is_kind = contract.kinds.first().is_some_and(|k| &k.by == name);
            let Some(prop) = props.get(&a) else {
                diff(
                    &a,
                    Check::Argument,
                    format!(
                        "the API's `{name}` (values {}) is not an argument of the tool",
                        show(values)
                    ),
                );
                continue;
            };
            if let Some(t) = contract.types.get(name) {
                let strings_listed = values.iter().all(Value::is_string);
                let numeric = matches!(t.as_str(), "integer" | "number");
                if numeric && strings_listed {
                    diff(
                        &a,
                        Check::Type,
                        format!(
                            "the API types `{name}` {t} but lists the strings {}, which no value of that type matches: correct the specification in catalog/contract/",
                            show(values)
                        ),
                    );
                } else if type_of(prop).as_deref() != Some(t.as_str()) {
                    diff(
                        &a,
                        Check::Type,
                        format!(
                            "the API types `{name}` {t}; the tool {}",
                            type_of(prop).unwrap_or_else(|| "gives no type".into())
                        ),
                    );
                }
            }
            if is_kind {
                continue; // checked per kind above
            }
            let listed = tool_values(prop);
            if !same_values(&listed, values) {
                let message = if listed.is_empty() {
                    format!(
                        "the API lists {} for `{name}`; the tool lists none",
                        show(values)
                    )
                } else {
                    format!(
                        "the API lists {} for `{name}`; the tool {}",
                        show(values),
                        show(&listed)
                    )
                };
                diff(&a, Check::Enum, message);
            }
        }
    }
    // Every kind is served by some tool.
    if let (Some(first), Some(tool)) = (contract.kinds.first(), tools.first()) {
        for k in &contract.kinds {
            let served = tools.iter().any(|t| {
                let offered = t
                    .schema
                    .get("properties")
                    .and_then(|p| p.get(&first.by))
                    .map(tool_values)
                    .unwrap_or_default();
                !offered.is_empty() && offered.iter().all(|v| k.values.contains(v))
            });
            if !served {
                let names: Vec<String> = k
                    .values
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                    .collect();
                out.push(Difference {
                    tool: tool.name.clone(),
                    argument: format!("{}={}", first.by, names.join("|")),
                    check: Check::Kind,
                    message: format!(
                        "no tool of this operation serves `{}` {} (which needs {})",
                        first.by,
                        show(&k.values),
                        k.requires.join(", ")
                    ),
                });
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A transfer-like operation: `kind` names alternatives that each require their own object.
    fn transfers() -> Spec {
        let variant = |kind: &str| {
            json!({"type": "object", "required": ["amount", "kind", kind],
                   "properties": {"amount": {"type": "number"}, "kind": {"type": "string", "enum": [kind]},
                                  kind: {"type": "object"}}})
        };
        Spec::inline(json!({"paths": {
            "/v2/transfers": {"post": {"requestBody": {"content": {"application/json": {"schema":
                {"oneOf": [variant("pix"), variant("ted")]}}}}}},
            "/v1/deliveries": {"get": {"parameters": [
                {"name": "status", "in": "query", "schema": {"type": "integer", "enum": ["0", "1"]}}]}},
            "/v1/billets/{id}/protest/{type}": {"put": {"parameters": [
                {"name": "type", "in": "path", "required": true, "schema": {"type": "string", "enum": ["send", "cancel"]}}]}}
        }}))
    }

    fn contract_of(spec: &Spec, path: &str) -> Contract {
        let ops = spec.operations();
        of(ops.iter().find(|o| o.path == path).unwrap())
    }

    fn tool(name: &str, path: &str, schema: Value) -> BoundTool {
        BoundTool {
            name: name.into(),
            path: path.into(),
            schema,
        }
    }

    fn checks(diffs: &[Difference]) -> Vec<(String, Check)> {
        diffs
            .iter()
            .map(|d| (d.argument.clone(), d.check))
            .collect()
    }

    #[test]
    fn kinds_are_read_from_the_alternatives() {
        let c = contract_of(&transfers(), "/v2/transfers");
        assert_eq!(c.required, vec!["amount", "kind"]);
        assert_eq!(c.enums["kind"], vec![json!("pix"), json!("ted")]);
        assert_eq!(
            c.kinds,
            vec![
                Kind {
                    by: "kind".into(),
                    values: vec![json!("pix")],
                    requires: vec!["pix".into()]
                },
                Kind {
                    by: "kind".into(),
                    values: vec![json!("ted")],
                    requires: vec!["ted".into()]
                },
            ]
        );
    }

    /// Issue 38: the generic transfer tool fixed `kind` to pix without requiring `pix`, and
    /// offered `ted`, which its kind can never send.
    #[test]
    fn a_kind_tool_must_require_its_object_and_offer_no_other() {
        let c = contract_of(&transfers(), "/v2/transfers");
        let loose = tool(
            "t_create",
            "/v2/transfers",
            json!({"type": "object", "required": ["amount", "kind"], "properties": {
                "amount": {"type": "number"}, "kind": {"type": "string", "enum": ["pix"]},
                "pix": {"type": "object"}, "ted": {"type": "object"}}}),
        );
        let d = compare(&c, "/v2/transfers", std::slice::from_ref(&loose));
        assert_eq!(
            checks(&d),
            vec![
                ("kind=ted".to_string(), Check::Kind),
                ("pix".to_string(), Check::Required),
                ("ted".to_string(), Check::Offers),
            ],
            "{d:#?}"
        );
        // One tool per kind, each requiring its object: no difference.
        let per_kind = |k: &str| {
            tool(
                &format!("t_{k}"),
                "/v2/transfers",
                json!({"type": "object", "required": ["amount", "kind", k], "properties": {
                    "amount": {"type": "number"}, "kind": {"type": "string", "enum": [k]},
                    k: {"type": "object"}}}),
            )
        };
        assert_eq!(
            compare(&c, "/v2/transfers", &[per_kind("pix"), per_kind("ted")]),
            vec![]
        );
        // A tool offering every kind at once is told to split.
        let both = tool(
            "t_any",
            "/v2/transfers",
            json!({"type": "object", "required": ["amount", "kind"], "properties": {
                "amount": {"type": "number"}, "kind": {"type": "string", "enum": ["pix", "ted"]},
                "pix": {"type": "object"}, "ted": {"type": "object"}}}),
        );
        let d = compare(&c, "/v2/transfers", &[both]);
        assert!(
            d.iter().any(
                |x| x.check == Check::Kind && x.message.contains("give each kind its own tool")
            ),
            "{d:#?}"
        );
    }

    /// Issue 38: a path segment's values (`send`/`cancel`) must reach the tool.
    #[test]
    fn missing_values_are_a_difference() {
        let path = "/v1/billets/{id}/protest/{type}";
        let c = contract_of(&transfers(), path);
        assert_eq!(c.required, vec!["type", "id"]);
        let bare = tool(
            "protest",
            "/v1/billets/{uid}/protest/{type}",
            json!({"type": "object", "required": ["uid", "type"], "properties": {
                "uid": {"type": "string"}, "type": {"type": "string"}}}),
        );
        let d = compare(&c, path, &[bare]);
        assert_eq!(
            checks(&d),
            vec![("type".to_string(), Check::Enum)],
            "{d:#?}"
        );
        assert!(
            d[0].message.contains(r#"["send", "cancel"]"#),
            "{}",
            d[0].message
        );
        let listed = tool(
            "protest",
            "/v1/billets/{uid}/protest/{type}",
            json!({"type": "object", "required": ["uid", "type"], "properties": {
                "uid": {"type": "string"}, "type": {"type": "string", "enum": ["cancel", "send"]}}}),
        );
        assert_eq!(compare(&c, path, &[listed]), vec![]);
    }

    /// Issue 38: a filter typed integer with string values is a specification defect, reported
    /// until a correction says what the type is.
    #[test]
    fn an_integer_typed_filter_with_string_values_needs_a_correction() {
        let mut c = contract_of(&transfers(), "/v1/deliveries");
        let copied = tool(
            "deliveries",
            "/v1/deliveries",
            json!({"type": "object", "properties": {
                "status": {"type": "integer", "enum": ["0", "1"]}}}),
        );
        let d = compare(&c, "/v1/deliveries", std::slice::from_ref(&copied));
        assert_eq!(checks(&d), vec![("status".to_string(), Check::Type)]);
        assert!(d[0].message.contains("no value of that type matches"));
        let fix = Correction {
            operation: "GET /v1/deliveries".into(),
            argument: Some("status".into()),
            type_: Some("string".into()),
            values: None,
            kinds: None,
            reason: "defect".into(),
        };
        assert_eq!(
            correct("GET /v1/deliveries", &mut c, std::slice::from_ref(&fix)),
            vec![true]
        );
        // The corrected contract wants a string; the copy is still wrong, the fixed tool is not.
        let d = compare(&c, "/v1/deliveries", &[copied]);
        assert_eq!(checks(&d), vec![("status".to_string(), Check::Type)]);
        let fixed = tool(
            "deliveries",
            "/v1/deliveries",
            json!({"type": "object", "properties": {
                "status": {"type": "string", "enum": ["0", "1"]}}}),
        );
        assert_eq!(compare(&c, "/v1/deliveries", &[fixed]), vec![]);
        // Applied again, it changes nothing: the gate reports such a stale correction.
        assert_eq!(correct("GET /v1/deliveries", &mut c, &[fix]), vec![false]);
    }

    /// The repository's catalogs agree with the API's contract, every difference corrected or
    /// declared with a reason (read from the lock files, as CI without the specs would).
    #[test]
    fn the_repository_has_no_undeclared_difference() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let catalog = root.join("catalog");
        let lines = super::super::coverage::run(&catalog, &root).unwrap();
        assert!(
            lines.iter().any(
                |l| l.starts_with("banking: tools against the API's contract")
                    && l.contains(", 0 undeclared")
            ),
            "{lines:#?}"
        );
        let declared = Declared::read(&declared_path(&catalog, "banking")).unwrap();
        assert!(declared
            .differences
            .iter()
            .all(|d| !d.reason.trim().is_empty()));
    }
}

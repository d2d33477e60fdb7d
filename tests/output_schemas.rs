//! Every tool that declares an `outputSchema` answers conforming structured content from the
//! sandbox (MCP: "servers MUST provide structured results that conform to this schema").
//!
//! Each such tool of every product is called against a fresh sandbox with arguments built from
//! real seeded records (an id of its record type, a record in a state its action accepts, field
//! values copied from a seeded record), and its JSON answer — which is the `structuredContent`
//! the engine sends — is validated with the `jsonschema` crate. A tool whose sandbox behaviour is
//! `custom` (no sandbox semantics; it only runs against the real API) cannot be exercised here
//! and is counted apart; every other tool must be exercised and must conform.

use std::collections::BTreeSet;

use runtime_model::backend::{Backend, BackendError, CallContext, Output};
use runtime_model::catalog::{Binding, BodyMode, Operation, Product, RecordType, Tool};
use runtime_sandbox::{Sandbox, SandboxConfig, Scope};
use serde_json::{json, Map, Value};

fn ctx(product: &'static Product) -> CallContext {
    CallContext {
        workspace: product
            .policy
            .workspaced
            .then(|| "ws-output-schemas".to_string()),
        ..test_support::calls::admin(product, "org-output-schemas")
    }
}

/// Fields a caller never sends (ids and stamps the sandbox sets itself).
const SERVER_FIELDS: &[&str] = &["id", "uid", "created_at", "updated_at", "workspace_id"];

/// A seeded record's fields as arguments (what a caller would send to create or update one).
fn field_values(rt: &RecordType, record: &Map<String, Value>) -> Map<String, Value> {
    record
        .iter()
        .filter(|(k, v)| {
            k.as_str() != rt.id_field && !SERVER_FIELDS.contains(&k.as_str()) && !v.is_null()
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

struct Harness {
    sandbox: Sandbox,
    product: &'static Product,
    ctx: CallContext,
    scope: Scope,
}

impl Harness {
    fn records(&self, record: &str) -> Vec<Map<String, Value>> {
        self.sandbox
            .records_blocking(self.product, &self.scope, record)
            .unwrap_or_else(|e| panic!("{}: records of {record}: {e}", self.product.name))
            .into_iter()
            .map(|r| r.json)
            .collect()
    }

    /// Arguments that make the sandbox run `tool` on real data; `Err` says why none exist.
    fn args_for(&self, tool: &Tool) -> Result<Map<String, Value>, String> {
        let rt_of = |record: &str| {
            self.product
                .record(record)
                .ok_or_else(|| format!("record type `{record}` is not declared"))
        };
        let id_args = |rt: &RecordType, id_arg: &str, row: &Map<String, Value>| {
            let mut args = Map::new();
            args.insert(id_arg.to_string(), row[rt.id_field].clone());
            args
        };
        match tool.operation {
            Operation::List { .. }
            | Operation::Singleton { .. }
            | Operation::WhoAmI
            | Operation::Latest { .. }
            | Operation::Summary { .. }
            | Operation::GroupedTotals { .. }
            | Operation::Custom => Ok(Map::new()),
            Operation::Action { id_arg: "", .. } => Ok(Map::new()),
            Operation::Create { record } => {
                let rt = rt_of(record)?;
                let rows = self.records(record);
                Ok(rows
                    .first()
                    .map(|r| field_values(rt, r))
                    .unwrap_or_default())
            }
            Operation::GetWhere {
                record,
                id_arg,
                field,
                value,
            } => {
                let rt = rt_of(record)?;
                let rows = self.records(record);
                let row = rows
                    .iter()
                    .find(|r| r.get(field).and_then(Value::as_str) == Some(value))
                    .ok_or_else(|| format!("no seeded `{record}` with {field} `{value}`"))?;
                Ok(id_args(rt, id_arg, row))
            }
            Operation::Get { record, id_arg } | Operation::Delete { record, id_arg } => {
                let rt = rt_of(record)?;
                let rows = self.records(record);
                let row = rows
                    .first()
                    .ok_or_else(|| format!("no seeded record of `{record}`"))?;
                Ok(id_args(rt, id_arg, row))
            }
            Operation::Update { record, id_arg } => {
                let rt = rt_of(record)?;
                let rows = self.records(record);
                let row = rows
                    .first()
                    .ok_or_else(|| format!("no seeded record of `{record}`"))?;
                let mut args = field_values(rt, row);
                args.extend(id_args(rt, id_arg, row));
                Ok(args)
            }
            Operation::Action {
                record,
                id_arg,
                action,
            } => {
                let rt = rt_of(record)?;
                let rows = self.records(record);
                let state = |r: &Map<String, Value>| match r.get(action.state_field) {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                let row = rows
                    .iter()
                    .find(|r| action.from.is_empty() || action.from.contains(&state(r).as_str()))
                    .ok_or_else(|| {
                        format!(
                            "no seeded `{record}` with {} in {:?}",
                            action.state_field, action.from
                        )
                    })?;
                let mut args = id_args(rt, id_arg, row);
                if let Some(add) = action.add {
                    args.insert(add.from_arg.to_string(), json!("output-schema-check"));
                }
                if let Some(remove) = action.remove {
                    let present = row
                        .get(remove.field)
                        .and_then(Value::as_array)
                        .and_then(|a| a.first())
                        .cloned()
                        .ok_or_else(|| {
                            format!("no `{record}` with something in `{}`", remove.field)
                        })?;
                    args.insert(remove.from_arg.to_string(), present);
                }
                Ok(args)
            }
        }
    }
}

/// For a file upload (multipart binding): every file argument gets a small base64 content, at
/// its path (`files.crt_file` is nested in the `files` object).
fn add_upload_args(tool: &Tool, args: &mut Map<String, Value>) {
    let Binding::Http(http) = tool.binding else {
        return;
    };
    let BodyMode::Multipart { files } = http.body else {
        return;
    };
    for file in files {
        let Some((last, parents)) = file.arg.split_last() else {
            continue;
        };
        let mut at = &mut *args;
        for p in parents {
            let slot = at
                .entry(p.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            let Value::Object(next) = slot else {
                unreachable!("just made an object")
            };
            at = next;
        }
        // "output schema check\n", base64-encoded
        at.insert(last.to_string(), json!("b3V0cHV0IHNjaGVtYSBjaGVjawo="));
    }
}

/// Runs a tool's kinds in an order that leaves data for the next ones (reads first, deletes
/// last).
fn rank(tool: &Tool) -> u8 {
    match tool.operation {
        Operation::List { .. } => 0,
        Operation::Get { .. }
        | Operation::GetWhere { .. }
        | Operation::Singleton { .. }
        | Operation::WhoAmI
        | Operation::Latest { .. }
        | Operation::Summary { .. }
        | Operation::GroupedTotals { .. } => 1,
        Operation::Create { .. } => 2,
        Operation::Update { .. } => 3,
        Operation::Action { .. } => 4,
        Operation::Delete { .. } => 5,
        Operation::Custom => 6,
    }
}

/// The first place an answer breaks its schema, as `instance path: error`.
fn first_violation(validator: &jsonschema::Validator, answer: &Value) -> Option<String> {
    validator.iter_errors(answer).next().map(|e| {
        let path = e.instance_path().to_string();
        format!("{}: {e}", if path.is_empty() { "/" } else { &path })
    })
}

#[tokio::test]
async fn every_tool_with_an_output_schema_answers_conforming_structured_content() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    let mut failures = Vec::new();
    let mut not_exercised = Vec::new();
    let mut conforming: Vec<(&str, &str)> = Vec::new();
    let mut custom: Vec<&str> = Vec::new();
    for &product in generated::PRODUCTS {
        let ctx = ctx(product);
        let scope = Sandbox::scope_of(product, &ctx, &Map::new()).unwrap();
        let h = Harness {
            sandbox: sandbox.clone(),
            product,
            ctx,
            scope,
        };
        let mut tools: Vec<&'static Tool> = product
            .tools
            .iter()
            .filter(|t| t.output_schema_json.is_some())
            .collect();
        tools.sort_by_key(|t| rank(t));
        for tool in tools {
            let raw = tool.output_schema_json.unwrap_or_default();
            let schema: Value = serde_json::from_str(raw)
                .unwrap_or_else(|e| panic!("{}: output schema is not JSON: {e}", tool.name));
            assert_eq!(
                schema["type"], "object",
                "{}: root must be an object",
                tool.name
            );
            let validator = jsonschema::validator_for(&schema)
                .unwrap_or_else(|e| panic!("{}: output schema does not compile: {e}", tool.name));
            // The schema `tools/list` carries (compacted; see codegen/src/compact.rs) is what
            // clients validate against: it must accept every answer the full schema accepts.
            let descriptor: Value = serde_json::from_str(tool.descriptor_json).unwrap();
            let listed =
                jsonschema::validator_for(&descriptor["outputSchema"]).unwrap_or_else(|e| {
                    panic!(
                        "{}: the listed output schema does not compile: {e}",
                        tool.name
                    )
                });
            let args = match h.args_for(tool) {
                Ok(mut a) => {
                    add_upload_args(tool, &mut a);
                    a
                }
                Err(why) => {
                    not_exercised.push(format!("{}: {why}", tool.name));
                    continue;
                }
            };
            match h.sandbox.call(&h.ctx, tool, &args).await {
                Ok(Output::Json(answer)) => {
                    let found: BTreeSet<String> = validator
                        .iter_errors(&answer)
                        .map(|e| {
                            // One line per field and problem, whatever the list position.
                            let path: Vec<String> = e
                                .instance_path()
                                .to_string()
                                .split('/')
                                .map(|seg| {
                                    if seg.parse::<usize>().is_ok() {
                                        "*".to_string()
                                    } else {
                                        seg.to_string()
                                    }
                                })
                                .collect();
                            let msg = e.to_string();
                            let problem = msg.find(" is not").map_or(msg.as_str(), |i| &msg[i..]);
                            format!("{}{problem}", path.join("/"))
                        })
                        .collect();
                    if found.is_empty() && !listed.is_valid(&answer) {
                        failures.push(format!(
                            "{}: the answer conforms to the full schema but not to the listed one",
                            tool.name
                        ));
                    } else if found.is_empty() {
                        conforming.push((product.name, tool.name));
                    } else {
                        let text: String = answer.to_string().chars().take(300).collect();
                        failures.push(format!(
                            "{} answers {text}…\n    at {}",
                            tool.name,
                            found.into_iter().collect::<Vec<_>>().join("\n    at ")
                        ));
                    }
                }
                Ok(Output::Bytes { mime_type, .. }) => failures.push(format!(
                    "{} answers a file ({mime_type}) but declares an output schema",
                    tool.name
                )),
                Ok(Output::Replayed(_)) => failures.push(format!(
                    "{}: the sandbox answered a replayed result to a first call",
                    tool.name
                )),
                Ok(Output::JsonText(_)) => failures.push(format!(
                    "{}: `Backend::call` answered text, which only `call_json_text` may",
                    tool.name
                )),
                Err(BackendError::Unsupported(_))
                    if matches!(tool.operation, Operation::Custom) =>
                {
                    custom.push(tool.name)
                }
                Err(e) => not_exercised.push(format!("{} with {args:?}: {e}", tool.name)),
            }
        }
    }
    println!(
        "output schemas: {} tools conform, {} custom (real API only)",
        conforming.len(),
        custom.len()
    );
    assert!(
        failures.is_empty() && not_exercised.is_empty(),
        "{} tool(s) answer structured content that breaks their output schema:\n{}\n\
         {} tool(s) with an output schema could not be exercised against the sandbox:\n{}",
        failures.len(),
        failures.join("\n"),
        not_exercised.len(),
        not_exercised.join("\n")
    );
    // The catalogs do declare schemas: banking's come from the OpenAPI specs, finance's and
    // inbox's are written by hand; each product with schemas has some exercised here.
    for name in ["banking", "finance", "inbox"] {
        assert!(
            conforming.iter().any(|(p, _)| *p == name),
            "no {name} tool with an output schema was exercised"
        );
    }
}

/// The check above fails when an answer stops conforming: a banking record with a field of the
/// wrong type is rejected by the same validator, at the field's path.
#[test]
fn a_nonconforming_answer_is_caught_at_its_path() {
    let banking = generated::product("banking").unwrap();
    let tool = banking.tool("banking_charge_pix_get").unwrap();
    let schema: Value = serde_json::from_str(tool.output_schema_json.unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let good = json!({"status": 200, "data": {"uid": "x", "amount": 10.5, "status": "opened"}});
    assert_eq!(first_violation(&validator, &good), None);
    let bad = json!({"status": 200, "data": {"uid": "x", "amount": "ten", "status": "opened"}});
    let v = first_violation(&validator, &bad).unwrap();
    assert!(v.starts_with("/data/amount: "), "{v}");
}

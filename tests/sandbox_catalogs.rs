//! The sandbox over the real generated catalogs: every listable type has data, every state value
//! of a listable type is seeded, and every get tool finds what its list tool lists.

use std::collections::BTreeSet;

use runtime_model::backend::{Backend, CallContext, Output};
use runtime_model::catalog::{Operation, Product};
use runtime_sandbox::{Sandbox, SandboxConfig};
use serde_json::{json, Map, Value};

fn ctx(product: &'static Product) -> CallContext {
    CallContext {
        workspace: product.policy.workspaced.then(|| "ws_test".to_string()),
        ..test_support::calls::admin(product, "org_test")
    }
}

fn items(v: &Value) -> Vec<Map<String, Value>> {
    runtime_sandbox::envelope::items(v)
        .map(|a| a.iter().filter_map(|i| i.as_object().cloned()).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn every_list_tool_of_every_product_finds_seeded_records() {
    assert!(!generated::PRODUCTS.is_empty());
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    let mut problems = Vec::new();
    for &product in generated::PRODUCTS {
        let c = ctx(product);
        for tool in product.tools {
            let Operation::List { record } = tool.operation else {
                continue;
            };
            let rt = product.record(record).unwrap();
            let mut all = Vec::new();
            for page in 1..=4 {
                let args = json!({"page": page, "per_page": 50})
                    .as_object()
                    .cloned()
                    .unwrap();
                match sb.call(&c, tool, &args).await {
                    Ok(Output::Json(v)) => {
                        let got = items(&v);
                        let done = got.len() < 50;
                        all.extend(got);
                        if done {
                            break;
                        }
                    }
                    other => {
                        problems.push(format!("{}: {other:?}", tool.name));
                        break;
                    }
                }
            }
            if all.len() < 25 {
                problems.push(format!(
                    "{} lists {} records of {record}",
                    tool.name,
                    all.len()
                ));
            }
            for field in rt
                .fields
                .iter()
                .filter(|f| !f.enum_values.is_empty() && matches!(f.seed.trim(), "" | "enum"))
            {
                let seen: BTreeSet<String> = all
                    .iter()
                    .filter_map(|r| {
                        r.get(field.name).map(|v| {
                            v.as_str()
                                .map(str::to_string)
                                .unwrap_or_else(|| v.to_string())
                        })
                    })
                    .collect();
                let missing: Vec<&str> = field
                    .enum_values
                    .iter()
                    .copied()
                    .filter(|v| !seen.contains(*v))
                    .collect();
                if !missing.is_empty()
                    && all.len() as u32 >= rt.seed_count.min(25)
                    && field.enum_values.len() <= all.len()
                {
                    problems.push(format!(
                        "{}.{}: no record with {missing:?}",
                        record, field.name
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Blob, text and signed-URL templates: the sandbox produces the bytes (PDF, XML) or the link.
#[tokio::test]
async fn file_templates_of_every_product_produce_content() {
    use runtime_model::catalog::ContentKind;
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    let mut checked = 0;
    for &product in generated::PRODUCTS {
        let c = ctx(product);
        for t in product.templates {
            if matches!(
                t.content,
                ContentKind::JsonRecord | ContentKind::SchemaCatalog | ContentKind::SchemaEntry
            ) {
                continue;
            }
            let read = product.tool(t.read_by).unwrap();
            let Operation::Get { record, .. } = read.operation else {
                continue;
            };
            let Some(list) = product
                .tools
                .iter()
                .find(|x| matches!(x.operation, Operation::List { record: r } if r == record))
            else {
                continue;
            };
            let Ok(Output::Json(v)) = sb.call(&c, list, &Map::new()).await else {
                panic!("{}", list.name)
            };
            let first = items(&v).remove(0);
            let rt = product.record(record).unwrap();
            let id = first[rt.id_field].clone();
            let mut args = Map::new();
            args.insert(t.args[0].1.to_string(), id);
            let out = sb.call(&c, read, &args).await.unwrap();
            match (t.content, out) {
                (ContentKind::Blob { .. }, Output::Bytes { data, .. }) => {
                    assert!(data.starts_with(b"%PDF"), "{}", t.name)
                }
                (ContentKind::Text, Output::Bytes { data, .. }) => {
                    assert!(data.starts_with(b"<?xml"), "{}", t.name)
                }
                (ContentKind::BlobOrText { .. }, Output::Bytes { data, .. }) => {
                    assert!(!data.is_empty(), "{}", t.name)
                }
                (ContentKind::SignedUrl { .. }, Output::Json(v)) => {
                    assert!(v["url"].as_str().unwrap().contains("&sig="), "{}", t.name)
                }
                (kind, out) => panic!("{}: {kind:?} got {out:?}", t.name),
            }
            checked += 1;
        }
    }
    println!("file templates checked: {checked}");
}

/// `resources/list` under `Recent(n)` over the sandbox: n URIs per listed type, built from the
/// templates, with string uids.
#[tokio::test]
async fn recent_resources_of_recent_products_over_the_sandbox() {
    use runtime::backend::{recent_resources, RecentOptions};
    use runtime_model::catalog::ResourcesListPolicy;
    let dir = tempfile::tempdir().unwrap();
    let sb: std::sync::Arc<dyn Backend> =
        std::sync::Arc::new(Sandbox::open(&SandboxConfig::new(dir.path())).unwrap());
    let mut seen_products = 0;
    for &product in generated::PRODUCTS {
        let ResourcesListPolicy::Recent(n) = product.policy.resources_list else {
            continue;
        };
        seen_products += 1;
        let listed = product
            .templates
            .iter()
            .filter(|t| t.listed && t.list_tool.is_some())
            .count();
        let out = recent_resources(&ctx(product), sb.clone(), n, RecentOptions::default())
            .await
            .unwrap_or_else(|e| panic!("{}: every listing answers: {e}", product.name));
        assert!(
            out.missing.is_empty(),
            "{}: {:?}",
            product.name,
            out.missing
        );
        let out = out.resources;
        assert!(listed > 0, "{}", product.name);
        assert!(
            out.len() >= listed * (n.min(25) as usize) * 9 / 10,
            "{}: {} resources for {listed} types",
            product.name,
            out.len()
        );
        for r in &out {
            let uri = r["uri"].as_str().unwrap();
            assert!(
                uri.starts_with(product.uri_prefix) && !uri.contains('{'),
                "{uri}"
            );
        }
    }
    println!("recent products: {seen_products}");
}

/// A record of type `record`: the first its list tool gives, else (a type read only by the key
/// of the record it belongs to: a mailbox entry's channels) the first its get tool finds among the
/// ids of the type its key references.
async fn some_record(
    sb: &Sandbox,
    c: &CallContext,
    product: &'static Product,
    record: &str,
) -> Option<Map<String, Value>> {
    let list_of = |r: &str| {
        product
            .tools
            .iter()
            .find(|t| matches!(t.operation, Operation::List { record } if record == r))
    };
    let get_of = |r: &str| {
        product
            .tools
            .iter()
            .find(|t| matches!(t.operation, Operation::Get { record, .. } if record == r))
    };
    let listed = |tool: &'static runtime_model::catalog::Tool| async move {
        match sb.call(c, tool, &Map::new()).await {
            Ok(Output::Json(v)) => items(&v),
            _ => Vec::new(),
        }
    };
    if let Some(tool) = list_of(record) {
        return listed(tool).await.into_iter().next();
    }
    let rt = product.record(record)?;
    let key = rt.fields.iter().find(|f| f.name == rt.id_field)?;
    let parent = key.seed.trim().strip_prefix("ref:")?;
    let (get_tool, parent_list) = (get_of(record)?, list_of(parent)?);
    let Operation::Get { id_arg, .. } = get_tool.operation else {
        return None;
    };
    let parent_id = product.record(parent)?.id_field;
    for p in listed(parent_list).await {
        let mut args = Map::new();
        args.insert(id_arg.to_string(), p.get(parent_id)?.clone());
        if let Ok(Output::Json(v)) = sb.call(c, get_tool, &args).await {
            let one = if v.get("data").is_some_and(Value::is_object) {
                &v["data"]
            } else {
                &v
            };
            return one.as_object().cloned();
        }
    }
    None
}

/// A value of the shape an input schema property declares (its first enum value, else one of
/// its type), for calls that only need the argument to be present.
fn sample(schema: &Value) -> Value {
    if let Some(first) = schema["enum"]
        .as_array()
        .and_then(|e| e.iter().find(|v| !v.is_null()))
    {
        return first.clone();
    }
    let ty = match &schema["type"] {
        Value::String(t) => t.as_str(),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("string"),
        _ => "string",
    };
    match (ty, schema["format"].as_str()) {
        ("string", Some("date")) => json!("2026-01-02"),
        ("string", Some("date-time")) => json!("2026-01-02T03:04:05Z"),
        ("string", _) => json!("sample"),
        ("integer", _) => json!(1),
        ("number", _) => json!(1.5),
        ("boolean", _) => json!(true),
        ("array", _) => json!([]),
        _ => json!({}),
    }
}

/// Issue 38: an update tool accepts every field its own schema offers. The sandbox used to set
/// only the record type's fields, so `banking_charge_bank_billet_update {notes}` answered
/// "nothing to update". Each update tool of every product is called with each of its body
/// arguments alone, on a listed record: the call succeeds and the answer carries the value (a
/// secret is accepted and never shown back).
#[tokio::test]
async fn every_update_tool_accepts_each_field_of_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    let mut problems = Vec::new();
    let mut calls = 0;
    for &product in generated::PRODUCTS {
        let c = ctx(product);
        for tool in product.tools {
            let Operation::Update { record, id_arg } = tool.operation else {
                continue;
            };
            let runtime_model::catalog::Binding::Http(http) = tool.binding else {
                continue;
            };
            let rt = product.record(record).unwrap();
            let Some(found) = some_record(&sb, &c, product, record).await else {
                problems.push(format!("{}: no {record} record found to update", tool.name));
                continue;
            };
            let id = found[rt.id_field].clone();
            let schema: Value = serde_json::from_str(tool.input_schema_json).unwrap();
            let props = schema["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            for (name, prop) in &props {
                if name == id_arg || name == "workspace_id" || !http.sends_in_body(name) {
                    continue;
                }
                // The record's own value where it has one (a reference must name a record that
                // exists), else one of the declared shape.
                let value = match found.get(name.as_str()) {
                    Some(v) if !v.is_null() => v.clone(),
                    _ => sample(prop),
                };
                let mut args = Map::new();
                args.insert(id_arg.to_string(), id.clone());
                args.insert(name.clone(), value.clone());
                calls += 1;
                let answer = match sb.call(&c, tool, &args).await {
                    Ok(Output::Json(v)) => v,
                    other => {
                        problems.push(format!("{} {{{name}}}: {other:?}", tool.name));
                        continue;
                    }
                };
                let record = if answer.get("data").is_some_and(Value::is_object) {
                    &answer["data"]
                } else {
                    &answer
                };
                let shown = runtime_model::secrets::redact(&schema, &args);
                let secret = shown[name.as_str()] != value;
                let stamp = matches!(name.as_str(), "created_at" | "updated_at");
                match (secret, record.get(name.as_str())) {
                    _ if stamp => {}
                    (false, Some(v)) if *v == value => {}
                    (true, v) if v.is_none_or(|v| *v != value) => {}
                    (_, v) => problems.push(format!(
                        "{} {{{name}: {value}}} answers {name} = {v:?}",
                        tool.name
                    )),
                }
            }
        }
    }
    assert!(calls > 100, "only {calls} update calls were made");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The one record a tool call answers (`data` of a v2 answer, else the answer itself).
fn one(answer: &Value) -> Map<String, Value> {
    answer
        .get("data")
        .unwrap_or(answer)
        .as_object()
        .cloned()
        .unwrap_or_default()
}

async fn call(
    sb: &Sandbox,
    product: &'static Product,
    tool: &str,
    args: Value,
) -> Result<Map<String, Value>, String> {
    let t = product.tool(tool).unwrap_or_else(|| panic!("{tool}"));
    let args = args.as_object().cloned().unwrap_or_default();
    match sb.call(&ctx(product), t, &args).await {
        Ok(Output::Json(v)) => Ok(one(&v)),
        Ok(other) => Err(format!("{other:?}")),
        Err(e) => Err(e.to_string()),
    }
}

async fn first_page(
    sb: &Sandbox,
    product: &'static Product,
    tool: &str,
) -> Vec<Map<String, Value>> {
    let t = product.tool(tool).unwrap_or_else(|| panic!("{tool}"));
    let args = json!({"per_page": 50})
        .as_object()
        .cloned()
        .unwrap_or_default();
    match sb.call(&ctx(product), t, &args).await {
        Ok(Output::Json(v)) => items(&v),
        other => panic!("{tool}: {other:?}"),
    }
}

/// Where a relation of issue 38 is a write's, the record the tool writes keeps it: a customer's
/// document is stored in the seeded customers' form whichever form it is given in; a batch's
/// count is its list's length after create and add; a transfer from an account to itself is
/// refused with the reason; a team invite sent again can be accepted again.
#[tokio::test]
async fn records_written_through_tools_keep_the_seeds_agreements() {
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    let shape = |v: &str| -> String {
        v.chars()
            .map(|c| if c.is_ascii_digit() { '9' } else { c })
            .collect()
    };

    let billing = generated::product("billing").unwrap();
    let seeded: BTreeSet<String> = first_page(&sb, billing, "billing_customers_list")
        .await
        .iter()
        .filter_map(|c| c.get("document").and_then(Value::as_str).map(shape))
        .collect();
    for given in ["52998224725", "529.982.247-25"] {
        let made = call(
            &sb,
            billing,
            "billing_customers_create",
            json!({"name": "Ana Souza", "document": given, "email": "ana.souza@gmail.com"}),
        )
        .await
        .expect("created");
        let stored = made
            .get("document")
            .and_then(Value::as_str)
            .unwrap_or_default();
        assert_eq!(stored, "529.982.247-25", "{given} → {made:?}");
        assert!(
            seeded.contains(&shape(stored)),
            "{stored} is not shaped like {seeded:?}"
        );
    }

    let banking = generated::product("banking").unwrap();
    let batch = call(
        &sb,
        banking,
        "banking_charge_bank_billet_batch_create",
        json!({"name": "Lote de teste", "bank_billet_ids": "1, 2"}),
    )
    .await
    .expect("batch");
    assert_eq!(
        batch.get("bank_billet_ids"),
        Some(&json!([1, 2])),
        "{batch:?}"
    );
    assert_eq!(
        batch.get("bank_billets_count"),
        Some(&json!(2)),
        "{batch:?}"
    );
    let id = batch.get("id").cloned().unwrap_or_default();
    let grown = call(
        &sb,
        banking,
        "banking_charge_bank_billet_batch_add_billets",
        json!({"id": id.to_string(), "bank_billet_ids": "3,4"}),
    )
    .await
    .expect("added");
    assert_eq!(
        grown.get("bank_billet_ids"),
        Some(&json!([1, 2, 3, 4])),
        "{grown:?}"
    );
    assert_eq!(
        grown.get("bank_billets_count"),
        Some(&json!(4)),
        "{grown:?}"
    );

    let finance = generated::product("finance").unwrap();
    let accounts = first_page(&sb, finance, "finance_financial_accounts_list").await;
    let account = accounts[0].get("uid").cloned().unwrap_or_default();
    let refused = call(
        &sb,
        finance,
        "finance_transfers_create",
        json!({"from_account_id": account, "to_account_id": account, "amount": 100.0}),
    )
    .await
    .expect_err("a transfer to the same account");
    assert!(refused.contains("two different accounts"), "{refused}");

    let dashboards = generated::product("dashboards").unwrap();
    let today = runtime_sandbox::clock::date_string(runtime_sandbox::clock::now().date());
    let expired = first_page(&sb, dashboards, "dashboards_invites_list")
        .await
        .into_iter()
        .find(|i| i.get("status").and_then(Value::as_str) == Some("expired"))
        .expect("an expired invite");
    let again = call(
        &sb,
        dashboards,
        "dashboards_invites_resend",
        json!({"id": expired.get("id").cloned().unwrap_or_default()}),
    )
    .await
    .expect("resent");
    let expires = again
        .get("expires_at")
        .and_then(Value::as_str)
        .unwrap_or_default();
    assert_eq!(again.get("status"), Some(&json!("pending")), "{again:?}");
    assert!(
        expires > today.as_str(),
        "pending until {expires}, today is {today}"
    );
    assert!(
        again
            .get("sent_at")
            .and_then(Value::as_str)
            .is_some_and(|s| s.starts_with(&today)),
        "{again:?}"
    );
}

/// `workspaces_list` shows, on the page a model reads first, the workspace the connection works
/// in, which `workspaces_get` reads (issue 38: the list answered without `ws_demo_main`).
#[tokio::test]
async fn the_connections_workspace_is_on_the_first_page_of_the_workspaces() {
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    let inbox = generated::product("inbox").unwrap();
    let own = call(&sb, inbox, "workspaces_get", json!({"id": "ws_test"}))
        .await
        .expect("the connection's workspace");
    assert_eq!(own.get("uid"), Some(&json!("ws_test")), "{own:?}");
    let t = inbox.tool("workspaces_list").unwrap();
    let listed = match sb.call(&ctx(inbox), t, &Map::new()).await {
        Ok(Output::Json(v)) => items(&v),
        other => panic!("{other:?}"),
    };
    assert!(
        listed
            .iter()
            .any(|w| w.get("uid") == Some(&json!("ws_test"))),
        "{} workspaces listed, not ws_test",
        listed.len()
    );
}

//! The banking catalog served by the sandbox: every listable template type seeds at least 25
//! records, its list tool returns them newest first, and its read tool finds each by the uid its
//! URI would carry. Also the data the prompts rely on: overdue billets with payers to e-mail.

use runtime::backend_api::{Backend, CallContext, Output};
use runtime::catalog::{Product, Template};
use runtime_sandbox::{Sandbox, SandboxConfig};
use serde_json::{json, Map, Value};

fn product() -> &'static Product {
    generated::product("banking").expect("banking is compiled")
}

fn ctx() -> CallContext {
    test_support::calls::admin(product(), "org-banking")
}

async fn call(sb: &Sandbox, name: &str, args: Value) -> Value {
    let tool = product()
        .tool(name)
        .unwrap_or_else(|| panic!("{name} missing"));
    let args: Map<String, Value> = args.as_object().cloned().unwrap();
    match sb.call(&ctx(), tool, &args).await {
        Ok(Output::Json(v)) => v,
        other => panic!("{name}: {other:?}"),
    }
}

/// A list result: v1 answers a bare array, v2 `{status, data, pagination}`.
fn items(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.clone(),
        other => other["data"]
            .as_array()
            .unwrap_or_else(|| panic!("not a list result: {other}"))
            .clone(),
    }
}

fn id_arg(t: &Template) -> &'static str {
    t.args
        .iter()
        .find(|(var, _)| *var == "uid")
        .map(|(_, a)| *a)
        .unwrap_or("uid")
}

#[tokio::test]
async fn every_listed_type_is_served_by_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    let listed: Vec<&Template> = product().templates.iter().filter(|t| t.listed).collect();
    assert!(listed.len() >= 40, "only {} listed types", listed.len());
    for t in listed {
        let list_tool = t.list_tool.unwrap();
        let page = items(&call(&sb, list_tool, json!({"per_page": 50})).await);
        assert!(page.len() >= 25, "{list_tool}: {} records", page.len());
        let created: Vec<&str> = page
            .iter()
            .map(|r| r["created_at"].as_str().unwrap_or(""))
            .collect();
        let mut newest_first = created.clone();
        newest_first.sort_by(|a, b| b.cmp(a));
        assert_eq!(created, newest_first, "{list_tool} lists newest first");
        // The read tool finds the newest record by the uid its resource URI carries.
        let uid = page[0]["uid"].as_str().unwrap().to_string();
        let read = call(&sb, t.read_by, json!({ id_arg(t): uid })).await;
        let record =
            if read.get("data").is_some() && read.get("status").is_some_and(Value::is_number) {
                read["data"].clone()
            } else {
                read
            };
        assert_eq!(record["uid"], page[0]["uid"], "{}", t.uri_template);
    }
}

#[tokio::test]
async fn overdue_billets_exist_for_the_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    let overdue = items(
        &call(
            &sb,
            "banking_charge_bank_billet_list",
            json!({"status": "overdue", "per_page": 50}),
        )
        .await,
    );
    assert!(!overdue.is_empty(), "the seed has overdue billets");
    for b in &overdue {
        assert_eq!(b["status"], "overdue");
        assert!(b["customer_email"].as_str().unwrap().contains('@'));
        assert!(b["customer_person_name"]
            .as_str()
            .is_some_and(|n| !n.is_empty()));
        assert!(b["amount"].as_f64().unwrap() > 0.0);
    }
    // Cancel moves an overdue billet to canceled (a declared transition).
    let uid = overdue[0]["uid"].as_str().unwrap();
    let canceled = call(&sb, "banking_charge_bank_billet_cancel", json!({"id": uid})).await;
    assert_eq!(canceled["status"], "canceled");
}

//! Names that fit (issue 13): every listed tool name is within the name budget (48 characters)
//! unless the product documents name the tool; a tool renamed to fit still answers to its old
//! name on `tools/call`, which `tools/list` never shows. Over Streamable HTTP, on both eras.

#[path = "confirmation_harness/mod.rs"]
mod harness;

use std::collections::BTreeSet;

use harness::{start, Options};
use serde_json::{json, Value};

/// The identifiers a product's documents write (its fact file).
fn documented(product: &str) -> BTreeSet<String> {
    let path = format!(
        "{}/catalog/facts/product-docs/{product}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["identifiers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_tool_name_fits_the_budget_or_is_named_by_the_documents() {
    for p in generated::PRODUCTS {
        let documented = documented(p.name);
        for t in p.tools {
            assert!(
                t.name.len() <= 48 || documented.contains(t.name),
                "{}: {} is {} characters",
                p.name,
                t.name,
                t.name.len()
            );
        }
        for (alias, name) in p.tool_aliases {
            assert!(p.tool(name).is_some(), "{alias} → {name}");
            assert!(
                p.tool(alias).is_none(),
                "an alias is not a tool name: {alias}"
            );
        }
    }
    let banking = generated::product("banking").unwrap();
    assert!(
        banking
            .tool("banking_financial_statement_transaction_import_get")
            .is_some_and(|t| t.name.len() > 48),
        "named by the banking document: kept"
    );
    assert_eq!(banking.tool_aliases.len(), 12);
}

#[tokio::test]
async fn an_old_name_still_calls_its_tool_and_is_never_listed() {
    let server = start(Options::all_products()).await;
    let old = "banking_charge_bank_billet_remittance_list_pending";
    let new = "banking_charge_remittance_list_pending";
    let c = server.client("banking", "demo-full");
    for (era, client) in [
        ("2026-07-28", c.clone()),
        ("2025-11-25", c.clone().legacy("2025-11-25")),
        ("2025-03-26", c.clone().legacy("2025-03-26")),
    ] {
        let listed: BTreeSet<String> = client
            .list_all("tools/list", "tools")
            .await
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        assert!(listed.contains(new), "{era}");
        assert!(!listed.contains(old), "{era}: an alias is not listed");
        let by_new = client.call_tool(new, json!({}), None, None).await;
        let by_old = client.call_tool(old, json!({}), None, None).await;
        assert!(
            by_new.result().get("isError").is_none(),
            "{era}: {:?}",
            by_new.body
        );
        assert_eq!(
            by_old.result()["content"],
            by_new.result()["content"],
            "{era}"
        );
        let unknown = client
            .call_tool("banking_no_such_tool_at_all", json!({}), None, None)
            .await;
        assert!(
            unknown.body.get("error").is_some(),
            "{era}: {:?}",
            unknown.body
        );
    }
}

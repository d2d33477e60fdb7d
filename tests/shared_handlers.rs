//! The handler bodies every product shares (`runtime/src/extensions/catalog.rs`), through the real
//! HTTP server: the schemas catalog as tools, and the templates the Kobana API cannot read.

#[path = "confirmation_harness/mod.rs"]
mod harness;

use serde_json::json;

#[tokio::test]
async fn schema_tools_answer_the_catalogs_record_types() {
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client("billing", "demo-full");
    let listed = c
        .call_tool("billing_schemas_list", json!({}), None, None)
        .await;
    let catalog = &listed.result()["structuredContent"];
    let names: Vec<&str> = catalog["schemas"]
        .as_array()
        .unwrap_or_else(|| panic!("a schemas array: {}", listed.body))
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    let product = generated::product("billing").expect("billing is generated");
    let want: Vec<&str> = product.records.iter().map(|r| r.name).collect();
    assert_eq!(
        names, want,
        "the schemas tool lists every record type, in catalog order"
    );

    let one = c
        .call_tool(
            "billing_schemas_get",
            json!({"resource": "invoices"}),
            None,
            None,
        )
        .await;
    assert_eq!(one.result()["structuredContent"]["name"], json!("invoices"));
    assert!(
        one.result()["structuredContent"]["fields"].is_array()
            || one.result()["structuredContent"]["fields"].is_object()
    );

    let unknown = c
        .call_tool(
            "billing_schemas_get",
            json!({"resource": "nope"}),
            None,
            None,
        )
        .await;
    assert_eq!(unknown.tool_error_code().as_deref(), Some("not_found"));
    let text = unknown.result()["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("invoices"),
        "the error lists the known names: {text}"
    );
}

#[tokio::test]
async fn a_template_without_an_api_reads_in_the_sandbox_in_both_eras() {
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client("banking", "demo-full");
    let people = c
        .call_tool("banking_data_person_list", json!({}), None, None)
        .await;
    let uid = harness::records_of(&people)[0]["uid"]
        .as_str()
        .unwrap_or_else(|| panic!("a person: {}", people.body))
        .to_string();
    let uri = format!("kobana://banking/data/people/{uid}");
    for client in [
        s.client("banking", "demo-full"),
        s.client("banking", "demo-full").legacy("2025-11-25"),
    ] {
        let read = client.request("resources/read", json!({"uri": uri})).await;
        let text = read.result()["contents"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("a person: {}", read.body));
        assert!(text.contains(&uid), "{text}");
    }
    let call = c
        .call_tool(
            "banking_data_person_get",
            json!({"uid": "nope"}),
            None,
            None,
        )
        .await;
    assert_eq!(
        call.tool_error_code().as_deref(),
        Some("not_found"),
        "{}",
        call.body
    );
}

//! List pages through `Backend::call_json_text`: the records' stored text joined, never parsed,
//! and the same JSON text `Backend::call`'s value serializes to, with that text escaped for a JSON
//! string joined from the stored escaped texts (v1 bare arrays and v2 envelopes; full, short and
//! empty pages; filtered pages, whose records are parsed only to be checked).

use runtime_model::backend::{Backend, CallContext, Output};
use runtime_model::catalog::Product;
use runtime_sandbox::{Sandbox, SandboxConfig};
use serde_json::{json, Map, Value};
use test_support::demo;

fn ctx(product: &'static Product) -> CallContext {
    test_support::calls::admin(product, "org1")
}

#[tokio::test]
async fn list_pages_come_as_text_that_is_the_json_of_their_values() {
    let dir = tempfile::tempdir().unwrap();
    let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    let c = ctx(&demo::PRODUCT);
    let mut texts = 0;
    // Each tool with a filter on one of its record's fields.
    for (name, filter) in [
        ("demo_customers_list", json!({"name": "x"})),
        ("demo_bank_billets_list", json!({"status": "paid"})),
        (
            "demo_payments_list",
            json!({"bank_billet_id": "1", "per_page": 2}),
        ),
    ] {
        let tool = demo::PRODUCT.tool(name).expect(name);
        for args in [
            json!({}),
            json!({"per_page": 100}),
            json!({"page": 2, "per_page": 3}),
            json!({"page": 99999}),
            filter.clone(),
        ] {
            let args: Map<String, Value> = args.as_object().cloned().unwrap();
            let value = match sb.call(&c, tool, &args).await {
                Ok(Output::Json(v)) => v,
                other => panic!("{name} {args:?}: {other:?}"),
            };
            match sb.call_json_text(&c, tool, &args).await {
                Ok(Output::JsonText(text)) => {
                    assert_eq!(text.as_str(), value.to_string(), "{name} {args:?}");
                    // The text block's copy: the same text escaped as serde_json escapes it.
                    let quoted = serde_json::to_string(text.as_str()).unwrap();
                    assert_eq!(
                        text.in_string(),
                        Some(&quoted[1..quoted.len() - 1]),
                        "{name} {args:?}"
                    );
                    assert_eq!(text.is_object(), value.is_object());
                    texts += 1;
                }
                other => panic!("{name} {args:?}: every page is text: {other:?}"),
            }
        }
    }
    assert_eq!(texts, 15, "every page came as text");
}

//! One caller cannot deny confirmations to everyone (issue 12, finding 6): the ledger holds at
//! most a quota of live records per person and organization. A caller flooding confirmations
//! gets `confirmation_quota_exceeded`; a person of another organization still confirms and runs.

#[path = "confirmation_harness/mod.rs"]
mod harness;

use std::sync::Arc;

use harness::{start, yes, Client, Options};
use runtime::confirm::MemoryLedger;
use serde_json::json;

/// Ids of customers `c` can reach (a missing record is refused before any question, so each
/// confirmation needs a real one).
async fn customer_ids(c: &Client) -> Vec<String> {
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                if let (Some(id), true) = (
                    m.get("id").and_then(|i| i.as_str()),
                    m.contains_key("email"),
                ) {
                    out.push(id.to_string());
                }
                m.values().for_each(|c| walk(c, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|c| walk(c, out)),
            _ => {}
        }
    }
    let a = c
        .call_tool(
            "billing_customers_list",
            json!({"per_page": 50}),
            None,
            None,
        )
        .await;
    let mut ids = Vec::new();
    walk(&a.result()["structuredContent"], &mut ids);
    ids.dedup();
    assert!(ids.len() > 8, "{}", a.body);
    ids
}

/// Asks and confirms a delete of `id`; answers the tool result's error code, `None` when it
/// ran without one.
async fn confirm_delete(c: &Client, id: &str) -> Option<String> {
    let args = json!({"id": id});
    let q = c
        .call_tool("billing_customers_delete", args.clone(), None, None)
        .await;
    assert!(q.is_input_required(), "{}", q.body);
    let done = c
        .call_tool(
            "billing_customers_delete",
            args,
            Some(&q.request_state()),
            Some(yes()),
        )
        .await;
    done.tool_error_code()
}

#[tokio::test]
async fn a_flooding_caller_is_refused_while_another_organization_confirms() {
    const QUOTA: usize = 4;
    let s = start(Options {
        products: vec![generated::product("billing").unwrap()],
        ledger: Some(Arc::new(MemoryLedger::with_limits(1_000, QUOTA))),
        ..Options::all_products()
    })
    .await;
    // Each used confirmation holds one record for its TTL; while it runs, a write also holds
    // its idempotency key: the flooder is refused at its quota, give or take that one.
    let flooder = s.client("billing", "demo-full");
    let ids = customer_ids(&flooder).await;
    let mut accepted = 0;
    loop {
        let code = confirm_delete(&flooder, &ids[accepted]).await;
        if code.as_deref() == Some("confirmation_quota_exceeded") {
            break;
        }
        accepted += 1;
        assert!(accepted <= QUOTA, "never refused");
    }
    assert!(accepted >= QUOTA - 1, "refused early, after {accepted}");
    assert_eq!(
        confirm_delete(&flooder, &ids[QUOTA + 2]).await.as_deref(),
        Some("confirmation_quota_exceeded"),
        "still refused"
    );
    // Another organization, and a colleague of the same organization, are not affected.
    for token in ["demo-other-org", "demo-colleague"] {
        let other = s.client("billing", token);
        let theirs = customer_ids(&other).await;
        let code = confirm_delete(&other, theirs.last().expect("a customer")).await;
        assert_ne!(
            code.as_deref(),
            Some("confirmation_quota_exceeded"),
            "{token}"
        );
        assert_ne!(code.as_deref(), Some("confirmation_unavailable"), "{token}");
    }
}

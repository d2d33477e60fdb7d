//! Results that fit a context (issue 13): a sandbox list answer larger than a small result
//! budget is cut to its first whole records, its text and `structuredContent` stay the same JSON
//! and still match the tool's output schema (full and listed), and the note's advice gets the
//! rest; where the whole is a resource, a `resource_link` points to it. On both eras.

#[path = "confirmation_harness/mod.rs"]
mod harness;

use harness::{start, Answer, Client, Options, TestServer};
use serde_json::{json, Value};

const BUDGET_TOKENS: usize = 300;

async fn servers() -> (TestServer, TestServer) {
    let uncut = start(Options {
        result_budget_tokens: Some(0),
        ..Options::all_products()
    })
    .await;
    let small = start(Options {
        result_budget_tokens: Some(BUDGET_TOKENS),
        ..Options::all_products()
    })
    .await;
    (uncut, small)
}

fn eras(c: Client) -> [(&'static str, Client); 2] {
    [
        ("2026-07-28", c.clone()),
        ("2025-11-25", c.legacy("2025-11-25")),
    ]
}

/// The text blocks and the structured content of a result.
fn parts(a: &Answer) -> (Vec<String>, Value, Vec<Value>) {
    let r = a.result();
    assert!(r.get("isError").is_none(), "{r}");
    let content = r["content"].as_array().unwrap();
    let texts = content
        .iter()
        .filter(|c| c["type"] == "text")
        .map(|c| c["text"].as_str().unwrap().to_string())
        .collect();
    let links = content
        .iter()
        .filter(|c| c["type"] == "resource_link")
        .cloned()
        .collect();
    (texts, r["structuredContent"].clone(), links)
}

fn records(v: &Value) -> Vec<Value> {
    v["data"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn a_list_over_the_budget_is_cut_to_whole_records_with_a_way_to_the_rest() {
    let (uncut, small) = servers().await;
    let banking = generated::product("banking").unwrap();
    let tool = banking.tool("banking_charge_pix_list").unwrap();
    let full_schema: Value = serde_json::from_str(tool.output_schema_json.unwrap()).unwrap();
    let listed: Value =
        serde_json::from_str::<Value>(tool.descriptor_json).unwrap()["outputSchema"].clone();
    let args = json!({"per_page": 20});
    let whole = uncut
        .client("banking", "demo-full")
        .call_tool(tool.name, args.clone(), None, None)
        .await;
    let (texts, full, _) = parts(&whole);
    assert_eq!(texts.len(), 1, "an answer within its budget is not cut");
    let all = records(&full);
    assert_eq!(all.len(), 20, "the sandbox has a page of 20 pix charges");
    assert!(
        full.to_string().len() > BUDGET_TOKENS * 4,
        "the page exceeds the small budget"
    );

    for (era, c) in eras(small.client("banking", "demo-full")) {
        let a = c.call_tool(tool.name, args.clone(), None, None).await;
        let (texts, structured, _) = parts(&a);
        assert_eq!(texts.len(), 2, "{era}: the cut JSON, then the note");
        let shown: Value = serde_json::from_str(&texts[0]).unwrap();
        assert_eq!(
            shown, structured,
            "{era}: text and structuredContent are the same JSON"
        );
        assert!(
            texts[0].len() <= BUDGET_TOKENS * 4,
            "{era}: within the budget"
        );
        let cut = records(&shown);
        assert!(
            !cut.is_empty() && cut.len() < all.len(),
            "{era}: {}",
            cut.len()
        );
        assert_eq!(cut[..], all[..cut.len()], "{era}: the first records, whole");
        assert_eq!(shown["status"], full["status"], "{era}: the envelope stays");
        for (which, schema) in [("full", &full_schema), ("listed", &listed)] {
            assert!(
                jsonschema::is_valid(schema, &shown),
                "{era}: the cut answer matches the {which} output schema"
            );
        }
        // The note says what was shown and how to get the rest; following it gets the next record.
        // The request names no language: banking's default, pt-BR.
        let note = &texts[1];
        let k = cut.len();
        assert!(
            note.contains(&format!("os primeiros {k} dos 20 registros")),
            "{era}: {note}"
        );
        let advice = format!("per_page={k} e page=2");
        assert!(note.contains(&advice), "{era}: {note}");
        let next = c
            .call_tool(tool.name, json!({"per_page": k, "page": 2}), None, None)
            .await;
        let (_, next, _) = parts(&next);
        assert_eq!(
            records(&next)[0],
            all[k],
            "{era}: the rest starts where the cut ended"
        );
    }
}

#[tokio::test]
async fn a_cut_answer_that_is_a_resource_links_to_the_whole() {
    let (_uncut, small) = servers().await;
    for (era, c) in eras(small.client("inbox", "demo-full")) {
        let a = c
            .call_tool("models_list", json!({"per_page": 50}), None, None)
            .await;
        let (texts, structured, links) = parts(&a);
        assert_eq!(texts.len(), 2, "{era}: {texts:?}");
        assert!(!records(&structured).is_empty());
        assert!(
            texts[1].contains("kobana://inbox/models"),
            "{era}: {}",
            texts[1]
        );
        assert_eq!(links.len(), 1, "{era}: one resource_link");
        assert_eq!(links[0]["uri"], "kobana://inbox/models");
        // The link is to something the client can read.
        let read = c
            .request("resources/read", json!({"uri": "kobana://inbox/models"}))
            .await;
        assert!(read.result()["contents"][0]["text"].is_string(), "{era}");
    }
}

#[tokio::test]
async fn by_default_a_page_of_records_is_not_cut() {
    let s = start(Options::all_products()).await;
    let a = s
        .client("banking", "demo-full")
        .call_tool(
            "banking_charge_pix_list",
            json!({"per_page": 50}),
            None,
            None,
        )
        .await;
    let (texts, _, _) = parts(&a);
    assert_eq!(texts.len(), 1, "50 records are far below 25,000 tokens");
}

//! A sandbox list page goes into a `tools/call` result as its records' stored JSON text
//! (`Output::JsonText`), never parsed into a `Value` tree. The client must not be able to tell:
//! every list tool of every product answers byte for byte what the same server answers when its
//! backend can only answer values (`Backend::call`, the path every answer took before), on both
//! eras, in English and Portuguese, for full, partial and empty pages, with filters, and over a
//! small result budget (where the text is parsed to be cut).

#[path = "confirmation_harness/mod.rs"]
mod harness;

use std::sync::Arc;

use harness::{start, Options, TestServer, MODERN};
use runtime_model::backend::{Backend, BackendError, BoxFuture, CallContext, Output};
use runtime_model::catalog::{Operation, Tool};
use runtime_sandbox::{Sandbox, SandboxConfig};
use serde_json::{json, Map, Value};

/// The sandbox behind [`Backend::call`] only: every JSON answer comes as a `Value`, as before
/// list pages were sent as text.
struct ValuesOnly(Sandbox);

impl Backend for ValuesOnly {
    fn call<'a>(
        &'a self,
        ctx: &'a CallContext,
        tool: &'static Tool,
        args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        self.0.call(ctx, tool, args)
    }

    fn executes_operations(&self) -> bool {
        true
    }
}

/// Two servers over one sandbox data directory: one sending list pages as text, one as values.
async fn pair(dir: &std::path::Path, budget: Option<usize>) -> (TestServer, TestServer) {
    let values = Sandbox::open(&SandboxConfig::new(dir)).expect("sandbox");
    let as_text = start(Options {
        data_dir: Some(dir.to_path_buf()),
        result_budget_tokens: budget,
        ..Options::all_products()
    })
    .await;
    let as_values = start(Options {
        data_dir: Some(dir.to_path_buf()),
        backend: Some(Arc::new(ValuesOnly(values))),
        result_budget_tokens: budget,
        ..Options::all_products()
    })
    .await;
    (as_text, as_values)
}

/// The body of one `tools/call`, as the bytes the server sent.
async fn raw_call(
    server: &TestServer,
    product: &str,
    era: &str,
    language: &str,
    tool: &str,
    args: &Value,
) -> String {
    let mut params = json!({"name": tool, "arguments": args});
    let mut req = reqwest::Client::new()
        .post(format!("{}/{product}/mcp", server.base))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("accept-language", language)
        .header("mcp-protocol-version", era)
        .bearer_auth("demo-full");
    if era == MODERN {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        req = req
            .header("mcp-method", "tools/call")
            .header("mcp-name", tool);
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    let resp = req.json(&body).send().await.expect("HTTP request");
    assert_eq!(resp.status().as_u16(), 200, "{tool}");
    resp.text().await.expect("body")
}

/// The raw answer of `tool` from both servers, asserted to be the same bytes.
async fn same_bytes(
    (as_text, as_values): (&TestServer, &TestServer),
    product: &str,
    era: &str,
    language: &str,
    tool: &str,
    args: &Value,
) -> String {
    let text = raw_call(as_text, product, era, language, tool, args).await;
    let values = raw_call(as_values, product, era, language, tool, args).await;
    assert_eq!(
        text, values,
        "{product} {tool} {args} on {era} in {language}"
    );
    text
}

/// The records of a successful list result, checking that its text block and
/// `structuredContent` are the same JSON; `None` for an error result.
fn records(body: &str) -> Option<Vec<Value>> {
    let msg: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    let result = &msg["result"];
    if result["isError"] == json!(true) {
        return None;
    }
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str()?).ok()?;
    let structured = &result["structuredContent"];
    // 2025 wraps a bare array as `{"result": […]}`.
    let same = *structured == text || structured["result"] == text;
    assert!(same, "text block and structuredContent differ: {body}");
    match text {
        Value::Array(items) => Some(items),
        v => v["data"].as_array().cloned(),
    }
}

fn list_tools() -> Vec<(&'static str, &'static Tool)> {
    generated::PRODUCTS
        .iter()
        .flat_map(|p| p.tools.iter().map(move |t| (p.name, t)))
        .filter(|(_, t)| matches!(t.operation, Operation::List { .. }))
        .collect()
}

#[tokio::test]
async fn every_list_tool_answers_the_same_bytes_as_text_as_it_did_as_values() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (as_text, as_values) = pair(dir.path(), None).await;
    let mut lists = 0;
    let mut records_seen = 0;
    for (product, tool) in list_tools() {
        for args in [
            json!({}),
            json!({"page": 2, "per_page": 3}),
            json!({"page": 9999}),
        ] {
            for era in [MODERN, "2025-11-25"] {
                for language in ["en", "pt-BR"] {
                    let text = same_bytes(
                        (&as_text, &as_values),
                        product,
                        era,
                        language,
                        tool.name,
                        &args,
                    )
                    .await;
                    if let Some(r) = records(&text) {
                        lists += 1;
                        records_seen += r.len();
                        if args["page"] == json!(9999) {
                            assert!(r.is_empty(), "{}: a page past the end is empty", tool.name);
                        }
                    }
                }
            }
        }
    }
    // Not vacuous: most list tools answered, with records.
    assert!(lists > 100, "only {lists} list answers succeeded");
    assert!(records_seen > 1000, "only {records_seen} records listed");
}

#[tokio::test]
async fn billing_invoices_pages_filters_and_accents_are_the_same_bytes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (as_text, as_values) = pair(dir.path(), None).await;
    let cases = [
        (json!({}), Some(50)),
        (json!({"per_page": 100}), None),
        (json!({"page": 2, "per_page": 7}), Some(7)),
        (json!({"status": "paid"}), None),
        (json!({"status": "overdue", "per_page": 5}), None),
        (
            json!({"payment_method": "pix", "page": 2, "per_page": 2}),
            None,
        ),
        (json!({"page": 100000, "per_page": 100}), Some(0)),
        // Filtered pages are joined from stored texts too (only the records that may match
        // parsed, to be checked).
        (
            json!({"status": "paid", "payment_method": "pix", "page": 2, "per_page": 3}),
            None,
        ),
        (json!({"reminder_status": "sent", "per_page": 100}), None),
        (
            json!({"status": "open", "due_date_from": "2000-01-01", "per_page": 100}),
            None,
        ),
        (json!({"nfe_status": "not_issued", "page": 100000}), Some(0)),
    ];
    let mut accents = false;
    for (args, expect) in cases {
        for era in [MODERN, "2025-11-25"] {
            let text = same_bytes(
                (&as_text, &as_values),
                "billing",
                era,
                "pt-BR",
                "billing_invoices_list",
                &args,
            )
            .await;
            let r = records(&text).unwrap_or_else(|| panic!("{args}: an error: {text}"));
            if let Some(n) = expect {
                assert_eq!(r.len(), n, "{args}");
            }
            accents |= r.iter().any(|rec| !rec.to_string().is_ascii());
        }
    }
    // Customers' names carry accents (escaped as they are, never as `\u` sequences).
    let customers = raw_call(
        &as_text,
        "billing",
        MODERN,
        "pt-BR",
        "billing_customers_list",
        &json!({"per_page": 100}),
    )
    .await;
    accents |= !customers.is_ascii();
    assert!(accents, "the pages carry non-ASCII text");
}

/// Over a small result budget the text is parsed and cut exactly as a value was.
#[tokio::test]
async fn a_page_over_the_result_budget_is_cut_the_same_way() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (as_text, as_values) = pair(dir.path(), Some(300)).await;
    for era in [MODERN, "2025-11-25"] {
        let args = json!({"per_page": 20});
        let text = same_bytes(
            (&as_text, &as_values),
            "billing",
            era,
            "en",
            "billing_invoices_list",
            &args,
        )
        .await;
        let msg: Value = serde_json::from_str(&text).expect("JSON");
        let content = msg["result"]["content"].as_array().expect("content");
        assert!(
            content.len() >= 2,
            "the answer was cut, with a note: {text}"
        );
    }
}

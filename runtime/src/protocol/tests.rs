//! Engine tests over the generated catalogs (billing, finance), with a recording backend: permission filtering, the tools/call flow, era-specific shapes, MRTR.

use std::sync::{Arc, Mutex};

use runtime_model::backend::{Backend, BackendError, BoxFuture, CallContext, Output};
use runtime_model::catalog::{Product, Tool};
use runtime_model::identity::Identity;
use runtime_model::texts::Text;
use serde_json::{json, Map, Value};

use super::engine::{Engine, EngineOptions};
use crate::confirm::{Confirmer, MemoryLedger};
use crate::contract::Call;
use crate::contract::Era;
use crate::rpc::jsonrpc::Request;
use crate::rpc::reply::Reply;
use crate::state::StateSealer;

#[derive(Default)]
struct Recorder {
    calls: Mutex<Vec<(String, Option<String>)>>,
    /// The `CallContext::idempotency_key` of each call, in order.
    keys: Mutex<Vec<Option<String>>>,
    /// The arguments of each call, in order.
    args: Mutex<Vec<Map<String, Value>>>,
}

/// The bytes the recorder answers for file tools: a 3 000-byte "PDF", a large XML.
fn fake_pdf() -> Vec<u8> {
    let mut pdf = b"%PDF-1.7\n".to_vec();
    pdf.extend((0..2991u32).map(|i| (i % 251) as u8 | 0x80));
    pdf
}

fn fake_xml(len: usize) -> String {
    let mut xml = String::from("<nfe>");
    while xml.len() < len - 6 {
        xml.push_str("<i>é</i>");
    }
    xml.push_str("</nfe>");
    xml
}

impl Backend for Recorder {
    fn call<'a>(
        &'a self,
        ctx: &'a CallContext,
        tool: &'static Tool,
        args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        Box::pin(async move {
            self.calls
                .lock()
                .unwrap()
                .push((tool.name.to_string(), ctx.workspace.clone()));
            self.keys.lock().unwrap().push(ctx.idempotency_key.clone());
            self.args.lock().unwrap().push(args.clone());
            if tool.name.ends_with("_get_pdf") {
                return Ok(Output::Bytes {
                    mime_type: "application/pdf".into(),
                    data: fake_pdf(),
                });
            }
            if tool.name.ends_with("_get_xml") {
                let len = if args.get("id").and_then(Value::as_str) == Some("big") {
                    200 * 1024
                } else {
                    100
                };
                return Ok(Output::Bytes {
                    mime_type: "application/xml".into(),
                    data: fake_xml(len).into_bytes(),
                });
            }
            if tool.name.ends_with("_list") {
                return Ok(Output::Json(
                    json!({"data": [{"id": "cus_1"}, {"id": "cus_2"}, {"id": "inv_9"}]}),
                ));
            }
            // An upstream that answers a stored result for the key (`Idempotent-Replayed`).
            if args.get("document").and_then(Value::as_str) == Some("11111111111") {
                return Ok(Output::Replayed(Box::new(Output::Json(
                    json!({"id": "cus_9", "name": "Ana"}),
                ))));
            }
            if args.get("document").and_then(Value::as_str) == Some("00000000000") {
                return Err(BackendError::OutcomeUnknown(
                    "timed out after sending".into(),
                ));
            }
            match args.get("id").and_then(Value::as_str) {
                Some("missing") => Err(BackendError::NotFound("no such record".into())),
                Some("00000000000") => Err(BackendError::OutcomeUnknown(
                    "timed out after sending".into(),
                )),
                Some(id) => Ok(Output::Json(json!({"id": id, "name": "x"}))),
                None => Ok(Output::Json(json!([1, 2, 3]))),
            }
        })
    }

    /// Stands in for the sandbox: answers every tool, so every tool is listed.
    fn executes_operations(&self) -> bool {
        true
    }
}

fn product(name: &str) -> &'static Product {
    generated::product(name).unwrap()
}

fn engine_with(p: &'static Product, page_size: usize) -> (Engine, Arc<Recorder>) {
    let rec = Arc::new(Recorder::default());
    let sealer = Arc::new(StateSealer::new(vec![("k1".into(), vec![7u8; 32])]).unwrap());
    let confirmer = Confirmer::new(sealer.clone(), Arc::new(MemoryLedger::new()));
    let e = Engine::new(
        p,
        rec.clone(),
        sealer,
        confirmer,
        crate::extensions::ALL,
        EngineOptions {
            page_size,
            ttl_ms: 1000,
            ..EngineOptions::default()
        },
    );
    (e, rec)
}

fn identity(scopes: &[&str], perms: &[&str]) -> Identity {
    Identity {
        person: "p1".into(),
        name: "P".into(),
        organization: "o1".into(),
        scopes: scopes.iter().map(|s| s.to_string()).collect(),
        permissions: perms.iter().map(|s| s.to_string()).collect(),
        workspaces: Default::default(),
        default_workspace: None,
    }
}

fn call(era: Era, id: Identity, caps: Value) -> Call {
    Call::detached(era, Arc::new(id), caps)
}

async fn ask(
    e: &Engine,
    c: &Call,
    method: &str,
    params: Value,
) -> Result<Value, crate::rpc::jsonrpc::RpcError> {
    let req = Request::new(
        json!(1),
        method,
        params.as_object().cloned().unwrap_or_default(),
    );
    match e.handle(&req, c).await {
        Reply::Value(v) | Reply::InputRequired(v) => Ok(v),
        Reply::Raw(b) | Reply::ToolError { result: b, .. } => {
            Ok(serde_json::from_slice(&b.to_vec()).unwrap())
        }
        Reply::Error(err) => Err(err),
    }
}

fn names(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

const LEGACY: Era = Era::Legacy("2025-11-25");

#[tokio::test]
async fn tools_are_listed_and_callable_only_with_scope_and_permission() {
    let (e, rec) = engine_with(product("billing"), 500);
    let reader = identity(&["read", "billing.customers"], &["customers.read"]);
    let c = call(LEGACY, reader, json!({}));
    let listed = names(
        &ask(&e, &c, "tools/list", json!({})).await.unwrap(),
        "tools",
    );
    assert_eq!(
        listed,
        vec!["billing_customers_get", "billing_customers_list"]
    );

    // A tool the caller may not call: an isError result naming what is missing; nothing runs.
    let r = ask(
        &e,
        &c,
        "tools/call",
        json!({"name": "billing_customers_create", "arguments": {"name": "A"}}),
    )
    .await
    .unwrap();
    assert_eq!(r["isError"], true);
    assert_eq!(
        r["structuredContent"]["error"]["code"],
        "insufficient_scope"
    );
    assert_eq!(r["structuredContent"]["error"]["missing"], "write");
    let writer_no_perm = identity(&["write", "billing.customers"], &["customers.read"]);
    let c2 = call(LEGACY, writer_no_perm, json!({}));
    let r = ask(
        &e,
        &c2,
        "tools/call",
        json!({"name": "billing_customers_create", "arguments": {"name": "A"}}),
    )
    .await
    .unwrap();
    assert_eq!(
        r["structuredContent"]["error"]["code"],
        "insufficient_permission"
    );
    assert_eq!(
        r["structuredContent"]["error"]["missing"],
        "customers.write"
    );
    assert!(rec.calls.lock().unwrap().is_empty());

    // Unknown tool: a JSON-RPC error, not a result.
    let err = ask(&e, &c, "tools/call", json!({"name": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(err.code, -32602);
    assert!(err.message.contains("nope"));
}

#[tokio::test]
async fn arguments_are_validated_against_the_schema_naming_each_argument() {
    let (e, rec) = engine_with(product("billing"), 500);
    let c = call(LEGACY, identity(&["all"], &["*"]), json!({}));
    let r = ask(
        &e,
        &c,
        "tools/call",
        json!({"name": "billing_customers_get", "arguments": {"id": [5], "bogus": true}}),
    )
    .await
    .unwrap();
    assert_eq!(r["isError"], true);
    let err = &r["structuredContent"]["error"];
    assert_eq!(err["code"], "invalid_arguments");
    let details = err["details"].to_string();
    assert!(details.contains("`id`"), "{details}");
    assert!(rec.calls.lock().unwrap().is_empty());
    let r = ask(
        &e,
        &c,
        "tools/call",
        json!({"name": "billing_customers_get", "arguments": {}}),
    )
    .await
    .unwrap();
    // In the engine's locale, as the runtime's texts write it.
    let required = Text::ValidationRequired.fill(e.locale(&c), &[("argument", &"id")]);
    assert!(r["structuredContent"]["error"]["details"]
        .to_string()
        .contains(&required));

    let r = ask(
        &e,
        &c,
        "tools/call",
        json!({"name": "billing_customers_get", "arguments": {"id": "cus_1"}}),
    )
    .await
    .unwrap();
    assert_eq!(r.get("isError"), None);
    assert_eq!(r["structuredContent"]["id"], "cus_1");
    assert_eq!(rec.calls.lock().unwrap().len(), 1);
    // A backend "not found" is a tool error with the application code.
    let r = ask(
        &e,
        &c,
        "tools/call",
        json!({"name": "billing_customers_get", "arguments": {"id": "missing"}}),
    )
    .await
    .unwrap();
    assert_eq!(r["structuredContent"]["error"]["code"], "not_found");
}

#[tokio::test]
async fn results_follow_the_era() {
    let (e, _) = engine_with(product("billing"), 500);
    let modern = call(Era::Modern, identity(&["all"], &["*"]), json!({}));
    let legacy = call(LEGACY, identity(&["all"], &["*"]), json!({}));
    let m = ask(&e, &modern, "tools/list", json!({})).await.unwrap();
    assert_eq!(m["resultType"], "complete");
    assert_eq!(m["cacheScope"], "private");
    assert!(m["ttlMs"].as_u64().is_some());
    assert_eq!(
        m["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "kobana-mcp-billing"
    );
    let l = ask(&e, &legacy, "tools/list", json!({})).await.unwrap();
    assert!(l.get("resultType").is_none() && l.get("ttlMs").is_none());

    // Resource not found: -32002 for 2025, -32602 with data.uri for 2026.
    let uri = "kobana://billing/customers/missing";
    let err = ask(&e, &legacy, "resources/read", json!({"uri": uri}))
        .await
        .unwrap_err();
    assert_eq!(
        (err.code, err.data.clone().unwrap()["uri"].clone()),
        (-32002, json!(uri))
    );
    let err = ask(&e, &modern, "resources/read", json!({"uri": uri}))
        .await
        .unwrap_err();
    assert_eq!(
        (err.code, err.data.unwrap()["uri"].clone()),
        (-32602, json!(uri))
    );
    let err = ask(
        &e,
        &modern,
        "resources/read",
        json!({"uri": "kobana://billing/nothing/here/at/all"}),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, -32602);

    // A non-object structuredContent is wrapped for 2025 and kept as is for 2026.
    let tool = json!({"name": "billing_customers_list", "arguments": {}});
    let m = ask(&e, &modern, "tools/call", tool.clone()).await.unwrap();
    assert!(m["structuredContent"].is_object());
    let (e2, _) = engine_with(product("billing"), 500);
    let get_no_id = e2.tool_reply(
        &legacy,
        crate::contract::ToolOutput {
            content: vec![],
            structured: Some(json!([1])),
            is_error: false,
        },
    );
    let Reply::Raw(v) = get_no_id else { panic!() };
    let v: Value = serde_json::from_slice(&v.to_vec()).unwrap();
    assert_eq!(v["structuredContent"], json!({"result": [1]}));
    let Reply::Raw(v) = e2.tool_reply(
        &modern,
        crate::contract::ToolOutput {
            content: vec![],
            structured: Some(json!([1])),
            is_error: false,
        },
    ) else {
        panic!()
    };
    let v: Value = serde_json::from_slice(&v.to_vec()).unwrap();
    assert_eq!(v["resultType"], "complete");
    assert_eq!(
        v["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "kobana-mcp-billing"
    );
    assert_eq!(v["structuredContent"], json!([1]));
}

#[tokio::test]
async fn resources_are_refused_with_the_application_error_never_not_found() {
    let (e, _) = engine_with(product("billing"), 500);
    let c = call(LEGACY, identity(&["read"], &[]), json!({}));
    let err = ask(
        &e,
        &c,
        "resources/read",
        json!({"uri": "kobana://billing/customers/cus_1"}),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, runtime_model::errors::INSUFFICIENT_SCOPE.rpc_code);
    let data = err.data.unwrap();
    assert_eq!(data["error"], "insufficient_scope");
    assert_eq!(data["missing"], "billing.customers");
    // Templates the caller cannot read are not listed.
    let t = ask(&e, &c, "resources/templates/list", json!({}))
        .await
        .unwrap();
    assert!(t["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| !t["uriTemplate"].as_str().unwrap().contains("customers")));
    let full = call(LEGACY, identity(&["all"], &["*"]), json!({}));
    let r = ask(
        &e,
        &full,
        "resources/read",
        json!({"uri": "kobana://billing/customers/cus_1"}),
    )
    .await
    .unwrap();
    assert_eq!(r["contents"][0]["uri"], "kobana://billing/customers/cus_1");
    assert!(r["contents"][0]["text"].as_str().unwrap().contains("cus_1"));
}

#[tokio::test]
async fn workspaced_records_need_a_default_workspace_but_schemas_do_not() {
    let (e, rec) = engine_with(product("finance"), 500);
    let mut id = identity(&["all"], &["*"]);
    let c = call(LEGACY, id.clone(), json!({}));
    let err = ask(
        &e,
        &c,
        "resources/read",
        json!({"uri": "kobana://finance/payables/p1"}),
    )
    .await
    .unwrap_err();
    assert_eq!(err.data.unwrap()["error"], "workspace_required");
    let schemas = ask(
        &e,
        &c,
        "resources/read",
        json!({"uri": "kobana://finance/schemas/payables"}),
    )
    .await;
    assert!(schemas.is_ok(), "{schemas:?}");
    id.default_workspace = Some("ws1".into());
    let c = call(LEGACY, id, json!({}));
    ask(
        &e,
        &c,
        "resources/read",
        json!({"uri": "kobana://finance/payables/p1"}),
    )
    .await
    .unwrap();
    assert_eq!(
        rec.calls.lock().unwrap().last().unwrap().1.as_deref(),
        Some("ws1")
    );
}

#[tokio::test]
async fn prompts_need_every_tool_they_use() {
    let (e, _) = engine_with(product("billing"), 500);
    let reader = identity(
        &["read", "billing.invoices", "billing.payments"],
        &["invoices.read", "payments.read"],
    );
    let c = call(LEGACY, reader, json!({}));
    let listed = names(
        &ask(&e, &c, "prompts/list", json!({})).await.unwrap(),
        "prompts",
    );
    assert!(listed.contains(&"monthly_billing_summary".to_string()));
    assert!(
        !listed.contains(&"collect_overdue_invoices".to_string()),
        "needs send_reminder (write)"
    );
    let err = ask(
        &e,
        &c,
        "prompts/get",
        json!({"name": "collect_overdue_invoices"}),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, -32602);

    // Defaults resolve to concrete dates; formats are checked.
    let r = ask(
        &e,
        &c,
        "prompts/get",
        json!({"name": "monthly_billing_summary"}),
    )
    .await
    .unwrap();
    let text = r["messages"][0]["content"]["text"].as_str().unwrap();
    let month = super::dates::fmt_month(super::dates::today());
    assert!(text.contains(&format!("{month}-01")), "{text}");
    let err = ask(
        &e,
        &c,
        "prompts/get",
        json!({"name": "monthly_billing_summary", "arguments": {"month": "2026-13"}}),
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, -32602);
    assert!(err.message.contains("month"));
    let full = call(LEGACY, identity(&["all"], &["*"]), json!({}));
    let err = ask(
        &e,
        &full,
        "prompts/get",
        json!({"name": "customer_overview"}),
    )
    .await
    .unwrap_err();
    assert!(err.message.contains("customer_id"));
}

#[tokio::test]
async fn completions_follow_permissions_and_sources() {
    let (e, rec) = engine_with(product("billing"), 500);
    let full = call(LEGACY, identity(&["all"], &["*"]), json!({}));
    let params = json!({"ref": {"type": "ref/prompt", "name": "customer_overview"}, "argument": {"name": "customer_id", "value": "cus"}});
    let r = ask(&e, &full, "completion/complete", params.clone())
        .await
        .unwrap();
    assert_eq!(r["completion"]["values"], json!(["cus_1", "cus_2"]));
    assert_eq!(rec.calls.lock().unwrap()[0].0, "billing_customers_list");
    // The prompt is usable, but the completion's list tool is not: empty, and nothing runs.
    let invoices_only = identity(
        &["write", "billing.invoices"],
        &["invoices.read", "invoices.write"],
    );
    let (e2, rec2) = engine_with(product("billing"), 500);
    let overdue = json!({"ref": {"type": "ref/prompt", "name": "collect_overdue_invoices"},
        "argument": {"name": "customer_id", "value": ""}});
    let r = ask(
        &e2,
        &call(LEGACY, invoices_only.clone(), json!({})),
        "completion/complete",
        overdue,
    )
    .await
    .unwrap();
    assert_eq!(r["completion"]["values"], json!([]));
    assert!(rec2.calls.lock().unwrap().is_empty());
    // A prompt the caller cannot use cannot be completed either.
    let err = ask(
        &e2,
        &call(LEGACY, invoices_only, json!({})),
        "completion/complete",
        params,
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, -32602, "customer_overview needs customers_get");
    let months = json!({"ref": {"type": "ref/prompt", "name": "monthly_billing_summary"}, "argument": {"name": "month", "value": ""}});
    let r = ask(&e, &full, "completion/complete", months).await.unwrap();
    assert_eq!(r["completion"]["values"].as_array().unwrap().len(), 12);
}

#[tokio::test]
async fn cursors_are_opaque_terminate_and_reject_garbage() {
    let (e, _) = engine_with(product("billing"), 7);
    let c = call(Era::Modern, identity(&["all"], &["*"]), json!({}));
    let mut cursor: Option<String> = None;
    let mut seen = Vec::new();
    for _ in 0..100 {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let page = ask(&e, &c, "tools/list", params).await.unwrap();
        assert_eq!(page["cacheScope"], "private");
        seen.extend(names(&page, "tools"));
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(n) => cursor = Some(n.to_string()),
            None => break,
        }
    }
    assert_eq!(seen.len(), product("billing").tools.len());
    for bad in ["zzz", "dG9vbHM6OTk5", "cHJvbXB0czox", ""] {
        let r = ask(&e, &c, "tools/list", json!({"cursor": bad})).await;
        if bad.is_empty() {
            assert!(r.is_ok(), "the empty cursor is the first page");
        } else {
            assert_eq!(r.unwrap_err().code, -32602, "{bad}");
        }
    }
}

#[tokio::test]
async fn capabilities_advertise_what_is_served() {
    let (e, _) = engine_with(product("billing"), 500);
    let caps = e.capabilities(true);
    assert!(caps["resources"].get("subscribe").is_none());
    assert!(caps.get("logging").is_none());
    assert!(e.capabilities(false).get("logging").is_some());
    let c = call(Era::Modern, identity(&["all"], &["*"]), json!({}));
    for m in [
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "initialize",
        "nope/nope",
    ] {
        assert_eq!(
            ask(&e, &c, m, json!({})).await.unwrap_err().code,
            -32601,
            "{m}"
        );
    }
    let legacy = call(LEGACY, identity(&["all"], &["*"]), json!({}));
    assert_eq!(
        ask(&e, &legacy, "resources/subscribe", json!({"uri": "x"}))
            .await
            .unwrap_err()
            .code,
        -32601
    );
}

#[tokio::test]
async fn recent_records_are_listed_under_the_recent_policy_only_when_readable() {
    let (e, rec) = engine_with(product("banking"), 500);
    let full = call(Era::Modern, identity(&["all"], &["*"]), json!({}));
    let fixed = product("banking").resources.len();
    let r = ask(&e, &full, "resources/list", json!({})).await.unwrap();
    assert_eq!(r["cacheScope"], "private");
    let n = r["resources"].as_array().unwrap().len();
    assert!(
        n > fixed,
        "recent records appear beside the {fixed} fixed resources: {n}"
    );
    assert!(!rec.calls.lock().unwrap().is_empty());
    // A caller who can call nothing sees nothing, and nothing is listed upstream.
    let (e2, rec2) = engine_with(product("banking"), 500);
    let none = call(Era::Modern, identity(&[], &[]), json!({}));
    let r = ask(&e2, &none, "resources/list", json!({})).await.unwrap();
    assert_eq!(r["resources"], json!([]));
    assert!(rec2.calls.lock().unwrap().is_empty());
    assert_eq!(
        ask(&e2, &none, "resources/list", json!({"cursor": "x"}))
            .await
            .unwrap_err()
            .code,
        -32602
    );
}

#[tokio::test]
async fn destructive_tools_pass_the_confirmation_gate_first() {
    let (e, rec) = engine_with(product("billing"), 500);
    let args = json!({"name": "billing_customers_delete", "arguments": {"id": "cus_1"}});
    // 2026 with form elicitation: asked first, nothing runs.
    let asking = call(
        Era::Modern,
        identity(&["all"], &["*"]),
        json!({"elicitation": {}}),
    );
    let r = ask(&e, &asking, "tools/call", args.clone()).await.unwrap();
    assert_eq!(r["resultType"], "input_required");
    assert!(r["inputRequests"]["confirm"]["method"] == "elicitation/create");
    // Only the record was read (its facts are in the question).
    assert_eq!(writes(&rec), 0);
    assert_eq!(
        rec.calls.lock().unwrap()[0].0,
        "billing_customers_get",
        "the question reads the record first"
    );
    // Confirmed with the sealed state: it runs once.
    let mut retry = args.clone();
    retry["requestState"] = r["requestState"].clone();
    retry["inputResponses"] =
        json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let done = ask(&e, &asking, "tools/call", retry).await.unwrap();
    assert_eq!(done["resultType"], "complete");
    assert_eq!(writes(&rec), 1);
    // 2025 on a `run` product: runs directly (the client confirms on destructiveHint).
    let legacy = call(LEGACY, identity(&["all"], &["*"]), json!({}));
    ask(&e, &legacy, "tools/call", args).await.unwrap();
    assert_eq!(writes(&rec), 2);
    // 2025 on a `refuse` product: refused with confirmation_required; nothing runs.
    let (f, frec) = engine_with(product("finance"), 500);
    let r = ask(&f, &legacy, "tools/call", json!({"name": "finance_categories_delete", "arguments": {"id": "c1", "workspace_id": "w1"}})).await.unwrap();
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(
        r["structuredContent"]["error"]["code"],
        "confirmation_required"
    );
    // Only the record was read (a record that cannot be acted on is refused as such).
    assert_eq!(writes(&frec), 0);
}

/// The calls the recorder got that were not reads.
fn writes(rec: &Recorder) -> usize {
    rec.calls
        .lock()
        .unwrap()
        .iter()
        .filter(|(name, _)| !name.ends_with("_get"))
        .count()
}

fn key_of(rec: &Recorder) -> Option<String> {
    rec.keys.lock().unwrap().last().cloned().flatten()
}

fn confirm_twice(refund: &Value) -> [Value; 2] {
    let mut yes = refund.clone();
    yes["inputResponses"] = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    [refund.clone(), yes]
}

/// Findings 1 and 3: the key of a write is reused only while its outcome is unknown.
#[tokio::test]
async fn writes_reuse_their_idempotency_key_only_after_an_unknown_outcome() {
    let (e, rec) = engine_with(product("billing"), 500);
    let all = || identity(&["all"], &["*"]);
    let legacy = call(LEGACY, all(), json!({}));
    let create = |doc: &str| {
        json!({"name": "billing_customers_create",
               "arguments": {"name": "Ana", "document": doc, "email": "a@x.com"}})
    };
    // A deliberate repeat after a known outcome is a new call: a new key (finding 3).
    ask(&e, &legacy, "tools/call", create("12345678901"))
        .await
        .unwrap();
    let first = key_of(&rec).expect("a create carries a key");
    ask(&e, &legacy, "tools/call", create("12345678901"))
        .await
        .unwrap();
    assert_ne!(key_of(&rec).as_deref(), Some(first.as_str()));
    // An unknown outcome keeps the key: re-running the same call sends it again, and the result
    // says "outcome unknown", never a failure.
    let r = ask(&e, &legacy, "tools/call", create("00000000000"))
        .await
        .unwrap();
    assert_eq!(
        r["structuredContent"]["error"]["code"], "outcome_unknown",
        "{r}"
    );
    let unknown = key_of(&rec).unwrap();
    ask(&e, &legacy, "tools/call", create("00000000000"))
        .await
        .unwrap();
    assert_eq!(key_of(&rec).as_deref(), Some(unknown.as_str()));
    // Another person's identical call is another call.
    let mut other = all();
    other.person = "p2".into();
    ask(
        &e,
        &call(LEGACY, other, json!({})),
        "tools/call",
        create("00000000000"),
    )
    .await
    .unwrap();
    assert_ne!(key_of(&rec).as_deref(), Some(unknown.as_str()));
    // Every write carries a key (a DELETE too); a read carries none.
    ask(
        &e,
        &legacy,
        "tools/call",
        json!({"name": "billing_customers_delete", "arguments": {"id": "cus_1"}}),
    )
    .await
    .unwrap();
    assert!(key_of(&rec).is_some());
    ask(
        &e,
        &legacy,
        "tools/call",
        json!({"name": "billing_customers_get", "arguments": {"id": "cus_1"}}),
    )
    .await
    .unwrap();
    assert_eq!(key_of(&rec), None);

    // Confirmed calls: each confirmation after a known outcome is its own call...
    let modern = call(Era::Modern, all(), json!({"elicitation": {}}));
    let mut keys = Vec::new();
    for id in ["pay_1", "pay_1", "00000000000", "00000000000"] {
        let refund = json!({"name": "billing_payments_refund", "arguments": {"id": id}});
        let [ask_it, mut yes] = confirm_twice(&refund);
        let q = ask(&e, &modern, "tools/call", ask_it).await.unwrap();
        assert_eq!(q["resultType"], "input_required", "{q}");
        yes["requestState"] = q["requestState"].clone();
        let done = ask(&e, &modern, "tools/call", yes).await.unwrap();
        assert_eq!(done["resultType"], "complete", "{done}");
        keys.push(key_of(&rec).expect("a confirmed call carries a key"));
    }
    assert_ne!(keys[0], keys[1], "each confirmation is its own call");
    // ...but confirming again after an unknown outcome re-sends the first key (finding 1).
    assert_eq!(keys[2], keys[3]);
}

/// Issue 12 fault script: after the ledger lost its records (`kill -9` of a memory ledger, a
/// flushed Redis), re-running a write whose outcome was unknown — plainly, or confirmed again
/// with a new confirmation — sends the key of the first run, so the upstream cannot run it twice.
#[tokio::test]
async fn the_key_of_an_unknown_outcome_survives_the_loss_of_the_ledger() {
    let all = || identity(&["all"], &["*"]);
    let create = json!({"name": "billing_customers_create",
        "arguments": {"name": "Ana", "document": "00000000000", "email": "a@x.com"}});
    let refund = json!({"name": "billing_payments_refund", "arguments": {"id": "00000000000"}});
    let mut plain = Vec::new();
    let mut confirmed = Vec::new();
    // Two engines, each with its own new ledger: the second is the restarted server.
    for _ in 0..2 {
        let (e, rec) = engine_with(product("billing"), 500);
        let legacy = call(LEGACY, all(), json!({}));
        let r = ask(&e, &legacy, "tools/call", create.clone())
            .await
            .unwrap();
        assert_eq!(
            r["structuredContent"]["error"]["code"], "outcome_unknown",
            "{r}"
        );
        plain.push(key_of(&rec).unwrap());
        let modern = call(Era::Modern, all(), json!({"elicitation": {}}));
        let [ask_it, mut yes] = confirm_twice(&refund);
        let q = ask(&e, &modern, "tools/call", ask_it).await.unwrap();
        yes["requestState"] = q["requestState"].clone();
        ask(&e, &modern, "tools/call", yes).await.unwrap();
        confirmed.push(key_of(&rec).unwrap());
    }
    assert_eq!(plain[0], plain[1]);
    assert_eq!(confirmed[0], confirmed[1]);
}

/// An answer the upstream replayed for the call's key says so before the result, and the
/// generation moves on: calling again sends a new key.
#[tokio::test]
async fn a_replayed_answer_is_marked_and_the_next_call_runs_anew() {
    let (e, rec) = engine_with(product("billing"), 500);
    let legacy = call(LEGACY, identity(&["all"], &["*"]), json!({}));
    let create = json!({"name": "billing_customers_create",
        "arguments": {"name": "Ana", "document": "11111111111", "email": "a@x.com"}});
    let r = ask(&e, &legacy, "tools/call", create.clone())
        .await
        .unwrap();
    assert_ne!(r["isError"], true, "{r}");
    let content = r["content"].as_array().unwrap();
    // Billing speaks pt-BR when the request names no language.
    let note = super::tools::replayed_note(runtime_model::locale::Locale::PtBr);
    assert_eq!(content[0]["text"], note, "{r}");
    assert!(
        content[0]["text"]
            .as_str()
            .unwrap()
            .contains("nada novo foi executado"),
        "{r}"
    );
    assert_eq!(r["structuredContent"]["id"], "cus_9", "{r}");
    let first = key_of(&rec).unwrap();
    ask(&e, &legacy, "tools/call", create).await.unwrap();
    assert_ne!(key_of(&rec).unwrap(), first, "a new key after the replay");
}

fn content_of_type<'a>(r: &'a Value, kind: &str) -> Vec<&'a Value> {
    r["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["type"] == kind)
        .collect()
}

#[tokio::test]
async fn tools_describe_files_and_resources_return_them() {
    use base64::Engine as _;
    use sha2::{Digest, Sha256};
    let (e, _rec) = engine_with(product("billing"), 500);
    let modern = call(Era::Modern, identity(&["all"], &["*"]), json!({}));
    let get_pdf = json!({"name": "billing_invoices_get_pdf", "arguments": {"id": "inv_1"}});
    let r = ask(&e, &modern, "tools/call", get_pdf.clone())
        .await
        .unwrap();
    assert!(
        !r.to_string().contains("\"blob\""),
        "a tool never embeds the file: {r}"
    );
    let file = &r["structuredContent"]["file"];
    let pdf = fake_pdf();
    assert_eq!(file["mimeType"], "application/pdf");
    assert_eq!(file["size"], pdf.len());
    assert_eq!(file["sha256"], hex::encode(Sha256::digest(&pdf)), "{r}");
    let uri = "kobana://billing/invoices/inv_1/pdf";
    assert_eq!(file["uri"], uri);
    let links = content_of_type(&r, "resource_link");
    assert_eq!(links.len(), 1, "{r}");
    assert_eq!(links[0]["uri"], uri);
    assert_eq!(links[0]["mimeType"], "application/pdf");
    assert_eq!(links[0]["size"], pdf.len());
    // The resource is the document itself.
    let read = ask(&e, &modern, "resources/read", json!({"uri": uri}))
        .await
        .unwrap();
    let blob = read["contents"][0]["blob"].as_str().unwrap();
    assert_eq!(
        base64::engine::general_purpose::STANDARD
            .decode(blob)
            .unwrap(),
        pdf
    );
    // An id with reserved characters: the link carries it percent-encoded, and reading the link
    // gives the reading tool that very id back.
    let (e, rec) = engine_with(product("billing"), 500);
    let odd = ask(
        &e,
        &modern,
        "tools/call",
        json!({"name": "billing_invoices_get_pdf", "arguments": {"id": "a/b c%"}}),
    )
    .await
    .unwrap();
    let odd_uri = "kobana://billing/invoices/a%2Fb%20c%25/pdf";
    assert_eq!(odd["structuredContent"]["file"]["uri"], odd_uri, "{odd}");
    assert_eq!(content_of_type(&odd, "resource_link")[0]["uri"], odd_uri);
    ask(&e, &modern, "resources/read", json!({"uri": odd_uri}))
        .await
        .unwrap();
    let seen = rec.args.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1]["id"], "a/b c%", "{:?}", seen[1]);
    // 2025-03-26 has no resource_link: the text names the URI instead.
    let old = call(
        Era::Legacy("2025-03-26"),
        identity(&["all"], &["*"]),
        json!({}),
    );
    let r = ask(&e, &old, "tools/call", get_pdf).await.unwrap();
    assert!(content_of_type(&r, "resource_link").is_empty(), "{r}");
    assert!(r["content"][0]["text"].as_str().unwrap().contains(uri));

    // Text files stay inline when small, and are cut (pointing at the resource) when large.
    let small = ask(
        &e,
        &modern,
        "tools/call",
        json!({"name": "billing_nfes_get_xml", "arguments": {"id": "n1"}}),
    )
    .await
    .unwrap();
    assert_eq!(small["content"][0]["text"], fake_xml(100));
    assert_eq!(small["content"].as_array().unwrap().len(), 1);
    let big = ask(
        &e,
        &modern,
        "tools/call",
        json!({"name": "billing_nfes_get_xml", "arguments": {"id": "big"}}),
    )
    .await
    .unwrap();
    let full = fake_xml(200 * 1024);
    let shown = big["content"][0]["text"].as_str().unwrap();
    assert!(shown.len() <= super::tools::MAX_INLINE_TEXT && shown.len() > 60 * 1024);
    assert!(full.starts_with(shown));
    let note = big["content"][1]["text"].as_str().unwrap();
    assert!(note.contains("kobana://billing/nfes/big/xml"), "{note}");
    assert!(note.contains(&full.len().to_string()), "{note}");
    assert_eq!(
        content_of_type(&big, "resource_link")[0]["uri"],
        "kobana://billing/nfes/big/xml"
    );
    let read = ask(
        &e,
        &modern,
        "resources/read",
        json!({"uri": "kobana://billing/nfes/big/xml"}),
    )
    .await
    .unwrap();
    assert_eq!(read["contents"][0]["text"], full);
}

#[tokio::test]
async fn the_schemas_resource_and_tools_answer_the_same_json() {
    let (e, _rec) = engine_with(product("billing"), 500);
    let c = call(Era::Modern, identity(&["all"], &["*"]), json!({}));
    let text_json = |r: &Value, at: &str| -> Value {
        serde_json::from_str(r.pointer(at).and_then(Value::as_str).unwrap()).unwrap()
    };
    let tool = ask(
        &e,
        &c,
        "tools/call",
        json!({"name": "billing_schemas_list", "arguments": {}}),
    )
    .await
    .unwrap();
    let res = ask(
        &e,
        &c,
        "resources/read",
        json!({"uri": "kobana://billing/schemas"}),
    )
    .await
    .unwrap();
    assert_eq!(
        text_json(&res, "/contents/0/text"),
        tool["structuredContent"]
    );
    assert_eq!(
        text_json(&res, "/contents/0/text"),
        crate::record_schemas::catalog_json(product("billing"))
    );
    let name = product("billing").records[0].name;
    let tool = ask(
        &e,
        &c,
        "tools/call",
        json!({"name": "billing_schemas_get", "arguments": {"resource": name}}),
    )
    .await
    .unwrap();
    let res = ask(
        &e,
        &c,
        "resources/read",
        json!({"uri": format!("kobana://billing/schemas/{name}")}),
    )
    .await
    .unwrap();
    assert_eq!(
        text_json(&res, "/contents/0/text"),
        tool["structuredContent"]
    );
    // Unknown entry: not found in the caller's era.
    let uri = json!({"uri": "kobana://billing/schemas/nope"});
    let modern = ask(&e, &c, "resources/read", uri.clone())
        .await
        .unwrap_err();
    assert_eq!(modern.code, crate::rpc::jsonrpc::INVALID_PARAMS);
    let legacy = call(LEGACY, identity(&["all"], &["*"]), json!({}));
    let old = ask(&e, &legacy, "resources/read", uri).await.unwrap_err();
    assert_eq!(old.code, crate::rpc::jsonrpc::RESOURCE_NOT_FOUND_LEGACY);
}

#[tokio::test]
async fn a_full_tool_listing_is_the_locales_descriptors_joined_once_and_2025_03_26_gets_no_output_schemas(
) {
    use runtime_model::locale::Locale;
    let p = product("banking");
    let (e, _) = engine_with(p, 500);
    let everyone = identity(&["all"], &["*"]);
    // The page of someone who may call every tool is the locale's descriptors joined, byte for
    // byte, and each descriptor is what serde_json writes for the object it spells.
    let all = std::sync::Arc::new(runtime_model::selection::Selection::everything(p));
    let joined_segment = |id: &Identity, locale: Locale| {
        let view = e.listings.view(id, &all, locale);
        let page = &view.legacy.tools[0];
        let parts: Vec<&[u8]> = page.parts().collect();
        assert_eq!(parts.len(), 3, "the joined text is sent as its own segment");
        let joined_at = parts[1].as_ptr() as usize;
        let texts = p.texts(locale).unwrap();
        let items: Vec<Value> = texts
            .tools
            .iter()
            .map(|t| serde_json::from_str(t.descriptor_json).unwrap())
            .collect();
        let expected = serde_json::to_vec(&json!({ "tools": items })).unwrap();
        assert_eq!(page.to_vec(), expected, "{locale:?}");
        joined_at
    };
    let en = joined_segment(&everyone, Locale::En);
    for locale in Locale::ALL {
        let first = joined_segment(&everyone, locale);
        // Another permission set that sees every tool shares the locale's joined text.
        let also_everyone = identity(&["all", "read"], &["*"]);
        let second = joined_segment(&also_everyone, locale);
        assert_eq!(first, second, "{locale:?}: joined once");
        assert_eq!(first == en, locale == Locale::En);
    }

    let with_schema = p
        .tools
        .iter()
        .filter(|t| t.output_schema_json.is_some())
        .count();
    assert!(with_schema > 0, "banking declares output schemas");
    let count = |v: &Value| {
        v["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t.get("outputSchema").is_some())
            .count()
    };
    let c = call(LEGACY, everyone.clone(), json!({}));
    let recent = ask(&e, &c, "tools/list", json!({})).await.unwrap();
    assert_eq!(count(&recent), with_schema);
    let old = call(Era::Legacy("2025-03-26"), everyone.clone(), json!({}));
    let old_list = ask(&e, &old, "tools/list", json!({})).await.unwrap();
    assert_eq!(count(&old_list), 0, "2025-03-26 predates outputSchema");
    assert_eq!(names(&old_list, "tools"), names(&recent, "tools"));

    // Someone who sees part of the catalog gets an assembled page of just those tools.
    let reader = identity(&["read", "charge.bank_billets"], &["bank_billets.read"]);
    let c = call(LEGACY, reader, json!({}));
    let some = names(
        &ask(&e, &c, "tools/list", json!({})).await.unwrap(),
        "tools",
    );
    assert!(!some.is_empty() && some.len() < p.tools.len());
}

/// A large JSON answer (a sandbox list page) is spliced into its reply: the same bytes as the
/// one-buffer reply, in every era with `structuredContent`, for an object or not, with the
/// backend's escaped text or without, and the backend's texts are segments of the reply as
/// they were given, not copies.
#[tokio::test]
async fn a_large_json_answer_is_spliced_byte_for_byte_without_copying_its_texts() {
    let (e, _) = engine_with(product("billing"), 50);
    let record =
        r#"{"id":"inv_1","note":"línea \"uno\"\n\ttab\u0001","amount":12.5,"tags":["a","b"]}"#;
    let joined = vec![record; 200].join(",");
    let texts = [format!("{{\"data\":[{joined}]}}"), format!("[{joined}]")];
    let eras = [Era::Modern, LEGACY, Era::Legacy("2025-06-18")];
    for text in &texts {
        assert!(
            text.len() >= 8 * 1024,
            "the texts are large enough to be spliced"
        );
        let is_object = text.starts_with('{');
        let escaped = {
            let quoted = serde_json::to_string(text.as_str()).unwrap();
            quoted[1..quoted.len() - 1].to_string()
        };
        for era in eras {
            let c = call(era, identity(&["all"], &["*"]), json!({}));
            let copied = match e.copied_json_reply(&c, text, None, is_object) {
                Reply::Raw(page) => page.to_vec(),
                _ => panic!("a JSON answer is raw bytes"),
            };
            // The reply is a JSON-RPC result, its text block the text and its structured
            // content the answer (wrapped in `result` when 2025 needs an object).
            let v: Value = serde_json::from_slice(&copied).unwrap();
            assert_eq!(v["content"][0]["text"], json!(text), "{era:?}");
            let answer: Value = serde_json::from_str(text).unwrap();
            let structured = if is_object || era.is_modern() {
                &v["structuredContent"]
            } else {
                &v["structuredContent"]["result"]
            };
            assert_eq!(structured, &answer, "{era:?}");
            for in_string in [None, Some(escaped.clone())] {
                let given_text = text.clone();
                let text_at = given_text.as_ptr();
                let escaped_at = in_string.as_ref().map(|s| s.as_ptr());
                let with_escaped = in_string.is_some();
                let page = match e.spliced_json_reply(&c, given_text, in_string, is_object) {
                    Reply::Raw(page) => page,
                    _ => panic!("a JSON answer is raw bytes"),
                };
                assert_eq!(
                    String::from_utf8(page.to_vec()).unwrap(),
                    String::from_utf8(copied.clone()).unwrap(),
                    "{era:?}, escaped text given: {with_escaped}"
                );
                let shared = |at: *const u8| page.parts().any(|s| s.as_ptr() == at);
                assert!(
                    shared(text_at),
                    "the answer's text is a segment, not a copy"
                );
                if let Some(at) = escaped_at {
                    assert!(shared(at), "the escaped text is a segment, not a copy");
                }
            }
        }
    }
    // A small answer stays one buffer, and so does every answer in 2025-03-26 (no structured
    // content: the text is written once).
    let c = call(LEGACY, identity(&["all"], &["*"]), json!({}));
    match e.json_reply(&c, record.to_string(), None, true) {
        Reply::Raw(page) => assert_eq!(page.parts().count(), 1),
        _ => panic!("a JSON answer is raw bytes"),
    }
    let c = call(
        Era::Legacy("2025-03-26"),
        identity(&["all"], &["*"]),
        json!({}),
    );
    match e.json_reply(&c, texts[0].clone(), None, true) {
        Reply::Raw(page) => assert_eq!(page.parts().count(), 1),
        _ => panic!("a JSON answer is raw bytes"),
    }
}

/// A billing engine with discovery on and per-identity limits of `reads` and `writes` a minute.
fn discovery_engine_limited(reads: u32, writes: u32) -> (Engine, Arc<Recorder>) {
    let p = product("billing");
    let rec = Arc::new(Recorder::default());
    let limits = crate::limits::RateLimits {
        reads,
        writes,
        ip: 0,
        window: std::time::Duration::from_secs(60),
    };
    let options = EngineOptions {
        rate_limiter: Some(Arc::new(crate::limits::RateLimiter::memory(limits))),
        ..EngineOptions::default()
    };
    let sealer = Arc::new(StateSealer::new(vec![("k1".into(), vec![7u8; 32])]).unwrap());
    let confirmer = Confirmer::new(sealer.clone(), Arc::new(MemoryLedger::new()));
    // Every tool listed, and the discovery tools beside them.
    let spec = runtime_model::selection::SelectionSpec {
        toolsets: Some(vec!["all".into(), "discovery".into()]),
        ..Default::default()
    };
    let ceiling = runtime_model::selection::Ceiling::new(p, &spec).unwrap();
    let e = Engine::new(
        p,
        rec.clone(),
        sealer,
        confirmer,
        crate::extensions::ALL,
        options,
    )
    .with_ceiling(ceiling);
    (e, rec)
}

/// The limit a request was refused by (`data.limit` of a -31029), if any.
async fn limited_by(e: &Engine, c: &Call, params: Value) -> Option<String> {
    match ask(e, c, "tools/call", params).await {
        Err(err) if err.code == -31029 => err
            .data
            .as_ref()
            .and_then(|d| d["limit"].as_str())
            .map(str::to_string),
        _ => None,
    }
}

/// Discovery is no way around the per-identity limits (issue 37): `call_tool` counts in the
/// class of the tool it calls, search and describe count as reads.
#[tokio::test]
async fn discovery_calls_count_against_the_rate_limit_of_what_they_reach() {
    let (e, rec) = discovery_engine_limited(3, 2);
    let c = call(LEGACY, identity(&["all"], &["*"]), json!({}));
    let create = json!({"name": "billing_customers_create",
                        "arguments": {"name": "Ana", "document": "12345678909", "email": "a@x.com"}});
    let through = json!({"name": "billing_call_tool", "arguments": create});
    // Two writes a minute: one direct, one through call_tool, and the third is refused either way.
    assert_eq!(limited_by(&e, &c, create.clone()).await, None);
    assert_eq!(limited_by(&e, &c, through.clone()).await, None);
    assert_eq!(limited_by(&e, &c, through).await.as_deref(), Some("writes"));
    assert_eq!(limited_by(&e, &c, create).await.as_deref(), Some("writes"));
    assert_eq!(rec.calls.lock().unwrap().len(), 2, "two writes ran");

    // Three reads a minute: a search, a describe and a read tool through call_tool.
    let search = json!({"name": "billing_search_tools", "arguments": {"query": "customer"}});
    let describe = json!({"name": "billing_describe_tools",
                          "arguments": {"names": ["billing_customers_get"]}});
    let read = json!({"name": "billing_call_tool",
                      "arguments": {"name": "billing_customers_get", "arguments": {"id": "cus_1"}}});
    assert_eq!(limited_by(&e, &c, search.clone()).await, None);
    assert_eq!(limited_by(&e, &c, describe.clone()).await, None);
    assert_eq!(limited_by(&e, &c, read.clone()).await, None);
    for over in [search, describe, read] {
        assert_eq!(limited_by(&e, &c, over).await.as_deref(), Some("reads"));
    }
}

/// A search query is a few words: one over [`super::discovery_tools::MAX_QUERY_BYTES`] is
/// refused, naming the limit, before it is ranked.
#[tokio::test]
async fn a_search_query_over_the_size_limit_is_refused_naming_it() {
    let (e, _) = discovery_engine_limited(0, 0);
    let c = call(LEGACY, identity(&["all"], &["*"]), json!({}));
    let max = super::discovery_tools::MAX_QUERY_BYTES;
    let search =
        |query: String| json!({"name": "billing_search_tools", "arguments": {"query": query}});
    let at_limit = format!("customer {}", "x".repeat(max - 9));
    let r = ask(&e, &c, "tools/call", search(at_limit)).await.unwrap();
    assert_eq!(r["isError"], Value::Null, "{r}");
    assert!(
        r["structuredContent"]["matches"].as_u64().unwrap() > 0,
        "{r}"
    );
    let r = ask(&e, &c, "tools/call", search("customer ".repeat(2 * max)))
        .await
        .unwrap();
    let error = &r["structuredContent"]["error"];
    assert_eq!(
        r["isError"], true,
        "ranked: {} matches",
        r["structuredContent"]["matches"]
    );
    assert_eq!(error["code"], "invalid_arguments", "{error}");
    assert!(
        error.to_string().contains(&max.to_string()),
        "the refusal names the limit: {error}"
    );
}

//! Exactly-once writes, end to end (issue 12, findings 1–3): an MCP client → the server in proxy
//! mode (`Upstream`) → `sandbox serve-api` with injected slowness, over real HTTP. Executions
//! are counted by listing the records on the API.

#[path = "confirmation_harness/mod.rs"]
mod harness;

use std::sync::Arc;
use std::time::Duration;

use harness::{start, yes, Client, Options, TestServer};
use runtime::auth::EmbeddedResolver;
use runtime::backend::{Upstream, UpstreamConfig};
use runtime::confirm::{Ledger, MemoryLedger};
use runtime_sandbox::api::{self, ApiState, Fault, Faults, IdentityLookup};
use runtime_sandbox::{Sandbox, SandboxConfig};
use serde_json::{json, Value};

/// The proxy's timeout per attempt; the injected slowness is longer.
const TIMEOUT_MS: u64 = 400;
const SLOW: Duration = Duration::from_millis(900);
/// The amount of the test's transfers (seeded ones never have it).
const AMOUNT: f64 = 1234.56;

struct Rig {
    api_base: String,
    faults: Faults,
    _api_dir: tempfile::TempDir,
}

/// `serve-api` over every generated product, resolving the same demo tokens as the MCP server.
async fn start_api() -> Rig {
    let dir = tempfile::tempdir().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let mut cfg = SandboxConfig::new(dir.path());
    cfg.public_url = base.clone();
    let sb = Sandbox::open(&cfg).unwrap();
    let resolver = Arc::new(EmbeddedResolver::builtin(generated::PRODUCTS).unwrap());
    let lookup: IdentityLookup = Arc::new(move |t: &str| resolver.lookup(t).cloned());
    let state = ApiState::new(sb, generated::PRODUCTS.to_vec(), lookup);
    let faults = state.faults.clone();
    tokio::spawn(async move { axum::serve(listener, api::router(state)).await });
    Rig {
        api_base: base,
        faults,
        _api_dir: dir,
    }
}

fn upstream(rig: &Rig) -> Arc<Upstream> {
    Arc::new(
        Upstream::new(UpstreamConfig {
            base_url: Some(format!("{}/{{product}}", rig.api_base)),
            timeout: Duration::from_millis(TIMEOUT_MS),
            backoff: Duration::from_millis(10),
            ..UpstreamConfig::default()
        })
        .unwrap(),
    )
}

/// An MCP server (instance) in proxy mode in front of the rig's API.
async fn instance(rig: &Rig, product: &str, ledger: Arc<dyn Ledger>) -> TestServer {
    start(Options {
        products: vec![generated::product(product).unwrap()],
        ledger: Some(ledger),
        backend: Some(upstream(rig)),
        ..Options::all_products()
    })
    .await
}

/// The records of a list answer, in either era (2025 wraps an array in `result`).
fn records(a: &harness::Answer) -> Vec<Value> {
    assert_ne!(a.result()["isError"], json!(true), "{}", a.body);
    let s = &a.result()["structuredContent"];
    for v in [s, &s["result"], &s["data"]] {
        if let Some(items) = v.as_array() {
            return items.clone();
        }
    }
    panic!("no records in {}", a.body)
}

/// How many records on the first page (newest first) have `amount`: the test's own writes.
async fn count(c: &Client, list_tool: &str, amount: f64) -> usize {
    let a = c
        .call_tool(list_tool, json!({"per_page": 50}), None, None)
        .await;
    records(&a)
        .iter()
        .filter(|r| r["amount"].as_f64() == Some(amount))
        .count()
}

async fn accounts(c: &Client) -> (String, String) {
    let a = c
        .call_tool(
            "finance_financial_accounts_list",
            json!({"per_page": 10}),
            None,
            None,
        )
        .await;
    let recs = records(&a);
    assert!(
        recs.len() >= 2,
        "two accounts to transfer between: {}",
        a.body
    );
    let id = |r: &Value| {
        r["uid"]
            .as_str()
            .or(r["id"].as_str())
            .unwrap_or_else(|| panic!("no id in {r}"))
            .to_string()
    };
    (id(&recs[0]), id(&recs[1]))
}

fn text_of(a: &harness::Answer) -> String {
    a.result()["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Finding 1, end to end: finance_transfers_create confirmed → the API is slower than the proxy's
/// timeout → "outcome unknown" (not a failure, no internal URL); the replayed `requestState` is
/// refused without telling the user to confirm again; a new confirmation of the same transfer
/// sends the same idempotency key, so the API answers the first transfer: one transfer in all.
#[tokio::test]
async fn a_confirmed_transfer_that_timed_out_runs_once_even_when_confirmed_again() {
    let rig = start_api().await;
    let s = instance(&rig, "finance", Arc::new(MemoryLedger::new())).await;
    let c = s.client("finance", "demo-full");
    let (from, to) = accounts(&c).await;
    let transfer = json!({"from_account_id": from, "to_account_id": to, "amount": AMOUNT,
                          "description": "exactly once"});
    let before = count(&c, "finance_transfers_list", AMOUNT).await;

    let q = c
        .call_tool("finance_transfers_create", transfer.clone(), None, None)
        .await;
    assert!(q.is_input_required(), "{}", q.body);
    let state = q.request_state();
    rig.faults.push(Fault::Timeout(SLOW));
    let first = c
        .call_tool(
            "finance_transfers_create",
            transfer.clone(),
            Some(&state),
            Some(yes()),
        )
        .await;
    assert_eq!(
        first.tool_error_code().as_deref(),
        Some("outcome_unknown"),
        "{}",
        first.body
    );
    let text = text_of(&first);
    assert!(!text.contains("127.0.0.1"), "no internal URL: {text}");
    assert!(
        text.contains("finance_transfers_list"),
        "says what to check: {text}"
    );
    tokio::time::sleep(SLOW).await;
    assert_eq!(
        count(&c, "finance_transfers_list", AMOUNT).await,
        before + 1
    );

    // The replay of the same requestState: refused, saying the outcome is unknown.
    let replay = c
        .call_tool(
            "finance_transfers_create",
            transfer.clone(),
            Some(&state),
            Some(yes()),
        )
        .await;
    assert_eq!(
        replay.tool_error_code().as_deref(),
        Some("confirmation_replayed"),
        "{}",
        replay.body
    );
    let text = text_of(&replay);
    // Said in finance's language (the request names none): the outcome is unknown, it may have run.
    let finance = generated::product("finance").unwrap();
    let unknown = runtime::confirm::form::replay_outcome("unknown", finance.default_locale);
    assert!(text.contains(unknown), "{text}");
    assert!(!text.to_lowercase().contains("confirm again"), "{text}");

    // Calling again and confirming again anyway: the same key goes upstream; no second transfer.
    let q = c
        .call_tool("finance_transfers_create", transfer.clone(), None, None)
        .await;
    let again = c
        .call_tool(
            "finance_transfers_create",
            transfer.clone(),
            Some(&q.request_state()),
            Some(yes()),
        )
        .await;
    assert_eq!(again.tool_error_code(), None, "{}", again.body);
    assert_eq!(
        count(&c, "finance_transfers_list", AMOUNT).await,
        before + 1,
        "one transfer"
    );

    // Now the outcome is known: a deliberate second transfer is a new call, and runs.
    let q = c
        .call_tool("finance_transfers_create", transfer.clone(), None, None)
        .await;
    let second = c
        .call_tool(
            "finance_transfers_create",
            transfer,
            Some(&q.request_state()),
            Some(yes()),
        )
        .await;
    assert_eq!(second.tool_error_code(), None, "{}", second.body);
    assert_eq!(
        count(&c, "finance_transfers_list", AMOUNT).await,
        before + 2
    );
}

/// Finding 3: the same payment made twice on purpose (2025 client, `run` product) is two
/// payments: the key of a call with a known outcome is not reused.
#[tokio::test]
async fn a_deliberate_repeat_after_a_known_outcome_runs_again() {
    let rig = start_api().await;
    let s = instance(&rig, "billing", Arc::new(MemoryLedger::new())).await;
    let c = s.client("billing", "demo-full").legacy("2025-11-25");
    let invoices = c
        .call_tool("billing_invoices_list", json!({"per_page": 1}), None, None)
        .await;
    let invoice = records(&invoices)[0].clone();
    let invoice_id = invoice["uid"]
        .as_str()
        .or(invoice["id"].as_str())
        .unwrap_or_else(|| panic!("no id in {invoice}"))
        .to_string();
    let pay = json!({"invoice_id": invoice_id, "amount": 10.25, "method": "pix"});
    let before = count(&c, "billing_payments_list", 10.25).await;
    let one = c
        .call_tool("billing_payments_create", pay.clone(), None, None)
        .await;
    assert_eq!(one.tool_error_code(), None, "{}", one.body);
    let two = c
        .call_tool("billing_payments_create", pay, None, None)
        .await;
    assert_eq!(two.tool_error_code(), None, "{}", two.body);
    assert_ne!(
        structured(&one)["id"],
        structured(&two)["id"],
        "two payments, not the first replayed"
    );
    assert_eq!(count(&c, "billing_payments_list", 10.25).await, before + 2);
}

/// The record a tool answered (structured content, unwrapped from `data`).
fn structured(a: &harness::Answer) -> Value {
    let s = a.result()["structuredContent"].clone();
    match s.get("data") {
        Some(d) if d.is_object() => d.clone(),
        _ => s,
    }
}

/// Finding 4 (the key's part): a confirmation replayed on another instance whose ledger lost
/// everything still cannot run twice upstream: it sends the key of its first run.
#[tokio::test]
async fn a_replay_after_ledger_loss_does_not_run_twice_upstream() {
    let rig = start_api().await;
    let a = instance(&rig, "finance", Arc::new(MemoryLedger::new())).await;
    // Instance B shares the sealing keys, but its ledger is empty: the records were lost.
    let b = instance(&rig, "finance", Arc::new(MemoryLedger::new())).await;
    let ca = a.client("finance", "demo-full");
    let cb = b.client("finance", "demo-full");
    let (from, to) = accounts(&ca).await;
    let transfer = json!({"from_account_id": from, "to_account_id": to, "amount": 77.7});
    let before = count(&ca, "finance_transfers_list", 77.7).await;
    let q = ca
        .call_tool("finance_transfers_create", transfer.clone(), None, None)
        .await;
    let state = q.request_state();
    let ran = ca
        .call_tool(
            "finance_transfers_create",
            transfer.clone(),
            Some(&state),
            Some(yes()),
        )
        .await;
    assert_eq!(ran.tool_error_code(), None, "{}", ran.body);
    let replay = cb
        .call_tool(
            "finance_transfers_create",
            transfer,
            Some(&state),
            Some(yes()),
        )
        .await;
    assert_eq!(
        replay.tool_error_code(),
        None,
        "the API answers the first result: {}",
        replay.body
    );
    assert_eq!(structured(&ran), structured(&replay), "the same transfer");
    assert!(!structured(&ran).is_null());
    assert_eq!(count(&ca, "finance_transfers_list", 77.7).await, before + 1);

    // The same with a DELETE (every write carries a key, not only POSTs): the replay on B is
    // answered with the first result, not run again (which would answer not_found).
    let categories = ca
        .call_tool(
            "finance_categories_list",
            json!({"per_page": 1}),
            None,
            None,
        )
        .await;
    let category = records(&categories)[0].clone();
    let id = category["uid"]
        .as_str()
        .or(category["id"].as_str())
        .unwrap_or_else(|| panic!("no id in {category}"))
        .to_string();
    let delete = json!({"id": id});
    let q = ca
        .call_tool("finance_categories_delete", delete.clone(), None, None)
        .await;
    let state = q.request_state();
    let ran = ca
        .call_tool(
            "finance_categories_delete",
            delete.clone(),
            Some(&state),
            Some(yes()),
        )
        .await;
    assert_eq!(ran.tool_error_code(), None, "{}", ran.body);
    let replay = cb
        .call_tool(
            "finance_categories_delete",
            delete,
            Some(&state),
            Some(yes()),
        )
        .await;
    assert_eq!(
        replay.tool_error_code(),
        None,
        "answered the first result, not run again: {}",
        replay.body
    );
}

/// Finding 9: with the API unreachable, banking's `resources/list` (which lists recent records
/// upstream) is an error, never a complete-looking list without them; and tool errors name the
/// product, never the internal upstream URL.
#[tokio::test]
async fn a_failed_upstream_listing_is_an_error_and_errors_hide_the_upstream_url() {
    let down = Arc::new(
        Upstream::new(UpstreamConfig {
            base_url: Some("http://127.0.0.1:1/internal-gateway/{product}".into()),
            timeout: Duration::from_millis(TIMEOUT_MS),
            backoff: Duration::from_millis(1),
            max_attempts: 1,
            ..UpstreamConfig::default()
        })
        .unwrap(),
    );
    let s = start(Options {
        products: vec![generated::product("banking").unwrap()],
        backend: Some(down),
        ..Options::all_products()
    })
    .await;
    let c = s.client("banking", "demo-full");
    let listed = c.request("resources/list", json!({})).await;
    let err = listed.error();
    let message = err["message"].as_str().unwrap_or_default();
    assert!(message.contains("could not list"), "{}", listed.body);
    assert!(!message.contains("127.0.0.1"), "{message}");

    let read = c
        .call_tool("banking_charge_bank_billet_list", json!({}), None, None)
        .await;
    assert_eq!(read.tool_error_code().as_deref(), Some("upstream_error"));
    let text = read.body.to_string();
    assert!(
        !text.contains("127.0.0.1") && !text.contains("internal-gateway"),
        "{text}"
    );
    assert!(text.contains("the Kobana API (banking)"), "{text}");
}

/// The embedded sandbox honours the idempotency key as the API does (issue 37, item 4): a write
/// with a key runs once, and the same key answers its first answer again, marked replayed, also
/// from a new process over the same data directory (the server's ledger that knew the key is
/// gone: a flushed Redis, a restart with a memory ledger). The key used by another tool is
/// refused; a write without a key runs each time.
#[tokio::test]
async fn the_embedded_sandbox_runs_a_write_with_a_key_once_across_restarts() {
    use runtime_model::backend::{Backend, BackendError, Output};
    let dir = tempfile::tempdir().unwrap();
    let billing = generated::product("billing").expect("billing");
    let create = billing.tool("billing_customers_create").expect("create");
    let mut ctx = test_support::calls::admin(billing, runtime_sandbox::DEMO_ORGANIZATION);
    ctx.idempotency_key = Some("key-of-one-write".into());
    let args = json!({"name": "Once Only", "email": "once@example.com", "document": "52998224725"});
    let args = args.as_object().unwrap();
    let count = |sb: &Sandbox| {
        let sb = sb.clone();
        async move {
            let list = billing.tool("billing_customers_list").unwrap();
            let none = serde_json::Map::new();
            let mut plain = test_support::calls::admin(billing, runtime_sandbox::DEMO_ORGANIZATION);
            plain.idempotency_key = None;
            match sb.call(&plain, list, &none).await {
                Ok(Output::Json(v)) => v.to_string().matches("Once Only").count(),
                other => panic!("{other:?}"),
            }
        }
    };
    let first = {
        let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
        let Ok(Output::Json(first)) = sb.call(&ctx, create, args).await else {
            panic!("the first write runs")
        };
        first
    };
    let sb = Sandbox::open(&SandboxConfig::new(dir.path())).unwrap();
    match sb.call(&ctx, create, args).await {
        Ok(Output::Replayed(again)) => {
            assert!(
                matches!(*again, Output::Json(ref v) if *v == first),
                "{again:?}"
            )
        }
        other => panic!("the same key answers the first answer, replayed: {other:?}"),
    }
    assert_eq!(count(&sb).await, 1, "the replay ran nothing");
    let other = billing.tool("billing_customers_delete").expect("delete");
    let id = json!({"id": first["id"]});
    assert!(matches!(
        sb.call(&ctx, other, id.as_object().unwrap()).await,
        Err(BackendError::Invalid(m)) if m.contains("billing_customers_create")
    ));
    ctx.idempotency_key = None;
    sb.call(&ctx, create, args).await.expect("runs");
    assert_eq!(count(&sb).await, 2, "without a key, a write runs each time");
}

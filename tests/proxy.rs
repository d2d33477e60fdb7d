//! The upstream proxy backend against `sandbox serve-api` on loopback, faults included.

use std::sync::Arc;
use std::time::{Duration, Instant};

use runtime::backend::{Upstream, UpstreamConfig};
use runtime_model::backend::{Backend, BackendError, CallContext, Output};
use runtime_model::catalog::Product;
use runtime_sandbox::api::{self, ApiState, Fault, Faults, IdentityLookup};
use runtime_sandbox::{Sandbox, SandboxConfig};
use serde_json::{json, Map, Value};
use test_support::demo;

struct Api {
    base: String,
    faults: Faults,
    _dir: tempfile::TempDir,
}

async fn start_api(identities: IdentityLookup) -> Api {
    let dir = tempfile::tempdir().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let mut cfg = SandboxConfig::new(dir.path());
    cfg.public_url = base.clone();
    let sb = Sandbox::open(&cfg).unwrap();
    let state = ApiState::new(sb, demo::PRODUCTS.to_vec(), identities);
    let faults = state.faults.clone();
    tokio::spawn(async move { axum::serve(listener, api::router(state)).await });
    Api {
        base,
        faults,
        _dir: dir,
    }
}

fn proxy(api: &Api) -> Upstream {
    Upstream::new(UpstreamConfig {
        base_url: Some(format!("{}/{{product}}", api.base)),
        timeout: Duration::from_millis(400),
        backoff: Duration::from_millis(10),
        max_retry_after: Duration::from_secs(2),
        ..UpstreamConfig::default()
    })
    .unwrap()
}

fn ctx(product: &'static Product, token: &str) -> CallContext {
    CallContext {
        product,
        identity: api::demo_identity().into(),
        bearer_token: Some(token.into()),
        workspace: None,
        idempotency_key: None,
        locale: runtime_model::locale::Locale::En,
        progress: Default::default(),
        attempts: Default::default(),
    }
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

async fn call(
    up: &Upstream,
    c: &CallContext,
    tool: &str,
    a: Value,
) -> Result<Output, BackendError> {
    up.call(c, c.product.tool(tool).unwrap(), &args(a)).await
}

async fn json_of(up: &Upstream, c: &CallContext, tool: &str, a: Value) -> Value {
    match call(up, c, tool, a).await {
        Ok(Output::Json(v)) => v,
        other => panic!("{tool}: {other:?}"),
    }
}

/// The answer of a write the API replayed for its key (`Idempotent-Replayed: true`): the
/// backend marks it, so the caller is told nothing new ran.
async fn replayed_json_of(up: &Upstream, c: &CallContext, tool: &str, a: Value) -> Value {
    match call(up, c, tool, a).await {
        Ok(Output::Replayed(inner)) => match *inner {
            Output::Json(v) => v,
            other => panic!("{tool}: replayed {other:?}"),
        },
        other => panic!("{tool}: expected a replayed answer, got {other:?}"),
    }
}

async fn billet_count(up: &Upstream, c: &CallContext) -> usize {
    json_of(up, c, "demo_bank_billets_list", json!({"per_page": 50}))
        .await
        .as_array()
        .unwrap()
        .len()
}

#[tokio::test]
async fn happy_path_list_get_create_action_and_files() {
    let api = start_api(api::any_token()).await;
    let up = proxy(&api);
    let c = ctx(&demo::PRODUCT, "t");
    let list = json_of(
        &up,
        &c,
        "demo_bank_billets_list",
        json!({"per_page": 5, "status": "opened"}),
    )
    .await;
    let items = list.as_array().expect("v1 bare array");
    assert!(!items.is_empty() && items.len() <= 5);
    assert!(items.iter().all(|b| b["status"] == "opened"));
    let uid = items[0]["uid"].as_str().unwrap();
    let one = json_of(&up, &c, "demo_bank_billet_get", json!({"id": uid})).await;
    assert_eq!(one, items[0]);

    let v2 = json_of(&up, &c, "demo_customers_list", json!({"per_page": 3})).await;
    assert_eq!(v2["status"], 200);
    assert_eq!(v2["data"].as_array().unwrap().len(), 3);

    let created = json_of(
        &up,
        &c,
        "demo_bank_billet_create",
        json!({"amount": 42.5, "expire_at": "2031-01-01"}),
    )
    .await;
    assert_eq!(created["amount"], 42.5, "wrapped body reached the API");
    assert_eq!(created["status"], "opened");
    let paid = json_of(
        &up,
        &c,
        "demo_bank_billet_pay",
        json!({"id": created["uid"], "paid_amount": 42.5}),
    )
    .await;
    assert_eq!(paid["status"], "paid");
    assert_eq!(paid["bank_billet_payments"]["paid_amount"], 42.5);

    match call(&up, &c, "demo_bank_billet_pdf", json!({"id": uid}))
        .await
        .unwrap()
    {
        Output::Bytes { mime_type, data } => {
            assert_eq!(mime_type, "application/pdf");
            assert!(data.starts_with(b"%PDF"));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn not_found_and_state_conflicts_carry_the_api_message() {
    let api = start_api(api::any_token()).await;
    let up = proxy(&api);
    let c = ctx(&demo::PRODUCT, "t");
    let err = call(&up, &c, "demo_bank_billet_get", json!({"id": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        BackendError::NotFound("not found: bank_billets `nope`".into())
    );
    let paid =
        json_of(&up, &c, "demo_bank_billets_list", json!({"status": "paid"})).await[0].clone();
    let err = call(
        &up,
        &c,
        "demo_bank_billet_cancel",
        json!({"id": paid["uid"]}),
    )
    .await
    .unwrap_err();
    match err {
        BackendError::Upstream { status, message } => {
            assert_eq!(status, 409);
            assert!(
                message.contains("allowed only when status is `opened`, `overdue`"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn the_bearer_token_is_forwarded() {
    let only_good: IdentityLookup = Arc::new(|t: &str| (t == "good").then(api::demo_identity));
    let api = start_api(only_good).await;
    let up = proxy(&api);
    assert!(call(
        &up,
        &ctx(&demo::PRODUCT, "good"),
        "demo_bank_billets_list",
        json!({})
    )
    .await
    .is_ok());
    let err = call(
        &up,
        &ctx(&demo::PRODUCT, "bad"),
        "demo_bank_billets_list",
        json!({}),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(err, BackendError::Upstream { status: 401, ref message } if message.contains("invalid bearer")),
        "{err:?}"
    );
}

#[tokio::test]
async fn timeouts_are_retried_for_reads_and_reported() {
    let api = start_api(api::any_token()).await;
    let up = proxy(&api);
    let c = ctx(&demo::PRODUCT, "t");
    // One slow answer, then a normal one: the GET is retried and succeeds.
    api.faults.push(Fault::Timeout(Duration::from_secs(2)));
    assert!(call(&up, &c, "demo_bank_billets_list", json!({}))
        .await
        .is_ok());
    // Slow every time: bounded attempts, then a clear error.
    for _ in 0..3 {
        api.faults.push(Fault::Timeout(Duration::from_secs(2)));
    }
    let started = Instant::now();
    let err = call(&up, &c, "demo_bank_billets_list", json!({}))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        BackendError::Unavailable("the Kobana API (demo) did not answer within 400 ms".into())
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "3 bounded attempts"
    );
}

fn keyed(c: &CallContext, key: &str) -> CallContext {
    let mut c = c.clone();
    c.idempotency_key = Some(key.into());
    c
}

/// Finding 1: a write that timed out after it was sent is an unknown outcome (never a failure),
/// sent once; re-sending it with the same key is answered with the first result.
#[tokio::test]
async fn a_post_that_timed_out_is_an_unknown_outcome_and_its_key_replays_it() {
    let api = start_api(api::any_token()).await;
    let up = proxy(&api);
    let c = keyed(&ctx(&demo::PRODUCT, "t"), "call-1");
    let before = billet_count(&up, &c).await;
    // The API runs the create but answers too late.
    api.faults.push(Fault::Timeout(Duration::from_millis(700)));
    let a = json!({"amount": 77.0, "description": "retry me"});
    let err = call(&up, &c, "demo_bank_billet_create", a.clone())
        .await
        .unwrap_err();
    match &err {
        BackendError::OutcomeUnknown(m) => {
            assert!(m.contains("did not answer within 400 ms"), "{m}");
            assert!(!m.contains("127.0.0.1"), "no internal URL: {m}");
        }
        other => panic!("{other:?}"),
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(billet_count(&up, &c).await, before + 1, "ran once upstream");
    // The re-run carries the same key: the API replays its answer, marked as such.
    let again = replayed_json_of(&up, &c, "demo_bank_billet_create", a.clone()).await;
    assert_eq!(again["description"], "retry me");
    assert_eq!(billet_count(&up, &c).await, before + 1, "not run twice");
    // A new key is a new call.
    let c2 = keyed(&c, "call-2");
    json_of(&up, &c2, "demo_bank_billet_create", a).await;
    assert_eq!(billet_count(&up, &c).await, before + 2);
}

/// A connection that breaks after the API ran the write (`reset` fault) is an unknown outcome,
/// never a failure; the write ran once, and its key replays it without running it again.
#[tokio::test]
async fn a_post_whose_answer_breaks_off_is_an_unknown_outcome() {
    let api = start_api(api::any_token()).await;
    let up = proxy(&api);
    let c = keyed(&ctx(&demo::PRODUCT, "t"), "reset-1");
    let before = billet_count(&up, &c).await;
    api.faults.push(Fault::Reset);
    let a = json!({"amount": 78.0, "description": "cut off"});
    let err = call(&up, &c, "demo_bank_billet_create", a.clone())
        .await
        .unwrap_err();
    assert!(matches!(err, BackendError::OutcomeUnknown(_)), "{err:?}");
    assert_eq!(billet_count(&up, &c).await, before + 1, "ran once upstream");
    let again = replayed_json_of(&up, &c, "demo_bank_billet_create", a).await;
    assert_eq!(again["description"], "cut off");
    assert_eq!(billet_count(&up, &c).await, before + 1, "not run twice");
}

/// Finding 2 (item 2): `serve-api` honours the key as the Kobana API does: the same key with the
/// same request replays the first answer; with another request it is refused, naming the key.
#[tokio::test]
async fn the_same_key_with_another_request_is_refused() {
    let api = start_api(api::any_token()).await;
    let up = proxy(&api);
    let c = keyed(&ctx(&demo::PRODUCT, "t"), "confirmed-call-1");
    let first = json_of(&up, &c, "demo_bank_billet_create", json!({"amount": 1.0})).await;
    let replay = replayed_json_of(&up, &c, "demo_bank_billet_create", json!({"amount": 1.0})).await;
    assert_eq!(first, replay, "same key, same request: the first answer");
    let err = call(&up, &c, "demo_bank_billet_create", json!({"amount": 2.0}))
        .await
        .unwrap_err();
    match err {
        BackendError::Upstream { status, message } => {
            assert_eq!(status, 422);
            assert!(message.contains("Idempotency-Key"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

/// Finding 2: a write is not retried on its own (a PUT either): a slow answer is an unknown
/// outcome, and the record shows it ran once.
#[tokio::test]
async fn a_slow_write_with_an_idempotent_method_is_not_retried() {
    let api = start_api(api::any_token()).await;
    let up = proxy(&api);
    let c = ctx(&demo::PRODUCT, "t");
    let billet = json_of(&up, &c, "demo_bank_billet_create", json!({"amount": 9.0})).await;
    api.faults.push(Fault::Timeout(Duration::from_millis(700)));
    let err = call(
        &up,
        &c,
        "demo_bank_billet_cancel",
        json!({"id": billet["uid"]}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, BackendError::OutcomeUnknown(_)), "{err:?}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let now = json_of(
        &up,
        &c,
        "demo_bank_billet_get",
        json!({"id": billet["uid"]}),
    )
    .await;
    assert_eq!(now["status"], "canceled");
}

/// Finding 2: when our own retry of a keyed write answers 409, the first attempt most likely
/// ran: the outcome is unknown, never "failed".
#[tokio::test]
async fn a_conflict_after_our_own_retry_is_an_unknown_outcome() {
    let api = start_api(api::any_token()).await;
    let mut config = UpstreamConfig {
        base_url: Some(format!("{}/{{product}}", api.base)),
        timeout: Duration::from_millis(400),
        backoff: Duration::from_millis(10),
        ..UpstreamConfig::default()
    };
    config.retry_keyed_writes = true;
    let up = Upstream::new(config).unwrap();
    let c = ctx(&demo::PRODUCT, "t");
    let billet = json_of(&up, &c, "demo_bank_billet_create", json!({"amount": 9.0})).await;
    // Already canceled (by a first attempt whose answer was lost): the retry answers 409.
    json_of(
        &up,
        &c,
        "demo_bank_billet_cancel",
        json!({"id": billet["uid"]}),
    )
    .await;
    api.faults.push(Fault::Status(503, None));
    let err = call(
        &up,
        &keyed(&c, "cancel-1"),
        "demo_bank_billet_cancel",
        json!({"id": billet["uid"]}),
    )
    .await
    .unwrap_err();
    match err {
        BackendError::OutcomeUnknown(m) => assert!(m.contains("409"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn server_errors_are_retried_only_for_reads() {
    let api = start_api(api::any_token()).await;
    let up = proxy(&api);
    let c = ctx(&demo::PRODUCT, "t");
    api.faults.push(Fault::Status(500, None));
    assert!(
        call(&up, &c, "demo_bank_billets_list", json!({}))
            .await
            .is_ok(),
        "GET retried after a 500"
    );
    for _ in 0..3 {
        api.faults.push(Fault::Status(500, None));
    }
    let err = call(&up, &c, "demo_bank_billets_list", json!({}))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        BackendError::Upstream {
            status: 500,
            message: "injected fault: HTTP 500".into()
        }
    );
    // A write: one 500 is an unknown outcome, and the queued fault is consumed by one request only.
    api.faults.push(Fault::Status(500, None));
    api.faults.push(Fault::Status(503, None));
    let err = call(&up, &c, "demo_bank_billet_create", json!({"amount": 5}))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, BackendError::OutcomeUnknown(m) if m.contains("HTTP 500")),
        "{err:?}"
    );
    api.faults.clear();
}

/// Finding 9: errors name the product, never the upstream URL.
#[tokio::test]
async fn errors_never_show_the_upstream_url() {
    let up = Upstream::new(UpstreamConfig {
        base_url: Some("http://127.0.0.1:1/internal-gateway/{product}".into()),
        timeout: Duration::from_millis(400),
        backoff: Duration::from_millis(1),
        ..UpstreamConfig::default()
    })
    .unwrap();
    let c = ctx(&demo::PRODUCT, "t");
    for tool in ["demo_bank_billets_list", "demo_bank_billet_create"] {
        let err = call(&up, &c, tool, json!({"amount": 1})).await.unwrap_err();
        let text = err.to_string();
        assert!(
            !text.contains("127.0.0.1") && !text.contains("internal-gateway"),
            "{tool}: {text}"
        );
        assert!(text.contains("the Kobana API (demo)"), "{tool}: {text}");
        // Not connected: nothing was sent, so even a write is a plain (known) failure.
        assert!(
            matches!(err, BackendError::Unavailable(_)),
            "{tool}: {err:?}"
        );
    }
}

#[tokio::test]
async fn too_many_requests_honours_retry_after() {
    let api = start_api(api::any_token()).await;
    let up = proxy(&api);
    let c = ctx(&demo::PRODUCT, "t");
    api.faults.push(Fault::Status(429, Some(1)));
    let started = Instant::now();
    assert!(call(&up, &c, "demo_bank_billets_list", json!({}))
        .await
        .is_ok());
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "waited for Retry-After: {:?}",
        started.elapsed()
    );
    // A Retry-After longer than the configured maximum ends the retries at once.
    api.faults.push(Fault::Status(429, Some(60)));
    let started = Instant::now();
    let err = call(&up, &c, "demo_bank_billets_list", json!({}))
        .await
        .unwrap_err();
    assert!(
        matches!(err, BackendError::Upstream { status: 429, .. }),
        "{err:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn truncated_and_malformed_bodies_are_clear_errors() {
    let api = start_api(api::any_token()).await;
    let up = proxy(&api);
    let c = ctx(&demo::PRODUCT, "t");
    for fault in [Fault::Truncate, Fault::Malformed] {
        api.faults.push(fault.clone());
        let err = call(&up, &c, "demo_bank_billets_list", json!({}))
            .await
            .unwrap_err();
        match err {
            BackendError::Unavailable(m) => {
                assert!(
                    m.contains("malformed JSON") && m.contains("(HTTP 200)"),
                    "{fault:?}: {m}"
                )
            }
            other => panic!("{fault:?}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn workspaces_reach_the_api_and_signed_links_download() {
    let api = start_api(api::any_token()).await;
    let up = proxy(&api);
    let mut c = ctx(&demo::INBOX, "t");
    c.workspace = Some("ws_x".into());
    let list = json_of(&up, &c, "demo_inbox_emails_list", json!({})).await;
    let email = list["data"][0].clone();
    assert_eq!(email["workspace_id"], "ws_x");
    let link = json_of(&up, &c, "demo_inbox_email_eml", json!({"id": email["id"]})).await;
    let url = link["url"].as_str().unwrap();
    assert!(url.starts_with(&api.base));
    let resp = reqwest::get(url).await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "message/rfc822");
    let eml = resp.text().await.unwrap();
    assert!(
        eml.contains(&format!("Subject: {}", email["subject"].as_str().unwrap())),
        "{eml}"
    );
    let tampered = url.replace("&sig=", "&sig=00");
    assert_eq!(reqwest::get(&tampered).await.unwrap().status(), 403);
}

/// Finding 9: `serve-api` refuses records that reference unknown ids, or ids of another
/// organization, naming the field; a reference of the caller's own organization is accepted.
#[tokio::test]
async fn records_referencing_unknown_or_foreign_ids_are_refused() {
    let two_orgs: IdentityLookup = Arc::new(|t: &str| {
        let mut id = api::demo_identity();
        if t == "other" {
            id.person = "person_other".into();
            id.organization = "org_other".into();
        }
        Some(id)
    });
    let api = start_api(two_orgs).await;
    let up = proxy(&api);
    let mine = ctx(&demo::PRODUCT, "t");
    let theirs = ctx(&demo::PRODUCT, "other");
    let customers = json_of(&up, &mine, "demo_customers_list", json!({"per_page": 1})).await;
    let customer = customers["data"][0]["uid"]
        .as_str()
        .or(customers["data"][0]["id"].as_str())
        .expect("a seeded customer")
        .to_string();
    let ok = json_of(
        &up,
        &mine,
        "demo_bank_billet_create",
        json!({"amount": 3.0, "customer_id": customer}),
    )
    .await;
    assert_eq!(ok["customer_id"], json!(customer));
    for (c, id) in [(&mine, "no-such-customer"), (&theirs, customer.as_str())] {
        let err = call(
            &up,
            c,
            "demo_bank_billet_create",
            json!({"amount": 3.0, "customer_id": id}),
        )
        .await
        .unwrap_err();
        match err {
            BackendError::Upstream { status, message } => {
                assert_eq!(status, 422, "{message}");
                assert!(
                    message.contains("`customer_id`") && message.contains(id),
                    "{message}"
                );
            }
            other => panic!("{id}: {other:?}"),
        }
    }
}

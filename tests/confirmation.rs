//! Server-side confirmation of destructive tools, through the real protocol (JSON-RPC over
//! Streamable HTTP), for every product and the policy its document gives it (issue 4).
//!
//! Each test runs against every real product. The records a destructive tool would change are read
//! back through the product's own get tool, so "nothing runs" and "runs once" are observed, not
//! assumed.

#[path = "confirmation_harness/mod.rs"]
mod harness;
#[path = "support/skip.rs"]
mod skip;

use harness::{delete_target, exists, start, yes, Client, Options, TestServer};
use runtime::catalog::{Product, ReplayPolicy, UnconfirmableDestructive};
use runtime::errors;
use runtime::state::StateSealer;
use serde_json::json;

/// What each product document says (banking, billing: run + ask again; the others refuse).
fn documented_policy(product: &str) -> (UnconfirmableDestructive, &'static str, ReplayPolicy) {
    use ReplayPolicy::AskAgain;
    use UnconfirmableDestructive::Run;
    match product {
        "banking" => (Run, "user_declined", AskAgain),
        "billing" => (Run, "USER_DECLINED", AskAgain),
        "finance" => (
            UnconfirmableDestructive::Refuse,
            "USER_DECLINED",
            ReplayPolicy::Refuse,
        ),
        "dashboards" => (
            UnconfirmableDestructive::Refuse,
            "USER_DECLINED",
            ReplayPolicy::Refuse,
        ),
        "inbox" => (
            UnconfirmableDestructive::Refuse,
            "user_declined",
            ReplayPolicy::Refuse,
        ),
        other => panic!("no documented policy for {other}"),
    }
}

fn products() -> Vec<&'static Product> {
    let p = generated::PRODUCTS.to_vec();
    assert_eq!(p.len(), 5, "the five products are generated");
    p
}

/// Which confirmation ledger the server under test uses: every rule is checked against both.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Memory,
    Redis,
}

fn options(kind: Kind) -> Options {
    let mut o = Options::all_products();
    if let Kind::Redis = kind {
        let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
        o.ledger = Some(std::sync::Arc::new(
            runtime::confirm::RedisLedger::new(&url).expect("a valid REDIS_URL"),
        ));
    }
    o
}

async fn server(kind: Kind) -> TestServer {
    if let Kind::Redis = kind {
        let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
        if let Err(e) = runtime::confirm::RedisLedger::new(&url)
            .unwrap()
            .check()
            .await
        {
            panic!("these tests need Redis at {url} ({e}); start it with `redis-server --port 6379 --daemonize yes`");
        }
    }
    start(options(kind)).await
}

/// Runs one rule against both ledgers.
macro_rules! both_ledgers {
    ($($name:ident),* $(,)?) => {
        mod memory_ledger {
            $(#[tokio::test]
            async fn $name() {
                super::$name(super::Kind::Memory).await
            })*
        }
        mod redis_ledger {
            $(#[tokio::test]
            async fn $name() {
                // Needs Redis at REDIS_URL: fails without it unless KOBANA_TEST_SKIP=redis.
                if super::skip::opted_out("redis", stringify!($name), "needs Redis (REDIS_URL)") {
                    return;
                }
                super::$name(super::Kind::Redis).await
            })*
        }
    };
}

both_ledgers!(
    the_first_call_asks_a_yes_no_question_and_runs_nothing,
    an_explicit_yes_runs_the_tool_once_and_a_replay_follows_the_policy,
    a_first_call_that_brings_its_own_yes_is_asked_anyway,
    decline_cancel_and_no_change_nothing_and_use_the_products_code,
    tampered_expired_and_foreign_states_get_the_question_again,
    a_confirmation_moved_to_other_arguments_is_asked_again,
    a_confirmation_moved_to_another_person_or_organization_is_asked_again,
    workspaced_products_bind_the_confirmation_to_the_workspace,
    clients_that_cannot_confirm_follow_the_policy_and_other_tools_keep_working,
    answers_without_the_confirm_key_are_asked_again,
);

#[test]
fn catalog_policies_match_the_product_documents() {
    for p in products() {
        let (unconfirmable, decline, replay) = documented_policy(p.name);
        assert_eq!(
            p.policy.unconfirmable_destructive, unconfirmable,
            "{}",
            p.name
        );
        assert_eq!(p.policy.decline_code, decline, "{}", p.name);
        assert_eq!(p.policy.replay, replay, "{}", p.name);
        assert_eq!(p.policy.confirmation_ttl_secs, 300, "{}", p.name);
        let b = p.policy.confirmation_binds;
        assert!(b.person && b.organization, "{}", p.name);
        assert_eq!(
            b.workspace,
            matches!(p.name, "finance" | "inbox"),
            "{}",
            p.name
        );
    }
}

async fn the_first_call_asks_a_yes_no_question_and_runs_nothing(kind: Kind) {
    let s = server(kind).await;
    for p in products() {
        let c = s.client(p.name, "demo-full");
        let t = delete_target(&c, p, 1).await;
        let a = c.call_tool(t.delete_tool, t.args(0), None, None).await;
        assert!(a.is_input_required(), "{}: {}", p.name, a.body);
        let q = a.result()["inputRequests"]["confirm"].clone();
        assert_eq!(q["method"], "elicitation/create");
        assert_eq!(q["params"]["mode"], "form");
        let schema = &q["params"]["requestedSchema"];
        assert_eq!(schema["properties"]["confirm"]["type"], "boolean");
        assert_eq!(schema["required"], json!(["confirm"]));
        let msg = a.question();
        assert!(msg.contains(t.delete_tool), "{}: {msg}", p.name);
        assert!(
            msg.contains(&t.ids[0]),
            "{}: the question shows the arguments: {msg}",
            p.name
        );
        assert!(exists(&c, &t, 0).await, "{}: nothing ran", p.name);
    }
}

async fn an_explicit_yes_runs_the_tool_once_and_a_replay_follows_the_policy(kind: Kind) {
    let s = server(kind).await;
    for p in products() {
        let c = s.client(p.name, "demo-full");
        let t = delete_target(&c, p, 1).await;
        let first = c.call_tool(t.delete_tool, t.args(0), None, None).await;
        let state = first.request_state();
        let ran = c
            .call_tool(t.delete_tool, t.args(0), Some(&state), Some(yes()))
            .await;
        assert_eq!(ran.tool_error_code(), None, "{}: {}", p.name, ran.body);
        assert!(!exists(&c, &t, 0).await, "{}: the yes ran the tool", p.name);

        // The same confirmed call again (a client retrying after a timeout).
        let replay = c
            .call_tool(t.delete_tool, t.args(0), Some(&state), Some(yes()))
            .await;
        match documented_policy(p.name).2 {
            ReplayPolicy::AskAgain => {
                assert!(replay.is_input_required(), "{}: {}", p.name, replay.body);
                assert!(
                    // In the product's language: no request here names one.
                    replay
                        .question()
                        .starts_with(errors::replay_notice(p.default_locale)),
                    "{}: {}",
                    p.name,
                    replay.question()
                );
                assert_ne!(
                    replay.request_state(),
                    state,
                    "{}: a fresh question",
                    p.name
                );
            }
            ReplayPolicy::Refuse => {
                assert_eq!(
                    replay.tool_error_code().as_deref(),
                    Some(errors::CONFIRMATION_REPLAYED.code),
                    "{}: {}",
                    p.name,
                    replay.body
                );
            }
        }
        // Had the replay run the delete again, it would have answered not_found.
        assert_ne!(
            replay.body["result"]["structuredContent"]["error"]["code"],
            "not_found"
        );
    }
}

async fn a_first_call_that_brings_its_own_yes_is_asked_anyway(kind: Kind) {
    let s = server(kind).await;
    for p in products() {
        let c = s.client(p.name, "demo-full");
        let t = delete_target(&c, p, 1).await;
        let a = c
            .call_tool(t.delete_tool, t.args(0), None, Some(yes()))
            .await;
        assert!(a.is_input_required(), "{}: {}", p.name, a.body);
        assert!(exists(&c, &t, 0).await, "{}", p.name);
    }
}

async fn decline_cancel_and_no_change_nothing_and_use_the_products_code(kind: Kind) {
    let s = server(kind).await;
    for p in products() {
        let c = s.client(p.name, "demo-full");
        let t = delete_target(&c, p, 1).await;
        use runtime::confirm::form::Refusal;
        for (answer, says) in [
            (json!({"confirm": {"action": "decline"}}), Refusal::Declined),
            (json!({"confirm": {"action": "cancel"}}), Refusal::Cancelled),
            (
                json!({"confirm": {"action": "accept", "content": {"confirm": false}}}),
                Refusal::NotConfirmed,
            ),
        ] {
            let state = c
                .call_tool(t.delete_tool, t.args(0), None, None)
                .await
                .request_state();
            let a = c
                .call_tool(t.delete_tool, t.args(0), Some(&state), Some(answer.clone()))
                .await;
            assert_eq!(
                a.tool_error_code().as_deref(),
                Some(documented_policy(p.name).1),
                "{} {answer}: {}",
                p.name,
                a.body
            );
            assert!(
                a.result()["structuredContent"]["error"]["message"]
                    .as_str()
                    .unwrap_or("")
                    // Each answer in its own words, in the product's language.
                    .contains(says.message(p.default_locale)),
                "{}",
                a.body
            );
            assert!(
                exists(&c, &t, 0).await,
                "{} {answer}: nothing changed",
                p.name
            );
        }
    }
}

/// Re-seals a state's claims with a new expiry (what the passage of time does to a real state).
fn expire(state: &str) -> String {
    let sealer = harness::shared_sealer();
    let mut claims = sealer.open(state, 0).expect("our own state opens");
    claims.exp = 1;
    sealer.seal(&claims)
}

async fn tampered_expired_and_foreign_states_get_the_question_again(kind: Kind) {
    let s = server(kind).await;
    // Another deployment, with its own key.
    let mut other = options(kind);
    other.sealer = StateSealer::new(vec![("test1".into(), vec![8u8; 32])]).unwrap();
    let foreign = start(other).await;
    for p in products() {
        let c = s.client(p.name, "demo-full");
        let t = delete_target(&c, p, 1).await;
        let state = c
            .call_tool(t.delete_tool, t.args(0), None, None)
            .await
            .request_state();
        let mut parts: Vec<String> = state.split('.').map(String::from).collect();
        let payload = parts[2].clone();
        let flip = if payload.as_bytes()[5] == b'A' {
            "B"
        } else {
            "A"
        };
        parts[2] = format!("{}{flip}{}", &payload[..5], &payload[6..]);
        let tampered = parts.join(".");
        let foreign_state = foreign
            .client(p.name, "demo-full")
            .call_tool(t.delete_tool, t.args(0), None, None)
            .await
            .request_state();
        for (what, bad) in [
            ("tampered", tampered),
            ("expired", expire(&state)),
            ("foreign", foreign_state),
            ("garbage", "not-a-state".to_string()),
        ] {
            let a = c
                .call_tool(t.delete_tool, t.args(0), Some(&bad), Some(yes()))
                .await;
            assert!(a.is_input_required(), "{} {what}: {}", p.name, a.body);
            assert_ne!(a.request_state(), bad);
            assert!(exists(&c, &t, 0).await, "{} {what}: nothing ran", p.name);
        }
        // The genuine state still works afterwards: the bad ones did not consume it.
        let ok = c
            .call_tool(t.delete_tool, t.args(0), Some(&state), Some(yes()))
            .await;
        assert_eq!(ok.tool_error_code(), None, "{}: {}", p.name, ok.body);
        assert!(!exists(&c, &t, 0).await);
    }
}

async fn a_confirmation_moved_to_other_arguments_is_asked_again(kind: Kind) {
    let s = server(kind).await;
    for p in products() {
        let c = s.client(p.name, "demo-full");
        let t = delete_target(&c, p, 2).await;
        let state = c
            .call_tool(t.delete_tool, t.args(0), None, None)
            .await
            .request_state();
        let a = c
            .call_tool(t.delete_tool, t.args(1), Some(&state), Some(yes()))
            .await;
        assert!(a.is_input_required(), "{}: {}", p.name, a.body);
        assert!(a.question().contains(&t.ids[1]), "{}", p.name);
        assert!(
            exists(&c, &t, 0).await && exists(&c, &t, 1).await,
            "{}",
            p.name
        );
    }
}

async fn a_confirmation_moved_to_another_person_or_organization_is_asked_again(kind: Kind) {
    let s = server(kind).await;
    for p in products() {
        let c = s.client(p.name, "demo-full");
        let t = delete_target(&c, p, 1).await;
        let state = c
            .call_tool(t.delete_tool, t.args(0), None, None)
            .await
            .request_state();
        for token in ["demo-colleague", "demo-other-org"] {
            let other: Client = c.clone().with_token(token);
            let a = other
                .call_tool(t.delete_tool, t.args(0), Some(&state), Some(yes()))
                .await;
            if token == "demo-other-org" {
                // Another organization's record is out of reach: refused at once (issue 35).
                assert_eq!(
                    a.tool_error_code().as_deref(),
                    Some("not_found"),
                    "{} {token}: {}",
                    p.name,
                    a.body
                );
            } else {
                assert!(a.is_input_required(), "{} {token}: {}", p.name, a.body);
            }
            assert!(exists(&c, &t, 0).await, "{} {token}", p.name);
        }
    }
}

async fn workspaced_products_bind_the_confirmation_to_the_workspace(kind: Kind) {
    let s = server(kind).await;
    for p in products()
        .into_iter()
        .filter(|p| p.policy.confirmation_binds.workspace)
    {
        let full = s.client(p.name, "demo-full");
        let t = delete_target(&full, p, 1).await;
        let main = s
            .client(p.name, "demo-multi-workspace")
            .with_workspace("ws_demo_main");
        let state = main
            .call_tool(t.delete_tool, t.args(0), None, None)
            .await
            .request_state();
        let branch = main.clone().with_workspace("ws_demo_branch");
        let a = branch
            .call_tool(t.delete_tool, t.args(0), Some(&state), Some(yes()))
            .await;
        // The record is not in that workspace: refused at once, without a question (issue 35).
        assert_eq!(
            a.tool_error_code().as_deref(),
            Some("not_found"),
            "{}: {}",
            p.name,
            a.body
        );
        assert!(exists(&full, &t, 0).await, "{}", p.name);
        // In the workspace it was given for, the confirmation runs.
        let ok = main
            .call_tool(t.delete_tool, t.args(0), Some(&state), Some(yes()))
            .await;
        assert_eq!(ok.tool_error_code(), None, "{}: {}", p.name, ok.body);
        assert!(!exists(&full, &t, 0).await, "{}", p.name);
    }
}

async fn clients_that_cannot_confirm_follow_the_policy_and_other_tools_keep_working(kind: Kind) {
    let s = server(kind).await;
    for p in products() {
        let full = s.client(p.name, "demo-full");
        let t = delete_target(&full, p, 3).await;
        let clients: [(&str, Client); 3] = [
            ("2025-11-25", full.clone().legacy("2025-11-25")),
            ("2025-06-18", full.clone().legacy("2025-06-18")),
            (
                "2026 without elicitation",
                full.clone().without_elicitation(),
            ),
        ];
        for (i, (what, c)) in clients.iter().enumerate() {
            let a = c.call_tool(t.delete_tool, t.args(i), None, None).await;
            match documented_policy(p.name).0 {
                UnconfirmableDestructive::Run => {
                    assert_eq!(a.tool_error_code(), None, "{} {what}: {}", p.name, a.body);
                    assert!(!a.is_input_required());
                    assert!(
                        !exists(&full, &t, i).await,
                        "{} {what}: ran directly",
                        p.name
                    );
                }
                UnconfirmableDestructive::Refuse => {
                    assert_eq!(
                        a.tool_error_code().as_deref(),
                        Some(errors::CONFIRMATION_REQUIRED.code),
                        "{} {what}: {}",
                        p.name,
                        a.body
                    );
                    assert!(exists(&full, &t, i).await, "{} {what}: nothing ran", p.name);
                    // Reading still works for this client.
                    let read = c
                        .call_tool(t.get_tool, json!({ t.get_id_arg: t.ids[i] }), None, None)
                        .await;
                    assert_eq!(
                        read.tool_error_code(),
                        None,
                        "{} {what}: {}",
                        p.name,
                        read.body
                    );
                }
            }
        }
    }
}

#[tokio::test]
async fn a_ledger_that_cannot_record_runs_nothing() {
    let mut opts = Options::all_products();
    // Nothing listens on port 1: every recording fails.
    opts.ledger = Some(std::sync::Arc::new(
        runtime::confirm::RedisLedger::new("redis://127.0.0.1:1").unwrap(),
    ));
    let s = start(opts).await;
    for p in products() {
        let c = s.client(p.name, "demo-full");
        let t = delete_target(&c, p, 1).await;
        let state = c
            .call_tool(t.delete_tool, t.args(0), None, None)
            .await
            .request_state();
        let a = c
            .call_tool(t.delete_tool, t.args(0), Some(&state), Some(yes()))
            .await;
        assert_eq!(
            a.tool_error_code().as_deref(),
            Some(errors::CONFIRMATION_UNAVAILABLE.code),
            "{}: {}",
            p.name,
            a.body
        );
        assert!(exists(&c, &t, 0).await, "{}: nothing ran", p.name);
    }
}

/// The payments on the first page (newest first) of billing's list with `amount`.
async fn payments_of(c: &Client, amount: f64) -> usize {
    let a = c
        .call_tool("billing_payments_list", json!({"per_page": 50}), None, None)
        .await;
    harness::records_of(&a)
        .iter()
        .filter(|r| r["amount"].as_f64() == Some(amount))
        .count()
}

/// Issue 37, item 5: with the ledger down (a Redis ledger nothing answers, as when Redis is
/// stopped) only what needs a confirmation refuses. An ordinary write runs, on either era, and
/// its retry is answered with the first result instead of running again; a destructive tool
/// that banking and billing let a 2025 client run directly runs, once; a 2026 client's
/// confirmation is refused (`confirmation_unavailable`), as is finance's 2025 call
/// (`confirmation_required`, which needs no ledger); the audit records of what ran say the
/// ledger was down.
#[tokio::test]
async fn a_ledger_outage_refuses_only_what_needs_a_confirmation() {
    use runtime::telemetry::{AuditTarget, Telemetry, TelemetryConfig};
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let telemetry = Telemetry::new(TelemetryConfig {
        audit: Some(AuditTarget::File {
            path: audit.clone(),
            max_bytes: 1 << 20,
            keep: 1,
        }),
        ..TelemetryConfig::default()
    })
    .expect("telemetry");
    let mut opts = Options::all_products();
    // Nothing listens on port 1: the Redis ledger is down for the whole test.
    opts.ledger = Some(std::sync::Arc::new(
        runtime::confirm::RedisLedger::new("redis://127.0.0.1:1").unwrap(),
    ));
    opts.configure = Some(Box::new(move |c| c.telemetry = Some(telemetry)));
    let s = start(opts).await;

    // An ordinary write, on each era; each retried once with the same arguments.
    let billing = s.client("billing", "demo-full");
    let invoices = billing
        .call_tool("billing_invoices_list", json!({"per_page": 1}), None, None)
        .await;
    let invoice = harness::records_of(&invoices)[0]["id"]
        .as_str()
        .expect("an invoice id")
        .to_string();
    for (i, c) in [billing.clone(), billing.clone().legacy("2025-11-25")]
        .iter()
        .enumerate()
    {
        let amount = 4321.5 + i as f64;
        let args = json!({"invoice_id": invoice, "amount": amount, "method": "pix"});
        let ran = c
            .call_tool("billing_payments_create", args.clone(), None, None)
            .await;
        assert_eq!(ran.tool_error_code(), None, "{}", ran.body);
        assert_eq!(payments_of(&billing, amount).await, 1, "it ran");
        let retry = c
            .call_tool("billing_payments_create", args, None, None)
            .await;
        assert_eq!(retry.tool_error_code(), None, "{}", retry.body);
        assert_eq!(
            retry.result()["structuredContent"],
            ran.result()["structuredContent"],
            "the retry is answered with the first result"
        );
        assert_eq!(
            payments_of(&billing, amount).await,
            1,
            "the retry ran nothing"
        );
    }

    for p in products() {
        let full = s.client(p.name, "demo-full");
        let t = delete_target(&full, p, 2).await;
        // A 2026 client that can confirm: the confirmation needs the ledger.
        let asked = full.call_tool(t.delete_tool, t.args(0), None, None).await;
        let refused = full
            .call_tool(
                t.delete_tool,
                t.args(0),
                Some(&asked.request_state()),
                Some(yes()),
            )
            .await;
        assert_eq!(
            refused.tool_error_code().as_deref(),
            Some(errors::CONFIRMATION_UNAVAILABLE.code),
            "{}: {}",
            p.name,
            refused.body
        );
        assert!(exists(&full, &t, 0).await, "{}: nothing ran", p.name);
        // A 2025 client: what the product's document says, the ledger down or not.
        let old = full.clone().legacy("2025-11-25");
        let a = old.call_tool(t.delete_tool, t.args(1), None, None).await;
        match documented_policy(p.name).0 {
            UnconfirmableDestructive::Run => {
                assert_eq!(a.tool_error_code(), None, "{}: {}", p.name, a.body);
                assert!(!exists(&full, &t, 1).await, "{}: it ran", p.name);
                // Its retry does not run again (the record is gone: a second run would fail).
                let again = old.call_tool(t.delete_tool, t.args(1), None, None).await;
                assert_eq!(again.tool_error_code(), None, "{}: {}", p.name, again.body);
            }
            UnconfirmableDestructive::Refuse => {
                assert_eq!(
                    a.tool_error_code().as_deref(),
                    Some(errors::CONFIRMATION_REQUIRED.code),
                    "{}: {}",
                    p.name,
                    a.body
                );
                assert!(exists(&full, &t, 1).await, "{}: nothing ran", p.name);
            }
        }
    }

    let text = std::fs::read_to_string(&audit).expect("the audit file");
    let records: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let of = |tool: &str, outcome: &str| {
        records
            .iter()
            .filter(|r| r["tool"] == tool && r["outcome"] == outcome)
            .collect::<Vec<_>>()
    };
    let payments = of("billing_payments_create", "ok");
    assert_eq!(payments.len(), 2, "{text}");
    assert_eq!(of("billing_payments_create", "replayed").len(), 2, "{text}");
    for r in payments {
        assert!(r["idempotency_key"].is_string(), "{r}");
    }
    // Everything that ran (payments, banking's and billing's 2025 deletes) or was answered by
    // its first result ran without the ledger.
    let ran: Vec<_> = records
        .iter()
        .filter(|r| r["outcome"] == "ok" || r["outcome"] == "replayed")
        .collect();
    assert_eq!(ran.len(), 8, "{text}");
    for r in ran {
        assert_eq!(r["ledger_down"], true, "{r}");
    }
    let refused: Vec<_> = records
        .iter()
        .filter(|r| r["error_code"] == errors::CONFIRMATION_UNAVAILABLE.code)
        .collect();
    assert_eq!(refused.len(), 5, "{text}");
    for r in refused {
        assert_eq!(r["ledger_down"], true, "{r}");
        assert_eq!(r["outcome"], "refused", "{r}");
    }
}

async fn answers_without_the_confirm_key_are_asked_again(kind: Kind) {
    let s = server(kind).await;
    for p in products() {
        let c = s.client(p.name, "demo-full");
        let t = delete_target(&c, p, 1).await;
        let state = c
            .call_tool(t.delete_tool, t.args(0), None, None)
            .await
            .request_state();
        for responses in [
            None,
            Some(json!({})),
            Some(json!({"other": {"action": "accept"}})),
        ] {
            let a = c
                .call_tool(t.delete_tool, t.args(0), Some(&state), responses.clone())
                .await;
            assert!(
                a.is_input_required(),
                "{} {responses:?}: {}",
                p.name,
                a.body
            );
        }
        assert!(exists(&c, &t, 0).await, "{}", p.name);
    }
}

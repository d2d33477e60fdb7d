//! The Redis confirmation ledger through the real protocol: several server instances behind one
//! Redis enforce single use together (issue 4). Needs Redis at `REDIS_URL` (default
//! `redis://127.0.0.1:6379`); `scripts/test.sh` starts one. Locally: `redis-server --port 6379
//! --daemonize yes`. Without Redis the tests fail, unless `KOBANA_TEST_SKIP=redis` opts out.

#[path = "confirmation_harness/mod.rs"]
mod harness;
#[path = "support/skip.rs"]
mod skip;

use std::sync::Arc;

use harness::{delete_target, exists, start, yes, Options, TestServer};
use runtime::catalog::ReplayPolicy;
use runtime::confirm::{Ledger, RedisLedger};
use runtime::errors;

/// The caller opted out of the Redis tests (`KOBANA_TEST_SKIP=redis`); says so.
fn skipped(test: &str) -> bool {
    skip::opted_out("redis", test, "needs Redis (REDIS_URL)")
}

fn redis_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// A Redis ledger, checked to be reachable (a clear failure otherwise, never a silent skip).
async fn redis_ledger() -> Arc<dyn Ledger> {
    let l = RedisLedger::new(&redis_url()).expect("a valid REDIS_URL");
    if let Err(e) = l.check().await {
        panic!(
            "these tests need Redis at {} ({e}); start it with `redis-server --port 6379 --daemonize yes`",
            redis_url()
        );
    }
    Arc::new(l)
}

/// One instance; instances started with the same `dir` share the sandbox store, and all share
/// the sealing keys (as instances of one deployment do).
async fn instance(dir: &std::path::Path) -> TestServer {
    let mut o = Options::all_products();
    o.ledger = Some(redis_ledger().await);
    o.data_dir = Some(dir.to_path_buf());
    start(o).await
}

#[tokio::test]
async fn a_confirmation_used_on_one_instance_is_a_replay_on_the_other() {
    if skipped("a_confirmation_used_on_one_instance_is_a_replay_on_the_other") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = instance(dir.path()).await;
    let b = instance(dir.path()).await;
    for p in generated::PRODUCTS.iter().copied() {
        let ca = a.client(p.name, "demo-full");
        let cb = b.client(p.name, "demo-full");
        let t = delete_target(&ca, p, 1).await;
        let state = ca
            .call_tool(t.delete_tool, t.args(0), None, None)
            .await
            .request_state();
        // The question asked by A is answered on B (shared keys): it runs there, once.
        let ran = cb
            .call_tool(t.delete_tool, t.args(0), Some(&state), Some(yes()))
            .await;
        assert_eq!(ran.tool_error_code(), None, "{}: {}", p.name, ran.body);
        assert!(!exists(&ca, &t, 0).await, "{}", p.name);
        // The client retries on A: the shared ledger knows it was used.
        let replay = ca
            .call_tool(t.delete_tool, t.args(0), Some(&state), Some(yes()))
            .await;
        match p.policy.replay {
            ReplayPolicy::AskAgain => {
                assert!(replay.is_input_required(), "{}: {}", p.name, replay.body);
                assert!(
                    replay
                        .question()
                        .starts_with(errors::replay_notice(p.default_locale)),
                    "{}",
                    p.name
                );
            }
            ReplayPolicy::Refuse => assert_eq!(
                replay.tool_error_code().as_deref(),
                Some(errors::CONFIRMATION_REPLAYED.code),
                "{}: {}",
                p.name,
                replay.body
            ),
        }
    }
}

#[tokio::test]
async fn separate_instances_without_a_shared_ledger_would_not_see_the_replay() {
    // The control case: with the default in-memory ledger, each instance only knows its own
    // confirmations, which is why several instances need Redis.
    let dir = tempfile::tempdir().unwrap();
    let mut oa = Options::all_products();
    oa.data_dir = Some(dir.path().to_path_buf());
    let a = start(oa).await;
    let mut ob = Options::all_products();
    ob.data_dir = Some(dir.path().to_path_buf());
    let b = start(ob).await;
    let p = generated::product("dashboards").expect("dashboards");
    let ca = a.client(p.name, "demo-full");
    let cb = b.client(p.name, "demo-full");
    let t = delete_target(&ca, p, 1).await;
    let state = ca
        .call_tool(t.delete_tool, t.args(0), None, None)
        .await
        .request_state();
    let first = ca
        .call_tool(t.delete_tool, t.args(0), Some(&state), Some(yes()))
        .await;
    assert_eq!(first.tool_error_code(), None, "{}", first.body);
    // B's memory ledger has never seen it, so B lets the call through; the sandbox they share
    // knows its idempotency key (issue 37, item 4) and answers the first result, marked
    // replayed: nothing runs twice.
    let second = cb
        .call_tool(t.delete_tool, t.args(0), Some(&state), Some(yes()))
        .await;
    assert_eq!(second.tool_error_code(), None, "{}", second.body);
    assert_eq!(
        second.result()["structuredContent"],
        first.result()["structuredContent"],
        "{}",
        second.body
    );
}

#[tokio::test]
async fn every_product_refuses_replays_per_policy_on_the_redis_ledger() {
    if skipped("every_product_refuses_replays_per_policy_on_the_redis_ledger") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let s = instance(dir.path()).await;
    for p in generated::PRODUCTS.iter().copied() {
        let c = s.client(p.name, "demo-full");
        let t = delete_target(&c, p, 1).await;
        let state = c
            .call_tool(t.delete_tool, t.args(0), None, None)
            .await
            .request_state();
        let ok = c
            .call_tool(t.delete_tool, t.args(0), Some(&state), Some(yes()))
            .await;
        assert_eq!(ok.tool_error_code(), None, "{}: {}", p.name, ok.body);
        let replay = c
            .call_tool(t.delete_tool, t.args(0), Some(&state), Some(yes()))
            .await;
        let replayed = replay.is_input_required()
            || replay.tool_error_code().as_deref() == Some(errors::CONFIRMATION_REPLAYED.code);
        assert!(replayed, "{}: {}", p.name, replay.body);
        assert_ne!(
            replay.tool_error_code().as_deref(),
            Some("not_found"),
            "{}: ran twice",
            p.name
        );
    }
}

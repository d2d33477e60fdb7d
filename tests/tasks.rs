//! The Tasks extension (2026-07-28, `io.modelcontextprotocol/tasks`) through the real protocol,
//! on the banking product over the SQLite sandbox (whose `task:` tools work for a configurable
//! while): who may see a task, a task polled on another instance (shared Redis ledger),
//! cancellation, expiry, and a destructive task tool that asks for confirmation first.
//! Redis tests need `REDIS_URL` (`scripts/test.sh` starts one) unless `KOBANA_TEST_SKIP=redis`.

#[path = "confirmation_harness/mod.rs"]
mod harness;
#[path = "support/skip.rs"]
mod skip;

use std::sync::Arc;
use std::time::{Duration, Instant};

use harness::{start, yes, Answer, Client, Options, TestServer};
use runtime::confirm::{Ledger, RedisLedger};
use runtime::tasks::{TaskOptions, EXTENSION_ID};
use serde_json::{json, Value};

const CREATE: &str = "banking_charge_bank_billet_batch_create";
const GET: &str = "banking_charge_bank_billet_batch_get";
const REPORT: &str = "banking_charge_bank_billet_report_get";
const DISCHARGE: &str = "banking_charge_discharge_create";
const DISCHARGE_LIST: &str = "banking_charge_discharge_list";

fn caps() -> Value {
    json!({"elicitation": {}, "extensions": {EXTENSION_ID: {}}})
}

fn options(delay_ms: u64) -> Options {
    Options {
        products: vec![generated::product("banking").expect("banking")],
        sandbox_task_delay: Duration::from_millis(delay_ms),
        tasks: Some(TaskOptions {
            watch_every: Duration::from_millis(20),
            ..TaskOptions::default()
        }),
        ..Options::all_products()
    }
}

fn tasker(s: &TestServer, token: &str) -> Client {
    s.client("banking", token).with_capabilities(caps())
}

/// Starts a task; answers its id.
async fn create_task(c: &Client, tool: &str, args: Value) -> String {
    let a = c.call_tool(tool, args, None, None).await;
    let r = a.result();
    assert_eq!(r["resultType"], "task", "{}", a.body);
    assert_eq!(r["status"], "working", "{}", a.body);
    assert!(r.get("result").is_none() && r.get("requestState").is_none());
    assert!(r["ttlMs"].as_u64().unwrap() > 0 && r["pollIntervalMs"].as_u64().unwrap() > 0);
    r["taskId"].as_str().expect("taskId").to_string()
}

async fn get(c: &Client, id: &str) -> Answer {
    c.request("tasks/get", json!({"taskId": id})).await
}

/// Polls until the task is terminal (or `timeout`).
async fn settle(c: &Client, id: &str) -> Value {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let a = get(c, id).await;
        let r = a.result().clone();
        if ["completed", "failed", "cancelled"].contains(&r["status"].as_str().unwrap_or("")) {
            return r;
        }
        assert!(Instant::now() < until, "task {id} never settled: {r}");
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

fn assert_unknown(a: &Answer, who: &str) {
    assert_eq!(a.error()["code"], -32602, "{who}: {}", a.body);
    assert!(
        a.error()["message"]
            .as_str()
            .unwrap()
            // Banking's default locale: these requests name no language.
            .contains("Tarefa desconhecida"),
        "{who}: {}",
        a.body
    );
}

fn batch_id(result: &Value) -> String {
    let s = &result["result"]["structuredContent"];
    s["id"]
        .as_str()
        .map(str::to_string)
        .or_else(|| s["id"].as_i64().map(|n| n.to_string()))
        .unwrap_or_else(|| panic!("no id in {result}"))
}

#[tokio::test]
async fn a_task_is_seen_read_and_cancelled_only_by_its_creator() {
    let s = start(options(400)).await;
    let ana = tasker(&s, "demo-full");
    let id = create_task(&ana, CREATE, json!({"name": "lote de teste"})).await;
    // Same organization, another person; another organization: the id is unknown to them.
    for token in ["demo-colleague", "demo-other-org"] {
        let other = tasker(&s, token);
        assert_unknown(&get(&other, &id).await, token);
        let cancel = other.request("tasks/cancel", json!({"taskId": id})).await;
        assert_unknown(&cancel, token);
        let update = other
            .request("tasks/update", json!({"taskId": id, "inputResponses": {}}))
            .await;
        assert_unknown(&update, token);
    }
    // A request that does not declare the extension is told which capability it lacks.
    let plain = s.client("banking", "demo-full");
    let a = get(&plain, &id).await;
    assert_eq!(a.status, 400, "{}", a.body);
    assert_eq!(a.error()["code"], -32021, "{}", a.body);
    assert!(a.error()["data"]["requiredCapabilities"]["extensions"][EXTENSION_ID].is_object());
    // The creator sees it work (with the sandbox's progress), then its result.
    let working = get(&ana, &id).await;
    assert_eq!(working.result()["status"], "working", "{}", working.body);
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let r = get(&ana, &id).await.result().clone();
        if r["statusMessage"]
            .as_str()
            .is_some_and(|m| m.contains("em processamento"))
        {
            break;
        }
        assert!(
            r["status"] == "working" && Instant::now() < until,
            "no progress seen: {r}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let done = settle(&ana, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["resultType"], "complete");
    assert!(done["result"].get("isError").is_none(), "{done}");
    // The other people were refused without it changing: cancellation by others did nothing.
    let made = ana
        .call_tool(GET, json!({"id": batch_id(&done)}), None, None)
        .await;
    assert_eq!(made.tool_error_code(), None, "{}", made.body);
    assert_eq!(made.result()["structuredContent"]["name"], "lote de teste");
}

#[tokio::test]
async fn a_task_of_one_workspace_is_unknown_in_another() {
    let s = start(options(200)).await;
    let main = tasker(&s, "demo-multi-workspace").with_workspace("ws_demo_main");
    let id = create_task(&main, CREATE, json!({"name": "lote ws"})).await;
    let branch = tasker(&s, "demo-multi-workspace").with_workspace("ws_demo_branch");
    assert_unknown(
        &get(&branch, &id).await,
        "the same person in another workspace",
    );
    assert_eq!(settle(&main, &id).await["status"], "completed");
}

#[tokio::test]
async fn a_client_without_the_extension_gets_the_answer_in_the_request() {
    let s = start(options(0)).await;
    let plain = s.client("banking", "demo-full");
    let a = plain
        .call_tool(CREATE, json!({"name": "sem tarefa"}), None, None)
        .await;
    assert_eq!(a.result()["resultType"], "complete", "{}", a.body);
    assert!(a.result().get("taskId").is_none());
    assert_eq!(a.result()["structuredContent"]["name"], "sem tarefa");
    // A tool the catalog never runs as a task answers in the request even to a declaring client.
    let list = tasker(&s, "demo-full")
        .call_tool(DISCHARGE_LIST, json!({}), None, None)
        .await;
    assert_eq!(list.result()["resultType"], "complete", "{}", list.body);
}

#[tokio::test]
async fn cancelling_stops_a_read_and_keeps_the_answer_of_a_write_already_sent() {
    let s = start(options(600)).await;
    let ana = tasker(&s, "demo-full");
    // A report (a read): cancelled, it stops and never completes.
    let report = create_task(&ana, REPORT, json!({})).await;
    let ack = ana.request("tasks/cancel", json!({"taskId": report})).await;
    assert_eq!(
        ack.result(),
        &json!({"resultType": "complete", "_meta": ack.result()["_meta"]})
    );
    tokio::time::sleep(Duration::from_millis(900)).await;
    let r = get(&ana, &report).await.result().clone();
    assert_eq!(r["status"], "cancelled", "{r}");
    assert!(r.get("result").is_none(), "{r}");
    // Cancelling again is the same acknowledgement.
    let again = ana.request("tasks/cancel", json!({"taskId": report})).await;
    assert_eq!(again.result()["resultType"], "complete", "{}", again.body);
    // A write the sandbox is working on: the task says cancelled at once, but the call that
    // reached the API is not dropped half-way; its answer is kept on the task.
    let write = create_task(&ana, CREATE, json!({"name": "lote cancelado"})).await;
    ana.request("tasks/cancel", json!({"taskId": write})).await;
    assert_eq!(get(&ana, &write).await.result()["status"], "cancelled");
    let until = Instant::now() + Duration::from_secs(10);
    let r = loop {
        let r = get(&ana, &write).await.result().clone();
        if r.get("result").is_some() {
            break r;
        }
        assert!(
            Instant::now() < until,
            "the write's answer never arrived: {r}"
        );
        tokio::time::sleep(Duration::from_millis(30)).await;
    };
    assert_eq!(r["status"], "cancelled");
    assert!(
        r["statusMessage"]
            .as_str()
            .unwrap()
            .contains("terminou mesmo assim"),
        "in banking's default locale (pt-BR): {r}"
    );
    let made = ana
        .call_tool(GET, json!({"id": batch_id(&r)}), None, None)
        .await;
    assert_eq!(made.result()["structuredContent"]["name"], "lote cancelado");
}

#[tokio::test]
async fn an_expired_task_is_unknown() {
    let mut o = options(0);
    o.tasks = Some(TaskOptions {
        ttl: Duration::from_millis(400),
        watch_every: Duration::from_millis(20),
        ..TaskOptions::default()
    });
    let s = start(o).await;
    let ana = tasker(&s, "demo-full");
    let id = create_task(&ana, CREATE, json!({"name": "expira"})).await;
    let first = get(&ana, &id).await;
    assert_eq!(first.result()["ttlMs"], 400, "{}", first.body);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_unknown(&get(&ana, &id).await, "after the TTL");
    assert_unknown(
        &ana.request("tasks/cancel", json!({"taskId": id})).await,
        "cancel after the TTL",
    );
}

/// Tasks count against their caller's quota of live work while they run, and no longer once
/// they finish (issue 37, item 6: 1,000 finished tasks locked a person's writes for an hour); a
/// caller at its quota gets the quota error, not "the task store is unavailable".
#[tokio::test]
async fn finished_tasks_leave_the_quota_and_a_full_quota_is_a_quota_error() {
    use runtime::confirm::MemoryLedger;
    let quota = 3;
    let mut o = options(0);
    o.ledger = Some(Arc::new(MemoryLedger::with_limits(10_000, quota)));
    let s = start(o).await;
    let ana = tasker(&s, "demo-full");
    for _ in 0..quota * 2 {
        let id = create_task(&ana, REPORT, json!({})).await;
        assert_eq!(settle(&ana, &id).await["status"], "completed");
    }
    let mut o = options(60_000);
    o.ledger = Some(Arc::new(MemoryLedger::with_limits(10_000, quota)));
    let s = start(o).await;
    let ana = tasker(&s, "demo-full");
    for _ in 0..quota {
        create_task(&ana, REPORT, json!({})).await;
    }
    let over = ana.call_tool(REPORT, json!({}), None, None).await;
    assert_eq!(
        over.tool_error_code().as_deref(),
        Some("confirmation_quota_exceeded"),
        "{}",
        over.body
    );
}

#[tokio::test]
async fn a_destructive_task_tool_asks_before_its_task_starts() {
    let s = start(options(200)).await;
    let ana = tasker(&s, "demo-full");
    // Every discharge the caller can see, page by page.
    let count = |c: Client| async move {
        let mut n = 0;
        for page in 1.. {
            let a = c
                .call_tool(
                    DISCHARGE_LIST,
                    json!({"page": page, "per_page": 50}),
                    None,
                    None,
                )
                .await;
            let got = harness::records_of(&a).len();
            n += got;
            if got < 50 {
                break;
            }
        }
        n
    };
    let before = count(ana.clone()).await;
    let args = json!({"file": "MDAwMDAwMA==", "filename": "retorno.ret"});
    // First: the confirmation question, in the request; no task exists yet, nothing ran.
    let ask = ana.call_tool(DISCHARGE, args.clone(), None, None).await;
    assert!(ask.is_input_required(), "{}", ask.body);
    assert!(ask.result().get("taskId").is_none(), "{}", ask.body);
    assert_eq!(count(ana.clone()).await, before);
    // Declined: still no task, nothing runs.
    let state = ask.request_state();
    assert!(
        ask.result()["inputRequests"].get("confirm").is_some(),
        "{}",
        ask.body
    );
    let no = json!({"confirm": {"action": "accept", "content": {"confirm": false}}});
    let declined = ana
        .call_tool(DISCHARGE, args.clone(), Some(&state), Some(no))
        .await;
    assert!(
        declined.result().get("taskId").is_none(),
        "{}",
        declined.body
    );
    assert_eq!(count(ana.clone()).await, before);
    // Confirmed: the task starts, and runs once.
    let ask = ana.call_tool(DISCHARGE, args.clone(), None, None).await;
    let state = ask.request_state();
    let started = ana
        .call_tool(DISCHARGE, args.clone(), Some(&state), Some(yes()))
        .await;
    assert_eq!(started.result()["resultType"], "task", "{}", started.body);
    let id = started.result()["taskId"].as_str().unwrap().to_string();
    let done = settle(&ana, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(count(ana.clone()).await, before + 1);
    // The same confirmation again does not start a second run.
    let replay = ana
        .call_tool(DISCHARGE, args, Some(&state), Some(yes()))
        .await;
    assert_ne!(replay.result()["resultType"], "task", "{}", replay.body);
    assert_eq!(count(ana).await, before + 1);
}

// ---- two instances over one Redis ----

fn redis_skipped(test: &str) -> bool {
    skip::opted_out("redis", test, "needs Redis (REDIS_URL)")
}

async fn redis_ledger() -> Arc<dyn Ledger> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let l = RedisLedger::new(&url).expect("a valid REDIS_URL");
    if let Err(e) = l.check().await {
        panic!("these tests need Redis at {url} ({e})");
    }
    Arc::new(l)
}

#[tokio::test]
async fn a_task_created_on_one_instance_is_polled_and_cancelled_on_another() {
    if redis_skipped("a_task_created_on_one_instance_is_polled_and_cancelled_on_another") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let instance = |delay| {
        let dir = dir.path().to_path_buf();
        async move {
            let mut o = options(delay);
            o.ledger = Some(redis_ledger().await);
            o.data_dir = Some(dir);
            start(o).await
        }
    };
    let a = instance(300).await;
    let b = instance(300).await;
    let on_a = tasker(&a, "demo-full");
    let on_b = tasker(&b, "demo-full");
    // Created on A, read on B at once, and its result read on B.
    let id = create_task(&on_a, CREATE, json!({"name": "lote a"})).await;
    assert_eq!(get(&on_b, &id).await.result()["taskId"], id.as_str());
    let done = settle(&on_b, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    // Another person still cannot see it on B.
    assert_unknown(
        &get(&tasker(&b, "demo-colleague"), &id).await,
        "colleague on B",
    );
    // A read started on A, cancelled on B: A stops it.
    let report = create_task(&on_a, REPORT, json!({})).await;
    let ack = on_b
        .request("tasks/cancel", json!({"taskId": report}))
        .await;
    assert_eq!(ack.result()["resultType"], "complete", "{}", ack.body);
    tokio::time::sleep(Duration::from_millis(600)).await;
    let r = get(&on_a, &report).await.result().clone();
    assert_eq!(r["status"], "cancelled", "{r}");
    assert!(r.get("result").is_none(), "{r}");
}

#[tokio::test]
async fn without_a_shared_ledger_another_instance_does_not_know_the_task() {
    // The control case: memory ledgers are per process, which is why several instances need Redis.
    let dir = tempfile::tempdir().unwrap();
    let mut oa = options(0);
    oa.data_dir = Some(dir.path().to_path_buf());
    let a = start(oa).await;
    let mut ob = options(0);
    ob.data_dir = Some(dir.path().to_path_buf());
    let b = start(ob).await;
    let id = create_task(&tasker(&a, "demo-full"), CREATE, json!({"name": "x"})).await;
    assert_unknown(&get(&tasker(&b, "demo-full"), &id).await, "instance B");
}

// ---- following the API's own asynchronous work ----

/// An API whose statement sync is created `pending`, then reads `processing` twice, then `done`.
struct SlowSyncApi {
    reads: std::sync::atomic::AtomicUsize,
}

impl runtime_model::backend::Backend for SlowSyncApi {
    fn call<'a>(
        &'a self,
        _ctx: &'a runtime_model::backend::CallContext,
        tool: &'static runtime::catalog::Tool,
        args: &'a serde_json::Map<String, Value>,
    ) -> runtime_model::backend::BoxFuture<
        'a,
        Result<runtime_model::backend::Output, runtime_model::backend::BackendError>,
    > {
        use runtime_model::backend::{BackendError, Output};
        Box::pin(async move {
            let record = |status: &str| {
                json!({"status": 200, "data": {"uid": "sync-1", "status": status,
                    "financial_account_uid": args.get("financial_account_uid")}})
            };
            match tool.name {
                "banking_financial_statement_sync_create" => Ok(Output::Json(record("pending"))),
                "banking_financial_statement_transaction_sync_get" => {
                    assert_eq!(args["uid"], "sync-1", "the follow reads the created record");
                    let n = self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    Ok(Output::Json(record(if n < 2 {
                        "processing"
                    } else {
                        "done"
                    })))
                }
                other => Err(BackendError::Unsupported(other.to_string())),
            }
        })
    }
}

#[tokio::test]
async fn a_task_follows_the_apis_asynchronous_work_to_its_end() {
    let api = Arc::new(SlowSyncApi {
        reads: std::sync::atomic::AtomicUsize::new(0),
    });
    let mut o = options(0);
    o.backend = Some(api.clone());
    o.tasks = Some(TaskOptions {
        watch_every: Duration::from_millis(20),
        follow_every: Duration::from_millis(20),
        ..TaskOptions::default()
    });
    let s = start(o).await;
    let ana = tasker(&s, "demo-full");
    let id = create_task(
        &ana,
        "banking_financial_statement_sync_create",
        json!({"financial_account_uid": "acc-1"}),
    )
    .await;
    let done = settle(&ana, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["structuredContent"]["data"]["status"], "done",
        "the result is the record as the API finished it: {done}"
    );
    assert_eq!(api.reads.load(std::sync::atomic::Ordering::SeqCst), 3);
    // While it followed, the task said so (the message stays on the finished task).
    assert!(
        done["statusMessage"]
            .as_str()
            .is_some_and(|m| m.contains("the Kobana API is still working on it (status ")),
        "the follow's progress is the task's statusMessage: {done}"
    );
    // Without the extension the first answer comes back in the request, still pending.
    let plain = s
        .client("banking", "demo-full")
        .call_tool(
            "banking_financial_statement_sync_create",
            json!({"financial_account_uid": "acc-1"}),
            None,
            None,
        )
        .await;
    assert_eq!(
        plain.result()["structuredContent"]["data"]["status"],
        "pending"
    );
}

// ---- a task whose instance stopped ----

#[tokio::test]
async fn a_task_whose_instance_stopped_ends_and_a_write_says_its_outcome_is_unknown() {
    use runtime::confirm::MemoryLedger;
    use runtime::tasks::TaskStore;
    let ledger: Arc<dyn Ledger> = Arc::new(MemoryLedger::new());
    let mut o = options(0);
    o.ledger = Some(ledger.clone());
    let s = start(o).await;
    let ana = tasker(&s, "demo-full");
    // A real task gives Ana's owner key; then records as a dead instance leaves them: working,
    // with a heartbeat long past.
    let real = create_task(&ana, CREATE, json!({"name": "viva"})).await;
    let store = TaskStore::new(ledger, TaskOptions::default());
    let owner = store.get_any(&real).await.unwrap().unwrap().owner;
    let orphan = |tool: &'static str| {
        let (store, owner) = (store.clone(), owner.clone());
        async move {
            let t = store.create(&owner, "", tool).await.unwrap();
            store
                .update(&t.id, None, |r| {
                    r.heartbeat_at = 0;
                    true
                })
                .await
                .unwrap();
            t.id
        }
    };
    let write = orphan(CREATE).await;
    let r = get(&ana, &write).await.result().clone();
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("outcome_unknown") && text.contains("may or may not have run"),
        "{r}"
    );
    let read = orphan(REPORT).await;
    let r = get(&ana, &read).await.result().clone();
    assert_eq!(r["status"], "failed", "{r}");
    assert!(
        r["error"]["message"].as_str().unwrap().contains("stopped"),
        "{r}"
    );
    // A live task keeps its heartbeat and is not ended.
    assert_eq!(settle(&ana, &real).await["status"], "completed");
}

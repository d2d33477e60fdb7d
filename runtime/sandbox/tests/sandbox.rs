//! The sandbox backend against the hand-written demo catalogs.

use std::collections::BTreeSet;

use runtime_model::backend::{Backend, BackendError, CallContext, Output};
use runtime_model::catalog::{Product, Tool};
use runtime_model::identity::Identity;
use runtime_sandbox::{brazil, Sandbox, SandboxConfig};
use serde_json::{json, Map, Value};
use test_support::demo;

fn identity(org: &str, workspaces: &[&str]) -> Identity {
    Identity {
        person: "p1".into(),
        name: "P".into(),
        organization: org.into(),
        scopes: BTreeSet::from(["all".to_string()]),
        permissions: BTreeSet::from(["*".to_string()]),
        workspaces: workspaces.iter().map(|s| s.to_string()).collect(),
        default_workspace: None,
    }
}

fn ctx(product: &'static Product, org: &str) -> CallContext {
    CallContext {
        product,
        identity: identity(org, &[]).into(),
        bearer_token: None,
        workspace: None,
        idempotency_key: None,
        locale: runtime_model::locale::Locale::En,
        progress: Default::default(),
        attempts: Default::default(),
    }
}

fn open(dir: &std::path::Path) -> Sandbox {
    Sandbox::open(&SandboxConfig::new(dir)).expect("open sandbox")
}

fn tool(p: &'static Product, name: &str) -> &'static Tool {
    p.tool(name).expect("tool")
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().expect("object")
}

async fn call(sb: &Sandbox, c: &CallContext, name: &str, a: Value) -> Result<Output, BackendError> {
    sb.call(c, tool(c.product, name), &args(a)).await
}

async fn json(sb: &Sandbox, c: &CallContext, name: &str, a: Value) -> Value {
    match call(sb, c, name, a).await {
        Ok(Output::Json(v)) => v,
        other => panic!("{name}: {other:?}"),
    }
}

async fn all_billets(sb: &Sandbox, c: &CallContext) -> Vec<Value> {
    let mut out = Vec::new();
    for page in 1..10 {
        let v = json(sb, c, "demo_bank_billets_list", json!({"page": page})).await;
        let items = v.as_array().expect("v1 list is a bare array").clone();
        if items.is_empty() {
            break;
        }
        out.extend(items);
    }
    out
}

#[tokio::test]
async fn first_use_seeds_realistic_varied_data() {
    let dir = tempfile::tempdir().unwrap();
    let sb = open(dir.path());
    let c = ctx(&demo::PRODUCT, "org1");
    let billets = all_billets(&sb, &c).await;
    assert_eq!(billets.len(), 30, "seed_count of bank_billets");
    let statuses: BTreeSet<&str> = billets
        .iter()
        .filter_map(|b| b["status"].as_str())
        .collect();
    assert_eq!(
        statuses,
        BTreeSet::from(["opened", "paid", "canceled", "overdue"])
    );
    for b in &billets {
        assert!(
            brazil::is_valid_cnpj(b["customer_cnpj"].as_str().unwrap()),
            "{b}"
        );
        let uid = b["uid"].as_str().unwrap();
        assert_eq!(uid.len(), 36);
        assert!(b["id"].is_i64(), "v1 records keep their numeric id");
        assert_eq!(b["currency"], "BRL");
        // paid_at is only set on paid billets.
        if b["status"] != "paid" {
            assert!(b["paid_at"].is_null(), "{b}");
        }
    }
    // Newest first.
    let created: Vec<&str> = billets
        .iter()
        .map(|b| b["created_at"].as_str().unwrap())
        .collect();
    let mut sorted = created.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(created, sorted);
    // Refs point to existing customers.
    let customers = json(&sb, &c, "demo_customers_list", json!({"per_page": 50})).await;
    let ids: BTreeSet<&str> = customers["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["uid"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 25);
    for b in &billets {
        assert!(ids.contains(b["customer_id"].as_str().unwrap()));
    }
    for cu in customers["data"].as_array().unwrap() {
        assert!(brazil::is_valid_cpf(cu["document"].as_str().unwrap()));
        assert!(cu["email"].as_str().unwrap().contains('@'));
    }
}

#[tokio::test]
async fn the_same_seed_gives_the_same_data() {
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = (open(d1.path()), open(d2.path()));
    let c = ctx(&demo::PRODUCT, "org1");
    let names = |v: Value| -> BTreeSet<String> {
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| format!("{} {}", c["name"], c["document"]))
            .collect()
    };
    let x = names(json(&a, &c, "demo_customers_list", json!({})).await);
    let y = names(json(&b, &c, "demo_customers_list", json!({})).await);
    assert_eq!(x, y);
    let mut cfg = SandboxConfig::new(tempfile::tempdir().unwrap().keep());
    cfg.seed = 7;
    let other = Sandbox::open(&cfg).unwrap();
    let z = names(json(&other, &c, "demo_customers_list", json!({})).await);
    assert_ne!(x, z);
}

#[tokio::test]
async fn list_filters_paginates_and_wraps_v2() {
    let dir = tempfile::tempdir().unwrap();
    let sb = open(dir.path());
    let c = ctx(&demo::PRODUCT, "org1");
    let opened = json(
        &sb,
        &c,
        "demo_bank_billets_list",
        json!({"status": "opened"}),
    )
    .await;
    let opened = opened.as_array().unwrap();
    assert!(!opened.is_empty());
    assert!(opened.iter().all(|b| b["status"] == "opened"));

    let page1 = json(&sb, &c, "demo_customers_list", json!({"per_page": 10})).await;
    assert_eq!(page1["status"], 200);
    assert_eq!(page1["data"].as_array().unwrap().len(), 10);
    assert_eq!(page1["pagination"]["page"], 1);
    assert!(page1["pagination"]["next_url"].is_string());
    assert!(page1["pagination"]["prev_url"].is_null());
    let page3 = json(
        &sb,
        &c,
        "demo_customers_list",
        json!({"per_page": "10", "page": 3}),
    )
    .await;
    assert_eq!(page3["data"].as_array().unwrap().len(), 5);
    assert!(page3["pagination"]["next_url"].is_null());

    // Date range on created_at through created_from/created_to.
    let all = all_billets(&sb, &c).await;
    let pivot = all[10]["created_at"].as_str().unwrap()[..10].to_string();
    let recent = json(
        &sb,
        &c,
        "demo_bank_billets_list",
        json!({"created_from": pivot}),
    )
    .await;
    for b in recent.as_array().unwrap() {
        assert!(b["created_at"].as_str().unwrap()[..10] >= *pivot);
    }
    assert!(recent.as_array().unwrap().len() >= 11);

    let err = call(&sb, &c, "demo_bank_billets_list", json!({"per_page": 0}))
        .await
        .unwrap_err();
    assert!(
        matches!(err, BackendError::Invalid(ref m) if m.contains("per_page")),
        "{err:?}"
    );
    // per_page is capped at the API's maximum.
    let capped = json(&sb, &c, "demo_bank_billets_list", json!({"per_page": 500})).await;
    assert_eq!(capped.as_array().unwrap().len(), 30);
}

#[tokio::test]
async fn get_by_uid_or_numeric_id_and_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let sb = open(dir.path());
    let c = ctx(&demo::PRODUCT, "org1");
    let first = all_billets(&sb, &c).await.remove(0);
    let by_uid = json(&sb, &c, "demo_bank_billet_get", json!({"id": first["uid"]})).await;
    assert_eq!(by_uid, first);
    let by_num = json(
        &sb,
        &c,
        "demo_bank_billet_get",
        json!({"id": first["id"].to_string()}),
    )
    .await;
    assert_eq!(by_num["uid"], first["uid"]);
    let err = call(&sb, &c, "demo_bank_billet_get", json!({"id": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(err, BackendError::NotFound("bank_billets `nope`".into()));
    let err = call(&sb, &c, "demo_bank_billet_get", json!({}))
        .await
        .unwrap_err();
    assert!(matches!(err, BackendError::Invalid(ref m) if m.contains("`id`")));
}

#[tokio::test]
async fn writes_persist_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(&demo::PRODUCT, "org1");
    let created = {
        let sb = open(dir.path());
        let v = json(
            &sb,
            &c,
            "demo_bank_billet_create",
            json!({"amount": 150.5, "expire_at": "2030-01-01", "ignored": 1}),
        )
        .await;
        assert_eq!(
            v["status"], "opened",
            "initial state is the first declared value"
        );
        assert_eq!(v["amount"], 150.5);
        assert!(v.get("ignored").is_none());
        assert_eq!(v["id"], 31);
        v
    };
    let sb = open(dir.path());
    let again = json(
        &sb,
        &c,
        "demo_bank_billet_get",
        json!({"id": created["uid"]}),
    )
    .await;
    assert_eq!(again, created);
    let newest = json(&sb, &c, "demo_bank_billets_list", json!({"per_page": 1})).await;
    assert_eq!(newest[0]["uid"], created["uid"], "a new record lists first");

    let upd = json(
        &sb,
        &c,
        "demo_bank_billet_update",
        json!({"id": created["uid"], "description": "novo"}),
    )
    .await;
    assert_eq!(upd["description"], "novo");
    let err = call(
        &sb,
        &c,
        "demo_bank_billet_update",
        json!({"id": created["uid"]}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, BackendError::Invalid(ref m) if m.contains("nothing to update")));

    let del = json(
        &sb,
        &c,
        "demo_bank_billet_delete",
        json!({"id": created["uid"]}),
    )
    .await;
    assert_eq!(del["deleted"], true);
    let err = call(
        &sb,
        &c,
        "demo_bank_billet_get",
        json!({"id": created["uid"]}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, BackendError::NotFound(_)));
}

#[tokio::test]
async fn actions_follow_declared_transitions() {
    let dir = tempfile::tempdir().unwrap();
    let sb = open(dir.path());
    let c = ctx(&demo::PRODUCT, "org1");
    let billets = all_billets(&sb, &c).await;
    let opened = billets.iter().find(|b| b["status"] == "opened").unwrap();
    let payments_of = |v: Value| v["data"].as_array().unwrap().len();
    let before = payments_of(
        json(
            &sb,
            &c,
            "demo_payments_list",
            json!({"bank_billet_id": opened["uid"]}),
        )
        .await,
    );
    let paid = json(
        &sb,
        &c,
        "demo_bank_billet_pay",
        json!({"id": opened["uid"], "paid_amount": 99.9}),
    )
    .await;
    assert_eq!(paid["status"], "paid");
    assert!(paid["paid_at"].is_string());
    let payment = &paid["bank_billet_payments"];
    assert_eq!(payment["bank_billet_id"], opened["uid"]);
    assert_eq!(payment["amount"], opened["amount"]);
    assert_eq!(payment["paid_amount"], 99.9);
    let listed = json(
        &sb,
        &c,
        "demo_payments_list",
        json!({"bank_billet_id": opened["uid"]}),
    )
    .await;
    assert_eq!(payments_of(listed), before + 1);

    let err = call(
        &sb,
        &c,
        "demo_bank_billet_cancel",
        json!({"id": opened["uid"]}),
    )
    .await
    .unwrap_err();
    match err {
        BackendError::Conflict(m) => {
            assert!(
                m.contains("`paid`") && m.contains("`opened`, `overdue`"),
                "{m}"
            );
        }
        other => panic!("{other:?}"),
    }
    let canceled = billets.iter().find(|b| b["status"] == "overdue").unwrap();
    let v = json(
        &sb,
        &c,
        "demo_bank_billet_cancel",
        json!({"id": canceled["uid"]}),
    )
    .await;
    assert_eq!(v["status"], "canceled");
    assert!(v["canceled_at"].is_string());
}

/// An action whose declared record type does not exist fails after changing the source record:
/// the transaction must undo that change.
#[tokio::test]
async fn a_failing_call_changes_nothing() {
    use runtime_model::catalog::*;
    static BROKEN: Action = Action {
        name: "pay",
        from: &[],
        set: &[("status", "paid")],
        state_field: "status",
        creates: Some("ghosts"),
        add: None,
        remove: None,
    };
    static TOOLS: &[Tool] = &[Tool {
        operation: Operation::Action {
            record: "bank_billets",
            id_arg: "id",
            action: &BROKEN,
        },
        ..clone_tool(&demo::TOOLS[8])
    }];
    const fn clone_tool(t: &Tool) -> Tool {
        Tool {
            name: "broken_pay",
            title: t.title,
            description: t.description,
            descriptor_json: t.descriptor_json,
            input_schema_json: t.input_schema_json,
            output_schema_json: None,
            annotations: t.annotations,
            destructive_clause: None,
            scope: t.scope,
            permission: t.permission,
            binding: t.binding,
            operation: Operation::Custom,
            task: t.task,
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let sb = open(dir.path());
    let c = ctx(&demo::PRODUCT, "org1");
    let b = all_billets(&sb, &c)
        .await
        .into_iter()
        .find(|b| b["status"] == "opened")
        .unwrap();
    let err = sb
        .call(&c, &TOOLS[0], &args(json!({"id": b["uid"]})))
        .await
        .unwrap_err();
    assert!(
        matches!(err, BackendError::Unsupported(ref m) if m.contains("ghosts")),
        "{err:?}"
    );
    let after = json(&sb, &c, "demo_bank_billet_get", json!({"id": b["uid"]})).await;
    assert_eq!(after["status"], "opened");
}

#[tokio::test]
async fn organizations_and_workspaces_are_isolated() {
    let dir = tempfile::tempdir().unwrap();
    let sb = open(dir.path());
    let a = ctx(&demo::PRODUCT, "org_a");
    let b = ctx(&demo::PRODUCT, "org_b");
    let created = json(&sb, &a, "demo_bank_billet_create", json!({"amount": 1})).await;
    let err = call(
        &sb,
        &b,
        "demo_bank_billet_get",
        json!({"id": created["uid"]}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, BackendError::NotFound(_)));

    let mut w = ctx(&demo::INBOX, "org_a");
    w.identity = identity("org_a", &["ws1", "ws2"]).into();
    let err = call(&sb, &w, "demo_inbox_emails_list", json!({}))
        .await
        .unwrap_err();
    assert!(
        matches!(err, BackendError::Invalid(ref m) if m.contains("workspace_id")),
        "{err:?}"
    );
    w.workspace = Some("ws1".into());
    let in_ws1 = json(&sb, &w, "demo_inbox_emails_list", json!({})).await;
    let one = in_ws1["data"][0].clone();
    assert_eq!(one["workspace_id"], "ws1");
    // The argument overrides the connection's workspace.
    let err = call(
        &sb,
        &w,
        "demo_inbox_email_get",
        json!({"id": one["id"], "workspace_id": "ws2"}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, BackendError::NotFound(_)));
    let err = call(
        &sb,
        &w,
        "demo_inbox_emails_list",
        json!({"workspace_id": "ws9"}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, BackendError::NotFound(ref m) if m.contains("ws9")));
}

#[tokio::test]
async fn concurrent_writes_are_all_kept() {
    let dir = tempfile::tempdir().unwrap();
    let sb = open(dir.path());
    let c = ctx(&demo::PRODUCT, "org1");
    let mut set = tokio::task::JoinSet::new();
    for i in 0..40 {
        let (sb, c) = (sb.clone(), c.clone());
        set.spawn(
            async move { json(&sb, &c, "demo_bank_billet_create", json!({"amount": i})).await },
        );
    }
    let mut uids = BTreeSet::new();
    while let Some(r) = set.join_next().await {
        uids.insert(r.unwrap()["uid"].as_str().unwrap().to_string());
    }
    assert_eq!(uids.len(), 40);
    assert_eq!(all_billets(&sb, &c).await.len(), 70);
}

#[tokio::test]
async fn files_and_signed_urls() {
    let dir = tempfile::tempdir().unwrap();
    let sb = open(dir.path());
    let c = ctx(&demo::PRODUCT, "org1");
    let b = all_billets(&sb, &c).await.remove(0);
    match call(&sb, &c, "demo_bank_billet_pdf", json!({"id": b["uid"]}))
        .await
        .unwrap()
    {
        Output::Bytes { mime_type, data } => {
            assert_eq!(mime_type, "application/pdf");
            assert!(data.starts_with(b"%PDF-1.4"));
            assert!(String::from_utf8_lossy(&data).contains(b["uid"].as_str().unwrap()));
        }
        other => panic!("{other:?}"),
    }
    let mut w = ctx(&demo::INBOX, "org1");
    w.workspace = Some("ws1".into());
    let email = json(&sb, &w, "demo_inbox_emails_list", json!({})).await["data"][0].clone();
    let link = json(&sb, &w, "demo_inbox_email_eml", json!({"id": email["id"]})).await;
    let url = link["url"].as_str().unwrap();
    assert!(
        url.starts_with("http://127.0.0.1:8080/files/demo_inbox/emails/"),
        "{url}"
    );
    assert!(link["expires_at"].is_string());
    assert!(url.contains("&sig="));
}

#[tokio::test]
async fn custom_operations_are_unsupported() {
    let dir = tempfile::tempdir().unwrap();
    let sb = open(dir.path());
    let c = ctx(&demo::PRODUCT, "org1");
    let err = call(&sb, &c, "demo_report", json!({})).await.unwrap_err();
    assert!(matches!(err, BackendError::Unsupported(ref m) if m.contains("demo_report")));
}

#[tokio::test]
async fn reseed_and_reset() {
    let dir = tempfile::tempdir().unwrap();
    let sb = open(dir.path());
    let c = ctx(&demo::PRODUCT, "org1");
    json(&sb, &c, "demo_bank_billet_create", json!({"amount": 1})).await;
    assert_eq!(all_billets(&sb, &c).await.len(), 31);
    let out = sb
        .reseed(&demo::PRODUCT, &[Sandbox::demo_scope(&demo::PRODUCT)])
        .unwrap();
    assert_eq!(out.len(), 2, "the used scope and the demo scope");
    assert_eq!(out[0].1["bank_billets"], 30);
    assert_eq!(all_billets(&sb, &c).await.len(), 30);
    assert!(sb.reset(&demo::PRODUCT).unwrap() > 0);
    assert_eq!(
        all_billets(&sb, &c).await.len(),
        30,
        "seeded again on next use"
    );
}

/// Issue 12, finding 9, in the embedded sandbox (not only behind `serve-api`): a record that
/// references an unknown id, or an id of another organization, is refused naming the field, and
/// nothing is written; a reference of the caller's own organization is accepted.
#[tokio::test]
async fn records_referencing_unknown_or_foreign_ids_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let sb = open(dir.path());
    let mine = ctx(&demo::PRODUCT, "org1");
    let theirs = ctx(&demo::PRODUCT, "org2");
    let customers = json(&sb, &mine, "demo_customers_list", json!({"per_page": 1})).await;
    let first = &customers["data"][0];
    let customer = first["uid"]
        .as_str()
        .or(first["id"].as_str())
        .expect("a seeded customer")
        .to_string();
    let before = all_billets(&sb, &mine).await.len();
    let ok = json(
        &sb,
        &mine,
        "demo_bank_billet_create",
        json!({"amount": 3.0, "customer_id": customer}),
    )
    .await;
    assert_eq!(ok["customer_id"], json!(customer));
    let theirs_before = all_billets(&sb, &theirs).await.len();
    for (c, id) in [(&mine, "no-such-customer"), (&theirs, customer.as_str())] {
        match call(
            &sb,
            c,
            "demo_bank_billet_create",
            json!({"amount": 4.0, "customer_id": id}),
        )
        .await
        {
            Err(BackendError::Invalid(m)) => {
                assert!(m.contains("`customer_id`") && m.contains(id), "{m}")
            }
            other => panic!("{id}: {other:?}"),
        }
    }
    assert_eq!(
        all_billets(&sb, &mine).await.len(),
        before + 1,
        "only the valid one"
    );
    assert_eq!(all_billets(&sb, &theirs).await.len(), theirs_before);
}

/// A list without filters is paged by the store (only the page's rows are read); with filters,
/// after them. Both give the same pages in the same order, a page past the end is empty, and a
/// page number too large to be an offset is an empty page, not a failure.
#[tokio::test]
async fn store_paging_and_filtered_paging_agree() {
    let dir = tempfile::tempdir().unwrap();
    let sb = open(dir.path());
    let c = ctx(&demo::PRODUCT, "org1");
    let all = all_billets(&sb, &c).await;
    assert!(all.len() > 14, "enough billets to page: {}", all.len());
    // A date range every record is in: the filtered path, selecting everything.
    let everything = json!({"created_from": "1900-01-01"});
    for (page, per_page) in [(1u64, 7u64), (2, 7), (3, 5), (1, 100)] {
        let plain = json(
            &sb,
            &c,
            "demo_bank_billets_list",
            json!({"page": page, "per_page": per_page}),
        )
        .await;
        let mut filtered_args = everything.clone();
        filtered_args["page"] = json!(page);
        filtered_args["per_page"] = json!(per_page);
        let filtered = json(&sb, &c, "demo_bank_billets_list", filtered_args).await;
        assert_eq!(plain, filtered, "page {page} of {per_page}");
        let start = ((page - 1) * per_page) as usize;
        let expected: Vec<Value> = all
            .iter()
            .skip(start)
            .take(per_page as usize)
            .cloned()
            .collect();
        assert_eq!(
            plain.as_array().unwrap(),
            &expected,
            "page {page} of {per_page}"
        );
    }
    // The envelope's next/prev links come from the same one-row look-ahead.
    let customers = json(&sb, &c, "demo_customers_list", json!({"per_page": 100})).await;
    let n = customers["data"].as_array().unwrap().len() as u64;
    let last = json(
        &sb,
        &c,
        "demo_customers_list",
        json!({"per_page": n - 1, "page": 2}),
    )
    .await;
    assert_eq!(last["data"].as_array().unwrap().len(), 1);
    assert!(last["pagination"]["next_url"].is_null());
    let exact = json(&sb, &c, "demo_customers_list", json!({"per_page": n})).await;
    assert!(
        exact["pagination"]["next_url"].is_null(),
        "no page after an exact fit"
    );
    let before = json(&sb, &c, "demo_customers_list", json!({"per_page": n - 1})).await;
    assert!(before["pagination"]["next_url"].is_string());
    for args in [
        json!({"page": 1000}),
        json!({"page": u64::MAX, "per_page": 50}),
    ] {
        let past = json(&sb, &c, "demo_bank_billets_list", args.clone()).await;
        assert_eq!(past, json!([]), "{args}");
        let mut filtered = everything.clone();
        filtered
            .as_object_mut()
            .unwrap()
            .extend(args.as_object().unwrap().clone());
        let past = json(&sb, &c, "demo_bank_billets_list", filtered).await;
        assert_eq!(past, json!([]), "{args} filtered");
    }
}

/// A new data directory and what the sandbox creates in it are its owner's only (issue 37): the
/// key signs download links, the database holds every record.
#[cfg(unix)]
#[tokio::test]
async fn a_new_data_directory_and_its_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("data");
    let sb = open(&dir);
    let c = ctx(&demo::PRODUCT, "org1");
    json(&sb, &c, "demo_customers_list", json!({})).await;
    let mode = |name: &str| {
        let path = dir.join(name);
        let meta = std::fs::metadata(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        meta.permissions().mode() & 0o777
    };
    assert_eq!(mode(""), 0o700, "the data directory");
    assert_eq!(mode("signing.key"), 0o600, "the signing key");
    assert_eq!(mode("sandbox.sqlite3"), 0o600, "the database");
    assert_eq!(mode("sandbox.sqlite3-wal"), 0o600, "the database's WAL");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with('.')),
        "nothing is left of building them: {names:?}"
    );
}

/// A data directory without a database is seeded; one whose database file was emptied, or is
/// another program's, is refused with the file's path and what to do, and left as it was
/// (issue 37: an emptied file was seeded again, its records lost without a word).
#[tokio::test]
async fn an_emptied_or_foreign_database_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(&demo::PRODUCT, "org1");
    {
        let sb = open(dir.path());
        let v = json(&sb, &c, "demo_customers_list", json!({})).await;
        assert!(
            !v["data"].as_array().unwrap().is_empty(),
            "a new one is seeded"
        );
    }
    let db = dir.path().join("sandbox.sqlite3");
    for leftover in ["sandbox.sqlite3-wal", "sandbox.sqlite3-shm"] {
        let _ = std::fs::remove_file(dir.path().join(leftover));
    }
    std::fs::File::create(&db).unwrap().set_len(0).unwrap();
    let err =
        Sandbox::open(&SandboxConfig::new(dir.path())).expect_err("an emptied database is refused");
    let text = err.to_string();
    assert!(text.contains(&db.display().to_string()), "{text}");
    assert!(text.contains("empty"), "{text}");
    assert!(text.contains("restore it from a backup"), "{text}");
    assert_eq!(std::fs::metadata(&db).unwrap().len(), 0, "left as it was");

    std::fs::remove_file(&db).unwrap();
    {
        let other = rusqlite::Connection::open(&db).unwrap();
        other
            .execute_batch("CREATE TABLE invoices (id TEXT); INSERT INTO invoices VALUES ('x');")
            .unwrap();
    }
    let err = Sandbox::open(&SandboxConfig::new(dir.path()))
        .expect_err("another program's database is refused");
    let text = err.to_string();
    assert!(text.contains(&db.display().to_string()), "{text}");
    assert!(text.contains("another program's database"), "{text}");
    let kept: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT count(*) FROM invoices", [], |r| r.get(0))
        .unwrap();
    assert_eq!(kept, 1, "its data stays");
}

//! The promises of issue 15 kept on the sandbox, through the real HTTP server: every tool has a
//! sandbox behaviour, finance's latest balance, completions capped at 100 with `hasMore`, each
//! template's `{uid}` completing its own type, the six templates without a Kobana read served,
//! the collection prompt's e-mail step, list pages of 100, empty required prompt arguments
//! refused, and the same seed giving the same records.

#[path = "confirmation_harness/mod.rs"]
mod harness;

use runtime_model::catalog::{Binding, Operation};
use serde_json::{json, Value};

/// Tools whose call the sandbox cannot execute: a `custom` operation bound to HTTP, or the
/// handler that only ever answers `not_available`.
fn without_sandbox_behaviour(product: &runtime_model::catalog::Product) -> Vec<&'static str> {
    product
        .tools
        .iter()
        .filter(|t| match t.binding {
            Binding::Http(_) => matches!(t.operation, Operation::Custom),
            Binding::Extension(h) => h == "unavailable_template",
        })
        .map(|t| t.name)
        .collect()
}

#[test]
fn every_tool_of_every_product_has_sandbox_behaviour() {
    let mut missing = Vec::new();
    for &p in generated::PRODUCTS {
        for name in without_sandbox_behaviour(p) {
            missing.push(format!("{}: {name}", p.name));
        }
    }
    assert!(
        missing.is_empty(),
        "no sandbox behaviour:\n{}",
        missing.join("\n")
    );
}

#[tokio::test]
async fn who_am_i_and_the_collection_e_mail_step_work_on_the_sandbox() {
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client("banking", "demo-full");
    // "Who am I" is the caller: two people of one organization get themselves, not a seeded
    // account.
    let me = c
        .call_tool("banking_admin_me_get", json!({}), None, None)
        .await;
    let colleague = s
        .client("banking", "demo-colleague")
        .call_tool("banking_admin_me_get", json!({}), None, None)
        .await;
    let (mine, theirs) = (
        &me.result()["structuredContent"]["data"],
        &colleague.result()["structuredContent"]["data"],
    );
    assert!(mine["user"]["uid"].is_string(), "{}", me.body);
    assert_ne!(
        mine["user"]["uid"], theirs["user"]["uid"],
        "{} / {}",
        me.body, colleague.body
    );
    assert_eq!(
        mine["account"]["uid"], theirs["account"]["uid"],
        "one organization"
    );
    assert!(mine["access_token"]["scopes"].is_array(), "{}", me.body);

    // The prompt says where the account id comes from, on the sandbox and against the live API.
    let prompt = c
        .request(
            "prompts/get",
            json!({"name": "banking_charge_collect_overdue_bank_billets", "arguments": {}}),
        )
        .await;
    let text = prompt.result()["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a prompt: {}", prompt.body));
    assert!(
        text.contains("banking_automation_email_account_list"),
        "{text}"
    );
    assert!(text.contains("email_account_id"), "{text}");
    let accounts = c
        .call_tool(
            "banking_automation_email_account_list",
            json!({}),
            None,
            None,
        )
        .await;
    let account_id = harness::records_of(&accounts)[0]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("an e-mail account with a numeric id: {}", accounts.body));
    let overdue = c
        .call_tool(
            "banking_charge_bank_billet_list",
            json!({"status": "overdue"}),
            None,
            None,
        )
        .await;
    let billet = harness::records_of(&overdue)[0]["uid"]
        .as_str()
        .unwrap_or_else(|| panic!("an overdue billet: {}", overdue.body))
        .to_string();
    let sent = c
        .call_tool(
            "banking_charge_bank_billet_send_email",
            json!({"id": billet, "form": {"email_account_id": account_id}}),
            None,
            None,
        )
        .await;
    let result = sent.result();
    assert_ne!(result["isError"], json!(true), "{}", sent.body);
    assert!(
        sent.body.to_string().contains("data_email_deliveries"),
        "sending creates an e-mail delivery: {}",
        sent.body
    );
}

fn text_of(a: &harness::Answer) -> Value {
    let text = a.result()["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text content: {}", a.body));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("JSON text ({e}): {text}"))
}

#[tokio::test]
async fn finance_latest_balance_is_one_record_and_unknown_accounts_are_not_found() {
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client("finance", "demo-full");
    let accounts = c
        .call_tool("finance_financial_accounts_list", json!({}), None, None)
        .await;
    let accounts = harness::records_of(&accounts);
    let mut found = None;
    for a in &accounts {
        let id = a["id"]
            .as_str()
            .or_else(|| a["uid"].as_str())
            .unwrap_or_default();
        let balances = c
            .call_tool(
                "finance_balances_list",
                json!({"account_id": id, "per_page": 50}),
                None,
                None,
            )
            .await;
        let rows = harness::records_of(&balances);
        if !rows.is_empty() {
            found = Some((id.to_string(), rows));
            break;
        }
    }
    let (account, all) = found.expect("an account with balances");
    let newest = all
        .iter()
        .filter(|b| b["account_id"] == json!(account))
        .filter_map(|b| b["date"].as_str())
        .max()
        .expect("a date")
        .to_string();
    let uri = format!("kobana://finance/financial-accounts/{account}/balances/latest");
    let read = c.request("resources/read", json!({"uri": uri})).await;
    let v = text_of(&read);
    let record = v.get("data").unwrap_or(&v);
    assert!(record.is_object(), "one balance, not a list: {v}");
    assert_eq!(record["account_id"], json!(account));
    assert_eq!(record["date"], json!(newest));

    let unknown = "kobana://finance/financial-accounts/acc_nope/balances/latest";
    let modern = c.request("resources/read", json!({"uri": unknown})).await;
    // The runtime's not-found codes by era: -32602 on 2026-07-28, -32002 on the 2025 revisions.
    assert_eq!(modern.error()["code"], json!(-32602), "{}", modern.body);
    let legacy = s
        .client("finance", "demo-full")
        .legacy("2025-11-25")
        .request("resources/read", json!({"uri": unknown}))
        .await;
    assert_eq!(legacy.error()["code"], json!(-32002), "{}", legacy.body);
}

async fn complete(c: &harness::Client, reference: Value, arg: &str, value: &str) -> Value {
    let a = c
        .request(
            "completion/complete",
            json!({"ref": reference, "argument": {"name": arg, "value": value}}),
        )
        .await;
    a.result()["completion"].clone()
}

#[tokio::test]
async fn billet_uid_completion_gives_the_100_most_recent_and_says_there_are_more() {
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client("banking", "demo-full");
    let prompt = json!({"type": "ref/prompt", "name": "banking_charge_explain_bank_billet"});
    let got = complete(&c, prompt.clone(), "bank_billet_uid", "").await;
    let values = got["values"].as_array().expect("values");
    assert_eq!(values.len(), 100, "{got}");
    assert_eq!(
        got["hasMore"],
        json!(true),
        "more than 100 billets exist: {got}"
    );
    let first = values[0].as_str().expect("a uid");
    let narrowed = complete(&c, prompt, "bank_billet_uid", &first[..first.len() - 2]).await;
    assert!(narrowed["values"]
        .as_array()
        .is_some_and(|v| v.contains(&json!(first))));
}

#[tokio::test]
async fn each_templates_uid_completes_uids_that_resolve_in_that_template() {
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client("banking", "demo-full");
    let product = generated::product("banking").expect("banking");
    let mut broken = Vec::new();
    for t in product.templates {
        if !t.uri_template.ends_with("/{uid}") || !t.completions.iter().any(|(v, _)| *v == "uid") {
            continue;
        }
        let got = complete(
            &c,
            json!({"type": "ref/resource", "uri": t.uri_template}),
            "uid",
            "",
        )
        .await;
        let values: Vec<&str> = got["values"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if values.is_empty() {
            broken.push(format!("{}: no value", t.uri_template));
        }
        // The first, a middle and the last suggestion each read.
        for uid in [values.first(), values.get(values.len() / 2), values.last()]
            .into_iter()
            .flatten()
        {
            let uri = t.uri_template.replace("{uid}", uid);
            let read = c.request("resources/read", json!({"uri": uri})).await;
            if read.body.get("error").is_some() {
                broken.push(format!("{uri}: {}", read.body));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[tokio::test]
async fn list_tools_give_100_records_when_asked_for_100() {
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client("billing", "demo-full");
    let page = c
        .call_tool(
            "billing_invoices_list",
            json!({"per_page": 100}),
            None,
            None,
        )
        .await;
    let n = harness::records_of(&page).len();
    assert_eq!(n, 100, "{}", page.body);
}

#[tokio::test]
async fn an_empty_required_prompt_argument_is_refused_by_name() {
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client("banking", "demo-full");
    let a = c
        .request(
            "prompts/get",
            json!({"name": "banking_charge_explain_bank_billet", "arguments": {"bank_billet_uid": " "}}),
        )
        .await;
    assert_eq!(a.error()["code"], json!(-32602), "{}", a.body);
    assert!(a.body.to_string().contains("bank_billet_uid"), "{}", a.body);
}

#[tokio::test]
async fn two_fresh_data_directories_with_the_same_seed_hold_the_same_ids() {
    let mut ids = Vec::new();
    for _ in 0..2 {
        let s = harness::start(harness::Options::all_products()).await;
        let c = s.client("banking", "demo-full");
        let page = c
            .call_tool("banking_charge_bank_billet_list", json!({}), None, None)
            .await;
        let got: Vec<Value> = harness::records_of(&page)
            .iter()
            .map(|r| r["uid"].clone())
            .collect();
        assert!(!got.is_empty());
        ids.push(got);
    }
    assert_eq!(ids[0], ids[1]);
}

#[tokio::test]
async fn inbox_usage_is_the_last_30_days_aggregated() {
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client("inbox", "demo-full");
    let read = c
        .request("resources/read", json!({"uri": "kobana://inbox/usage"}))
        .await;
    let v = text_of(&read);
    let summary = v.get("data").unwrap_or(&v);
    assert_eq!(summary["days"], json!(30), "{summary}");
    let from = summary["from"]
        .as_str()
        .expect("a window start")
        .to_string();
    // The same window, row by row.
    let mut rows = Vec::new();
    for page in 1..=10 {
        let a = c
            .call_tool(
                "usage_list",
                json!({"date_from": from, "page": page, "per_page": 50}),
                None,
                None,
            )
            .await;
        let got = harness::records_of(&a);
        let done = got.len() < 50;
        rows.extend(got);
        if done {
            break;
        }
    }
    assert!(!rows.is_empty(), "usage in the last 30 days");
    assert_eq!(summary["records"], json!(rows.len()), "{summary}");
    for field in [
        "emails_processed",
        "agent_runs",
        "input_tokens",
        "output_tokens",
    ] {
        let want: i64 = rows.iter().filter_map(|r| r[field].as_i64()).sum();
        assert_eq!(summary["totals"][field], json!(want), "{field}: {summary}");
    }
    let cost: f64 = rows.iter().filter_map(|r| r["cost"].as_f64()).sum();
    let got = summary["totals"]["cost"].as_f64().expect("a cost");
    assert!((got - cost).abs() < 0.01, "cost {got} vs {cost}");
}

#[tokio::test]
async fn inbox_reads_the_connections_own_workspace() {
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client("inbox", "demo-full");
    let read = c
        .request(
            "resources/read",
            json!({"uri": "kobana://inbox/workspaces/ws_demo_main"}),
        )
        .await;
    let v = text_of(&read);
    let ws = v.get("data").unwrap_or(&v);
    assert_eq!(ws["uid"], json!("ws_demo_main"), "{v}");
}

#[tokio::test]
async fn finance_attachment_download_tool_describes_the_file_and_the_resource_is_the_file() {
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client("finance", "demo-full");
    let list = c
        .call_tool(
            "finance_attachments_list",
            json!({"per_page": 50}),
            None,
            None,
        )
        .await;
    let all = harness::records_of(&list);
    let xml = all
        .iter()
        .find(|a| {
            a["content_type"]
                .as_str()
                .is_some_and(|t| t.contains("xml"))
        })
        .unwrap_or_else(|| panic!("an XML attachment: {}", list.body));
    let id = xml["uid"].as_str().expect("a uid");
    let tool = c
        .call_tool(
            "finance_attachments_download",
            json!({"attachment_id": id}),
            None,
            None,
        )
        .await;
    let shown = tool.result()["content"].to_string();
    assert!(
        !shown.contains("<?xml"),
        "the tool describes, it does not inline: {shown}"
    );
    assert!(shown.contains("sha256"), "{shown}");
    let uri = format!("kobana://finance/attachments/{id}/download");
    let read = c.request("resources/read", json!({"uri": uri})).await;
    let text = read.result()["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("the XML as text: {}", read.body));
    assert!(text.starts_with("<?xml"), "{text}");
}

#[tokio::test]
async fn the_darf_template_reads_only_darfs() {
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client("banking", "demo-full");
    let list = c
        .call_tool(
            "banking_payment_payment_list",
            json!({"per_page": 50}),
            None,
            None,
        )
        .await;
    let payments = harness::records_of(&list);
    let of_kind = |darf: bool| {
        payments
            .iter()
            .find(|p| (p["kind"] == json!("darf")) == darf)
            .and_then(|p| p["uid"].as_str())
            .unwrap_or_else(|| panic!("a payment (darf: {darf}): {}", list.body))
            .to_string()
    };
    let darf = of_kind(true);
    let read = c
        .request(
            "resources/read",
            json!({"uri": format!("kobana://banking/payment/darfs/{darf}")}),
        )
        .await;
    assert!(
        read.result()["contents"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains(&darf)),
        "{}",
        read.body
    );
    let other = of_kind(false);
    let read = c
        .request(
            "resources/read",
            json!({"uri": format!("kobana://banking/payment/darfs/{other}")}),
        )
        .await;
    assert_eq!(
        read.error()["code"],
        json!(-32602),
        "not a DARF: {}",
        read.body
    );
}

#[tokio::test]
async fn statement_summary_answers_totals_per_group_not_transactions() {
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client("banking", "demo-full");
    let accounts = c
        .call_tool("banking_financial_account_list", json!({}), None, None)
        .await;
    let account = harness::records_of(&accounts)[0]["uid"]
        .as_str()
        .unwrap_or_else(|| panic!("an account: {}", accounts.body))
        .to_string();
    let lines = c
        .call_tool(
            "banking_financial_statement_transaction_list",
            json!({"financial_account_uid": account, "per_page": 100}),
            None,
            None,
        )
        .await;
    let lines = harness::records_of(&lines);
    assert!(!lines.is_empty(), "the account has statement lines");
    let summary = c
        .call_tool(
            "banking_financial_statement_transaction_summarize",
            json!({"financial_account_uid": account, "group_by": "month,kind"}),
            None,
            None,
        )
        .await;
    let result = summary.result();
    assert_ne!(result["isError"], json!(true), "{}", summary.body);
    let groups = result["structuredContent"]["data"]
        .as_array()
        .unwrap_or_else(|| panic!("groups: {}", summary.body));
    let count: u64 = groups.iter().filter_map(|g| g["count"].as_u64()).sum();
    assert_eq!(
        count as usize,
        lines.len(),
        "every line in one group: {}",
        summary.body
    );
    for g in groups {
        assert!(g["month"].as_str().is_some_and(|m| m.len() == 7), "{g}");
        assert!(
            matches!(g["kind"].as_str(), Some("credit" | "debit")),
            "{g}"
        );
        assert!(g.get("uid").is_none(), "a group, not a transaction: {g}");
        let (credit, debit, net) = (
            g["credit_total"].as_f64().unwrap_or(f64::NAN),
            g["debit_total"].as_f64().unwrap_or(f64::NAN),
            g["net_total"].as_f64().unwrap_or(f64::NAN),
        );
        assert!((credit - debit - net).abs() < 0.01, "{g}");
        if g["kind"] == json!("debit") {
            assert_eq!(credit, 0.0, "a debit group has no credits: {g}");
        }
    }
    // The totals are the lines' own sums.
    let debits: f64 = lines
        .iter()
        .filter_map(|l| l["amount"].as_f64())
        .filter(|a| *a < 0.0)
        .map(f64::abs)
        .sum();
    let grouped: f64 = groups
        .iter()
        .filter_map(|g| g["debit_total"].as_f64())
        .sum();
    assert!((debits - grouped).abs() < 0.05, "{debits} vs {grouped}");

    let bad = c
        .call_tool(
            "banking_financial_statement_transaction_summarize",
            json!({"financial_account_uid": account, "group_by": "color"}),
            None,
            None,
        )
        .await;
    assert!(
        bad.body.to_string().contains("`color`"),
        "an unknown dimension is named: {}",
        bad.body
    );
}

/// Billing's id completions search the whole listing, as its document says ("busca na listagem
/// correspondente"), not only the 100 newest records; `total` agrees with the values and
/// `hasMore` (issue 38: `hasMore: true` with `total: 0`).
#[tokio::test]
async fn id_completions_search_the_whole_listing_and_count_what_they_found() {
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client("billing", "demo-full");
    let template = json!({"type": "ref/resource", "uri": "kobana://billing/invoices/{id}"});
    let every = complete(&c, template.clone(), "id", "").await;
    let values = every["values"].as_array().expect("values");
    let total = every["total"].as_u64().expect("a total") as usize;
    assert_eq!(values.len(), 100, "{every}");
    assert!(total > 100, "120 invoices are seeded: {every}");
    assert_eq!(every["hasMore"], json!(true), "{every}");

    // The oldest invoice is past the 100 newest: its id's prefix still finds it, alone.
    let pages = [1, 2, 3];
    let mut ids = Vec::new();
    for page in pages {
        let listed = c
            .call_tool(
                "billing_invoices_list",
                json!({"page": page, "per_page": 50}),
                None,
                None,
            )
            .await;
        let text = listed.result()["content"][0]["text"]
            .as_str()
            .unwrap_or("{}")
            .to_string();
        let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let items = v
            .get("data")
            .unwrap_or(&v)
            .as_array()
            .cloned()
            .unwrap_or_default();
        ids.extend(
            items
                .iter()
                .filter_map(|i| i["id"].as_str().map(str::to_string)),
        );
    }
    assert_eq!(ids.len(), total, "the listing holds the total");
    let oldest = ids.last().expect("an invoice").clone();
    let prefix = (8..oldest.len())
        .map(|n| &oldest[..n])
        .find(|p| ids.iter().filter(|i| i.starts_with(p)).count() == 1)
        .expect("a prefix only the oldest has");
    let one = complete(&c, template.clone(), "id", prefix).await;
    assert_eq!(one["values"], json!([oldest]), "{one}");
    assert_eq!(
        (one["total"].clone(), one["hasMore"].clone()),
        (json!(1), json!(false)),
        "{one}"
    );

    let none = complete(&c, template, "id", "no-such-id").await;
    assert_eq!(none["values"], json!([]), "{none}");
    assert_eq!(
        (none["total"].clone(), none["hasMore"].clone()),
        (json!(0), json!(false)),
        "{none}"
    );
}

/// The parsed answer of a tool call (its text content).
fn answer_of(r: &harness::Answer) -> Value {
    let text = r.result()["content"][0]["text"].as_str().unwrap_or("null");
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// `banking_charge_explain_bank_billet` names the filter value that finds the billet's payments:
/// followed as written, step 2 lists them (issue 38: given the uid, the filter found none).
#[tokio::test]
async fn explaining_a_billet_finds_its_payments_by_the_filter_the_prompt_gives() {
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client("banking", "demo-full");
    let payments = answer_of(
        &c.call_tool(
            "banking_charge_bank_billet_payment_list",
            json!({"per_page": 1}),
            None,
            None,
        )
        .await,
    );
    let paid_id = payments[0]["bank_billet_id"].clone();
    let billets = answer_of(
        &c.call_tool(
            "banking_charge_bank_billet_list",
            json!({"per_page": 50}),
            None,
            None,
        )
        .await,
    );
    let mut uid = None;
    for page in 1..=3 {
        let listed = answer_of(
            &c.call_tool(
                "banking_charge_bank_billet_list",
                json!({"page": page, "per_page": 50}),
                None,
                None,
            )
            .await,
        );
        uid = uid.or_else(|| {
            listed
                .as_array()
                .into_iter()
                .flatten()
                .find(|b| b["id"] == paid_id)
                .map(|b| b["uid"].clone())
        });
    }
    let uid = uid.unwrap_or_else(|| panic!("billet {paid_id} in {billets}"));
    let prompt = c
        .request(
            "prompts/get",
            json!({"name": "banking_charge_explain_bank_billet", "arguments": {"bank_billet_uid": uid}}),
        )
        .await;
    let text = prompt.result()["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    // In the product's language: the filter, and the answer field that fills it.
    assert!(
        text.contains("`bank_billet_id`") && text.contains("`id`"),
        "{text}"
    );
    // Step 1, then step 2 as written.
    let billet = answer_of(
        &c.call_tool(
            "banking_charge_bank_billet_get",
            json!({"id": uid}),
            None,
            None,
        )
        .await,
    );
    let id = billet.get("data").unwrap_or(&billet)["id"].clone();
    assert_eq!(id, paid_id, "{billet}");
    let found = answer_of(
        &c.call_tool(
            "banking_charge_bank_billet_payment_list",
            json!({"bank_billet_id": id.to_string()}),
            None,
            None,
        )
        .await,
    );
    let found = found.as_array().cloned().unwrap_or_default();
    assert!(!found.is_empty(), "no payment of billet {id}");
    assert!(found.iter().all(|p| p["bank_billet_id"] == id), "{found:?}");
}

/// The templates (with their reading tool and owner key) whose records are addressed by their
/// owner's uid while carrying a `uid` of their own: the mailbox channels, found from the
/// catalog as the runtime finds them.
fn owner_keyed_templates(
    product: &'static runtime_model::catalog::Product,
) -> Vec<(
    &'static runtime_model::catalog::Template,
    &'static runtime_model::catalog::Tool,
    runtime_model::catalog::OwnerKey,
)> {
    product
        .templates
        .iter()
        .filter_map(|t| {
            let tool = product.tool(t.read_by)?;
            let key = product.record(tool.record_type()?)?.keyed_by_owner?;
            Some((t, tool, key))
        })
        .collect()
}

/// Issue 38: a mailbox channel is read by its mailbox entry's uid; a reader who tries the
/// channel's own `uid` (the one its record shows) is told, in their language and in either
/// protocol era, that the address takes the entry's uid, and (the sandbox holds the channels)
/// which address reads that channel. Reading by the entry's uid still works.
#[tokio::test]
async fn reading_a_mailbox_channel_by_its_own_uid_names_the_entry_address() {
    let s = harness::start(harness::Options::all_products()).await;
    let product = generated::product("banking").expect("banking");
    let keyed = owner_keyed_templates(product);
    assert_eq!(keyed.len(), 5, "the five mailbox channel templates");
    let modern = s.client("banking", "demo-full");
    let eras = [
        ("2026", modern.clone()),
        ("2025", modern.clone().legacy("2025-06-18")),
    ];
    for (i, (t, _tool, key)) in keyed.iter().enumerate() {
        let entries = complete(
            &modern,
            json!({"type": "ref/resource", "uri": t.uri_template}),
            "uid",
            "",
        )
        .await;
        let entry = entries["values"][0]
            .as_str()
            .unwrap_or_else(|| panic!("{}: an entry uid to read: {entries}", t.uri_template));
        let by_entry = t.uri_template.replace("{uid}", entry);
        for (era, c) in &eras {
            let record = text_of(&c.request("resources/read", json!({"uri": by_entry})).await);
            let own = record[key.own_uid_field]
                .as_str()
                .unwrap_or_else(|| panic!("{era} {by_entry}: the channel's own uid: {record}"));
            assert_ne!(own, entry, "the channel's own uid is not its entry's");
            let by_own = t.uri_template.replace("{uid}", own);
            // pt-BR and es, taking turns over the templates; one English read of the first.
            let langs: &[(&str, &str)] = match i % 2 {
                0 => &[("pt-BR", "é o `uid` próprio"), ("en", "is the own `uid`")],
                _ => &[("es", "es el `uid` propio")],
            };
            for (lang, words) in langs {
                let answer = c
                    .clone()
                    .with_language(lang)
                    .request("resources/read", json!({"uri": by_own}))
                    .await;
                let error = answer.error();
                let wanted_code = if *era == "2026" { -32602 } else { -32002 };
                assert_eq!(error["code"], json!(wanted_code), "{era} {lang}: {error}");
                let message = error["message"].as_str().unwrap_or_default();
                let hint = error["data"]["hint"].as_str().unwrap_or_default();
                for text in [message, hint] {
                    assert!(
                        text.contains(words) && text.contains(&by_entry) && text.contains(own),
                        "{era} {lang} {by_own}: the answer names {by_entry}: {error}"
                    );
                }
            }
        }
    }
}

/// The channel tools say the same: `get`, `update` and `delete` called with the channel's own
/// uid are not found, with a hint naming the `entry_id` to call them with (the destructive ones
/// refused by the confirmation gate's read on a 2026 client, run and not found on a 2025 one);
/// a uid that is no channel's gets the general hint naming the entry list tool.
#[tokio::test]
async fn mailbox_channel_tools_called_with_the_channels_own_uid_name_the_entry_uid() {
    let s = harness::start(harness::Options::all_products()).await;
    let product = generated::product("banking").expect("banking");
    let (t, get, key) = owner_keyed_templates(product)[0];
    let modern = s.client("banking", "demo-full").with_language("pt-BR");
    let entries = complete(
        &modern,
        json!({"type": "ref/resource", "uri": t.uri_template}),
        "uid",
        "",
    )
    .await;
    let entry = entries["values"][0].as_str().expect("an entry uid");
    let record = text_of(
        &modern
            .request(
                "resources/read",
                json!({"uri": t.uri_template.replace("{uid}", entry)}),
            )
            .await,
    );
    let own = record[key.own_uid_field].as_str().expect("own uid");
    let runtime_model::catalog::Operation::Get {
        record: rname,
        id_arg,
    } = get.operation
    else {
        panic!("{} is a get", get.name);
    };
    let writes: Vec<&str> = product
        .tools
        .iter()
        .filter(|x| match x.operation {
            runtime_model::catalog::Operation::Update { record, .. }
            | runtime_model::catalog::Operation::Delete { record, .. } => record == rname,
            _ => false,
        })
        .map(|x| x.name)
        .collect();
    assert_eq!(writes.len(), 2, "update and delete of {rname}: {writes:?}");
    let clients = [
        ("2026 pt-BR", modern.clone(), "chame"),
        (
            "2025 es",
            modern.clone().with_language("es").legacy("2025-06-18"),
            "llama a",
        ),
    ];
    for (who, c, verb) in &clients {
        for name in std::iter::once(get.name).chain(writes.iter().copied()) {
            let answer = c.call_tool(name, json!({ id_arg: own }), None, None).await;
            assert_eq!(
                answer.tool_error_code().as_deref(),
                Some("not_found"),
                "{who} {name}: {}",
                answer.body
            );
            let hint = answer.result()["structuredContent"]["error"]["hint"]
                .as_str()
                .unwrap_or_default();
            let wanted = format!("`{id_arg}` = `{entry}`");
            assert!(
                hint.contains(verb) && hint.contains(&wanted) && hint.contains(name),
                "{who} {name}: the hint names {wanted}: {}",
                answer.body
            );
            // The model reads the text block: it carries the hint too.
            let text = answer.result()["content"][0]["text"]
                .as_str()
                .unwrap_or_default();
            assert!(text.contains(&wanted), "{who} {name}: {text}");
        }
        // Nobody's uid: where to find the right one.
        let answer = c
            .call_tool(get.name, json!({ id_arg: "no-such-uid" }), None, None)
            .await;
        let hint = answer.result()["structuredContent"]["error"]["hint"]
            .as_str()
            .unwrap_or_default();
        assert!(
            hint.contains(key.owner_list_tool) && hint.contains(&format!("`{id_arg}`")),
            "{who}: the general hint names {}: {}",
            key.owner_list_tool,
            answer.body
        );
    }
    // The channel is still there: nothing was deleted or changed.
    let again = text_of(
        &modern
            .request(
                "resources/read",
                json!({"uri": t.uri_template.replace("{uid}", entry)}),
            )
            .await,
    );
    assert_eq!(again, record);
}

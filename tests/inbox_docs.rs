//! The inbox product document against the inbox catalog, its generated docs and its sandbox.
//!
//! `../shared/product-docs/004_696ebcfc2bcd0447.txt` (es) is the specification: every URI of its
//! resources table, the rule that secrets have no resource, every prompt with its arguments,
//! formats and defaults, every completion rule, the destructive rule (with the tools it names) and
//! the confirmation policy. These tests read its facts (`catalog/facts/product-docs/inbox.json`,
//! derived from the document by `cargo run -p codegen-tools -- facts --write`, verified by `facts
//! --check`) and check that each statement is in the
//! compiled catalog (`generated::product`) and in `generated/docs/inbox.md`, so nothing in the
//! document can be missing and nothing is served as a resource that the document does not name.
//! The sandbox part checks that the seed data gives every prompt something to find, and that the
//! actions the catalog declares behave.
//!
//! The sandbox and the checks every es product document shares are in
//! `product_doc::es`; the tests below pass it what is particular to inbox.

#[path = "product_doc/mod.rs"]
mod product_doc;

use std::collections::BTreeSet;

use runtime::catalog::{Binding, ContentKind, Operation};
use serde_json::{json, Value};

use product_doc::es::{
    self, all_uris, complete, input_properties, list_ids_tool, prompt_text, read_by_of, text,
};
use product_doc::harness;
use product_doc::{day, previous_month, ProductDoc};

const SPEC: es::Spec = es::Spec {
    doc: ProductDoc {
        product: "inbox",
        page: "es",
    },
    min_resources: 11,
    prompts: 4,
    workspace: "ws_inbox_test",
};

es::document_tests!(SPEC);

// ------------------------------------------------------------------------------------------------
// Resources
// ------------------------------------------------------------------------------------------------

#[test]
fn every_uri_of_the_document_is_served_with_its_mime_type_and_content_kind() {
    let f = SPEC.doc.facts();
    let p = SPEC.doc.product();
    let rows = SPEC.doc_resources(&f);
    es::the_catalog_serves_exactly_the_documented_uris(p, rows);
    assert!(f.claim("fixed_uris_listed"));
    for row in rows {
        let (mime, content) = es::served_as(p, &row.uri);
        assert_eq!(
            row.uri.contains('{'),
            p.templates.iter().any(|t| t.uri_template == row.uri)
        );
        assert!(
            row.kind.starts_with("json"),
            "every inbox resource is JSON: {}",
            row.uri
        );
        assert_eq!(
            mime, "application/json",
            "{}: JSON, as the document says",
            row.uri
        );
        if row.kind == "json-signed-url" {
            assert_eq!(
                content,
                ContentKind::SignedUrl { ttl_secs: 300 },
                "{}: a short-lived signed URL in JSON",
                row.uri
            );
        } else {
            assert_eq!(
                content,
                ContentKind::JsonRecord,
                "{}: a JSON record",
                row.uri
            );
        }
    }
}

#[test]
fn secrets_have_no_resource_not_even_metadata() {
    let f = SPEC.doc.facts();
    let p = SPEC.doc.product();
    assert!(f.claim("no_secret_resource"));
    assert!(f.claim("secrets_tools_named"));
    for uri in all_uris(p) {
        assert!(!uri.contains("secret"), "{uri} exposes secrets");
    }
    for reader in p
        .resources
        .iter()
        .map(|r| r.read_by)
        .chain(p.templates.iter().map(|t| t.read_by))
    {
        assert!(
            !reader.starts_with("secrets_"),
            "a resource is read by {reader}"
        );
    }
    assert!(
        p.record("secrets").is_some(),
        "the secrets_* tools have records to work on"
    );
    let secret_tools: Vec<&str> = p
        .tools
        .iter()
        .map(|t| t.name)
        .filter(|n| n.starts_with("secrets_"))
        .collect();
    for action in ["list", "get", "create", "update", "delete"] {
        assert!(
            secret_tools.contains(&format!("secrets_{action}").as_str()),
            "secrets_{action} exists: {secret_tools:?}"
        );
    }
    // No tool answers a secret's value: the record has no such field.
    let rt = p.record("secrets").expect("secrets");
    assert!(
        rt.fields.iter().all(|f| f.name != "value"),
        "a secret's value is never stored in a record"
    );
    let md = SPEC.doc.generated_docs();
    assert!(
        !md.lines().any(|l| l.contains("kobana://inbox/secret")),
        "the docs list no secret resource"
    );
}

#[test]
fn each_resource_is_read_by_the_tool_the_document_names_and_only_reads() {
    let f = SPEC.doc.facts();
    let p = SPEC.doc.product();
    // "(kobana://inbox/emails/{id}esemails_get)": URI, `es`, tool.
    es::the_permissions_example_is_read_by_its_tool(p, &f);
    es::fixed_resources_are_read_by_tools_that_only_read(p);
    for (uri, record) in [
        ("kobana://inbox/workspaces/{id}", "workspaces"),
        ("kobana://inbox/inboxes/{id}", "inboxes"),
        ("kobana://inbox/emails/{id}", "emails"),
        ("kobana://inbox/emails/{id}/eml", "emails"),
        ("kobana://inbox/agents/{id}", "agents"),
        ("kobana://inbox/agent-runs/{id}", "agent_runs"),
        ("kobana://inbox/workflow-runs/{id}", "workflow_runs"),
        ("kobana://inbox/webhooks/{id}", "webhooks"),
        ("kobana://inbox/system-events/{id}", "system_events"),
    ] {
        let t = es::read_by_the_get_of(p, uri, record);
        assert!(t.annotations.read_only, "{} only reads", t.name);
    }
    let models = p
        .tool(read_by_of(p, "kobana://inbox/models"))
        .expect("reader");
    assert!(matches!(
        models.operation,
        Operation::List { record: "models" }
    ));
    // "los últimos 30 días": usage is one aggregate over a 30-day window, not a page of rows.
    let usage = p
        .tool(read_by_of(p, "kobana://inbox/usage"))
        .expect("reader");
    assert!(
        matches!(
            usage.operation,
            Operation::Summary {
                record: "usage",
                days: 30
            }
        ),
        "{:?}",
        usage.operation
    );
}

#[test]
fn the_generated_docs_reproduce_the_resources_table() {
    es::the_generated_docs_reproduce_the_resources_table(&SPEC);
}

// ------------------------------------------------------------------------------------------------
// Prompts
// ------------------------------------------------------------------------------------------------

#[test]
fn every_prompt_of_the_document_has_its_arguments_formats_and_defaults() {
    es::every_prompt_of_the_document_has_its_arguments_formats_and_defaults(&SPEC);
    let p = SPEC.doc.product();
    let since = p.prompt("review_failed_runs").expect("prompt").arguments[0].default;
    assert_eq!(since, Some("today-7d"), "por defecto: últimos 7 días");
}

#[test]
fn no_prompt_writes() {
    let f = SPEC.doc.facts();
    assert!(f.claim("no_prompt_writes"));
    assert!(f.claim("all_read_only"));
    es::every_prompt_only_reads(&SPEC);
}

// ------------------------------------------------------------------------------------------------
// Completions
// ------------------------------------------------------------------------------------------------

#[test]
fn completions_follow_the_document_and_everything_else_is_empty() {
    let f = SPEC.doc.facts();
    let p = SPEC.doc.product();
    let ids = f.completions().id_args.clone();
    assert_eq!(ids, ["inbox_id", "agent_id"], "the document's id arguments");
    let mut completed_args = BTreeSet::new();
    for name in &ids {
        let from = es::arguments_completed_with_ids(p, name, &mut completed_args);
        let listed = name.trim_end_matches("_id");
        for (prompt, tool) in &from {
            assert!(
                tool.starts_with(listed),
                "{prompt}.{name} comes from {tool}"
            );
        }
        let seen = from.len();
        assert!(seen > 0, "`{name}` is an argument of some prompt");
    }
    // "y el parámetro de las plantillas de registro": every template completes its id from the
    // listing of the same record type.
    for t in p.templates {
        assert!(
            !t.completions.is_empty(),
            "{} completes its parameter",
            t.uri_template
        );
        let reader = p.tool(t.read_by).expect("reader");
        let Operation::Get { record, id_arg } = reader.operation else {
            panic!("{}: read by a get", t.uri_template)
        };
        for (var, src) in t.completions {
            assert_eq!(
                *var, id_arg,
                "{}: its only parameter is the id",
                t.uri_template
            );
            let tool = list_ids_tool(p, src, &format!("{{{var}}} of {}", t.uri_template));
            let Operation::List { record: listed } = p.tool(tool).expect("list").operation else {
                unreachable!()
            };
            assert_eq!(
                listed, record,
                "{}: ids of the same records",
                t.uri_template
            );
        }
    }
    es::months_and_sourceless_completions(p, &f, &completed_args);
}

// ------------------------------------------------------------------------------------------------
// Destructive tools and confirmation
// ------------------------------------------------------------------------------------------------

#[test]
fn destructive_tools_follow_the_document_rule_with_its_clause() {
    let f = SPEC.doc.facts();
    let p = SPEC.doc.product();
    let rule = f.destructive();
    let (sentence, verbs) = (&rule.sentence, &rule.verbs);
    assert_eq!(
        verbs.len(),
        4,
        "eliminan, envían algo hacia fuera, rotan, cambian: {verbs:?}"
    );
    es::destructive_tools_quote_the_rule(p, sentence, verbs);
    // The tools the rule names exist, are destructive, and cite the part of the rule they follow.
    let named = &rule.named;
    assert_eq!(named.len(), 2, "two groups of named tools: {named:?}");
    let mut count = 0;
    for group in named {
        let verb = verbs
            .iter()
            .find(|v| **v == group.verb)
            .unwrap_or_else(|| panic!("{:?} follow no verb of the rule", group.tools));
        for name in &group.tools {
            let t = p
                .tool(name)
                .unwrap_or_else(|| panic!("the document names {name}"));
            assert!(
                t.annotations.destructive && !t.annotations.read_only,
                "{name} is destructive"
            );
            let clause = t.destructive_clause.expect("clause");
            assert!(
                clause.contains(&format!("Here: {verb}")),
                "{name} cites `{verb}`: {clause}"
            );
            count += 1;
        }
    }
    assert_eq!(count, 5, "webhooks_test, webhooks_deliveries_replay, emails_reprocess, inboxes_add_recipient, inboxes_remove_recipient");
    // Rotating a webhook secret and deleting are destructive too; nothing else is.
    for name in [
        "webhooks_rotate_secret",
        "emails_delete",
        "secrets_delete",
        "webhooks_delete",
    ] {
        let t = p.tool(name).unwrap_or_else(|| panic!("no tool {name}"));
        assert!(t.annotations.destructive, "{name} is destructive");
    }
    for t in p.tools.iter().filter(|t| !t.annotations.destructive) {
        assert!(
            t.destructive_clause.is_none(),
            "{} carries no clause",
            t.name
        );
        assert!(
            !t.name.ends_with("_delete"),
            "{} deletes but is not marked",
            t.name
        );
    }
}

#[test]
fn the_confirmation_policy_is_the_documents() {
    es::the_confirmation_policy_is_the_documents(&SPEC, "user_declined");
}

#[test]
fn every_tool_accepts_a_workspace_and_names_follow_the_document() {
    let f = SPEC.doc.facts();
    let p = SPEC.doc.product();
    assert!(f.claim("missing_record_in_workspace"));
    assert!(p.policy.workspaced, "records live in a workspace");
    // "Las URIs viven bajo kobana://inbox/"
    assert_eq!(f.name("uri_prefix"), p.uri_prefix);
    assert_eq!(
        p.tool_prefix, "",
        "the document's tool names carry no prefix"
    );
    for t in p.tools {
        assert!(
            input_properties(p, t.name).contains_key("workspace_id"),
            "{} takes workspace_id",
            t.name
        );
        if let Binding::Http(h) = t.binding {
            assert!(
                h.query_params.contains(&"workspace_id"),
                "{}: workspace_id in the query",
                t.name
            );
        }
    }
    // Every tool name the document writes exists under that exact name.
    for name in [
        "emails_get",
        "webhooks_test",
        "webhooks_deliveries_replay",
        "emails_reprocess",
        "inboxes_add_recipient",
        "inboxes_remove_recipient",
    ] {
        assert!(f.mentions(name), "the document names {name}");
        assert!(p.tool(name).is_some(), "{name} exists");
    }
    for uri in all_uris(p) {
        assert!(
            uri.starts_with(p.uri_prefix),
            "{uri} under {}",
            p.uri_prefix
        );
    }
}

// ------------------------------------------------------------------------------------------------
// The sandbox
// ------------------------------------------------------------------------------------------------

#[test]
fn the_sandbox_seeds_every_listable_type() {
    es::the_sandbox_seeds_every_listable_type(&SPEC, &SPEC.sandbox(), &[]);
}

#[test]
fn every_inbox_prompt_has_something_to_find() {
    let s = SPEC.sandbox();
    // review_failed_runs: failed runs of the last 7 days, with a cause and the e-mail behind them.
    let since = day(-7);
    let failed = s.list_all(
        "agent_runs_list",
        json!({"status": "failed", "started_at_from": since}),
    );
    assert!(!failed.is_empty(), "failed agent runs since {since}");
    assert!(failed
        .iter()
        .all(|r| text(r, "started_at")[..10] >= since[..]));
    let causes: BTreeSet<String> = failed.iter().map(|r| text(r, "failure_cause")).collect();
    assert!(
        causes.iter().all(|c| !c.is_empty()),
        "every failed run has a cause"
    );
    let email = s.record("emails_get", json!({"id": text(&failed[0], "email_id")}));
    assert!(
        !text(&email, "subject").is_empty(),
        "the e-mail that originated the run"
    );
    let agent = text(&failed[0], "agent_id");
    assert!(!s
        .list_all(
            "agent_runs_list",
            json!({"status": "failed", "agent_id": agent})
        )
        .is_empty());
    // inbox_overview: an inbox with e-mails and an agent with runs.
    let runs = s.list_all("agent_runs_list", json!({}));
    let inbox = runs
        .iter()
        .map(|r| text(r, "inbox_id"))
        .find(|i| !s.list_all("emails_list", json!({"inbox_id": i})).is_empty())
        .expect("an inbox with e-mails and agent runs");
    let config = s.record("inboxes_get", json!({"id": inbox}));
    assert!(
        !text(&config, "address").is_empty(),
        "the inbox has an address"
    );
    assert!(
        config["recipients"]
            .as_array()
            .is_some_and(|r| !r.is_empty()),
        "who may send to it"
    );
    s.record("agents_get", json!({"id": text(&config, "agent_id")}));
    // webhook_health: failing webhooks, since when, and their failed deliveries.
    let webhooks = s.list_all("webhooks_list", json!({}));
    let failing: Vec<&Value> = webhooks
        .iter()
        .filter(|w| w["status"] == "failing")
        .collect();
    assert!(!failing.is_empty(), "failing webhooks");
    assert!(
        failing.iter().all(|w| !text(w, "failing_at").is_empty()),
        "failing since when"
    );
    assert!(
        webhooks
            .iter()
            .filter(|w| w["status"] != "failing")
            .all(|w| w["failing_at"].is_null()),
        "only failing webhooks have a failing date"
    );
    assert!(
        failing.iter().any(|w| {
            !s.list_all(
                "webhooks_deliveries_list",
                json!({"webhook_id": text(w, "uid"), "status": "failed"}),
            )
            .is_empty()
        }),
        "a failing webhook with failed deliveries"
    );
    // usage_report (a full month: the previous one), with the models' names and prices.
    let m = previous_month();
    let usage = s.list_all(
        "usage_list",
        json!({"date_from": format!("{m}-01"), "date_to": format!("{m}-31")}),
    );
    assert!(!usage.is_empty(), "usage in {m}");
    assert!(usage.iter().all(|u| text(u, "date").starts_with(&m)));
    let models = s.list_all("models_list", json!({}));
    assert!(
        models.iter().any(|x| x["uid"] == usage[0]["model_id"]),
        "the model of a usage row is listed"
    );
}

#[test]
fn the_declared_actions_behave_in_the_sandbox() {
    let s = SPEC.sandbox();
    // Reprocessing a failed e-mail puts it back in processing and queues a new agent run for it.
    let failed = s.list_all("emails_list", json!({"processing_status": "failed"}));
    let email = text(&failed[0], "uid");
    let answer = s.record("emails_reprocess", json!({"id": email}));
    assert_eq!(answer["processing_status"], "processing");
    assert_eq!(answer["agent_runs"]["email_id"], email.as_str());
    assert_eq!(answer["agent_runs"]["status"], "queued");
    // The .eml is a short-lived signed URL.
    let eml = s.call("emails_get_eml", json!({"id": email}));
    assert!(
        text(&eml, "url").starts_with("http"),
        "a download URL: {eml}"
    );
    assert!(!text(&eml, "expires_at").is_empty(), "with its expiry");
    // Testing a webhook records a delivery of `webhook.test`.
    let webhook = text(&s.list_all("webhooks_list", json!({}))[0], "uid");
    let delivery = s.record("webhooks_test", json!({"webhook_id": webhook}));
    assert_eq!(delivery["webhook_id"], webhook.as_str());
    assert_eq!(delivery["event_type"], "webhook.test");
    assert_eq!(delivery["status"], "pending");
    // Replaying a failed delivery; rotating a secret stamps it.
    let failed_d = s.list_all("webhooks_deliveries_list", json!({"status": "failed"}));
    let replayed = s.record(
        "webhooks_deliveries_replay",
        json!({"id": text(&failed_d[0], "uid")}),
    );
    assert_eq!(replayed["status"], "pending");
    let before = s.record("webhooks_get", json!({"id": webhook}));
    let rotated = s.record("webhooks_rotate_secret", json!({"id": webhook}));
    assert!(!text(&rotated, "secret_rotated_at").is_empty());
    assert_ne!(
        rotated["secret_rotated_at"], before["secret_rotated_at"],
        "the rotation is recorded"
    );
    // A secret's value goes in and never comes out.
    let created = s.record(
        "secrets_create",
        json!({"name": "ERP_TOKEN", "value": "s3cr3t"}),
    );
    assert!(
        created.get("value").is_none(),
        "no value in the answer: {created}"
    );
    let read = s.record("secrets_get", json!({"id": text(&created, "uid")}));
    assert!(
        !read.to_string().contains("s3cr3t"),
        "no value when read back"
    );
    // Who may send to an inbox: the recipients list gains and loses an address, in the sandbox.
    let inbox = text(&s.list_all("inboxes_list", json!({}))[0], "uid");
    let recipients = |v: &Value| -> Vec<String> {
        v["recipients"]
            .as_array()
            .unwrap_or_else(|| panic!("recipients is a list: {v}"))
            .iter()
            .map(|r| r.as_str().expect("an address").to_string())
            .collect()
    };
    let before = recipients(&s.record("inboxes_get", json!({"id": inbox})));
    assert!(!before.contains(&"novo@example.com.br".to_string()));
    let added = s.record(
        "inboxes_add_recipient",
        json!({"id": inbox, "email": "novo@example.com.br"}),
    );
    let mut expected = before.clone();
    expected.push("novo@example.com.br".into());
    assert_eq!(recipients(&added), expected, "the address is appended");
    assert_eq!(
        recipients(&s.record("inboxes_get", json!({"id": inbox}))),
        expected,
        "and stored"
    );
    // Adding it again changes nothing (the tool is idempotent).
    let again = s.record(
        "inboxes_add_recipient",
        json!({"id": inbox, "email": "novo@example.com.br"}),
    );
    assert_eq!(recipients(&again), expected, "no duplicate");
    let removed = s.record(
        "inboxes_remove_recipient",
        json!({"id": inbox, "email": before[0]}),
    );
    assert_eq!(
        recipients(&removed),
        expected[1..].to_vec(),
        "the address is taken out"
    );
    // Removing an address that is not there is a conflict naming it; nothing changes.
    let err = s
        .try_call(
            "inboxes_remove_recipient",
            json!({"id": inbox, "email": "ninguem@example.com.br"}),
        )
        .expect_err("not a recipient");
    let (_, cause) = err
        .split_once(": Err(")
        .unwrap_or_else(|| panic!("a backend error: {err}"));
    assert!(
        cause.starts_with("Conflict")
            && cause.contains("ninguem@example.com.br")
            && cause.contains("recipients"),
        "a conflict naming the address and the list: {err}"
    );
    assert_eq!(
        recipients(&s.record("inboxes_get", json!({"id": inbox}))),
        expected[1..].to_vec(),
        "unchanged by the refused call"
    );
}

// ------------------------------------------------------------------------------------------------
// Served end to end: the real server (HTTP transport, demo identities, sandbox backend)
// ------------------------------------------------------------------------------------------------

#[tokio::test]
async fn the_server_serves_the_documents_resources_prompts_and_completions() {
    let p = SPEC.doc.product();
    let s = es::server(SPEC.doc.product()).await;
    let c = s.client(SPEC.doc.product, "demo-full");
    let (fixed, templates) = es::lists_the_catalogs_resources(&c, p).await;
    assert!(
        !fixed
            .iter()
            .chain(templates.iter())
            .any(|r| r.to_string().contains("secret")),
        "no secret resource is listed"
    );
    // The e-mail, and its .eml as a signed URL in JSON.
    let listed = c.call_tool("emails_list", json!({}), None, None).await;
    let email = text(&harness::records_of(&listed)[0], "uid");
    let read = c
        .request(
            "resources/read",
            json!({"uri": format!("kobana://inbox/emails/{email}")}),
        )
        .await;
    assert!(read.result()["contents"][0]["text"]
        .as_str()
        .is_some_and(|t| t.contains(&email)));
    let eml = c
        .request(
            "resources/read",
            json!({"uri": format!("kobana://inbox/emails/{email}/eml")}),
        )
        .await;
    let content = &eml.result()["contents"][0];
    assert_eq!(content["mimeType"], "application/json");
    let signed: Value =
        serde_json::from_str(content["text"].as_str().expect("JSON text")).expect("JSON");
    assert!(
        text(&signed, "url").starts_with("http"),
        "a download URL: {signed}"
    );
    // Prompts render with their defaults already calculated.
    let prompts = c.list_all("prompts/list", "prompts").await;
    assert_eq!(
        prompts.len(),
        p.prompts.len(),
        "every prompt is listed for a full user"
    );
    let inboxes = complete(
        &c,
        json!({"type": "ref/prompt", "name": "inbox_overview"}),
        "inbox_id",
        "",
    )
    .await;
    assert!(!inboxes.is_empty(), "inbox ids complete");
    es::every_prompt_renders_dated(&c, p, ("inbox_overview", "inbox_id", &inboxes[0])).await;
    let review = prompt_text(
        &c.request("prompts/get", json!({"name": "review_failed_runs"}))
            .await,
    );
    assert!(
        [day(-8), day(-7), day(-6)]
            .iter()
            .any(|d| review.contains(&format!("started_at_from: {d}"))),
        "since defaults to the last 7 days (the tool argument keeps the ISO date): {review}"
    );
    let report = prompt_text(
        &c.request(
            "prompts/get",
            json!({"name": "usage_report", "arguments": {"month": "2026-02"}}),
        )
        .await,
    );
    assert!(report.contains("2026-02-01"), "the month is used as given");
    for (name, args) in [
        ("inbox_overview", json!({})),
        ("usage_report", json!({"month": "2026-2"})),
        ("review_failed_runs", json!({"since": "last week"})),
    ] {
        let a = c
            .request("prompts/get", json!({"name": name, "arguments": args}))
            .await;
        assert_eq!(a.error()["code"], -32602, "{name} {args}");
    }
    let agents = complete(
        &c,
        json!({"type": "ref/prompt", "name": "review_failed_runs"}),
        "agent_id",
        "",
    )
    .await;
    assert!(!agents.is_empty(), "agent ids complete");
    let prefix = &agents[0][..4];
    es::ids_complete_by_prefix(&c, "review_failed_runs", "agent_id", prefix).await;
    let runs = complete(
        &c,
        json!({"type": "ref/resource", "uri": "kobana://inbox/agent-runs/{id}"}),
        "id",
        "",
    )
    .await;
    assert!(!runs.is_empty(), "record template ids complete");
    es::completes_months_and_nothing_without_a_source(
        &c,
        "usage_report",
        ("review_failed_runs", "since"),
    )
    .await;
}

#[tokio::test]
async fn prompts_appear_only_when_every_tool_behind_them_can_run() {
    es::prompts_appear_only_when_every_tool_behind_them_can_run(&SPEC, "emails_list").await;
}

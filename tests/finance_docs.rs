//! The finance product document against the finance catalog, its generated docs and its sandbox.
//!
//! `../shared/product-docs/002_891fe1d3e0678253.txt` (es) is the specification: every URI of its
//! resources table, every prompt with its arguments, formats and defaults, every completion rule,
//! the destructive rule and the confirmation policy. These tests read its facts
//! (`catalog/facts/product-docs/finance.json`, derived from the document by `cargo run -p codegen-tools --
//! facts --write`, verified by `facts --check`) and check that each statement is in the compiled catalog (`generated::product`) and in
//! `generated/docs/finance.md`, so nothing in the document can be missing and nothing is served as
//! a resource that the document does not name. The sandbox part checks that the seed data gives
//! every prompt something to find, and that the actions the catalog declares behave.
//!
//! The sandbox and the checks every es product document shares are in
//! `product_doc::es`; the tests below pass it what is particular to finance.

#[path = "product_doc/mod.rs"]
mod product_doc;

use std::collections::BTreeSet;

use runtime::catalog::{Binding, CompletionKind, ContentKind, Operation};
use serde_json::{json, Value};

use product_doc::es::{
    self, all_uris, complete, completion_kind, input_properties, list_ids_tool, prompt_text,
    read_by_of, text,
};
use product_doc::harness;
use product_doc::{day, previous_month, ProductDoc};

const SPEC: es::Spec = es::Spec {
    doc: ProductDoc {
        product: "finance",
        page: "es",
    },
    min_resources: 10,
    prompts: 5,
    workspace: "ws_finance_test",
};

es::document_tests!(SPEC);

const TEN_MB: u64 = 10 * 1024 * 1024;

// ------------------------------------------------------------------------------------------------
// Resources
// ------------------------------------------------------------------------------------------------

#[test]
fn every_uri_of_the_document_is_served_with_its_mime_type_and_content_kind() {
    let f = SPEC.doc.facts();
    let p = SPEC.doc.product();
    let rows = SPEC.doc_resources(&f);
    es::the_catalog_serves_exactly_the_documented_uris(p, rows);
    assert!(
        f.claim("fixed_uris_listed"),
        "the document says fixed URIs are listed and templates are templates"
    );
    // "Archivos. … hasta N MB"
    let max_mb = f.number("max_blob_mb");
    for row in rows {
        let is_template = row.uri.contains('{');
        if is_template {
            assert!(
                p.templates.iter().any(|t| t.uri_template == row.uri),
                "{} is a template",
                row.uri
            );
        } else {
            assert!(
                p.resources.iter().any(|r| r.uri == row.uri),
                "{} is a fixed resource",
                row.uri
            );
        }
        let (mime, content) = es::served_as(p, &row.uri);
        if row.kind == "json" {
            assert_eq!(
                mime, "application/json",
                "{}: JSON, as the document says",
                row.uri
            );
            assert!(
                matches!(
                    content,
                    ContentKind::JsonRecord | ContentKind::SchemaCatalog | ContentKind::SchemaEntry
                ),
                "{}: a JSON document, got {content:?}",
                row.uri
            );
        } else {
            assert_eq!(row.kind, "file", "{}: JSON or a file", row.uri);
            // The attachment file: bytes in base64, or text when it is text, up to 10 MB.
            assert_eq!(
                content,
                ContentKind::BlobOrText {
                    max_bytes: max_mb * 1024 * 1024
                },
                "{}: blob or text up to {max_mb} MB",
                row.uri
            );
            assert_eq!(max_mb * 1024 * 1024, TEN_MB);
        }
    }
    assert!(
        !all_uris(p).iter().any(|u| u.contains("organization")),
        "finance has no organization resource"
    );
}

#[test]
fn each_resource_is_read_by_the_tool_the_document_names_and_only_reads() {
    let f = SPEC.doc.facts();
    let p = SPEC.doc.product();
    // "(kobana://finance/payables/{id}esfinance_payables_get)": URI, `es`, tool.
    es::the_permissions_example_is_read_by_its_tool(p, &f);
    // Every template of a record is read by `finance_<resource>_get`-like tools that only read.
    es::fixed_resources_are_read_by_tools_that_only_read(p);
    for tpl in p.templates {
        let t = p.tool(tpl.read_by).expect("reader exists");
        assert!(
            t.annotations.read_only,
            "{} reads {} and is read-only",
            t.name, tpl.uri_template
        );
        for (var, arg) in tpl.args {
            assert!(
                input_properties(p, t.name).contains_key(*arg),
                "{var} → {arg} of {}",
                t.name
            );
        }
    }
    // Each record template is read by the `get` of that record type.
    for (uri, record) in [
        ("kobana://finance/payables/{id}", "payables"),
        ("kobana://finance/receivables/{id}", "receivables"),
        (
            "kobana://finance/financial-transactions/{id}",
            "financial_transactions",
        ),
        (
            "kobana://finance/financial-accounts/{account_id}",
            "financial_accounts",
        ),
        ("kobana://finance/people/{id}", "people"),
        ("kobana://finance/companies/{id}", "companies"),
        ("kobana://finance/fiscal-documents/{id}", "fiscal_documents"),
        (
            "kobana://finance/attachments/{attachment_id}",
            "attachments",
        ),
        (
            "kobana://finance/attachments/{attachment_id}/download",
            "attachments",
        ),
    ] {
        es::read_by_the_get_of(p, uri, record);
    }
    let latest = p
        .tool(read_by_of(
            p,
            "kobana://finance/financial-accounts/{account_id}/balances/latest",
        ))
        .expect("reader");
    assert!(matches!(
        latest.operation,
        Operation::Latest { record: "balances" }
    ));
}

#[test]
fn the_generated_docs_reproduce_the_resources_table() {
    es::the_generated_docs_reproduce_the_resources_table(&SPEC);
}

#[test]
fn the_schemas_catalog_gives_the_fields_a_tool_returns_or_accepts() {
    let p = SPEC.doc.product();
    let catalog = p
        .resources
        .iter()
        .find(|r| r.uri == "kobana://finance/schemas")
        .expect("catalog");
    assert_eq!(catalog.content, ContentKind::SchemaCatalog);
    let entry = p
        .templates
        .iter()
        .find(|t| t.uri_template == "kobana://finance/schemas/{schema}")
        .expect("entry");
    assert_eq!(entry.content, ContentKind::SchemaEntry);
    assert!(p.records.len() >= 9, "one schema per record type");
    for rt in p.records {
        let schema: Value = serde_json::from_str(rt.schema_json).expect("schema JSON");
        assert_eq!(schema["name"], rt.name);
        for f in rt.fields {
            let field = &schema["fields"][f.name];
            assert_eq!(field["type"], f.ty, "{}.{} has its type", rt.name, f.name);
            assert!(
                field["description"].as_str().is_some_and(|d| !d.is_empty()),
                "{}.{} says what it means",
                rt.name,
                f.name
            );
            if !f.enum_values.is_empty() {
                assert_eq!(
                    field["enum"],
                    json!(f.enum_values),
                    "{}.{} enum",
                    rt.name,
                    f.name
                );
            }
            assert_eq!(field["sortable"].as_bool().unwrap_or(false), f.sortable);
        }
    }
    // Every record a `get` returns has its schema, so a model can look up any field.
    for t in p.tools {
        if let Operation::Get { record, .. } | Operation::List { record } = t.operation {
            assert!(p.record(record).is_some(), "{}: schema of {record}", t.name);
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Prompts
// ------------------------------------------------------------------------------------------------

#[test]
fn every_prompt_of_the_document_has_its_arguments_formats_and_defaults() {
    es::every_prompt_of_the_document_has_its_arguments_formats_and_defaults(&SPEC);
}

#[test]
fn no_prompt_moves_money_edits_or_deletes() {
    // "Ninguno mueve dinero, edita ni borra"
    assert!(SPEC.doc.facts().claim("no_prompt_writes"));
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
    assert_eq!(
        ids,
        ["person_id", "company_id", "account_id"],
        "the document's id arguments"
    );
    assert!(
        f.claim("ids_from_default_workspace"),
        "ids come from the default workspace"
    );
    assert!(p.policy.workspaced, "records live in a workspace");

    let mut completed_args = BTreeSet::new();
    for name in &ids {
        let mut seen = es::arguments_completed_with_ids(p, name, &mut completed_args).len();
        for t in p.templates {
            for (var, src) in t.completions.iter().filter(|(v, _)| *v == name.as_str()) {
                list_ids_tool(p, src, &format!("{{{var}}} of {}", t.uri_template));
                seen += 1;
            }
        }
        assert!(
            seen > 0,
            "`{name}` is an argument or a template variable somewhere"
        );
    }
    // "y el parámetro de los templates de registro": every record template completes its id from
    // the listing of the same record type.
    for t in p.templates.iter().filter(|t| {
        matches!(
            t.content,
            ContentKind::JsonRecord | ContentKind::BlobOrText { .. }
        )
    }) {
        assert!(
            !t.completions.is_empty(),
            "{} completes its parameter",
            t.uri_template
        );
        for (var, src) in t.completions {
            let tool = list_ids_tool(p, src, &format!("{{{var}}} of {}", t.uri_template));
            let reader = p.tool(t.read_by).expect("reader");
            if let Operation::Get { record, .. } = reader.operation {
                let Operation::List { record: listed } = p.tool(tool).expect("list").operation
                else {
                    unreachable!()
                };
                assert_eq!(
                    listed, record,
                    "{}: ids of the same records",
                    t.uri_template
                );
            }
        }
    }
    // "{schema} de kobana://finance/schemas/{schema}: los nombres del contrato".
    assert!(f.claim("schema_names_completed"));
    let schema = p
        .templates
        .iter()
        .find(|t| t.uri_template == "kobana://finance/schemas/{schema}")
        .expect("schema template");
    let (_, src) = schema
        .completions
        .iter()
        .find(|(v, _)| *v == "schema")
        .expect("completes");
    assert!(matches!(
        completion_kind(p, src),
        CompletionKind::SchemaNames
    ));
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
    assert_eq!(verbs.len(), 7, "borran, cancelan, envían un pago al banco, cobran, transfieren, concilian, ajustan: {verbs:?}");
    es::destructive_tools_quote_the_rule(p, sentence, verbs);
    // The verbs map to the tools a finance user expects, all destructive.
    for name in [
        "finance_payables_delete",
        "finance_payables_cancel",
        "finance_payables_pay",
        "finance_receivables_charge",
        "finance_receivables_cancel",
        "finance_transfers_create",
        "finance_transfers_cancel",
        "finance_financial_transactions_reconcile",
        "finance_balances_adjust",
    ] {
        let t = p.tool(name).unwrap_or_else(|| panic!("no tool {name}"));
        assert!(
            t.annotations.destructive && !t.annotations.read_only,
            "{name} is destructive"
        );
    }
    // Nothing else is: a write that is not in the rule is not destructive.
    for t in p.tools.iter().filter(|t| !t.annotations.destructive) {
        assert!(
            t.destructive_clause.is_none(),
            "{} carries no clause",
            t.name
        );
        assert!(
            ![
                "_delete",
                "_cancel",
                "_pay",
                "_charge",
                "_reconcile",
                "_adjust"
            ]
            .iter()
            .any(|s| t.name.ends_with(s)),
            "{} looks destructive but is not marked",
            t.name
        );
    }
}

#[test]
fn the_confirmation_policy_is_the_documents() {
    es::the_confirmation_policy_is_the_documents(&SPEC, "USER_DECLINED");
}

#[test]
fn every_tool_accepts_a_workspace_and_the_uris_live_under_the_prefix() {
    let f = SPEC.doc.facts();
    let p = SPEC.doc.product();
    assert!(f.claim("tools_take_workspace_id"));
    // "Las URIs quedan bajo kobana://finance/"
    assert_eq!(f.name("uri_prefix"), p.uri_prefix);
    for t in p.tools {
        assert!(
            input_properties(p, t.name).contains_key("workspace_id"),
            "{} takes workspace_id",
            t.name
        );
        assert!(
            t.name.starts_with(p.tool_prefix),
            "{} follows the naming",
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
    for uri in all_uris(p) {
        assert!(
            uri.starts_with(p.uri_prefix),
            "{uri} under {}",
            p.uri_prefix
        );
    }
}

// ------------------------------------------------------------------------------------------------
// The sandbox: every listable type is seeded, and every prompt has something to find
// ------------------------------------------------------------------------------------------------

#[test]
fn the_sandbox_seeds_every_listable_type() {
    let s = SPEC.sandbox();
    es::the_sandbox_seeds_every_listable_type(&SPEC, &s, &["balances"]);
    // Balances are listed per account; together the accounts hold every seeded balance.
    let rt = SPEC.doc.product().record("balances").expect("record type");
    let accounts = s.list_all("finance_financial_accounts_list", json!({}));
    let total: usize = accounts
        .iter()
        .map(|a| {
            s.list_all(
                "finance_balances_list",
                json!({"account_id": text(a, "uid")}),
            )
            .len()
        })
        .sum();
    assert_eq!(
        total, rt.seed_count as usize,
        "every seeded balance is listed"
    );
}

#[test]
fn every_finance_prompt_has_something_to_find() {
    let s = SPEC.sandbox();
    let today = day(0);
    // overdue_payables: open, due before today.
    let open = s.list_all(
        "finance_payables_list",
        json!({"status": "open", "due_date_to": today}),
    );
    let overdue: Vec<&Value> = open
        .iter()
        .filter(|x| text(x, "due_date") < today)
        .collect();
    assert!(!overdue.is_empty(), "overdue open payables");
    assert!(
        overdue.iter().all(|x| x["paid_at"].is_null()),
        "an open payable has no payment date"
    );
    let company = text(overdue[0], "company_id");
    let theirs = s.list_all(
        "finance_payables_list",
        json!({"status": "open", "due_date_to": today, "company_id": company}),
    );
    assert!(!theirs.is_empty(), "overdue payables of one company");
    let supplier = s.record(
        "finance_people_get",
        json!({"id": text(overdue[0], "person_id")}),
    );
    assert!(
        !text(&supplier, "name").is_empty(),
        "the supplier has a name"
    );
    // overdue_receivables: open or charged, due before today, grouped by customer.
    let mut overdue_r = Vec::new();
    for status in ["open", "charged"] {
        overdue_r.extend(
            s.list_all(
                "finance_receivables_list",
                json!({"status": status, "due_date_to": today}),
            )
            .into_iter()
            .filter(|x| text(x, "due_date") < today),
        );
    }
    assert!(!overdue_r.is_empty(), "overdue receivables");
    let customers: BTreeSet<String> = overdue_r.iter().map(|x| text(x, "person_id")).collect();
    assert!(
        customers.iter().all(|c| !c.is_empty()),
        "each overdue receivable has a customer"
    );
    // cash_flow_outlook: today's balance of active accounts, and what falls due until +90 days.
    let until = day(90);
    let accounts = s.list_all(
        "finance_financial_accounts_list",
        json!({"status": "active"}),
    );
    assert!(!accounts.is_empty(), "active accounts");
    let balances: Vec<Value> = accounts
        .iter()
        .filter_map(|a| {
            // The most recent balance itself (an account without one is not found).
            s.try_call(
                "finance_balances_latest",
                json!({"account_id": text(a, "uid")}),
            )
            .ok()
            .map(|v| v["data"].clone())
            .filter(Value::is_object)
        })
        .collect();
    assert!(
        !balances.is_empty(),
        "some active account has a recorded balance"
    );
    let due = s.list_all(
        "finance_payables_list",
        json!({"status": "open", "due_date_from": today, "due_date_to": until}),
    );
    assert!(!due.is_empty(), "payables falling due before {until}");
    let coming = s.list_all(
        "finance_receivables_list",
        json!({"status": "open", "due_date_from": today, "due_date_to": until}),
    );
    assert!(!coming.is_empty(), "receivables falling due before {until}");
    // monthly_summary (a full month: the previous one).
    let m = previous_month();
    let (from, to) = (format!("{m}-01"), format!("{m}-31"));
    let paid = s.list_all(
        "finance_payables_list",
        json!({"status": "paid", "paid_at_from": from, "paid_at_to": to}),
    );
    assert!(!paid.is_empty(), "payables paid in {m}");
    assert!(paid.iter().all(|x| text(x, "paid_at").starts_with(&m)));
    let received = s.list_all(
        "finance_receivables_list",
        json!({"status": "received", "received_at_from": from, "received_at_to": to}),
    );
    assert!(!received.is_empty(), "receivables received in {m}");
    // person_overview: a supplier with something open.
    let person = text(overdue[0], "person_id");
    assert!(!s
        .list_all(
            "finance_payables_list",
            json!({"person_id": person, "status": "open"})
        )
        .is_empty());
}

#[test]
fn the_declared_actions_behave_in_the_sandbox() {
    let s = SPEC.sandbox();
    // Paying an open payable marks it paid and records a debit transaction linked to it.
    let open = s.list_all("finance_payables_list", json!({"status": "open"}));
    let payable = text(&open[0], "uid");
    let answer = s.record("finance_payables_pay", json!({"id": payable}));
    assert_eq!(answer["status"], "paid");
    let tx = &answer["financial_transactions"];
    assert_eq!(
        tx["payable_id"],
        payable.as_str(),
        "the transaction points to the payable"
    );
    assert_eq!(tx["direction"], "debit", "paying takes money out");
    let again = s.try_call("finance_payables_pay", json!({"id": payable}));
    assert!(again.is_err(), "a paid payable cannot be paid twice");
    // Charging an open receivable.
    let open_r = s.list_all("finance_receivables_list", json!({"status": "open"}));
    let charged = s.record(
        "finance_receivables_charge",
        json!({"id": text(&open_r[0], "uid")}),
    );
    assert_eq!(charged["status"], "charged");
    // Adjusting a balance records an adjustment, which becomes the latest balance.
    let accounts = s.list_all("finance_financial_accounts_list", json!({}));
    let account = text(&accounts[0], "uid");
    let adjusted = s.record(
        "finance_balances_adjust",
        json!({"account_id": account, "amount": 1234.56, "reason": "conferência"}),
    );
    assert_eq!(adjusted["source"], "adjustment");
    assert_eq!(adjusted["account_id"], account.as_str());
    let latest = s.call("finance_balances_latest", json!({"account_id": account}));
    assert_eq!(
        latest["data"]["uid"], adjusted["uid"],
        "the adjustment is the latest balance"
    );
    // Reconciling a posted transaction; a transfer starts scheduled and can be canceled.
    let posted = s.list_all(
        "finance_financial_transactions_list",
        json!({"status": "posted"}),
    );
    let rec = s.record(
        "finance_financial_transactions_reconcile",
        json!({"id": text(&posted[0], "uid")}),
    );
    assert_eq!(rec["status"], "reconciled");
    let transfer = s.record(
        "finance_transfers_create",
        json!({"from_account_id": account, "to_account_id": text(&accounts[1], "uid"), "amount": 100}),
    );
    assert_eq!(transfer["status"], "scheduled");
    let canceled = s.record(
        "finance_transfers_cancel",
        json!({"id": text(&transfer, "uid")}),
    );
    assert_eq!(canceled["status"], "canceled");
    // A fiscal document becomes a payable.
    let received = s.list_all(
        "finance_fiscal_documents_list",
        json!({"status": "received"}),
    );
    let linked = s.record(
        "finance_fiscal_documents_create_payable",
        json!({"id": text(&received[0], "uid"), "due_date": day(10)}),
    );
    assert_eq!(linked["status"], "linked");
    assert_eq!(
        linked["payables"]["status"], "open",
        "the new payable is open"
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
    // "resources/list trae las URIs fijas y resources/templates/list los templates con parámetro".
    es::lists_the_catalogs_resources(&c, p).await;
    // A record resource is read in the connection's default workspace.
    let listed = c
        .call_tool("finance_payables_list", json!({}), None, None)
        .await;
    let payable = text(&harness::records_of(&listed)[0], "uid");
    let read = c
        .request(
            "resources/read",
            json!({"uri": format!("kobana://finance/payables/{payable}")}),
        )
        .await;
    assert!(read.result()["contents"][0]["text"]
        .as_str()
        .is_some_and(|t| t.contains(&payable)));
    // The schemas catalog and one schema, generated from the catalog's records.
    let catalog = c
        .request("resources/read", json!({"uri": "kobana://finance/schemas"}))
        .await;
    let catalog_text = catalog.result()["contents"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    for rt in p.records {
        assert!(
            catalog_text.contains(rt.name),
            "the schemas catalog names {}",
            rt.name
        );
    }
    let entry = c
        .request(
            "resources/read",
            json!({"uri": "kobana://finance/schemas/payables"}),
        )
        .await;
    let entry: Value = serde_json::from_str(
        entry.result()["contents"][0]["text"]
            .as_str()
            .unwrap_or("null"),
    )
    .expect("a JSON schema");
    assert_eq!(entry["fields"]["due_date"]["sortable"], true, "{entry}");
    assert_eq!(
        entry["fields"]["status"]["enum"],
        json!(["open", "paid", "canceled"])
    );
    // Prompts render with their defaults already calculated.
    let prompts = c.list_all("prompts/list", "prompts").await;
    assert_eq!(
        prompts.len(),
        p.prompts.len(),
        "every prompt is listed for a full user"
    );
    let person = complete(
        &c,
        json!({"type": "ref/prompt", "name": "person_overview"}),
        "person_id",
        "",
    )
    .await;
    assert!(
        !person.is_empty(),
        "person ids complete from the default workspace"
    );
    es::every_prompt_renders_dated(&c, p, ("person_overview", "person_id", &person[0])).await;
    let outlook = c
        .request("prompts/get", json!({"name": "cash_flow_outlook"}))
        .await;
    let t = prompt_text(&outlook);
    assert!(
        [day(89), day(90), day(91)]
            .iter()
            .any(|d| t.contains(&format!("due_date_to: {d}"))),
        "until defaults to 90 days ahead (the tool argument keeps the ISO date): {t}"
    );
    let summary = c
        .request(
            "prompts/get",
            json!({"name": "monthly_summary", "arguments": {"month": "2026-03"}}),
        )
        .await;
    assert!(
        prompt_text(&summary).contains("2026-03-01"),
        "the month is used as given"
    );
    // "Un argumento obligatorio ausente, o month/until fuera de formato, es -32602".
    for (name, args) in [
        ("person_overview", json!({})),
        ("monthly_summary", json!({"month": "03/2026"})),
        ("cash_flow_outlook", json!({"until": "2026-13-45"})),
    ] {
        let a = c
            .request("prompts/get", json!({"name": name, "arguments": args}))
            .await;
        assert_eq!(a.error()["code"], -32602, "{name} {args}");
    }
    // Completions: ids by prefix, schema names, twelve months, nothing else.
    let prefix = &person[0][..4];
    es::ids_complete_by_prefix(&c, "overdue_receivables", "person_id", prefix).await;
    let schemas = complete(
        &c,
        json!({"type": "ref/resource", "uri": "kobana://finance/schemas/{schema}"}),
        "schema",
        "pay",
    )
    .await;
    assert_eq!(schemas, ["payables"]);
    let accounts = complete(&c, json!({"type": "ref/resource", "uri": "kobana://finance/financial-accounts/{account_id}/balances/latest"}), "account_id", "").await;
    assert!(!accounts.is_empty(), "account ids complete");
    es::completes_months_and_nothing_without_a_source(
        &c,
        "monthly_summary",
        ("cash_flow_outlook", "until"),
    )
    .await;
}

#[tokio::test]
async fn prompts_appear_only_when_every_tool_behind_them_can_run() {
    es::prompts_appear_only_when_every_tool_behind_them_can_run(&SPEC, "finance_payables_list")
        .await;
}

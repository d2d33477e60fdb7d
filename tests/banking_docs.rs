//! The banking product document against the banking catalog and its generated docs.
//!
//! `../shared/product-docs/000_38c8db6d274b3892.txt` (pt-BR) is the specification. These tests read
//! its facts (`catalog/facts/product-docs/banking.json`, derived from the document by `cargo run -p
//! codegen-tools -- facts --write`, verified by `facts --check`) — its 60-template table, its prompt
//! table, the numbers of its completion table and the identifiers it names — and check each
//! statement against the compiled catalog
//! (`generated::product("banking")`) and `generated/docs/banking.md`, so nothing the document names
//! can be missing from the catalog or its docs.

#[path = "product_doc/mod.rs"]
mod product_doc;

use std::collections::BTreeSet;

use runtime::catalog::{
    ArgFormat, Binding, CompletionKind, ReplayPolicy, ResourcesListPolicy, UnconfirmableDestructive,
};

use codegen_tools::facts::docs::Phrase;
use product_doc::ProductDoc;

const DOC: ProductDoc = ProductDoc {
    product: "banking",
    page: "en",
};
const BILLET_LIST: &str = "banking_charge_bank_billet_list";

/// The document's template table: `(URI, what it is, read by)`.
fn document_templates() -> Vec<(String, Phrase, String)> {
    DOC.facts()
        .resources
        .into_iter()
        .map(|r| {
            let tool = r
                .read_by
                .unwrap_or_else(|| panic!("the facts give no reading tool for {}", r.uri));
            (r.uri, r.what, tool)
        })
        .collect()
}

/// One prompt of the document's prompt table.
struct DocPrompt {
    name: String,
    /// `(argument, optional?)`
    arguments: Vec<(String, bool)>,
    writes: bool,
}

fn document_prompts() -> Vec<DocPrompt> {
    DOC.facts()
        .prompts
        .into_iter()
        .map(|p| DocPrompt {
            arguments: p
                .args
                .iter()
                .map(|a| (a.name.clone(), !a.required))
                .collect(),
            writes: p
                .writes
                .unwrap_or_else(|| panic!("the facts do not say whether {} writes", p.name)),
            name: p.name,
        })
        .collect()
}

/// The row of the generated docs table that starts with `` | `first` | ``.
fn docs_row<'a>(docs: &'a str, first: &str) -> Option<&'a str> {
    let head = format!("| `{first}` |");
    docs.lines().find(|l| l.starts_with(&head))
}

/// The section of the generated docs under `## heading`.
fn docs_section<'a>(docs: &'a str, heading: &str) -> &'a str {
    let start = docs
        .find(&format!("\n## {heading}\n"))
        .unwrap_or_else(|| panic!("generated docs have no `## {heading}` section"));
    let rest = &docs[start + 1..];
    match rest[3..].find("\n## ") {
        Some(end) => &rest[..end + 3],
        None => rest,
    }
}

#[test]
fn every_template_of_the_document_is_in_the_catalog() {
    let rows = document_templates();
    assert_eq!(rows.len(), 60, "the document's table has 60 templates");
    let p = DOC.product();
    assert_eq!(
        p.templates.len(),
        rows.len(),
        "the catalog serves exactly the document's templates"
    );
    for (uri, what, tool) in &rows {
        let t = p
            .templates
            .iter()
            .find(|t| t.uri_template == uri)
            .unwrap_or_else(|| panic!("template {uri} is missing from the catalog"));
        assert_eq!(t.read_by, tool, "{uri} is read by {tool}");
        assert!(
            what.is(t.title),
            "{uri}: title `{}` is the document's \"O que é\"",
            t.title
        );
        let read = p
            .tool(tool)
            .unwrap_or_else(|| panic!("{uri}: read tool {tool} does not exist"));
        assert!(
            read.annotations.read_only,
            "{tool} reads, so it is read-only"
        );
        // `{uid}` must reach an argument of the tool.
        let arg = t
            .args
            .iter()
            .find(|(var, _)| *var == "uid")
            .map(|(_, a)| *a)
            .unwrap_or("uid");
        assert!(
            read.input_schema_json.contains(&format!("\"{arg}\"")),
            "{uri}: {{uid}} maps to `{arg}`, which {tool} does not take"
        );
        // A read that is not a plain GET-by-uid must say how it is done.
        let plain = match read.binding {
            Binding::Http(h) => h.path_params.len() == 1 && h.path.starts_with("/v2/"),
            Binding::Extension(_) => false,
        };
        if !plain {
            assert!(
                t.limitation.is_some_and(|l| !l.is_empty()),
                "{uri} is not a plain GET by uid and has no limitation note"
            );
        }
    }
}

#[test]
fn the_generated_docs_table_lists_every_template() {
    let docs = DOC.generated_docs();
    let section = docs_section(&docs, "Resource templates");
    for (uri, what, tool) in document_templates() {
        let row = docs_row(section, &uri)
            .unwrap_or_else(|| panic!("generated docs have no row for {uri}"));
        assert!(
            what.found_in(row),
            "{uri}: docs row lacks the document's \"O que é\" ({} characters, {}): {row}",
            what.chars,
            what.sha256
        );
        assert!(
            row.contains(&format!("`{tool}`")),
            "{uri}: docs row lacks {tool}: {row}"
        );
    }
    // Every limitation the catalog states shows in the docs.
    for t in DOC.product().templates {
        if let Some(l) = t.limitation {
            let note = format!("- `{}`: ", t.uri_template);
            let line = section
                .lines()
                .find(|x| x.starts_with(&note))
                .unwrap_or_else(|| panic!("docs do not note the limitation of {}", t.uri_template));
            let head: String = l.chars().take(60).collect();
            assert!(line.contains(&head), "{line}");
        }
    }
}

#[test]
fn every_prompt_of_the_document_is_in_the_catalog_and_docs() {
    let doc_prompts = document_prompts();
    assert_eq!(doc_prompts.len(), 3, "the document names three prompts");
    let p = DOC.product();
    let docs = DOC.generated_docs();
    let section = docs_section(&docs, "Prompts");
    for dp in &doc_prompts {
        let prompt = p
            .prompt(&dp.name)
            .unwrap_or_else(|| panic!("prompt {} is missing", dp.name));
        assert_eq!(prompt.writes, dp.writes, "{}: writes", dp.name);
        let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name).collect();
        let want: Vec<&str> = dp.arguments.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, want, "{}: arguments", dp.name);
        for (name, optional) in &dp.arguments {
            let a = prompt.arguments.iter().find(|a| a.name == name).unwrap();
            assert_eq!(a.required, !optional, "{}.{name}: required", dp.name);
            if name == "due_before" {
                assert_eq!(a.format, ArgFormat::Date, "due_before is YYYY-MM-DD");
                assert_eq!(a.default, Some("today"), "due_before defaults to today");
            }
        }
        for tool in prompt.uses {
            assert!(
                p.tool(tool).is_some(),
                "{} uses unknown tool {tool}",
                dp.name
            );
            if !prompt.writes {
                assert!(
                    p.tool(tool).unwrap().annotations.read_only,
                    "{} does not write but uses {tool}",
                    dp.name
                );
            }
        }
        let row = docs_row(section, &dp.name)
            .unwrap_or_else(|| panic!("docs have no prompt row for {}", dp.name));
        for (name, optional) in &dp.arguments {
            assert!(row.contains(&format!("`{name}`")), "{row}");
            let flag = if *optional { "optional" } else { "required" };
            assert!(
                row.contains(flag),
                "{}: docs say {name} is {flag}: {row}",
                dp.name
            );
        }
    }
    // Scripts carry computed dates, never "before today".
    for prompt in p.prompts {
        assert!(
            !prompt.template.to_lowercase().contains("before today"),
            "{} speaks of \"before today\"",
            prompt.name
        );
    }
    // The collect prompt sends only through the non-destructive send_email tool, after asking.
    let collect = p
        .prompt("banking_charge_collect_overdue_bank_billets")
        .unwrap();
    assert!(collect
        .uses
        .contains(&"banking_charge_bank_billet_send_email"));
    assert!(collect.template.contains("Ask me"));
}

#[test]
fn completions_follow_the_document() {
    let p = DOC.product();
    // The numbers the completion table states (100 billets, 12 months).
    let f = DOC.facts();
    assert_eq!(f.number("billet_suggestions"), 100);
    assert_eq!(f.number("due_before_months"), 12);

    let source = |id: &str| {
        p.completion(id)
            .unwrap_or_else(|| panic!("completion source {id} is missing"))
            .kind
    };
    for prompt in p.prompts {
        for a in prompt.arguments {
            let id = a
                .complete
                .unwrap_or_else(|| panic!("{}.{} has no completion", prompt.name, a.name));
            match (a.name, source(id)) {
                (
                    "bank_billet_uid",
                    CompletionKind::ListIds {
                        tool, field, limit, ..
                    },
                ) => {
                    assert_eq!((tool, field, limit), (BILLET_LIST, "uid", 100));
                }
                ("due_before", CompletionKind::TodayAndMonthStarts(n)) => assert_eq!(n, 12),
                (name, kind) => panic!("{}.{name}: unexpected completion {kind:?}", prompt.name),
            }
        }
    }
    // `{uid}` of every template: its own type's list where it can be listed, else billets.
    let docs = DOC.generated_docs();
    let section = docs_section(&docs, "Completions");
    for t in p.templates {
        let (_, id) = t
            .completions
            .iter()
            .find(|(var, _)| *var == "uid")
            .unwrap_or_else(|| panic!("{}: no completion for {{uid}}", t.uri_template));
        let CompletionKind::ListIds { tool, limit, .. } = source(id) else {
            panic!("{}: {{uid}} completes from a list", t.uri_template);
        };
        assert_eq!(limit, 100);
        let list = p.tool(tool).unwrap();
        assert!(list.annotations.read_only, "{tool} is a list");
        if tool == BILLET_LIST && !t.uri_template.contains("/charge/bank_billets/") {
            assert!(
                t.limitation
                    .is_some_and(|l| l.contains("falls back to bank billet")),
                "{}: a fallback to billets must be documented",
                t.uri_template
            );
        }
        if let Some(own) = t.list_tool {
            assert_eq!(
                tool, own,
                "{}: a listable type completes from its own list",
                t.uri_template
            );
        }
        let label = format!("| `{{uid}}` in `{}` |", t.uri_template);
        let row = section
            .lines()
            .find(|l| l.starts_with(&label))
            .unwrap_or_else(|| panic!("docs have no completion row for {}", t.uri_template));
        assert!(row.contains(&format!("`{tool}`")), "{row}");
    }
    for arg in ["bank_billet_uid", "due_before"] {
        assert!(
            section.contains(&format!("| `{arg}` of prompt")),
            "docs have no completion row for {arg}"
        );
    }
}

#[test]
fn destructive_marks_follow_the_documents_lists() {
    let p = DOC.product();
    let f = DOC.facts();
    // Explicitly not destructive.
    for name in [
        "banking_charge_bank_billet_send_email",
        "banking_charge_bank_billet_send_sms",
    ] {
        assert!(f.mentions(name), "the document names {name}");
        let t = p.tool(name).unwrap();
        assert!(
            !t.annotations.read_only && !t.annotations.destructive,
            "{name}"
        );
    }
    // First list: cancel, protest, write off, register payment, pay, approve, delete.
    let first_list = [
        "_cancel",
        "_protest",
        "_pay",
        "_pay_off",
        "_approve",
        "_delete",
        "_cancel_all",
    ];
    // Second list: where data or money leaves.
    let second_list = [
        "banking_data_webhook_",
        "banking_mailbox_channels_",
        "banking_financial_account_",
        "banking_charge_pix_account_",
        "banking_payment_dda_account_",
        "banking_edi_edi_box_",
    ];
    let mut checked = BTreeSet::new();
    for t in p.tools {
        let by_verb = first_list.iter().any(|v| t.name.ends_with(v));
        let by_target = second_list.iter().any(|s| t.name.starts_with(s))
            && (t.name.ends_with("_create") || t.name.ends_with("_update"));
        if by_verb || by_target || t.name == "banking_admin_subaccount_create" {
            assert!(t.annotations.destructive, "{} must be destructive", t.name);
            checked.insert(t.name);
        }
        if t.annotations.destructive {
            assert!(!t.annotations.read_only, "{}", t.name);
            assert!(
                t.destructive_clause.is_some_and(|c| !c.is_empty()),
                "{} is destructive without a clause",
                t.name
            );
        } else if !t.annotations.read_only {
            assert!(t.destructive_clause.is_none(), "{}", t.name);
        }
    }
    assert!(
        checked.len() > 60,
        "the lists cover many tools, found {}",
        checked.len()
    );
    // The docs show the clause (the "Tipo" column), in the page's language.
    let docs = DOC.generated_docs();
    let section = docs_section(&docs, "Tools");
    let english = p
        .locales
        .iter()
        .find(|l| l.locale == runtime_model::locale::Locale::En)
        .expect("banking speaks English");
    for (t, texts) in p.tools.iter().zip(english.tools) {
        if !t.annotations.destructive {
            continue;
        }
        let row = docs_row(section, t.name).unwrap_or_else(|| panic!("docs miss {}", t.name));
        let clause = texts.destructive_clause.unwrap();
        assert!(row.contains(&format!("destructive: {clause}")), "{row}");
    }
}

#[test]
fn policies_follow_the_document() {
    let policy = DOC.product().policy;
    assert_eq!(
        policy.unconfirmable_destructive,
        UnconfirmableDestructive::Run
    );
    assert_eq!(policy.decline_code, "user_declined");
    assert_eq!(policy.replay, ReplayPolicy::AskAgain);
    assert_eq!(policy.confirmation_ttl_secs, 300, "5 minutos");
    assert!(policy.confirmation_binds.person && policy.confirmation_binds.organization);
    assert_eq!(policy.resources_list, ResourcesListPolicy::Recent(20));
    // "… URIs dos 20 registros mais recentes …"
    assert_eq!(DOC.facts().number("recent_records"), 20);
}

#[test]
fn every_listed_type_can_be_seeded_by_the_sandbox() {
    let p = DOC.product();
    for t in p.templates.iter().filter(|t| t.listed) {
        let list = t
            .list_tool
            .and_then(|n| p.tool(n))
            .unwrap_or_else(|| panic!("{} is listed without a list tool", t.uri_template));
        let runtime::catalog::Operation::List { record } = list.operation else {
            panic!("{} lists with a tool that is not a list", t.uri_template);
        };
        let r = p
            .record(record)
            .unwrap_or_else(|| panic!("{}: record type {record} is missing", t.uri_template));
        assert!(r.seed_count >= 25, "{record} seeds {}", r.seed_count);
    }
}

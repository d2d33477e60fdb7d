//! The pt-BR product documents written as tab-separated tables (billing, dashboards): their
//! parsing, and the checks every such product passes against its catalog, generated docs, sandbox
//! and server.
//!
//! A document is extracted HTML, so it is parsed loosely: tabs or spaces, words run together after
//! inline code. The checks are the bodies of the tests of `tests/billing_docs.rs` and
//! `tests/dashboards_docs.rs`; `document_tests!` declares them there as `#[test]`s under the names
//! they have always had, next to each product's own tests.

use std::collections::{BTreeMap, BTreeSet};

use runtime::catalog::{
    ArgFormat, CompletionKind, ContentKind, Operation, Product, ReplayPolicy, ResourcesListPolicy,
    UnconfirmableDestructive,
};
use serde_json::{json, Map, Value};

use super::{doc_prompts, harness, ProductDoc};

/// What the checks need to know of one product beyond its document.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub doc: ProductDoc,
    /// The prompt the document gives as the one that writes (a read-only token does not see it).
    pub writing_prompt: &'static str,
}

/// Declares every check of this module as a test of the including crate, under its own name:
/// `product_doc::pt_br::document_tests!(SPEC);` at the crate root, `SPEC` a `pt_br::Spec` const.
// Not every crate that includes this module declares these tests.
#[allow(unused_macros)]
macro_rules! document_tests {
    ($spec:path) => {
        $crate::product_doc::pt_br::document_tests!(@sync $spec;
            every_uri_of_the_document_is_served_with_its_mime_type_and_content_kind,
            each_resource_is_read_by_the_tool_the_document_names,
            the_generated_docs_reproduce_the_resources_table,
            the_schemas_catalog_gives_type_enum_meaning_and_sorting_of_every_field,
            every_prompt_of_the_document_has_its_arguments_formats_and_description,
            only_the_prompts_the_document_says_write_do_write,
            the_generated_docs_reproduce_the_prompts_table,
            a_read_only_token_keeps_resources_and_completions_but_not_the_writing_prompt,
            completions_follow_the_document_and_everything_else_is_empty,
            the_generated_docs_reproduce_the_completion_rules,
            destructive_tools_follow_the_document_rule_with_its_clause,
            the_generated_docs_list_each_destructive_tool_with_its_clause,
            the_confirmation_policy_is_the_documents,
            the_sandbox_seeds_every_listable_type,
        );
        $crate::product_doc::pt_br::document_tests!(@async $spec;
            resources_are_served_as_the_document_says,
            prompts_and_completions_behave_as_the_document_says,
            a_destructive_tool_on_a_client_that_cannot_confirm_does_what_the_document_says,
            the_organization_is_a_single_record,
        );
    };
    (@sync $spec:path; $($name:ident,)*) => {
        $(
            #[test]
            fn $name() {
                $crate::product_doc::pt_br::$name(&$spec)
            }
        )*
    };
    (@async $spec:path; $($name:ident,)*) => {
        $(
            #[tokio::test]
            async fn $name() {
                $crate::product_doc::pt_br::$name(&$spec).await
            }
        )*
    };
}
#[allow(unused_imports)]
pub(crate) use document_tests;

/// How the document's destructive verbs (its facts' `destructive.verbs`) read in tool names
/// (`<prefix><resource>_<action>`).
const VERB_ACTIONS: &[(&str, &[&str])] = &[
    ("apagam", &["delete", "remove"]),
    ("cancelam", &["cancel"]),
    ("anulam", &["void"]),
    ("estornam", &["refund"]),
    ("encerram", &["end"]),
    ("suspendem", &["suspend"]),
    ("desativam", &["deactivate", "revoke"]),
    ("enviam", &["send", "resend", "invite"]),
];

// ------------------------------------------------------------------------------------------------
// Reading the generated docs
// ------------------------------------------------------------------------------------------------

/// The table rows (`| … |` lines) of the Markdown section under `heading`, up to the next heading of
/// the same or a higher level.
fn md_rows<'a>(md: &'a str, heading: &str) -> Vec<&'a str> {
    let level = heading.chars().take_while(|c| *c == '#').count();
    let mut lines = md.lines();
    assert!(
        lines.by_ref().any(|l| l.trim() == heading),
        "the generated docs have no `{heading}`"
    );
    lines
        .take_while(|l| {
            let hashes = l.chars().take_while(|c| *c == '#').count();
            hashes == 0 || hashes > level
        })
        .filter(|l| l.starts_with('|') && !l.starts_with("|---"))
        .collect()
}

fn md_row<'a>(rows: &[&'a str], key: &str) -> &'a str {
    rows.iter()
        .find(|r| r.contains(key))
        .unwrap_or_else(|| panic!("no row with {key} in the generated docs table"))
}

// ------------------------------------------------------------------------------------------------
// Resources
// ------------------------------------------------------------------------------------------------

pub fn every_uri_of_the_document_is_served_with_its_mime_type_and_content_kind(spec: &Spec) {
    let f = spec.doc.facts();
    let p = spec.doc.product();
    let resources = &f.resources;
    // "até N MB"
    let max_bytes = f.numbers.get("max_blob_mb").map(|mb| mb * 1024 * 1024);

    let doc_fixed: BTreeSet<&str> = resources
        .iter()
        .filter(|r| !r.is_template())
        .map(|r| r.uri.as_str())
        .collect();
    let doc_templates: BTreeSet<&str> = resources
        .iter()
        .filter(|r| r.is_template())
        .map(|r| r.uri.as_str())
        .collect();
    let fixed: BTreeSet<&str> = p.resources.iter().map(|r| r.uri).collect();
    let templates: BTreeSet<&str> = p.templates.iter().map(|t| t.uri_template).collect();
    assert_eq!(
        fixed, doc_fixed,
        "resources/list must give exactly the document's fixed URIs"
    );
    assert_eq!(
        templates, doc_templates,
        "resources/templates/list must give exactly the document's templates"
    );

    for r in resources {
        let (mime, content, description, read_by) =
            match p.resources.iter().find(|x| x.uri == r.uri) {
                Some(x) => (x.mime_type, x.content, x.description, x.read_by),
                None => {
                    let t = p
                        .templates
                        .iter()
                        .find(|t| t.uri_template == r.uri)
                        .expect("checked above");
                    (t.mime_type, t.content, t.description, t.read_by)
                }
            };
        assert!(
            r.what.starts(description),
            "{}: description `{description}` does not say what the document says ({} characters, {})",
            r.uri,
            r.what.chars,
            r.what.sha256
        );
        let tool = p
            .tool(read_by)
            .unwrap_or_else(|| panic!("{} is read by unknown tool {read_by}", r.uri));
        assert!(
            tool.annotations.read_only,
            "{} is read by {read_by}, which is not read-only",
            r.uri
        );

        if r.kind == "json" {
            assert_eq!(mime, "application/json", "{}", r.uri);
            let expected = if r.uri.ends_with("/schemas") {
                ContentKind::SchemaCatalog
            } else if r.uri.contains("/schemas/") {
                ContentKind::SchemaEntry
            } else {
                ContentKind::JsonRecord
            };
            assert_eq!(content, expected, "{}", r.uri);
        } else if r.kind == "pdf" {
            assert_eq!(mime, "application/pdf", "{}", r.uri);
            let max = max_bytes.expect("the document gives the size limit of binaries (até N MB)");
            assert_eq!(
                content,
                ContentKind::Blob { max_bytes: max },
                "{}: PDFs are base64 blobs up to the limit",
                r.uri
            );
        } else if r.kind.starts_with("xml") {
            assert_eq!(r.kind, "xml-text", "{}: the XML is text", r.uri);
            assert!(
                mime.ends_with("/xml"),
                "{}: an XML MIME type, got {mime}",
                r.uri
            );
            assert_eq!(content, ContentKind::Text, "{}", r.uri);
        } else {
            panic!(
                "{}: the test does not know the content kind `{}`",
                r.uri, r.kind
            );
        }
    }
}

pub fn each_resource_is_read_by_the_tool_the_document_names(spec: &Spec) {
    let f = spec.doc.facts();
    let p = spec.doc.product();
    // "(kobana://billing/invoices/{id} é billing_invoices_get)" in the billing document
    let pairs: Vec<(String, String)> = f
        .read_by
        .iter()
        .map(|r| (r.uri.clone(), r.tool.clone()))
        .collect();
    assert!(
        !pairs.is_empty(),
        "the document names the tool that reads a resource"
    );
    for (uri, tool) in pairs {
        let read_by = p
            .templates
            .iter()
            .find(|t| t.uri_template == uri)
            .map(|t| t.read_by)
            .or_else(|| p.resources.iter().find(|r| r.uri == uri).map(|r| r.read_by))
            .unwrap_or_else(|| panic!("{uri} is not served"));
        assert_eq!(
            read_by, tool,
            "{uri} is read by the tool the document names"
        );
    }
}

pub fn the_generated_docs_reproduce_the_resources_table(spec: &Spec) {
    let f = spec.doc.facts();
    let md = spec.doc.generated_docs();
    let p = spec.doc.product();
    let fixed_rows = md_rows(&md, "## Resources");
    let template_rows = md_rows(&md, "## Resource templates");
    for r in &f.resources {
        let rows = if r.is_template() {
            &template_rows
        } else {
            &fixed_rows
        };
        let row = md_row(rows, &format!("`{}`", r.uri));
        assert!(
            r.what.found_in(row),
            "the docs row of {} does not say what the document says ({} characters, {}): {row}",
            r.uri,
            r.what.chars,
            r.what.sha256
        );
        let read_by = p
            .resources
            .iter()
            .find(|x| x.uri == r.uri)
            .map(|x| x.read_by)
            .or_else(|| {
                p.templates
                    .iter()
                    .find(|t| t.uri_template == r.uri)
                    .map(|t| t.read_by)
            })
            .expect("served");
        assert!(
            row.contains(&format!("`{read_by}`")),
            "the docs row of {} names its tool: {row}",
            r.uri
        );
    }
}

pub fn the_schemas_catalog_gives_type_enum_meaning_and_sorting_of_every_field(spec: &Spec) {
    // "Os campos de um recurso: tipo, enum, significado, quais ordenam (JSON)"
    let p = spec.doc.product();
    assert!(!p.records.is_empty());
    for r in p.records {
        let schema: Value = serde_json::from_str(r.schema_json)
            .unwrap_or_else(|e| panic!("schema of {} is not JSON: {e}", r.name));
        let fields = schema["fields"]
            .as_object()
            .unwrap_or_else(|| panic!("schema of {} has no fields", r.name));
        assert_eq!(
            fields.len(),
            r.fields.len(),
            "{}: every field is in the schema",
            r.name
        );
        for f in r.fields {
            let entry = &fields[f.name];
            assert_eq!(entry["type"], f.ty, "{}.{}: type", r.name, f.name);
            assert!(
                !f.description.is_empty(),
                "{}.{} has no meaning",
                r.name,
                f.name
            );
            assert_eq!(
                entry["description"], f.description,
                "{}.{}: meaning",
                r.name, f.name
            );
            if !f.enum_values.is_empty() {
                assert_eq!(
                    entry["enum"],
                    json!(f.enum_values),
                    "{}.{}: enum",
                    r.name,
                    f.name
                );
            }
            assert_eq!(
                entry["sortable"].as_bool().unwrap_or(false),
                f.sortable,
                "{}.{}: sortable",
                r.name,
                f.name
            );
        }
        let listed = p
            .tools
            .iter()
            .any(|t| matches!(t.operation, Operation::List { record } if record == r.name));
        if listed && r.seed_count > 1 {
            assert!(
                r.fields.iter().any(|f| f.sortable),
                "{}: a listable type says which fields sort",
                r.name
            );
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Prompts
// ------------------------------------------------------------------------------------------------

pub fn every_prompt_of_the_document_has_its_arguments_formats_and_description(spec: &Spec) {
    let f = spec.doc.facts();
    let p = spec.doc.product();
    let prompts = doc_prompts(&f);
    let names: BTreeSet<&str> = prompts.iter().map(|x| x.name.as_str()).collect();
    let served: BTreeSet<&str> = p.prompts.iter().map(|x| x.name).collect();
    assert_eq!(
        served, names,
        "the catalog has exactly the document's prompts"
    );
    for dp in &prompts {
        let cp = p.prompt(&dp.name).expect("checked above");
        assert!(dp.what.is(cp.description), "{}: description", dp.name);
        let arg_names: Vec<&str> = cp.arguments.iter().map(|a| a.name).collect();
        let doc_names: Vec<&str> = dp.args.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(arg_names, doc_names, "{}: arguments", dp.name);
        for (ca, da) in cp.arguments.iter().zip(&dp.args) {
            assert_eq!(
                ca.required, da.required,
                "{}.{}: required",
                dp.name, da.name
            );
            assert_eq!(ca.format, da.format, "{}.{}: format", dp.name, da.name);
            if ca.required {
                assert!(
                    ca.default.is_none(),
                    "{}.{}: a required argument has no default",
                    dp.name,
                    da.name
                );
            }
            if ca.format == ArgFormat::Month {
                // The document gives no default month; the catalog's is the month being billed.
                assert_eq!(
                    ca.default,
                    Some("current_month"),
                    "{}.{}: default",
                    dp.name,
                    da.name
                );
            }
        }
        for t in cp.uses {
            assert!(p.tool(t).is_some(), "{} uses unknown tool {t}", dp.name);
        }
    }
}

pub fn only_the_prompts_the_document_says_write_do_write(spec: &Spec) {
    // "um prompt que escreve — como collect_overdue_invoices, que manda lembretes — não aparece"
    // (billing; review_portal_access in dashboards)
    let f = spec.doc.facts();
    let p = spec.doc.product();
    let writer = f.name("writing_prompt");
    assert!(
        p.prompt(writer).is_some(),
        "the writing prompt {writer} exists"
    );
    for prompt in p.prompts {
        assert_eq!(
            prompt.writes,
            prompt.name == writer,
            "{}: writes",
            prompt.name
        );
        if !prompt.writes {
            for t in prompt.uses {
                assert!(
                    p.tool(t).expect("exists").annotations.read_only,
                    "{} reads only, yet uses {t}",
                    prompt.name
                );
            }
        } else {
            let destructive: Vec<&str> = prompt
                .uses
                .iter()
                .filter(|t| p.tool(t).is_some_and(|t| t.annotations.destructive))
                .copied()
                .collect();
            // A writing prompt may rely on a destructive tool (resending an invite) or not (a billing
            // reminder); when it does, its template says it confirms each call.
            for t in destructive {
                assert!(
                    prompt.template.contains(t),
                    "{} relies on {t} and says how it is confirmed",
                    prompt.name
                );
            }
        }
    }
}

pub fn the_generated_docs_reproduce_the_prompts_table(spec: &Spec) {
    let f = spec.doc.facts();
    let md = spec.doc.generated_docs();
    let p = spec.doc.product();
    let rows = md_rows(&md, "## Prompts");
    for dp in doc_prompts(&f) {
        let row = md_row(&rows, &format!("`{}`", dp.name));
        assert!(
            dp.what.found_in(row),
            "{}: the docs give the document's description: {row}",
            dp.name
        );
        for a in &dp.args {
            assert!(
                row.contains(&format!("`{}`", a.name)),
                "{}: argument {} in the docs: {row}",
                dp.name,
                a.name
            );
            let word = if a.required { "required" } else { "optional" };
            assert!(
                row.contains(word),
                "{}: {} is {word} in the docs: {row}",
                dp.name,
                a.name
            );
            match a.format {
                ArgFormat::Month => assert!(
                    row.contains("YYYY-MM"),
                    "{}: month format in the docs",
                    dp.name
                ),
                ArgFormat::Date => assert!(
                    row.contains("YYYY-MM-DD"),
                    "{}: date format in the docs",
                    dp.name
                ),
                ArgFormat::Any => {}
            }
        }
        if dp.args.is_empty() {
            assert!(
                row.contains("none"),
                "{}: no arguments in the docs: {row}",
                dp.name
            );
        }
        let writes = p.prompt(&dp.name).expect("exists").writes;
        let last_cell = row
            .trim_end_matches('|')
            .rsplit('|')
            .next()
            .unwrap_or("")
            .trim();
        assert_eq!(
            last_cell,
            if writes { "yes" } else { "no" },
            "{}: writes column",
            dp.name
        );
    }
}

pub fn a_read_only_token_keeps_resources_and_completions_but_not_the_writing_prompt(spec: &Spec) {
    // "Com um token só de leitura, resources e completions continuam disponíveis, mas um prompt que
    // escreve … não aparece." A prompt is listed only when every tool it uses is callable.
    let p = spec.doc.product();
    let mut scopes: Vec<String> = p.tools.iter().map(|t| t.scope.to_string()).collect();
    scopes.push("read".into());
    let reader: runtime::identity::Identity = serde_json::from_value(json!({
        "person": "per_reader", "organization": "org_test", "scopes": scopes, "permissions": ["*"]
    }))
    .expect("identity");
    let callable = |name: &str| reader.can_call(p.tool(name).expect("tool exists")).is_ok();
    for r in p.resources {
        assert!(callable(r.read_by), "{} stays readable", r.uri);
    }
    for t in p.templates {
        assert!(callable(t.read_by), "{} stays readable", t.uri_template);
    }
    for c in p.completions {
        if let CompletionKind::ListIds { tool, .. } = c.kind {
            assert!(callable(tool), "completion {} stays available", c.id);
        }
    }
    for prompt in p.prompts {
        let listed = prompt.uses.iter().all(|t| callable(t));
        assert_eq!(
            listed, !prompt.writes,
            "{}: listed for a read-only token",
            prompt.name
        );
    }
    assert!(p.prompt(spec.writing_prompt).is_some_and(|x| x.writes));
}

// ------------------------------------------------------------------------------------------------
// Completions
// ------------------------------------------------------------------------------------------------

fn list_tool_of_template(p: &Product, uri: &str) -> &'static str {
    let t = p
        .templates
        .iter()
        .find(|t| t.uri_template == uri)
        .unwrap_or_else(|| panic!("{uri} not served"));
    let (_, source) = t
        .completions
        .iter()
        .find(|(v, _)| *v == "id")
        .unwrap_or_else(|| panic!("{uri}: {{id}} completes"));
    match p.completion(source).map(|c| c.kind) {
        Some(CompletionKind::ListIds { tool, .. }) => tool,
        other => panic!("{uri}: {{id}} completes from a listing, got {other:?}"),
    }
}

pub fn completions_follow_the_document_and_everything_else_is_empty(spec: &Spec) {
    let f = spec.doc.facts();
    let p = spec.doc.product();
    let rules = f.completions();
    assert!(
        rules.otherwise_empty,
        "the document says that without a source the list is empty"
    );
    assert!(
        !rules.id_templates.is_empty(),
        "the document completes record ids"
    );

    // Every (place, variable) that can be completed, and the kind it gets.
    let mut expected: BTreeMap<(String, String), &str> = BTreeMap::new();
    for t in p.templates {
        for var in t
            .uri_template
            .split('{')
            .skip(1)
            .filter_map(|s| s.split('}').next())
        {
            let covered = var == "id"
                && rules
                    .id_templates
                    .iter()
                    .any(|u| t.uri_template.starts_with(u.as_str()))
                || var == "resource" && rules.schema_names && t.uri_template.contains("/schemas/");
            let kind = match (covered, var) {
                (true, "id") => "ids",
                (true, _) => "schema_names",
                (false, _) => "none",
            };
            expected.insert((t.uri_template.to_string(), var.to_string()), kind);
        }
    }
    for prompt in p.prompts {
        for a in prompt.arguments {
            let kind = if rules.id_args.iter().any(|x| x == a.name) {
                "ids"
            } else if a.format == ArgFormat::Month && rules.last_months.is_some() {
                "months"
            } else {
                "none"
            };
            expected.insert((prompt.name.to_string(), a.name.to_string()), kind);
        }
    }
    for id_arg in &rules.id_args {
        assert!(
            p.prompts
                .iter()
                .any(|x| x.arguments.iter().any(|a| a.name == id_arg)),
            "the document completes {id_arg}, which no prompt takes"
        );
    }

    for ((place, var), kind) in &expected {
        let source = match p.templates.iter().find(|t| t.uri_template == place) {
            Some(t) => t
                .completions
                .iter()
                .find(|(v, _)| v == var)
                .map(|(_, s)| *s),
            None => p
                .prompt(place)
                .and_then(|x| x.arguments.iter().find(|a| a.name == var))
                .and_then(|a| a.complete),
        };
        let got = source.map(|s| {
            p.completion(s)
                .unwrap_or_else(|| panic!("unknown source {s}"))
                .kind
        });
        match (*kind, got) {
            ("ids", Some(CompletionKind::ListIds { tool, limit, .. })) => {
                assert!(
                    limit > 0 && limit <= 100,
                    "{place} {var}: at most 100 suggestions"
                );
                let list = p.tool(tool).expect("list tool exists");
                assert!(
                    matches!(list.operation, Operation::List { .. }),
                    "{place} {var}: {tool} is a listing"
                );
                assert!(list.annotations.read_only, "{tool} only reads");
                if var == "id" {
                    // The listing of the template's own records: `kobana://billing/<records>/{id}`.
                    let records = place
                        .trim_start_matches(p.uri_prefix)
                        .split('/')
                        .next()
                        .unwrap_or_default();
                    assert!(
                        matches!(list.operation, Operation::List { record } if record == records),
                        "{place}: ids come from the listing of {records}, not {tool}"
                    );
                } else {
                    // `customer_id` → the listing of the customers template.
                    let stem = var.trim_end_matches("_id");
                    let uri = format!("{}{stem}s/{{id}}", p.uri_prefix);
                    assert_eq!(
                        tool,
                        list_tool_of_template(p, &uri),
                        "{place} {var}: same listing as {uri}"
                    );
                }
            }
            ("schema_names", Some(CompletionKind::SchemaNames)) => {}
            ("months", Some(CompletionKind::LastMonths(n))) => {
                assert_eq!(
                    Some(n),
                    rules.last_months,
                    "{place} {var}: the last {n} months"
                );
            }
            ("none", None | Some(CompletionKind::None)) => {}
            (kind, got) => panic!("{place} {var}: expected {kind}, got {got:?}"),
        }
    }
}

pub fn the_generated_docs_reproduce_the_completion_rules(spec: &Spec) {
    let f = spec.doc.facts();
    let md = spec.doc.generated_docs();
    let p = spec.doc.product();
    let rows = md_rows(&md, "## Completions");
    let rules = f.completions();
    for uri in &rules.id_templates {
        let row = md_row(&rows, &format!("`{{id}}` in `{uri}`"));
        let tool = list_tool_of_template(p, uri);
        assert!(
            row.contains(&format!("`{tool}`")),
            "{uri}: the docs name the listing: {row}"
        );
    }
    for prompt in p.prompts {
        for a in prompt.arguments {
            let row = md_row(&rows, &format!("`{}` of prompt `{}`", a.name, prompt.name));
            if rules.id_args.iter().any(|x| x == a.name) {
                assert!(
                    row.contains("_list`"),
                    "{}: ids from a listing in the docs: {row}",
                    a.name
                );
            } else if a.format == ArgFormat::Month {
                let n = rules.last_months.expect("month rule");
                assert!(
                    row.contains(&format!("last {n} months")),
                    "{}: the last {n} months in the docs: {row}",
                    a.name
                );
            } else {
                assert!(
                    row.trim_end_matches('|').trim_end().ends_with("none"),
                    "{}: no suggestions: {row}",
                    a.name
                );
            }
        }
    }
    if rules.schema_names {
        let row = md_row(&rows, "`{resource}`");
        assert!(
            row.contains("schemas catalog"),
            "{{resource}}: catalog names in the docs: {row}"
        );
    }
}

// ------------------------------------------------------------------------------------------------
// Destructive tools and the confirmation policy
// ------------------------------------------------------------------------------------------------

pub fn destructive_tools_follow_the_document_rule_with_its_clause(spec: &Spec) {
    let f = spec.doc.facts();
    let p = spec.doc.product();
    let rule = f.destructive();
    let (sentence, verbs) = (&rule.sentence, &rule.verbs);
    for v in verbs {
        assert!(
            VERB_ACTIONS.iter().any(|(w, _)| w == v),
            "the test knows the tool actions of the document's verb `{v}`"
        );
    }
    let mut used: BTreeSet<&str> = BTreeSet::new();
    for t in p.tools {
        let action_words: Vec<&str> = t
            .name
            .trim_start_matches(p.tool_prefix)
            .split('_')
            .collect();
        let named_verb = verbs.iter().find(|v| {
            VERB_ACTIONS
                .iter()
                .find(|(w, _)| w == v)
                .is_some_and(|(_, actions)| action_words.iter().any(|a| actions.contains(a)))
        });
        if t.annotations.read_only {
            assert!(!t.annotations.destructive, "{} reads only", t.name);
            continue;
        }
        if let Some(v) = named_verb {
            assert!(
                t.annotations.destructive,
                "{}: the document makes tools that {v} destructive",
                t.name
            );
        }
        if t.annotations.destructive {
            let clause = t
                .destructive_clause
                .unwrap_or_else(|| panic!("{} has no clause", t.name));
            let verb = verbs
                .iter()
                .find(|v| clause.starts_with(v.as_str()))
                .unwrap_or_else(|| {
                    panic!(
                        "{}: the clause starts with one of {verbs:?}: {clause}",
                        t.name
                    )
                });
            used.insert(verb);
            let quoted = clause
                .split('"')
                .nth(1)
                .unwrap_or_else(|| panic!("{}: the clause quotes the document", t.name));
            assert!(
                sentence.is(quoted),
                "{}: the quoted clause is the document's rule: {quoted}",
                t.name
            );
        } else {
            assert!(
                t.destructive_clause.is_none(),
                "{} is not destructive but has a clause",
                t.name
            );
        }
    }
    for v in verbs {
        assert!(
            used.contains(v.as_str()),
            "no destructive tool for `{v}` of the document's rule"
        );
    }
}

pub fn the_generated_docs_list_each_destructive_tool_with_its_clause(spec: &Spec) {
    let md = spec.doc.generated_docs();
    let p = spec.doc.product();
    let rows = md_rows(&md, "## Tools");
    for t in p.tools {
        let row = md_row(&rows, &format!("| `{}` |", t.name));
        match t.destructive_clause {
            Some(clause) if t.annotations.destructive => {
                assert!(
                    row.contains("destructive"),
                    "{}: marked destructive in the docs: {row}",
                    t.name
                );
                assert!(
                    row.contains(clause),
                    "{}: its clause in the docs: {row}",
                    t.name
                );
            }
            _ => assert!(
                !row.contains("destructive"),
                "{}: not destructive in the docs: {row}",
                t.name
            ),
        }
        assert!(
            row.contains(&format!("`{}`", t.scope)),
            "{}: scope in the docs",
            t.name
        );
        assert!(
            row.contains(&format!("`{}`", t.permission)),
            "{}: permission in the docs",
            t.name
        );
    }
}

pub fn the_confirmation_policy_is_the_documents(spec: &Spec) {
    let f = spec.doc.facts();
    let p = spec.doc.product();
    let policy = p.policy;
    for code in ["USER_DECLINED", "user_declined"] {
        if f.mentions(code) {
            assert_eq!(policy.decline_code, code, "decline code");
        }
    }
    // "… a mesma pessoa e organização, por 5 minutos."
    assert!(
        f.claim("binds_person_and_organization"),
        "the document binds person and organization"
    );
    assert!(policy.confirmation_binds.person && policy.confirmation_binds.organization);
    assert_eq!(
        policy.confirmation_binds.workspace,
        f.claim("mentions_workspace"),
        "workspace binding"
    );
    let minutes = f.number("confirmation_minutes");
    assert_eq!(policy.confirmation_ttl_secs, minutes * 60);
    if f.mentions("confirmation_required") {
        assert_eq!(
            policy.unconfirmable_destructive,
            UnconfirmableDestructive::Refuse
        );
    } else {
        assert!(
            f.claim("unconfirmable_runs_directly"),
            "the document says what an unconfirmable call does"
        );
        assert_eq!(
            policy.unconfirmable_destructive,
            UnconfirmableDestructive::Run
        );
    }
    if f.mentions("confirmation_replayed") {
        assert_eq!(policy.replay, ReplayPolicy::Refuse);
    } else {
        assert!(
            f.claim("reused_answer_asks_again"),
            "the document says what a reused answer gets"
        );
        assert_eq!(policy.replay, ReplayPolicy::AskAgain);
    }
    assert!(f.claim("fixed_uris_listed"));
    assert_eq!(policy.resources_list, ResourcesListPolicy::FixedOnly);
    assert!(!policy.workspaced);
}

// ------------------------------------------------------------------------------------------------
// The sandbox: every listable type is seeded, and every prompt has something to find
// ------------------------------------------------------------------------------------------------

/// Page size the sandbox tests ask for (the sandbox caps pages at 50).
const PER_PAGE: usize = 50;

/// The SQLite sandbox of one product, called directly with a full-access identity.
pub struct Sandboxed {
    _dir: tempfile::TempDir,
    sandbox: runtime_sandbox::Sandbox,
    ctx: runtime::backend_api::CallContext,
}

impl Sandboxed {
    pub fn new(product: &'static Product) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let sandbox =
            runtime_sandbox::Sandbox::open(&runtime_sandbox::SandboxConfig::new(dir.path()))
                .expect("sandbox opens");
        let identity: runtime::identity::Identity = serde_json::from_value(json!({
            "person": "per_test", "organization": "org_test", "scopes": ["all"], "permissions": ["*"]
        }))
        .expect("identity");
        let ctx = runtime::backend_api::CallContext {
            product,
            identity: identity.into(),
            bearer_token: None,
            workspace: None,
            idempotency_key: None,
            locale: runtime_model::locale::Locale::En,
            progress: Default::default(),
            attempts: Default::default(),
        };
        Sandboxed {
            _dir: dir,
            sandbox,
            ctx,
        }
    }

    pub fn call(&self, tool: &str, args: Value) -> Value {
        let tool = self
            .ctx
            .product
            .tool(tool)
            .unwrap_or_else(|| panic!("no tool {tool}"));
        let args: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
        match self.sandbox.call_blocking(&self.ctx, tool, &args) {
            Ok(runtime::backend_api::Output::Json(v)) => v,
            other => panic!("{} {args:?}: {other:?}", tool.name),
        }
    }

    /// Every record a listing gives, over all pages (until an empty page).
    pub fn list_all(&self, tool: &str, filters: Value) -> Vec<Value> {
        let mut out = Vec::new();
        for page in 1.. {
            let mut args = filters.as_object().cloned().unwrap_or_default();
            args.insert("page".into(), json!(page));
            args.insert("per_page".into(), json!(PER_PAGE));
            let v = self.call(tool, Value::Object(args));
            let items = match v {
                Value::Array(a) => a,
                Value::Object(mut m) => match m.remove("data") {
                    Some(Value::Array(a)) => a,
                    _ => panic!("{tool}: a listing answers records"),
                },
                _ => panic!("{tool}: a listing answers records"),
            };
            if items.is_empty() {
                break;
            }
            assert!(
                items.len() <= PER_PAGE,
                "{tool}: at most per_page records per page"
            );
            out.extend(items);
            assert!(page < 100, "{tool}: pagination does not end");
        }
        out
    }
}

pub fn the_sandbox_seeds_every_listable_type(spec: &Spec) {
    let s = Sandboxed::new(spec.doc.product());
    let p = spec.doc.product();
    for (tool, rt) in list_tools(p).filter(|(_, rt)| rt.seed_count > 1) {
        assert!(
            rt.seed_count >= 25,
            "{}: at least 25 seeded records",
            rt.name
        );
        let n = s.list_all(tool, json!({})).len();
        assert_eq!(
            n, rt.seed_count as usize,
            "{tool}: every seeded {} is listed",
            rt.name
        );
    }
}

/// "A organização do token (JSON)": the organization is one record. Its tool is a `singleton`
/// operation (no id), the sandbox seeds exactly one (never padded like a listable type), and the
/// resource `kobana://<product>/organization` reads that one record, as a JSON object, through
/// the server.
pub async fn the_organization_is_a_single_record(spec: &Spec) {
    let p = spec.doc.product();
    let uri = format!("{}organization", p.uri_prefix);
    let resource = p
        .resources
        .iter()
        .find(|r| r.uri == uri)
        .unwrap_or_else(|| panic!("{uri} is a fixed resource"));
    let Operation::Singleton { record } = p.tool(resource.read_by).expect("tool").operation else {
        panic!("{uri} is read by a singleton tool ({})", resource.read_by)
    };
    let rt = p
        .record(record)
        .expect("the singleton's record type is declared");
    assert!(
        list_tools(p).all(|(_, listed)| listed.name != rt.name),
        "no tool lists {} (it is one record)",
        rt.name
    );

    // The sandbox: one record, the same on every read.
    let s = Sandboxed::new(p);
    let first = s.call(resource.read_by, json!({}));
    let one = first
        .as_object()
        .unwrap_or_else(|| panic!("{}: one record, not a listing: {first}", resource.read_by));
    let id = one[rt.id_field]
        .as_str()
        .unwrap_or_else(|| panic!("{}: the record has its `{}`", rt.name, rt.id_field));
    assert!(!id.is_empty());
    assert!(
        one["name"].as_str().is_some_and(|n| !n.is_empty()),
        "the organization has a name: {first}"
    );
    assert_eq!(
        s.call(resource.read_by, json!({})),
        first,
        "the same record"
    );

    // Through the server: the resource is that one record, as a JSON object.
    let server = harness::start(harness::Options::all_products()).await;
    let c = server.client(spec.doc.product, "demo-full");
    let a = c.request("resources/read", json!({"uri": uri})).await;
    let contents = a.result()["contents"]
        .as_array()
        .unwrap_or_else(|| panic!("{uri}: contents: {}", a.body));
    assert_eq!(contents.len(), 1, "{uri}: one content item: {}", a.body);
    let text = contents[0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{uri}: JSON text: {}", a.body));
    let v: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{uri}: JSON ({e}): {text}"));
    let org = v
        .as_object()
        .unwrap_or_else(|| panic!("{uri}: one organization, not a list: {text}"));
    assert!(
        org[rt.id_field].as_str().is_some_and(|i| !i.is_empty()),
        "{uri}: the organization's `{}`: {text}",
        rt.id_field
    );
    for field in rt.fields {
        assert!(
            org.contains_key(field.name),
            "{uri}: the record's field `{}`: {text}",
            field.name
        );
    }
}

/// Every list tool with the record type it lists.
pub fn list_tools(
    p: &'static Product,
) -> impl Iterator<Item = (&'static str, &'static runtime::catalog::RecordType)> {
    p.tools.iter().filter_map(move |t| match t.operation {
        Operation::List { record } => Some((
            t.name,
            p.record(record).expect("listed record type is declared"),
        )),
        _ => None,
    })
}

// ------------------------------------------------------------------------------------------------
// Through the protocol: the document's behaviour on a real server (HTTP, sandbox, demo tokens)
// ------------------------------------------------------------------------------------------------

const LEGACY: &str = "2025-11-25";

/// A real id of the records a template reads (from the listing of the same record type).
async fn real_id(c: &harness::Client, p: &'static Product, read_by: &str) -> String {
    let Operation::Get { record, .. } = p.tool(read_by).expect("tool").operation else {
        panic!("{read_by} reads one record")
    };
    let (list, rt) = list_tools(p)
        .find(|(_, rt)| rt.name == record)
        .unwrap_or_else(|| panic!("no listing of {record}"));
    let a = c.call_tool(list, json!({}), None, None).await;
    let records = harness::records_of(&a);
    records
        .first()
        .and_then(|r| r[rt.id_field].as_str())
        .unwrap_or_else(|| panic!("{list} gives records with `{}`: {}", rt.id_field, a.body))
        .to_string()
}

pub async fn resources_are_served_as_the_document_says(spec: &Spec) {
    let f = spec.doc.facts();
    let p = spec.doc.product();
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client(spec.doc.product, "demo-full");
    let resources = &f.resources;

    // "resources/list traz as URIs fixas e resources/templates/list os templates com {id}."
    let listed: BTreeSet<String> = c
        .list_all("resources/list", "resources")
        .await
        .iter()
        .filter_map(|r| r["uri"].as_str().map(str::to_string))
        .collect();
    let fixed: BTreeSet<String> = resources
        .iter()
        .filter(|r| !r.is_template())
        .map(|r| r.uri.clone())
        .collect();
    assert_eq!(listed, fixed, "resources/list");
    let templates: BTreeSet<String> = c
        .list_all("resources/templates/list", "resourceTemplates")
        .await
        .iter()
        .filter_map(|r| r["uriTemplate"].as_str().map(str::to_string))
        .collect();
    let doc_templates: BTreeSet<String> = resources
        .iter()
        .filter(|r| r.is_template())
        .map(|r| r.uri.clone())
        .collect();
    assert_eq!(templates, doc_templates, "resources/templates/list");

    for r in resources {
        let (uri, mime, content) = match p.templates.iter().find(|t| t.uri_template == r.uri) {
            Some(t) => {
                let value = if t.content == ContentKind::SchemaEntry {
                    p.records[0].name.to_string()
                } else {
                    real_id(&c, p, t.read_by).await
                };
                let var = t.args.first().map_or("id", |(v, _)| *v);
                let var = t
                    .uri_template
                    .split('{')
                    .nth(1)
                    .and_then(|s| s.split('}').next())
                    .unwrap_or(var);
                (
                    t.uri_template.replace(&format!("{{{var}}}"), &value),
                    t.mime_type,
                    t.content,
                )
            }
            None => {
                let f = p.resources.iter().find(|x| x.uri == r.uri).expect("served");
                (f.uri.to_string(), f.mime_type, f.content)
            }
        };
        let a = c.request("resources/read", json!({"uri": uri})).await;
        let item = &a.result()["contents"][0];
        assert_eq!(item["uri"], uri.as_str(), "{uri}: {}", a.body);
        assert_eq!(item["mimeType"], mime, "{uri}: MIME type");
        match content {
            ContentKind::Blob { .. } => {
                let blob = item["blob"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{uri}: a base64 blob: {}", a.body));
                assert!(blob.starts_with("JVBER"), "{uri}: base64 of a PDF (%PDF-)");
            }
            ContentKind::Text => {
                let text = item["text"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{uri}: text: {}", a.body));
                assert!(
                    text.trim_start().starts_with('<'),
                    "{uri}: XML text: {text}"
                );
            }
            _ => {
                let text = item["text"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{uri}: JSON text: {}", a.body));
                let v: Value = serde_json::from_str(text)
                    .unwrap_or_else(|e| panic!("{uri}: JSON ({e}): {text}"));
                if content == ContentKind::SchemaEntry || content == ContentKind::SchemaCatalog {
                    // The tool that reads it answers the same catalog, generated from the records.
                    let (read_by, args) = match p.templates.iter().find(|t| t.uri_template == r.uri)
                    {
                        Some(t) => (
                            t.read_by,
                            json!({ t.args.first().map_or("resource", |(_, a)| *a): p.records[0].name }),
                        ),
                        None => (
                            p.resources
                                .iter()
                                .find(|x| x.uri == r.uri)
                                .expect("served")
                                .read_by,
                            json!({}),
                        ),
                    };
                    let tool = c.call_tool(read_by, args, None, None).await;
                    let answered = &tool.result()["structuredContent"];
                    if content == ContentKind::SchemaEntry {
                        assert!(
                            v["fields"].is_object(),
                            "{uri}: the fields of a resource: {v}"
                        );
                        assert_eq!(answered, &v, "{read_by} answers the entry of {uri}");
                    } else {
                        let names: Vec<&str> = p.records.iter().map(|r| r.name).collect();
                        let listed: Vec<&str> = v["schemas"]
                            .as_array()
                            .map(|a| a.iter().filter_map(|s| s["name"].as_str()).collect())
                            .unwrap_or_default();
                        assert_eq!(listed, names, "{uri}: every record type of the catalog");
                        assert_eq!(
                            answered["schemas"], v["schemas"],
                            "{read_by} answers the catalog of {uri}"
                        );
                    }
                }
            }
        }
    }

    // "URI desconhecida, ou registro que não existe nesta organização, é -32002 na era 2025 e -32602
    // na 2026-07-28."
    let template = p
        .templates
        .iter()
        .find(|t| t.content == ContentKind::JsonRecord)
        .expect("a record template");
    let missing = template.uri_template.replace("{id}", "no-such-record");
    let unknown = format!("{}no_such_thing", p.uri_prefix);
    for uri in [missing, unknown] {
        let modern = c.request("resources/read", json!({"uri": uri})).await;
        assert_eq!(
            modern.error()["code"],
            -32602,
            "{uri} on 2026-07-28: {}",
            modern.body
        );
        let old = c
            .clone()
            .legacy(LEGACY)
            .request("resources/read", json!({"uri": uri}))
            .await;
        assert_eq!(
            old.error()["code"],
            -32002,
            "{uri} on {LEGACY}: {}",
            old.body
        );
    }
}

pub async fn prompts_and_completions_behave_as_the_document_says(spec: &Spec) {
    let f = spec.doc.facts();
    let p = spec.doc.product();
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client(spec.doc.product, "demo-full");
    let rules = f.completions();

    for dp in doc_prompts(&f) {
        // A value for every argument: a real id for ids, a month for months.
        let mut args = Map::new();
        for a in &dp.args {
            let value = if a.format == ArgFormat::Month {
                "2026-01".to_string()
            } else if rules.id_args.contains(&a.name) {
                let stem = a.name.trim_end_matches("_id");
                let uri = format!("{}{stem}s/{{id}}", p.uri_prefix);
                let t = p
                    .templates
                    .iter()
                    .find(|t| t.uri_template == uri)
                    .expect("template of the id");
                real_id(&c, p, t.read_by).await
            } else {
                "tnt_acme".to_string()
            };
            args.insert(a.name.clone(), json!(value));
        }
        let ok = c
            .request("prompts/get", json!({"name": dp.name, "arguments": args}))
            .await;
        let text = ok.result()["messages"][0]["content"]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            !text.is_empty(),
            "{}: a first message: {}",
            dp.name,
            ok.body
        );
        for v in args.values().filter_map(Value::as_str) {
            assert!(
                text.contains(v),
                "{}: the message carries {v}: {text}",
                dp.name
            );
        }
        // "Argumento obrigatório ausente, ou month fora do formato, é -32602."
        for a in dp.args.iter().filter(|a| a.required) {
            let mut without = args.clone();
            without.remove(&a.name);
            let e = c
                .request(
                    "prompts/get",
                    json!({"name": dp.name, "arguments": without}),
                )
                .await;
            assert_eq!(
                e.error()["code"],
                -32602,
                "{} without {}: {}",
                dp.name,
                a.name,
                e.body
            );
        }
        for a in dp.args.iter().filter(|a| a.format == ArgFormat::Month) {
            for bad in ["2026-13", "01/2026", "2026-1"] {
                let mut wrong = args.clone();
                wrong.insert(a.name.clone(), json!(bad));
                let e = c
                    .request("prompts/get", json!({"name": dp.name, "arguments": wrong}))
                    .await;
                assert_eq!(
                    e.error()["code"],
                    -32602,
                    "{} with {} = {bad}: {}",
                    dp.name,
                    a.name,
                    e.body
                );
            }
        }

        // Completions of the prompt's arguments.
        for a in &dp.args {
            let r = c
                .request(
                    "completion/complete",
                    json!({"ref": {"type": "ref/prompt", "name": dp.name}, "argument": {"name": a.name, "value": ""}}),
                )
                .await;
            let values = r.result()["completion"]["values"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            if rules.id_args.contains(&a.name) {
                assert!(
                    !values.is_empty(),
                    "{}.{}: ids from the listing: {}",
                    dp.name,
                    a.name,
                    r.body
                );
            } else if a.format == ArgFormat::Month {
                let n = rules.last_months.expect("the month rule") as usize;
                assert_eq!(
                    values.len(),
                    n,
                    "{}.{}: the last {n} months: {}",
                    dp.name,
                    a.name,
                    r.body
                );
                assert!(values
                    .iter()
                    .all(|v| v.as_str().is_some_and(|m| m.len() == 7 && &m[4..5] == "-")));
            } else {
                assert!(
                    values.is_empty(),
                    "{}.{}: no source, an empty list: {}",
                    dp.name,
                    a.name,
                    r.body
                );
            }
        }
    }

    // Completions of the templates: ids by prefix, schema names by prefix, nothing else.
    for t in p.templates {
        let var = t
            .uri_template
            .split('{')
            .nth(1)
            .and_then(|s| s.split('}').next())
            .expect("a variable");
        let complete = |value: String| {
            let c = c.clone();
            let uri = t.uri_template;
            async move {
                let r = c
                    .request(
                        "completion/complete",
                        json!({"ref": {"type": "ref/resource", "uri": uri}, "argument": {"name": var, "value": value}}),
                    )
                    .await;
                r.result()["completion"]["values"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            }
        };
        if var == "resource" {
            let name = p.records[0].name;
            let values = complete(name[..3].to_string()).await;
            assert!(
                values.iter().any(|v| v == name),
                "{}: {name} by prefix: {values:?}",
                t.uri_template
            );
            assert!(values
                .iter()
                .all(|v| v.as_str().is_some_and(|s| s.starts_with(&name[..3]))));
        } else if rules
            .id_templates
            .iter()
            .any(|u| t.uri_template.starts_with(u.as_str()))
        {
            let id = real_id(&c, p, t.read_by).await;
            let values = complete(id[..4].to_string()).await;
            assert!(
                values.iter().any(|v| v == id.as_str()),
                "{}: {id} by prefix: {values:?}",
                t.uri_template
            );
        } else {
            assert!(
                complete(String::new()).await.is_empty(),
                "{}: no source, an empty list",
                t.uri_template
            );
        }
    }
}

pub async fn a_destructive_tool_on_a_client_that_cannot_confirm_does_what_the_document_says(
    spec: &Spec,
) {
    let f = spec.doc.facts();
    let p = spec.doc.product();
    let s = harness::start(harness::Options::all_products()).await;
    let c = s.client(spec.doc.product, "demo-full");
    let (tool, record, id_arg) = p
        .tools
        .iter()
        .find_map(|t| match t.operation {
            Operation::Delete { record, id_arg } if t.annotations.destructive => {
                Some((t.name, record, id_arg))
            }
            _ => None,
        })
        .expect("a destructive delete tool");
    let get = p
        .tools
        .iter()
        .find(|t| {
            matches!(t.operation, Operation::Get { record: r, .. } if r == record)
                && t.name.ends_with("_get")
        })
        .expect("the get tool of the record")
        .name;
    let (list, _) = list_tools(p)
        .find(|(_, rt)| rt.name == record)
        .expect("listing");
    let records = harness::records_of(&c.call_tool(list, json!({}), None, None).await);
    let id = records
        .last()
        .and_then(|r| r["id"].as_str())
        .expect("a record")
        .to_string();

    let old = c.clone().legacy(LEGACY);
    let a = old.call_tool(tool, json!({ id_arg: id }), None, None).await;
    let still_there = c
        .call_tool(get, json!({"id": id}), None, None)
        .await
        .result()["isError"]
        != json!(true);
    if f.mentions("confirmation_required") {
        // "… não roda tools destrutivas: a chamada volta isError com confirmation_required e nada é executado."
        assert_eq!(
            a.tool_error_code().as_deref(),
            Some("confirmation_required"),
            "{tool} on {LEGACY}: {}",
            a.body
        );
        assert!(still_there, "{tool}: nothing ran");
    } else {
        // "Na era 2025, ou com um cliente sem esse suporte, a tool roda direto."
        assert_ne!(
            a.result()["isError"],
            json!(true),
            "{tool} on {LEGACY} runs directly: {}",
            a.body
        );
        assert!(!still_there, "{tool}: the record is gone");
    }
}

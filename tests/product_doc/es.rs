//! The es product documents written as Markdown-like tables (finance, inbox): the sandbox and
//! server they are checked on, and the checks every such product passes against the document's
//! facts (`catalog/facts/product-docs/<product>.json`; the parsing is in `codegen/tools/src/facts/es.rs`).
//!
//! The checks here are the bodies of tests of
//! `tests/finance_docs.rs` and `tests/inbox_docs.rs`: `document_tests!` declares the ones that
//! need nothing but the document under the names they have always had; the others take what
//! differs between the products as arguments.

use std::collections::BTreeSet;

use runtime::catalog::{
    ArgFormat, CompletionKind, ContentKind, Operation, Product, ReplayPolicy, ResourcesListPolicy,
    Tool, UnconfirmableDestructive,
};
use serde_json::{json, Map, Value};

use codegen_tools::facts::docs::{squash, DocFacts, Phrase, Resource};

use super::{doc_prompts, harness, DocPrompt, ProductDoc};

/// What the checks need to know of one product beyond its document.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub doc: ProductDoc,
    /// At least this many rows in the resources table (fewer means the table was misread).
    pub min_resources: usize,
    /// Exactly this many rows in the prompts table.
    pub prompts: usize,
    /// The workspace the sandbox calls run in.
    pub workspace: &'static str,
}

impl Spec {
    /// The document's resources table.
    pub fn doc_resources<'f>(&self, f: &'f DocFacts) -> &'f [Resource] {
        assert!(
            f.resources.len() >= self.min_resources,
            "the resources table was not read: {:?}",
            f.resources
        );
        &f.resources
    }

    /// The document's prompts table.
    pub fn doc_prompts(&self, f: &DocFacts) -> Vec<DocPrompt> {
        let prompts = doc_prompts(f);
        assert_eq!(
            prompts.len(),
            self.prompts,
            "the prompts table was not read: {prompts:?}"
        );
        prompts
    }

    /// A fresh sandbox of the product, called in `workspace`.
    pub fn sandbox(&self) -> Sandboxed {
        Sandboxed::new(self.doc.product(), self.workspace)
    }
}

/// Declares the checks of this module that need only the document as tests of the including
/// crate, under their own names: `product_doc::es::document_tests!(SPEC);` at the crate root.
// Not every crate that includes this module declares these tests.
#[allow(unused_macros)]
macro_rules! document_tests {
    ($spec:path) => {
        $crate::product_doc::es::document_tests!(@each $spec;
            the_generated_docs_reproduce_the_prompts_table,
            the_generated_docs_reproduce_the_completion_rules,
            the_generated_docs_list_each_destructive_tool_with_its_clause,
        );
    };
    (@each $spec:path; $($name:ident,)*) => {
        $(
            #[test]
            fn $name() {
                $crate::product_doc::es::$name(&$spec)
            }
        )*
    };
}
#[allow(unused_imports)]
pub(crate) use document_tests;

// ------------------------------------------------------------------------------------------------
// Reading the generated docs and the catalog
// ------------------------------------------------------------------------------------------------

/// The lines of a markdown table that follows `heading` in the generated docs.
pub fn md_rows<'a>(md: &'a str, heading: &str) -> Vec<&'a str> {
    let start = md
        .find(heading)
        .unwrap_or_else(|| panic!("the generated docs have no `{heading}`"));
    md[start..]
        .lines()
        .skip(1)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .collect()
}

pub fn all_uris(p: &Product) -> BTreeSet<String> {
    p.resources
        .iter()
        .map(|r| r.uri.to_string())
        .chain(p.templates.iter().map(|t| t.uri_template.to_string()))
        .collect()
}

pub fn read_by_of(p: &Product, uri: &str) -> &'static str {
    p.resources
        .iter()
        .find(|r| r.uri == uri)
        .map(|r| r.read_by)
        .or_else(|| {
            p.templates
                .iter()
                .find(|t| t.uri_template == uri)
                .map(|t| t.read_by)
        })
        .unwrap_or_else(|| panic!("no resource {uri}"))
}

pub fn input_properties(p: &Product, tool: &str) -> Map<String, Value> {
    let t = p.tool(tool).unwrap_or_else(|| panic!("no tool {tool}"));
    let schema: Value = serde_json::from_str(t.input_schema_json).expect("input schema is JSON");
    schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default()
}

pub fn completion_kind(p: &Product, id: &str) -> CompletionKind {
    p.completion(id)
        .unwrap_or_else(|| panic!("no completion source {id}"))
        .kind
}

/// The list tool of an id completion, checked to list records by their id field.
pub fn list_ids_tool(p: &Product, id: &str, what: &str) -> &'static str {
    match completion_kind(p, id) {
        CompletionKind::ListIds {
            tool, field, limit, ..
        } => {
            let t = p
                .tool(tool)
                .unwrap_or_else(|| panic!("{what}: no tool {tool}"));
            let Operation::List { record } = t.operation else {
                panic!("{what}: {tool} is not a listing");
            };
            let rt = p.record(record).expect("listed record");
            assert_eq!(field, rt.id_field, "{what}: ids are the records' ids");
            assert!(limit > 0 && limit <= 100, "{what}: at most 100 suggestions");
            tool
        }
        other => panic!("{what}: ids come from a listing, got {other:?}"),
    }
}

// ------------------------------------------------------------------------------------------------
// Checks shared by the products
// ------------------------------------------------------------------------------------------------

/// The catalog serves exactly the URIs of the document's resources table.
pub fn the_catalog_serves_exactly_the_documented_uris(p: &Product, rows: &[Resource]) {
    let documented: BTreeSet<String> = rows.iter().map(|r| r.uri.clone()).collect();
    assert_eq!(
        all_uris(p),
        documented,
        "the catalog serves exactly the URIs of the document's table"
    );
}

/// The MIME type and content kind of the resource or template `uri`.
pub fn served_as(p: &Product, uri: &str) -> (&'static str, ContentKind) {
    p.resources
        .iter()
        .find(|r| r.uri == uri)
        .map(|r| (r.mime_type, r.content))
        .or_else(|| {
            p.templates
                .iter()
                .find(|t| t.uri_template == uri)
                .map(|t| (t.mime_type, t.content))
        })
        .expect("served")
}

/// The example of the permissions paragraph, a URI run into `es` and the tool that reads it
/// (`{id}esfinance_payables_get`), holds in the catalog.
pub fn the_permissions_example_is_read_by_its_tool(p: &Product, f: &DocFacts) {
    assert!(
        !f.read_by.is_empty(),
        "the document names the tool that reads a resource"
    );
    for r in &f.read_by {
        assert_eq!(
            read_by_of(p, &r.uri),
            r.tool,
            "{} is read by {}",
            r.uri,
            r.tool
        );
    }
}

/// Every fixed resource is read by a tool that only reads.
pub fn fixed_resources_are_read_by_tools_that_only_read(p: &Product) {
    for r in p.resources {
        let t = p.tool(r.read_by).expect("reader exists");
        assert!(
            t.annotations.read_only,
            "{} reads {} and is read-only",
            t.name, r.uri
        );
    }
}

/// The template `uri` is read by the `get` of `record`, which takes the template's variable as
/// its id; that tool is returned.
pub fn read_by_the_get_of(p: &Product, uri: &str, record: &str) -> &'static Tool {
    let t = p.tool(read_by_of(p, uri)).expect("reader");
    match t.operation {
        Operation::Get { record: r, id_arg } => {
            assert_eq!(r, record, "{uri} reads a {record} record");
            assert!(
                uri.contains(&format!("{{{id_arg}}}")),
                "{uri} passes {id_arg}"
            );
        }
        other => panic!("{uri}: read by a get, got {other:?}"),
    }
    t
}

/// Each row's description is the part the docs repeat (the products differ in whether a final
/// period or the ` (JSON)` mark is cut first; the facts hold that part).
pub fn the_generated_docs_reproduce_the_resources_table(spec: &Spec) {
    let f = spec.doc.facts();
    let md = spec.doc.generated_docs();
    let p = spec.doc.product();
    for row in spec.doc_resources(&f) {
        let cell = format!("`{}`", row.uri);
        let line = md
            .lines()
            .find(|l| l.starts_with('|') && l.contains(&cell))
            .unwrap_or_else(|| panic!("{} is not in the docs' resource tables", row.uri));
        let reader = format!("`{}`", read_by_of(p, &row.uri));
        assert!(
            line.contains(&reader),
            "the docs row of {} names {reader}: {line}",
            row.uri
        );
        assert!(
            row.what.found_in(line),
            "the docs row of {} says what the document says ({} characters, {}): {line}",
            row.uri,
            row.what.chars,
            row.what.sha256
        );
    }
}

pub fn the_generated_docs_reproduce_the_prompts_table(spec: &Spec) {
    let f = spec.doc.facts();
    let md = spec.doc.generated_docs();
    let rows = md_rows(&md, "## Prompts");
    for d in spec.doc_prompts(&f) {
        let key = format!("| `{}` |", d.name);
        let line = rows
            .iter()
            .find(|l| l.starts_with(&key))
            .unwrap_or_else(|| panic!("{} is not in the docs' prompts table", d.name));
        assert!(
            d.what.found_in(line),
            "{}: its description in the docs",
            d.name
        );
        for a in &d.args {
            assert!(
                line.contains(&format!("`{}`", a.name)),
                "{}.{} in the docs",
                d.name,
                a.name
            );
            let req = if a.required { "required" } else { "optional" };
            assert!(
                line.contains(req),
                "{}.{} is {req} in the docs",
                d.name,
                a.name
            );
            match a.format {
                ArgFormat::Date => assert!(line.contains("YYYY-MM-DD"), "{}: date format", d.name),
                ArgFormat::Month => assert!(line.contains("YYYY-MM"), "{}: month format", d.name),
                ArgFormat::Any => {}
            }
            if let Some(def) = &a.default {
                assert!(
                    line.contains(def.as_str()),
                    "{}.{} default {def} in the docs",
                    d.name,
                    a.name
                );
            }
        }
    }
}

pub fn the_generated_docs_reproduce_the_completion_rules(spec: &Spec) {
    let md = spec.doc.generated_docs();
    let p = spec.doc.product();
    let rows = md_rows(&md, "## Completions");
    for q in p.prompts {
        for a in q.arguments {
            let line = rows
                .iter()
                .find(|l| {
                    l.contains(&format!("`{}`", a.name)) && l.contains(&format!("`{}`", q.name))
                })
                .unwrap_or_else(|| panic!("{}.{} is not in the completions table", q.name, a.name));
            match a.complete.map(|c| completion_kind(p, c)) {
                Some(CompletionKind::ListIds { tool, .. }) => {
                    assert!(line.contains(tool), "{}.{}: from {tool}", q.name, a.name)
                }
                Some(CompletionKind::LastMonths(n)) => {
                    assert!(
                        line.contains(&n.to_string()),
                        "{}.{}: last {n} months",
                        q.name,
                        a.name
                    )
                }
                _ => {}
            }
        }
    }
    for t in p.templates {
        for (var, src) in t.completions {
            let line = rows
                .iter()
                .find(|l| l.contains(&format!("`{{{var}}}`")) && l.contains(t.uri_template))
                .unwrap_or_else(|| panic!("{{{var}}} of {} is not in the docs", t.uri_template));
            if let CompletionKind::ListIds { tool, .. } = completion_kind(p, src) {
                assert!(
                    line.contains(tool),
                    "{{{var}}} of {}: from {tool}",
                    t.uri_template
                );
            }
        }
    }
}

pub fn the_generated_docs_list_each_destructive_tool_with_its_clause(spec: &Spec) {
    let md = spec.doc.generated_docs();
    let p = spec.doc.product();
    for t in p.tools.iter().filter(|t| t.annotations.destructive) {
        let clause = t.destructive_clause.expect("clause");
        // The document's rule, as the clause quotes it («…»); the words the catalog adds after it
        // ("Here: …") are translated on the page like any text.
        let quoted = match (clause.find('«'), clause.find('»')) {
            (Some(a), Some(b)) if a < b => &clause[a..b],
            _ => clause,
        };
        assert!(
            md.lines()
                .any(|l| l.contains(&format!("`{}`", t.name)) && l.contains(quoted)),
            "the docs show {} with its clause",
            t.name
        );
    }
}

pub fn every_prompt_of_the_document_has_its_arguments_formats_and_defaults(spec: &Spec) {
    let f = spec.doc.facts();
    let p = spec.doc.product();
    let documented = spec.doc_prompts(&f);
    let names: BTreeSet<&str> = documented.iter().map(|d| d.name.as_str()).collect();
    let served: BTreeSet<&str> = p.prompts.iter().map(|q| q.name).collect();
    assert_eq!(served, names, "exactly the prompts of the document");
    for d in &documented {
        let q = p.prompt(&d.name).expect("prompt");
        assert!(
            d.what.is(q.description),
            "{}: the document's description",
            d.name
        );
        let args: Vec<&str> = q.arguments.iter().map(|a| a.name).collect();
        let want: Vec<&str> = d.args.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(args, want, "{}: the document's arguments, in order", d.name);
        for a in &d.args {
            let arg = q
                .arguments
                .iter()
                .find(|x| x.name == a.name)
                .expect("argument");
            assert_eq!(arg.required, a.required, "{}.{} required", d.name, a.name);
            assert_eq!(arg.format, a.format, "{}.{} format", d.name, a.name);
            assert_eq!(
                arg.default,
                a.default.as_deref(),
                "{}.{} default",
                d.name,
                a.name
            );
        }
    }
    // "o month/until fuera de formato, es -32602": those arguments carry a format.
    for name in f.names("formatted_args") {
        let name = name.as_str();
        let formatted = p
            .prompts
            .iter()
            .flat_map(|q| q.arguments.iter())
            .filter(|a| a.name == name)
            .collect::<Vec<_>>();
        assert!(
            !formatted.is_empty(),
            "`{name}` is an argument of some prompt"
        );
        assert!(
            formatted.iter().all(|a| a.format != ArgFormat::Any),
            "`{name}` has a format"
        );
    }
}

/// Every prompt relies only on tools that read, names them, and never tells the model to run a
/// tool that writes.
pub fn every_prompt_only_reads(spec: &Spec) {
    let p = spec.doc.product();
    for q in p.prompts {
        assert!(!q.writes, "{} does not write", q.name);
        assert!(
            !q.uses.is_empty(),
            "{} names the tools it relies on",
            q.name
        );
        for u in q.uses {
            let t = p
                .tool(u)
                .unwrap_or_else(|| panic!("{} uses unknown {u}", q.name));
            assert!(
                t.annotations.read_only,
                "{} relies on {u}, which must only read",
                q.name
            );
        }
        for t in p.tools.iter().filter(|t| !t.annotations.read_only) {
            assert!(
                !q.template.contains(t.name),
                "{} never tells the model to run {}",
                q.name,
                t.name
            );
        }
    }
}

/// Every prompt argument called `name` completes with ids from a listing; each is added to
/// `completed`, and `(prompt, listing tool)` of each is returned.
pub fn arguments_completed_with_ids(
    p: &Product,
    name: &str,
    completed: &mut BTreeSet<(&'static str, &'static str)>,
) -> Vec<(&'static str, &'static str)> {
    let mut from = Vec::new();
    for q in p.prompts {
        for a in q.arguments.iter().filter(|a| a.name == name) {
            let src = a
                .complete
                .unwrap_or_else(|| panic!("{}.{name} completes", q.name));
            let tool = list_ids_tool(p, src, &format!("{}.{name}", q.name));
            completed.insert((q.name, a.name));
            from.push((q.name, tool));
        }
    }
    from
}

/// The completion rules both es documents end with (in their facts): `month` completes with the
/// last twelve months, and an argument without a source (not in `completed`, the arguments completed with
/// ids) completes with nothing.
pub fn months_and_sourceless_completions(
    p: &Product,
    f: &DocFacts,
    completed: &BTreeSet<(&str, &str)>,
) {
    // "month: los últimos doce meses".
    assert_eq!(f.completions().last_months, Some(12));
    assert!(f.completions().otherwise_empty);
    for q in p.prompts {
        for a in q.arguments {
            if a.name == "month" {
                let src = a.complete.expect("month completes");
                assert!(matches!(
                    completion_kind(p, src),
                    CompletionKind::LastMonths(12)
                ));
            } else if !completed.contains(&(q.name, a.name)) {
                // "Sin fuente de sugerencias, la respuesta es una lista vacía".
                if let Some(src) = a.complete {
                    assert!(
                        matches!(completion_kind(p, src), CompletionKind::None),
                        "{}.{} has no source of suggestions",
                        q.name,
                        a.name
                    );
                }
            }
        }
    }
}

/// Every destructive tool carries a clause that quotes the document's destructive rule
/// (`sentence`, digested without whitespace) and says which of its `verbs` applies; every verb
/// applies to some tool.
pub fn destructive_tools_quote_the_rule(p: &Product, sentence: &Phrase, verbs: &[String]) {
    let destructive: Vec<_> = p
        .tools
        .iter()
        .filter(|t| !t.annotations.read_only && t.annotations.destructive)
        .collect();
    for t in &destructive {
        let clause = t
            .destructive_clause
            .unwrap_or_else(|| panic!("{} has its clause", t.name));
        assert!(
            sentence.found_in(&squash(clause)),
            "{}: the clause quotes the document's rule: {clause}",
            t.name
        );
        assert!(
            verbs.iter().any(|v| clause.contains(&format!("Here: {v}"))),
            "{}: the clause says which part of the rule applies: {clause}",
            t.name
        );
    }
    for v in verbs {
        assert!(
            destructive.iter().any(|t| t
                .destructive_clause
                .is_some_and(|c| c.contains(&format!("Here: {v}")))),
            "some tool {v}: the rule implies it exists"
        );
    }
}

/// The confirmation policy both es documents state: a declined confirmation answers
/// `decline_code`, a reused answer is refused, a client that cannot confirm gets no destructive
/// call, and a confirmation binds person, organization and workspace for 5 minutes.
pub fn the_confirmation_policy_is_the_documents(spec: &Spec, decline_code: &str) {
    let f = spec.doc.facts();
    let p = spec.doc.product();
    // Statements of the confirmation section, as the facts record them.
    for claim in [
        "declined_answers_code",
        "reused_answer_refused",
        "unconfirmable_refused",
    ] {
        assert!(f.claim(claim), "the section says `{claim}`");
    }
    assert!(
        f.mentions(decline_code),
        "the document writes {decline_code}"
    );
    assert_eq!(p.policy.decline_code, decline_code);
    assert_eq!(p.policy.replay, ReplayPolicy::Refuse);
    assert_eq!(
        p.policy.unconfirmable_destructive,
        UnconfirmableDestructive::Refuse
    );
    // "la misma persona, organización y workspace, durante 5 minutos"
    assert!(f.claim("binds_person_organization_workspace_for_5_minutes"));
    let b = p.policy.confirmation_binds;
    assert!(
        b.person && b.organization && b.workspace,
        "bound to person, organization and workspace"
    );
    assert_eq!(p.policy.confirmation_ttl_secs, 5 * 60);
    assert_eq!(p.policy.resources_list, ResourcesListPolicy::FixedOnly);
}

// ------------------------------------------------------------------------------------------------
// The sandbox and the server
// ------------------------------------------------------------------------------------------------

/// The SQLite sandbox of one product, called directly with a full-access identity in a workspace.
pub struct Sandboxed {
    _dir: tempfile::TempDir,
    sandbox: runtime_sandbox::Sandbox,
    ctx: runtime::backend_api::CallContext,
}

impl Sandboxed {
    pub fn new(product: &'static Product, workspace: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let sandbox =
            runtime_sandbox::Sandbox::open(&runtime_sandbox::SandboxConfig::new(dir.path()))
                .expect("sandbox opens");
        let identity: runtime::identity::Identity = serde_json::from_value(json!({
            "person": "per_test", "organization": "org_test", "scopes": ["all"],
            "permissions": ["*"], "workspaces": [workspace], "default_workspace": workspace
        }))
        .expect("identity");
        let ctx = runtime::backend_api::CallContext {
            product,
            identity: identity.into(),
            bearer_token: None,
            workspace: Some(workspace.to_string()),
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

    pub fn try_call(&self, tool: &str, args: Value) -> Result<Value, String> {
        let tool = self
            .ctx
            .product
            .tool(tool)
            .unwrap_or_else(|| panic!("no tool {tool}"));
        let args: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
        match self.sandbox.call_blocking(&self.ctx, tool, &args) {
            Ok(runtime::backend_api::Output::Json(v)) => Ok(v),
            other => Err(format!("{} {args:?}: {other:?}", tool.name)),
        }
    }

    pub fn call(&self, tool: &str, args: Value) -> Value {
        self.try_call(tool, args).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The record of a `get` or action answer (`{status, data}` under `/v2`).
    pub fn record(&self, tool: &str, args: Value) -> Value {
        let v = self.call(tool, args);
        match v.get("data") {
            Some(d) if d.is_object() => d.clone(),
            _ => v,
        }
    }

    /// Every record a listing gives, over all pages (until `pagination.next_url` is empty).
    pub fn list_all(&self, tool: &str, filters: Value) -> Vec<Value> {
        let mut out = Vec::new();
        for page in 1.. {
            let mut args = filters.as_object().cloned().unwrap_or_default();
            args.insert("page".into(), json!(page));
            args.insert("per_page".into(), json!(50));
            let answer = self.call(tool, Value::Object(args));
            let items = answer["data"]
                .as_array()
                .cloned()
                .unwrap_or_else(|| panic!("{tool}: a listing answers `data: [records]`"));
            let more = answer["pagination"]["next_url"].is_string();
            out.extend(items);
            if !more {
                break;
            }
            assert!(page < 100, "{tool}: pagination does not end");
        }
        out
    }
}

/// Every listing gives all the records the sandbox seeds for it, at least 25, except the listings
/// of the `per_parent` record types: they list under a parent record, and the caller counts them.
pub fn the_sandbox_seeds_every_listable_type(spec: &Spec, s: &Sandboxed, per_parent: &[&str]) {
    let p = spec.doc.product();
    for t in p
        .tools
        .iter()
        .filter(|t| matches!(t.operation, Operation::List { .. }))
    {
        let Operation::List { record } = t.operation else {
            unreachable!()
        };
        let rt = p.record(record).expect("record type");
        assert!(rt.seed_count >= 25, "{record}: at least 25 seeded records");
        if per_parent.contains(&record) {
            continue;
        }
        let n = s.list_all(t.name, json!({})).len();
        assert_eq!(
            n, rt.seed_count as usize,
            "{}: every seeded {record} is listed",
            t.name
        );
    }
}

pub fn text(v: &Value, field: &str) -> String {
    v[field].as_str().unwrap_or_default().to_string()
}

/// A real server of the product alone.
pub async fn server(product: &'static Product) -> harness::TestServer {
    harness::start(harness::Options {
        products: vec![product],
        ..harness::Options::all_products()
    })
    .await
}

pub fn uris_of(items: &[Value], key: &str) -> BTreeSet<String> {
    items.iter().map(|i| text(i, key)).collect()
}

pub fn prompt_text(a: &harness::Answer) -> String {
    a.result()["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a prompt message: {}", a.body))
        .to_string()
}

pub async fn complete(
    c: &harness::Client,
    reference: Value,
    arg: &str,
    value: &str,
) -> Vec<String> {
    let a = c
        .request(
            "completion/complete",
            json!({"ref": reference, "argument": {"name": arg, "value": value}}),
        )
        .await;
    a.result()["completion"]["values"]
        .as_array()
        .unwrap_or_else(|| panic!("completion values: {}", a.body))
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect()
}

/// `resources/list` gives exactly the catalog's fixed URIs and `resources/templates/list` its
/// templates; both listings are returned.
pub async fn lists_the_catalogs_resources(
    c: &harness::Client,
    p: &Product,
) -> (Vec<Value>, Vec<Value>) {
    let fixed = c.list_all("resources/list", "resources").await;
    let want: BTreeSet<String> = p.resources.iter().map(|r| r.uri.to_string()).collect();
    assert_eq!(uris_of(&fixed, "uri"), want);
    let templates = c
        .list_all("resources/templates/list", "resourceTemplates")
        .await;
    let want: BTreeSet<String> = p
        .templates
        .iter()
        .map(|t| t.uri_template.to_string())
        .collect();
    assert_eq!(uris_of(&templates, "uriTemplate"), want);
    (fixed, templates)
}

/// Every prompt renders, with no template syntax left and today's date in its message. `with_id`
/// is the prompt that needs an id, the argument and the id to give it; the others get none.
pub async fn every_prompt_renders_dated(
    c: &harness::Client,
    p: &Product,
    with_id: (&str, &str, &str),
) {
    let (needs_id, arg, id) = with_id;
    for q in p.prompts {
        let args = if q.name == needs_id {
            json!({ arg: id })
        } else {
            json!({})
        };
        let a = c
            .request("prompts/get", json!({"name": q.name, "arguments": args}))
            .await;
        let t = prompt_text(&a);
        assert!(
            !t.contains("{{") && !t.contains("{%"),
            "{}: rendered: {t}",
            q.name
        );
        assert!(
            [super::day(-1), super::day(0), super::day(1)]
                .iter()
                .any(|d| t.contains(&d[..7])),
            "{}: today's date is in the message",
            q.name
        );
    }
}

/// On the server, `arg` of `prompt` completes with ids that start with `prefix`, and some do.
pub async fn ids_complete_by_prefix(c: &harness::Client, prompt: &str, arg: &str, prefix: &str) {
    let by_prefix = complete(
        c,
        json!({"type": "ref/prompt", "name": prompt}),
        arg,
        prefix,
    )
    .await;
    assert!(!by_prefix.is_empty() && by_prefix.iter().all(|v| v.starts_with(prefix)));
}

/// On the server, `month` of `month_prompt` completes with the last twelve months, and
/// `sourceless` (a prompt and an argument without a source of suggestions) with nothing.
pub async fn completes_months_and_nothing_without_a_source(
    c: &harness::Client,
    month_prompt: &str,
    sourceless: (&str, &str),
) {
    let months = complete(
        c,
        json!({"type": "ref/prompt", "name": month_prompt}),
        "month",
        "",
    )
    .await;
    assert_eq!(months.len(), 12, "the last twelve months");
    let (prompt, arg) = sourceless;
    let none = complete(c, json!({"type": "ref/prompt", "name": prompt}), arg, "").await;
    assert!(none.is_empty(), "no source of suggestions: an empty list");
}

/// `limited_tool` is the listing whose permission the `demo-limited` role lacks.
pub async fn prompts_appear_only_when_every_tool_behind_them_can_run(
    spec: &Spec,
    limited_tool: &str,
) {
    let p = spec.doc.product();
    let s = server(p).await;
    // "un token read los alcanza a todos" (finance): every prompt and resource only reads.
    let readonly = s.client(spec.doc.product, "demo-readonly");
    assert_eq!(
        readonly.list_all("prompts/list", "prompts").await.len(),
        p.prompts.len()
    );
    assert_eq!(
        readonly.list_all("resources/list", "resources").await.len(),
        p.resources.len()
    );
    // A role without `limited_tool` loses the prompts that rely on it, and only those.
    let limited = s.client(spec.doc.product, "demo-limited");
    let listed: BTreeSet<String> =
        uris_of(&limited.list_all("prompts/list", "prompts").await, "name");
    for q in p.prompts {
        // The role lacks the permission of `limited_tool`, shared by the tools of the same resource.
        let missing = p.tool(limited_tool).expect("tool").permission;
        let relies = q
            .uses
            .iter()
            .any(|u| p.tool(u).is_some_and(|t| t.permission == missing));
        assert_eq!(
            !listed.contains(q.name),
            relies,
            "{}: listed only if its tools can run",
            q.name
        );
    }
}

//! The `resources/list` fan-out of products whose policy is `Recent(n)` (banking).
//!
//! For every template that takes part in listing (`listed`, with a `list_tool`) and whose list
//! tool and reading tool the caller can both call, the list tool is run once (page 1, `n` per
//! page) and the `n` most recent records become resource descriptors built from the template's
//! URI. The listings run concurrently with at most [`RecentOptions::concurrency`] in flight
//! (tokio `JoinSet` + `Semaphore`), enough for all of banking's at once, so the listing takes about
//! its slowest call (see `examples/bench_resources_list.rs` and `scripts/bench_proxy.sh`).
//!
//! A listing that fails or times out leaves out only its type's records: the answer holds the
//! records that came and [`Recent::missing`] names each listing left out (the engine says so in
//! the result's `_meta`, never caches it, and logs and counts each one). Each listing is sent
//! once ([`Backend::call_once`]): the upstream's retries of a failed read, with their backoff,
//! would make the whole answer wait for one failing type (13× its slowest healthy call with
//! one type answering 503, issue 40), while an answer that names a type missing and is not
//! cached already tells the client to list again, which is the retry. A tool call reading the
//! same path keeps the upstream's retries. Only when every listing
//! failed is the whole answer an error (the API is down, or refuses the token): a list of the
//! fixed resources alone would pass for a complete one. Results keep template order, then the
//! list's order (newest first).
//!
//! Called by the protocol engine's `resources/list` after the fixed resources:
//!
//! ```ignore
//! if let ResourcesListPolicy::Recent(n) = product.policy.resources_list {
//!     let recent = runtime::backend::recent_resources(&ctx, backend.clone(), n, RecentOptions::default()).await?;
//!     resources.extend(recent.resources);
//! }
//! ```

use std::sync::Arc;
use std::time::Duration;

use runtime_model::backend::{Backend, CallContext, Output};
use runtime_model::catalog::Template;
use runtime_model::uri_template::UriTemplate;
use serde_json::{json, Map, Value};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

/// Fan-out settings.
#[derive(Debug, Clone)]
pub struct RecentOptions {
    /// Listings in flight at once.
    pub concurrency: usize,
    /// Longest one listing may take before it is left out.
    pub per_listing_timeout: Duration,
    /// The language of the titles (the templates' titles in that locale); `None`: the base ones.
    pub locale: Option<runtime_model::locale::Locale>,
    /// Which templates may be listed, by index in the product's `templates` (the caller's
    /// selection of tools reads some and not others); `None`: every listed one. Deciding per
    /// template, before listing, spares the listings whose records would be left out and a
    /// search of every template for every record's URI.
    pub templates: Option<Vec<bool>>,
}

/// Default [`RecentOptions::concurrency`]: above banking's 41 listed types, so they all run at
/// once and the listing takes its slowest call, not a multiple of it (16 made it 3 rounds).
pub const DEFAULT_LISTING_CONCURRENCY: usize = 64;

impl Default for RecentOptions {
    fn default() -> Self {
        RecentOptions {
            concurrency: DEFAULT_LISTING_CONCURRENCY,
            per_listing_timeout: Duration::from_secs(10),
            locale: None,
            templates: None,
        }
    }
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The value of a template variable in a listed record: for id-like variables the string `uid`
/// first (resources never use the numeric `id`), else the field of the same name or of the
/// reading tool's argument.
fn variable_value(record: &Map<String, Value>, var: &str, arg: &str) -> Option<String> {
    let idlike = matches!(var, "id" | "uid") || matches!(arg, "id" | "uid");
    if idlike {
        if let Some(v) = record.get("uid").and_then(text) {
            return Some(v);
        }
    }
    record
        .get(var)
        .and_then(text)
        .or_else(|| record.get(arg).and_then(text))
}

/// Builds the descriptor of one listed record, or `None` if a variable has no value.
pub fn describe(template: &Template, record: &Map<String, Value>) -> Option<Value> {
    describe_titled(template, template.title, record)
}

/// [`describe`], with the template's title given (in the request's locale).
pub fn describe_titled(
    template: &Template,
    template_title: &str,
    record: &Map<String, Value>,
) -> Option<Value> {
    let mut first_id = String::new();
    let uri = UriTemplate::parse(template.uri_template)
        .ok()?
        .fill(|var| {
            let arg = template.args.iter().find(|(v, _)| *v == var)?.1;
            let value = variable_value(record, var, arg)?;
            if first_id.is_empty() {
                first_id = value.clone();
            }
            Some(value)
        })?;
    let label = ["name", "title", "subject", "description", "our_number"]
        .iter()
        .find_map(|k| {
            record
                .get(*k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        });
    let title = match label {
        Some(l) => format!("{template_title} {l}"),
        None => format!("{template_title} {first_id}"),
    };
    Some(json!({
        "uri": uri,
        "name": format!("{}_{}", template.name, first_id),
        "title": title,
        "mimeType": template.mime_type,
    }))
}

/// The records of a list answer (bare array or `{data: [...]}` envelope).
fn records(output: &Output) -> Vec<&Map<String, Value>> {
    match output {
        Output::Json(v) => super::records::list_items(v)
            .map(|items| items.iter().filter_map(Value::as_object).collect())
            .unwrap_or_default(),
        // `Backend::call` answers no text; should one come, it is parsed first (below).
        Output::Bytes { .. } | Output::JsonText(_) => Vec::new(),
        Output::Replayed(inner) => records(inner),
    }
}

/// What the fan-out found.
#[derive(Debug, Default)]
pub struct Recent {
    /// The descriptors of the records that came, in template order.
    pub resources: Vec<Value>,
    /// The listings that failed or timed out, in template order: their records are missing.
    pub missing: Vec<Missing>,
}

/// A listing left out of [`Recent`].
#[derive(Debug, Clone, PartialEq)]
pub struct Missing {
    /// The template's name (the log line's label).
    pub template: &'static str,
    /// Its URI template: its records can still be read by URI.
    pub uri_template: &'static str,
    /// The list tool that failed.
    pub tool: &'static str,
    /// Why, as a client may see it (never the upstream URL).
    pub reason: String,
}

/// The resource descriptors of the `limit` most recent records of every listable template the
/// caller may list and read, and the listings left out. `ctx` is the caller's context
/// (identity, token, workspace). An error only when every listing started failed.
pub async fn recent_resources(
    ctx: &CallContext,
    backend: Arc<dyn Backend>,
    limit: u32,
    options: RecentOptions,
) -> Result<Recent, String> {
    let product = ctx.product;
    let gate = Arc::new(Semaphore::new(options.concurrency.max(1)));
    let timeout = options.per_listing_timeout;
    let mut set = JoinSet::new();
    for (index, template) in product.templates.iter().enumerate() {
        if !template.listed {
            continue;
        }
        if let Some(allowed) = &options.templates {
            if !allowed.get(index).copied().unwrap_or(false) {
                continue;
            }
        }
        let Some(list_name) = template.list_tool else {
            continue;
        };
        let (Some(list), Some(read)) = (product.tool(list_name), product.tool(template.read_by))
        else {
            continue;
        };
        if ctx.identity.can_call(list).is_err() || ctx.identity.can_call(read).is_err() {
            continue;
        }
        let mut args = Map::new();
        if list.input_schema_json.contains("\"page\"") {
            args.insert("page".into(), json!(1));
        }
        if list.input_schema_json.contains("\"per_page\"") {
            args.insert("per_page".into(), json!(limit));
        }
        let title = options
            .locale
            .and_then(|l| product.texts(l))
            .map_or(template.title, |t| t.templates[index].title);
        let (gate, backend, ctx) = (gate.clone(), backend.clone(), ctx.clone());
        let missing = move |reason: String| Missing {
            template: template.name,
            uri_template: template.uri_template,
            tool: list.name,
            reason,
        };
        set.spawn(async move {
            let Ok(_permit) = gate.acquire_owned().await else {
                return Err((index, missing("not started".into())));
            };
            // One attempt: a failed part is left out now, not retried with backoff while the
            // whole answer waits (see the module doc).
            let call = backend.call_once(&ctx, list, &args);
            match tokio::time::timeout(timeout, call)
                .await
                .map(|r| r.and_then(Output::parsed))
            {
                Ok(Ok(out)) => {
                    let found: Vec<Value> = records(&out)
                        .iter()
                        .take(limit as usize)
                        .filter_map(|r| describe_titled(template, title, r))
                        .collect();
                    Ok((index, found))
                }
                Ok(Err(e)) => {
                    tracing::warn!(template = template.name, tool = list.name, error = %e, "resources/list: listing failed, its records left out");
                    Err((index, missing(short(&e))))
                }
                Err(_) => {
                    tracing::warn!(template = template.name, tool = list.name, "resources/list: listing timed out, its records left out");
                    Err((
                        index,
                        missing(format!("no answer within {} ms", timeout.as_millis())),
                    ))
                }
            }
        });
    }
    let mut parts: Vec<(usize, Vec<Value>)> = Vec::new();
    let mut failed: Vec<(usize, Missing)> = Vec::new();
    let mut broken: Vec<String> = Vec::new();
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok(Ok(part)) => parts.push(part),
            Ok(Err(left_out)) => failed.push(left_out),
            Err(e) => broken.push(format!("a listing task ended abnormally: {e}")),
        }
    }
    failed.sort_by_key(|(i, _)| *i);
    // A task that panicked is a bug whose listing cannot even be named: no answer passes it by.
    if !broken.is_empty() || (parts.is_empty() && !failed.is_empty()) {
        let what = failed
            .iter()
            .map(|(_, m)| format!("{} ({})", m.tool, m.reason))
            .chain(broken)
            .collect::<Vec<_>>();
        return Err(format!(
            "could not list the recent records of {}: {}; try again",
            product.name,
            what.join("; ")
        ));
    }
    parts.sort_by_key(|(i, _)| *i);
    Ok(Recent {
        resources: parts.into_iter().flat_map(|(_, v)| v).collect(),
        missing: failed.into_iter().map(|(_, m)| m).collect(),
    })
}

/// A backend error as a client may see it: its kind and status, not its full text.
fn short(e: &runtime_model::backend::BackendError) -> String {
    use runtime_model::backend::BackendError as E;
    match e {
        E::Upstream { status, .. } => format!("the Kobana API answered HTTP {status}"),
        E::NotFound(_) => "not found".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use runtime_model::backend::{BackendError, BoxFuture};
    use runtime_model::catalog::*;
    use runtime_model::identity::Identity;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn leak<T>(v: T) -> &'static T {
        Box::leak(Box::new(v))
    }

    fn tool(name: String, permission: &'static str, operation: Operation) -> Tool {
        Tool {
            input_schema_json: r#"{"type":"object","properties":{"page":{},"per_page":{}}}"#,
            annotations: Annotations {
                read_only: true,
                idempotent: true,
                open_world: true,
                ..Annotations::NONE
            },
            permission,
            operation,
            ..Tool::bare(leak(name).as_str(), Binding::Extension("x"))
        }
    }

    /// `types` record types `t0…`, each with a list and a get tool and a listed template; type
    /// `t1`'s reading tool needs a permission the test identity lacks.
    fn product(types: usize) -> &'static Product {
        let mut tools = Vec::new();
        let mut templates = Vec::new();
        for i in 0..types {
            let rec: &'static str = leak(format!("t{i}")).as_str();
            tools.push(tool(
                format!("list_{i}"),
                "",
                Operation::List { record: rec },
            ));
            let perm = if i == 1 { "secret.read" } else { "" };
            tools.push(tool(
                format!("get_{i}"),
                perm,
                Operation::Get {
                    record: rec,
                    id_arg: "id",
                },
            ));
            templates.push(Template {
                uri_template: leak(format!("kobana://p/t{i}/{{id}}")).as_str(),
                name: rec,
                title: "Thing",
                description: "",
                mime_type: "application/json",
                read_by: leak(format!("get_{i}")).as_str(),
                args: &[("id", "id")],
                content: ContentKind::JsonRecord,
                listed: i != 2,
                list_tool: Some(leak(format!("list_{i}")).as_str()),
                completions: &[],
                limitation: None,
                descriptor_json: "{}",
            });
        }
        leak(Product {
            uri_prefix: "kobana://p/",
            api_base_url: "",
            policy: Policy {
                resources_list: ResourcesListPolicy::Recent(3),
                ..Policy::RUN_UNCONFIRMED
            },
            templates: Box::leak(templates.into_boxed_slice()),
            ..Product::bare("p", Box::leak(tools.into_boxed_slice()))
        })
    }

    /// Lists 5 records per type (`{"uid": "<tool>-<n>", "id": n}`), counting calls in flight.
    struct Lister {
        in_flight: AtomicUsize,
        peak: AtomicUsize,
        /// Whether `list_3` fails.
        fail: std::sync::atomic::AtomicBool,
        /// Listings asked for.
        calls: AtomicUsize,
        /// Whether `list_4` never answers (until the listing's time runs out).
        hang: std::sync::atomic::AtomicBool,
        /// Whether every listing fails.
        all_fail: std::sync::atomic::AtomicBool,
    }

    impl Backend for Lister {
        fn call<'a>(
            &'a self,
            _: &'a CallContext,
            tool: &'static runtime_model::catalog::Tool,
            args: &'a Map<String, Value>,
        ) -> BoxFuture<'a, Result<Output, BackendError>> {
            Box::pin(async move {
                self.calls.fetch_add(1, Ordering::SeqCst);
                let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                self.peak.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(5)).await;
                self.in_flight.fetch_sub(1, Ordering::SeqCst);
                if (tool.name == "list_3" && self.fail.load(Ordering::SeqCst))
                    || self.all_fail.load(Ordering::SeqCst)
                {
                    return Err(BackendError::Unavailable("down".into()));
                }
                if tool.name == "list_4" && self.hang.load(Ordering::SeqCst) {
                    std::future::pending::<()>().await;
                }
                assert_eq!(args.get("per_page"), Some(&json!(3)));
                let items: Vec<Value> = (0..5).map(|n| json!({"uid": format!("{}-{n}", tool.name), "id": n, "name": format!("n{n}")})).collect();
                Ok(Output::Json(json!({"status": 200, "data": items})))
            })
        }
    }

    fn identity() -> Identity {
        Identity {
            person: "p".into(),
            name: String::new(),
            organization: "o".into(),
            scopes: ["all".to_string()].into_iter().collect(),
            permissions: ["x".to_string()].into_iter().collect(),
            workspaces: Default::default(),
            default_workspace: None,
        }
    }

    fn context(product: &'static Product) -> CallContext {
        CallContext {
            product,
            identity: identity().into(),
            bearer_token: None,
            workspace: None,
            idempotency_key: None,
            locale: runtime_model::locale::Locale::En,
            progress: Default::default(),
            attempts: Default::default(),
        }
    }

    /// A backend listing every type, failing `list_3` while `fail` holds.
    fn lister(fail: bool) -> Arc<Lister> {
        Arc::new(Lister {
            in_flight: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            fail: std::sync::atomic::AtomicBool::new(fail),
            calls: AtomicUsize::new(0),
            hang: Default::default(),
            all_fail: Default::default(),
        })
    }

    /// A listing that never answers leaves out its type once its time is up, the others'
    /// records kept; a failing one beside it too. Only when every listing fails is the answer
    /// an error (nothing came to list).
    #[tokio::test]
    async fn a_slow_or_failing_type_leaves_out_only_its_records() {
        let product = product(6);
        let ctx = context(product);
        let backend = lister(true);
        backend.hang.store(true, Ordering::SeqCst);
        let opts = RecentOptions {
            per_listing_timeout: Duration::from_millis(300),
            ..RecentOptions::default()
        };
        let recent = recent_resources(&ctx, backend.clone(), 3, opts.clone())
            .await
            .unwrap();
        let types: Vec<&str> = recent
            .resources
            .iter()
            .map(|r| r["uri"].as_str().unwrap().split('/').nth(3).unwrap())
            .collect();
        // t1: cannot read; t2: not listed; t3 failed; t4 never answered.
        assert_eq!(types, ["t0", "t0", "t0", "t5", "t5", "t5"]);
        let missing: Vec<(&str, &str)> = recent
            .missing
            .iter()
            .map(|m| (m.tool, m.reason.as_str()))
            .collect();
        assert_eq!(
            missing,
            [
                ("list_3", "backend unavailable: down"),
                ("list_4", "no answer within 300 ms")
            ]
        );
        backend.hang.store(false, Ordering::SeqCst);
        backend.all_fail.store(true, Ordering::SeqCst);
        let err = recent_resources(&ctx, backend, 3, opts).await.unwrap_err();
        assert!(
            err.starts_with("could not list the recent records of p: list_0 (backend unavailable: down); list_3"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn lists_the_most_recent_of_each_permitted_listed_type_with_bounded_concurrency() {
        let product = product(40);
        let ctx = context(product);
        let backend = lister(true);
        let opts = RecentOptions {
            concurrency: 4,
            ..RecentOptions::default()
        };
        // t3's listing fails: only its records are missing, and it is named.
        let partial = recent_resources(&ctx, backend.clone(), 3, opts.clone())
            .await
            .unwrap();
        assert_eq!(partial.resources.len(), 37 * 3);
        assert!(partial
            .resources
            .iter()
            .all(|r| !r["uri"].as_str().unwrap().starts_with("kobana://p/t3/")));
        assert_eq!(
            partial.missing,
            [Missing {
                template: "t3",
                uri_template: "kobana://p/t3/{id}",
                tool: "list_3",
                reason: "backend unavailable: down".into(),
            }]
        );
        backend.fail.store(false, Ordering::SeqCst);
        let recent = recent_resources(&ctx, backend.clone(), 3, opts)
            .await
            .unwrap();
        assert!(recent.missing.is_empty());
        let out = recent.resources;
        // 40 types − t1 (cannot read) − t2 (not listed) = 38 types × 3.
        assert_eq!(out.len(), 38 * 3);
        assert_eq!(
            out[0],
            json!({"uri": "kobana://p/t0/list_0-0", "name": "t0_list_0-0", "title": "Thing n0", "mimeType": "application/json"})
        );
        assert_eq!(
            out[3]["uri"], "kobana://p/t3/list_3-0",
            "template order kept; t1 and t2 left out"
        );
        assert!(backend.peak.load(Ordering::SeqCst) <= 4);
        assert!(backend.peak.load(Ordering::SeqCst) >= 2, "listings overlap");
    }

    /// Templates the caller's selection leaves out are not listed at all: their records are not
    /// in the answer and their list tools are not called.
    #[tokio::test]
    async fn templates_left_out_by_the_selection_are_not_listed() {
        let product = product(5);
        let ctx = context(product);
        let backend = lister(false);
        let opts = RecentOptions {
            templates: Some(vec![true, true, true, false, true]),
            ..RecentOptions::default()
        };
        let out = recent_resources(&ctx, backend.clone(), 3, opts)
            .await
            .unwrap()
            .resources;
        let types: Vec<&str> = out
            .iter()
            .map(|r| r["uri"].as_str().unwrap().split('/').nth(3).unwrap())
            .collect();
        // t1: cannot read; t2: not listed; t3: left out by the selection.
        assert_eq!(types, ["t0", "t0", "t0", "t4", "t4", "t4"]);
        assert_eq!(
            backend.calls.load(Ordering::SeqCst),
            2,
            "only t0 and t4 listed"
        );
    }

    #[test]
    fn a_described_uri_reads_back_the_record_it_was_built_from() {
        let product = product(1);
        let template = &product.templates[0];
        for uid in ["bol_1", "a/b c", "100%", "ação", ".."] {
            let record = json!({"uid": uid, "id": 7}).as_object().cloned().unwrap();
            let described = describe(template, &record).unwrap();
            let uri = described["uri"].as_str().unwrap();
            assert_eq!(
                runtime_model::uri_template::match_uri(template.uri_template, uri),
                Some(vec![("id".to_string(), uid.to_string())]),
                "{uri}"
            );
        }
    }
}

//! Benchmark of the `resources/list` fan-out (`runtime::backend::recent_resources`).
//!
//! A synthetic product with 60 listed record types, and a backend that takes 50 ms per call (as a
//! slow upstream would). Prints the median wall time of one `resources/list` fan-out at several
//! pool sizes, against the 3 s a sequential listing takes.
//!
//! Run: `bash scripts/bench_resources_list.sh` (or `cargo run --release --example bench_resources_list`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use runtime::backend::{recent_resources, RecentOptions};
use runtime_model::backend::{Backend, BackendError, BoxFuture, CallContext, Output};
use runtime_model::catalog::*;
use runtime_model::identity::Identity;
use serde_json::{json, Map, Value};

const TYPES: usize = 60;
const LATENCY: Duration = Duration::from_millis(50);
const RECENT: u32 = 20;
const RUNS: usize = 7;

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn tool(name: &'static str, operation: Operation) -> Tool {
    Tool {
        input_schema_json: r#"{"type":"object","properties":{"page":{"type":"integer"},"per_page":{"type":"integer"}}}"#,
        annotations: Annotations {
            read_only: true,
            idempotent: true,
            open_world: true,
            ..Annotations::NONE
        },
        operation,
        ..Tool::bare(name, Binding::Extension("bench"))
    }
}

fn product() -> &'static Product {
    let mut tools = Vec::new();
    let mut templates = Vec::new();
    for i in 0..TYPES {
        let rec = leak(format!("type_{i}"));
        let list = leak(format!("list_{i}"));
        let get = leak(format!("get_{i}"));
        tools.push(tool(list, Operation::List { record: rec }));
        tools.push(tool(
            get,
            Operation::Get {
                record: rec,
                id_arg: "uid",
            },
        ));
        templates.push(Template {
            uri_template: leak(format!("kobana://bench/{rec}/{{uid}}")),
            name: rec,
            title: rec,
            description: "",
            mime_type: "application/json",
            read_by: get,
            args: &[("uid", "uid")],
            content: ContentKind::JsonRecord,
            listed: true,
            list_tool: Some(list),
            completions: &[],
            limitation: None,
            descriptor_json: "{}",
        });
    }
    Box::leak(Box::new(Product {
        title: "Bench",
        uri_prefix: "kobana://bench/",
        api_base_url: "",
        policy: Policy {
            resources_list: ResourcesListPolicy::Recent(RECENT),
            ..Policy::RUN_UNCONFIRMED
        },
        templates: Box::leak(templates.into_boxed_slice()),
        ..Product::bare("bench", Box::leak(tools.into_boxed_slice()))
    }))
}

/// Answers every listing after `LATENCY` with `per_page` records.
struct SlowUpstream;

impl Backend for SlowUpstream {
    fn call<'a>(
        &'a self,
        _: &'a CallContext,
        tool: &'static Tool,
        args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        Box::pin(async move {
            tokio::time::sleep(LATENCY).await;
            let n = args.get("per_page").and_then(Value::as_u64).unwrap_or(50);
            let items: Vec<Value> = (0..n)
                .map(|i| json!({"uid": format!("{}-{i:04}", tool.name), "id": i}))
                .collect();
            Ok(Output::Json(json!({"status": 200, "data": items})))
        })
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[tokio::main]
async fn main() {
    let product = product();
    let ctx = CallContext {
        product,
        identity: Identity {
            person: "bench".into(),
            name: String::new(),
            organization: "o".into(),
            scopes: ["all".to_string()].into_iter().collect(),
            permissions: ["*".to_string()].into_iter().collect(),
            workspaces: Default::default(),
            default_workspace: None,
        }
        .into(),
        bearer_token: None,
        workspace: None,
        idempotency_key: None,
        locale: runtime_model::locale::Locale::En,
        progress: Default::default(),
        attempts: Default::default(),
    };
    let backend: Arc<dyn Backend> = Arc::new(SlowUpstream);
    println!("resources/list fan-out: {TYPES} types, {} ms per listing, {RECENT} most recent each, median of {RUNS} runs", LATENCY.as_millis());
    for concurrency in [1usize, 8, 16, 32, 64] {
        let runs = if concurrency == 1 { 1 } else { RUNS };
        let mut times = Vec::new();
        let mut count = 0;
        for _ in 0..runs {
            let started = Instant::now();
            let out = recent_resources(
                &ctx,
                backend.clone(),
                RECENT,
                RecentOptions {
                    concurrency,
                    ..RecentOptions::default()
                },
            )
            .await
            .unwrap_or_else(|e| panic!("the benchmark's listings all answer: {e}"));
            times.push(started.elapsed());
            assert!(out.missing.is_empty(), "{:?}", out.missing);
            count = out.resources.len();
        }
        println!(
            "  pool {concurrency:>2}: median {:>7.1} ms  ({count} resources{})",
            median(times).as_secs_f64() * 1000.0,
            if concurrency == RecentOptions::default().concurrency {
                ", the default pool"
            } else {
                ""
            }
        );
    }
}

//! The benchmark server: the runtime serving the 312-tool catalog of `shared/bench-peers`
//! (`tools.json`, built by its `build_catalog.py`), so that it can be measured beside the peers
//! with the same requests (scripts/bench_http.sh).
//!
//! `bench_server <tools.json> http <port>` or `bench_server <tools.json> stdio`.
//!
//! The catalog is turned into a `Product` at start (leaked, as generated tables are `'static`),
//! with each tool bound over HTTP to an in-process backend that echoes
//! `{"ok": true, "tool": …, "arguments": …}`, as the peers' handlers do. Everything else (listing
//! from pre-serialized bytes, permission filtering, schema validation, the confirmation gate, the
//! result in the caller's era) is the real engine.

/// The allocator the server ships with (`ALLOCATOR` in src/main.rs), so that what is measured
/// here is what runs.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::sync::Arc;

use runtime::backend_api::{Backend, BackendError, BoxFuture, CallContext, Output};
use runtime::catalog::*;
use runtime::server::{unrestricted_identity, Server, ServerConfig};
use serde_json::{json, Map, Value};

struct Echo;

impl Backend for Echo {
    fn call<'a>(
        &'a self,
        _ctx: &'a CallContext,
        tool: &'static Tool,
        args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        Box::pin(async move {
            Ok(Output::Json(
                json!({"ok": true, "tool": tool.name, "arguments": args}),
            ))
        })
    }
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn product(path: &str) -> Result<&'static Product, Box<dyn std::error::Error>> {
    let tools: Vec<Value> = serde_json::from_slice(&std::fs::read(path)?)?;
    // The descriptors in one text, each tool's a slice of it.
    let mut joined = String::new();
    let mut ranges = Vec::with_capacity(tools.len());
    for (i, t) in tools.iter().enumerate() {
        if i > 0 {
            joined.push(',');
        }
        let start = joined.len();
        joined.push_str(&serde_json::to_string(t)?);
        ranges.push(start..joined.len());
    }
    let joined = leak(joined);
    let mut out = Vec::with_capacity(tools.len());
    for (t, range) in tools.into_iter().zip(ranges) {
        let s = |k: &str| {
            leak(
                t.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
            )
        };
        let a = &t["annotations"];
        let flag = |k: &str, d: bool| a.get(k).and_then(Value::as_bool).unwrap_or(d);
        out.push(Tool {
            name: s("name"),
            title: s("title"),
            description: s("description"),
            descriptor_json: &joined[range],
            input_schema_json: leak(serde_json::to_string(&t["inputSchema"])?),
            annotations: Annotations {
                read_only: flag("readOnlyHint", false),
                destructive: flag("destructiveHint", false),
                idempotent: flag("idempotentHint", false),
                open_world: flag("openWorldHint", true),
            },
            ..Tool::bare(
                "",
                Binding::Http(HttpBinding {
                    method: HttpMethod::Get,
                    path: "/",
                    path_params: &[],
                    query_params: &[],
                    body: BodyMode::None,
                    operation_ref: None,
                }),
            )
        });
    }
    Ok(Box::leak(Box::new(Product {
        title: "Benchmark catalog",
        uri_prefix: "bench://",
        ..Product::bare("bench", Box::leak(out.into_boxed_slice()))
    })))
}

/// Drives `n` `tools/call` requests through the HTTP router in process (no sockets), one at a
/// time, and prints the mean cost of one: the runtime's own share of a request, which
/// `callgrind` can count exactly (`valgrind --tool=callgrind bench_server <tools.json> inproc N`).
async fn inproc(
    server: Arc<Server>,
    n: usize,
    wire: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    use tower::ServiceExt;
    let app = runtime::transport::http::router(server);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
    });
    let mut params = json!({"name": "banking_v1_bank_billets_get", "arguments": {"id": "42"}});
    let modern = wire == "2026-07-28";
    if modern {
        params["_meta"] = meta;
    }
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).to_string();
    let started = std::time::Instant::now();
    for _ in 0..n {
        let mut req = axum::http::Request::post("/mcp")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("host", "127.0.0.1:8080")
            .header("mcp-protocol-version", wire);
        if modern {
            req = req
                .header("mcp-method", "tools/call")
                .header("mcp-name", "banking_v1_bank_billets_get");
        }
        let resp = app
            .clone()
            .oneshot(req.body(axum::body::Body::from(body.clone()))?)
            .await?;
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX).await?;
        if !bytes.starts_with(b"{") {
            return Err(format!("unexpected answer: {}", String::from_utf8_lossy(&bytes)).into());
        }
    }
    let per = started.elapsed().as_secs_f64() * 1e6 / n as f64;
    println!("{wire} tools/call in process: {per:.2} µs per request over {n}");
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(mode)) = (args.get(1).cloned(), args.get(2).cloned()) else {
        return Err("usage: bench_server <tools.json> http <port> | stdio".into());
    };
    let product = product(&path)?;
    let server = Server::new(ServerConfig::new(
        vec![product],
        Arc::new(Echo),
        unrestricted_identity("bench"),
    ))?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async move {
        if mode == "inproc" {
            let n: usize = args.get(3).ok_or("missing request count")?.parse()?;
            let wire = args.get(4).map_or("2025-11-25", String::as_str);
            return inproc(server, n, wire).await;
        }
        if mode == "stdio" {
            runtime::transport::stdio::run(server, "bench").await?;
            return Ok::<(), Box<dyn std::error::Error>>(());
        }
        let port: u16 = args.get(3).ok_or("missing port")?.parse()?;
        runtime::transport::http::serve(server, ([127, 0, 0, 1], port).into(), async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
        Ok(())
    })
}

//! What choosing a language costs a listing: `tools/list` of banking (the largest catalog) for a
//! caller who may call every tool, answered by the engine with no language asked, and with each
//! locale asked through the 2026 `_meta` acceptLanguage (`es-AR, en;q=0.8` is matched as a
//! request would be). Each locale's pages are built once (first request) and then served as they
//! are, so the figures after the first request should be equal.
//!
//! Run: `cargo run --release --example bench_locale_listing` (prints the median per request).

use std::sync::Arc;
use std::time::Instant;

use runtime::confirm::{Confirmer, MemoryLedger};
use runtime::contract::{Call, Era};
use runtime::protocol::{Engine, EngineOptions};
use runtime::rpc::jsonrpc::Request;
use runtime::rpc::Reply;
use runtime::state::StateSealer;
use runtime_model::backend::{Backend, BackendError, BoxFuture, CallContext, Output};
use runtime_model::catalog::Tool;
use serde_json::{json, Map, Value};

const RUNS: usize = 20_000;

/// Never called: listing does not reach the backend.
struct NoBackend;

impl Backend for NoBackend {
    fn call<'a>(
        &'a self,
        _ctx: &'a CallContext,
        _tool: &'static Tool,
        _args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        Box::pin(async { Err(BackendError::Unavailable("benchmark".into())) })
    }
    fn executes_operations(&self) -> bool {
        true
    }
}

fn median(mut v: Vec<u128>) -> u128 {
    v.sort_unstable();
    v[v.len() / 2]
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let product = generated::product("banking").expect("banking");
    let sealer = Arc::new(StateSealer::new(vec![("k".into(), vec![1u8; 32])]).expect("key"));
    let confirmer = Confirmer::new(sealer.clone(), Arc::new(MemoryLedger::new()));
    let engine = Engine::new(
        product,
        Arc::new(NoBackend),
        sealer,
        confirmer,
        runtime::extensions::ALL,
        EngineOptions::default(),
    );
    let identity = Arc::new(runtime::server::unrestricted_identity("bench"));
    let req = Request::new(json!(1), "tools/list", Map::new());
    println!(
        "tools/list of banking ({} tools), {RUNS} requests each:",
        product.tools.len()
    );
    for asked in [None, Some("pt-BR"), Some("es-AR, en;q=0.8"), Some("en")] {
        let mut call = Call::detached(Era::Modern, identity.clone(), json!({}));
        call.accept_language = asked.map(Arc::from);
        let first = Instant::now();
        let bytes = match engine.handle(&req, &call).await {
            Reply::Raw(p) => p.len(),
            _ => 0,
        };
        let first = first.elapsed();
        let mut times = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            let t = Instant::now();
            let r = engine.handle(&req, &call).await;
            times.push(t.elapsed().as_nanos());
            std::hint::black_box(r);
        }
        println!(
            "  {:<18} first {:>8.2} ms (pages built), then median {:>6} ns per request; page {} bytes, locale {}",
            asked.unwrap_or("(none asked)"),
            first.as_secs_f64() * 1e3,
            median(times),
            bytes,
            engine.locale(&call)
        );
    }
}

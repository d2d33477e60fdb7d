//! Serves the conformance fixture product for the official MCP conformance suite.
//!
//! `cargo run -p runtime --features fixtures --example conformance_server -- [ADDR]` (default `127.0.0.1:3000`), or
//! `… -- --stdio`. The fixture's tools are all extension handlers, so the backend only refuses.

use std::sync::Arc;

use runtime::backend_api::{Backend, BackendError, BoxFuture, CallContext, Output};
use runtime::catalog::Tool;
use runtime::server::{unrestricted_identity, Server, ServerConfig};
use serde_json::{Map, Value};

/// The fixture has no HTTP bindings; anything routed here is a catalog mistake.
struct NoBackend;

impl Backend for NoBackend {
    fn call<'a>(
        &'a self,
        _ctx: &'a CallContext,
        tool: &'static Tool,
        _args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        Box::pin(async move {
            Err(BackendError::Unsupported(format!(
                "{} has no backend in the fixture server",
                tool.name
            )))
        })
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(serve())
}

async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber_init();
    let product =
        generated::product("conformance").ok_or("the conformance fixture was not generated")?;
    let config = ServerConfig::new(
        vec![product],
        Arc::new(NoBackend),
        unrestricted_identity("conformance"),
    );
    let server = Server::new(config)?;
    let arg = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3000".into());
    if arg == "--stdio" {
        runtime::transport::stdio::run(server, "conformance").await?;
        return Ok(());
    }
    let addr = arg.parse()?;
    eprintln!("conformance fixture on http://{addr}/mcp");
    runtime::transport::http::serve(server, addr, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    Ok(())
}

fn tracing_subscriber_init() {}

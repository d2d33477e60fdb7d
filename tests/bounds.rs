//! The bounds and input checks of the transports (issue 12, findings 7, 8 and 9): stdio survives a
//! bad line; 2025 sessions expire, are capped per identity and belong to the identity that opened
//! them; HTTP closes connections that never finish their headers; bad `MCP-Protocol-Version`
//! headers and userinfo-bearing Origins are refused precisely. Batch bounds (finding 5) are tested
//! in `runtime::connection::tests`.

use std::sync::Arc;
use std::time::Duration;

use runtime::backend_api::{Backend, BackendError, BoxFuture, CallContext, Output};
use runtime::catalog::Tool;
use runtime::server::{unrestricted_identity, Server, ServerConfig};
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

struct NoBackend;

impl Backend for NoBackend {
    fn call<'a>(
        &'a self,
        _ctx: &'a CallContext,
        tool: &'static Tool,
        _args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        Box::pin(async move { Err(BackendError::Unsupported(tool.name.to_string())) })
    }
}

fn config() -> ServerConfig {
    let product = generated::product("conformance").expect("fixture generated");
    ServerConfig::new(
        vec![product],
        Arc::new(NoBackend),
        unrestricted_identity("t"),
    )
}

/// Finding 8: a line that is not UTF-8, and one that is not JSON, are answered -32700 with id
/// null, and the pings around them are answered too (the process used to end on the bad byte).
#[tokio::test]
async fn stdio_answers_a_bad_line_with_a_parse_error_and_keeps_serving() {
    let server = Server::new(config()).unwrap();
    let (mut client_w, server_r) = tokio::io::duplex(1 << 16);
    let (server_w, client_r) = tokio::io::duplex(1 << 20);
    let task = tokio::spawn(runtime::transport::stdio::run_io(
        server,
        "conformance",
        server_r,
        server_w,
    ));
    let mut input = Vec::new();
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":\xff\xfe}\n");
    input.extend_from_slice(b"not json at all\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
    client_w.write_all(&input).await.unwrap();
    drop(client_w);
    let mut lines = BufReader::new(client_r).lines();
    let mut answers = Vec::new();
    while let Some(line) = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .expect("stdio answered in time")
        .unwrap()
    {
        answers.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    task.await.unwrap().expect("stdio ended cleanly on EOF");
    let parse_errors: Vec<&Value> = answers
        .iter()
        .filter(|a| a["error"]["code"] == -32700)
        .collect();
    assert_eq!(parse_errors.len(), 2, "{answers:?}");
    assert!(parse_errors.iter().all(|a| a["id"].is_null()));
    for id in [1, 2] {
        assert!(
            answers
                .iter()
                .any(|a| a["id"] == id && a["result"] == json!({})),
            "ping {id} answered: {answers:?}"
        );
    }
}

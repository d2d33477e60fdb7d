//! What a person meets first (issue 36): a 404 that names the paths the server serves, and one
//! product answering at its own `/<product>/mcp` too.

use std::process::Command;

use serde_json::{json, Value};
use test_support::process::{free_port, start, Running};

const BIN: &str = env!("CARGO_BIN_EXE_kobana-mcp");

fn kobana(data_dir: &std::path::Path) -> Command {
    test_support::process::kobana(BIN, data_dir)
}

fn serve_http(dir: &std::path::Path, product: &str) -> (Running, String) {
    let port = free_port();
    let mut cmd = kobana(dir);
    cmd.args(["serve", product, "--http", &format!("127.0.0.1:{port}")]);
    (start(cmd, port), format!("http://127.0.0.1:{port}"))
}

/// A `tools/list` POST at `url`: the status and the body (JSON when it is).
async fn list_at(url: &str) -> (u16, Option<String>, Value) {
    let resp = reqwest::Client::new()
        .post(url)
        .bearer_auth("demo-full")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send()
        .await
        .expect("the server answers");
    let status = resp.status().as_u16();
    let kind = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let text = resp.text().await.unwrap_or_default();
    (
        status,
        kind,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

fn assert_names_paths(body: &Value, kind: Option<&str>, asked: &str, paths: &[String]) {
    assert_eq!(kind, Some("application/json"), "{body}");
    assert_eq!(body["error"], "not_found", "{body}");
    assert_eq!(body["paths"], json!(paths), "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(message.contains(asked), "{message}");
    for p in paths {
        assert!(message.contains(p.as_str()), "{message} does not name {p}");
    }
}

#[tokio::test]
async fn one_product_answers_at_its_own_path_too_and_a_wrong_path_names_the_right_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, base) = serve_http(dir.path(), "banking");
    for path in ["/mcp", "/banking/mcp", "/banking/readonly/mcp"] {
        let (status, _, body) = list_at(&format!("{base}{path}")).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert!(body["result"]["tools"].is_array(), "{path}: {body}");
    }
    let served = ["/mcp".to_string(), "/banking/mcp".to_string()];
    let (status, kind, body) = list_at(&format!("{base}/bankin/mcp")).await;
    assert_eq!(status, 404, "{body}");
    assert_names_paths(&body, kind.as_deref(), "/bankin/mcp", &served);
    // Any method, any unknown path.
    let resp = reqwest::get(format!("{base}/nowhere")).await.unwrap();
    assert_eq!(resp.status().as_u16(), 404);
    let kind = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body: Value = resp.json().await.expect("a JSON body");
    assert_names_paths(&body, kind.as_deref(), "/nowhere", &served);
    // The routes beside the MCP ones still answer.
    let resp = reqwest::get(format!("{base}/healthz")).await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
}

#[tokio::test]
async fn serve_all_answers_a_bare_mcp_with_a_404_naming_each_products_path() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, base) = serve_http(dir.path(), "all");
    let served: Vec<String> = generated::PRODUCTS
        .iter()
        .map(|p| format!("/{}/mcp", p.name))
        .collect();
    let (status, kind, body) = list_at(&format!("{base}/mcp")).await;
    assert_eq!(status, 404, "{body}");
    assert_names_paths(&body, kind.as_deref(), "/mcp", &served);
}

//! The `kobana-mcp` binary: help, sandbox management, serving every product with no
//! configuration, stdio, and proxy mode against `sandbox serve-api`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_kobana-mcp");

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Kills the child when the test ends, pass or fail.
struct Running(Child);
impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn kobana(data_dir: &std::path::Path) -> Command {
    let mut c = Command::new(BIN);
    c.arg("--data-dir").arg(data_dir);
    c.env_remove("KOBANA_UPSTREAM_URL")
        .env_remove("KOBANA_CONFIG")
        .env_remove("KOBANA_HTTP_ADDR");
    c.current_dir(data_dir);
    c
}

fn start(mut cmd: Command, port: u16) -> Running {
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let running = Running(child);
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "server did not start on {port}");
        std::thread::sleep(Duration::from_millis(100));
    }
    running
}

async fn rpc(url: &str, token: Option<&str>, method: &str, params: Value) -> (u16, Value) {
    let mut req = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-06-18")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// The first list tool of a product bound to HTTP.
fn list_tool(product: &str) -> &'static str {
    let p = generated::product(product).unwrap();
    p.tools
        .iter()
        .find(|t| {
            matches!(t.operation, runtime_model::catalog::Operation::List { .. })
                && matches!(t.binding, runtime_model::catalog::Binding::Http(_))
        })
        .unwrap()
        .name
}

#[test]
fn every_subcommand_has_help() {
    for args in [
        vec!["--help"],
        vec!["serve", "--help"],
        vec!["sandbox", "--help"],
        vec!["sandbox", "seed", "--help"],
        vec!["sandbox", "reset", "--help"],
        vec!["sandbox", "serve-api", "--help"],
    ] {
        let out = Command::new(BIN).args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Usage:"), "{args:?}: {text}");
    }
    let serve = Command::new(BIN)
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&serve.stdout);
    for flag in ["--stdio", "--http", "--upstream", "--data-dir", "--config"] {
        assert!(text.contains(flag), "serve --help lacks {flag}");
    }
}

#[test]
fn unknown_products_and_bad_config_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = kobana(dir.path())
        .args(["serve", "bankinq", "--http", "127.0.0.1:1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown product `bankinq`") && err.contains("banking"),
        "{err}"
    );

    let cfg = dir.path().join("bad.toml");
    std::fs::write(&cfg, "[serve]\nhtpp = \"x\"\n").unwrap();
    let out = kobana(dir.path())
        .arg("--config")
        .arg(&cfg)
        .args(["serve", "all"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml") && err.contains("htpp"), "{err}");
}

#[test]
fn sandbox_seed_and_reset() {
    let dir = tempfile::tempdir().unwrap();
    let out = kobana(dir.path())
        .args(["sandbox", "seed", "--products", "banking,inbox"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("seeded banking organization=org_demo workspace=-"),
        "{text}"
    );
    assert!(
        text.contains("seeded inbox organization=org_demo workspace=ws_demo_main"),
        "{text}"
    );
    assert!(dir.path().join("sandbox.sqlite3").exists());
    let out = kobana(dir.path())
        .args(["sandbox", "reset", "--products", "banking"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("reset banking: ") && !text.starts_with("reset banking: 0 "),
        "{text}"
    );
}

#[tokio::test]
async fn serve_all_works_with_no_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut cmd = kobana(dir.path());
    cmd.args(["serve", "all", "--http", &format!("127.0.0.1:{port}")]);
    let _server = start(cmd, port);
    for product in generated::PRODUCTS {
        let url = format!("http://127.0.0.1:{port}/{}/mcp", product.name);
        let (status, v) = rpc(&url, Some("demo-full"), "tools/list", json!({})).await;
        assert_eq!(status, 200, "{}: {v}", product.name);
        assert!(
            !v["result"]["tools"].as_array().unwrap().is_empty(),
            "{}",
            product.name
        );
    }
    let url = format!("http://127.0.0.1:{port}/banking/mcp");
    let (status, _) = rpc(&url, None, "tools/list", json!({})).await;
    assert_eq!(status, 401, "no bearer, no access");
    let (_, v) = rpc(
        &url,
        Some("demo-full"),
        "tools/call",
        json!({"name": list_tool("banking"), "arguments": {"per_page": 3}}),
    )
    .await;
    assert_ne!(v["result"]["isError"], json!(true), "{v}");
    let text = v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("\"uid\""), "seeded records come back: {v}");
}

#[test]
fn stdio_serves_one_product() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Running(
        kobana(dir.path())
            .args(["serve", "billing", "--stdio"])
            .env("KOBANA_ACCESS_TOKEN", "demo-full")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut stdin = child.0.stdin.take().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    writeln!(stdin, "{init}").unwrap();
    let mut line = String::new();
    BufReader::new(child.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["id"], 1);
    assert!(
        v["result"]["serverInfo"]["name"]
            .as_str()
            .unwrap()
            .contains("billing"),
        "{v}"
    );
    let out = kobana(dir.path())
        .args(["serve", "all", "--stdio"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("--stdio serves one product"));
}

#[tokio::test]
async fn proxy_mode_against_serve_api() {
    let (api_dir, mcp_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let api_port = free_port();
    let mut api = kobana(api_dir.path());
    api.args([
        "sandbox",
        "serve-api",
        "--http",
        &format!("127.0.0.1:{api_port}"),
    ]);
    let _api = start(api, api_port);
    let port = free_port();
    let mut mcp = kobana(mcp_dir.path());
    mcp.args([
        "serve",
        "banking",
        "--http",
        &format!("127.0.0.1:{port}"),
        "--upstream",
        &format!("http://127.0.0.1:{api_port}/{{product}}"),
        "--auth",
        "embedded",
    ]);
    let _mcp = start(mcp, port);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (_, v) = rpc(
        &url,
        Some("demo-full"),
        "tools/call",
        json!({"name": list_tool("banking"), "arguments": {"per_page": 2}}),
    )
    .await;
    let text = v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("\"uid\""), "records come from serve-api: {v}");
    assert!(api_dir.path().join("sandbox.sqlite3").exists());
    assert!(
        !mcp_dir.path().join("sandbox.sqlite3").exists(),
        "proxy mode opens no sandbox"
    );
}

#[tokio::test]
async fn inbox_eml_links_download_from_the_mcp_server() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut cmd = kobana(dir.path());
    cmd.args(["serve", "all", "--http", &format!("127.0.0.1:{port}")]);
    let _server = start(cmd, port);
    let url = format!("http://127.0.0.1:{port}/inbox/mcp");
    let structured = |v: &Value| -> Value {
        let text = v["result"]["content"][0]["text"].as_str().unwrap_or("null");
        serde_json::from_str(text).unwrap_or(Value::Null)
    };
    let (_, v) = rpc(
        &url,
        Some("demo-full"),
        "tools/call",
        json!({"name": "emails_list", "arguments": {"per_page": 1}}),
    )
    .await;
    let list = structured(&v);
    let id = runtime::backend::list_items(&list)
        .and_then(|a| a.first())
        .map(|e| e["uid"].clone())
        .unwrap_or(Value::Null);
    assert!(id.is_string(), "{v}");
    let (_, v) = rpc(
        &url,
        Some("demo-full"),
        "tools/call",
        json!({"name": "emails_get_eml", "arguments": {"id": id}}),
    )
    .await;
    let link = structured(&v);
    let link = runtime::backend::records::record(&link)
        .cloned()
        .unwrap_or_default();
    let download = link["url"].as_str().unwrap_or_else(|| panic!("{v}"));
    assert!(
        download.starts_with(&format!("http://127.0.0.1:{port}/files/inbox/emails/")),
        "{download}"
    );
    let resp = reqwest::get(download).await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "message/rfc822");
    let forged = download.replace("expires=", "expires=9");
    assert_eq!(reqwest::get(&forged).await.unwrap().status(), 403);
}

#[tokio::test]
async fn flags_beat_environment_which_beats_the_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let (file_port, env_port, flag_port) = (free_port(), free_port(), free_port());
    let cfg = dir.path().join("k.toml");
    std::fs::write(&cfg, format!("[serve]\nhttp = \"127.0.0.1:{file_port}\"\n")).unwrap();
    let probe = |port: u16| async move {
        let url = format!("http://127.0.0.1:{port}/billing/mcp");
        rpc(&url, Some("demo-full"), "tools/list", json!({}))
            .await
            .0
    };
    {
        let mut cmd = kobana(dir.path());
        cmd.arg("--config").arg(&cfg).args(["serve", "all"]);
        let _s = start(cmd, file_port);
        assert_eq!(probe(file_port).await, 200, "the file's address");
    }
    {
        let mut cmd = kobana(dir.path());
        cmd.arg("--config").arg(&cfg).args(["serve", "all"]);
        cmd.env("KOBANA_HTTP_ADDR", format!("127.0.0.1:{env_port}"));
        let _s = start(cmd, env_port);
        assert_eq!(
            probe(env_port).await,
            200,
            "the environment wins over the file"
        );
    }
    let mut cmd = kobana(dir.path());
    cmd.arg("--config").arg(&cfg).args([
        "serve",
        "all",
        "--http",
        &format!("127.0.0.1:{flag_port}"),
    ]);
    cmd.env("KOBANA_HTTP_ADDR", format!("127.0.0.1:{env_port}"));
    let _s = start(cmd, flag_port);
    assert_eq!(
        probe(flag_port).await,
        200,
        "the flag wins over the environment"
    );
}

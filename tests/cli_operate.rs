//! The operating flags of `kobana-mcp serve` (issue 16), through the binary: probes under
//! `serve all`, `/metrics` moved to `--metrics-addr`, and `--audit-file`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use test_support::process::{free_port, kobana, wait_for, Running};

const BIN: &str = env!("CARGO_BIN_EXE_kobana-mcp");

async fn get(url: &str) -> (u16, String) {
    let r = reqwest::get(url).await.expect("GET");
    let status = r.status().as_u16();
    (status, r.text().await.expect("body"))
}

async fn call(url: &str, name: &str, arguments: Value) -> Value {
    reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-06-18")
        .bearer_auth("demo-full")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}))
        .send()
        .await
        .expect("POST")
        .json()
        .await
        .expect("JSON")
}

#[tokio::test]
async fn serve_all_answers_probes_moves_metrics_and_writes_the_audit_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (port, metrics_port) = (free_port(), free_port());
    let audit = dir.path().join("logs").join("audit.jsonl");
    let child = Command::new(BIN)
        .arg("--data-dir")
        .arg(dir.path())
        .args(["serve", "all", "--http", &format!("127.0.0.1:{port}")])
        .args(["--metrics-addr", &format!("127.0.0.1:{metrics_port}")])
        .arg("--audit-file")
        .arg(&audit)
        .env_remove("KOBANA_UPSTREAM_URL")
        // Every toolset: the certificate tool is not in banking's default selection.
        .env("KOBANA_TOOLSETS", "all")
        .env_remove("KOBANA_CONFIG")
        .env_remove("KOBANA_LEDGER")
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("kobana-mcp starts");
    let _server = Running(child);
    wait_for(port);
    wait_for(metrics_port);
    let base = format!("http://127.0.0.1:{port}");

    assert_eq!(
        get(&format!("{base}/healthz")).await,
        (200, "ok\n".to_string())
    );
    let (status, body) = get(&format!("{base}/readyz")).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("sandbox: ready") && body.contains("ledger: ready"),
        "{body}"
    );
    assert_eq!(
        get(&format!("{base}/metrics")).await.0,
        404,
        "moved to --metrics-addr"
    );

    let v = call(
        &format!("{base}/banking/mcp"),
        "banking_admin_certificate_create",
        json!({"label": "CLI", "cnpj_cpf": "12345678000199", "type": "pfx",
               "files": {"pfx_file": "QUJD", "pfx_password": "cli-secret-pw"}}),
    )
    .await;
    assert!(v.get("result").is_some(), "{v}");

    let (status, scrape) = get(&format!("http://127.0.0.1:{metrics_port}/metrics")).await;
    assert_eq!(status, 200);
    assert!(
        scrape.contains("mcp_server_operation_duration_seconds_count{gen_ai_tool_name=\"banking_admin_certificate_create\",mcp_method_name=\"tools/call\",mcp_protocol_version=\"2025-06-18\"} 1"),
        "{scrape}"
    );
    let text = std::fs::read_to_string(&audit).expect("the audit file");
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(!text.contains("cli-secret-pw"), "{text}");
    let record: Value = serde_json::from_str(text.trim()).expect("a JSON record");
    assert_eq!(record["protocol_version"], "2025-06-18");
    assert_eq!(record["tool"], "banking_admin_certificate_create");
}

/// `docker stop`, Kubernetes and systemd end a server with SIGTERM. It must end like Ctrl-C
/// does: the spans not yet exported reach the collector and the process exits 0. Before, the
/// default action killed it at once and the pending spans were lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ends_the_server_gracefully_and_exports_what_is_pending() {
    let dir = tempfile::tempdir().expect("temp dir");
    let port = free_port();
    let (endpoint, received) = test_support::otlp::collector().await;
    let child = Command::new(BIN)
        .arg("--data-dir")
        .arg(dir.path())
        .args(["serve", "all", "--http", &format!("127.0.0.1:{port}")])
        .args(["--otlp-endpoint", &endpoint])
        .env_remove("KOBANA_UPSTREAM_URL")
        .env_remove("KOBANA_CONFIG")
        .env_remove("KOBANA_LEDGER")
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("kobana-mcp starts");
    let mut server = Running(child);
    wait_for(port);
    let v = call(
        &format!("http://127.0.0.1:{port}/billing/mcp"),
        "billing_customers_create",
        json!({"name": "Natália Souza", "document": "39053344705", "email": "natalia@example.com"}),
    )
    .await;
    assert!(v["result"]["isError"].is_null(), "{v}");
    // The export interval is a minute: only the shutdown flush can have sent the span.
    assert!(received.bodies("/v1/traces").is_empty());

    let pid = server.0.id().to_string();
    let killed = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = server.0.try_wait().expect("wait") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "still running 30 s after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "exit after SIGTERM: {status}");
    let names: Vec<String> = received.spans().into_iter().map(|s| s.name).collect();
    assert!(
        names
            .iter()
            .any(|n| n == "tools/call billing_customers_create"),
        "{names:?}"
    );
}

/// An MCP client may pipe a stdio server's stderr and read it only if the server dies. The pipe
/// fills at 64 KiB: before, the next request's log line blocked its worker and the server
/// stopped answering after about 400 requests. Now the log drops lines it has no room for, says
/// so, and every request is answered.
#[test]
fn a_stderr_nobody_reads_never_stops_a_stdio_server() {
    use std::io::{BufRead, BufReader, Read, Write};

    let dir = tempfile::tempdir().expect("temp dir");
    let mut child = kobana(BIN, dir.path())
        .args(["serve", "billing", "--stdio"])
        .env("RUST_LOG", "info")
        .env_remove("KOBANA_ACCESS_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kobana-mcp starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let (tx, answers) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut ask = |message: Value| {
        writeln!(stdin, "{message}").expect("the server reads stdin");
        stdin.flush().expect("flush");
    };
    ask(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "never-reads-stderr", "version": "1"}}}),
    );
    let first = answers
        .recv_timeout(Duration::from_secs(60))
        .expect("initialize is answered");
    assert!(first.contains("\"result\""), "{first}");
    ask(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    // About 130 bytes of log per request: 12,000 requests are 1.5 MB, more than the pipe and the
    // log's queue hold together, so lines are dropped too.
    for id in 1..=12_000u32 {
        ask(json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
        let answer = answers
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no answer to request {id}: the server is stuck"));
        let answer: Value = serde_json::from_str(&answer).expect("a JSON-RPC answer");
        assert_eq!(answer["id"], json!(id), "{answer}");
    }
    drop(stdin);
    let mut log = String::new();
    stderr
        .read_to_string(&mut log)
        .expect("stderr is read to its end");
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the server did not end with stdin"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    assert!(
        log.contains("method=\"ping\""),
        "{}",
        &log[..log.len().min(500)]
    );
    assert!(
        log.lines().any(|l| l.starts_with("kobana-mcp: ")
            && l.ends_with(" log lines dropped here: stderr was not being read")),
        "{}",
        &log[log.len().saturating_sub(500)..]
    );
}

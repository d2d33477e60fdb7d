//! The operating flags of `kobana-mcp serve` (issue 16), through the binary: probes under
//! `serve all`, `/metrics` moved to `--metrics-addr`, and `--audit-file`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use test_support::process::{free_port, wait_for, Running};

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

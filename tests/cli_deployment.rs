//! Deployments as an operator runs them (issue 16), through the binary: every HTTP route anyone
//! can call without a token counts against the per-client-IP limit; the README's deployment with
//! an external authorization server is accepted and behaves as the README says; `/readyz` is 503
//! until the upstream identity service answers; `doctor` fails a Redis that would lose the ledger.
//! The Redis test starts its own `redis-server` (on PATH; `scripts/test.sh` installs it), unless
//! `KOBANA_TEST_SKIP=redis` opts out.

#[path = "support/skip.rs"]
mod skip;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use test_support::process::{free_port, start, Running};

const BIN: &str = env!("CARGO_BIN_EXE_kobana-mcp");

fn kobana(data_dir: &std::path::Path) -> Command {
    test_support::process::kobana(BIN, data_dir)
}

struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: String,
}

async fn get(url: &str) -> Answer {
    let r = reqwest::get(url).await.expect("GET");
    Answer {
        status: r.status().as_u16(),
        headers: r.headers().clone(),
        body: r.text().await.expect("body"),
    }
}

async fn post(url: &str, token: Option<&str>, host: Option<&str>, body: Value) -> Answer {
    let mut req = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-06-18")
        .json(&body);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    if let Some(h) = host {
        req = req.header("Host", h);
    }
    let r = req.send().await.expect("POST");
    Answer {
        status: r.status().as_u16(),
        headers: r.headers().clone(),
        body: r.text().await.expect("body"),
    }
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

/// The probes, the OAuth metadata, the signed downloads and unknown paths are requests anyone
/// can send without a token (and `/readyz` asks the ledger and the identity service): each one
/// counts against `--rate-limit-ip`, and over it each one is refused with 429 and `Retry-After`,
/// as the MCP endpoint is.
#[tokio::test]
async fn every_unauthenticated_route_counts_against_the_ip_limit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let port = free_port();
    let mut cmd = kobana(dir.path());
    cmd.args([
        "serve",
        "inbox",
        "--http",
        &format!("127.0.0.1:{port}"),
        "--rate-limit-ip",
        "6",
    ]);
    let _server = start(cmd, port);
    let base = format!("http://127.0.0.1:{port}");
    let unauthenticated = [
        "/healthz",
        "/readyz",
        "/metrics",
        "/.well-known/oauth-protected-resource",
        "/files/inbox/messages/msg_none?expires=1&sig=00",
        "/no-such-path",
    ];
    // Six requests, none of them to the MCP endpoint: the limit's whole burst.
    for path in unauthenticated {
        let a = get(&format!("{base}{path}")).await;
        assert_ne!(a.status, 429, "{path} refused within the limit: {}", a.body);
    }
    // So the seventh request, a valid MCP call, is over it.
    let mcp = post(
        &format!("{base}/mcp"),
        Some("demo-full"),
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    )
    .await;
    assert_eq!(
        mcp.status,
        429,
        "the unauthenticated routes did not count: {}",
        mcp.body.chars().take(200).collect::<String>()
    );
    // And every unauthenticated route is refused too, saying when to come back.
    for path in unauthenticated {
        let a = get(&format!("{base}{path}")).await;
        assert_eq!(a.status, 429, "{path}: {}", a.body);
        let retry: u64 = a.headers["retry-after"]
            .to_str()
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{path}: Retry-After {:?}", a.headers["retry-after"]));
        assert!((1..=60).contains(&retry), "{path}: Retry-After {retry}");
        let body: Value = serde_json::from_str(&a.body).expect("a JSON-RPC error body");
        assert_eq!(body["error"]["data"]["limit"], "ip", "{path}: {body}");
    }
}

/// The `kobana-mcp.toml` of the README's "deployment with an external authorization server".
fn readme_deployment() -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let after = readme
        .split_once("A deployment with an external authorization server")
        .expect("the README shows a deployment with an external authorization server")
        .1;
    let block = after
        .split_once("```toml\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("its kobana-mcp.toml block")
        .0;
    assert!(
        block.contains("authorization_servers"),
        "the block names no authorization server: {block}"
    );
    block.to_string()
}

/// The README's deployment, as written, with the hosts that are not here replaced: its API and
/// identity service (`/v2/me`) by `sandbox serve-api`, its listen address by a free port, its
/// Redis by the memory ledger. The metadata announces the external authorization server, a
/// request without a token gets 401 pointing at the public metadata URL, a token without the
/// tool's scope gets the 403 step-up challenge, and a foreign Host is refused.
#[tokio::test]
async fn the_readme_deployment_with_an_external_authorization_server_works_as_described() {
    let config = readme_deployment();
    let (api_dir, dir) = (
        tempfile::tempdir().expect("temp dir"),
        tempfile::tempdir().expect("temp dir"),
    );
    std::fs::write(dir.path().join("kobana-mcp.toml"), &config).expect("write the config");

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
    let mut mcp = kobana(dir.path());
    mcp.args([
        "serve",
        "all",
        "--config",
        "kobana-mcp.toml",
        "--http",
        &format!("127.0.0.1:{port}"),
        "--upstream",
        &format!("http://127.0.0.1:{api_port}/{{product}}"),
        // `sandbox serve-api` implements every product's paths.
        "--upstream-serves",
        "billing,finance,dashboards,inbox",
        "--ledger",
        "memory",
    ]);
    let _mcp = start(mcp, port);
    let base = format!("http://127.0.0.1:{port}");

    let meta = get(&format!("{base}/.well-known/oauth-protected-resource")).await;
    assert_eq!(meta.status, 200, "{}", meta.body);
    let meta: Value = serde_json::from_str(&meta.body).expect("metadata JSON");
    assert_eq!(
        meta["authorization_servers"],
        json!(["https://auth.example.com"])
    );
    assert!(
        meta["resource"]
            .as_str()
            .is_some_and(|r| r.starts_with("https://mcp.example.com")),
        "{meta}"
    );

    let url = format!("{base}/billing/mcp");
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let anonymous = post(&url, None, None, list.clone()).await;
    assert_eq!(anonymous.status, 401, "{}", anonymous.body);
    let challenge = anonymous.headers["www-authenticate"]
        .to_str()
        .expect("ascii");
    assert!(
        challenge.contains(
            "resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource"
        ),
        "{challenge}"
    );

    // The identity comes from the API's /v2/me: a known token lists the tools.
    let listed = post(
        &url,
        Some("demo-full"),
        Some("mcp.example.com"),
        list.clone(),
    )
    .await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert!(
        listed.body.contains("billing_customers_create"),
        "{}",
        listed.body
    );

    // A read-only token calling a write: the step-up challenge names the scope to ask for.
    let write = call(
        "billing_customers_create",
        json!({"name": "A", "document": "12345678909", "email": "a@example.com"}),
    );
    let refused = post(&url, Some("demo-readonly"), None, write).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let challenge = refused.headers["www-authenticate"].to_str().expect("ascii");
    assert!(
        challenge.contains("error=\"insufficient_scope\"")
            && challenge.contains("resource_metadata=\"https://mcp.example.com/"),
        "{challenge}"
    );

    // Only the public host name (and loopback) may be used to reach it.
    let foreign = post(&url, Some("demo-full"), Some("evil.example"), list).await;
    assert_eq!(foreign.status, 403, "{}", foreign.body);
}

/// Polls `url` until it answers `want` (at most ~15 s); the last answer.
async fn becomes(url: &str, want: u16) -> Answer {
    let mut last = get(url).await;
    for _ in 0..150 {
        if last.status == want {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        last = get(url).await;
    }
    last
}

/// Proxy mode through the binary: `/readyz` is 503 naming the identity service while nothing
/// answers at the upstream, and 200 once the API (and its `/v2/me`) is up; `/healthz` answers
/// throughout.
#[tokio::test]
async fn readyz_waits_for_the_upstream_identity_service() {
    let (api_dir, dir) = (
        tempfile::tempdir().expect("temp dir"),
        tempfile::tempdir().expect("temp dir"),
    );
    let (api_port, port) = (free_port(), free_port());
    let mut mcp = kobana(dir.path());
    mcp.args([
        "serve",
        "billing",
        "--http",
        &format!("127.0.0.1:{port}"),
        "--upstream",
        &format!("http://127.0.0.1:{api_port}/{{product}}"),
        "--upstream-serves",
        "billing",
    ]);
    let _mcp = start(mcp, port);
    let base = format!("http://127.0.0.1:{port}");

    let down = get(&format!("{base}/readyz")).await;
    assert_eq!(down.status, 503, "{}", down.body);
    let identity = down
        .body
        .lines()
        .find(|l| l.starts_with("identity: "))
        .unwrap_or_else(|| panic!("no identity line: {}", down.body));
    assert!(identity.contains("not ready"), "{}", down.body);
    assert!(
        identity.contains(&format!("127.0.0.1:{api_port}")),
        "{}",
        down.body
    );
    assert_eq!(get(&format!("{base}/healthz")).await.status, 200);

    let mut api = kobana(api_dir.path());
    api.args([
        "sandbox",
        "serve-api",
        "--http",
        &format!("127.0.0.1:{api_port}"),
    ]);
    let _api = start(api, api_port);
    let up = becomes(&format!("{base}/readyz"), 200).await;
    assert_eq!(up.status, 200, "{}", up.body);
    assert!(
        up.body.lines().any(|l| l.starts_with("identity: ready")),
        "{}",
        up.body
    );
}

/// A `redis-server` of this test, on a free port, killed when dropped.
fn own_redis(args: &[&str]) -> (Running, String) {
    let port = free_port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(args)
        .stdout(Stdio::null())
        .spawn()
        .expect("this test needs redis-server on PATH (apt-get install redis-server)");
    let running = Running(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "redis-server did not start on {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (running, format!("redis://127.0.0.1:{port}"))
}

/// `doctor` checks the ledger's persistence, not only that Redis answers: a Redis that keeps
/// nothing across a restart and evicts keys under memory pressure gets one FAIL line per problem,
/// naming the setting to change, and exit code 1.
#[test]
fn doctor_fails_a_redis_that_would_lose_the_ledger() {
    if skip::opted_out(
        "redis",
        "doctor_fails_a_redis_that_would_lose_the_ledger",
        "needs redis-server",
    ) {
        return;
    }
    let (_redis, url) = own_redis(&[
        "--save",
        "",
        "--appendonly",
        "no",
        "--maxmemory-policy",
        "allkeys-lru",
    ]);
    let dir = tempfile::tempdir().expect("temp dir");
    let out = kobana(dir.path())
        .args([
            "doctor",
            "billing",
            "--ledger",
            &url,
            "--http",
            "127.0.0.1:0",
        ])
        .env_remove("KOBANA_ACCESS_TOKEN")
        .output()
        .expect("doctor runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let ledger: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("FAIL  ledger: "))
        .collect();
    assert_eq!(ledger.len(), 2, "{text}");
    assert!(
        ledger[0].contains("persistence is off") && ledger[0].contains("appendonly yes"),
        "{text}"
    );
    assert!(
        ledger[1].contains("allkeys-lru") && ledger[1].contains("noeviction"),
        "{text}"
    );
    assert_eq!(text.lines().last(), Some("2 check(s) failed"), "{text}");
}

/// The audit trail's other sink: with `--audit-stderr` a write over stdio leaves one JSON record
/// on stderr (beside the log lines), naming the tool, the person and the outcome.
#[test]
fn audit_stderr_writes_one_json_record_per_write() {
    use std::io::{BufRead, BufReader, Read, Write};
    let dir = tempfile::tempdir().expect("temp dir");
    let mut child = kobana(dir.path())
        .args(["serve", "billing", "--stdio", "--audit-stderr"])
        .env("KOBANA_ACCESS_TOKEN", "demo-full")
        .env_remove("KOBANA_AUDIT_FILE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kobana-mcp starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut ask = |id: u64, method: &str, params: Value| -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{msg}").expect("write");
        let mut line = String::new();
        out.read_line(&mut line).expect("read");
        serde_json::from_str(&line).unwrap_or(Value::String(line))
    };
    let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "t", "version": "1"}});
    assert_eq!(ask(1, "initialize", init)["id"], 1);
    let created = ask(
        2,
        "tools/call",
        json!({"name": "billing_customers_create",
               "arguments": {"name": "Audit Person", "document": "12345678909",
                             "email": "audit@example.com"}}),
    );
    assert!(created.get("result").is_some(), "{created}");
    let read = ask(
        3,
        "tools/call",
        json!({"name": "billing_customers_get", "arguments": {"id": "cus_none"}}),
    );
    assert!(read.get("result").is_some(), "{read}");
    drop(stdin);
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("stderr");
    let _ = child.wait();
    let records: Vec<Value> = err
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("tool").is_some())
        .collect();
    assert_eq!(records.len(), 1, "one record, for the write only: {err}");
    let r = &records[0];
    assert_eq!(r["tool"], "billing_customers_create", "{r}");
    assert_eq!(r["product"], "billing", "{r}");
    assert!(r["person"].as_str().is_some_and(|p| !p.is_empty()), "{r}");
    assert!(r["outcome"].as_str().is_some_and(|o| !o.is_empty()), "{r}");
    assert!(
        r["organization"].as_str().is_some_and(|o| !o.is_empty()),
        "{r}"
    );
    assert!(
        r.get("workspace").is_some(),
        "the record names the workspace: {r}"
    );
    assert_eq!(r["protocol_version"], "2025-06-18", "{r}");
    assert!(
        r["arguments_sha256"]
            .as_str()
            .is_some_and(|d| d.len() == 64 && d.bytes().all(|b| b.is_ascii_hexdigit())),
        "{r}"
    );
    assert_eq!(r["arguments"]["email"], "audit@example.com", "{r}");
}

/// `--otlp-endpoint` through the binary: a stdio session's `tools/call` reaches an OTLP/HTTP
/// collector as the span `tools/call <tool>` and the operation-duration metric, flushed when the
/// client closes the session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otlp_endpoint_exports_the_spans_and_metrics_of_a_session() {
    use std::io::{BufRead, BufReader, Write};

    let (endpoint, received) = test_support::otlp::collector().await;

    let dir = tempfile::tempdir().expect("temp dir");
    let mut cmd = kobana(dir.path());
    cmd.args(["serve", "billing", "--stdio", "--otlp-endpoint", &endpoint])
        .env("KOBANA_ACCESS_TOKEN", "demo-full");
    let session = tokio::task::spawn_blocking(move || {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("kobana-mcp starts");
        let mut stdin = child.stdin.take().expect("stdin");
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        for (id, method, params) in [
            (
                1,
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}),
            ),
            (
                2,
                "tools/call",
                json!({"name": "billing_customers_get", "arguments": {"id": "cus_none"}}),
            ),
        ] {
            let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            writeln!(stdin, "{msg}").expect("write");
            let mut line = String::new();
            out.read_line(&mut line).expect("read");
            assert!(line.contains(&format!("\"id\":{id}")), "{line}");
        }
        drop(stdin);
        child.wait().expect("exit")
    });
    let status = tokio::time::timeout(Duration::from_secs(60), session)
        .await
        .expect("the server exits once stdin closes")
        .expect("session");
    assert!(status.success(), "{status}");

    let spans: Vec<String> = received.spans().into_iter().map(|s| s.name).collect();
    assert!(
        spans
            .iter()
            .any(|n| n == "tools/call billing_customers_get"),
        "spans {spans:?}"
    );
    let metrics: Vec<String> = received.metrics().into_iter().map(|m| m.name).collect();
    assert!(
        metrics.iter().any(|n| n == "mcp.server.operation.duration"),
        "metrics {metrics:?}"
    );
}

/// Over stdio too, `initialize` (answered by the connection layer, not an engine) gets its
/// request line on stderr, like every other request.
#[test]
fn stdio_logs_initialize_like_every_request() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().expect("temp dir");
    let mut child = kobana(dir.path())
        .args(["serve", "billing", "--stdio"])
        .env("KOBANA_ACCESS_TOKEN", "demo-full")
        .env("RUST_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kobana-mcp starts");
    let mut stdin = child.stdin.take().expect("stdin");
    for (id, method, params) in [
        (
            1,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}),
        ),
        (2, "tools/list", json!({})),
    ] {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{msg}").expect("write");
    }
    drop(stdin);
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("stderr");
    let _ = child.wait();
    let requests: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("kobana_mcp::request"))
        .collect();
    assert_eq!(requests.len(), 2, "{err}");
    assert!(
        requests[0].contains("method=\"initialize\"") && requests[0].contains("outcome=\"ok\""),
        "{err}"
    );
    assert!(requests[1].contains("method=\"tools/list\""), "{err}");
}

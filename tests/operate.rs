//! Operating the server (issue 16): `/healthz` and `/readyz` (their transitions as Redis goes
//! away and comes back), the metrics a Prometheus scrape shows after a successful call, a failed
//! tool and confirmations, an OTLP export of spans and metrics received by a collector started
//! here, and the audit trail (one record per write, no secret in it).
//!
//! Everything goes through the real HTTP transport. The Redis test starts its own
//! `redis-server` (it stops and restarts it); it fails without one unless `KOBANA_TEST_SKIP=redis`.

#[path = "confirmation_harness/mod.rs"]
mod harness;
#[path = "support/skip.rs"]
mod skip;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use harness::{delete_target, start, yes, Options, TestServer, MODERN};
use runtime::confirm::RedisLedger;
use runtime::telemetry::health::Probe;
use runtime::telemetry::{AuditTarget, Telemetry, TelemetryConfig};
use serde_json::{json, Value};

fn banking() -> &'static runtime::catalog::Product {
    generated::product("banking").expect("banking is generated")
}

/// A banking server measured by `telemetry`, with `probes` in its readiness.
async fn server(
    telemetry: Telemetry,
    ledger: Option<Arc<dyn runtime::confirm::Ledger>>,
    probes: Vec<Probe>,
) -> TestServer {
    start(Options {
        products: vec![banking()],
        ledger,
        configure: Some(Box::new(move |c| {
            c.telemetry = Some(telemetry);
            c.probes = probes;
        })),
        ..Options::all_products()
    })
    .await
}

async fn get(url: &str) -> (u16, String) {
    let r = reqwest::get(url).await.expect("GET");
    let status = r.status().as_u16();
    (status, r.text().await.expect("body"))
}

/// The samples of one metric in a scrape: labels → value.
fn samples(scrape: &str, name: &str) -> Vec<(BTreeMap<String, String>, f64)> {
    let mut out = Vec::new();
    for line in scrape.lines().filter(|l| !l.starts_with('#')) {
        let (series, value) = match line.rsplit_once(' ') {
            Some(p) => p,
            None => continue,
        };
        let (metric, labels) = match series.split_once('{') {
            Some((m, rest)) => (m, rest.trim_end_matches('}')),
            None => (series, ""),
        };
        if metric != name {
            continue;
        }
        let mut map = BTreeMap::new();
        for pair in labels.split("\",").filter(|p| !p.is_empty()) {
            if let Some((k, v)) = pair.split_once("=\"") {
                map.insert(k.to_string(), v.trim_end_matches('"').to_string());
            }
        }
        out.push((map, value.parse().unwrap_or(f64::NAN)));
    }
    out
}

/// The value of the one sample of `name` whose labels are exactly `labels` (plus `le` for
/// buckets); 0 when there is none.
fn value(scrape: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    let want: BTreeMap<String, String> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    samples(scrape, name)
        .into_iter()
        .find(|(l, _)| *l == want)
        .map(|(_, v)| v)
        .unwrap_or(0.0)
}

#[tokio::test]
async fn healthz_answers_and_readyz_lists_each_dependency() {
    let ok = Probe::new("sandbox", || async { Ok("open".to_string()) });
    let s = server(Telemetry::default(), None, vec![ok]).await;
    let (status, body) = get(&format!("{}/healthz", s.base)).await;
    assert_eq!((status, body.as_str()), (200, "ok\n"));
    let (status, body) = get(&format!("{}/readyz", s.base)).await;
    assert_eq!(status, 200, "{body}");
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines.len(), 2, "{body}");
    assert!(lines[0].starts_with("sandbox: ready"), "{body}");
    assert!(lines[1].starts_with("ledger: ready"), "{body}");

    // A dependency that is down turns it to 503, and says which.
    let down = Probe::new("identity", || async {
        Err("cannot connect to http://idp".to_string())
    });
    let s = server(Telemetry::default(), None, vec![down]).await;
    let (status, body) = get(&format!("{}/readyz", s.base)).await;
    assert_eq!(status, 503, "{body}");
    assert!(
        body.contains("identity: not ready: cannot connect to http://idp"),
        "{body}"
    );
    assert!(body.contains("ledger: ready"), "{body}");
    // No token needed, and the process still answers.
    assert_eq!(get(&format!("{}/healthz", s.base)).await.0, 200);
}

/// A `redis-server` this test owns, on a fixed port so it can come back on it.
struct OwnRedis {
    port: u16,
    child: Option<std::process::Child>,
}

impl OwnRedis {
    fn new() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        Self { port, child: None }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    async fn up(&mut self) {
        let child = std::process::Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("these tests need redis-server on PATH (apt-get install redis-server)");
        self.child = Some(child);
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", self.port))
                .await
                .is_ok()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("redis-server did not start on port {}", self.port);
    }

    fn down(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.down();
    }
}

/// Polls `/readyz` until it answers `want` (at most ~10 s); the last answer.
async fn readyz_becomes(base: &str, want: u16) -> (u16, String) {
    let mut last = (0, String::new());
    for _ in 0..100 {
        last = get(&format!("{base}/readyz")).await;
        if last.0 == want {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    last
}

#[tokio::test]
async fn readyz_follows_the_redis_ledger_down_up_down_up() {
    if skip::opted_out(
        "redis",
        "readyz_follows_the_redis_ledger_down_up_down_up",
        "needs redis-server",
    ) {
        return;
    }
    let mut redis = OwnRedis::new();
    let ledger = Arc::new(RedisLedger::new(&redis.url()).expect("a valid Redis URL"));
    let s = server(Telemetry::default(), Some(ledger), Vec::new()).await;

    // Not started yet: not ready, and the line says why.
    let (status, body) = get(&format!("{}/readyz", s.base)).await;
    assert_eq!(status, 503, "{body}");
    assert!(body.starts_with("ledger: not ready:"), "{body}");
    assert!(
        body.contains(&format!("127.0.0.1:{}", redis.port)),
        "{body}"
    );
    assert_eq!(get(&format!("{}/healthz", s.base)).await.0, 200);

    redis.up().await;
    let (status, body) = readyz_becomes(&s.base, 200).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.starts_with("ledger: ready"), "{body}");

    redis.down();
    let (status, body) = readyz_becomes(&s.base, 503).await;
    assert_eq!(status, 503, "{body}");
    assert!(body.starts_with("ledger: not ready:"), "{body}");
    assert_eq!(
        get(&format!("{}/healthz", s.base)).await.0,
        200,
        "health calls nothing"
    );

    redis.up().await;
    let (status, body) = readyz_becomes(&s.base, 200).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_scrape_shows_operations_by_method_tool_version_and_error_type_and_confirmations() {
    let telemetry = Telemetry::default();
    let s = server(telemetry, None, Vec::new()).await;
    let c = s.client("banking", "demo-full");
    let t = delete_target(&c, banking(), 3).await;

    // A successful call, a failed tool, a confirmation accepted and one declined.
    let ok = c
        .call_tool(t.get_tool, json!({ t.get_id_arg: t.ids[0] }), None, None)
        .await;
    assert_eq!(ok.tool_error_code(), None, "{}", ok.body);
    let missing = c
        .call_tool(
            t.get_tool,
            json!({ t.get_id_arg: "no-such-record" }),
            None,
            None,
        )
        .await;
    assert!(missing.tool_error_code().is_some(), "{}", missing.body);
    let asked = c.call_tool(t.delete_tool, t.args(1), None, None).await;
    let ran = c
        .call_tool(
            t.delete_tool,
            t.args(1),
            Some(&asked.request_state()),
            Some(yes()),
        )
        .await;
    assert_eq!(ran.tool_error_code(), None, "{}", ran.body);
    let asked = c.call_tool(t.delete_tool, t.args(2), None, None).await;
    let no = json!({"confirm": {"action": "decline"}});
    let declined = c
        .call_tool(
            t.delete_tool,
            t.args(2),
            Some(&asked.request_state()),
            Some(no),
        )
        .await;
    assert!(declined.tool_error_code().is_some(), "{}", declined.body);
    // A tool name the catalog does not have never becomes a label.
    let unknown = c.call_tool("no_such_tool_xyz", json!({}), None, None).await;
    assert_eq!(unknown.error()["code"], json!(-32602), "{}", unknown.body);

    let (status, scrape) = get(&format!("{}/metrics", s.base)).await;
    assert_eq!(status, 200);
    assert!(
        scrape.contains("# TYPE mcp_server_operation_duration_seconds histogram"),
        "{scrape}"
    );
    let count = "mcp_server_operation_duration_seconds_count";
    let call = |tool: &'static str| {
        vec![
            ("gen_ai_tool_name", tool),
            ("mcp_method_name", "tools/call"),
            ("mcp_protocol_version", MODERN),
        ]
    };
    let with_error = |mut l: Vec<(&'static str, &'static str)>| {
        l.insert(0, ("error_type", "tool_error"));
        l
    };
    assert_eq!(value(&scrape, count, &call(t.get_tool)), 1.0, "{scrape}");
    assert_eq!(
        value(&scrape, count, &with_error(call(t.get_tool))),
        1.0,
        "{scrape}"
    );
    // Two questions and the run without error; the decline is an isError result.
    assert_eq!(value(&scrape, count, &call(t.delete_tool)), 3.0, "{scrape}");
    assert_eq!(
        value(&scrape, count, &with_error(call(t.delete_tool))),
        1.0,
        "{scrape}"
    );
    assert_eq!(
        value(
            &scrape,
            count,
            &[
                ("error_type", "-32602"),
                ("mcp_method_name", "tools/call"),
                ("mcp_protocol_version", MODERN)
            ]
        ),
        1.0,
        "{scrape}"
    );
    assert!(!scrape.contains("no_such_tool_xyz"), "{scrape}");
    let mut inf = call(t.get_tool);
    inf.push(("le", "+Inf"));
    assert_eq!(
        value(
            &scrape,
            "mcp_server_operation_duration_seconds_bucket",
            &inf
        ),
        1.0,
        "{scrape}"
    );

    let confirmations = "kobana_confirmations_total";
    let verdict = |o: &'static str| {
        [
            ("gen_ai_tool_name", t.delete_tool),
            ("kobana_confirmation_outcome", o),
        ]
    };
    assert_eq!(
        value(&scrape, confirmations, &verdict("asked")),
        2.0,
        "{scrape}"
    );
    assert_eq!(
        value(&scrape, confirmations, &verdict("accepted")),
        1.0,
        "{scrape}"
    );
    assert_eq!(
        value(&scrape, confirmations, &verdict("declined")),
        1.0,
        "{scrape}"
    );

    // The ledger recorded the confirmation and the write's idempotency key.
    assert!(
        value(
            &scrape,
            "kobana_ledger_operation_duration_seconds_count",
            &[("kobana_ledger_operation", "put_new")]
        ) >= 2.0,
        "{scrape}"
    );
    assert_eq!(
        value(&scrape, "mcp_server_sessions_open", &[]),
        0.0,
        "{scrape}"
    );
    // A 2025 client opens a session: the gauge counts it.
    let opened = reqwest::Client::new()
        .post(&c.url)
        .bearer_auth("demo-full")
        .header("accept", "application/json, text/event-stream")
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        )
        .send()
        .await
        .expect("initialize");
    assert!(opened.headers().contains_key("mcp-session-id"));
    let (_, scrape) = get(&format!("{}/metrics", s.base)).await;
    assert!(
        scrape.contains("# TYPE mcp_server_sessions_open gauge"),
        "{scrape}"
    );
    assert_eq!(
        value(&scrape, "mcp_server_sessions_open", &[]),
        1.0,
        "{scrape}"
    );
}

fn string_attr(
    attrs: &[opentelemetry_proto::tonic::common::v1::KeyValue],
    key: &str,
) -> Option<String> {
    use opentelemetry_proto::tonic::common::v1::any_value::Value as V;
    attrs.iter().find(|kv| kv.key == key).and_then(|kv| {
        match kv.value.as_ref()?.value.as_ref()? {
            V::StringValue(s) => Some(s.clone()),
            other => Some(format!("{other:?}")),
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_and_metrics_reach_an_otlp_collector_continuing_the_clients_trace() {
    let (endpoint, received) = test_support::otlp::collector().await;
    let telemetry = Telemetry::new(TelemetryConfig {
        otlp_endpoint: Some(endpoint),
        otlp_interval: Some(Duration::from_secs(3600)),
        audit: None,
    })
    .expect("telemetry");
    let s = server(telemetry.clone(), None, Vec::new()).await;
    let c = s.client("banking", "demo-full");
    let t = delete_target(&c, banking(), 1).await;

    // The client's trace context travels in params._meta.
    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let parent_id = "00f067aa0ba902b7";
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": t.get_tool,
        "arguments": { t.get_id_arg: t.ids[0] },
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "traceparent": format!("00-{trace_id}-{parent_id}-01"),
            "tracestate": "kobana=test"
        }
    }});
    let resp = reqwest::Client::new()
        .post(&c.url)
        .bearer_auth("demo-full")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/call")
        .header("mcp-name", t.get_tool)
        .json(&body)
        .send()
        .await
        .expect("POST");
    assert_eq!(resp.status().as_u16(), 200);
    let answer: Value = resp.json().await.expect("JSON");
    assert!(answer["result"]["isError"].is_null(), "{answer}");

    let t2 = telemetry.clone();
    tokio::task::spawn_blocking(move || t2.flush())
        .await
        .expect("flush");

    let spans = received.spans();
    let name = format!("tools/call {}", t.get_tool);
    let span = spans.iter().find(|s| s.name == name).unwrap_or_else(|| {
        panic!(
            "no span {name} among {:?}",
            spans.iter().map(|s| &s.name).collect::<Vec<_>>()
        )
    });
    assert_eq!(
        hex(&span.trace_id),
        trace_id,
        "the client's trace continues"
    );
    assert_eq!(hex(&span.parent_span_id), parent_id);
    assert_eq!(span.trace_state, "kobana=test");
    assert_eq!(span.kind, 2, "a SERVER span");
    assert_eq!(
        string_attr(&span.attributes, "mcp.method.name").as_deref(),
        Some("tools/call")
    );
    assert_eq!(
        string_attr(&span.attributes, "gen_ai.tool.name").as_deref(),
        Some(t.get_tool)
    );
    assert_eq!(
        string_attr(&span.attributes, "mcp.protocol.version").as_deref(),
        Some(MODERN)
    );
    assert_eq!(
        string_attr(&span.attributes, "jsonrpc.request.id").as_deref(),
        Some("7")
    );
    assert_eq!(string_attr(&span.attributes, "error.type"), None);

    let metrics = received.metrics();
    let duration = metrics
        .iter()
        .find(|m| m.name == "mcp.server.operation.duration")
        .unwrap_or_else(|| {
            panic!(
                "no duration among {:?}",
                metrics.iter().map(|m| &m.name).collect::<Vec<_>>()
            )
        });
    assert_eq!(duration.unit, "s");
    use opentelemetry_proto::tonic::metrics::v1::metric::Data;
    let Some(Data::Histogram(h)) = &duration.data else {
        panic!("a histogram: {duration:?}")
    };
    assert!(
        h.data_points.iter().any(
            |p| string_attr(&p.attributes, "gen_ai.tool.name").as_deref() == Some(t.get_tool)
                && p.count >= 1
        ),
        "{h:?}"
    );
    let t3 = telemetry.clone();
    tokio::task::spawn_blocking(move || t3.shutdown())
        .await
        .expect("shutdown");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn every_write_leaves_one_audit_record_and_no_secret() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("audit.jsonl");
    let telemetry = Telemetry::new(TelemetryConfig {
        audit: Some(AuditTarget::File {
            path: path.clone(),
            max_bytes: 10 * 1024 * 1024,
            keep: 2,
        }),
        ..TelemetryConfig::default()
    })
    .expect("telemetry");
    let s = server(telemetry, None, Vec::new()).await;
    let c = s.client("banking", "demo-full");
    let t = delete_target(&c, banking(), 2).await;
    let before_reads = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(before_reads, "", "reads are not audited");

    let file_bytes = "U0VDUkVULUZJTEUtQllURVMtOTk5"; // base64 of SECRET-FILE-BYTES-999
    let certificate = json!({
        "label": "Main certificate",
        "cnpj_cpf": "12345678000199",
        "type": "pfx",
        "files": {"pfx_file": file_bytes, "pfx_password": "hunter2-pfx-password"}
    });
    let connection = json!({
        "provider_slug": "abc",
        "credentials": {"client_id": "client-visible", "client_secret": "SECRET-CLIENT-777", "password": "SECRET-PASS-888"}
    });
    c.call_tool(
        "banking_admin_certificate_create",
        certificate.clone(),
        None,
        None,
    )
    .await;
    // Destructive (money and data leave through it): confirmed first.
    let asked = c
        .call_tool(
            "banking_admin_connection_create",
            connection.clone(),
            None,
            None,
        )
        .await;
    assert!(asked.is_input_required(), "{}", asked.body);
    c.call_tool(
        "banking_admin_connection_create",
        connection.clone(),
        Some(&asked.request_state()),
        Some(yes()),
    )
    .await;
    // A confirmed delete: the question leaves no record, the run leaves one.
    let asked = c.call_tool(t.delete_tool, t.args(0), None, None).await;
    assert!(asked.is_input_required(), "{}", asked.body);
    let ran = c
        .call_tool(
            t.delete_tool,
            t.args(0),
            Some(&asked.request_state()),
            Some(yes()),
        )
        .await;
    assert_eq!(ran.tool_error_code(), None, "{}", ran.body);
    // A declined one leaves one too.
    let asked = c.call_tool(t.delete_tool, t.args(1), None, None).await;
    let no = json!({"confirm": {"action": "decline"}});
    c.call_tool(
        t.delete_tool,
        t.args(1),
        Some(&asked.request_state()),
        Some(no),
    )
    .await;
    // A read leaves none.
    c.call_tool(t.get_tool, json!({ t.get_id_arg: t.ids[1] }), None, None)
        .await;

    let text = std::fs::read_to_string(&path).expect("the audit file");
    for secret in [
        "hunter2",
        file_bytes,
        "SECRET-CLIENT-777",
        "SECRET-PASS-888",
    ] {
        assert!(
            !text.contains(secret),
            "{secret} reached the audit trail:\n{text}"
        );
    }
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON record per line"))
        .collect();
    let tools: Vec<&str> = records
        .iter()
        .map(|r| r["tool"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        tools,
        [
            "banking_admin_certificate_create",
            "banking_admin_connection_create",
            t.delete_tool,
            t.delete_tool
        ],
        "{text}"
    );
    for r in &records {
        assert_eq!(r["person"], "per_demo_ana", "{r}");
        assert_eq!(r["organization"], "org_demo", "{r}");
        assert_eq!(r["product"], "banking", "{r}");
        assert_eq!(r["protocol_version"], MODERN, "{r}");
        assert!(r["time"].as_str().is_some_and(|t| t.ends_with('Z')), "{r}");
    }
    let cert = &records[0];
    assert_eq!(
        cert["arguments_sha256"],
        runtime_model::canonical::sha256_hex(&certificate),
        "the digest is of the arguments as sent"
    );
    assert_eq!(cert["arguments"]["files"]["pfx_file"], "[redacted]");
    assert_eq!(cert["arguments"]["files"]["pfx_password"], "[redacted]");
    assert_eq!(
        cert["arguments"]["label"], "Main certificate",
        "the rest stays readable"
    );
    let conn = &records[1];
    assert_eq!(
        conn["arguments"]["credentials"]["client_id"],
        "client-visible"
    );
    assert_eq!(
        conn["arguments"]["credentials"]["client_secret"],
        "[redacted]"
    );

    let run = &records[2];
    assert_eq!(run["outcome"], "ok", "{run}");
    assert_eq!(run["destructive"], true);
    assert_eq!(run["confirmation"], "accepted", "{run}");
    assert!(
        run["confirmation_id"]
            .as_str()
            .is_some_and(|s| !s.is_empty()),
        "{run}"
    );
    assert!(
        run["idempotency_key"]
            .as_str()
            .is_some_and(|s| !s.is_empty()),
        "{run}"
    );
    assert_eq!(run["arguments"], t.args(0));
    let declined = &records[3];
    assert_eq!(declined["outcome"], "declined", "{declined}");
    assert!(declined["error_code"].is_string(), "{declined}");
    assert!(
        declined["idempotency_key"].is_null(),
        "nothing was sent: {declined}"
    );
}

/// The sandbox's Kobana-like REST API, answering each request with an `X-Request-Id`
/// (`req-1`, `req-2`, …) as an API gateway would.
async fn api_with_request_ids() -> (String, tempfile::TempDir) {
    use runtime::auth::EmbeddedResolver;
    use runtime_sandbox::api::{self, ApiState};
    let dir = tempfile::tempdir().expect("temp dir");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let mut cfg = runtime_sandbox::SandboxConfig::new(dir.path());
    cfg.public_url = base.clone();
    let sb = runtime_sandbox::Sandbox::open(&cfg).expect("sandbox");
    let products = generated::PRODUCTS.to_vec();
    let resolver = EmbeddedResolver::builtin(&products).expect("demo identities");
    let lookup: api::IdentityLookup = Arc::new(move |t: &str| resolver.lookup(t).cloned());
    let counter = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let app = api::router(ApiState::new(sb, products, lookup)).layer(
        axum::middleware::map_response(move |mut r: axum::response::Response| {
            let n = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            let counter_value = axum::http::HeaderValue::from_str(&format!("req-{n}"));
            if let Ok(v) = counter_value {
                r.headers_mut().insert("x-request-id", v);
            }
            async move { r }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    (base, dir)
}

#[tokio::test]
async fn a_proxied_write_records_the_upstream_status_and_request_id() {
    use runtime::backend::upstream::{Upstream, UpstreamConfig};
    let (api, _api_dir) = api_with_request_ids().await;
    let upstream = Upstream::new(UpstreamConfig {
        base_url: Some(format!("{api}/{{product}}")),
        timeout: Duration::from_secs(5),
        ..UpstreamConfig::default()
    })
    .expect("upstream");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("audit.jsonl");
    let telemetry = Telemetry::new(TelemetryConfig {
        audit: Some(AuditTarget::File {
            path: path.clone(),
            max_bytes: 1 << 20,
            keep: 1,
        }),
        ..TelemetryConfig::default()
    })
    .expect("telemetry");
    let t2 = telemetry.clone();
    let s = start(Options {
        products: vec![banking()],
        backend: Some(Arc::new(upstream)),
        configure: Some(Box::new(move |c| c.telemetry = Some(t2))),
        ..Options::all_products()
    })
    .await;
    let c = s.client("banking", "demo-full");
    let t = delete_target(&c, banking(), 1).await;
    let asked = c.call_tool(t.delete_tool, t.args(0), None, None).await;
    let ran = c
        .call_tool(
            t.delete_tool,
            t.args(0),
            Some(&asked.request_state()),
            Some(yes()),
        )
        .await;
    assert_eq!(ran.tool_error_code(), None, "{}", ran.body);

    let text = std::fs::read_to_string(&path).expect("the audit file");
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(records.len(), 1, "{text}");
    let r = &records[0];
    assert_eq!(r["outcome"], "ok", "{r}");
    let status = r["upstream_status"].as_u64().expect("an upstream status");
    assert!((200..300).contains(&status), "{r}");
    assert!(
        r["upstream_request_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("req-")),
        "{r}"
    );

    let (_, scrape) = get(&format!("{}/metrics", s.base)).await;
    let status = status.to_string();
    let upstream = value(
        &scrape,
        "http_client_request_duration_seconds_count",
        &[
            ("http_request_method", "DELETE"),
            ("http_response_status_code", status.as_str()),
            ("kobana_product", "banking"),
        ],
    );
    assert_eq!(upstream, 1.0, "{scrape}");
}

#[tokio::test]
async fn a_write_cut_off_by_the_time_limit_is_measured_and_audited_as_unknown() {
    use runtime::backend::upstream::{Upstream, UpstreamConfig};
    // An upstream that never answers in time.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let api = format!("http://{}", listener.local_addr().expect("addr"));
    let slow = axum::Router::new().fallback(|| async {
        tokio::time::sleep(Duration::from_secs(30)).await;
        "late"
    });
    tokio::spawn(async move { axum::serve(listener, slow).await });
    let upstream = Upstream::new(UpstreamConfig {
        base_url: Some(format!("{api}/{{product}}")),
        timeout: Duration::from_secs(20),
        ..UpstreamConfig::default()
    })
    .expect("upstream");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("audit.jsonl");
    let telemetry = Telemetry::new(TelemetryConfig {
        audit: Some(AuditTarget::File {
            path: path.clone(),
            max_bytes: 1 << 20,
            keep: 1,
        }),
        ..TelemetryConfig::default()
    })
    .expect("telemetry");
    let s = start(Options {
        products: vec![banking()],
        backend: Some(Arc::new(upstream)),
        configure: Some(Box::new(move |c| {
            c.telemetry = Some(telemetry);
            c.request_timeout = Duration::from_millis(500);
        })),
        ..Options::all_products()
    })
    .await;
    let c = s.client("banking", "demo-full");
    let args = json!({
        "label": "Late", "cnpj_cpf": "12345678000199", "type": "pfx",
        "files": {"pfx_file": "QUJD", "pfx_password": "pw-never-logged"}
    });
    let a = c
        .call_tool("banking_admin_certificate_create", args, None, None)
        .await;
    assert!(!a.error().is_null(), "the time limit answers: {}", a.body);

    let text = std::fs::read_to_string(&path).expect("the audit file");
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(records.len(), 1, "{text}");
    assert_eq!(
        records[0]["outcome"], "unknown",
        "it may have been sent: {text}"
    );
    assert!(records[0]["idempotency_key"].is_string(), "{text}");
    assert!(!text.contains("pw-never-logged"));
    let (_, scrape) = get(&format!("{}/metrics", s.base)).await;
    assert_eq!(
        value(
            &scrape,
            "mcp_server_operation_duration_seconds_count",
            &[
                ("error_type", "cancelled"),
                ("gen_ai_tool_name", "banking_admin_certificate_create"),
                ("mcp_method_name", "tools/call"),
                ("mcp_protocol_version", MODERN)
            ]
        ),
        1.0,
        "{scrape}"
    );
}

#[tokio::test]
async fn replayed_and_unavailable_confirmations_are_counted_and_audited_as_refused() {
    // A replay: the same yes twice.
    let s = server(Telemetry::default(), None, Vec::new()).await;
    let c = s.client("banking", "demo-full");
    let t = delete_target(&c, banking(), 1).await;
    let asked = c.call_tool(t.delete_tool, t.args(0), None, None).await;
    let state = asked.request_state();
    let ran = c
        .call_tool(t.delete_tool, t.args(0), Some(&state), Some(yes()))
        .await;
    assert_eq!(ran.tool_error_code(), None, "{}", ran.body);
    c.call_tool(t.delete_tool, t.args(0), Some(&state), Some(yes()))
        .await;
    let (_, scrape) = get(&format!("{}/metrics", s.base)).await;
    let verdict = |o: &'static str| {
        [
            ("gen_ai_tool_name", t.delete_tool),
            ("kobana_confirmation_outcome", o),
        ]
    };
    let confirmations = "kobana_confirmations_total";
    assert_eq!(
        value(&scrape, confirmations, &verdict("replayed")),
        1.0,
        "{scrape}"
    );
    assert_eq!(
        value(&scrape, confirmations, &verdict("accepted")),
        1.0,
        "{scrape}"
    );

    // A ledger that cannot record: the yes runs nothing, /readyz says so.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("audit.jsonl");
    let telemetry = Telemetry::new(TelemetryConfig {
        audit: Some(AuditTarget::File {
            path: path.clone(),
            max_bytes: 1 << 20,
            keep: 1,
        }),
        ..TelemetryConfig::default()
    })
    .expect("telemetry");
    let failing = Arc::new(runtime::confirm::FailingLedger("store down".into()));
    let s = server(telemetry, Some(failing), Vec::new()).await;
    let (status, body) = get(&format!("{}/readyz", s.base)).await;
    assert_eq!(status, 503, "{body}");
    assert!(
        body.contains("ledger: not ready") && body.contains("store down"),
        "{body}"
    );
    let c = s.client("banking", "demo-full");
    let asked = c.call_tool(t.delete_tool, t.args(0), None, None).await;
    assert!(asked.is_input_required(), "{}", asked.body);
    let refused = c
        .call_tool(
            t.delete_tool,
            t.args(0),
            Some(&asked.request_state()),
            Some(yes()),
        )
        .await;
    assert_eq!(
        refused.tool_error_code().as_deref(),
        Some("confirmation_unavailable"),
        "{}",
        refused.body
    );
    let (_, scrape) = get(&format!("{}/metrics", s.base)).await;
    assert_eq!(
        value(&scrape, confirmations, &verdict("unavailable")),
        1.0,
        "{scrape}"
    );
    let text = std::fs::read_to_string(&path).expect("the audit file");
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(records.len(), 1, "{text}");
    assert_eq!(records[0]["outcome"], "refused", "{text}");
    assert_eq!(
        records[0]["error_code"], "confirmation_unavailable",
        "{text}"
    );
}

/// Banking's `resources/list` through the proxy when one type's listing fails (the API answers
/// 503 for bank billets, every other path as `sandbox serve-api` does): the other types' records
/// come, the answer names the missing type in `_meta` (in the caller's language) and is not
/// cacheable, and the scrape counts the listing left out. Before, the whole listing was an error.
#[tokio::test]
async fn a_failed_listing_leaves_out_only_its_type_and_is_counted() {
    use runtime::backend::upstream::{Upstream, UpstreamConfig};
    let (api, _api_dir) = api_with_request_ids().await;
    // A front of the API failing one path: GET …/v1/bank_billets (banking_charge_bank_billet_list).
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let front = format!("http://{}", listener.local_addr().expect("addr"));
    let client = reqwest::Client::new();
    let app = axum::Router::new().fallback(
        move |method: axum::http::Method, uri: axum::http::Uri, headers: axum::http::HeaderMap| {
            let (client, api) = (client.clone(), api.clone());
            async move {
                use axum::response::IntoResponse;
                if uri.path().ends_with("/v1/bank_billets") {
                    return (
                        axum::http::StatusCode::SERVICE_UNAVAILABLE,
                        [("content-type", "application/json")],
                        r#"{"message":"bank billets are down"}"#.to_string(),
                    )
                        .into_response();
                }
                let mut req = client.request(
                    reqwest::Method::from_bytes(method.as_str().as_bytes()).expect("method"),
                    format!("{api}{uri}"),
                );
                if let Some(v) = headers.get("authorization") {
                    req = req.header("authorization", v.as_bytes());
                }
                let r = req.send().await.expect("the API answers");
                let status = axum::http::StatusCode::from_u16(r.status().as_u16()).expect("status");
                let body = r.text().await.expect("body");
                (status, [("content-type", "application/json")], body).into_response()
            }
        },
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    let upstream = Upstream::new(UpstreamConfig {
        base_url: Some(format!("{front}/{{product}}")),
        timeout: Duration::from_secs(10),
        max_attempts: 1,
        ..UpstreamConfig::default()
    })
    .expect("upstream");
    let telemetry = Telemetry::new(TelemetryConfig::default()).expect("telemetry");
    let s = start(Options {
        products: vec![banking()],
        backend: Some(Arc::new(upstream)),
        configure: Some(Box::new(move |c| c.telemetry = Some(telemetry))),
        ..Options::all_products()
    })
    .await;
    let listed = s
        .client("banking", "demo-full")
        .with_language("pt-BR")
        .request("resources/list", json!({}))
        .await;
    let r = listed.result();
    let uris: Vec<&str> = r["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .filter_map(|d| d["uri"].as_str())
        .collect();
    let template = "kobana://banking/charge/bank_billets/{uid}";
    assert!(
        !uris
            .iter()
            .any(|u| u.starts_with("kobana://banking/charge/bank_billets/")),
        "{uris:?}"
    );
    assert!(
        uris.iter()
            .any(|u| u.starts_with("kobana://banking/charge/pix/")),
        "the other types' records came: {uris:?}"
    );
    let incomplete = &r["_meta"]["br.com.kobana/incomplete"];
    assert_eq!(
        incomplete["missing"],
        json!([{"uriTemplate": template, "tool": "banking_charge_bank_billet_list",
                "reason": "the Kobana API answered HTTP 503"}]),
        "{r}"
    );
    let note = incomplete["note"].as_str().expect("a note");
    assert!(
        note.starts_with("Lista incompleta") && note.contains(template),
        "{note}"
    );
    assert!(
        r.get("ttlMs").is_none(),
        "an incomplete list is not cached: {r}"
    );

    let (_, scrape) = get(&format!("{}/metrics", s.base)).await;
    let left_out = value(
        &scrape,
        "kobana_resources_listings_left_out_total",
        &[
            ("kobana_product", "banking"),
            ("kobana_resource_template", template),
        ],
    );
    assert_eq!(left_out, 1.0, "{scrape}");
}

/// Issue 40: a fan-out listing is sent once, a tool call keeps the read retries. The API here
/// (a fake: every list answers an empty page) answers 503 for bank billets and counts how often
/// it was asked. Banking's `resources/list` asks for bank billets once, leaves them out and says
/// so; a `tools/call` of the same list tool is retried per `max_attempts` (3). Before, the
/// listing retried with backoff too (three asks, the whole answer waiting for them).
#[tokio::test]
async fn a_failing_listing_is_asked_once_while_a_tool_call_is_retried() {
    use runtime::backend::upstream::{Upstream, UpstreamConfig};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let api = format!("http://{}", listener.local_addr().expect("addr"));
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = asked.clone();
    let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
        let counted = counted.clone();
        async move {
            use axum::response::IntoResponse;
            let json = [("content-type", "application/json")];
            if uri.path().ends_with("/v1/bank_billets") {
                counted.fetch_add(1, Ordering::SeqCst);
                let down = r#"{"message":"bank billets are down"}"#;
                return (axum::http::StatusCode::SERVICE_UNAVAILABLE, json, down).into_response();
            }
            (axum::http::StatusCode::OK, json, "[]").into_response()
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    let upstream = Upstream::new(UpstreamConfig {
        base_url: Some(format!("{api}/{{product}}")),
        timeout: Duration::from_secs(10),
        max_attempts: 3,
        backoff: Duration::from_millis(1),
        ..UpstreamConfig::default()
    })
    .expect("upstream");
    let telemetry = Telemetry::new(TelemetryConfig::default()).expect("telemetry");
    let s = start(Options {
        products: vec![banking()],
        backend: Some(Arc::new(upstream)),
        configure: Some(Box::new(move |c| c.telemetry = Some(telemetry))),
        ..Options::all_products()
    })
    .await;
    let client = s.client("banking", "demo-full");
    let listed = client.request("resources/list", json!({})).await;
    let r = listed.result();
    let template = "kobana://banking/charge/bank_billets/{uid}";
    assert_eq!(
        r["_meta"]["br.com.kobana/incomplete"]["missing"],
        json!([{"uriTemplate": template, "tool": "banking_charge_bank_billet_list",
                "reason": "the Kobana API answered HTTP 503"}]),
        "{r}"
    );
    assert_eq!(
        asked.load(Ordering::SeqCst),
        1,
        "the listing asked for bank billets once, no retry"
    );
    let (_, scrape) = get(&format!("{}/metrics", s.base)).await;
    let left_out = value(
        &scrape,
        "kobana_resources_listings_left_out_total",
        &[
            ("kobana_product", "banking"),
            ("kobana_resource_template", template),
        ],
    );
    assert_eq!(left_out, 1.0, "{scrape}");

    let called = client
        .call_tool("banking_charge_bank_billet_list", json!({}), None, None)
        .await;
    assert_eq!(called.result()["isError"], json!(true), "{:?}", called.body);
    assert_eq!(
        asked.load(Ordering::SeqCst),
        1 + 3,
        "the tool call's read was retried per max_attempts"
    );
}

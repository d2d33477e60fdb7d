//! One log line per request (issue 5): method, name, duration and outcome, never argument values.
//!
//! Its own test binary with a single test, because it installs the process-wide tracing
//! subscriber: a scoped subscriber in the runtime's unit tests raced with the interest cache of
//! tests running beside it, and could miss lines.

#[path = "confirmation_harness/mod.rs"]
mod harness;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use runtime::rpc::Reply;
use runtime::telemetry::request_log::{logged, TARGET};
use runtime::telemetry::{AuditTarget, Telemetry, TelemetryConfig};
use serde_json::{json, Value};
use tracing_subscriber::layer::SubscriberExt as _;

type Line = BTreeMap<String, String>;

/// Captures the request lines (target `kobana_mcp::request`) as field maps.
#[derive(Clone, Default)]
struct RequestLines(Arc<Mutex<Vec<Line>>>);

impl RequestLines {
    fn snapshot(&self) -> Vec<Line> {
        self.0.lock().map(|v| v.clone()).unwrap_or_default()
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for RequestLines {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Fields<'a>(&'a mut Line);
        impl tracing::field::Visit for Fields<'_> {
            fn record_debug(&mut self, f: &tracing::field::Field, v: &dyn std::fmt::Debug) {
                self.0.insert(f.name().to_string(), format!("{v:?}"));
            }
            fn record_str(&mut self, f: &tracing::field::Field, v: &str) {
                self.0.insert(f.name().to_string(), v.to_string());
            }
        }
        if event.metadata().target() != TARGET {
            return;
        }
        let mut fields = Line::new();
        event.record(&mut Fields(&mut fields));
        if let Ok(mut lines) = self.0.lock() {
            lines.push(fields);
        }
    }
}

#[tokio::test]
async fn every_request_logs_one_line_with_method_name_duration_and_outcome() {
    let lines = RequestLines::default();
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(lines.clone()))
        .expect("the only subscriber of this test binary");

    let billing = generated::product("billing").expect("billing is generated");
    let s = harness::start(harness::Options {
        products: vec![billing],
        ..harness::Options::all_products()
    })
    .await;
    let secret = "12345678901";
    let modern = s.client("billing", "demo-full");
    let legacy = s.client("billing", "demo-full").legacy("2025-11-25");
    let reader = s.client("billing", "demo-readonly").legacy("2025-11-25");

    // (client, method, params, logged name, outcome, code)
    let cases: Vec<(&harness::Client, &str, Value, &str, &str, &str)> = vec![
        (&legacy, "tools/list", json!({}), "", "ok", ""),
        (
            &modern,
            "tools/call",
            json!({"name": "billing_customers_get", "arguments": {"id": secret}}),
            "billing_customers_get",
            "is_error",
            "not_found",
        ),
        (
            &reader,
            "tools/call",
            json!({"name": "billing_customers_create",
                   "arguments": {"name": "A", "document": secret, "email": "a@x.com"}}),
            "billing_customers_create",
            "is_error",
            "insufficient_scope",
        ),
        (
            &modern,
            "tools/call",
            // A record that does not exist is answered at once, without a question (issue 35).
            json!({"name": "billing_customers_delete", "arguments": {"id": secret}}),
            "billing_customers_delete",
            "is_error",
            "not_found",
        ),
        (
            &modern,
            "tools/call",
            json!({"name": "no_such_tool", "arguments": {"id": secret}}),
            "no_such_tool",
            "error",
            "-32602",
        ),
        (
            &legacy,
            "resources/read",
            json!({"uri": "kobana://billing/schemas"}),
            "kobana://billing/schemas",
            "ok",
            "",
        ),
        (&modern, "nope/nope", json!({}), "", "error", "-32601"),
    ];
    for (i, (client, method, params, name, outcome, code)) in cases.iter().enumerate() {
        let _ = client.request(method, params.clone()).await;
        let got = lines.snapshot();
        assert_eq!(got.len(), i + 1, "one line per request: {got:?}");
        let line = &got[i];
        assert_eq!(line["method"], *method, "{line:?}");
        assert_eq!(line["name"], *name, "{line:?}");
        assert_eq!(line["outcome"], *outcome, "{line:?}");
        assert_eq!(line["code"], *code, "{line:?}");
        assert!(line["duration_us"].parse::<u64>().is_ok(), "{line:?}");
        assert_eq!(line["client_ip"], "127.0.0.1", "{line:?}");
        assert!(
            line.values().all(|v| !v.contains(secret)),
            "argument values are never logged: {line:?}"
        );
    }

    // A request the transport gives up on (time limit, closed connection) is still logged, once.
    let params = json!({"name": "billing_customers_get"});
    let params =
        runtime::rpc::params::Params::from(params.as_object().cloned().unwrap_or_default());
    let stuck = logged("tools/call", &params, None, std::future::pending::<Reply>());
    let timed_out = tokio::time::timeout(std::time::Duration::from_millis(5), stuck).await;
    assert!(timed_out.is_err());
    let got = lines.snapshot();
    assert_eq!(got.len(), cases.len() + 1, "{got:?}");
    assert_eq!(got[cases.len()]["outcome"], "cancelled");
    assert_eq!(got[cases.len()]["name"], "billing_customers_get");

    // Requests answered outside the engine get their line too: a refused one (401: no token;
    // the body was not read, so no method) with the client address, and a 2025 `initialize`.
    let anonymous = s.client("billing", "demo-full").without_token();
    let _ = anonymous.request("tools/list", json!({})).await;
    let got = lines.snapshot();
    assert_eq!(got.len(), cases.len() + 2, "{got:?}");
    let refused = &got[cases.len() + 1];
    assert_eq!(refused["outcome"], "refused", "{refused:?}");
    assert_eq!(refused["code"], "401", "{refused:?}");
    assert_eq!(refused["client_ip"], "127.0.0.1", "{refused:?}");
    let _ = legacy
        .request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}),
        )
        .await;
    let got = lines.snapshot();
    assert_eq!(got.len(), cases.len() + 3, "{got:?}");
    let init = &got[cases.len() + 2];
    assert_eq!(init["method"], "initialize", "{init:?}");
    assert_eq!(init["outcome"], "ok", "{init:?}");
    assert_eq!(init["client_ip"], "127.0.0.1", "{init:?}");
    assert!(init["duration_us"].parse::<u64>().is_ok(), "{init:?}");

    // Refused by the transport before any engine saw them, each with its line, status and client
    // address: a foreign Origin (403, the DNS-rebinding guard), a body over the limit (413), a
    // body that is not JSON-RPC (400).
    let http = reqwest::Client::new();
    let post = |body: Vec<u8>| {
        http.post(&legacy.url)
            .bearer_auth("demo-full")
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-06-18")
            .body(body)
    };
    let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_vec();
    let refusals = [
        (post(list).header("Origin", "http://evil.example"), 403),
        (post(vec![b' '; 5 * 1024 * 1024]), 413),
        (post(b"{not json".to_vec()), 400),
    ];
    for (i, (req, status)) in refusals.into_iter().enumerate() {
        let resp = req.send().await.expect("request");
        assert_eq!(resp.status().as_u16(), status);
        let got = lines.snapshot();
        assert_eq!(got.len(), cases.len() + 4 + i, "{status}: {got:?}");
        let line = &got[cases.len() + 3 + i];
        assert_eq!(line["outcome"], "refused", "{line:?}");
        assert_eq!(line["code"], status.to_string(), "{line:?}");
        assert_eq!(line["client_ip"], "127.0.0.1", "{line:?}");
    }

    // What a caller sends is cut in its line (issue 37): a method name, a tool name of a megabyte.
    let huge = "B".repeat(1 << 20);
    let sent = [
        (format!("z/{huge}"), json!({})),
        (
            "tools/call".to_string(),
            json!({"name": huge, "arguments": {}}),
        ),
    ];
    for (method, params) in sent {
        let before = lines.snapshot().len();
        let _ = legacy.request(&method, params).await;
        let got = lines.snapshot();
        assert_eq!(got.len(), before + 1, "one line");
        let line = &got[before];
        assert!(line["method"].len() <= 100, "{}", line["method"].len());
        assert!(line["name"].len() <= 300, "{}", line["name"].len());
        assert!(
            line["method"].contains("[cut: ") || method == "tools/call",
            "{line:?}"
        );
        assert!(
            line["name"].contains("[cut: ") || method != "tools/call",
            "{line:?}"
        );
    }
    // Simultaneous requests keep their own context: each line has its own request's client
    // address (trusted proxy headers) beside its own tool and error code, and each audit record
    // its own person and error code. (The address, the code and the facts travel with the
    // request as values; this held with the task-locals they replaced too.)
    let dir = tempfile::tempdir().expect("temp dir");
    let audit = dir.path().join("audit.jsonl");
    let telemetry = Telemetry::new(TelemetryConfig {
        audit: Some(AuditTarget::File {
            path: audit.clone(),
            max_bytes: 10 * 1024 * 1024,
            keep: 2,
        }),
        ..TelemetryConfig::default()
    })
    .expect("telemetry");
    let proxied = harness::start(harness::Options {
        products: vec![billing],
        configure: Some(Box::new(move |c| {
            c.trust_proxy_headers = true;
            c.telemetry = Some(telemetry);
        })),
        ..harness::Options::all_products()
    })
    .await;
    let from = |token: &str, ip: String| {
        let mut c = proxied.client("billing", token);
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("x-forwarded-for", ip.parse().expect("header value"));
        c.http = reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .expect("client");
        c
    };
    const PAIRS: usize = 8;
    let before = lines.snapshot().len();
    let mut running = tokio::task::JoinSet::new();
    for i in 1..=PAIRS {
        // A delete of a record that does not exist (`not_found`), and a create by a caller
        // without the scope (`insufficient_scope`): both writes, so both audited.
        let deleter = from("demo-full", format!("203.0.113.{i}"));
        let creator = from("demo-readonly", format!("198.51.100.{i}"));
        running.spawn(async move {
            deleter
                .request(
                    "tools/call",
                    json!({"name": "billing_customers_delete", "arguments": {"id": format!("cus_none_{i}")}}),
                )
                .await
        });
        running.spawn(async move {
            creator
                .request(
                    "tools/call",
                    json!({"name": "billing_customers_create",
                           "arguments": {"name": "A", "document": "39053344705", "email": "a@x.com"}}),
                )
                .await
        });
    }
    while let Some(answer) = running.join_next().await {
        assert!(answer.expect("request task").tool_error_code().is_some());
    }
    let got = lines.snapshot();
    let mut seen = std::collections::BTreeSet::new();
    for line in &got[before..] {
        let ip = &line["client_ip"];
        let (name, code) = if ip.starts_with("203.0.113.") {
            ("billing_customers_delete", "not_found")
        } else if ip.starts_with("198.51.100.") {
            ("billing_customers_create", "insufficient_scope")
        } else {
            panic!("a line with another request's address, or none: {line:?}")
        };
        assert_eq!(line["name"], name, "{line:?}");
        assert_eq!(line["outcome"], "is_error", "{line:?}");
        assert_eq!(line["code"], code, "{line:?}");
        assert!(seen.insert(ip.clone()), "two lines for {ip}: {got:?}");
    }
    assert_eq!(seen.len(), 2 * PAIRS, "one line per request: {got:?}");
    let text = std::fs::read_to_string(&audit).expect("the audit file");
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("an audit record is JSON"))
        .collect();
    assert_eq!(records.len(), 2 * PAIRS, "{text}");
    let mut people = BTreeMap::new();
    for r in &records {
        let code = match r["tool"].as_str() {
            Some("billing_customers_delete") => "not_found",
            Some("billing_customers_create") => "insufficient_scope",
            _ => panic!("{r}"),
        };
        assert_eq!(r["error_code"], code, "{r}");
        assert_eq!(r["outcome"], "tool_error", "{r}");
        people
            .entry(r["tool"].to_string())
            .or_insert_with(std::collections::BTreeSet::new)
            .insert(r["person"].to_string());
    }
    let people: Vec<_> = people.values().collect();
    assert_eq!(people.len(), 2, "{text}");
    assert!(
        people.iter().all(|p| p.len() == 1) && people[0] != people[1],
        "each tool's records have their own caller: {people:?}"
    );
}

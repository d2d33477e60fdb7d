//! The transports of the runtime, driven over real sockets and pipes with the conformance fixture:
//! era selection per request, the 2026 header and `_meta` checks with their HTTP statuses, 2025
//! sessions (issue, use, delete → 404), Origin/Host protection, body limits, SSE for progress,
//! batches on 2025-03-26 only, stdio framing and clean exit on EOF.

use std::sync::Arc;
use std::time::Duration;

use runtime::server::{unrestricted_identity, Server};
use serde_json::{json, Value};

fn server(max_body: usize) -> Arc<Server> {
    let mut cfg = runtime_fixtures::config(unrestricted_identity("t"));
    cfg.max_body_bytes = max_body;
    Server::new(cfg).unwrap()
}

struct Running {
    url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn start(max_body: usize) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://127.0.0.1:{}/mcp",
        listener.local_addr().unwrap().port()
    );
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(runtime::transport::http::serve_listener(
        server(max_body),
        listener,
        async {
            let _ = stopped.await;
        },
    ));
    Running {
        url,
        stop: Some(stop),
        task,
    }
}

fn meta(caps: Value) -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": caps})
}

async fn post(
    url: &str,
    headers: &[(&str, &str)],
    body: Value,
) -> (u16, reqwest::header::HeaderMap, String) {
    let client = reqwest::Client::new();
    let mut req = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req.body(body.to_string()).send().await.unwrap();
    let status = resp.status().as_u16();
    let h = resp.headers().clone();
    (status, h, resp.text().await.unwrap())
}

fn json_of(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

#[tokio::test]
async fn modern_requests_are_checked_before_they_are_served() {
    let s = start(1 << 20).await;
    let h = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    let (st, _, body) = post(&s.url, &h, json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta(json!({}))}})).await;
    assert_eq!(st, 200);
    let v = json_of(&body);
    assert_eq!(v["result"]["resultType"], "complete");
    // Sorted by name (the Tasks fixtures sort first).
    assert_eq!(v["result"]["tools"][0]["name"], "confirm_delete");

    // Missing _meta field → -32602 / 400, with the id echoed.
    let (st, _, body) = post(
        &s.url,
        &h,
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}),
    )
    .await;
    assert_eq!(
        (
            st,
            json_of(&body)["error"]["code"].as_i64(),
            json_of(&body)["id"].as_i64()
        ),
        (400, Some(-32602), Some(7))
    );
    // Header and _meta disagree → -32020; both unsupported → -32022 listing what is served.
    let mut m = meta(json!({}));
    m["io.modelcontextprotocol/protocolVersion"] = json!("v9");
    let (st, _, body) = post(
        &s.url,
        &h,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": m}}),
    )
    .await;
    assert_eq!(
        (st, json_of(&body)["error"]["code"].as_i64()),
        (400, Some(-32020))
    );
    let h9 = [("mcp-protocol-version", "v9"), ("mcp-method", "tools/list")];
    let (st, _, body) = post(
        &s.url,
        &h9,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": m}}),
    )
    .await;
    let v = json_of(&body);
    assert_eq!((st, v["error"]["code"].as_i64()), (400, Some(-32022)));
    assert_eq!(v["error"]["data"]["requested"], "v9");
    // Mcp-Method must match; Mcp-Name is checked (base64 form decoded).
    let bad = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "prompts/list"),
    ];
    let (st, _, body) = post(&s.url, &bad, json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": meta(json!({}))}})).await;
    assert_eq!(
        (st, json_of(&body)["error"]["code"].as_i64()),
        (400, Some(-32020))
    );
    let call = |name_header: &'static str| {
        let url = s.url.clone();
        async move {
            let h = [
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", name_header),
            ];
            post(
                &url,
                &h,
                json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                "params": {"_meta": meta(json!({})), "name": "test_simple_text"}}),
            )
            .await
        }
    };
    assert_eq!(call("test_simple_text").await.0, 200);
    assert_eq!(call("=?base64?dGVzdF9zaW1wbGVfdGV4dA==?=").await.0, 200);
    assert_eq!(call("test_other").await.0, 400);
    // Removed methods → 404 + -32601; a capability the request lacks → 400 + -32021.
    let hp = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "ping"),
    ];
    let (st, _, body) = post(
        &s.url,
        &hp,
        json!({"jsonrpc": "2.0", "id": 6, "method": "ping", "params": {"_meta": meta(json!({}))}}),
    )
    .await;
    assert_eq!(
        (st, json_of(&body)["error"]["code"].as_i64()),
        (404, Some(-32601))
    );
    let hm = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "test_missing_capability"),
    ];
    let (st, _, body) = post(
        &s.url,
        &hm,
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"_meta": meta(json!({})), "name": "test_missing_capability"}}),
    )
    .await;
    assert_eq!(
        (st, json_of(&body)["error"]["code"].as_i64()),
        (400, Some(-32021))
    );
    // Progress makes the answer a stream: notifications first, then the response.
    let hprog = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "test_tool_with_progress"),
    ];
    let mut m = meta(json!({}));
    m["progressToken"] = json!("p1");
    let (st, headers, body) = post(
        &s.url,
        &hprog,
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"_meta": m, "name": "test_tool_with_progress"}}),
    )
    .await;
    assert_eq!(st, 200);
    assert_eq!(headers["content-type"], "text/event-stream");
    let events: Vec<Value> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(json_of)
        .collect();
    assert_eq!(events.len(), 4, "{body}");
    assert!(events[..3]
        .iter()
        .all(|e| e["method"] == "notifications/progress" && e["params"]["progressToken"] == "p1"));
    assert_eq!(events[3]["id"], 9);
    drop(s.stop);
    s.task.await.unwrap().unwrap();
}

#[tokio::test]
async fn legacy_sessions_are_issued_used_and_ended() {
    let s = start(1 << 20).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (st, headers, body) = post(&s.url, &[], init).await;
    assert_eq!(st, 200);
    assert_eq!(json_of(&body)["result"]["protocolVersion"], "2025-06-18");
    assert!(json_of(&body)["result"].get("resultType").is_none());
    let sid = headers["mcp-session-id"].to_str().unwrap().to_string();
    assert!(sid.bytes().all(|b| (0x21..=0x7e).contains(&b)) && sid.len() >= 32);
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let (st, _, _) = post(
        &s.url,
        &h,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(st, 202);
    let (st, _, body) = post(
        &s.url,
        &h,
        json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
    )
    .await;
    assert_eq!((st, json_of(&body)["result"].clone()), (200, json!({})));
    // A resource that does not exist: -32002 on this wire.
    let (_, _, body) = post(&s.url, &h, json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": "test://nope"}})).await;
    assert_eq!(json_of(&body)["error"]["code"], -32002);
    let client = reqwest::Client::new();
    let del = client
        .delete(&s.url)
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(del.status().as_u16(), 200);
    let (st, _, _) = post(
        &s.url,
        &h,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
    )
    .await;
    assert_eq!(st, 404);
    // GET without a session: 405.
    assert_eq!(
        client.get(&s.url).send().await.unwrap().status().as_u16(),
        405
    );
    // Batches: 2025-03-26 only.
    let batch = json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]);
    let (st, _, body) = post(&s.url, &[], batch.clone()).await;
    assert_eq!(st, 200);
    assert_eq!(json_of(&body).as_array().unwrap().len(), 2);
    let (st, _, _) = post(&s.url, &[("mcp-protocol-version", "2025-11-25")], batch).await;
    assert_eq!(st, 400);
    drop(s.stop);
    s.task.await.unwrap().unwrap();
}

#[tokio::test]
async fn foreign_origins_hosts_and_oversized_bodies_are_refused() {
    let s = start(256).await;
    let ok = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let (st, _, _) = post(&s.url, &[("origin", "http://localhost:5173")], ok.clone()).await;
    assert_eq!(st, 200);
    let (st, _, body) = post(&s.url, &[("origin", "http://evil.example.com")], ok.clone()).await;
    assert_eq!(st, 403);
    assert!(body.contains("evil.example.com"));
    let (st, _, _) = post(&s.url, &[("host", "evil.example.com")], ok.clone()).await;
    assert_eq!(st, 403);
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"pad": "x".repeat(1000)}});
    let (st, _, body) = post(&s.url, &[], big).await;
    assert_eq!(st, 413);
    assert!(json_of(&body)["error"]["message"]
        .as_str()
        .unwrap()
        .contains("256"));
    let (st, _, body) = post(&s.url, &[], json!("not an object")).await;
    assert_eq!(
        (st, json_of(&body)["error"]["code"].as_i64()),
        (400, Some(-32600))
    );
    drop(s.stop);
    s.task.await.unwrap().unwrap();
}

#[tokio::test]
async fn graceful_shutdown_finishes_requests_in_flight() {
    let s = start(1 << 20).await;
    let url = s.url.clone();
    let slow = tokio::spawn(async move {
        // The progress tool takes ~150 ms.
        let h = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "test_tool_with_progress"),
        ];
        post(
            &url,
            &h,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"_meta": meta(json!({})), "name": "test_tool_with_progress"}}),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(40)).await;
    drop(s.stop);
    let (st, _, body) = slow.await.unwrap();
    assert_eq!(st, 200);
    assert_eq!(
        json_of(&body)["result"]["content"][0]["text"],
        "Progress test completed"
    );
    s.task.await.unwrap().unwrap();
}

#[tokio::test]
async fn stdio_serves_both_eras_and_exits_on_eof() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (mut client_w, server_r) = tokio::io::duplex(1 << 16);
    let (server_w, client_r) = tokio::io::duplex(1 << 20);
    let task = tokio::spawn(runtime::transport::stdio::run_io(
        server(1 << 20),
        "conformance",
        server_r,
        server_w,
    ));
    let mut lines = BufReader::new(client_r).lines();
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta(json!({}))}});
    client_w
        .write_all(format!("{discover}\n").as_bytes())
        .await
        .unwrap();
    let v = json_of(&lines.next_line().await.unwrap().unwrap());
    assert_eq!(v["result"]["supportedVersions"][0], "2026-07-28");
    client_w.write_all(b"{broken\n").await.unwrap();
    let v = json_of(&lines.next_line().await.unwrap().unwrap());
    assert_eq!(v["error"]["code"], -32700);
    let init = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}}});
    client_w
        .write_all(format!("{init}\n").as_bytes())
        .await
        .unwrap();
    assert_eq!(
        json_of(&lines.next_line().await.unwrap().unwrap())["result"]["protocolVersion"],
        "2025-11-25"
    );
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "prompts/list"});
    client_w
        .write_all(format!("{list}\n").as_bytes())
        .await
        .unwrap();
    let v = json_of(&lines.next_line().await.unwrap().unwrap());
    assert!(v["result"]["prompts"].as_array().unwrap().len() >= 4);
    drop(client_w);
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("exits on EOF")
        .unwrap()
        .unwrap();
}

/// JSON Schema 2020-12 in an input schema (`json_schema_2020_12_tool`): listed verbatim, and
/// enforced on calls ($ref into $defs, allOf/anyOf, if/then/else, additionalProperties).
#[tokio::test]
async fn json_schema_2020_12_is_listed_verbatim_and_enforced() {
    let s = start(1 << 20).await;
    let list = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];
    let (_, _, body) = post(&s.url, &list, json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta(json!({}))}})).await;
    let tools = json_of(&body)["result"]["tools"].clone();
    let tool = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "json_schema_2020_12_tool")
        .expect("listed")
        .clone();
    let schema = &tool["inputSchema"];
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["$defs"]["address"]["$anchor"], "addressDef");
    assert_eq!(schema["properties"]["address"]["$ref"], "#/$defs/address");
    assert!(schema["allOf"][0]["anyOf"].is_array() && schema["if"].is_object());
    assert_eq!(schema["additionalProperties"], false);
    let call = |args: Value| {
        let url = s.url.clone();
        async move {
            let h = [
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "json_schema_2020_12_tool"),
            ];
            let (_, _, body) = post(&url, &h, json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "json_schema_2020_12_tool", "arguments": args, "_meta": meta(json!({}))}})).await;
            json_of(&body)["result"].clone()
        }
    };
    let ok = call(
        json!({"name": "Ana", "contactMethod": "email", "email": "a@b.c",
        "address": {"street": "Rua A", "city": "Recife"}}),
    )
    .await;
    assert_eq!(ok["isError"], Value::Null, "{ok}");
    // `then`: phone contact without a phone; `$ref`: an address without a city; an unknown key.
    for bad in [
        json!({"contactMethod": "phone", "email": "a@b.c"}),
        json!({"email": "a@b.c", "address": {"street": "Rua A"}}),
        json!({"email": "a@b.c", "nickname": "x"}),
        json!({"name": "no contact at all"}),
    ] {
        let r = call(bad.clone()).await;
        assert_eq!(r["isError"], true, "{bad} should be refused: {r}");
        assert!(
            r["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("invalid_arguments"),
            "{r}"
        );
    }
}

//! One corpus of requests sent over stdio and over HTTP to the same server, with the answers
//! compared: a request takes the same path through the connection layer whichever transport
//! brought it.
//!
//! Both eras are covered (2026-07-28 stateless requests before and during a 2025 session, the 2025
//! handshake and session requests, sessionless 2025 requests), with notifications sent before an
//! answer (progress and log lines on stdio, SSE events on HTTP), and the errors: parse error,
//! invalid request, unknown method, invalid params, unknown tool, bad `_meta`, unsupported
//! version, batches (accepted on 2025-03-26, refused on 2025-06-18).
//!
//! What legitimately differs is left out of the comparison: the HTTP status and headers (the
//! session id travels in `Mcp-Session-Id`), and the sealed `requestState` (random per answer).
//! Each transport's messages are otherwise compared byte for byte as JSON values.

use std::sync::Arc;
use std::time::Duration;

use runtime::server::{unrestricted_identity, Server};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

fn server() -> Arc<Server> {
    let cfg = runtime_fixtures::config(unrestricted_identity("t"));
    Server::new(cfg).unwrap()
}

/// One message of the corpus.
enum Body {
    Json(Value),
    /// Bytes that are not a JSON-RPC message (sent as they are).
    Raw(&'static str),
}

fn meta(extra: Value) -> Value {
    let mut m = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                       "io.modelcontextprotocol/clientCapabilities": {}});
    if let (Value::Object(m), Value::Object(e)) = (&mut m, extra) {
        m.extend(e);
    }
    m
}

fn modern(id: u64, method: &str, mut params: Value) -> Body {
    let extra = params
        .get_mut("_meta")
        .map(Value::take)
        .unwrap_or(json!({}));
    params["_meta"] = meta(extra);
    Body::Json(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
}

fn legacy(id: u64, method: &str, params: Value) -> Body {
    Body::Json(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
}

/// Requests before any `initialize`.
fn before_session() -> Vec<(&'static str, Body)> {
    vec![
        ("2026 discover", modern(1, "server/discover", json!({}))),
        ("2026 tools/list", modern(2, "tools/list", json!({}))),
        (
            "2026 call",
            modern(3, "tools/call", json!({"name": "test_simple_text"})),
        ),
        (
            "2026 unknown tool",
            modern(4, "tools/call", json!({"name": "no_such_tool"})),
        ),
        (
            "2026 tool error result",
            modern(5, "tools/call", json!({"name": "test_error_handling"})),
        ),
        ("2026 unknown method", modern(6, "foo/bar", json!({}))),
        (
            "2026 invalid params",
            modern(
                7,
                "prompts/get",
                json!({"name": "test_prompt_with_arguments"}),
            ),
        ),
        (
            "2026 bad _meta",
            Body::Json(
                json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
            ),
        ),
        (
            "2026 bad log level",
            modern(
                9,
                "tools/list",
                json!({"_meta": {"io.modelcontextprotocol/logLevel": "loud"}}),
            ),
        ),
        (
            "2026 unsupported version",
            Body::Json(
                json!({"jsonrpc": "2.0", "id": 10, "method": "tools/list", "params": {
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01",
                          "io.modelcontextprotocol/clientCapabilities": {}}}}),
            ),
        ),
        (
            "2026 progress",
            modern(
                11,
                "tools/call",
                json!({"name": "test_tool_with_progress", "_meta": {"progressToken": "p11"}}),
            ),
        ),
        (
            "2026 logs",
            modern(
                12,
                "tools/call",
                json!({"name": "test_tool_with_logging",
                       "_meta": {"io.modelcontextprotocol/logLevel": "info"}}),
            ),
        ),
        (
            "2026 input required",
            modern(
                13,
                "tools/call",
                json!({"name": "test_input_required_result_elicitation",
                       "_meta": {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}}),
            ),
        ),
        (
            "2026 initialize is a removed method",
            modern(14, "initialize", json!({})),
        ),
        ("parse error", Body::Raw("{broken")),
        (
            "invalid request",
            Body::Raw(r#"{"jsonrpc":"1.0","id":15,"method":"ping"}"#),
        ),
        (
            "params not an object",
            Body::Raw(r#"{"jsonrpc":"2.0","id":16,"method":"ping","params":[1]}"#),
        ),
        // No session and no stated version: 2025-03-26 on both transports.
        ("2025 sessionless ping", legacy(17, "ping", json!({}))),
        (
            "2025 sessionless tools/list",
            legacy(18, "tools/list", json!({})),
        ),
        (
            "2025 sessionless progress",
            legacy(
                19,
                "tools/call",
                json!({"name": "test_tool_with_progress", "_meta": {"progressToken": 19}}),
            ),
        ),
        (
            "2025 sessionless batch (2025-03-26 accepts it)",
            Body::Raw(
                r#"[{"jsonrpc":"2.0","id":20,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":21,"method":"foo/bar"},{"jsonrpc":"1.0","id":22,"method":"ping"},{"jsonrpc":"2.0","id":23,"method":"prompts/get","params":{"name":"test_simple_prompt"}}]"#,
            ),
        ),
        ("empty batch", Body::Raw("[]")),
        ("broken batch", Body::Raw("[{")),
    ]
}

/// The handshake, then requests of the session it opens (2025-06-18).
fn in_session() -> Vec<(&'static str, Body)> {
    vec![
        (
            "2025 initialize",
            legacy(
                30,
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "corpus", "version": "1"}}),
            ),
        ),
        ("2025 ping", legacy(31, "ping", json!({}))),
        ("2025 tools/list", legacy(32, "tools/list", json!({}))),
        (
            "2025 call",
            legacy(33, "tools/call", json!({"name": "test_simple_text"})),
        ),
        (
            "2025 unknown tool",
            legacy(34, "tools/call", json!({"name": "no_such_tool"})),
        ),
        ("2025 unknown method", legacy(35, "foo/bar", json!({}))),
        (
            "2025 invalid params",
            legacy(36, "logging/setLevel", json!({"level": "loud"})),
        ),
        (
            "2025 resource not found",
            legacy(37, "resources/read", json!({"uri": "test://nothing-here"})),
        ),
        (
            "2025 prompt",
            legacy(
                38,
                "prompts/get",
                json!({"name": "test_prompt_with_arguments",
                       "arguments": {"arg1": "a", "arg2": "b"}}),
            ),
        ),
        (
            "2025 set level",
            legacy(39, "logging/setLevel", json!({"level": "info"})),
        ),
        (
            "2025 logs at the session's level",
            legacy(40, "tools/call", json!({"name": "test_tool_with_logging"})),
        ),
        (
            "2025 batch refused on 2025-06-18",
            Body::Raw(r#"[{"jsonrpc":"2.0","id":41,"method":"ping"}]"#),
        ),
        // A 2026 request is served statelessly even when it names a session.
        (
            "2026 request during a session",
            modern(42, "tools/call", json!({"name": "test_simple_text"})),
        ),
        ("2026 ping is not a method", modern(43, "ping", json!({}))),
        ("2025 parse error in session", Body::Raw("{broken")),
    ]
}

// ---------------------------------------------------------------------------------------------
// HTTP side

struct Http {
    url: String,
    client: reqwest::Client,
    /// `(Mcp-Session-Id, negotiated version)` once `initialize` answered.
    session: Option<(String, String)>,
}

impl Http {
    async fn send(&mut self, body: &Body) -> Vec<Value> {
        let mut req = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        let stated_2026 = match body {
            Body::Json(v) => {
                v["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str()
            }
            Body::Raw(_) => None,
        };
        if let Some((id, version)) = &self.session {
            // A session's requests carry its id, and its version unless they state 2026's.
            req = req.header("mcp-session-id", id);
            if stated_2026.is_none() {
                req = req.header("mcp-protocol-version", version);
            }
        }
        let text = match body {
            Body::Raw(t) => t.to_string(),
            Body::Json(v) => {
                let p = &v["params"];
                if let Some(version) = stated_2026 {
                    // The 2026 headers repeat the body.
                    let method = v["method"].as_str().unwrap();
                    req = req
                        .header("mcp-protocol-version", version)
                        .header("mcp-method", method);
                    if let Some(name) = p["name"].as_str().or(p["uri"].as_str()) {
                        req = req.header("mcp-name", name);
                    }
                }
                v.to_string()
            }
        };
        let resp = req.body(text).send().await.unwrap();
        let status = resp.status().as_u16();
        let session = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let sse = resp
            .headers()
            .get("content-type")
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let text = resp.text().await.unwrap();
        let messages: Vec<Value> = if text.is_empty() {
            Vec::new()
        } else if sse {
            text.lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .map(|d| serde_json::from_str(d).unwrap())
                .collect()
        } else {
            vec![serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("HTTP {status}: not JSON ({e}): {text}"))]
        };
        if let Some(id) = session {
            let version = messages[0]["result"]["protocolVersion"]
                .as_str()
                .unwrap()
                .to_string();
            self.session = Some((id, version));
        }
        messages
    }
}

// ---------------------------------------------------------------------------------------------
// stdio side

struct Stdio {
    w: DuplexStream,
    lines: Lines<BufReader<DuplexStream>>,
}

impl Stdio {
    /// Sends one line and reads until its answer (the notifications before it included).
    async fn send(&mut self, body: &Body) -> Vec<Value> {
        let line = match body {
            Body::Raw(t) => t.to_string(),
            Body::Json(v) => v.to_string(),
        };
        self.w
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        let mut out = Vec::new();
        loop {
            let next = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
                .await
                .expect("an answer within 10 s")
                .unwrap()
                .expect("the server is still running");
            let v: Value = serde_json::from_str(&next).unwrap();
            let is_answer = v.is_array() || v.get("result").is_some() || v.get("error").is_some();
            out.push(v);
            if is_answer {
                return out;
            }
        }
    }
}

/// The sealed `requestState` is random per answer; everything else must match.
fn normalized(mut messages: Vec<Value>) -> Vec<Value> {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(m) => {
                if let Some(s) = m.get_mut("requestState") {
                    *s = json!("<sealed>");
                }
                m.values_mut().for_each(walk);
            }
            Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    messages.iter_mut().for_each(walk);
    messages
}

#[tokio::test]
async fn stdio_and_http_answer_the_same_corpus_alike() {
    let server = server();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://127.0.0.1:{}/mcp",
        listener.local_addr().unwrap().port()
    );
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let http_task = tokio::spawn(runtime::transport::http::serve_listener(
        server.clone(),
        listener,
        async {
            let _ = stopped.await;
        },
    ));
    let (client_w, server_r) = tokio::io::duplex(1 << 16);
    let (server_w, client_r) = tokio::io::duplex(1 << 20);
    let stdio_task = tokio::spawn(runtime::transport::stdio::run_io(
        server,
        "conformance",
        server_r,
        server_w,
    ));
    let mut http = Http {
        url,
        client: reqwest::Client::new(),
        session: None,
    };
    let mut stdio = Stdio {
        w: client_w,
        lines: BufReader::new(client_r).lines(),
    };

    let mut differences = Vec::new();
    let mut compared = 0;
    for (name, body) in before_session().iter().chain(in_session().iter()) {
        let over_http = normalized(http.send(body).await);
        let over_stdio = normalized(stdio.send(body).await);
        assert!(!over_http.is_empty(), "{name}: no answer over HTTP");
        if over_http != over_stdio {
            differences.push(format!(
                "{name}:\n  http:  {}\n  stdio: {}",
                Value::from(over_http),
                Value::from(over_stdio)
            ));
        }
        compared += 1;
    }
    assert!(
        differences.is_empty(),
        "{} of {compared} answers differ between the transports:\n{}",
        differences.len(),
        differences.join("\n")
    );
    assert!(
        http.session.is_some(),
        "the HTTP handshake opened a session"
    );

    drop(stdio);
    let _ = stop.send(());
    tokio::time::timeout(Duration::from_secs(5), stdio_task)
        .await
        .expect("stdio exits on EOF")
        .unwrap()
        .unwrap();
    http_task.await.unwrap().unwrap();
}

/// The corpus is not trivially equal: it holds every kind of answer it claims to, so a transport
/// that answered everything with the same error would not pass the comparison above unnoticed.
#[tokio::test]
async fn the_corpus_covers_both_eras_and_the_errors() {
    let server = server();
    let (client_w, server_r) = tokio::io::duplex(1 << 16);
    let (server_w, client_r) = tokio::io::duplex(1 << 20);
    let task = tokio::spawn(runtime::transport::stdio::run_io(
        server,
        "conformance",
        server_r,
        server_w,
    ));
    let mut stdio = Stdio {
        w: client_w,
        lines: BufReader::new(client_r).lines(),
    };
    let mut answers = std::collections::BTreeMap::new();
    for (name, body) in before_session().into_iter().chain(in_session()) {
        answers.insert(name, stdio.send(&body).await);
    }
    let last = |name: &str| answers[name].last().cloned().unwrap();
    let code = |name: &str| last(name)["error"]["code"].as_i64();
    assert_eq!(
        last("2026 discover")["result"]["supportedVersions"][0],
        "2026-07-28"
    );
    assert_eq!(last("2026 call")["result"]["resultType"], "complete");
    assert_eq!(code("2026 unknown tool"), Some(-32602));
    assert_eq!(last("2026 tool error result")["result"]["isError"], true);
    assert_eq!(code("2026 unknown method"), Some(-32601));
    assert_eq!(code("2026 invalid params"), Some(-32602));
    assert_eq!(code("2026 bad _meta"), Some(-32602));
    assert_eq!(code("2026 unsupported version"), Some(-32022));
    assert_eq!(
        answers["2026 progress"].len(),
        4,
        "three progress notifications, then the answer"
    );
    assert_eq!(answers["2026 logs"][0]["method"], "notifications/message");
    assert_eq!(
        last("2026 input required")["result"]["resultType"],
        "input_required"
    );
    assert_eq!(code("2026 initialize is a removed method"), Some(-32601));
    assert_eq!(code("parse error"), Some(-32700));
    assert_eq!(code("invalid request"), Some(-32600));
    assert_eq!(code("params not an object"), Some(-32602));
    assert_eq!(last("2025 sessionless ping")["result"], json!({}));
    assert!(last("2025 sessionless tools/list")["result"]
        .get("resultType")
        .is_none());
    assert_eq!(answers["2025 sessionless progress"].len(), 4);
    let batch = last("2025 sessionless batch (2025-03-26 accepts it)");
    let ids: Vec<&Value> = batch.as_array().unwrap().iter().map(|m| &m["id"]).collect();
    assert_eq!(ids, [&json!(20), &json!(21), &json!(22), &json!(23)]);
    assert_eq!(batch[1]["error"]["code"], -32601);
    assert_eq!(batch[2]["error"]["code"], -32600);
    assert_eq!(code("empty batch"), Some(-32600));
    assert_eq!(code("broken batch"), Some(-32700));
    assert_eq!(
        last("2025 initialize")["result"]["protocolVersion"],
        "2025-06-18"
    );
    assert_eq!(code("2025 unknown tool"), Some(-32602));
    assert_eq!(code("2025 unknown method"), Some(-32601));
    assert_eq!(code("2025 invalid params"), Some(-32602));
    assert_eq!(code("2025 resource not found"), Some(-32002));
    assert_eq!(
        answers["2025 logs at the session's level"][0]["method"],
        "notifications/message"
    );
    assert_eq!(code("2025 batch refused on 2025-06-18"), Some(-32600));
    assert_eq!(
        last("2026 request during a session")["result"]["resultType"],
        "complete"
    );
    assert_eq!(code("2026 ping is not a method"), Some(-32601));
    drop(stdio);
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

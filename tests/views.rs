//! Interactive views (the MCP Apps extension, `io.modelcontextprotocol/ui`, issue 39) through the
//! real protocol over HTTP, on the sandbox, in both eras: a client that declares the extension
//! gets the capability, `_meta.ui` on the tools the views are attached to, the views listed and
//! readable, and the codes drawn into a billet's result; a client that does not gets, byte for
//! byte, what a server without views answers.

#[path = "confirmation_harness/mod.rs"]
mod harness;

use harness::{start, Options, TestServer};
use runtime_model::views::{EXTENSION_ID, MIME_TYPE};
use serde_json::{json, Value};

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";
const BILLET_GET: &str = "banking_charge_bank_billet_get";

fn ui_caps() -> Value {
    json!({"elicitation": {}, "extensions": {EXTENSION_ID: {"mimeTypes": [MIME_TYPE]}}})
}

async fn server(with_views: bool) -> TestServer {
    let mut opts = Options::all_products();
    if with_views {
        opts.configure = Some(Box::new(|c| c.views = generated::views::ALL));
    }
    start(opts).await
}

/// A raw JSON-RPC exchange with one product of `s`: the body's text, as sent.
struct Raw {
    http: reqwest::Client,
    url: String,
    token: String,
    caps: Value,
    /// `None`: 2026-07-28; else the 2025 session (initialized with `caps`).
    session: Option<String>,
    next: std::sync::atomic::AtomicU64,
}

impl Raw {
    async fn modern(s: &TestServer, token: &str, caps: Value) -> Raw {
        Raw {
            http: reqwest::Client::new(),
            url: format!("{}/banking/mcp", s.base),
            token: token.into(),
            caps,
            session: None,
            next: 1.into(),
        }
    }

    /// A 2025 session whose `initialize` declared `caps`; also answers the `initialize` body.
    async fn legacy(s: &TestServer, token: &str, caps: Value) -> (Raw, String) {
        let mut raw = Raw::modern(s, token, caps.clone()).await;
        let resp = raw
            .http
            .post(&raw.url)
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .json(
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": LEGACY, "capabilities": caps,
                "clientInfo": {"name": "views-test", "version": "1"}}}),
            )
            .send()
            .await
            .expect("initialize");
        let session = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("a session")
            .to_string();
        let body = resp.text().await.expect("body");
        raw.session = Some(session);
        raw.send_raw(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        (raw, body)
    }

    async fn send_raw(&self, body: Value) -> String {
        let mut req = self
            .http
            .post(&self.url)
            .bearer_auth(&self.token)
            .header("accept", "application/json, text/event-stream");
        match &self.session {
            Some(id) => {
                req = req
                    .header("mcp-session-id", id)
                    .header("mcp-protocol-version", LEGACY);
            }
            None => {
                req = req.header("mcp-protocol-version", MODERN);
                if let Some(m) = body["method"].as_str() {
                    req = req.header("mcp-method", m);
                }
                for key in ["name", "uri"] {
                    if let Some(n) = body["params"][key].as_str() {
                        req = req.header("mcp-name", n);
                    }
                }
            }
        }
        let text = req
            .json(&body)
            .send()
            .await
            .expect("request")
            .text()
            .await
            .expect("body");
        // An SSE answer: its last data line.
        match text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .next_back()
        {
            Some(d) if text.starts_with("event:") || text.starts_with("data:") => {
                d.trim().to_string()
            }
            _ => text,
        }
    }

    /// One request: the answer's text.
    async fn text(&self, method: &str, mut params: Value) -> String {
        if self.session.is_none() {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": self.caps,
            });
        }
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.send_raw(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await
    }

    async fn result(&self, method: &str, params: Value) -> Value {
        let text = self.text(method, params).await;
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
        assert!(v.get("error").is_none(), "{method}: {v}");
        v["result"].clone()
    }
}

/// The standard listings, as text.
async fn listings(c: &Raw) -> Vec<String> {
    let mut out = Vec::new();
    for m in [
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
    ] {
        out.push(c.text(m, json!({})).await);
    }
    if c.session.is_none() {
        out.push(c.text("server/discover", json!({})).await);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_without_the_extension_get_byte_identical_answers_in_both_eras() {
    let plain = server(false).await;
    let with = server(true).await;
    for caps in [
        json!({}),
        json!({"elicitation": {}}),
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}),
        // A client that supports other UI types only has not declared ours.
        json!({"extensions": {EXTENSION_ID: {"mimeTypes": ["text/x-other"]}}}),
    ] {
        let a = Raw::modern(&plain, "demo-full", caps.clone()).await;
        let b = Raw::modern(&with, "demo-full", caps.clone()).await;
        assert_eq!(listings(&a).await, listings(&b).await, "2026, caps {caps}");
        let (a, init_a) = Raw::legacy(&plain, "demo-full", caps.clone()).await;
        let (b, init_b) = Raw::legacy(&with, "demo-full", caps.clone()).await;
        assert_eq!(init_a, init_b, "2025 initialize, caps {caps}");
        assert!(!init_b.contains(EXTENSION_ID));
        assert_eq!(listings(&a).await, listings(&b).await, "2025, caps {caps}");
    }
}

/// What a client with the extension sees of the billet view, in either era.
async fn check_declared(c: &Raw, capabilities: &Value) {
    assert_eq!(
        capabilities["extensions"][EXTENSION_ID]["mimeTypes"],
        json!([MIME_TYPE]),
        "{capabilities}"
    );
    let tools = c.result("tools/list", json!({})).await;
    let tools = tools["tools"].as_array().expect("tools");
    let meta_of = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["_meta"]["ui"].clone())
            .unwrap_or_else(|| panic!("{name} listed"))
    };
    assert_eq!(meta_of(BILLET_GET)["resourceUri"], "ui://banking/billet");
    assert_eq!(
        meta_of("banking_charge_pix_get")["resourceUri"],
        "ui://banking/pix_charge"
    );
    assert_eq!(
        meta_of("banking_financial_statement_summarize")["resourceUri"],
        "ui://banking/statement"
    );
    assert!(meta_of("banking_charge_bank_billet_list").is_null());
    let resources = c.result("resources/list", json!({})).await;
    let listed: Vec<&Value> = resources["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .filter(|r| r["mimeType"] == MIME_TYPE)
        .collect();
    let uris: Vec<&str> = listed.iter().filter_map(|r| r["uri"].as_str()).collect();
    assert_eq!(
        uris,
        [
            "ui://banking/billet",
            "ui://banking/pix_charge",
            "ui://banking/statement"
        ]
    );
    let read = c
        .result("resources/read", json!({"uri": "ui://banking/billet"}))
        .await;
    let page = &read["contents"][0];
    assert_eq!(page["mimeType"], MIME_TYPE);
    assert_eq!(page["uri"], "ui://banking/billet");
    let csp = &page["_meta"]["ui"]["csp"];
    for k in [
        "connectDomains",
        "resourceDomains",
        "frameDomains",
        "baseUriDomains",
    ] {
        assert_eq!(csp[k], json!([]), "{k}: no origin outside the page");
    }
    let html = page["text"].as_str().expect("html");
    assert!(html.starts_with("<!doctype html>"));
    assert!(html.contains("default-src 'none'"));
    assert!(!html.contains(runtime_model::views::SETTINGS_MARKER));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_with_the_extension_gets_views_in_both_eras() {
    let s = server(true).await;
    let c = Raw::modern(&s, "demo-full", ui_caps()).await;
    let discover = c.result("server/discover", json!({})).await;
    assert_eq!(
        discover["cacheScope"], "private",
        "chosen by this client's capabilities"
    );
    check_declared(&c, &discover["capabilities"]).await;
    let (c, init) = Raw::legacy(&s, "demo-full", ui_caps()).await;
    let init: Value = serde_json::from_str(&init).expect("initialize JSON");
    check_declared(&c, &init["result"]["capabilities"]).await;
}

/// The settings the page of `uri` was served with.
async fn settings(c: &Raw, uri: &str) -> Value {
    let read = c.result("resources/read", json!({"uri": uri})).await;
    let html = read["contents"][0]["text"]
        .as_str()
        .expect("html")
        .to_string();
    let start = html.find("id=\"kobana-settings\">").expect("settings") + 21;
    let end = start + html[start..].find("</script>").expect("end");
    serde_json::from_str(&html[start..end]).expect("settings JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_buttons_only_for_an_identity_that_may_write_and_texts_in_its_language() {
    let s = server(true).await;
    let full = Raw::modern(&s, "demo-full", ui_caps()).await;
    let got = settings(&full, "ui://banking/billet").await;
    assert_eq!(got["actions"], json!(["banking_charge_bank_billet_cancel"]));
    assert_eq!(got["locale"], "pt-BR");
    let reader = Raw::modern(&s, "demo-readonly", ui_caps()).await;
    assert_eq!(
        settings(&reader, "ui://banking/billet").await["actions"],
        json!([])
    );
    let unknown = reader
        .text("resources/read", json!({"uri": "ui://banking/nothing"}))
        .await;
    assert!(unknown.contains("\"error\""), "{unknown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_billet_and_a_pix_charge_come_with_their_codes_drawn_for_the_extension_only() {
    let s = server(true).await;
    let ui = Raw::modern(&s, "demo-full", ui_caps()).await;
    let plain = Raw::modern(&s, "demo-full", json!({"elicitation": {}})).await;
    let listed = ui
        .result(
            "tools/call",
            json!({"name": "banking_charge_bank_billet_list", "arguments": {}}),
        )
        .await;
    let sc = &listed["structuredContent"];
    let rows = sc
        .as_array()
        .or_else(|| sc["result"].as_array())
        .expect("rows");
    let uid = rows[0]["uid"].as_str().expect("uid");
    let args = json!({"name": BILLET_GET, "arguments": {"id": uid}});
    let got = ui.result("tools/call", args.clone()).await;
    let barcode = got["structuredContent"]["barcode"]
        .as_str()
        .expect("barcode");
    assert_eq!(barcode.len(), 44);
    let drawn = &got["_meta"][runtime_model::views::CODES_META]["barcode"];
    assert_eq!(drawn["format"], "itf");
    assert_eq!(
        drawn["modules"].as_str(),
        runtime::views::codes::itf(barcode).as_deref()
    );
    let without = plain.result("tools/call", args).await;
    assert!(without["_meta"]
        .get(runtime_model::views::CODES_META)
        .is_none());
    assert_eq!(without["structuredContent"], got["structuredContent"]);

    let listed = ui
        .result(
            "tools/call",
            json!({"name": "banking_charge_pix_list", "arguments": {}}),
        )
        .await;
    let pix_uid = listed["structuredContent"]["data"][0]["uid"]
        .as_str()
        .expect("a Pix charge")
        .to_string();
    let got = ui
        .result(
            "tools/call",
            json!({"name": "banking_charge_pix_get", "arguments": {"uid": pix_uid}}),
        )
        .await;
    let record = &got["structuredContent"]["data"];
    let emv = record["qrcode"]["emv"].as_str().expect("emv");
    let drawn = &got["_meta"][runtime_model::views::CODES_META]["qrcode.emv"];
    let (width, modules) = runtime::views::codes::qr(emv).expect("drawable");
    assert_eq!(drawn["width"], width);
    assert_eq!(drawn["modules"], modules);
}

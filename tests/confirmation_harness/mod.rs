//! Shared harness of the permission, confirmation and ledger integration tests: a real server
//! (the generated products, the SQLite sandbox, the embedded demo identities behind the HTTP auth
//! layer) on 127.0.0.1, and a small MCP client speaking JSON-RPC over Streamable HTTP in either era.
//!
//! Everything goes through the real transport: no engine internals are called.

#![allow(dead_code)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use runtime::auth::http::HttpAuth;
use runtime::auth::EmbeddedResolver;
use runtime::catalog::{Product, Tool};
use runtime::confirm::Ledger;
use runtime::server::{Server, ServerConfig};
use runtime::state::StateSealer;
use runtime_sandbox::{Sandbox, SandboxConfig};
use serde_json::{json, Map, Value};
use tokio::sync::oneshot;

pub const MODERN: &str = "2026-07-28";

/// One running server.
pub struct TestServer {
    pub base: String,
    pub products: Vec<&'static Product>,
    shutdown: Option<oneshot::Sender<()>>,
    _dir: Option<tempfile::TempDir>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// How to build a server.
pub struct Options {
    pub products: Vec<&'static Product>,
    pub ledger: Option<Arc<dyn Ledger>>,
    pub sealer: StateSealer,
    /// Share this sandbox data directory (several instances over one store).
    pub data_dir: Option<std::path::PathBuf>,
    /// An identities document to use instead of the builtin demo file.
    pub identities: Option<String>,
    /// Where tool calls go instead of the sandbox (e.g. the upstream proxy).
    pub backend: Option<Arc<dyn runtime_model::backend::Backend>>,
    /// Last changes to the server's configuration (telemetry, probes) before it starts.
    pub configure: Option<Configure>,
    /// How long the sandbox's `task:` tools work (zero: at once).
    pub sandbox_task_delay: std::time::Duration,
    /// TTL and polling of tasks (the engine's defaults when `None`).
    pub tasks: Option<runtime::tasks::TaskOptions>,
    /// The result budget in tokens, instead of the default.
    pub result_budget_tokens: Option<usize>,
}

/// A last change to a server's configuration.
pub type Configure = Box<dyn FnOnce(&mut ServerConfig) + Send>;

/// The sealing keys every test instance shares (instances behind one load balancer share keys).
pub fn shared_sealer() -> StateSealer {
    StateSealer::new(vec![("test1".into(), vec![7u8; 32])]).expect("valid test key")
}

impl Options {
    pub fn all_products() -> Self {
        Self {
            products: generated::PRODUCTS.to_vec(),
            ledger: None,
            sealer: shared_sealer(),
            data_dir: None,
            identities: None,
            backend: None,
            configure: None,
            sandbox_task_delay: std::time::Duration::ZERO,
            tasks: None,
            result_budget_tokens: None,
        }
    }
}

/// Starts a server on an ephemeral port.
pub async fn start(opts: Options) -> TestServer {
    let (dir, data_dir) = match opts.data_dir {
        Some(d) => (None, d),
        None => {
            let d = tempfile::tempdir().expect("temp dir");
            let p = d.path().to_path_buf();
            (Some(d), p)
        }
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let base = format!("http://{addr}");
    let mut sandbox_cfg = SandboxConfig::new(&data_dir);
    sandbox_cfg.public_url = base.clone();
    sandbox_cfg.task_delay = opts.sandbox_task_delay;
    let sandbox = Sandbox::open(&sandbox_cfg).expect("sandbox");
    let resolver = Arc::new(match &opts.identities {
        Some(yaml) => EmbeddedResolver::from_yaml(yaml, &opts.products).expect("test identities"),
        None => EmbeddedResolver::builtin(&opts.products).expect("builtin identities"),
    });
    let backend: Arc<dyn runtime_model::backend::Backend> = match opts.backend {
        Some(b) => b,
        None => Arc::new(sandbox),
    };
    let mut config = ServerConfig::new(
        opts.products.clone(),
        backend,
        runtime::server::unrestricted_identity("nobody"),
    );
    config.auth = Some(Arc::new(HttpAuth::new(resolver, &base)));
    config.sealer = Some(opts.sealer);
    if let Some(t) = opts.tasks {
        config.tasks = t;
    }
    set_ledger(&mut config, opts.ledger);
    if let Some(configure) = opts.configure {
        configure(&mut config);
    }
    if let Some(n) = opts.result_budget_tokens {
        config.engine.result_budget_tokens = n;
    }
    let server = Server::new(config).expect("server");
    let (tx, rx) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let _ = runtime::transport::http::serve_listener(server, listener, async move {
            let _ = rx.await;
        })
        .await;
    });
    TestServer {
        base,
        products: opts.products,
        shutdown: Some(tx),
        _dir: dir,
    }
}

/// Installs the confirmation ledger in a server configuration.
fn set_ledger(config: &mut ServerConfig, ledger: Option<Arc<dyn Ledger>>) {
    if ledger.is_some() {
        config.ledger = ledger;
    }
}

/// What a client declares and who it is.
#[derive(Clone)]
pub struct Client {
    pub http: reqwest::Client,
    pub url: String,
    pub token: Option<String>,
    pub workspace: Option<String>,
    /// `None` = 2026-07-28; `Some(v)` = a sessionless 2025 request of version `v`.
    pub legacy: Option<&'static str>,
    pub capabilities: Value,
    /// Sent as `Accept-Language` when set.
    pub language: Option<&'static str>,
    next_id: Arc<AtomicU64>,
}

impl TestServer {
    /// A 2026-07-28 client of `product` with `token`, declaring form elicitation.
    pub fn client(&self, product: &str, token: &str) -> Client {
        let path = if self.products.len() == 1 {
            "/mcp".to_string()
        } else {
            format!("/{product}/mcp")
        };
        Client {
            http: reqwest::Client::new(),
            url: format!("{}{path}", self.base),
            token: Some(token.to_string()),
            workspace: None,
            legacy: None,
            capabilities: json!({"elicitation": {}}),
            language: None,
            next_id: Arc::new(AtomicU64::new(1)),
        }
    }
}

/// An HTTP answer: status and the JSON-RPC message (the last one of an SSE stream).
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
}

impl Answer {
    pub fn result(&self) -> &Value {
        assert!(
            self.body.get("error").is_none(),
            "expected a result, got {}",
            self.body
        );
        &self.body["result"]
    }
    pub fn error(&self) -> &Value {
        assert!(
            self.body.get("error").is_some(),
            "expected an error, got {}",
            self.body
        );
        &self.body["error"]
    }
    /// The application error code of an `isError` tool result.
    pub fn tool_error_code(&self) -> Option<String> {
        let r = self.result();
        if r["isError"] != json!(true) {
            return None;
        }
        r["structuredContent"]["error"]["code"]
            .as_str()
            .map(str::to_string)
    }
    pub fn is_input_required(&self) -> bool {
        self.body["result"]["resultType"] == "input_required"
    }
    pub fn request_state(&self) -> String {
        self.result()["requestState"]
            .as_str()
            .unwrap_or_else(|| panic!("no requestState in {}", self.body))
            .to_string()
    }
    pub fn question(&self) -> String {
        self.result()["inputRequests"]["confirm"]["params"]["message"]
            .as_str()
            .unwrap_or_else(|| panic!("no confirmation question in {}", self.body))
            .to_string()
    }
}

impl Client {
    pub fn with_workspace(mut self, ws: &str) -> Self {
        self.workspace = Some(ws.to_string());
        self
    }
    /// Asks for answers in `tag` (`Accept-Language`).
    pub fn with_language(mut self, tag: &'static str) -> Self {
        self.language = Some(tag);
        self
    }

    pub fn with_token(mut self, token: &str) -> Self {
        self.token = Some(token.to_string());
        self
    }
    pub fn without_token(mut self) -> Self {
        self.token = None;
        self
    }
    pub fn legacy(mut self, version: &'static str) -> Self {
        self.legacy = Some(version);
        self
    }
    pub fn without_elicitation(mut self) -> Self {
        self.capabilities = json!({});
        self
    }
    pub fn with_capabilities(mut self, caps: Value) -> Self {
        self.capabilities = caps;
        self
    }

    /// Sends one request; `params` get the 2026 `_meta` when the client is modern.
    pub async fn request(&self, method: &str, params: Value) -> Answer {
        let mut params = match params {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let mut req = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        match self.legacy {
            None => {
                params.insert(
                    "_meta".into(),
                    json!({
                        "io.modelcontextprotocol/protocolVersion": MODERN,
                        "io.modelcontextprotocol/clientCapabilities": self.capabilities,
                    }),
                );
                req = req
                    .header("mcp-protocol-version", MODERN)
                    .header("mcp-method", method);
                let name = match method {
                    "tools/call" | "prompts/get" => params.get("name").and_then(Value::as_str),
                    "resources/read" => params.get("uri").and_then(Value::as_str),
                    "tasks/get" | "tasks/update" | "tasks/cancel" => {
                        params.get("taskId").and_then(Value::as_str)
                    }
                    _ => None,
                };
                if let Some(n) = name {
                    req = req.header("mcp-name", encode_header(n));
                }
            }
            Some(v) => {
                req = req.header("mcp-protocol-version", v);
            }
        }
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        if let Some(ws) = &self.workspace {
            req = req.header("kobana-workspace-id", ws);
        }
        if let Some(l) = self.language {
            req = req.header("accept-language", l);
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let resp = req.json(&body).send().await.expect("HTTP request");
        let status = resp.status().as_u16();
        let sse = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|c| c.starts_with("text/event-stream"));
        let text = resp.text().await.expect("body");
        let body = if sse {
            text.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
                .rfind(|m| m.get("id").is_some())
                .unwrap_or(Value::Null)
        } else if text.trim().is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"))
        };
        Answer { status, body }
    }

    /// `tools/call` with optional MRTR retry fields.
    pub async fn call_tool(
        &self,
        name: &str,
        args: Value,
        request_state: Option<&str>,
        input_responses: Option<Value>,
    ) -> Answer {
        let mut p = json!({"name": name, "arguments": args});
        if let Some(s) = request_state {
            p["requestState"] = json!(s);
        }
        if let Some(r) = input_responses {
            p["inputResponses"] = r;
        }
        self.request("tools/call", p).await
    }

    /// Lists every item of a paginated list method.
    pub async fn list_all(&self, method: &str, key: &str) -> Vec<Value> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let a = self.request(method, params).await;
            let r = a.result().clone();
            out.extend(r[key].as_array().cloned().unwrap_or_default());
            match r["nextCursor"].as_str() {
                Some(c) => cursor = Some(c.to_string()),
                None => break,
            }
        }
        out
    }
}

/// Tool names and URIs of the catalogs are ASCII; anything else would need base64 encoding.
fn encode_header(v: &str) -> String {
    assert!(v.is_ascii(), "header value {v:?} is not ASCII");
    v.to_string()
}

/// A yes to the confirmation question.
pub fn yes() -> Value {
    json!({"confirm": {"action": "accept", "content": {"confirm": true}}})
}

/// The records of a list tool's answer (`data` of the JSON body, structured or in the text block).
pub fn records_of(a: &Answer) -> Vec<Value> {
    let r = a.result();
    let body = if r["structuredContent"].is_object() {
        r["structuredContent"].clone()
    } else {
        r["content"][0]["text"]
            .as_str()
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or(Value::Null)
    };
    match &body {
        Value::Array(items) => items.clone(),
        _ => body["data"].as_array().cloned().unwrap_or_default(),
    }
}

/// A destructive delete tool of a product, with the tools around it and real record ids.
#[derive(Debug, Clone)]
pub struct DeleteTarget {
    pub delete_tool: &'static str,
    pub get_tool: &'static str,
    pub id_arg: &'static str,
    pub get_id_arg: &'static str,
    pub ids: Vec<String>,
}

impl DeleteTarget {
    pub fn args(&self, i: usize) -> Value {
        json!({ self.id_arg: self.ids[i] })
    }
}

/// Finds, through the protocol, a destructive delete tool whose records can be listed (no
/// required list arguments) and read back, with at least `min_ids` seeded records.
pub async fn delete_target(c: &Client, product: &'static Product, min_ids: usize) -> DeleteTarget {
    use runtime::catalog::Operation;
    for del in product.tools.iter().filter(|t| t.annotations.destructive) {
        let Operation::Delete { record, id_arg } = del.operation else {
            continue;
        };
        if required_args(del).0 != [id_arg.to_string()] {
            continue;
        }
        let list = product.tools.iter().find(|t| {
            matches!(t.operation, Operation::List { record: r } if r == record)
                && required_args(t).0.is_empty()
        });
        let get = product.tools.iter().find_map(|t| match t.operation {
            Operation::Get { record: r, id_arg } if r == record => Some((t, id_arg)),
            _ => None,
        });
        let (Some(list), Some((get, get_id_arg))) = (list, get) else {
            continue;
        };
        let Some(rec) = product.record(record) else {
            continue;
        };
        let a = c.call_tool(list.name, json!({}), None, None).await;
        if a.result()["isError"] == json!(true) {
            continue;
        }
        let ids: Vec<String> = records_of(&a)
            .iter()
            .filter_map(|r| r[rec.id_field].as_str().map(String::from))
            .collect();
        if ids.len() >= min_ids {
            return DeleteTarget {
                delete_tool: del.name,
                get_tool: get.name,
                id_arg,
                get_id_arg,
                ids,
            };
        }
    }
    panic!(
        "{} has no destructive delete tool with listable, readable records",
        product.name
    );
}

/// Whether the record still exists (its get tool answers without error).
pub async fn exists(c: &Client, t: &DeleteTarget, i: usize) -> bool {
    let a = c
        .call_tool(t.get_tool, json!({ t.get_id_arg: t.ids[i] }), None, None)
        .await;
    match a.tool_error_code() {
        None => true,
        Some(code) if code == "not_found" => false,
        Some(other) => panic!("{} answered {other}: {}", t.get_tool, a.body),
    }
}

/// The required arguments of `tool`, and its input schema.
pub fn required_args(tool: &Tool) -> (Vec<String>, Value) {
    let schema: Value = serde_json::from_str(tool.input_schema_json).unwrap_or(Value::Null);
    let req = schema["required"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    (req, schema)
}

/// A value its schema accepts, for a required argument the test does not care about.
pub fn sample(schema: &Value) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    let ty = match &schema["type"] {
        Value::String(t) => t.clone(),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("string")
            .to_string(),
        _ => "string".into(),
    };
    match ty.as_str() {
        "number" => json!(10.5),
        "integer" => json!(1),
        "boolean" => json!(true),
        "array" => json!([sample(&schema["items"])]),
        "object" => {
            let mut m = Map::new();
            for r in schema["required"].as_array().into_iter().flatten() {
                if let Some(k) = r.as_str() {
                    m.insert(k.to_string(), sample(&schema["properties"][k]));
                }
            }
            Value::Object(m)
        }
        _ => match schema["format"].as_str() {
            Some("date") => json!("2030-01-15"),
            Some("date-time") => json!("2030-01-15T10:00:00Z"),
            Some("email") => json!("pessoa@example.com"),
            Some("uri") => json!("https://example.com/hook"),
            _ => {
                let min = schema["minLength"].as_u64().unwrap_or(0) as usize;
                let mut text = String::from("exemplo");
                while text.len() < min {
                    text.push_str(" exemplo");
                }
                json!(text)
            }
        },
    }
}

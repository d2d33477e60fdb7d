//! Toolsets, selection and discovery mode, through the real binary on both transports:
//! - each selection source (flags, `KOBANA_*` variables, the TOML file, `Kobana-*` headers, the
//!   `/x/<toolsets>/mcp` and `/readonly/mcp` paths) and the precedence rules (the server's
//!   selection is the ceiling, a request narrows and never widens, read-only and exclusions win,
//!   a request naming nothing gets the default);
//! - unknown names (an error at start naming it; HTTP 400 naming it);
//! - every surface filtered (listings, calls answered as unknown, resources, templates, prompts,
//!   completions) and a 2025 session keeping its initialize's selection;
//! - discovery end to end (search → describe → call), with a destructive tool that asks on
//!   2026-07-28 and a tool outside the ceiling refused, on both eras.

use std::collections::BTreeSet;
use std::process::Stdio;
use std::time::{Duration, Instant};

use runtime_model::catalog::Product;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const BIN: &str = env!("CARGO_BIN_EXE_kobana-mcp");
const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-06-18";

fn banking() -> &'static Product {
    generated::product("banking").unwrap()
}

/// The tool names of toolsets of banking.
fn toolset(names: &[&str]) -> BTreeSet<String> {
    let p = banking();
    let mut out = BTreeSet::new();
    for n in names {
        let ts = p.toolsets.iter().find(|t| t.name == *n).unwrap();
        out.extend(
            ts.tools
                .iter()
                .map(|&i| p.tools[i as usize].name.to_string()),
        );
    }
    out
}

fn all_tools() -> BTreeSet<String> {
    banking().tools.iter().map(|t| t.name.to_string()).collect()
}

fn default_tools() -> BTreeSet<String> {
    let p = banking();
    let names: Vec<&str> = p
        .toolsets
        .iter()
        .filter(|t| t.default)
        .map(|t| t.name)
        .collect();
    toolset(&names)
}

fn read_only(set: &BTreeSet<String>) -> BTreeSet<String> {
    set.iter()
        .filter(|n| banking().tool(n).unwrap().annotations.read_only)
        .cloned()
        .collect()
}

fn names(list: &Value) -> BTreeSet<String> {
    list["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("not a tools/list result: {list}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn command(dir: &std::path::Path) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(BIN);
    c.arg("--data-dir").arg(dir).current_dir(dir);
    for v in [
        "KOBANA_UPSTREAM_URL",
        "KOBANA_CONFIG",
        "KOBANA_HTTP_ADDR",
        "KOBANA_ACCESS_TOKEN",
        "KOBANA_TOOLSETS",
        "KOBANA_TOOLS",
        "KOBANA_EXCLUDE_TOOLS",
        "KOBANA_READ_ONLY",
        "KOBANA_DISCOVERY",
    ] {
        c.env_remove(v);
    }
    c.env("RUST_LOG", "warn").kill_on_drop(true);
    c
}

// ---------------------------------------------------------------------------------------------
// HTTP

struct Http {
    _child: tokio::process::Child,
    port: u16,
    _dir: tempfile::TempDir,
}

async fn http(product: &str, args: &[&str]) -> Http {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut cmd = command(dir.path());
    cmd.args(["serve", product, "--http", &format!("127.0.0.1:{port}")])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let child = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "server did not start on {port}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Http {
        _child: child,
        port,
        _dir: dir,
    }
}

impl Http {
    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

/// One request in `era` (2026: `_meta` with form elicitation and the routing headers; 2025:
/// sessionless unless `session` is given). Returns the status, the JSON-RPC message and the
/// session id the answer set.
async fn post(
    url: &str,
    era: &str,
    headers: &[(&str, &str)],
    session: Option<&str>,
    method: &str,
    mut params: Value,
) -> (u16, Value, Option<String>) {
    let mut req = reqwest::Client::new()
        .post(url)
        .bearer_auth("demo-full")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", era);
    if era == MODERN {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        });
        req = req.header("Mcp-Method", method);
        let name = match method {
            "resources/read" => params["uri"].as_str(),
            _ => params["name"].as_str(),
        };
        if let Some(name) = name {
            req = req.header("Mcp-Name", name);
        }
    }
    if let Some(s) = session {
        req = req.header("Mcp-Session-Id", s);
    }
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let sid = resp
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let text = resp.text().await.unwrap();
    let sse = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .rfind(|m| m.get("id").is_some());
    let msg = sse.unwrap_or_else(|| serde_json::from_str(&text).unwrap_or(Value::String(text)));
    (status, msg, sid)
}

async fn list(url: &str, era: &str, headers: &[(&str, &str)]) -> BTreeSet<String> {
    let (status, v, _) = post(url, era, headers, None, "tools/list", json!({})).await;
    assert_eq!(status, 200, "{v}");
    names(&v)
}

async fn call(url: &str, era: &str, headers: &[(&str, &str)], name: &str, args: Value) -> Value {
    post(
        url,
        era,
        headers,
        None,
        "tools/call",
        json!({"name": name, "arguments": args}),
    )
    .await
    .1
}

/// The error of a tools/call naming a tool the server does not have.
fn assert_unknown_tool(v: &Value, name: &str) {
    assert_eq!(v["error"]["code"], json!(-32602), "{v}");
    // In the request's locale (here the product's default: these requests name none).
    let message = v["error"]["message"].as_str().unwrap_or("");
    assert!(
        runtime_model::locale::Locale::ALL
            .iter()
            .any(|l| message == runtime::protocol::tools::unknown_tool(name, *l)),
        "{v}"
    );
}

#[tokio::test]
async fn http_headers_and_paths_narrow_the_default_and_every_tool_ceiling() {
    let s = http("all", &[]).await;
    let url = s.url("/banking/mcp");
    for era in [MODERN, LEGACY] {
        // Nothing named: the product's default toolsets.
        assert_eq!(list(&url, era, &[]).await, default_tools(), "{era}");
        // A toolset by header; `all` is one word away.
        assert_eq!(
            list(&url, era, &[("Kobana-Toolsets", "pix")]).await,
            toolset(&["pix"])
        );
        assert_eq!(
            list(&url, era, &[("Kobana-Toolsets", "all")]).await.len(),
            banking().tools.len()
        );
        // Tools by header, added to toolsets.
        let with_tool = list(
            &url,
            era,
            &[
                ("Kobana-Toolsets", "pix"),
                ("Kobana-Tools", "banking_transfer_pix_list"),
            ],
        )
        .await;
        let mut expected = toolset(&["pix"]);
        expected.insert("banking_transfer_pix_list".into());
        assert_eq!(with_tool, expected);
        // Exclusions and read-only win over inclusions.
        let excluded = list(
            &url,
            era,
            &[
                (
                    "Kobana-Tools",
                    "banking_transfer_pix_list,banking_transfer_ted_list",
                ),
                ("Kobana-Exclude-Tools", "banking_transfer_pix_list"),
            ],
        )
        .await;
        assert_eq!(
            excluded,
            BTreeSet::from(["banking_transfer_ted_list".to_string()])
        );
        let ro = list(
            &url,
            era,
            &[("Kobana-Toolsets", "all"), ("Kobana-Read-Only", "true")],
        )
        .await;
        assert_eq!(ro, read_only(&all_tools()));
        // Read-only alone narrows the default.
        assert_eq!(
            list(&url, era, &[("Kobana-Read-Only", "1")]).await,
            read_only(&default_tools())
        );
        // URL paths under `serve all`.
        assert_eq!(
            list(&s.url("/banking/x/pix,transfers/mcp"), era, &[]).await,
            toolset(&["pix", "transfers"])
        );
        assert_eq!(
            list(&s.url("/banking/readonly/mcp"), era, &[]).await,
            read_only(&default_tools())
        );
        // Path and headers together: what both allow.
        assert_eq!(
            list(
                &s.url("/banking/x/pix,transfers/mcp"),
                era,
                &[("Kobana-Toolsets", "transfers,statements")]
            )
            .await,
            toolset(&["transfers"])
        );
    }
    // Other products have their own toolsets.
    let billing = list(
        &s.url("/billing/mcp"),
        MODERN,
        &[("Kobana-Toolsets", "payments")],
    )
    .await;
    assert!(
        billing
            .iter()
            .all(|n| n.starts_with("billing_payments_") || n.starts_with("billing_refunds_")),
        "{billing:?}"
    );
}

#[tokio::test]
async fn http_unknown_names_are_400_naming_them() {
    let s = http("all", &[]).await;
    let url = s.url("/banking/mcp");
    for era in [MODERN, LEGACY] {
        for (header, value, named) in [
            ("Kobana-Toolsets", "pix,nope", "`nope`"),
            ("Kobana-Tools", "banking_nope_list", "`banking_nope_list`"),
            ("Kobana-Exclude-Tools", "banking_gone", "`banking_gone`"),
            ("Kobana-Read-Only", "perhaps", "perhaps"),
        ] {
            let (status, v, _) =
                post(&url, era, &[(header, value)], None, "tools/list", json!({})).await;
            assert_eq!(status, 400, "{header}: {v}");
            let msg = v["error"]["message"].as_str().unwrap_or_default();
            assert!(msg.contains(named), "{header}: {msg}");
        }
        let (status, v, _) = post(
            &s.url("/banking/x/pix,billetz/mcp"),
            era,
            &[],
            None,
            "tools/list",
            json!({}),
        )
        .await;
        assert_eq!(status, 400, "{v}");
        assert!(v.to_string().contains("`billetz`"), "{v}");
    }
}

#[tokio::test]
async fn the_servers_selection_is_a_ceiling_requests_never_widen() {
    let s = http("banking", &["--toolsets", "billets,pix"]).await;
    let url = s.url("/mcp");
    let ceiling = toolset(&["billets", "pix"]);
    for era in [MODERN, LEGACY] {
        // A request naming nothing gets the server's selection.
        assert_eq!(list(&url, era, &[]).await, ceiling);
        // `all` means all the server allows.
        assert_eq!(
            list(&url, era, &[("Kobana-Toolsets", "all")]).await,
            ceiling
        );
        // A toolset outside the ceiling: nothing of it.
        assert!(list(&url, era, &[("Kobana-Toolsets", "transfers")])
            .await
            .is_empty());
        assert!(
            list(&url, era, &[("Kobana-Tools", "banking_transfer_pix_list")])
                .await
                .is_empty()
        );
        // Single product: the path has no product segment.
        assert_eq!(
            list(&s.url("/x/pix/mcp"), era, &[]).await,
            toolset(&["pix"])
        );
        // Calling outside the ceiling answers exactly as an unknown tool.
        let out = call(
            &url,
            era,
            &[("Kobana-Toolsets", "all")],
            "banking_transfer_pix_list",
            json!({}),
        )
        .await;
        assert_unknown_tool(&out, "banking_transfer_pix_list");
        let really_unknown = call(&url, era, &[], "banking_no_such_tool", json!({})).await;
        assert_unknown_tool(&really_unknown, "banking_no_such_tool");
        // Inside the ceiling but outside the request's selection: unknown too.
        let out = call(
            &url,
            era,
            &[("Kobana-Toolsets", "pix")],
            "banking_charge_bank_billet_list",
            json!({"per_page": 1}),
        )
        .await;
        assert_unknown_tool(&out, "banking_charge_bank_billet_list");
        // Selected: runs.
        let out = call(
            &url,
            era,
            &[],
            "banking_charge_bank_billet_list",
            json!({"per_page": 1}),
        )
        .await;
        assert_ne!(out["result"]["isError"], json!(true), "{out}");
    }
}

#[tokio::test]
async fn every_surface_follows_the_selection() {
    let s = http("banking", &[]).await;
    let url = s.url("/mcp");
    let pix = [("Kobana-Toolsets", "pix")];
    let billet_template = "kobana://banking/charge/bank_billets/{uid}";
    for era in [MODERN, LEGACY] {
        // Templates follow their read tool.
        let templates = |v: &Value| -> Vec<String> {
            v["result"]["resourceTemplates"]
                .as_array()
                .unwrap_or_else(|| panic!("{v}"))
                .iter()
                .map(|t| t["uriTemplate"].as_str().unwrap().to_string())
                .collect()
        };
        let (_, all_t, _) = post(&url, era, &[], None, "resources/templates/list", json!({})).await;
        assert!(
            templates(&all_t).contains(&billet_template.to_string()),
            "{all_t}"
        );
        let (_, pix_t, _) =
            post(&url, era, &pix, None, "resources/templates/list", json!({})).await;
        let pix_t = templates(&pix_t);
        assert!(!pix_t.contains(&billet_template.to_string()), "{pix_t:?}");
        assert!(
            pix_t.contains(&"kobana://banking/charge/pix/{uid}".to_string()),
            "{pix_t:?}"
        );
        // resources/list (banking lists recent records) follows the templates' tools.
        let uris = |v: &Value| -> Vec<String> {
            v["result"]["resources"]
                .as_array()
                .unwrap_or_else(|| panic!("{v}"))
                .iter()
                .map(|r| r["uri"].as_str().unwrap().to_string())
                .collect()
        };
        let (_, listed, _) = post(&url, era, &[], None, "resources/list", json!({})).await;
        let billets = "kobana://banking/charge/bank_billets/";
        assert!(
            uris(&listed).iter().any(|u| u.starts_with(billets)),
            "{listed}"
        );
        let (_, listed, _) = post(&url, era, &pix, None, "resources/list", json!({})).await;
        let listed = uris(&listed);
        assert!(!listed.iter().any(|u| u.starts_with(billets)), "{listed:?}");
        assert!(
            listed
                .iter()
                .any(|u| u.starts_with("kobana://banking/charge/pix/")),
            "{listed:?}"
        );
        // Prompts follow the tools they use.
        let (_, prompts, _) = post(&url, era, &[], None, "prompts/list", json!({})).await;
        assert_eq!(
            prompts["result"]["prompts"].as_array().unwrap().len(),
            3,
            "{prompts}"
        );
        let (_, prompts, _) = post(&url, era, &pix, None, "prompts/list", json!({})).await;
        assert_eq!(prompts["result"]["prompts"], json!([]), "{prompts}");
        let prompt = "banking_charge_overdue_bank_billets_review";
        let (_, got, _) = post(
            &url,
            era,
            &pix,
            None,
            "prompts/get",
            json!({"name": prompt}),
        )
        .await;
        assert!(got.get("error").is_some(), "{got}");
        let (_, got, _) = post(&url, era, &[], None, "prompts/get", json!({"name": prompt})).await;
        assert!(got.get("result").is_some(), "{got}");
        // Completions follow their prompt or template.
        let complete = json!({"ref": {"type": "ref/prompt", "name": prompt}, "argument": {"name": "due_before", "value": ""}});
        let (_, c, _) = post(
            &url,
            era,
            &pix,
            None,
            "completion/complete",
            complete.clone(),
        )
        .await;
        assert!(c.get("error").is_some(), "{c}");
        let (_, c, _) = post(&url, era, &[], None, "completion/complete", complete).await;
        assert!(c.get("result").is_some(), "{c}");
        let complete_t = json!({"ref": {"type": "ref/resource", "uri": billet_template}, "argument": {"name": "uid", "value": ""}});
        let (_, c, _) = post(&url, era, &pix, None, "completion/complete", complete_t).await;
        assert!(c.get("error").is_some(), "{c}");
        // Reading a resource whose read tool is not selected: not found; selected: read.
        let listed = call(
            &url,
            era,
            &[],
            "banking_charge_bank_billet_list",
            json!({"per_page": 1}),
        )
        .await;
        let text = listed["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        let page: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let uid = page["data"][0]["uid"]
            .as_str()
            .or_else(|| page[0]["uid"].as_str())
            .unwrap_or_else(|| panic!("a billet uid in {listed}"))
            .to_string();
        let uri = format!("kobana://banking/charge/bank_billets/{uid}");
        let (_, r, _) = post(&url, era, &pix, None, "resources/read", json!({"uri": uri})).await;
        assert!(r.get("error").is_some(), "{r}");
        let (_, r, _) = post(&url, era, &[], None, "resources/read", json!({"uri": uri})).await;
        assert!(r.get("result").is_some(), "{r}");
    }
}

#[tokio::test]
async fn a_2025_session_keeps_the_selection_of_its_initialize() {
    let s = http("banking", &[]).await;
    let url = s.url("/x/pix/mcp");
    let init = json!({"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    let (status, v, sid) = post(&url, LEGACY, &[], None, "initialize", init).await;
    assert_eq!(status, 200, "{v}");
    let sid = sid.expect("a session id");
    // Later requests on the plain path, naming nothing: the session's selection.
    let (_, v, _) = post(
        &s.url("/mcp"),
        LEGACY,
        &[],
        Some(&sid),
        "tools/list",
        json!({}),
    )
    .await;
    assert_eq!(names(&v), toolset(&["pix"]));
    // The same selection again: fine.
    let (status, v, _) = post(&url, LEGACY, &[], Some(&sid), "tools/list", json!({})).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(names(&v), toolset(&["pix"]));
    // Another selection: refused, saying why.
    let (status, v, _) = post(
        &s.url("/mcp"),
        LEGACY,
        &[("Kobana-Toolsets", "all")],
        Some(&sid),
        "tools/list",
        json!({}),
    )
    .await;
    assert_eq!(status, 400, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("initialize"),
        "{v}"
    );
}

// ---------------------------------------------------------------------------------------------
// stdio

struct Stdio2 {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    next: u64,
    _dir: tempfile::TempDir,
}

fn stdio_cmd(
    args: &[&str],
    env: &[(&str, &str)],
    config: Option<&str>,
) -> (tokio::process::Command, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = command(dir.path());
    if let Some(text) = config {
        let path = dir.path().join("kobana-mcp.toml");
        std::fs::write(&path, text).unwrap();
        cmd.arg("--config").arg(path);
    }
    cmd.args(["serve", "banking", "--stdio"]).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.env("KOBANA_ACCESS_TOKEN", "demo-full");
    (cmd, dir)
}

impl Stdio2 {
    fn start(args: &[&str], env: &[(&str, &str)], config: Option<&str>) -> Self {
        let (mut cmd, dir) = stdio_cmd(args, env, config);
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Stdio2 {
            child,
            stdin,
            stdout,
            next: 1,
            _dir: dir,
        }
    }

    async fn request(&mut self, method: &str, mut params: Value) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        });
        let id = self.next;
        self.next += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        self.stdin.flush().await.unwrap();
        loop {
            let next = tokio::time::timeout(Duration::from_secs(60), self.stdout.next_line())
                .await
                .expect("an answer within 60 s")
                .unwrap()
                .expect("the server is running");
            let msg: Value = serde_json::from_str(&next).unwrap();
            if msg["id"] == json!(id) {
                return msg;
            }
        }
    }

    async fn tools(&mut self) -> BTreeSet<String> {
        names(&self.request("tools/list", json!({})).await)
    }
}

impl Drop for Stdio2 {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

#[tokio::test]
async fn stdio_selection_from_flags_variables_and_the_config_file() {
    // No selection: the default toolsets.
    assert_eq!(Stdio2::start(&[], &[], None).tools().await, default_tools());
    // A flag.
    let mut s = Stdio2::start(&["--toolsets", "pix"], &[], None);
    assert_eq!(s.tools().await, toolset(&["pix"]));
    let out = s
        .request(
            "tools/call",
            json!({"name": "banking_charge_bank_billet_list", "arguments": {}}),
        )
        .await;
    assert_unknown_tool(&out, "banking_charge_bank_billet_list");
    // Variables, with read-only winning.
    let env = [
        ("KOBANA_TOOLSETS", "transfers"),
        ("KOBANA_READ_ONLY", "true"),
    ];
    assert_eq!(
        Stdio2::start(&[], &env, None).tools().await,
        read_only(&toolset(&["transfers"]))
    );
    // The config file, with an exclusion winning.
    let config = "[serve]\ntoolsets = [\"statements\"]\nexclude_tools = [\"banking_financial_account_list\"]\n";
    let mut expected = toolset(&["statements"]);
    expected.remove("banking_financial_account_list");
    assert_eq!(
        Stdio2::start(&[], &[], Some(config)).tools().await,
        expected
    );
    // A flag wins over its variable, and the variable over the file.
    assert_eq!(
        Stdio2::start(
            &["--toolsets", "pix"],
            &[("KOBANA_TOOLSETS", "transfers")],
            Some(config)
        )
        .tools()
        .await,
        toolset(&["pix"])
    );
    let mut expected = toolset(&["transfers"]);
    expected.remove("banking_financial_account_list");
    assert_eq!(
        Stdio2::start(&[], &[("KOBANA_TOOLSETS", "transfers")], Some(config))
            .tools()
            .await,
        expected
    );
    // --tools and --exclude-tools.
    assert_eq!(
        Stdio2::start(
            &[
                "--tools",
                "banking_transfer_pix_list,banking_transfer_ted_list",
                "--exclude-tools",
                "banking_transfer_ted_list"
            ],
            &[],
            None
        )
        .tools()
        .await,
        BTreeSet::from(["banking_transfer_pix_list".to_string()])
    );
}

#[tokio::test]
async fn an_unknown_name_at_start_is_an_error_naming_it() {
    for (args, named) in [
        (vec!["--toolsets", "pix,nope"], "`nope`"),
        (vec!["--tools", "banking_nope_list"], "`banking_nope_list`"),
        (vec!["--exclude-tools", "banking_gone"], "`banking_gone`"),
    ] {
        let (mut cmd, _dir) = stdio_cmd(&args, &[], None);
        let out = tokio::time::timeout(Duration::from_secs(60), cmd.stdin(Stdio::null()).output())
            .await
            .unwrap()
            .unwrap();
        assert!(!out.status.success(), "{args:?} started");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(named), "{args:?}: {err}");
    }
    // Under `serve all`, a name no product knows.
    let dir = tempfile::tempdir().unwrap();
    let out = command(dir.path())
        .args([
            "serve",
            "all",
            "--http",
            "127.0.0.1:0",
            "--toolsets",
            "billetz",
        ])
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("`billetz`"));
}

// ---------------------------------------------------------------------------------------------
// Discovery

const SEARCH: &str = "banking_search_tools";
const DESCRIBE: &str = "banking_describe_tools";
const CALL: &str = "banking_call_tool";

fn structured(v: &Value) -> &Value {
    &v["result"]["structuredContent"]
}

#[tokio::test]
async fn discovery_over_http_search_describe_call_confirm_and_ceiling() {
    // The server allows billets (and turns discovery on); transfers are outside its ceiling.
    let s = http("banking", &["--toolsets", "billets", "--discovery"]).await;
    let url = s.url("/mcp");
    let d = [("Kobana-Toolsets", "discovery")];
    for era in [MODERN, LEGACY] {
        // Discovery alone lists three tools.
        assert_eq!(
            list(&url, era, &d).await,
            BTreeSet::from([SEARCH.to_string(), DESCRIBE.to_string(), CALL.to_string()])
        );
        // The server's default: billets and the discovery tools.
        let mut expected = toolset(&["billets"]);
        expected.extend([SEARCH.to_string(), DESCRIBE.to_string(), CALL.to_string()]);
        assert_eq!(list(&url, era, &[]).await, expected);

        // Search: ranked, within the ceiling.
        let found = call(
            &url,
            era,
            &d,
            SEARCH,
            json!({"query": "cancel a bank billet", "limit": 5}),
        )
        .await;
        let hits: Vec<&str> = structured(&found)["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{found}"))
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert!(
            hits[..3].contains(&"banking_charge_bank_billet_cancel"),
            "{found}"
        );
        assert!(hits.iter().all(|h| h.contains("bank_billet")), "{found}");
        let transfers = call(&url, era, &d, SEARCH, json!({"query": "transfer pix ted"})).await;
        assert!(
            structured(&transfers)["tools"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| !t["name"].as_str().unwrap().starts_with("banking_transfer_")),
            "{transfers}"
        );

        // Describe: full descriptors; outside the ceiling is unknown.
        let described = call(
            &url,
            era,
            &d,
            DESCRIBE,
            json!({"names": ["banking_charge_bank_billet_list", "banking_transfer_pix_list"]}),
        )
        .await;
        let sc = structured(&described);
        assert_eq!(
            sc["tools"][0]["name"], "banking_charge_bank_billet_list",
            "{described}"
        );
        assert!(sc["tools"][0]["inputSchema"].is_object(), "{described}");
        assert_eq!(
            sc["unknown"],
            json!(["banking_transfer_pix_list"]),
            "{described}"
        );

        // Call: a read tool runs, with its output schema's structured answer.
        let listed = call(
            &url,
            era,
            &d,
            CALL,
            json!({"name": "banking_charge_bank_billet_list", "arguments": {"per_page": 2}}),
        )
        .await;
        assert_ne!(listed["result"]["isError"], json!(true), "{listed}");
        assert!(!listed["result"]["structuredContent"].is_null(), "{listed}");
        // Input validation is the direct call's.
        let bad = call(
            &url,
            era,
            &d,
            CALL,
            json!({"name": "banking_charge_bank_billet_list", "arguments": {"per_page": "many"}}),
        )
        .await;
        assert_eq!(bad["result"]["isError"], json!(true), "{bad}");
        assert!(bad.to_string().contains("per_page"), "{bad}");
        // Outside the ceiling: refused as unknown.
        let refused = call(
            &url,
            era,
            &d,
            CALL,
            json!({"name": "banking_transfer_pix_list", "arguments": {}}),
        )
        .await;
        assert_unknown_tool(&refused, "banking_transfer_pix_list");
        // Without discovery selected, the discovery tools are unknown.
        let off = call(
            &url,
            era,
            &[("Kobana-Toolsets", "billets")],
            SEARCH,
            json!({"query": "x"}),
        )
        .await;
        assert_unknown_tool(&off, SEARCH);
    }

    // 2026-07-28: a destructive tool called through discovery still asks, and runs once
    // confirmed.
    let page = call(
        &url,
        MODERN,
        &d,
        CALL,
        json!({"name": "banking_charge_bank_billet_list", "arguments": {"per_page": 50}}),
    )
    .await;
    let sc = structured(&page);
    let records = sc
        .as_array()
        .or_else(|| sc["data"].as_array())
        .cloned()
        .unwrap_or_default();
    let open = records
        .iter()
        .find(|r| r["status"] == "opened")
        .unwrap_or_else(|| panic!("an opened billet in {page}"));
    let uid = open["uid"].as_str().unwrap().to_string();
    let args = json!({"id": uid});
    let asked = call(
        &url,
        MODERN,
        &d,
        CALL,
        json!({"name": "banking_charge_bank_billet_cancel", "arguments": args}),
    )
    .await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let state = asked["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let yes = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let (_, ran, _) = post(
        &url,
        MODERN,
        &d,
        None,
        "tools/call",
        json!({"name": CALL, "arguments": {"name": "banking_charge_bank_billet_cancel", "arguments": args}, "requestState": state, "inputResponses": yes}),
    )
    .await;
    assert_ne!(ran["result"]["resultType"], "input_required", "{ran}");
    assert_ne!(ran["result"]["isError"], json!(true), "{ran}");
    let after = call(
        &url,
        MODERN,
        &[],
        "banking_charge_bank_billet_get",
        json!({"id": uid}),
    )
    .await;
    assert_eq!(structured(&after)["status"], "canceled", "{after}");
}

#[tokio::test]
async fn discovery_over_stdio() {
    let mut s = Stdio2::start(&["--discovery"], &[], None);
    assert_eq!(
        s.tools().await,
        BTreeSet::from([SEARCH.to_string(), DESCRIBE.to_string(), CALL.to_string()])
    );
    let found = s
        .request(
            "tools/call",
            json!({"name": SEARCH, "arguments": {"query": "transferência pix"}}),
        )
        .await;
    let first = structured(&found)["tools"][0]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(first.contains("pix"), "{found}");
    // `--discovery` alone reaches every tool of the (unrestricted) ceiling.
    let out = s
        .request(
            "tools/call",
            json!({"name": CALL, "arguments": {"name": "banking_transfer_pix_list", "arguments": {"per_page": 1}}}),
        )
        .await;
    assert_ne!(out["result"]["isError"], json!(true), "{out}");
    // Directly, the same tool is not listed, so it is unknown.
    let direct = s
        .request(
            "tools/call",
            json!({"name": "banking_transfer_pix_list", "arguments": {}}),
        )
        .await;
    assert_unknown_tool(&direct, "banking_transfer_pix_list");
}

/// The `tools/list` bytes the generated docs give per toolset are what the server sends.
#[tokio::test]
async fn the_documented_listing_bytes_are_what_the_server_sends() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let loaded = codegen::load_all(&root.join("catalog")).unwrap();
    // The server speaks banking's own language (pt-BR) to a client naming none: the docs' figures
    // are that listing's.
    let catalog = &loaded
        .iter()
        .find(|l| l.catalog.product.name == "banking")
        .unwrap()
        .localized
        .iter()
        .find(|lc| lc.locale == runtime_model::locale::Locale::PtBr)
        .expect("banking in pt-BR")
        .catalog;
    let s = http("banking", &[]).await;
    let url = s.url("/mcp");
    let sets = codegen::toolsets::resolve(catalog);
    for (ts, set) in catalog.toolsets.iter().zip(sets) {
        let (_, v, _) = post(
            &url,
            LEGACY,
            &[("Kobana-Toolsets", ts.name.as_str())],
            None,
            "tools/list",
            json!({}),
        )
        .await;
        let sent = serde_json::to_string(&v["result"]).unwrap().len();
        assert_eq!(
            sent,
            codegen::toolsets::listing_bytes(
                &codegen::toolsets::DescriptorSizes::of(catalog),
                &set
            ),
            "toolset {}",
            ts.name
        );
    }
}

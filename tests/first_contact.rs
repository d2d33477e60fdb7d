//! What a person meets first (issue 36): a 404 that names the paths the server serves, one
//! product answering at its own `/<product>/mcp` too, the README's first `curl` calls answered,
//! a mistyped subcommand never pointed at a hidden one, an unknown toolset said once, and a
//! stdio token pasted with its `Bearer ` scheme taken.

#[path = "support/shell.rs"]
mod shell;
#[path = "support/skip.rs"]
mod skip;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use test_support::process::{free_port, start, Running};

const BIN: &str = env!("CARGO_BIN_EXE_kobana-mcp");

fn kobana(data_dir: &std::path::Path) -> Command {
    test_support::process::kobana(BIN, data_dir)
}

fn serve_http(dir: &std::path::Path, product: &str) -> (Running, String) {
    let port = free_port();
    let mut cmd = kobana(dir);
    cmd.args(["serve", product, "--http", &format!("127.0.0.1:{port}")]);
    (start(cmd, port), format!("http://127.0.0.1:{port}"))
}

/// A `tools/list` POST at `url`: the status and the body (JSON when it is).
async fn list_at(url: &str) -> (u16, Option<String>, Value) {
    let resp = reqwest::Client::new()
        .post(url)
        .bearer_auth("demo-full")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .send()
        .await
        .expect("the server answers");
    let status = resp.status().as_u16();
    let kind = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let text = resp.text().await.unwrap_or_default();
    (
        status,
        kind,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

fn assert_names_paths(body: &Value, kind: Option<&str>, asked: &str, paths: &[String]) {
    assert_eq!(kind, Some("application/json"), "{body}");
    assert_eq!(body["error"], "not_found", "{body}");
    assert_eq!(body["paths"], json!(paths), "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(message.contains(asked), "{message}");
    for p in paths {
        assert!(message.contains(p.as_str()), "{message} does not name {p}");
    }
}

#[tokio::test]
async fn one_product_answers_at_its_own_path_too_and_a_wrong_path_names_the_right_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, base) = serve_http(dir.path(), "banking");
    for path in ["/mcp", "/banking/mcp", "/banking/readonly/mcp"] {
        let (status, _, body) = list_at(&format!("{base}{path}")).await;
        assert_eq!(status, 200, "{path}: {body}");
        assert!(body["result"]["tools"].is_array(), "{path}: {body}");
    }
    let served = ["/mcp".to_string(), "/banking/mcp".to_string()];
    let (status, kind, body) = list_at(&format!("{base}/bankin/mcp")).await;
    assert_eq!(status, 404, "{body}");
    assert_names_paths(&body, kind.as_deref(), "/bankin/mcp", &served);
    // Any method, any unknown path.
    let resp = reqwest::get(format!("{base}/nowhere")).await.unwrap();
    assert_eq!(resp.status().as_u16(), 404);
    let kind = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body: Value = resp.json().await.expect("a JSON body");
    assert_names_paths(&body, kind.as_deref(), "/nowhere", &served);
    // The routes beside the MCP ones still answer.
    let resp = reqwest::get(format!("{base}/healthz")).await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
}

/// The 404's message is in the server's language (the product's default: pt-BR for banking,
/// es for finance) or the request's `Accept-Language`, says which (`Content-Language`), and is
/// the runtime text table's entry in that language.
#[tokio::test]
async fn the_404_speaks_the_servers_language_or_the_requests() {
    use runtime_model::locale::Locale;
    use runtime_model::texts::Text;
    let dir = tempfile::tempdir().unwrap();
    for (product, default) in [("banking", Locale::PtBr), ("finance", Locale::Es)] {
        let (_server, base) = serve_http(dir.path(), product);
        let served = format!("/mcp, /{product}/mcp");
        for (accept, locale) in [
            (None, default),
            (Some("pt-BR"), Locale::PtBr),
            (Some("es-AR, en;q=0.5"), Locale::Es),
            (Some("en-US"), Locale::En),
            (Some("fr"), default),
        ] {
            let mut req = reqwest::Client::new().get(format!("{base}/nowhere"));
            if let Some(a) = accept {
                req = req.header("Accept-Language", a);
            }
            let resp = req.send().await.unwrap();
            assert_eq!(resp.status().as_u16(), 404);
            let language = resp
                .headers()
                .get("content-language")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            assert_eq!(
                language.as_deref(),
                Some(locale.tag()),
                "{product} {accept:?}"
            );
            let body: Value = resp.json().await.expect("a JSON body");
            let expected =
                Text::HttpNoEndpoint.fill(locale, &[("path", &"/nowhere"), ("paths", &served)]);
            assert_eq!(body["message"], expected, "{product} {accept:?}");
        }
    }
}

#[tokio::test]
async fn serve_all_answers_a_bare_mcp_with_a_404_naming_each_products_path() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, base) = serve_http(dir.path(), "all");
    let served: Vec<String> = generated::PRODUCTS
        .iter()
        .map(|p| format!("/{}/mcp", p.name))
        .collect();
    let (status, kind, body) = list_at(&format!("{base}/mcp")).await;
    assert_eq!(status, 404, "{body}");
    assert_names_paths(&body, kind.as_deref(), "/mcp", &served);
}

/// The README's `curl` commands that call an MCP endpoint, sent as written (host and port
/// replaced by the test server's): each is answered 200 with a JSON-RPC result.
#[tokio::test]
async fn the_readmes_first_calls_are_answered() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let calls: Vec<Vec<String>> = shell::commands(&readme, "curl ")
        .iter()
        .map(|c| shell::words(c))
        .filter(|w| {
            w.iter()
                .any(|w| w.starts_with("http://") && w.ends_with("/mcp"))
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let (_server, base) = serve_http(dir.path(), "all");
    let mut methods = Vec::new();
    for words in &calls {
        let client = reqwest::Client::new();
        let mut url = None;
        let mut headers = Vec::new();
        let mut body = None;
        let mut i = 1;
        while i < words.len() {
            match words[i].as_str() {
                "-H" | "--header" => {
                    headers.push(words[i + 1].clone());
                    i += 1;
                }
                "-d" | "--data" | "--data-raw" => {
                    body = Some(words[i + 1].clone());
                    i += 1;
                }
                "-s" | "--silent" => {}
                w if w.starts_with("http://") => url = Some(w.to_string()),
                w => panic!("the README's curl has an option this test does not know: {w}"),
            }
            i += 1;
        }
        let url = url.expect("a URL").replace("http://127.0.0.1:8080", &base);
        let body = body.expect("a request body (-d)");
        let message: Value = serde_json::from_str(&body)
            .unwrap_or_else(|e| panic!("the README's request body is not JSON ({e}): {body}"));
        methods.push(message["method"].as_str().unwrap_or_default().to_string());
        let mut req = client.post(&url).body(body.clone());
        for h in &headers {
            let (name, value) = h.split_once(':').expect("a `Name: value` header");
            req = req.header(name.trim(), value.trim());
        }
        let resp = req.send().await.expect("the server answers");
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap_or_default();
        assert_eq!(status, 200, "{url} {body}: {text}");
        let answer: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("not one JSON message ({e}): {text}"));
        assert_eq!(answer["id"], message["id"], "{text}");
        assert!(answer.get("error").is_none(), "{text}");
        assert!(answer["result"].is_object(), "{text}");
        assert_ne!(answer["result"]["isError"], json!(true), "{text}");
    }
    assert!(
        methods.contains(&"initialize".to_string()) && methods.contains(&"tools/call".to_string()),
        "the README shows no first call (initialize, then tools/call): {methods:?}"
    );
}

#[test]
fn a_mistyped_subcommand_is_not_pointed_at_a_hidden_one() {
    let out = Command::new(BIN).arg("serv").output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("'serve'"), "{err}");
    assert!(!err.contains("serve-fixture"), "{err}");
}

#[test]
fn an_unknown_toolset_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = kobana(dir.path())
        .args([
            "serve",
            "all",
            "--http",
            "127.0.0.1:0",
            "--toolsets",
            "bilets",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.matches("unknown toolset `bilets`").count(),
        1,
        "said more than once: {err}"
    );
    assert_eq!(err.matches("known: ").count(), 1, "{err}");
}

#[test]
fn a_stdio_token_written_with_its_bearer_scheme_is_taken_with_a_notice() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Running(
        kobana(dir.path())
            .args(["serve", "billing", "--stdio"])
            .env("KOBANA_ACCESS_TOKEN", "Bearer demo-full")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut stdin = child.0.stdin.take().unwrap();
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    writeln!(stdin, "{list}").unwrap();
    let mut line = String::new();
    BufReader::new(child.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
    assert!(v["result"]["tools"].is_array(), "{v}");
    drop(stdin);
    let mut err = String::new();
    for l in BufReader::new(child.0.stderr.take().unwrap()).lines() {
        let l = l.unwrap_or_default();
        err.push_str(&l);
        err.push('\n');
        if l.contains("Bearer") {
            break;
        }
    }
    assert!(
        err.contains("KOBANA_ACCESS_TOKEN starts with `Bearer `"),
        "no notice: {err}"
    );
}

/// Over stdio in proxy mode, an identity service that does not answer is not a refused token:
/// the server starts, lists its tools, answers each call that the service is unreachable (never
/// "not accepted"), and asks it again on the next call, which runs once the service is up.
#[test]
fn stdio_starts_and_lists_tools_while_the_identity_service_is_unreachable() {
    let (api_dir, mcp_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // Nothing listens here until the API starts below.
    let api_port = free_port();
    let mut child = Running(
        kobana(mcp_dir.path())
            .args(["serve", "banking", "--stdio"])
            .args([
                "--upstream",
                &format!("http://127.0.0.1:{api_port}/{{product}}"),
            ])
            .env("KOBANA_ACCESS_TOKEN", "demo-full")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut stdin = child.0.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.0.stdout.take().unwrap());
    let mut ask = |req: Value| -> Value {
        writeln!(stdin, "{req}").unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    };
    let init = ask(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}),
    );
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    let list = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let tools = list["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!tools.is_empty(), "{list}");
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "banking_charge_bank_billet_list", "arguments": {"per_page": 2}}});
    let refused = ask(call.clone());
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    // In banking's language (pt-BR: no Accept-Language on stdio, no --locale).
    assert!(
        message.contains("o serviço de identidade não responde"),
        "{refused}"
    );
    assert!(!message.contains("não foi aceito"), "{refused}");
    // The service comes up: the next call asks it again and runs.
    let mut api = kobana(api_dir.path());
    api.args([
        "sandbox",
        "serve-api",
        "--http",
        &format!("127.0.0.1:{api_port}"),
    ]);
    let _api = start(api, api_port);
    let ran = ask(call);
    assert!(ran["result"]["content"].is_array(), "{ran}");
    assert_ne!(ran["result"]["isError"], json!(true), "{ran}");
}

/// One tool call over stdio (2026 `_meta`, no handshake) with `--data-dir <data_dir>`.
fn stdio_call(data_dir: &str, tool: &str, arguments: Value) -> Value {
    let mut child = Running(
        Command::new(BIN)
            .args(["--data-dir", data_dir, "serve", "billing", "--stdio"])
            .env("KOBANA_ACCESS_TOKEN", "demo-full")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut stdin = child.0.stdin.take().unwrap();
    let req = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    writeln!(stdin, "{req}").unwrap();
    let mut line = String::new();
    BufReader::new(child.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

/// The application error of a tool result: its code and message.
fn tool_error(v: &Value) -> (String, String) {
    assert_eq!(v["result"]["isError"], json!(true), "{v}");
    let e = &v["result"]["structuredContent"]["error"];
    (
        e["code"].as_str().unwrap_or_default().to_string(),
        e["message"].as_str().unwrap_or_default().to_string(),
    )
}

/// A small tmpfs of its own (root, `mount`), unmounted when dropped, pass or fail: a disk a
/// test can fill. `None` when `KOBANA_TEST_SKIP=mount` opts out (said aloud); a failure to mount
/// otherwise fails the test.
struct SmallDisk(tempfile::TempDir);

impl SmallDisk {
    fn mount(size: &str, test: &str) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output();
        match mounted {
            Ok(o) if o.status.success() => Some(SmallDisk(dir)),
            other => {
                if skip::opted_out("mount", test, "cannot mount a tmpfs to fill") {
                    return None;
                }
                panic!("mount -t tmpfs (root) is needed to fill a disk (KOBANA_TEST_SKIP=mount opts out): {other:?}");
            }
        }
    }

    fn path(&self) -> &std::path::Path {
        self.0.path()
    }

    /// Fills the disk: one file takes every free block. Answers the file, whose removal frees
    /// the space again.
    fn fill(&self) -> std::path::PathBuf {
        let filler = self.path().join("filler");
        let mut f = std::fs::File::create(&filler).unwrap();
        let block = vec![0u8; 16 * 1024];
        while f.write_all(&block).is_ok() {}
        let _ = f.sync_all();
        filler
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(self.0.path()).status();
    }
}

/// An unusable data directory is the sandbox's local storage failing, not the Kobana API: the
/// call answers `sandbox_error` naming the directory and why.
#[test]
fn an_unusable_data_directory_is_a_sandbox_error_naming_it() {
    let v = stdio_call("/proc/nope", "billing_customers_list", json!({}));
    let (code, message) = tool_error(&v);
    assert_eq!(code, "sandbox_error", "{v}");
    assert!(message.contains("/proc/nope"), "{message}");
    assert!(!message.contains("Kobana API"), "{message}");
}

/// A full disk: the call that needs to write answers `sandbox_error` saying so, and `/readyz`
/// turns 503 naming the storage, until space is freed. Needs a small tmpfs (root, `mount`).
#[tokio::test]
async fn a_full_disk_is_a_sandbox_error_and_readyz_says_so() {
    let Some(mnt) = SmallDisk::mount("8m", "a_full_disk_is_a_sandbox_error_and_readyz_says_so")
    else {
        return;
    };
    let data = mnt.path().join("data");
    let port = free_port();
    let mut cmd = kobana(&data);
    cmd.current_dir(mnt.path());
    cmd.args(["serve", "billing", "--http", &format!("127.0.0.1:{port}")]);
    let _server = start(cmd, port);
    let readyz = || async move {
        let resp = reqwest::get(format!("http://127.0.0.1:{port}/readyz"))
            .await
            .unwrap();
        (
            resp.status().as_u16(),
            resp.text().await.unwrap_or_default(),
        )
    };
    let (status, body) = readyz().await;
    assert_eq!(status, 200, "{body}");
    let filler = mnt.fill();
    let (status, body) = readyz().await;
    assert_eq!(status, 503, "{body}");
    let line = body
        .lines()
        .find(|l| l.starts_with("sandbox: not ready"))
        .unwrap_or_else(|| panic!("{body}"));
    assert!(line.contains("storage") && line.contains("space"), "{line}");
    // The first call seeds the caller's scope: a write the full disk refuses.
    let url = format!("http://127.0.0.1:{port}/billing/mcp");
    let (_, v) = list_call(&url, "billing_customers_list").await;
    let (code, message) = tool_error(&v);
    assert_eq!(code, "sandbox_error", "{v}");
    assert!(message.contains("full"), "{message}");
    std::fs::remove_file(&filler).unwrap();
    let (status, body) = readyz().await;
    assert_eq!(status, 200, "{body}");
}

/// An audit file on a full disk (issue 37, item 3): a write is refused before it runs with
/// `audit_unavailable` (no record is changed, no partial line is written), reads still answer,
/// `/readyz` turns 503 naming the audit file, and once space is freed the write runs and its
/// record is one whole line. Needs a small tmpfs (root, `mount`).
#[tokio::test]
async fn an_audit_file_on_a_full_disk_refuses_writes_before_they_run() {
    let Some(mnt) = SmallDisk::mount(
        "16m",
        "an_audit_file_on_a_full_disk_refuses_writes_before_they_run",
    ) else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let audit = mnt.path().join("audit.jsonl");
    let port = free_port();
    let mut cmd = kobana(data.path());
    cmd.args(["serve", "billing", "--http", &format!("127.0.0.1:{port}")]);
    cmd.arg("--audit-file").arg(&audit);
    let _server = start(cmd, port);
    let url = format!("http://127.0.0.1:{port}/billing/mcp");
    let readyz = || async move {
        let resp = reqwest::get(format!("http://127.0.0.1:{port}/readyz"))
            .await
            .unwrap();
        (
            resp.status().as_u16(),
            resp.text().await.unwrap_or_default(),
        )
    };
    let create = |name: &'static str| {
        let url = url.clone();
        async move {
            let resp = reqwest::Client::new()
                .post(&url)
                .bearer_auth("demo-full")
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "2025-11-25")
                .json(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                    "params": {"name": "billing_customers_create", "arguments": {
                        "name": name, "email": "audit@example.com", "document": "52998224725"}}}))
                .send()
                .await
                .expect("the server answers");
            resp.json::<Value>().await.unwrap_or(Value::Null)
        }
    };
    let customers = || async {
        let (_, v) = list_call(&url, "billing_customers_list").await;
        v.to_string()
    };
    let (status, body) = readyz().await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("audit"), "{body}");
    let filler = mnt.fill();
    let (status, body) = readyz().await;
    assert_eq!(status, 503, "{body}");
    let line = body
        .lines()
        .find(|l| l.starts_with("audit: not ready"))
        .unwrap_or_else(|| panic!("{body}"));
    assert!(line.contains("audit.jsonl"), "{line}");
    let v = create("Refused While Full").await;
    let (code, _) = tool_error(&v);
    assert_eq!(code, "audit_unavailable", "{v}");
    assert!(
        !customers().await.contains("Refused While Full"),
        "the refused write ran"
    );
    std::fs::remove_file(&filler).unwrap();
    let (status, body) = readyz().await;
    assert_eq!(status, 200, "{body}");
    let v = create("Kept On Record").await;
    assert!(v["result"]["isError"] != json!(true), "{v}");
    assert!(customers().await.contains("Kept On Record"));
    let trail = std::fs::read_to_string(&audit).unwrap();
    assert!(trail.ends_with('\n'), "{trail}");
    let records: Vec<Value> = trail
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    for record in &records {
        assert_eq!(record["tool"], "billing_customers_create", "{record}");
    }
    // The refusal is on record too: it lands in the room reserved past the file's end.
    let outcomes: Vec<(&str, &str)> = records
        .iter()
        .map(|r| {
            (
                r["arguments"]["name"].as_str().unwrap_or_default(),
                r["error_code"].as_str().unwrap_or("none"),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("Refused While Full", "audit_unavailable"),
            ("Kept On Record", "none")
        ],
        "{trail}"
    );
}

/// The disk filling up between a write's check and its record (issue 37; the fault script's
/// full-audit-disk phase saw one acknowledged write without a record): the check reserves room
/// for the record past the file's end, so the record still lands, whole, on a disk that was
/// filled in between; and the next check refuses. Needs a small tmpfs (root, `mount`).
#[test]
fn a_record_checked_ready_lands_even_when_the_disk_fills_before_it() {
    use runtime::telemetry::audit::{AuditSink, AuditTarget};
    let Some(mnt) = SmallDisk::mount(
        "16m",
        "a_record_checked_ready_lands_even_when_the_disk_fills_before_it",
    ) else {
        return;
    };
    let path = mnt.path().join("audit.jsonl");
    let sink = AuditSink::open(AuditTarget::File {
        path: path.clone(),
        max_bytes: 100 * 1024 * 1024,
        keep: 1,
    })
    .expect("the audit file opens");
    sink.ready().expect("an empty disk is ready");
    let _filler = mnt.fill();
    // Larger than whatever the filler's 16 KiB blocks may have left free.
    let record = json!({"tool": "billing_customers_create", "pad": "x".repeat(64 * 1024)});
    sink.write(&record);
    let trail = std::fs::read_to_string(&path).unwrap();
    assert_eq!(trail.lines().count(), 1, "the record was lost");
    let line: Value = serde_json::from_str(trail.trim_end()).expect("one whole line");
    assert_eq!(line, record);
    assert!(sink.ready().is_err(), "a full disk is not ready");
}

/// A `tools/call` of `tool` (no arguments) over HTTP as `demo-full`.
async fn list_call(url: &str, tool: &str) -> (u16, Value) {
    let resp = reqwest::Client::new()
        .post(url)
        .bearer_auth("demo-full")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25")
        .json(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": tool, "arguments": {}}}))
        .send()
        .await
        .expect("the server answers");
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

//! The `kobana-mcp` binary: help, sandbox management, serving every product with no
//! configuration, stdio, and proxy mode against `sandbox serve-api`.

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

async fn rpc(url: &str, token: Option<&str>, method: &str, params: Value) -> (u16, Value) {
    let mut req = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-06-18")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// The first list tool of a product bound to HTTP, among those a client naming no toolset gets
/// (the product's default selection).
fn list_tool(product: &str) -> &'static str {
    let p = generated::product(product).unwrap();
    let default = runtime_model::selection::Ceiling::new(p, &Default::default())
        .unwrap()
        .default_selection();
    p.tools
        .iter()
        .enumerate()
        .find(|(i, t)| {
            default.visible(*i)
                && matches!(t.operation, runtime_model::catalog::Operation::List { .. })
                && matches!(t.binding, runtime_model::catalog::Binding::Http(_))
        })
        .unwrap()
        .1
        .name
}

#[test]
fn every_subcommand_has_help() {
    for args in [
        vec!["--help"],
        vec!["serve", "--help"],
        vec!["sandbox", "--help"],
        vec!["sandbox", "seed", "--help"],
        vec!["sandbox", "reset", "--help"],
        vec!["sandbox", "serve-api", "--help"],
    ] {
        let out = Command::new(BIN).args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Usage:"), "{args:?}: {text}");
    }
    let serve = Command::new(BIN)
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&serve.stdout);
    for flag in [
        "--stdio",
        "--http",
        "--upstream",
        "--data-dir",
        "--config",
        "--result-budget-tokens",
    ] {
        assert!(text.contains(flag), "serve --help lacks {flag}");
    }
}

#[test]
fn unknown_products_and_bad_config_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = kobana(dir.path())
        .args(["serve", "bankinq", "--http", "127.0.0.1:1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown product `bankinq`") && err.contains("banking"),
        "{err}"
    );

    let cfg = dir.path().join("bad.toml");
    std::fs::write(&cfg, "[serve]\nhtpp = \"x\"\n").unwrap();
    let out = kobana(dir.path())
        .arg("--config")
        .arg(&cfg)
        .args(["serve", "all"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml") && err.contains("htpp"), "{err}");
}

#[test]
fn sandbox_seed_and_reset() {
    let dir = tempfile::tempdir().unwrap();
    let out = kobana(dir.path())
        .args(["sandbox", "seed", "--products", "banking,inbox"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("seeded banking organization=org_demo workspace=-"),
        "{text}"
    );
    assert!(
        text.contains("seeded inbox organization=org_demo workspace=ws_demo_main"),
        "{text}"
    );
    assert!(dir.path().join("sandbox.sqlite3").exists());
    let out = kobana(dir.path())
        .args(["sandbox", "reset", "--products", "banking"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("reset banking: ") && !text.starts_with("reset banking: 0 "),
        "{text}"
    );
}

#[tokio::test]
async fn serve_all_works_with_no_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut cmd = kobana(dir.path());
    cmd.args(["serve", "all", "--http", &format!("127.0.0.1:{port}")]);
    let _server = start(cmd, port);
    for product in generated::PRODUCTS {
        let url = format!("http://127.0.0.1:{port}/{}/mcp", product.name);
        let (status, v) = rpc(&url, Some("demo-full"), "tools/list", json!({})).await;
        assert_eq!(status, 200, "{}: {v}", product.name);
        assert!(
            !v["result"]["tools"].as_array().unwrap().is_empty(),
            "{}",
            product.name
        );
    }
    let url = format!("http://127.0.0.1:{port}/banking/mcp");
    let (status, _) = rpc(&url, None, "tools/list", json!({})).await;
    assert_eq!(status, 401, "no bearer, no access");
    let (_, v) = rpc(
        &url,
        Some("demo-full"),
        "tools/call",
        json!({"name": list_tool("banking"), "arguments": {"per_page": 3}}),
    )
    .await;
    assert_ne!(v["result"]["isError"], json!(true), "{v}");
    let text = v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("\"uid\""), "seeded records come back: {v}");
}

#[test]
fn stdio_serves_one_product() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Running(
        kobana(dir.path())
            .args(["serve", "billing", "--stdio"])
            .env("KOBANA_ACCESS_TOKEN", "demo-full")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut stdin = child.0.stdin.take().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    writeln!(stdin, "{init}").unwrap();
    let mut line = String::new();
    BufReader::new(child.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["id"], 1);
    assert!(
        v["result"]["serverInfo"]["name"]
            .as_str()
            .unwrap()
            .contains("billing"),
        "{v}"
    );
    let out = kobana(dir.path())
        .args(["serve", "all", "--stdio"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("--stdio serves one product"));
}

#[tokio::test]
async fn proxy_mode_against_serve_api() {
    let (api_dir, mcp_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
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
    let mut mcp = kobana(mcp_dir.path());
    mcp.args([
        "serve",
        "banking",
        "--http",
        &format!("127.0.0.1:{port}"),
        "--upstream",
        &format!("http://127.0.0.1:{api_port}/{{product}}"),
        "--auth",
        "embedded",
    ]);
    let _mcp = start(mcp, port);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (_, v) = rpc(
        &url,
        Some("demo-full"),
        "tools/call",
        json!({"name": list_tool("banking"), "arguments": {"per_page": 2}}),
    )
    .await;
    let text = v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("\"uid\""), "records come from serve-api: {v}");
    assert!(api_dir.path().join("sandbox.sqlite3").exists());
    assert!(
        !mcp_dir.path().join("sandbox.sqlite3").exists(),
        "proxy mode opens no sandbox"
    );
}

#[tokio::test]
async fn inbox_eml_links_download_from_the_mcp_server() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut cmd = kobana(dir.path());
    cmd.args(["serve", "all", "--http", &format!("127.0.0.1:{port}")]);
    let _server = start(cmd, port);
    let url = format!("http://127.0.0.1:{port}/inbox/mcp");
    let structured = |v: &Value| -> Value {
        let text = v["result"]["content"][0]["text"].as_str().unwrap_or("null");
        serde_json::from_str(text).unwrap_or(Value::Null)
    };
    let (_, v) = rpc(
        &url,
        Some("demo-full"),
        "tools/call",
        json!({"name": "emails_list", "arguments": {"per_page": 1}}),
    )
    .await;
    let list = structured(&v);
    let id = runtime::backend::list_items(&list)
        .and_then(|a| a.first())
        .map(|e| e["uid"].clone())
        .unwrap_or(Value::Null);
    assert!(id.is_string(), "{v}");
    let (_, v) = rpc(
        &url,
        Some("demo-full"),
        "tools/call",
        json!({"name": "emails_get_eml", "arguments": {"id": id}}),
    )
    .await;
    let link = structured(&v);
    let link = runtime::backend::records::record(&link)
        .cloned()
        .unwrap_or_default();
    let download = link["url"].as_str().unwrap_or_else(|| panic!("{v}"));
    assert!(
        download.starts_with(&format!("http://127.0.0.1:{port}/files/inbox/emails/")),
        "{download}"
    );
    let resp = reqwest::get(download).await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "message/rfc822");
    let forged = download.replace("expires=", "expires=9");
    assert_eq!(reqwest::get(&forged).await.unwrap().status(), 403);
}

#[tokio::test]
async fn flags_beat_environment_which_beats_the_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let (file_port, env_port, flag_port) = (free_port(), free_port(), free_port());
    let cfg = dir.path().join("k.toml");
    std::fs::write(&cfg, format!("[serve]\nhttp = \"127.0.0.1:{file_port}\"\n")).unwrap();
    let probe = |port: u16| async move {
        let url = format!("http://127.0.0.1:{port}/billing/mcp");
        rpc(&url, Some("demo-full"), "tools/list", json!({}))
            .await
            .0
    };
    {
        let mut cmd = kobana(dir.path());
        cmd.arg("--config").arg(&cfg).args(["serve", "all"]);
        let _s = start(cmd, file_port);
        assert_eq!(probe(file_port).await, 200, "the file's address");
    }
    {
        let mut cmd = kobana(dir.path());
        cmd.arg("--config").arg(&cfg).args(["serve", "all"]);
        cmd.env("KOBANA_HTTP_ADDR", format!("127.0.0.1:{env_port}"));
        let _s = start(cmd, env_port);
        assert_eq!(
            probe(env_port).await,
            200,
            "the environment wins over the file"
        );
    }
    let mut cmd = kobana(dir.path());
    cmd.arg("--config").arg(&cfg).args([
        "serve",
        "all",
        "--http",
        &format!("127.0.0.1:{flag_port}"),
    ]);
    cmd.env("KOBANA_HTTP_ADDR", format!("127.0.0.1:{env_port}"));
    let _s = start(cmd, flag_port);
    assert_eq!(
        probe(flag_port).await,
        200,
        "the flag wins over the environment"
    );
}

/// The result budget comes from the flag, else `KOBANA_RESULT_BUDGET_TOKENS`, else
/// `serve.result_budget_tokens`: a list answer over it carries the cut note as a second text block.
#[tokio::test]
async fn the_result_budget_is_set_by_flag_environment_or_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("k.toml");
    std::fs::write(&cfg, "[serve]\nresult_budget_tokens = 100\n").unwrap();
    let tool = "banking_charge_bank_billet_list";
    let cut = |port: u16| async move {
        let url = format!("http://127.0.0.1:{port}/banking/mcp");
        let (status, body) = rpc(
            &url,
            Some("demo-full"),
            "tools/call",
            json!({"name": tool, "arguments": {"per_page": 20}}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let content = body["result"]["content"].as_array().unwrap().clone();
        content.len() > 1
            && content[1]["text"]
                .as_str()
                // In banking's own language (pt-BR), the request naming none.
                .is_some_and(|t| t.contains("limite de resultado de"))
    };
    let serve = |port: u16, env: Option<&str>, flag: Option<&str>| {
        let mut cmd = kobana(dir.path());
        cmd.arg("--config").arg(&cfg).args([
            "serve",
            "all",
            "--http",
            &format!("127.0.0.1:{port}"),
        ]);
        if let Some(v) = env {
            cmd.env("KOBANA_RESULT_BUDGET_TOKENS", v);
        }
        if let Some(v) = flag {
            cmd.args(["--result-budget-tokens", v]);
        }
        start(cmd, port)
    };
    {
        let port = free_port();
        let _s = serve(port, None, None);
        assert!(
            cut(port).await,
            "the config file's budget (100 tokens) cuts 20 records"
        );
    }
    {
        let port = free_port();
        let _s = serve(port, Some("0"), None);
        assert!(
            !cut(port).await,
            "the environment (0: never) wins over the file"
        );
    }
    let port = free_port();
    let _s = serve(port, Some("0"), Some("100"));
    assert!(cut(port).await, "the flag wins over the environment");
}

/// A 2026-07-28 request declaring form elicitation, over Streamable HTTP (JSON or SSE answer).
async fn modern_rpc(url: &str, token: &str, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    });
    let mut req = reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method);
    if let Some(name) = params["name"].as_str() {
        req = req.header("Mcp-Name", name);
    }
    let text = req
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let sse_message = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .rfind(|m| m.get("id").is_some());
    sse_message.unwrap_or_else(|| serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// A billing delete tool taking only the record id, with the list tool that finds ids.
fn billing_delete_target() -> (&'static str, &'static str, &'static str, &'static str) {
    use runtime_model::catalog::Operation;
    let p = generated::product("billing").unwrap();
    let required = |t: &runtime_model::catalog::Tool| -> Vec<String> {
        let s: Value = serde_json::from_str(t.input_schema_json).unwrap();
        s["required"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    for del in p.tools.iter().filter(|t| t.annotations.destructive) {
        let Operation::Delete { record, id_arg } = del.operation else {
            continue;
        };
        if required(del) != [id_arg.to_string()] {
            continue;
        }
        let list = p.tools.iter().find(|t| {
            matches!(t.operation, Operation::List { record: r } if r == record)
                && matches!(t.binding, runtime_model::catalog::Binding::Http(_))
                && required(t).is_empty()
        });
        if let (Some(list), Some(rec)) = (list, p.record(record)) {
            return (del.name, id_arg, list.name, rec.id_field);
        }
    }
    panic!("billing has no destructive delete tool with a listable record");
}

/// Issue 4: two `serve billing --http` processes sharing KOBANA_LEDGER (Redis) and
/// KOBANA_STATE_KEYS (and, like one deployment, one sandbox store). A destructive call confirmed
/// on A runs there once; replayed on B, it is not run again: B asks again with the replay notice
/// (billing policy). Without the shared ledger B would run it (and answer `not_found`).
#[tokio::test]
async fn a_confirmation_used_on_one_instance_is_not_run_again_on_another() {
    if skip::opted_out(
        "redis",
        "a_confirmation_used_on_one_instance_is_not_run_again_on_another",
        "needs Redis (REDIS_URL)",
    ) {
        return;
    }
    let redis = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    if let Err(e) = runtime::confirm::RedisLedger::new(&redis)
        .unwrap_or_else(|e| panic!("REDIS_URL={redis} is not a Redis URL: {e}"))
        .check()
        .await
    {
        panic!("this test needs Redis at {redis} ({e}): scripts/test.sh starts one and sets REDIS_URL; or KOBANA_TEST_SKIP=redis to skip it");
    }
    let keys = format!("test1:{}", "ab".repeat(32));
    let dir = tempfile::tempdir().unwrap();
    let serve = |dir: &std::path::Path, port: u16| {
        let mut cmd = kobana(dir);
        cmd.args(["serve", "billing", "--http", &format!("127.0.0.1:{port}")])
            .env("KOBANA_LEDGER", &redis)
            .env("KOBANA_STATE_KEYS", &keys);
        start(cmd, port)
    };
    let (port_a, port_b) = (free_port(), free_port());
    let _a = serve(dir.path(), port_a);
    let _b = serve(dir.path(), port_b);
    let url_a = format!("http://127.0.0.1:{port_a}/mcp");
    let url_b = format!("http://127.0.0.1:{port_b}/mcp");
    let (delete, id_arg, list, id_field) = billing_delete_target();

    let listed = modern_rpc(
        &url_a,
        "demo-full",
        "tools/call",
        json!({"name": list, "arguments": {}}),
    )
    .await;
    let text = listed["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let body: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("{listed}"));
    let first = body["data"]
        .as_array()
        .and_then(|a| a.first())
        .or_else(|| body.as_array().and_then(|a| a.first()))
        .unwrap_or_else(|| panic!("no records: {listed}"));
    let id = first[id_field].clone();
    let args = json!({ id_arg: id });
    let listed_on = |url: String| async move {
        let v = modern_rpc(
            &url,
            "demo-full",
            "tools/call",
            json!({"name": list, "arguments": {}}),
        )
        .await;
        v["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let id_text = id.to_string();
    assert!(
        listed_on(url_b.clone()).await.contains(&id_text),
        "B sees the record"
    );

    let question = modern_rpc(
        &url_a,
        "demo-full",
        "tools/call",
        json!({"name": delete, "arguments": args}),
    )
    .await;
    assert_eq!(
        question["result"]["resultType"], "input_required",
        "{question}"
    );
    let state = question["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let yes = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let confirmed =
        json!({"name": delete, "arguments": args, "requestState": state, "inputResponses": yes});
    let ran = modern_rpc(&url_a, "demo-full", "tools/call", confirmed.clone()).await;
    assert_ne!(
        ran["result"]["isError"],
        json!(true),
        "runs once on A: {ran}"
    );
    assert_ne!(
        ran["result"]["resultType"], "input_required",
        "runs once on A: {ran}"
    );

    let replay = modern_rpc(&url_b, "demo-full", "tools/call", confirmed).await;
    assert_eq!(
        replay["result"]["resultType"], "input_required",
        "asked again on B: {replay}"
    );
    assert!(
        replay
            .to_string()
            .contains(runtime_model::errors::replay_notice(
                runtime_model::locale::Locale::PtBr
            )),
        "B warns the approval was used, in billing's own language: {replay}"
    );
    assert!(
        !listed_on(url_b.clone()).await.contains(&id_text),
        "the confirmed delete ran once"
    );
}

/// The ledger and the requestState keys come from flags, then KOBANA_LEDGER / KOBANA_STATE_KEYS,
/// then the config file; a bad value stops the server with an error naming the setting and what
/// is wrong with it.
#[test]
fn bad_ledger_and_state_keys_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let fails = |cmd: &mut Command| -> String {
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = fails(
        kobana(dir.path())
            .args(["serve", "billing", "--http", "127.0.0.1:1"])
            .args(["--ledger", "postgres://db"]),
    );
    assert!(
        err.contains("--ledger") && err.contains("postgres://db"),
        "{err}"
    );

    let err = fails(
        kobana(dir.path())
            .args(["serve", "billing", "--stdio"])
            .env("KOBANA_STATE_KEYS", "k1:not-hex"),
    );
    assert!(
        err.contains("KOBANA_STATE_KEYS") && err.contains("\"k1\" is not valid hexadecimal"),
        "{err}"
    );

    let cfg = dir.path().join("keys.toml");
    std::fs::write(&cfg, "[serve]\nstate_keys = \"k1:abcd\"\n").unwrap();
    let err = fails(kobana(dir.path()).arg("--config").arg(&cfg).args([
        "serve",
        "billing",
        "--http",
        "127.0.0.1:1",
    ]));
    assert!(
        err.contains("serve.state_keys") && err.contains("\"k1\" is 2 bytes"),
        "{err}"
    );
}

#[tokio::test]
async fn ledger_flags_beat_environment_which_beats_the_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("ledger.toml");
    std::fs::write(&cfg, "[serve]\nledger = \"nosuch://file\"\n").unwrap();
    // The file's bad value loses to a good environment value…
    let port = free_port();
    let mut cmd = kobana(dir.path());
    cmd.arg("--config")
        .arg(&cfg)
        .args(["serve", "billing", "--http", &format!("127.0.0.1:{port}")])
        .env("KOBANA_LEDGER", "memory");
    let _env_wins = start(cmd, port);
    // …and a bad environment value loses to a good flag.
    let port = free_port();
    let mut cmd = kobana(dir.path());
    cmd.args(["serve", "billing", "--http", &format!("127.0.0.1:{port}")])
        .args(["--ledger", "memory"])
        .env("KOBANA_LEDGER", "nosuch://env");
    let _flag_wins = start(cmd, port);
}

/// stdio has no Authorization header: proxy mode forwards KOBANA_ACCESS_TOKEN upstream with every
/// call (`sandbox serve-api` here checks it against the demo identities).
#[test]
fn stdio_proxy_forwards_the_access_token() {
    let (api_dir, mcp_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let api_port = free_port();
    let mut api = kobana(api_dir.path());
    api.args([
        "sandbox",
        "serve-api",
        "--http",
        &format!("127.0.0.1:{api_port}"),
    ]);
    let _api = start(api, api_port);
    let call = |token: &str| -> Value {
        let mut child = Running(
            kobana(mcp_dir.path())
                .args(["serve", "banking", "--stdio", "--auth", "embedded"])
                .args([
                    "--upstream",
                    &format!("http://127.0.0.1:{api_port}/{{product}}"),
                ])
                .env("KOBANA_ACCESS_TOKEN", token)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let mut stdin = child.0.stdin.take().unwrap();
        let req = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": list_tool("banking"), "arguments": {"per_page": 2},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}});
        writeln!(stdin, "{req}").unwrap();
        let mut line = String::new();
        BufReader::new(child.0.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        serde_json::from_str(&line).unwrap()
    };
    let v = call("demo-full");
    assert_ne!(v["result"]["isError"], json!(true), "{v}");
    let text = v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("\"uid\""), "records come from serve-api: {v}");
}

/// Over stdio the sandbox opens on the first call, and the private signed-download server starts
/// with it: an inbox `.eml` link handed out over stdio downloads.
#[tokio::test]
async fn stdio_eml_links_download_once_the_sandbox_opened() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Running(
        kobana(dir.path())
            .args(["serve", "inbox", "--stdio"])
            .env("KOBANA_ACCESS_TOKEN", "demo-full")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut stdin = child.0.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.0.stdout.take().unwrap());
    let mut call = |id: u64, name: &str, arguments: Value| -> Value {
        let req = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": name, "arguments": arguments,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}});
        writeln!(stdin, "{req}").unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["id"], id, "{v}");
        let text = v["result"]["content"][0]["text"].as_str().unwrap_or("null");
        serde_json::from_str(text).unwrap_or_else(|_| panic!("{v}"))
    };
    let list = call(1, "emails_list", json!({"per_page": 1}));
    let id = runtime::backend::list_items(&list)
        .and_then(|a| a.first())
        .map(|e| e["uid"].clone())
        .unwrap_or(Value::Null);
    assert!(id.is_string(), "{list}");
    let link = call(2, "emails_get_eml", json!({ "id": id }));
    let link = runtime::backend::records::record(&link)
        .cloned()
        .unwrap_or_default();
    let download = link["url"].as_str().unwrap_or_else(|| panic!("{link:?}"));
    let resp = reqwest::get(download).await.unwrap();
    assert_eq!(resp.status(), 200, "{download}");
    assert_eq!(resp.headers()["content-type"], "message/rfc822");
}

// ---------------------------------------------------------------------------------------------
// First contact and access controls (issue 16)

#[test]
fn help_names_the_endpoints_the_stdio_variables_and_the_demo_tokens() {
    for args in [vec!["--help"], vec!["serve", "--help"]] {
        let out = Command::new(BIN).args(&args).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        for needle in [
            "KOBANA_ACCESS_TOKEN",
            "KOBANA_WORKSPACE_ID",
            "/mcp",
            "/<product>/mcp",
            "/.well-known/oauth-protected-resource",
            "demo-full",
            "runtime/identities.yaml",
            "doctor",
        ] {
            assert!(
                text.contains(needle),
                "{args:?} --help lacks {needle}: {text}"
            );
        }
    }
    let out = Command::new(BIN)
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--rate-limit-reads",
        "--rate-limit-writes",
        "--rate-limit-ip",
        "--scope-challenge",
        "--trust-proxy-headers",
    ] {
        assert!(text.contains(flag), "serve --help lacks {flag}");
    }
    let out = Command::new(BIN)
        .args(["doctor", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
}

#[tokio::test]
async fn http_accepts_a_host_name() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let addr = format!("localhost:{port}");
    let _server = start(
        {
            let mut c = kobana(dir.path());
            c.args(["serve", "billing", "--http", &addr]);
            c
        },
        port,
    );
    let (status, body) = rpc(
        &format!("http://localhost:{port}/mcp"),
        Some("demo-full"),
        "tools/list",
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(body["result"]["tools"].is_array(), "{body}");
}

#[test]
fn stdio_answers_a_rate_limited_call_with_the_retry_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Running(
        kobana(dir.path())
            .args(["serve", "billing", "--stdio", "--rate-limit-reads", "1"])
            .env("KOBANA_ACCESS_TOKEN", "demo-full")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut stdin = child.0.stdin.take().unwrap();
    let mut out = BufReader::new(child.0.stdout.take().unwrap());
    let mut ask = |id: u64, method: &str, params: Value| -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{msg}").unwrap();
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    let init = json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    assert_eq!(ask(1, "initialize", init)["id"], 1);
    let get = json!({"name": "billing_customers_get", "arguments": {"id": "cus_none"}});
    let first = ask(2, "tools/call", get.clone());
    assert!(first.get("result").is_some(), "{first}");
    let second = ask(3, "tools/call", get);
    assert_eq!(second["error"]["code"], -31029, "{second}");
    assert_eq!(second["error"]["data"]["limit"], "reads", "{second}");
    let secs = second["error"]["data"]["retryAfterSecs"]
        .as_u64()
        .unwrap_or(0);
    assert!((1..=60).contains(&secs), "{second}");
}

/// Under `serve all`, a selection naming banking's toolset leaves the other products on their
/// default toolsets, and the check says what each product serves (issue 37, item 11).
#[test]
fn doctor_says_what_each_product_makes_of_a_selection_under_serve_all() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, lines) = doctor(
        dir.path(),
        &["all", "--http", "127.0.0.1:0", "--toolsets", "billets"],
    );
    assert!(ok, "{lines:#?}");
    let line = lines
        .iter()
        .find(|l| l.starts_with("ok    tool selection:"))
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert!(line.contains("banking: toolsets billets"), "{line}");
    for other in ["billing", "finance", "dashboards", "inbox"] {
        assert!(
            line.contains(&format!("{other}: toolsets default")),
            "{line}"
        );
    }
}

/// `doctor`'s lines, and whether it exited 0.
fn doctor(dir: &std::path::Path, args: &[&str]) -> (bool, Vec<String>) {
    let out = kobana(dir)
        .arg("doctor")
        .args(args)
        .env_remove("KOBANA_LEDGER")
        .env_remove("KOBANA_ACCESS_TOKEN")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (
        out.status.success(),
        text.lines().map(String::from).collect(),
    )
}

#[test]
fn doctor_says_what_is_wrong_in_one_line_each() {
    let dir = tempfile::tempdir().unwrap();
    // Port 0: doctor binds the listen address, as serve does; 8080 may be taken on this machine.
    let (ok, lines) = doctor(dir.path(), &["billing", "--http", "127.0.0.1:0"]);
    assert!(ok, "{lines:#?}");
    assert!(
        lines.iter().any(|l| l.starts_with("ok    sandbox:")),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("ok    identities: ")),
        "{lines:#?}"
    );
    assert_eq!(lines.last().map(String::as_str), Some("all checks passed"));

    // Nothing listens on the discard port: the upstream, the identity service and the ledger
    // each get their line, and the exit code says something is wrong.
    let closed = format!("127.0.0.1:{}", free_port());
    std::fs::write(dir.path().join("bad.toml"), "[serve]\nhtpp = 1\n").unwrap();
    let (ok, lines) = doctor(
        dir.path(),
        &[
            "billing",
            "--config",
            "bad.toml",
            "--upstream",
            &format!("http://{closed}/{{product}}"),
            "--upstream-serves",
            "billing",
            "--ledger",
            &format!("redis://{closed}"),
            "--http",
            "not an address",
        ],
    );
    assert!(!ok, "{lines:#?}");
    for prefix in [
        "FAIL  config file:",
        "FAIL  listen address:",
        "FAIL  upstream billing:",
        "FAIL  identity service:",
        "FAIL  ledger:",
    ] {
        let hits: Vec<&String> = lines.iter().filter(|l| l.starts_with(prefix)).collect();
        assert_eq!(hits.len(), 1, "{prefix}: {lines:#?}");
    }
    assert_eq!(lines.last().map(String::as_str), Some("5 check(s) failed"));
    assert!(lines.iter().all(|l| !l.is_empty()), "{lines:#?}");
}

/// Runs `doctor` and then `serve` with the same arguments and environment: doctor's lines and
/// exit, serve's exit code (`None`: it started, listening on `port`, and was stopped) and stderr.
fn doctor_then_serve(
    dir: &std::path::Path,
    args: &[&str],
    env: &[(&str, &str)],
    port: Option<u16>,
) -> (bool, Vec<String>, Option<i32>, String) {
    let command = |sub: &str| {
        let mut c = kobana(dir);
        c.arg(sub)
            .args(args)
            .env_remove("KOBANA_LEDGER")
            .env_remove("KOBANA_ACCESS_TOKEN")
            .env_remove("KOBANA_TOOLSETS")
            .envs(env.iter().copied())
            .stdin(Stdio::null());
        c
    };
    let out = command("doctor").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines = text.lines().map(String::from).collect();
    let mut serve = Running(
        command("serve")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    // A refused setup ends at once; one that starts is stopped once it listens.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let code = loop {
        if let Some(status) = serve.0.try_wait().unwrap() {
            break status.code();
        }
        if port.is_some_and(|p| std::net::TcpStream::connect(("127.0.0.1", p)).is_ok()) {
            break None;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{args:?}: serve neither stopped nor listened"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let _ = serve.0.kill();
    let mut err = String::new();
    if let Some(mut e) = serve.0.stderr.take() {
        std::io::Read::read_to_string(&mut e, &mut err).unwrap();
    }
    (out.status.success(), lines, code, err)
}

/// A new user's setups that `serve` refuses (issue 36): an unknown toolset (flag, variable or
/// config file), a mistyped demo token over stdio on the sandbox, a listen port already taken.
/// `doctor` fails each with one line naming the problem and where it was set, and `serve`
/// refuses it at start with the same words; a good setup passes both.
#[test]
fn doctor_fails_the_setups_serve_refuses_with_the_same_message() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.toml"),
        "[serve]\ntoolsets = [\"bilets\"]\n",
    )
    .unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken_addr = taken.local_addr().unwrap().to_string();
    let cases = [
        (
            vec!["billing", "--http", "127.0.0.1:0", "--toolsets", "bilets"],
            vec![],
            "tool selection: --toolsets: unknown toolset `bilets`".into(),
        ),
        (
            vec!["billing", "--http", "127.0.0.1:0"],
            vec![("KOBANA_TOOLSETS", "bilets")],
            "tool selection: KOBANA_TOOLSETS: unknown toolset `bilets`".into(),
        ),
        (
            vec!["--config", "k.toml", "billing", "--http", "127.0.0.1:0"],
            vec![],
            "tool selection: config file k.toml: serve.toolsets: unknown toolset `bilets`".into(),
        ),
        (
            vec!["billing", "--stdio"],
            vec![("KOBANA_ACCESS_TOKEN", "demo-ful")],
            "stdio caller: KOBANA_ACCESS_TOKEN was not accepted".into(),
        ),
        (
            vec!["billing", "--http", &taken_addr],
            vec![],
            format!("listen address: cannot listen on {taken_addr}"),
        ),
    ];
    for (args, env, problem) in cases {
        let (ok, lines, code, err) = doctor_then_serve(dir.path(), &args, &env, None);
        assert!(!ok, "{args:?} {env:?}: doctor passed: {lines:#?}");
        let fails: Vec<&String> = lines.iter().filter(|l| l.starts_with("FAIL  ")).collect();
        assert_eq!(fails.len(), 1, "{args:?} {env:?}: {lines:#?}");
        assert!(
            fails[0].starts_with(&format!("FAIL  {problem}")),
            "{args:?} {env:?}: {lines:#?}"
        );
        assert_eq!(lines.last().map(String::as_str), Some("1 check(s) failed"));
        // serve refuses the same setup, with doctor's words.
        assert_eq!(
            code,
            Some(1),
            "{args:?} {env:?}: serve did not refuse: {err}"
        );
        let said = fails[0].trim_start_matches("FAIL  ");
        assert!(
            err.lines().any(|l| l == format!("kobana-mcp: {said}")),
            "{args:?} {env:?}: serve said {err}, doctor {said}"
        );
    }
    drop(taken);

    // Good setups: doctor passes, and serve starts (HTTP: it listens; stdio: the session ends
    // with its empty stdin).
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    for (args, env, port) in [
        (
            vec!["billing", "--http", &addr, "--toolsets", "invoices"],
            vec![],
            Some(port),
        ),
        (
            vec!["billing", "--stdio"],
            vec![("KOBANA_ACCESS_TOKEN", "demo-full")],
            None,
        ),
    ] {
        let (ok, lines, code, err) = doctor_then_serve(dir.path(), &args, &env, port);
        assert!(ok, "{args:?}: {lines:#?}");
        assert_eq!(lines.last().map(String::as_str), Some("all checks passed"));
        assert!(lines
            .iter()
            .all(|l| l.starts_with("ok    ") || l == "all checks passed"));
        let want = if port.is_some() { None } else { Some(0) };
        assert_eq!(code, want, "{args:?}: {err}");
    }
}

#[tokio::test]
async fn doctor_accepts_a_durable_redis_ledger_and_a_live_upstream() {
    if skip::opted_out(
        "redis",
        "doctor_accepts_a_durable_redis_ledger_and_a_live_upstream",
        "needs Redis (REDIS_URL)",
    ) {
        return;
    }
    let redis = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let dir = tempfile::tempdir().unwrap();
    let api_port = free_port();
    let _api = start(
        {
            let mut c = kobana(dir.path());
            c.args([
                "sandbox",
                "serve-api",
                "--http",
                &format!("127.0.0.1:{api_port}"),
            ]);
            c
        },
        api_port,
    );
    let (ok, lines) = doctor(
        dir.path(),
        &[
            "billing",
            "--upstream",
            &format!("http://127.0.0.1:{api_port}/{{product}}"),
            "--upstream-serves",
            "billing",
            "--ledger",
            &redis,
            "--http",
            "127.0.0.1:0",
        ],
    );
    assert!(ok, "{lines:#?}");
    for prefix in [
        "ok    upstream billing:",
        "ok    identity service:",
        "ok    ledger: Redis answers, with persistence",
    ] {
        assert!(
            lines.iter().any(|l| l.starts_with(prefix)),
            "{prefix}: {lines:#?}"
        );
    }
}

/// Billing, finance, dashboards and inbox have no published Kobana API (their catalogs name no
/// OpenAPI spec): their proxy paths are this project's own. `serve --upstream` refuses them at
/// start naming each with its paths and the setting that lets them through, `doctor` fails the
/// same line; banking (published) needs nothing, and the setting (flag, variable or config
/// file) lets the same setup start.
#[test]
fn an_upstream_for_products_without_a_published_api_needs_the_operators_word() {
    let dir = tempfile::tempdir().unwrap();
    let api_port = free_port();
    let _api = start(
        {
            let mut c = kobana(dir.path());
            c.args([
                "sandbox",
                "serve-api",
                "--http",
                &format!("127.0.0.1:{api_port}"),
            ]);
            c
        },
        api_port,
    );
    let api = format!("http://127.0.0.1:{api_port}/{{product}}");
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    std::fs::write(
        dir.path().join("serves.toml"),
        "[upstream]\nserves = [\"billing\", \"finance\", \"dashboards\", \"inbox\"]\n",
    )
    .unwrap();
    let unpublished = [
        "billing (/v1/billing/…)",
        "finance (/v2/finance/…)",
        "dashboards (/v1/dashboards/…)",
        "inbox (/v2/inbox/…)",
    ];
    // (arguments, environment, the products the refusal names with their paths)
    let fix = "--upstream-serves billing,finance,dashboards,inbox";
    let cases = [
        (
            vec!["all", "--http", &addr, "--upstream", &api],
            vec![],
            &unpublished[..],
        ),
        (
            vec!["all", "--http", &addr, "--upstream-serves", "billing"],
            vec![("KOBANA_UPSTREAM_URL", api.as_str())],
            &unpublished[1..],
        ),
    ];
    for (args, env, named) in cases {
        let (ok, lines, code, err) = doctor_then_serve(dir.path(), &args, &env, Some(port));
        assert!(!ok, "{args:?}: doctor passed: {lines:#?}");
        let fails: Vec<&String> = lines.iter().filter(|l| l.starts_with("FAIL  ")).collect();
        assert_eq!(fails.len(), 1, "{args:?}: {lines:#?}");
        let origin = if env.is_empty() {
            "--upstream"
        } else {
            "KOBANA_UPSTREAM_URL"
        };
        let line = fails[0].trim_start_matches("FAIL  ");
        assert!(
            line.starts_with(&format!("upstream: {origin}: Kobana publishes no API for ")),
            "{line}"
        );
        for product in named {
            assert!(line.contains(product), "{product}: {line}");
        }
        assert!(!line.contains("banking"), "{line}");
        if named.len() == 3 {
            assert!(!line.contains("billing ("), "{line}");
        }
        assert!(line.contains(fix), "{line}");
        assert_eq!(code, Some(1), "{args:?}: serve did not refuse: {err}");
        assert!(
            err.lines().any(|l| l == format!("kobana-mcp: {line}")),
            "serve said {err}, doctor {line}"
        );
    }

    // In the operator's language when one is set.
    let (_, lines, _, err) = doctor_then_serve(
        dir.path(),
        &[
            "finance",
            "--http",
            &addr,
            "--upstream",
            &api,
            "--locale",
            "es",
        ],
        &[],
        Some(port),
    );
    assert!(
        err.contains("Kobana no publica una API para finance (/v2/finance/…)"),
        "{err}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("Kobana no publica una API")),
        "{lines:#?}"
    );

    // The operator's word, by flag, variable or config file: doctor passes, serve starts.
    for (args, env) in [
        (
            vec![
                "all",
                "--http",
                &addr,
                "--upstream",
                &api,
                "--upstream-serves",
                "billing,finance,dashboards,inbox",
            ],
            vec![],
        ),
        (
            vec!["all", "--http", &addr, "--upstream", &api],
            vec![("KOBANA_UPSTREAM_SERVES", "inbox,dashboards,finance,billing")],
        ),
        (
            vec![
                "--config",
                "serves.toml",
                "all",
                "--http",
                &addr,
                "--upstream",
                &api,
            ],
            vec![],
        ),
        // Banking has a published API: nothing to say.
        (vec!["banking", "--http", &addr, "--upstream", &api], vec![]),
    ] {
        let (ok, lines, code, err) = doctor_then_serve(dir.path(), &args, &env, Some(port));
        assert!(ok, "{args:?} {env:?}: {lines:#?}");
        assert_eq!(code, None, "{args:?} {env:?}: serve refused: {err}");
        let paths = lines
            .iter()
            .find(|l| l.starts_with("ok    upstream paths: "));
        if args[0] == "banking" {
            assert!(paths.is_none(), "{lines:#?}");
        } else {
            assert_eq!(
                paths.map(String::as_str),
                Some(
                    "ok    upstream paths: billing, finance, dashboards, inbox: no published \
                     Kobana API; the upstream implements this project's paths (--upstream-serves)"
                ),
                "{lines:#?}"
            );
        }
    }
}

/// The proxy's connection caps are visible settings: environment, flag and config file reach
/// `doctor`'s line (the startup log line prints the same text).
#[test]
fn doctor_shows_the_upstream_connection_caps() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("up.toml"),
        "[upstream]\nmax_connections = 48\nmax_per_tool = 6\n",
    )
    .unwrap();
    let closed = format!("http://127.0.0.1:{}/{{product}}", free_port());
    let line = |args: &[&str], env: Option<(&str, &str)>| {
        let mut c = kobana(dir.path());
        // Banking: a product with a published API, so proxying it needs no mapping.
        c.args([
            "doctor",
            "banking",
            "--upstream",
            &closed,
            "--config",
            "up.toml",
        ])
        .args(args)
        .env_remove("KOBANA_LEDGER")
        .env_remove("KOBANA_UPSTREAM_MAX_PER_TOOL")
        .env_remove("KOBANA_UPSTREAM_MAX_CONNECTIONS");
        if let Some((k, v)) = env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        text.lines()
            .find(|l| l.starts_with("ok    upstream connections: "))
            .unwrap_or_else(|| panic!("no upstream connections line: {text}"))
            .to_string()
    };
    assert_eq!(
        line(&[], None),
        "ok    upstream connections: 48 connections per API host, 6 per tool (a tool's calls beyond it wait; the others do not)"
    );
    assert!(line(
        &["--upstream-max-per-tool", "3"],
        Some(("KOBANA_UPSTREAM_MAX_CONNECTIONS", "20"))
    )
    .contains(": 20 connections per API host, 3 per tool"),);
}

#[test]
fn rate_limit_flags_beat_environment_which_beats_the_config_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("access.toml"),
        "[access]\nrate_limit_reads = 7\nrate_limit_writes = 5\nrate_limit_ip = 11\n",
    )
    .unwrap();
    let out = kobana(dir.path())
        .args([
            "doctor",
            "billing",
            "--config",
            "access.toml",
            "--rate-limit-ip",
            "9",
        ])
        .env_remove("KOBANA_LEDGER")
        .env("KOBANA_RATE_LIMIT_WRITES", "3")
        .env("KOBANA_RATE_LIMIT_IP", "100")
        .env_remove("KOBANA_RATE_LIMIT_READS")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "ok    rate limits: 7 reads, 3 writes per identity, 9 requests per IP, per 60 s"
        ),
        "{text}"
    );
}

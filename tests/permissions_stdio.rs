//! Identities and confirmation on stdio, through the real binary: the token comes from
//! `KOBANA_ACCESS_TOKEN`, the default workspace from `KOBANA_WORKSPACE_ID`, and a sandbox started
//! without a token runs as the full demo identity (with a notice on stderr).

use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

struct Stdio2 {
    child: Child,
    stdin: ChildStdin,
    stdout: tokio::io::Lines<BufReader<ChildStdout>>,
    next_id: u64,
    _dir: tempfile::TempDir,
}

fn spawn(product: &str, env: &[(&str, &str)]) -> (Child, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kobana-mcp"));
    cmd.args(["serve", product, "--stdio"])
        .env_remove("KOBANA_ACCESS_TOKEN")
        .env_remove("KOBANA_WORKSPACE_ID")
        .env_remove("KOBANA_CONFIG")
        .env("KOBANA_DATA_DIR", dir.path())
        .env("RUST_LOG", "warn")
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    (cmd.spawn().expect("the kobana-mcp binary starts"), dir)
}

impl Stdio2 {
    fn start(product: &str, env: &[(&str, &str)]) -> Self {
        let (mut child, dir) = spawn(product, env);
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Self {
            child,
            stdin,
            stdout,
            next_id: 1,
            _dir: dir,
        }
    }

    /// A 2026-07-28 request declaring form elicitation; returns the response.
    async fn request(&mut self, method: &str, mut params: Value) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        });
        let id = self.next_id;
        self.next_id += 1;
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
                .expect("the server is still running");
            let msg: Value = serde_json::from_str(&next).unwrap();
            if msg["id"] == json!(id) {
                return msg;
            }
        }
    }

    async fn stderr(mut self) -> String {
        drop(self.stdin);
        let _ = tokio::time::timeout(Duration::from_secs(20), self.child.wait()).await;
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut err).await;
        }
        err
    }
}

fn tool_names(answer: &Value) -> Vec<String> {
    answer["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_stdio_token_comes_from_the_environment() {
    let p = generated::product("billing").unwrap();
    let mut s = Stdio2::start("billing", &[("KOBANA_ACCESS_TOKEN", "demo-readonly")]);
    let listed = tool_names(&s.request("tools/list", json!({})).await);
    assert!(!listed.is_empty());
    for name in &listed {
        assert!(p.tool(name).unwrap().annotations.read_only, "{name}");
    }
    let writer = p.tools.iter().find(|t| !t.annotations.read_only).unwrap();
    let a = s
        .request("tools/call", json!({"name": writer.name, "arguments": {}}))
        .await;
    assert_eq!(
        a["result"]["structuredContent"]["error"]["code"], "insufficient_scope",
        "{a}"
    );
    let err = s.stderr().await;
    assert!(!err.contains("KOBANA_ACCESS_TOKEN is not set"), "{err}");
}

#[tokio::test]
async fn a_sandbox_without_a_token_runs_as_the_full_demo_identity_with_a_notice() {
    let p = generated::product("billing").unwrap();
    let mut s = Stdio2::start("billing", &[]);
    let listed = tool_names(&s.request("tools/list", json!({})).await);
    assert_eq!(listed.len(), p.tools.len());
    let err = s.stderr().await;
    assert!(err.contains("KOBANA_ACCESS_TOKEN is not set"), "{err}");
    assert!(err.contains("demo-full"), "{err}");
}

#[tokio::test]
async fn an_unknown_stdio_token_stops_the_server_with_a_clear_error() {
    let (child, _dir) = spawn("billing", &[("KOBANA_ACCESS_TOKEN", "not-a-demo-token")]);
    let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("KOBANA_ACCESS_TOKEN"), "{err}");
}

#[tokio::test]
async fn the_stdio_workspace_comes_from_the_environment() {
    // demo-multi-workspace reaches two workspaces: without KOBANA_WORKSPACE_ID, record reads need one.
    let p = generated::product("finance").unwrap();
    let template = p
        .templates
        .iter()
        .find(|t| t.content == runtime::catalog::ContentKind::JsonRecord && t.args.len() == 1)
        .unwrap();
    let uri = template
        .uri_template
        .replace(&format!("{{{}}}", template.args[0].0), "any-id");
    let mut without = Stdio2::start(
        "finance",
        &[("KOBANA_ACCESS_TOKEN", "demo-multi-workspace")],
    );
    let a = without.request("resources/read", json!({"uri": uri})).await;
    assert_eq!(a["error"]["data"]["error"], "workspace_required", "{a}");
    let mut with = Stdio2::start(
        "finance",
        &[
            ("KOBANA_ACCESS_TOKEN", "demo-multi-workspace"),
            ("KOBANA_WORKSPACE_ID", "ws_demo_main"),
        ],
    );
    let a = with.request("resources/read", json!({"uri": uri})).await;
    assert_ne!(a["error"]["data"]["error"], "workspace_required", "{a}");
}

#[tokio::test]
async fn a_destructive_tool_is_confirmed_once_over_stdio() {
    let p = generated::product("banking").unwrap();
    // Every toolset: the first destructive delete is not in banking's default selection.
    // In English (the stdio setting), so the notice is the error table's own text.
    let mut s = Stdio2::start(
        "banking",
        &[
            ("KOBANA_ACCESS_TOKEN", "demo-full"),
            ("KOBANA_TOOLSETS", "all"),
            ("KOBANA_LOCALE", "en"),
        ],
    );
    // A delete of a record the sandbox holds, found through its own list tool (a missing
    // record is answered at once, without a question).
    let (del, id) = {
        let mut found = None;
        for del in p.tools.iter().filter(|t| t.annotations.destructive) {
            let runtime::catalog::Operation::Delete { record, id_arg } = del.operation else {
                continue;
            };
            // Its list tool, callable without arguments.
            let Some(list) = p.tools.iter().find(|t| {
                matches!(t.operation, runtime::catalog::Operation::List { record: r } if r == record)
                    && (t.input_schema_json.contains("\"required\":[]")
                        || !t.input_schema_json.contains("\"required\""))
            }) else {
                continue;
            };
            let listed = s
                .request("tools/call", json!({"name": list.name, "arguments": {}}))
                .await;
            let sc = &listed["result"]["structuredContent"];
            let first_id = ["data", "items", "records"]
                .iter()
                .find_map(|k| sc[*k].as_array())
                .and_then(|a| a.first())
                .and_then(|r| r.get(id_arg).filter(|v| v.is_string()).cloned());
            if let Some(id) = first_id {
                found = Some((del, id));
                break;
            }
        }
        found.expect("a destructive delete of a listed record")
    };
    let runtime::catalog::Operation::Delete { id_arg, .. } = del.operation else {
        unreachable!()
    };
    let args = json!({ id_arg: id });
    let first = s
        .request("tools/call", json!({"name": del.name, "arguments": args}))
        .await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let yes = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let ran = s
        .request(
            "tools/call",
            json!({"name": del.name, "arguments": args, "requestState": state, "inputResponses": yes}),
        )
        .await;
    // It ran: the record is deleted.
    assert_ne!(ran["result"]["isError"], json!(true), "{ran}");
    let replay = s
        .request(
            "tools/call",
            json!({"name": del.name, "arguments": args, "requestState": state, "inputResponses": yes}),
        )
        .await;
    assert_eq!(replay["result"]["resultType"], "input_required", "{replay}");
    let msg = replay["result"]["inputRequests"]["confirm"]["params"]["message"]
        .as_str()
        .unwrap();
    assert!(msg.starts_with(runtime::errors::REPLAY_NOTICE), "{msg}");
}

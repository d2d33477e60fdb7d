//! The official Python MCP SDK client (PyPI `mcp` 2.x) against our server, over stdio and over
//! Streamable HTTP, on the 2025 handshake wire and on 2026-07-28: list tools, call one, read a
//! resource, get a prompt, complete an argument (tests/python_client/check_client.py).
//!
//! Needs `KOBANA_TEST_PYTHON`: a Python with `mcp` installed (scripts/test.sh sets it up from
//! tests/python/requirements.txt). Without it the tests fail, unless `KOBANA_TEST_SKIP=python`
//! opts out (they then say they were skipped).

#[path = "support/skip.rs"]
mod skip;

use std::process::Command;
use std::sync::Arc;

use runtime::server::{unrestricted_identity, Server, ServerConfig};
use serde_json::Value;
use test_support::backends::NoBackend;

/// The Python to run the SDK client with: `KOBANA_TEST_PYTHON`; `None` only when the caller
/// opted out with `KOBANA_TEST_SKIP=python`.
fn python(test: &str) -> Option<String> {
    if skip::opted_out(
        "python",
        test,
        "needs the Python MCP SDK (KOBANA_TEST_PYTHON)",
    ) {
        return None;
    }
    match std::env::var("KOBANA_TEST_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => panic!(
            "KOBANA_TEST_PYTHON is not set: this test needs a Python with the `mcp` SDK \
             (scripts/test.sh sets one up from tests/python/requirements.txt), or KOBANA_TEST_SKIP=python to skip it"
        ),
    }
}

fn run_client(python: &str, mode: &str, target: &[&str]) -> Value {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python_client/check_client.py"
    );
    let out = Command::new(python)
        .arg(script)
        .arg(mode)
        .args(target)
        .output()
        .expect("run the python client");
    assert!(
        out.status.success(),
        "python client ({mode}, {target:?}) failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("bad client output {stdout:?}: {e}"))
}

fn check(report: &Value, expected_version: &str) {
    assert_eq!(report["protocol_version"], expected_version, "{report}");
    let tools: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(tools.contains(&"test_simple_text"), "{tools:?}");
    assert_eq!(
        report["call_text"],
        "This is a simple text response for testing."
    );
    assert_eq!(report["call_is_error"], false);
    assert_eq!(
        report["resource_text"],
        "This is the content of the static text resource."
    );
    assert_eq!(
        report["prompt_text"],
        "Prompt with arguments: arg1='one', arg2='two'"
    );
    assert_eq!(
        report["completion"],
        serde_json::json!(["testValue1", "testValue2"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_over_http_on_both_eras() {
    let Some(py) = python("python_sdk_client_over_http_on_both_eras") else {
        return;
    };
    let product = generated::product("conformance").expect("fixture generated");
    let server = Server::new(ServerConfig::new(
        vec![product],
        Arc::new(NoBackend),
        unrestricted_identity("python"),
    ))
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://127.0.0.1:{}/mcp",
        listener.local_addr().unwrap().port()
    );
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(runtime::transport::http::serve_listener(
        server,
        listener,
        async {
            let _ = stopped.await;
        },
    ));
    for (mode, version) in [("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28")] {
        let (py, url) = (py.clone(), url.clone());
        let report = tokio::task::spawn_blocking(move || run_client(&py, mode, &[&url]))
            .await
            .unwrap();
        check(&report, version);
    }
    let _ = stop.send(());
    serving.await.unwrap().unwrap();
}

#[test]
fn python_sdk_client_over_stdio_on_both_eras() {
    let Some(py) = python("python_sdk_client_over_stdio_on_both_eras") else {
        return;
    };
    let exe = env!("CARGO_BIN_EXE_kobana-mcp");
    for (mode, version) in [("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28")] {
        let report = run_client(&py, mode, &[exe, "serve-fixture", "conformance", "--stdio"]);
        check(&report, version);
    }
}

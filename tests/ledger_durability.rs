//! A ledger that cannot forget silently (issue 12, finding 4): at start, a Redis ledger must keep
//! its keys (persistence on, `maxmemory-policy noeviction`), or the server refuses to start —
//! unless `--allow-volatile-ledger` turns the refusal into a warning.
//!
//! Needs Redis at `REDIS_URL` (default `redis://127.0.0.1:6379`) started with persistence, as
//! `scripts/test.sh` does (`--appendonly yes --maxmemory-policy noeviction`).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use runtime::confirm::{verify_durable, RedisLedger};

use test_support::process::free_port;

const BIN: &str = env!("CARGO_BIN_EXE_kobana-mcp");

fn redis_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

fn serve(dir: &std::path::Path, port: u16, ledger: &str) -> Command {
    let mut c = Command::new(BIN);
    c.arg("--data-dir")
        .arg(dir)
        .args(["serve", "billing", "--http", &format!("127.0.0.1:{port}")])
        .args(["--ledger", ledger])
        .env_remove("KOBANA_ALLOW_VOLATILE_LEDGER")
        .env_remove("KOBANA_UPSTREAM_URL")
        .env_remove("KOBANA_CONFIG")
        .current_dir(dir);
    c
}

/// A Redis that cannot be asked cannot be verified: the server stops with an error naming the
/// way out; with `--allow-volatile-ledger` it starts and warns.
#[test]
fn an_unverifiable_redis_ledger_stops_the_server_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let out = serve(dir.path(), port, "redis://127.0.0.1:1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot verify that Redis keeps the ledger's keys")
            && err.contains("--allow-volatile-ledger"),
        "{err}"
    );

    let mut child = serve(dir.path(), port, "redis://127.0.0.1:1")
        .arg("--allow-volatile-ledger")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the server stopped: {status}");
        }
        assert!(Instant::now() < deadline, "server did not start on {port}");
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: confirmation ledger may lose keys"),
        "{err}"
    );
}

async fn config_set(name: &str, value: &str) {
    let client = redis::Client::open(redis_url()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg(name)
        .arg(value)
        .query_async(&mut conn)
        .await
        .unwrap();
}

/// The test Redis is durable and accepted; made to evict, it is refused (naming the policy),
/// or accepted with a warning when allowed.
#[tokio::test]
async fn only_a_redis_that_keeps_its_keys_is_accepted() {
    let url = redis_url();
    if let Err(e) = RedisLedger::new(&url).unwrap().check().await {
        panic!("this test needs Redis at {url} ({e}); scripts/test.sh starts one");
    }
    assert_eq!(
        verify_durable(Some(&url), false).await,
        Ok(vec![]),
        "the test Redis must run with --appendonly yes --maxmemory-policy noeviction"
    );
    config_set("maxmemory-policy", "allkeys-lru").await;
    let refused = verify_durable(Some(&url), false).await;
    let allowed = verify_durable(Some(&url), true).await;
    config_set("maxmemory-policy", "noeviction").await;
    let err = refused.unwrap_err();
    assert!(
        err.contains("allkeys-lru") && err.contains("noeviction"),
        "{err}"
    );
    let warnings = allowed.unwrap();
    assert!(
        warnings.len() == 1 && warnings[0].contains("allkeys-lru"),
        "{warnings:?}"
    );
    // The memory ledger needs no check.
    assert_eq!(verify_durable(Some("memory"), false).await, Ok(vec![]));
    assert_eq!(verify_durable(None, false).await, Ok(vec![]));
}

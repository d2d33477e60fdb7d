//! Rate limits (per identity and tool class, per client IP, shared through Redis), step-up
//! scope challenges and trusted proxy headers over HTTP (issue 16). The Redis test needs Redis at
//! `REDIS_URL` (default `redis://127.0.0.1:6379`; `scripts/test.sh` starts one), unless
//! `KOBANA_TEST_SKIP=redis` opts out.

#[path = "support/skip.rs"]
mod skip;

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::HeaderMap;
use runtime::auth::http::HttpAuth;
use runtime::auth::EmbeddedResolver;
use runtime::limits::{RateLimiter, RateLimits};
use runtime::server::{Server, ServerConfig};
use runtime_sandbox::{Sandbox, SandboxConfig};
use serde_json::{json, Value};
use tokio::sync::oneshot;

const READ_TOOL: &str = "billing_customers_get";
const WRITE_TOOL: &str = "billing_customers_create";

/// A billing server on an ephemeral port; dropping it stops the server.
struct Instance {
    url: String,
    _stop: oneshot::Sender<()>,
    _dir: tempfile::TempDir,
}

async fn start(identities: Option<&str>, configure: impl FnOnce(&mut ServerConfig)) -> Instance {
    let billing = generated::product("billing").expect("billing is generated");
    let dir = tempfile::tempdir().expect("temp dir");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let sandbox = Sandbox::open(&SandboxConfig::new(dir.path())).expect("sandbox");
    let resolver = Arc::new(match identities {
        Some(yaml) => EmbeddedResolver::from_yaml(yaml, &[billing]).expect("identities"),
        None => EmbeddedResolver::builtin(&[billing]).expect("identities"),
    });
    let mut config = ServerConfig::new(
        vec![billing],
        Arc::new(sandbox),
        runtime::server::unrestricted_identity("nobody"),
    );
    config.auth = Some(Arc::new(HttpAuth::new(resolver, &base)));
    configure(&mut config);
    let server = Server::new(config).expect("server");
    let (tx, rx) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let _ = runtime::transport::http::serve_listener(server, listener, async move {
            let _ = rx.await;
        })
        .await;
    });
    Instance {
        url: format!("{base}/mcp"),
        _stop: tx,
        _dir: dir,
    }
}

fn limits(reads: u32, writes: u32, ip: u32) -> RateLimits {
    RateLimits {
        reads,
        writes,
        ip,
        window: Duration::from_secs(2),
    }
}

fn memory_limits(l: RateLimits) -> impl FnOnce(&mut ServerConfig) {
    move |c| c.rate_limiter = Some(Arc::new(RateLimiter::memory(l)))
}

struct Answer {
    status: u16,
    headers: HeaderMap,
    body: Value,
}

async fn post(
    url: &str,
    token: Option<&str>,
    extra: &[(&str, &str)],
    method: &str,
    params: Value,
) -> Answer {
    let mut req = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    if !extra
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("mcp-protocol-version"))
    {
        req = req.header("MCP-Protocol-Version", "2025-06-18");
    }
    for (k, v) in extra {
        req = req.header(*k, *v);
    }
    let resp = req.send().await.expect("request");
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let text = resp.text().await.expect("body");
    Answer {
        status,
        headers,
        body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
    }
}

async fn call(url: &str, token: &str, tool: &str) -> Answer {
    // Arguments that fail validation: the limit is counted before any work, so nothing is created.
    post(
        url,
        Some(token),
        &[],
        "tools/call",
        json!({"name": tool, "arguments": {"id": "cus_none"}}),
    )
    .await
}

/// Asserts a 429 naming `limit`, and answers its Retry-After.
fn assert_limited(a: &Answer, limit: &str) -> u64 {
    assert_eq!(a.status, 429, "{}", a.body);
    assert_eq!(a.body["error"]["code"], -31029, "{}", a.body);
    assert_eq!(a.body["error"]["data"]["limit"], limit, "{}", a.body);
    let retry: u64 = a.headers["retry-after"]
        .to_str()
        .expect("ascii")
        .parse()
        .expect("Retry-After is seconds");
    assert!((1..=2).contains(&retry), "Retry-After {retry}");
    assert_eq!(a.body["error"]["data"]["retryAfterSecs"], retry);
    retry
}

#[tokio::test]
async fn reads_over_the_limit_get_429_with_retry_after_and_pass_again_after_it() {
    let s = start(None, memory_limits(limits(2, 2, 0))).await;
    for _ in 0..2 {
        assert_eq!(call(&s.url, "demo-full", READ_TOOL).await.status, 200);
    }
    let refused = call(&s.url, "demo-full", READ_TOOL).await;
    assert_limited(&refused, "reads");
    assert!(
        refused.body["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("--rate-limit-reads"),
        "{}",
        refused.body
    );
    // Another person has a bucket of their own.
    assert_eq!(
        call(&s.url, "demo-multi-workspace", READ_TOOL).await.status,
        200
    );
    // A window of 2 s for 2 calls: one call comes back each second.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(call(&s.url, "demo-full", READ_TOOL).await.status, 200);
    assert_eq!(call(&s.url, "demo-full", READ_TOOL).await.status, 429);
}

#[tokio::test]
async fn writes_are_limited_tighter_than_reads() {
    let s = start(None, memory_limits(limits(5, 1, 0))).await;
    assert_eq!(call(&s.url, "demo-full", WRITE_TOOL).await.status, 200);
    assert_limited(&call(&s.url, "demo-full", WRITE_TOOL).await, "writes");
    // The writes bucket is empty; reads still pass, up to their own limit.
    for _ in 0..5 {
        assert_eq!(call(&s.url, "demo-full", READ_TOOL).await.status, 200);
    }
    assert_limited(&call(&s.url, "demo-full", READ_TOOL).await, "reads");
    // Listing costs nothing against either.
    assert_eq!(
        post(&s.url, Some("demo-full"), &[], "tools/list", json!({}))
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn the_ip_limit_answers_429_before_the_token_is_checked() {
    let s = start(None, memory_limits(limits(0, 0, 2))).await;
    assert_eq!(
        post(&s.url, None, &[], "tools/list", json!({}))
            .await
            .status,
        401
    );
    assert_eq!(
        post(&s.url, Some("demo-full"), &[], "tools/list", json!({}))
            .await
            .status,
        200
    );
    // The third request of this address: refused before the (missing) token is looked at.
    let refused = post(&s.url, None, &[], "tools/list", json!({})).await;
    assert_limited(&refused, "ip");
    // Untrusted forwarding headers change nothing: it is still the same client.
    let spoofed = post(
        &s.url,
        Some("demo-full"),
        &[("x-forwarded-for", "198.51.100.9")],
        "tools/list",
        json!({}),
    )
    .await;
    assert_eq!(spoofed.status, 429);
}

#[tokio::test]
async fn trusted_proxy_headers_name_the_client_and_the_public_origin() {
    let s = start(None, |c| {
        c.rate_limiter = Some(Arc::new(RateLimiter::memory(limits(0, 0, 1))));
        c.trust_proxy_headers = true;
    })
    .await;
    let a = [("x-forwarded-for", "6.6.6.6, 198.51.100.1")];
    let b = [("x-forwarded-for", "198.51.100.2")];
    assert_eq!(
        post(&s.url, Some("demo-full"), &a, "tools/list", json!({}))
            .await
            .status,
        200
    );
    assert_limited(
        &post(&s.url, Some("demo-full"), &a, "tools/list", json!({})).await,
        "ip",
    );
    // The address the proxy appended counts, not what the client wrote before it.
    let a2 = [("x-forwarded-for", "7.7.7.7, 198.51.100.1")];
    assert_eq!(
        post(&s.url, Some("demo-full"), &a2, "tools/list", json!({}))
            .await
            .status,
        429
    );
    assert_eq!(
        post(&s.url, Some("demo-full"), &b, "tools/list", json!({}))
            .await
            .status,
        200
    );

    // The metadata URL of a challenge is on the origin the client used.
    let fwd = [
        ("x-forwarded-for", "198.51.100.3"),
        ("x-forwarded-proto", "https"),
        ("x-forwarded-host", "mcp.example.com"),
    ];
    let a = post(&s.url, None, &fwd, "tools/list", json!({})).await;
    assert_eq!(a.status, 401);
    assert_eq!(
        a.headers["www-authenticate"],
        "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource\""
    );

    // Without trust, the same headers are ignored.
    let plain = start(None, |_| {}).await;
    let a = post(&plain.url, None, &fwd, "tools/list", json!({})).await;
    let challenge = a.headers["www-authenticate"].to_str().unwrap_or("");
    assert!(challenge.contains("http://127.0.0.1:"), "{challenge}");
    assert!(!challenge.contains("mcp.example.com"), "{challenge}");
}

#[tokio::test]
async fn a_missing_scope_is_a_403_step_up_challenge_when_scope_challenge_is_on() {
    let s = start(None, |c| c.scope_challenge = true).await;
    let a = call(&s.url, "demo-readonly", WRITE_TOOL).await;
    assert_eq!(a.status, 403, "{}", a.body);
    let challenge = a.headers["www-authenticate"].to_str().expect("ascii");
    assert!(
        challenge.starts_with("Bearer error=\"insufficient_scope\""),
        "{challenge}"
    );
    let scope = challenge
        .split("scope=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("a scope parameter");
    let scopes: Vec<&str> = scope.split(' ').collect();
    // 2025: what the token has plus what the tool needs.
    assert!(scopes.contains(&"write"), "{scope}");
    assert!(scopes.contains(&"read"), "{scope}");
    let tool = generated::product("billing")
        .and_then(|p| p.tools.iter().find(|t| t.name == WRITE_TOOL))
        .expect("the write tool");
    if !tool.scope.is_empty() {
        assert!(scopes.contains(&tool.scope), "{scope}");
    }
    assert!(
        challenge.contains(&format!(
            "resource_metadata=\"{}/.well-known/oauth-protected-resource\"",
            s.url.trim_end_matches("/mcp")
        )),
        "{challenge}"
    );
    assert_eq!(a.body["id"], 7);
    assert_eq!(a.body["error"]["data"]["missing"], "write");

    // A tool the token may call is not challenged; nor is a role's missing permission.
    assert_eq!(call(&s.url, "demo-readonly", READ_TOOL).await.status, 200);
    let denied = post(
        &s.url,
        Some("demo-limited"),
        &[],
        "tools/call",
        json!({"name": "billing_invoices_list", "arguments": {}}),
    )
    .await;
    assert_eq!(denied.status, 200, "{}", denied.body);
    assert_eq!(denied.body["result"]["isError"], true);
    assert_eq!(
        denied.body["result"]["structuredContent"]["error"]["code"],
        "insufficient_permission"
    );
}

#[tokio::test]
async fn without_scope_challenge_a_missing_scope_stays_a_tool_error() {
    let s = start(None, |_| {}).await;
    let a = call(&s.url, "demo-readonly", WRITE_TOOL).await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert!(a.headers.get("www-authenticate").is_none());
    assert_eq!(a.body["result"]["isError"], true);
    assert_eq!(
        a.body["result"]["structuredContent"]["error"]["code"],
        "insufficient_scope"
    );
}

#[tokio::test]
async fn rate_limits_are_shared_by_two_instances_through_redis() {
    if skip::opted_out(
        "redis",
        "rate_limits_are_shared_by_two_instances_through_redis",
        "needs Redis (REDIS_URL)",
    ) {
        return;
    }
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let probe = runtime::confirm::RedisLedger::new(&url).expect("a valid REDIS_URL");
    if let Err(e) = probe.check().await {
        panic!("this test needs Redis at {url} ({e}); start it with `redis-server --port 6379 --daemonize yes`");
    }
    // A person of this run only, so concurrent runs against the same Redis never share a bucket.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let person = format!("per_rate_{}_{nanos}", std::process::id());
    let identities = format!(
        "identities:\n  - token: rate-token\n    person: {person}\n    name: Rate\n    organization: org_rate\n    scopes: [all]\n    permissions: [\"*\"]\n    workspaces: [ws_rate]\n"
    );
    let shared = |c: &mut ServerConfig| {
        let l = RateLimiter::redis(limits(0, 2, 0), &url).expect("redis limiter");
        c.rate_limiter = Some(Arc::new(l));
    };
    let a = start(Some(&identities), shared).await;
    let b = start(Some(&identities), shared).await;
    assert_eq!(call(&a.url, "rate-token", WRITE_TOOL).await.status, 200);
    assert_eq!(call(&b.url, "rate-token", WRITE_TOOL).await.status, 200);
    // The third write, on either instance, is over the shared limit.
    assert_limited(&call(&a.url, "rate-token", WRITE_TOOL).await, "writes");
    assert_limited(&call(&b.url, "rate-token", WRITE_TOOL).await, "writes");
    // And it resets for both.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(call(&b.url, "rate-token", WRITE_TOOL).await.status, 200);
    assert_limited(&call(&a.url, "rate-token", WRITE_TOOL).await, "writes");
}

#[tokio::test]
async fn on_2026_the_challenge_names_only_the_scopes_the_tool_needs() {
    let s = start(None, |c| c.scope_challenge = true).await;
    let params = json!({
        "name": WRITE_TOOL,
        "arguments": {"id": "cus_none"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    });
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", WRITE_TOOL),
    ];
    let a = post(
        &s.url,
        Some("demo-readonly"),
        &headers,
        "tools/call",
        params,
    )
    .await;
    assert_eq!(a.status, 403, "{}", a.body);
    let challenge = a.headers["www-authenticate"].to_str().expect("ascii");
    let tool = generated::product("billing")
        .and_then(|p| p.tools.iter().find(|t| t.name == WRITE_TOOL))
        .expect("the write tool");
    let expected = if tool.scope.is_empty() {
        "scope=\"write\"".to_string()
    } else {
        format!("scope=\"write {}\"", tool.scope)
    };
    assert!(challenge.contains(&expected), "{challenge}");
}

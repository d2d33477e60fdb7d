//! `Accept-Encoding` through the HTTP router: listings and large answers in each coding decode to
//! the very bytes of the uncompressed answer; small answers, answers without `Accept-Encoding`
//! or with every coding refused, and SSE answers are not compressed.

use std::io::Read;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, Response};
use runtime_model::backend::{Backend, BackendError, BoxFuture, CallContext, Output};
use runtime_model::catalog::Tool;
use serde_json::{json, Map, Value};
use tower::ServiceExt;

use crate::server::{unrestricted_identity, Server, ServerConfig};
use test_support::backends::NoBackend;

/// Answers every call with ~20 KB of JSON (a large tool result).
struct Big;

impl Backend for Big {
    fn call<'a>(
        &'a self,
        _ctx: &'a CallContext,
        _tool: &'static Tool,
        _args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        let rows: Vec<Value> = (0..300)
            .map(|i| json!({"id": format!("row-{i}"), "amount": i * 7, "status": "paid"}))
            .collect();
        Box::pin(async move { Ok(Output::Json(json!({ "rows": rows }))) })
    }
}

fn app(product: &str) -> super::super::http::App {
    app_with(product, Arc::new(NoBackend))
}

fn app_with(product: &str, backend: Arc<dyn Backend>) -> super::super::http::App {
    let product = generated::product(product).expect("generated product");
    let cfg = ServerConfig::new(vec![product], backend, unrestricted_identity("t"));
    super::super::http::router(Server::new(cfg).unwrap())
}

async fn post(
    app: &super::super::http::App,
    body: Value,
    accept_encoding: Option<&str>,
) -> (Response<Body>, Vec<u8>) {
    let mut req = Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("host", "127.0.0.1:8080")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(ae) = accept_encoding {
        req = req.header("accept-encoding", ae);
    }
    let resp = app
        .clone()
        .oneshot(req.body(Body::from(body.to_string())).unwrap())
        .await
        .unwrap();
    let (mut parts, body) = resp.into_parts();
    // The `Content-Length` hyper writes on the wire: the body's exact size (the in-process service
    // leaves it to hyper).
    if !parts.headers.contains_key("content-length") {
        if let Some(n) = http_body::Body::size_hint(&body).exact() {
            parts.headers.insert("content-length", n.into());
        }
    }
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap()
        .to_vec();
    (Response::from_parts(parts, Body::empty()), bytes)
}

fn header<'a>(r: &'a Response<Body>, name: &str) -> Option<&'a str> {
    r.headers().get(name).and_then(|v| v.to_str().ok())
}

fn decode(coding: &str, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match coding {
        "gzip" => flate2::read::GzDecoder::new(data).read_to_end(&mut out),
        "br" => brotli::Decompressor::new(data, 4096).read_to_end(&mut out),
        "zstd" => zstd::stream::read::Decoder::new(data)
            .unwrap()
            .single_frame()
            .read_to_end(&mut out),
        other => panic!("unexpected coding {other}"),
    }
    .unwrap_or_else(|e| panic!("{coding} does not decode: {e}"));
    out
}

fn list(method: &str, id: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {}})
}

#[tokio::test]
async fn listings_in_each_coding_decode_to_the_identical_answer() {
    let app = app("banking");
    for method in ["tools/list", "resources/templates/list"] {
        for id in [json!(7), json!("a\"b"), json!("x".repeat(70_000))] {
            let (plain, raw) = post(&app, list(method, id.clone()), None).await;
            assert_eq!(header(&plain, "content-encoding"), None);
            assert_eq!(header(&plain, "vary"), Some("accept-encoding"), "{method}");
            let v: Value = serde_json::from_slice(&raw).unwrap();
            assert_eq!(v["id"], id);
            assert!(
                v["result"].is_object(),
                "{method}: {}",
                &v.to_string()[..300.min(v.to_string().len())]
            );
            for coding in ["gzip", "br", "zstd"] {
                // Twice: the first request compresses the page, the second reuses it.
                for _ in 0..2 {
                    let (r, wire) = post(&app, list(method, id.clone()), Some(coding)).await;
                    assert_eq!(header(&r, "content-encoding"), Some(coding), "{method}");
                    assert_eq!(header(&r, "vary"), Some("accept-encoding"));
                    assert_eq!(
                        header(&r, "content-length").map(|l| l.parse::<usize>().unwrap()),
                        Some(wire.len())
                    );
                    // The long id is sent stored, as it comes: only the listing shrinks.
                    let id_len = id.to_string().len();
                    assert!(
                        (wire.len() - id_len.min(wire.len())) * 4 < raw.len() - id_len,
                        "{method} in {coding}: {} of {}",
                        wire.len(),
                        raw.len()
                    );
                    assert!(decode(coding, &wire) == raw, "{method} in {coding} differs");
                }
            }
        }
    }
}

#[tokio::test]
async fn refused_codings_and_identity_preference_send_the_answer_uncompressed() {
    let app = app("banking");
    let (_, raw) = post(&app, list("tools/list", json!(1)), None).await;
    for ae in [
        "gzip;q=0",
        "br;q=0, zstd;q=0, gzip;q=0",
        "*;q=0",
        "identity",
        "deflate",
        "gzip;q=0.5, identity",
    ] {
        let (r, wire) = post(&app, list("tools/list", json!(1)), Some(ae)).await;
        assert_eq!(header(&r, "content-encoding"), None, "{ae}");
        assert!(wire == raw, "{ae}");
    }
    let (r, _) = post(&app, list("tools/list", json!(1)), Some("br;q=0, gzip")).await;
    assert_eq!(header(&r, "content-encoding"), Some("gzip"));
}

#[tokio::test]
async fn small_answers_are_never_compressed() {
    let app = app("conformance");
    let (r, body) = post(
        &app,
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        Some("gzip, br, zstd"),
    )
    .await;
    assert!(body.len() < super::COMPRESS_MIN_BYTES);
    assert_eq!(header(&r, "content-encoding"), None);
    // Varies by language (every answer may be localized), never by encoding.
    assert!(
        r.headers().get_all("vary").iter().all(|v| !v
            .to_str()
            .unwrap_or("")
            .to_ascii_lowercase()
            .contains("accept-encoding")),
        "{:?}",
        r.headers()
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap()["result"],
        json!({})
    );
}

/// A batch's answer is one buffer, not a listing: compressed as it leaves (gzip) when large
/// enough.
#[tokio::test]
async fn a_large_answer_that_is_not_a_listing_is_compressed_on_the_fly() {
    let app = app("conformance");
    let batch: Vec<Value> = (0..80)
        .map(|i| json!({"jsonrpc": "2.0", "id": i, "method": "ping"}))
        .collect();
    let send = |ae: Option<&'static str>| {
        let app = app.clone();
        let batch = Value::from(batch.clone());
        async move {
            let req = Request::post("/mcp")
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("host", "127.0.0.1:8080");
            let req = match ae {
                Some(ae) => req.header("accept-encoding", ae),
                None => req,
            };
            let resp = app
                .oneshot(req.body(Body::from(batch.to_string())).unwrap())
                .await
                .unwrap();
            let (parts, body) = resp.into_parts();
            let bytes = axum::body::to_bytes(body, usize::MAX)
                .await
                .unwrap()
                .to_vec();
            (Response::from_parts(parts, Body::empty()), bytes)
        }
    };
    let (plain, raw) = send(None).await;
    assert!(raw.len() >= super::COMPRESS_MIN_BYTES, "{}", raw.len());
    assert_eq!(header(&plain, "content-encoding"), None);
    assert_eq!(header(&plain, "vary"), Some("accept-encoding"));
    assert_eq!(
        serde_json::from_slice::<Value>(&raw)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        80
    );
    // Each coding the request accepts alone, and the cheapest on the fly (zstd) on a tie.
    for (ae, coding) in [
        ("gzip", "gzip"),
        ("br", "br"),
        ("zstd", "zstd"),
        ("br, zstd, gzip;q=0.5", "zstd"),
        ("gzip, br", "br"),
        ("zstd;q=0, br;q=0, gzip", "gzip"),
        ("*, zstd;q=0", "br"),
    ] {
        let (r, wire) = send(Some(ae)).await;
        assert_eq!(header(&r, "content-encoding"), Some(coding), "{ae}");
        assert_eq!(header(&r, "vary"), Some("accept-encoding"));
        assert!(wire.len() < raw.len(), "{ae}");
        assert!(decode(coding, &wire) == raw, "{ae}");
    }
    // Every coding refused, or identity preferred: the answer as it is.
    for ae in [
        "zstd;q=0, br;q=0, gzip;q=0",
        "*;q=0",
        "gzip;q=0.5, identity",
    ] {
        let (r, wire) = send(Some(ae)).await;
        assert_eq!(header(&r, "content-encoding"), None, "{ae}");
        assert_eq!(header(&r, "vary"), Some("accept-encoding"));
        assert!(wire == raw, "{ae}");
    }
}

/// A tool's result is a one-off page: compressed as it leaves, in the coding the request prefers
/// at a fast level, never kept (it was compressed at the listings' once-only levels on every call).
#[tokio::test]
async fn a_large_tool_result_is_compressed_on_the_fly_in_the_negotiated_coding() {
    let product = generated::product("banking").unwrap();
    let tool = test_support::calls::argless_read(product);
    let app = app_with("banking", Arc::new(Big));
    let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": tool.name, "arguments": {}}});
    let (plain, raw) = post(&app, call.clone(), None).await;
    let v: Value = serde_json::from_slice(&raw).unwrap();
    assert!(v["result"]["content"].is_array(), "{v}");
    assert!(raw.len() >= super::COMPRESS_MIN_BYTES, "{}", raw.len());
    assert_eq!(header(&plain, "content-encoding"), None);
    assert_eq!(header(&plain, "vary"), Some("accept-encoding"));
    for (ae, coding) in [
        ("br, zstd, gzip;q=0.1", "zstd"),
        ("gzip", "gzip"),
        ("br", "br"),
        ("zstd", "zstd"),
        ("br;q=0, zstd;q=0.5, gzip", "gzip"),
    ] {
        let (r, wire) = post(&app, call.clone(), Some(ae)).await;
        assert_eq!(header(&r, "content-encoding"), Some(coding), "{ae}");
        assert_eq!(
            header(&r, "content-length").map(|l| l.parse::<usize>().unwrap()),
            Some(wire.len())
        );
        assert!(
            wire.len() * 4 < raw.len(),
            "{ae}: {} of {}",
            wire.len(),
            raw.len()
        );
        assert!(decode(coding, &wire) == raw, "{ae}");
    }
    let (r, wire) = post(&app, call.clone(), Some("br;q=0, zstd;q=0, gzip;q=0")).await;
    assert_eq!(header(&r, "content-encoding"), None);
    assert!(wire == raw);
}

//! The era rule and the shared steps, without a transport.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::batches::{batch, BatchBounds};
use super::*;
use crate::server::{unrestricted_identity, Server, ServerConfig};
use test_support::backends::NoBackend;

fn caller() -> Caller {
    Caller {
        identity: Arc::new(unrestricted_identity("t")),
        bearer: None,
        selection: None,
        names_selection: false,
        accept_language: None,
        client_ip: None,
    }
}

fn msg(v: Value) -> Incoming {
    jsonrpc::parse_value(v).unwrap()
}

fn request(method: &str, params: Value) -> Incoming {
    msg(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
}

fn modern_params() -> Value {
    json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                     "io.modelcontextprotocol/clientCapabilities": {"sampling": {}}}})
}

fn session(version: &'static str) -> Arc<Session> {
    Arc::new(Session::new("s".into(), version, json!({"roots": {}})))
}

/// The era a request is served in, or the refusal's code.
fn era_of(m: Incoming, s: SessionRef, outer: Outer<'_>) -> Result<Era, (Refusal, i64)> {
    match route(m, s, outer, &caller()) {
        Step::Serve(_, call) => Ok(call.era),
        Step::Refused { error, why, .. } => Err((why, error.code)),
        Step::Initialize(h) => Ok(Era::Legacy(h.version)),
        Step::Notification | Step::Response { .. } => panic!("not a request"),
    }
}

#[test]
fn a_sessionless_request_stating_no_version_is_2025_03_26_on_every_transport() {
    for outer in [Outer::NotCarried, Outer::Absent] {
        let era = era_of(request("tools/list", json!({})), SessionRef::None, outer);
        assert_eq!(era, Ok(Era::Legacy("2025-03-26")), "{outer:?}");
    }
    let stated = Outer::Header("2025-11-25");
    let era = era_of(request("tools/list", json!({})), SessionRef::None, stated);
    assert_eq!(era, Ok(Era::Legacy("2025-11-25")));
    let unserved = Outer::Header("2024-11-05");
    let era = era_of(request("tools/list", json!({})), SessionRef::None, unserved);
    assert_eq!(era, Err((Refusal::UnsupportedVersion, -32600)));
}

#[test]
fn a_session_serves_its_negotiated_version_with_its_capabilities() {
    let s = session("2025-06-18");
    match route(
        request("tools/list", json!({})),
        SessionRef::Found(s.clone()),
        Outer::NotCarried,
        &caller(),
    ) {
        Step::Serve(_, call) => {
            assert_eq!(call.era, Era::Legacy("2025-06-18"));
            assert!(call.has_roots());
            assert!(call.session.is_some_and(|c| Arc::ptr_eq(&c, &s)));
        }
        _ => panic!("served"),
    }
    let era = era_of(
        request("ping", json!({})),
        SessionRef::Unknown,
        Outer::Absent,
    );
    assert_eq!(era, Err((Refusal::UnknownSession, -32600)));
}

#[test]
fn a_2026_signal_wins_over_a_session() {
    let s = SessionRef::Found(session("2025-06-18"));
    match route(
        request("tools/list", modern_params()),
        s,
        Outer::NotCarried,
        &caller(),
    ) {
        Step::Serve(_, call) => {
            assert_eq!(call.era, Era::Modern);
            assert!(call.session.is_none());
            assert!(call.has_sampling() && !call.has_roots());
        }
        _ => panic!("served"),
    }
    // `server/discover` and a 2026 header are 2026 too: their `_meta` is then required.
    let era = era_of(
        request("server/discover", json!({})),
        SessionRef::None,
        Outer::NotCarried,
    );
    assert_eq!(era, Err((Refusal::Modern, -32602)));
    let era = era_of(
        request("tools/list", json!({})),
        SessionRef::None,
        Outer::Header("2026-07-28"),
    );
    assert_eq!(era, Err((Refusal::Modern, -32602)));
}

#[test]
fn the_version_outside_the_body_must_agree_with_meta() {
    let m = || request("tools/list", modern_params());
    assert_eq!(
        era_of(m(), SessionRef::None, Outer::NotCarried),
        Ok(Era::Modern)
    );
    assert_eq!(
        era_of(m(), SessionRef::None, Outer::Header("2026-07-28")),
        Ok(Era::Modern)
    );
    assert_eq!(
        era_of(m(), SessionRef::None, Outer::Absent),
        Err((Refusal::Modern, -32020))
    );
    assert_eq!(
        era_of(m(), SessionRef::None, Outer::Header("2099-01-01")),
        Err((Refusal::Modern, -32020))
    );
    let mut p = modern_params();
    p["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let era = era_of(
        request("tools/list", p),
        SessionRef::None,
        Outer::NotCarried,
    );
    assert_eq!(era, Err((Refusal::Modern, -32022)));
}

#[test]
fn initialize_is_the_handshake_unless_it_carries_2026_meta() {
    let init = |params| request("initialize", params);
    match route(
        init(json!({"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}}})),
        SessionRef::Unknown,
        Outer::Absent,
        &caller(),
    ) {
        Step::Initialize(h) => {
            assert_eq!(h.version, "2025-06-18");
            let s = h.session("x".into());
            assert_eq!(s.client_caps["elicitation"], json!({}));
        }
        _ => panic!("a handshake"),
    }
    let era = era_of(init(json!({})), SessionRef::None, Outer::NotCarried);
    assert_eq!(
        era,
        Ok(Era::Legacy("2025-11-25")),
        "counter-offers the newest"
    );
    let era = era_of(init(modern_params()), SessionRef::None, Outer::NotCarried);
    assert_eq!(era, Ok(Era::Modern), "served, so the engine answers -32601");
}

#[test]
fn notifications_and_responses_need_no_answer() {
    let note = || msg(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let resp = || msg(json!({"jsonrpc": "2.0", "id": "srv-0", "result": {}}));
    assert!(matches!(
        route(note(), SessionRef::None, Outer::NotCarried, &caller()),
        Step::Notification
    ));
    assert!(matches!(
        route(resp(), SessionRef::None, Outer::Absent, &caller()),
        Step::Response { delivered: false }
    ));
    assert!(matches!(
        route(
            resp(),
            SessionRef::Found(session("2025-06-18")),
            Outer::Absent,
            &caller()
        ),
        Step::Response { delivered: true }
    ));
    assert!(matches!(
        route(note(), SessionRef::Unknown, Outer::Absent, &caller()),
        Step::Refused {
            why: Refusal::UnknownSession,
            ..
        }
    ));
}

fn bounds(member: Duration, whole: Duration) -> BatchBounds {
    BatchBounds {
        max_members: 100,
        max_answer_bytes: 8 * 1024 * 1024,
        member_timeout: member,
        batch_timeout: whole,
    }
}

fn conformance_engine() -> Arc<Engine> {
    let product = generated::product("conformance").unwrap();
    let cfg = ServerConfig::new(
        vec![product],
        Arc::new(NoBackend),
        unrestricted_identity("t"),
    );
    Server::new(cfg)
        .unwrap()
        .engine("conformance")
        .unwrap()
        .clone()
}

fn pings(n: usize) -> Vec<u8> {
    let members: Vec<Value> = (0..n)
        .map(|i| json!({"jsonrpc": "2.0", "id": i, "method": "ping"}))
        .collect();
    serde_json::to_vec(&members).unwrap()
}

/// Finding 5: a batch of more members than the limit is refused whole, naming the limit, before
/// any member runs (a 1,000-member batch used to be answered member by member).
#[tokio::test]
async fn a_batch_over_the_member_limit_is_refused_naming_it() {
    let engine = conformance_engine();
    let b = bounds(Duration::from_secs(60), Duration::from_secs(60));
    let at_limit = batch(
        &engine,
        &pings(100),
        SessionRef::None,
        Outer::NotCarried,
        &caller(),
        &b,
    )
    .await
    .unwrap()
    .unwrap();
    let v: Value = serde_json::from_slice(&at_limit).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 100);
    let err = batch(
        &engine,
        &pings(101),
        SessionRef::None,
        Outer::NotCarried,
        &caller(),
        &b,
    )
    .await
    .unwrap_err();
    assert_eq!(err.code, -32600);
    assert!(
        err.message.contains("at most 100 members"),
        "{}",
        err.message
    );
    assert_eq!(err.data.unwrap()["limit"], "max_batch_members");
}

/// Finding 5: the batch's answer stops growing at its byte limit: later members are answered
/// with an error naming the limit instead of their results.
#[tokio::test]
async fn a_batch_answer_stops_at_its_byte_limit() {
    let engine = conformance_engine();
    let mut b = bounds(Duration::from_secs(60), Duration::from_secs(60));
    let members: Vec<Value> = (0..20)
        .map(|i| json!({"jsonrpc": "2.0", "id": i, "method": "tools/list"}))
        .collect();
    let body = serde_json::to_vec(&members).unwrap();
    let whole = batch(
        &engine,
        &body,
        SessionRef::None,
        Outer::NotCarried,
        &caller(),
        &b,
    )
    .await
    .unwrap()
    .unwrap();
    let one_listing = whole.len() / 20;
    b.max_answer_bytes = one_listing * 3;
    let out = batch(
        &engine,
        &body,
        SessionRef::None,
        Outer::NotCarried,
        &caller(),
        &b,
    )
    .await
    .unwrap()
    .unwrap();
    assert!(
        out.len() <= b.max_answer_bytes + 20 * 400,
        "{} bytes",
        out.len()
    );
    let v: Value = serde_json::from_slice(&out).unwrap();
    let v = v.as_array().unwrap();
    assert_eq!(v.len(), 20, "every member is answered");
    assert!(v[0]["result"]["tools"].is_array());
    assert!(v[19]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("max_batch_answer_bytes"));
    assert_eq!(v[19]["id"], 19);
}

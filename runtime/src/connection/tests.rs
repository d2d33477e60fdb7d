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

/// `bytes` run as a batch outside any session, with no version outside its body, by the test
/// caller within `b`.
async fn sessionless_batch(
    engine: &Engine,
    bytes: &[u8],
    b: &BatchBounds,
) -> Result<Option<Vec<u8>>, RpcError> {
    batch(
        engine,
        bytes,
        SessionRef::None,
        Outer::NotCarried,
        &caller(),
        b,
    )
    .await
}

/// Finding 5: a batch of more members than the limit is refused whole, naming the limit, before
/// any member runs (a 1,000-member batch used to be answered member by member).
#[tokio::test]
async fn a_batch_over_the_member_limit_is_refused_naming_it() {
    let engine = conformance_engine();
    let b = bounds(Duration::from_secs(60), Duration::from_secs(60));
    let at_limit = sessionless_batch(&engine, &pings(100), &b)
        .await
        .unwrap()
        .unwrap();
    let v: Value = serde_json::from_slice(&at_limit).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 100);
    let err = sessionless_batch(&engine, &pings(101), &b)
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
    let whole = sessionless_batch(&engine, &body, &b)
        .await
        .unwrap()
        .unwrap();
    let one_listing = whole.len() / 20;
    b.max_answer_bytes = one_listing * 3;
    let out = sessionless_batch(&engine, &body, &b)
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

fn person(organization: &str, person: &str) -> Caller {
    let mut identity = unrestricted_identity(person);
    identity.organization = organization.to_string();
    Caller {
        identity: Arc::new(identity),
        ..caller()
    }
}

/// A session belongs to the person within the organization: the same person with another token
/// (other name, scopes or bearer) finds it; another person of the organization, or the same
/// person id in another organization, does not (HTTP answers 404 and the session stays theirs).
#[test]
fn a_session_is_found_by_its_person_in_its_organization_only() {
    let alice = person("acme", "alice");
    let mut rotated_identity = (*alice.identity).clone();
    rotated_identity.name = "Alice S.".into();
    rotated_identity.scopes = ["read".to_string()].into_iter().collect();
    let rotated = Caller {
        identity: Arc::new(rotated_identity),
        bearer: Some(Arc::from("another-token")),
        ..alice.clone()
    };
    assert_eq!(alice.owner(), rotated.owner());
    let others = [
        person("acme", "bob"),
        person("globex", "alice"),
        // No run-together of the two names: ("acme", "alice") is not ("acmea", "lice").
        person("acmea", "lice"),
    ];
    let table = SessionTable::new(SessionLimits {
        max: 10,
        per_identity: 10,
        idle: Duration::from_secs(3600),
    });
    let id = table
        .open("conformance", &alice.owner(), |id| {
            Arc::new(Session::new(id, "2025-06-18", json!({})))
        })
        .unwrap();
    for other in &others {
        assert_ne!(other.owner(), alice.owner());
        assert!(matches!(
            table.lookup(Some(&id), "conformance", &other.owner()),
            SessionRef::Unknown
        ));
        assert!(!table.close(&id, "conformance", &other.owner()));
    }
    assert!(matches!(
        table.lookup(Some(&id), "conformance", &rotated.owner()),
        SessionRef::Found(_)
    ));
    assert!(table.close(&id, "conformance", &rotated.owner()));
}

/// The `initialize` answer is the JSON-RPC result for the request's id, at the negotiated
/// version.
#[test]
fn the_handshake_answers_its_request_with_the_negotiated_version() {
    let engine = conformance_engine();
    let init = msg(
        json!({"jsonrpc": "2.0", "id": "init-7", "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}),
    );
    let Step::Initialize(h) = route(init, SessionRef::None, Outer::Absent, &caller()) else {
        panic!("a handshake");
    };
    let v: Value = serde_json::from_slice(&h.answer(&engine)).unwrap();
    assert_eq!(v["jsonrpc"], "2.0");
    assert_eq!(v["id"], "init-7");
    assert_eq!(v["result"]["protocolVersion"], "2025-06-18");
    assert!(v["result"]["serverInfo"]["name"].is_string(), "{v}");
}

/// A body is a batch when its first non-blank byte opens an array.
#[test]
fn a_batch_is_a_body_that_opens_an_array() {
    assert!(is_batch(
        b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"
    ));
    assert!(is_batch(b" \r\n\t[]"));
    assert!(!is_batch(b"{\"params\":[1]}"));
    assert!(!is_batch(b"  {\"a\":1}"));
    assert!(!is_batch(b""));
    assert!(!is_batch(b"   "));
}

/// A version header naming no revision we know, on a request whose body does not say 2026, is
/// refused naming the header (with or without a session); with a 2026 body, or on
/// `server/discover`, the request is 2026 and the header must then match its `_meta`.
#[test]
fn an_unknown_version_header_is_refused_unless_the_body_says_2026() {
    let unknown = Outer::Header("1999-01-01");
    for s in [SessionRef::None, SessionRef::Found(session("2025-06-18"))] {
        match route(request("tools/list", json!({})), s, unknown, &caller()) {
            Step::Refused { error, why, .. } => {
                assert_eq!(why, Refusal::UnsupportedVersion);
                assert_eq!(error.code, -32600);
                assert_eq!(error.data.unwrap()["requested"], "1999-01-01");
            }
            _ => panic!("refused"),
        }
    }
    let era = era_of(
        request("tools/list", modern_params()),
        SessionRef::None,
        unknown,
    );
    assert_eq!(
        era,
        Err((Refusal::Modern, -32020)),
        "the header differs from _meta"
    );
    let era = era_of(
        request("server/discover", modern_params()),
        SessionRef::None,
        unknown,
    );
    assert_eq!(era, Err((Refusal::Modern, -32020)));
    // A known header still routes: the 2026 one with a 2026 body is served.
    let era = era_of(
        request("server/discover", modern_params()),
        SessionRef::None,
        Outer::Header("2026-07-28"),
    );
    assert_eq!(era, Ok(Era::Modern));
}

fn selection_of(toolsets: &[&str]) -> Arc<Selection> {
    use runtime_model::selection::{Ceiling, SelectionSpec};
    let product = generated::product("conformance").unwrap();
    let spec = SelectionSpec {
        toolsets: Some(toolsets.iter().map(|s| s.to_string()).collect()),
        ..Default::default()
    };
    Ceiling::everything(product).narrow(&spec).unwrap()
}

/// A 2025 session keeps the selection its `initialize` named: a later request may repeat it or
/// name none (and is then served with the session's), never name another.
#[test]
fn a_session_s_selection_is_fixed_by_its_initialize() {
    let fixed = selection_of(&["all"]);
    let other = selection_of(&["discovery"]);
    assert_ne!(fixed, other);
    let s = || {
        let s =
            Session::new("s".into(), "2025-06-18", json!({})).with_selection(Some(fixed.clone()));
        SessionRef::Found(Arc::new(s))
    };
    let naming = |selection: &Arc<Selection>| Caller {
        selection: Some(selection.clone()),
        names_selection: true,
        ..caller()
    };
    let served_with =
        |caller: &Caller| match route(request("tools/list", json!({})), s(), Outer::Absent, caller)
        {
            Step::Serve(_, call) => Ok(call.selection),
            Step::Refused { why, error, .. } => Err((why, error.code)),
            _ => panic!("a request"),
        };
    assert_eq!(served_with(&naming(&fixed)), Ok(Some(fixed.clone())));
    assert_eq!(
        served_with(&caller()),
        Ok(Some(fixed.clone())),
        "names none"
    );
    assert_eq!(
        served_with(&naming(&other)),
        Err((Refusal::SelectionChanged, -32600))
    );
    // A sessionless request is served with the selection it names.
    match route(
        request("tools/list", json!({})),
        SessionRef::None,
        Outer::Absent,
        &naming(&other),
    ) {
        Step::Serve(_, call) => assert_eq!(call.selection, Some(other)),
        _ => panic!("served"),
    }
}

fn served(m: Incoming, s: SessionRef) -> Call {
    match route(m, s, Outer::NotCarried, &caller()) {
        Step::Serve(_, call) => call,
        _ => panic!("served"),
    }
}

/// A client that states no capabilities has `{}`, one shared value whichever era and whether or
/// not its `_meta` says so; capabilities it states are its own.
#[test]
fn no_capabilities_are_one_shared_empty_object() {
    let sessionless = served(request("tools/list", json!({})), SessionRef::None);
    let mut p = modern_params();
    p["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({});
    let modern = served(request("tools/list", p), SessionRef::None);
    assert_eq!(*sessionless.client_caps, json!({}));
    assert_eq!(*modern.client_caps, json!({}));
    assert!(Arc::ptr_eq(&sessionless.client_caps, &modern.client_caps));
    let stated = served(request("tools/list", modern_params()), SessionRef::None);
    assert_eq!(*stated.client_caps, json!({"sampling": {}}));
}

/// A request needs a channel before its answer only when something can come through it: a
/// progress token, a log level, or its session's server→client requests. Attached, the channel
/// carries its progress notifications.
#[tokio::test]
async fn a_request_gets_a_channel_when_something_may_come_before_its_answer() {
    let plain = served(request("tools/list", json!({})), SessionRef::None);
    assert!(!may_send_before_answer(&plain));
    let mut progress = served(
        request("tools/list", json!({"_meta": {"progressToken": "p-1"}})),
        SessionRef::None,
    );
    assert!(may_send_before_answer(&progress));
    let mut p = modern_params();
    p["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
    let logging = served(request("tools/list", p), SessionRef::None);
    assert!(may_send_before_answer(&logging));
    let mut in_session = served(
        request("tools/list", json!({})),
        SessionRef::Found(session("2025-06-18")),
    );
    assert!(may_send_before_answer(&in_session));

    let (tx, mut rx) = mpsc::unbounded_channel();
    attach(&mut progress, tx);
    assert!(
        !progress.peer.can_request(),
        "no session: notifications only"
    );
    progress.progress(1.0, Some(2.0), None);
    let note: Value = serde_json::from_slice(&rx.try_recv().unwrap()).unwrap();
    assert_eq!(note["method"], "notifications/progress");
    assert_eq!(note["params"]["progressToken"], "p-1");
    let (tx, _rx) = mpsc::unbounded_channel();
    attach(&mut in_session, tx);
    assert!(
        in_session.peer.can_request(),
        "a session's request may ask the client"
    );
}

/// A progress token is a string or a number (anything else is ignored); the language preference
/// in `_meta` is a string, kept as sent, and wins over the transport's.
#[test]
fn progress_tokens_and_languages_are_read_from_meta() {
    for (token, kept) in [
        (json!("t-1"), Some(json!("t-1"))),
        (json!(42), Some(json!(42))),
        (json!(true), None),
        (json!({"a": 1}), None),
        (json!(null), None),
    ] {
        let call = served(
            request("tools/list", json!({"_meta": {"progressToken": token}})),
            SessionRef::None,
        );
        assert_eq!(call.progress_token, kept, "{token}");
    }
    let with_language = |language: Value| {
        let c = Caller {
            accept_language: Some(Arc::from("es")),
            ..caller()
        };
        let m = request(
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/acceptLanguage": language}}),
        );
        match route(m, SessionRef::None, Outer::NotCarried, &c) {
            Step::Serve(_, call) => call.accept_language.map(|l| l.to_string()),
            _ => panic!("served"),
        }
    };
    assert_eq!(
        with_language(json!("pt-BR, en;q=0.5")).as_deref(),
        Some("pt-BR, en;q=0.5")
    );
    assert_eq!(
        with_language(json!(7)).as_deref(),
        Some("es"),
        "not a string"
    );
}

/// An empty batch is refused whole (JSON-RPC: an empty array is an invalid request).
#[tokio::test]
async fn an_empty_batch_is_refused() {
    let engine = conformance_engine();
    let b = bounds(Duration::from_secs(60), Duration::from_secs(60));
    let err = sessionless_batch(&engine, b" [ ] ", &b).await.unwrap_err();
    assert_eq!(err.code, -32600);
    assert!(err.message.contains("empty batch"), "{}", err.message);
}

/// The byte limit is the answer's exact length: an answer of exactly the limit is sent whole,
/// one byte less and its last member is withheld (it ran: the error says so).
#[tokio::test]
async fn a_batch_answer_may_be_exactly_its_byte_limit() {
    let engine = conformance_engine();
    let mut b = bounds(Duration::from_secs(60), Duration::from_secs(60));
    let run = |b: BatchBounds| {
        let engine = engine.clone();
        async move {
            let out = sessionless_batch(&engine, &pings(3), &b)
                .await
                .unwrap()
                .unwrap();
            (
                out.len(),
                serde_json::from_slice::<Vec<Value>>(&out).unwrap(),
            )
        }
    };
    let (whole, _) = run(b.clone()).await;
    b.max_answer_bytes = whole;
    let (_, at_limit) = run(b.clone()).await;
    assert!(
        at_limit.iter().all(|m| m["result"].is_object()),
        "{at_limit:?}"
    );
    b.max_answer_bytes = whole - 1;
    let (_, over) = run(b.clone()).await;
    assert!(
        over[..2].iter().all(|m| m["result"].is_object()),
        "{over:?}"
    );
    assert_eq!(over[2]["error"]["data"]["ran"], true, "{over:?}");
    assert_eq!(over[2]["id"], 2);
}

/// A backend whose calls never end: only a time limit stops them.
struct Stuck;

impl runtime_model::backend::Backend for Stuck {
    fn call<'a>(
        &'a self,
        _ctx: &'a runtime_model::backend::CallContext,
        _tool: &'static runtime_model::catalog::Tool,
        _args: &'a serde_json::Map<String, Value>,
    ) -> runtime_model::backend::BoxFuture<
        'a,
        Result<runtime_model::backend::Output, runtime_model::backend::BackendError>,
    > {
        Box::pin(std::future::pending())
    }
}

/// The answers of a batch of `n` calls that never end, run within `b` (a batch still running
/// after a minute ran past both its limits: the test fails rather than hang).
async fn stuck_batch(n: usize, b: &BatchBounds) -> Vec<Value> {
    let product = generated::product("banking").unwrap();
    let tool = test_support::calls::argless_read(product);
    let cfg = ServerConfig::new(vec![product], Arc::new(Stuck), unrestricted_identity("t"));
    let engine = Server::new(cfg).unwrap().engine("banking").unwrap().clone();
    let members: Vec<Value> = (0..n)
        .map(|i| {
            json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": tool.name, "arguments": {}}})
        })
        .collect();
    let body = serde_json::to_vec(&members).unwrap();
    let run = sessionless_batch(&engine, &body, b);
    let out = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the batch ended within its limits")
        .unwrap()
        .unwrap();
    serde_json::from_slice(&out).unwrap()
}

/// Each member runs within the request time limit while the batch has more time than that left;
/// within what the batch has left when that is shorter, and the members after it are not run.
#[tokio::test]
async fn batch_members_run_within_the_shorter_of_the_two_time_limits() {
    let message = |v: &Value| v["error"]["message"].as_str().unwrap_or("").to_string();
    let members = stuck_batch(
        2,
        &bounds(Duration::from_millis(300), Duration::from_secs(3600)),
    )
    .await;
    for m in &members {
        assert!(
            message(m).contains("after 300 ms (the request time limit)"),
            "{members:?}"
        );
    }
    let members = stuck_batch(
        2,
        &bounds(Duration::from_secs(3600), Duration::from_secs(1)),
    )
    .await;
    assert!(
        message(&members[0]).contains("(the batch's time limit (batch_timeout))"),
        "{members:?}"
    );
    assert!(message(&members[1]).starts_with("Not run"), "{members:?}");
    assert_eq!(members[1]["error"]["data"]["limit"], "batch_timeout");
}

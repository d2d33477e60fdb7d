//! Tests of the proxy's write path one rule at a time (issue 42: each fails on some change
//! cargo-mutants makes to `upstream.rs`): which calls are writes, which failures are retried and
//! how often, when an outcome is unknown, the idempotency headers, `Retry-After`, the size cap,
//! and what each attempt reports. Against a scripted API on a local socket that answers each
//! request with the next act of its script (an answer, a cut-off answer, a dropped connection or
//! none at all), so every interleaving is fixed by the script, never by timing.

use super::*;
use runtime_model::backend::{AttemptSink, Attempts, HttpAttempt};
use runtime_model::catalog::Annotations;
use serde_json::json;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

static PRODUCT: Product = Product::bare("banking", &[]);

static LIST: HttpBinding = HttpBinding {
    method: HttpMethod::Get,
    path: "/v1/things",
    path_params: &[],
    query_params: &[],
    body: BodyMode::None,
    operation_ref: None,
};
/// A read: read-only, sent with an idempotent method.
static READ: Tool = Tool {
    annotations: Annotations {
        read_only: true,
        idempotent: true,
        ..Annotations::NONE
    },
    ..Tool::bare("thing_list", Binding::Http(LIST))
};
static CREATE: HttpBinding = HttpBinding {
    method: HttpMethod::Post,
    path: "/v1/payments",
    path_params: &[],
    query_params: &[],
    body: BodyMode::Rest,
    operation_ref: None,
};
/// A write: a payment.
static WRITE: Tool = Tool::bare("payment_create", Binding::Http(CREATE));

const KEY: &str = "key-0123456789abcdef";

/// What the scripted API does with one request (one connection: every answer closes it).
enum Act {
    /// Writes these bytes (status line, headers, body) and closes.
    Send(Vec<u8>),
    /// Closes without answering: the request was sent, no answer came.
    Drop,
    /// Keeps the connection open without answering until the test ends.
    Hang,
}

/// A complete answer.
fn answer(status: u16, headers: &[(&str, &str)], body: &str) -> Act {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    Act::Send(bytes)
}

fn json_answer(status: u16, body: &str) -> Act {
    answer(status, &[("content-type", "application/json")], body)
}

/// An answer whose body stops before the length its header announced.
fn cut_off(status: u16) -> Act {
    Act::Send(
        format!(
            "HTTP/1.1 {status} X\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"uid\":"
        )
        .into_bytes(),
    )
}

/// One request as the API received it.
#[derive(Debug, Clone)]
struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

struct Api {
    base: String,
    seen: Arc<Mutex<Vec<Request>>>,
}

impl Api {
    fn requests(&self) -> Vec<Request> {
        self.seen.lock().unwrap().clone()
    }
}

/// Reads one request (head and `content-length` body); `None` when the client went away.
async fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + 4 + length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Some(Request {
        method,
        path,
        headers,
    })
}

/// An API that answers its requests with `script`, in order; a request beyond the script gets
/// HTTP 418, so a test that counts requests sees any extra one.
async fn api(script: Vec<Act>) -> Api {
    serve(TcpListener::bind("127.0.0.1:0").await.unwrap(), script)
}

/// [`api`] on a given listener.
fn serve(listener: TcpListener, script: Vec<Act>) -> Api {
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        let mut script = script.into_iter();
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let Some(request) = read_request(&mut stream).await else {
                continue;
            };
            log.lock().unwrap().push(request);
            match script
                .next()
                .unwrap_or_else(|| json_answer(418, r#"{"message":"not in the script"}"#))
            {
                Act::Send(bytes) => {
                    let _ = stream.write_all(&bytes).await;
                    let _ = stream.shutdown().await;
                }
                Act::Drop => drop(stream),
                Act::Hang => {
                    tokio::spawn(async move {
                        let _held = stream;
                        std::future::pending::<()>().await
                    });
                }
            }
        }
    });
    Api { base, seen }
}

/// The attempts a call reported: (status, error).
#[derive(Default)]
struct Reports(Mutex<Vec<(Option<u16>, Option<&'static str>)>>);

impl AttemptSink for Reports {
    fn attempt(&self, attempt: &HttpAttempt<'_>) {
        self.0.lock().unwrap().push((attempt.status, attempt.error));
    }
}

/// A call with the bearer token `tok` and `key` (also the multipart tests' context): the
/// upstream reads no more of its caller.
pub(super) fn ctx_with(key: Option<&str>, attempts: Attempts) -> CallContext {
    CallContext {
        bearer_token: Some("tok".into()),
        idempotency_key: key.map(str::to_string),
        attempts,
        ..test_support::calls::admin(&PRODUCT, "o")
    }
}

/// A call carrying the engine's idempotency key, as every confirmed write does.
fn ctx() -> CallContext {
    ctx_with(Some(KEY), Attempts::default())
}

/// The default settings but a short backoff: three attempts for a retried call.
fn config(api: &Api) -> UpstreamConfig {
    UpstreamConfig {
        base_url: Some(api.base.clone()),
        timeout: Duration::from_secs(10),
        backoff: Duration::from_millis(10),
        ..UpstreamConfig::default()
    }
}

fn upstream(config: UpstreamConfig) -> Upstream {
    Upstream::new(config).unwrap()
}

/// The upstream of a deployment whose API honours idempotency keys.
fn honouring_keys(api: &Api) -> Upstream {
    upstream(UpstreamConfig {
        retry_keyed_writes: true,
        ..config(api)
    })
}

fn payment() -> Map<String, Value> {
    json!({"amount": 100}).as_object().cloned().unwrap()
}

async fn read(up: &Upstream) -> Result<Output, BackendError> {
    up.call(&ctx(), &READ, &Map::new()).await
}

async fn write(up: &Upstream) -> Result<Output, BackendError> {
    up.call(&ctx(), &WRITE, &payment()).await
}

fn unknown(result: &Result<Output, BackendError>) -> &str {
    match result {
        Err(BackendError::OutcomeUnknown(m)) => m,
        other => panic!("expected an unknown outcome, got {other:?}"),
    }
}

#[test]
fn a_tool_that_is_not_read_only_writes() {
    assert!(is_write(&WRITE));
    assert!(!is_write(&READ));
}

#[test]
fn retry_after_is_read_in_seconds() {
    let headers = |v: &str| {
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, HeaderValue::from_str(v).unwrap());
        h
    };
    assert_eq!(retry_after(&headers("7")), Some(Duration::from_secs(7)));
    assert_eq!(retry_after(&headers(" 2 ")), Some(Duration::from_secs(2)));
    assert_eq!(retry_after(&headers("Wed, 21 Oct 2015 07:28:00 GMT")), None);
    assert_eq!(retry_after(&HeaderMap::new()), None);
}

#[test]
fn only_answers_a_retry_may_fix_are_retryable_when_their_body_breaks() {
    for status in [200, 201, 204, 429, 500, 502, 503, 504] {
        assert!(e_is_retryable(status), "{status}");
    }
    for status in [301, 400, 404, 409, 422, 501] {
        assert!(!e_is_retryable(status), "{status}");
    }
}

#[tokio::test]
async fn a_read_answered_503_is_retried_until_it_succeeds() {
    let api = api(vec![
        json_answer(503, r#"{"message":"busy"}"#),
        json_answer(200, r#"[{"uid":"t1"}]"#),
    ])
    .await;
    let out = read(&upstream(config(&api))).await.unwrap();
    assert_eq!(out, Output::Json(json!([{"uid": "t1"}])));
    assert_eq!(api.requests().len(), 2);
}

#[tokio::test]
async fn a_read_is_tried_at_most_max_attempts_times() {
    let busy = || json_answer(503, r#"{"message":"busy"}"#);
    let api = api(vec![busy(), busy(), busy(), json_answer(200, "[]")]).await;
    let err = read(&upstream(config(&api))).await.unwrap_err();
    assert_eq!(
        err,
        BackendError::Upstream {
            status: 503,
            message: "busy".into()
        }
    );
    assert_eq!(api.requests().len(), 3, "max_attempts is 3");
}

#[tokio::test]
async fn a_fan_out_part_gets_one_attempt() {
    let api = api(vec![
        json_answer(503, r#"{"message":"busy"}"#),
        json_answer(200, "[]"),
    ])
    .await;
    let up = upstream(config(&api));
    let err = up.call_once(&ctx(), &READ, &Map::new()).await.unwrap_err();
    assert!(
        matches!(err, BackendError::Upstream { status: 503, .. }),
        "{err:?}"
    );
    assert_eq!(api.requests().len(), 1);
}

#[tokio::test]
async fn a_fan_out_part_answers_like_a_call() {
    let api = api(vec![json_answer(200, r#"{"uid":"t1"}"#)]).await;
    let up = upstream(config(&api));
    let out = up.call_once(&ctx(), &READ, &Map::new()).await.unwrap();
    assert_eq!(out, Output::Json(json!({"uid": "t1"})));
}

#[tokio::test]
async fn a_missing_record_is_not_found_and_other_4xx_are_the_apis_errors() {
    let api = api(vec![
        json_answer(404, r#"{"message":"no such thing"}"#),
        json_answer(400, r#"{"message":"bad filter"}"#),
    ])
    .await;
    let up = upstream(config(&api));
    assert_eq!(
        read(&up).await.unwrap_err(),
        BackendError::NotFound("no such thing".into())
    );
    assert_eq!(
        read(&up).await.unwrap_err(),
        BackendError::Upstream {
            status: 400,
            message: "bad filter".into()
        }
    );
    assert_eq!(api.requests().len(), 2, "neither is retried");
}

#[tokio::test]
async fn a_write_is_sent_once_with_the_key_under_both_names() {
    let api = api(vec![
        json_answer(503, r#"{"message":"busy"}"#),
        json_answer(201, r#"{"uid":"pay_1"}"#),
    ])
    .await;
    // The upstream is not known to honour keys: a 5xx after sending may have run, and a second
    // request could pay twice.
    let result = write(&upstream(config(&api))).await;
    let m = unknown(&result);
    assert!(m.contains("HTTP 503") && m.contains("busy"), "{m}");
    let requests = api.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, "/v1/payments");
    assert_eq!(requests[0].header("idempotency-key"), Some(KEY));
    assert_eq!(requests[0].header("x-idempotency-key"), Some(KEY));
}

#[tokio::test]
async fn a_write_without_a_key_is_sent_once_even_where_keys_are_honoured() {
    let api = api(vec![
        json_answer(503, r#"{"message":"busy"}"#),
        json_answer(503, r#"{"message":"busy"}"#),
        json_answer(201, r#"{"uid":"pay_1"}"#),
    ])
    .await;
    let up = honouring_keys(&api);
    for key in [None, Some("")] {
        let result = up
            .call(&ctx_with(key, Attempts::default()), &WRITE, &payment())
            .await;
        unknown(&result);
    }
    let requests = api.requests();
    assert_eq!(requests.len(), 2, "one request per call");
    for r in &requests {
        assert_eq!(r.header("idempotency-key"), None, "{r:?}");
        assert_eq!(r.header("x-idempotency-key"), None, "{r:?}");
    }
}

#[tokio::test]
async fn a_keyed_write_is_retried_with_the_same_key_where_keys_are_honoured() {
    let api = api(vec![
        json_answer(503, r#"{"message":"busy"}"#),
        json_answer(429, r#"{"message":"slow down"}"#),
        json_answer(201, r#"{"uid":"pay_1"}"#),
    ])
    .await;
    let out = write(&honouring_keys(&api)).await.unwrap();
    assert_eq!(out, Output::Json(json!({"uid": "pay_1"})));
    let requests = api.requests();
    assert_eq!(requests.len(), 3);
    for r in &requests {
        assert_eq!(r.header("idempotency-key"), Some(KEY));
        assert_eq!(r.header("x-idempotency-key"), Some(KEY));
    }
}

#[tokio::test]
async fn a_409_on_our_own_retry_is_unknown_and_ends_the_retries() {
    let api = api(vec![
        json_answer(503, r#"{"message":"busy"}"#),
        json_answer(409, r#"{"message":"key in use"}"#),
        json_answer(201, r#"{"uid":"pay_1"}"#),
    ])
    .await;
    let result = write(&honouring_keys(&api)).await;
    let m = unknown(&result);
    assert!(m.contains("HTTP 409 (key in use)"), "{m}");
    assert_eq!(api.requests().len(), 2, "no third request after the 409");
}

#[tokio::test]
async fn a_refused_write_is_the_apis_error_not_an_unknown_outcome() {
    let api = api(vec![
        json_answer(409, r#"{"message":"already paid"}"#),
        json_answer(422, r#"{"message":"amount too large"}"#),
    ])
    .await;
    let up = honouring_keys(&api);
    // A 4xx on the first attempt: the API refused it, nothing ran.
    assert_eq!(
        write(&up).await.unwrap_err(),
        BackendError::Upstream {
            status: 409,
            message: "already paid".into()
        }
    );
    assert_eq!(
        write(&up).await.unwrap_err(),
        BackendError::Upstream {
            status: 422,
            message: "amount too large".into()
        }
    );
    assert_eq!(api.requests().len(), 2);
}

#[tokio::test]
async fn a_replayed_answer_is_marked_for_writes_only() {
    let replayed = [
        ("content-type", "application/json"),
        ("idempotent-replayed", "true"),
    ];
    let api = api(vec![
        answer(201, &replayed, r#"{"uid":"pay_1"}"#),
        json_answer(201, r#"{"uid":"pay_2"}"#),
        answer(200, &replayed, r#"{"uid":"t1"}"#),
    ])
    .await;
    let up = upstream(config(&api));
    assert_eq!(
        write(&up).await.unwrap(),
        Output::Replayed(Box::new(Output::Json(json!({"uid": "pay_1"}))))
    );
    assert_eq!(
        write(&up).await.unwrap(),
        Output::Json(json!({"uid": "pay_2"}))
    );
    assert_eq!(read(&up).await.unwrap(), Output::Json(json!({"uid": "t1"})));
}

#[tokio::test]
async fn an_unreadable_answer_to_a_read_is_unavailable_and_to_a_write_unknown() {
    let api = api(vec![
        json_answer(200, "{not json"),
        json_answer(201, "{not json"),
    ])
    .await;
    let up = upstream(config(&api));
    let err = read(&up).await.unwrap_err();
    assert!(
        matches!(&err, BackendError::Unavailable(m) if m.contains("malformed JSON") && m.contains("HTTP 200")),
        "{err:?}"
    );
    let result = write(&up).await;
    let m = unknown(&result);
    assert!(m.contains("accepted the request (HTTP 201)"), "{m}");
    assert_eq!(api.requests().len(), 2, "a malformed answer is not retried");
}

#[tokio::test]
async fn a_read_whose_answer_breaks_off_is_retried() {
    let api = api(vec![cut_off(200), json_answer(200, r#"{"uid":"t1"}"#)]).await;
    let out = read(&upstream(config(&api))).await.unwrap();
    assert_eq!(out, Output::Json(json!({"uid": "t1"})));
    assert_eq!(api.requests().len(), 2);
}

#[tokio::test]
async fn a_broken_off_answer_that_a_retry_cannot_fix_is_not_retried() {
    // A 404 whose body breaks off: it would be a 404 again.
    let api = api(vec![cut_off(404), json_answer(200, r#"{"uid":"t1"}"#)]).await;
    let err = read(&upstream(config(&api))).await.unwrap_err();
    assert!(
        matches!(&err, BackendError::Unavailable(m) if m.contains("could not be read completely") && m.contains("HTTP 404")),
        "{err:?}"
    );
    assert_eq!(api.requests().len(), 1);
}

#[tokio::test]
async fn an_accepted_write_whose_answer_breaks_off_is_unknown_and_not_sent_again() {
    let api = api(vec![cut_off(201), json_answer(201, r#"{"uid":"pay_1"}"#)]).await;
    let result = write(&honouring_keys(&api)).await;
    let m = unknown(&result);
    assert!(m.contains("accepted the request (HTTP 201)"), "{m}");
    assert_eq!(api.requests().len(), 1);
}

#[tokio::test]
async fn a_retry_after_within_the_limit_is_honoured() {
    let api = api(vec![
        answer(503, &[("retry-after", "1")], "busy"),
        json_answer(200, r#"{"uid":"t1"}"#),
        answer(503, &[("retry-after", "0")], "busy"),
        json_answer(200, r#"{"uid":"t2"}"#),
    ])
    .await;
    // A Retry-After equal to the longest honoured is still honoured.
    let up = upstream(UpstreamConfig {
        max_retry_after: Duration::from_secs(1),
        ..config(&api)
    });
    assert_eq!(read(&up).await.unwrap(), Output::Json(json!({"uid": "t1"})));
    assert_eq!(read(&up).await.unwrap(), Output::Json(json!({"uid": "t2"})));
    assert_eq!(api.requests().len(), 4);
}

#[tokio::test]
async fn a_retry_after_beyond_the_limit_ends_the_retries() {
    let api = api(vec![
        answer(503, &[("retry-after", "2")], "busy"),
        json_answer(200, r#"{"uid":"t1"}"#),
    ])
    .await;
    let up = upstream(UpstreamConfig {
        max_retry_after: Duration::from_secs(1),
        ..config(&api)
    });
    let err = read(&up).await.unwrap_err();
    assert!(
        matches!(err, BackendError::Upstream { status: 503, .. }),
        "{err:?}"
    );
    assert_eq!(api.requests().len(), 1);
}

#[tokio::test]
async fn an_answer_larger_than_the_cap_is_refused_before_its_body_is_read() {
    // The head announces one byte more than the cap; no body follows.
    let head = format!(
        "HTTP/1.1 200 X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        MAX_RESPONSE_BYTES + 1
    );
    let api = api(vec![Act::Send(head.into_bytes()), json_answer(200, "[]")]).await;
    let err = read(&upstream(config(&api))).await.unwrap_err();
    assert!(
        matches!(&err, BackendError::Unavailable(m) if m.contains(&format!("larger than {MAX_RESPONSE_BYTES} bytes"))),
        "{err:?}"
    );
    assert_eq!(api.requests().len(), 1, "a refused answer is not retried");
}

#[tokio::test]
async fn an_answer_of_exactly_the_cap_is_read() {
    let body = vec![b'x'; MAX_RESPONSE_BYTES];
    let mut bytes = format!(
        "HTTP/1.1 200 X\r\nconnection: close\r\ncontent-type: application/octet-stream\r\ncontent-length: {MAX_RESPONSE_BYTES}\r\n\r\n"
    )
    .into_bytes();
    bytes.extend_from_slice(&body);
    let api = api(vec![Act::Send(bytes)]).await;
    match read(&upstream(config(&api))).await.unwrap() {
        Output::Bytes { mime_type, data } => {
            assert_eq!(mime_type, "application/octet-stream");
            assert_eq!(data.len(), MAX_RESPONSE_BYTES);
        }
        other => panic!("expected the file, got a {other:?}"),
    }
}

/// No answer at all: a dropped connection or a silent one may have run a write (a refused one:
/// below). Each attempt reports why it got no answer.
#[tokio::test]
async fn attempts_without_an_answer_say_why() {
    let api = api(vec![Act::Drop, Act::Hang, Act::Drop, Act::Hang]).await;
    let reports = Arc::new(Reports::default());
    let ctx = ctx_with(Some(KEY), Attempts::to(reports.clone()));
    let up = upstream(UpstreamConfig {
        timeout: Duration::from_millis(300),
        max_attempts: 1,
        ..config(&api)
    });
    let err = up.call(&ctx, &READ, &Map::new()).await.unwrap_err();
    assert!(
        matches!(&err, BackendError::Unavailable(m) if m.contains("connection") && m.contains("broke")),
        "{err:?}"
    );
    let err = up.call(&ctx, &READ, &Map::new()).await.unwrap_err();
    assert!(
        matches!(&err, BackendError::Unavailable(m) if m.contains("did not answer within 300 ms")),
        "{err:?}"
    );
    let result = up.call(&ctx, &WRITE, &payment()).await;
    assert!(unknown(&result).contains("broke"), "{result:?}");
    let result = up.call(&ctx, &WRITE, &payment()).await;
    assert!(
        unknown(&result).contains("did not answer within 300 ms"),
        "{result:?}"
    );

    assert_eq!(
        *reports.0.lock().unwrap(),
        vec![
            (None, Some("connection_broken")),
            (None, Some("timeout")),
            (None, Some("connection_broken")),
            (None, Some("timeout")),
        ]
    );
}

/// An address nothing listens on until an attempt to it is refused: then the API starts there
/// and answers its script. A call that tries once sees only the refusal; one that tries again
/// is answered, so a call that would retry forever ends on the script instead of hanging.
struct OpensWhenRefused {
    address: std::net::SocketAddr,
    script: Mutex<Option<Vec<Act>>>,
    api: Mutex<Option<Api>>,
    reports: Reports,
}

impl OpensWhenRefused {
    async fn new(script: Vec<Act>) -> Arc<Self> {
        let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = closed.local_addr().unwrap();
        drop(closed);
        Arc::new(OpensWhenRefused {
            address,
            script: Mutex::new(Some(script)),
            api: Mutex::new(None),
            reports: Reports::default(),
        })
    }

    fn base(&self) -> String {
        format!("http://{}", self.address)
    }

    /// The requests the API received once it started.
    fn requests(&self) -> Vec<Request> {
        self.api
            .lock()
            .unwrap()
            .as_ref()
            .map(Api::requests)
            .unwrap_or_default()
    }

    fn reports(&self) -> Vec<(Option<u16>, Option<&'static str>)> {
        self.reports.0.lock().unwrap().clone()
    }
}

impl AttemptSink for OpensWhenRefused {
    fn attempt(&self, attempt: &HttpAttempt<'_>) {
        self.reports.attempt(attempt);
        if attempt.error == Some("connect_error") {
            if let Some(script) = self.script.lock().unwrap().take() {
                let listener = std::net::TcpListener::bind(self.address).unwrap();
                listener.set_nonblocking(true).unwrap();
                let api = serve(TcpListener::from_std(listener).unwrap(), script);
                *self.api.lock().unwrap() = Some(api);
            }
        }
    }
}

/// A refused connection sent nothing: the error says so (never an unknown outcome), and a
/// fan-out part, which gets one attempt, is not sent again.
#[tokio::test]
async fn a_refused_connection_sent_nothing() {
    let api = OpensWhenRefused::new(vec![json_answer(200, "[]")]).await;
    let up = upstream(UpstreamConfig {
        base_url: Some(api.base()),
        timeout: Duration::from_secs(10),
        backoff: Duration::from_millis(10),
        ..UpstreamConfig::default()
    });
    let ctx = ctx_with(Some(KEY), Attempts::to(api.clone()));
    let err = up.call_once(&ctx, &READ, &Map::new()).await.unwrap_err();
    assert!(
        matches!(&err, BackendError::Unavailable(m) if m.contains("cannot reach") && m.contains("nothing was sent")),
        "{err:?}"
    );
    assert_eq!(api.reports(), vec![(None, Some("connect_error"))]);
    assert_eq!(api.requests().len(), 0);
}

/// A keyed write whose connection was refused is tried again where keys are honoured: the
/// second attempt reaches the API and the payment is made once.
#[tokio::test]
async fn a_refused_keyed_write_is_tried_again_where_keys_are_honoured() {
    let api = OpensWhenRefused::new(vec![json_answer(201, r#"{"uid":"pay_1"}"#)]).await;
    let up = upstream(UpstreamConfig {
        base_url: Some(api.base()),
        timeout: Duration::from_secs(10),
        backoff: Duration::from_millis(10),
        retry_keyed_writes: true,
        ..UpstreamConfig::default()
    });
    let ctx = ctx_with(Some(KEY), Attempts::to(api.clone()));
    let out = up.call(&ctx, &WRITE, &payment()).await.unwrap();
    assert_eq!(out, Output::Json(json!({"uid": "pay_1"})));
    assert_eq!(
        api.reports(),
        vec![(None, Some("connect_error")), (Some(201), None)]
    );
    let requests = api.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].header("idempotency-key"), Some(KEY));
}

#[tokio::test]
async fn answered_attempts_report_their_status() {
    let api = api(vec![
        json_answer(503, r#"{"message":"busy"}"#),
        json_answer(200, "[]"),
    ])
    .await;
    let reports = Arc::new(Reports::default());
    let ctx = ctx_with(None, Attempts::to(reports.clone()));
    upstream(config(&api))
        .call(&ctx, &READ, &Map::new())
        .await
        .unwrap();
    assert_eq!(
        *reports.0.lock().unwrap(),
        vec![(Some(503), None), (Some(200), None)]
    );
}

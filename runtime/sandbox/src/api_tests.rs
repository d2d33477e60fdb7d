//! `serve-api`'s request handling, called as the router calls it (no socket): the idempotency
//! keys (the same key and request answer the first response again without running anything, the
//! same key with another request is refused, a key in use is refused until its request ends, a
//! failed request frees its key, keys are per token and only for writes), and the routing and
//! body reading a keyed write goes through.

use super::*;
use runtime_model::catalog::HttpMethod;
use test_support::demo;

/// A product whose one path variable names a differently called argument (`{billet}` is the
/// tool's `id`), as a catalog may bind it.
static RENAMED_TOOLS: &[Tool] = &[
    Tool {
        operation: Operation::List {
            record: "bank_billets",
        },
        ..Tool::bare(
            "renamed_billets_list",
            Binding::Http(HttpBinding {
                method: HttpMethod::Get,
                path: "/v1/billets",
                path_params: &[],
                query_params: &["per_page"],
                body: BodyMode::None,
                operation_ref: None,
            }),
        )
    },
    Tool {
        operation: Operation::Get {
            record: "bank_billets",
            id_arg: "id",
        },
        ..Tool::bare(
            "renamed_billet_get",
            Binding::Http(HttpBinding {
                method: HttpMethod::Get,
                path: "/v1/billets/{billet}",
                path_params: &[("billet", "id")],
                query_params: &[],
                body: BodyMode::None,
                operation_ref: None,
            }),
        )
    },
];

static RENAMED: Product = Product {
    records: demo::RECORDS,
    ..Product::bare("renamed", RENAMED_TOOLS)
};

struct Api {
    state: ApiState,
    _dir: tempfile::TempDir,
}

/// One answer: status, headers, body (JSON, or the text as a string).
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    bytes: Bytes,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&self.bytes).into_owned()))
    }
    fn error(&self) -> String {
        self.json()["error"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
    fn replayed(&self) -> bool {
        self.headers
            .get(runtime_model::backend::IDEMPOTENT_REPLAYED)
            .is_some()
    }
}

/// Every token is a person of its own organization (`tok-a` of `org-tok-a`), so two tokens see
/// two separate sets of records.
fn per_token() -> IdentityLookup {
    Arc::new(|token: &str| {
        Some(Identity {
            organization: format!("org-{token}"),
            ..demo_identity()
        })
    })
}

fn api() -> Api {
    let dir = tempfile::tempdir().expect("tempdir");
    let sandbox = Sandbox::open(&crate::SandboxConfig::new(dir.path())).expect("open sandbox");
    let mut products = demo::PRODUCTS.to_vec();
    products.push(&RENAMED);
    Api {
        state: ApiState::new(sandbox, products, per_token()),
        _dir: dir,
    }
}

/// A request as the router hands it over: `target` is the path and query; `headers` are added
/// to a bearer token `tok-a` (a header named `authorization` replaces it).
fn request(
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (Method, axum::http::Uri, Option<String>, HeaderMap, Bytes) {
    let uri: axum::http::Uri = target.parse().expect("uri");
    let query = uri.query().map(str::to_string);
    let mut map = HeaderMap::new();
    map.insert(
        header::AUTHORIZATION,
        header::HeaderValue::from_static("Bearer tok-a"),
    );
    if !body.is_empty() {
        map.insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("application/json"),
        );
    }
    for (k, v) in headers {
        map.insert(
            header::HeaderName::from_bytes(k.as_bytes()).expect("header name"),
            header::HeaderValue::from_str(v).expect("header value"),
        );
    }
    let method = Method::from_bytes(method.as_bytes()).expect("method");
    (method, uri, query, map, Bytes::from(body.to_string()))
}

async fn answer(resp: Response) -> Answer {
    let status = resp.status();
    let headers = resp.headers().clone();
    let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .expect("body");
    Answer {
        status,
        headers,
        bytes,
    }
}

impl Api {
    async fn send(
        &self,
        method: &str,
        target: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Answer {
        let (method, uri, query, headers, body) = request(method, target, headers, body);
        answer(
            handle(
                State(self.state.clone()),
                method,
                uri,
                RawQuery(query),
                headers,
                body,
            )
            .await,
        )
        .await
    }

    /// The demo product's billets (the seeded ones and those created since).
    async fn billets(&self) -> Vec<Value> {
        let a = self
            .send("GET", "/demo/v1/bank_billets?per_page=100", &[], "")
            .await;
        assert_eq!(a.status, StatusCode::OK, "{:?}", a.json());
        a.json().as_array().expect("a v1 list is an array").clone()
    }

    async fn billet_count(&self) -> usize {
        self.billets().await.len()
    }

    /// A `POST` of `body` to the demo product's billets.
    async fn post_billet(&self, headers: &[(&str, &str)], body: &str) -> Answer {
        self.send("POST", "/demo/v1/bank_billets", headers, body)
            .await
    }

    /// Creates a billet under `key` (when given), the body wrapped as the API takes it.
    async fn create(&self, key: Option<&str>, amount: f64, description: &str) -> Answer {
        let body = json!({"bank_billet": {"amount": amount, "description": description}});
        let headers: Vec<(&str, &str)> = key.map(|k| ("idempotency-key", k)).into_iter().collect();
        self.post_billet(&headers, &body.to_string()).await
    }
}

#[tokio::test]
async fn the_same_key_and_request_answer_the_first_response_without_running_again() {
    let api = api();
    let before = api.billet_count().await;
    let first = api.create(Some("k-1"), 12.5, "once").await;
    assert_eq!(first.status, StatusCode::CREATED, "{:?}", first.json());
    assert!(!first.replayed(), "the first answer is not a replay");
    assert_eq!(first.json()["description"], "once");
    assert_eq!(api.billet_count().await, before + 1);

    let again = api.create(Some("k-1"), 12.5, "once").await;
    assert_eq!(
        again.status,
        StatusCode::CREATED,
        "the first answer's status"
    );
    assert_eq!(again.bytes, first.bytes, "the first answer, byte for byte");
    assert_eq!(
        again.headers.get(header::CONTENT_TYPE),
        first.headers.get(header::CONTENT_TYPE)
    );
    assert_eq!(
        again
            .headers
            .get(runtime_model::backend::IDEMPOTENT_REPLAYED)
            .and_then(|v| v.to_str().ok()),
        Some("true"),
        "marked as a replay"
    );
    assert_eq!(api.billet_count().await, before + 1, "nothing ran again");

    // The older header name is the same key.
    let x = api
        .post_billet(
            &[("x-idempotency-key", "k-1")],
            &json!({"bank_billet": {"amount": 12.5, "description": "once"}}).to_string(),
        )
        .await;
    assert!(x.replayed() && x.bytes == first.bytes);
    // A new key is a new request.
    let other = api.create(Some("k-2"), 12.5, "once").await;
    assert_eq!(other.status, StatusCode::CREATED);
    assert!(!other.replayed());
    assert_ne!(other.json()["id"], first.json()["id"]);
    assert_eq!(api.billet_count().await, before + 2);
}

#[tokio::test]
async fn without_a_key_or_with_an_empty_one_every_write_runs() {
    let api = api();
    let before = api.billet_count().await;
    for _ in 0..2 {
        assert_eq!(
            api.create(None, 3.0, "unkeyed").await.status,
            StatusCode::CREATED
        );
        let empty = api.create(Some(""), 3.0, "unkeyed").await;
        assert_eq!(empty.status, StatusCode::CREATED);
        assert!(!empty.replayed(), "an empty key is no key");
    }
    assert_eq!(api.billet_count().await, before + 4);
}

#[tokio::test]
async fn the_same_key_with_another_request_is_refused_and_changes_nothing() {
    let api = api();
    let first = api.create(Some("k"), 10.0, "first").await;
    assert_eq!(first.status, StatusCode::CREATED);
    let id = first.json()["id"].to_string();
    let count = api.billet_count().await;
    let body = json!({"bank_billet": {"amount": 10.0, "description": "first"}}).to_string();
    let other_body = json!({"bank_billet": {"amount": 11.0, "description": "first"}}).to_string();
    let key = [("idempotency-key", "k")];
    // Another body, another query, another path, another method: each a new request.
    let others = [
        ("POST", "/demo/v1/bank_billets".to_string(), other_body),
        (
            "POST",
            "/demo/v1/bank_billets?description=second".to_string(),
            body.clone(),
        ),
        ("PUT", format!("/demo/v1/bank_billets/{id}"), body.clone()),
        (
            "DELETE",
            format!("/demo/v1/bank_billets/{id}"),
            String::new(),
        ),
    ];
    for (method, target, body) in &others {
        let a = api.send(method, target, &key, body).await;
        assert_eq!(
            a.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{method} {target}: {:?}",
            a.json()
        );
        assert_eq!(a.error(), "idempotency_key_reused");
        let message = a.json()["message"].as_str().unwrap_or_default().to_string();
        assert!(
            message.contains("POST /demo/v1/bank_billets"),
            "names the key's first request: {message}"
        );
    }
    assert_eq!(api.billet_count().await, count, "nothing ran");
    let billet = api
        .send("GET", &format!("/demo/v1/bank_billets/{id}"), &[], "")
        .await;
    assert_eq!(billet.status, StatusCode::OK, "not deleted");
    assert_eq!(billet.json()["description"], "first", "not updated");
    // The key still answers its own request.
    let again = api.post_billet(&key, &body).await;
    assert!(again.replayed() && again.bytes == first.bytes);
}

#[tokio::test]
async fn a_query_is_part_of_the_request_and_an_empty_one_is_none() {
    let api = api();
    let body = json!({"bank_billet": {"amount": 4.0}}).to_string();
    let key = [("idempotency-key", "q")];
    let first = api
        .send("POST", "/demo/v1/bank_billets?description=a", &key, &body)
        .await;
    assert_eq!(first.status, StatusCode::CREATED);
    let without = api.post_billet(&key, &body).await;
    assert_eq!(without.error(), "idempotency_key_reused");
    assert!(
        without.json()["message"]
            .as_str()
            .is_some_and(|m| m.contains("POST /demo/v1/bank_billets?description=a")),
        "{:?}",
        without.json()
    );
    let same = api
        .send("POST", "/demo/v1/bank_billets?description=a", &key, &body)
        .await;
    assert!(same.replayed() && same.bytes == first.bytes);

    // `/path?` and `/path` are the same request.
    let key = [("idempotency-key", "no-query")];
    let first = api.post_billet(&key, &body).await;
    assert_eq!(first.status, StatusCode::CREATED);
    let count = api.billet_count().await;
    let again = api
        .send("POST", "/demo/v1/bank_billets?", &key, &body)
        .await;
    assert_eq!(again.status, StatusCode::CREATED, "{:?}", again.json());
    assert!(again.replayed() && again.bytes == first.bytes);
    assert_eq!(api.billet_count().await, count);
}

/// Two organizations using the same key each get their own write: one's answer (its records)
/// is never the other's.
#[tokio::test]
async fn keys_belong_to_their_token() {
    let api = api();
    let body = json!({"bank_billet": {"amount": 5.0, "description": "mine"}}).to_string();
    let a = api
        .post_billet(&[("idempotency-key", "shared")], &body)
        .await;
    let b = api
        .post_billet(
            &[
                ("idempotency-key", "shared"),
                ("authorization", "Bearer tok-b"),
            ],
            &body,
        )
        .await;
    assert_eq!(b.status, StatusCode::CREATED);
    assert!(!b.replayed(), "another token's answer is never replayed");
    assert_eq!(a.status, StatusCode::CREATED);
    let list_b = api
        .send(
            "GET",
            "/demo/v1/bank_billets?per_page=100",
            &[("authorization", "Bearer tok-b")],
            "",
        )
        .await
        .json();
    let ids_b: Vec<&Value> = list_b
        .as_array()
        .expect("list")
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert!(ids_b.contains(&&b.json()["id"]), "b's answer is b's record");
}

#[tokio::test]
async fn a_request_without_a_usable_bearer_token_is_refused() {
    let api = api();
    for auth in ["", "Bearer ", "Basic dG9rOng=", "Bearer"] {
        let a = api
            .send(
                "GET",
                "/demo/v1/bank_billets",
                &[("authorization", auth)],
                "",
            )
            .await;
        assert_eq!(a.status, StatusCode::UNAUTHORIZED, "{auth:?}");
    }
    let only_a: IdentityLookup = Arc::new(|t: &str| (t == "tok-a").then(demo_identity));
    let state = ApiState::new(
        api.state.sandbox.clone(),
        api.state.products.clone(),
        only_a,
    );
    let strict = Api {
        state,
        _dir: tempfile::tempdir().expect("tempdir"),
    };
    let ok = strict.send("GET", "/demo/v1/bank_billets", &[], "").await;
    assert_eq!(ok.status, StatusCode::OK);
    let lower = strict
        .send(
            "GET",
            "/demo/v1/bank_billets",
            &[("authorization", "bearer  tok-a ")],
            "",
        )
        .await;
    assert_eq!(
        lower.status,
        StatusCode::OK,
        "the scheme in any case, the token trimmed"
    );
    let other = strict
        .send(
            "GET",
            "/demo/v1/bank_billets",
            &[("authorization", "Bearer tok-b")],
            "",
        )
        .await;
    assert_eq!(other.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_read_is_never_replayed() {
    let api = api();
    let id = api.billets().await[0]["id"].to_string();
    let target = format!("/demo/v1/bank_billets/{id}");
    let key = [("idempotency-key", "read")];
    let first = api.send("GET", &target, &key, "").await;
    assert_eq!(first.status, StatusCode::OK);
    let update = api
        .send(
            "PUT",
            &target,
            &[("idempotency-key", "update")],
            &json!({"description": "changed"}).to_string(),
        )
        .await;
    assert_eq!(update.status, StatusCode::OK, "{:?}", update.json());
    let again = api.send("GET", &target, &key, "").await;
    assert!(!again.replayed());
    assert_eq!(again.json()["description"], "changed", "read afresh");
}

/// serve-api keeps its keys in memory, the sandbox's store keeps a keyed write's answer (24 h):
/// after a restart, the same key and request answer the kept response, marked as a replay,
/// without running again, and go on doing so.
#[tokio::test]
async fn after_a_restart_a_key_the_store_kept_replays_its_answer() {
    let api = api();
    let first = api.create(Some("kept"), 8.0, "before the restart").await;
    assert_eq!(first.status, StatusCode::CREATED);
    let count = api.billet_count().await;
    let restarted = Api {
        state: ApiState::new(
            api.state.sandbox.clone(),
            api.state.products.clone(),
            per_token(),
        ),
        _dir: tempfile::tempdir().expect("tempdir"),
    };
    for _ in 0..2 {
        let again = restarted
            .create(Some("kept"), 8.0, "before the restart")
            .await;
        assert_eq!(again.status, StatusCode::CREATED, "{:?}", again.json());
        assert!(again.replayed(), "marked as a replay");
        assert_eq!(again.json(), first.json(), "the first answer");
    }
    assert_eq!(restarted.billet_count().await, count, "nothing ran again");
}

#[tokio::test]
async fn a_failed_request_frees_its_key() {
    let api = api();
    let key = [("idempotency-key", "retry")];
    let body = json!({"paid_amount": 1.0}).to_string();
    let missing = api
        .send("POST", "/demo/v1/bank_billets/999999999/pay", &key, &body)
        .await;
    assert_eq!(
        missing.status,
        StatusCode::NOT_FOUND,
        "{:?}",
        missing.json()
    );
    // The same key, now for a request that works: it runs.
    let first = api.create(Some("retry"), 9.0, "after a failure").await;
    assert_eq!(first.status, StatusCode::CREATED, "{:?}", first.json());
    assert!(!first.replayed());
}

/// While a keyed request runs, the same key is refused as in use (409) without running
/// anything; once it has ended, the key answers its response. The first request is held at the
/// point it waits for the store (every store lane taken by the test), after it took its key.
#[tokio::test]
async fn a_key_in_use_is_refused_until_its_request_ends() {
    let api = api();
    let before = api.billet_count().await;
    let lanes = api.state.sandbox.inner.lanes.clone();
    let all = u32::try_from(lanes.available_permits()).expect("lanes");
    let held = lanes.clone().acquire_many_owned(all).await.expect("lanes");

    let state = api.state.clone();
    let body = json!({"bank_billet": {"amount": 6.0, "description": "slow"}}).to_string();
    let (m, uri, q, h, b) = request(
        "POST",
        "/demo/v1/bank_billets",
        &[("idempotency-key", "busy")],
        &body,
    );
    let first =
        tokio::spawn(
            async move { answer(handle(State(state), m, uri, RawQuery(q), h, b).await).await },
        );
    // On this one-thread runtime the first request runs when the test yields, up to where it
    // waits for a lane: a few turns of the scheduler, never a matter of time.
    let token_key = ("tok-a".to_string(), "busy".to_string());
    let mut turns = 0;
    while !api
        .state
        .idempotent
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .contains_key(&token_key)
    {
        assert!(turns < 100, "the first request never took its key");
        turns += 1;
        tokio::task::yield_now().await;
    }

    let busy = api.post_billet(&[("idempotency-key", "busy")], &body).await;
    assert_eq!(busy.status, StatusCode::CONFLICT, "{:?}", busy.json());
    assert_eq!(busy.error(), "idempotency_key_in_use");
    // Another request under the key in use is still another request.
    let other = api
        .post_billet(
            &[("idempotency-key", "busy")],
            &json!({"bank_billet": {"amount": 7.0}}).to_string(),
        )
        .await;
    assert_eq!(other.error(), "idempotency_key_reused");

    drop(held);
    let first = first.await.expect("first request");
    assert_eq!(first.status, StatusCode::CREATED);
    let after = api.post_billet(&[("idempotency-key", "busy")], &body).await;
    assert!(after.replayed() && after.bytes == first.bytes);
    assert_eq!(api.billet_count().await, before + 1, "ran once");
}

#[tokio::test]
async fn a_wrapped_body_is_read_from_its_wrapper_only() {
    let api = api();
    let created = api
        .post_billet(
            &[],
            &json!({
                "bank_billet": {"amount": 21.0, "description": "wrapped"},
                "extra": {"description": "beside the wrapper"},
            })
            .to_string(),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{:?}", created.json());
    let v = created.json();
    assert_eq!(v["amount"], 21.0);
    assert_eq!(v["description"], "wrapped");
}

#[tokio::test]
async fn routes_reach_their_tool() {
    let api = api();
    // The identity endpoint answers a GET only.
    let me = api.send("GET", "/demo/v2/me", &[], "").await;
    assert_eq!(me.status, StatusCode::OK);
    assert_eq!(me.json()["data"]["user"]["uid"], demo_identity().person);
    let post_me = api.send("POST", "/demo/v2/me", &[], "{}").await;
    assert_eq!(post_me.status, StatusCode::NOT_FOUND);
    // Other products and unknown ones.
    let inbox = api.send("GET", "/demo_inbox/v2/emails", &[], "").await;
    assert_eq!(inbox.status, StatusCode::OK, "{:?}", inbox.json());
    assert!(inbox.json().get("data").is_some(), "{:?}", inbox.json());
    let unknown = api.send("GET", "/nowhere/v2/emails", &[], "").await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    // A path variable named otherwise than its argument.
    let id = {
        let list = api.send("GET", "/renamed/v1/billets", &[], "").await;
        assert_eq!(list.status, StatusCode::OK, "{:?}", list.json());
        list.json()[0]["id"].clone()
    };
    let plain = id.as_str().map_or_else(|| id.to_string(), str::to_string);
    let got = api
        .send("GET", &format!("/renamed/v1/billets/{plain}"), &[], "")
        .await;
    assert_eq!(got.status, StatusCode::OK, "{:?}", got.json());
    assert_eq!(got.json()["id"], id);
}

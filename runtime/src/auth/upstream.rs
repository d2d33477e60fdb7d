//! Tokens resolved by the Kobana API itself: `GET {base}/v2/me` with the caller's bearer.
//!
//! Used in proxy mode, where tokens are real Kobana tokens. Answers are cached briefly (per token
//! digest, bounded), because every MCP request is authenticated on its own and a round trip to the
//! identity endpoint per request would double the latency. Refusals (401/403) are not cached, so a
//! freshly issued token works at once; they are cheap for the API to answer.
//!
//! Mapping of the `/v2/me` answer (`data.*`) to [`Identity`]:
//! - person: `user.uid`; for a token not created by a user (`user: null`), `token:<access_token.uid>`;
//! - name: `user.full_name`, else the account's `business_name` / `full_name`;
//! - organization: `account.uid`;
//! - scopes: `access_token.scopes`;
//! - permissions: `user.permissions`, where a pattern such as `charge.bank_billets.*` is expanded
//!   to every permission of the served products it covers; an account token (no user) is limited
//!   by its scopes only (`*`);
//! - workspaces: `workspaces[]` (strings or objects with `uid`/`id`) when the API sends them.

use std::collections::BTreeSet;
use std::time::Duration;

use moka::policy::EvictionPolicy;
use moka::sync::Cache;

use runtime_model::backend::BoxFuture;
use runtime_model::catalog::Product;
use runtime_model::identity::Identity;
use serde_json::Value;

use super::embedded::{token_digest, TokenDigest};
use super::resolver::{AuthError, Resolver};

/// Default cache lifetime of a resolved identity.
pub const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(60);
/// Default bound on cached identities.
pub const DEFAULT_CACHE_CAPACITY: usize = 10_000;
/// Timeout of one identity request.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// Resolves tokens through the Kobana API's identity endpoint.
pub struct UpstreamResolver {
    client: reqwest::Client,
    me_url: String,
    /// Every permission the served products use (to expand `x.*` patterns).
    known_permissions: BTreeSet<&'static str>,
    /// Resolved identities by token digest; `None` when caching is off.
    cache: Option<Cache<TokenDigest, Identity>>,
}

/// A cache of `capacity` identities, each kept `ttl` after it was resolved, the least recently
/// used evicted first; `None` for `capacity` 0.
fn identity_cache(ttl: Duration, capacity: usize) -> Option<Cache<TokenDigest, Identity>> {
    (capacity > 0).then(|| {
        Cache::builder()
            .max_capacity(capacity as u64)
            .time_to_live(ttl)
            .eviction_policy(EvictionPolicy::lru())
            .build()
    })
}

impl UpstreamResolver {
    /// `api_base` is the API origin, e.g. `https://api.kobana.com.br`.
    pub fn new(api_base: &str, products: &[&Product]) -> Result<Self, AuthError> {
        let client = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .connect_timeout(Duration::from_secs(2))
            .user_agent(concat!("kobana-mcp/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| AuthError::Unavailable(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self {
            client,
            me_url: format!("{}/v2/me", api_base.trim_end_matches('/')),
            known_permissions: products
                .iter()
                .flat_map(|p| p.tools.iter())
                .map(|t| t.permission)
                .filter(|p| !p.is_empty())
                .collect(),
            cache: identity_cache(DEFAULT_CACHE_TTL, DEFAULT_CACHE_CAPACITY),
        })
    }

    /// Overrides the cache lifetime and bound (`capacity` 0 disables caching).
    pub fn with_cache(mut self, ttl: Duration, capacity: usize) -> Self {
        self.cache = identity_cache(ttl, capacity);
        self
    }

    fn cached(&self, key: &TokenDigest) -> Option<Identity> {
        self.cache.as_ref()?.get(key)
    }

    fn remember(&self, key: TokenDigest, identity: &Identity) {
        if let Some(cache) = &self.cache {
            cache.insert(key, identity.clone());
            // Apply the bound now rather than on the cache's next housekeeping round.
            cache.run_pending_tasks();
        }
    }

    async fn fetch(&self, token: &str) -> Result<Identity, AuthError> {
        // The identity service's address is the operator's, often internal: it goes to the log,
        // never into what a caller reads (the backend's rule for the API's address too).
        let unavailable = |why: String| {
            tracing::warn!(url = %self.me_url, "identity service: {why}");
            AuthError::Unavailable(format!("the identity service {why}"))
        };
        let resp = self
            .client
            .get(&self.me_url)
            .bearer_auth(token)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| unavailable(format!("could not be reached: {}", e.without_url())))?;
        let status = resp.status();
        if status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN {
            return Err(AuthError::Invalid);
        }
        if !status.is_success() {
            return Err(unavailable(format!("answered HTTP {}", status.as_u16())));
        }
        let body: Value = resp
            .json()
            .await
            .map_err(|e| unavailable(format!("sent unreadable JSON: {}", e.without_url())))?;
        identity_from_me(&body, &self.known_permissions)
            .map_err(|e| unavailable(format!("sent an identity the server cannot use: {e}")))
    }
}

impl Resolver for UpstreamResolver {
    fn resolve<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Identity, AuthError>> {
        Box::pin(async move {
            let key = token_digest(token);
            if let Some(id) = self.cached(&key) {
                return Ok(id);
            }
            let id = self.fetch(token).await?;
            self.remember(key, &id);
            Ok(id)
        })
    }
}

/// Maps a `/v2/me` answer to an identity; the error names the missing field.
pub fn identity_from_me(
    body: &Value,
    known_permissions: &BTreeSet<&'static str>,
) -> Result<Identity, String> {
    let data = body.get("data").unwrap_or(body);
    let account = data
        .get("account")
        .filter(|a| a.is_object())
        .ok_or("the answer has no data.account")?;
    let organization = str_field(account, "uid").ok_or("the answer has no data.account.uid")?;
    let token = data.get("access_token").filter(|t| t.is_object());
    let scopes: BTreeSet<String> = token
        .and_then(|t| t.get("scopes"))
        .and_then(Value::as_array)
        .ok_or("the answer has no data.access_token.scopes")?
        .iter()
        .filter_map(Value::as_str)
        .map(String::from)
        .collect();
    let user = data.get("user").filter(|u| u.is_object());
    let (person, name, permissions) = match user {
        Some(u) => {
            let person = str_field(u, "uid").ok_or("the answer has no data.user.uid")?;
            let name = str_field(u, "full_name").unwrap_or_default();
            let patterns: Vec<&str> = u
                .get("permissions")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            (person, name, expand_patterns(&patterns, known_permissions))
        }
        None => {
            let uid = token
                .and_then(|t| str_field(t, "uid"))
                .ok_or("the answer has neither data.user nor data.access_token.uid")?;
            let name = str_field(account, "business_name")
                .or_else(|| str_field(account, "full_name"))
                .unwrap_or_default();
            (
                format!("token:{uid}"),
                name,
                BTreeSet::from(["*".to_string()]),
            )
        }
    };
    let workspaces = data
        .get("workspaces")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|w| match w {
                    Value::String(s) => Some(s.clone()),
                    Value::Object(_) => str_field(w, "uid").or_else(|| str_field(w, "id")),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Identity {
        person,
        name,
        organization,
        scopes,
        permissions,
        workspaces,
        default_workspace: None,
    })
}

fn str_field(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Kobana role permissions may be patterns (`charge.bank_billets.*`, `*`): keep exact names and
/// add every known permission a pattern covers.
fn expand_patterns(patterns: &[&str], known: &BTreeSet<&'static str>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for p in patterns {
        if *p == "*" {
            out.insert("*".to_string());
        } else if let Some(prefix) = p.strip_suffix('*') {
            out.extend(
                known
                    .iter()
                    .filter(|k| k.starts_with(prefix))
                    .map(|k| k.to_string()),
            );
        } else {
            out.insert(p.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::extract::State;
    use axum::http::HeaderMap;
    use axum::routing::get;
    use axum::{Json, Router};
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn me_user() -> Value {
        json!({"status": 200, "data": {
            "account": {"uid": "acc-1", "business_name": "ACME"},
            "user": {"uid": "usr-1", "full_name": "Maria", "permissions": ["things.*", "other.read"]},
            "access_token": {"uid": "tok-1", "scopes": ["read", "test.things"]},
            "workspaces": ["ws-a", {"uid": "ws-b"}]
        }})
    }

    /// A tiny stand-in for the Kobana API on 127.0.0.1: `good` resolves, `account` is an account
    /// token, `broken` answers 500, anything else 401. Counts requests.
    async fn spawn_api() -> (String, Arc<AtomicUsize>) {
        let hits = Arc::new(AtomicUsize::new(0));
        let app = Router::new()
            .route(
                "/v2/me",
                get(
                    |State(hits): State<Arc<AtomicUsize>>, headers: HeaderMap| async move {
                        hits.fetch_add(1, Ordering::SeqCst);
                        let auth = headers
                            .get("authorization")
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or("");
                        match auth {
                            "Bearer good" => (axum::http::StatusCode::OK, Json(me_user())),
                            "Bearer account" => (
                                axum::http::StatusCode::OK,
                                Json(json!({"data": {
                                    "account": {"uid": "acc-2", "full_name": "Solo"},
                                    "user": null,
                                    "access_token": {"uid": "tok-2", "scopes": ["all"]}
                                }})),
                            ),
                            "Bearer broken" => (
                                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                                Json(json!({})),
                            ),
                            _ => (
                                axum::http::StatusCode::UNAUTHORIZED,
                                Json(json!({"error": "nope"})),
                            ),
                        }
                    },
                ),
            )
            .with_state(hits.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        (format!("http://{addr}"), hits)
    }

    #[tokio::test]
    async fn resolves_maps_and_caches() {
        let (base, hits) = spawn_api().await;
        let p = test_support::policies::product();
        let r = UpstreamResolver::new(&base, &[p]).unwrap();
        let id = r.resolve("good").await.unwrap();
        assert_eq!(id.person, "usr-1");
        assert_eq!(id.name, "Maria");
        assert_eq!(id.organization, "acc-1");
        assert!(id.scopes.contains("test.things") && id.scopes.contains("read"));
        // `things.*` expands to the test product's `things.*` permissions; exact names stay.
        assert!(id.permissions.contains("things.list"));
        assert!(id.permissions.contains("things.delete"));
        assert!(id.permissions.contains("other.read"));
        assert!(!id.permissions.contains("*"));
        assert_eq!(
            id.workspaces.iter().map(String::as_str).collect::<Vec<_>>(),
            ["ws-a", "ws-b"]
        );
        assert_eq!(hits.load(Ordering::SeqCst), 1);
        // Cached: no second request.
        assert_eq!(r.resolve("good").await.unwrap(), id);
        assert_eq!(hits.load(Ordering::SeqCst), 1);

        let acct = r.resolve("account").await.unwrap();
        assert_eq!(acct.person, "token:tok-2");
        assert_eq!(acct.organization, "acc-2");
        assert!(acct.permissions.contains("*"));
    }

    #[tokio::test]
    async fn refusals_and_failures() {
        let (base, hits) = spawn_api().await;
        let r = UpstreamResolver::new(&base, &[]).unwrap();
        assert_eq!(r.resolve("bad").await, Err(AuthError::Invalid));
        assert_eq!(r.resolve("bad").await, Err(AuthError::Invalid));
        // Refusals are not cached.
        assert_eq!(hits.load(Ordering::SeqCst), 2);
        assert!(matches!(
            r.resolve("broken").await,
            Err(AuthError::Unavailable(m)) if m.contains("500") && !m.contains("127.0.0.1") && !m.contains("/v2/me")
        ));
        let dead = UpstreamResolver::new("http://127.0.0.1:1", &[]).unwrap();
        assert!(matches!(
            dead.resolve("good").await,
            Err(AuthError::Unavailable(m)) if !m.contains("127.0.0.1")
        ));
    }

    #[tokio::test]
    async fn the_cache_expires_and_is_bounded() {
        let (base, hits) = spawn_api().await;
        let r = UpstreamResolver::new(&base, &[])
            .unwrap()
            .with_cache(Duration::from_millis(50), 1);
        r.resolve("good").await.unwrap();
        r.resolve("account").await.unwrap(); // evicts `good` (capacity 1)
        r.resolve("good").await.unwrap();
        assert_eq!(hits.load(Ordering::SeqCst), 3);
        tokio::time::sleep(Duration::from_millis(80)).await;
        r.resolve("good").await.unwrap();
        assert_eq!(hits.load(Ordering::SeqCst), 4);
    }

    #[test]
    fn malformed_answers_name_the_missing_field() {
        let known = BTreeSet::new();
        let e = identity_from_me(&json!({"data": {}}), &known).unwrap_err();
        assert!(e.contains("data.account"), "{e}");
        let e = identity_from_me(&json!({"data": {"account": {"uid": "a"}}}), &known).unwrap_err();
        assert!(e.contains("scopes"), "{e}");
    }
}

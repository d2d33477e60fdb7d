//! HTTP authentication: every request carries `Authorization: Bearer <token>`.
//!
//! [`HttpAuth`] is what the transport's auth layer (`crate::transport::auth::AuthLayer`) uses: it
//! resolves the bearer, applies the connection's default workspace (the `Kobana-Workspace-Id` header, else the
//! `workspace_id` query parameter) and stores an [`Authenticated`] in the request's extensions,
//! where the protocol engine reads it. There is no anonymous access on HTTP: a missing or invalid
//! bearer gets 401 with `WWW-Authenticate: Bearer resource_metadata="…"` (RFC 9728 §5.1) pointing
//! at the protected-resource metadata this module also serves ([`metadata_router`]).
//!
//! Error bodies are JSON-RPC error objects without an `id` (the request was not read), so MCP
//! clients can show them.

use std::sync::Arc;

use axum::extract::Query;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use runtime_model::catalog::Product;
use serde::Serialize;
use serde_json::json;
use std::collections::{BTreeSet, HashMap};

use super::resolver::WORKSPACE_QUERY_PARAM;
use super::resolver::{
    with_default_workspace, AuthError, Authenticated, Resolver, WORKSPACE_HEADER,
};

/// Path of the RFC 9728 protected-resource metadata document.
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// JSON-RPC error code of an authentication failure sent with HTTP 401/403/503 (an application
/// code outside the range the MCP specification reserves).
pub const AUTH_RPC_CODE: i64 = -31000;

/// What the auth layer needs.
pub struct HttpAuth {
    resolver: Arc<dyn Resolver>,
    /// Absolute URL of the metadata document, for `WWW-Authenticate`.
    metadata_url: String,
    /// The metadata URL's path (after the origin), for a request whose trusted proxy headers
    /// name another origin (the transport finds it and passes it in as `public_origin`).
    metadata_path: String,
}

impl HttpAuth {
    /// `public_base_url` is the server's externally visible origin (and path prefix, if any),
    /// e.g. `https://mcp.kobana.com.br`; the metadata URL is derived from it.
    pub fn new(resolver: Arc<dyn Resolver>, public_base_url: &str) -> Self {
        let metadata_url = format!("{}{METADATA_PATH}", public_base_url.trim_end_matches('/'));
        let after_scheme = metadata_url
            .split_once("://")
            .map_or(metadata_url.as_str(), |(_, rest)| rest);
        let metadata_path = after_scheme
            .find('/')
            .map_or(METADATA_PATH.to_string(), |i| after_scheme[i..].to_string());
        Self {
            resolver,
            metadata_url,
            metadata_path,
        }
    }

    pub fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    /// The metadata URL as this request's client sees it: on the origin its trusted proxy
    /// headers name, if any, else the configured public URL.
    pub fn metadata_url_for(&self, public_origin: Option<&str>) -> String {
        match public_origin {
            Some(origin) => format!("{origin}{}", self.metadata_path),
            None => self.metadata_url.clone(),
        }
    }

    /// The step-up challenge (RFC 6750 §3.1; MCP "Scope Challenge Handling"): 403 with
    /// `WWW-Authenticate: Bearer error="insufficient_scope", scope="…", resource_metadata="…"`
    /// and a JSON-RPC error body naming the missing scope.
    pub fn insufficient_scope(
        &self,
        public_origin: Option<&str>,
        id: &serde_json::Value,
        scopes: &[String],
        missing: &str,
    ) -> Response {
        // Scope tokens are `%x21 / %x23-5B / %x5D-7E` (RFC 6749 §3.3): never a quote to escape.
        let scope: Vec<&str> = scopes
            .iter()
            .map(String::as_str)
            .filter(|s| {
                !s.is_empty()
                    && s.bytes()
                        .all(|b| b > 0x20 && b < 0x7f && b != b'"' && b != b'\\')
            })
            .collect();
        let challenge = format!(
            "Bearer error=\"insufficient_scope\", scope=\"{}\", resource_metadata=\"{}\", error_description=\"The access token lacks the scope {missing}\"",
            scope.join(" "),
            self.metadata_url_for(public_origin),
        );
        let body = json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {
                "code": runtime_model::errors::INSUFFICIENT_SCOPE.rpc_code,
                "message": format!("{}: missing `{missing}`", runtime_model::errors::INSUFFICIENT_SCOPE.message),
                "data": {"error": "insufficient_scope", "missing": missing, "scope": scope.join(" ")},
            },
        });
        let mut resp = (StatusCode::FORBIDDEN, Json(body)).into_response();
        if let Ok(c) = HeaderValue::from_str(&challenge) {
            resp.headers_mut().insert(header::WWW_AUTHENTICATE, c);
        }
        resp
    }

    /// Resolves the caller of one request from its headers and URI (the middleware's core, usable
    /// by a transport that does not go through axum's middleware stack).
    pub async fn authenticate_parts(
        &self,
        headers: &HeaderMap,
        uri: &axum::http::Uri,
    ) -> Result<Authenticated, AuthError> {
        let token = bearer_token(headers)?;
        let identity = self.resolver.resolve(token).await?;
        let workspace = requested_workspace(headers, uri);
        let identity = with_default_workspace(identity, workspace.as_deref())?;
        Ok(Authenticated {
            identity: Arc::new(identity),
            token: Arc::from(token),
        })
    }

    /// The HTTP answer to an authentication failure.
    pub fn refusal(&self, err: &AuthError) -> Response {
        self.refusal_for(err, None)
    }

    /// [`Self::refusal`], with the metadata URL as this request's client sees it.
    pub fn refusal_for(&self, err: &AuthError, public_origin: Option<&str>) -> Response {
        let metadata_url = self.metadata_url_for(public_origin);
        let (status, challenge) = match err {
            AuthError::Missing => (
                StatusCode::UNAUTHORIZED,
                Some(format!("Bearer resource_metadata=\"{metadata_url}\"")),
            ),
            AuthError::Invalid => (
                StatusCode::UNAUTHORIZED,
                Some(format!(
                    "Bearer error=\"invalid_token\", error_description=\"The access token is invalid or expired\", resource_metadata=\"{metadata_url}\""
                )),
            ),
            AuthError::ForeignWorkspace(_) => (StatusCode::FORBIDDEN, None),
            AuthError::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, None),
        };
        let body = json!({
            "jsonrpc": "2.0",
            "error": {"code": AUTH_RPC_CODE, "message": err.to_string()},
        });
        let mut resp = (status, Json(body)).into_response();
        if let Some(c) = challenge.and_then(|c| HeaderValue::from_str(&c).ok()) {
            resp.headers_mut().insert(header::WWW_AUTHENTICATE, c);
        }
        resp
    }
}

/// An auth refusal whose JSON-RPC message is in `locale` ([`AuthError::message`]), with a
/// `Content-Language` saying which; its status and other headers as they were.
pub fn in_locale(
    resp: Response,
    err: &AuthError,
    locale: runtime_model::locale::Locale,
) -> Response {
    let (mut parts, _) = resp.into_parts();
    let message = err.message(locale);
    let body = json!({
        "jsonrpc": "2.0",
        "error": {"code": AUTH_RPC_CODE, "message": message},
    });
    let fresh = Json(body).into_response();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_LANGUAGE,
        HeaderValue::from_static(locale.tag()),
    );
    Response::from_parts(parts, fresh.into_body())
}

/// The bearer token of a request. A malformed `Authorization` header (another scheme, no token)
/// counts as missing: the client gets the challenge that tells it how to obtain one.
pub fn bearer_token(headers: &HeaderMap) -> Result<&str, AuthError> {
    let value = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .ok_or(AuthError::Missing)?;
    let (scheme, token) = value.trim().split_once(' ').ok_or(AuthError::Missing)?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return Err(AuthError::Missing);
    }
    Ok(token)
}

/// The connection's requested default workspace: the header, else the query parameter.
pub fn requested_workspace(headers: &HeaderMap, uri: &axum::http::Uri) -> Option<String> {
    if let Some(v) = headers.get(WORKSPACE_HEADER).and_then(|v| v.to_str().ok()) {
        return Some(v.trim().to_string());
    }
    Query::<HashMap<String, String>>::try_from_uri(uri)
        .ok()
        .and_then(|Query(q)| q.get(WORKSPACE_QUERY_PARAM).cloned())
}

/// The RFC 9728 protected-resource metadata document.
#[derive(Debug, Clone, Serialize)]
pub struct ProtectedResource {
    /// The resource identifier (the server's public base URL).
    pub resource: String,
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Vec<String>,
    pub bearer_methods_supported: Vec<String>,
    pub resource_name: String,
}

impl ProtectedResource {
    /// Metadata for a server at `public_base_url` serving `products`: the scopes are the meta
    /// scopes plus every resource scope the products' tools use.
    pub fn for_products(
        public_base_url: &str,
        authorization_servers: Vec<String>,
        products: &[&Product],
    ) -> Self {
        let mut scopes: BTreeSet<String> = ["read", "write", "all"]
            .into_iter()
            .map(String::from)
            .collect();
        scopes.extend(
            products
                .iter()
                .flat_map(|p| p.tools.iter())
                .filter(|t| !t.scope.is_empty())
                .map(|t| t.scope.to_string()),
        );
        let mut meta_first: Vec<String> = vec!["read".into(), "write".into(), "all".into()];
        meta_first.extend(
            scopes
                .into_iter()
                .filter(|s| !matches!(s.as_str(), "read" | "write" | "all")),
        );
        Self {
            resource: public_base_url.trim_end_matches('/').to_string(),
            authorization_servers,
            scopes_supported: meta_first,
            bearer_methods_supported: vec!["header".into()],
            resource_name: "Kobana MCP".into(),
        }
    }
}

/// Serves the metadata at [`METADATA_PATH`] (and its path-suffixed form, RFC 9728 §3.1, for
/// resources with a path such as `/banking`). Mount it outside the auth layer.
pub fn metadata_router(meta: ProtectedResource) -> Router {
    let meta = Arc::new(meta);
    let m2 = meta.clone();
    Router::new()
        .route(
            METADATA_PATH,
            get(move || {
                let m = meta.clone();
                async move { Json((*m).clone()) }
            }),
        )
        .route(
            &format!("{METADATA_PATH}/{{*resource_path}}"),
            get(move || {
                let m = m2.clone();
                async move { Json((*m).clone()) }
            }),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::EmbeddedResolver;
    use crate::transport::auth::AuthLayer;
    use axum::body::Body;
    use axum::Extension;
    use test_support::policies::product;
    use tower::ServiceExt;

    fn app() -> Router {
        let resolver = Arc::new(EmbeddedResolver::builtin(&[product()]).unwrap());
        let auth = Arc::new(HttpAuth::new(resolver, "http://127.0.0.1:9999/"));
        let meta = ProtectedResource::for_products(
            "http://127.0.0.1:9999",
            vec!["https://auth.example".into()],
            &[product()],
        );
        Router::new()
            .route(
                "/mcp",
                axum::routing::post(|Extension(who): Extension<Authenticated>| async move {
                    Json(json!({
                        "person": who.identity.person,
                        "workspace": who.identity.default_workspace,
                        "token": &*who.token,
                    }))
                }),
            )
            .layer(AuthLayer::new(Some(auth)))
            .merge(metadata_router(meta))
    }

    async fn send(req: axum::http::Request<Body>) -> (StatusCode, HeaderMap, serde_json::Value) {
        let resp = app().oneshot(req).await.unwrap();
        let status = resp.status();
        let headers = resp.headers().clone();
        let bytes = axum::body::to_bytes(resp.into_body(), 1 << 20)
            .await
            .unwrap();
        (status, headers, serde_json::from_slice(&bytes).unwrap())
    }

    fn post(auth: Option<&str>, uri: &str) -> axum::http::request::Builder {
        let b = axum::http::Request::post(uri);
        match auth {
            Some(a) => b.header("authorization", a),
            None => b,
        }
    }

    #[tokio::test]
    async fn missing_bearer_is_401_with_the_metadata_challenge() {
        let (status, headers, body) = send(post(None, "/mcp").body(Body::empty()).unwrap()).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(
            headers[header::WWW_AUTHENTICATE],
            "Bearer resource_metadata=\"http://127.0.0.1:9999/.well-known/oauth-protected-resource\""
        );
        assert_eq!(body["jsonrpc"], "2.0");
        assert_eq!(body["error"]["code"], AUTH_RPC_CODE);
        // Another scheme is as good as none.
        let (status, _, _) =
            send(post(Some("Basic abc"), "/mcp").body(Body::empty()).unwrap()).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }

    /// An identity service that does not answer is a 503 saying so, never a refused token (no
    /// `invalid_token` challenge that would send the client to fetch a new one).
    #[tokio::test]
    async fn an_unreachable_identity_service_is_503_saying_so() {
        let auth = HttpAuth::new(
            Arc::new(EmbeddedResolver::builtin(&[product()]).unwrap()),
            "http://127.0.0.1:9999",
        );
        let resp = auth.refusal(&AuthError::Unavailable("connection refused".into()));
        assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(resp.headers().get(header::WWW_AUTHENTICATE).is_none());
        let bytes = axum::body::to_bytes(resp.into_body(), 1 << 20)
            .await
            .unwrap();
        let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("identity service is unreachable"),
            "{message}"
        );
    }

    #[tokio::test]
    async fn invalid_bearer_is_401_invalid_token() {
        let (status, headers, body) = send(
            post(Some("Bearer nope"), "/mcp")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        let challenge = headers[header::WWW_AUTHENTICATE].to_str().unwrap();
        assert!(
            challenge.starts_with("Bearer error=\"invalid_token\""),
            "{challenge}"
        );
        assert!(challenge.contains(
            "resource_metadata=\"http://127.0.0.1:9999/.well-known/oauth-protected-resource\""
        ));
        assert!(body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("invalid"));
    }

    #[tokio::test]
    async fn a_valid_bearer_reaches_the_handler_with_its_identity() {
        let (status, _, body) = send(
            post(Some("bearer demo-full"), "/mcp")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["person"], "per_demo_ana");
        assert_eq!(body["workspace"], "ws_demo_main");
        assert_eq!(body["token"], "demo-full");
    }

    #[tokio::test]
    async fn the_default_workspace_comes_from_header_or_query() {
        let (_, _, body) = send(
            post(Some("Bearer demo-multi-workspace"), "/mcp")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(body["workspace"], serde_json::Value::Null);
        let (_, _, body) = send(
            post(Some("Bearer demo-multi-workspace"), "/mcp")
                .header("kobana-workspace-id", "ws_demo_branch")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(body["workspace"], "ws_demo_branch");
        let (_, _, body) = send(
            post(
                Some("Bearer demo-multi-workspace"),
                "/mcp?workspace_id=ws_demo_main",
            )
            .body(Body::empty())
            .unwrap(),
        )
        .await;
        assert_eq!(body["workspace"], "ws_demo_main");
        let (status, _, body) = send(
            post(
                Some("Bearer demo-multi-workspace"),
                "/mcp?workspace_id=ws_demo_other",
            )
            .body(Body::empty())
            .unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::FORBIDDEN);
        assert!(body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("ws_demo_other"));
    }

    #[tokio::test]
    async fn the_metadata_document_is_served_without_auth() {
        for path in [
            METADATA_PATH,
            "/.well-known/oauth-protected-resource/banking",
        ] {
            let (status, _, body) =
                send(axum::http::Request::get(path).body(Body::empty()).unwrap()).await;
            assert_eq!(status, StatusCode::OK, "{path}");
            assert_eq!(body["resource"], "http://127.0.0.1:9999");
            assert_eq!(body["authorization_servers"][0], "https://auth.example");
            assert_eq!(body["bearer_methods_supported"], json!(["header"]));
            let scopes: Vec<&str> = body["scopes_supported"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap())
                .collect();
            assert_eq!(&scopes[..3], &["read", "write", "all"]);
            assert!(scopes.contains(&"test.things"), "{scopes:?}");
        }
    }
}

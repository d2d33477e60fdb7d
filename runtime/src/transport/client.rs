//! Who is on the other end of an HTTP request: its client address and the public origin it
//! used, and the per-IP rate limit, checked before the body is read or the token resolved.
//!
//! The accept loop gives each connection's service its peer address ([`Client::for_peer`]). Behind a proxy that
//! address is the proxy's; with [`crate::server::ServerConfig::trust_proxy_headers`] on, the
//! client address comes from `Forwarded: for=` (RFC 7239) or `X-Forwarded-For`, and the origin
//! the client used from `Forwarded: proto=;host=` or `X-Forwarded-Proto`/`X-Forwarded-Host`
//! (the protected-resource metadata URL of challenges). Off, those headers are ignored: any
//! client can send them.
//!
//! Of several forwarded addresses the last one counts: it is the one the proxy in front of us
//! appended, while the earlier ones are whatever the client wrote.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::Value;
use tower::Service;

use super::layer::LayerFuture;
use super::response::error_response;
use crate::limits::{Class, Limited};
use crate::server::Server;
use crate::telemetry::request_log;
use runtime_model::locale::Locale;

pub use super::peer::{ClientAddr, PublicOrigin};

/// The elements of a `Forwarded` header (each a list of `key=value` pairs), in order.
fn forwarded_elements(h: &HeaderMap) -> Vec<Vec<(String, String)>> {
    h.get_all("forwarded")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|element| {
            element
                .split(';')
                .filter_map(|pair| {
                    let (k, v) = pair.split_once('=')?;
                    Some((
                        k.trim().to_ascii_lowercase(),
                        v.trim().trim_matches('"').to_string(),
                    ))
                })
                .collect()
        })
        .collect()
}

/// An address as proxies write it: `192.0.2.1`, `192.0.2.1:4711`, `[2001:db8::1]:4711`,
/// `2001:db8::1`.
fn parse_node(s: &str) -> Option<IpAddr> {
    let s = s.trim();
    if let Ok(ip) = s.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(sa) = s.parse::<SocketAddr>() {
        return Some(sa.ip());
    }
    let inner = s.strip_prefix('[')?.split(']').next()?;
    inner.parse().ok()
}

/// The client address a trusted proxy reports, if it reports one.
pub fn forwarded_client(h: &HeaderMap) -> Option<IpAddr> {
    let from_forwarded = forwarded_elements(h)
        .iter()
        .rev()
        .find_map(|e| e.iter().find(|(k, _)| k == "for").map(|(_, v)| v.clone()));
    if let Some(ip) = from_forwarded.as_deref().and_then(parse_node) {
        return Some(ip);
    }
    let xff = h
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .rfind(|s| !s.is_empty())?;
    parse_node(xff)
}

/// Whether a forwarded host is a plain authority (no path, userinfo or spaces).
fn plain_authority(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']' | '_'))
}

/// The origin a trusted proxy says the client used, if it says one.
pub fn forwarded_origin(h: &HeaderMap) -> Option<String> {
    let first = |name: &str| {
        h.get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let elements = forwarded_elements(h);
    let from_forwarded = |key: &str| {
        elements
            .first()
            .and_then(|e| e.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()))
    };
    let host = from_forwarded("host").or_else(|| first("x-forwarded-host"))?;
    let proto = from_forwarded("proto")
        .or_else(|| first("x-forwarded-proto"))
        .unwrap_or_else(|| "https".to_string())
        .to_ascii_lowercase();
    if !plain_authority(&host) || !matches!(proto.as_str(), "http" | "https") {
        return None;
    }
    Some(format!("{proto}://{host}"))
}

/// The HTTP answer to a request over a rate limit: 429, `Retry-After`, a JSON-RPC error body.
pub fn too_many_requests(id: &Value, limited: &Limited, locale: Locale) -> Response {
    let mut r = error_response(
        StatusCode::TOO_MANY_REQUESTS,
        id,
        &limited.rpc_error(locale),
    );
    r.headers_mut().insert(
        axum::http::header::RETRY_AFTER,
        HeaderValue::from(limited.retry_after_secs()),
    );
    r
}

/// The layer outside every other ([`Client`]).
#[derive(Clone)]
pub struct ClientLayer {
    server: Arc<Server>,
}

impl ClientLayer {
    pub fn new(server: Arc<Server>) -> Self {
        Self { server }
    }
}

impl<S> tower::Layer<S> for ClientLayer {
    type Service = Client<S>;
    fn layer(&self, inner: S) -> Client<S> {
        Client {
            server: self.server.clone(),
            peer: None,
            inner,
        }
    }
}

/// Notes the client address (and the trusted public origin) in the request's extensions
/// ([`ClientAddr`], [`PublicOrigin`]), where every layer and handler below it reads it, and
/// applies the per-IP limit before anything else runs. A hand-written service rather than an
/// axum `from_fn` layer: that one boxed a future, built a `Next` and cloned its state per request.
#[derive(Clone)]
pub struct Client<S> {
    server: Arc<Server>,
    /// The TCP peer of the connection this service serves (set by the accept loop).
    peer: Option<SocketAddr>,
    inner: S,
}

impl<S> Client<S> {
    /// This service for one connection, whose peer is `peer`.
    pub fn for_peer(mut self, peer: SocketAddr) -> Self {
        self.peer = Some(peer);
        self
    }
}

impl<S> Service<Request> for Client<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + Unpin + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = LayerFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request) -> Self::Future {
        let trust = self.server.config.trust_proxy_headers;
        let forwarded = if trust {
            forwarded_client(req.headers())
        } else {
            None
        };
        let ip = forwarded.or(self.peer.map(|p| p.ip()));
        req.extensions_mut().insert(ClientAddr(ip));
        if trust {
            if let Some(origin) = forwarded_origin(req.headers()) {
                req.extensions_mut().insert(PublicOrigin(origin));
            }
        }
        match (ip, &self.server.config.rate_limiter) {
            (Some(ip), Some(limiter)) => {
                let limiter = limiter.clone();
                let server = self.server.clone();
                let mut inner = self.inner.clone();
                LayerFuture::Boxed(Box::pin(async move {
                    match limiter.check(Class::Ip, &ip.to_string()).await {
                        Ok(()) => match inner.call(req).await {
                            Ok(r) => r,
                            Err(e) => match e {},
                        },
                        Err(limited) => refuse(&server, &req, &limited, ip),
                    }
                }))
            }
            _ => LayerFuture::Inner(self.inner.call(req)),
        }
    }
}

/// The 429 of a request over the per-IP limit, and its log line.
fn refuse(server: &Server, req: &Request, limited: &Limited, ip: IpAddr) -> Response {
    request_log::log_refused("", "", StatusCode::TOO_MANY_REQUESTS.as_u16(), Some(ip));
    too_many_requests(
        &Value::Null,
        limited,
        unrouted_locale(server, req.headers()),
    )
}

/// The language of an answer given before any product is chosen (a refused or unroutable
/// request): the request's `Accept-Language`, else the server's `--locale`, else the first
/// product's default.
pub(crate) fn unrouted_locale(server: &Server, headers: &HeaderMap) -> Locale {
    let accept = headers
        .get(axum::http::header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok());
    server.engines().first().map_or_else(
        || Locale::choose(accept, None, Locale::En),
        |e| e.locale_for(accept),
    )
}

/// The language of an answer given before the request reaches its product (an auth refusal):
/// [`unrouted_locale`], with the default of the product `path` names (`/finance/mcp` speaks
/// finance's) in place of the first product's.
pub(crate) fn path_locale(server: &Server, headers: &HeaderMap, path: &str) -> Locale {
    let named = path.trim_start_matches('/').split('/').next().unwrap_or("");
    match server.engines().iter().find(|e| e.product.name == named) {
        Some(engine) => engine.locale_for(
            headers
                .get(axum::http::header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok()),
        ),
        None => unrouted_locale(server, headers),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn the_last_forwarded_address_counts() {
        let h = headers(&[("x-forwarded-for", "6.6.6.6, 203.0.113.7")]);
        assert_eq!(forwarded_client(&h), "203.0.113.7".parse().ok());
        let h = headers(&[(
            "forwarded",
            "for=6.6.6.6;proto=http, for=\"[2001:db8::1]:4711\";proto=https",
        )]);
        assert_eq!(forwarded_client(&h), "2001:db8::1".parse().ok());
        let h = headers(&[("x-forwarded-for", "198.51.100.2:5000")]);
        assert_eq!(forwarded_client(&h), "198.51.100.2".parse().ok());
        let h = headers(&[("x-forwarded-for", "unknown")]);
        assert_eq!(forwarded_client(&h), None);
    }

    #[test]
    fn the_forwarded_origin_is_a_plain_scheme_and_authority() {
        let h = headers(&[
            ("x-forwarded-proto", "https"),
            ("x-forwarded-host", "mcp.example.com"),
        ]);
        assert_eq!(
            forwarded_origin(&h).as_deref(),
            Some("https://mcp.example.com")
        );
        let h = headers(&[("forwarded", "proto=http;host=\"edge:8443\"")]);
        assert_eq!(forwarded_origin(&h).as_deref(), Some("http://edge:8443"));
        for bad in ["evil.com/x", "user@evil.com", "a b"] {
            let h = headers(&[("x-forwarded-host", bad)]);
            assert_eq!(forwarded_origin(&h), None, "{bad}");
        }
        let h = headers(&[
            ("x-forwarded-proto", "javascript"),
            ("x-forwarded-host", "a"),
        ]);
        assert_eq!(forwarded_origin(&h), None);
    }
}

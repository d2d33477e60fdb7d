//! The Origin/Host guard of the HTTP endpoint (DNS-rebinding protection): a foreign `Origin` or
//! `Host` gets 403 with a JSON-RPC error body, before auth and before the body is read.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::http::{header, HeaderMap, Request, StatusCode};
use axum::response::Response;
use serde_json::Value;
use tower::Service;

use super::layer::LayerFuture;
use super::response::error_response;
use crate::contract::RpcError;
use crate::server::Server;

/// An authority as `Origin` and `Host` carry it: `host[:port]`, the host a name, an IPv4 address
/// or a bracketed IPv6 one. Anything else (userinfo `…@`, a path, a query, a fragment, spaces, a
/// port that is not a number) makes it invalid: `localhost:80@evil.com` is not `localhost`.
fn split_authority(authority: &str) -> Option<(&str, Option<u16>)> {
    if authority.is_empty() || has_forbidden(authority) {
        return None;
    }
    // Every request's `Host` comes here, so the delimiters (all ASCII, and so never a byte of a
    // longer UTF-8 character) are found byte by byte rather than through `str`'s char patterns.
    let bytes = authority.as_bytes();
    let at = |delimiter: u8| bytes.iter().position(|&b| b == delimiter);
    let (host, port) = if bytes.first() == Some(&b'[') {
        let end = at(b']')?;
        let (host, after) = authority.split_at(end + 1);
        match after {
            "" => (host, None),
            _ => (host, Some(after.strip_prefix(':')?)),
        }
    } else {
        match at(b':') {
            Some(colon) => (&authority[..colon], Some(&authority[colon + 1..])),
            None => (authority, None),
        }
    };
    // A bracketed host ends at its first `]` (above), so it is at least `[]`.
    let name = match host.strip_prefix('[') {
        Some(bracketed) => &bracketed[..bracketed.len() - 1],
        None => host,
    };
    if name.is_empty() || name.bytes().any(|b| b == b'[' || b == b']') {
        return None;
    }
    let port = match port {
        None => None,
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => Some(p.parse().ok()?),
        Some(_) => return None,
    };
    Some((host, port))
}

/// Whether an authority holds userinfo, path, query or fragment characters, or whitespace. Every
/// request's `Host` goes through this: header values are ASCII, checked a byte at a time.
fn has_forbidden(authority: &str) -> bool {
    let forbidden = |c: char| matches!(c, '@' | '/' | '?' | '#' | '\\') || c.is_whitespace();
    if !authority.is_ascii() {
        return authority.contains(forbidden);
    }
    // ASCII whitespace as `char::is_whitespace` counts it: space, and tab through carriage return.
    authority
        .bytes()
        .any(|b| matches!(b, b'@' | b'/' | b'?' | b'#' | b'\\' | b' ' | b'\t'..=b'\r'))
}

/// An `Origin` value (RFC 6454: `scheme://host[:port]`, nothing more), parsed strictly.
fn parse_origin(origin: &str) -> Option<(&str, &str, Option<u16>)> {
    let (scheme, authority) = origin.split_once("://")?;
    let (host, port) = split_authority(authority)?;
    Some((scheme, host, port))
}

fn is_loopback_name(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost") || host == "127.0.0.1" || host == "[::1]"
}

fn is_loopback_host(host: &str) -> bool {
    split_authority(host).is_some_and(|(name, _)| is_loopback_name(name))
}

fn origin_allowed(server: &Server, origin: &str) -> bool {
    if server.config.allowed_origins.iter().any(|o| o == origin) {
        return true;
    }
    matches!(parse_origin(origin), Some(("http" | "https", host, _)) if is_loopback_name(host))
}

fn host_allowed(server: &Server, host: &str) -> bool {
    if !server.config.check_host || is_loopback_host(host) {
        return true;
    }
    let name = host.rsplit_once(':').map_or(host, |(h, p)| {
        if p.bytes().all(|b| b.is_ascii_digit()) {
            h
        } else {
            host
        }
    });
    server
        .config
        .allowed_hosts
        .iter()
        .any(|h| h == name || h == host)
}

/// The guard as a `tower` layer ([`Guard`]).
#[derive(Clone)]
pub struct GuardLayer {
    server: Arc<Server>,
}

impl GuardLayer {
    pub fn new(server: Arc<Server>) -> Self {
        Self { server }
    }
}

impl<S> tower::Layer<S> for GuardLayer {
    type Service = Guard<S>;
    fn layer(&self, inner: S) -> Guard<S> {
        Guard {
            server: self.server.clone(),
            inner,
        }
    }
}

/// DNS-rebinding protection: a foreign `Origin` or `Host` gets 403 with a JSON-RPC error body,
/// and the request its log line (outcome `refused`, code 403, the client address). A request it
/// lets through goes on to the inner service as it came, at no cost beyond the two checks.
#[derive(Clone)]
pub struct Guard<S> {
    server: Arc<Server>,
    inner: S,
}

impl<S, B> Service<Request<B>> for Guard<S>
where
    S: Service<Request<B>, Response = Response, Error = Infallible>,
    S::Future: Unpin,
{
    type Response = Response;
    type Error = Infallible;
    type Future = LayerFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        match refusal(&self.server, req.headers()) {
            None => LayerFuture::Inner(self.inner.call(req)),
            Some(msg) => {
                let ip = super::peer::ClientAddr::of(req.extensions());
                crate::telemetry::request_log::log_refused(
                    "",
                    "",
                    StatusCode::FORBIDDEN.as_u16(),
                    ip,
                );
                LayerFuture::Ready(Some(error_response(
                    StatusCode::FORBIDDEN,
                    &Value::Null,
                    &RpcError::invalid_request(msg),
                )))
            }
        }
    }
}

/// Why a request's `Origin` or `Host` is refused, if it is.
fn refusal(server: &Server, h: &HeaderMap) -> Option<String> {
    if let Some(origin) = h.get(header::ORIGIN) {
        if !origin.to_str().is_ok_and(|o| origin_allowed(server, o)) {
            return Some(format!(
                "Origin {:?} is not allowed",
                origin.to_str().unwrap_or("?")
            ));
        }
    }
    if let Some(host) = h.get(header::HOST) {
        if !host.to_str().is_ok_and(|v| host_allowed(server, v)) {
            return Some(format!(
                "Host {:?} is not allowed",
                host.to_str().unwrap_or("?")
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_parsed_strictly() {
        assert_eq!(
            parse_origin("http://localhost:8080"),
            Some(("http", "localhost", Some(8080)))
        );
        assert_eq!(
            parse_origin("https://[::1]"),
            Some(("https", "[::1]", None))
        );
        for bad in [
            "http://localhost:80@evil.com",
            "http://user@localhost",
            "http://localhost/path",
            "http://localhost:80/",
            "http://localhost:",
            "http://localhost:99999",
            "http://localhost:8x",
            "http://[]",
            "http://evil]",
            "http://[::1]x",
            "http://",
            "localhost",
            "http://local host",
        ] {
            assert_eq!(parse_origin(bad), None, "{bad}");
        }
        assert!(is_loopback_host("127.0.0.1:3000"));
        // Whitespace and the other forbidden characters, as `char` sees them, ASCII or not.
        for bad in [
            "local\x0bhost",
            "a\tb",
            "a\rb",
            "a\u{a0}b",
            "a\u{2003}b",
            "ä@b",
            "a\\b",
        ] {
            assert_eq!(split_authority(bad), None, "{bad:?}");
        }
        assert_eq!(split_authority("ä:8"), Some(("ä", Some(8))));
        assert!(!is_loopback_host("localhost:80@evil.com"));
        assert!(!is_loopback_host("localhost.evil.com"));
    }
}

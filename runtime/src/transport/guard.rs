//! The Origin/Host guard of the HTTP endpoint (DNS-rebinding protection): a foreign `Origin` or
//! `Host` gets 403 with a JSON-RPC error body, before auth and before the body is read.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::Value;

use super::response::error_response;
use crate::contract::RpcError;
use crate::server::Server;

fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']')
            .next()
            .map(|h| format!("[{h}]"))
            .unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or("").to_string()
    };
    matches!(name.as_str(), "localhost" | "127.0.0.1" | "[::1]")
}

fn origin_allowed(server: &Server, origin: &str) -> bool {
    if server.config.allowed_origins.iter().any(|o| o == origin) {
        return true;
    }
    match origin.split_once("://") {
        Some(("http" | "https", rest)) => is_loopback_host(rest.split('/').next().unwrap_or("")),
        _ => false,
    }
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

/// DNS-rebinding protection: a foreign `Origin` or `Host` gets 403 with a JSON-RPC error body.
pub async fn guard(State(server): State<Arc<Server>>, req: Request, next: Next) -> Response {
    let h = req.headers();
    if let Some(origin) = h.get(header::ORIGIN) {
        let ok = origin.to_str().is_ok_and(|o| origin_allowed(&server, o));
        if !ok {
            let msg = format!("Origin {:?} is not allowed", origin.to_str().unwrap_or("?"));
            return error_response(
                StatusCode::FORBIDDEN,
                &Value::Null,
                &RpcError::invalid_request(msg),
            );
        }
    }
    if let Some(host) = h.get(header::HOST) {
        let ok = host.to_str().is_ok_and(|v| host_allowed(&server, v));
        if !ok {
            let msg = format!("Host {:?} is not allowed", host.to_str().unwrap_or("?"));
            return error_response(
                StatusCode::FORBIDDEN,
                &Value::Null,
                &RpcError::invalid_request(msg),
            );
        }
    }
    next.run(req).await
}

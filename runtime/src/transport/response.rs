//! The HTTP responses the endpoint sends: JSON, an empty status, SSE.

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::Value;

use crate::contract::RpcError;
use crate::rpc::jsonrpc;

/// Room for this many headers in an answer's header map. hyper keeps an answer's map, emptied,
/// for the connection's next request, and grows it when that request has more headers than it
/// holds: the default room (six) is less than a 2026 request sends (`Mcp-Method`, `Mcp-Name` and
/// `MCP-Protocol-Version` beside the usual), so every such request paid for a new map (about
/// 1.6K instructions). Sized for requests with up to 24 headers (a bearer, proxy headers, a trace
/// context), at no extra allocation.
const HEADER_ROOM: usize = 18;

/// An answer with `status` and `body`, its header map sized by [`HEADER_ROOM`].
fn response(status: StatusCode, body: Body) -> Response {
    let mut r = Response::new(body);
    *r.status_mut() = status;
    *r.headers_mut() = axum::http::HeaderMap::with_capacity(HEADER_ROOM);
    r
}

pub fn json_response(status: StatusCode, body: impl Into<Body>) -> Response {
    let mut r = response(status, body.into());
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

pub fn error_response(status: StatusCode, id: &Value, err: &RpcError) -> Response {
    json_response(status, jsonrpc::encode_error(id, err))
}

pub fn empty(status: StatusCode) -> Response {
    response(status, Body::empty())
}

pub fn sse_response(body: Body) -> Response {
    let mut r = response(StatusCode::OK, body);
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

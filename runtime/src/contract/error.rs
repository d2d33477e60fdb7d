//! The error every handler, method and transport answers with: a JSON-RPC error object and the
//! codes this server uses. It lives in the handler contract because extensions and backends
//! return it as much as the protocol does.

use serde_json::{json, Map, Value};

use super::era::Era;

/// Invalid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// Not a valid JSON-RPC request object.
pub const INVALID_REQUEST: i64 = -32600;
/// Unknown method, or a method whose capability is not advertised.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Bad parameters: unknown tool/prompt, missing argument, bad cursor, bad `_meta`, bad state.
pub const INVALID_PARAMS: i64 = -32602;
/// A fault of the server.
pub const INTERNAL_ERROR: i64 = -32603;
/// Resource not found (2025 revisions only).
pub const RESOURCE_NOT_FOUND_LEGACY: i64 = -32002;
/// 2026-07-28: an HTTP header disagrees with the body, or a required header is missing.
pub const HEADER_MISMATCH: i64 = -32020;
/// 2026-07-28: the work needs a client capability the request did not declare.
pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
/// 2026-07-28: the protocol version is not supported.
pub const UNSUPPORTED_VERSION: i64 = -32022;
/// A rate limit was reached (HTTP 429); `data` names the limit and the seconds to wait
/// ([`crate::limits`]).
pub const RATE_LIMITED: i64 = -31029;

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, message)
    }
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(INVALID_REQUEST, message)
    }
    pub fn method_not_found(method: &str) -> Self {
        Self::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(INTERNAL_ERROR, message)
    }
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("code".into(), Value::from(self.code));
        m.insert("message".into(), Value::from(self.message.clone()));
        if let Some(d) = &self.data {
            m.insert("data".into(), d.clone());
        }
        Value::Object(m)
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "JSON-RPC error {}: {}", self.code, self.message)
    }
}

impl RpcError {
    /// Resource not found, in the caller's era (-32002 on 2025, -32602 on 2026; both with
    /// `data.uri`).
    pub fn resource_not_found(era: Era, uri: &str) -> Self {
        let code = if era.is_modern() {
            INVALID_PARAMS
        } else {
            RESOURCE_NOT_FOUND_LEGACY
        };
        Self::new(code, format!("Resource not found: {uri}")).with_data(json!({ "uri": uri }))
    }
}

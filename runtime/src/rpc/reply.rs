//! What the engine answers to one request, before the connection layer encodes it.

use serde_json::Value;

use super::page::Page;
use crate::contract::RpcError;

/// What the engine answers to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    Value(Value),
    /// A 2026 `input_required` result: the request is not answered yet, the client is asked for
    /// input (a confirmation question, a handler's input round) and retries with its answers and
    /// the sealed `requestState`. Encoded like [`Reply::Value`]; told apart so the layers that
    /// measure, log and audit a request need not look inside it.
    InputRequired(Value),
    /// A pre-serialized result object.
    Raw(Page),
    Error(RpcError),
}

impl From<RpcError> for Reply {
    fn from(e: RpcError) -> Self {
        Reply::Error(e)
    }
}

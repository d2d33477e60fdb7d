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
    /// A pre-serialized `isError` tool result, with the application error code it carries
    /// (`structuredContent.error.code`, `unknown` when it has none). Encoded like [`Reply::Raw`];
    /// told apart so the layers that measure, log and audit a request read the code from the
    /// reply itself (the result is bytes by then, and an era without `structuredContent` does
    /// not even carry it).
    ToolError {
        result: Page,
        code: String,
    },
    Error(RpcError),
}

impl Reply {
    /// The application error code of an `isError` tool result ([`Reply::ToolError`]).
    pub fn tool_error(&self) -> Option<&str> {
        match self {
            Reply::ToolError { code, .. } => Some(code),
            _ => None,
        }
    }
}

impl From<RpcError> for Reply {
    fn from(e: RpcError) -> Self {
        Reply::Error(e)
    }
}

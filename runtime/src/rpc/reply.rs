//! What the engine answers to one request, before the connection layer encodes it.

use serde_json::Value;

use super::page::Page;
use crate::contract::RpcError;

/// What the engine answers to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    Value(Value),
    /// A pre-serialized result object.
    Raw(Page),
    Error(RpcError),
}

impl From<RpcError> for Reply {
    fn from(e: RpcError) -> Self {
        Reply::Error(e)
    }
}

//! Backends for tests that exercise the protocol and transports, not the tools behind them.

use runtime_model::backend::{Backend, BackendError, BoxFuture, CallContext, Output};
use runtime_model::catalog::Tool;
use serde_json::{Map, Value};

/// A backend that serves no tool: every call is `Unsupported`, naming the tool.
pub struct NoBackend;

impl Backend for NoBackend {
    fn call<'a>(
        &'a self,
        _ctx: &'a CallContext,
        tool: &'static Tool,
        _args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        Box::pin(async move { Err(BackendError::Unsupported(tool.name.to_string())) })
    }
}

//! The per-identity rate limits, checked before a tool call or resource read does any work
//! (before its arguments are validated, the confirmation gate, or the backend).
//!
//! A call of a read-only tool (`readOnlyHint`) or a resource read counts against `reads`; a call
//! of any other tool against `writes`. The key is the identity (organization and person), so one
//! person's tokens and sessions share a bucket, and two people never do. Other methods (lists,
//! ping, completion) are cheap and answered from the catalog; the per-IP limit covers them on
//! HTTP.

use serde_json::Value;

use super::engine::Engine;
use super::jsonrpc::Request;
use super::reply::Reply;
use crate::contract::Call;
use crate::limits::Class;

impl Engine {
    /// `Some(error)` when this request is over its identity's limit.
    pub(crate) async fn over_rate_limit(&self, req: &Request, call: &Call) -> Option<Reply> {
        let limiter = self.options.rate_limiter.as_ref()?;
        let class = match req.method.as_str() {
            "tools/call" => {
                let name = req.params.get("name").and_then(Value::as_str)?;
                let tool = &self.product.tools[self.tool_index(name)?];
                if tool.annotations.read_only {
                    Class::Reads
                } else {
                    Class::Writes
                }
            }
            "resources/read" => Class::Reads,
            _ => return None,
        };
        if !limiter.enabled(class) {
            return None;
        }
        let key = serde_json::json!([call.identity.organization, call.identity.person]).to_string();
        match limiter.check(class, &key).await {
            Ok(()) => None,
            Err(limited) => {
                tracing::info!(
                    limit = class.name(),
                    retry_after_secs = limited.retry_after_secs(),
                    person = %call.identity.person,
                    "rate limit reached"
                );
                Some(Reply::Error(limited.rpc_error(self.locale(call))))
            }
        }
    }
}

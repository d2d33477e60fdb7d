//! Step-up authorization (MCP authorization, "Scope Challenge Handling"; RFC 6750 §3.1): with
//! [`crate::server::ServerConfig::scope_challenge`] on, a `tools/call` whose tool needs a scope
//! the token lacks is answered HTTP 403 with
//! `WWW-Authenticate: Bearer error="insufficient_scope", scope="…", resource_metadata="…"`, so an
//! OAuth client can ask the authorization server for a token with more scopes and retry.
//!
//! Off (the default), the same call gets the `insufficient_scope` tool error, as MCP clients
//! without step-up support expect. A role that lacks the permission (`insufficient_permission`)
//! is never challenged: no token can fix it. Batch members are not challenged either: one
//! member cannot answer for the whole HTTP response.
//!
//! The `scope` parameter: on 2025 revisions the token's scopes plus those the tool needs (the
//! 2025-11-25 specification's recommendation, so a client that replaces its token keeps what it
//! had); on 2026 the scopes the tool needs only (the client keeps track of what it holds).

use axum::http::request::Parts;
use axum::response::Response;
use runtime_model::catalog::Tool;
use runtime_model::identity::Denial;
use serde_json::Value;

use crate::contract::Call;
use crate::protocol::engine::Engine;
use crate::rpc::jsonrpc::Request as RpcRequest;
use crate::server::Server;

/// The scopes a tool needs: its meta scope (`read` for a read-only tool, else `write`) and its
/// resource scope.
pub fn scopes_needed(tool: &Tool) -> Vec<String> {
    let meta = if tool.annotations.read_only {
        "read"
    } else {
        "write"
    };
    let mut scopes = vec![meta.to_string()];
    if !tool.scope.is_empty() {
        scopes.push(tool.scope.to_string());
    }
    scopes
}

/// The 403 challenge for this request, when challenges are on and its token lacks a scope.
pub fn challenge(
    server: &Server,
    engine: &Engine,
    parts: &Parts,
    req: &RpcRequest,
    call: &Call,
) -> Option<Response> {
    if !server.config.scope_challenge || req.method != "tools/call" {
        return None;
    }
    let auth = server.config.auth.as_ref()?;
    let name = req.params.get("name").and_then(Value::as_str)?;
    let tool = &engine.product.tools[engine.tool_index(name)?];
    let Err(Denial::InsufficientScope(missing)) = call.identity.can_call(tool) else {
        return None;
    };
    let mut scopes = if call.era.is_modern() {
        Vec::new()
    } else {
        call.identity.scopes.iter().cloned().collect()
    };
    for s in scopes_needed(tool) {
        if !scopes.contains(&s) {
            scopes.push(s);
        }
    }
    let ip = super::peer::ClientAddr::of(&parts.extensions);
    crate::telemetry::request_log::log_refused(&req.method, name, 403, ip);
    Some(auth.insufficient_scope(
        super::auth::public_origin(&parts.extensions),
        &req.id,
        &scopes,
        &missing,
    ))
}

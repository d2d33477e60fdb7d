//! Multi round-trip requests: turning a handler's [`InputNeeded`] into a 2026 `input_required`
//! result with a sealed `requestState`, and accepting the retry's answers only when that state
//! verifies and binds this very request.
//!
//! Rules (MCP 2026-07-28 §MRTR, and the inference that answers are trusted only with state):
//! - `inputResponses` without a valid `requestState` are ignored, so a first call that brings its
//!   own answers is asked the question anyway;
//! - only the keys the state names are accepted, and only object answers;
//! - a tampered, expired or foreign state is a JSON-RPC error (-32602);
//! - an input request of a type the client did not declare in *this* request is never sent: the
//!   answer is -32021 naming the capability.

use crate::rpc::params::Params;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use crate::contract::error::{RpcError, MISSING_CLIENT_CAPABILITY};
use crate::contract::Call;
use crate::contract::InputNeeded;
use runtime_model::canonical;
use runtime_model::catalog::ConfirmationBinding;
use runtime_model::identity;

use crate::state::{new_nonce, Binding, Refused, StateClaims, StateSealer};

/// How long a sealed `requestState` stays valid.
pub const STATE_TTL_SECS: u64 = 600;

/// The request an input round belongs to.
pub struct Origin<'a> {
    pub method: &'a str,
    pub target: &'a str,
    pub args: &'a Value,
}

/// Verified inputs of a retry.
#[derive(Debug, Default)]
pub struct Inputs {
    pub answers: Map<String, Value>,
    pub round: Value,
}

pub fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The principal a state is bound to: the whole caller (person, organization and the
/// connection's workspace), whatever the product binds its confirmations to.
pub fn principal(call: &Call) -> String {
    let id = &call.identity;
    identity::principal(
        id,
        id.default_workspace.as_deref(),
        ConfirmationBinding::ALL,
    )
}

/// Reads `requestState` / `inputResponses` of a 2026 retry.
pub fn accept(
    sealer: &StateSealer,
    call: &Call,
    origin: &Origin<'_>,
    params: &Params,
) -> Result<Inputs, RpcError> {
    let state = match params.get("requestState") {
        None | Some(Value::Null) => return Ok(Inputs::default()),
        Some(Value::String(s)) => s,
        Some(_) => {
            return Err(RpcError::invalid_params(
                "Invalid requestState: it must be a string",
            ))
        }
    };
    let args_hash = canonical::sha256_hex(origin.args);
    let principal = principal(call);
    let binding = Binding {
        method: origin.method,
        target: origin.target,
        args_hash: &args_hash,
        principal: &principal,
        input_key: None,
    };
    let claims = sealer
        .open_bound(state, now_unix(), &binding)
        .map_err(|e| match e {
            Refused::Unreadable(e) => {
                RpcError::invalid_params(format!("Invalid or expired requestState: {e}"))
            }
            Refused::Foreign => RpcError::invalid_params(
                "Invalid requestState: it was issued for a different request, arguments or caller",
            ),
        })?;
    let mut answers = Map::new();
    if let Some(Value::Object(responses)) = params.get("inputResponses") {
        for key in &claims.input_keys {
            if let Some(v @ Value::Object(_)) = responses.get(key) {
                answers.insert(key.clone(), v.clone());
            }
        }
    }
    Ok(Inputs {
        answers,
        round: claims.data,
    })
}

/// The client capability an input request needs, when the client did not declare it.
pub fn missing_capability(call: &Call, request: &Value) -> Option<Value> {
    let method = request.get("method").and_then(Value::as_str).unwrap_or("");
    match method {
        "elicitation/create" => {
            let url = request.pointer("/params/mode").and_then(Value::as_str) == Some("url");
            if url && !call.has_url_elicitation() {
                Some(json!({"elicitation": {"url": {}}}))
            } else if !url && !call.has_form_elicitation() {
                Some(json!({"elicitation": {}}))
            } else {
                None
            }
        }
        "sampling/createMessage" => (!call.has_sampling()).then(|| json!({"sampling": {}})),
        "roots/list" => (!call.has_roots()).then(|| json!({"roots": {}})),
        _ => Some(json!({})),
    }
}

/// -32021 for the first input request the client cannot receive.
pub fn check_capabilities(call: &Call, needed: &InputNeeded) -> Result<(), RpcError> {
    for (_, req) in &needed.requests {
        if let Some(caps) = missing_capability(call, req) {
            let name = caps
                .as_object()
                .and_then(|m| m.keys().next().cloned())
                .unwrap_or_default();
            return Err(RpcError::new(
                MISSING_CLIENT_CAPABILITY,
                format!("This request needs the client capability `{name}`, which the request did not declare"),
            )
            .with_data(json!({"requiredCapabilities": caps})));
        }
    }
    Ok(())
}

/// Builds the 2026 `input_required` result.
pub fn input_required(
    sealer: &StateSealer,
    call: &Call,
    origin: &Origin<'_>,
    needed: InputNeeded,
) -> Result<Value, RpcError> {
    check_capabilities(call, &needed)?;
    let nonce = new_nonce().map_err(|e| RpcError::internal(format!("no randomness: {e}")))?;
    let claims = StateClaims {
        method: origin.method.to_string(),
        target: origin.target.to_string(),
        args_hash: canonical::sha256_hex(origin.args),
        principal: principal(call),
        input_keys: needed.requests.iter().map(|(k, _)| k.clone()).collect(),
        exp: now_unix() + STATE_TTL_SECS,
        nonce,
        data: needed.data,
    };
    let mut requests = Map::new();
    for (k, v) in needed.requests {
        requests.insert(k, v);
    }
    Ok(json!({
        "resultType": "input_required",
        "inputRequests": requests,
        "requestState": sealer.seal(&claims),
    }))
}

/// On the 2025 wire: sends each input request to the client and collects the answers.
pub async fn ask_legacy(call: &Call, needed: &InputNeeded) -> Result<Map<String, Value>, RpcError> {
    for (_, req) in &needed.requests {
        if let Some(caps) = missing_capability(call, req) {
            return Err(RpcError::invalid_params(format!(
                "This request needs the client capability {caps}, which the client did not declare in initialize"
            )));
        }
    }
    if !call.peer.can_request() {
        return Err(RpcError::invalid_params(
            "This request needs to ask the client for input, which needs a session (Mcp-Session-Id) on this transport",
        ));
    }
    let mut answers = Map::new();
    for (key, req) in &needed.requests {
        let method = req.get("method").and_then(Value::as_str).unwrap_or("");
        let mut params = req.get("params").cloned().unwrap_or_else(|| json!({}));
        // 2025-06-18 has no elicitation `mode`.
        if call.era.version() == "2025-06-18" {
            if let Some(m) = params.as_object_mut() {
                m.remove("mode");
            }
        }
        let answer = call.peer.request(method, params).await?;
        answers.insert(key.clone(), answer);
    }
    Ok(answers)
}

//! JSON-RPC batches (2025-03-26 only) and their bounds.
//!
//! A batch is many requests under one HTTP request or stdio line, so every bound a single request
//! has must hold for the batch as a whole too: without them a 51 KB body of 1,000 `tools/list`
//! made a 484 MB answer. [`BatchBounds`] caps the members (counted before any is parsed into a
//! value), the bytes of the answer (members past it are answered with an error, not run), the
//! time of each member, and the time of the whole batch (members past it are not run).

use std::fmt;
use std::time::Duration;

use serde::de::{Deserializer as _, IgnoredAny, SeqAccess, Visitor};
use serde_json::{json, Value};
use tokio::time::Instant;

use super::{answer_within, era, legacy_call, Caller, Outer, SessionRef};
use crate::contract::error::{RpcError, INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR};
use crate::protocol::engine::Engine;
use crate::rpc::jsonrpc::{self, Incoming};

/// The limits of one batch (`ServerConfig::batch_bounds` gives the server's).
#[derive(Debug, Clone)]
pub struct BatchBounds {
    /// Most members (requests, notifications and responses) in one batch; more → the whole batch
    /// is refused with -32600 before any member runs.
    pub max_members: usize,
    /// Most bytes of the batch's answer; the member that would cross it, and every member after
    /// it, is answered with an error instead of its result (the crossing one ran: its error says
    /// so; the ones after it are not run).
    pub max_answer_bytes: usize,
    /// Longest one member may run (the single-request time limit).
    pub member_timeout: Duration,
    /// Longest the whole batch may run; members not started by then are answered with an error.
    pub batch_timeout: Duration,
}

impl BatchBounds {}

/// Counts the members of a JSON array without building them (nothing is allocated per member).
fn count_members(bytes: &[u8]) -> Result<usize, serde_json::Error> {
    struct Count;
    impl<'de> Visitor<'de> for Count {
        type Value = usize;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON array")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
            let mut n = 0;
            while seq.next_element::<IgnoredAny>()?.is_some() {
                n += 1;
            }
            Ok(n)
        }
    }
    serde_json::Deserializer::from_slice(bytes).deserialize_seq(Count)
}

/// A member that was not run because a batch bound was reached.
fn not_run(id: &Value, why: &str, data: Value) -> Vec<u8> {
    let err = RpcError::new(INTERNAL_ERROR, format!("Not run: {why}")).with_data(data);
    jsonrpc::encode_error(id, &err)
}

/// A JSON-RPC batch (2025-03-26 only: the session's version, or the stated or
/// [unstated](era::UNSTATED) one). Members are answered in order within `bounds`.
/// `Ok(None)` when nothing needs an answer (only notifications and responses); `Err` refuses the
/// whole batch.
pub async fn batch(
    engine: &Engine,
    bytes: &[u8],
    session: SessionRef,
    outer: Outer<'_>,
    caller: &Caller,
    bounds: &BatchBounds,
) -> Result<Option<Vec<u8>>, RpcError> {
    let session = match session {
        SessionRef::Found(s) => Some(s),
        SessionRef::None | SessionRef::Unknown => None,
    };
    let version = match &session {
        Some(s) => Some(s.version),
        None => era::sessionless_version(outer.stated()).ok(),
    };
    if version != Some("2025-03-26") {
        return Err(RpcError::invalid_request(
            "JSON-RPC batches are only accepted on protocol revision 2025-03-26",
        ));
    }
    let parse_error =
        |e: serde_json::Error| RpcError::new(PARSE_ERROR, format!("Parse error: {e}"));
    let members = count_members(bytes).map_err(parse_error)?;
    if members > bounds.max_members {
        return Err(RpcError::new(
            INVALID_REQUEST,
            format!(
                "Invalid Request: a batch may hold at most {} members (max_batch_members)",
                bounds.max_members
            ),
        )
        .with_data(json!({"limit": "max_batch_members", "max": bounds.max_members})));
    }
    let items: Vec<Value> = match serde_json::from_slice(bytes) {
        Ok(Value::Array(a)) if !a.is_empty() => a,
        Ok(_) => {
            return Err(RpcError::new(
                INVALID_REQUEST,
                "Invalid Request: an empty batch",
            ))
        }
        Err(e) => return Err(parse_error(e)),
    };
    let deadline = Instant::now() + bounds.batch_timeout;
    let mut out = Vec::new();
    let mut over_bytes = false;
    for item in items {
        let answered = match jsonrpc::parse_value(item) {
            Ok(Incoming::Request(req)) => {
                if over_bytes {
                    not_run(
                        &req.id,
                        &format!(
                            "the batch answer reached its limit of {} bytes (max_batch_answer_bytes)",
                            bounds.max_answer_bytes
                        ),
                        json!({"limit": "max_batch_answer_bytes", "max": bounds.max_answer_bytes}),
                    )
                } else if Instant::now() >= deadline {
                    not_run(
                        &req.id,
                        &format!(
                            "the batch reached its time limit of {} ms (batch_timeout)",
                            bounds.batch_timeout.as_millis()
                        ),
                        json!({"limit": "batch_timeout", "ms": bounds.batch_timeout.as_millis() as u64}),
                    )
                } else {
                    let call = legacy_call(caller, "2025-03-26", session.clone(), req.meta());
                    let left = deadline.saturating_duration_since(Instant::now());
                    let reply = if left < bounds.member_timeout {
                        answer_within(
                            engine,
                            &req,
                            &call,
                            left,
                            "the batch's time limit (batch_timeout)",
                        )
                        .await
                    } else {
                        answer_within(
                            engine,
                            &req,
                            &call,
                            bounds.member_timeout,
                            "the request time limit",
                        )
                        .await
                    };
                    let encoded = super::encode_reply(&req.id, &reply);
                    if out.len() + encoded.len() + 2 > bounds.max_answer_bytes {
                        over_bytes = true;
                        // It ran (it may have been a write): say so, never "not run".
                        let err = RpcError::new(
                            INTERNAL_ERROR,
                            format!(
                                "Answer withheld: the request ran, but its answer ({} bytes) would take the batch answer past its limit of {} bytes (max_batch_answer_bytes); send it on its own",
                                encoded.len(),
                                bounds.max_answer_bytes
                            ),
                        )
                        .with_data(json!({"limit": "max_batch_answer_bytes", "max": bounds.max_answer_bytes, "ran": true}));
                        jsonrpc::encode_error(&req.id, &err)
                    } else {
                        encoded
                    }
                }
            }
            Ok(Incoming::Response { id, outcome }) => {
                if let Some(s) = &session {
                    s.requests.resolve(&id, outcome);
                }
                continue;
            }
            Ok(Incoming::Notification { .. }) => continue,
            Err(rej) => jsonrpc::encode_error(&rej.id, &rej.error),
        };
        out.push(if out.is_empty() { b'[' } else { b',' });
        out.extend_from_slice(&answered);
    }
    if out.is_empty() {
        return Ok(None);
    }
    out.push(b']');
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::count_members;

    #[test]
    fn members_are_counted_without_being_built() {
        assert_eq!(count_members(b"[1,{\"a\":[2]},3]").unwrap(), 3);
        let e = count_members(b"{}").unwrap_err();
        assert!(e.to_string().contains("expected a JSON array"), "{e}");
        assert!(count_members(b"[1,").is_err());
    }
}

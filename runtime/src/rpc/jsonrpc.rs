//! JSON-RPC 2.0 framing: parsing incoming messages, building responses and errors.
//!
//! Parsing is strict (a message that is not a JSON-RPC 2.0 object is answered with -32600 and the
//! reason), and encoding writes bytes directly so that pre-serialized results (tool listings) are
//! copied into the response without going through `serde_json::Value`.

use serde_json::{Map, Value};

use super::meta::{self, Meta, ParamsWithMeta};
use super::params::Params;

pub use crate::contract::error::{
    RpcError, HEADER_MISMATCH, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND,
    MISSING_CLIENT_CAPABILITY, PARSE_ERROR, RESOURCE_NOT_FOUND_LEGACY, UNSUPPORTED_VERSION,
};

/// A request (it has an `id`).
#[derive(Debug, Clone)]
pub struct Request {
    pub id: Value,
    pub method: String,
    /// The members of `params` other than `_meta`.
    pub params: Params,
    /// `params._meta`, read once ([`meta`]); `None` when the request sent none.
    pub meta: Option<Box<Meta>>,
}

impl Request {
    /// A request whose `params` may hold a `_meta`, which is read into [`Request::meta`].
    pub fn new(id: Value, method: impl Into<String>, params: Map<String, Value>) -> Self {
        let (params, meta) = meta::split(params);
        Self {
            id,
            method: method.into(),
            params: params.into(),
            meta,
        }
    }

    /// `params._meta` (empty when the request sent none).
    pub fn meta(&self) -> &Meta {
        self.meta.as_deref().unwrap_or(&meta::NONE)
    }
}

/// One incoming message.
#[derive(Debug, Clone)]
pub enum Incoming {
    Request(Request),
    /// A notification; its `params` without `_meta` (no notification's `_meta` is read).
    Notification {
        method: String,
        params: Params,
    },
    /// The client's answer to a server→client request (2025 era).
    Response {
        id: Value,
        outcome: Result<Value, Value>,
    },
}

/// A message that could not be accepted, with the id when it could be read.
#[derive(Debug, Clone)]
pub struct Rejected {
    pub id: Value,
    pub error: RpcError,
}

/// Parses raw bytes of one message (not a batch).
#[allow(clippy::result_large_err)] // rejections are rare; boxing would cost every caller
pub fn parse_bytes(bytes: &[u8]) -> Result<Incoming, Rejected> {
    // JSON text is UTF-8 (RFC 8259): checked once for the whole message, a word at a time, so
    // that the reader below takes each string as it is instead of checking it again byte by
    // byte (`from_slice` does, and that was a tenth of a request's parse). A message that is not
    // UTF-8 goes to the general reader, which names where it is not.
    if let Ok(text) = std::str::from_utf8(bytes) {
        if let Some(m) = parse_common(text) {
            return Ok(m);
        }
    }
    let value: Value = serde_json::from_slice(bytes).map_err(|e| Rejected {
        id: Value::Null,
        error: RpcError::new(PARSE_ERROR, format!("Parse error: {e}")),
    })?;
    parse_value(value)
}

/// The shape nearly every message has: `jsonrpc`, `method`, an optional `id` and `params`.
#[derive(serde::Deserialize)]
struct CommonEnvelope<'a> {
    #[serde(borrow)]
    jsonrpc: std::borrow::Cow<'a, str>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    method: String,
    #[serde(default)]
    params: Option<ParamsWithMeta>,
}

/// `Some` whenever the key is there, `null` included (a missing key is `None` by default).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    serde::Deserialize::deserialize(d).map(Some)
}

/// Reads a well-formed request or notification straight into its parts, without building a map
/// for the envelope. `None` for anything else (responses, malformed messages), which
/// [`parse_value`] then reads and, if need be, rejects with the precise reason.
fn parse_common(text: &str) -> Option<Incoming> {
    let e: CommonEnvelope = serde_json::from_str(text).ok()?;
    if e.jsonrpc != "2.0" {
        return None;
    }
    let ParamsWithMeta { rest: params, meta } = e.params.unwrap_or_default();
    match e.id {
        None => Some(Incoming::Notification {
            method: e.method,
            params,
        }),
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(Incoming::Request(Request {
            id,
            method: e.method,
            params,
            meta,
        })),
        Some(_) => None,
    }
}

/// Validates the JSON-RPC 2.0 envelope of one message.
#[allow(clippy::result_large_err)]
pub fn parse_value(value: Value) -> Result<Incoming, Rejected> {
    let Value::Object(mut obj) = value else {
        return Err(Rejected {
            id: Value::Null,
            error: RpcError::invalid_request(
                "Invalid Request: a JSON-RPC message must be a JSON object",
            ),
        });
    };
    let id = obj.remove("id");
    let id_for_error = match &id {
        Some(v @ (Value::String(_) | Value::Number(_))) => v.clone(),
        _ => Value::Null,
    };
    let reject = |msg: &str| Rejected {
        id: id_for_error.clone(),
        error: RpcError::invalid_request(format!("Invalid Request: {msg}")),
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(reject("\"jsonrpc\" must be \"2.0\""));
    }
    if let Some(id) = &id {
        if !matches!(id, Value::String(_) | Value::Number(_)) {
            return Err(reject("\"id\" must be a string or a number"));
        }
    }
    match obj.remove("method") {
        Some(Value::String(method)) => {
            let params = match obj.remove("params") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(p)) => p,
                Some(_) => {
                    return Err(Rejected {
                        id: id_for_error,
                        error: RpcError::invalid_params(
                            "Invalid params: \"params\" must be an object",
                        ),
                    })
                }
            };
            Ok(match id {
                Some(id) => Incoming::Request(Request::new(id, method, params)),
                None => Incoming::Notification {
                    method,
                    params: meta::split(params).0.into(),
                },
            })
        }
        Some(_) => Err(reject("\"method\" must be a string")),
        None => {
            let Some(id) = id else {
                return Err(reject("a message needs \"method\" or \"id\""));
            };
            if let Some(result) = obj.remove("result") {
                Ok(Incoming::Response {
                    id,
                    outcome: Ok(result),
                })
            } else if let Some(error) = obj.remove("error") {
                Ok(Incoming::Response {
                    id,
                    outcome: Err(error),
                })
            } else {
                Err(reject("a response needs \"result\" or \"error\""))
            }
        }
    }
}

/// Appends `{"jsonrpc":"2.0","id":<id>,"result":` to `out`.
pub fn open_result(out: &mut Vec<u8>, id: &Value) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    // Writing a string or number Value into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, id);
    out.extend_from_slice(b",\"result\":");
}

/// A success response whose result is a pre-serialized page (its segments, in order).
pub fn encode_page_result(id: &Value, page: &super::page::Page) -> Vec<u8> {
    let mut out = Vec::with_capacity(page.len() + 48);
    open_result(&mut out, id);
    for s in page.parts() {
        out.extend_from_slice(s);
    }
    out.push(b'}');
    out
}

/// A success response.
pub fn encode_result(id: &Value, result: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    open_result(&mut out, id);
    let _ = serde_json::to_writer(&mut out, result);
    out.push(b'}');
    out
}

/// An error response.
pub fn encode_error(id: &Value, error: &RpcError) -> Vec<u8> {
    let v = serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error.to_value()});
    serde_json::to_vec(&v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_name_the_problem() {
        let e = parse_bytes(b"{not json").unwrap_err();
        assert_eq!(e.error.code, PARSE_ERROR);
        let e = parse_bytes(br#"{"jsonrpc":"2.0","id":null,"method":"x"}"#).unwrap_err();
        assert_eq!(e.error.code, INVALID_REQUEST);
        assert!(e.error.message.contains("id"));
        let e = parse_bytes(br#"{"jsonrpc":"1.0","id":3,"method":"x"}"#).unwrap_err();
        assert_eq!(e.id, Value::from(3));
        assert!(e.error.message.contains("jsonrpc"));
        let e = parse_bytes(br#"{"jsonrpc":"2.0","id":3,"method":"x","params":[1]}"#).unwrap_err();
        assert_eq!(e.error.code, INVALID_PARAMS);
    }

    #[test]
    fn parses_requests_notifications_and_responses() {
        match parse_bytes(br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).unwrap() {
            Incoming::Request(r) => {
                assert_eq!((r.id, r.method.as_str()), (Value::from("a"), "ping"))
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse_bytes(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap(),
            Incoming::Notification { .. }
        ));
        assert!(matches!(
            parse_bytes(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#).unwrap(),
            Incoming::Response { outcome: Ok(_), .. }
        ));
    }

    #[test]
    fn the_typed_fast_path_reads_exactly_what_the_general_reader_reads() {
        let cases: &[&str] = &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":[1,{"b":null}]},"_meta":{"k":"v"}}}"#,
            r#"{"method":"ping","id":"x","jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":2.5,"method":"m","params":null}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"m","extra":true}"#,
            r#"{"jsonrpc":"2.0","id":"a\u00e9\n","method":"m\u002fx"}"#,
            r#"{"jsonrpc":"2.0","id":"ação","method":"tools/call","params":{"name":"pré","arguments":{"nome":"José 😀"}}}"#,
        ];
        for text in cases {
            let fast = parse_common(text).expect("a well-formed request takes the fast path");
            let general = parse_value(serde_json::from_str(text).unwrap()).unwrap();
            assert_eq!(format!("{fast:?}"), format!("{general:?}"), "{text}");
            let read = parse_bytes(text.as_bytes()).expect("accepted");
            assert_eq!(format!("{read:?}"), format!("{fast:?}"), "{text}");
        }
        // Everything else falls through to the general reader, which names the problem.
        for text in [
            r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
            r#"{"jsonrpc":"1.0","id":3,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"x","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":7}"#,
            r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#,
            r#"[1]"#,
        ] {
            assert!(parse_common(text).is_none(), "{text}");
        }
        let e = parse_bytes(br#"{"jsonrpc":"2.0","id":3,"method":7}"#).unwrap_err();
        assert_eq!(e.error.code, INVALID_REQUEST);
        assert_eq!(e.id, Value::from(3));
    }

    /// JSON is UTF-8: a message with a byte sequence that is not is refused as a parse error,
    /// wherever it is, including a member nobody reads (a `_meta` key the server skips).
    #[test]
    fn a_message_that_is_not_utf8_is_a_parse_error() {
        let cases: [&[u8]; 4] = [
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"_meta\":{\"x\":\"\xff\"}}}",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"_meta\":{\"\xc3(\":1}}}",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\xe9\"}}",
            b"{\"jsonrpc\":\"2.0\",\"id\":\"\xed\xa0\x80\",\"method\":\"ping\"}",
        ];
        for bytes in cases {
            let e = parse_bytes(bytes).expect_err("not UTF-8");
            assert_eq!(
                e.error.code,
                PARSE_ERROR,
                "{}",
                String::from_utf8_lossy(bytes)
            );
            assert!(
                e.error.message.contains("line 1 column"),
                "the error says where: {}",
                e.error.message
            );
        }
    }

    #[test]
    fn raw_results_are_spliced_verbatim() {
        let page = super::super::page::Page::from(br#"{"tools":[]}"#.to_vec());
        let bytes = encode_page_result(&Value::from(5), &page);
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["id"], 5);
        assert_eq!(v["result"]["tools"], serde_json::json!([]));
    }
}

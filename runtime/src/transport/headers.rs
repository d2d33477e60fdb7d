//! The 2026-07-28 HTTP headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`): reading them,
//! decoding `=?base64?…?=` values, and checking them against the body (-32020 on any mismatch).

use std::borrow::Cow;

use axum::http::{HeaderMap, HeaderName};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::Value;

use crate::rpc::jsonrpc::{RpcError, HEADER_MISMATCH};
use crate::rpc::params::Params;

// Pre-parsed names: a lookup by `&str` would parse and validate the name on every request.
pub const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
pub const METHOD: HeaderName = HeaderName::from_static("mcp-method");
pub const NAME: HeaderName = HeaderName::from_static("mcp-name");
pub const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

fn mismatch(msg: String) -> RpcError {
    RpcError::new(HEADER_MISMATCH, format!("Header mismatch: {msg}"))
}

/// A header's value: trimmed, and decoded when written `=?base64?<b64>?=`. `Ok(None)` when absent.
pub fn value<'h, K>(headers: &'h HeaderMap, name: K) -> Result<Option<Cow<'h, str>>, RpcError>
where
    K: axum::http::header::AsHeaderName + std::fmt::Display + Copy,
{
    let Some(raw) = headers.get(name) else {
        return Ok(None);
    };
    let text = raw
        .to_str()
        .map_err(|_| mismatch(format!("{name} is not visible ASCII")))?
        .trim();
    if let Some(inner) = text
        .strip_prefix("=?base64?")
        .and_then(|t| t.strip_suffix("?="))
    {
        let bytes = STANDARD
            .decode(inner)
            .map_err(|_| mismatch(format!("{name} is not valid base64 inside =?base64?…?=")))?;
        let decoded = String::from_utf8(bytes)
            .map_err(|_| mismatch(format!("{name} does not decode to UTF-8")))?;
        return Ok(Some(Cow::Owned(decoded)));
    }
    Ok(Some(Cow::Borrowed(text)))
}

/// Checks `Mcp-Method` and, where defined, `Mcp-Name` against the body.
pub fn check_method_and_name(
    headers: &HeaderMap,
    method: &str,
    params: &Params,
) -> Result<(), RpcError> {
    match value(headers, &METHOD)? {
        None => return Err(mismatch("the Mcp-Method header is required".into())),
        Some(m) if m != method => {
            return Err(mismatch(format!(
                "Mcp-Method {m:?} does not match the body method {method:?}"
            )))
        }
        Some(_) => {}
    }
    let body_name = match method {
        "tools/call" | "prompts/get" => params.get("name"),
        "resources/read" => params.get("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => params.get("taskId"),
        _ => return Ok(()),
    };
    let body_name = body_name.and_then(Value::as_str).unwrap_or("");
    match value(headers, &NAME)? {
        None => Err(mismatch(format!(
            "the Mcp-Name header is required for {method}"
        ))),
        Some(n) if n != body_name => Err(mismatch(format!(
            "Mcp-Name {n:?} does not match {body_name:?} in the body"
        ))),
        Some(_) => Ok(()),
    }
}

/// Checks `Mcp-Param-{name}` headers of a `tools/call` against the arguments they mirror: an
/// argument present in the body needs its header, with the same value (integers compared
/// numerically, booleans as `true`/`false`).
pub fn check_param_headers(
    headers: &HeaderMap,
    mirrored: &[crate::protocol::engine::ParamHeader],
    params: &Params,
) -> Result<(), RpcError> {
    let args = params.get("arguments").and_then(Value::as_object);
    for p in mirrored {
        let Some(body) = args
            .and_then(|a| a.get(&p.argument))
            .filter(|v| !v.is_null())
        else {
            continue;
        };
        let name = format!("mcp-param-{}", p.header.to_ascii_lowercase());
        let Some(h) = value(headers, &name)? else {
            return Err(mismatch(format!(
                "the Mcp-Param-{} header is required: argument `{}` is in the body",
                p.header, p.argument
            )));
        };
        let same = match body {
            Value::String(s) => *s == h,
            Value::Bool(b) => h == if *b { "true" } else { "false" },
            Value::Number(n) => match (n.as_i64(), h.parse::<i64>()) {
                (Some(a), Ok(b)) => a == b,
                _ => n.to_string() == h,
            },
            _ => false,
        };
        if !same {
            return Err(mismatch(format!(
                "Mcp-Param-{} {h:?} does not match argument `{}`",
                p.header, p.argument
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use serde_json::json;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn base64_values_are_decoded_and_bad_ones_rejected() {
        let h = headers(&[("mcp-name", "=?base64?SGVsbG8=?=")]);
        assert_eq!(value(&h, &NAME).unwrap().as_deref(), Some("Hello"));
        let h = headers(&[("mcp-name", "=?base64?SGVsbG8?=")]);
        assert_eq!(value(&h, &NAME).unwrap_err().code, HEADER_MISMATCH);
        let h = headers(&[("mcp-name", "  padded  ")]);
        assert_eq!(value(&h, &NAME).unwrap().as_deref(), Some("padded"));
    }

    #[test]
    fn method_and_name_must_match_the_body() {
        let p = Params::from(json!({"name": "t"}).as_object().unwrap().clone());
        assert!(check_method_and_name(
            &headers(&[("mcp-method", "tools/call"), ("mcp-name", "t")]),
            "tools/call",
            &p
        )
        .is_ok());
        assert!(check_method_and_name(
            &headers(&[("mcp-method", "TOOLS/CALL"), ("mcp-name", "t")]),
            "tools/call",
            &p
        )
        .is_err());
        assert!(
            check_method_and_name(&headers(&[("mcp-method", "tools/call")]), "tools/call", &p)
                .is_err()
        );
        assert!(check_method_and_name(
            &headers(&[("mcp-method", "tools/call"), ("mcp-name", "u")]),
            "tools/call",
            &p
        )
        .is_err());
        assert!(check_method_and_name(&headers(&[]), "tools/list", &Params::new()).is_err());
    }

    #[test]
    fn mirrored_arguments_need_matching_param_headers() {
        let mirrored = [crate::protocol::engine::ParamHeader {
            argument: "region".into(),
            header: "Region".into(),
        }];
        let p = Params::from(
            json!({"name": "t", "arguments": {"region": "Hello"}})
                .as_object()
                .unwrap()
                .clone(),
        );
        assert!(
            check_param_headers(&headers(&[("mcp-param-region", "Hello")]), &mirrored, &p).is_ok()
        );
        assert!(check_param_headers(
            &headers(&[("mcp-param-region", "=?base64?SGVsbG8=?=")]),
            &mirrored,
            &p
        )
        .is_ok());
        assert!(
            check_param_headers(&headers(&[("mcp-param-region", "Bye")]), &mirrored, &p).is_err()
        );
        assert!(check_param_headers(&headers(&[]), &mirrored, &p).is_err());
        let absent = Params::from(
            json!({"name": "t", "arguments": {}})
                .as_object()
                .unwrap()
                .clone(),
        );
        assert!(check_param_headers(&headers(&[]), &mirrored, &absent).is_ok());
    }
}

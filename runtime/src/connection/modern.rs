//! The per-request `_meta` of 2026-07-28: what must be there, and the version check.

use serde_json::{json, Map, Value};

use crate::contract::era::{self, LogLevel};
use crate::contract::error::{RpcError, UNSUPPORTED_VERSION};

/// What a 2026 request says about itself.
#[derive(Debug, Clone)]
pub struct ModernMeta {
    pub version: String,
    pub client_caps: Value,
    pub log_level: Option<LogLevel>,
}

/// Whether a request's params carry the 2026 `_meta` protocol version.
pub fn has_modern_meta(params: &Map<String, Value>) -> bool {
    params
        .get("_meta")
        .and_then(|m| m.get(era::META_PROTOCOL_VERSION))
        .is_some()
}

/// `params._meta.progressToken` (both eras).
pub fn progress_token(params: &Map<String, Value>) -> Option<Value> {
    params
        .get("_meta")
        .and_then(|m| m.get("progressToken"))
        .filter(|t| t.is_string() || t.is_number())
        .cloned()
}

/// `params._meta["io.modelcontextprotocol/acceptLanguage"]` (SEP-2792), when it is a string.
pub fn accept_language(params: &Map<String, Value>) -> Option<std::sync::Arc<str>> {
    params
        .get("_meta")
        .and_then(|m| m.get(era::META_ACCEPT_LANGUAGE))
        .and_then(Value::as_str)
        .map(std::sync::Arc::from)
}

/// Reads the required `_meta` fields: -32602 naming the missing one.
pub fn read_meta(params: &Map<String, Value>) -> Result<ModernMeta, RpcError> {
    let Some(meta) = params.get("_meta").and_then(Value::as_object) else {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: `_meta` with `{}` and `{}` is required on every 2026-07-28 request",
            era::META_PROTOCOL_VERSION,
            era::META_CLIENT_CAPABILITIES
        )));
    };
    let Some(version) = meta.get(era::META_PROTOCOL_VERSION).and_then(Value::as_str) else {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: `_meta[\"{}\"]` (a string) is required",
            era::META_PROTOCOL_VERSION
        )));
    };
    let client_caps = match meta.get(era::META_CLIENT_CAPABILITIES) {
        Some(v @ Value::Object(_)) => v.clone(),
        Some(_) => {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: `_meta[\"{}\"]` must be an object",
                era::META_CLIENT_CAPABILITIES
            )))
        }
        None => {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: `_meta[\"{}\"]` is required (use {{}} for none)",
                era::META_CLIENT_CAPABILITIES
            )))
        }
    };
    let log_level = match meta.get(era::META_LOG_LEVEL) {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_str().and_then(LogLevel::parse).ok_or_else(|| {
            RpcError::invalid_params(format!(
                "Invalid params: `_meta[\"{}\"]` is not a log level",
                era::META_LOG_LEVEL
            ))
        })?),
    };
    Ok(ModernMeta {
        version: version.to_string(),
        client_caps,
        log_level,
    })
}

/// -32022 unless the version is 2026-07-28 (a legacy version needs `initialize`).
pub fn check_version(version: &str) -> Result<(), RpcError> {
    if version == era::MODERN {
        return Ok(());
    }
    Err(RpcError::new(
        UNSUPPORTED_VERSION,
        format!("Unsupported protocol version: {version}"),
    )
    .with_data(json!({"supported": era::SUPPORTED, "requested": version})))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn missing_meta_fields_are_named() {
        let e = read_meta(&params(json!({}))).unwrap_err();
        assert_eq!(e.code, -32602);
        let e = read_meta(&params(
            json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
        ))
        .unwrap_err();
        assert!(e.message.contains("protocolVersion"));
        let e = read_meta(&params(
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        ))
        .unwrap_err();
        assert!(e.message.contains("clientCapabilities"));
        let ok = read_meta(&params(json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/logLevel": "info"}})))
        .unwrap();
        assert_eq!(ok.log_level, Some(LogLevel::Info));
    }

    #[test]
    fn unsupported_versions_list_what_is_served() {
        let e = check_version("v999.0.0").unwrap_err();
        assert_eq!(e.code, -32022);
        let d = e.data.unwrap();
        assert_eq!(d["requested"], "v999.0.0");
        assert_eq!(d["supported"][0], "2026-07-28");
    }
}

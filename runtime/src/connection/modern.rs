//! The per-request `_meta` of 2026-07-28: what must be there, and the version check.

use serde_json::{json, Value};

use crate::contract::era::{self, LogLevel};
use crate::contract::error::{RpcError, UNSUPPORTED_VERSION};
use crate::rpc::meta::Meta;

/// What a 2026 request says about itself.
#[derive(Debug, Clone)]
pub struct ModernMeta {
    pub version: String,
    pub client_caps: Value,
    pub log_level: Option<LogLevel>,
}

/// Whether a request's `_meta` carries the 2026 protocol version (of any type).
pub fn has_modern_meta(meta: &Meta) -> bool {
    meta.protocol_version.is_some()
}

/// `params._meta.progressToken` (both eras).
pub fn progress_token(meta: &Meta) -> Option<Value> {
    meta.progress_token
        .as_ref()
        .filter(|t| t.is_string() || t.is_number())
        .cloned()
}

/// `params._meta["io.modelcontextprotocol/acceptLanguage"]` (SEP-2792), when it is a string.
pub fn accept_language(meta: &Meta) -> Option<std::sync::Arc<str>> {
    meta.accept_language
        .as_ref()
        .and_then(Value::as_str)
        .map(std::sync::Arc::from)
}

/// Reads the required `_meta` fields: -32602 naming the missing one. The client capabilities
/// are taken out of `meta` (the call keeps them; nothing else reads them).
pub fn read_meta(meta: &mut Meta) -> Result<ModernMeta, RpcError> {
    if !meta.object {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: `_meta` with `{}` and `{}` is required on every 2026-07-28 request",
            era::META_PROTOCOL_VERSION,
            era::META_CLIENT_CAPABILITIES
        )));
    }
    let Some(version) = meta.protocol_version.as_ref().and_then(Value::as_str) else {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: `_meta[\"{}\"]` (a string) is required",
            era::META_PROTOCOL_VERSION
        )));
    };
    let version = version.to_string();
    let client_caps = match meta.client_capabilities.take() {
        Some(v @ Value::Object(_)) => v,
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
    let log_level = match &meta.log_level {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_str().and_then(LogLevel::parse).ok_or_else(|| {
            RpcError::invalid_params(format!(
                "Invalid params: `_meta[\"{}\"]` is not a log level",
                era::META_LOG_LEVEL
            ))
        })?),
    };
    Ok(ModernMeta {
        version,
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

    fn params(v: Value) -> Meta {
        crate::rpc::meta::split(v.as_object().unwrap().clone())
            .1
            .map(|m| *m)
            .unwrap_or_default()
    }

    #[test]
    fn missing_meta_fields_are_named() {
        let e = read_meta(&mut params(json!({}))).unwrap_err();
        assert_eq!(e.code, -32602);
        let e = read_meta(&mut params(
            json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
        ))
        .unwrap_err();
        assert!(e.message.contains("protocolVersion"));
        let e = read_meta(&mut params(
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        ))
        .unwrap_err();
        assert!(e.message.contains("clientCapabilities"));
        let ok = read_meta(&mut params(json!({"_meta": {
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

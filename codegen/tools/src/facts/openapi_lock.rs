//! The API lock files: per OpenAPI operation, its method, path, operationId and a digest of each
//! request and response schema (SHA-256 of the RFC 8785 canonical JSON, `$ref`s resolved), so the
//! tests and the coverage gate know Kobana's API without the specs beside the clone, and a change
//! of any schema shows as a changed line.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::phrase::sha256_hex;
use crate::openapi::contract::{self, Contract};
use crate::openapi::spec::{OperationKey, Spec};

/// One lock file (`catalog/facts/openapi/<spec>.lock.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiLock {
    #[serde(rename = "$comment")]
    pub comment: String,
    /// The spec, relative to the sources folder (`kobana-openapi/….json`).
    pub source: String,
    pub operations: Vec<LockedOperation>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LockedOperation {
    /// Upper-case: `GET`.
    pub method: String,
    /// As written in the spec.
    pub path: String,
    /// `null` when the spec gives none (Kobana's specs give none today).
    #[serde(rename = "operationId", default)]
    pub operation_id: Option<String>,
    /// Digest of the parameters (path-item and operation ones), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<String>,
    /// Media type → digest of the request body schema.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub request: BTreeMap<String, String>,
    /// Status → media type → digest of the response schema.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub responses: BTreeMap<String, BTreeMap<String, String>>,
    /// What a call must hold (required arguments, documented values, kinds): what the coverage
    /// gate compares the tools with.
    #[serde(default, skip_serializing_if = "Contract::is_empty")]
    pub contract: Contract,
}

impl LockedOperation {
    /// `GET /v1/bank_billets/{id}`, as the coverage gate labels operations.
    pub fn label(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
    pub fn key(&self) -> OperationKey {
        OperationKey::new(&self.method, &self.path)
    }
}

impl ApiLock {
    pub fn read(path: &Path) -> anyhow::Result<ApiLock> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the API lock file {}", path.display()))?;
        serde_json::from_str(&text)
            .with_context(|| format!("{} is not an API lock file", path.display()))
    }
}

/// `sha256:<hex>` of the canonical JSON of `value`.
pub fn digest(value: &Value) -> anyhow::Result<String> {
    let canonical = serde_json_canonicalizer::to_string(value)
        .context("cannot write canonical JSON of a schema")?;
    Ok(format!("sha256:{}", sha256_hex(canonical.as_bytes())))
}

/// `value` with every local `$ref` replaced by what it points to; a `$ref` already being
/// resolved further up (a self-referencing schema) stays a `$ref`.
fn resolved(spec: &Spec, value: &Value, stack: &mut Vec<String>) -> Value {
    match value {
        Value::Object(obj) => {
            if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
                let target = r.strip_prefix('#').and_then(|p| spec.doc.pointer(p));
                if let Some(target) = target {
                    if !stack.iter().any(|s| s == r) {
                        stack.push(r.to_string());
                        let out = resolved(spec, target, stack);
                        stack.pop();
                        return out;
                    }
                }
                return value.clone();
            }
            let mut out = Map::new();
            for (k, v) in obj {
                out.insert(k.clone(), resolved(spec, v, stack));
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| resolved(spec, v, stack)).collect())
        }
        other => other.clone(),
    }
}

fn resolved_digest(spec: &Spec, value: &Value) -> anyhow::Result<String> {
    digest(&resolved(spec, value, &mut Vec::new()))
}

/// Media type → schema digest of a `content` object.
fn content_digests(spec: &Spec, holder: &Value) -> anyhow::Result<BTreeMap<String, String>> {
    let holder = resolved(spec, holder, &mut Vec::new());
    let mut out = BTreeMap::new();
    if let Some(content) = holder.get("content").and_then(Value::as_object) {
        for (media, body) in content {
            if let Some(schema) = body.get("schema") {
                out.insert(media.clone(), digest(schema)?);
            }
        }
    }
    Ok(out)
}

/// The lock of one spec; `source` names it relative to the sources folder.
pub fn lock(spec: &Spec, source: &str, comment: String) -> anyhow::Result<ApiLock> {
    let mut operations = Vec::new();
    for op in spec.operations() {
        let mut params: Vec<Value> = op.common_params.to_vec();
        if let Some(own) = op.op.get("parameters").and_then(Value::as_array) {
            params.extend(own.iter().cloned());
        }
        let parameters = if params.is_empty() {
            None
        } else {
            Some(resolved_digest(spec, &Value::Array(params))?)
        };
        let request = match op.op.get("requestBody") {
            Some(body) => content_digests(spec, body)?,
            None => BTreeMap::new(),
        };
        let mut responses = BTreeMap::new();
        if let Some(all) = op.op.get("responses").and_then(Value::as_object) {
            for (status, answer) in all {
                responses.insert(status.clone(), content_digests(spec, answer)?);
            }
        }
        operations.push(LockedOperation {
            method: op.method.clone(),
            path: op.path.clone(),
            operation_id: op
                .op
                .get("operationId")
                .and_then(Value::as_str)
                .map(str::to_string),
            parameters,
            request,
            responses,
            contract: contract::of(&op),
        });
    }
    Ok(ApiLock {
        comment,
        source: source.to_string(),
        operations,
    })
}

//! The audit trail: one JSON record per write or destructive `tools/call` answered, whatever
//! its outcome (ran, failed, declined, refused, unknown).
//!
//! A record says who (person, organization, workspace), what (product, tool, protocol
//! revision, the canonical SHA-256 of the arguments and the arguments with secrets removed),
//! and what became of it (outcome and error code, confirmation id, upstream status and request
//! id, idempotency key, trace id). A confirmation question alone (`input_required`) writes no
//! record: nothing was decided; its answer does.
//!
//! Secrets never reach the trail. The rule reads the tool's input schema and the argument names
//! ([`redact`]): a value is replaced when its schema says `format: password`, `writeOnly`, or
//! carries `contentEncoding`/`contentMediaType` (uploaded file bytes, certificates), or when its
//! name's last word is a credential word (`password`, `senha`, `secret`, `token`, `api_key`,
//! `private_key`, …). Names where such a word is not the last (`password_protected_mode`,
//! `input_tokens`, `certificate_uid`) stay: they name settings and counts, not secrets.
//!
//! Sinks: stderr, or a JSON Lines file opened for append, rotated by size
//! (`file` → `file.1` → … → `file.<keep>`, the oldest dropped).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::{Map, Value};

/// What replaces a secret value.
pub const REDACTED: &str = "[redacted]";

/// Where audit records go.
#[derive(Debug, Clone)]
pub enum AuditTarget {
    Stderr,
    File {
        path: PathBuf,
        /// A file reaching this size is rotated before the next record.
        max_bytes: u64,
        /// Rotated files kept (`path.1` … `path.<keep>`).
        keep: usize,
    },
}

/// Default size of an audit file before rotation (100 MiB).
pub const DEFAULT_MAX_BYTES: u64 = 100 * 1024 * 1024;
/// Default number of rotated audit files kept.
pub const DEFAULT_KEEP: usize = 10;

/// An open audit sink. Records are whole lines, written under one lock.
pub struct AuditSink {
    out: Mutex<Out>,
}

enum Out {
    Stderr,
    File {
        path: PathBuf,
        file: File,
        size: u64,
        max_bytes: u64,
        keep: usize,
    },
}

fn open_append(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

impl AuditSink {
    /// Opens the sink; a file that cannot be created or opened for append is an error naming it.
    pub fn open(target: AuditTarget) -> Result<Self, String> {
        let out = match target {
            AuditTarget::Stderr => Out::Stderr,
            AuditTarget::File {
                path,
                max_bytes,
                keep,
            } => {
                let err = |e: std::io::Error| format!("audit file {}: {e}", path.display());
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(err)?;
                }
                let file = open_append(&path).map_err(err)?;
                let size = file.metadata().map(|m| m.len()).unwrap_or(0);
                Out::File {
                    path,
                    file,
                    size,
                    max_bytes: max_bytes.max(1),
                    keep,
                }
            }
        };
        Ok(Self {
            out: Mutex::new(out),
        })
    }

    /// Writes one record as one line. A failure is logged (the call's answer stands).
    pub fn write(&self, record: &Value) {
        let mut line = record.to_string();
        line.push('\n');
        let Ok(mut out) = self.out.lock() else {
            return;
        };
        let result = match &mut *out {
            Out::Stderr => std::io::stderr().lock().write_all(line.as_bytes()),
            Out::File {
                path,
                file,
                size,
                max_bytes,
                keep,
            } => {
                if *size > 0 && *size + line.len() as u64 > *max_bytes {
                    match rotate(path, *keep) {
                        Ok(f) => {
                            *file = f;
                            *size = 0;
                        }
                        Err(e) => {
                            tracing::error!(path = %path.display(), error = %e, "cannot rotate the audit file; appending")
                        }
                    }
                }
                let r = file.write_all(line.as_bytes());
                if r.is_ok() {
                    *size += line.len() as u64;
                }
                r
            }
        };
        if let Err(e) = result {
            tracing::error!(error = %e, "cannot write an audit record");
        }
    }
}

/// `path.<keep-1>` → `path.<keep>` … `path` → `path.1`; returns the new, empty `path`.
fn rotate(path: &Path, keep: usize) -> std::io::Result<File> {
    let numbered = |n: usize| {
        let mut p = path.as_os_str().to_owned();
        p.push(format!(".{n}"));
        PathBuf::from(p)
    };
    if keep == 0 {
        std::fs::remove_file(path)?;
    } else {
        let _ = std::fs::remove_file(numbered(keep));
        for n in (1..keep).rev() {
            let from = numbered(n);
            if from.exists() {
                std::fs::rename(&from, numbered(n + 1))?;
            }
        }
        std::fs::rename(path, numbered(1))?;
    }
    open_append(path)
}

/// Whether an argument name is a credential's: its last word (split on `_`, `-` and case
/// changes) is a credential word, or it ends in `api key` / `private key` / `access key`.
fn secret_name(name: &str) -> bool {
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' || c == '-' || c == '.' || c == ' ' {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    let Some(last) = words.last().map(String::as_str) else {
        return false;
    };
    let before = words.len().checked_sub(2).map(|i| words[i].as_str());
    matches!(
        last,
        "password"
            | "passwd"
            | "passphrase"
            | "senha"
            | "secret"
            | "token"
            | "pin"
            | "otp"
            | "apikey"
            | "cvv"
            | "cvc"
    ) || (last == "key"
        && matches!(
            before,
            Some("api" | "private" | "access" | "secret" | "signing")
        ))
}

/// Whether a property's schema marks its value as secret or as file bytes.
fn secret_schema(schema: &Value) -> bool {
    schema.get("format").and_then(Value::as_str) == Some("password")
        || schema.get("writeOnly") == Some(&Value::Bool(true))
        || schema.get("contentEncoding").is_some()
        || schema.get("contentMediaType").is_some()
}

/// The arguments with every secret value replaced by [`REDACTED`] (see the module docs), walking
/// objects and arrays alongside their schema (a value outside the schema is judged by its
/// name alone).
pub fn redact(schema: &Value, args: &Map<String, Value>) -> Value {
    Value::Object(redact_object(Some(schema), args))
}

fn redact_object(schema: Option<&Value>, obj: &Map<String, Value>) -> Map<String, Value> {
    let props = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    let extra = schema
        .and_then(|s| s.get("additionalProperties"))
        .filter(|a| a.is_object());
    obj.iter()
        .map(|(k, v)| {
            let sub = props.and_then(|p| p.get(k)).or(extra);
            let secret = secret_name(k) || sub.is_some_and(secret_schema);
            let shown = if secret && !v.is_null() {
                Value::String(REDACTED.to_string())
            } else {
                redact_value(sub, v)
            };
            (k.clone(), shown)
        })
        .collect()
}

fn redact_value(schema: Option<&Value>, v: &Value) -> Value {
    // Look through the combinators for the branch shapes (any branch's properties apply).
    let branches: Vec<&Value> = schema
        .into_iter()
        .flat_map(|s| {
            let mut b = vec![s];
            for key in ["anyOf", "oneOf", "allOf"] {
                if let Some(Value::Array(a)) = s.get(key) {
                    b.extend(a.iter());
                }
            }
            b
        })
        .collect();
    match v {
        Value::Object(m) => {
            let with_props = branches
                .iter()
                .copied()
                .find(|b| b.get("properties").is_some() || b.get("additionalProperties").is_some());
            Value::Object(redact_object(with_props, m))
        }
        Value::Array(items) => {
            let item_schema = branches.iter().find_map(|b| b.get("items"));
            if item_schema.is_some_and(secret_schema) {
                return Value::Array(
                    items
                        .iter()
                        .map(|_| Value::String(REDACTED.to_string()))
                        .collect(),
                );
            }
            Value::Array(items.iter().map(|i| redact_value(item_schema, i)).collect())
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn credential_names_are_secret_and_lookalikes_are_not() {
        for s in [
            "password",
            "pfx_password",
            "client_secret",
            "api_access_token",
            "activationToken",
            "api_key",
            "crt_private_key",
            "senha",
        ] {
            assert!(secret_name(s), "{s}");
        }
        for s in [
            "password_protected_mode",
            "password_updated_at",
            "input_tokens",
            "certificate_uid",
            "secret_rotated_at",
            "keypair_uid",
            "name",
        ] {
            assert!(!secret_name(s), "{s}");
        }
    }

    #[test]
    fn schema_marks_and_names_are_redacted_at_any_depth() {
        let schema = json!({"type": "object", "properties": {
            "label": {"type": "string"},
            "files": {"type": "object", "properties": {
                "pfx_file": {"type": "string", "contentEncoding": "base64"},
                "pin": {"type": "string", "format": "password"}
            }},
            "value": {"type": "string", "writeOnly": true},
            "credentials": {"type": "object"},
            "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}}}}
        }});
        let args = json!({
            "label": "Main",
            "files": {"pfx_file": "QUJD", "pin": "1234"},
            "value": "s3cr3t",
            "credentials": {"client_id": "cid", "password": "hunter2"},
            "list": [{"x": "a", "token": "t0k"}]
        });
        let out = redact(&schema, args.as_object().unwrap());
        assert_eq!(
            out,
            json!({
                "label": "Main",
                "files": {"pfx_file": REDACTED, "pin": REDACTED},
                "value": REDACTED,
                "credentials": {"client_id": "cid", "password": REDACTED},
                "list": [{"x": "a", "token": REDACTED}]
            })
        );
    }

    #[test]
    fn files_rotate_by_size_and_keep_the_newest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let sink = AuditSink::open(AuditTarget::File {
            path: path.clone(),
            max_bytes: 40,
            keep: 2,
        })
        .unwrap();
        for i in 0..5 {
            sink.write(&json!({"n": i, "pad": "xxxxxxxxxxxxxxxx"}));
        }
        let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
        let n = |p: PathBuf| read(&p);
        assert!(read(&path).contains("\"n\":4"));
        assert!(n(dir.path().join("audit.jsonl.1")).contains("\"n\":3"));
        assert!(n(dir.path().join("audit.jsonl.2")).contains("\"n\":2"));
        assert!(!dir.path().join("audit.jsonl.3").exists());
    }
}

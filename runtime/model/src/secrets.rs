//! Which argument values are secrets, and the arguments with them hidden: one rule for the audit
//! trail and the confirmation forms (a bank connection's `client_secret` is neither written to a
//! log nor shown back in a question).
//!
//! The rule reads the tool's input schema, the argument names and the values ([`redact`]): a
//! value is replaced when its schema says `format: password`, `writeOnly`, or carries
//! `contentEncoding`/`contentMediaType` (uploaded file bytes, certificates); when its name's
//! last word is a credential word ([`secret_name`]: `password`, `senha`, `secret`, `token`,
//! `authorization`, `api_key`, `private_key`, `card_number`, a bare `key`, …); or when the value
//! itself looks like one ([`secret_value`]: a PEM block, a bearer token, a card number). Names
//! where such a word is not the last (`password_protected_mode`, `input_tokens`,
//! `certificate_uid`) stay: they name settings and counts, not secrets. A bare `key` whose schema
//! says it is a Pix key stays too: it is where money goes, which the person must see.
//!
//! One rule for the confirmation form (`runtime/src/confirm/form.rs`, which says "(hidden)" in
//! the person's language), the audit trail (`runtime/src/telemetry/audit.rs`) and logs.

use serde_json::{Map, Value};

/// What replaces a secret value.
pub const REDACTED: &str = "[redacted]";

/// Whether an argument name is a credential's: its last word (split on `_`, `-` and case
/// changes) is a credential word, or it ends in `api key` / `private key` / `access key`.
pub fn secret_name(name: &str) -> bool {
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
    if words.len() == 1 && last == "key" {
        return true;
    }
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
            | "authorization"
            | "cardnumber"
    ) || (last == "number" && before == Some("card"))
        || (last == "key"
            && matches!(
                before,
                Some("api" | "private" | "access" | "secret" | "signing")
            ))
}

/// Whether a value looks like a secret whatever its name: a PEM block (`-----BEGIN … KEY-----`),
/// a bearer token (`Bearer eyJ…`), or a card number (15 to 19 digits, spaces or dashes allowed,
/// that pass the Luhn check; a CPF has 11 digits and a CNPJ 14, so neither is taken for one).
pub fn secret_value(v: &str) -> bool {
    let t = v.trim();
    if t.contains("-----BEGIN ") {
        return true;
    }
    if let Some(rest) = t
        .strip_prefix("Bearer ")
        .or_else(|| t.strip_prefix("bearer "))
    {
        return rest.trim().len() >= 8 && !rest.trim().contains(' ');
    }
    if !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || c == ' ' || c == '-')
    {
        let digits: Vec<u32> = t.chars().filter_map(|c| c.to_digit(10)).collect();
        return (15..=19).contains(&digits.len()) && luhn(&digits);
    }
    false
}

fn luhn(digits: &[u32]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if !i.is_multiple_of(2) {
                let x = d * 2;
                if x > 9 {
                    x - 9
                } else {
                    x
                }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// A bare `key` whose schema says it is a Pix key ("Chave Pix"): an address, not a credential.
fn pix_key(name: &str, schema: Option<&Value>) -> bool {
    name == "key"
        && schema
            .and_then(|s| s.get("description"))
            .and_then(Value::as_str)
            .is_some_and(|d| d.to_lowercase().contains("pix"))
}

/// Whether a property's schema marks its value as secret or as file bytes.
fn secret_schema(schema: &Value, files: bool) -> bool {
    schema.get("format").and_then(Value::as_str) == Some("password")
        || schema.get("writeOnly") == Some(&Value::Bool(true))
        || (files
            && (schema.get("contentEncoding").is_some()
                || schema.get("contentMediaType").is_some()))
}

/// The arguments with every secret value replaced by [`REDACTED`] (see the module docs), walking
/// objects and arrays alongside their schema (a value outside the schema is judged by its
/// name alone).
pub fn redact(schema: &Value, args: &Map<String, Value>) -> Value {
    Value::Object(redact_object(Some(schema), args, true))
}

/// The arguments with every credential replaced by [`REDACTED`], file bytes left as they are:
/// for a confirmation question, which describes files itself (`upload::abbreviate_files`).
pub fn redact_credentials(schema: &Value, args: &Map<String, Value>) -> Value {
    Value::Object(redact_object(Some(schema), args, false))
}

fn redact_object(
    schema: Option<&Value>,
    obj: &Map<String, Value>,
    files: bool,
) -> Map<String, Value> {
    let props = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    let extra = schema
        .and_then(|s| s.get("additionalProperties"))
        .filter(|a| a.is_object());
    obj.iter()
        .map(|(k, v)| {
            let sub = props.and_then(|p| p.get(k)).or(extra);
            let secret = (secret_name(k) && !pix_key(k, sub))
                || sub.is_some_and(|s| secret_schema(s, files))
                || v.as_str().is_some_and(secret_value);
            let shown = if secret && !v.is_null() {
                Value::String(REDACTED.to_string())
            } else {
                redact_value(sub, v, files)
            };
            (k.clone(), shown)
        })
        .collect()
}

fn redact_value(schema: Option<&Value>, v: &Value, files: bool) -> Value {
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
            Value::Object(redact_object(with_props, m, files))
        }
        Value::Array(items) => {
            let item_schema = branches.iter().find_map(|b| b.get("items"));
            if item_schema.is_some_and(|s| secret_schema(s, files)) {
                return Value::Array(
                    items
                        .iter()
                        .map(|_| Value::String(REDACTED.to_string()))
                        .collect(),
                );
            }
            Value::Array(
                items
                    .iter()
                    .map(|i| redact_value(item_schema, i, files))
                    .collect(),
            )
        }
        Value::String(s) if secret_value(s) => Value::String(REDACTED.to_string()),
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
            "key",
            "authorization",
            "card_number",
            "cardNumber",
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
            "key_type",
            "card_holder",
            "number",
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
    fn values_that_look_like_secrets_are_redacted_whatever_their_name() {
        for v in [
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----",
            "Bearer eyJhbGciOiJIUzI1NiJ9.e30.x",
            "4111 1111 1111 1111",
            "4111-1111-1111-1111",
            "378282246310005",
        ] {
            assert!(secret_value(v), "{v}");
        }
        for v in [
            "12345678909",
            "12345678000190",
            "4111 1111 1111 1112",
            "Bearer",
            "a note about a bearer bond",
            "23793381286000000000300000000401584340000010000",
        ] {
            assert!(!secret_value(v), "{v}");
        }
        let schema = json!({"type": "object", "properties": {
            "note": {"type": "string"},
            "key": {"type": "string", "description": "Chave Pix"},
            "other": {"type": "object", "properties": {"key": {"type": "string", "description": "Chave privada SSH"}}}
        }});
        let args = json!({
            "note": "-----BEGIN RSA PRIVATE KEY-----x-----END RSA PRIVATE KEY-----",
            "key": "maria@example.com",
            "other": {"key": "abc", "list": ["Bearer abcdefgh12345"]}
        });
        assert_eq!(
            redact(&schema, args.as_object().unwrap()),
            json!({
                "note": REDACTED,
                "key": "maria@example.com",
                "other": {"key": REDACTED, "list": [REDACTED]}
            })
        );
    }
}

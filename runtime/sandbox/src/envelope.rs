//! Response shapes, as the Kobana API writes them.
//!
//! Rule (by the binding's path prefix): a path under `/v2` answers `{"status": 200, "data": …}`,
//! lists adding `"pagination": {"page", "per_page", "prev_url", "next_url"}`; any other path
//! (`/v1`, extension tools) answers the bare record or the bare array. The sandbox backend and
//! `serve-api` use the same shapes, so the proxy returns what the sandbox would.

use runtime_model::catalog::{Binding, Tool};
use runtime_model::identity::Identity;
use serde_json::{json, Map, Value};

/// Whether a tool's API wraps its answers (`/v2`).
pub fn is_v2(tool: &Tool) -> bool {
    match tool.binding {
        Binding::Http(h) => h.path.starts_with("/v2"),
        Binding::Extension(_) => false,
    }
}

pub fn one(tool: &Tool, record: Map<String, Value>) -> Value {
    if is_v2(tool) {
        json!({"status": 200, "data": Value::Object(record)})
    } else {
        Value::Object(record)
    }
}

pub fn page(tool: &Tool, items: Vec<Value>, page: u64, per_page: u64, has_next: bool) -> Value {
    if is_v2(tool) {
        json!({
            "status": 200,
            "data": items,
            "pagination": pagination(page, per_page, has_next),
        })
    } else {
        Value::Array(items)
    }
}

/// [`page`] as JSON text, twice: as it is, and as it reads inside a JSON string (escaped, for the
/// text block of a tool result). `items` adds the page's records ([`PageText::push_record`]) and
/// says whether a next page exists. The text is `page(…).to_string()` of the parsed records, and
/// its escaped form `serde_json`'s escaping of that text (escaping is byte by byte, so the
/// escaped pieces joined are the escaped whole).
pub fn page_text<E>(
    tool: &Tool,
    page: u64,
    per_page: u64,
    items: impl FnOnce(&mut PageText) -> Result<bool, E>,
) -> Result<PageText, E> {
    let v2 = is_v2(tool);
    let mut out = PageText::default();
    out.push_piece(if v2 {
        "{\"status\":200,\"data\":["
    } else {
        "["
    });
    let has_next = items(&mut out)?;
    out.push_piece("]");
    if v2 {
        out.push_piece(",\"pagination\":");
        out.push_piece(&pagination(page, per_page, has_next).to_string());
        out.push_piece("}");
    }
    Ok(out)
}

/// A list page's JSON text being joined from its records' stored texts, with the same text as it
/// reads inside a JSON string.
#[derive(Debug, Default)]
pub struct PageText {
    /// The page's JSON text.
    pub json: String,
    /// `json` escaped for a JSON string, without the quotes.
    pub in_string: String,
    records: usize,
}

impl PageText {
    /// Appends one record: its JSON text and that text escaped, as the store holds them; the
    /// first one also sizes both texts for `expected` records like it.
    pub fn push_record(&mut self, json: &str, in_string: &str, expected: usize) {
        if self.records == 0 {
            self.json.reserve((json.len() + 1) * expected + 64);
            self.in_string
                .reserve((in_string.len() + 1) * expected + 128);
        } else {
            self.json.push(',');
            self.in_string.push(',');
        }
        self.json.push_str(json);
        self.in_string.push_str(in_string);
        self.records += 1;
    }

    /// How many records were pushed.
    pub fn records(&self) -> usize {
        self.records
    }

    /// Appends a piece of the envelope, escaping it here (a few bytes).
    fn push_piece(&mut self, text: &str) {
        self.json.push_str(text);
        let quoted = Value::String(text.to_string()).to_string();
        self.in_string.push_str(&quoted[1..quoted.len() - 1]);
    }
}

/// The `pagination` of a v2 list page.
fn pagination(page: u64, per_page: u64, has_next: bool) -> Value {
    let url = |p: u64| format!("?page={p}&per_page={per_page}");
    json!({
        "page": page,
        "per_page": per_page,
        "prev_url": if page > 1 { Value::String(url(page - 1)) } else { Value::Null },
        "next_url": if has_next { Value::String(url(page + 1)) } else { Value::Null },
    })
}

/// The records in a list answer: a bare array, or the `data` array of an envelope.
pub fn items(value: &Value) -> Option<&Vec<Value>> {
    match value {
        Value::Array(a) => Some(a),
        Value::Object(m) => m.get("data").and_then(Value::as_array),
        _ => None,
    }
}

/// The identity endpoint's answer (`GET /v2/me`) for `identity`: the account (organization), the
/// user (person) with their permissions, the token (`token_uid`) with its scopes, and the
/// workspaces. The embedded sandbox and `serve-api` both answer it, so "who am I" is the caller
/// on either.
pub fn me(identity: &Identity, token_uid: &str) -> Value {
    json!({
        "status": 200,
        "data": {
            "account": {"uid": identity.organization, "full_name": identity.name},
            "user": {
                "uid": identity.person,
                "full_name": identity.name,
                "permissions": identity.permissions,
            },
            "access_token": {"uid": token_uid, "scopes": identity.scopes},
            "workspaces": identity.workspaces,
        }
    })
}

/// A stable, non-secret uid for a token (or, on the embedded sandbox, which sees no token, for
/// the person and organization it resolved to): the first 16 bytes of its SHA-256, in hex.
pub fn token_uid(secret: &str) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(&Sha256::digest(secret.as_bytes())[..16])
}

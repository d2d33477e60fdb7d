//! File contents the sandbox produces for blob, text and signed-URL reads.
//!
//! Which kind a tool returns comes from the catalog: the content of the template or fixed
//! resource it reads (`read_by`). Text → an XML rendering of the record (NF-e XML and the like);
//! blob → a small one-page PDF describing the record; blob-or-text → the record's bytes as text when
//! its `content_type`/`mime_type` is textual, a PDF otherwise; signed URL → `{url, expires_at}`
//! pointing to `GET /files/<product>/<type>/<id>?…&expires=…&sig=…`, which `serve-api` (and any
//! server mounting [`crate::api::files_router`]) serves. The signature is HMAC-SHA256 over
//! product, type, id, organization, workspace and expiry, so a URL is only good for one record,
//! until it expires.
//!
//! A record with an integer `size`, `byte_size`, `file_size` or `size_bytes` field yields exactly
//! that many bytes (up to 32 MB), so the resource layer's 10 MB limit can be exercised.

use hmac::{Hmac, Mac};
use runtime_model::backend::{BackendError, Output};
use runtime_model::catalog::{ContentKind, Product, RecordType, Tool};
use runtime_model::uri_template::encode_component;
use serde_json::{json, Map, Value};
use sha2::Sha256;
use time::OffsetDateTime;

use crate::clock;
use crate::store::{Row, Scope};

const SIZE_FIELDS: &[&str] = &["size", "byte_size", "file_size", "size_bytes"];
const MAX_GENERATED: u64 = 32 * 1024 * 1024;

/// Signs and checks download URLs.
#[derive(Clone)]
pub struct Files {
    key: Vec<u8>,
    /// Base URL the signed links point to, e.g. `http://127.0.0.1:8080`.
    pub public_url: String,
}

impl std::fmt::Debug for Files {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Files")
            .field("public_url", &self.public_url)
            .finish_non_exhaustive()
    }
}

/// The parts of a signed download link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    pub product: String,
    pub record: String,
    pub id: String,
    pub organization: String,
    pub workspace: String,
    pub expires: i64,
}

impl Files {
    pub fn new(key: impl Into<Vec<u8>>, public_url: impl Into<String>) -> Self {
        Files {
            key: key.into(),
            public_url: public_url.into().trim_end_matches('/').to_string(),
        }
    }

    fn mac(&self, r: &FileRef) -> String {
        let mut mac = match Hmac::<Sha256>::new_from_slice(&self.key) {
            Ok(m) => m,
            Err(_) => return String::new(),
        };
        let msg = format!(
            "{}\n{}\n{}\n{}\n{}\n{}",
            r.product, r.record, r.id, r.organization, r.workspace, r.expires
        );
        mac.update(msg.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }

    /// A signed URL for one record's file.
    pub fn sign(&self, r: &FileRef) -> String {
        format!(
            "{}/files/{}/{}/{}?org={}&ws={}&expires={}&sig={}",
            self.public_url,
            r.product,
            r.record,
            encode_component(&r.id),
            encode_component(&r.organization),
            encode_component(&r.workspace),
            r.expires,
            self.mac(r)
        )
    }

    /// Checks a signature and the expiry (`now` in Unix seconds).
    pub fn verify(&self, r: &FileRef, sig: &str, now: i64) -> Result<(), &'static str> {
        if r.expires < now {
            return Err("this download link has expired");
        }
        let expected = self.mac(r);
        // Constant-time comparison: the signature is a secret-derived value.
        let ok = expected.len() == sig.len()
            && expected
                .bytes()
                .zip(sig.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0;
        if ok {
            Ok(())
        } else {
            Err("this download link's signature is not valid")
        }
    }
}

/// The content kind a tool's output is read as, from the templates and resources it reads.
pub fn content_kind(product: &Product, tool: &Tool) -> Option<ContentKind> {
    product
        .templates
        .iter()
        .filter(|t| t.read_by == tool.name)
        .map(|t| t.content)
        .chain(
            product
                .resources
                .iter()
                .filter(|r| r.read_by == tool.name)
                .map(|r| r.content),
        )
        .find(|k| {
            !matches!(
                k,
                ContentKind::JsonRecord | ContentKind::SchemaCatalog | ContentKind::SchemaEntry
            )
        })
}

/// The file output of a `get` tool whose reads are files; `None` for plain JSON records.
pub fn render(
    product: &Product,
    tool: &Tool,
    rt: &RecordType,
    row: &Row,
    scope: &Scope,
    files: &Files,
    now: OffsetDateTime,
) -> Option<Result<Output, BackendError>> {
    let kind = content_kind(product, tool)?;
    Some(Ok(match kind {
        ContentKind::Text => Output::Bytes {
            mime_type: "application/xml".into(),
            data: xml(rt, &row.json).into_bytes(),
        },
        ContentKind::Blob { .. } => Output::Bytes {
            mime_type: "application/pdf".into(),
            data: sized(pdf(rt, &row.json), &row.json),
        },
        ContentKind::BlobOrText { .. } => {
            let mime = row
                .json
                .get("content_type")
                .or_else(|| row.json.get("mime_type"))
                .and_then(Value::as_str)
                .unwrap_or("application/pdf")
                .to_string();
            let data =
                if mime.starts_with("text/") || mime.ends_with("json") || mime.ends_with("xml") {
                    text_body(rt, &row.json).into_bytes()
                } else {
                    pdf(rt, &row.json)
                };
            Output::Bytes {
                mime_type: mime,
                data: sized(data, &row.json),
            }
        }
        ContentKind::SignedUrl { ttl_secs } => {
            let expires = now.unix_timestamp() + ttl_secs as i64;
            let r = FileRef {
                product: product.name.to_string(),
                record: rt.name.to_string(),
                id: row.id.clone(),
                organization: scope.organization.clone(),
                workspace: scope.workspace.clone(),
                expires,
            };
            let at = OffsetDateTime::from_unix_timestamp(expires)
                .map(|t| clock::datetime_string(t.to_offset(clock::brasilia())))
                .unwrap_or_default();
            Output::Json(json!({"url": files.sign(&r), "expires_at": at}))
        }
        ContentKind::JsonRecord | ContentKind::SchemaCatalog | ContentKind::SchemaEntry => {
            return None
        }
    }))
}

/// Pads (or cuts) generated bytes to the record's declared size, if it has one.
fn sized(mut data: Vec<u8>, json: &Map<String, Value>) -> Vec<u8> {
    let size = SIZE_FIELDS
        .iter()
        .find_map(|f| json.get(*f).and_then(Value::as_u64));
    if let Some(size) = size {
        let size = size.min(MAX_GENERATED) as usize;
        data.resize(size, b' ');
    }
    data
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The record as an XML document (`<nfe_invoice><uid>…</uid>…</nfe_invoice>`).
pub fn xml(rt: &RecordType, json: &Map<String, Value>) -> String {
    let root = rt.name.trim_end_matches('s');
    let mut out = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<{root}>\n");
    for (k, v) in json {
        out.push_str(&format!("  <{k}>{}</{k}>\n", xml_escape(&scalar(v))));
    }
    out.push_str(&format!("</{root}>\n"));
    out
}

fn text_body(rt: &RecordType, json: &Map<String, Value>) -> String {
    let mut out = format!("{}\n", rt.title);
    for (k, v) in json {
        out.push_str(&format!("{k}: {}\n", scalar(v)));
    }
    out
}

fn pdf_escape(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii() { c } else { '?' })
        .collect::<String>()
        .replace('\\', "\\\\")
        .replace('(', "\\(")
        .replace(')', "\\)")
}

/// A valid one-page PDF listing the record's fields.
pub fn pdf(rt: &RecordType, json: &Map<String, Value>) -> Vec<u8> {
    let mut text = format!("BT /F1 14 Tf 50 800 Td ({}) Tj ET\n", pdf_escape(rt.title));
    let mut y = 770;
    for (k, v) in json.iter().take(40) {
        text.push_str(&format!(
            "BT /F1 10 Tf 50 {y} Td ({}: {}) Tj ET\n",
            pdf_escape(k),
            pdf_escape(&scalar(v))
        ));
        y -= 16;
    }
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>".to_string(),
        format!("<< /Length {} >>\nstream\n{}endstream", text.len(), text),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{}\nendobj\n", i + 1, body).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// An RFC 5322 message for an e-mail record (`from`, `to`, `subject`, `body`… when present).
pub fn eml(rt: &RecordType, json: &Map<String, Value>) -> Vec<u8> {
    let field = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| json.get(*n).map(scalar))
            .unwrap_or_default()
    };
    let from = field(&["from", "from_email", "sender", "from_address"]);
    let to = field(&["to", "to_email", "recipient", "to_address"]);
    let subject = field(&["subject", "title"]);
    let date = field(&["received_at", "created_at", "date"]);
    let body = field(&["body", "text", "snippet", "summary"]);
    format!(
        "From: {}\r\nTo: {}\r\nSubject: {}\r\nDate: {}\r\nMessage-ID: <{}@sandbox.kobana>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}\r\n\r\n-- \r\n{}\r\n",
        if from.is_empty() { "remetente@example.com.br".into() } else { from },
        if to.is_empty() { "inbox@kobana.dev".into() } else { to },
        subject,
        date,
        json.get(rt.id_field).map(scalar).unwrap_or_default(),
        body,
        text_body(rt, json)
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_bind_the_record_and_expire() {
        let files = Files::new(b"k".to_vec(), "http://h");
        let r = FileRef {
            product: "inbox".into(),
            record: "emails".into(),
            id: "e1".into(),
            organization: "o".into(),
            workspace: "w".into(),
            expires: 1000,
        };
        let url = files.sign(&r);
        let sig = url.rsplit("sig=").next().unwrap_or_default().to_string();
        assert!(files.verify(&r, &sig, 999).is_ok());
        assert_eq!(
            files.verify(&r, &sig, 1001),
            Err("this download link has expired")
        );
        let other = FileRef {
            id: "e2".into(),
            ..r.clone()
        };
        assert!(files.verify(&other, &sig, 999).is_err());
    }

    #[test]
    fn pdf_has_header_xref_and_trailer() {
        let rt = test_support::demo::PRODUCT.records[0].name;
        let data = pdf(
            test_support::demo::PRODUCT
                .record(rt)
                .unwrap_or(&test_support::demo::PRODUCT.records[0]),
            &serde_json::from_value(json!({"uid": "x", "amount": 10})).unwrap_or_default(),
        );
        let s = String::from_utf8_lossy(&data);
        assert!(s.starts_with("%PDF-1.4"));
        assert!(s.contains("startxref"));
        assert!(s.trim_end().ends_with("%%EOF"));
    }
}

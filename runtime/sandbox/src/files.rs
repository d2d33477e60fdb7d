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
use runtime_model::locale::Locale;
use runtime_model::uri_template::encode_component;
use serde_json::{json, Map, Value};
use sha2::Sha256;
use time::OffsetDateTime;

use crate::brazil;
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
            let data = bytes_of_type(&mime, rt, &row.json);
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

/// A file of media type `mime` showing the record: XML, JSON, plain text, a PNG image, else a
/// PDF. The bytes are always a valid file of that type.
pub fn bytes_of_type(mime: &str, rt: &RecordType, json: &Map<String, Value>) -> Vec<u8> {
    let essence = mime.split(';').next().unwrap_or_default().trim();
    if essence.ends_with("xml") {
        xml(rt, json).into_bytes()
    } else if essence.ends_with("json") {
        Value::Object(json.clone()).to_string().into_bytes()
    } else if essence.starts_with("text/") {
        text_body(rt, json).into_bytes()
    } else if essence == "image/png" {
        png_1x1([0x1f, 0x6f, 0xd0])
    } else {
        pdf(rt, json)
    }
}

/// Pads generated bytes up to the record's declared size, if it has one, with what the format
/// tolerates after its end (spaces). Never cuts: a cut file would not be a file of its type.
fn sized(mut data: Vec<u8>, json: &Map<String, Value>) -> Vec<u8> {
    let size = SIZE_FIELDS
        .iter()
        .find_map(|f| json.get(*f).and_then(Value::as_u64));
    if let Some(size) = size {
        let size = size.min(MAX_GENERATED) as usize;
        if size > data.len() {
            data.resize(size, b' ');
        }
    }
    data
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], body: &[u8]) {
    out.extend_from_slice(&(body.len() as u32).to_be_bytes());
    let mut crc_input = kind.to_vec();
    crc_input.extend_from_slice(body);
    out.extend_from_slice(&crc_input);
    out.extend_from_slice(&crc32(&crc_input).to_be_bytes());
}

/// A valid 1×1 RGB PNG of one colour (zlib stream with one stored block).
pub fn png_1x1(rgb: [u8; 3]) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&1u32.to_be_bytes());
    ihdr.extend_from_slice(&1u32.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    png_chunk(&mut out, b"IHDR", &ihdr);
    let raw = [0u8, rgb[0], rgb[1], rgb[2]];
    let (mut a, mut b) = (1u32, 0u32);
    for &x in &raw {
        a = (a + u32::from(x)) % 65_521;
        b = (b + a) % 65_521;
    }
    let mut idat = vec![0x78, 0x01, 0x01];
    idat.extend_from_slice(&(raw.len() as u16).to_le_bytes());
    idat.extend_from_slice(&(!(raw.len() as u16)).to_le_bytes());
    idat.extend_from_slice(&raw);
    idat.extend_from_slice(&((b << 16) | a).to_be_bytes());
    png_chunk(&mut out, b"IDAT", &idat);
    png_chunk(&mut out, b"IEND", &[]);
    out
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

/// The record as an XML document: an NF-e in the `nfeProc` layout when it has a 44-digit
/// `access_key`, else `<nfe_invoice><uid>…</uid>…</nfe_invoice>`.
pub fn xml(rt: &RecordType, json: &Map<String, Value>) -> String {
    if let Some(doc) = nfe_proc(json) {
        return doc;
    }
    let root = rt.name.trim_end_matches('s');
    let mut out = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<{root}>\n");
    for (k, v) in json {
        out.push_str(&format!("  <{k}>{}</{k}>\n", xml_escape(&scalar(v))));
    }
    out.push_str(&format!("</{root}>\n"));
    out
}

/// An authorised (or rejected, or canceled) NF-e as SEFAZ returns it: `nfeProc` with the signed
/// `NFe` (its `infNFe` identified by the access key) and the protocol `protNFe`, every value
/// taken from the record (number, series, issuer CNPJ and state, issue date, amount, status).
pub fn nfe_proc(json: &Map<String, Value>) -> Option<String> {
    let key = json.get("access_key").and_then(Value::as_str)?;
    if key.len() != 44 || !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let field = |k: &str| json.get(k).map(scalar).unwrap_or_default();
    let status = field("status");
    let (c_stat, motive) = match status.as_str() {
        "authorized" => ("100".to_string(), "Autorizado o uso da NF-e".to_string()),
        "canceled" => (
            "101".to_string(),
            "Cancelamento de NF-e homologado".to_string(),
        ),
        "rejected" => {
            let reason = field("rejection_reason");
            let (code, text) = reason.split_once(" - ").unwrap_or(("999", reason.as_str()));
            (code.trim().to_string(), text.trim().to_string())
        }
        _ => ("105".to_string(), "Lote em processamento".to_string()),
    };
    let amount = json
        .get("amount")
        .and_then(|v| {
            v.as_f64()
                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        })
        .unwrap_or(0.0);
    let received = ["authorized_at", "canceled_at", "issued_at", "created_at"]
        .iter()
        .map(|k| field(k))
        .find(|v| !v.is_empty())
        .unwrap_or_default();
    let x = |s: &str| xml_escape(s);
    Some(format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
<nfeProc xmlns=\"http://www.portalfiscal.inf.br/nfe\" versao=\"4.00\">\n\
  <NFe xmlns=\"http://www.portalfiscal.inf.br/nfe\">\n\
    <infNFe Id=\"NFe{key}\" versao=\"4.00\">\n\
      <ide><cUF>{uf}</cUF><cNF>{cnf}</cNF><natOp>Prestacao de servicos</natOp><mod>55</mod><serie>{serie}</serie><nNF>{nnf}</nNF><dhEmi>{dh}</dhEmi><tpNF>1</tpNF><tpEmis>1</tpEmis><cDV>{dv}</cDV></ide>\n\
      <emit><CNPJ>{cnpj}</CNPJ><enderEmit><UF>{state}</UF></enderEmit></emit>\n\
      <total><ICMSTot><vNF>{amount:.2}</vNF></ICMSTot></total>\n\
    </infNFe>\n\
  </NFe>\n\
  <protNFe versao=\"4.00\"><infProt><tpAmb>2</tpAmb><chNFe>{key}</chNFe><dhRecbto>{rec}</dhRecbto><cStat>{c_stat}</cStat><xMotivo>{motive}</xMotivo></infProt></protNFe>\n\
</nfeProc>\n",
        uf = &key[0..2],
        cnf = &key[35..43],
        serie = key[22..25].trim_start_matches('0').max("0"),
        nnf = key[25..34].trim_start_matches('0'),
        dh = x(&field("issued_at")),
        dv = &key[43..44],
        cnpj = &key[6..20],
        state = x(&field("issuer_state")),
        rec = x(&received),
        c_stat = x(&c_stat),
        motive = x(&motive),
    ))
}

fn text_body(rt: &RecordType, json: &Map<String, Value>) -> String {
    let mut out = format!("{}\n", rt.title);
    for (k, v) in json {
        out.push_str(&format!("{k}: {}\n", scalar(v)));
    }
    out
}

/// A PDF string literal's body: Latin-1 characters as octal escapes (the font uses
/// WinAnsiEncoding, which agrees with Latin-1 on them), so "Natália" prints as written; anything
/// beyond Latin-1 becomes `?`.
fn pdf_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '(' => out.push_str("\\("),
            ')' => out.push_str("\\)"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c if ('\u{a0}'..='\u{ff}').contains(&c) => out.push_str(&format!("\\{:03o}", c as u32)),
            _ => out.push('?'),
        }
    }
    out
}

/// Drawing operators for one page (PDF points, origin at the bottom left of an A4 page).
#[derive(Default)]
struct Page(String);

impl Page {
    fn text(&mut self, x: u32, y: u32, size: u32, bold: bool, s: &str) {
        let font = if bold { "F2" } else { "F1" };
        self.0.push_str(&format!(
            "BT /{font} {size} Tf {x} {y} Td ({}) Tj ET\n",
            pdf_escape(s)
        ));
    }
    fn boxed(&mut self, x: u32, y: u32, w: u32, h: u32) {
        self.0.push_str(&format!("{x} {y} {w} {h} re S\n"));
    }
    /// A labelled box: a small caption on top, the value below.
    fn field(&mut self, x: u32, y: u32, w: u32, label: &str, value: &str) {
        self.boxed(x, y, w, 26);
        self.text(x + 3, y + 18, 6, false, label);
        self.text(x + 3, y + 5, 9, true, value);
    }
}

/// An amount as the DANFE prints it: `R$ 1.234,50`.
fn brl(v: &Value) -> String {
    Locale::PtBr.money(v.as_f64().unwrap_or(0.0))
}

/// A date or timestamp's day as the DANFE prints it: `30/11/2026`.
fn br_date(v: &str) -> String {
    Locale::PtBr.date(v.get(0..10).unwrap_or(v))
}

/// A DANFE (the printed form of an NF-e), laid out in its usual boxes: the header with number
/// and series, the 44-digit access key in groups of four, the authorization protocol, the issuer,
/// the recipient, the totals, and a stamp when the NF-e has no fiscal value (canceled,
/// rejected, still processing).
fn danfe(json: &Map<String, Value>, key: &str) -> Page {
    let text = |k: &str| json.get(k).map(scalar).unwrap_or_default();
    let mut p = Page::default();
    p.boxed(30, 720, 535, 92);
    p.text(40, 790, 16, true, "DANFE");
    p.text(
        40,
        776,
        7,
        false,
        "Documento Auxiliar da Nota Fiscal Eletrônica",
    );
    p.text(40, 764, 7, false, "0 - ENTRADA   1 - SAÍDA   [1]");
    p.text(
        40,
        748,
        10,
        true,
        &format!("Nº {}   SÉRIE {}", text("number"), text("series")),
    );
    p.text(40, 734, 7, false, "FOLHA 1/1");
    let grouped: Vec<&str> = (0..11).filter_map(|i| key.get(i * 4..i * 4 + 4)).collect();
    p.field(250, 780, 310, "CHAVE DE ACESSO", &grouped.join(" "));
    p.text(
        250,
        760,
        7,
        false,
        "Consulta de autenticidade no portal nacional da NF-e",
    );
    p.text(
        250,
        750,
        7,
        false,
        "www.nfe.fazenda.gov.br/portal ou no site da Sefaz autorizadora",
    );
    let protocol = match text("authorized_at") {
        at if at.is_empty() => "-".to_string(),
        at => format!("{}  {}", key.get(0..15).unwrap_or_default(), br_date(&at)),
    };
    p.field(250, 722, 310, "PROTOCOLO DE AUTORIZAÇÃO DE USO", &protocol);

    p.text(30, 700, 8, true, "EMITENTE");
    p.field(
        30,
        670,
        260,
        "CNPJ",
        &brazil::format_cnpj(&text("issuer_cnpj")),
    );
    p.field(290, 670, 80, "UF", &text("issuer_state"));
    p.field(
        370,
        670,
        195,
        "DATA DA EMISSÃO",
        &br_date(&text("issued_at")),
    );

    p.text(30, 650, 8, true, "DESTINATÁRIO / REMETENTE");
    p.field(
        30,
        620,
        360,
        "IDENTIFICAÇÃO DO DESTINATÁRIO",
        &text("customer_id"),
    );
    p.field(390, 620, 175, "FATURA", &text("invoice_id"));

    p.text(30, 600, 8, true, "CÁLCULO DO IMPOSTO");
    p.field(
        30,
        570,
        180,
        "VALOR TOTAL DOS PRODUTOS",
        &brl(json.get("amount").unwrap_or(&Value::Null)),
    );
    p.field(210, 570, 175, "VALOR DO ICMS", &brl(&Value::from(0)));
    p.field(
        385,
        570,
        180,
        "VALOR TOTAL DA NOTA",
        &brl(json.get("amount").unwrap_or(&Value::Null)),
    );

    p.text(30, 550, 8, true, "DADOS ADICIONAIS");
    p.field(30, 520, 535, "SITUAÇÃO", &text("status"));
    let stamp = match text("status").as_str() {
        "canceled" | "cancelled" => Some("NF-e CANCELADA"),
        "rejected" => Some("SEM VALOR FISCAL - NF-e REJEITADA"),
        "processing" => Some("SEM VALOR FISCAL - EM PROCESSAMENTO"),
        _ => None,
    };
    if let Some(stamp) = stamp {
        p.text(120, 450, 22, true, stamp);
    }
    if let Some(reason) = json.get("rejection_reason").filter(|v| !v.is_null()) {
        p.text(30, 420, 8, false, &format!("Motivo: {}", scalar(reason)));
    }
    p
}

/// A record's page: its title, then one labelled line per field.
fn record_page(rt: &RecordType, json: &Map<String, Value>) -> Page {
    let mut p = Page::default();
    p.text(50, 800, 14, true, rt.title);
    p.boxed(40, 790, 515, 0);
    let mut y = 770;
    for (k, v) in json.iter().take(44) {
        p.text(50, y, 8, false, &k.replace('_', " "));
        p.text(200, y, 10, false, &scalar(v));
        y -= 16;
    }
    p
}

/// A valid one-page PDF showing the record: a DANFE for an NF-e (a record with a 44-digit
/// `access_key`), else the record's fields, labelled. Text is Latin-1 (Portuguese prints whole).
pub fn pdf(rt: &RecordType, json: &Map<String, Value>) -> Vec<u8> {
    let page = match json.get("access_key").and_then(Value::as_str) {
        Some(key) if key.len() == 44 && key.bytes().all(|b| b.is_ascii_digit()) => danfe(json, key),
        _ => record_page(rt, json),
    };
    let text = page.0;
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> /Contents 4 0 R >>".to_string(),
        format!("<< /Length {} >>\nstream\n{}endstream", text.len(), text),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_string(),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>".to_string(),
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
    fn generated_png_has_valid_chunk_checksums() {
        let png = png_1x1([1, 2, 3]);
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        // IHDR's CRC as any PNG decoder computes it (CRC-32 of "IHDR" + body).
        let ihdr = &png[12..29];
        let crc = u32::from_be_bytes([png[29], png[30], png[31], png[32]]);
        assert_eq!(crc32(ihdr), crc);
        // The CRC-32 check value of "123456789".
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert!(png.ends_with(&[0xae, 0x42, 0x60, 0x82]), "IEND's fixed CRC");
    }

    #[test]
    fn an_nfe_prints_as_a_danfe_with_its_key_issuer_and_total() {
        let rt = test_support::demo::PRODUCT.records[0].name;
        let rt = test_support::demo::PRODUCT
            .record(rt)
            .unwrap_or(&test_support::demo::PRODUCT.records[0]);
        let key = "43261135183775000124550010000000121000950288";
        let nfe: Map<String, Value> = serde_json::from_value(json!({
            "access_key": key, "number": 12, "series": "1", "issuer_cnpj": "35183775000124",
            "issuer_state": "RS", "amount": 1234.5, "status": "canceled",
            "issued_at": "2026-11-30T10:15:00-03:00", "customer_id": "c1", "invoice_id": "i1"
        }))
        .unwrap_or_default();
        let s = String::from_utf8_lossy(&pdf(rt, &nfe)).into_owned();
        assert!(s.contains("(DANFE)"), "{s}");
        assert!(
            s.contains("4326 1135 1837 7500 0124 5500 1000 0000 1210 0095 0288"),
            "{s}"
        );
        assert!(s.contains("35.183.775/0001-24"), "{s}");
        assert!(s.contains("R$ 1.234,50"), "{s}");
        assert!(s.contains("30/11/2026"), "{s}");
        assert!(s.contains("NF-e CANCELADA"), "{s}");
        // Latin-1 text as WinAnsi octal escapes: "SAÍDA".
        assert!(s.contains("SA\\315DA"), "{s}");
        assert!(s.trim_end().ends_with("%%EOF"));
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

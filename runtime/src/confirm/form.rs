//! The confirmation form a person reads, in their locale.
//!
//! The question names the action in words (the tool's title) and the record it touches (the
//! record type's title and the id the call names), shows each argument as a labelled field with
//! amounts and dates written the locale's way, and says why it asks in the product document's
//! terms (the tool's destructive clause). The tool's name and the argument names stay visible,
//! untranslated, so the person can match the form with what the model said.

use runtime_model::catalog::{Binding, BodyMode, HttpBinding, Operation, Product, Tool};
use runtime_model::locale::Locale;
use runtime_model::texts::Text;
use serde_json::{Map, Value};

/// The tool's title (its name when it has none) in `locale`.
pub fn action_title(product: &Product, tool: &'static Tool, locale: Locale) -> &'static str {
    let title = tool_index(product, tool)
        .and_then(|i| product.texts(locale).map(|t| t.tools[i].title))
        .unwrap_or(tool.title);
    if title.is_empty() {
        tool.name
    } else {
        title
    }
}

fn tool_index(product: &Product, tool: &Tool) -> Option<usize> {
    product.tools.iter().position(|t| t.name == tool.name)
}

/// The title of the boolean field and its description.
pub fn field(product: &Product, tool: &'static Tool, locale: Locale) -> (String, &'static str) {
    (
        format!(
            "{}: {}",
            Text::FormFieldTitle.get(locale),
            action_title(product, tool, locale)
        ),
        Text::FormFieldDescription.get(locale),
    )
}

/// The form's message. `notice` comes first (a replayed approval).
pub fn question(
    product: &Product,
    tool: &'static Tool,
    args: &Map<String, Value>,
    locale: Locale,
    notice: Option<&str>,
) -> String {
    let p = |t: Text| t.get(locale);
    let texts = tool_index(product, tool).and_then(|i| Some(&product.texts(locale)?.tools[i]));
    let mut text = String::new();
    if let Some(n) = notice {
        text.push_str(n);
        text.push_str("\n\n");
    }
    text.push_str(p(Text::FormAsk));
    text.push_str(&format!(
        "\n{}: {} ({})",
        p(Text::FormAction),
        action_title(product, tool, locale),
        tool.name
    ));
    if let Some(record) = record_line(product, tool, args, locale) {
        text.push_str(&format!("\n{}: {record}", p(Text::FormRecord)));
    }
    let clause = texts.map_or(tool.destructive_clause, |t| t.destructive_clause);
    if let Some(clause) = clause {
        let product_title = product.texts(locale).map_or(product.title, |t| t.title);
        let clause = clause.trim().trim_end_matches('.');
        text.push_str(&format!(
            "\n{} {product_title}, {} ({clause}).",
            p(Text::FormWhy),
            p(Text::FormWhyTail)
        ));
    }
    if args.is_empty() {
        text.push('\n');
        text.push_str(p(Text::FormNoFields));
        return text;
    }
    // An uploaded file is described, not pasted into the question.
    let shown = match &tool.binding {
        Binding::Http(HttpBinding {
            body: BodyMode::Multipart { files },
            ..
        }) => runtime_model::upload::abbreviate_files(files, args),
        _ => args.clone(),
    };
    // A credential (a connection's `client_secret`, a certificate's password) is never shown
    // back: the same rule keeps it out of the audit trail.
    let schema: Value = serde_json::from_str(tool.input_schema_json).unwrap_or(Value::Null);
    let shown = match runtime_model::secrets::redact_credentials(&schema, &shown) {
        Value::Object(m) => m,
        _ => shown,
    };
    text.push_str(&format!("\n{}:", p(Text::FormFields)));
    let labels = texts.map_or(&[][..], |t| t.labels);
    for (name, value) in &shown {
        let label = labels
            .iter()
            .find(|(a, _)| a == name)
            .map(|(_, l)| *l)
            .filter(|l| l != name);
        let value = show(name, value, locale);
        match label {
            Some(l) => text.push_str(&format!("\n• {l} ({name}): {value}")),
            None => text.push_str(&format!("\n• {name}: {value}")),
        }
    }
    text
}

/// "Boleto bancário `abc`", "new record of Boleto bancário", or nothing when the tool names no
/// record.
fn record_line(
    product: &Product,
    tool: &Tool,
    args: &Map<String, Value>,
    locale: Locale,
) -> Option<String> {
    let (record, id_arg) = match tool.operation {
        Operation::Get { record, id_arg }
        | Operation::GetWhere { record, id_arg, .. }
        | Operation::Update { record, id_arg }
        | Operation::Delete { record, id_arg }
        | Operation::Action { record, id_arg, .. } => (Some(record), Some(id_arg)),
        Operation::Create { record } => (Some(record), None),
        _ => (None, None),
    };
    let title = record.map(|r| record_title(product, r, locale));
    let id_arg = id_arg.or_else(|| {
        args.keys()
            .map(String::as_str)
            .find(|k| *k == "uid" || *k == "id" || k.ends_with("_uid") || k.ends_with("_id"))
            .and_then(|k| tool_arg_name(tool, k))
    });
    match (title, id_arg) {
        (Some(t), Some("")) => Some(format!("{t} — {}", Text::FormEveryRecord.get(locale))),
        (Some(t), Some(a)) => Some(match args.get(a) {
            Some(v) => format!("{t} {}", plain(v)),
            None => t,
        }),
        (Some(t), None) => Some(format!("{} {t}", Text::FormNewRecord.get(locale))),
        (None, Some(a)) => args.get(a).map(|v| format!("{a} {}", plain(v))),
        (None, None) => None,
    }
}

/// `k` as a `&'static str` when the tool's schema names it (so the record line can borrow it).
fn tool_arg_name(tool: &Tool, k: &str) -> Option<&'static str> {
    let needle = format!("\"{k}\"");
    let schema = tool.input_schema_json;
    schema
        .find(&needle)
        .map(|i| &schema[i + 1..i + 1 + k.len()])
}

fn record_title(product: &Product, record: &str, locale: Locale) -> String {
    let idx = product.records.iter().position(|r| r.name == record);
    let title = idx
        .and_then(|i| product.texts(locale).map(|t| t.records[i].title))
        .or_else(|| idx.map(|i| product.records[i].title))
        .unwrap_or(record);
    if title.is_empty() {
        record.to_string()
    } else {
        title.to_string()
    }
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether an argument holds money: Kobana's amounts are `amount`, `value`, `price`, `total`
/// and their `*_amount`/`*_value`/`*_price` forms (plus fines, interest and discounts in reais).
fn is_money(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["amount", "value", "price", "total", "balance"]
        .iter()
        .any(|m| n == *m || n.ends_with(&format!("_{m}")) || n.starts_with(&format!("{m}_")))
}

/// One argument's value as the person reads it.
fn show(name: &str, v: &Value, locale: Locale) -> String {
    match v {
        Value::Number(n) if is_money(name) => n
            .as_f64()
            .map_or_else(|| n.to_string(), |f| locale.money(f)),
        Value::String(s) if is_money(name) && s.trim().parse::<f64>().is_ok() => {
            locale.money(s.trim().parse().unwrap_or_default())
        }
        Value::String(s) => {
            let date = locale.date(s);
            if date != *s {
                return date;
            }
            let dt = locale.datetime(s);
            if dt != *s {
                return dt;
            }
            s.clone()
        }
        Value::Bool(true) => Text::FormYes.get(locale).to_string(),
        Value::Bool(false) => Text::FormNo.get(locale).to_string(),
        other => other.to_string(),
    }
}

/// What a declined, cancelled or unconfirmed form is told, in `locale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The person said no (`decline`).
    Declined,
    /// The person dismissed the form without answering (`cancel`).
    Cancelled,
    /// The form was sent without the confirmation ticked (`accept` without `confirm: true`).
    NotConfirmed,
}

impl Refusal {
    pub fn message(self, locale: Locale) -> &'static str {
        use runtime_model::errors::USER_DECLINED;
        match self {
            Refusal::Declined => USER_DECLINED.message_in(locale),
            Refusal::Cancelled => Text::FormCancelled.get(locale),
            Refusal::NotConfirmed => Text::FormNotConfirmed.get(locale),
        }
    }
}

/// What a replay is told about the first use of its confirmation. Never "confirm again" for a
/// call that may have run.
pub fn replay_outcome(state: &str, locale: Locale) -> &'static str {
    match state {
        "ran" => Text::ReplayRan,
        "failed" => Text::ReplayFailed,
        "replayed" => Text::ReplayReplayed,
        "unknown" => Text::ReplayUnknown,
        _ => Text::ReplayUnrecorded,
    }
    .get(locale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_written_the_locales_way() {
        assert_eq!(
            show("amount", &serde_json::json!(1234.56), Locale::PtBr),
            "R$ 1.234,56"
        );
        assert_eq!(
            show("amount", &serde_json::json!(1234.56), Locale::En),
            "R$1,234.56"
        );
        assert_eq!(
            show("expire_at", &serde_json::json!("2026-12-01"), Locale::PtBr),
            "01/12/2026"
        );
        assert_eq!(
            show("expire_at", &serde_json::json!("2026-12-01"), Locale::Es),
            "01/12/2026"
        );
        assert_eq!(show("kind", &serde_json::json!("pix"), Locale::Es), "pix");
        assert_eq!(show("quantity", &serde_json::json!(3), Locale::PtBr), "3");
        assert_eq!(
            show("notify", &serde_json::json!(true), Locale::PtBr),
            "sim"
        );
    }

    #[test]
    fn credentials_are_hidden_in_the_question() {
        let product = generated::product("banking").expect("banking");
        let tool = product
            .tool("banking_admin_connection_create")
            .expect("the connection tool");
        let args = serde_json::json!({"provider_slug": "itau", "credentials": {"client_id": "cid", "client_secret": "s3cr3t-value"}});
        let q = question(
            product,
            tool,
            args.as_object().expect("object"),
            Locale::PtBr,
            None,
        );
        assert!(!q.contains("s3cr3t-value"), "{q}");
        assert!(q.contains(runtime_model::secrets::REDACTED), "{q}");
        assert!(q.contains("cid"), "{q}");
    }

    #[test]
    fn decline_and_cancel_say_different_things() {
        for l in Locale::ALL {
            let d = Refusal::Declined.message(l);
            let c = Refusal::Cancelled.message(l);
            let n = Refusal::NotConfirmed.message(l);
            assert!(d != c && c != n && d != n, "{l}");
        }
    }
}

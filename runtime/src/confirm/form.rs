//! The confirmation form a person reads, in their locale.
//!
//! The question names the action in words (the tool's title) and the record it touches (the
//! record type's title and the id the call names), then what a person recognises that record by
//! (its facts, read before asking and declared in the catalog's `confirmation:` section: a
//! billet's payer, amount, due date, status), says why it asks in plain words, and shows each
//! argument as a labelled field with amounts and dates written the locale's way and documented
//! codes with their label. The tool's name and the argument names stay visible, untranslated, so
//! the person can match the form with what the model said. Secrets are never shown.

use runtime_model::catalog::{Binding, BodyMode, HttpBinding, Operation, Product, Tool};
use runtime_model::locale::Locale;
use runtime_model::record_facts::{self, RecordFacts};
use runtime_model::secrets::REDACTED;
use runtime_model::texts::Text;
use serde_json::{Map, Value};

use super::facts::{Looked, Referenced, References};

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

/// The form's message. `notice` comes first (a replayed approval); `looked` is what the read of
/// the record found ([`super::facts::look`]): its facts come right under the record's line, then
/// the reason in plain words, then the tool's arguments as the model chose them, labelled. An
/// update shows each changed field's value before and after (a webhook's old and new URL).
pub fn question(
    product: &Product,
    tool: &'static Tool,
    args: &Map<String, Value>,
    locale: Locale,
    notice: Option<&str>,
    looked: &Looked,
    refs: &References,
) -> String {
    let p = |t: Text| t.get(locale);
    let texts = tool_index(product, tool).and_then(|i| Some(&product.texts(locale)?.tools[i]));
    let mut text = String::new();
    if let Some(n) = notice {
        text.push_str(n);
        text.push_str("\n\n");
    }
    text.push_str(p(Text::FormAsk));
    let action = action_title(product, tool, locale);
    text.push_str(&format!(
        "\n{}: {action} ({})",
        p(Text::FormAction),
        tool.name
    ));
    if let Some(record) = record_line(product, tool, args, locale) {
        text.push_str(&format!("\n{}: {record}", p(Text::FormRecord)));
    }
    let schema: Value = serde_json::from_str(tool.input_schema_json).unwrap_or(Value::Null);
    let facts = tool.record_type().and_then(|r| product.facts_of(r));
    if let Looked::Unread = looked {
        text.push('\n');
        text.push_str(p(Text::FormFactsUnread));
    } else if let (Some(facts), Some(record)) = (facts, facts_source(tool, args, looked)) {
        for line in fact_lines(facts, &record, locale, refs) {
            text.push_str(&format!("\n• {line}"));
        }
    }
    text.push('\n');
    // An update is the change of where data or money goes (a webhook's URL, an account's bank
    // details: the documents' own reason to ask), which another update can undo; the rest
    // (cancel, pay, delete, transfer) cannot be undone.
    let why = if matches!(tool.operation, Operation::Update { .. }) {
        Text::FormWhyUpdate
    } else {
        Text::FormWhy
    };
    text.push_str(&why.fill(locale, &[("action", &action)]));
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
    // A secret (a connection's `client_secret`, a private key) is never shown back: the same rule
    // keeps it out of the audit trail and the logs (`runtime_model::secrets`).
    let shown = hidden(&schema, &shown);
    let before = match (looked, tool.operation) {
        (Looked::Record(r), Operation::Update { .. }) => Some(r),
        _ => None,
    };
    let localized: Value = texts
        .and_then(|t| serde_json::from_str(t.descriptor_json).ok())
        .unwrap_or(Value::Null);
    let props = localized
        .pointer("/inputSchema/properties")
        .or_else(|| schema.get("properties"));
    text.push_str(&format!("\n{}:", p(Text::FormFields)));
    let labels = texts.map_or(&[][..], |t| t.labels);
    for (name, value) in &shown {
        let label = labels
            .iter()
            .find(|(a, _)| a == name)
            .map(|(_, l)| *l)
            .filter(|l| l != name);
        let prop = props.and_then(|p| p.get(name));
        let mut value = show_labelled(name, value, prop, locale, labels);
        if let Some(old) = before.and_then(|r| r.get(name)).filter(|o| !o.is_null()) {
            let old = hidden_value(&schema, name, old);
            let old = show_labelled(name, &old, prop, locale, labels);
            if old != value {
                value = format!("{old} → {value}");
            }
        }
        match label {
            Some(l) => text.push_str(&format!("\n• {l} ({name}): {value}")),
            None => text.push_str(&format!("\n• {name}: {value}")),
        }
    }
    text
}

/// The record the question's facts are read from: the record read, or a create's arguments
/// (a new record's facts are the arguments that give them, secrets hidden); `None` otherwise.
pub fn facts_source(tool: &Tool, args: &Map<String, Value>, looked: &Looked) -> Option<Value> {
    match looked {
        Looked::Record(record) => Some(record.clone()),
        Looked::Nothing if matches!(tool.operation, Operation::Create { .. }) => {
            let schema: Value = serde_json::from_str(tool.input_schema_json).unwrap_or(Value::Null);
            Some(Value::Object(flattened(hidden(&schema, args))))
        }
        _ => None,
    }
}

/// The record's facts, one `Label: value` line each, in `locale`; facts the record has no value
/// for are left out. A reference to another record shows that record's name with the id beside
/// it, as `refs` read it, or the id and why it has no name.
pub fn fact_lines(
    facts: &RecordFacts,
    record: &Value,
    locale: Locale,
    refs: &References,
) -> Vec<String> {
    let yes_no = (Text::FormYes.get(locale), Text::FormNo.get(locale));
    facts
        .facts
        .iter()
        .filter_map(|f| {
            let v = record_facts::field_value(record, f.field)?;
            let shown = if v.as_str() == Some(REDACTED) {
                Text::FormHidden.get(locale).to_string()
            } else {
                let shown = f.show(v, locale, yes_no)?;
                match f.reference.and_then(|(target, _)| refs.get(target, v)) {
                    Some(Referenced::Named(name)) => format!("{name} ({shown})"),
                    Some(Referenced::NotFound) => {
                        Text::FormReferenceMissing.fill(locale, &[("id", &shown)])
                    }
                    Some(Referenced::Unread) => {
                        Text::FormReferenceUnread.fill(locale, &[("id", &shown)])
                    }
                    None => shown,
                }
            };
            Some(format!("{}: {shown}", f.label(locale)))
        })
        .collect()
}

/// A create's arguments as the record they make: an object argument's members also under the
/// record's flat names (`beneficiary.name` gives `beneficiary_name`), so the record type's facts
/// find them.
fn flattened(mut args: Map<String, Value>) -> Map<String, Value> {
    let nested: Vec<(String, Value)> = args
        .iter()
        .filter_map(|(k, v)| v.as_object().map(|m| (k, m)))
        .flat_map(|(k, m)| {
            m.iter()
                .map(move |(mk, mv)| (format!("{k}_{mk}"), mv.clone()))
        })
        .collect();
    for (k, v) in nested {
        args.entry(k).or_insert(v);
    }
    args
}

/// The arguments with every secret replaced ([`runtime_model::secrets::redact_credentials`]).
fn hidden(schema: &Value, args: &Map<String, Value>) -> Map<String, Value> {
    match runtime_model::secrets::redact_credentials(schema, args) {
        Value::Object(m) => m,
        _ => args.clone(),
    }
}

/// One value under the same rule as its argument `name`.
fn hidden_value(schema: &Value, name: &str, v: &Value) -> Value {
    let mut one = Map::new();
    one.insert(name.to_string(), v.clone());
    hidden(schema, &one).remove(name).unwrap_or(Value::Null)
}

/// One argument's value as the person reads it, with the label its schema documents for it
/// (`4 — Erro operacional`) and a hidden secret said so in words.
fn show_labelled(
    name: &str,
    v: &Value,
    prop: Option<&Value>,
    locale: Locale,
    labels: &[(&str, &str)],
) -> String {
    in_words(name, name, v, prop, locale, labels)
}

/// A value in words: an object (a Pix transfer's `beneficiary`) as `label: value` pairs (each
/// part's label from `labels`, by its path `beneficiary.name`; its key when it has none) and a
/// list as its items, each written the locale's way ([`show`]), never as JSON; a secret inside
/// (`credentials.client_secret`) is said hidden. A value the schema (`prop`, the part's own
/// inside an object) documents gets its label (a bank's code: `237 — Bradesco`).
fn in_words(
    name: &str,
    path: &str,
    v: &Value,
    prop: Option<&Value>,
    locale: Locale,
    labels: &[(&str, &str)],
) -> String {
    match v {
        Value::String(s) if s == REDACTED => Text::FormHidden.get(locale).to_string(),
        Value::Object(m) if !m.is_empty() => m
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| {
                let path = format!("{path}.{k}");
                let label = labels
                    .iter()
                    .find(|(a, _)| *a == path)
                    .map_or(k.as_str(), |(_, l)| *l);
                let part = prop
                    .and_then(|p| p.get("properties"))
                    .and_then(|p| p.get(k));
                let words = in_words(k, &path, v, part, locale, labels);
                match v {
                    Value::Object(_) => format!("{label} ({words})"),
                    _ => format!("{label}: {words}"),
                }
            })
            .collect::<Vec<_>>()
            .join("; "),
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .map(|i| {
                in_words(
                    name,
                    path,
                    i,
                    prop.and_then(|p| p.get("items")),
                    locale,
                    labels,
                )
            })
            .collect::<Vec<_>>()
            .join(", "),
        _ => {
            let shown = show(name, v, locale);
            let documented = prop
                .and_then(|p| p.get("description"))
                .and_then(Value::as_str)
                .and_then(|d| documented_label(d, &plain(v)));
            match documented {
                Some(label) => format!("{shown} — {label}"),
                None => shown,
            }
        }
    }
}

/// The label a description gives a value in the API documents' list form (`* \`4\` Erro
/// operacional * \`5\` …`), when it gives one.
pub fn documented_label(description: &str, value: &str) -> Option<String> {
    if value.is_empty() {
        return None;
    }
    let needle = format!("`{value}`");
    let at = description.find(&needle)?;
    let rest = &description[at + needle.len()..];
    let end = rest.find(['*', '`', '\n', ';']).unwrap_or(rest.len());
    let label = rest[..end]
        .trim()
        .trim_start_matches([':', '-', '—', '='])
        .trim()
        .trim_end_matches(['.', ',', ':'])
        .trim();
    // `237` (Bradesco): the label in parentheses.
    let label = label
        .strip_prefix('(')
        .and_then(|l| l.strip_suffix(')'))
        .filter(|l| !l.contains(['(', ')']))
        .unwrap_or(label)
        .trim();
    (!label.is_empty() && label.chars().count() <= 60).then(|| label.to_string())
}

/// The error for a call whose record cannot be acted on, in `locale`: missing or out of reach
/// (`not_found`), or in a state the action cannot leave (`invalid_state`). `None` otherwise.
pub fn refusal(
    product: &Product,
    tool: &'static Tool,
    args: &Map<String, Value>,
    locale: Locale,
    looked: &Looked,
) -> Option<(runtime_model::errors::AppError, String)> {
    use runtime_model::errors::{INVALID_STATE_TRANSITION, NOT_FOUND};
    let (record, id_arg, _) = tool.touched_record()?;
    let title = record_title(product, record, locale);
    let id = args.get(id_arg).map(plain).unwrap_or_default();
    match looked {
        Looked::NotFound => Some((
            NOT_FOUND,
            Text::ConfirmNotFound.fill(locale, &[("record", &title), ("id", &id)]),
        )),
        Looked::Terminal { state } => {
            let state = product
                .facts_of(record)
                .map_or_else(|| state.clone(), |f| f.state_label(state, locale));
            let action = action_title(product, tool, locale);
            Some((
                INVALID_STATE_TRANSITION,
                Text::ConfirmTerminal.fill(
                    locale,
                    &[
                        ("record", &title as &dyn std::fmt::Display),
                        ("id", &id),
                        ("state", &state),
                        ("action", &action),
                    ],
                ),
            ))
        }
        _ => None,
    }
}

/// "Boleto bancário `abc`", or nothing when the tool names no existing record (a create: the
/// action's own words, "Criar uma transferência Pix", say what it makes).
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
        // A create names no existing record, nor its type (the action's title does).
        _ => (None, None),
    };
    let title = record.map(|r| record_title(product, r, locale));
    // Nor does a create name an id-like argument (its `*_uid` arguments are other records it
    // uses).
    let creates = matches!(tool.operation, Operation::Create { .. });
    let id_arg = id_arg.or_else(|| {
        if creates {
            return None;
        }
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
        (None, Some(a)) => args.get(a).map(|v| format!("{a} {}", plain(v))),
        (_, None) => None,
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

pub(crate) fn record_title(product: &Product, record: &str, locale: Locale) -> String {
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

/// Whether an argument holds a CPF or CNPJ (`document_number`, `cnpj_cpf`, `*_cnpj_cpf`).
fn is_document(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "document_number" || n.ends_with("cnpj_cpf") || n == "cpf" || n == "cnpj"
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
        Value::String(s) if is_document(name) => record_facts::document(s),
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
            &Looked::Nothing,
            &References::default(),
        );
        assert!(!q.contains("s3cr3t-value"), "{q}");
        assert!(q.contains(Text::FormHidden.get(Locale::PtBr)), "{q}");
        assert!(q.contains("cid"), "{q}");
    }

    #[test]
    fn an_object_argument_is_written_in_words() {
        let product = generated::product("banking").expect("banking");
        let tool = product
            .tool("banking_transfer_pix_create")
            .expect("the Pix transfer");
        let args = serde_json::json!({"amount": 1500.5, "financial_account_uid": "fa-1",
            "type": "key", "key_type": "email", "key": "maria@example.com",
            "beneficiary": {"name": "Maria Souza", "document_number": "12345678909"}});
        let q = question(
            product,
            tool,
            args.as_object().expect("object"),
            Locale::PtBr,
            None,
            &Looked::Nothing,
            &References::default(),
        );
        assert!(!q.contains('{') && !q.contains('"'), "{q}");
        // The parts by their labels, in the question's language, not their keys.
        assert!(
            q.contains("Nome Completo ou Razão Social: Maria Souza"),
            "{q}"
        );
        assert!(q.contains("Número do Documento: 123.456.789-09"), "{q}");
        assert!(!q.contains("document_number:"), "{q}");
        assert!(q.contains("R$ 1.500,50"), "{q}");
        assert!(q.contains("• Favorecido: Maria Souza"), "{q}");
    }

    /// An update changes where data or money goes and says so; it is not called irreversible,
    /// which a delete is (the questions read in issue 35's closing note).
    #[test]
    fn the_reason_to_ask_fits_the_action() {
        let product = generated::product("banking").expect("banking");
        let ask = |name: &str, args: serde_json::Value, locale: Locale| {
            let tool = product.tool(name).expect("the tool");
            question(
                product,
                tool,
                args.as_object().expect("object"),
                locale,
                None,
                &Looked::Nothing,
                &References::default(),
            )
        };
        for locale in Locale::ALL {
            let update = ask(
                "banking_data_webhook_update",
                serde_json::json!({"id": 60, "url": "https://hooks.example.com/new"}),
                locale,
            );
            let delete = ask(
                "banking_data_webhook_delete",
                serde_json::json!({"id": 60}),
                locale,
            );
            let reason = |q: &str| {
                q.lines()
                    .find(|l| {
                        l.starts_with(Text::FormWhy.get(locale).split(':').next().unwrap_or(""))
                    })
                    .unwrap_or_default()
                    .to_string()
            };
            let (u, d) = (reason(&update), reason(&delete));
            assert!(!u.is_empty() && !d.is_empty(), "{update}\n{delete}");
            let irreversible = Text::FormWhy
                .get(locale)
                .split("{action}")
                .last()
                .unwrap_or("");
            let redirect = Text::FormWhyUpdate
                .get(locale)
                .split("{action}")
                .last()
                .unwrap_or("");
            assert!(u.ends_with(redirect), "{locale}: {u}");
            assert!(!u.ends_with(irreversible), "{locale}: {u}");
            assert!(d.ends_with(irreversible), "{locale}: {d}");
        }
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

#[cfg(test)]
#[path = "form_tests.rs"]
mod rule_tests;

//! The confirmation form a person reads, in their locale.
//!
//! The question names the action in words (the tool's title) and the record it touches (the
//! record type's title and the id the call names), shows each argument as a labelled field with
//! amounts and dates written the locale's way, and says why it asks in the product document's
//! terms (the tool's destructive clause). The tool's name and the argument names stay visible,
//! untranslated, so the person can match the form with what the model said.

use runtime_model::catalog::{Binding, BodyMode, HttpBinding, Operation, Product, Tool};
use runtime_model::locale::Locale;
use serde_json::{Map, Value};

/// The phrases of the form, per locale.
struct Phrases {
    ask: &'static str,
    action: &'static str,
    record: &'static str,
    new_record: &'static str,
    every_record: &'static str,
    why: &'static str,
    why_tail: &'static str,
    fields: &'static str,
    no_fields: &'static str,
    yes: &'static str,
    no: &'static str,
    field_title: &'static str,
    field_description: &'static str,
}

const PT_BR: Phrases = Phrases {
    ask: "Você confirma esta ação?",
    action: "Ação",
    record: "Registro",
    new_record: "novo registro de",
    every_record: "todos os registros selecionados pelos dados abaixo",
    why: "Por que pedimos confirmação: segundo a documentação do",
    why_tail: "esta ação é destrutiva",
    fields: "Dados",
    no_fields: "Dados: nenhum",
    yes: "sim",
    no: "não",
    field_title: "Executar",
    field_description:
        "Sim executa a ação uma única vez, com os dados mostrados; não deixa tudo como está.",
};

const ES: Phrases = Phrases {
    ask: "¿Confirmas esta acción?",
    action: "Acción",
    record: "Registro",
    new_record: "nuevo registro de",
    every_record: "todos los registros que seleccionan los datos de abajo",
    why: "Por qué pedimos confirmación: según la documentación de",
    why_tail: "esta acción es destructiva",
    fields: "Datos",
    no_fields: "Datos: ninguno",
    yes: "sí",
    no: "no",
    field_title: "Ejecutar",
    field_description:
        "Sí ejecuta la acción una sola vez, con los datos mostrados; no deja todo como está.",
};

const EN: Phrases = Phrases {
    ask: "Do you confirm this action?",
    action: "Action",
    record: "Record",
    new_record: "new record of",
    every_record: "every record the details below select",
    why: "Why we ask: according to the documentation of",
    why_tail: "this action is destructive",
    fields: "Details",
    no_fields: "Details: none",
    yes: "yes",
    no: "no",
    field_title: "Run",
    field_description:
        "Yes runs the action once, with the details shown; no leaves everything as it is.",
};

fn phrases(locale: Locale) -> &'static Phrases {
    match locale {
        Locale::PtBr => &PT_BR,
        Locale::Es => &ES,
        Locale::En => &EN,
    }
}

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
    let p = phrases(locale);
    (
        format!("{}: {}", p.field_title, action_title(product, tool, locale)),
        p.field_description,
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
    let p = phrases(locale);
    let texts = tool_index(product, tool).and_then(|i| Some(&product.texts(locale)?.tools[i]));
    let mut text = String::new();
    if let Some(n) = notice {
        text.push_str(n);
        text.push_str("\n\n");
    }
    text.push_str(p.ask);
    text.push_str(&format!(
        "\n{}: {} ({})",
        p.action,
        action_title(product, tool, locale),
        tool.name
    ));
    if let Some(record) = record_line(product, tool, args, locale) {
        text.push_str(&format!("\n{}: {record}", p.record));
    }
    let clause = texts.map_or(tool.destructive_clause, |t| t.destructive_clause);
    if let Some(clause) = clause {
        let product_title = product.texts(locale).map_or(product.title, |t| t.title);
        let clause = clause.trim().trim_end_matches('.');
        text.push_str(&format!(
            "\n{} {product_title}, {} ({clause}).",
            p.why, p.why_tail
        ));
    }
    if args.is_empty() {
        text.push('\n');
        text.push_str(p.no_fields);
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
    text.push_str(&format!("\n{}:", p.fields));
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
    let p = phrases(locale);
    match (title, id_arg) {
        (Some(t), Some("")) => Some(format!("{t} — {}", p.every_record)),
        (Some(t), Some(a)) => Some(match args.get(a) {
            Some(v) => format!("{t} {}", plain(v)),
            None => t,
        }),
        (Some(t), None) => Some(format!("{} {t}", p.new_record)),
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
    let p = phrases(locale);
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
        Value::Bool(true) => p.yes.to_string(),
        Value::Bool(false) => p.no.to_string(),
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
        match (self, locale) {
            (Refusal::Declined, l) => USER_DECLINED.message_in(l),
            (Refusal::Cancelled, Locale::PtBr) => {
                "Você cancelou o pedido de confirmação sem responder; nada foi alterado"
            }
            (Refusal::Cancelled, Locale::Es) => {
                "Cancelaste la solicitud de confirmación sin responder; no se cambió nada"
            }
            (Refusal::Cancelled, Locale::En) => {
                "You cancelled the confirmation request without answering; nothing was changed"
            }
            (Refusal::NotConfirmed, Locale::PtBr) => {
                "Você enviou o formulário sem marcar a confirmação; nada foi alterado"
            }
            (Refusal::NotConfirmed, Locale::Es) => {
                "Enviaste el formulario sin marcar la confirmación; no se cambió nada"
            }
            (Refusal::NotConfirmed, Locale::En) => {
                "You sent the form without ticking the confirmation; nothing was changed"
            }
        }
    }
}

/// What a replay is told about the first use of its confirmation. Never "confirm again" for a
/// call that may have run.
pub fn replay_outcome(state: &str, locale: Locale) -> &'static str {
    match (state, locale) {
        ("ran", Locale::En) => "The action ran once with it (its result was returned then); read the record to see it.",
        ("ran", Locale::PtBr) => "A ação foi executada uma vez com ela (o resultado foi devolvido naquele momento); consulte o registro para vê-lo.",
        ("ran", Locale::Es) => "La acción se ejecutó una vez con ella (su resultado se devolvió en ese momento); consulta el registro para verlo.",
        ("failed", Locale::En) => "The Kobana API refused the action then, so nothing changed.",
        ("failed", Locale::PtBr) => "A API da Kobana recusou a ação naquele momento, então nada mudou.",
        ("failed", Locale::Es) => "La API de Kobana rechazó la acción en ese momento, así que no cambió nada.",
        ("replayed", Locale::En) => "The Kobana API answered it with the result of an earlier identical call, so nothing new ran then.",
        ("replayed", Locale::PtBr) => "A API da Kobana respondeu com o resultado de uma chamada idêntica anterior, então nada novo foi executado naquele momento.",
        ("replayed", Locale::Es) => "La API de Kobana respondió con el resultado de una llamada idéntica anterior, así que no se ejecutó nada nuevo en ese momento.",
        ("unknown", Locale::En) => "The outcome of that call is unknown: the action may have run. Check the record (list or get it) first; running the same call again within the idempotency window sends the same idempotency key, so the API answers the first result instead of running it twice.",
        ("unknown", Locale::PtBr) => "O resultado daquela chamada é desconhecido: a ação pode ter sido executada. Confira o registro (liste-o ou consulte-o) primeiro; repetir a mesma chamada dentro da janela de idempotência envia a mesma chave de idempotência, e a API devolve o primeiro resultado em vez de executar duas vezes.",
        ("unknown", Locale::Es) => "El resultado de esa llamada es desconocido: puede que la acción se haya ejecutado. Revisa primero el registro (lístalo o consúltalo); repetir la misma llamada dentro de la ventana de idempotencia envía la misma clave de idempotencia, así que la API responde con el primer resultado en lugar de ejecutarla dos veces.",
        (_, Locale::En) => "This server has no recorded outcome for it (the call may still be running, or was interrupted): the action may have run. Check the record (list or get it) first; running the same call again within the idempotency window sends the same idempotency key, so the API answers the first result instead of running it twice.",
        (_, Locale::PtBr) => "Este servidor não tem um resultado registrado para ela (a chamada pode ainda estar em execução, ou foi interrompida): a ação pode ter sido executada. Confira o registro (liste-o ou consulte-o) primeiro; repetir a mesma chamada dentro da janela de idempotência envia a mesma chave de idempotência, e a API devolve o primeiro resultado em vez de executar duas vezes.",
        (_, Locale::Es) => "Este servidor no tiene un resultado registrado para ella (puede que la llamada siga en curso, o se interrumpió): puede que la acción se haya ejecutado. Revisa primero el registro (lístalo o consúltalo); repetir la misma llamada dentro de la ventana de idempotencia envía la misma clave de idempotencia, así que la API responde con el primer resultado en lugar de ejecutarla dos veces.",
    }
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

//! What a person recognises a record by: the facts a confirmation question shows before asking
//! (a billet's payer, amount, due date, status), and the states an action cannot leave.
//!
//! Declared once per record type in the catalog's `confirmation:` section, checked and compiled
//! by the generator (`codegen/src/confirmation.rs`), which refuses a destructive tool whose
//! record type declares no facts. The runtime reads the record before it asks
//! (`runtime/src/confirm/gate.rs`) and writes each fact the locale's way here, so the form and
//! its tests format a value one way.

use serde_json::Value;

use crate::locale::Locale;

/// A word in each locale, in [`Locale::ALL`] order.
pub type Words = [&'static str; 3];

/// The facts of one record type.
#[derive(Debug)]
pub struct RecordFacts {
    /// The record type's storage name (`charge_bank_billets`).
    pub record: &'static str,
    /// In the order the question shows them.
    pub facts: &'static [Fact],
    /// The field holding the record's state (`status`); empty when it has none.
    pub state_field: &'static str,
    /// Per action (an action's name, or `delete` / `update`): the states in which it cannot run
    /// (a cancelled billet cannot be cancelled or paid).
    pub terminal: &'static [(&'static str, &'static [&'static str])],
}

/// One fact: a field of the record, its label and how it is written.
#[derive(Debug)]
pub struct Fact {
    /// The record's field (a dotted path reads inside an object: `beneficiary.name`).
    pub field: &'static str,
    pub kind: FactKind,
    pub label: Words,
    /// Labels of the field's values (a status's), when it has documented values.
    pub values: &'static [(&'static str, Words)],
    /// A [`FactKind::Ref`]'s record type and the field of it a person knows a record by
    /// (`("financial_accounts", "name")`): the confirmation reads that record for the caller.
    pub reference: Option<(&'static str, &'static str)>,
}

/// How a fact's value is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactKind {
    /// As it is.
    Text,
    /// An amount in BRL, the locale's way (`R$ 1.234,56`).
    Money,
    /// A date or a timestamp, the locale's way (`01/12/2026`).
    Date,
    /// A CPF or CNPJ with its punctuation (`123.456.789-09`, `12.345.678/0001-90`).
    Document,
    /// A value with a label per documented value (a status).
    Status,
    /// A yes/no, in words.
    Flag,
    /// The id of another record, shown by that record's name with the id beside it (the
    /// question reads it; alone, the id as it is).
    Ref,
}

impl Fact {
    pub fn label(&self, locale: Locale) -> &'static str {
        self.label[locale.index()]
    }

    /// The label of one of the field's documented values.
    pub fn value_label(&self, value: &str, locale: Locale) -> Option<&'static str> {
        self.values
            .iter()
            .find(|(v, _)| *v == value)
            .map(|(_, w)| w[locale.index()])
    }

    /// The value as the person reads it; `None` when the record has no value for it.
    pub fn show(&self, v: &Value, locale: Locale, yes_no: (&str, &str)) -> Option<String> {
        let text = match v {
            Value::Null => return None,
            Value::String(s) if s.trim().is_empty() => return None,
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        Some(match (self.kind, v) {
            (FactKind::Money, Value::Number(n)) => n.as_f64().map_or(text, |f| locale.money(f)),
            (FactKind::Money, Value::String(s)) => {
                s.trim().parse::<f64>().map_or(text, |f| locale.money(f))
            }
            (FactKind::Date, Value::String(s)) => {
                let d = locale.date(s);
                if d != *s {
                    d
                } else {
                    locale.datetime(s)
                }
            }
            (FactKind::Document, Value::String(s)) => document(s),
            (FactKind::Flag, Value::Bool(b)) => (if *b { yes_no.0 } else { yes_no.1 }).to_string(),
            (FactKind::Status, _) | (FactKind::Text, _) => match self.value_label(&text, locale) {
                Some(l) => l.to_string(),
                None => text,
            },
            _ => text,
        })
    }
}

impl RecordFacts {
    /// The states in which `action` cannot run.
    pub fn terminal_for(&self, action: &str) -> &'static [&'static str] {
        self.terminal
            .iter()
            .find(|(a, _)| *a == action)
            .map_or(&[][..], |(_, s)| *s)
    }

    /// The label of a state, in `locale` (the state field's fact's value label), or the state.
    pub fn state_label(&self, state: &str, locale: Locale) -> String {
        self.facts
            .iter()
            .find(|f| f.field == self.state_field)
            .and_then(|f| f.value_label(state, locale))
            .unwrap_or(state)
            .to_string()
    }
}

/// The value at a dotted path of a record.
pub fn field_value<'v>(record: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(record, |v, k| v.get(k))
}

/// A CPF (11 digits) or CNPJ (14 digits) with its punctuation; anything else as it is.
pub fn document(s: &str) -> String {
    let digits: String = s.chars().filter(char::is_ascii_digit).collect();
    let only_punct = s
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '/' | ' '));
    if !only_punct {
        return s.to_string();
    }
    match digits.len() {
        11 => format!(
            "{}.{}.{}-{}",
            &digits[..3],
            &digits[3..6],
            &digits[6..9],
            &digits[9..]
        ),
        14 => format!(
            "{}.{}.{}/{}-{}",
            &digits[..2],
            &digits[2..5],
            &digits[5..8],
            &digits[8..12],
            &digits[12..]
        ),
        _ => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const STATUS: Fact = Fact {
        field: "status",
        kind: FactKind::Status,
        label: ["Situação", "Estado", "Status"],
        values: &[("canceled", ["Cancelado", "Cancelado", "Cancelled"])],
        reference: None,
    };

    #[test]
    fn facts_are_written_the_locales_way() {
        let money = Fact {
            field: "amount",
            kind: FactKind::Money,
            label: ["Valor", "Importe", "Amount"],
            values: &[],
            reference: None,
        };
        let yn = ("sim", "não");
        assert_eq!(
            money.show(&json!(1234.5), Locale::PtBr, yn).as_deref(),
            Some("R$ 1.234,50")
        );
        assert_eq!(
            money.show(&json!("10.00"), Locale::En, yn).as_deref(),
            Some("R$10.00")
        );
        assert_eq!(money.show(&Value::Null, Locale::En, yn), None);
        assert_eq!(
            STATUS.show(&json!("canceled"), Locale::Es, yn).as_deref(),
            Some("Cancelado")
        );
        assert_eq!(
            STATUS.show(&json!("canceled"), Locale::En, yn).as_deref(),
            Some("Cancelled")
        );
        let date = Fact {
            field: "expire_at",
            kind: FactKind::Date,
            label: ["Vencimento", "Vencimiento", "Due date"],
            values: &[],
            reference: None,
        };
        assert_eq!(
            date.show(&json!("2026-12-01"), Locale::PtBr, yn).as_deref(),
            Some("01/12/2026")
        );
        assert_eq!(
            date.show(&json!("2026-12-01T10:00:00Z"), Locale::En, yn)
                .as_deref(),
            Some("Dec 1, 2026 10:00 UTC")
        );
    }

    #[test]
    fn documents_get_their_punctuation() {
        assert_eq!(document("12345678909"), "123.456.789-09");
        assert_eq!(document("12345678000190"), "12.345.678/0001-90");
        assert_eq!(document("12.345.678/0001-90"), "12.345.678/0001-90");
        assert_eq!(document("abc"), "abc");
        assert_eq!(document("123"), "123");
    }
}

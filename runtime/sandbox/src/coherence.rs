//! Makes one seeded record agree with itself, from its field names alone (no code per product):
//! due dates agree with the state (`overdue` is past due, `open` is not), events happen after
//! the record was created and not after now, runs finish after they start, error texts appear
//! only on failed records, a person's e-mail and document follow their name, a model's provider
//! follows its name and output tokens cost at least input tokens, and NF-e access keys are real
//! 44-digit keys of the record's issuer, state and date.

use runtime_model::catalog::RecordType;
use serde_json::{Map, Value};
use time::{Date, Duration, OffsetDateTime};

use crate::brazil;
use crate::clock;
use crate::rng::Rng;

/// States a record ends in when something went wrong.
pub const FAILURE_STATES: &[&str] = &["failed", "error", "rejected", "generation_failed"];
/// States of a record that was stopped or put aside (a few of them).
pub const STOPPED_STATES: &[&str] = &[
    "canceled",
    "cancelled",
    "voided",
    "revoked",
    "deactivated",
    "archived",
    "disabled",
    "suspended",
    "inactive",
    "protested",
    "refunded",
    "deprecated",
    "invite_expired",
    "expired",
    "ignored",
];
/// States of a record past its due date.
pub const OVERDUE_STATES: &[&str] = &["overdue", "past_due"];
/// States of a record still waiting for its due date.
pub const OPEN_STATES: &[&str] = &["opened", "open", "draft", "scheduled"];
/// Fields holding a date something is due (not an event that happened).
pub const DUE_FIELDS: &[&str] = &[
    "due_date",
    "expire_at",
    "expires_at",
    "scheduled_for",
    "next_billing_date",
    "next_due_date",
];
/// Fields holding an error text.
pub const ERROR_FIELDS: &[&str] = &[
    "error_message",
    "processing_error",
    "rejection_reason",
    "failure_cause",
];

/// The weight of a state value when the seed picks one at random: mostly active records, some
/// overdue, a few stopped or failed.
pub fn state_weight(value: &str) -> u64 {
    if STOPPED_STATES.contains(&value) {
        1
    } else if FAILURE_STATES.contains(&value) {
        2
    } else if OVERDUE_STATES.contains(&value) {
        3
    } else {
        10
    }
}

/// Whether a field is the time of an event in the record's life (paid, canceled, started, …),
/// which happens after its creation and not after now.
pub fn is_event_field(name: &str) -> bool {
    (name.ends_with("_at") || name.ends_with("_on"))
        && name != "created_at"
        && !DUE_FIELDS.contains(&name)
        && !["expire", "due", "scheduled", "next_"]
            .iter()
            .any(|w| name.contains(w))
}

fn text<'a>(json: &'a Map<String, Value>, f: &str) -> Option<&'a str> {
    json.get(f).and_then(Value::as_str)
}

/// The record's states: the value of `status` and of every `*_status` field.
fn states(json: &Map<String, Value>) -> Vec<String> {
    json.iter()
        .filter(|(k, _)| *k == "status" || k.ends_with("_status"))
        .filter_map(|(_, v)| v.as_str().map(str::to_string))
        .collect()
}

/// A stamp of the same shape as `like` (a date, or a date-time) for instant `t`.
fn stamp_like(like: &str, t: OffsetDateTime) -> String {
    if like.len() == 10 {
        clock::date_string(t.date())
    } else {
        clock::datetime_string(t)
    }
}

fn parse_stamp(s: &str) -> Option<OffsetDateTime> {
    if s.len() == 10 {
        let d = clock::parse_date(s)?;
        Some(d.midnight().assume_offset(clock::brasilia()))
    } else {
        OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).ok()
    }
}

/// Records from this index on cover the values of enumerated error fields (`failure_cause`):
/// they are made failed, so every cause appears on a failed record.
pub const ERROR_COVERAGE_FROM: usize = 10;

/// Applies every rule to `json`, the `index`-th seeded record of `rt`, created at `created` and
/// seeded at `now`.
pub fn harmonize(
    rt: &RecordType,
    json: &mut Map<String, Value>,
    created: OffsetDateTime,
    now: OffsetDateTime,
    index: usize,
    rng: &mut Rng,
) {
    cover_errors(rt, json, index);
    due_dates(rt, json, now, rng);
    events(json, created, now, rng);
    runs(json);
    errors(json);
    people(json);
    models(json);
    access_key(json, created);
    statement_lines(json);
}

/// Statement categories: code, name, the line's text as a credit and as a debit (`None`: a
/// category that only goes one way — fees and taxes are debits, yields are credits).
const STATEMENT_CATEGORIES: &[(i64, &str, Option<&str>, Option<&str>)] = &[
    (1, "Pix", Some("PIX RECEBIDO"), Some("PIX ENVIADO")),
    (
        2,
        "Boletos",
        Some("LIQUIDACAO BOLETO"),
        Some("PAGAMENTO BOLETO"),
    ),
    (3, "Tarifas bancárias", None, Some("TARIFA BANCARIA")),
    (
        4,
        "Transferências",
        Some("TED RECEBIDA"),
        Some("TED ENVIADA"),
    ),
    (5, "Impostos", None, Some("PAGAMENTO DARF")),
    (6, "Rendimentos", Some("RENDIMENTO APLICACAO"), None),
];

/// A statement line (`kind` credit/debit, a signed `amount`, a `category` with its
/// `category_description`): the kind is one its category allows, the amount is negative exactly
/// when it is a debit, and the name and the line's text follow the category.
fn statement_lines(json: &mut Map<String, Value>) {
    let (Some(kind), Some(amount), Some(code)) = (
        text(json, "kind").map(str::to_string),
        json.get("amount").and_then(Value::as_f64),
        json.get("category").and_then(Value::as_i64),
    ) else {
        return;
    };
    if !matches!(kind.as_str(), "credit" | "debit") || !json.contains_key("category_description") {
        return;
    }
    let &(code, name, credit, debit) = STATEMENT_CATEGORIES
        .iter()
        .find(|c| c.0 == code)
        .unwrap_or(&STATEMENT_CATEGORIES[0]);
    let kind = match (kind.as_str(), credit, debit) {
        ("credit", Some(_), _) => "credit",
        ("debit", _, Some(_)) => "debit",
        (_, Some(_), None) => "credit",
        _ => "debit",
    };
    let line = if kind == "credit" { credit } else { debit }.unwrap_or_default();
    let signed = if kind == "debit" {
        -amount.abs()
    } else {
        amount.abs()
    };
    json.insert("category".into(), Value::from(code));
    json.insert("kind".into(), Value::String(kind.into()));
    json.insert("amount".into(), Value::from(signed));
    json.insert("category_description".into(), Value::String(name.into()));
    if json.contains_key("description") {
        json.insert("description".into(), Value::String(line.into()));
    }
}

/// A record covering a value of an enumerated error field is failed.
fn cover_errors(rt: &RecordType, json: &mut Map<String, Value>, index: usize) {
    let covering = rt.fields.iter().any(|f| {
        ERROR_FIELDS.contains(&f.name)
            && !f.enum_values.is_empty()
            && (ERROR_COVERAGE_FROM..ERROR_COVERAGE_FROM + f.enum_values.len()).contains(&index)
    });
    if !covering {
        return;
    }
    let Some(status) = rt.fields.iter().find(|f| f.name == "status") else {
        return;
    };
    if let Some(failed) = status
        .enum_values
        .iter()
        .find(|v| FAILURE_STATES.contains(v))
    {
        json.insert("status".into(), Value::String(failed.to_string()));
    }
}

/// Whether the record type has a state for being past due (else an open record past its due
/// date is simply overdue, as finance's payables are).
pub fn has_overdue_state(rt: &RecordType) -> bool {
    rt.fields
        .iter()
        .any(|f| f.enum_values.iter().any(|v| OVERDUE_STATES.contains(v)))
}

fn due_dates(rt: &RecordType, json: &mut Map<String, Value>, now: OffsetDateTime, rng: &mut Rng) {
    let states = states(json);
    let overdue = states.iter().any(|s| OVERDUE_STATES.contains(&s.as_str()));
    let open = has_overdue_state(rt) && states.iter().any(|s| OPEN_STATES.contains(&s.as_str()));
    if !overdue && !open {
        return;
    }
    for f in DUE_FIELDS {
        let Some(old) = text(json, f).map(str::to_string) else {
            continue;
        };
        let Some(due) = parse_stamp(&old) else {
            continue;
        };
        let today = now.date();
        let fixed = if overdue && due.date() >= today {
            Some(now - Duration::days(rng.range_i64(1, 60)))
        } else if open && due.date() < today {
            Some(now + Duration::days(rng.range_i64(0, 45)))
        } else {
            None
        };
        if let Some(t) = fixed {
            json.insert(f.to_string(), Value::String(stamp_like(&old, t)));
        }
    }
}

fn events(
    json: &mut Map<String, Value>,
    created: OffsetDateTime,
    now: OffsetDateTime,
    rng: &mut Rng,
) {
    let has_created = json.contains_key("created_at");
    let names: Vec<String> = json
        .keys()
        .filter(|k| is_event_field(k) && k.as_str() != "updated_at")
        .cloned()
        .collect();
    for f in names {
        let Some(old) = text(json, &f).map(str::to_string) else {
            continue;
        };
        let Some(t) = parse_stamp(&old) else {
            continue;
        };
        let floor = if has_created { created } else { t.min(now) };
        if t < floor || t > now {
            let span = (now - floor).whole_seconds().max(0);
            let at = floor + Duration::seconds(rng.range_i64(0, span));
            // A date-only field keeps the day of creation at the least.
            json.insert(f, Value::String(stamp_like(&old, at)));
        }
    }
    if has_created {
        let newest = json
            .iter()
            .filter(|(k, _)| is_event_field(k) && k.as_str() != "updated_at")
            .filter_map(|(_, v)| v.as_str().and_then(parse_stamp))
            .max();
        if let (Some(n), Some(u)) = (newest, text(json, "updated_at").map(str::to_string)) {
            if parse_stamp(&u).is_some_and(|t| t < n) {
                json.insert("updated_at".into(), Value::String(stamp_like(&u, n)));
            }
        }
    }
}

/// Started before finished; a run still queued has not started, one queued or running has not
/// finished; an active session has not ended.
fn runs(json: &mut Map<String, Value>) {
    let status = text(json, "status").unwrap_or_default().to_string();
    if status == "queued" {
        json.insert("started_at".into(), Value::Null);
    }
    for end in ["finished_at", "ended_at"] {
        if ["queued", "running", "active"].contains(&status.as_str()) && json.contains_key(end) {
            json.insert(end.into(), Value::Null);
        }
    }
    for chain in EVENT_ORDER {
        // The times present, sorted, given back to the fields in the chain's order.
        let present: Vec<&str> = chain
            .iter()
            .copied()
            .filter(|f| text(json, f).and_then(parse_stamp).is_some())
            .collect();
        let mut times: Vec<(OffsetDateTime, String)> = present
            .iter()
            .filter_map(|f| {
                let v = text(json, f)?;
                Some((parse_stamp(v)?, v.to_string()))
            })
            .collect();
        times.sort_by_key(|(t, _)| *t);
        for (f, (_, v)) in present.iter().zip(times) {
            json.insert(f.to_string(), Value::String(v));
        }
    }
}

/// Events that happen in this order when a record has them.
pub const EVENT_ORDER: &[&[&str]] = &[
    &["started_at", "finished_at"],
    &["started_at", "ended_at"],
    &["issued_at", "authorized_at", "canceled_at"],
    &["sent_at", "accepted_at"],
    &["invite_sent_at", "last_login_at"],
];

fn errors(json: &mut Map<String, Value>) {
    let failed = states(json)
        .iter()
        .any(|s| FAILURE_STATES.contains(&s.as_str()));
    if failed {
        // A failed run produced no output.
        if json.get("output").is_some_and(|v| !v.is_null()) && json.contains_key("error_message") {
            json.insert("output".into(), Value::Null);
        }
        return;
    }
    for f in ERROR_FIELDS {
        if json.get(*f).is_some_and(|v| !v.is_null()) {
            json.insert(f.to_string(), Value::Null);
        }
    }
}

/// The name field a contact field belongs to: `customer_email` → `customer_person_name`.
fn name_of<'a>(json: &'a Map<String, Value>, contact: &str, suffix: &str) -> Option<&'a str> {
    let prefix = contact.strip_suffix(suffix)?;
    ["person_name", "name", "full_name"]
        .iter()
        .find_map(|n| text(json, &format!("{prefix}{n}")))
}

/// Whether a name is a company's (ends like the generated company names).
pub fn is_company_name(name: &str) -> bool {
    ["Ltda", "S.A.", "ME", "EIRELI", "Comércio", "Serviços"]
        .iter()
        .any(|w| name.split_whitespace().any(|p| p == *w))
}

/// The e-mail of `name` at `domain`: `first.last@domain` for a person, `financeiro@company…` for
/// a company.
pub fn email_of(name: &str, domain: &str) -> String {
    let slug = brazil::slug(name);
    let parts: Vec<&str> = slug.split('.').filter(|p| !p.is_empty()).collect();
    if is_company_name(name) {
        let first = parts.first().copied().unwrap_or("empresa");
        return format!("financeiro@{first}.com.br");
    }
    match (parts.first(), parts.last()) {
        (Some(f), Some(l)) if parts.len() > 1 => format!("{f}.{l}@{domain}"),
        (Some(f), _) => format!("{f}@{domain}"),
        _ => format!("contato@{domain}"),
    }
}

fn people(json: &mut Map<String, Value>) {
    let contacts: Vec<(String, String)> = json
        .keys()
        .filter_map(|k| {
            let suffix = if k.ends_with("email") {
                "email"
            } else if k == "from_address" {
                "address"
            } else {
                return None;
            };
            let name = name_of(json, k, suffix)?;
            Some((k.clone(), name.to_string()))
        })
        .collect();
    for (field, name) in contacts {
        let Some(old) = text(json, &field) else {
            continue;
        };
        let domain = old.split('@').nth(1).unwrap_or("gmail.com").to_string();
        json.insert(field, Value::String(email_of(&name, &domain)));
    }
    // A person's document is a CPF; a company's a CNPJ.
    for doc in ["document", "cnpj_cpf", "cpf_cnpj", "tax_id"] {
        let Some(name) = name_of(json, doc, doc).or_else(|| text(json, "name")) else {
            continue;
        };
        let company = is_company_name(name);
        let Some(old) = text(json, doc) else {
            continue;
        };
        let digits: String = old.chars().filter(char::is_ascii_digit).collect();
        let seed = digits
            .bytes()
            .fold(7u64, |h, b| h.wrapping_mul(31) ^ u64::from(b));
        let mut r = Rng::new(seed);
        if company && digits.len() == 11 {
            json.insert(doc.into(), Value::String(brazil::cnpj(&mut r)));
        } else if !company && digits.len() == 14 {
            json.insert(doc.into(), Value::String(brazil::cpf(&mut r)));
        }
    }
}

/// The provider of a model, by the family its name starts with.
pub fn provider_of(model: &str) -> Option<&'static str> {
    [
        ("claude", "anthropic"),
        ("gpt", "openai"),
        ("o1", "openai"),
        ("gemini", "google"),
        ("llama", "meta"),
        ("mistral", "mistral"),
    ]
    .iter()
    .find(|(prefix, _)| model.starts_with(prefix))
    .map(|(_, p)| *p)
}

fn models(json: &mut Map<String, Value>) {
    if let (Some(name), true) = (text(json, "name"), json.contains_key("provider")) {
        if let Some(p) = provider_of(name) {
            json.insert("provider".into(), Value::String(p.into()));
        }
    }
    let price = |k: &str| json.get(k).and_then(Value::as_f64);
    if let (Some(input), Some(output)) = (
        price("input_price_per_mtok"),
        price("output_price_per_mtok"),
    ) {
        if output < input {
            let v = ((input * 4.0) * 100.0).round() / 100.0;
            if let Some(n) = serde_json::Number::from_f64(v) {
                json.insert("output_price_per_mtok".into(), Value::Number(n));
            }
        }
    }
}

/// IBGE codes of the states an issuer may be in.
pub const UF_CODES: &[(&str, u32)] = &[
    ("SP", 35),
    ("RJ", 33),
    ("MG", 31),
    ("PR", 41),
    ("RS", 43),
    ("BA", 29),
];

/// The check digit of a 43-digit NF-e key (modulo 11, weights 2..9 from the right).
pub fn nfe_check_digit(digits43: &str) -> u32 {
    let mut weight = 2;
    let mut sum = 0;
    for c in digits43.chars().rev() {
        sum += c.to_digit(10).unwrap_or(0) * weight;
        weight = if weight == 9 { 2 } else { weight + 1 };
    }
    let rest = sum % 11;
    if rest < 2 {
        0
    } else {
        11 - rest
    }
}

/// A 44-digit NF-e access key: state, year and month of issue, issuer CNPJ, model 55, series,
/// number, emission type 1, a numeric code, and the check digit.
pub fn nfe_access_key(
    uf: u32,
    issued: Date,
    cnpj: &str,
    series: u32,
    number: u64,
    code: u32,
) -> String {
    let cnpj: String = cnpj.chars().filter(char::is_ascii_digit).collect();
    let body = format!(
        "{uf:02}{:02}{:02}{cnpj:0>14}55{series:03}{number:09}1{code:08}",
        issued.year() % 100,
        issued.month() as u8,
    );
    format!("{body}{}", nfe_check_digit(&body))
}

fn access_key(json: &mut Map<String, Value>, created: OffsetDateTime) {
    if !json.contains_key("access_key") {
        return;
    }
    let Some(cnpj) = text(json, "issuer_cnpj").map(str::to_string) else {
        return;
    };
    let uf = text(json, "issuer_state")
        .and_then(|s| UF_CODES.iter().find(|(u, _)| *u == s))
        .map_or(35, |(_, c)| *c);
    let issued = text(json, "issued_at")
        .and_then(parse_stamp)
        .unwrap_or(created)
        .date();
    let number = json.get("number").and_then(Value::as_u64).unwrap_or(1);
    let series = json
        .get("series")
        .and_then(|v| {
            v.as_u64()
                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        })
        .unwrap_or(1) as u32;
    let code = (number.wrapping_mul(7_919) % 100_000_000) as u32;
    json.insert(
        "access_key".into(),
        Value::String(nfe_access_key(uf, issued, &cnpj, series, number, code)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_published_access_key_has_the_check_digit_it_carries() {
        // The NF-e manual's example key 5206…7301615: its last digit is the check digit of the
        // 43 before it.
        let body = "5206043300991100250655012000000780026730161";
        let dv = nfe_check_digit(body);
        assert_eq!(dv, 5);
    }

    #[test]
    fn keys_are_44_digits_with_issuer_state_and_date() {
        let d = Date::from_calendar_date(2026, time::Month::November, 30).expect("date");
        let k = nfe_access_key(35, d, "12.345.678/0001-95", 1, 42, 1234);
        assert_eq!(k.len(), 44);
        assert!(k.starts_with("352611"));
        assert_eq!(&k[6..20], "12345678000195");
        assert_eq!(&k[20..22], "55");
        assert_eq!(nfe_check_digit(&k[..43]).to_string(), &k[43..]);
    }

    #[test]
    fn emails_follow_names() {
        assert_eq!(
            email_of("Ana Souza Lima", "gmail.com"),
            "ana.lima@gmail.com"
        );
        assert_eq!(provider_of("gpt-4.1-mini"), Some("openai"));
    }
}

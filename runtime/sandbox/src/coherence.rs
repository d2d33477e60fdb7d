//! Makes one seeded record agree with itself, from its field names alone (no code per product):
//! due dates agree with the state (`overdue` is past due, `open` is not), events happen after
//! the record was created and not after now, runs finish after they start, error texts appear
//! only on failed records, a person's e-mail and document follow their name, a model's provider
//! follows its name and output tokens cost at least input tokens, and NF-e access keys are real
//! 44-digit keys of the record's issuer, state and date. Issue 38's relations too: nothing
//! scheduled or pending waits for a past day and nothing expired expires later, invites expire in
//! the order they were sent, documents are issued before they are due, counts agree with the
//! lists they count, file names with their content types, and a webhook's state with its
//! failures in a row.

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
/// States waiting for a date still to come, whatever else the record type can say: a payment
/// scheduled or awaiting approval is paid on a day not past yet, a pending invite can still be
/// accepted.
pub const WAITING_STATES: &[&str] = &["scheduled", "awaiting_approval", "pending"];
/// States of something done on its scheduled day, which therefore is not ahead.
pub const DONE_STATES: &[&str] = &["paid", "transferred", "completed"];
/// States of something whose time ran out: its expiry is past.
pub const EXPIRED_STATES: &[&str] = &["expired", "invite_expired"];
/// Fields holding a date something is due (not an event that happened).
pub const DUE_FIELDS: &[&str] = &[
    "due_date",
    "expire_at",
    "expires_at",
    "scheduled_for",
    "scheduled_to",
    "next_billing_date",
    "next_due_date",
];
/// Fields holding the day a document was issued, which is not after the day it is due.
pub const ISSUE_FIELDS: &[&str] = &["issue_date", "issued_on"];
/// Failed deliveries in a row from which a webhook is `failing` rather than `active`: one or
/// two failures are a hiccup, three a pattern the `webhook_health` prompt reports.
pub const FAILING_AFTER: i64 = 3;
/// Days a portal invite can be accepted after it was sent: a user `invited` longer ago is
/// `invite_expired`, so invites expire in the order they were sent.
pub const INVITE_VALID_DAYS: i64 = 7;
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
    expiries(json, rng);
    invites(json, created, now, rng);
    issued_before_due(json, rng);
    counts(json);
    file_names(json);
    failures(json);
    errors(json);
    people(json);
    models(json);
    access_key(json, created);
    statement_lines(json);
    pix_key_types(json);
}

/// Fields holding a CPF or CNPJ (also as the end of a name: `customer_cnpj_cpf`).
pub const DOCUMENT_FIELDS: &[&str] = &["document", "cpf", "cnpj", "cnpj_cpf", "cpf_cnpj", "tax_id"];

/// Keeps a record written through a tool (created, updated, or changed by an action) in the
/// agreements the seed keeps, where the write decides them: a CPF/CNPJ is stored punctuated as
/// the seeded ones are, a list given as comma-separated text (`"12,15"`, as the API takes
/// `bank_billet_ids`) is stored as the list the record carries, a count is its list's length, and
/// a record waiting for a date whose expiry passed (an invite sent again) can be accepted for
/// [`INVITE_VALID_DAYS`] more when `renew` (an action). Refuses, with the reason, a write that
/// would contradict the record: a transfer from an account to itself, or, among the fields
/// `given`, a day already past for something scheduled or pending.
pub fn on_write(
    rt: &RecordType,
    json: &mut Map<String, Value>,
    given: &Map<String, Value>,
    now: OffsetDateTime,
    renew: bool,
) -> Result<(), String> {
    for field in rt.fields {
        let name = field.name;
        let is_document = DOCUMENT_FIELDS
            .iter()
            .any(|d| name == *d || name.ends_with(&format!("_{d}")));
        match json.get(name) {
            Some(Value::String(v)) if is_document => {
                let formatted = brazil::format_document(v);
                json.insert(name.into(), Value::String(formatted));
            }
            Some(Value::String(v)) if field.ty == "array" => {
                let items = list_items(v);
                json.insert(name.into(), Value::Array(items));
            }
            _ => {}
        }
    }
    for field in rt.fields.iter().filter(|f| f.name.ends_with("_count")) {
        if let Some(list) = counted_list(json, field.name) {
            let len = json
                .get(&list)
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            json.insert(field.name.into(), Value::from(len));
        }
    }
    if let (Some(from), Some(to)) = (text(json, "from_account_id"), text(json, "to_account_id")) {
        if from == to {
            return Err(format!(
                "`from_account_id` and `to_account_id` are both `{from}`: a transfer moves money between two different accounts"
            ));
        }
    }
    let waiting = states(json)
        .iter()
        .find(|s| WAITING_STATES.contains(&s.as_str()))
        .cloned();
    if let Some(state) = waiting {
        let today = now.date();
        for f in DUE_FIELDS {
            let Some(old) = text(json, f).map(str::to_string) else {
                continue;
            };
            if parse_stamp(&old).is_none_or(|d| d.date() >= today) {
                continue;
            }
            if renew && f.starts_with("expire") {
                let at = now + Duration::days(INVITE_VALID_DAYS);
                json.insert(f.to_string(), Value::String(stamp_like(&old, at)));
            } else if given.contains_key(*f) {
                return Err(format!(
                    "`{f}` {old} is past: a record that is `{state}` waits for today or a later day"
                ));
            }
        }
    }
    Ok(())
}

/// The items of a list given as comma-separated text (`"12, 15"`, as the API takes
/// `bank_billet_ids`): numbers where they are numbers, as the records list ids.
pub fn list_items(text: &str) -> Vec<Value> {
    text.split(',')
        .map(str::trim)
        .filter(|i| !i.is_empty())
        .map(|i| {
            i.parse::<i64>()
                .map_or_else(|_| Value::String(i.into()), Value::from)
        })
        .collect()
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
    let any = |set: &[&str]| states.iter().any(|s| set.contains(&s.as_str()));
    let overdue = any(OVERDUE_STATES);
    let open = (has_overdue_state(rt) && any(OPEN_STATES)) || any(WAITING_STATES);
    let expired = any(EXPIRED_STATES);
    let done = any(DONE_STATES);
    if !overdue && !open && !expired && !done {
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
        let past = (overdue || (expired && f.starts_with("expire")))
            || (done && f.starts_with("scheduled"));
        let fixed = if past && due.date() >= today {
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

/// A Pix key's type is the one its shape says (a CPF's 11 digits, a CNPJ's 14, an e-mail, a
/// `+55` phone, otherwise a random key), so a transfer's question labels the key it shows.
fn pix_key_types(json: &mut Map<String, Value>) {
    if !json.contains_key("key_type") {
        return;
    }
    let Some(key) = text(json, "key") else {
        return;
    };
    let digits = key.chars().filter(char::is_ascii_digit).count();
    let only_digits = key
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '/'));
    let kind = if key.contains('@') {
        "email"
    } else if key.starts_with('+') {
        "phone"
    } else if only_digits && digits == 11 {
        "cpf"
    } else if only_digits && digits == 14 {
        "cnpj"
    } else {
        "random"
    };
    json.insert("key_type".into(), Value::String(kind.into()));
}

/// What happened to a record with an expiry happened by then: an invite was sent and accepted
/// no later than its last day. An expired record's events move before the expiry (its expiry is
/// past); another's expiry moves after them.
fn expiries(json: &mut Map<String, Value>, rng: &mut Rng) {
    let expired = states(json)
        .iter()
        .any(|s| EXPIRED_STATES.contains(&s.as_str()));
    for f in ["expires_at", "expire_at"] {
        let Some(old) = text(json, f).map(str::to_string) else {
            continue;
        };
        let Some(expiry) = parse_stamp(&old) else {
            continue;
        };
        for event in ["sent_at", "accepted_at"] {
            let Some(was) = text(json, event).map(str::to_string) else {
                continue;
            };
            let Some(at) = parse_stamp(&was) else {
                continue;
            };
            if at.date() <= expiry.date() {
                continue;
            }
            if expired {
                let moved = expiry - Duration::days(rng.range_i64(1, 7));
                json.insert(event.into(), Value::String(stamp_like(&was, moved)));
            } else {
                let moved = at + Duration::days(rng.range_i64(0, 14));
                json.insert(f.into(), Value::String(stamp_like(&old, moved)));
            }
        }
    }
}

/// A portal user still `invited` was invited within [`INVITE_VALID_DAYS`]; one whose invite
/// expired, before that. When the user was created too recently for an invite to have expired,
/// the user is still `invited`.
fn invites(
    json: &mut Map<String, Value>,
    created: OffsetDateTime,
    now: OffsetDateTime,
    rng: &mut Rng,
) {
    let Some(old) = text(json, "invite_sent_at").map(str::to_string) else {
        return;
    };
    let Some(sent) = parse_stamp(&old) else {
        return;
    };
    let limit = now - Duration::days(INVITE_VALID_DAYS);
    let floor = created.min(now);
    let within = |rng: &mut Rng, from: OffsetDateTime, to: OffsetDateTime| {
        let span = (to - from).whole_seconds().max(0);
        from + Duration::seconds(rng.range_i64(0, span))
    };
    match text(json, "status") {
        Some("invited") if sent < limit => {
            let at = within(rng, floor.max(limit), now);
            json.insert("invite_sent_at".into(), Value::String(stamp_like(&old, at)));
        }
        Some("invite_expired") if sent >= limit => {
            if floor < limit {
                let at = within(rng, floor, limit - Duration::hours(1));
                json.insert("invite_sent_at".into(), Value::String(stamp_like(&old, at)));
            } else {
                json.insert("status".into(), Value::String("invited".into()));
            }
        }
        _ => {}
    }
}

/// A document is issued on or before the day it is due.
fn issued_before_due(json: &mut Map<String, Value>, rng: &mut Rng) {
    for issue in ISSUE_FIELDS {
        let Some(old) = text(json, issue).map(str::to_string) else {
            continue;
        };
        let Some(issued) = parse_stamp(&old) else {
            continue;
        };
        let due = DUE_FIELDS
            .iter()
            .filter_map(|f| text(json, f).and_then(parse_stamp))
            .min();
        if let Some(due) = due.filter(|d| d.date() < issued.date()) {
            let at = due - Duration::days(rng.range_i64(0, 30));
            json.insert(issue.to_string(), Value::String(stamp_like(&old, at)));
        }
    }
}

/// The list a `<name>_count` field counts: `<name>`, `<name>s` or `<name without s>_ids`
/// (`attachment_count` counts `attachments`, `bank_billets_count` counts `bank_billet_ids`).
pub fn counted_list(json: &Map<String, Value>, count: &str) -> Option<String> {
    let stem = count.strip_suffix("_count")?;
    [
        stem.to_string(),
        format!("{stem}s"),
        format!("{}_ids", stem.trim_end_matches('s')),
    ]
    .into_iter()
    .find(|l| json.get(l).is_some_and(Value::is_array))
}

/// A count agrees with the list it counts: a list longer than its count keeps that many items
/// (an e-mail counted without attachments carries none), then the count is the list's length.
pub fn counts(json: &mut Map<String, Value>) {
    let pairs: Vec<(String, String)> = json
        .keys()
        .filter(|k| k.ends_with("_count"))
        .filter_map(|k| Some((k.clone(), counted_list(json, k)?)))
        .collect();
    for (count, list) in pairs {
        let wanted = json.get(&count).and_then(Value::as_u64);
        let Some(Value::Array(items)) = json.get_mut(&list) else {
            continue;
        };
        if let Some(n) = wanted {
            items.truncate(usize::try_from(n).unwrap_or(usize::MAX));
        }
        let len = items.len();
        json.insert(count, Value::from(len));
    }
}

/// The file extension of a media type, for the types the sandbox's files take.
pub fn extension_of(mime: &str) -> Option<&'static str> {
    Some(match mime {
        "application/pdf" => "pdf",
        "application/xml" | "text/xml" => "xml",
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "text/plain" => "txt",
        "text/csv" => "csv",
        _ => return None,
    })
}

/// A file's name ends in the extension of its content type (`nfe.xml` stored as a PDF is
/// `nfe.pdf`).
fn file_names(json: &mut Map<String, Value>) {
    let Some(ext) = text(json, "content_type").and_then(extension_of) else {
        return;
    };
    let Some(name) = text(json, "filename") else {
        return;
    };
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    let renamed = format!("{stem}.{ext}");
    if renamed != name {
        json.insert("filename".into(), Value::String(renamed));
    }
}

/// A webhook is `failing` from [`FAILING_AFTER`] failed deliveries in a row and `active` below:
/// the count follows the state.
fn failures(json: &mut Map<String, Value>) {
    let Some(n) = json.get("consecutive_failures").and_then(Value::as_i64) else {
        return;
    };
    let fixed = match text(json, "status") {
        Some("active") if n >= FAILING_AFTER => n % FAILING_AFTER,
        Some("failing") if n < FAILING_AFTER => n + FAILING_AFTER,
        _ => return,
    };
    json.insert("consecutive_failures".into(), Value::from(fixed));
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

/// Whether the event `earlier` comes before the event `later` in one of the [`EVENT_ORDER`]
/// chains: a record in `later`'s state went through `earlier`'s (an NF-e is canceled after it
/// was authorized), so it keeps that timestamp.
pub fn comes_before(earlier: &str, later: &str) -> bool {
    EVENT_ORDER.iter().any(|chain| {
        let at = |f: &str| chain.iter().position(|c| *c == f);
        matches!((at(earlier), at(later)), (Some(a), Some(b)) if a < b)
    })
}

/// Events that happen in this order when a record has them.
pub const EVENT_ORDER: &[&[&str]] = &[
    &["started_at", "finished_at"],
    &["started_at", "last_seen_at", "ended_at"],
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

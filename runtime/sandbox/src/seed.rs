//! Seed data: one generator per field, from the catalog's `seed` spec (or a default guessed from
//! the field's type and name), deterministic from the seed number.
//!
//! Specs (`catalog/README.md`): `uid`, `person_name`, `company_name`, `cpf`, `cnpj`, `email`,
//! `phone`, `pix_key`, `amount:MIN..MAX`, `date:-90..30` (days from today), `datetime:-30..0`,
//! `enum`, `ref:<record>`, `bool`, `int:MIN..MAX`, `text:<words>` (a word count, or `a|b|c`
//! choices), `const:<value>`, `sequence`.
//!
//! Variety rule: an `enum` field takes every value once over the first records of a type (then
//! random values), so every state a prompt looks for (overdue, rejected, failed) exists. A
//! timestamp field named after a non-initial enum value (`paid_at` next to `status: paid`) is only
//! filled when the record is in that state.

use std::collections::HashMap;

use runtime_model::catalog::{Field, Operation, Product, RecordType};
use serde_json::{Map, Number, Value};
use time::OffsetDateTime;

use crate::brazil;
use crate::clock;
use crate::coherence;
use crate::rng::Rng;

/// A parsed seed generator.
#[derive(Debug, Clone, PartialEq)]
pub enum Gen {
    Uid,
    PersonName,
    CompanyName,
    Cpf,
    Cnpj,
    CpfOrCnpj,
    Email,
    Phone,
    PixKey,
    Amount(f64, f64),
    Date(i64, i64),
    DateTime(i64, i64),
    Enum,
    Ref(String),
    /// An array of ids of seeded records of that type (the default of a `<thing>_ids` array),
    /// as many as the record's count of them says (`bank_billet_ids` next to
    /// `bank_billets_count`); numeric ids when the type has them, as the API lists them.
    Refs(String),
    /// `same:<via>.<field>`: `field` of the record `via` references (a ref field of this record)
    /// or of the first record of type `via`.
    Same(String, String),
    /// `links:<slug>=<record>|…`: one or two `{slug, uid}` objects pointing to seeded records.
    Links(Vec<(String, String)>),
    Bool,
    Int(i64, i64),
    Words(usize),
    Choice(Vec<String>),
    Const(String),
    Sequence,
    Url,
    EmptyObject,
    EmptyArray,
}

fn range<T: std::str::FromStr>(spec: &str, what: &str) -> Result<(T, T), String> {
    let (a, b) = spec
        .split_once("..")
        .ok_or_else(|| format!("`{what}` needs a range MIN..MAX, got `{spec}`"))?;
    let a = a
        .trim()
        .parse::<T>()
        .map_err(|_| format!("`{what}`: `{a}` is not a number"))?;
    let b = b
        .trim()
        .parse::<T>()
        .map_err(|_| format!("`{what}`: `{b}` is not a number"))?;
    Ok((a, b))
}

/// Parses a non-empty seed spec.
pub fn parse_spec(spec: &str) -> Result<Gen, String> {
    let (head, arg) = match spec.split_once(':') {
        Some((h, a)) => (h.trim(), Some(a)),
        None => (spec.trim(), None),
    };
    let need = |what: &str| arg.ok_or_else(|| format!("seed `{what}` needs an argument"));
    Ok(match head {
        "uid" => Gen::Uid,
        "person_name" => Gen::PersonName,
        "company_name" => Gen::CompanyName,
        "cpf" => Gen::Cpf,
        "cnpj" => Gen::Cnpj,
        "email" => Gen::Email,
        "phone" => Gen::Phone,
        "pix_key" => Gen::PixKey,
        "amount" => {
            let (a, b) = range::<f64>(need("amount")?, "amount")?;
            Gen::Amount(a, b)
        }
        "date" => {
            let (a, b) = range::<i64>(need("date")?, "date")?;
            Gen::Date(a, b)
        }
        "datetime" => {
            let (a, b) = range::<i64>(need("datetime")?, "datetime")?;
            Gen::DateTime(a, b)
        }
        "enum" => Gen::Enum,
        "ref" => Gen::Ref(need("ref")?.trim().to_string()),
        "links" => Gen::Links(
            need("links")?
                .split('|')
                .map(|pair| {
                    pair.split_once('=')
                        .map(|(slug, record)| (slug.trim().to_string(), record.trim().to_string()))
                        .ok_or_else(|| {
                            format!("seed `links:` needs `<slug>=<record>`, got `{pair}`")
                        })
                })
                .collect::<Result<_, _>>()?,
        ),
        "same" => {
            let arg = need("same")?.trim();
            let (via, field) = arg
                .split_once('.')
                .ok_or_else(|| format!("seed `same:{arg}` needs `<ref field>.<field>`"))?;
            Gen::Same(via.to_string(), field.to_string())
        }
        "bool" => Gen::Bool,
        "int" => {
            let (a, b) = range::<i64>(need("int")?, "int")?;
            Gen::Int(a, b)
        }
        "text" => {
            let a = need("text")?.trim();
            match a.parse::<usize>() {
                Ok(n) => Gen::Words(n),
                Err(_) => Gen::Choice(
                    a.split('|')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty())
                        .collect(),
                ),
            }
        }
        "const" => Gen::Const(need("const")?.to_string()),
        "sequence" => Gen::Sequence,
        other => return Err(format!("unknown seed generator `{other}`")),
    })
}

fn strip_suffix_any<'a>(name: &'a str, suffixes: &[&str]) -> Option<&'a str> {
    suffixes.iter().find_map(|s| name.strip_suffix(s))
}

/// The record type a `<thing>_id` / `<thing>_uid` field most likely points to.
fn guess_ref(product: &Product, field: &str) -> Option<String> {
    let stem = strip_suffix_any(field, &["_uid", "_id"])?;
    let candidates = [format!("{stem}s"), format!("{stem}es"), stem.to_string()];
    for c in &candidates {
        if product.record(c).is_some() {
            return Some(c.clone());
        }
    }
    product
        .records
        .iter()
        .find(|r| {
            candidates
                .iter()
                .any(|c| r.name.ends_with(&format!("_{c}")))
        })
        .map(|r| r.name.to_string())
}

/// The generator of a field: its `seed` spec, or a default from its type and name.
pub fn generator(product: &Product, record: &RecordType, field: &Field) -> Gen {
    if !field.seed.trim().is_empty() {
        if let Ok(g) = parse_spec(field.seed) {
            return g;
        }
        tracing::warn!(
            product = product.name,
            record = record.name,
            field = field.name,
            spec = field.seed,
            "unreadable seed spec; using the default generator"
        );
    }
    default_generator(product, record, field)
}

fn default_generator(product: &Product, record: &RecordType, field: &Field) -> Gen {
    let n = field.name;
    let has = |s: &str| n.contains(s);
    if n == record.id_field {
        return if field.ty == "integer" {
            Gen::Sequence
        } else {
            Gen::Uid
        };
    }
    if n == "id" {
        return Gen::Sequence;
    }
    if !field.enum_values.is_empty() {
        return Gen::Enum;
    }
    if field.ty == "array" {
        if let Some(target) = n
            .strip_suffix("_ids")
            .and_then(|stem| guess_ref(product, &format!("{stem}_id")))
        {
            return Gen::Refs(target);
        }
    }
    match field.ty {
        "boolean" => return Gen::Bool,
        "object" => return Gen::EmptyObject,
        "array" => return Gen::EmptyArray,
        _ => {}
    }
    if n.ends_with("_at") {
        return if has("expire") || has("due") || has("scheduled") {
            Gen::DateTime(-45, 45)
        } else {
            Gen::DateTime(-90, 0)
        };
    }
    if n.ends_with("_on") || n.ends_with("_date") || n == "date" {
        return if has("expire") || has("due") || has("scheduled") {
            Gen::Date(-45, 45)
        } else {
            Gen::Date(-90, 0)
        };
    }
    if has("cpf_cnpj") || has("document") {
        return Gen::CpfOrCnpj;
    }
    if has("cnpj") {
        return Gen::Cnpj;
    }
    if has("cpf") {
        return Gen::Cpf;
    }
    if has("email") {
        return Gen::Email;
    }
    if has("phone") || has("telefone") {
        return Gen::Phone;
    }
    if has("pix_key") || n == "key" {
        return Gen::PixKey;
    }
    if has("company") || has("business_name") || has("legal_name") || has("trade_name") {
        return Gen::CompanyName;
    }
    if has("name") && field.ty == "string" {
        return Gen::PersonName;
    }
    if let Some(target) = guess_ref(product, n) {
        return Gen::Ref(target);
    }
    if n.ends_with("_uid") {
        return Gen::Uid;
    }
    if has("url") {
        return Gen::Url;
    }
    let money = [
        "amount", "value", "price", "total", "balance", "fee", "cost",
    ];
    if money.iter().any(|m| has(m)) {
        return Gen::Amount(10.0, 5000.0);
    }
    match field.ty {
        "integer" => Gen::Int(0, 100),
        "number" => Gen::Amount(0.0, 1000.0),
        _ => Gen::Words(3),
    }
}

/// Ids of existing records, by type, for `ref:` fields: `(string id, numeric id)`.
pub type RefPool = HashMap<String, Vec<(String, i64)>>;

/// The seeded records, by type, in the order of their [`RefPool`] ids, for `same:` fields.
pub type Stored = HashMap<String, Vec<Map<String, Value>>>;

/// The inputs of one generated record.
pub struct RecordSeed<'a> {
    pub rng: &'a mut Rng,
    pub now: OffsetDateTime,
    /// Position of the record in its type's seed (drives enum coverage).
    pub index: usize,
    /// Sequence number (numeric id, `sequence` fields).
    pub seq: i64,
    pub refs: &'a RefPool,
    pub stored: &'a Stored,
}

fn typed_string(field: &Field, s: String) -> Value {
    match field.ty {
        "integer" => s
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or(Value::String(s)),
        "number" => s
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .unwrap_or(Value::String(s)),
        "boolean" => match s.as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::String(s),
        },
        _ => Value::String(s),
    }
}

/// A value for `field`, typed like the field (`amount` on a string field gives `"123.45"`).
pub fn typed_value(field: &Field, raw: &str) -> Value {
    if raw == "null" {
        return Value::Null;
    }
    typed_string(field, raw.to_string())
}

fn amount_value(field: &Field, v: f64) -> Value {
    let cents = (v * 100.0).round() / 100.0;
    match field.ty {
        "string" => Value::String(format!("{cents:.2}")),
        "integer" => Value::from(cents.round() as i64),
        _ => Number::from_f64(cents)
            .map(Value::Number)
            .unwrap_or(Value::Null),
    }
}

/// Generates one value.
pub fn generate(
    gen: &Gen,
    field: &Field,
    s: &mut RecordSeed<'_>,
    created_at: OffsetDateTime,
) -> Value {
    let rng = &mut *s.rng;
    match gen {
        Gen::Uid => Value::String(brazil::uuid_v7_like(
            rng,
            (created_at.unix_timestamp_nanos() / 1_000_000) as i64,
        )),
        Gen::PersonName => Value::String(brazil::person_name(rng)),
        Gen::CompanyName => Value::String(brazil::company_name(rng)),
        Gen::Cpf => Value::String(brazil::cpf(rng)),
        Gen::Cnpj => Value::String(brazil::cnpj(rng)),
        Gen::CpfOrCnpj => {
            if rng.chance(60) {
                Value::String(brazil::cpf(rng))
            } else {
                Value::String(brazil::cnpj(rng))
            }
        }
        Gen::Email => Value::String(brazil::email(rng)),
        Gen::Phone => Value::String(brazil::phone(rng)),
        Gen::PixKey => Value::String(brazil::pix_key(rng)),
        Gen::Amount(min, max) => {
            let lo = (min * 100.0).round() as i64;
            let hi = (max * 100.0).round() as i64;
            amount_value(field, rng.range_i64(lo, hi) as f64 / 100.0)
        }
        Gen::Date(a, b) => {
            let d = s.now.date() + clock::days(rng.range_i64(*a, *b));
            Value::String(clock::date_string(d))
        }
        Gen::DateTime(a, b) => {
            let secs = rng.range_i64(a * 86_400, b * 86_400);
            Value::String(clock::datetime_string(
                s.now + time::Duration::seconds(secs),
            ))
        }
        Gen::Enum => {
            let values = field.enum_values;
            // An error field's values are covered by records of their own (made failed by
            // `coherence::harmonize`), after the records that cover the states.
            let at = if coherence::ERROR_FIELDS.contains(&field.name) {
                s.index.checked_sub(coherence::ERROR_COVERAGE_FROM)
            } else {
                Some(s.index)
            };
            if values.is_empty() {
                Value::Null
            } else if let Some(i) = at.filter(|i| *i < values.len()) {
                typed_string(field, values[i].to_string())
            } else {
                // Mostly active records, some overdue, a few stopped or failed.
                let total: u64 = values.iter().map(|v| coherence::state_weight(v)).sum();
                let mut at = rng.below(total.max(1));
                let mut chosen = values[0];
                for v in values.iter() {
                    let w = coherence::state_weight(v);
                    if at < w {
                        chosen = v;
                        break;
                    }
                    at -= w;
                }
                typed_string(field, chosen.to_string())
            }
        }
        Gen::Ref(target) => match s.refs.get(target).filter(|v| !v.is_empty()) {
            Some(pool) => {
                // The first records cover every target once (every account has a balance, every
                // customer a billet), the rest pick at random.
                let (uid, num) = if s.index < pool.len() {
                    pool[s.index].clone()
                } else {
                    rng.pick(pool).clone()
                };
                if field.ty == "integer" {
                    Value::from(num)
                } else {
                    Value::String(uid)
                }
            }
            None => Value::Null,
        },
        // Filled after the record's other fields (see `generate_record`).
        Gen::Same(..) => Value::Null,
        Gen::Refs(_) => Value::Array(Vec::new()),
        Gen::Links(pairs) => {
            let n = 1 + rng.below(2) as usize;
            let mut out = Vec::new();
            for _ in 0..n.min(pairs.len()) {
                let (slug, record) = rng.pick(pairs).clone();
                let Some(pool) = s.refs.get(&record).filter(|p| !p.is_empty()) else {
                    continue;
                };
                let (uid, _) = rng.pick(pool).clone();
                let link = serde_json::json!({"slug": slug, "uid": uid});
                if !out.contains(&link) {
                    out.push(link);
                }
            }
            Value::Array(out)
        }
        Gen::Bool => Value::Bool(rng.chance(50)),
        Gen::Int(a, b) => {
            let v = rng.range_i64(*a, *b);
            if field.ty == "string" {
                Value::String(v.to_string())
            } else {
                Value::from(v)
            }
        }
        Gen::Words(n) => Value::String(brazil::words(rng, *n)),
        Gen::Choice(options) => {
            if options.is_empty() {
                Value::Null
            } else {
                typed_string(field, rng.pick(options).clone())
            }
        }
        Gen::Const(v) => {
            if field.ty == "string" {
                Value::String(v.clone())
            } else {
                serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.clone()))
            }
        }
        Gen::Sequence => {
            if field.ty == "string" {
                Value::String(format!("{:08}", s.seq))
            } else {
                Value::from(s.seq)
            }
        }
        Gen::Url => Value::String(format!(
            "https://app.kobana.com.br/sandbox/{:016x}",
            rng.next_u64()
        )),
        Gen::EmptyObject => Value::Object(Map::new()),
        Gen::EmptyArray => Value::Array(Vec::new()),
    }
}

/// The record's state fields: fields with enumerated values.
fn enum_fields(rt: &RecordType) -> impl Iterator<Item = &Field> {
    rt.fields.iter().filter(|f| !f.enum_values.is_empty())
}

/// A seeded record and its creation time.
pub struct Seeded {
    pub json: Map<String, Value>,
    pub id: String,
    pub created_at: OffsetDateTime,
}

/// Generates one record of `rt`.
pub fn generate_record(product: &Product, rt: &RecordType, s: &mut RecordSeed<'_>) -> Seeded {
    // Creation time first: the uid (UUIDv7-like) is derived from it.
    let created_field = rt.fields.iter().find(|f| f.name == "created_at");
    let created_gen = created_field
        .map(|f| generator(product, rt, f))
        .unwrap_or(Gen::DateTime(-90, 0));
    let (lo, hi) = match created_gen {
        Gen::DateTime(a, b) | Gen::Date(a, b) => (a, b),
        _ => (-90, 0),
    };
    let secs = s.rng.range_i64(lo * 86_400, hi.min(0) * 86_400);
    let created_at = s.now + time::Duration::seconds(secs);

    let mut json = Map::new();
    for field in rt.fields {
        let value = if field.name == "created_at" || field.name == "updated_at" {
            Value::String(clock::datetime_string(created_at))
        } else {
            let gen = generator(product, rt, field);
            generate(&gen, field, s, created_at)
        };
        json.insert(field.name.to_string(), value);
    }
    for field in rt.fields {
        if let Gen::Same(via, from) = generator(product, rt, field) {
            if let Some(v) = same_value(product, rt, &json, s, &via, &from) {
                json.insert(field.name.to_string(), v);
            }
        }
    }
    fill_id_lists(product, rt, &mut json, s);
    distinct_refs(product, rt, &mut json, s);
    failed_under_a_stopped_record(product, rt, &mut json, s);
    if rt.numeric_id && !json.contains_key("id") {
        json.insert("id".into(), Value::from(s.seq));
    }
    let id = match json.get(rt.id_field) {
        Some(Value::String(v)) => v.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => {
            let uid = brazil::uuid_v7_like(
                s.rng,
                (created_at.unix_timestamp_nanos() / 1_000_000) as i64,
            );
            json.insert(rt.id_field.to_string(), Value::String(uid.clone()));
            uid
        }
    };
    // A billet's codes name its wallet's bank: the record a ref field points to that has one.
    let bank = rt.fields.iter().find_map(|f| {
        referenced(product, rt, &json, s, f)?
            .get("bank_contract_slug")?
            .as_str()
            .map(str::to_string)
    });
    coherence::harmonize(rt, &mut json, created_at, s.now, s.index, s.rng);
    blank_timestamps_of_other_states(rt, &mut json);
    // After the due date settled: the codes carry it.
    crate::payment_codes::new_record(rt, &mut json, bank.as_deref());
    Seeded {
        json,
        id,
        created_at,
    }
}

/// Fills each `Gen::Refs` list with distinct ids of its type, as many as the record's count of
/// them says when it has one (else one to three); `coherence::counts` then sets the count to the
/// list's length, in case fewer records exist.
fn fill_id_lists(
    product: &Product,
    rt: &RecordType,
    json: &mut Map<String, Value>,
    s: &mut RecordSeed<'_>,
) {
    for field in rt.fields {
        let Gen::Refs(target) = generator(product, rt, field) else {
            continue;
        };
        let refs = s.refs;
        let Some(pool) = refs.get(&target).filter(|p| !p.is_empty()) else {
            continue;
        };
        let counted = json
            .keys()
            .filter(|k| k.ends_with("_count"))
            .find(|k| coherence::counted_list(json, k).as_deref() == Some(field.name))
            .and_then(|k| json.get(k))
            .and_then(Value::as_u64);
        let wanted = counted.unwrap_or_else(|| 1 + s.rng.below(3));
        let n = usize::try_from(wanted)
            .unwrap_or(usize::MAX)
            .min(pool.len());
        // The first `n` of a partial shuffle: distinct records.
        let mut order: Vec<usize> = (0..pool.len()).collect();
        for i in 0..n {
            let j = i + s.rng.below((pool.len() - i) as u64) as usize;
            order.swap(i, j);
        }
        let mut picked: Vec<&(String, i64)> = order[..n].iter().map(|&i| &pool[i]).collect();
        picked.sort_by_key(|(_, num)| *num);
        let numeric = product.record(&target).is_some_and(|t| t.numeric_id);
        let ids = picked
            .into_iter()
            .map(|(uid, num)| {
                if numeric {
                    Value::from(*num)
                } else {
                    Value::String(uid.clone())
                }
            })
            .collect();
        json.insert(field.name.to_string(), Value::Array(ids));
    }
}

/// Two ref fields of one record to the same type point to two different records when there are
/// two: a transfer moves money between two accounts.
fn distinct_refs(
    product: &Product,
    rt: &RecordType,
    json: &mut Map<String, Value>,
    s: &mut RecordSeed<'_>,
) {
    let mut seen: Vec<(String, Value)> = Vec::new();
    for field in rt.fields {
        let Gen::Ref(target) = generator(product, rt, field) else {
            continue;
        };
        let Some(value) = json.get(field.name).filter(|v| !v.is_null()).cloned() else {
            continue;
        };
        let refs = s.refs;
        let pool = refs.get(&target).map(Vec::as_slice).unwrap_or_default();
        if pool.len() > 1 && seen.iter().any(|(t, v)| *t == target && *v == value) {
            let at = pool
                .iter()
                .position(|(uid, num)| {
                    value.as_str() == Some(uid.as_str()) || value.as_i64() == Some(*num)
                })
                .unwrap_or(0);
            let other = (at + 1 + s.rng.below(pool.len() as u64 - 1) as usize) % pool.len();
            let (uid, num) = &pool[other];
            let v = if field.ty == "integer" {
                Value::from(*num)
            } else {
                Value::String(uid.clone())
            };
            json.insert(field.name.to_string(), v.clone());
            seen.push((target, v));
        } else {
            seen.push((target, value));
        }
    }
}

/// The seeded record that `json`'s ref field `field` (seeded `ref:<record>`) points to.
fn referenced<'s>(
    product: &Product,
    rt: &RecordType,
    json: &Map<String, Value>,
    s: &'s RecordSeed<'_>,
    field: &Field,
) -> Option<&'s Map<String, Value>> {
    let Gen::Ref(target) = generator(product, rt, field) else {
        return None;
    };
    let wanted = json.get(field.name)?;
    let at = s.refs.get(&target)?.iter().position(|(uid, num)| {
        wanted.as_str() == Some(uid.as_str()) || wanted.as_i64() == Some(*num)
    })?;
    s.stored.get(&target)?.get(at)
}

/// A record that references a stopped record (a delivery to an `inactive` webhook) did not
/// succeed: when its state may be `failed`, it is.
fn failed_under_a_stopped_record(
    product: &Product,
    rt: &RecordType,
    json: &mut Map<String, Value>,
    s: &RecordSeed<'_>,
) {
    let Some(state) = enum_fields(rt).find(|f| f.enum_values.contains(&"failed")) else {
        return;
    };
    let stopped = rt.fields.iter().any(|f| {
        referenced(product, rt, json, s, f)
            .and_then(|parent| parent.get("status"))
            .and_then(Value::as_str)
            .is_some_and(|v| coherence::STOPPED_STATES.contains(&v))
    });
    if stopped {
        json.insert(state.name.to_string(), Value::String("failed".into()));
    }
}

/// The value a `same:<via>.<from>` field takes: `from` of the record the ref field `via` points
/// to, or of the first record of type `via`. `None` when that record is not seeded.
fn same_value(
    product: &Product,
    rt: &RecordType,
    json: &Map<String, Value>,
    s: &RecordSeed<'_>,
    via: &str,
    from: &str,
) -> Option<Value> {
    let source = match rt.fields.iter().find(|f| f.name == via) {
        Some(f) => referenced(product, rt, json, s, f)?,
        None => s.stored.get(via)?.first()?,
    };
    source.get(from).cloned()
}

/// The state field a `<value>_at` timestamp belongs to: `status` when it has that value (an
/// invoice's `canceled_at` is the invoice's, not its `nfe_status`'s), else the first state field
/// that has it.
fn owner_of(rt: &RecordType, value: &str) -> Option<&'static str> {
    let mut having = enum_fields(rt).filter(|f| f.enum_values.contains(&value));
    let first = having.next()?;
    Some(
        std::iter::once(first)
            .chain(having)
            .find(|f| f.name == "status")
            .unwrap_or(first)
            .name,
    )
}

/// `paid_at` stays empty unless the record is `paid` (same for `canceled_at`, …); the first
/// (initial) state's timestamp is kept, and so is the timestamp of a state the current one came
/// through (a canceled NF-e keeps `authorized_at`, see [`coherence::comes_before`]).
/// (Public: a record an action creates changes state after being generated.)
pub fn blank_timestamps_of_other_states(rt: &RecordType, json: &mut Map<String, Value>) {
    for state in enum_fields(rt) {
        let current = json
            .get(state.name)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        // The initial state's timestamp (`received_at` next to `received`) always stays.
        for value in state.enum_values.iter().skip(1) {
            if owner_of(rt, value) != Some(state.name) {
                continue;
            }
            for suffix in ["_at", "_on"] {
                let ts = format!("{value}{suffix}");
                let came_through = coherence::comes_before(&ts, &format!("{current}{suffix}"));
                if *value != current && !came_through && json.contains_key(&ts) {
                    json.insert(ts, Value::Null);
                }
            }
        }
    }
}

/// Whether some list tool lists this record type.
pub fn is_listable(product: &Product, record: &str) -> bool {
    product
        .tools
        .iter()
        .any(|t| matches!(t.operation, Operation::List { record: r } if r == record))
}

/// Whether some tool reads this record type as a singleton (the token's organization).
pub fn is_singleton(product: &Product, record: &str) -> bool {
    product
        .tools
        .iter()
        .any(|t| matches!(t.operation, Operation::Singleton { record: r } if r == record))
}

/// How many records of `rt` to seed: exactly one for a singleton type (whatever else reads it),
/// else the catalog's count, at least 25 for a listable type.
pub fn seed_count(product: &Product, rt: &RecordType) -> usize {
    let n = rt.seed_count as usize;
    if is_singleton(product, rt.name) {
        1
    } else if is_listable(product, rt.name) {
        n.max(25)
    } else {
        n
    }
}

/// Record types in an order where referenced types come first (cycles broken in catalog order).
pub fn dependency_order(product: &'static Product) -> Vec<&'static RecordType> {
    let deps: Vec<Vec<String>> = product
        .records
        .iter()
        .map(|rt| {
            rt.fields
                .iter()
                .filter_map(|f| match generator(product, rt, f) {
                    Gen::Ref(t) | Gen::Refs(t) if t != rt.name => Some(t),
                    Gen::Same(via, _) if via != rt.name && product.record(&via).is_some() => {
                        Some(via)
                    }
                    _ => None,
                })
                .chain(
                    rt.fields
                        .iter()
                        .flat_map(|f| match generator(product, rt, f) {
                            Gen::Links(pairs) => pairs.into_iter().map(|(_, r)| r).collect(),
                            _ => Vec::new(),
                        }),
                )
                .collect()
        })
        .collect();
    let mut done: Vec<bool> = vec![false; product.records.len()];
    let mut order = Vec::new();
    while order.len() < product.records.len() {
        let ready = (0..product.records.len()).find(|&i| {
            !done[i]
                && deps[i].iter().all(|d| {
                    product
                        .records
                        .iter()
                        .position(|r| r.name == d)
                        .map(|j| done[j])
                        .unwrap_or(true)
                })
        });
        let i = ready.unwrap_or_else(|| (0..done.len()).find(|&i| !done[i]).unwrap_or(0));
        done[i] = true;
        order.push(&product.records[i]);
    }
    order
}

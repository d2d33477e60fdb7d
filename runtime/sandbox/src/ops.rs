//! What each catalog [`Operation`] does to the store. Product-agnostic: everything comes from the
//! tool's operation, the record type's fields and the action's declared transition.

use runtime_model::backend::{BackendError, JsonText, Output};
use runtime_model::catalog::{
    Action, Binding, BodyMode, Field, ListEdit, Operation, Product, RecordType, Tool,
};
use runtime_model::locale::Locale;
use runtime_model::texts::Text;
use runtime_model::upload;
use rusqlite::Connection;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use crate::clock;
use crate::coherence;
use crate::envelope;
use crate::files::{self, Files};
use crate::rng::Rng;
use crate::seed::{self, RecordSeed, RefPool};
use crate::store::{self, Row, Scope, StoreError};

/// The largest page a list returns: the `maximum` every list tool's `per_page` schema declares,
/// so a model asking for 100 gets 100 and may read a shorter page as the last one.
pub const MAX_PER_PAGE: u64 = 100;
pub const DEFAULT_PER_PAGE: u64 = 50;

/// Arguments that steer a call and are never record filters.
const CONTROL_ARGS: &[&str] = &[
    "page",
    "per_page",
    "workspace_id",
    "q",
    "search",
    "order",
    "sort",
];

pub fn db(e: StoreError) -> BackendError {
    BackendError::Storage(e.to_string())
}

pub struct Call<'a> {
    pub tx: &'a Connection,
    pub product: &'static Product,
    pub scope: &'a Scope,
    pub tool: &'static Tool,
    pub args: &'a Map<String, Value>,
    pub files: &'a Files,
    pub now: OffsetDateTime,
}

fn record_type(product: &'static Product, name: &str) -> Result<&'static RecordType, BackendError> {
    product.record(name).ok_or_else(|| {
        BackendError::Unsupported(format!(
            "the catalog of {} names record type `{name}`, which it does not declare",
            product.name
        ))
    })
}

fn id_of(args: &Map<String, Value>, id_arg: &str) -> Result<String, BackendError> {
    match args.get(id_arg) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        Some(Value::Number(n)) => Ok(n.to_string()),
        Some(other) => Err(BackendError::Invalid(
            Text::SandboxRecordId.fill(Locale::En, &[("name", &id_arg), ("value", other)]),
        )),
        None => Err(BackendError::Invalid(format!("`{id_arg}` is required"))),
    }
}

fn not_found(rt: &RecordType, id: &str) -> BackendError {
    BackendError::NotFound(format!("{} `{id}`", rt.name))
}

/// The files a multipart (upload) tool received, decoded, as the record describes them: form
/// field, name, size, SHA-256 and media type, never the bytes. Empty for other tools. A file
/// argument that is not base64 is an error naming it; an upload tool given no file at all is an
/// error listing its file arguments.
fn uploaded_files(tool: &Tool, args: &Map<String, Value>) -> Result<Vec<Value>, BackendError> {
    let Binding::Http(ref binding) = tool.binding else {
        return Ok(Vec::new());
    };
    let BodyMode::Multipart { files } = binding.body else {
        return Ok(Vec::new());
    };
    let decoded = upload::decode_files(files, args)?;
    if decoded.is_empty() {
        let names: Vec<String> = files
            .iter()
            .map(|f| format!("`{}`", f.arg.join(".")))
            .collect();
        return Err(BackendError::Invalid(format!(
            "`{}` uploads a file: give {} with the file's content, base64-encoded",
            tool.name,
            names.join(" or ")
        )));
    }
    Ok(decoded
        .into_iter()
        .map(|f| {
            let digest = Sha256::digest(&f.data);
            let sha256 = hex::encode(digest);
            json!({
                "field": f.name,
                "filename": f.filename,
                "content_type": f.media_type,
                "byte_size": f.data.len(),
                "sha256": sha256,
            })
        })
        .collect())
}

/// Executes one tool call inside the caller's transaction.
/// Whether `tool` only reads (list, get, singleton, latest, summary): such calls run on a read
/// connection ([`crate::store::Store::read`]), beside writes instead of after them. Everything
/// else, including `Custom` and uploads, goes to the writer.
pub fn is_read(tool: &Tool) -> bool {
    matches!(
        tool.operation,
        Operation::List { .. }
            | Operation::Get { .. }
            | Operation::GetWhere { .. }
            | Operation::Singleton { .. }
            | Operation::Latest { .. }
            | Operation::Summary { .. }
    )
}

pub fn execute(c: &Call<'_>) -> Result<Output, BackendError> {
    let uploads = uploaded_files(c.tool, c.args)?;
    if !uploads.is_empty() {
        return match c.tool.operation {
            Operation::Create { record } => {
                create_upload(c, record_type(c.product, record)?, uploads)
            }
            _ => Err(BackendError::Unsupported(format!(
                "`{}` uploads a file; the sandbox stores uploads only for `create` operations",
                c.tool.name
            ))),
        };
    }
    match c.tool.operation {
        Operation::List { record } => list(c, record_type(c.product, record)?),
        Operation::Get { record, id_arg } => get(c, record_type(c.product, record)?, id_arg),
        Operation::GetWhere {
            record,
            id_arg,
            field,
            value,
        } => {
            let rt = record_type(c.product, record)?;
            let row = load(c, rt, id_arg)?;
            check_where(&row.json, rt.name, &row.id, field, value)?;
            get(c, rt, id_arg)
        }
        Operation::Singleton { record } => singleton(c, record_type(c.product, record)?),
        Operation::Latest { record } => latest(c, record_type(c.product, record)?),
        Operation::Summary { record, days } => summary_of(c, record_type(c.product, record)?, days),
        Operation::GroupedTotals {
            record,
            date_field,
            amount_field,
            default_by,
        } => grouped_totals(
            c,
            record_type(c.product, record)?,
            date_field,
            amount_field,
            default_by,
        ),
        Operation::Create { record } => create(c, record_type(c.product, record)?),
        Operation::Update { record, id_arg } => update(c, record_type(c.product, record)?, id_arg),
        Operation::Delete { record, id_arg } => delete(c, record_type(c.product, record)?, id_arg),
        Operation::Action {
            record,
            id_arg,
            action,
        } => act(c, record_type(c.product, record)?, id_arg, action),
        Operation::Custom => Err(BackendError::Unsupported(format!(
            "`{}` has no sandbox behaviour (custom operation)",
            c.tool.name
        ))),
        // Answered from the caller's identity before any record is read (`Sandbox::call_blocking`).
        Operation::WhoAmI => Err(BackendError::Unsupported(format!(
            "`{}` answers the caller's identity, which a record operation does not see",
            c.tool.name
        ))),
    }
}

fn positive_int(args: &Map<String, Value>, name: &str, default: u64) -> Result<u64, BackendError> {
    let v = match args.get(name) {
        None | Some(Value::Null) => return Ok(default),
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.parse::<u64>().ok(),
        Some(_) => None,
    };
    match v {
        Some(n) if n >= 1 => Ok(n),
        _ => Err(BackendError::Invalid(Text::SandboxPositiveInteger.fill(
            Locale::En,
            &[
                ("name", &name),
                ("value", &args.get(name).cloned().unwrap_or(Value::Null)),
            ],
        ))),
    }
}

fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Equality as a filter sees it: `"10"` matches `10`; an array field matches if any element does;
/// an array argument matches if the field equals any of its values.
fn filter_matches(field: &Value, arg: &Value) -> bool {
    if let Value::Array(options) = arg {
        return options.iter().any(|o| filter_matches(field, o));
    }
    if let Value::Array(elements) = field {
        return elements.iter().any(|e| filter_matches(e, arg));
    }
    if field == arg {
        return true;
    }
    match (as_text(field), as_text(arg)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// For `created_from` / `expire_to`: the date field bounded, if the record type has one.
fn range_field<'r>(rt: &'r RecordType, arg: &str) -> Option<(&'r Field, bool)> {
    let (stem, lower) = if let Some(s) = arg.strip_suffix("_from") {
        (s, true)
    } else if let Some(s) = arg.strip_suffix("_to") {
        (s, false)
    } else {
        return None;
    };
    let names = [
        format!("{stem}_at"),
        format!("{stem}_on"),
        format!("{stem}_date"),
        stem.to_string(),
    ];
    names
        .iter()
        .find_map(|n| rt.fields.iter().find(|f| f.name == n))
        .map(|f| (f, lower))
}

/// The one field of `rt` whose name ends with `_<arg>`, if exactly one does.
fn suffixed_field(rt: &RecordType, arg: &str) -> Option<&'static str> {
    let suffix = format!("_{arg}");
    let mut found = rt.fields.iter().filter(|f| f.name.ends_with(&suffix));
    match (found.next(), found.next()) {
        (Some(f), None) => Some(f.name),
        _ => None,
    }
}

/// Whether `arg` selects records of `rt` (a field, a field it ends, or a date range bound).
fn selects(rt: &RecordType, arg: &str) -> bool {
    has_field(rt, arg) || suffixed_field(rt, arg).is_some() || range_field(rt, arg).is_some()
}

fn date_part(s: &str) -> &str {
    s.get(0..10).unwrap_or(s)
}

/// What the call's arguments select among the records of a type: equal-valued fields, date
/// ranges (`created_from`, `expire_to`), `q`/`search` text, and for arguments named in a bulk
/// action's `ids_args` (`bank_billet_ids`) the records whose id is one of the values given.
struct Selection<'a> {
    search: Option<String>,
    equal: Vec<(&'a str, &'a Value)>,
    ranges: Vec<(&'static str, bool, String)>,
    ids: Option<Vec<String>>,
}

impl<'a> Selection<'a> {
    fn of(
        args: &'a Map<String, Value>,
        rt: &RecordType,
        ids_args: &[&str],
    ) -> Result<Self, BackendError> {
        let search = args
            .get("q")
            .or_else(|| args.get("search"))
            .and_then(Value::as_str)
            .map(str::to_lowercase);
        let mut equal: Vec<(&str, &Value)> = Vec::new();
        let mut ranges: Vec<(&'static str, bool, String)> = Vec::new();
        let mut ids: Option<Vec<String>> = None;
        for (name, value) in args {
            if CONTROL_ARGS.contains(&name.as_str()) || value.is_null() {
                continue;
            }
            if ids_args.contains(&name.as_str()) {
                let given: Vec<String> = match value {
                    Value::Array(a) => a.iter().filter_map(as_text).collect(),
                    other => as_text(other).into_iter().collect(),
                };
                ids.get_or_insert_with(Vec::new).extend(given);
                continue;
            }
            if rt.fields.iter().any(|f| f.name == name) {
                equal.push((name.as_str(), value));
            } else if let Some(field) = suffixed_field(rt, name) {
                // `cnpj_cpf` selects by `customer_cnpj_cpf` when that is the one field it ends.
                equal.push((field, value));
            } else if let Some((field, lower)) = range_field(rt, name) {
                let bound = as_text(value).ok_or_else(|| {
                    BackendError::Invalid(
                        Text::SandboxDate.fill(Locale::En, &[("name", name), ("value", value)]),
                    )
                })?;
                ranges.push((field.name, lower, bound));
            }
        }
        Ok(Selection {
            search,
            equal,
            ranges,
            ids,
        })
    }

    /// The only fields [`Selection::keeps`] reads of a record (those it compares), or `None`
    /// when it reads the whole record (a `q`/`search` text).
    fn fields_read(&self) -> Option<Vec<&str>> {
        if self.search.is_some() {
            return None;
        }
        let equal = self.equal.iter().map(|(name, _)| *name);
        let ranges = self.ranges.iter().map(|(name, _, _)| *name);
        Some(equal.chain(ranges).collect())
    }

    /// Every record is selected: the store can page without reading the rest.
    fn is_all(&self) -> bool {
        self.search.is_none()
            && self.equal.is_empty()
            && self.ranges.is_empty()
            && self.ids.is_none()
    }

    fn keeps(&self, row: &Row) -> bool {
        self.ids.as_ref().is_none_or(|ids| {
            ids.iter()
                .any(|i| *i == row.id || i.parse::<i64>().ok() == Some(row.seq))
        }) && self.equal.iter().all(|(name, arg)| {
            row.json
                .get(*name)
                .is_some_and(|field| filter_matches(field, arg))
        }) && self.ranges.iter().all(|(name, lower, bound)| {
            match row.json.get(*name).and_then(Value::as_str) {
                Some(v) => {
                    let (v, b) = (date_part(v), date_part(bound));
                    if *lower {
                        v >= b
                    } else {
                        v <= b
                    }
                }
                None => false,
            }
        }) && self.search.as_ref().is_none_or(|q| {
            Value::Object(row.json.clone())
                .to_string()
                .to_lowercase()
                .contains(q)
        })
    }
}

/// The records of `rt` the call's arguments select ([`Selection`]), newest first.
fn select(c: &Call<'_>, rt: &RecordType, ids_args: &[&str]) -> Result<Vec<Row>, BackendError> {
    let selection = Selection::of(c.args, rt, ids_args)?;
    let rows = store::list(c.tx, c.scope, rt.name).map_err(db)?;
    Ok(rows
        .into_iter()
        .filter(|row| selection.keeps(row))
        .collect())
}

fn list(c: &Call<'_>, rt: &RecordType) -> Result<Output, BackendError> {
    let page = positive_int(c.args, "page", 1)?;
    let per_page = positive_int(c.args, "per_page", DEFAULT_PER_PAGE)?.min(MAX_PER_PAGE);
    let start = (page - 1).saturating_mul(per_page);
    let selection = Selection::of(c.args, rt, &[])?;
    // One row past the page tells whether there is a next one.
    if selection.is_all() {
        // The stored texts joined as they are: no record is parsed, none serialized again, and
        // the text block's escaped copy is joined from the stored escaped texts.
        let text = envelope::page_text(c.tool, page, per_page, |out| {
            let expected = usize::try_from(per_page).unwrap_or(usize::MAX);
            let read = store::list_page_json(
                c.tx,
                c.scope,
                rt.name,
                start,
                per_page + 1,
                |json, in_string| {
                    if out.records() < expected {
                        out.push_record(json, in_string, expected);
                    }
                },
            )
            .map_err(db)?;
            Ok::<_, BackendError>(read as u64 > per_page)
        })?;
        return Ok(Output::JsonText(JsonText::from_trusted_with_in_string(
            text.json,
            text.in_string,
        )));
    }
    // A filtered page: each record is parsed only as far as `keeps` reads it (the fields it
    // compares, the others skipped), the reading stops one record past the page, and the page is
    // joined from the kept records' stored texts, as above.
    let fields = selection.fields_read();
    let text = envelope::page_text(c.tool, page, per_page, |out| {
        let expected = usize::try_from(per_page).unwrap_or(usize::MAX);
        let mut kept: u64 = 0;
        let mut has_next = false;
        store::scan_texts(c.tx, c.scope, rt.name, |record| {
            if !selection.keeps(&record.parsed(fields.as_deref())) {
                return Ok(true);
            }
            kept += 1;
            if kept <= start {
                return Ok(true);
            }
            if out.records() == expected {
                has_next = true;
                return Ok(false);
            }
            out.push_record(record.json, record.in_string()?, expected);
            Ok(true)
        })
        .map_err(db)?;
        Ok::<_, BackendError>(has_next)
    })?;
    Ok(Output::JsonText(JsonText::from_trusted_with_in_string(
        text.json,
        text.in_string,
    )))
}

/// A record read through a `GetWhere` tool must have `field` = `value`; another is not found,
/// saying what it is.
pub fn check_where(
    json: &Map<String, Value>,
    record: &str,
    id: &str,
    field: &str,
    value: &str,
) -> Result<(), BackendError> {
    let got = json.get(field).and_then(as_text);
    if got.as_deref() == Some(value) {
        return Ok(());
    }
    Err(BackendError::NotFound(format!(
        "{record} `{id}`: {field} `{value}` ≠ `{}`",
        got.unwrap_or_default()
    )))
}

fn load(c: &Call<'_>, rt: &RecordType, id_arg: &str) -> Result<Row, BackendError> {
    let id = id_of(c.args, id_arg)?;
    store::get(c.tx, c.scope, rt.name, &id)
        .map_err(db)?
        .ok_or_else(|| not_found(rt, &id))
}

fn get(c: &Call<'_>, rt: &RecordType, id_arg: &str) -> Result<Output, BackendError> {
    let row = load(c, rt, id_arg)?;
    files::render(c.product, c.tool, rt, &row, c.scope, c.files, c.now)
        .unwrap_or_else(|| Ok(Output::Json(envelope::one(c.tool, row.json))))
}

/// The one record of a singleton type in the caller's scope (the token's organization). The seed
/// makes exactly one; should a scope somehow hold more, the oldest is the one.
fn singleton(c: &Call<'_>, rt: &RecordType) -> Result<Output, BackendError> {
    let row = store::list(c.tx, c.scope, rt.name)
        .map_err(db)?
        .into_iter()
        .min_by_key(|r| r.seq)
        .ok_or_else(|| {
            BackendError::NotFound(
                Text::SandboxNoneInScope.fill(Locale::En, &[("record", &rt.name)]),
            )
        })?;
    Ok(Output::Json(envelope::one(c.tool, row.json)))
}

/// The most recent record the arguments select (by its date field, else by creation). Nothing
/// selected is not found, naming the arguments, so an unknown account never reads as "no data".
fn latest(c: &Call<'_>, rt: &RecordType) -> Result<Output, BackendError> {
    let date_field = date_field_of(rt);
    // By date (a record without one, such as a fresh adjustment, dates from its creation),
    // then by creation order.
    let key = |r: &Row| {
        let date = date_field
            .and_then(|f| r.json.get(f))
            .and_then(Value::as_str)
            .or_else(|| r.json.get("created_at").and_then(Value::as_str))
            .map(date_part)
            .unwrap_or_default()
            .to_string();
        (date, r.seq)
    };
    let newest = select(c, rt, &[])?.into_iter().max_by_key(key);
    match newest {
        Some(row) => Ok(Output::Json(envelope::one(c.tool, row.json))),
        None => {
            let given: Vec<String> = c
                .args
                .iter()
                .filter(|(k, v)| !CONTROL_ARGS.contains(&k.as_str()) && !v.is_null())
                .map(|(k, v)| format!("{k} {}", as_text(v).unwrap_or_else(|| v.to_string())))
                .collect();
            Err(BackendError::NotFound(if given.is_empty() {
                Text::SandboxNoneRecorded.fill(Locale::En, &[("record", &rt.name)])
            } else {
                Text::SandboxNoneFor.fill(
                    Locale::En,
                    &[("record", &rt.name), ("given", &given.join(", "))],
                )
            }))
        }
    }
}

/// An amount rounded to the cent.
fn round_cents(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The field that dates a record: its `date`, else when it happened, else its creation.
fn date_field_of(rt: &RecordType) -> Option<&'static str> {
    ["date", "occurred_at", "created_at"]
        .into_iter()
        .find(|f| has_field(rt, f))
}

/// Totals of every numeric field (ids and `*_id` references aside) over the records the
/// arguments select; without a date bound among the arguments, over the last `days` days
/// (today included). One aggregate with its window and the number of records it covers.
fn summary_of(c: &Call<'_>, rt: &RecordType, days: u32) -> Result<Output, BackendError> {
    let bounded = c
        .args
        .keys()
        .any(|k| (k.ends_with("_from") || k.ends_with("_to")) && range_field(rt, k).is_some());
    let date_field = date_field_of(rt);
    let today = c.now.date();
    let since = (days > 0 && !bounded)
        .then(|| today - time::Duration::days(i64::from(days) - 1))
        .map(clock::date_string);
    let rows: Vec<Row> = select(c, rt, &[])?
        .into_iter()
        .filter(|r| match (&since, date_field) {
            (Some(since), Some(f)) => r
                .json
                .get(f)
                .and_then(Value::as_str)
                .is_some_and(|d| date_part(d) >= since.as_str()),
            _ => true,
        })
        .collect();
    let numeric: Vec<&Field> = rt
        .fields
        .iter()
        .filter(|f| matches!(f.ty, "integer" | "number"))
        .filter(|f| f.name != "id" && !f.name.ends_with("_id"))
        .collect();
    let mut totals = Map::new();
    for f in numeric {
        let values = rows.iter().filter_map(|r| r.json.get(f.name));
        let v = if f.ty == "integer" {
            Value::from(values.filter_map(Value::as_i64).sum::<i64>())
        } else {
            let sum: f64 = values.filter_map(Value::as_f64).sum();
            Value::from(round_cents(sum))
        };
        totals.insert(f.name.to_string(), v);
    }
    let mut answer = Map::new();
    answer.insert("record_type".into(), Value::String(rt.name.to_string()));
    if let Some(since) = since {
        answer.insert("from".into(), Value::String(since));
        answer.insert("to".into(), Value::String(clock::date_string(today)));
        answer.insert("days".into(), Value::from(days));
    }
    answer.insert("records".into(), Value::from(rows.len()));
    answer.insert("totals".into(), Value::Object(totals));
    Ok(Output::Json(envelope::one(c.tool, answer)))
}

/// A record's bucket for a date dimension: `2026-07-14` by day, `2026-W29` (ISO week) by week,
/// `2026-07` by month.
fn date_bucket(date: &str, dim: &str) -> Option<String> {
    let day = date_part(date);
    match dim {
        "day" => Some(day.to_string()),
        "month" => day.get(0..7).map(str::to_string),
        "week" => {
            let d = clock::parse_date(day)?;
            let (year, week, _) = d.to_iso_week_date();
            Some(format!("{year}-W{week:02}"))
        }
        _ => None,
    }
}

/// One group of [`grouped_totals`]: its dimension values, its records, and their credits and
/// debits (a positive figure).
struct Group {
    values: Map<String, Value>,
    count: u64,
    credit: f64,
    debit: f64,
}

/// Totals per group (see [`Operation::GroupedTotals`]): the records the arguments select,
/// grouped by the `group_by` dimensions, each group with its dimension values, `count`, and the
/// signed amount split into `credit_total`, `debit_total` (a positive figure) and `net_total`.
/// A field dimension brings its `<field>_description` when the record has one. Groups are in
/// ascending order of their dimension values; the answer echoes the filters it applied.
fn grouped_totals(
    c: &Call<'_>,
    rt: &RecordType,
    date_field: &str,
    amount_field: &str,
    default_by: &str,
) -> Result<Output, BackendError> {
    let by = match c.args.get("group_by") {
        None | Some(Value::Null) => default_by.to_string(),
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(other) => {
            return Err(BackendError::Invalid(
                Text::SandboxGroupByList.fill(Locale::En, &[("value", other)]),
            ))
        }
    };
    let mut dims: Vec<&str> = Vec::new();
    for dim in by.split(',').map(str::trim) {
        if !["day", "week", "month"].contains(&dim) && !has_field(rt, dim) {
            let fields: Vec<&str> = rt.fields.iter().map(|f| f.name).collect();
            return Err(BackendError::Invalid(Text::SandboxGroupByDimension.fill(
                Locale::En,
                &[("dimension", &dim), ("fields", &fields.join(", "))],
            )));
        }
        if !dims.contains(&dim) {
            dims.push(dim);
        }
    }
    let mut groups: std::collections::BTreeMap<Vec<String>, Group> =
        std::collections::BTreeMap::new();
    for row in select(c, rt, &[])? {
        let mut values = Map::new();
        let mut key = Vec::with_capacity(dims.len());
        for dim in &dims {
            let v = match date_bucket(
                row.json
                    .get(date_field)
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
                dim,
            ) {
                Some(bucket) => Value::String(bucket),
                None => row.json.get(*dim).cloned().unwrap_or(Value::Null),
            };
            key.push(v.to_string());
            values.insert(dim.to_string(), v);
            let described = format!("{dim}_description");
            if let Some(d) = row.json.get(&described) {
                values.insert(described, d.clone());
            }
        }
        let amount = row
            .json
            .get(amount_field)
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        let g = groups.entry(key).or_insert_with(|| Group {
            values,
            count: 0,
            credit: 0.0,
            debit: 0.0,
        });
        g.count += 1;
        if amount >= 0.0 {
            g.credit += amount;
        } else {
            g.debit -= amount;
        }
    }
    let data: Vec<Value> = groups
        .into_values()
        .map(
            |Group {
                 mut values,
                 count,
                 credit,
                 debit,
             }| {
                values.insert("count".into(), Value::from(count));
                values.insert("credit_total".into(), Value::from(round_cents(credit)));
                values.insert("debit_total".into(), Value::from(round_cents(debit)));
                values.insert("net_total".into(), Value::from(round_cents(credit - debit)));
                Value::Object(values)
            },
        )
        .collect();
    let filters: Map<String, Value> = c
        .args
        .iter()
        .filter(|(k, v)| !CONTROL_ARGS.contains(&k.as_str()) && !v.is_null() && *k != "group_by")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(Output::Json(if envelope::is_v2(c.tool) {
        json!({"status": 200, "data": data, "filters": filters})
    } else {
        Value::Array(data)
    }))
}

/// Arguments that are fields of the record (except its ids), typed as the field says.
fn field_args(rt: &RecordType, args: &Map<String, Value>, skip: &[&str]) -> Map<String, Value> {
    let mut out = Map::new();
    for field in rt.fields {
        if field.name == rt.id_field || field.name == "id" || skip.contains(&field.name) {
            continue;
        }
        if let Some(v) = args.get(field.name) {
            out.insert(field.name.to_string(), v.clone());
        }
    }
    out
}

fn has_field(rt: &RecordType, name: &str) -> bool {
    rt.fields.iter().any(|f| f.name == name)
}

fn touch(rt: &RecordType, json: &mut Map<String, Value>, now: OffsetDateTime) {
    if has_field(rt, "updated_at") {
        json.insert(
            "updated_at".into(),
            Value::String(clock::datetime_string(now)),
        );
    }
}

fn new_row(
    c: &Call<'_>,
    rt: &RecordType,
    mut json: Map<String, Value>,
) -> Result<(Row, String), BackendError> {
    let seq = store::next_seq(c.tx, c.scope, rt.name).map_err(db)?;
    let created = clock::datetime_string(c.now);
    let mut rng = Rng::derived(seq as u64 ^ c.now.unix_timestamp_nanos() as u64, rt.name);
    let id =
        crate::brazil::uuid_v7_like(&mut rng, (c.now.unix_timestamp_nanos() / 1_000_000) as i64);
    json.insert(rt.id_field.to_string(), Value::String(id.clone()));
    if rt.numeric_id {
        json.insert("id".into(), Value::from(seq));
    }
    for stamp in ["created_at", "updated_at"] {
        if has_field(rt, stamp) {
            json.insert(stamp.into(), Value::String(created.clone()));
        }
    }
    if !c.scope.workspace.is_empty() && has_field(rt, "workspace_id") {
        json.insert(
            "workspace_id".into(),
            Value::String(c.scope.workspace.clone()),
        );
    }
    // The initial state: the first declared value of each state field not given.
    for field in rt.fields.iter().filter(|f| !f.enum_values.is_empty()) {
        if !json.contains_key(field.name) {
            json.insert(
                field.name.to_string(),
                seed::typed_value(field, field.enum_values[0]),
            );
        }
    }
    Ok((Row { id, seq, json }, created))
}

/// The seed's agreements kept by a write through a tool (`coherence::on_write`); a write that
/// would break one is refused with the reason.
fn agreed(
    c: &Call<'_>,
    rt: &RecordType,
    json: &mut Map<String, Value>,
    renew: bool,
) -> Result<(), BackendError> {
    coherence::on_write(rt, json, c.args, c.now, renew).map_err(BackendError::Invalid)
}

fn create(c: &Call<'_>, rt: &RecordType) -> Result<Output, BackendError> {
    let json = field_args(rt, c.args, &[]);
    let (mut row, created) = new_row(c, rt, json)?;
    agreed(c, rt, &mut row.json, false)?;
    let bank = wallet_bank(c, rt, &row.json)?;
    crate::payment_codes::new_record(rt, &mut row.json, bank.as_deref());
    store::put(c.tx, c.scope, rt.name, &row, &created).map_err(db)?;
    Ok(Output::Json(envelope::one(c.tool, row.json)))
}

/// The bank slug (`bank_contract_slug`) of the record a created record's reference field names,
/// when it has one: a billet's codes name its wallet's bank, as a seeded billet's do.
fn wallet_bank(
    c: &Call<'_>,
    rt: &RecordType,
    json: &Map<String, Value>,
) -> Result<Option<String>, BackendError> {
    for field in rt.fields {
        let Some(target) = field.seed.strip_prefix("ref:") else {
            continue;
        };
        let key = match json.get(field.name) {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => continue,
        };
        let referenced = store::get(c.tx, c.scope, target, &key).map_err(db)?;
        let slug = referenced.and_then(|r| {
            r.json
                .get("bank_contract_slug")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        if slug.is_some() {
            return Ok(slug);
        }
    }
    Ok(None)
}

/// Key of a created record listing the files it was uploaded with.
pub const UPLOADED_FILES: &str = "uploaded_files";

/// A record created by an upload: the fields given, plus what was uploaded (`uploaded_files`),
/// and, when the type has a `filename` field left empty, the first file's name, as the API
/// fills it.
fn create_upload(
    c: &Call<'_>,
    rt: &RecordType,
    uploads: Vec<Value>,
) -> Result<Output, BackendError> {
    let mut json = field_args(rt, c.args, &[]);
    let blank = json
        .get("filename")
        .is_none_or(|v| v.as_str().is_none_or(str::is_empty));
    if has_field(rt, "filename") && blank {
        if let Some(name) = uploads.first().and_then(|u| u.get("filename")).cloned() {
            json.insert("filename".into(), name);
        }
    }
    json.insert(UPLOADED_FILES.into(), Value::Array(uploads));
    let (mut row, created) = new_row(c, rt, json)?;
    agreed(c, rt, &mut row.json, false)?;
    store::put(c.tx, c.scope, rt.name, &row, &created).map_err(db)?;
    Ok(Output::Json(envelope::one(c.tool, row.json)))
}

/// What an update sets: the record type's fields among the arguments, and every other argument
/// the tool sends in the API's request body (an update tool's schema is the API's, whose fields
/// the record type need not all declare: a billet's `notes`, `tags`, `instructions`). A secret
/// (a credential, file bytes; [`runtime_model::secrets`]) is accepted but never stored.
///
/// Also says whether any body argument was given: an update of a secret alone (a new password),
/// or of a stamp the sandbox keeps (`created_at`), is accepted though nothing it shows changes.
fn update_args(c: &Call<'_>, rt: &RecordType, id_arg: &str) -> (Map<String, Value>, bool) {
    let mut changes = field_args(rt, c.args, &[id_arg, "created_at"]);
    let Binding::Http(http) = c.tool.binding else {
        return (changes, false);
    };
    let body: Vec<(&String, &Value)> = c
        .args
        .iter()
        .filter(|(k, _)| {
            k.as_str() != id_arg && !CONTROL_ARGS.contains(&k.as_str()) && http.sends_in_body(k)
        })
        .collect();
    let extra: Map<String, Value> = body
        .iter()
        .filter(|(k, _)| !has_field(rt, k))
        .map(|(k, v)| ((*k).clone(), (*v).clone()))
        .collect();
    if extra.is_empty() {
        return (changes, !body.is_empty());
    }
    let schema: Value = serde_json::from_str(c.tool.input_schema_json).unwrap_or(Value::Null);
    let shown = runtime_model::secrets::redact(&schema, &extra);
    for (k, v) in &extra {
        let kept = shown.get(k.as_str()).cloned().unwrap_or(Value::Null);
        // A whole secret value is left out; an object keeps its other keys, its secrets masked.
        let whole_secret = kept.as_str() == Some(runtime_model::secrets::REDACTED) && kept != *v;
        if !whole_secret {
            changes.insert(k.clone(), kept);
        }
    }
    (changes, true)
}

fn update(c: &Call<'_>, rt: &RecordType, id_arg: &str) -> Result<Output, BackendError> {
    let mut row = load(c, rt, id_arg)?;
    let (changes, body_given) = update_args(c, rt, id_arg);
    if changes.is_empty() && !body_given {
        let fields = rt.fields.iter().map(|f| f.name).collect::<Vec<_>>();
        return Err(BackendError::Invalid(Text::DetailNothingToUpdate.fill(
            Locale::En,
            &[("record", &rt.name), ("fields", &fields.join(", "))],
        )));
    }
    row.json.extend(changes);
    agreed(c, rt, &mut row.json, false)?;
    crate::payment_codes::refresh(&mut row.json);
    touch(rt, &mut row.json, c.now);
    let created = created_of(&row);
    store::put(c.tx, c.scope, rt.name, &row, &created).map_err(db)?;
    Ok(Output::Json(envelope::one(c.tool, row.json)))
}

fn created_of(row: &Row) -> String {
    row.json
        .get("created_at")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_default()
}

fn delete(c: &Call<'_>, rt: &RecordType, id_arg: &str) -> Result<Output, BackendError> {
    let row = load(c, rt, id_arg)?;
    store::delete(c.tx, c.scope, rt.name, &row.id).map_err(db)?;
    let mut answer = Map::new();
    answer.insert(rt.id_field.to_string(), Value::String(row.id.clone()));
    answer.insert("deleted".into(), Value::Bool(true));
    Ok(Output::Json(envelope::one(c.tool, answer)))
}

/// An action's declared value: `now`, `today`, `null`, or a literal typed like the field.
fn action_value(rt: &RecordType, field: &str, raw: &str, now: OffsetDateTime) -> Value {
    match raw {
        "now" => Value::String(clock::datetime_string(now)),
        "today" => Value::String(clock::date_string(now.date())),
        _ => match rt.fields.iter().find(|f| f.name == field) {
            Some(f) => seed::typed_value(f, raw),
            None => Value::String(raw.to_string()),
        },
    }
}

/// A bulk action (no `id_arg`): the action on every record the arguments select that is in an
/// allowed state; the others are left as they are and counted. Answers what was changed.
fn act_all(c: &Call<'_>, rt: &RecordType, action: &Action) -> Result<Output, BackendError> {
    let ids_args: Vec<&str> = c
        .args
        .keys()
        .map(String::as_str)
        .filter(|k| k.ends_with("_ids") && !has_field(rt, k))
        .collect();
    let given: Vec<&str> = c
        .args
        .iter()
        .filter(|(k, v)| !v.is_null() && !CONTROL_ARGS.contains(&k.as_str()))
        .map(|(k, _)| k.as_str())
        .collect();
    // A filter the sandbox cannot apply would widen a bulk change: refuse it by name.
    let unknown: Vec<String> = given
        .iter()
        .filter(|k| !ids_args.contains(k) && !selects(rt, k))
        .map(|k| format!("`{k}`"))
        .collect();
    if !unknown.is_empty() {
        let fields = rt.fields.iter().map(|f| f.name).collect::<Vec<_>>();
        return Err(BackendError::Invalid(Text::SandboxCannotSelect.fill(
            Locale::En,
            &[
                ("tool", &c.tool.name),
                ("record", &rt.name),
                ("unknown", &unknown.join(", ")),
                ("fields", &fields.join(", ")),
            ],
        )));
    }
    if given.is_empty() {
        return Err(BackendError::Invalid(
            Text::SandboxNeedsFilter.fill(Locale::En, &[("tool", &c.tool.name)]),
        ));
    }
    let selected = select(c, rt, &ids_args)?;
    let mut changed = Vec::new();
    let mut skipped = 0usize;
    for mut row in selected {
        let current = row
            .json
            .get(action.state_field)
            .and_then(as_text_ref)
            .unwrap_or_default();
        if !action.from.is_empty() && !action.from.contains(&current.as_str()) {
            skipped += 1;
            continue;
        }
        apply_set(c, rt, &mut row, action);
        let created_at = created_of(&row);
        store::put(c.tx, c.scope, rt.name, &row, &created_at).map_err(db)?;
        changed.push(Value::String(row.id.clone()));
    }
    let mut answer = Map::new();
    answer.insert("action".into(), Value::String(action.name.to_string()));
    answer.insert("count".into(), Value::from(changed.len()));
    answer.insert(format!("{}s", rt.id_field), Value::Array(changed));
    answer.insert("skipped".into(), Value::from(skipped));
    Ok(Output::Json(envelope::one(c.tool, answer)))
}

/// Sets an action's declared fields (stamping `<state>_at` when the record has it) and `updated_at`.
fn apply_set(c: &Call<'_>, rt: &RecordType, row: &mut Row, action: &Action) {
    for (field, raw) in action.set {
        let v = action_value(rt, field, raw, c.now);
        // `status: paid` also stamps `paid_at` when the record has it.
        if *field == action.state_field {
            let stamp = format!("{raw}_at");
            if has_field(rt, &stamp) {
                row.json
                    .insert(stamp, Value::String(clock::datetime_string(c.now)));
            }
        }
        row.json.insert(field.to_string(), v);
    }
    touch(rt, &mut row.json, c.now);
}

fn act(
    c: &Call<'_>,
    rt: &RecordType,
    id_arg: &str,
    action: &Action,
) -> Result<Output, BackendError> {
    if id_arg.is_empty() {
        return act_all(c, rt, action);
    }
    let mut row = load(c, rt, id_arg)?;
    let current = row
        .json
        .get(action.state_field)
        .and_then(as_text_ref)
        .unwrap_or_default();
    if !action.from.is_empty() && !action.from.contains(&current.as_str()) {
        let from = action
            .from
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(BackendError::Conflict(Text::SandboxState.fill(
            Locale::En,
            &[
                ("action", &action.name),
                ("record", &rt.name),
                ("id", &row.id),
                ("field", &action.state_field),
                ("state", &current),
                ("from", &from),
            ],
        )));
    }
    let edit_args: Vec<&str> = [action.add, action.remove]
        .iter()
        .flatten()
        .map(|e| e.from_arg)
        .collect();
    let mut skip = vec![id_arg, action.state_field, "created_at"];
    skip.extend(&edit_args);
    if let Some(edit) = action.add {
        edit_list(c, rt, &mut row, edit, ListChange::Add)?;
    }
    if let Some(edit) = action.remove {
        edit_list(c, rt, &mut row, edit, ListChange::Remove)?;
    }
    let extra = field_args(rt, c.args, &skip);
    row.json.extend(extra);
    apply_set(c, rt, &mut row, action);
    agreed(c, rt, &mut row.json, true)?;
    let created_at = created_of(&row);
    store::put(c.tx, c.scope, rt.name, &row, &created_at).map_err(db)?;

    let mut answer = row.json.clone();
    if let Some(target) = action.creates {
        let trt = record_type(c.product, target)?;
        let made = create_linked(c, trt, rt, &row, action)?;
        answer.insert(target.to_string(), Value::Object(made));
    }
    Ok(Output::Json(envelope::one(c.tool, answer)))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListChange {
    Add,
    Remove,
}

/// Adds the argument's value to (or removes it from) an array field of the record, in memory; the
/// caller stores the record in the same transaction. Adding a value already present changes
/// nothing (the call stays idempotent); removing a value that is not there is a conflict naming it.
fn edit_list(
    c: &Call<'_>,
    rt: &RecordType,
    row: &mut Row,
    edit: ListEdit,
    change: ListChange,
) -> Result<(), BackendError> {
    let value = match c.args.get(edit.from_arg) {
        None | Some(Value::Null) => {
            return Err(BackendError::Invalid(format!(
                "`{}` is required",
                edit.from_arg
            )))
        }
        Some(Value::String(s)) if s.trim().is_empty() => {
            return Err(BackendError::Invalid(
                Text::SandboxEmpty.fill(Locale::En, &[("name", &edit.from_arg)]),
            ))
        }
        Some(v) => v.clone(),
    };
    let slot = row
        .json
        .entry(edit.field.to_string())
        .or_insert(Value::Null);
    if slot.is_null() {
        *slot = Value::Array(Vec::new());
    }
    let Value::Array(items) = slot else {
        return Err(BackendError::Unavailable(format!(
            "{} `{}`: its `{}` holds {slot}, not a list",
            rt.name, row.id, edit.field
        )));
    };
    // An array argument, or comma-separated text (`bank_billet_ids`), edits each of its values.
    let values = match value {
        Value::Array(values) => values,
        Value::String(text) => coherence::list_items(&text),
        one => vec![one],
    };
    for value in values {
        let same = |item: &Value| {
            item == &value || as_text(item).is_some_and(|t| Some(t) == as_text(&value))
        };
        let position = items.iter().position(same);
        match (change, position) {
            (ListChange::Add, Some(_)) => {}
            (ListChange::Add, None) => items.push(value),
            (ListChange::Remove, Some(at)) => {
                items.remove(at);
            }
            (ListChange::Remove, None) => {
                return Err(BackendError::Conflict(Text::SandboxNotInList.fill(
                    Locale::En,
                    &[
                        ("record", &rt.name),
                        ("id", &row.id),
                        ("value", &value),
                        ("field", &edit.field),
                    ],
                )))
            }
        }
    }
    Ok(())
}

fn as_text_ref(v: &Value) -> Option<String> {
    as_text(v)
}

/// The record an action creates (pay → a payment): seeded like any record of its type, then
/// linked to the source, carrying the source's shared fields (amount, paid_at, …) and the
/// call's arguments, in the state the action set when that type has it.
fn create_linked(
    c: &Call<'_>,
    trt: &'static RecordType,
    source_rt: &RecordType,
    source: &Row,
    action: &Action,
) -> Result<Map<String, Value>, BackendError> {
    let seq = store::next_seq(c.tx, c.scope, trt.name).map_err(db)?;
    let mut rng = Rng::derived(seq as u64, &format!("{}:{}", trt.name, source.id));
    let refs = RefPool::new();
    let stored = seed::Stored::new();
    let mut s = RecordSeed {
        rng: &mut rng,
        now: c.now,
        index: usize::MAX,
        seq,
        refs: &refs,
        stored: &stored,
    };
    let seeded = seed::generate_record(c.product, trt, &mut s);
    let mut json = seeded.json;
    for field in trt.fields {
        let points_to_source = matches!(
            seed::generator(c.product, trt, field),
            seed::Gen::Ref(ref t) if t == source_rt.name
        );
        if points_to_source {
            let v = if field.ty == "integer" {
                Value::from(source.seq)
            } else {
                Value::String(source.id.clone())
            };
            json.insert(field.name.to_string(), v);
        } else if !field.enum_values.is_empty() {
            let set_value = action
                .set
                .iter()
                .map(|(_, v)| *v)
                .find(|v| field.enum_values.contains(v))
                .unwrap_or(field.enum_values[0]);
            json.insert(field.name.to_string(), seed::typed_value(field, set_value));
        } else if ![trt.id_field, "id", "uid", "created_at", "updated_at"].contains(&field.name) {
            if let Some(v) = source.json.get(field.name).filter(|v| !v.is_null()) {
                json.insert(field.name.to_string(), v.clone());
            }
        }
    }
    json.extend(field_args(trt, c.args, &["created_at"]));
    // Its state was just set: timestamps of the other states do not apply.
    seed::blank_timestamps_of_other_states(trt, &mut json);
    for stamp in ["created_at", "updated_at"] {
        if has_field(trt, stamp) {
            json.insert(stamp.into(), Value::String(clock::datetime_string(c.now)));
        }
    }
    let mut rng = Rng::derived(seq as u64 ^ 0x5eed, trt.name);
    let id =
        crate::brazil::uuid_v7_like(&mut rng, (c.now.unix_timestamp_nanos() / 1_000_000) as i64);
    json.insert(trt.id_field.to_string(), Value::String(id.clone()));
    if trt.numeric_id {
        json.insert("id".into(), Value::from(seq));
    }
    let row = Row { id, seq, json };
    store::put(
        c.tx,
        c.scope,
        trt.name,
        &row,
        &clock::datetime_string(c.now),
    )
    .map_err(db)?;
    Ok(row.json)
}

/// The record type of a workspaced product that describes its workspaces.
pub const WORKSPACES: &str = "workspaces";

/// Seeds one scope: every record type of the product, referenced types first.
pub fn seed_scope(
    tx: &Connection,
    product: &'static Product,
    scope: &Scope,
    seed_number: u64,
    now: OffsetDateTime,
) -> Result<usize, StoreError> {
    let mut refs = RefPool::new();
    let mut stored = seed::Stored::new();
    let mut total = 0;
    let label = format!(
        "{}/{}/{}",
        scope.product, scope.organization, scope.workspace
    );
    for rt in seed::dependency_order(product) {
        let mut rng = Rng::derived(seed_number, &format!("{label}/{}", rt.name));
        let mut seeded = Vec::new();
        for index in 0..seed::seed_count(product, rt) {
            let mut s = RecordSeed {
                rng: &mut rng,
                now,
                index,
                seq: index as i64 + 1,
                refs: &refs,
                stored: &stored,
            };
            seeded.push(seed::generate_record(product, rt, &mut s));
        }
        // Numeric ids grow with creation time, as the API's do.
        seeded.sort_by_key(|r| r.created_at);
        // The record type describing workspaces holds the scope's own workspace, under its id,
        // so a connection can read the workspace it works in; as its newest record, so the
        // first page of the list shows it.
        if product.policy.workspaced && rt.name == WORKSPACES && !scope.workspace.is_empty() {
            if let Some(own) = seeded.last_mut() {
                own.id = scope.workspace.clone();
                own.json.insert(
                    rt.id_field.to_string(),
                    Value::String(scope.workspace.clone()),
                );
            }
        }
        let mut ids = Vec::new();
        let mut jsons = Vec::new();
        for (index, mut rec) in seeded.into_iter().enumerate() {
            let seq = index as i64 + 1;
            if rt.numeric_id {
                rec.json.insert("id".into(), Value::from(seq));
            }
            if !scope.workspace.is_empty() && has_field(rt, "workspace_id") {
                rec.json.insert(
                    "workspace_id".into(),
                    Value::String(scope.workspace.clone()),
                );
            }
            let created = clock::datetime_string(rec.created_at);
            let row = Row {
                id: rec.id.clone(),
                seq,
                json: rec.json,
            };
            store::put(tx, scope, rt.name, &row, &created)?;
            ids.push((rec.id, seq));
            jsons.push(row.json);
            total += 1;
        }
        refs.insert(rt.name.to_string(), ids);
        stored.insert(rt.name.to_string(), jsons);
    }
    store::mark_seeded(tx, scope, seed_number)?;
    Ok(total)
}

/// A summary of the seeded data of one scope, for `sandbox seed` output.
pub fn summary(
    tx: &Connection,
    product: &'static Product,
    scope: &Scope,
) -> Result<Value, StoreError> {
    let mut counts = Map::new();
    for rt in product.records {
        counts.insert(
            rt.name.to_string(),
            json!(store::count(tx, scope, rt.name)?),
        );
    }
    Ok(Value::Object(counts))
}

#[cfg(test)]
mod upload_tests {
    use super::*;
    use runtime_model::catalog::{FileField, HttpBinding, HttpMethod};

    const fn tool(body: BodyMode) -> Tool {
        Tool::bare(
            "t_upload",
            Binding::Http(HttpBinding {
                method: HttpMethod::Post,
                path: "/v1/x",
                path_params: &[],
                query_params: &[],
                body,
                operation_ref: None,
            }),
        )
    }

    static UPLOAD: Tool = tool(BodyMode::Multipart {
        files: &[FileField {
            arg: &["doc", "file"],
            filename_arg: Some(&["doc", "name"]),
            filename_is_field: false,
            default_filename: "doc.bin",
            media_type: "text/plain",
        }],
    });
    static JSON: Tool = tool(BodyMode::Rest);

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn an_upload_is_described_by_name_size_and_digest() {
        // "abc": its SHA-256 is the FIPS 180-2 test vector.
        let got = uploaded_files(
            &UPLOAD,
            &args(json!({"doc": {"file": "YWJj", "name": "a/b/notes.txt"}})),
        )
        .unwrap();
        assert_eq!(
            got,
            vec![json!({
                "field": "doc[file]",
                "filename": "notes.txt",
                "content_type": "text/plain",
                "byte_size": 3,
                "sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            })]
        );
    }

    #[test]
    fn missing_or_broken_files_are_refused_by_name() {
        let none = uploaded_files(&UPLOAD, &args(json!({"doc": {}}))).unwrap_err();
        assert_eq!(
            none,
            BackendError::Invalid(
                "`t_upload` uploads a file: give `doc.file` with the file's content, base64-encoded"
                    .into()
            )
        );
        let broken = uploaded_files(&UPLOAD, &args(json!({"doc": {"file": "a"}}))).unwrap_err();
        assert!(
            matches!(&broken, BackendError::Invalid(m) if m.starts_with("`doc.file` is not valid base64")),
            "{broken:?}"
        );
        // A JSON tool has no uploads, whatever its arguments.
        assert!(uploaded_files(&JSON, &args(json!({"file": "!!"})))
            .unwrap()
            .is_empty());
    }
}

#[cfg(test)]
mod filter_tests {
    use super::*;
    use test_support::demo;

    /// A filtered page as it was built before the store looked for texts: every record of the
    /// type parsed and kept by [`Selection::keeps`], then paged, and the page built from values.
    fn page_by_values(c: &Call<'_>, rt: &RecordType) -> Result<Value, BackendError> {
        let page = positive_int(c.args, "page", 1)?;
        let per_page = positive_int(c.args, "per_page", DEFAULT_PER_PAGE)?.min(MAX_PER_PAGE);
        let start = (page - 1).saturating_mul(per_page);
        let selection = Selection::of(c.args, rt, &[])?;
        let mut rows: Vec<Row> = store::list(c.tx, c.scope, rt.name)
            .map_err(db)?
            .into_iter()
            .filter(|row| selection.keeps(row))
            .skip(usize::try_from(start).unwrap_or(usize::MAX))
            .take(per_page as usize + 1)
            .collect();
        let has_next = rows.len() > per_page as usize;
        rows.truncate(per_page as usize);
        let items = rows.into_iter().map(|r| Value::Object(r.json)).collect();
        Ok(envelope::page(c.tool, items, page, per_page, has_next))
    }

    /// Every filter, over seeded records and records whose fields take every shape a filter
    /// compares (arrays, numbers and their text, ±0.0, booleans and their text, null, objects,
    /// nested fields of the same name, escapes), selects exactly what parsing every record
    /// selected, in the same order and pages, and the answer is the same text.
    #[test]
    fn filtered_pages_select_what_parsing_every_record_selected() {
        let dir = tempfile::tempdir().unwrap();
        let db = store::Store::open(dir.path()).unwrap();
        let product = &demo::PRODUCT;
        let scope = Scope {
            product: product.name.into(),
            organization: "org".into(),
            workspace: String::new(),
        };
        let now = clock::seed_anchor(clock::now());
        let rt = product.record("bank_billets").unwrap();
        let tool = product.tool("demo_bank_billets_list").unwrap();
        let files = Files::new(vec![7u8; 32], "http://127.0.0.1");
        let odd = [
            json!({"status": ["paid", "opened"]}),
            json!({"status": 10}),
            json!({"status": "10"}),
            json!({"status": null}),
            json!({"status": true}),
            json!({"status": "true"}),
            json!({"status": {"a": 1, "b": 2}}),
            json!({"status": [["paid"]]}),
            json!({"status": []}),
            json!({"nested": {"status": "paid"}, "status": "opened"}),
            json!({}),
            json!({"amount": 0.0}),
            json!({"amount": -0.0}),
            json!({"amount": 0}),
            json!({"amount": 12.5}),
            json!({"amount": "12.5"}),
            json!({"amount": 1e20}),
            json!({"registered": "false"}),
            json!({"installments": 3.0}),
            json!({"installments": "3"}),
            json!({"customer_cnpj": "a\"b\\c\né\u{1}"}),
            json!({"status": "PAID"}),
            json!({"status": "pa\"id"}),
            json!({"status": "nul\u{0}here"}),
            json!({"status": "nul"}),
            json!({"expire_at": "2026-01-05T10:00:00Z", "status": "paid"}),
        ];
        db.transaction(|tx| -> Result<(), StoreError> {
            seed_scope(tx, product, &scope, 42, now)?;
            for (i, fields) in odd.iter().enumerate() {
                let mut json = Map::new();
                json.insert("uid".into(), json!(format!("odd{i}")));
                json.extend(fields.as_object().cloned().unwrap_or_default());
                let row = Row {
                    id: format!("odd{i}"),
                    seq: 1000 + i as i64,
                    json,
                };
                let created = format!("2026-01-{:02}T00:00:00Z", 1 + i % 28);
                store::put(tx, &scope, rt.name, &row, &created)?;
            }
            Ok(())
        })
        .unwrap();
        let many: Vec<Value> = (0..40)
            .map(|i| json!(format!("s{i}")))
            .chain([json!("paid")])
            .collect();
        let mut cases = vec![
            json!({"status": "paid"}),
            json!({"status": "10"}),
            json!({"status": 10}),
            json!({"status": 10.0}),
            json!({"status": true}),
            json!({"status": "true"}),
            json!({"status": null}),
            json!({"status": ["paid", "canceled"]}),
            json!({"status": []}),
            json!({"status": [null]}),
            json!({"status": [["paid"]]}),
            json!({"status": {"a": 1, "b": 2}}),
            json!({"status": {"b": 2, "a": 1}}),
            json!({"status": "PAID"}),
            json!({"status": "pa\"id"}),
            json!({"status": "nul\u{0}here"}),
            json!({"status": "nul"}),
            json!({"status": ["nul", "10", 10, true]}),
            json!({"status": many}),
            json!({"amount": 0}),
            json!({"amount": 0.0}),
            json!({"amount": -0.0}),
            json!({"amount": 12.5}),
            json!({"amount": "12.5"}),
            json!({"amount": 1e20}),
            json!({"amount": "100000000000000000000"}),
            json!({"registered": false}),
            json!({"registered": "false"}),
            json!({"installments": 3}),
            json!({"installments": "3"}),
            json!({"installments": 3.0}),
            json!({"cnpj": "a\"b\\c\né\u{1}"}),
            json!({"expire_from": "2026-01-01"}),
            json!({"expire_to": "2026-01-05", "status": "paid"}),
            json!({"created_to": 20260101}),
            json!({"created_from": {"a": 1}}),
            json!({"q": "paid"}),
            json!({"search": "PAID", "status": "paid"}),
            json!({"q": "é"}),
            json!({"status": "paid", "page": 2, "per_page": 3}),
            json!({"status": "opened", "page": 5, "per_page": 1}),
            json!({"status": "paid", "page": 99999}),
            json!({"status": "paid", "per_page": 0}),
            json!({"status": "paid", "page": "x"}),
            json!({"status": "paid", "registered": true}),
            json!({"status": ["paid", "overdue"], "channel": "api", "per_page": 100}),
        ];
        // Every field of a sample of seeded records, as its value and as its text.
        let rows = db.read(|tx| store::list(tx, &scope, rt.name)).unwrap();
        for row in rows.iter().step_by(5) {
            for (k, v) in &row.json {
                cases.push(json!({k.as_str(): v}));
                if let Some(t) = as_text(v) {
                    cases.push(json!({k.as_str(): t, "per_page": 2}));
                }
            }
        }
        let mut listed = 0;
        for args in &cases {
            let args = args.as_object().cloned().unwrap();
            let (new, old) = db
                .read(|tx| -> Result<_, StoreError> {
                    let c = Call {
                        tx,
                        product,
                        scope: &scope,
                        tool,
                        args: &args,
                        files: &files,
                        now,
                    };
                    Ok((list(&c, rt), page_by_values(&c, rt)))
                })
                .unwrap();
            match (new, old) {
                (Ok(Output::JsonText(text)), Ok(value)) => {
                    assert_eq!(text.as_str(), value.to_string(), "{args:?}");
                    let quoted = serde_json::to_string(text.as_str()).unwrap();
                    assert_eq!(
                        text.in_string(),
                        Some(&quoted[1..quoted.len() - 1]),
                        "{args:?}"
                    );
                    listed += envelope::items(&value).map_or(0, Vec::len);
                }
                (Err(new), Err(old)) => assert_eq!(new, old, "{args:?}"),
                (new, old) => panic!("{args:?}: {new:?} against {old:?}"),
            }
        }
        // Not vacuous: the filters selected records.
        assert!(listed > 300, "only {listed} records listed");
    }
}

//! The record a destructive call touches, read before the question is asked (issue 35): its
//! facts go into the question, and a record that is not there, or in a state the action cannot
//! leave, gets its error at once instead of a question.
//!
//! The read goes through the same backend as the call, with the caller's token and permissions
//! ([`RecordReader`], implemented by the protocol engine), by the product's own `get` tool for
//! the record type. A read that fails for another reason (the API down) never skips the question
//! and never runs the tool: the question says the facts could not be fetched.

use runtime_model::backend::{BackendError, BoxFuture, Output};
use runtime_model::catalog::{Operation, Product, Tool};
use runtime_model::record_facts::{self, RecordFacts};
use serde_json::{Map, Value};

/// Runs a read tool for the caller of the call being confirmed.
pub trait RecordReader: Send + Sync {
    /// `Err(None)`: the caller may not call `tool` (its permissions do not reach it).
    fn read<'a>(
        &'a self,
        tool: &'static Tool,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, Option<BackendError>>>;
}

/// What the read found.
#[derive(Debug, Clone, PartialEq)]
pub enum Looked {
    /// The tool touches no one existing record (a create, a bulk action), or the record type has
    /// no read tool.
    Nothing,
    /// The record, as the API gave it (unwrapped from a `/v2` envelope).
    Record(Value),
    /// There is no such record for this caller (missing, or someone else's).
    NotFound,
    /// The record is in `state`, which the action cannot leave.
    Terminal { state: String },
    /// The read failed (the API is down, the caller may not read it): ask anyway, say so.
    Unread,
}

/// The read tool of `record`: its `get` (one named `…_get` first, not a file download; a filtered
/// get only when there is no plain one).
pub fn get_tool(product: &Product, record: &str) -> Option<(&'static Tool, &'static str)> {
    let gets = || {
        product.tools.iter().filter_map(move |t| match t.operation {
            Operation::Get { record: r, id_arg } if r == record => Some((t, id_arg)),
            _ => None,
        })
    };
    gets()
        .find(|(t, _)| t.name.ends_with("_get"))
        .or_else(|| gets().next())
        .or_else(|| {
            product.tools.iter().find_map(|t| match t.operation {
                Operation::GetWhere {
                    record: r, id_arg, ..
                } if r == record => Some((t, id_arg)),
                _ => None,
            })
        })
}

/// The list tool of `record` that needs no argument, for a record type the API cannot read one
/// by one (a certificate, a user): the record is found among its pages.
fn list_tool(product: &Product, record: &str) -> Option<&'static Tool> {
    product.tools.iter().find(|t| {
        matches!(t.operation, Operation::List { record: r } if r == record)
            && serde_json::from_str::<Value>(t.input_schema_json)
                .ok()
                .and_then(|s| s.get("required").and_then(Value::as_array).cloned())
                .is_none_or(|r| r.is_empty())
    })
}

/// How many pages of a list are searched for the record before giving up (then: unread).
const LIST_PAGES: u64 = 20;

/// The record `id` of type `record` found through its list tool's pages.
async fn find_listed(
    product: &'static Product,
    record: &str,
    list: &'static Tool,
    id: &Value,
    reader: &dyn RecordReader,
) -> Looked {
    let id_field = product.record(record).map_or("uid", |r| r.id_field);
    let want = match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let pages = list.input_schema_json.contains("\"page\"");
    for page in 1..=LIST_PAGES {
        let mut args = Map::new();
        if pages {
            args.insert("page".into(), Value::from(page));
        }
        let items = match reader.read(list, args).await.map(Output::parsed) {
            Ok(Ok(Output::Json(v))) => match unwrap_envelope_list(v) {
                Some(items) => items,
                None => return Looked::Unread,
            },
            _ => return Looked::Unread,
        };
        if items.is_empty() {
            return Looked::NotFound;
        }
        let found = items.into_iter().find(|r| {
            [id_field, "id", "uid"].iter().any(|f| match r.get(*f) {
                Some(Value::String(s)) => *s == want,
                Some(Value::Number(n)) => n.to_string() == want,
                _ => false,
            })
        });
        if let Some(r) = found {
            return Looked::Record(r);
        }
        if !pages {
            return Looked::NotFound;
        }
    }
    Looked::Unread
}

/// The items of a list answer (a bare array, or a `/v2` envelope's `data`).
fn unwrap_envelope_list(v: Value) -> Option<Vec<Value>> {
    match v {
        Value::Array(items) => Some(items),
        Value::Object(mut m) => match m.remove("data") {
            Some(Value::Array(items)) => Some(items),
            _ => None,
        },
        _ => None,
    }
}

/// The arguments of the read: the id under the read tool's name for it, and every other argument
/// of the call the read tool also takes (a mailbox's `entry_id`, a `workspace_id`).
fn read_args(
    get: &Tool,
    get_id: &str,
    id: &Value,
    args: &Map<String, Value>,
) -> Map<String, Value> {
    let schema: Value = serde_json::from_str(get.input_schema_json).unwrap_or(Value::Null);
    let props = schema.get("properties").and_then(Value::as_object);
    let mut out: Map<String, Value> = args
        .iter()
        .filter(|(k, _)| props.is_some_and(|p| p.contains_key(*k)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    out.insert(get_id.to_string(), id.clone());
    out
}

/// Reads the record `tool` touches and judges it (see the module docs).
pub async fn look(
    product: &'static Product,
    tool: &'static Tool,
    args: &Map<String, Value>,
    reader: Option<&dyn RecordReader>,
) -> Looked {
    let Some((record, id_arg, action)) = tool.touched_record() else {
        return Looked::Nothing;
    };
    let (Some(reader), Some(id)) = (reader, args.get(id_arg)) else {
        return Looked::Nothing;
    };
    match read(product, record, id, args, reader).await {
        Looked::Record(value) => judged(product, record, action, value),
        other => other,
    }
}

/// Reads the record `id` of type `record` for the caller, by its get tool (the other arguments
/// of the call it also takes go with it), or among its list's pages when it has none.
async fn read(
    product: &'static Product,
    record: &str,
    id: &Value,
    args: &Map<String, Value>,
    reader: &dyn RecordReader,
) -> Looked {
    let Some((get, get_id)) = get_tool(product, record) else {
        return match list_tool(product, record) {
            Some(list) => find_listed(product, record, list, id, reader).await,
            None => Looked::Nothing,
        };
    };
    let out = reader.read(get, read_args(get, get_id, id, args)).await;
    let value = match out.map(Output::parsed) {
        Ok(Ok(Output::Json(v))) => v,
        Ok(Ok(Output::Replayed(inner))) => match *inner {
            Output::Json(v) => v,
            _ => return Looked::Unread,
        },
        Ok(_) => return Looked::Unread,
        Err(Some(BackendError::NotFound(_))) => return Looked::NotFound,
        Err(Some(BackendError::Upstream {
            status: 403 | 404 | 410,
            ..
        })) => return Looked::NotFound,
        Err(e) => {
            tracing::debug!(record, read = get.name, error = ?e, "a record to confirm could not be read; asking without its facts");
            return Looked::Unread;
        }
    };
    let value = unwrap_envelope(value);
    if !value.is_object() {
        return Looked::Unread;
    }
    Looked::Record(value)
}

/// How many other records one question reads to name them (a transfer's two accounts): the rest
/// are shown by their id.
pub const MAX_REFERENCES: usize = 4;
// `references` reads them in this many `tokio::join!` slots.
const _: () = assert!(MAX_REFERENCES == 4);

/// What the read of a record a fact refers to found.
#[derive(Debug, Clone, PartialEq)]
pub enum Referenced {
    /// The referenced record's `show` field (its name).
    Named(String),
    /// No such record for this caller.
    NotFound,
    /// The read failed, or found a record without that field.
    Unread,
}

/// The records the `ref` facts of `record` point at, read for the caller: by (record type, id),
/// at most [`MAX_REFERENCES`] of them, concurrently. `record` is the record the question is
/// about (read, or a create's arguments).
pub async fn references(
    product: &'static Product,
    facts: &RecordFacts,
    record: &Value,
    args: &Map<String, Value>,
    reader: Option<&dyn RecordReader>,
) -> References {
    let Some(reader) = reader else {
        return References::default();
    };
    let mut wanted: Vec<(&'static str, &'static str, Value)> = Vec::new();
    for f in facts.facts {
        let Some((target, show)) = f.reference else {
            continue;
        };
        let Some(id) = record_facts::field_value(record, f.field).filter(|v| is_id(v)) else {
            continue;
        };
        if !wanted.iter().any(|(t, _, i)| *t == target && i == id) {
            wanted.push((target, show, id.clone()));
        }
    }
    wanted.truncate(MAX_REFERENCES);
    let one = |(target, show, id): (&'static str, &'static str, Value)| async move {
        let found = match read(product, target, &id, args, reader).await {
            Looked::Record(r) => match record_facts::field_value(&r, show) {
                Some(Value::String(s)) if !s.trim().is_empty() => Referenced::Named(s.clone()),
                Some(v @ Value::Number(_)) => Referenced::Named(v.to_string()),
                _ => Referenced::Unread,
            },
            Looked::NotFound => Referenced::NotFound,
            _ => Referenced::Unread,
        };
        (target, id, found)
    };
    async fn slot<F: std::future::Future>(f: Option<F>) -> Option<F::Output> {
        match f {
            Some(f) => Some(f.await),
            None => None,
        }
    }
    // Concurrently, in as many slots as `MAX_REFERENCES`.
    let mut it = wanted.into_iter().map(one);
    let (a, b, c, d) = tokio::join!(
        slot(it.next()),
        slot(it.next()),
        slot(it.next()),
        slot(it.next())
    );
    References([a, b, c, d].into_iter().flatten().collect())
}

/// An id a reference can hold: a non-empty string or a number.
fn is_id(v: &Value) -> bool {
    match v {
        Value::String(s) => !s.trim().is_empty(),
        Value::Number(_) => true,
        _ => false,
    }
}

/// The records a question's `ref` facts point at, as read ([`references`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct References(Vec<(&'static str, Value, Referenced)>);

impl References {
    /// What the read of the record `id` of type `record` found; `None` when it was not read.
    pub fn get(&self, record: &str, id: &Value) -> Option<&Referenced> {
        self.0
            .iter()
            .find(|(r, i, _)| *r == record && i == id)
            .map(|(_, _, f)| f)
    }
}

/// A record read: terminal for `action`, or to ask about.
fn judged(product: &Product, record: &str, action: &str, value: Value) -> Looked {
    if let Some(facts) = product.facts_of(record) {
        if let Some(state) = terminal_state(facts, action, &value) {
            return Looked::Terminal { state };
        }
    }
    Looked::Record(value)
}

/// The record inside a `/v2` answer (`{"status": 200, "data": {…}}`), or the answer.
fn unwrap_envelope(v: Value) -> Value {
    match v {
        Value::Object(mut m) if m.get("data").is_some_and(Value::is_object) => {
            m.remove("data").unwrap_or(Value::Null)
        }
        other => other,
    }
}

fn terminal_state(facts: &RecordFacts, action: &str, record: &Value) -> Option<String> {
    if facts.state_field.is_empty() {
        return None;
    }
    let state = record_facts::field_value(record, facts.state_field)?.as_str()?;
    facts
        .terminal_for(action)
        .contains(&state)
        .then(|| state.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use runtime_model::locale::Locale;
    use serde_json::json;

    struct Canned(Result<Output, Option<BackendError>>);

    impl RecordReader for Canned {
        fn read<'a>(
            &'a self,
            _tool: &'static Tool,
            _args: Map<String, Value>,
        ) -> BoxFuture<'a, Result<Output, Option<BackendError>>> {
            let r = self.0.clone();
            Box::pin(async move { r })
        }
    }

    fn banking() -> &'static Product {
        generated::product("banking").expect("banking")
    }

    fn cancel() -> &'static Tool {
        banking()
            .tool("banking_charge_bank_billet_cancel")
            .expect("cancel")
    }

    async fn judge(answer: Result<Output, Option<BackendError>>) -> Looked {
        let args = json!({"id": "129"});
        look(
            banking(),
            cancel(),
            args.as_object().expect("object"),
            Some(&Canned(answer)),
        )
        .await
    }

    /// Counts its reads; answers each with a record named after the id it was asked for, or
    /// fails them all (the API down).
    struct Counting {
        reads: std::sync::atomic::AtomicUsize,
        down: bool,
    }

    impl RecordReader for Counting {
        fn read<'a>(
            &'a self,
            _tool: &'static Tool,
            args: Map<String, Value>,
        ) -> BoxFuture<'a, Result<Output, Option<BackendError>>> {
            self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let id = args.values().find_map(Value::as_str).unwrap_or_default();
            let answer = if self.down {
                Err(Some(BackendError::Unavailable("down".into())))
            } else {
                Ok(Output::Json(
                    json!({"uid": id, "name": format!("Conta {id}")}),
                ))
            };
            Box::pin(async move { answer })
        }
    }

    const fn account(field: &'static str) -> record_facts::Fact {
        record_facts::Fact {
            field,
            kind: record_facts::FactKind::Ref,
            label: ["Conta", "Cuenta", "Account"],
            values: &[],
            reference: Some(("financial_accounts", "name")),
        }
    }

    /// Six references to accounts, two of them the same one.
    static SIX: RecordFacts = RecordFacts {
        record: "transfer_pix",
        facts: &[
            account("a"),
            account("b"),
            account("c"),
            account("d"),
            account("e"),
            account("f"),
        ],
        state_field: "",
        terminal: &[],
    };

    #[tokio::test]
    async fn references_are_read_once_each_and_at_most_a_few_per_question() {
        let record = json!({"a": "1", "b": "1", "c": "2", "d": "3", "e": "4", "f": "5"});
        let reader = Counting {
            reads: Default::default(),
            down: false,
        };
        let refs = references(banking(), &SIX, &record, &Map::new(), Some(&reader)).await;
        // Five distinct accounts, the first four read.
        assert_eq!(
            reader.reads.load(std::sync::atomic::Ordering::SeqCst),
            MAX_REFERENCES
        );
        let lines = super::super::form::fact_lines(&SIX, &record, Locale::PtBr, &refs);
        assert_eq!(lines[0], "Conta: Conta 1 (1)");
        assert_eq!(lines[1], "Conta: Conta 1 (1)");
        assert_eq!(lines[4], "Conta: Conta 4 (4)");
        // The one left unread is shown by its id.
        assert_eq!(lines[5], "Conta: 5");
        // Without a reader nothing is read.
        assert_eq!(
            references(banking(), &SIX, &record, &Map::new(), None).await,
            References::default()
        );
    }

    #[tokio::test]
    async fn a_reference_that_cannot_be_read_is_said_so_beside_its_id() {
        let record = json!({"a": "fa-1"});
        let reader = Counting {
            reads: Default::default(),
            down: true,
        };
        let refs = references(banking(), &SIX, &record, &Map::new(), Some(&reader)).await;
        assert_eq!(
            refs.get("financial_accounts", &json!("fa-1")),
            Some(&Referenced::Unread)
        );
        for locale in Locale::ALL {
            let lines = super::super::form::fact_lines(&SIX, &record, locale, &refs);
            let want =
                runtime_model::texts::Text::FormReferenceUnread.fill(locale, &[("id", &"fa-1")]);
            assert_eq!(lines, [format!("{}: {want}", SIX.facts[0].label(locale))]);
            assert!(want.starts_with("fa-1 ("), "{want}");
        }
    }

    #[tokio::test]
    async fn a_read_is_judged_before_asking() {
        let open = json!({"id": 129, "status": "opened", "amount": 10.5});
        assert_eq!(
            judge(Ok(Output::Json(open.clone()))).await,
            Looked::Record(open)
        );
        assert_eq!(
            judge(Ok(Output::Json(json!({"id": 129, "status": "canceled"})))).await,
            Looked::Terminal {
                state: "canceled".into()
            }
        );
        assert_eq!(
            judge(Err(Some(BackendError::NotFound("x".into())))).await,
            Looked::NotFound
        );
        assert_eq!(
            judge(Err(Some(BackendError::Upstream {
                status: 403,
                message: "forbidden".into()
            })))
            .await,
            Looked::NotFound
        );
        assert_eq!(
            judge(Err(Some(BackendError::Unavailable("down".into())))).await,
            Looked::Unread
        );
        assert_eq!(judge(Err(None)).await, Looked::Unread);
    }
}

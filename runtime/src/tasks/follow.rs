//! Following the Kobana API's own asynchronous work inside a task (proxy mode: the sandbox
//! finishes its work before it answers).
//!
//! Some operations answer at once with a record that is still being worked on (a statement sync
//! `pending`, an import `processing`, a CNAB return file `unprocessed`), and the API offers a get
//! endpoint to watch it. A task of such a tool does not stop at that first answer: it reads the
//! record again through the product's get tool of the same record type (found in the catalog: no
//! setting per tool) until its `status` leaves the in-progress words, reporting each status as
//! the task's progress. The task's result is then the record as the API last showed it.
//!
//! The follow gives up after [`crate::tasks::TaskOptions::follow_for`]: the result is then the
//! last state read, which says (by its status) that the API is still working; the outcome is
//! never guessed. A read that fails is retried at the next turn; the first answer stays the result
//! when no read ever succeeds.

use runtime_model::backend::{Output, Progress};
use runtime_model::catalog::{Operation, Product, Tool};
use serde_json::{Map, Value};

/// The words the Kobana API uses for a record it is still working on.
pub const IN_PROGRESS: &[&str] = &[
    "pending",
    "processing",
    "unprocessed",
    "generating",
    "queued",
    "running",
    "importing",
    "syncing",
];

/// How to read the record a task tool's first answer left in progress.
pub(crate) struct Follow {
    pub get: &'static Tool,
    pub args: Map<String, Value>,
}

/// The record of an answer: v2 answers wrap it as `{status: <HTTP status>, data: {…}}`.
fn record_of(answer: &Value) -> &Value {
    answer
        .get("data")
        .filter(|d| d.is_object())
        .unwrap_or(answer)
}

/// The record's `status` when it is an in-progress word.
pub fn in_progress(answer: &Value) -> Option<&str> {
    record_of(answer)
        .get("status")
        .and_then(Value::as_str)
        .filter(|s| IN_PROGRESS.contains(s))
}

/// The follow of `tool`'s `answer`, when the answer is in progress and the product has a get
/// tool for the record type whose every required argument is known (the record's id from the
/// answer, the others from the call's own arguments).
pub(crate) fn plan(
    product: &'static Product,
    tool: &Tool,
    call_args: &Map<String, Value>,
    answer: &Value,
) -> Option<Follow> {
    in_progress(answer)?;
    let record = match tool.operation {
        Operation::Create { record } | Operation::Action { record, .. } => record,
        _ => return None,
    };
    let (get, id_arg) = product.tools.iter().find_map(|t| match t.operation {
        Operation::Get { record: r, id_arg } if r == record => Some((t, id_arg)),
        _ => None,
    })?;
    let schema: Value = serde_json::from_str(get.input_schema_json).ok()?;
    let mut args = Map::new();
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let value = if name == id_arg {
            let record = record_of(answer);
            [id_arg, "uid", "id"]
                .iter()
                .find_map(|k| record.get(*k).filter(|v| v.is_string() || v.is_number()))
                .map(|v| match v {
                    Value::Number(n) => Value::String(n.to_string()),
                    other => other.clone(),
                })?
        } else {
            call_args.get(name)?.clone()
        };
        args.insert(name.to_string(), value);
    }
    Some(Follow { get, args })
}

/// Reports an in-progress status as the task's progress.
pub(crate) fn report(progress: &Progress, tool: &Tool, answer: &Value) {
    if let Some(s) = in_progress(answer) {
        progress.report(
            0.0,
            None,
            &format!(
                "{}: the Kobana API is still working on it (status {s})",
                tool.name
            ),
        );
    }
}

/// The answer of a follow read, when it is JSON.
pub(crate) fn json_of(out: Output) -> Option<Value> {
    match out {
        Output::Json(v) => Some(v),
        Output::JsonText(text) => text.to_value().ok(),
        Output::Replayed(inner) => json_of(*inner),
        Output::Bytes { .. } => None,
    }
}

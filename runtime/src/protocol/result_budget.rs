//! Results that fit a context: a JSON answer larger than the result budget is cut at a record
//! boundary.
//!
//! A model reads a tool result whole; a list answer of thousands of records can fill (or
//! overflow) its context. The budget is in tokens, counted as bytes / [`BYTES_PER_TOKEN`] of the
//! answer's JSON text (the text block a model reads; `structuredContent` is the same JSON): a
//! coarse, tokenizer-free estimate that errs on the generous side for JSON. Default
//! [`DEFAULT_RESULT_BUDGET_TOKENS`]; `--result-budget-tokens`, `KOBANA_RESULT_BUDGET_TOKENS` or
//! `serve.result_budget_tokens` change it (0 turns cutting off).
//!
//! Only a list answer is cut — the records of Kobana's v2 envelope (`data: […]`) or a bare array
//! (v1 lists) — and only between records: whole records, the first ones, at least one (a single
//! record is the smallest unit and is never cut). Everything else in the answer (status,
//! pagination) stays, so the cut answer still conforms to the tool's output schema, and the text
//! block and `structuredContent` stay the same JSON. A second text block says how much was
//! shown and how to get the rest (the next page with a smaller `per_page`, or a narrower
//! filter), and, where the whole is addressable as a resource, a `resource_link` points to it.

use runtime_model::catalog::Tool;
use runtime_model::locale::Locale;
use runtime_model::texts::Text;
use serde_json::{json, Map, Value};

/// The default budget of one tool result, in tokens (about 100 KB of JSON).
pub const DEFAULT_RESULT_BUDGET_TOKENS: usize = 25_000;

/// How many bytes of JSON count as one token.
pub const BYTES_PER_TOKEN: usize = 4;

/// A cut answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cut {
    /// The answer with only the records shown.
    pub answer: Value,
    /// Its JSON text (what the text block carries).
    pub text: String,
    pub shown: usize,
    pub total: usize,
}

/// Whether an answer of `text_len` bytes of JSON is never cut by `budget_tokens` (0: no budget).
pub(crate) fn fits(text_len: usize, budget_tokens: usize) -> bool {
    match budget_tokens.checked_mul(BYTES_PER_TOKEN) {
        Some(budget) => budget == 0 || text_len <= budget,
        None => true,
    }
}

/// `None` when `answer` fits `budget_tokens` (or the budget is 0, or it is not a list);
/// otherwise the answer cut to its first records.
pub(crate) fn cut(answer: &Value, text_len: usize, budget_tokens: usize) -> Option<Cut> {
    if fits(text_len, budget_tokens) {
        return None;
    }
    let budget = budget_tokens.checked_mul(BYTES_PER_TOKEN)?;
    let records = records(answer)?;
    let total = records.len();
    if total < 2 {
        return None;
    }
    // The answer's bytes without its records, then records while they fit.
    let sizes: Vec<usize> = records
        .iter()
        .map(|r| serde_json::to_string(r).map(|s| s.len()).unwrap_or(0))
        .collect();
    let all: usize = sizes.iter().sum::<usize>() + total.saturating_sub(1);
    let frame = text_len.saturating_sub(all);
    let mut used = frame;
    let mut shown = 0;
    for (i, s) in sizes.iter().enumerate() {
        let add = s + usize::from(i > 0);
        if shown > 0 && used + add > budget {
            break;
        }
        used += add;
        shown += 1;
    }
    if shown >= total {
        return None;
    }
    let mut cut = answer.clone();
    if let Some(list) = records_mut(&mut cut) {
        list.truncate(shown);
    }
    let text = cut.to_string();
    Some(Cut {
        answer: cut,
        text,
        shown,
        total,
    })
}

/// The records of a list answer: the v2 envelope's `data` array, or the answer itself when it
/// is an array.
fn records(answer: &Value) -> Option<&Vec<Value>> {
    match answer {
        Value::Array(a) => Some(a),
        Value::Object(m) => m.get("data").and_then(Value::as_array),
        _ => None,
    }
}

fn records_mut(answer: &mut Value) -> Option<&mut Vec<Value>> {
    match answer {
        Value::Array(a) => Some(a),
        Value::Object(m) => m.get_mut("data").and_then(Value::as_array_mut),
        _ => None,
    }
}

/// The note that follows a cut answer: what was shown and how to get the rest, in `locale`
/// (tool and argument names stay as they are).
pub(crate) fn note(
    tool: &Tool,
    args: &Map<String, Value>,
    c: &Cut,
    budget_tokens: usize,
    whole: Option<&str>,
    locale: Locale,
) -> String {
    let bytes = budget_tokens * BYTES_PER_TOKEN;
    let (shown, total) = (c.shown, c.total);
    let mut s = String::from("[");
    s.push_str(&Text::BudgetCut.fill(
        locale,
        &[
            ("tokens", &budget_tokens),
            ("bytes", &bytes),
            ("shown", &shown),
            ("total", &total),
        ],
    ));
    let schema: Value = serde_json::from_str(tool.input_schema_json).unwrap_or(Value::Null);
    let props = &schema["properties"];
    let pages = props.get("page").is_some() && props.get("per_page").is_some();
    let name = tool.name;
    if pages {
        let int = |k: &str, default: u64| args.get(k).and_then(Value::as_u64).unwrap_or(default);
        let page = int("page", 1).max(1);
        let per_page = int(
            "per_page",
            props["per_page"]["default"]
                .as_u64()
                .unwrap_or(c.total as u64),
        )
        .max(1);
        // The first record not shown, counted from the start of the listing.
        let offset = (page - 1) * per_page + c.shown as u64;
        let size = c.shown as u64;
        let next = offset / size + 1;
        let overlap = if offset.is_multiple_of(size) {
            ""
        } else {
            Text::BudgetOverlap.get(locale)
        };
        s.push(' ');
        s.push_str(&Text::BudgetRestByPage.fill(
            locale,
            &[
                ("tool", &name),
                ("size", &size),
                ("next", &next),
                ("overlap", &overlap),
            ],
        ));
    } else {
        s.push(' ');
        s.push_str(Text::BudgetRestByFilter.get(locale));
    }
    if let Some(u) = whole {
        s.push(' ');
        s.push_str(&Text::BudgetWhole.fill(locale, &[("uri", &u)]));
    }
    s.push(']');
    s
}

/// A `resource_link` content block to the whole answer.
pub(crate) fn link(tool: &Tool, uri: &str) -> Value {
    json!({
        "type": "resource_link",
        "uri": uri,
        "name": tool.name,
        "mimeType": "application/json",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(n: usize) -> Value {
        let data: Vec<Value> = (0..n)
            .map(|i| json!({"uid": format!("r{i:03}"), "note": "x".repeat(90)}))
            .collect();
        json!({"status": 200, "data": data, "pagination": {"page": 1, "per_page": n}})
    }

    #[test]
    fn an_answer_within_the_budget_is_left_alone() {
        let a = page(3);
        let len = a.to_string().len();
        assert_eq!(cut(&a, len, len / BYTES_PER_TOKEN + 1), None);
        assert_eq!(cut(&a, len, 0), None, "0 turns cutting off");
    }

    #[test]
    fn a_list_is_cut_to_whole_records_within_the_budget() {
        let a = page(50);
        let len = a.to_string().len();
        let budget = 1_000; // tokens: 4,000 bytes, about 35 records of ~110 bytes
        let c = cut(&a, len, budget).unwrap();
        assert!(c.text.len() <= budget * BYTES_PER_TOKEN, "{}", c.text.len());
        assert_eq!(c.total, 50);
        let shown = c.answer["data"].as_array().unwrap();
        assert_eq!(shown.len(), c.shown);
        assert_eq!(shown[..], a["data"].as_array().unwrap()[..c.shown]);
        // One more record would not have fitted.
        let mut more = a.clone();
        more["data"].as_array_mut().unwrap().truncate(c.shown + 1);
        assert!(more.to_string().len() > budget * BYTES_PER_TOKEN);
        // Everything but the records is kept.
        assert_eq!(c.answer["pagination"], a["pagination"]);
        assert_eq!(c.answer["status"], 200);
        assert_eq!(c.text, c.answer.to_string());
    }

    #[test]
    fn a_bare_array_is_cut_and_a_single_record_never() {
        let a = Value::Array(page(20)["data"].as_array().unwrap().clone());
        let c = cut(&a, a.to_string().len(), 100).unwrap();
        assert!(c.shown >= 1 && c.shown < 20);
        let one = json!({"data": [{"blob": "y".repeat(10_000)}]});
        assert_eq!(cut(&one, one.to_string().len(), 10), None);
        let record = json!({"blob": "y".repeat(10_000)});
        assert_eq!(cut(&record, record.to_string().len(), 10), None);
        // At least one record, even when the first alone exceeds the budget.
        let two = json!({"data": [{"blob": "y".repeat(10_000)}, {"b": 1}]});
        assert_eq!(cut(&two, two.to_string().len(), 10).unwrap().shown, 1);
    }
}

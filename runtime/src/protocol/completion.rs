//! `completion/complete`: the completion source of a prompt argument or template variable, served
//! under the caller's permissions (ids come from the list tool only when the caller may call it).

use crate::rpc::params::Params;
use runtime_model::backend::Output;
use runtime_model::catalog::CompletionKind;
use runtime_model::locale::Locale;
use runtime_model::texts::Text;
use serde_json::{json, Map, Value};

use super::dates;
use super::engine::Engine;
use crate::contract::Call;
use crate::contract::RpcError;
use crate::rpc::reply::Reply;

/// The most values one answer carries (the schema's `maxItems`).
pub const MAX_VALUES: usize = 100;

impl Engine {
    pub(crate) async fn complete(&self, call: &Call, params: &Params) -> Reply {
        let reference = params.get("ref").and_then(Value::as_object);
        let arg_name = params.pointer_str("argument", "name");
        let prefix = params.pointer_str("argument", "value").unwrap_or("");
        let (Some(reference), Some(arg_name)) = (reference, arg_name) else {
            return RpcError::invalid_params(Text::ProtocolCompletionNeedsRef.get(Locale::En))
                .into();
        };
        let view = self.view(call);
        let source_id = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => {
                let name = reference.get("name").and_then(Value::as_str).unwrap_or("");
                let Some(idx) = self.product.prompts.iter().position(|p| p.name == name) else {
                    return RpcError::invalid_params(format!("Unknown prompt: {name}")).into();
                };
                if !view.usable_prompts[idx] {
                    return RpcError::invalid_params(format!("Unknown prompt: {name}")).into();
                }
                let Some(arg) = self.product.prompts[idx]
                    .arguments
                    .iter()
                    .find(|a| a.name == arg_name)
                else {
                    return RpcError::invalid_params(
                        Text::ProtocolPromptNoArgument
                            .fill(Locale::En, &[("name", &name), ("argument", &arg_name)]),
                    )
                    .into();
                };
                arg.complete
            }
            Some("ref/resource") => {
                let uri = reference.get("uri").and_then(Value::as_str).unwrap_or("");
                if let Some(t) = self
                    .product
                    .templates
                    .iter()
                    .find(|t| t.uri_template == uri)
                {
                    if !view.can_call(self.product, t.read_by) {
                        return RpcError::invalid_params(
                            Text::ProtocolUnknownTemplate.fill(Locale::En, &[("uri", &uri)]),
                        )
                        .into();
                    }
                    t.completions
                        .iter()
                        .find(|(v, _)| *v == arg_name)
                        .map(|(_, s)| *s)
                } else if self.product.resources.iter().any(|r| r.uri == uri) {
                    None
                } else {
                    return RpcError::invalid_params(
                        Text::ProtocolUnknownResource.fill(Locale::En, &[("uri", &uri)]),
                    )
                    .into();
                }
            }
            _ => {
                return RpcError::invalid_params(Text::ProtocolCompletionRefType.get(Locale::En))
                    .into()
            }
        };
        let found = match source_id.and_then(|id| self.product.completion(id)) {
            Some(source) => self.candidates(call, &view, source.kind, prefix).await,
            None => Found::all(Vec::new()),
        };
        let values: Vec<&String> = found.values.iter().take(MAX_VALUES).collect();
        // `total` counts every match when they were all seen, so it is never below the values
        // given and `hasMore` says exactly whether it is above; a search stopped before the end
        // of its listing does not know the total, and says only that there may be more.
        let mut completion = Map::new();
        completion.insert("values".into(), json!(values));
        if let Some(total) = found.total {
            completion.insert("total".into(), json!(total));
        }
        let has_more = found.total.is_none_or(|t| t > values.len());
        completion.insert("hasMore".into(), json!(has_more));
        let result = json!({ "completion": completion });
        Reply::Value(self.finish(call, result, false))
    }

    async fn candidates(
        &self,
        call: &Call,
        view: &super::listing::View,
        kind: CompletionKind,
        prefix: &str,
    ) -> Found {
        let today = dates::today();
        let all =
            |v: Vec<String>| Found::all(v.into_iter().filter(|v| v.starts_with(prefix)).collect());
        match kind {
            CompletionKind::Fixed(values) => all(values.iter().map(|s| s.to_string()).collect()),
            CompletionKind::SchemaNames => all(self
                .product
                .records
                .iter()
                .map(|r| r.name.to_string())
                .collect()),
            CompletionKind::LastMonths(n) => all((0..n)
                .map(|i| dates::fmt_month(dates::month_start(today, i)))
                .collect()),
            CompletionKind::TodayAndMonthStarts(n) => all(today_and_month_starts(today, n)),
            CompletionKind::None => all(Vec::new()),
            CompletionKind::ListIds {
                tool,
                field,
                limit,
                args,
            } => {
                let Some(t) = self.product.tool(tool) else {
                    return all(Vec::new());
                };
                if !view.can_call(self.product, tool) {
                    return all(Vec::new());
                }
                if self.product.policy.workspaced && call.identity.default_workspace.is_none() {
                    return all(Vec::new());
                }
                self.matching_ids(
                    call,
                    t,
                    field,
                    args,
                    prefix,
                    (limit as usize).min(MAX_VALUES),
                )
                .await
            }
        }
    }

    /// The `field` of the `limit` most recent records a list tool gives, reading pages of
    /// [`LIST_PAGE`] (the Kobana API's largest) until `limit` or a short page; `true` when more
    /// records exist than were read (the answer is capped).
    /// The ids of the list tool's records that start with `prefix`, newest first: the first
    /// `limit` of them, searched through the whole listing (not only its newest records), up
    /// to [`SCAN_PAGES`] pages; the total is known when the listing ended within them.
    async fn matching_ids(
        &self,
        call: &Call,
        tool: &'static runtime_model::catalog::Tool,
        field: &str,
        fixed: &[(&str, &str)],
        prefix: &str,
        limit: usize,
    ) -> Found {
        let base: Map<String, Value> = fixed
            .iter()
            .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
            .collect();
        let mut values = Vec::new();
        let mut total = 0usize;
        for page in 1..=SCAN_PAGES {
            let mut args = base.clone();
            args.insert("page".into(), json!(page));
            args.insert("per_page".into(), json!(LIST_PAGE));
            let ctx = self.call_context(call, &args);
            let got = match self.backend.call(&ctx, tool, &args).await {
                Ok(Output::Json(v)) => ids_of(&v, field),
                // A list that fails mid-way: what was found, without claiming a total.
                _ if page > 1 => {
                    return Found {
                        values,
                        total: None,
                    }
                }
                _ => return Found::all(values),
            };
            let short = got.len() < LIST_PAGE;
            for id in got.into_iter().filter(|id| id.starts_with(prefix)) {
                total += 1;
                if values.len() < limit {
                    values.push(id);
                }
            }
            if short {
                return Found {
                    values,
                    total: Some(total),
                };
            }
        }
        Found {
            values,
            total: None,
        }
    }
}

/// What a completion source suggests for a prefix: the values (at most the source's limit) and,
/// when every candidate was seen, how many matched.
struct Found {
    values: Vec<String>,
    total: Option<usize>,
}

impl Found {
    /// Every match, all given.
    fn all(values: Vec<String>) -> Self {
        let total = Some(values.len());
        Found { values, total }
    }
}

/// The most pages of a listing one completion reads (1,000 records at the API's largest page):
/// enough to search a sandbox's or a small account's listing whole, bounded for a large one.
const SCAN_PAGES: u64 = 20;

/// The page size a completion reads list tools with (the Kobana API's largest page).
const LIST_PAGE: usize = 50;

/// Today, then the first day of this month and of the `n - 1` months before, each date once
/// (on the 1st of a month, today is that month's start).
fn today_and_month_starts(today: time::Date, n: u32) -> Vec<String> {
    let mut out = vec![dates::fmt_date(today)];
    for i in 0..n {
        let d = dates::fmt_date(dates::month_start(today, i));
        if !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

/// The `field` of each item of a list answer (the array itself, or the first array member).
fn ids_of(v: &Value, field: &str) -> Vec<String> {
    let items = crate::backend::records::list_items(v).or_else(|| match v {
        Value::Object(m) => m.values().find_map(Value::as_array),
        _ => None,
    });
    items
        .into_iter()
        .flatten()
        .filter_map(|i| match i.get(field) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        })
        .collect()
}

trait PointerStr {
    fn pointer_str(&self, a: &str, b: &str) -> Option<&str>;
}

impl PointerStr for Params {
    fn pointer_str(&self, a: &str, b: &str) -> Option<&str> {
        self.get(a)?.get(b)?.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::today_and_month_starts;
    use time::{Date, Month};

    #[test]
    fn on_the_first_of_a_month_today_is_listed_once() {
        let first = Date::from_calendar_date(2026, Month::December, 1).expect("a date");
        let got = today_and_month_starts(first, 3);
        assert_eq!(got, vec!["2026-12-01", "2026-11-01", "2026-10-01"]);
        let mid = Date::from_calendar_date(2026, Month::December, 15).expect("a date");
        assert_eq!(
            today_and_month_starts(mid, 2),
            vec!["2026-12-15", "2026-12-01", "2026-11-01"]
        );
    }
}

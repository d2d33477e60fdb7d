//! A backend's JSON answer sent on as the text it came in.
//!
//! `tools/call` asks its backend with [`Backend::call_json_text`], so an answer the backend holds
//! as text (a sandbox list page: its records' stored JSON joined) may come as
//! [`Output::JsonText`] and go into the result as it is, twice (the text block, escaped, and
//! `structuredContent`), without its `Value` tree ever being built. Whatever must read the answer
//! as a value gets it parsed here, once, before the reply is written: a task following the API's
//! work, the tool's declared output schema (checked on every answer), a result budget the answer
//! exceeds (cut at a record boundary), and a replayed answer. The text is `serde_json`'s compact
//! form of that value, so either way the client gets the same bytes.
//!
//! [`Backend::call_json_text`]: runtime_model::backend::Backend::call_json_text

use runtime_model::backend::{BackendError, Output};
use runtime_model::catalog::Tool;

use super::engine::EngineOptions;
use crate::contract::TaskPhase;

/// A backend's result, with a JSON text answer parsed where it must be read as a value.
pub(crate) fn as_sent(
    result: Result<Output, BackendError>,
    tool: &Tool,
    task: TaskPhase<'_>,
    options: &EngineOptions,
) -> Result<Output, BackendError> {
    match result {
        Ok(Output::JsonText(text))
            if matches!(task, TaskPhase::Running(_))
                || tool.output_schema_json.is_some()
                || !super::result_budget::fits(text.len(), options.result_budget_tokens) =>
        {
            Output::JsonText(text).parsed()
        }
        Ok(out @ Output::Replayed(_)) => out.parsed(),
        other => other,
    }
}

//! Handler bodies of the conformance fixture's Tasks-extension tools (SEP-2663 scenarios
//! `tasks-*`): `greet`, `slow_compute`, `failing_job`, `protocol_error_job`, `confirm_delete`,
//! `multi_input` and `test_tool_with_task`.
//!
//! Each task tool answers [`ExtOutcome::StartTask`] when it is offered a task
//! ([`TaskPhase::Offered`]), after asking in the request for whatever it needs first
//! (`test_tool_with_task`); inside the task, or for a client without the extension, it does the
//! work. Asking for input inside a task parks the task (`input_required`) until `tasks/update`.

use std::time::Duration;

use serde_json::{json, Value};

use crate::contract::{ExtCtx, ExtOutcome, InputNeeded, RpcError, TaskPhase, ToolOutput};
use runtime_model::backend::BoxFuture;

type Out<'a> = BoxFuture<'a, Result<ExtOutcome, RpcError>>;

macro_rules! handler {
    ($name:ident, |$ctx:ident| $body:block) => {
        pub fn $name<'a>($ctx: &'a ExtCtx<'a>) -> Out<'a> {
            Box::pin(async move { $body })
        }
    };
}

fn offered(ctx: &ExtCtx<'_>) -> bool {
    matches!(ctx.task, TaskPhase::Offered)
}

fn text(t: impl Into<String>) -> Result<ExtOutcome, RpcError> {
    Ok(ExtOutcome::Tool(ToolOutput::text(t)))
}

fn confirm_form(key: &str, message: String) -> (String, Value) {
    (
        key.to_string(),
        json!({"method": "elicitation/create", "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {"type": "object",
                "properties": {"confirm": {"type": "boolean", "description": "Yes to go ahead"}},
                "required": ["confirm"]},
        }}),
    )
}

handler!(greet, |ctx| {
    let name = ctx
        .args
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("World");
    text(format!("Hello, {name}!"))
});

handler!(slow_compute, |ctx| {
    if offered(ctx) {
        return Ok(ExtOutcome::StartTask);
    }
    let seconds = ctx
        .args
        .get("seconds")
        .and_then(Value::as_f64)
        .unwrap_or(0.0)
        .clamp(0.0, 600.0);
    let label = ctx.args.get("label").and_then(Value::as_str).unwrap_or("");
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    text(format!("Computed {label} in {seconds} s"))
});

handler!(failing_job, |ctx| {
    if offered(ctx) {
        return Ok(ExtOutcome::StartTask);
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    Ok(ExtOutcome::Tool(ToolOutput {
        content: vec![json!({"type": "text", "text": "The job failed (on purpose)"})],
        structured: None,
        is_error: true,
    }))
});

handler!(protocol_error_job, |ctx| {
    if offered(ctx) {
        return Ok(ExtOutcome::StartTask);
    }
    Err(RpcError::internal("the job crashed (on purpose)"))
});

handler!(confirm_delete, |ctx| {
    if offered(ctx) {
        return Ok(ExtOutcome::StartTask);
    }
    let file = ctx
        .args
        .get("filename")
        .and_then(Value::as_str)
        .unwrap_or("the file");
    match ctx.accepted("confirm") {
        Some(c) if c.get("confirm") == Some(&Value::Bool(true)) => text(format!("Deleted {file}")),
        Some(_) => text(format!("Kept {file}")),
        None if ctx.answers.contains_key("confirm") => text(format!("Kept {file} (declined)")),
        None => Ok(ExtOutcome::Input(InputNeeded {
            requests: vec![confirm_form("confirm", format!("Delete {file}?"))],
            data: Value::Null,
        })),
    }
});

handler!(multi_input, |ctx| {
    if offered(ctx) {
        return Ok(ExtOutcome::StartTask);
    }
    let (first, second) = (ctx.answers.get("first"), ctx.answers.get("second"));
    if let (Some(a), Some(b)) = (first, second) {
        let name = |v: &Value| {
            v.pointer("/content/name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        return text(format!("Got {} and {}", name(a), name(b)));
    }
    Ok(ExtOutcome::Input(InputNeeded {
        requests: vec![
            confirm_form("first", "First question: go ahead?".into()),
            confirm_form("second", "Second question: go ahead?".into()),
        ],
        data: Value::Null,
    }))
});

handler!(tool_with_task, |ctx| {
    let Some(answer) = ctx.accepted("user_name") else {
        return Ok(ExtOutcome::Input(InputNeeded {
            requests: vec![(
                "user_name".into(),
                json!({"method": "elicitation/create", "params": {
                    "mode": "form",
                    "message": "What is your name?",
                    "requestedSchema": {"type": "object",
                        "properties": {"name": {"type": "string"}}, "required": ["name"]},
                }}),
            )],
            data: Value::Null,
        }));
    };
    if offered(ctx) {
        return Ok(ExtOutcome::StartTask);
    }
    let name = answer
        .get("name")
        .or_else(|| answer.get("user_name"))
        .and_then(Value::as_str)
        .unwrap_or("");
    text(format!("Hello, {name}! (finished as a task)"))
});

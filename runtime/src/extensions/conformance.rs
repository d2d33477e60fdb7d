//! Handler bodies of the conformance fixture product (`catalog/fixtures/conformance.yaml`).
//!
//! The official MCP conformance suite calls tools, resources and prompts by exact names and
//! checks exact shapes (image/audio/embedded content, progress and log notifications, sampling and
//! elicitation, multi round-trip inputs). The catalog declares them; the bodies are here. They are
//! era-agnostic: asking for input is an [`ExtOutcome::Input`], which the engine delivers as a 2026
//! `input_required` result or as 2025 server→client requests.

use std::time::Duration;

use super::conformance_tasks as tasks;

use runtime_model::backend::BoxFuture;
use serde_json::{json, Map, Value};

use crate::contract::era::LogLevel;
use crate::contract::{
    ExtCtx, ExtOutcome, InputNeeded, ProductExtension, RpcError, Target, ToolOutput,
};

/// A 1×1 PNG.
pub const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV header with no samples.
pub const WAV_BASE64: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

type Out<'a> = BoxFuture<'a, Result<ExtOutcome, RpcError>>;

macro_rules! handler {
    ($name:ident, |$ctx:ident| $body:block) => {
        fn $name<'a>($ctx: &'a ExtCtx<'a>) -> Out<'a> {
            Box::pin(async move { $body })
        }
    };
}

/// The conformance fixture's hand-written parts.
pub static EXTENSION: ProductExtension = ProductExtension {
    product: "conformance",
    tools: &[
        ("conformance_simple_text", simple_text),
        ("conformance_image", image),
        ("conformance_audio", audio),
        ("conformance_embedded_resource", embedded_resource),
        ("conformance_multiple_content", multiple_content),
        ("conformance_error", error),
        ("conformance_progress", progress),
        ("conformance_logging", logging),
        ("conformance_sampling", sampling),
        ("conformance_elicitation", elicitation),
        ("conformance_elicitation_defaults", elicitation_defaults),
        ("conformance_elicitation_enums", elicitation_enums),
        ("conformance_missing_capability", missing_capability),
        ("conformance_streaming_elicitation", streaming_elicitation),
        ("conformance_mrtr_elicitation", mrtr_elicitation),
        ("conformance_mrtr_sampling", mrtr_sampling),
        ("conformance_mrtr_list_roots", mrtr_list_roots),
        ("conformance_mrtr_request_state", mrtr_request_state),
        ("conformance_mrtr_multiple_inputs", mrtr_multiple_inputs),
        ("conformance_mrtr_multi_round", mrtr_multi_round),
        ("conformance_mrtr_capabilities", mrtr_capabilities),
        ("conformance_echo", echo),
        ("conformance_read_resource", read_resource),
        ("conformance_greet", tasks::greet),
        ("conformance_slow_compute", tasks::slow_compute),
        ("conformance_failing_job", tasks::failing_job),
        ("conformance_protocol_error_job", tasks::protocol_error_job),
        ("conformance_confirm_delete", tasks::confirm_delete),
        ("conformance_multi_input", tasks::multi_input),
        ("conformance_tool_with_task", tasks::tool_with_task),
    ],
    prompts: &[
        (
            "test_prompt_with_embedded_resource",
            prompt_embedded_resource,
        ),
        ("test_prompt_with_image", prompt_image),
        ("test_input_required_result_prompt", prompt_input_required),
    ],
    resource_subscribe: true,
    serves_behind_proxy: None,
};

fn text(t: impl Into<String>) -> Result<ExtOutcome, RpcError> {
    Ok(ExtOutcome::Tool(ToolOutput::text(t)))
}

fn ask(requests: Vec<(&str, Value)>, data: Value) -> Result<ExtOutcome, RpcError> {
    Ok(ExtOutcome::Input(InputNeeded {
        requests: requests
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        data,
    }))
}

fn form(message: &str, properties: Value, required: &[&str]) -> Value {
    json!({"method": "elicitation/create", "params": {
        "mode": "form",
        "message": message,
        "requestedSchema": {"type": "object", "properties": properties, "required": required},
    }})
}

fn sample(prompt: &str) -> Value {
    json!({"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
        "maxTokens": 100,
    }})
}

fn roots() -> Value {
    json!({"method": "roots/list", "params": {}})
}

fn arg<'a>(ctx: &'a ExtCtx<'_>, name: &str) -> &'a str {
    ctx.args.get(name).and_then(Value::as_str).unwrap_or("")
}

fn sampled_text(answer: &Value) -> String {
    answer
        .pointer("/content/text")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

handler!(simple_text, |_ctx| {
    text("This is a simple text response for testing.")
});

handler!(image, |_ctx| {
    Ok(ExtOutcome::Tool(ToolOutput {
        content: vec![json!({"type": "image", "data": PNG_BASE64, "mimeType": "image/png"})],
        ..ToolOutput::default()
    }))
});

handler!(audio, |_ctx| {
    Ok(ExtOutcome::Tool(ToolOutput {
        content: vec![json!({"type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav"})],
        ..ToolOutput::default()
    }))
});

handler!(embedded_resource, |_ctx| {
    Ok(ExtOutcome::Tool(ToolOutput {
        content: vec![json!({"type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain",
            "text": "This is an embedded resource content."}})],
        ..ToolOutput::default()
    }))
});

handler!(multiple_content, |_ctx| {
    Ok(ExtOutcome::Tool(ToolOutput {
        content: vec![
            json!({"type": "text", "text": "Multiple content types test:"}),
            json!({"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}),
            json!({"type": "resource", "resource": {"uri": "test://mixed-content-resource",
                "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"}}),
        ],
        ..ToolOutput::default()
    }))
});

handler!(error, |_ctx| {
    Ok(ExtOutcome::Tool(ToolOutput {
        content: vec![
            json!({"type": "text", "text": "This tool intentionally returns an error for testing"}),
        ],
        structured: None,
        is_error: true,
    }))
});

handler!(progress, |ctx| {
    for step in [0.0, 50.0, 100.0] {
        ctx.call
            .progress(step, Some(100.0), Some(&format!("Completed step {step}")));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    text("Progress test completed")
});

handler!(logging, |ctx| {
    for msg in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ] {
        ctx.call.log(LogLevel::Info, "conformance", json!(msg));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    text("Logging test completed")
});

handler!(sampling, |ctx| {
    if let Some(a) = ctx.answers.get("sampling") {
        return text(format!("LLM response: {}", sampled_text(a)));
    }
    ask(vec![("sampling", sample(arg(ctx, "prompt")))], Value::Null)
});

handler!(elicitation, |ctx| {
    if let Some(a) = ctx.answers.get("user_info") {
        let action = a.get("action").and_then(Value::as_str).unwrap_or("");
        let content = a.get("content").cloned().unwrap_or(Value::Null);
        return text(format!("User response: action={action}, content={content}"));
    }
    let props = json!({"username": {"type": "string", "description": "User's response"},
                       "email": {"type": "string", "description": "User's email address"}});
    ask(
        vec![(
            "user_info",
            form(arg(ctx, "message"), props, &["username", "email"]),
        )],
        Value::Null,
    )
});

handler!(elicitation_defaults, |ctx| {
    if let Some(a) = ctx.answers.get("defaults") {
        return text(format!("Elicitation completed: {a}"));
    }
    let props = json!({
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "description": "Verification status", "default": true},
    });
    ask(
        vec![(
            "defaults",
            form(
                "Please review and update the form fields with defaults",
                props,
                &[],
            ),
        )],
        Value::Null,
    )
});

handler!(elicitation_enums, |ctx| {
    if let Some(a) = ctx.answers.get("enums") {
        return text(format!("Elicitation completed: {a}"));
    }
    let props = json!({
        "untitledSingle": {"type": "string", "description": "Choose an option", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "description": "Choose a titled option", "oneOf": [
            {"const": "value1", "title": "First Option"},
            {"const": "value2", "title": "Second Option"},
            {"const": "value3", "title": "Third Option"}]},
        "legacyEnum": {"type": "string", "description": "Choose a legacy option", "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"]},
        "untitledMulti": {"type": "array", "description": "Choose multiple options",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
        "titledMulti": {"type": "array", "description": "Choose multiple titled options",
            "items": {"anyOf": [
                {"const": "value1", "title": "First Choice"},
                {"const": "value2", "title": "Second Choice"},
                {"const": "value3", "title": "Third Choice"}]}},
    });
    ask(
        vec![(
            "enums",
            form("Please select options from the enum fields", props, &[]),
        )],
        Value::Null,
    )
});

handler!(missing_capability, |ctx| {
    if let Some(a) = ctx.answers.get("summary") {
        return text(format!("Sampled: {}", sampled_text(a)));
    }
    ask(
        vec![(
            "summary",
            sample("Summarize the conformance run in one word."),
        )],
        Value::Null,
    )
});

handler!(streaming_elicitation, |ctx| {
    if let Some(c) = ctx.accepted("confirm") {
        return text(format!("Confirmed: {}", Value::Object(c.clone())));
    }
    if !ctx.call.has_form_elicitation() {
        return text("Streaming elicitation needs form elicitation; nothing asked.");
    }
    let props = json!({"ok": {"type": "boolean", "title": "Continue?"}});
    ask(
        vec![(
            "confirm",
            form("Continue the streaming test?", props, &["ok"]),
        )],
        Value::Null,
    )
});

fn name_form() -> Value {
    form(
        "What is your name?",
        json!({"name": {"type": "string", "description": "Your name"}}),
        &["name"],
    )
}

handler!(mrtr_elicitation, |ctx| {
    match ctx.answers.get("user_name") {
        Some(_) => match ctx
            .accepted("user_name")
            .and_then(|c| c.get("name"))
            .and_then(Value::as_str)
        {
            Some(name) => text(format!("Hello, {name}!")),
            None => text("Hello, stranger! (no name was given)"),
        },
        None => ask(vec![("user_name", name_form())], Value::Null),
    }
});

handler!(mrtr_sampling, |ctx| {
    match ctx.answers.get("capital_question") {
        Some(a) => text(format!("The model answered: {}", sampled_text(a))),
        None => ask(
            vec![("capital_question", sample("What is the capital of France?"))],
            Value::Null,
        ),
    }
});

handler!(mrtr_list_roots, |ctx| {
    match ctx.answers.get("client_roots") {
        Some(a) => {
            let n = a.get("roots").and_then(Value::as_array).map_or(0, Vec::len);
            text(format!("The client has {n} root(s)."))
        }
        None => ask(vec![("client_roots", roots())], Value::Null),
    }
});

handler!(mrtr_request_state, |ctx| {
    if ctx.answers.contains_key("confirm") && ctx.round.get("issued").is_some() {
        return text("state-ok: the request state round-tripped");
    }
    let props = json!({"ok": {"type": "boolean", "title": "Proceed?"}});
    ask(
        vec![(
            "confirm",
            form("Proceed with the state test?", props, &["ok"]),
        )],
        json!({"issued": true}),
    )
});

handler!(mrtr_multiple_inputs, |ctx| {
    let keys = ["user_name", "greeting", "client_roots"];
    if keys.iter().all(|k| ctx.answers.contains_key(*k)) {
        let name = ctx
            .accepted("user_name")
            .and_then(|c| c.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("stranger");
        let greeting = sampled_text(&ctx.answers["greeting"]);
        return text(format!("{greeting} {name}"));
    }
    ask(
        vec![
            ("user_name", name_form()),
            ("greeting", sample("Write a short greeting.")),
            ("client_roots", roots()),
        ],
        Value::Null,
    )
});

handler!(mrtr_multi_round, |ctx| {
    let step = ctx.round.get("step").and_then(Value::as_u64).unwrap_or(0);
    match step {
        1 if ctx.answers.contains_key("step1") => {
            let name = ctx
                .accepted("step1")
                .and_then(|c| c.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("stranger")
                .to_string();
            let props =
                json!({"color": {"type": "string", "description": "Your favourite colour"}});
            ask(
                vec![(
                    "step2",
                    form("What is your favourite colour?", props, &["color"]),
                )],
                json!({"step": 2, "name": name}),
            )
        }
        2 if ctx.answers.contains_key("step2") => {
            let name = ctx
                .round
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("stranger");
            let color = ctx
                .accepted("step2")
                .and_then(|c| c.get("color"))
                .and_then(Value::as_str)
                .unwrap_or("no colour");
            text(format!("{name} likes {color}."))
        }
        2 => {
            let props =
                json!({"color": {"type": "string", "description": "Your favourite colour"}});
            ask(
                vec![(
                    "step2",
                    form("What is your favourite colour?", props, &["color"]),
                )],
                ctx.round.clone(),
            )
        }
        _ => ask(
            vec![(
                "step1",
                form(
                    "What is your name?",
                    json!({"name": {"type": "string"}}),
                    &["name"],
                ),
            )],
            json!({"step": 1}),
        ),
    }
});

handler!(mrtr_capabilities, |ctx| {
    if let Some(a) = ctx.answers.get("input") {
        return text(format!("Received: {a}"));
    }
    let request = if ctx.call.has_form_elicitation() {
        name_form()
    } else if ctx.call.has_sampling() {
        sample("What is your name?")
    } else {
        // Needs one of the two: the engine answers -32021.
        name_form()
    };
    ask(vec![("input", request)], Value::Null)
});

handler!(echo, |ctx| {
    let args = Value::Object(ctx.args.clone());
    Ok(ExtOutcome::Tool(ToolOutput {
        content: vec![json!({"type": "text", "text": format!("Received: {args}")})],
        structured: None,
        is_error: false,
    }))
});

/// Contents of the fixture resources.
pub fn resource_contents(uri: &str, args: &Map<String, Value>) -> Option<Vec<Value>> {
    Some(match uri {
        "test://static-text" => vec![json!({"uri": uri, "mimeType": "text/plain",
            "text": "This is the content of the static text resource."})],
        "test://static-binary" => {
            vec![json!({"uri": uri, "mimeType": "image/png", "blob": PNG_BASE64})]
        }
        "test://watched-resource" => vec![json!({"uri": uri, "mimeType": "text/plain",
            "text": "Watched resource content"})],
        _ if uri.starts_with("test://template/") => {
            let id = args.get("id").and_then(Value::as_str)?;
            let body =
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
            vec![json!({"uri": uri, "mimeType": "application/json", "text": body.to_string()})]
        }
        _ => return None,
    })
}

handler!(read_resource, |ctx| {
    let uri = match ctx.target {
        Target::Resource { uri, .. } => uri.to_string(),
        _ => arg(ctx, "uri").to_string(),
    };
    match resource_contents(&uri, ctx.args) {
        Some(c) => Ok(ExtOutcome::Resource(c)),
        None => Err(
            RpcError::invalid_params(format!("Resource not found: {uri}"))
                .with_data(json!({"uri": uri})),
        ),
    }
});

handler!(prompt_embedded_resource, |ctx| {
    let uri = arg(ctx, "resourceUri");
    Ok(ExtOutcome::Prompt(json!({
        "description": "A prompt with an embedded resource",
        "messages": [
            {"role": "user", "content": {"type": "resource", "resource": {
                "uri": uri, "mimeType": "text/plain", "text": "Embedded resource content for testing."}}},
            {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}},
        ],
    })))
});

handler!(prompt_image, |_ctx| {
    Ok(ExtOutcome::Prompt(json!({
        "description": "A prompt with an image",
        "messages": [
            {"role": "user", "content": {"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}},
        ],
    })))
});

handler!(prompt_input_required, |ctx| {
    if let Some(a) = ctx.answers.get("user_context") {
        let context = a
            .pointer("/content/context")
            .and_then(Value::as_str)
            .unwrap_or("(none given)");
        return Ok(ExtOutcome::Prompt(json!({
            "description": "A prompt that asked for context first",
            "messages": [{"role": "user", "content": {"type": "text",
                "text": format!("Context provided: {context}")}}],
        })));
    }
    let props = json!({"context": {"type": "string", "description": "Context for the prompt"}});
    ask(
        vec![(
            "user_context",
            form("What context should the prompt use?", props, &["context"]),
        )],
        Value::Null,
    )
});

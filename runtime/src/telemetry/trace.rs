//! One SERVER span per MCP request, named `{mcp.method.name} {target}` (the tool or prompt name;
//! the method alone otherwise), continuing the W3C trace context a client sends in
//! `params._meta.traceparent` / `tracestate` (the MCP conventions' context propagation).

use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::{Span as _, SpanKind, Status, Tracer as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{Span, Tracer};

use super::request_log::{clip, METHOD_MAX, NAME_MAX};
use crate::rpc::meta::Meta;

/// Reads `traceparent`/`tracestate` from a request's `_meta`.
struct TraceContext<'a>(&'a Meta);

impl Extractor for TraceContext<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key)?.as_str()
    }
    fn keys(&self) -> Vec<&str> {
        ["traceparent", "tracestate"]
            .into_iter()
            .filter(|k| self.0.get(k).is_some())
            .collect()
    }
}

/// What a request span is built from.
pub struct SpanStart<'a> {
    pub method: &'a str,
    /// Tool or prompt name, resource URI; empty when none.
    pub target: &'a str,
    /// The request's `_meta` (its trace context).
    pub meta: &'a Meta,
    pub protocol_version: &'a str,
    pub session_id: Option<&'a str>,
    pub request_id: Option<String>,
}

/// Starts the span of one request. What the caller sent (the method, the target, the request
/// id) is [`clip`]ped, as in the log line.
pub fn start(tracer: &Tracer, s: SpanStart<'_>) -> Span {
    let parent =
        TraceContextPropagator::new().extract_with_context(&Context::new(), &TraceContext(s.meta));
    let method = clip(s.method, METHOD_MAX);
    let target = clip(s.target, NAME_MAX);
    let named = matches!(s.method, "tools/call" | "prompts/get") && !s.target.is_empty();
    let name = if named {
        format!("{method} {target}")
    } else {
        method.to_string()
    };
    let mut attrs = vec![
        KeyValue::new("mcp.method.name", method.into_owned()),
        KeyValue::new("mcp.protocol.version", s.protocol_version.to_string()),
    ];
    match s.method {
        "tools/call" if !s.target.is_empty() => {
            attrs.push(KeyValue::new("gen_ai.tool.name", target.to_string()));
            attrs.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        }
        "prompts/get" if !s.target.is_empty() => {
            attrs.push(KeyValue::new("gen_ai.prompt.name", target.to_string()))
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe"
            if !s.target.is_empty() =>
        {
            attrs.push(KeyValue::new("mcp.resource.uri", target.to_string()))
        }
        _ => {}
    }
    if let Some(id) = s.session_id {
        attrs.push(KeyValue::new("mcp.session.id", id.to_string()));
    }
    if let Some(id) = s.request_id {
        attrs.push(KeyValue::new(
            "jsonrpc.request.id",
            clip(&id, NAME_MAX).into_owned(),
        ));
    }
    tracer
        .span_builder(name)
        .with_kind(SpanKind::Server)
        .with_attributes(attrs)
        .start_with_context(tracer, &parent)
}

/// Ends a request span with its `error.type` (and the JSON-RPC code of an error answer).
pub fn finish(mut span: Span, error_type: Option<&str>, rpc_code: Option<i64>) {
    if let Some(code) = rpc_code {
        span.set_attribute(KeyValue::new("rpc.response.status_code", code.to_string()));
    }
    if let Some(e) = error_type {
        span.set_attribute(KeyValue::new("error.type", e.to_string()));
        span.set_status(Status::error(e.to_string()));
    }
    span.end();
}

/// The trace id of a span, as 32 hex digits (for the audit record).
pub fn trace_id(span: &Span) -> String {
    span.span_context().trace_id().to_string()
}

//! The one place every request the engine answers is measured: its
//! `mcp.server.operation.duration`, its span, the confirmation gate's verdict counter, and the
//! audit record of a write. Wraps the request log line ([`super::request_log`]); what the layers
//! below learned arrives as [`facts::Facts`].

use std::future::Future;
use std::time::Instant;

use opentelemetry::KeyValue;
use runtime_model::errors;
use serde_json::{json, Map, Value};

use super::jsonrpc::Request;
use super::reply::Reply;
use super::request_log;
use crate::contract::Call;
use crate::telemetry::facts::{self, ConfirmEvent, Facts};
use crate::telemetry::{trace, Telemetry};

/// Who measures a request, and what the engine knows of it.
pub(crate) struct Observer<'a> {
    pub telemetry: Option<&'a Telemetry>,
    pub product: &'static str,
    /// Whether the catalog has a tool of this name (only such names become labels, so a client
    /// cannot grow the label set).
    pub is_tool: &'a (dyn Fn(&str) -> bool + Sync),
}

/// Answers `req` with `answer`, measured.
pub(crate) async fn observed<F>(o: Observer<'_>, req: &Request, call: &Call, answer: F) -> Reply
where
    F: Future<Output = Reply>,
{
    let logged = request_log::logged(&req.method, &req.params, answer);
    let Some(t) = o.telemetry else {
        return logged.await;
    };
    let started = Instant::now();
    let target = request_log::target_name(&req.method, &req.params);
    let tool = (req.method == "tools/call" && (o.is_tool)(target)).then_some(target);
    let span = t.tracer().map(|tracer| {
        trace::start(
            tracer,
            trace::SpanStart {
                method: &req.method,
                target,
                params: &req.params,
                protocol_version: call.era.version(),
                session_id: call.session.as_ref().map(|s| s.id.as_str()),
                request_id: match &req.id {
                    Value::Null => None,
                    Value::String(s) => Some(s.clone()),
                    other => Some(other.to_string()),
                },
                transport: if call.session.is_some() || call.era.is_modern() {
                    "tcp"
                } else {
                    "pipe"
                },
            },
        )
    });
    let (reply, facts) = facts::scope(Some(t.clone()), logged).await;
    let (error_type, rpc_code) = error_type(&reply, &facts);

    let mut attrs = vec![
        KeyValue::new("mcp.method.name", req.method.clone()),
        KeyValue::new("mcp.protocol.version", call.era.version()),
    ];
    if let Some(name) = tool {
        attrs.push(KeyValue::new("gen_ai.tool.name", name.to_string()));
    }
    if let Some(e) = &error_type {
        attrs.push(KeyValue::new("error.type", e.clone()));
    }
    t.instruments()
        .operation
        .record(started.elapsed().as_secs_f64(), &attrs);
    if let Some(event) = facts.confirmation {
        let mut a = vec![KeyValue::new("kobana.confirmation.outcome", event.as_str())];
        if let Some(name) = tool {
            a.push(KeyValue::new("gen_ai.tool.name", name.to_string()));
        }
        t.instruments().confirmations.add(1, &a);
    }
    let trace_id = span.as_ref().map(trace::trace_id);
    if let Some(span) = span {
        trace::finish(span, error_type.as_deref(), rpc_code);
    }
    if facts.write.is_some() && !is_input_required(&reply) {
        audit(t, o.product, call, &reply, &facts, trace_id);
    }
    reply
}

fn is_input_required(reply: &Reply) -> bool {
    matches!(reply, Reply::Value(v) if v.get("resultType").and_then(Value::as_str) == Some("input_required"))
}

/// `error.type` of a request: the JSON-RPC code of an error answer, `tool_error` for an `isError`
/// result (so failed tools do not look healthy); none when it succeeded.
fn error_type(reply: &Reply, facts: &Facts) -> (Option<String>, Option<i64>) {
    match reply {
        Reply::Error(e) => (Some(e.code.to_string()), Some(e.code)),
        _ if facts.tool_error.is_some() => (Some("tool_error".to_string()), None),
        _ => (None, None),
    }
}

/// What became of a write: `ok`, `replayed` (the upstream answered an earlier identical call's
/// result), `tool_error`, `declined`, `refused` (the gate ran nothing), `unknown` (it may have
/// run), `error` (a JSON-RPC error).
fn outcome(reply: &Reply, facts: &Facts) -> &'static str {
    if matches!(reply, Reply::Error(_)) {
        return "error";
    }
    match (facts.confirmation, facts.tool_error.as_deref()) {
        (Some(ConfirmEvent::Declined), _) => "declined",
        (
            Some(ConfirmEvent::Replayed | ConfirmEvent::Unavailable | ConfirmEvent::Required),
            Some(_),
        ) => "refused",
        (_, Some(code)) if code == errors::OUTCOME_UNKNOWN.code => "unknown",
        (_, Some(code))
            if code == errors::CONFIRMATION_UNAVAILABLE.code
                || code == errors::CONFIRMATION_QUOTA_EXCEEDED.code =>
        {
            "refused"
        }
        (_, Some(_)) => "tool_error",
        _ if facts.replayed => "replayed",
        _ => "ok",
    }
}

fn audit(
    t: &Telemetry,
    product: &str,
    call: &Call,
    reply: &Reply,
    facts: &Facts,
    trace_id: Option<String>,
) {
    let (Some(sink), Some(w)) = (t.audit(), &facts.write) else {
        return;
    };
    let outcome = outcome(reply, facts);
    let error_code = match reply {
        Reply::Error(e) => Some(e.code.to_string()),
        _ => facts.tool_error.clone(),
    };
    let time = time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    let mut r = Map::new();
    r.insert("time".into(), json!(time));
    r.insert("person".into(), json!(w.person));
    r.insert("organization".into(), json!(w.organization));
    r.insert("workspace".into(), json!(w.workspace));
    r.insert("product".into(), json!(product));
    r.insert("tool".into(), json!(w.tool));
    r.insert("destructive".into(), json!(w.destructive));
    r.insert("protocol_version".into(), json!(call.era.version()));
    r.insert("arguments_sha256".into(), json!(w.arguments_sha256));
    r.insert("arguments".into(), w.arguments.clone());
    r.insert(
        "confirmation".into(),
        json!(facts.confirmation.map(ConfirmEvent::as_str)),
    );
    r.insert("confirmation_id".into(), json!(facts.confirmation_id));
    r.insert("outcome".into(), json!(outcome));
    r.insert("error_code".into(), json!(error_code));
    r.insert("upstream_status".into(), json!(facts.upstream_status));
    r.insert(
        "upstream_request_id".into(),
        json!(facts.upstream_request_id),
    );
    r.insert("idempotency_key".into(), json!(facts.idempotency_key));
    r.insert("trace_id".into(), json!(trace_id));
    sink.write(&Value::Object(r));
    t.instruments()
        .audit_records
        .add(1, &[KeyValue::new("kobana.audit.outcome", outcome)]);
}

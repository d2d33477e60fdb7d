//! The one place every request the engine answers is measured: its
//! `mcp.server.operation.duration`, its span, the confirmation gate's verdict counter, and the
//! audit record of a write. Wraps the request log line ([`super::request_log`]); what the layers
//! below learned arrives as [`Facts`], noted through the handle in the request's call
//! ([`crate::contract::Call::notes`]).

use std::future::Future;
use std::time::Instant;

use opentelemetry::KeyValue;
use runtime_model::errors;
use serde_json::{json, Map, Value};

use super::request_log;
use crate::contract::Call;
use crate::rpc::jsonrpc::Request;
use crate::rpc::reply::Reply;
use crate::telemetry::facts::{ConfirmEvent, Facts, Notes};
use crate::telemetry::{trace, Telemetry};

/// Who measures a request, and what the engine knows of it.
pub(crate) struct Observer<'a> {
    pub telemetry: Option<&'a Telemetry>,
    pub product: &'static str,
    /// The catalog's own text of a tool name (its name or a former one), when it has it: only
    /// such names become labels, so a client cannot grow the label set, and the label is the
    /// catalog's static text rather than a copy per request.
    pub tool: Option<&'static str>,
}

/// Answers `req` with `answer`, measured. A request dropped before it answers (the connection
/// layer's time limit, a closed connection) is measured too, with `error.type` `cancelled`; a
/// write dropped after it was sent is audited with outcome `unknown`. What the request's layers
/// learned is read from `call.notes`, which the engine made recording
/// ([`Notes::recording`]) for a measured request.
pub(crate) async fn observed<F>(o: Observer<'_>, req: &Request, call: &Call, answer: F) -> Reply
where
    F: Future<Output = Reply>,
{
    let logged = request_log::logged(&req.method, &req.params, call.client_ip, answer);
    let Some(t) = o.telemetry else {
        return logged.await;
    };
    let target = request_log::target_name(&req.method, &req.params);
    let tool = o.tool;
    let span = t.tracer().map(|tracer| {
        trace::start(
            tracer,
            trace::SpanStart {
                method: &req.method,
                target,
                meta: req.meta(),
                protocol_version: call.era.version(),
                session_id: call.session.as_ref().map(|s| s.id.as_str()),
                request_id: match &req.id {
                    Value::Null => None,
                    Value::String(s) => Some(s.clone()),
                    other => Some(other.to_string()),
                },
            },
        )
    });
    let mut measured = Measured {
        telemetry: t.clone(),
        product: o.product,
        method: method_label(&req.method),
        version: call.era.version(),
        tool,
        started: Instant::now(),
        span,
        notes: call.notes.clone(),
        done: false,
    };
    let reply = logged.await;
    measured.finish(Some(&reply));
    reply
}

/// A method name as a label value, from a closed set: the methods the server serves, else
/// `other`. A label per name a client sends would let any caller grow the series (and the
/// process's memory, and every scrape) without bound, one unknown method at a time.
fn method_label(method: &str) -> &'static str {
    const SERVED: [&str; 17] = [
        "tools/call",
        "tools/list",
        "resources/read",
        "resources/list",
        "resources/templates/list",
        "prompts/get",
        "prompts/list",
        "completion/complete",
        "ping",
        "server/discover",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "tasks/get",
        "tasks/update",
        "tasks/cancel",
        "initialize",
    ];
    SERVED
        .iter()
        .find(|m| **m == method)
        .copied()
        .unwrap_or("other")
}

/// One request being measured; finishes once, with its answer or (dropped) without one.
struct Measured {
    telemetry: Telemetry,
    product: &'static str,
    method: &'static str,
    version: &'static str,
    tool: Option<&'static str>,
    started: Instant,
    span: Option<opentelemetry_sdk::trace::Span>,
    /// The request's facts (the handle its call carries: the notes outlive a dropped request).
    notes: Notes,
    done: bool,
}

impl Measured {
    fn finish(&mut self, reply: Option<&Reply>) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        let facts = self.notes.facts();
        let t = &self.telemetry;
        let (error_type, rpc_code) = match reply {
            Some(r) => error_type(r),
            None => (Some("cancelled".to_string()), None),
        };
        // The labels on the stack (at most four): no list allocated per request.
        let method = KeyValue::new("mcp.method.name", self.method);
        let version = KeyValue::new("mcp.protocol.version", self.version);
        let tool = self
            .tool
            .map(|name| KeyValue::new("gen_ai.tool.name", name));
        let error = error_type
            .as_ref()
            .map(|e| KeyValue::new("error.type", e.clone()));
        let seconds = self.started.elapsed().as_secs_f64();
        let operation = &t.instruments().operation;
        match (tool, error) {
            (None, None) => operation.record(seconds, &[method, version]),
            (Some(t), None) | (None, Some(t)) => operation.record(seconds, &[method, version, t]),
            (Some(t), Some(e)) => operation.record(seconds, &[method, version, t, e]),
        }
        if let Some(event) = facts.confirmation {
            let mut a = vec![KeyValue::new("kobana.confirmation.outcome", event.as_str())];
            if let Some(name) = self.tool {
                a.push(KeyValue::new("gen_ai.tool.name", name));
            }
            t.instruments().confirmations.add(1, &a);
        }
        let trace_id = self.span.as_ref().map(trace::trace_id);
        if let Some(span) = self.span.take() {
            trace::finish(span, error_type.as_deref(), rpc_code);
        }
        if facts.write.is_some() && !matches!(reply, Some(Reply::InputRequired(_))) {
            let (outcome, code) = match reply {
                Some(r) => (outcome(r, &facts), error_code(r)),
                // Dropped unanswered: once its key was claimed the write may have been sent.
                None if facts.idempotency_key.is_some() => ("unknown", None),
                None => ("cancelled", None),
            };
            audit(
                t,
                self.product,
                self.version,
                &facts,
                outcome,
                code,
                trace_id,
            );
        }
    }
}

impl Drop for Measured {
    fn drop(&mut self) {
        self.finish(None);
    }
}

fn error_code(reply: &Reply) -> Option<String> {
    match reply {
        Reply::Error(e) => Some(e.code.to_string()),
        _ => reply.tool_error().map(str::to_string),
    }
}

/// `error.type` of a request: the JSON-RPC code of an error answer, `tool_error` for an `isError`
/// result (so failed tools do not look healthy); none when it succeeded.
fn error_type(reply: &Reply) -> (Option<String>, Option<i64>) {
    match reply {
        Reply::Error(e) => (Some(e.code.to_string()), Some(e.code)),
        Reply::ToolError { .. } => (Some("tool_error".to_string()), None),
        _ => (None, None),
    }
}

/// What became of a write: `ok`, `replayed` (the upstream answered an earlier identical call's
/// result), `tool_error`, `declined`, `refused` (the gate ran nothing), `unknown` (it may have
/// run), `error` (a JSON-RPC error); `cancelled` (dropped before it was sent) is decided by the
/// caller.
fn outcome(reply: &Reply, facts: &Facts) -> &'static str {
    if matches!(reply, Reply::Error(_)) {
        return "error";
    }
    match (facts.confirmation, reply.tool_error()) {
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
    version: &str,
    facts: &Facts,
    outcome: &'static str,
    error_code: Option<String>,
    trace_id: Option<String>,
) {
    let (Some(sink), Some(w)) = (t.audit(), &facts.write) else {
        return;
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
    r.insert("protocol_version".into(), json!(version));
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
    r.insert("ledger_down".into(), json!(facts.ledger_down));
    r.insert("trace_id".into(), json!(trace_id));
    sink.write(&Value::Object(r));
    t.instruments()
        .audit_records
        .add(1, &[KeyValue::new("kobana.audit.outcome", outcome)]);
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use runtime_model::identity::Identity;
    use serde_json::{json, Map};

    use super::{observed, Observer};
    use crate::contract::{Call, Era, RpcError};
    use crate::rpc::jsonrpc::Request;
    use crate::rpc::reply::Reply;
    use crate::telemetry::Telemetry;

    /// Answers `method` as the engine answers a method it does not serve (-32601), measured.
    async fn unknown(t: &Telemetry, call: &Call, method: String) {
        let req = Request::new(json!(1), method, Map::new());
        let answer = async { Reply::Error(RpcError::method_not_found(&req.method)) };
        let observer = Observer {
            telemetry: Some(t),
            product: "billing",
            tool: None,
        };
        let reply = observed(observer, &req, call, answer).await;
        assert!(matches!(reply, Reply::Error(e) if e.code == -32601));
    }

    #[tokio::test]
    async fn unknown_method_names_share_one_label_and_leave_the_scrape_flat() {
        let t = Telemetry::default();
        let identity = Identity {
            person: "p1".into(),
            name: "P".into(),
            organization: "o1".into(),
            scopes: Default::default(),
            permissions: Default::default(),
            workspaces: Default::default(),
            default_workspace: None,
        };
        let call = Call::detached(Era::Legacy("2025-11-25"), Arc::new(identity), json!({}));
        let name = |i: usize| format!("z/{i:08x}-{}", "B".repeat(4096));
        unknown(&t, &call, name(0)).await;
        let before = t.prometheus();
        for i in 1..300 {
            unknown(&t, &call, name(i)).await;
        }
        let after = t.prometheus();
        assert!(!after.contains("z/"), "a sent name became a label");
        assert!(
            after.contains("mcp_method_name=\"other\""),
            "unknown methods are counted under `other`: {after}"
        );
        // The same series, their counts grown: a few digits more, however many names were sent.
        assert!(
            after.len() <= before.len() + 64,
            "the scrape grew from {} to {} bytes",
            before.len(),
            after.len()
        );
    }
}

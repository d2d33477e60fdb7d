//! `tools/call`: find → permission → argument validation → confirmation gate → dispatch.

use std::sync::Arc;

use axum::body::Bytes;

use runtime_model::backend::{BackendError, CallContext, Output};
use runtime_model::catalog::{Binding, Operation, Product, Tool};
use runtime_model::errors::{self, AppError};
use runtime_model::locale::Locale;
use runtime_model::texts::Text;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::engine::Engine;
use super::mrtr;
use crate::confirm::idempotency::{self, Outcome};
use crate::confirm::{Confirmed, Gate, GateRequest, RecordReader};
use crate::contract::Call;
use crate::contract::Era;
use crate::contract::RpcError;
use crate::contract::{ExtCtx, ExtOutcome, Handler, Target, TaskPhase, ToolOutput};
use crate::rpc::page::Page;
use crate::rpc::params::Params;
use crate::rpc::reply::Reply;

/// Said before an answer the upstream replayed for the call's idempotency key (see
/// `confirm::idempotency`): nothing new ran, and the key has moved on.
pub const REPLAYED_NOTE: &str = Text::ReplayedNote.get(runtime_model::locale::Locale::En);

/// [`REPLAYED_NOTE`] in `locale`.
pub fn replayed_note(locale: runtime_model::locale::Locale) -> &'static str {
    Text::ReplayedNote.get(locale)
}

/// The refusal of a tool name this caller cannot call (or that does not exist), in `locale`;
/// the name stays as it was sent.
pub fn unknown_tool(name: &str, locale: runtime_model::locale::Locale) -> String {
    Text::UnknownTool.fill(locale, &[("name", &name)])
}

/// The arguments of a `tools/call` that sends none (or `null`).
static NO_ARGUMENTS: std::sync::LazyLock<Value> =
    std::sync::LazyLock::new(|| Value::Object(Map::new()));

/// How many input rounds one request may take on the 2025 wire.
const MAX_LEGACY_ROUNDS: usize = 8;

/// A tool result carrying an application error ([`ToolOutput::app_error`]).
pub fn app_error_output(
    err: &AppError,
    detail: Option<&str>,
    extra: Map<String, Value>,
) -> ToolOutput {
    ToolOutput::app_error(err, detail, extra)
}

/// Reads the record a call to confirm touches, for the gate: with the caller's identity, token
/// and permissions, through the same backend the call would go to. Only bound (HTTP) read tools:
/// a handler's read is not run on the way to a question.
struct GateReader<'a> {
    engine: &'a Engine,
    call: &'a Call,
}

impl RecordReader for GateReader<'_> {
    fn read<'a>(
        &'a self,
        tool: &'static Tool,
        args: Map<String, Value>,
    ) -> runtime_model::backend::BoxFuture<'a, Result<Output, Option<BackendError>>> {
        Box::pin(async move {
            if self.call.identity.can_call(tool).is_err() {
                return Err(None);
            }
            if !matches!(tool.binding, Binding::Http(_)) {
                return Err(Some(BackendError::Unsupported(tool.name.to_string())));
            }
            let ctx = self.engine.call_context(self.call, &args);
            self.engine
                .backend
                .call(&ctx, tool, &args)
                .await
                .map_err(Some)
        })
    }
}

/// The application error of a backend failure.
pub fn backend_error_output(e: &BackendError) -> ToolOutput {
    backend_error_output_hinted(e, None)
}

/// [`backend_error_output`] with a `hint` beside the message (what to do instead).
pub fn backend_error_output_hinted(e: &BackendError, hint: Option<String>) -> ToolOutput {
    let (err, detail) = match e {
        BackendError::NotFound(d) => (&errors::NOT_FOUND, d.clone()),
        BackendError::Invalid(d) => (&errors::INVALID_ARGUMENTS, d.clone()),
        BackendError::Conflict(d) => (&errors::INVALID_STATE_TRANSITION, d.clone()),
        BackendError::Upstream { status, message } => {
            (&errors::UPSTREAM_ERROR, format!("HTTP {status}: {message}"))
        }
        BackendError::Unavailable(d) => (&errors::UPSTREAM_ERROR, d.clone()),
        BackendError::Storage(d) => (&errors::SANDBOX_ERROR, d.clone()),
        BackendError::Unsupported(d) => (
            &errors::UPSTREAM_ERROR,
            format!("not supported by this backend: {d}"),
        ),
        BackendError::OutcomeUnknown(d) => (&errors::OUTCOME_UNKNOWN, d.clone()),
    };
    let mut extra = Map::new();
    if let Some(hint) = hint {
        extra.insert("hint".into(), json!(hint));
    }
    app_error_output(err, Some(&detail), extra)
}

/// The result of a write whose outcome is unknown: not a failure; names the tools that read the
/// record so the model can check, and says that running the same call again is answered with
/// the first result (same idempotency key) rather than run twice.
pub(crate) fn outcome_unknown_output(product: &Product, tool: &Tool, detail: &str) -> ToolOutput {
    let record = match tool.operation {
        Operation::Create { record }
        | Operation::Update { record, .. }
        | Operation::Delete { record, .. }
        | Operation::Action { record, .. } => Some(record),
        _ => None,
    };
    let check: Vec<&str> = product
        .tools
        .iter()
        .filter(|t| match (t.operation, record) {
            (Operation::List { record: r }, Some(want))
            | (Operation::Get { record: r, .. }, Some(want)) => r == want,
            _ => false,
        })
        .map(|t| t.name)
        .collect();
    let mut extra = Map::new();
    extra.insert("outcome".into(), json!("unknown"));
    if !check.is_empty() {
        extra.insert("check_with".into(), json!(check));
    }
    let detail = if check.is_empty() {
        detail.to_string()
    } else {
        format!("{detail}. Check with {}", check.join(" or "))
    };
    app_error_output(&errors::OUTCOME_UNKNOWN, Some(&detail), extra)
}

/// How a tool is reached: directly (`tools/call`: the selection's visible tools) or through the
/// discovery `call_tool` (the selection's reachable tools). Everything after that check is the
/// same path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Direct,
    Discovery,
}

impl Engine {
    /// `tools/call`; `found` is the index of the tool its `name` names, when the engine has
    /// already looked it up ([`Engine::handle`]).
    pub(crate) async fn call_tool(
        &self,
        call: &Call,
        params: &Params,
        found: Option<usize>,
    ) -> Reply {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        if let Some(kind) = super::discovery_tools::which(self.product, name) {
            if self.selection(call).discovery() {
                return Box::pin(self.discovery_call(call, kind, params)).await;
            }
        }
        self.call_tool_found(call, params, Access::Direct, found)
            .await
    }

    /// `tools/call` of a catalog tool reached `how`. A tool outside the request's selection is
    /// answered exactly as an unknown tool.
    pub(crate) async fn call_tool_as(&self, call: &Call, params: &Params, how: Access) -> Reply {
        self.call_tool_found(call, params, how, None).await
    }

    /// [`Engine::call_tool_as`], with the tool's index when it was already looked up.
    async fn call_tool_found(
        &self,
        call: &Call,
        params: &Params,
        how: Access,
        found: Option<usize>,
    ) -> Reply {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return RpcError::invalid_params("Invalid params: tools/call needs `name` (a string)")
                .into();
        };
        let selection = self.selection(call);
        let idx = found.or_else(|| self.tool_index(name));
        let Some(idx) = idx.filter(|&i| match how {
            Access::Direct => selection.visible(i),
            Access::Discovery => selection.reachable(i),
        }) else {
            return RpcError::invalid_params(unknown_tool(name, self.locale(call))).into();
        };
        let tool = &self.product.tools[idx];
        // Borrowed from the request: validation, the gate and the backend only read them.
        let args_value = match params.get("arguments") {
            None | Some(Value::Null) => &*NO_ARGUMENTS,
            Some(v) => v,
        };
        let normalized = self.schemas.with_string_ids(idx, args_value);
        let args_value = &*normalized;
        let Some(args) = args_value.as_object() else {
            return RpcError::invalid_params("Invalid params: `arguments` must be an object")
                .into();
        };
        if self.audits() && (!tool.annotations.read_only || tool.annotations.destructive) {
            self.note_write(call, tool, args);
        }
        if let Err(denial) = call.identity.can_call(tool) {
            let err = if denial.code() == errors::INSUFFICIENT_SCOPE.code {
                &errors::INSUFFICIENT_SCOPE
            } else {
                &errors::INSUFFICIENT_PERMISSION
            };
            let mut extra = Map::new();
            extra.insert("missing".into(), json!(denial.missing()));
            let detail = format!("missing `{}`", denial.missing());
            return self.tool_reply(call, app_error_output(err, Some(&detail), extra));
        }
        // A write whose audit record could not be kept does not run (nor is it asked about).
        if let Some(why) = self.audit_refusal(tool) {
            let mut extra = Map::new();
            extra.insert("retryable".into(), json!(true));
            tracing::error!(tool = tool.name, "{why}: the write is refused");
            return self.tool_reply(
                call,
                app_error_output(&errors::AUDIT_UNAVAILABLE, None, extra),
            );
        }
        if let Some(problems) = self.validate_args(idx, args_value, self.locale(call)) {
            let mut extra = Map::new();
            extra.insert("details".into(), json!(problems));
            let detail = problems.join("; ");
            return self.tool_reply(
                call,
                app_error_output(&errors::INVALID_ARGUMENTS, Some(&detail), extra),
            );
        }
        // An extension may take the call (the Tasks extension: a `task:` tool for a client that
        // declared it), or refuse it (a `task: required` tool for one that did not).
        let mut taker = None;
        for e in self.protocol_extensions(call.era.is_modern()) {
            match e.offer(self, call, tool) {
                Ok(true) => {
                    taker = Some(e.clone());
                    break;
                }
                Ok(false) => {}
                Err(e) => return e.into(),
            }
        }
        let offer = taker.is_some();
        // confirmation gate
        let workspace = self.call_context_workspace(call, args);
        let reader = GateReader { engine: self, call };
        let gate = self
            .confirmer
            .gate(GateRequest {
                product: self.product,
                tool,
                args,
                identity: &call.identity,
                workspace: workspace.as_deref(),
                modern: call.era.is_modern(),
                form_elicitation: call.has_form_elicitation(),
                input_responses: params.get("inputResponses"),
                request_state: params.get("requestState").and_then(Value::as_str),
                now: mrtr::now_unix(),
                locale: self.locale(call),
                reader: Some(&reader),
                notes: &call.notes,
            })
            .await;
        let confirmed = match gate {
            Gate::Run { confirmed } => confirmed,
            Gate::InputRequired(v) => return Reply::InputRequired(v),
            Gate::Refuse {
                error,
                code,
                message,
            } => {
                let mut e = Map::new();
                e.insert("code".into(), json!(code));
                e.insert("message".into(), json!(message));
                if error.code == errors::NOT_FOUND.code {
                    let hint = self
                        .owner_key_hint(call, tool, args, super::owner_key::Asked::Tool)
                        .await;
                    if let Some(hint) = hint {
                        e.insert("hint".into(), json!(hint));
                    }
                }
                let structured = json!({ "error": e });
                return self.tool_reply(
                    call,
                    ToolOutput {
                        content: vec![json!({"type": "text", "text": structured.to_string()})],
                        structured: Some(structured),
                        is_error: true,
                    },
                );
            }
        };
        // A task starts only once the call is confirmed. A handler may ask for input in the
        // request first (it is offered the task); a bound call or a confirmed one starts at once.
        if let Some(taker) = &taker {
            if matches!(tool.binding, Binding::Http(_)) || confirmed.is_some() {
                return taker
                    .start(self, call, idx, args.clone(), params, confirmed)
                    .await;
            }
        }
        let phase = if offer {
            TaskPhase::Offered
        } else {
            TaskPhase::None
        };
        match self
            .execute(call, idx, args, params, confirmed.as_ref(), phase)
            .await
        {
            Executed::Reply(r) => r,
            Executed::StartTask => match &taker {
                Some(taker) => {
                    taker
                        .start(self, call, idx, args.clone(), params, confirmed)
                        .await
                }
                None => RpcError::internal(format!(
                    "{} asked to run as a task, which this call was not offered",
                    tool.name
                ))
                .into(),
            },
        }
    }

    /// Runs a confirmed, validated call (in the request, or inside its task) and renders its
    /// result.
    pub(crate) async fn execute(
        &self,
        call: &Call,
        idx: usize,
        args: &Map<String, Value>,
        params: &Params,
        confirmed: Option<&Confirmed>,
        task: TaskPhase<'_>,
    ) -> Executed {
        let tool = &self.product.tools[idx];
        let name = tool.name;
        let workspace = self.call_context_workspace(call, args);
        // A write carries the idempotency key its fingerprint holds (see `confirm::idempotency`).
        let fingerprint = idempotency::needs_key(tool).then(|| {
            idempotency::call_fingerprint(
                self.product,
                tool,
                args,
                &call.identity,
                workspace.as_deref(),
            )
        });
        // The ledger owner (canonical JSON of the person) is needed only to claim a write's key.
        let owner = match fingerprint {
            Some(_) => idempotency::owner(&call.identity),
            None => String::new(),
        };
        let args_ref = args;
        let ran = self
            .confirmer
            .run_once(
                fingerprint.as_deref(),
                confirmed,
                &owner,
                &call.notes,
                |idempotency_key| async move {
                    let dispatched = self
                        .dispatch(
                            call,
                            tool,
                            Target::Tool(tool),
                            args_ref,
                            params,
                            ("tools/call", name),
                            idempotency_key,
                            task,
                        )
                        .await;
                    let outcome = match &dispatched {
                        Ok(Dispatched::Backend(result)) => Outcome::of(result),
                        // An extension tool answered: its outcome is known.
                        Ok(Dispatched::Output(o)) if o.is_error => Outcome::Failed,
                        Err(_) => Outcome::Failed,
                        _ => Outcome::Ran,
                    };
                    (dispatched, outcome)
                },
            )
            .await;
        let dispatched = match ran {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!(tool = tool.name, error = %e, "cannot record the call's idempotency key; nothing ran");
                let err = match e {
                    crate::confirm::LedgerError::QuotaExceeded(_) => {
                        &errors::CONFIRMATION_QUOTA_EXCEEDED
                    }
                    _ => &errors::CONFIRMATION_UNAVAILABLE,
                };
                return Executed::Reply(
                    self.tool_reply(call, app_error_output(err, None, Map::new())),
                );
            }
        };
        let dispatched = match dispatched {
            Ok(Dispatched::Backend(r)) => Ok(Dispatched::Backend(super::json_answer::as_sent(
                r,
                tool,
                task,
                &self.options,
            ))),
            other => other,
        };
        Executed::Reply(match dispatched {
            Ok(Dispatched::Output(out)) => self.tool_reply(call, out),
            Ok(Dispatched::Backend(Ok(Output::Replayed(inner)))) => {
                call.notes.replayed();
                let mut out = match *inner {
                    Output::Json(answer) => {
                        match super::output_schema::check(
                            tool,
                            self.schemas.output(idx),
                            &answer,
                            self.locale(call),
                        ) {
                            Ok(()) => self.budgeted(call, tool, args, answer),
                            Err(mismatch) => mismatch,
                        }
                    }
                    Output::Bytes { mime_type, data } => {
                        file_to_tool(self, call, tool, args, mime_type, data)
                    }
                    // `json_answer::as_sent` parsed the text of a replayed answer.
                    Output::Replayed(_) | Output::JsonText(_) => ToolOutput::default(),
                };
                let note = replayed_note(self.locale(call));
                out.content.insert(0, json!({"type": "text", "text": note}));
                self.tool_reply(call, out)
            }
            Ok(Dispatched::Backend(Ok(Output::Json(answer)))) => {
                // A task follows the API's own asynchronous work to its end.
                let (idx, answer) = match task {
                    TaskPhase::Running(run) => run.follow(call, idx, args, answer).await,
                    _ => (idx, answer),
                };
                let tool = &self.product.tools[idx];
                match super::output_schema::check(
                    tool,
                    self.schemas.output(idx),
                    &answer,
                    self.locale(call),
                ) {
                    Ok(()) => self.budgeted_json_reply(call, tool, args, answer),
                    Err(mismatch) => self.tool_reply(call, mismatch),
                }
            }
            Ok(Dispatched::Backend(Ok(Output::JsonText(text)))) => {
                let is_object = text.is_object();
                let (text, in_string) = text.into_parts();
                self.json_reply(call, text, in_string, is_object)
            }
            Ok(Dispatched::Backend(Ok(Output::Bytes { mime_type, data }))) => {
                self.tool_reply(call, file_to_tool(self, call, tool, args, mime_type, data))
            }
            Ok(Dispatched::Backend(Err(BackendError::OutcomeUnknown(d)))) => {
                self.tool_reply(call, outcome_unknown_output(self.product, tool, &d))
            }
            Ok(Dispatched::Backend(Err(e))) => {
                let hint = match e {
                    BackendError::NotFound(_) => {
                        self.owner_key_hint(call, tool, args, super::owner_key::Asked::Tool)
                            .await
                    }
                    _ => None,
                };
                self.tool_reply(call, backend_error_output_hinted(&e, hint))
            }
            Ok(Dispatched::Resource(contents)) => self.tool_reply(
                call,
                ToolOutput {
                    content: contents
                        .into_iter()
                        .map(|c| json!({"type": "resource", "resource": c}))
                        .collect(),
                    ..ToolOutput::default()
                },
            ),
            Ok(Dispatched::Prompt(_)) => {
                RpcError::internal(format!("handler of {name} answered a prompt")).into()
            }
            Ok(Dispatched::InputRequired(v)) => Reply::InputRequired(v),
            Ok(Dispatched::StartTask) => return Executed::StartTask,
            Err(e) => e.into(),
        })
    }

    /// Notes that this call writes, for its audit record: who, where, and the arguments as sent
    /// (their digest, and their text with secrets removed).
    fn note_write(&self, call: &Call, tool: &'static Tool, args: &Map<String, Value>) {
        let schema: Value = serde_json::from_str(tool.input_schema_json).unwrap_or(Value::Null);
        call.notes.write(crate::telemetry::facts::WriteCall {
            product: self.product.name,
            tool: tool.name,
            destructive: tool.annotations.destructive,
            person: call.identity.person.clone(),
            organization: call.identity.organization.clone(),
            workspace: self.call_context_workspace(call, args),
            arguments_sha256: runtime_model::canonical::sha256_hex(&Value::Object(args.clone())),
            arguments: crate::telemetry::audit::redact(&schema, args),
        });
    }

    /// `None` when the arguments satisfy the tool's input schema; else one line per problem, each
    /// naming the argument, in `locale` (`validation_words::validation_problem`).
    pub(crate) fn validate_args(
        &self,
        idx: usize,
        args: &Value,
        locale: Locale,
    ) -> Option<Vec<String>> {
        let validator = match self.schemas.input(idx) {
            Ok(v) => v,
            Err(e) => return Some(vec![e.clone()]),
        };
        if validator.is_valid(args) {
            return None;
        }
        Some(
            validator
                .iter_errors(args)
                .map(|e| super::validation_words::validation_problem(&e, locale))
                .collect(),
        )
    }

    /// The final `tools/call` result in the caller's era: an `isError` one is a
    /// [`Reply::ToolError`] carrying its application error code.
    pub(crate) fn tool_reply(&self, call: &Call, mut out: ToolOutput) -> Reply {
        let mut code = None;
        if out.is_error {
            if let Some(s) = out.structured.as_mut() {
                super::language::localize_error(s, &mut out.content, self.locale(call));
            }
            let found = out
                .structured
                .as_ref()
                .and_then(|s| s.pointer("/error/code"))
                .and_then(Value::as_str);
            code = Some(found.unwrap_or("unknown").to_string());
        }
        let result = self.write_tool_result(
            call,
            256,
            |bytes| write_json(bytes, &out.content),
            out.structured.as_ref().map(Structured::Value),
            out.is_error,
        );
        match code {
            Some(code) => Reply::ToolError { result, code },
            None => Reply::Raw(result),
        }
    }

    /// The result of a JSON answer, cut to the result budget when it exceeds it
    /// ([`super::result_budget`]).
    fn budgeted_json_reply(
        &self,
        call: &Call,
        tool: &Tool,
        args: &Map<String, Value>,
        answer: Value,
    ) -> Reply {
        let text = crate::rpc::json_text::to_text(&answer);
        let budget = self.options.result_budget_tokens;
        match super::result_budget::cut(&answer, text.len(), budget) {
            None => self.json_reply(call, text, None, answer.is_object()),
            Some(c) => self.tool_reply(call, self.cut_output(call, tool, args, c)),
        }
    }

    /// A JSON answer as a tool output, cut to the result budget when it exceeds it.
    fn budgeted(
        &self,
        call: &Call,
        tool: &Tool,
        args: &Map<String, Value>,
        answer: Value,
    ) -> ToolOutput {
        let text = crate::rpc::json_text::to_text(&answer);
        match super::result_budget::cut(&answer, text.len(), self.options.result_budget_tokens) {
            None => ToolOutput {
                content: vec![json!({"type": "text", "text": text})],
                structured: Some(answer),
                is_error: false,
            },
            Some(c) => self.cut_output(call, tool, args, c),
        }
    }

    /// The output of a cut answer: its JSON (the same as `structuredContent`), the note saying
    /// how to get the rest, and a `resource_link` to the whole when it is a resource.
    fn cut_output(
        &self,
        call: &Call,
        tool: &Tool,
        args: &Map<String, Value>,
        c: super::result_budget::Cut,
    ) -> ToolOutput {
        let whole = self.product.resource_uri_of(tool, args);
        let budget = self.options.result_budget_tokens;
        let note =
            super::result_budget::note(tool, args, &c, budget, whole.as_deref(), self.locale(call));
        let mut content = vec![
            json!({"type": "text", "text": c.text}),
            json!({"type": "text", "text": note}),
        ];
        if let (Some(u), true) = (&whole, call.era.has_structured_content()) {
            content.push(super::result_budget::link(tool, u));
        }
        ToolOutput {
            content,
            structured: Some(c.answer),
            is_error: false,
        }
    }

    /// The result of a JSON answer: serialized once, that text is both the text block and
    /// `structuredContent` (a model reads the text; a program reads the structure). The text
    /// block is `in_string` when the backend gave the text already escaped
    /// ([`runtime_model::backend::JsonText::in_string`]), else `text` escaped here. From
    /// [`SPLICE_FROM`] bytes on, the two texts go into the reply as they are, shared segments
    /// between the envelope's pieces ([`Self::spliced_json_reply`]), rather than copied into
    /// one buffer.
    pub(in crate::protocol) fn json_reply(
        &self,
        call: &Call,
        text: String,
        in_string: Option<String>,
        is_object: bool,
    ) -> Reply {
        if text.len() >= SPLICE_FROM && call.era.has_structured_content() {
            self.spliced_json_reply(call, text, in_string, is_object)
        } else {
            self.copied_json_reply(call, &text, in_string.as_deref(), is_object)
        }
    }

    /// [`Self::json_reply`] in one buffer.
    pub(in crate::protocol) fn copied_json_reply(
        &self,
        call: &Call,
        text: &str,
        in_string: Option<&str>,
        is_object: bool,
    ) -> Reply {
        // The text twice (escaped once, raw once; JSON text escapes about one byte in eight),
        // and the envelope around it.
        let escaped_len = in_string.map_or(text.len() + text.len() / 4, str::len);
        Reply::Raw(self.write_tool_result(
            call,
            text.len() + escaped_len + 64,
            |bytes| {
                bytes.extend_from_slice(TEXT_BLOCK_HEAD);
                match in_string {
                    Some(escaped) => {
                        bytes.push(b'"');
                        bytes.extend_from_slice(escaped.as_bytes());
                        bytes.push(b'"');
                    }
                    None => crate::rpc::json_text::write_string(bytes, text),
                }
                bytes.extend_from_slice(b"}]");
            },
            Some(Structured::Raw {
                json: text,
                is_object,
            }),
            false,
        ))
    }

    /// [`Self::json_reply`] for a large answer in an era with `structuredContent`: the same
    /// bytes as [`Self::write_tool_result`] writes, as segments. The escaped text (the backend's,
    /// or escaped here) and `text` are each one segment, taken over without a copy; only the
    /// envelope's pieces around them are written.
    pub(in crate::protocol) fn spliced_json_reply(
        &self,
        call: &Call,
        text: String,
        in_string: Option<String>,
        is_object: bool,
    ) -> Reply {
        let wrap = wraps_structured(call.era, is_object);
        let mut segments = Vec::with_capacity(5);
        let mut head = Vec::with_capacity(64);
        head.extend_from_slice(b"{\"content\":");
        head.extend_from_slice(TEXT_BLOCK_HEAD);
        match in_string {
            Some(escaped) => {
                head.push(b'"');
                segments.push(Bytes::from(head));
                segments.push(Bytes::from(escaped));
                segments.push(Bytes::from_static(b"\""));
            }
            None => {
                head.reserve(text.len() + text.len() / 4);
                crate::rpc::json_text::write_string(&mut head, &text);
                segments.push(Bytes::from(head));
            }
        }
        segments.push(Bytes::from_static(if wrap {
            b"}],\"structuredContent\":{\"result\":"
        } else {
            b"}],\"structuredContent\":"
        }));
        segments.push(Bytes::from(text));
        let tail = self.result_tail(call);
        let mut end = Vec::with_capacity(tail.len() + 1);
        if wrap {
            end.push(b'}');
        }
        end.extend_from_slice(tail.as_bytes());
        segments.push(Bytes::from(end));
        Reply::Raw(Page::from(segments))
    }

    /// What closes a `tools/call` result after its last member: the 2026 envelope
    /// (pre-serialized, per locale), or just the brace.
    fn result_tail(&self, call: &Call) -> &str {
        match call.era {
            Era::Modern => self.complete_tail(self.locale(call)),
            Era::Legacy(_) => "}",
        }
    }

    /// Writes a `tools/call` result straight to bytes (no intermediate map): `content`, then
    /// `structuredContent` in the caller's era, then `isError`, then the 2026 envelope as
    /// pre-serialized bytes (no clone of serverInfo per call).
    /// `size_hint` is the length expected before the envelope's tail, so that the buffer is
    /// allocated once.
    fn write_tool_result(
        &self,
        call: &Call,
        size_hint: usize,
        content: impl FnOnce(&mut Vec<u8>),
        structured: Option<Structured<'_>>,
        is_error: bool,
    ) -> Page {
        let tail = self.result_tail(call);
        let mut bytes = Page::answer_buffer(size_hint + tail.len() + 16);
        bytes.extend_from_slice(b"{\"content\":");
        content(&mut bytes);
        if let Some(s) = structured.filter(|_| call.era.has_structured_content()) {
            bytes.extend_from_slice(b",\"structuredContent\":");
            let wrap = wraps_structured(call.era, s.is_object());
            if wrap {
                bytes.extend_from_slice(b"{\"result\":");
            }
            s.write(&mut bytes);
            if wrap {
                bytes.push(b'}');
            }
        }
        if is_error {
            bytes.extend_from_slice(b",\"isError\":true");
        }
        bytes.extend_from_slice(tail.as_bytes());
        Page::from_answer_buffer(bytes)
    }

    /// Runs a tool's binding (for `tools/call` or for a resource read). `origin` is the
    /// JSON-RPC method and the name of what it targets; `idempotency_key` goes to the backend's
    /// [`CallContext`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn dispatch(
        &self,
        call: &Call,
        tool: &'static Tool,
        target: Target<'_>,
        args: &Map<String, Value>,
        params: &Params,
        (method, target_name): (&str, &str),
        idempotency_key: Option<String>,
        task: TaskPhase<'_>,
    ) -> Result<Dispatched, RpcError> {
        match tool.binding {
            Binding::Http(_) => {
                let mut ctx = self.call_context(call, args);
                ctx.idempotency_key = idempotency_key;
                ctx.progress = task.progress();
                // A JSON answer may come as text: `json_answer::as_sent` decides what reads it.
                Ok(Dispatched::Backend(
                    self.backend.call_json_text(&ctx, tool, args).await,
                ))
            }
            Binding::Extension(name) => {
                let Some(handler) = self.extensions.tool_handler(name) else {
                    return Err(RpcError::internal(format!(
                        "tool {} names handler `{name}`, which no extension module provides",
                        tool.name
                    )));
                };
                self.run_handler(
                    call,
                    handler,
                    target,
                    args,
                    params,
                    (method, target_name),
                    task,
                )
                .await
            }
        }
    }

    /// The workspace a call runs in: its `workspace_id` argument, else the connection default.
    pub(crate) fn call_context_workspace(
        &self,
        call: &Call,
        args: &Map<String, Value>,
    ) -> Option<String> {
        args.get("workspace_id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| call.identity.default_workspace.clone())
    }

    pub(crate) fn call_context(&self, call: &Call, args: &Map<String, Value>) -> CallContext {
        let workspace = self.call_context_workspace(call, args);
        CallContext {
            product: self.product,
            identity: call.identity.clone(),
            bearer_token: call.bearer_token.as_deref().map(str::to_string),
            workspace,
            idempotency_key: None,
            locale: self.locale(call),
            progress: Default::default(),
            attempts: call.notes.attempts(),
        }
    }

    /// Runs an extension handler through its input rounds.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn run_handler(
        &self,
        call: &Call,
        handler: Handler,
        target: Target<'_>,
        args: &Map<String, Value>,
        params: &Params,
        (method, target_name): (&str, &str),
        task: TaskPhase<'_>,
    ) -> Result<Dispatched, RpcError> {
        let args_value = Value::Object(args.clone());
        let origin = mrtr::Origin {
            method,
            target: target_name,
            args: &args_value,
        };
        let (mut answers, mut round) = if call.era.is_modern() {
            let inputs = mrtr::accept(&self.sealer, call, &origin, params)?;
            (inputs.answers, inputs.round)
        } else {
            (Map::new(), Value::Null)
        };
        for _ in 0..MAX_LEGACY_ROUNDS {
            let ctx = ExtCtx {
                product: self.product,
                target,
                call,
                args,
                answers: &answers,
                round: &round,
                backend: &self.backend,
                task,
                locale: self.locale(call),
            };
            match handler(&ctx).await? {
                ExtOutcome::Tool(t) => return Ok(Dispatched::Output(t)),
                ExtOutcome::Resource(c) => return Ok(Dispatched::Resource(c)),
                ExtOutcome::Prompt(p) => return Ok(Dispatched::Prompt(p)),
                ExtOutcome::Backend(r) => return Ok(Dispatched::Backend(r)),
                ExtOutcome::StartTask => match task {
                    TaskPhase::Offered => return Ok(Dispatched::StartTask),
                    _ => {
                        return Err(RpcError::internal(format!(
                            "{target_name} asked to run as a task, which this call was not offered"
                        )))
                    }
                },
                ExtOutcome::Input(needed) => {
                    if let TaskPhase::Running(inputs) = task {
                        mrtr::check_capabilities(call, &needed)?;
                        answers = inputs.wait_for_input(&needed).await?;
                        round = needed.data;
                        continue;
                    }
                    if call.era.is_modern() {
                        return mrtr::input_required(&self.sealer, call, &origin, needed)
                            .map(Dispatched::InputRequired);
                    }
                    answers = mrtr::ask_legacy(call, &needed).await?;
                    round = needed.data;
                }
            }
        }
        Err(RpcError::internal(format!(
            "{target_name} asked for input more than {MAX_LEGACY_ROUNDS} times"
        )))
    }
}

/// What a finished call left: its reply, or the wish of a handler to be run as a task.
pub(crate) enum Executed {
    Reply(Reply),
    StartTask,
}

/// What a binding produced.
pub(crate) enum Dispatched {
    Output(ToolOutput),
    Backend(Result<Output, BackendError>),
    Resource(Vec<Value>),
    Prompt(Value),
    InputRequired(Value),
    /// The handler asked to run as a task ([`TaskPhase::Offered`]).
    StartTask,
}

/// `structuredContent`: a value, or a JSON answer already serialized.
enum Structured<'a> {
    Value(&'a Value),
    Raw { json: &'a str, is_object: bool },
}

impl Structured<'_> {
    fn is_object(&self) -> bool {
        match self {
            Structured::Value(v) => v.is_object(),
            Structured::Raw { is_object, .. } => *is_object,
        }
    }
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Structured::Value(v) => write_json(out, v),
            Structured::Raw { json, .. } => out.extend_from_slice(json.as_bytes()),
        }
    }
}

/// The JSON text of a tool's answer, written through a byte buffer (`serde_json::to_string`)
/// rather than `Display`, which pushes it into a `String` one small formatted write at a time
/// (the same text).
/// Appends `value` as JSON. Serializing a `Value` into a `Vec` cannot fail (its keys are strings).
fn write_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let _ = serde_json::to_writer(&mut *out, value);
}

/// Whether `structuredContent` is wrapped as `{"result": …}`: 2025 structured content is an
/// object, so anything else is wrapped there; 2026 carries any JSON value.
fn wraps_structured(era: Era, is_object: bool) -> bool {
    !era.is_modern() && !is_object
}

/// The start of a result's text block, before its JSON string.
const TEXT_BLOCK_HEAD: &[u8] = b"[{\"type\":\"text\",\"text\":";

/// The size of a JSON answer from which its texts are spliced into the reply rather than copied
/// ([`Engine::spliced_json_reply`]): a sandbox list page (tens of KB) is, a one-off record (a few
/// hundred bytes) is copied into one buffer, which costs less than the segments' allocations.
const SPLICE_FROM: usize = 8 * 1024;

/// Largest text file a tool result carries inline; beyond it the text is cut and the result
/// points at the resource that reads the whole document.
pub(crate) const MAX_INLINE_TEXT: usize = 64 * 1024;

/// A file a backend answered, as a tool result: tools only describe files (product docs:
/// "Diferente das tools, que só descrevem o arquivo…") — mime type, size, SHA-256 and a
/// `resource_link` to the resource that returns the document; text files (NF-e XML) stay inline
/// up to [`MAX_INLINE_TEXT`].
fn file_to_tool(
    engine: &Engine,
    call: &Call,
    tool: &Tool,
    args: &Map<String, Value>,
    mime_type: String,
    data: Vec<u8>,
) -> ToolOutput {
    let uri = engine.product.resource_uri_of(tool, args);
    let links_allowed = call.era.has_structured_content();
    let link = |uri: &str| {
        json!({
            "type": "resource_link",
            "uri": uri,
            "name": tool.name,
            "mimeType": mime_type,
            "size": data.len(),
        })
    };
    // A file that is text or binary by chance (an attachment: `BlobOrText`) is described by
    // the tool; its document is the answer only of the resource, which the client asked for.
    let describe_only = engine.product.templates.iter().any(|t| {
        t.read_by == tool.name
            && matches!(
                t.content,
                runtime_model::catalog::ContentKind::BlobOrText { .. }
            )
    });
    if is_text_mime(&mime_type) && !describe_only {
        if let Ok(text) = std::str::from_utf8(&data) {
            if text.len() <= MAX_INLINE_TEXT {
                return ToolOutput::text(text.to_string());
            }
            let mut cut = MAX_INLINE_TEXT;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            let where_ = match &uri {
                Some(u) => format!("read the resource {u} for the full text"),
                None => "the full text is not shown here".to_string(),
            };
            let note = format!(
                "[truncated: first {cut} of {} bytes shown; {where_}]",
                data.len()
            );
            let mut content = vec![
                json!({"type": "text", "text": &text[..cut]}),
                json!({"type": "text", "text": note}),
            ];
            if let (Some(u), true) = (&uri, links_allowed) {
                content.push(link(u));
            }
            return ToolOutput {
                content,
                ..ToolOutput::default()
            };
        }
    }
    let sha256 = hex::encode(Sha256::digest(&data));
    let mut file = Map::new();
    file.insert("mimeType".into(), json!(mime_type));
    file.insert("size".into(), json!(data.len()));
    file.insert("sha256".into(), json!(sha256));
    if let Some(u) = &uri {
        file.insert("uri".into(), json!(u));
    }
    let mut summary = format!("File: {mime_type}, {} bytes, sha256 {sha256}.", data.len());
    if let Some(u) = &uri {
        summary.push_str(&format!(" Read the resource {u} to get the document."));
    }
    let mut content = vec![json!({"type": "text", "text": summary})];
    if let (Some(u), true) = (&uri, links_allowed) {
        content.push(link(u));
    }
    ToolOutput {
        content,
        structured: Some(json!({ "file": file })),
        is_error: false,
    }
}

pub(crate) fn is_text_mime(m: &str) -> bool {
    m.starts_with("text/") || m.contains("json") || m.contains("xml")
}

#[allow(dead_code)]
fn _assert_send(e: Arc<Engine>) {
    fn is_send<T: Send>(_: T) {}
    is_send(async move {
        let call = Call::detached(Era::Modern, Arc::new(empty_identity()), json!({}));
        e.call_tool(&call, &Params::new(), None).await
    });
}

#[allow(dead_code)]
fn empty_identity() -> runtime_model::identity::Identity {
    runtime_model::identity::Identity {
        person: String::new(),
        name: String::new(),
        organization: String::new(),
        scopes: Default::default(),
        permissions: Default::default(),
        workspaces: Default::default(),
        default_workspace: None,
    }
}

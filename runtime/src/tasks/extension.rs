//! The Tasks extension on the wire (2026-07-28, `io.modelcontextprotocol/tasks`), on the
//! protocol's extension seam ([`ProtocolExtension`]): creating a task from `tools/call`, running
//! it in the background, and `tasks/get`, `tasks/update`, `tasks/cancel`. The records live in
//! [`TaskStore`] (the confirmation ledger), so any instance answers for a task any instance
//! created.
//!
//! Rules:
//! - only on the 2026 wire, and only for a request whose `_meta` client capabilities declare the
//!   extension (per request); otherwise `tasks/*` answer -32021 naming it, a `task: optional`
//!   tool answers in the request, and a `task: required` tool answers -32021;
//! - the server decides: a `task:` tool called by a declaring client becomes a task (a legacy
//!   `task` param in `tools/call` is ignored, and never makes a `never` tool a task);
//! - a task is tied to its creator (person, organization, workspace): for anybody else, and
//!   after its TTL, its id is unknown (-32602);
//! - confirmation comes first: a destructive tool asks (MRTR) before its task is created;
//! - a tool error completes the task with `isError` in the result; a protocol error fails it;
//! - `tasks/cancel` is idempotent; it stops a handler or a read at once, but never drops a
//!   write already sent to the Kobana API half-way: that call finishes and its answer is kept
//!   on the cancelled task (an outcome the server could not learn stays unknown, and says so);
//! - `tasks/result` and `tasks/list` do not exist in this revision (-32601).
//!
//! Status notifications: the 2026 wire carries them only on `subscriptions/listen`, which this
//! server does not offer (it advertises no list-changed notifications); clients poll `tasks/get`
//! at `pollIntervalMs`.

use crate::rpc::params::Params;
use std::sync::Arc;

use runtime_model::backend::{BoxFuture, Progress};
use runtime_model::catalog::{Binding, TaskSupport, Tool};
use runtime_model::locale::Locale;
use runtime_model::texts::Text;
use serde_json::{json, Map, Value};

use super::follow as task_follow;
use super::options::EXTENSION_ID;
use super::record::{unix_now, Status, TaskRecord};
use super::store::{TaskStore, TaskStoreError};
use crate::confirm::idempotency;
use crate::confirm::Confirmed;
use crate::confirm::LedgerError;
use crate::contract::call::Peer;
use crate::contract::error::MISSING_CLIENT_CAPABILITY;
use crate::contract::{Call, InputNeeded, RpcError, TaskInputs, TaskPhase};
use crate::protocol::engine::Engine;
use crate::protocol::engine::ProtocolExtension;
use crate::protocol::tools::{app_error_output, Executed};
use crate::rpc::reply::Reply;
use runtime_model::errors;

/// -32021 naming the tasks extension.
pub fn extension_required(what: &str) -> RpcError {
    RpcError::new(
        MISSING_CLIENT_CAPABILITY,
        format!("{what} needs the client capability extensions[\"{EXTENSION_ID}\"] (the Tasks extension), which the request did not declare"),
    )
    .with_data(json!({"requiredCapabilities": {"extensions": {EXTENSION_ID: {}}}}))
}

/// -32602 for a task id this caller has no task under, its message in `locale` (the id as it
/// was sent).
fn unknown_task(id: &str, locale: Locale) -> RpcError {
    RpcError::invalid_params(Text::TaskUnknown.fill(locale, &[("id", &id)]))
        .with_data(json!({"taskId": id}))
}

/// The `statusMessage` of a task the client cancelled, in `locale`.
fn cancelled_by_client(locale: Locale) -> &'static str {
    Text::TaskCancelledByClient.get(locale)
}

/// The `statusMessage` of a task cancelled after its write reached the API, in `locale`.
fn cancelled_after_send(tool: &str, locale: Locale) -> String {
    Text::TaskCancelledAfterSend.fill(locale, &[("tool", &tool)])
}

fn store_error(e: TaskStoreError) -> RpcError {
    tracing::warn!(error = %e, "task store");
    RpcError::internal(format!("the task store is unavailable: {e}"))
}

/// Who owns the tasks a call creates or reads: person, organization and the connection's
/// workspace.
pub fn task_owner(call: &Call) -> String {
    crate::protocol::mrtr::principal(call)
}

/// Whether this request declared the Tasks extension (2026 only).
pub fn negotiated(call: &Call) -> bool {
    call.era.is_modern()
        && call
            .client_caps
            .get("extensions")
            .and_then(|e| e.get(EXTENSION_ID))
            .is_some_and(|v| !v.is_null())
}

/// A running task's handle for its handler: parks the task on input requests and waits for
/// `tasks/update`, watching the shared store (the answers may arrive on any instance).
struct TaskRun {
    store: TaskStore,
    id: String,
    /// The engine running the call: following the API's asynchronous work reads through it.
    engine: Arc<Engine>,
}

impl TaskRun {
    /// Keeps the task's heartbeat while the work runs; with `stop_on_cancel`, resolves when the
    /// task is cancelled (on any instance) or gone, else never.
    async fn watch(&self, stop_on_cancel: bool) {
        let every = self.store.options.heartbeat_every.as_secs().max(1);
        loop {
            tokio::time::sleep(self.store.options.watch_every).await;
            match self.store.get_any(&self.id).await {
                Ok(None) if stop_on_cancel => return,
                Ok(Some(r)) if r.status == Status::Cancelled && stop_on_cancel => return,
                Ok(Some(r)) if !r.status.is_terminal() && unix_now() >= r.heartbeat_at + every => {
                    let _ = self
                        .store
                        .update(&self.id, None, |r| {
                            if r.status.is_terminal() {
                                return false;
                            }
                            r.heartbeat_at = unix_now();
                            true
                        })
                        .await;
                }
                _ => {}
            }
        }
    }
}

impl TaskInputs for TaskRun {
    fn follow<'a>(
        &'a self,
        call: &'a Call,
        idx: usize,
        args: &'a Map<String, Value>,
        answer: Value,
    ) -> BoxFuture<'a, (usize, Value)> {
        Box::pin(follow(
            &self.engine,
            &self.store,
            call,
            idx,
            args,
            answer,
            self,
        ))
    }

    /// What the backend reports (the sandbox's slow operations, a followed API operation)
    /// becomes the task's `statusMessage`, while it works.
    fn progress(&self) -> Progress {
        let (store, id) = (self.store.clone(), self.id.clone());
        Progress::to(move |_done, _total, message| {
            let (store, id, text) = (store.clone(), id.clone(), message.to_string());
            tokio::spawn(async move {
                let _ = store
                    .update(&id, None, |r| {
                        if r.status != Status::Working
                            || r.status_message.as_deref() == Some(text.as_str())
                        {
                            return false;
                        }
                        r.status_message = Some(text.clone());
                        true
                    })
                    .await;
            });
        })
    }

    fn is_cancelled(&self) -> runtime_model::backend::BoxFuture<'_, bool> {
        Box::pin(async move {
            match self.store.get_any(&self.id).await {
                Ok(None) => true,
                Ok(Some(r)) => r.status == Status::Cancelled,
                Err(_) => false,
            }
        })
    }

    fn wait_for_input<'a>(
        &'a self,
        needed: &'a InputNeeded,
    ) -> runtime_model::backend::BoxFuture<'a, Result<Map<String, Value>, RpcError>> {
        Box::pin(async move {
            let requests: Map<String, Value> = needed.requests.iter().cloned().collect();
            let parked = self
                .store
                .update(&self.id, None, |r| {
                    if r.status.is_terminal() {
                        return false;
                    }
                    r.status = Status::InputRequired;
                    r.input_requests = requests.clone();
                    r.answers.clear();
                    true
                })
                .await
                .map_err(store_error)?;
            match parked {
                Some(r) if r.status == Status::InputRequired => {}
                _ => return Err(RpcError::internal("the task was cancelled or expired")),
            }
            loop {
                tokio::time::sleep(self.store.options.watch_every).await;
                let Some(r) = self.store.get_any(&self.id).await.map_err(store_error)? else {
                    return Err(RpcError::internal(
                        "the task expired while waiting for input",
                    ));
                };
                if r.status.is_terminal() {
                    return Err(RpcError::internal("the task was cancelled"));
                }
                if r.status == Status::Working && r.input_requests.is_empty() {
                    let mut taken = Map::new();
                    self.store
                        .update(&self.id, None, |r| {
                            taken = std::mem::take(&mut r.answers);
                            !taken.is_empty()
                        })
                        .await
                        .map_err(store_error)?;
                    return Ok(taken);
                }
            }
        })
    }
}

/// A stored result from an engine reply.
fn reply_value(reply: Reply) -> Result<Value, RpcError> {
    match reply {
        Reply::Value(v) | Reply::InputRequired(v) => Ok(v),
        Reply::Raw(page) | Reply::ToolError { result: page, .. } => {
            let bytes = page.to_vec();
            serde_json::from_slice(&bytes)
                .map_err(|e| RpcError::internal(format!("a tool result did not parse: {e}")))
        }
        Reply::Error(e) => Err(e),
    }
}

/// The Tasks extension of one engine: its task records ([`TaskStore`], with the TTLs and
/// polling of [`super::options::TaskOptions`]).
pub struct TasksExtension {
    store: TaskStore,
}

impl TasksExtension {
    pub fn new(store: TaskStore) -> Self {
        Self { store }
    }
}

impl ProtocolExtension for TasksExtension {
    fn id(&self) -> &'static str {
        EXTENSION_ID
    }

    /// Whether any tool of this product may run as a task (then the extension is advertised).
    fn serves(&self, engine: &Engine) -> bool {
        engine
            .product
            .tools
            .iter()
            .any(|t| t.task != TaskSupport::Never)
    }

    fn answers(&self, method: &str) -> bool {
        matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel")
    }

    fn handle<'a>(
        &'a self,
        engine: &'a Engine,
        method: &'a str,
        call: &'a Call,
        params: &'a Params,
    ) -> BoxFuture<'a, Reply> {
        Box::pin(async move {
            match method {
                "tasks/get" => self.tasks_get(engine, call, params).await,
                "tasks/update" => self.tasks_update(engine, call, params).await,
                _ => self.tasks_cancel(engine, call, params).await,
            }
        })
    }

    /// Whether a call of `tool` becomes a task: the request declared the extension and the
    /// catalog lets the tool run as one. `Err` when the tool requires tasks and the request did
    /// not declare them.
    fn offer(&self, engine: &Engine, call: &Call, tool: &Tool) -> Result<bool, RpcError> {
        let declared = negotiated(call);
        match tool.task {
            TaskSupport::Never => Ok(false),
            TaskSupport::Required if !declared => {
                Err(extension_required(&format!("The tool {}", tool.name)))
            }
            _ => Ok(declared && engine.me().is_some()),
        }
    }

    /// Creates the task of a `tools/call` and starts it in the background; answers the
    /// `CreateTaskResult` once the task is stored (so a `tasks/get` on any instance finds it).
    fn start<'a>(
        &'a self,
        engine: &'a Engine,
        call: &'a Call,
        idx: usize,
        args: Map<String, Value>,
        params: &'a Params,
        confirmed: Option<Confirmed>,
    ) -> BoxFuture<'a, Reply> {
        Box::pin(self.start_task(engine, call, idx, args, params, confirmed))
    }
}

impl TasksExtension {
    /// Creates the task of a `tools/call` and starts it in the background; answers the
    /// `CreateTaskResult` once the task is stored (so a `tasks/get` on any instance finds it).
    async fn start_task(
        &self,
        engine: &Engine,
        call: &Call,
        idx: usize,
        args: Map<String, Value>,
        params: &Params,
        confirmed: Option<Confirmed>,
    ) -> Reply {
        let Some(me) = engine.me() else {
            return RpcError::internal("this engine cannot run tasks").into();
        };
        let tool = &engine.product.tools[idx];
        let owner = task_owner(call);
        let quota = idempotency::owner(&call.identity);
        let record = match self.store.create(&owner, &quota, tool.name).await {
            Ok(r) => r,
            Err(e) => {
                if let Some(c) = &confirmed {
                    engine.confirmer.abandon(c).await;
                }
                // A caller holding its quota of live work is told so, as a direct call is.
                if let TaskStoreError::Ledger(LedgerError::QuotaExceeded(_)) = e {
                    return engine.tool_reply(
                        call,
                        app_error_output(&errors::CONFIRMATION_QUOTA_EXCEEDED, None, Map::new()),
                    );
                }
                return store_error(e).into();
            }
        };
        // The response stream ends with this answer: nothing more can be sent on it.
        let mut call = call.clone();
        call.peer = Peer::none();
        call.progress_token = None;
        // The request's facts are read when it answers, now: the task notes nothing into them.
        call.notes = crate::contract::facts::Notes::NONE;
        let params = params.clone();
        let id = record.id.clone();
        let store = self.store.clone();
        tokio::spawn(async move {
            run_task(me, store, call, idx, args, params, confirmed, id).await;
        });
        Reply::Value(Value::Object(record.create_result()))
    }

    fn task_id<'p>(
        &self,
        call: &Call,
        method: &str,
        params: &'p Params,
    ) -> Result<&'p str, RpcError> {
        if !negotiated(call) {
            return Err(extension_required(method));
        }
        params
            .get("taskId")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "Invalid params: {method} needs `taskId` (a string)"
                ))
            })
    }

    fn ack(&self, engine: &Engine, call: &Call) -> Reply {
        Reply::Value(engine.finish(call, json!({}), false))
    }

    /// `tasks/get`: the task with its result, error or pending input requests.
    async fn tasks_get(&self, engine: &Engine, call: &Call, params: &Params) -> Reply {
        let id = match self.task_id(call, "tasks/get", params) {
            Ok(id) => id,
            Err(e) => return e.into(),
        };
        match self.store.get(id, &task_owner(call)).await {
            Ok(Some(r)) if self.lost(&r) => {
                match self.end_lost(engine, r, engine.locale(call)).await {
                    Ok(r) => Reply::Value(Value::Object(r.detailed())),
                    Err(e) => store_error(e).into(),
                }
            }
            Ok(Some(r)) => Reply::Value(Value::Object(r.detailed())),
            Ok(None) => unknown_task(id, engine.locale(call)).into(),
            Err(e) => store_error(e).into(),
        }
    }

    /// Whether a task not finished lost the instance running it (its heartbeat is stale).
    fn lost(&self, r: &TaskRecord) -> bool {
        !r.status.is_terminal()
            && unix_now() > r.heartbeat_at + self.store.options.stale_after.as_secs()
    }

    /// Ends a task whose instance stopped. A write sent to the Kobana API may or may not have
    /// run: its result is `outcome_unknown` (never a failure), naming the tools that read the
    /// record; anything else failed with a protocol error saying why.
    async fn end_lost(
        &self,
        engine: &Engine,
        lost: TaskRecord,
        locale: Locale,
    ) -> Result<TaskRecord, TaskStoreError> {
        let tool = engine
            .tool_index(&lost.tool)
            .map(|i| &engine.product.tools[i]);
        let write =
            tool.filter(|t| matches!(t.binding, Binding::Http(_)) && !t.annotations.read_only);
        let result = write.map(|t| {
            let out = crate::protocol::tools::outcome_unknown_output(
                engine.product,
                t,
                "the server instance running this task stopped before the Kobana API's answer was recorded; the operation may or may not have run",
            );
            let mut m = Map::new();
            m.insert("content".into(), Value::Array(out.content));
            if let Some(s) = out.structured {
                m.insert("structuredContent".into(), s);
            }
            m.insert("isError".into(), Value::Bool(true));
            match crate::protocol::language::localize_reply(Reply::Value(Value::Object(m)), locale, false) {
                Reply::Value(v) => v,
                _ => Value::Null,
            }
        });
        let ended = self
            .store
            .finish(&lost.id, |r| match &result {
                Some(v) => {
                    r.status = Status::Completed;
                    r.result = Some(v.clone());
                }
                None => {
                    r.status = Status::Failed;
                    r.error = Some(
                        RpcError::internal(
                            "the server instance running this task stopped before it finished",
                        )
                        .to_value(),
                    );
                }
            })
            .await?;
        Ok(ended.unwrap_or(lost))
    }

    /// `tasks/update`: answers to some or all of the task's pending input requests; the task
    /// resumes when none is left. Answers to keys the task did not ask are ignored.
    async fn tasks_update(&self, engine: &Engine, call: &Call, params: &Params) -> Reply {
        let id = match self.task_id(call, "tasks/update", params) {
            Ok(id) => id,
            Err(e) => return e.into(),
        };
        let responses = match params.get("inputResponses") {
            Some(Value::Object(m)) => m,
            _ => {
                return RpcError::invalid_params(
                    "Invalid params: tasks/update needs `inputResponses` (an object: request key → response)",
                )
                .into()
            }
        };
        if let Some((k, _)) = responses.iter().find(|(_, v)| !v.is_object()) {
            return RpcError::invalid_params(format!(
                "Invalid params: inputResponses[{k:?}] must be an object (the client's answer)"
            ))
            .into();
        }
        let updated = self
            .store
            .update(id, Some(&task_owner(call)), |r| {
                if r.status != Status::InputRequired {
                    return false;
                }
                let mut changed = false;
                for (k, v) in responses {
                    if r.input_requests.remove(k).is_some() {
                        r.answers.insert(k.clone(), v.clone());
                        changed = true;
                    }
                }
                if changed && r.input_requests.is_empty() {
                    r.status = Status::Working;
                }
                changed
            })
            .await;
        match updated {
            Ok(Some(_)) => self.ack(engine, call),
            Ok(None) => unknown_task(id, engine.locale(call)).into(),
            Err(e) => store_error(e).into(),
        }
    }

    /// `tasks/cancel`: a task not yet terminal becomes `cancelled`; a terminal one is left as it
    /// is (the same acknowledgement).
    async fn tasks_cancel(&self, engine: &Engine, call: &Call, params: &Params) -> Reply {
        let id = match self.task_id(call, "tasks/cancel", params) {
            Ok(id) => id,
            Err(e) => return e.into(),
        };
        let locale = engine.locale(call);
        let cancelled = self
            .store
            .update(id, Some(&task_owner(call)), |r: &mut TaskRecord| {
                if r.status.is_terminal() {
                    return false;
                }
                r.status = Status::Cancelled;
                r.status_message = Some(cancelled_by_client(locale).into());
                r.input_requests.clear();
                r.answers.clear();
                true
            })
            .await;
        match cancelled {
            Ok(Some(_)) => self.ack(engine, call),
            Ok(None) => unknown_task(id, engine.locale(call)).into(),
            Err(e) => store_error(e).into(),
        }
    }
}

/// Runs a task's call to its end and records the outcome on the task.
#[allow(clippy::too_many_arguments)]
async fn run_task(
    engine: Arc<Engine>,
    store: TaskStore,
    call: Call,
    idx: usize,
    args: Map<String, Value>,
    params: Params,
    confirmed: Option<Confirmed>,
    id: String,
) {
    let tool = &engine.product.tools[idx];
    // Status messages the task records are read later by the same caller: its locale.
    let locale = engine.locale(&call);
    let run = TaskRun {
        store: store.clone(),
        id: id.clone(),
        engine: engine.clone(),
    };
    // A write sent to the Kobana API is never dropped half-way: its outcome must be known.
    let interruptible = !matches!(tool.binding, Binding::Http(_)) || tool.annotations.read_only;
    let work = engine.execute(
        &call,
        idx,
        &args,
        &params,
        confirmed.as_ref(),
        TaskPhase::Running(&run),
    );
    let executed = tokio::select! {
        r = work => Some(r),
        _ = run.watch(interruptible) => None,
    };
    let outcome = match executed {
        None => return, // cancelled (or expired): nothing to record
        // The result is read later by the same caller: its application error in their locale.
        Some(Executed::Reply(reply)) => reply_value(crate::protocol::language::localize_reply(
            reply,
            locale,
            call.era.is_modern(),
        )),
        Some(Executed::StartTask) => Err(RpcError::internal(format!(
            "the handler of {} asked for a task inside its task",
            tool.name
        ))),
    };
    let finished = store
        .finish(&id, |r| match &outcome {
            Ok(v) => {
                r.status = Status::Completed;
                r.result = Some(v.clone());
            }
            Err(e) => {
                r.status = Status::Failed;
                r.error = Some(e.to_value());
            }
        })
        .await;
    match finished {
        Ok(Some(r)) if r.status == Status::Cancelled => {
            // Cancelled while the write ran: keep what the API answered on the task.
            if let Ok(v) = &outcome {
                let _ = store
                    .update(&id, None, |r| {
                        if r.result.is_some() {
                            return false;
                        }
                        r.result = Some(v.clone());
                        r.status_message = Some(cancelled_after_send(tool.name, locale));
                        true
                    })
                    .await;
            }
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(task = %id, error = %e, "cannot record a task's outcome"),
    }
}

/// Inside a task: when the first answer of `tool` is a record the API is still working on,
/// reads it again until it is done (see `task_follow`). Answers the tool whose answer it is
/// (the get tool after a follow) and the answer.
async fn follow(
    engine: &Engine,
    store: &TaskStore,
    call: &Call,
    idx: usize,
    args: &Map<String, Value>,
    answer: Value,
    run: &dyn TaskInputs,
) -> (usize, Value) {
    let tool = &engine.product.tools[idx];
    // Only the real API works asynchronously: the sandbox did its work (and its delay)
    // before it answered, and never moves a record on by itself.
    if engine.backend.executes_operations() {
        return (idx, answer);
    }
    let Some(plan) = task_follow::plan(engine.product, tool, args, &answer) else {
        return (idx, answer);
    };
    let Some(get_idx) = engine.tool_index(plan.get.name) else {
        return (idx, answer);
    };
    let progress = run.progress();
    task_follow::report(&progress, tool, &answer);
    let deadline = tokio::time::Instant::now() + store.options.follow_for;
    let mut last = None;
    while tokio::time::Instant::now() < deadline {
        tokio::time::sleep(store.options.follow_every).await;
        if run.is_cancelled().await {
            break;
        }
        let mut ctx = engine.call_context(call, &plan.args);
        ctx.progress = progress.clone();
        match engine.backend.call(&ctx, plan.get, &plan.args).await {
            Ok(out) => {
                if let Some(v) = task_follow::json_of(out) {
                    let done = task_follow::in_progress(&v).is_none();
                    task_follow::report(&progress, tool, &v);
                    last = Some(v);
                    if done {
                        break;
                    }
                }
            }
            Err(e) => {
                tracing::warn!(tool = plan.get.name, error = %e, "following an asynchronous operation: read failed; retrying")
            }
        }
    }
    match last {
        Some(v) => (get_idx, v),
        None => (idx, answer),
    }
}

//! The confirmation gate of `tools/call`.
//!
//! Rules (issue 4, product docs "Confirmation of destructive tools"), all read from the policy:
//! - a tool that is not destructive runs;
//! - a destructive tool on a 2025-era request, or on a 2026-07-28 request that does not declare
//!   form elicitation, runs (`unconfirmable_destructive: run`) or is refused with
//!   `confirmation_required` (`refuse`);
//! - otherwise the first call runs nothing and gets the question ([`Gate::InputRequired`]); answers
//!   are only read together with a `requestState` this server sealed, so a first call that brings
//!   its own "yes" is asked anyway;
//! - a `requestState` that does not open (tampered, sealed by another key, expired) or that was
//!   issued for another tool, other arguments, another person / organization / workspace (as the
//!   policy binds) gets a fresh question — "if anything does not match, the server simply asks
//!   again" (product docs). Nothing runs, and the client can recover without an error path;
//! - decline, cancel, or `confirm: false` (or an accept without `confirm: true`) → refused with the
//!   product's `decline_code` and nothing runs;
//! - `accept` + `confirm: true` → the state's nonce is recorded in the ledger *before* running,
//!   in two steps: `reserved:<token>` (put if absent), then `running` (compare-and-set). Only the
//!   request that moves the record to `running` runs the tool; after it, the engine writes the
//!   outcome (`ran`, `failed`, `unknown`) with [`Confirmer::settle`]. A replay → ask again with
//!   [`REPLAY_NOTICE`] (`replay: ask_again`) or refuse with `confirmation_replayed` (`refuse`),
//!   either way saying what became of the first use. A record still `reserved` never ran (its
//!   request failed before running, e.g. the ledger's answer was lost): a replay takes it over
//!   and runs, once. Ledger failure → `confirmation_unavailable` (for the confirmation only: a
//!   call that runs without one runs through the outage, [`Claimed::during_outage`]); a caller
//!   over its quota → `confirmation_quota_exceeded` (nothing runs either way).

use std::sync::Arc;
use std::time::Duration;

use runtime_model::canonical;
use runtime_model::catalog::{Product, ReplayPolicy, Tool, UnconfirmableDestructive};
use runtime_model::errors::{
    self as app_errors, AppError, CONFIRMATION_QUOTA_EXCEEDED, CONFIRMATION_REPLAYED,
    CONFIRMATION_REQUIRED, CONFIRMATION_UNAVAILABLE, USER_DECLINED,
};
use runtime_model::identity::{self, Identity};
use runtime_model::locale::Locale;
use serde_json::{json, Map, Value};

use super::facts::{self, RecordReader};
use super::form::{self, Refusal};
use super::idempotency::{self, CallKeys, Claimed, Outcome};
use super::ledger::{Ledger, LedgerError};
use crate::state::{new_nonce, Binding, Refused, StateClaims, StateSealer};
use crate::telemetry::facts::{ConfirmEvent, Notes};

/// Ledger value of a confirmation being run.
const RUNNING: &str = "running";
/// Prefix of the ledger value of a confirmation recorded but not yet run.
const RESERVED: &str = "reserved:";

/// The `inputRequests` key of the confirmation question.
pub const INPUT_KEY: &str = "confirm";
/// The one boolean field of the confirmation form.
pub const CONFIRM_FIELD: &str = "confirm";
/// The JSON-RPC method a confirmation state is bound to.
const METHOD: &str = "tools/call";
/// Marks a state as a confirmation (in `StateClaims::data`), so other MRTR users can tell it apart.
pub const STATE_PURPOSE: &str = "confirmation";

/// Where a confirmation state seals the call's idempotency generation.
const GENERATION: &str = "generation";

/// One `tools/call` as the gate sees it.
#[derive(Clone, Copy)]
pub struct GateRequest<'a> {
    pub product: &'static Product,
    pub tool: &'static Tool,
    /// The call's `arguments` (an object; `{}` when absent).
    pub args: &'a Map<String, Value>,
    pub identity: &'a Identity,
    /// The workspace the call runs in (`workspace_id` argument, else the connection default).
    pub workspace: Option<&'a str>,
    /// A 2026-07-28 request.
    pub modern: bool,
    /// This request declares form elicitation (`elicitation: {}` or `{form: {}}`).
    pub form_elicitation: bool,
    /// `params.inputResponses`, as sent.
    pub input_responses: Option<&'a Value>,
    /// `params.requestState`, as sent.
    pub request_state: Option<&'a str>,
    /// Unix seconds.
    pub now: u64,
    /// The language of the form and of the refusals.
    pub locale: Locale,
    /// Reads the record the call touches before a question is asked (its facts go into the
    /// question; a missing or terminal record is refused without one). `None`: nothing is read.
    pub reader: Option<&'a dyn RecordReader>,
    /// Where the gate notes its verdict for the request's metrics and audit record.
    pub notes: &'a Notes,
}

/// The gate's verdict.
#[derive(Debug, Clone, PartialEq)]
pub enum Gate {
    /// Run the tool. `confirmed` is set when the call was confirmed: the engine settles it with
    /// [`Confirmer::settle`] once the outcome is known. Its idempotency key is the call's own
    /// ([`idempotency::CallKeys`]), so a replayed or re-asked confirmation sends the same key.
    Run { confirmed: Option<Confirmed> },
    /// Return this `InputRequiredResult` (without `_meta`); nothing ran.
    InputRequired(Value),
    /// Return an `isError` tool result with this error; nothing ran. `code` is the wire code (the
    /// product's spelling for declines), `message` the text to send.
    Refuse {
        error: AppError,
        code: String,
        message: String,
    },
}

impl Gate {
    /// Run, without a confirmation (the tool is not destructive, or the era cannot confirm).
    pub const RUN_UNCONFIRMED: Gate = Gate::Run { confirmed: None };

    /// Whether the verdict is to run the tool.
    pub fn runs(&self) -> bool {
        matches!(self, Gate::Run { .. })
    }

    fn refuse(error: AppError) -> Self {
        Gate::Refuse {
            error,
            code: error.code.to_string(),
            message: error.message.to_string(),
        }
    }
}

/// A confirmation being run.
#[derive(Debug, Clone, PartialEq)]
pub struct Confirmed {
    /// The confirmation's ledger nonce.
    nonce: String,
    /// The call's idempotency generation when the question was asked (sealed in its state), so
    /// the run sends that generation's key ([`CallKeys::claim`]). `None`: not known then.
    pub generation: Option<u64>,
}

/// Confirms destructive tools, and holds the idempotency keys of writes. Cheap to clone.
#[derive(Clone)]
pub struct Confirmer {
    pub sealer: Arc<StateSealer>,
    pub ledger: Arc<dyn Ledger>,
    /// The idempotency keys of writes, in the same ledger.
    pub calls: CallKeys,
}

/// What the client answered to the question.
enum Answer {
    Yes,
    /// Declined, cancelled, or sent without the confirmation: each told so in its own words.
    No(Refusal),
    /// No usable answer for the key: ask again.
    Missing,
}

impl Confirmer {
    pub fn new(sealer: Arc<StateSealer>, ledger: Arc<dyn Ledger>) -> Self {
        Self::with_window(sealer, ledger, idempotency::DEFAULT_WINDOW)
    }

    /// A confirmer whose unknown outcomes keep their idempotency key for `window`.
    pub fn with_window(
        sealer: Arc<StateSealer>,
        ledger: Arc<dyn Ledger>,
        window: Duration,
    ) -> Self {
        let calls = CallKeys::new(ledger.clone(), window);
        Self {
            sealer,
            ledger,
            calls,
        }
    }

    /// Writes what became of a confirmed call, so a replay of its `requestState` can say so.
    /// Best effort (a failure is logged; a replay then says the outcome was not recorded).
    pub async fn settle(&self, confirmed: &Confirmed, outcome: Outcome) {
        if let Err(e) = self
            .ledger
            .compare_and_set(&confirmed.nonce, RUNNING, outcome.as_str())
            .await
        {
            tracing::warn!(error = %e, "could not record a confirmed call's outcome");
        }
    }

    /// Runs a call the gate let through, at most once upstream as far as this server can tell:
    /// for a write (`fingerprint` set) claims its idempotency key ([`CallKeys::claim`], the
    /// call's own, confirmed or not), runs `run` with it, then settles the key and the confirmation
    /// with the outcome `run` reports. When the key of a confirmed call cannot be recorded, or
    /// the caller is over its quota, nothing runs, the confirmation is given back, and the
    /// ledger's error is returned; an unconfirmed write runs through a ledger outage
    /// ([`Claimed::during_outage`]).
    pub async fn run_once<T, F, Fut>(
        &self,
        fingerprint: Option<&str>,
        confirmed: Option<&Confirmed>,
        owner: &str,
        notes: &Notes,
        run: F,
    ) -> Result<T, LedgerError>
    where
        F: FnOnce(Option<String>) -> Fut,
        Fut: std::future::Future<Output = (T, Outcome)>,
    {
        let key = match fingerprint {
            None => None,
            Some(fp) => {
                let sealed = confirmed.and_then(|c| c.generation);
                match self.calls.claim(fp, owner, sealed).await {
                    Ok(k) => {
                        notes.idempotency_key(&k.key);
                        Some(k)
                    }
                    // The documents' rule under a ledger outage: see `Claimed::during_outage`.
                    Err(e) if confirmed.is_none() && idempotency::ledger_is_down(&e) => {
                        tracing::warn!(error = %e, "the ledger is down; a write that needs no confirmation runs with its call's generation-0 key");
                        notes.ledger_down();
                        let k = Claimed::during_outage(fp);
                        notes.idempotency_key(&k.key);
                        Some(k)
                    }
                    Err(e) => {
                        if idempotency::ledger_is_down(&e) {
                            notes.ledger_down();
                        }
                        if let Some(c) = confirmed {
                            notes.confirmation(ConfirmEvent::Unavailable, None);
                            self.abandon(c).await;
                        }
                        return Err(e);
                    }
                }
            }
        };
        let (result, outcome) = run(key.as_ref().map(|k| k.key.clone())).await;
        if let (Some(fp), Some(k)) = (fingerprint, &key) {
            self.calls.settle(fp, k, outcome).await;
        }
        if let Some(c) = confirmed {
            self.settle(c, outcome).await;
        }
        Ok(result)
    }

    /// Gives a confirmation back when its call could not start (nothing ran): a replay may run it.
    pub async fn abandon(&self, confirmed: &Confirmed) {
        let back = format!("{RESERVED}abandoned");
        if let Err(e) = self
            .ledger
            .compare_and_set(&confirmed.nonce, RUNNING, &back)
            .await
        {
            tracing::warn!(error = %e, "could not give back an unused confirmation");
        }
    }

    /// Moves the confirmation's record from `reserved` to `running`: exactly one request wins.
    async fn start(&self, nonce: &str, reserved: &str) -> Result<bool, LedgerError> {
        self.ledger.compare_and_set(nonce, reserved, RUNNING).await
    }

    /// Decides whether the call runs. See the module docs for the rules.
    pub async fn gate(&self, req: GateRequest<'_>) -> Gate {
        if !req.tool.annotations.destructive {
            return Gate::RUN_UNCONFIRMED;
        }
        let policy = &req.product.policy;
        if !req.modern || !req.form_elicitation {
            return match policy.unconfirmable_destructive {
                UnconfirmableDestructive::Run => Gate::RUN_UNCONFIRMED,
                UnconfirmableDestructive::Refuse => {
                    // What cannot run is said as such (missing, out of reach, in a state the
                    // action cannot leave), as to a client that can confirm: a person is not
                    // sent to find another client for an action that would fail there too.
                    let looked = facts::look(req.product, req.tool, req.args, req.reader).await;
                    if let Some((error, message)) =
                        form::refusal(req.product, req.tool, req.args, req.locale, &looked)
                    {
                        return Gate::Refuse {
                            error,
                            code: error.code.to_string(),
                            message,
                        };
                    }
                    req.notes.confirmation(ConfirmEvent::Required, None);
                    Gate::refuse(CONFIRMATION_REQUIRED)
                }
            };
        }
        let args_hash = canonical::sha256_hex(&Value::Object(req.args.clone()));
        let principal = principal(&req);
        let Some(state) = req.request_state else {
            return self.ask(&req, &args_hash, &principal, None).await;
        };
        let binding = Binding {
            method: METHOD,
            target: req.tool.name,
            args_hash: &args_hash,
            principal: &principal,
            input_key: Some(INPUT_KEY),
        };
        let claims = match self.sealer.open_bound(state, req.now, &binding) {
            Ok(c) if c.data.get("purpose").and_then(Value::as_str) == Some(STATE_PURPOSE) => c,
            Ok(_) | Err(Refused::Foreign) => {
                tracing::debug!(
                    tool = req.tool.name,
                    "confirmation state issued for another call; asking again"
                );
                return self.ask(&req, &args_hash, &principal, None).await;
            }
            Err(Refused::Unreadable(e)) => {
                tracing::debug!(tool = req.tool.name, error = %e, "confirmation state refused; asking again");
                return self.ask(&req, &args_hash, &principal, None).await;
            }
        };
        match answer(req.input_responses) {
            Answer::Missing => self.ask(&req, &args_hash, &principal, None).await,
            Answer::No(why) => {
                req.notes
                    .confirmation(ConfirmEvent::Declined, Some(&claims.nonce));
                Gate::Refuse {
                    error: USER_DECLINED,
                    code: policy.decline_code.to_string(),
                    message: why.message(req.locale).to_string(),
                }
            }
            Answer::Yes => {
                let ttl = Duration::from_secs(policy.confirmation_ttl_secs.max(1));
                let Ok(token) = new_nonce() else {
                    req.notes
                        .confirmation(ConfirmEvent::Unavailable, Some(&claims.nonce));
                    return Gate::refuse(CONFIRMATION_UNAVAILABLE);
                };
                let reserved = format!("{RESERVED}{token}");
                let owner = idempotency::owner(req.identity);
                let found = self
                    .ledger
                    .put_new(&claims.nonce, &reserved, ttl, &owner)
                    .await;
                let started = match found {
                    // First use: ours.
                    Ok(None) => self.start(&claims.nonce, &reserved).await,
                    // Recorded by a request that never ran it: take it over.
                    Ok(Some(earlier)) if earlier.starts_with(RESERVED) => {
                        self.start(&claims.nonce, &earlier).await
                    }
                    Ok(Some(earlier)) => {
                        req.notes
                            .confirmation(ConfirmEvent::Replayed, Some(&claims.nonce));
                        return self.replayed(&req, &args_hash, &principal, &earlier).await;
                    }
                    Err(e) => {
                        req.notes
                            .confirmation(ConfirmEvent::Unavailable, Some(&claims.nonce));
                        return ledger_refusal(req.tool, &e, req.notes);
                    }
                };
                match started {
                    Ok(true) => {
                        req.notes
                            .confirmation(ConfirmEvent::Accepted, Some(&claims.nonce));
                        Gate::Run {
                            confirmed: Some(Confirmed {
                                generation: claims.data.get(GENERATION).and_then(Value::as_u64),
                                nonce: claims.nonce,
                            }),
                        }
                    }
                    // Another request started it in between.
                    Ok(false) => {
                        req.notes
                            .confirmation(ConfirmEvent::Replayed, Some(&claims.nonce));
                        self.replayed(&req, &args_hash, &principal, RUNNING).await
                    }
                    Err(e) => {
                        req.notes
                            .confirmation(ConfirmEvent::Unavailable, Some(&claims.nonce));
                        ledger_refusal(req.tool, &e, req.notes)
                    }
                }
            }
        }
    }

    /// The answer to a replayed confirmation whose record says `state`.
    async fn replayed(
        &self,
        req: &GateRequest<'_>,
        args_hash: &str,
        principal: &str,
        state: &str,
    ) -> Gate {
        let what = form::replay_outcome(state, req.locale);
        match req.product.policy.replay {
            ReplayPolicy::AskAgain => {
                let notice = format!("{} {what}", app_errors::replay_notice(req.locale));
                self.ask(req, args_hash, principal, Some(&notice)).await
            }
            ReplayPolicy::Refuse => Gate::Refuse {
                error: CONFIRMATION_REPLAYED,
                code: CONFIRMATION_REPLAYED.code.to_string(),
                message: format!("{}. {what}", CONFIRMATION_REPLAYED.message_in(req.locale)),
            },
        }
    }

    /// A fresh question with a freshly sealed state. A write's state also seals the call's
    /// current idempotency generation (best effort: without the ledger the run uses the one it
    /// finds then).
    async fn ask(
        &self,
        req: &GateRequest<'_>,
        args_hash: &str,
        principal: &str,
        notice: Option<&str>,
    ) -> Gate {
        // The record, read before asking: a question for what cannot run is an error instead.
        // A replay asked again (`notice`) is still asked: it says what became of the first use,
        // which may be why the record is gone.
        let looked = facts::look(req.product, req.tool, req.args, req.reader).await;
        if let Some((error, message)) =
            form::refusal(req.product, req.tool, req.args, req.locale, &looked)
                .filter(|_| notice.is_none())
        {
            return Gate::Refuse {
                error,
                code: error.code.to_string(),
                message,
            };
        }
        // The other records its facts name (a transfer's accounts), read to show their names.
        let refs = match (
            req.tool.record_type().and_then(|r| req.product.facts_of(r)),
            form::facts_source(req.tool, req.args, &looked),
        ) {
            (Some(facts), Some(record)) => {
                facts::references(req.product, facts, &record, req.args, req.reader).await
            }
            _ => facts::References::default(),
        };
        let Ok(nonce) = new_nonce() else {
            // Without randomness no single-use key can be minted: refuse, nothing runs.
            req.notes.confirmation(ConfirmEvent::Unavailable, None);
            return Gate::refuse(CONFIRMATION_UNAVAILABLE);
        };
        // A replay asked again stays counted as a replay.
        req.notes.confirmation(ConfirmEvent::Asked, Some(&nonce));
        let mut data = json!({"purpose": STATE_PURPOSE});
        // Sealed for every confirmed tool (the gate asks only for destructive ones); a tool
        // without an idempotency key leaves it unused.
        let fp = idempotency::call_fingerprint(
            req.product,
            req.tool,
            req.args,
            req.identity,
            req.workspace,
        );
        // Every confirmation gets a fixed key, so it can run at most once upstream whatever the
        // ledger forgets. Unreadable → generation 0: at worst the run is answered with an earlier
        // identical call's result, marked as such, never run twice.
        match self.calls.generation(&fp).await {
            Ok(Some(g)) => data[GENERATION] = json!(g),
            // A key stored by an earlier version: the run sends that key.
            Ok(None) => {}
            Err(e) => {
                tracing::debug!(tool = req.tool.name, error = %e, "idempotency generation unreadable; sealing 0");
                data[GENERATION] = json!(0);
            }
        }
        let claims = StateClaims {
            method: METHOD.to_string(),
            target: req.tool.name.to_string(),
            args_hash: args_hash.to_string(),
            principal: principal.to_string(),
            input_keys: vec![INPUT_KEY.to_string()],
            exp: req.now + req.product.policy.confirmation_ttl_secs.max(1),
            nonce,
            data,
        };
        let (field_title, field_description) = form::field(req.product, req.tool, req.locale);
        let mut requests = Map::new();
        requests.insert(
            INPUT_KEY.to_string(),
            json!({
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": form::question(req.product, req.tool, req.args, req.locale, notice, &looked, &refs),
                    "requestedSchema": {
                        "type": "object",
                        "properties": {
                            CONFIRM_FIELD: {
                                "type": "boolean",
                                "title": field_title,
                                "description": field_description,
                                "default": false
                            }
                        },
                        "required": [CONFIRM_FIELD]
                    }
                }
            }),
        );
        Gate::InputRequired(json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": self.sealer.seal(&claims),
        }))
    }
}

/// The principal a confirmation is bound to: the fields the product's policy binds.
fn principal(req: &GateRequest<'_>) -> String {
    identity::principal(
        req.identity,
        req.workspace,
        req.product.policy.confirmation_binds,
    )
}

/// Reads the answer under [`INPUT_KEY`]. Only `accept` with `confirm` exactly `true` is a yes;
/// `decline`, `cancel`, or an accept without it are a no; anything unreadable is no answer.
fn answer(responses: Option<&Value>) -> Answer {
    let Some(r) = responses.and_then(|r| r.get(INPUT_KEY)) else {
        return Answer::Missing;
    };
    match r.get("action").and_then(Value::as_str) {
        Some("accept") => {
            if r.pointer(&format!("/content/{CONFIRM_FIELD}")) == Some(&Value::Bool(true)) {
                Answer::Yes
            } else {
                Answer::No(Refusal::NotConfirmed)
            }
        }
        Some("decline") => Answer::No(Refusal::Declined),
        Some("cancel") => Answer::No(Refusal::Cancelled),
        _ => Answer::Missing,
    }
}

/// The refusal when the ledger cannot record a confirmation: nothing ran.
fn ledger_refusal(tool: &Tool, e: &LedgerError, notes: &Notes) -> Gate {
    match e {
        LedgerError::QuotaExceeded(_) => {
            tracing::info!(tool = tool.name, error = %e, "confirmation refused: caller over quota");
            Gate::refuse(CONFIRMATION_QUOTA_EXCEEDED)
        }
        _ => {
            notes.ledger_down();
            tracing::warn!(tool = tool.name, error = %e, "confirmation ledger failed; refusing");
            Gate::refuse(CONFIRMATION_UNAVAILABLE)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::confirm::ledger::{FailingLedger, MemoryLedger};
    use runtime_model::backend::{BackendError, BoxFuture, Output};
    use runtime_model::errors;
    use std::collections::BTreeSet;
    use test_support::policies::{tool, LENIENT, STRICT};

    const NOW: u64 = 1_800_000_000;

    fn person(id: &str, org: &str) -> Identity {
        Identity {
            person: id.into(),
            name: String::new(),
            organization: org.into(),
            scopes: BTreeSet::from(["all".to_string()]),
            permissions: BTreeSet::from(["*".to_string()]),
            workspaces: BTreeSet::from(["ws1".to_string(), "ws2".to_string()]),
            default_workspace: Some("ws1".into()),
        }
    }

    fn confirmer() -> Confirmer {
        confirmer_on(Arc::new(MemoryLedger::new()))
    }

    /// The tests' confirmer (one sealing key) on `ledger`.
    fn confirmer_on(ledger: Arc<dyn Ledger>) -> Confirmer {
        Confirmer::new(
            Arc::new(StateSealer::new(vec![("k1".into(), vec![9; 32])]).unwrap()),
            ledger,
        )
    }

    fn args(uid: &str) -> Map<String, Value> {
        json!({"id": uid}).as_object().unwrap().clone()
    }

    struct Call<'a> {
        product: &'static Product,
        tool: &'static str,
        args: &'a Map<String, Value>,
        identity: &'a Identity,
        workspace: Option<&'a str>,
        modern: bool,
        form: bool,
        responses: Option<&'a Value>,
        state: Option<&'a str>,
        now: u64,
    }

    impl<'a> Call<'a> {
        fn new(
            product: &'static Product,
            args: &'a Map<String, Value>,
            identity: &'a Identity,
        ) -> Self {
            Self {
                product,
                tool: "test_things_delete",
                args,
                identity,
                workspace: Some("ws1"),
                modern: true,
                form: true,
                responses: None,
                state: None,
                now: NOW,
            }
        }
        fn req(&self) -> GateRequest<'a> {
            GateRequest {
                product: self.product,
                tool: tool(self.tool),
                args: self.args,
                identity: self.identity,
                workspace: self.workspace,
                modern: self.modern,
                form_elicitation: self.form,
                input_responses: self.responses,
                request_state: self.state,
                now: self.now,
                locale: runtime_model::locale::Locale::En,
                reader: None,
                notes: &Notes::NONE,
            }
        }
    }

    /// The question a banking `tool`'s first call with `args` asks (modern era, form elicitation,
    /// no workspace), as text; its records read through `reader`.
    async fn banking_question(
        tool: &'static Tool,
        args: &Map<String, Value>,
        reader: Option<&dyn RecordReader>,
    ) -> String {
        let id = person("p", "o");
        let g = confirmer()
            .gate(GateRequest {
                product: generated::product("banking").unwrap(),
                tool,
                args,
                identity: &id,
                workspace: None,
                modern: true,
                form_elicitation: true,
                input_responses: None,
                request_state: None,
                now: NOW,
                locale: runtime_model::locale::Locale::En,
                reader,
                notes: &Notes::NONE,
            })
            .await;
        let Gate::InputRequired(v) = g else {
            panic!("expected a question, got {g:?}")
        };
        v.to_string()
    }

    fn state_of(g: &Gate) -> String {
        match g {
            Gate::InputRequired(v) => v["requestState"].as_str().unwrap().to_string(),
            other => panic!("expected a question, got {other:?}"),
        }
    }

    fn yes() -> Value {
        json!({"confirm": {"action": "accept", "content": {"confirm": true}}})
    }

    fn refusal_code(g: &Gate) -> &str {
        match g {
            Gate::Refuse { code, .. } => code,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn non_destructive_tools_run_in_every_era() {
        let c = confirmer();
        let a = args("x");
        let id = person("p", "o");
        for product in [&LENIENT, &STRICT] {
            for (modern, form) in [(false, false), (true, false), (true, true)] {
                for t in ["test_things_list", "test_things_update"] {
                    let mut call = Call::new(product, &a, &id);
                    call.tool = t;
                    call.modern = modern;
                    call.form = form;
                    assert_eq!(c.gate(call.req()).await, Gate::RUN_UNCONFIRMED);
                }
            }
        }
    }

    #[tokio::test]
    async fn unconfirmable_destructive_follows_the_policy() {
        let c = confirmer();
        let a = args("x");
        let id = person("p", "o");
        for (modern, form) in [(false, false), (false, true), (true, false)] {
            let mut call = Call::new(&LENIENT, &a, &id);
            call.modern = modern;
            call.form = form;
            assert_eq!(c.gate(call.req()).await, Gate::RUN_UNCONFIRMED);
            let mut call = Call::new(&STRICT, &a, &id);
            call.modern = modern;
            call.form = form;
            let g = c.gate(call.req()).await;
            assert_eq!(refusal_code(&g), errors::CONFIRMATION_REQUIRED.code);
        }
    }

    #[tokio::test]
    async fn the_question_shows_the_tool_and_the_arguments() {
        let c = confirmer();
        let a = args("thing-42");
        let id = person("p", "o");
        let g = c.gate(Call::new(&LENIENT, &a, &id).req()).await;
        let Gate::InputRequired(v) = &g else {
            panic!("{g:?}")
        };
        assert_eq!(v["resultType"], "input_required");
        let q = &v["inputRequests"][INPUT_KEY];
        assert_eq!(q["method"], "elicitation/create");
        assert_eq!(q["params"]["mode"], "form");
        let msg = q["params"]["message"].as_str().unwrap();
        assert!(
            msg.contains("Delete a thing") && msg.contains("test_things_delete"),
            "{msg}"
        );
        assert!(msg.contains("thing-42"), "{msg}");
        let schema = &q["params"]["requestedSchema"];
        assert_eq!(schema["properties"][CONFIRM_FIELD]["type"], "boolean");
        assert_eq!(schema["required"], json!([CONFIRM_FIELD]));
        assert_eq!(schema["properties"].as_object().unwrap().len(), 1);
        // The state is sealed and bound for the policy's TTL.
        let claims = c.sealer.open(&state_of(&g), NOW).unwrap();
        assert_eq!(claims.exp, NOW + 300);
        assert_eq!(claims.target, "test_things_delete");
    }

    #[tokio::test]
    async fn a_yes_runs_once_and_a_replay_follows_the_policy() {
        for (product, replay_asks) in [(&LENIENT, true), (&STRICT, false)] {
            let c = confirmer();
            let a = args("x");
            let id = person("p", "o");
            let state = state_of(&c.gate(Call::new(product, &a, &id).req()).await);
            let responses = yes();
            let mut retry = Call::new(product, &a, &id);
            retry.state = Some(&state);
            retry.responses = Some(&responses);
            retry.now = NOW + 10;
            // The confirmed call is its state's ledger nonce (its idempotency key is the call's).
            let nonce = c.sealer.open(&state, NOW).unwrap().nonce;
            let Gate::Run {
                confirmed: Some(first),
            } = c.gate(retry.req()).await
            else {
                panic!("the confirmed call runs");
            };
            assert_eq!(
                first,
                Confirmed {
                    nonce,
                    generation: Some(0)
                }
            );
            let replay = c.gate(retry.req()).await;
            if replay_asks {
                let Gate::InputRequired(v) = &replay else {
                    panic!("{replay:?}")
                };
                let msg = v["inputRequests"][INPUT_KEY]["params"]["message"]
                    .as_str()
                    .unwrap();
                assert!(msg.starts_with(errors::REPLAY_NOTICE), "{msg}");
                // The fresh question is a new confirmation that works once.
                let fresh = state_of(&replay);
                assert_ne!(fresh, state);
                let mut again = Call::new(product, &a, &id);
                again.state = Some(&fresh);
                again.responses = Some(&responses);
                let Gate::Run {
                    confirmed: Some(second),
                } = c.gate(again.req()).await
                else {
                    panic!("the fresh confirmation runs");
                };
                assert_ne!(second, first, "a fresh confirmation");
            } else {
                assert_eq!(refusal_code(&replay), errors::CONFIRMATION_REPLAYED.code);
            }
        }
    }

    #[tokio::test]
    async fn a_first_call_with_its_own_yes_is_asked() {
        let c = confirmer();
        let a = args("x");
        let id = person("p", "o");
        let responses = yes();
        let mut call = Call::new(&LENIENT, &a, &id);
        call.responses = Some(&responses);
        assert!(matches!(c.gate(call.req()).await, Gate::InputRequired(_)));
    }

    #[tokio::test]
    async fn declines_use_the_products_code() {
        for (product, code) in [(&LENIENT, "user_declined"), (&STRICT, "USER_DECLINED")] {
            let c = confirmer();
            let a = args("x");
            let id = person("p", "o");
            let declined = errors::USER_DECLINED.message;
            let cancelled = form::Refusal::Cancelled.message(Locale::En);
            let unticked = form::Refusal::NotConfirmed.message(Locale::En);
            for (answer, says) in [
                (json!({"confirm": {"action": "decline"}}), declined),
                (json!({"confirm": {"action": "cancel"}}), cancelled),
                (
                    json!({"confirm": {"action": "accept", "content": {"confirm": false}}}),
                    unticked,
                ),
                (
                    json!({"confirm": {"action": "accept", "content": {}}}),
                    unticked,
                ),
                (
                    json!({"confirm": {"action": "accept", "content": {"confirm": "true"}}}),
                    unticked,
                ),
            ] {
                let state = state_of(&c.gate(Call::new(product, &a, &id).req()).await);
                let mut retry = Call::new(product, &a, &id);
                retry.state = Some(&state);
                retry.responses = Some(&answer);
                let g = c.gate(retry.req()).await;
                let Gate::Refuse {
                    error,
                    code: got,
                    message,
                } = &g
                else {
                    panic!("{g:?}")
                };
                assert_eq!(*error, errors::USER_DECLINED);
                assert_eq!(got, code, "{answer}");
                // Decline and cancel are told apart (the code is the product's either way).
                assert_eq!(message, says, "{answer}");
            }
        }
    }

    #[tokio::test]
    async fn a_missing_or_unreadable_answer_is_asked_again() {
        let c = confirmer();
        let a = args("x");
        let id = person("p", "o");
        let state = state_of(&c.gate(Call::new(&LENIENT, &a, &id).req()).await);
        for responses in [
            None,
            Some(json!({})),
            Some(json!({"other": {"action": "accept", "content": {"confirm": true}}})),
            Some(json!({"confirm": {"action": "maybe"}})),
            Some(json!({"confirm": "yes"})),
        ] {
            let mut retry = Call::new(&LENIENT, &a, &id);
            retry.state = Some(&state);
            retry.responses = responses.as_ref();
            let g = c.gate(retry.req()).await;
            assert!(matches!(g, Gate::InputRequired(_)), "{responses:?} → {g:?}");
        }
    }

    #[tokio::test]
    async fn bad_or_foreign_states_are_asked_again() {
        let c = confirmer();
        let a = args("x");
        let id = person("p", "o");
        let state = state_of(&c.gate(Call::new(&STRICT, &a, &id).req()).await);
        let responses = yes();
        let other_args = args("y");
        let colleague = person("q", "o");
        let other_org = person("p", "o2");
        let foreign = Confirmer::new(
            Arc::new(StateSealer::new(vec![("k1".into(), vec![1; 32])]).unwrap()),
            Arc::new(MemoryLedger::new()),
        );
        let foreign_state = state_of(&foreign.gate(Call::new(&STRICT, &a, &id).req()).await);
        let mut tampered = state.clone();
        tampered.insert(10, 'A');

        let mut cases: Vec<(&str, Call<'_>)> = Vec::new();
        let mut t = Call::new(&STRICT, &a, &id);
        t.state = Some(&tampered);
        cases.push(("tampered", t));
        let mut f = Call::new(&STRICT, &a, &id);
        f.state = Some(&foreign_state);
        cases.push(("foreign key", f));
        let mut e = Call::new(&STRICT, &a, &id);
        e.state = Some(&state);
        e.now = NOW + 301;
        cases.push(("expired", e));
        let mut o = Call::new(&STRICT, &other_args, &id);
        o.state = Some(&state);
        cases.push(("other arguments", o));
        let mut p = Call::new(&STRICT, &a, &colleague);
        p.state = Some(&state);
        cases.push(("another person", p));
        let mut g = Call::new(&STRICT, &a, &other_org);
        g.state = Some(&state);
        cases.push(("another organization", g));
        let mut w = Call::new(&STRICT, &a, &id);
        w.state = Some(&state);
        w.workspace = Some("ws2");
        cases.push(("another workspace", w));
        let mut d = Call::new(&STRICT, &a, &id);
        d.state = Some(&state);
        d.tool = "test_things_update";
        // A non-destructive tool ignores confirmation state altogether: it just runs.
        assert!(c.gate(d.req()).await.runs());

        for (what, mut call) in cases {
            call.responses = Some(&responses);
            let g = c.gate(call.req()).await;
            assert!(matches!(g, Gate::InputRequired(_)), "{what}: {g:?}");
        }
        // None of those consumed the confirmation: the real retry still runs.
        let mut real = Call::new(&STRICT, &a, &id);
        real.state = Some(&state);
        real.responses = Some(&responses);
        assert!(c.gate(real.req()).await.runs());
    }

    #[tokio::test]
    async fn the_workspace_is_bound_only_when_the_policy_says_so() {
        let c = confirmer();
        let a = args("x");
        let id = person("p", "o");
        let state = state_of(&c.gate(Call::new(&LENIENT, &a, &id).req()).await);
        let responses = yes();
        let mut moved = Call::new(&LENIENT, &a, &id);
        moved.state = Some(&state);
        moved.responses = Some(&responses);
        moved.workspace = Some("ws2");
        assert!(c.gate(moved.req()).await.runs());
    }

    #[tokio::test]
    async fn canonically_equal_arguments_keep_the_confirmation() {
        let c = confirmer();
        let a: Map<String, Value> =
            serde_json::from_str(r#"{"id": "x", "amount": 10, "meta": {"b": 1, "a": 2}}"#).unwrap();
        let b: Map<String, Value> =
            serde_json::from_str(r#"{"meta": {"a": 2.0, "b": 1}, "amount": 10.0, "id": "x"}"#)
                .unwrap();
        let id = person("p", "o");
        let state = state_of(&c.gate(Call::new(&LENIENT, &a, &id).req()).await);
        let responses = yes();
        let mut retry = Call::new(&LENIENT, &b, &id);
        retry.state = Some(&state);
        retry.responses = Some(&responses);
        assert!(c.gate(retry.req()).await.runs());
    }

    #[tokio::test]
    async fn a_failing_ledger_runs_nothing() {
        let c = confirmer_on(Arc::new(FailingLedger("redis down".into())));
        for product in [&LENIENT, &STRICT] {
            let a = args("x");
            let id = person("p", "o");
            let state = state_of(&c.gate(Call::new(product, &a, &id).req()).await);
            let responses = yes();
            let mut retry = Call::new(product, &a, &id);
            retry.state = Some(&state);
            retry.responses = Some(&responses);
            let g = c.gate(retry.req()).await;
            assert_eq!(refusal_code(&g), errors::CONFIRMATION_UNAVAILABLE.code);
            // Declines still answer without the ledger.
            let no = json!({"confirm": {"action": "decline"}});
            retry.responses = Some(&no);
            let g = c.gate(retry.req()).await;
            assert_eq!(refusal_code(&g), product.policy.decline_code);
        }
    }

    /// Finding 1 and 9: a replay says what became of the first use, and never asks to confirm
    /// again for a call that may have run.
    #[tokio::test]
    async fn a_replay_says_what_became_of_the_first_use() {
        for (outcome, says) in [
            (Some(Outcome::Ran), "ran once"),
            (Some(Outcome::Failed), "nothing changed"),
            (Some(Outcome::Unknown), "may have run"),
            (None, "no recorded outcome"),
        ] {
            let c = confirmer();
            let a = args("x");
            let id = person("p", "o");
            let state = state_of(&c.gate(Call::new(&STRICT, &a, &id).req()).await);
            let responses = yes();
            let mut retry = Call::new(&STRICT, &a, &id);
            retry.state = Some(&state);
            retry.responses = Some(&responses);
            let Gate::Run {
                confirmed: Some(confirmed),
            } = c.gate(retry.req()).await
            else {
                panic!("runs")
            };
            if let Some(o) = outcome {
                c.settle(&confirmed, o).await;
            }
            let Gate::Refuse { code, message, .. } = c.gate(retry.req()).await else {
                panic!("a replay is refused")
            };
            assert_eq!(code, errors::CONFIRMATION_REPLAYED.code);
            assert!(message.contains(says), "{outcome:?}: {message}");
            assert!(
                !message.to_lowercase().contains("confirm again"),
                "{message}"
            );
        }
    }

    /// Finding 9: a confirmation whose recording answer was lost (the ledger wrote it, the server
    /// saw an error and ran nothing) is not reported as used: its replay runs, once.
    #[tokio::test]
    async fn a_reserved_confirmation_that_never_ran_runs_on_replay_once() {
        let c = confirmer();
        let a = args("x");
        let id = person("p", "o");
        let state = state_of(&c.gate(Call::new(&STRICT, &a, &id).req()).await);
        let nonce = c.sealer.open(&state, NOW).unwrap().nonce;
        // What a lost answer leaves behind: the reservation, never moved to running.
        c.ledger
            .put_new(&nonce, "reserved:lost", Duration::from_secs(300), "")
            .await
            .unwrap();
        let responses = yes();
        let mut retry = Call::new(&STRICT, &a, &id);
        retry.state = Some(&state);
        retry.responses = Some(&responses);
        assert!(c.gate(retry.req()).await.runs());
        assert_eq!(
            refusal_code(&c.gate(retry.req()).await),
            errors::CONFIRMATION_REPLAYED.code
        );
    }

    /// A state this server sealed for the same call but for another purpose (another round of
    /// input, not this question) confirms nothing: the question is asked again.
    #[tokio::test]
    async fn a_state_sealed_for_another_purpose_is_asked_again() {
        let c = confirmer();
        let a = args("x");
        let id = person("p", "o");
        let state = state_of(&c.gate(Call::new(&STRICT, &a, &id).req()).await);
        let mut claims = c.sealer.open(&state, NOW).unwrap();
        claims.data["purpose"] = json!("another-round");
        let other = c.sealer.seal(&claims);
        let responses = yes();
        let mut retry = Call::new(&STRICT, &a, &id);
        retry.state = Some(&other);
        retry.responses = Some(&responses);
        let asked = c.gate(retry.req()).await;
        assert!(!asked.runs());
        assert_ne!(state_of(&asked), other, "a fresh question");
        // The same answer with the question's own state runs.
        retry.state = Some(&state);
        assert!(c.gate(retry.req()).await.runs());
    }

    /// A confirmed write whose idempotency key cannot be recorded runs nothing and gives its
    /// confirmation back: the same answer, sent again, runs it once.
    #[tokio::test]
    async fn a_confirmation_whose_key_cannot_be_recorded_is_given_back() {
        // Room for the confirmation's record only: the call's key is over the caller's quota.
        let c = confirmer_on(Arc::new(MemoryLedger::with_limits(1000, 1)));
        let a = args("x");
        let id = person("p", "o");
        let state = state_of(&c.gate(Call::new(&STRICT, &a, &id).req()).await);
        let responses = yes();
        let mut retry = Call::new(&STRICT, &a, &id);
        retry.state = Some(&state);
        retry.responses = Some(&responses);
        let Gate::Run {
            confirmed: Some(confirmed),
        } = c.gate(retry.req()).await
        else {
            panic!("the confirmed call runs");
        };
        let owner = idempotency::owner(&id);
        let ran = c
            .run_once(
                Some("fp"),
                Some(&confirmed),
                &owner,
                &Notes::NONE,
                |_| async { panic!("nothing runs without its key") },
            )
            .await;
        assert_eq!(ran, Err::<(), _>(LedgerError::QuotaExceeded(1)));
        assert!(c.gate(retry.req()).await.runs(), "given back, it runs");
        assert_eq!(
            refusal_code(&c.gate(retry.req()).await),
            errors::CONFIRMATION_REPLAYED.code
        );
    }

    /// Finding 6: one caller over its quota is refused; another organization still confirms.
    #[tokio::test]
    async fn a_flooding_caller_cannot_deny_confirmations_to_others() {
        let c = confirmer_on(Arc::new(MemoryLedger::with_limits(1000, 3)));
        let flooder = person("f", "org-a");
        let victim = person("v", "org-b");
        let responses = yes();
        let confirm = |id: &'static Identity, uid: &'static str| {
            let c = c.clone();
            let responses = responses.clone();
            async move {
                let a = args(uid);
                let state = state_of(&c.gate(Call::new(&STRICT, &a, id).req()).await);
                let mut retry = Call::new(&STRICT, &a, id);
                retry.state = Some(&state);
                retry.responses = Some(&responses);
                c.gate(retry.req()).await
            }
        };
        let flooder: &'static Identity = Box::leak(Box::new(flooder));
        let victim: &'static Identity = Box::leak(Box::new(victim));
        for uid in ["a", "b", "c"] {
            assert!(confirm(flooder, uid).await.runs());
        }
        let refused = confirm(flooder, "d").await;
        assert_eq!(
            refusal_code(&refused),
            errors::CONFIRMATION_QUOTA_EXCEEDED.code
        );
        assert!(confirm(victim, "a").await.runs());
    }

    #[tokio::test]
    async fn an_uploaded_file_is_described_in_the_question_not_pasted() {
        let banking = generated::product("banking").unwrap();
        let upload = banking.tool("banking_charge_discharge_create").unwrap();
        assert!(upload.annotations.destructive);
        let content = "QUJD".repeat(5000);
        let a = json!({"file": content, "filename": "retorno.ret"})
            .as_object()
            .unwrap()
            .clone();
        let text = banking_question(upload, &a, None).await;
        assert!(text.contains("<file: 20000 base64 characters>"), "{text}");
        assert!(text.contains("retorno.ret"));
        assert!(!text.contains(&content[..64]));
    }

    /// The documents' rule under a ledger outage: a write that needs no confirmation still
    /// runs, with its call's generation-0 key, so a retry during the outage cannot run twice.
    #[tokio::test]
    async fn an_unconfirmed_write_runs_through_a_ledger_outage_with_its_generation_0_key() {
        let c = confirmer_on(Arc::new(FailingLedger("redis is down".into())));
        let owner = idempotency::owner(&person("p", "o"));
        let sent = c
            .run_once(Some("fp"), None, &owner, &Notes::NONE, |key| async move {
                (key, Outcome::Ran)
            })
            .await;
        assert_eq!(sent, Ok(Some(idempotency::call_key("fp", 0))));
    }

    /// A caller over its quota is refused whatever the call, confirmed or not: a quota is not an
    /// outage, and nothing runs.
    #[tokio::test]
    async fn an_unconfirmed_write_over_its_callers_quota_runs_nothing() {
        let c = confirmer_on(Arc::new(MemoryLedger::with_limits(1000, 0)));
        let owner = idempotency::owner(&person("p", "o"));
        let ran = c
            .run_once(Some("fp"), None, &owner, &Notes::NONE, |_| async {
                panic!("nothing runs over the quota")
            })
            .await;
        assert_eq!(ran, Err::<(), _>(LedgerError::QuotaExceeded(0)));
    }

    /// Answers every read with a record named after the id it was asked for.
    struct Named;

    impl RecordReader for Named {
        fn read<'a>(
            &'a self,
            _tool: &'static Tool,
            args: Map<String, Value>,
        ) -> BoxFuture<'a, Result<Output, Option<BackendError>>> {
            let id = args.values().find_map(Value::as_str).unwrap_or_default();
            let record = json!({"uid": id, "name": format!("Conta {id}")});
            Box::pin(async move { Ok(Output::Json(record)) })
        }
    }

    /// The question names the records its facts refer to (a Pix transfer's source account), read
    /// through the caller's reader, not only their ids.
    #[tokio::test]
    async fn the_question_names_the_records_its_facts_refer_to() {
        let banking = generated::product("banking").unwrap();
        let pix = banking.tool("banking_transfer_pix_create").unwrap();
        assert!(pix.annotations.destructive);
        let a = json!({"financial_account_uid": "acc-7", "amount": 10.5, "key": "a@b.com", "key_type": "email"})
            .as_object()
            .unwrap()
            .clone();
        let text = banking_question(pix, &a, Some(&Named)).await;
        assert!(text.contains("Conta acc-7 (acc-7)"), "{text}");
    }
}

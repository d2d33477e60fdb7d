//! The protocol engine of one product: method dispatch over the generated tables, in either era.
//!
//! The connection layer (`crate::connection`) parses messages, decides the era, opens sessions
//! and builds a [`Call`]; transports check their own rules (HTTP headers); the engine answers.
//! Results are era-shaped here: 2026 results carry `resultType` and `serverInfo` (and
//! `ttlMs`/`cacheScope` when cacheable), 2025 results carry neither.

use crate::rpc::params::Params;
use std::sync::{Arc, OnceLock, Weak};

use runtime_model::backend::Backend;
use runtime_model::catalog::Product;
use runtime_model::locale::Locale;
use runtime_model::selection::{Ceiling, Selection};
use serde_json::{json, Map, Value};

use super::listing::{self, ListKind, Listings};
use super::schemas::ToolSchemas;
use crate::confirm::Confirmed;
use crate::confirm::Confirmer;
use crate::contract::era::{self, Era, LogLevel};
use crate::contract::{Call, Extensions, ProductExtension, RpcError};
use crate::rpc::jsonrpc::Request;
use crate::rpc::reply::Reply;
use crate::state::StateSealer;
use runtime_model::backend::BoxFuture;
use runtime_model::catalog::Tool;

/// A tool argument mirrored into an HTTP header.
#[derive(Debug, Clone)]
pub struct ParamHeader {
    pub argument: String,
    /// The `{name}` of `Mcp-Param-{name}`.
    pub header: String,
}

/// Tunables of an engine.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// Items per list page.
    pub page_size: usize,
    /// `ttlMs` of cacheable 2026 results.
    pub ttl_ms: u64,
    /// Per-identity limits of tool calls and resource reads (`Engine::over_rate_limit`); `None` = none.
    pub rate_limiter: Option<Arc<crate::limits::RateLimiter>>,
    /// The server's language (`--locale`, `KOBANA_LOCALE`, the config's `locale`): what a request
    /// that states no language of ours gets, before the product's own default. On stdio it is the
    /// client's language.
    pub locale: Option<Locale>,
    /// A tool's JSON answer larger than this many tokens is cut at a record boundary
    /// ([`super::result_budget`]); 0 never cuts.
    pub result_budget_tokens: usize,
}

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            page_size: 500,
            ttl_ms: 60_000,
            rate_limiter: None,
            locale: None,
            result_budget_tokens: super::result_budget::DEFAULT_RESULT_BUDGET_TOKENS,
        }
    }
}

/// Serves one product.
pub struct Engine {
    pub product: &'static Product,
    pub backend: Arc<dyn Backend>,
    pub sealer: Arc<StateSealer>,
    /// The confirmation gate of destructive tools.
    pub confirmer: Confirmer,
    /// The hand-written handlers this engine may call (given when it is built).
    pub extensions: Extensions,
    /// This product's own extension parts, if any.
    pub ext: Option<&'static ProductExtension>,
    pub listings: Listings,
    /// The server's tool selection for this product: the most a request sees, and what a
    /// request naming none gets ([`Engine::with_ceiling`]; every tool by default).
    pub ceiling: Ceiling,
    /// The discovery search index, built on first search.
    discovery_index: OnceLock<super::discovery_tools::Index>,
    /// The protocol extensions this engine serves ([`Engine::with_protocol_extension`]).
    protocol_extensions: Vec<Arc<dyn ProtocolExtension>>,
    /// This engine, once it is shared ([`Engine::bind`]): a task runs on a spawned future that
    /// needs its own handle.
    me: OnceLock<Weak<Engine>>,
    pub(crate) options: EngineOptions,
    /// Each tool's input and output schema, compiled on first use.
    pub(crate) schemas: ToolSchemas,
    /// One template environment per locale (by [`Locale::index`]): the prompts' templates in
    /// that locale, and the `date`, `month` and `money` filters writing values its way.
    pub(crate) prompt_envs: Vec<minijinja::Environment<'static>>,
    /// Per tool: the arguments mirrored into `Mcp-Param-*` headers (`x-mcp-header`), parsed on
    /// first use.
    param_headers: Vec<OnceLock<Vec<ParamHeader>>>,
    /// Whether any tool mirrors an argument into a header: when none does (every product
    /// catalog today), a 2026 call has no `Mcp-Param-*` header to check and skips finding its
    /// tool for it.
    mirrors_arguments: bool,
    /// Tool name → index in `product.tools` (a catalog has hundreds of tools). Looked up twice
    /// per `tools/call`, with foldhash rather than SipHash: its keys are the catalog's names,
    /// never the client's, so no client can fill it with colliding keys; a lookup of a chosen
    /// name costs at most a probe of this fixed table, and the per-process seed keeps its layout
    /// unknown.
    tool_index: ToolIndex,
    server_info: Value,
    /// `,"resultType":"complete","_meta":{serverInfo, contentLanguage}}`: closes a non-cacheable
    /// 2026 result, by [`Locale::index`].
    complete_tail: [String; 3],
    /// `server/discover`, per locale.
    discover: [OnceLock<Value>; 3],
    /// Metrics, spans and the audit trail ([`Engine::with_telemetry`]); none: the log line only.
    pub(crate) telemetry: Option<crate::telemetry::Telemetry>,
}

impl Engine {
    pub fn new(
        product: &'static Product,
        backend: Arc<dyn Backend>,
        sealer: Arc<StateSealer>,
        confirmer: Confirmer,
        extensions: Extensions,
        options: EngineOptions,
    ) -> Self {
        let server_info = json!({"name": format!("kobana-mcp-{}", product.name), "title": product.title, "version": product.version});
        let suffix = Locale::ALL.map(|l| {
            let meta = json!({
                era::META_SERVER_INFO: server_info,
                era::META_CONTENT_LANGUAGE: l.tag(),
            });
            format!(
                ",\"resultType\":\"complete\",\"ttlMs\":{},\"cacheScope\":\"private\",\"_meta\":{}",
                options.ttl_ms, meta
            )
        });
        let complete_tail = Locale::ALL.map(|l| {
            let meta = json!({
                era::META_SERVER_INFO: server_info,
                era::META_CONTENT_LANGUAGE: l.tag(),
            });
            format!(",\"resultType\":\"complete\",\"_meta\":{meta}}}")
        });
        let executes = backend.executes_operations();
        let prompt_envs = Locale::ALL
            .iter()
            .map(|l| super::prompt_env::environment(product, *l))
            .collect();
        Self {
            product,
            backend,
            sealer,
            protocol_extensions: Vec::new(),
            me: OnceLock::new(),
            confirmer,
            extensions,
            ext: extensions.for_product(product.name),
            listings: Listings::new(product, options.page_size, suffix).with_unlisted(
                product
                    .tools
                    .iter()
                    .map(|t| !executes && !extensions.serves_behind_proxy(product, t))
                    .collect(),
            ),
            schemas: ToolSchemas::new(product),
            ceiling: Ceiling::everything(product),
            discovery_index: OnceLock::new(),
            prompt_envs,
            tool_index: tool_index(product),
            param_headers: product.tools.iter().map(|_| OnceLock::new()).collect(),
            mirrors_arguments: product
                .tools
                .iter()
                .any(|t| t.input_schema_json.contains("x-mcp-header")),
            options,
            server_info,
            complete_tail,
            discover: Default::default(),
            telemetry: None,
        }
    }

    /// This engine, measured and audited by `telemetry`.
    pub fn with_telemetry(mut self, telemetry: crate::telemetry::Telemetry) -> Self {
        self.telemetry = Some(telemetry);
        self
    }

    /// Whether writes are audited (their arguments are then prepared for the record).
    pub(crate) fn audits(&self) -> bool {
        self.telemetry.as_ref().is_some_and(|t| t.audit().is_some())
    }

    /// Why `tool` may not run now: it is a write, writes are audited, and the audit sink could
    /// not take its record ([`crate::telemetry::AuditSink::ready`]).
    pub(crate) fn audit_refusal(&self, tool: &Tool) -> Option<String> {
        if tool.annotations.read_only && !tool.annotations.destructive {
            return None;
        }
        self.telemetry.as_ref()?.audit()?.ready().err()
    }

    /// This engine with a protocol extension (declared and served where it
    /// [`serves`](ProtocolExtension::serves) this product).
    pub fn with_protocol_extension(mut self, extension: Arc<dyn ProtocolExtension>) -> Self {
        if extension.serves(&self) {
            self.protocol_extensions.push(extension);
        }
        self
    }

    /// The protocol extensions served on a request of this era.
    pub(crate) fn protocol_extensions(
        &self,
        modern: bool,
    ) -> impl Iterator<Item = &Arc<dyn ProtocolExtension>> {
        self.protocol_extensions
            .iter()
            .filter(move |e| e.in_era(modern))
    }

    /// This engine under the server's selection.
    pub fn with_ceiling(mut self, ceiling: Ceiling) -> Self {
        self.ceiling = ceiling;
        self
    }

    /// The selection a request is served with: its own, else the server's default.
    pub fn selection(&self, call: &Call) -> Arc<Selection> {
        match &call.selection {
            Some(s) => s.clone(),
            None => self.ceiling.default_selection(),
        }
    }

    /// The permission and selection view of a request.
    pub fn view(&self, call: &Call) -> Arc<listing::View> {
        self.listings
            .view(&call.identity, &self.selection(call), self.locale(call))
    }

    pub(crate) fn discovery_index(&self) -> &super::discovery_tools::Index {
        self.discovery_index
            .get_or_init(|| super::discovery_tools::Index::build(self.product))
    }

    /// The locale for a language preference (`Accept-Language` grammar): the best of ours, else
    /// the server's `--locale`, else the product's default.
    pub fn locale_for(&self, accept_language: Option<&str>) -> Locale {
        Locale::choose(
            accept_language,
            self.options.locale,
            self.product.default_locale,
        )
    }

    /// The locale of one request.
    pub fn locale(&self, call: &Call) -> Locale {
        self.locale_for(call.accept_language.as_deref())
    }

    /// The product's instructions in `locale`.
    fn instructions(&self, locale: Locale) -> &'static str {
        self.product
            .texts(locale)
            .map_or(self.product.instructions, |t| t.instructions)
    }

    /// The `x-mcp-header` arguments of a tool (2026 HTTP mirrors them into `Mcp-Param-{name}`).
    pub fn param_headers(&self, idx: usize) -> &[ParamHeader] {
        self.param_headers[idx].get_or_init(|| {
            let schema_text = self.product.tools[idx].input_schema_json;
            if !schema_text.contains("x-mcp-header") {
                return Vec::new();
            }
            let schema: Value = serde_json::from_str(schema_text).unwrap_or(Value::Null);
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return Vec::new();
            };
            props
                .iter()
                .filter_map(|(name, p)| {
                    Some(ParamHeader {
                        argument: name.clone(),
                        header: p.get("x-mcp-header")?.as_str()?.to_string(),
                    })
                })
                .collect()
        })
    }

    /// Whether any tool of this product has `x-mcp-header` arguments ([`Engine::param_headers`]).
    pub fn mirrors_arguments(&self) -> bool {
        self.mirrors_arguments
    }

    /// Lets this engine hand itself to the tasks it starts. Without it, tools answer in the
    /// request (no task is offered).
    pub fn bind(self: &Arc<Self>) {
        let _ = self.me.set(Arc::downgrade(self));
    }

    pub(crate) fn me(&self) -> Option<Arc<Engine>> {
        self.me.get().and_then(Weak::upgrade)
    }

    /// The index of a tool in `product.tools`.
    /// The tool a `tools/call` name calls: its name or one of its former names
    /// ([`Product::tool_aliases`]).
    pub fn tool_index(&self, name: &str) -> Option<usize> {
        self.tool_index.get(name).copied()
    }

    pub(crate) fn complete_tail(&self, locale: Locale) -> &str {
        &self.complete_tail[locale.index()]
    }

    pub fn server_info(&self) -> &Value {
        &self.server_info
    }

    fn has_tools(&self) -> bool {
        !self.product.tools.is_empty()
    }
    fn has_resources(&self) -> bool {
        !self.product.resources.is_empty() || !self.product.templates.is_empty()
    }
    fn has_prompts(&self) -> bool {
        !self.product.prompts.is_empty()
    }
    fn has_completions(&self) -> bool {
        self.has_prompts() || !self.product.templates.is_empty()
    }
    fn subscribable(&self) -> bool {
        self.ext.is_some_and(|e| e.resource_subscribe)
    }

    /// The capabilities served in an era: exactly what the methods below answer.
    pub fn capabilities(&self, modern: bool) -> Value {
        self.capabilities_for(modern, &Value::Null)
    }

    /// [`Engine::capabilities`] as a client with `client_caps` is told them: the extensions
    /// declared to it ([`ProtocolExtension::declared_to`]).
    pub fn capabilities_for(&self, modern: bool, client_caps: &Value) -> Value {
        let mut caps = Map::new();
        if self.has_tools() {
            caps.insert("tools".into(), json!({}));
        }
        if self.has_resources() {
            if !modern && self.subscribable() {
                caps.insert("resources".into(), json!({"subscribe": true}));
            } else {
                caps.insert("resources".into(), json!({}));
            }
        }
        if self.has_prompts() {
            caps.insert("prompts".into(), json!({}));
        }
        if self.has_completions() {
            caps.insert("completions".into(), json!({}));
        }
        if !modern {
            caps.insert("logging".into(), json!({}));
        }
        let extensions: Map<String, Value> = self
            .protocol_extensions(modern)
            .filter(|e| e.declared_to(client_caps))
            .map(|e| (e.id().to_string(), e.capability()))
            .collect();
        if !extensions.is_empty() {
            caps.insert("extensions".into(), Value::Object(extensions));
        }
        Value::Object(caps)
    }

    /// The `initialize` result for a negotiated 2025 version, in `locale`.
    pub fn initialize_result(&self, version: &'static str, locale: Locale) -> Value {
        self.initialize_result_for(version, locale, &Value::Null)
    }

    /// [`Engine::initialize_result`] for a client whose `initialize` declared `client_caps`.
    pub fn initialize_result_for(
        &self,
        version: &'static str,
        locale: Locale,
        client_caps: &Value,
    ) -> Value {
        let mut r = json!({
            "protocolVersion": version,
            "capabilities": self.capabilities_for(false, client_caps),
            "serverInfo": self.server_info,
            "_meta": {era::META_CONTENT_LANGUAGE: locale.tag()},
        });
        let instructions = self.instructions(locale);
        if !instructions.is_empty() {
            r["instructions"] = json!(instructions);
        }
        r
    }

    /// `server/discover` for a request declaring `client_caps`: the cached answer, unless an
    /// extension is declared to this client only.
    fn discover_result_for(&self, locale: Locale, client_caps: &Value) -> Value {
        let own = self
            .protocol_extensions(true)
            .any(|e| e.declared_to(client_caps) && !e.declared_to(&Value::Null));
        if !own {
            return self.discover_result(locale);
        }
        let mut r = self.discover_result(locale);
        r["capabilities"] = self.capabilities_for(true, client_caps);
        // What this client's capabilities chose: no shared cache may give it to another.
        r["cacheScope"] = json!("private");
        r
    }

    fn discover_result(&self, locale: Locale) -> Value {
        self.discover[locale.index()]
            .get_or_init(|| {
                let mut r = json!({
                    "resultType": "complete",
                    "supportedVersions": era::SUPPORTED,
                    "capabilities": self.capabilities(true),
                    "ttlMs": self.options.ttl_ms,
                    "cacheScope": "public",
                    "_meta": {
                        era::META_SERVER_INFO: self.server_info,
                        era::META_CONTENT_LANGUAGE: locale.tag(),
                    },
                });
                let instructions = self.instructions(locale);
                if !instructions.is_empty() {
                    r["instructions"] = json!(instructions);
                }
                r
            })
            .clone()
    }

    /// Adds the 2026 envelope fields to a final result (no-op on 2025).
    pub fn finish(&self, call: &Call, mut result: Value, cacheable: bool) -> Value {
        if call.era.is_modern() {
            if let Value::Object(m) = &mut result {
                m.insert("resultType".into(), json!("complete"));
                if cacheable {
                    m.insert("ttlMs".into(), json!(self.options.ttl_ms));
                    m.insert("cacheScope".into(), json!("private"));
                }
                let meta = m.entry("_meta").or_insert_with(|| json!({}));
                if let Value::Object(meta) = meta {
                    meta.insert(era::META_SERVER_INFO.into(), self.server_info.clone());
                }
            }
        }
        result
    }

    /// Answers one request. `initialize` is answered by the connection layer (it opens
    /// sessions), using [`Engine::initialize_result`].
    pub async fn handle(&self, req: &Request, call: &Call) -> Reply {
        // The tool a `tools/call` names, found once: its metrics label, its rate class and the
        // call itself all use this lookup.
        let tool = match req.method.as_str() {
            "tools/call" => req
                .params
                .get("name")
                .and_then(Value::as_str)
                .and_then(|name| self.tool_index.get_key_value(name))
                .map(|(name, idx)| (*name, *idx)),
            _ => None,
        };
        // A measured request records what its layers learn, through the handle its call
        // carries: a copy of the call with a recording one.
        let recorded;
        let call = match &self.telemetry {
            Some(t) => {
                let mut c = call.clone();
                c.notes = crate::contract::facts::Notes::recording(t.attempts());
                recorded = c;
                &recorded
            }
            None => call,
        };
        let observer = crate::telemetry::observe::Observer {
            telemetry: self.telemetry.as_ref(),
            product: self.product.name,
            tool: tool.map(|(name, _)| name),
        };
        // Boxed once here: the layers below (measurement, the log line, the connection's time
        // limit) each take the future by value and hold it twice, so inline
        // its size multiplied at every layer and each move of a request's future copied it.
        let answer = Box::pin(async {
            let idx = tool.map(|(_, idx)| idx);
            if let Some(refused) = self.over_rate_limit(req, call, idx).await {
                return refused;
            }
            self.answer(req, call, idx).await
        });
        let reply = crate::telemetry::observe::observed(observer, req, call, answer).await;
        super::language::localize_reply(reply, self.locale(call), call.era.is_modern())
    }

    /// `Some(error)` when this request is over its identity's rate limit
    /// ([`crate::limits::RateLimiter::check_identity`]), checked before a tool call or resource
    /// read does any work (before its arguments are validated, the confirmation gate, or the
    /// backend). A call of a read-only tool (`readOnlyHint`) or a resource read counts against
    /// `reads`, a call of any other tool against `writes` ([`crate::limits::Class::of_tool`]);
    /// the discovery tools count too ([`Engine::discovery_rate_class`]), so they are no way
    /// around a limit. Other methods (lists, ping, completion) are cheap and answered from the
    /// catalog; the per-IP limit covers them on HTTP.
    async fn over_rate_limit(
        &self,
        req: &Request,
        call: &Call,
        tool: Option<usize>,
    ) -> Option<Reply> {
        let limiter = self.options.rate_limiter.as_ref()?;
        let class = match req.method.as_str() {
            "tools/call" => match tool {
                Some(idx) => crate::limits::Class::of_tool(&self.product.tools[idx]),
                None => self.discovery_rate_class(call, &req.params)?,
            },
            "resources/read" => crate::limits::Class::Reads,
            _ => return None,
        };
        limiter
            .check_identity(class, &call.identity, self.locale(call))
            .await
            .map(Reply::Error)
    }

    /// Answers `req`; `tool` is the index of the tool a `tools/call` names, when the catalog has it.
    /// An extension that overrides the method for this request answers it
    /// ([`ProtocolExtension::overrides`]).
    async fn answer(&self, req: &Request, call: &Call, tool: Option<usize>) -> Reply {
        let modern = call.era.is_modern();
        if let Some(e) = self
            .protocol_extensions(modern)
            .find(|e| e.overrides(call, &req.method, &req.params))
        {
            return e.handle(self, &req.method, call, &req.params).await;
        }
        self.answer_method(&req.method, &req.params, call, tool)
            .await
    }

    /// The answer of a standard method without any extension's override: what an extension
    /// that overrides it builds on.
    pub async fn answer_standard(&self, method: &str, call: &Call, params: &Params) -> Reply {
        let tool = match method {
            "tools/call" => params
                .get("name")
                .and_then(Value::as_str)
                .and_then(|name| self.tool_index(name)),
            _ => None,
        };
        Box::pin(self.answer_method(method, params, call, tool)).await
    }

    async fn answer_method(
        &self,
        method: &str,
        p: &Params,
        call: &Call,
        tool: Option<usize>,
    ) -> Reply {
        let modern = call.era.is_modern();
        let not_found = || Reply::Error(RpcError::method_not_found(method));
        match method {
            "server/discover" if modern => {
                Reply::Value(self.discover_result_for(self.locale(call), &call.client_caps))
            }
            "ping" if !modern => Reply::Value(json!({})),
            "logging/setLevel" if !modern => self.set_level(call, p),
            "resources/subscribe" | "resources/unsubscribe" if !modern && self.subscribable() => {
                self.subscribe(call, p, method == "resources/subscribe")
            }
            "tools/list" if self.has_tools() => self.list(call, ListKind::Tools, p),
            // Each method's future is boxed: inline, the largest (several KB) would size this
            // one, and every request would copy it whole at each move.
            "resources/list" if self.has_resources() => {
                Box::pin(self.list_resources(call, p)).await
            }
            "resources/templates/list" if self.has_resources() => {
                self.list(call, ListKind::Templates, p)
            }
            "prompts/list" if self.has_prompts() => self.list(call, ListKind::Prompts, p),
            "tools/call" if self.has_tools() => Box::pin(self.call_tool(call, p, tool)).await,
            "resources/read" if self.has_resources() => Box::pin(self.read_resource(call, p)).await,
            "prompts/get" if self.has_prompts() => Box::pin(self.get_prompt(call, p)).await,
            "completion/complete" if self.has_completions() => {
                Box::pin(self.complete(call, p)).await
            }
            method => match self.protocol_extensions(modern).find(|e| e.answers(method)) {
                Some(e) => e.handle(self, method, call, p).await,
                None => not_found(),
            },
        }
    }

    pub(crate) fn list(&self, call: &Call, kind: ListKind, params: &Params) -> Reply {
        let view = self.view(call);
        let pages = if call.era.is_modern() {
            &view.modern
        } else {
            &view.legacy
        };
        let pages = match kind {
            ListKind::Tools if call.era == Era::Legacy("2025-03-26") => {
                self.listings.tools_2025_03_26(&view)
            }
            ListKind::Tools => &pages.tools,
            ListKind::Resources => &pages.resources,
            ListKind::Templates => &pages.templates,
            ListKind::Prompts => &pages.prompts,
        };
        match listing::page(pages, kind, params.get("cursor")) {
            Ok(page) => Reply::Raw(page.clone()),
            Err(e) => Reply::Error(e),
        }
    }

    fn set_level(&self, call: &Call, params: &Params) -> Reply {
        let Some(level) = params
            .get("level")
            .and_then(Value::as_str)
            .and_then(LogLevel::parse)
        else {
            return Reply::Error(RpcError::invalid_params(
                "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency",
            ));
        };
        if let Some(s) = &call.session {
            if let Ok(mut l) = s.log_level.lock() {
                *l = Some(level);
            }
        }
        Reply::Value(json!({}))
    }

    fn subscribe(&self, call: &Call, params: &Params, on: bool) -> Reply {
        let Some(uri) = params.get("uri").and_then(Value::as_str) else {
            return Reply::Error(RpcError::invalid_params(
                "Invalid params: uri (a string) is required",
            ));
        };
        if let Some(s) = &call.session {
            if let Ok(mut subs) = s.subscriptions.lock() {
                if on {
                    subs.insert(uri.to_string());
                } else {
                    subs.remove(uri);
                }
            }
        }
        Reply::Value(json!({}))
    }
}

// The seam of protocol extensions: an extension of MCP (the Tasks extension today; interactive
// views next) declares its capability, answers its own methods, and hooks into `tools/call`
// through [`ProtocolExtension`], and lives in a folder of its own above the protocol (it may use
// the [`Engine`]; the protocol never names it). The server gives each engine its extensions
// ([`Engine::with_protocol_extension`]); an engine without any serves plain MCP.

/// One protocol extension of an engine.
pub trait ProtocolExtension: Send + Sync + 'static {
    /// Its identifier, the key it is declared under in `capabilities.extensions` (2026-07-28).
    fn id(&self) -> &'static str;

    /// Whether this engine serves it (then it is declared and its methods answer): an extension
    /// with nothing to do for a product's catalog is neither.
    fn serves(&self, engine: &Engine) -> bool;

    /// The settings it declares under its id.
    fn capability(&self) -> Value {
        Value::Object(Map::new())
    }

    /// Whether it is served on a request of this era (`modern`: 2026-07-28). Only the 2026 wire
    /// has `capabilities.extensions`.
    fn in_era(&self, modern: bool) -> bool {
        modern
    }

    /// Whether it is declared to a client with these capabilities (`capabilities` of a 2025
    /// `initialize`, or of a 2026 request's `_meta`; `Value::Null`: a client not known). An
    /// extension that changes what a client sees (MCP Apps) is declared only to the clients that
    /// declared it, so nothing changes for the others.
    fn declared_to(&self, client_caps: &Value) -> bool {
        let _ = client_caps;
        true
    }

    /// Whether `method` is one of its methods.
    fn answers(&self, method: &str) -> bool;

    /// Whether it answers this standard method on this request its own way (MCP Apps: the
    /// listings with the views, for a client that declared them). It then answers it in
    /// [`ProtocolExtension::handle`], building on [`Engine::answer_standard`].
    fn overrides(&self, call: &Call, method: &str, params: &Params) -> bool {
        let _ = (call, method, params);
        false
    }

    /// Answers one of its methods ([`ProtocolExtension::answers`]).
    fn handle<'a>(
        &'a self,
        engine: &'a Engine,
        method: &'a str,
        call: &'a Call,
        params: &'a Params,
    ) -> BoxFuture<'a, Reply>;

    /// `tools/call`, after the arguments are checked and before the confirmation gate: whether
    /// this call is the extension's to run ([`ProtocolExtension::start`]) once confirmed. `Err`
    /// refuses the call (a tool the extension must run, for a client that did not declare it).
    fn offer(&self, engine: &Engine, call: &Call, tool: &Tool) -> Result<bool, RpcError> {
        let _ = (engine, call, tool);
        Ok(false)
    }

    /// `tools/call` of a call this extension was offered and took, once confirmed: runs it its
    /// own way (the Tasks extension: in the background) and answers the request.
    fn start<'a>(
        &'a self,
        engine: &'a Engine,
        call: &'a Call,
        idx: usize,
        args: Map<String, Value>,
        params: &'a Params,
        confirmed: Option<Confirmed>,
    ) -> BoxFuture<'a, Reply> {
        let _ = (engine, call, idx, args, params, confirmed);
        Box::pin(async {
            RpcError::internal(format!("the {} extension runs no tool calls", self.id())).into()
        })
    }
}

/// Tool name (or former name) → index in `product.tools`.
type ToolIndex = std::collections::HashMap<&'static str, usize, foldhash::fast::RandomState>;

/// Tool indexes by name, and by each former name (alias) of a tool.
fn tool_index(product: &'static Product) -> ToolIndex {
    let mut index: ToolIndex = product
        .tools
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name, i))
        .collect();
    for (alias, name) in product.tool_aliases {
        if let Some(&i) = index.get(name) {
            index.entry(alias).or_insert(i);
        }
    }
    index
}

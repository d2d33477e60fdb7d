//! The configured server that transports drive.
//!
//! The CLI builds a [`ServerConfig`] (which products, which backend, who the caller is when no
//! auth layer says otherwise, sealing keys, allowed origins, limits), turns it into a [`Server`]
//! with [`Server::new`], and hands it to a transport:
//!
//! ```ignore
//! let server = runtime::server::Server::new(config)?;
//! // stdio: one product, newline-delimited JSON on stdin/stdout, returns on EOF.
//! runtime::transport::stdio::run(server.clone(), "banking").await?;
//! // HTTP: `/mcp` for one product, `/<product>/mcp` for several.
//! runtime::transport::http::serve(server, "127.0.0.1:8080".parse()?, shutdown_signal).await?;
//! ```
//!
//! Identity: on HTTP, when [`ServerConfig::auth`] is set, every request goes through
//! `crate::transport::auth::AuthLayer` and the engine uses the `Authenticated` identity it stores in
//! the request; without it, every request is served as [`ServerConfig::default_identity`] (local
//! and sandbox use). On stdio the CLI resolves the identity once (`crate::auth::stdio`) and passes
//! it as `default_identity`.

use std::sync::Arc;
use std::time::Duration;

use runtime_model::backend::Backend;
use runtime_model::catalog::Product;
use runtime_model::identity::Identity;

use crate::contract::Extensions;
use crate::protocol::engine::{Engine, EngineOptions};
use crate::state::StateSealer;

/// Everything a server needs.
#[derive(Clone)]
pub struct ServerConfig {
    /// The products served (at least one). One product is served at `/mcp`; several at
    /// `/<product>/mcp`.
    pub products: Vec<&'static Product>,
    /// Where tool calls go (sandbox or upstream proxy).
    pub backend: Arc<dyn Backend>,
    /// The caller when no auth layer identified one.
    pub default_identity: Arc<Identity>,
    /// The caller's bearer token when the transport carries none (stdio: `KOBANA_ACCESS_TOKEN`),
    /// handed to the backend in every call so proxy mode forwards it upstream. HTTP ignores it:
    /// each request brings its own `Authorization` header.
    pub default_bearer_token: Option<Arc<str>>,
    /// The HTTP auth layer (bearer → identity, 401 + `WWW-Authenticate`); `None` = every request is
    /// `default_identity`.
    pub auth: Option<Arc<crate::auth::http::HttpAuth>>,
    /// Keys sealing `requestState`; `None` = one random key for this process.
    pub sealer: Option<StateSealer>,
    /// The single-use ledger of confirmations; `None` = in memory (one process).
    pub ledger: Option<Arc<dyn crate::confirm::Ledger>>,
    /// How long a write whose outcome is unknown keeps its idempotency key (re-running the same
    /// call within it is answered with the first result). 24 h by default.
    pub idempotency_window: Duration,
    /// Origins allowed besides loopback ones (`http://localhost:*`, `http://127.0.0.1:*`,
    /// `http://[::1]:*`), written exactly as browsers send them (`https://app.example.com`).
    pub allowed_origins: Vec<String>,
    /// `Host` names accepted (DNS-rebinding protection); loopback names are always accepted.
    /// Empty = any host (a server behind a proxy that checks it).
    pub allowed_hosts: Vec<String>,
    /// Whether `allowed_hosts` is enforced (true by default: the server binds to loopback).
    pub check_host: bool,
    /// Largest accepted request body.
    pub max_body_bytes: usize,
    /// Longest a request may run before it is answered with an error.
    pub request_timeout: Duration,
    /// Most concurrent 2025 sessions on HTTP (all identities together).
    pub max_sessions: usize,
    /// Most concurrent 2025 sessions of one identity (person in an organization): opening one
    /// more ends that identity's least recently used session, so one caller's flood of
    /// `initialize` costs only its own sessions, never anyone else's.
    pub max_sessions_per_identity: usize,
    /// A 2025 session unused for this long ends (its id then answers 404: initialize again).
    pub session_idle_timeout: Duration,
    /// Most members of one JSON-RPC batch ([`crate::connection::batches::BatchBounds`]).
    pub max_batch_members: usize,
    /// Most bytes of one batch's answer; members past it are answered with an error.
    pub max_batch_answer_bytes: usize,
    /// Longest one batch may run (each member also has `request_timeout`).
    pub batch_timeout: Duration,
    /// Longest an HTTP connection may take to send a request's headers before it is closed.
    pub header_read_timeout: Duration,
    /// Most HTTP connections served at once; further ones wait in the listen queue.
    pub max_connections: usize,
    pub engine: EngineOptions,
    /// TTL and polling of tasks (the Tasks extension every engine is given).
    pub tasks: crate::tasks::TaskOptions,
    /// The products' interactive views (the generated `views::ALL`): the engine of a product
    /// with views is given the MCP Apps extension (`crate::views`). None by default.
    pub views: &'static [runtime_model::views::ProductViews],
    /// Metrics, spans and the audit trail; `None`: metrics in the process only (built by
    /// [`Server::new`]).
    pub telemetry: Option<crate::telemetry::Telemetry>,
    /// Whether the HTTP router serves `/metrics` (off when a separate metrics listener does).
    pub metrics_route: bool,
    /// What `/readyz` checks besides the ledger (which is always checked): the sandbox, the
    /// upstream identity service.
    pub probes: Vec<crate::telemetry::health::Probe>,
    /// Rate limits per identity and tool class (checked by the engines) and per client IP
    /// (checked by the HTTP layer before the body is read); `None` = no limits.
    pub rate_limiter: Option<Arc<crate::limits::RateLimiter>>,
    /// HTTP: take the client address from `Forwarded`/`X-Forwarded-For` and the public origin
    /// from `X-Forwarded-Proto`/`X-Forwarded-Host` (a deployment behind a proxy that sets them);
    /// off = those headers are ignored, as any client can send them.
    pub trust_proxy_headers: bool,
    /// HTTP: a `tools/call` whose scope the token lacks is answered 403 with an RFC 6750
    /// `insufficient_scope` challenge (MCP step-up authorization) instead of a tool error.
    pub scope_challenge: bool,
    /// The hand-written handlers the engines may call; [`crate::extensions::ALL`] by default.
    pub extensions: Extensions,
    /// The operator's tool selection (`--toolsets`, `--tools`, `--exclude-tools`,
    /// `--read-only`, `--discovery`): the ceiling of every request, and what a request naming
    /// none gets (the product's default toolsets when the spec names no inclusion). `None` (the
    /// library default): every tool, for every request that names none.
    pub selection: Option<runtime_model::selection::SelectionSpec>,
}

impl ServerConfig {
    /// The limits of one JSON-RPC batch, from this configuration.
    pub fn batch_bounds(&self) -> crate::connection::batches::BatchBounds {
        crate::connection::batches::BatchBounds {
            max_members: self.max_batch_members,
            max_answer_bytes: self.max_batch_answer_bytes,
            member_timeout: self.request_timeout,
            batch_timeout: self.batch_timeout,
        }
    }

    /// The limits of the HTTP session table, from this configuration.
    pub fn session_limits(&self) -> crate::connection::SessionLimits {
        crate::connection::SessionLimits {
            max: self.max_sessions,
            per_identity: self.max_sessions_per_identity.max(1),
            idle: self.session_idle_timeout,
        }
    }

    /// A configuration with the defaults: loopback origins and hosts only, 4 MiB bodies, 60 s
    /// per request, no auth layer, an ephemeral sealing key. Bounds: 10,000 sessions, 100 per
    /// identity, ended after 30 min idle; batches of at most 100 members, 8 MiB of answer and 60 s;
    /// 10 s to send headers; 1,024 connections at once.
    pub fn new(
        products: Vec<&'static Product>,
        backend: Arc<dyn Backend>,
        default_identity: Identity,
    ) -> Self {
        Self {
            products,
            backend,
            default_identity: Arc::new(default_identity),
            default_bearer_token: None,
            auth: None,
            sealer: None,
            ledger: None,
            idempotency_window: crate::confirm::idempotency::DEFAULT_WINDOW,
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            check_host: true,
            max_body_bytes: 4 * 1024 * 1024,
            request_timeout: Duration::from_secs(60),
            max_sessions: 10_000,
            max_sessions_per_identity: 100,
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_batch_members: 100,
            max_batch_answer_bytes: 8 * 1024 * 1024,
            batch_timeout: Duration::from_secs(60),
            header_read_timeout: Duration::from_secs(10),
            max_connections: 1024,
            engine: EngineOptions::default(),
            tasks: crate::tasks::TaskOptions::default(),
            views: &[],
            telemetry: None,
            metrics_route: true,
            probes: Vec::new(),
            rate_limiter: None,
            trust_proxy_headers: false,
            scope_challenge: false,
            extensions: crate::extensions::ALL,
            selection: None,
        }
    }
}

/// Why a server could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("no product to serve")]
    NoProduct,
    #[error("product {0} is listed twice")]
    DuplicateProduct(String),
    #[error("cannot create the requestState key: {0}")]
    Sealer(String),
    #[error("unknown product {0}; served: {1}")]
    UnknownProduct(String, String),
    /// The message is the selection error's own, so it is no `source`: a chain printer (`{:#}`)
    /// would say it twice.
    #[error("tool selection: {0}")]
    Selection(runtime_model::selection::SelectionError),
}

impl From<runtime_model::selection::SelectionError> for ServerError {
    fn from(e: runtime_model::selection::SelectionError) -> Self {
        ServerError::Selection(e)
    }
}

/// A running configuration: one [`Engine`] per product.
pub struct Server {
    pub config: ServerConfig,
    engines: Vec<Arc<Engine>>,
    /// `config.probes` and the ledger's.
    readiness: Vec<crate::telemetry::health::Probe>,
    /// `config.telemetry`, or metrics in the process only.
    telemetry: crate::telemetry::Telemetry,
}

impl Server {
    pub fn new(config: ServerConfig) -> Result<Arc<Self>, ServerError> {
        if config.products.is_empty() {
            return Err(ServerError::NoProduct);
        }
        for (i, p) in config.products.iter().enumerate() {
            if config.products[..i].iter().any(|q| q.name == p.name) {
                return Err(ServerError::DuplicateProduct(p.name.to_string()));
            }
        }
        let sealer = match &config.sealer {
            Some(s) => s.clone(),
            None => StateSealer::ephemeral().map_err(|e| ServerError::Sealer(e.to_string()))?,
        };
        let sealer = Arc::new(sealer);
        let ledger = config
            .ledger
            .clone()
            .unwrap_or_else(|| Arc::new(crate::confirm::MemoryLedger::new()));
        let telemetry = config.telemetry.clone().unwrap_or_default();
        let mut readiness = config.probes.clone();
        readiness.push(crate::confirm::ledger::readiness_probe(
            ledger.clone(),
            "the confirmation ledger",
        ));
        if telemetry.audit().is_some() {
            let t = telemetry.clone();
            readiness.push(crate::telemetry::health::Probe::new("audit", move || {
                let ready = t.audit().map(|sink| sink.ready());
                async move { ready.unwrap_or_else(|| Ok("off".into())) }
            }));
        }
        let ledger = crate::confirm::timed::TimedLedger::wrap(ledger, telemetry.clone());
        let confirmer = crate::confirm::Confirmer::with_window(
            sealer.clone(),
            ledger,
            config.idempotency_window,
        );
        let mut options = config.engine.clone();
        if config.rate_limiter.is_some() {
            options.rate_limiter = config.rate_limiter.clone();
        }
        let ceilings = match &config.selection {
            Some(spec) => runtime_model::selection::Ceiling::for_products(&config.products, spec)?,
            None => config
                .products
                .iter()
                .map(|p| runtime_model::selection::Ceiling::everything(p))
                .collect(),
        };
        let engines = config
            .products
            .iter()
            .zip(ceilings)
            .map(|(p, ceiling)| {
                let mut engine = Engine::new(
                    p,
                    config.backend.clone(),
                    sealer.clone(),
                    confirmer.clone(),
                    config.extensions,
                    options.clone(),
                )
                .with_telemetry(telemetry.clone())
                .with_ceiling(ceiling)
                .with_protocol_extension(Arc::new(
                    crate::tasks::TasksExtension::new(crate::tasks::TaskStore::new(
                        confirmer.ledger.clone(),
                        config.tasks.clone(),
                    )),
                ));
                if let Some(views) = config.views.iter().find(|v| v.product == p.name) {
                    engine = engine.with_protocol_extension(Arc::new(
                        crate::views::ViewsExtension::new(views),
                    ));
                }
                let engine = Arc::new(engine);
                engine.bind();
                engine
            })
            .collect();
        Ok(Arc::new(Self {
            config,
            engines,
            readiness,
            telemetry,
        }))
    }

    /// The server's metrics, tracer and audit sink.
    pub fn telemetry(&self) -> &crate::telemetry::Telemetry {
        &self.telemetry
    }

    /// What `/readyz` checks.
    pub fn readiness(&self) -> &[crate::telemetry::health::Probe] {
        &self.readiness
    }

    pub fn engines(&self) -> &[Arc<Engine>] {
        &self.engines
    }

    /// The engine of a product.
    pub fn engine(&self, product: &str) -> Result<&Arc<Engine>, ServerError> {
        self.engines
            .iter()
            .find(|e| e.product.name == product)
            .ok_or_else(|| {
                let served: Vec<&str> = self.engines.iter().map(|e| e.product.name).collect();
                ServerError::UnknownProduct(product.to_string(), served.join(", "))
            })
    }
}

/// An identity allowed everything (`all` scope, `*` permission): for fixtures and local demos.
pub fn unrestricted_identity(person: &str) -> Identity {
    Identity {
        person: person.to_string(),
        name: person.to_string(),
        organization: "local".to_string(),
        scopes: ["all".to_string()].into_iter().collect(),
        permissions: ["*".to_string()].into_iter().collect(),
        workspaces: Default::default(),
        default_workspace: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use runtime_model::selection::SelectionError;

    #[test]
    fn a_selection_error_is_said_once_along_its_chain() {
        let err = ServerError::from(SelectionError::UnknownToolset {
            name: "bilets".into(),
            known: vec!["billets".into()],
        });
        let mut chain = vec![err.to_string()];
        let mut source = std::error::Error::source(&err);
        while let Some(e) = source {
            chain.push(e.to_string());
            source = e.source();
        }
        let chain = chain.join(": ");
        assert_eq!(chain.matches("bilets").count(), 1, "{chain}");
    }
}

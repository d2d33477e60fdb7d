//! `kobana-mcp`: serve Kobana's MCP products on the embedded sandbox or as a proxy to the Kobana
//! API, and manage the sandbox.
//!
//! ```text
//! kobana-mcp serve <product|all> [--stdio | --http ADDR] [--upstream URL] [--data-dir D] [--config FILE]
//!                  [--ledger memory|redis://…] [--state-keys KID:HEX,…]
//!                  [--rate-limit-reads N] [--rate-limit-writes N] [--rate-limit-ip N]
//!                  [--scope-challenge] [--trust-proxy-headers]
//! kobana-mcp sandbox seed|reset [--products a,b]
//! kobana-mcp sandbox serve-api --http ADDR
//! kobana-mcp doctor [product|all] [serve's flags]
//! ```
//!
//! Defaults: HTTP on 127.0.0.1:8080 (`/<product>/mcp`; one product also `/mcp`), the
//! embedded sandbox in the per-user data directory, seeded on first use, tokens from the demo
//! identities file. Logs go to stderr (`RUST_LOG`, default `info`). Several instances share a
//! Redis ledger (`KOBANA_LEDGER`) and the `requestState` keys (`KOBANA_STATE_KEYS`). Over stdio
//! the sandbox opens on the first tool call, so the first answers come from the catalog alone.

mod access;
mod cli;
mod config;
mod doctor;
mod healthcheck;
mod lazy_sandbox;
mod log_format;
mod log_queue;
mod preflight;
mod settings;

use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use cli::{parse_addr, select_products, Command, SandboxCommand};
use preflight::{serve_metrics, stop_telemetry};
use runtime::auth::http::{metadata_router, HttpAuth, ProtectedResource};
use runtime::auth::EmbeddedResolver;
use runtime::server::{Server, ServerConfig};
use runtime_model::backend::Backend;
use runtime_sandbox::Sandbox;

use lazy_sandbox::LazySandbox;

/// Log lines to stderr through [`log_queue`], so that a stderr nobody reads never stops a
/// request. The returned guard writes what is queued when dropped. Without the writer thread
/// (the system refused one), lines go straight to stderr as before.
fn init_logging() -> Option<log_queue::Flush> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let logger = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .event_format(log_format::LineFormat::default());
    match log_queue::start(std::io::stderr()) {
        Ok((queue, flush)) => {
            logger.with_writer(queue).init();
            Some(flush)
        }
        Err(e) => {
            logger.with_writer(std::io::stderr).init();
            tracing::warn!(error = %e, "no log writer thread: log lines are written in place");
            None
        }
    }
}

/// The server allocates with mimalloc (a well-kept allocator crate; no allocator code of ours):
/// measured for issue 34, a `tools/call` costs 52K instructions with it against 58K with glibc's
/// malloc (scripts/bench_instructions.sh, 2026-07-28 era), which is what keeps `tools/call` near
/// the static-bytes server. Its per-thread pages are why the sandbox bounds its blocking threads
/// (`Sandbox`'s store lanes), and why the crate is built without transparent huge pages
/// (`no_thp`, the workspace's `Cargo.toml`): the RSS targets are measured by scripts/bench_http.sh.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // Before the runtime starts its threads: each may get a malloc arena of its own.
    runtime_sandbox::memory::tune_allocator();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("kobana-mcp: cannot start the async runtime: {e}");
            std::process::exit(1);
        }
    };
    rt.block_on(async_main());
}

async fn async_main() {
    let log = init_logging();
    let inputs = settings::Inputs::parse();
    let outcome = run(inputs).await;
    // The queued log lines are written first: `std::process::exit` runs no destructors.
    drop(log);
    if let Err(e) = outcome {
        if !e.is::<Reported>() {
            eprintln!("kobana-mcp: {e:#}");
        }
        std::process::exit(1);
    }
}

/// A failure already reported in full (a `doctor` that found problems): exit 1, say nothing more.
#[derive(Debug)]
struct Reported;

impl std::fmt::Display for Reported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("reported above")
    }
}

impl std::error::Error for Reported {}

async fn run(inputs: settings::Inputs) -> anyhow::Result<()> {
    match &inputs.cli.command {
        // Reports settings that do not resolve as its lines, not as an error.
        Command::Doctor(_) => match doctor::run(&inputs).await {
            true => Ok(()),
            false => Err(Reported.into()),
        },
        Command::Serve(_) => serve(&inputs).await,
        Command::Sandbox { command } => {
            sandbox(command, settings::Settings::resolve(&inputs)?).await
        }
        Command::Healthcheck(args) => {
            healthcheck::run(&args.url, Duration::from_secs(args.timeout_secs))
        }
    }
}

/// Resolves on Ctrl-C or SIGTERM. SIGTERM is how `docker stop`, Kubernetes and systemd ask a
/// server to end: without it the process died at once, losing the audit records and spans not
/// yet exported and cutting the requests in flight.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM; only Ctrl-C stops the server gracefully");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
    tracing::info!("shutting down");
}

async fn serve(inputs: &settings::Inputs) -> anyhow::Result<()> {
    let settings = settings::Settings::resolve(inputs)?;
    let s = settings
        .serve
        .as_ref()
        .ok_or_else(|| anyhow!("serve's settings are missing"))?;
    runtime_sandbox::memory::spawn_periodic_trim(runtime_sandbox::memory::TRIM_EVERY);
    // The checks `doctor` reports: `serve` refuses the first that fails.
    let mut report = preflight::Report::silent();
    let ready = preflight::run(&settings, preflight::Purpose::Serve, &mut report).await;
    if let Some(first) = report.failures().first() {
        let more = report.failures().len() - 1;
        if more == 0 {
            bail!("{first}");
        }
        bail!("{first} (and {more} more problem(s): `kobana-mcp doctor` with the same settings lists them)");
    }
    let ready = ready.ok_or_else(|| anyhow!("nothing to serve"))?;
    for w in &ready.ledger_warnings {
        tracing::warn!("confirmation ledger may lose keys (--allow-volatile-ledger): {w}");
        eprintln!("warning: confirmation ledger may lose keys (--allow-volatile-ledger): {w}");
    }
    let missing = |what: &str| anyhow!("{what} was not prepared");
    let products = ready.products.clone();
    let stdio = s.stdio;
    let public_url = s.public_url_or_default();
    let ledger = ready.ledger.clone().ok_or_else(|| missing("the ledger"))?;
    // Each is `Ok` once the settings resolved.
    let sealer = s.state_keys.clone()?;
    let locale = s.locale.clone()?;
    let selection = s.selection.clone()?;
    let telemetry = ready
        .telemetry
        .clone()
        .ok_or_else(|| missing("telemetry"))?;
    if let Some(e) = &s.otlp_endpoint {
        tracing::info!(endpoint = %e, "exporting metrics and traces over OTLP/HTTP");
    }
    let metrics_route = ready.metrics_listener.is_none();
    if let Some(listener) = ready.metrics_listener {
        serve_metrics(listener, telemetry.clone())?;
    }
    let mut probes = Vec::new();
    let resolver = ready
        .resolver
        .clone()
        .ok_or_else(|| missing("the token resolver"))?;
    if let Some(base) = &ready.identity_base {
        // Any HTTP answer from the identity service's host means it is reachable.
        probes.push(runtime::telemetry::health::Probe::http(
            "identity",
            format!("{}/v2/me", base.trim_end_matches('/')),
        ));
    }

    let backend: Arc<dyn Backend>;
    let mut sandbox_handle = None;
    if let Some(upstream) = ready.upstream {
        tracing::info!(
            upstream = ?s.upstream.as_ref().and_then(|u| u.base_url.clone()),
            connections = s.upstream.as_ref().map(|u| u.limits_text()).unwrap_or_default(),
            "proxy mode: tool calls go to the Kobana API"
        );
        backend = Arc::new(upstream);
    } else {
        let mut cfg = settings.served_sandbox(s);
        let (data_dir, seed) = (&settings.data_dir, settings.seed);
        // On stdio there is no HTTP server for signed download links: serve them from a private
        // loopback listener, unless a public URL was configured.
        let files_listener = if stdio && s.public_url.is_none() {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
            cfg.public_url = format!("http://{}", l.local_addr()?);
            Some(l)
        } else {
            None
        };
        if stdio {
            // Cold start: the first answers need only the catalog; the sandbox opens (and each
            // scope seeds) on the first tool call.
            let lazy = LazySandbox::new(cfg.clone());
            if let Some(listener) = files_listener {
                let (lazy, products) = (lazy.clone(), products.clone());
                tracing::info!(url = %cfg.public_url, "signed downloads served here");
                tokio::spawn(async move {
                    // Links exist only once a call opened the sandbox; until then connections
                    // wait in the listen backlog.
                    let Some(sb) = lazy.opened().await else {
                        return;
                    };
                    let router = runtime_sandbox::api::files_router(sb, products);
                    if let Err(e) = axum::serve(listener, router).await {
                        tracing::error!(error = %e, "signed-download server stopped");
                    }
                });
            }
            tracing::info!(data_dir = %data_dir.display(), seed, "sandbox mode (opened on first call)");
            backend = Arc::new(lazy);
        } else {
            // Opened by the checks.
            let sb = ready.sandbox.ok_or_else(|| missing("the sandbox"))?;
            tracing::info!(db = %sb.db_path().display(), seed, "sandbox mode");
            let probed = sb.clone();
            probes.push(runtime::telemetry::health::Probe::new(
                "sandbox",
                move || {
                    let sb = probed.clone();
                    async move {
                        tokio::task::spawn_blocking(move || sb.check_storage())
                            .await
                            .unwrap_or_else(|e| Err(format!("storage check failed: {e}")))
                    }
                },
            ));
            sandbox_handle = Some(sb.clone());
            backend = Arc::new(sb);
        }
    }

    // What the server is configured with on every transport: the confirmation ledger and state
    // keys, the idempotency window, tasks, language, telemetry, the tool selection, bounds,
    // access rules and the result budget.
    let shared = |config: &mut ServerConfig| -> anyhow::Result<()> {
        config.ledger = Some(ledger.clone());
        config.sealer = sealer.clone();
        config.idempotency_window = s.idempotency_window;
        config.tasks.ttl = s.task_ttl;
        config.tasks.follow_for = s.task_follow;
        config.engine.locale = locale;
        config.telemetry = Some(telemetry.clone());
        config.selection = Some(selection.clone());
        config.views = generated::views::ALL;
        s.limits.apply(config);
        access::apply(s, config)?;
        if let Some(n) = s.result_budget_tokens {
            config.engine.result_budget_tokens = n;
        }
        Ok(())
    };
    if stdio {
        let (caller, notice) = ready
            .stdio_caller
            .ok_or_else(|| missing("the stdio caller"))?;
        if let Some(n) = notice {
            eprintln!("{n}");
        }
        // A caller still unknown: the listings are answered as for anyone (the transport asks
        // the identity service again for every other request).
        let (identity, pending) = match caller {
            preflight::StdioCaller::Known(who) => ((*who.identity).clone(), None),
            preflight::StdioCaller::Pending(p) => {
                eprintln!("kobana-mcp: the identity service is unreachable; serving the tool list, and asking it again on each call");
                (
                    runtime::server::unrestricted_identity("stdio caller not yet known"),
                    Some(p),
                )
            }
        };
        let mut config = ServerConfig::new(products.clone(), backend, identity);
        shared(&mut config)?;
        // Proxy mode forwards it upstream with every call.
        config.default_bearer_token = s.stdio_credentials.token.as_deref().map(Arc::from);
        let server = Server::new(config)?;
        // A signal ends the session like the end of stdin does, and the exporters still flush.
        let served = tokio::select! {
            r = async {
                match pending {
                    Some(p) => runtime::transport::stdio::run_pending(server, products[0].name, p).await,
                    None => runtime::transport::stdio::run(server, products[0].name).await,
                }
            } => r,
            _ = shutdown_signal() => Ok(()),
        };
        stop_telemetry(telemetry).await;
        served?;
        return Ok(());
    }

    let listener = ready.listener.ok_or_else(|| missing("the HTTP listener"))?;
    let mut config = ServerConfig::new(
        products.clone(),
        backend,
        runtime::server::unrestricted_identity("anonymous"),
    );
    shared(&mut config)?;
    config.auth = Some(Arc::new(HttpAuth::new(resolver, &public_url)));
    config.allowed_origins = s.allowed_origins.clone();
    config.allowed_hosts = s.allowed_hosts.clone();
    config.metrics_route = metrics_route;
    config.probes = probes;
    let limits = runtime::transport::http::ConnectionLimits::of(&config);
    let server = Server::new(config)?;
    let meta =
        ProtectedResource::for_products(&public_url, s.authorization_servers.clone(), &products);
    // The metadata and the signed download links (inbox `.eml`) beside the MCP routes, under the
    // same per-IP limit.
    let mut extra = metadata_router(meta);
    if let Some(sb) = sandbox_handle {
        extra = extra.merge(runtime_sandbox::api::files_router(sb, products.clone()));
    }
    let app = runtime::transport::http::router_with(server, extra);
    let mut paths: Vec<String> = if products.len() == 1 {
        vec!["/mcp".into()]
    } else {
        Vec::new()
    };
    paths.extend(products.iter().map(|p| format!("/{}/mcp", p.name)));
    tracing::info!(addr = %listener.local_addr()?, endpoints = ?paths, "serving MCP over HTTP");
    let served =
        runtime::transport::http::serve_router(app, listener, limits, shutdown_signal()).await;
    stop_telemetry(telemetry).await;
    served?;
    Ok(())
}

async fn sandbox(command: &SandboxCommand, settings: settings::Settings) -> anyhow::Result<()> {
    let cfg = settings.sandbox();
    match command {
        SandboxCommand::Seed(p) => {
            let sb = Sandbox::open(&cfg)?;
            for product in select_products(&p.products)? {
                let sb2 = sb.clone();
                let out = tokio::task::spawn_blocking(move || {
                    sb2.reseed(product, &[Sandbox::demo_scope(product)])
                })
                .await??;
                for (scope, counts) in out {
                    let total: i64 = counts
                        .as_object()
                        .map(|m| m.values().filter_map(|v| v.as_i64()).sum())
                        .unwrap_or(0);
                    println!(
                        "seeded {} organization={} workspace={}: {total} records {counts}",
                        product.name,
                        scope.organization,
                        if scope.workspace.is_empty() {
                            "-"
                        } else {
                            &scope.workspace
                        }
                    );
                }
            }
            println!("sandbox: {}", sb.db_path().display());
        }
        SandboxCommand::Reset(p) => {
            let sb = Sandbox::open(&cfg)?;
            for product in select_products(&p.products)? {
                let n = sb.reset(product)?;
                println!("reset {}: {n} records deleted", product.name);
            }
        }
        SandboxCommand::ServeApi(a) => {
            let products = select_products(&a.products)?;
            let sb = Sandbox::open(&cfg)?;
            let identities: runtime_sandbox::api::IdentityLookup = if a.any_token {
                runtime_sandbox::api::any_token()
            } else {
                let resolver = EmbeddedResolver::builtin(&products)?;
                Arc::new(move |token: &str| resolver.lookup(token).cloned())
            };
            let mut state = runtime_sandbox::api::ApiState::new(sb, products.clone(), identities);
            state.admin = a.allow_fault_injection;
            let addr = parse_addr(&a.http)?;
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("cannot listen on {addr}"))?;
            let bound = listener.local_addr()?;
            tracing::info!(addr = %bound, "sandbox REST API; proxy with --upstream http://{bound}/{{product}}");
            axum::serve(listener, runtime_sandbox::api::router(state))
                .with_graceful_shutdown(shutdown_signal())
                .await?;
        }
    }
    Ok(())
}

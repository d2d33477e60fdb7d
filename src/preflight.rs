//! The checks `serve` runs before it starts, and `doctor` reports: one home, so that a setup
//! `doctor` passes is one `serve` starts. Each check is one line (`ok    what: detail` or
//! `FAIL  what: detail`); `serve` refuses to start with the first failure, `doctor` prints them all.
//!
//! What `serve` builds here (the listeners, the token resolver and the stdio caller, the ledger,
//! the sandbox, the telemetry) it then uses, so nothing is checked one way and run another.
//! `doctor` also probes what `serve` only reports through `/readyz` once running (each upstream
//! product's API, the identity service over HTTP) and opens the sandbox that stdio opens lazily.

use std::sync::Arc;
use std::time::Duration;

use runtime::auth::stdio::{resolve_stdio, stdio_token, PendingCaller, StdioAuthError};
use runtime::auth::{AuthError, Authenticated, EmbeddedResolver, Resolver, UpstreamResolver};
use runtime::backend::Upstream;
use runtime::confirm::{Ledger, RedisLedger, ALLOW_VOLATILE_ENV};
use runtime::telemetry::{Telemetry, TelemetryConfig};
use runtime_model::catalog::Product;
use runtime_sandbox::Sandbox;
use tokio::net::TcpListener;

use crate::settings::{Auth, ServeSettings, Settings, SettingsError};

/// How long a probe of the upstream or the identity service may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Who runs the checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// `serve`: only what it needs at start, keeping what it builds.
    Serve,
    /// `doctor`: the same, plus probes of what `serve` waits for once running.
    Doctor,
}

/// The lines of the checks, printed as they come (`doctor`) or kept (`serve`).
pub struct Report {
    echo: bool,
    failures: Vec<String>,
}

impl Report {
    /// `doctor`'s report: every line on stdout.
    pub fn printing() -> Self {
        Report {
            echo: true,
            failures: Vec::new(),
        }
    }

    /// `serve`'s: the failures only, for its error.
    pub fn silent() -> Self {
        Report {
            echo: false,
            failures: Vec::new(),
        }
    }

    fn ok(&mut self, what: &str, detail: impl std::fmt::Display) {
        if self.echo {
            println!("ok    {what}: {detail}");
        }
    }

    fn fail(&mut self, what: &str, detail: impl std::fmt::Display) {
        let line = format!("{what}: {}", one_line(&detail.to_string()));
        if self.echo {
            println!("FAIL  {line}");
        }
        self.failures.push(line);
    }

    fn setting(&mut self, e: &SettingsError) {
        self.fail(e.what, e.detail());
    }

    /// The failed checks, each `what: detail`.
    pub fn failures(&self) -> &[String] {
        &self.failures
    }
}

/// A multi-line message (a TOML error draws the line it points at) as one line: its first line,
/// and its last when that says more (TOML: what is wrong).
fn one_line(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    match lines.as_slice() {
        [] => String::new(),
        [one] => one.to_string(),
        [first, .., last] => format!("{first}: {last}"),
    }
}

/// What the checks built, for `serve` to run with (each `None` when its check failed or does not
/// apply).
#[derive(Default)]
pub struct Ready {
    pub products: Vec<&'static Product>,
    /// The HTTP listener (bound: the port is ours).
    pub listener: Option<TcpListener>,
    pub metrics_listener: Option<TcpListener>,
    pub resolver: Option<Arc<dyn Resolver>>,
    /// The identity service's base URL (upstream tokens).
    pub identity_base: Option<String>,
    /// The stdio caller, and the notice to print (the sandbox's default, or a `Bearer ` prefix dropped).
    pub stdio_caller: Option<(StdioCaller, Option<String>)>,
    pub upstream: Option<Upstream>,
    /// The sandbox, opened (HTTP; stdio opens it on the first call).
    pub sandbox: Option<Sandbox>,
    pub ledger: Option<Arc<dyn Ledger>>,
    /// What the Redis ledger may lose, allowed by `--allow-volatile-ledger`.
    pub ledger_warnings: Vec<String>,
    pub telemetry: Option<Telemetry>,
}

/// The stdio caller: known at start, or to be asked of an identity service that did not answer.
pub enum StdioCaller {
    Known(Authenticated),
    Pending(Arc<PendingCaller>),
}

/// Runs every check of `settings` into `report`. `None` when the settings do not say what to
/// serve (no product); `doctor` stops there.
pub async fn run(settings: &Settings, purpose: Purpose, report: &mut Report) -> Option<Ready> {
    match &settings.file {
        Ok(Some(path)) => report.ok("config file", path.display()),
        Ok(None) => report.ok("config file", "none (defaults, environment and flags)"),
        Err(e) => report.setting(e),
    }
    let s = settings.serve.as_ref()?;
    let products = match &s.products {
        Ok(p) => {
            let names: Vec<&str> = p.iter().map(|p| p.name).collect();
            report.ok("products", names.join(", "));
            p.clone()
        }
        Err(e) => {
            report.setting(e);
            return None;
        }
    };
    let mut ready = Ready {
        products: products.clone(),
        ..Ready::default()
    };
    if s.stdio {
        match s.transport() {
            Ok(()) => report.ok("transport", "stdio"),
            Err(e) => report.setting(&e),
        }
    }
    if let Some(listen) = &s.listen {
        ready.listener = listen_on(report, "listen address", &s.http, listen).await;
    }
    match &s.state_keys {
        Ok(Some(_)) => report.ok("requestState keys", "configured"),
        Ok(None) => report.ok(
            "requestState keys",
            "one random key per process (fine for one instance; share keys between several)",
        ),
        Err(e) => report.setting(e),
    }
    match &s.selection {
        Ok(spec) if spec.names_nothing() => report.ok(
            "tool selection",
            "every tool (a client naming none gets each product's default toolsets)",
        ),
        // Under `serve all`, what each product makes of the names, as the ceilings apply them.
        Ok(spec) if products.len() > 1 => {
            let each: Vec<String> = products
                .iter()
                .map(|p| format!("{}: {}", p.name, describe(&spec.for_product(p))))
                .collect();
            report.ok("tool selection", each.join(" | "))
        }
        Ok(spec) => report.ok("tool selection", describe(spec)),
        Err(e) => report.setting(e),
    }
    match &s.locale {
        Ok(Some(l)) => report.ok("locale", l),
        Ok(None) => report.ok("locale", "each product's own"),
        Err(e) => report.setting(e),
    }
    let limits = s.rate_limits;
    report.ok(
        "rate limits",
        format!(
            "{} reads, {} writes per identity, {} requests per IP, per {} s (0 = off)",
            limits.reads,
            limits.writes,
            limits.ip,
            limits.window.as_secs()
        ),
    );
    match &s.upstream_paths {
        Some(Ok(named)) if !named.is_empty() => report.ok(
            "upstream paths",
            format!(
                "{}: no published Kobana API; the upstream implements this project's paths (--upstream-serves)",
                named.join(", ")
            ),
        ),
        Some(Err(e)) => report.setting(e),
        _ => {}
    }
    match &s.upstream {
        Some(cfg) => match Upstream::new(cfg.clone()) {
            Ok(upstream) => {
                if purpose == Purpose::Doctor {
                    probe_upstream(report, &products, &upstream).await;
                } else {
                    report.ok("upstream", "configured");
                }
                report.ok("upstream connections", cfg.limits_text());
                ready.upstream = Some(upstream);
            }
            Err(e) => report.fail("upstream", e),
        },
        // Over stdio `serve` opens the sandbox on the first call; `doctor` opens it now.
        None if !s.stdio || purpose == Purpose::Doctor => {
            match Sandbox::open(&settings.served_sandbox(s)) {
                Ok(sb) => {
                    report.ok("sandbox", format!("{} opens", sb.db_path().display()));
                    ready.sandbox = Some(sb);
                }
                Err(e) => report.fail(
                    "sandbox",
                    format!("{} does not open: {e}", settings.data_dir.display()),
                ),
            }
        }
        None => {}
    }
    identities(report, s, &products, purpose, &mut ready).await;
    ledger(report, s, &mut ready).await;
    if let Some(addr) = &s.metrics_addr {
        let text = addr.as_ref().map(|a| a.to_string()).unwrap_or_default();
        ready.metrics_listener = listen_on(report, "metrics address", &text, addr).await;
    }
    let config = TelemetryConfig {
        otlp_endpoint: s.otlp_endpoint.clone(),
        otlp_interval: None,
        audit: s.audit.clone(),
    };
    match Telemetry::new(config) {
        Ok(t) => {
            report.ok(
                "telemetry",
                format!(
                    "audit {}, OTLP {}",
                    match &s.audit {
                        None => "off".to_string(),
                        Some(runtime::telemetry::AuditTarget::Stderr) => "on stderr".to_string(),
                        Some(runtime::telemetry::AuditTarget::File { path, .. }) =>
                            path.display().to_string(),
                    },
                    s.otlp_endpoint.as_deref().unwrap_or("off")
                ),
            );
            ready.telemetry = Some(t);
        }
        Err(e) => report.fail("telemetry", e),
    }
    Some(ready)
}

/// The operator's selection in words (`toolsets pix, billets; excluding x; read-only`).
fn describe(spec: &runtime_model::selection::SelectionSpec) -> String {
    let mut parts = Vec::new();
    if let Some(sets) = &spec.toolsets {
        parts.push(format!("toolsets {}", sets.join(", ")));
    }
    if let Some(tools) = &spec.tools {
        parts.push(format!("tools {}", tools.join(", ")));
    }
    if !spec.exclude_tools.is_empty() {
        parts.push(format!("excluding {}", spec.exclude_tools.join(", ")));
    }
    if spec.read_only {
        parts.push("read-only".to_string());
    }
    if parts.is_empty() {
        parts.push("every tool".to_string());
    }
    parts.join("; ")
}

/// Binds `addr`: the address is ours, or why not.
async fn listen_on(
    report: &mut Report,
    what: &str,
    text: &str,
    addr: &Result<std::net::SocketAddr, SettingsError>,
) -> Option<TcpListener> {
    match addr {
        Err(e) => {
            report.setting(e);
            None
        }
        Ok(addr) => {
            let shown = if *text == addr.to_string() {
                text.to_string()
            } else {
                format!("{text} ({addr})")
            };
            match TcpListener::bind(addr).await {
                Ok(l) => {
                    report.ok(what, shown);
                    Some(l)
                }
                Err(e) => {
                    report.fail(what, format!("cannot listen on {shown}: {e}"));
                    None
                }
            }
        }
    }
}

/// Proxy mode: each product's API answers HTTP (any status: the probe has no token).
async fn probe_upstream(report: &mut Report, products: &[&'static Product], upstream: &Upstream) {
    let client = match reqwest::Client::builder().timeout(PROBE_TIMEOUT).build() {
        Ok(c) => c,
        Err(e) => return report.fail("upstream", format!("cannot build an HTTP client: {e}")),
    };
    for p in products {
        let base = upstream.base_url(p);
        let what = format!("upstream {}", p.name);
        match client.get(&base).send().await {
            Ok(resp) => report.ok(
                &what,
                format!("{base} answers (HTTP {})", resp.status().as_u16()),
            ),
            Err(e) => report.fail(&what, format!("{base} unreachable: {e}")),
        }
    }
}

/// The token resolver (the identities file loads, or the identity service is configured), and
/// over stdio the caller: `KOBANA_ACCESS_TOKEN` must be a token the resolver knows (the
/// sandbox's default, `demo-full`, without one).
async fn identities(
    report: &mut Report,
    s: &ServeSettings,
    products: &[&'static Product],
    purpose: Purpose,
    ready: &mut Ready,
) {
    let auth = match &s.auth {
        Ok(a) => a,
        Err(e) => return report.setting(e),
    };
    let resolver: Arc<dyn Resolver> = match auth {
        Auth::Embedded { identities } => {
            let loaded = match identities {
                Some(p) => EmbeddedResolver::from_file(p, products),
                None => EmbeddedResolver::builtin(products),
            };
            let source = identities
                .as_ref()
                .map_or("the demo identities (built in)".to_string(), |p| {
                    p.display().to_string()
                });
            match loaded {
                Ok(res) => {
                    report.ok("identities", format!("{} tokens from {source}", res.len()));
                    Arc::new(res)
                }
                Err(e) => return report.fail("identities", format!("{source}: {e}")),
            }
        }
        Auth::Upstream => {
            let base = s
                .upstream
                .as_ref()
                .and_then(|u| u.base_url.clone())
                .map(|u| u.replace("{product}", products[0].name))
                .unwrap_or_else(|| products[0].api_base_url.to_string());
            let resolver = match UpstreamResolver::new(&base, products) {
                Ok(res) => Arc::new(res),
                Err(e) => return report.fail("identity service", e),
            };
            // Over stdio the caller's token is the probe (below); over HTTP `serve` reports the
            // identity service through /readyz, and `doctor` asks it now.
            if purpose == Purpose::Doctor && !s.stdio {
                probe_identity_service(report, resolver.as_ref(), &base, s).await;
            }
            ready.identity_base = Some(base);
            resolver
        }
    };
    if s.stdio {
        let sandbox = s.upstream.is_none();
        match resolve_stdio(resolver.as_ref(), &s.stdio_credentials, sandbox).await {
            Ok((who, notice)) => {
                report.ok(
                    "stdio caller",
                    format!(
                        "{} ({}){}",
                        who.identity.person,
                        who.identity.organization,
                        match (&notice, &s.stdio_credentials.token) {
                            (Some(_), None) => {
                                ", the sandbox's default: KOBANA_ACCESS_TOKEN is not set"
                            }
                            (Some(_), Some(_)) => {
                                ", from KOBANA_ACCESS_TOKEN without its `Bearer ` prefix"
                            }
                            (None, _) => "",
                        }
                    ),
                );
                ready.stdio_caller = Some((StdioCaller::Known(who), notice));
            }
            // The token is not to blame for a network failure: `serve` starts and asks again on
            // each call; `doctor` says the service is down.
            Err(StdioAuthError::Unreachable(why)) if purpose == Purpose::Serve => {
                match stdio_token(&s.stdio_credentials, sandbox) {
                    Ok((token, notice)) => {
                        report.ok(
                            "stdio caller",
                            format!("not known yet: the identity service is unreachable ({why}); each call asks it again"),
                        );
                        let pending = PendingCaller::new(
                            resolver.clone(),
                            token,
                            s.stdio_credentials.workspace.clone(),
                        );
                        ready.stdio_caller =
                            Some((StdioCaller::Pending(Arc::new(pending)), notice));
                    }
                    Err(e) => report.fail("stdio caller", e),
                }
            }
            Err(e) => report.fail("stdio caller", e),
        }
    }
    ready.resolver = Some(resolver);
}

/// `doctor` over HTTP: the identity service answers (the caller's token when there is one, else
/// a token it must refuse: 401 = it answers).
async fn probe_identity_service(
    report: &mut Report,
    resolver: &UpstreamResolver,
    base: &str,
    s: &ServeSettings,
) {
    let token = s.stdio_credentials.token.as_deref();
    let probe = token.unwrap_or("kobana-mcp-doctor-probe");
    let what = "identity service";
    match tokio::time::timeout(PROBE_TIMEOUT, resolver.resolve(probe)).await {
        Err(_) => report.fail(
            what,
            format!("{base}/v2/me did not answer within {PROBE_TIMEOUT:?}"),
        ),
        Ok(Ok(who)) => report.ok(
            what,
            format!(
                "{base}/v2/me knows KOBANA_ACCESS_TOKEN as {} ({})",
                who.person, who.organization
            ),
        ),
        Ok(Err(AuthError::Invalid)) if token.is_none() => report.ok(
            what,
            format!("{base}/v2/me answers (refuses a made-up token, as it should)"),
        ),
        Ok(Err(AuthError::Invalid)) => {
            report.fail(what, format!("{base}/v2/me refuses KOBANA_ACCESS_TOKEN"))
        }
        Ok(Err(e)) => report.fail(what, format!("{base}/v2/me: {e}")),
    }
}

/// The confirmation ledger: in memory, or a Redis that answers and keeps its keys (persistence
/// on, `noeviction`): one line per problem, each a failure unless `--allow-volatile-ledger`.
async fn ledger(report: &mut Report, s: &ServeSettings, ready: &mut Ready) {
    let setting = match &s.ledger {
        Ok(setting) => setting.as_deref(),
        Err(e) => return report.setting(e),
    };
    let built = match runtime::confirm::ledger_from_setting(setting) {
        Ok(l) => l,
        Err(e) => return report.fail("ledger", e),
    };
    let Some(url) = setting
        .map(str::trim)
        .filter(|s| s.starts_with("redis://") || s.starts_with("rediss://"))
    else {
        report.ok("ledger", "in memory (one instance; use Redis for several)");
        ready.ledger = Some(built);
        return;
    };
    let problems = match RedisLedger::new(url) {
        Ok(redis) => match redis.durability_problems().await {
            Ok(p) => p,
            Err(e) => vec![format!(
                "cannot verify that Redis keeps the ledger's keys ({e})"
            )],
        },
        Err(e) => return report.fail("ledger", e),
    };
    if problems.is_empty() {
        report.ok(
            "ledger",
            "Redis answers, with persistence (appendonly) and maxmemory-policy noeviction",
        );
    } else if s.allow_volatile_ledger {
        for p in &problems {
            report.ok(
                "ledger",
                format!("Redis {p} (allowed: --allow-volatile-ledger)"),
            );
        }
        ready.ledger_warnings = problems;
    } else {
        for p in problems {
            report.fail(
                "ledger",
                format!("Redis {p}; a lost key lets a used confirmation run again (README, \"Several instances\"), or start anyway with --allow-volatile-ledger / {ALLOW_VOLATILE_ENV}=1"),
            );
        }
    }
    ready.ledger = Some(built);
}

/// Serves `/metrics` alone on `listener` (bound by the checks) until the process ends.
pub(crate) fn serve_metrics(
    listener: tokio::net::TcpListener,
    telemetry: runtime::telemetry::Telemetry,
) -> anyhow::Result<()> {
    tracing::info!(addr = %listener.local_addr()?, "serving Prometheus /metrics");
    let app = runtime::transport::health::metrics_router(telemetry);
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "metrics listener stopped");
        }
    });
    Ok(())
}

/// Exports what is pending and stops the exporters (off the async runtime: the SDK blocks).
pub(crate) async fn stop_telemetry(telemetry: runtime::telemetry::Telemetry) {
    let _ = tokio::task::spawn_blocking(move || telemetry.shutdown()).await;
}

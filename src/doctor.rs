//! `kobana-mcp doctor`: checks what `serve` would use, with the same flags, environment and
//! config file, and says what is wrong in one line each: the configuration, the upstream API (or
//! the sandbox), the identity service and the confirmation ledger (reachable, and on Redis with
//! persistence and `noeviction`, as `serve` requires). Exit code 1 when any check fails.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use runtime::auth::{AuthError, EmbeddedResolver, Resolver, UpstreamResolver};
use runtime::backend::{Upstream, UpstreamConfig};
use runtime_model::catalog::Product;
use runtime_sandbox::{Sandbox, SandboxConfig};

use crate::config::FileConfig;
use crate::{parse_addr, select_products, Cli, ServeArgs, DEFAULT_HTTP};

/// How long a probe of the upstream or the identity service may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The report: one line per check.
#[derive(Default)]
struct Report {
    failed: usize,
}

impl Report {
    fn ok(&mut self, what: &str, detail: impl std::fmt::Display) {
        println!("ok    {what}: {detail}");
    }
    fn fail(&mut self, what: &str, detail: impl std::fmt::Display) {
        self.failed += 1;
        println!("FAIL  {what}: {}", one_line(&detail.to_string()));
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

/// Runs every check; `true` when all passed.
pub async fn run(args: &ServeArgs, cli: &Cli) -> bool {
    let mut r = Report::default();
    let file = match FileConfig::load(cli.config.as_deref()) {
        Ok(f) => {
            match &cli.config {
                Some(p) => r.ok("config file", p.display()),
                None if std::path::Path::new("kobana-mcp.toml").exists() => {
                    r.ok("config file", "./kobana-mcp.toml")
                }
                None => r.ok("config file", "none (defaults, environment and flags)"),
            }
            f
        }
        Err(e) => {
            r.fail("config file", format!("{e:#}"));
            FileConfig::default()
        }
    };
    let products = match select_products(std::slice::from_ref(&args.product)) {
        Ok(p) => {
            let names: Vec<&str> = p.iter().map(|p| p.name).collect();
            r.ok("products", names.join(", "));
            p
        }
        Err(e) => {
            r.fail("products", e);
            return summary(r);
        }
    };
    if args.transport.stdio {
        if products.len() > 1 {
            r.fail(
                "transport",
                "--stdio serves one product; name it instead of `all`",
            );
        } else {
            r.ok("transport", "stdio");
        }
    } else {
        let http = args
            .transport
            .http
            .clone()
            .or(file.serve.http.clone())
            .unwrap_or_else(|| DEFAULT_HTTP.to_string());
        match parse_addr(&http) {
            Ok(addr) => r.ok("listen address", format!("{http} ({addr})")),
            Err(e) => r.fail("listen address", format!("{e:#}")),
        }
    }
    match args.state_keys.clone().or(file.serve.state_keys.clone()) {
        Some(spec) if !spec.trim().is_empty() => {
            match runtime::state::StateSealer::from_spec(&spec) {
                Ok(_) => r.ok("requestState keys", "configured"),
                Err(e) => r.fail(
                    "requestState keys",
                    format!("(--state-keys / KOBANA_STATE_KEYS / serve.state_keys) {e}"),
                ),
            }
        }
        _ => r.ok(
            "requestState keys",
            "one random key per process (fine for one instance; share keys between several)",
        ),
    }
    let limits = args.access.rate_limits(&file.access);
    r.ok(
        "rate limits",
        format!(
            "{} reads, {} writes per identity, {} requests per IP, per {} s (0 = off)",
            limits.reads,
            limits.writes,
            limits.ip,
            limits.window.as_secs()
        ),
    );

    let upstream_url = args.upstream.clone().or(file.upstream.url.clone());
    let proxy = upstream_url.is_some() || !file.upstream.products.is_empty();
    if proxy {
        check_upstream(&mut r, &products, upstream_url.clone(), &file).await;
    } else {
        check_sandbox(&mut r, cli, &file);
    }
    check_identities(&mut r, args, &file, &products, proxy, upstream_url).await;
    check_ledger(&mut r, args, &file).await;
    summary(r)
}

fn summary(r: Report) -> bool {
    if r.failed == 0 {
        println!("all checks passed");
        true
    } else {
        println!("{} check(s) failed", r.failed);
        false
    }
}

/// Proxy mode: each product's API answers HTTP (any status: the probe has no token).
async fn check_upstream(
    r: &mut Report,
    products: &[&'static Product],
    url: Option<String>,
    file: &FileConfig,
) {
    let cfg = UpstreamConfig {
        base_url: url,
        product_base_urls: file.upstream.products.clone(),
        ..UpstreamConfig::default()
    };
    let upstream = match Upstream::new(cfg) {
        Ok(u) => u,
        Err(e) => return r.fail("upstream", e),
    };
    let client = match reqwest::Client::builder().timeout(PROBE_TIMEOUT).build() {
        Ok(c) => c,
        Err(e) => return r.fail("upstream", format!("cannot build an HTTP client: {e}")),
    };
    for p in products {
        let base = upstream.base_url(p);
        let what = format!("upstream {}", p.name);
        match client.get(&base).send().await {
            Ok(resp) => r.ok(
                &what,
                format!("{base} answers (HTTP {})", resp.status().as_u16()),
            ),
            Err(e) => r.fail(&what, format!("{base} unreachable: {e}")),
        }
    }
}

/// Sandbox mode: the data directory opens (created and seeded on first use).
fn check_sandbox(r: &mut Report, cli: &Cli, file: &FileConfig) {
    let dir: PathBuf = cli
        .data_dir
        .clone()
        .or(file.data_dir.clone())
        .unwrap_or_else(runtime_sandbox::default_data_dir);
    let mut cfg = SandboxConfig::new(&dir);
    cfg.seed = cli
        .seed
        .or(file.seed)
        .unwrap_or(runtime_sandbox::DEFAULT_SEED);
    match Sandbox::open(&cfg) {
        Ok(sb) => r.ok("sandbox", format!("{} opens", sb.db_path().display())),
        Err(e) => r.fail("sandbox", format!("{} does not open: {e}", dir.display())),
    }
}

/// The token resolver: the identities file loads, or the identity service answers.
async fn check_identities(
    r: &mut Report,
    args: &ServeArgs,
    file: &FileConfig,
    products: &[&'static Product],
    proxy: bool,
    upstream_url: Option<String>,
) {
    let kind = args
        .auth
        .clone()
        .or(file.serve.auth.clone())
        .unwrap_or_else(|| if proxy { "upstream" } else { "embedded" }.to_string());
    match kind.as_str() {
        "embedded" => {
            let path = args.identities.clone().or(file.serve.identities.clone());
            let loaded = match &path {
                Some(p) => EmbeddedResolver::from_file(p, products),
                None => EmbeddedResolver::builtin(products),
            };
            let source = path
                .as_ref()
                .map_or("the demo identities (built in)".to_string(), |p| {
                    p.display().to_string()
                });
            match loaded {
                Ok(res) => r.ok("identities", format!("{} tokens from {source}", res.len())),
                Err(e) => r.fail("identities", format!("{source}: {e}")),
            }
        }
        "upstream" => {
            let base = upstream_url
                .map(|u| u.replace("{product}", products[0].name))
                .unwrap_or_else(|| products[0].api_base_url.to_string());
            let resolver = match UpstreamResolver::new(&base, products) {
                Ok(res) => Arc::new(res),
                Err(e) => return r.fail("identity service", e),
            };
            // The caller's token when there is one; else a token it must refuse (401 = it answers).
            let token = runtime::auth::stdio::StdioCredentials::from_env().token;
            let probe = token.as_deref().unwrap_or("kobana-mcp-doctor-probe");
            let what = "identity service";
            match tokio::time::timeout(PROBE_TIMEOUT, resolver.resolve(probe)).await {
                Err(_) => r.fail(
                    what,
                    format!("{base}/v2/me did not answer within {PROBE_TIMEOUT:?}"),
                ),
                Ok(Ok(who)) => r.ok(
                    what,
                    format!(
                        "{base}/v2/me knows KOBANA_ACCESS_TOKEN as {} ({})",
                        who.person, who.organization
                    ),
                ),
                Ok(Err(AuthError::Invalid)) if token.is_none() => r.ok(
                    what,
                    format!("{base}/v2/me answers (refuses a made-up token, as it should)"),
                ),
                Ok(Err(AuthError::Invalid)) => {
                    r.fail(what, format!("{base}/v2/me refuses KOBANA_ACCESS_TOKEN"))
                }
                Ok(Err(e)) => r.fail(what, format!("{base}/v2/me: {e}")),
            }
        }
        other => r.fail(
            "identities",
            format!("--auth must be `embedded` or `upstream`, not `{other}`"),
        ),
    }
}

/// The confirmation ledger: in memory, or a Redis that answers and keeps its keys.
async fn check_ledger(r: &mut Report, args: &ServeArgs, file: &FileConfig) {
    let setting = crate::ledger_setting(args, file);
    if let Err(e) = runtime::confirm::ledger_from_setting(setting.as_deref()) {
        return r.fail(
            "ledger",
            format!("(--ledger / KOBANA_LEDGER / serve.ledger) {e}"),
        );
    }
    let Some(url) = setting
        .as_deref()
        .map(str::trim)
        .filter(|s| s.starts_with("redis://") || s.starts_with("rediss://"))
    else {
        return r.ok("ledger", "in memory (one instance; use Redis for several)");
    };
    let ledger = match runtime::confirm::RedisLedger::new(url) {
        Ok(l) => l,
        Err(e) => return r.fail("ledger", e),
    };
    if let Err(e) = ledger.check().await {
        return r.fail("ledger", e);
    }
    match ledger.durability_problems().await {
        Ok(problems) if problems.is_empty() => r.ok(
            "ledger",
            "Redis answers, with persistence (appendonly) and maxmemory-policy noeviction",
        ),
        Ok(problems) => {
            for p in problems {
                r.fail("ledger", format!("Redis {p}"));
            }
        }
        Err(e) => r.fail(
            "ledger",
            format!("cannot read the Redis configuration: {e}"),
        ),
    }
}

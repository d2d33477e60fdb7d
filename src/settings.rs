//! Every setting of `serve`, `doctor` and `sandbox`, resolved once: flags > environment variables
//! > the config file (read once) > defaults, as `config.rs` and `kobana-mcp.example.toml` say.
//!
//! This is the only reader of [`FileConfig`]'s fields. Before it, `serve` and `doctor` each merged
//! the sources themselves and drifted apart (`doctor` passed setups `serve` refused). A value that
//! does not validate keeps its error, naming where it came from (`--toolsets`, `KOBANA_TOOLSETS`
//! or `config file kobana-mcp.toml: serve.toolsets`); `serve` stops at the first, `doctor`
//! reports them all (through [`crate::preflight`], which both run).

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches};
use runtime::auth::stdio::StdioCredentials;
use runtime::backend::UpstreamConfig;
use runtime::limits::RateLimits;
use runtime::state::StateSealer;
use runtime::telemetry::AuditTarget;
use runtime_model::catalog::Product;
use runtime_model::locale::Locale;
use runtime_model::selection::{Ceiling, SelectionError, SelectionSpec};

use crate::cli::{Cli, Command, LimitArgs, ServeArgs};
use crate::config::FileConfig;

/// The default HTTP address of `serve`.
pub const DEFAULT_HTTP: &str = "127.0.0.1:8080";

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A flag (`--toolsets`) or the positional argument (`PRODUCT`).
    Flag(String),
    /// An environment variable.
    Env(String),
    /// A key of the config file, as a dotted path (`serve.toolsets`).
    File { path: PathBuf, key: &'static str },
    /// No source named it.
    Default,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Flag(name) | Origin::Env(name) => f.write_str(name),
            Origin::File { path, key } => write!(f, "config file {}: {key}", path.display()),
            Origin::Default => f.write_str("default"),
        }
    }
}

/// A setting that cannot be used: which check it belongs to (`doctor`'s line), where the value
/// came from, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsError {
    /// The check (`tool selection`, `listen address`…).
    pub what: &'static str,
    pub origin: Origin,
    pub message: String,
}

impl SettingsError {
    fn new(what: &'static str, origin: &Origin, message: impl std::fmt::Display) -> Self {
        SettingsError {
            what,
            origin: origin.clone(),
            message: message.to_string(),
        }
    }

    /// What `doctor` prints after `FAIL  {what}: `.
    pub fn detail(&self) -> String {
        match self.origin {
            Origin::Default => self.message.clone(),
            _ => format!("{}: {}", self.origin, self.message),
        }
    }
}

impl std::fmt::Display for SettingsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.what, self.detail())
    }
}

impl std::error::Error for SettingsError {}

/// The parsed command line, with clap's record of where each value came from (a flag or its
/// environment variable), so an error names the one the operator set.
pub struct Inputs {
    pub cli: Cli,
    matches: ArgMatches,
    command: clap::Command,
}

impl Inputs {
    /// The process's arguments; exits with clap's message when they do not parse.
    pub fn parse() -> Self {
        Self::try_parse_from(std::env::args_os()).unwrap_or_else(|e| e.exit())
    }

    pub fn try_parse_from<I, T>(args: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let command = Cli::command();
        let matches = command.clone().try_get_matches_from(args)?;
        let cli = Cli::from_arg_matches(&matches)?;
        Ok(Inputs {
            cli,
            matches,
            command,
        })
    }

    /// The origin of the value clap gave argument `id` (a field name), when a flag or a variable
    /// set it; `None` when it is clap's default or unset (the file or our default then decide).
    fn origin(&self, id: &str) -> Option<Origin> {
        let (matches, command) = match self.matches.subcommand() {
            Some((name, sub)) if sub.try_contains_id(id).unwrap_or(false) => {
                (sub, self.command.find_subcommand(name)?)
            }
            _ => (&self.matches, &self.command),
        };
        let arg = command.get_arguments().find(|a| a.get_id() == id)?;
        match matches.value_source(id)? {
            ValueSource::CommandLine => Some(Origin::Flag(match arg.get_long() {
                Some(long) => format!("--{long}"),
                None => arg.get_id().as_str().to_uppercase(),
            })),
            ValueSource::EnvVariable => {
                Some(Origin::Env(arg.get_env()?.to_string_lossy().into_owned()))
            }
            _ => None,
        }
    }
}

/// Picks a value: the flag's or variable's, else the file's key, else none.
fn pick<T: Clone>(
    inputs: &Inputs,
    id: &str,
    flag: &Option<T>,
    file: &Loaded,
    key: &'static str,
    value: &Option<T>,
) -> Option<(T, Origin)> {
    match (flag, value) {
        (Some(v), _) => Some((v.clone(), inputs.origin(id).unwrap_or(Origin::Default))),
        (None, Some(v)) => Some((v.clone(), file.origin(key))),
        (None, None) => None,
    }
}

/// The config file, read once.
struct Loaded {
    config: FileConfig,
    /// The file read (`None`: there was none, or it did not load).
    path: Option<PathBuf>,
}

impl Loaded {
    fn origin(&self, key: &'static str) -> Origin {
        Origin::File {
            path: self
                .path
                .clone()
                .unwrap_or_else(|| PathBuf::from("kobana-mcp.toml")),
            key,
        }
    }
}

/// Every setting of a run.
pub struct Settings {
    /// The config file read (`Ok(None)`: none, defaults, environment and flags only). When it
    /// does not load, `doctor` reports it and checks the rest as if there were none.
    pub file: Result<Option<PathBuf>, SettingsError>,
    pub data_dir: PathBuf,
    pub seed: u64,
    /// `serve`'s and `doctor`'s settings (`None` for the other subcommands).
    pub serve: Option<ServeSettings>,
}

/// What `serve` runs with. A field holding a `Result` is one that can be wrong; `doctor`
/// reports each, `serve` refuses the first ([`Settings::resolve`]).
pub struct ServeSettings {
    pub products: Result<Vec<&'static Product>, SettingsError>,
    pub stdio: bool,
    /// The HTTP listen address as written (the default public URL uses it), and parsed (`None`
    /// over stdio: it is not used).
    pub http: String,
    pub listen: Option<Result<SocketAddr, SettingsError>>,
    /// The externally visible base URL, when one was configured.
    pub public_url: Option<String>,
    /// Proxy mode: the upstream (`None`: the embedded sandbox).
    pub upstream: Option<UpstreamConfig>,
    /// Proxy mode: the served products without a published Kobana API that the operator says
    /// the upstream implements (`--upstream-serves`), or the refusal naming those it does not
    /// say so of. `None`: the embedded sandbox.
    pub upstream_paths: Option<Result<Vec<&'static str>, SettingsError>>,
    pub auth: Result<Auth, SettingsError>,
    /// The stdio caller (`KOBANA_ACCESS_TOKEN`, `KOBANA_WORKSPACE_ID`).
    pub stdio_credentials: StdioCredentials,
    pub allowed_origins: Vec<String>,
    pub allowed_hosts: Vec<String>,
    pub authorization_servers: Vec<String>,
    /// The ledger setting (`None`: in memory), and whether it parses.
    pub ledger: Result<Option<String>, SettingsError>,
    pub allow_volatile_ledger: bool,
    /// `None`: one random key per process.
    pub state_keys: Result<Option<StateSealer>, SettingsError>,
    pub locale: Result<Option<Locale>, SettingsError>,
    /// The operator's selection, its names checked against the products served.
    pub selection: Result<SelectionSpec, SettingsError>,
    pub result_budget_tokens: Option<usize>,
    pub rate_limits: RateLimits,
    pub scope_challenge: bool,
    pub trust_proxy_headers: bool,
    pub metrics_addr: Option<Result<SocketAddr, SettingsError>>,
    pub otlp_endpoint: Option<String>,
    pub audit: Option<AuditTarget>,
    pub idempotency_window: Duration,
    pub sandbox_task_delay: Duration,
    pub task_ttl: Duration,
    pub task_follow: Duration,
    pub limits: LimitArgs,
}

/// The token resolver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    /// The embedded resolver: this identities file, or the demo identities.
    Embedded { identities: Option<PathBuf> },
    /// The identity service of the upstream (`/v2/me`).
    Upstream,
}

impl Settings {
    /// The settings of this run, or the first that cannot be used (in `doctor`'s order).
    pub fn resolve(inputs: &Inputs) -> Result<Settings, SettingsError> {
        let settings = Self::resolve_all(inputs);
        match settings.first_problem() {
            Some(e) => Err(e),
            None => Ok(settings),
        }
    }

    /// The settings of this run, each wrong one holding its error (for `doctor`).
    pub fn resolve_all(inputs: &Inputs) -> Settings {
        let cli = &inputs.cli;
        let (loaded, file) = match FileConfig::load(cli.config.as_deref()) {
            Ok((config, path)) => (
                Loaded {
                    config,
                    path: path.clone(),
                },
                Ok(path),
            ),
            Err(e) => (
                Loaded {
                    config: FileConfig::default(),
                    path: None,
                },
                // The message names the file.
                Err(SettingsError::new(
                    "config file",
                    &Origin::Default,
                    format!("{e:#}"),
                )),
            ),
        };
        let data_dir = cli
            .data_dir
            .clone()
            .or(loaded.config.data_dir.clone())
            .unwrap_or_else(runtime_sandbox::default_data_dir);
        let seed = cli
            .seed
            .or(loaded.config.seed)
            .unwrap_or(runtime_sandbox::DEFAULT_SEED);
        let serve = match &cli.command {
            Command::Serve(args) | Command::Doctor(args) => {
                Some(ServeSettings::resolve(inputs, args, &loaded))
            }
            _ => None,
        };
        Settings {
            file,
            data_dir,
            seed,
            serve,
        }
    }

    fn first_problem(&self) -> Option<SettingsError> {
        if let Err(e) = &self.file {
            return Some(e.clone());
        }
        self.serve.as_ref().and_then(ServeSettings::first_problem)
    }

    /// The sandbox's configuration (data directory and seed).
    pub fn sandbox(&self) -> runtime_sandbox::SandboxConfig {
        let mut cfg = runtime_sandbox::SandboxConfig::new(&self.data_dir);
        cfg.seed = self.seed;
        cfg
    }

    /// The sandbox `serve` runs on: links signed for its public URL, tasks working as long as
    /// configured.
    pub fn served_sandbox(&self, s: &ServeSettings) -> runtime_sandbox::SandboxConfig {
        let mut cfg = self.sandbox();
        cfg.public_url = s.public_url_or_default();
        cfg.task_delay = s.sandbox_task_delay;
        cfg
    }
}

impl ServeSettings {
    fn resolve(inputs: &Inputs, args: &ServeArgs, file: &Loaded) -> ServeSettings {
        let serve = &file.config.serve;
        let product_origin = inputs
            .origin("product")
            .unwrap_or(Origin::Flag("PRODUCT".into()));
        let products = crate::cli::select_products(std::slice::from_ref(&args.product))
            .map_err(|e| SettingsError::new("products", &product_origin, e));
        let stdio = args.transport.stdio;
        let (http, http_origin) = pick(
            inputs,
            "http",
            &args.transport.http,
            file,
            "serve.http",
            &serve.http,
        )
        .unwrap_or_else(|| (DEFAULT_HTTP.to_string(), Origin::Default));
        let listen = (!stdio).then(|| {
            crate::cli::parse_addr(&http)
                .map_err(|e| SettingsError::new("listen address", &http_origin, format!("{e:#}")))
        });
        let public_url = args.public_url.clone().or(serve.public_url.clone());

        // An empty value (a desktop bundle's cleared "API URL" setting) means no upstream: the
        // embedded sandbox, as when the variable is unset.
        let upstream_url = args
            .upstream
            .clone()
            .filter(|u| !u.trim().is_empty())
            .or(file.config.upstream.url.clone());
        let proxy = upstream_url.is_some() || !file.config.upstream.products.is_empty();
        let upstream = proxy.then(|| {
            let mut cfg = UpstreamConfig {
                base_url: upstream_url.clone(),
                product_base_urls: file.config.upstream.products.clone(),
                ..UpstreamConfig::default()
            };
            if let Some(ms) = args.upstream_timeout_ms.or(file.config.upstream.timeout_ms) {
                cfg.timeout = Duration::from_millis(ms);
            }
            if let Some(n) = file.config.upstream.max_attempts {
                cfg.max_attempts = n;
            }
            cfg.retry_keyed_writes = args.upstream_retry_keyed_writes;
            if let Some(n) = args
                .upstream_max_connections
                .or(file.config.upstream.max_connections)
            {
                cfg.max_connections = n;
            }
            if let Some(n) = args
                .upstream_max_per_tool
                .or(file.config.upstream.max_per_tool)
            {
                cfg.max_per_tool = n;
            }
            cfg
        });

        let upstream_origin = match (&args.upstream, &file.config.upstream.url) {
            (Some(u), _) if !u.trim().is_empty() => {
                inputs.origin("upstream").unwrap_or(Origin::Default)
            }
            (_, Some(_)) => file.origin("upstream.url"),
            _ => file.origin("upstream.products"),
        };

        let auth = match pick(inputs, "auth", &args.auth, file, "serve.auth", &serve.auth) {
            None if proxy => Ok(Auth::Upstream),
            None => Ok(Auth::Embedded { identities: None }),
            Some((kind, origin)) => match kind.as_str() {
                "embedded" => Ok(Auth::Embedded { identities: None }),
                "upstream" => Ok(Auth::Upstream),
                other => Err(SettingsError::new(
                    "identities",
                    &origin,
                    format!("must be `embedded` or `upstream`, not `{other}`"),
                )),
            },
        }
        .map(|auth| match auth {
            Auth::Embedded { .. } => Auth::Embedded {
                identities: args.identities.clone().or(serve.identities.clone()),
            },
            other => other,
        });

        let ledger = match pick(
            inputs,
            "ledger",
            &args.ledger,
            file,
            "serve.ledger",
            &serve.ledger,
        ) {
            None => Ok(None),
            Some((setting, origin)) => runtime::confirm::ledger_from_setting(Some(&setting))
                .map(|_| Some(setting))
                .map_err(|e| SettingsError::new("ledger", &origin, e)),
        };
        let state_keys = match pick(
            inputs,
            "state_keys",
            &args.state_keys,
            file,
            "serve.state_keys",
            &serve.state_keys,
        ) {
            Some((spec, origin)) if !spec.trim().is_empty() => StateSealer::from_spec(&spec)
                .map(Some)
                .map_err(|e| SettingsError::new("requestState keys", &origin, e)),
            _ => Ok(None),
        };
        let locale = match pick(
            inputs,
            "locale",
            &args.locale,
            file,
            "serve.locale",
            &serve.locale,
        ) {
            Some((s, origin)) if !s.trim().is_empty() => {
                Locale::negotiate(s.trim()).map(Some).ok_or_else(|| {
                    SettingsError::new(
                        "locale",
                        &origin,
                        format!("{:?} is none of pt-BR, es, en", s.trim()),
                    )
                })
            }
            _ => Ok(None),
        };
        let upstream_paths = proxy.then(|| match &products {
            Ok(products) => upstream_paths(inputs, args, file, products, &upstream_origin, &locale),
            // Nothing proxied to check; `products` reports why.
            Err(_) => Ok(Vec::new()),
        });
        let selection = match &products {
            Ok(products) => selection(inputs, args, file, products),
            // Nothing to check the names against; `products` reports why.
            Err(_) => Ok(SelectionSpec::default()),
        };

        let access = &file.config.access;
        let d = RateLimits::default();
        let a = &args.access;
        let rate_limits = RateLimits {
            reads: a
                .rate_limit_reads
                .or(access.rate_limit_reads)
                .unwrap_or(d.reads),
            writes: a
                .rate_limit_writes
                .or(access.rate_limit_writes)
                .unwrap_or(d.writes),
            ip: a.rate_limit_ip.or(access.rate_limit_ip).unwrap_or(d.ip),
            window: a
                .rate_limit_window_secs
                .or(access.rate_limit_window_secs)
                .map(Duration::from_secs)
                .unwrap_or(d.window)
                .max(Duration::from_secs(1)),
        };

        let tel = &file.config.telemetry;
        let t = &args.telemetry;
        let metrics_addr = pick(
            inputs,
            "metrics_addr",
            &t.metrics_addr,
            file,
            "telemetry.metrics_addr",
            &tel.metrics_addr,
        )
        .map(|(addr, origin)| {
            crate::cli::parse_addr(&addr)
                .map_err(|e| SettingsError::new("metrics address", &origin, format!("{e:#}")))
        });
        let audit = match t.audit_file.clone().or(tel.audit_file.clone()) {
            Some(path) if !t.audit_stderr => Some(AuditTarget::File {
                path,
                max_bytes: t
                    .audit_max_bytes
                    .or(tel.audit_max_bytes)
                    .unwrap_or(runtime::telemetry::audit::DEFAULT_MAX_BYTES),
                keep: t
                    .audit_keep
                    .or(tel.audit_keep)
                    .unwrap_or(runtime::telemetry::audit::DEFAULT_KEEP),
            }),
            _ if t.audit_stderr || tel.audit_stderr => Some(AuditTarget::Stderr),
            _ => None,
        };

        ServeSettings {
            products,
            stdio,
            http,
            listen,
            public_url,
            upstream,
            upstream_paths,
            auth,
            stdio_credentials: StdioCredentials::from_env(),
            allowed_origins: args
                .allowed_origins
                .iter()
                .chain(serve.allowed_origins.iter())
                .cloned()
                .collect(),
            allowed_hosts: serve.allowed_hosts.clone(),
            authorization_servers: serve.authorization_servers.clone(),
            ledger,
            allow_volatile_ledger: args.allow_volatile_ledger,
            state_keys,
            locale,
            selection,
            result_budget_tokens: args.result_budget_tokens.or(serve.result_budget_tokens),
            rate_limits,
            scope_challenge: a.scope_challenge || access.scope_challenge.unwrap_or(false),
            trust_proxy_headers: a.trust_proxy_headers
                || access.trust_proxy_headers.unwrap_or(false),
            metrics_addr,
            otlp_endpoint: t
                .otlp_endpoint
                .clone()
                .or(tel.otlp_endpoint.clone())
                .filter(|s| !s.trim().is_empty()),
            audit,
            idempotency_window: args
                .idempotency_window_secs
                .map(Duration::from_secs)
                .unwrap_or(runtime::confirm::idempotency::DEFAULT_WINDOW),
            sandbox_task_delay: Duration::from_millis(args.sandbox_task_delay_ms),
            task_ttl: Duration::from_secs(args.task_ttl_secs.max(1)),
            task_follow: Duration::from_secs(args.task_follow_secs),
            limits: args.limits.clone(),
        }
    }

    /// The first setting that cannot be used, in the order `doctor` reports them.
    fn first_problem(&self) -> Option<SettingsError> {
        let none = |r: Result<(), &SettingsError>| r.err().cloned();
        none(self.products.as_ref().map(|_| ()))
            .or_else(|| self.transport().err())
            .or_else(|| self.listen.as_ref().and_then(|l| l.as_ref().err().cloned()))
            .or_else(|| none(self.state_keys.as_ref().map(|_| ())))
            .or_else(|| none(self.selection.as_ref().map(|_| ())))
            .or_else(|| none(self.locale.as_ref().map(|_| ())))
            .or_else(|| {
                self.upstream_paths
                    .as_ref()
                    .and_then(|p| p.as_ref().err().cloned())
            })
            .or_else(|| none(self.auth.as_ref().map(|_| ())))
            .or_else(|| none(self.ledger.as_ref().map(|_| ())))
            .or_else(|| {
                self.metrics_addr
                    .as_ref()
                    .and_then(|m| m.as_ref().err().cloned())
            })
    }

    /// `--stdio` serves one product.
    pub fn transport(&self) -> Result<(), SettingsError> {
        match &self.products {
            Ok(p) if self.stdio && p.len() > 1 => Err(SettingsError::new(
                "transport",
                &Origin::Default,
                "--stdio serves one product; name it instead of `all`",
            )),
            _ => Ok(()),
        }
    }

    /// The externally visible base URL: the configured one, else `http://<listen address>`.
    pub fn public_url_or_default(&self) -> String {
        self.public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.http))
    }

    /// The ledger setting (`None`: in memory); also what the rate limits are shared through.
    pub fn ledger_setting(&self) -> Option<&str> {
        self.ledger.as_ref().ok().and_then(|s| s.as_deref())
    }
}

/// Proxy mode: the served products whose paths come from no published Kobana API
/// ([`Product::published_api`], from the catalog) must each be named by `--upstream-serves`
/// (`KOBANA_UPSTREAM_SERVES`, `upstream.serves`): the Kobana API would answer their calls 404, so
/// an operator pointing `--upstream` at it learns so at start, not from failed tool calls.
/// Returns those named; the refusal (in the `--locale` language, else English, the language of
/// the other start errors) names the products with a path each and the value that lets them
/// through.
fn upstream_paths(
    inputs: &Inputs,
    args: &ServeArgs,
    file: &Loaded,
    products: &[&'static Product],
    upstream_origin: &Origin,
    locale: &Result<Option<Locale>, SettingsError>,
) -> Result<Vec<&'static str>, SettingsError> {
    let declared = pick(
        inputs,
        "upstream_serves",
        &args.upstream_serves.as_deref().map(SelectionSpec::list),
        file,
        "upstream.serves",
        &file.config.upstream.serves,
    );
    let declared: Vec<&'static Product> = match &declared {
        Some((names, _)) if names.is_empty() => Vec::new(),
        Some((names, origin)) => crate::cli::select_products(names)
            .map_err(|e| SettingsError::new("upstream", origin, e))?,
        None => Vec::new(),
    };
    let (named, refused): (Vec<&'static Product>, Vec<&'static Product>) = products
        .iter()
        .copied()
        .filter(|p| !p.published_api)
        .partition(|p| declared.iter().any(|d| d.name == p.name));
    if refused.is_empty() {
        return Ok(named.iter().map(|p| p.name).collect());
    }
    let locale = locale
        .as_ref()
        .ok()
        .copied()
        .flatten()
        .unwrap_or(Locale::En);
    let each: Vec<String> = refused
        .iter()
        .map(|p| match path_example(p) {
            Some(path) => format!("{} ({path})", p.name),
            None => p.name.to_string(),
        })
        .collect();
    let list: Vec<&str> = named.iter().chain(&refused).map(|p| p.name).collect();
    let message = runtime_model::texts::Text::UpstreamUnpublishedApi.fill(
        locale,
        &[("products", &each.join(", ")), ("list", &list.join(","))],
    );
    Err(SettingsError::new("upstream", upstream_origin, message))
}

/// The first two segments of a product's first HTTP binding (`/v1/billing/…`): what its
/// paths look like, for the operator.
fn path_example(product: &Product) -> Option<String> {
    product.tools.iter().find_map(|t| match &t.binding {
        runtime_model::catalog::Binding::Http(h) => {
            let segments: Vec<&str> = h.path.split('/').filter(|s| !s.is_empty()).collect();
            (segments.len() >= 2).then(|| format!("/{}/{}/…", segments[0], segments[1]))
        }
        runtime_model::catalog::Binding::Extension(_) => None,
    })
}

/// The selection of `--toolsets`, `--tools`, `--exclude-tools`, `--read-only` and
/// `--discovery` (each flag or variable wins over its key), its names checked against the
/// products served; an unknown name is refused naming the source it came from.
fn selection(
    inputs: &Inputs,
    args: &ServeArgs,
    file: &Loaded,
    products: &[&'static Product],
) -> Result<SelectionSpec, SettingsError> {
    let s = &args.selection;
    let serve = &file.config.serve;
    let list = |id: &str, flag: &Option<String>, key: &'static str, value: &Option<Vec<String>>| {
        pick(
            inputs,
            id,
            &flag.as_deref().map(SelectionSpec::list),
            file,
            key,
            value,
        )
    };
    let toolsets = list("toolsets", &s.toolsets, "serve.toolsets", &serve.toolsets);
    let tools = list("tools", &s.tools, "serve.tools", &serve.tools);
    let exclude = list(
        "exclude_tools",
        &s.exclude_tools,
        "serve.exclude_tools",
        &serve.exclude_tools,
    );
    let mut spec = SelectionSpec {
        toolsets: toolsets.as_ref().map(|(v, _)| v.clone()),
        tools: tools.as_ref().map(|(v, _)| v.clone()),
        exclude_tools: exclude.as_ref().map(|(v, _)| v.clone()).unwrap_or_default(),
        read_only: s.read_only || serve.read_only.unwrap_or(false),
    };
    if s.discovery || serve.discovery.unwrap_or(false) {
        spec = spec.with_discovery();
    }
    match Ceiling::for_products(products, &spec) {
        Ok(_) => Ok(spec),
        Err(e) => {
            let origin = match &e {
                SelectionError::UnknownToolset { .. } => toolsets.map(|(_, o)| o),
                SelectionError::UnknownTool { name, .. } => match &tools {
                    Some((v, o)) if v.contains(name) => Some(o.clone()),
                    _ => exclude.map(|(_, o)| o),
                },
            };
            Err(SettingsError::new(
                "tool selection",
                &origin.unwrap_or(Origin::Default),
                e,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(args: &[&str]) -> Settings {
        let mut argv = vec!["kobana-mcp"];
        argv.extend_from_slice(args);
        Settings::resolve_all(&Inputs::try_parse_from(argv).unwrap())
    }

    fn write_config(text: &str) -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.toml");
        std::fs::write(&path, text).unwrap();
        let p = path.display().to_string();
        (dir, p)
    }

    #[test]
    fn an_unknown_toolset_names_the_flag_or_the_file_key() {
        let (_dir, cfg) = write_config("[serve]\ntoolsets = [\"bilets\"]\n");
        let s = resolve(&["--config", &cfg, "serve", "billing"]);
        let err = s.serve.unwrap().selection.unwrap_err();
        assert_eq!(err.what, "tool selection");
        assert!(
            err.detail().starts_with(&format!(
                "config file {cfg}: serve.toolsets: unknown toolset `bilets`"
            )),
            "{err}"
        );
        // The flag wins over the key, and is the one named.
        let s = resolve(&["--config", &cfg, "serve", "billing", "--toolsets", "nope"]);
        let err = s.serve.unwrap().selection.unwrap_err();
        assert!(
            err.detail()
                .starts_with("--toolsets: unknown toolset `nope`"),
            "{err}"
        );
        let s = resolve(&[
            "--config",
            &cfg,
            "serve",
            "billing",
            "--exclude-tools",
            "gone",
        ]);
        let err = s.serve.unwrap().selection.unwrap_err();
        assert!(err.detail().starts_with("config file"), "{err}");
    }

    #[test]
    fn flags_win_over_the_file_which_wins_over_defaults() {
        let (_dir, cfg) = write_config(
            "seed = 7\n[serve]\nhttp = \"127.0.0.1:9001\"\nledger = \"memory\"\n[upstream]\nurl = \"http://u/{product}\"\ntimeout_ms = 5\n[upstream.products]\nbanking = \"http://b\"\n[access]\nrate_limit_reads = 3\n",
        );
        let s = resolve(&[
            "--config",
            &cfg,
            "serve",
            "billing",
            "--http",
            "127.0.0.1:9002",
            "--rate-limit-writes",
            "4",
        ]);
        assert_eq!(s.seed, 7);
        let serve = s.serve.unwrap();
        assert_eq!(serve.http, "127.0.0.1:9002");
        assert_eq!(serve.public_url_or_default(), "http://127.0.0.1:9002");
        assert_eq!(serve.rate_limits.reads, 3);
        assert_eq!(serve.rate_limits.writes, 4);
        assert_eq!(serve.ledger_setting(), Some("memory"));
        let up = serve.upstream.as_ref().unwrap();
        assert_eq!(up.timeout, Duration::from_millis(5));
        assert_eq!(up.product_base_urls["banking"], "http://b");
        assert_eq!(serve.auth, Ok(Auth::Upstream));
    }

    /// The connection caps are settings like the others: defaults, the file's `[upstream]`
    /// keys, and flags over both.
    #[test]
    fn upstream_connection_caps_come_from_the_file_and_flags() {
        let (_dir, cfg) = write_config(
            "[upstream]\nurl = \"http://u/{product}\"\nmax_connections = 64\nmax_per_tool = 8\n",
        );
        let up = |extra: &[&str]| {
            let mut args = vec!["--config", cfg.as_str(), "serve", "billing"];
            args.extend_from_slice(extra);
            resolve(&args).serve.unwrap().upstream.unwrap()
        };
        let from_file = up(&[]);
        assert_eq!((from_file.max_connections, from_file.max_per_tool), (64, 8));
        let flagged = up(&["--upstream-max-per-tool", "0"]);
        assert_eq!((flagged.max_connections, flagged.max_per_tool), (64, 0));
        assert_eq!(
            flagged.limits_text(),
            "64 connections per API host, 64 per tool (a tool's calls beyond it wait; the others do not)"
        );
        let (_dir2, bare) = write_config("[upstream]\nurl = \"http://u\"\n");
        let defaults = resolve(&["--config", &bare, "serve", "billing"])
            .serve
            .unwrap()
            .upstream
            .unwrap();
        assert_eq!(
            (defaults.max_connections, defaults.max_per_tool),
            (1024, 512)
        );
    }

    #[test]
    fn a_config_file_that_does_not_load_is_one_error_naming_it() {
        let (_dir, cfg) = write_config("[serve]\nhtpp = 1\n");
        let inputs =
            Inputs::try_parse_from(["kobana-mcp", "--config", &cfg, "serve", "billing"]).unwrap();
        let err = Settings::resolve(&inputs).err().unwrap();
        assert_eq!(err.what, "config file");
        assert!(err.to_string().contains("htpp"), "{err}");
    }
}

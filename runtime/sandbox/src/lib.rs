//! The embedded sandbox: a SQLite store whose behaviour comes from the catalogs.
//!
//! [`Sandbox`] implements [`Backend`]: each tool's [`Operation`]
//! says what it does (list, get, create, update, delete, a declared action), so no code is
//! written per product. Records belong to the caller's organization and, for workspaced products,
//! to a workspace; a scope is seeded deterministically the first time it is used, so every
//! identity finds data on a fresh data directory.
//!
//! Shapes follow the Kobana API (see [`envelope`]): `/v2` paths answer `{status, data, …}`, other
//! paths the bare record or array. Tool results keep a numeric `id` as the API does; the resource
//! layer drops it with `runtime::backend::strip_numeric_id`.

pub mod api;
pub mod brazil;
pub mod clock;
pub mod coherence;
pub mod envelope;
pub mod files;
pub mod memory;
pub mod ops;
pub mod payment_codes;
pub mod rng;
pub mod seed;
pub mod store;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use runtime_model::backend::{Backend, BackendError, BoxFuture, CallContext, Output};
use runtime_model::catalog::{Operation, Product, Tool};
use runtime_model::locale::Locale;
use runtime_model::texts::Text;
use serde_json::{Map, Value};

pub use files::Files;
pub use store::{Scope, StoreError};

/// The seed used when none is configured.
pub const DEFAULT_SEED: u64 = 42;

/// Organization and workspace `sandbox seed` fills when no identity has used the sandbox yet.
pub const DEMO_ORGANIZATION: &str = "org_demo";
pub const DEMO_WORKSPACE: &str = "ws_demo_main";

#[derive(Debug, Clone)]
pub struct SandboxConfig {
    pub data_dir: PathBuf,
    pub seed: u64,
    /// Base URL signed download links point to (the server that mounts [`api::files_router`]).
    pub public_url: String,
    /// How long a tool the catalog marks `task:` (imports, batches, reports…) works before it
    /// answers, reporting progress four times on the way: the sandbox imitates the API's slow
    /// operations so a task's whole life (working, progress, cancel, result) can be tried
    /// without Kobana. Zero (the default of [`SandboxConfig::new`], for tests): at once; the CLI
    /// sets [`DEFAULT_TASK_DELAY`] unless told otherwise.
    pub task_delay: std::time::Duration,
}

/// The CLI's [`SandboxConfig::task_delay`] by default: long enough to see a task work and poll it.
pub const DEFAULT_TASK_DELAY: std::time::Duration = std::time::Duration::from_secs(3);

impl SandboxConfig {
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        SandboxConfig {
            data_dir: data_dir.into(),
            seed: DEFAULT_SEED,
            public_url: "http://127.0.0.1:8080".into(),
            task_delay: std::time::Duration::ZERO,
        }
    }
}

/// The per-user default data directory: `$XDG_DATA_HOME/kobana-mcp`, else on Windows
/// `%LOCALAPPDATA%\kobana-mcp`, else `~/.local/share/kobana-mcp`, else `./.kobana-mcp` when no
/// home is known.
///
/// Windows sets no `HOME`: without `%LOCALAPPDATA%` the directory was `.kobana-mcp` in whatever
/// directory the client started the server in. `%LOCALAPPDATA%` is in the user's profile, whose
/// access list lets in the user, SYSTEM and the administrators only, and a directory created in
/// it inherits that list: the owner-only promise that unix modes keep (0700, 0600) elsewhere.
pub fn default_data_dir() -> PathBuf {
    data_dir_from_env(|name| std::env::var_os(name), cfg!(windows))
}

/// [`default_data_dir`] from the variables `var` reads, on Windows (`windows`) or elsewhere.
fn data_dir_from_env(var: impl Fn(&str) -> Option<std::ffi::OsString>, windows: bool) -> PathBuf {
    let set = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(x) = set("XDG_DATA_HOME") {
        return x.join("kobana-mcp");
    }
    if let Some(local) = set("LOCALAPPDATA").filter(|_| windows) {
        return local.join("kobana-mcp");
    }
    if let Some(h) = set("HOME") {
        return h.join(".local/share/kobana-mcp");
    }
    PathBuf::from(".kobana-mcp")
}

struct Inner {
    store: store::Store,
    seed: u64,
    files: Files,
    /// Scopes known to be seeded (saves a query per call).
    seeded: Mutex<HashSet<Scope>>,
    task_delay: std::time::Duration,
    /// One permit per store connection ([`store::Store::lanes`]), taken before a call goes to a
    /// blocking thread: under 32 connections, unbounded calls kept ~40 blocking threads alive,
    /// each waiting for one of a few connections and each holding its own allocator memory.
    lanes: Arc<tokio::sync::Semaphore>,
}

/// The SQLite sandbox backend. Cheap to clone (shared state).
#[derive(Clone)]
pub struct Sandbox {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("db", &self.inner.store.path())
            .finish_non_exhaustive()
    }
}

/// A key shared by every process using the data directory (serve and serve-api), created once.
fn signing_key(dir: &Path) -> Result<Vec<u8>, StoreError> {
    let path = dir.join("signing.key");
    match std::fs::read(&path) {
        Ok(k) if k.len() >= 32 => return Ok(k),
        // Too short to use: replaced, as before.
        Ok(_) => {
            let _ = std::fs::remove_file(&path);
        }
        Err(_) => {}
    }
    let mut key = vec![0u8; 32];
    let random = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut key));
    if random.is_err() {
        let mut r = rng::Rng::derived(
            time::OffsetDateTime::now_utc().unix_timestamp_nanos() as u64,
            &format!("{}", std::process::id()),
        );
        key.iter_mut().for_each(|b| *b = r.next_u64() as u8);
    }
    // Written whole beside it and linked into place, readable by its owner only (anyone who
    // reads it can sign download links). Should another process link its key first, that key
    // is the directory's.
    let building = dir.join(format!(".signing.key.new-{}", std::process::id()));
    let _ = std::fs::remove_file(&building);
    let placed = store::create_private_file(&building)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &key))
        .and_then(|()| std::fs::hard_link(&building, &path));
    let _ = std::fs::remove_file(&building);
    match placed {
        Ok(()) => Ok(key),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::read(&path).map_err(|source| StoreError::Dir { path, source })
        }
        Err(source) => Err(StoreError::Dir { path, source }),
    }
}

impl Sandbox {
    /// Opens (or creates) the sandbox in `config.data_dir`.
    pub fn open(config: &SandboxConfig) -> Result<Sandbox, StoreError> {
        let store = store::Store::open(&config.data_dir)?;
        let key = signing_key(&config.data_dir)?;
        Ok(Sandbox {
            inner: Arc::new(Inner {
                seed: config.seed,
                files: Files::new(key, config.public_url.clone()),
                seeded: Mutex::new(HashSet::new()),
                task_delay: config.task_delay,
                lanes: Arc::new(tokio::sync::Semaphore::new(store.lanes())),
                store,
            }),
        })
    }

    /// Runs `f` (store work) on a blocking thread once a store lane is free, so that the
    /// threads working on the store at once never outnumber its connections.
    pub(crate) async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, tokio::task::JoinError> {
        // The semaphore is never closed, so acquiring fails only if it were; run anyway then.
        let permit = self.inner.lanes.clone().acquire_owned().await.ok();
        tokio::task::spawn_blocking(move || {
            let out = f();
            drop(permit);
            out
        })
        .await
    }

    pub fn files(&self) -> &Files {
        &self.inner.files
    }

    pub fn db_path(&self) -> &Path {
        self.inner.store.path()
    }

    /// Whether the sandbox's storage can take a write now (readiness): the database is there and
    /// a page written and synced beside it lands. A full disk or a data directory gone read-only
    /// shows here before a tool call meets it half-way through a write. Blocking (file I/O).
    pub fn check_storage(&self) -> Result<String, String> {
        use std::io::Write;
        let db = self.db_path();
        if !db.exists() {
            return Err(format!("storage: {} is missing", db.display()));
        }
        let probe = db.with_extension("probe");
        let written = std::fs::File::create(&probe).and_then(|mut f| {
            f.write_all(&[0u8; 4096])?;
            f.sync_data()
        });
        let _ = std::fs::remove_file(&probe);
        match written {
            Ok(()) => Ok(format!("{} open, writable", db.display())),
            Err(e) => Err(format!(
                "storage: cannot write in {}: {e}",
                probe.parent().unwrap_or(db).display()
            )),
        }
    }

    /// The scope a call runs in: the caller's organization and, for workspaced products, the
    /// `workspace_id` argument or the connection's workspace (one the person can reach).
    pub fn scope_of(
        product: &'static Product,
        ctx: &CallContext,
        args: &Map<String, Value>,
    ) -> Result<Scope, BackendError> {
        let workspace = if product.policy.workspaced {
            let ws = match args.get("workspace_id") {
                Some(Value::String(s)) if !s.is_empty() => s.clone(),
                Some(Value::Null) | None => ctx.workspace.clone().unwrap_or_default(),
                Some(other) => {
                    return Err(BackendError::Invalid(
                        Text::SandboxRecordId
                            .fill(Locale::En, &[("name", &"workspace_id"), ("value", other)]),
                    ))
                }
            };
            if ws.is_empty() {
                return Err(BackendError::Invalid(
                    Text::DetailWorkspaceNeeded.fill(Locale::En, &[("product", &product.name)]),
                ));
            }
            let reachable = &ctx.identity.workspaces;
            if !reachable.is_empty() && !reachable.contains(&ws) {
                return Err(BackendError::NotFound(
                    Text::DetailWorkspaceUnreachable.fill(Locale::En, &[("workspace", &ws)]),
                ));
            }
            ws
        } else {
            String::new()
        };
        Ok(Scope {
            product: product.name.to_string(),
            organization: ctx.identity.organization.clone(),
            workspace,
        })
    }

    /// Seeds `scope` if it has never been seeded (in its own transaction).
    fn ensure_seeded(&self, product: &'static Product, scope: &Scope) -> Result<(), StoreError> {
        if self
            .inner
            .seeded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(scope)
        {
            return Ok(());
        }
        let seed = self.inner.seed;
        let seeded_now = self
            .inner
            .store
            .transaction(|tx| -> Result<bool, StoreError> {
                if store::is_seeded(tx, scope)? {
                    return Ok(false);
                }
                let n =
                    ops::seed_scope(tx, product, scope, seed, clock::seed_anchor(clock::now()))?;
                tracing::info!(
                    product = product.name,
                    organization = scope.organization,
                    workspace = scope.workspace,
                    records = n,
                    "seeded sandbox scope"
                );
                Ok(true)
            })?;
        self.inner
            .seeded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(scope.clone());
        if seeded_now {
            // Seeding built megabytes of records, now written and freed, and filled the
            // writer's page cache: give both back rather than keep them for the process's life.
            self.inner.store.shrink_writer_cache();
            memory::release_free_memory();
        }
        Ok(())
    }

    /// Runs one call synchronously (use from a blocking thread).
    pub fn call_blocking(
        &self,
        ctx: &CallContext,
        tool: &'static Tool,
        args: &Map<String, Value>,
    ) -> Result<Output, BackendError> {
        self.call_blocking_text(ctx, tool, args)?.parsed()
    }

    /// [`Sandbox::call_blocking`], a list page answered as [`Output::JsonText`] (see
    /// [`Backend::call_json_text`]): its records' stored text, never parsed.
    pub fn call_blocking_text(
        &self,
        ctx: &CallContext,
        tool: &'static Tool,
        args: &Map<String, Value>,
    ) -> Result<Output, BackendError> {
        let product = ctx.product;
        if matches!(tool.operation, Operation::WhoAmI) {
            let who = format!("{}\n{}", ctx.identity.person, ctx.identity.organization);
            return Ok(Output::Json(envelope::me(
                &ctx.identity,
                &envelope::token_uid(&who),
            )));
        }
        let scope = Self::scope_of(product, ctx, args)?;
        self.ensure_seeded(product, &scope).map_err(ops::db)?;
        let now = clock::now();
        let body = |tx: &rusqlite::Connection| {
            let run = |tool: &'static Tool, args: &Map<String, Value>| {
                ops::execute(&ops::Call {
                    tx,
                    product,
                    scope: &scope,
                    tool,
                    args,
                    files: &self.inner.files,
                    now,
                })
            };
            check_references(product, tool, args, run)?;
            run(tool, args)
        };
        if ops::is_read(tool) {
            return self.inner.store.call_read(body);
        }
        let Some(key) = ctx.idempotency_key.as_deref() else {
            return self.inner.store.call_transaction(body);
        };
        // A write with an idempotency key runs once: its answer is kept in its own transaction,
        // and the same key answers it again (marked replayed) without running anything.
        let at = now.unix_timestamp();
        self.inner.store.call_transaction(|tx| {
            if let Some(first) = store::kept_answer(tx, &scope, key, tool.name, at)? {
                return Ok(Output::Replayed(Box::new(Output::Json(first))));
            }
            let out = body(tx)?;
            let text = match &out {
                Output::Json(v) => Some(v.to_string()),
                Output::JsonText(t) => Some(t.as_str().to_string()),
                // A file answer is not kept (no write answers one).
                _ => None,
            };
            if let Some(text) = text {
                store::keep_answer(tx, &scope, key, tool.name, &text, at)?;
            }
            Ok(out)
        })
    }

    /// (Re)seeds `product`: every scope seeded so far plus `extra` scopes, from scratch.
    /// Returns per scope the record counts by type.
    pub fn reseed(
        &self,
        product: &'static Product,
        extra: &[Scope],
    ) -> Result<Vec<(Scope, Value)>, StoreError> {
        let seed = self.inner.seed;
        let out = self
            .inner
            .store
            .transaction(|tx| -> Result<_, StoreError> {
                let mut scopes = store::seeded_scopes(tx, product.name)?;
                for s in extra {
                    if !scopes.contains(s) {
                        scopes.push(s.clone());
                    }
                }
                let now = clock::seed_anchor(clock::now());
                let mut out = Vec::new();
                for scope in scopes {
                    store::clear_scope(tx, &scope)?;
                    ops::seed_scope(tx, product, &scope, seed, now)?;
                    out.push((scope.clone(), ops::summary(tx, product, &scope)?));
                }
                Ok(out)
            })?;
        self.forget_seeded(product.name);
        Ok(out)
    }

    /// Deletes every record of `product`; its scopes are seeded again on next use.
    pub fn reset(&self, product: &'static Product) -> Result<usize, StoreError> {
        let n = self
            .inner
            .store
            .transaction(|tx| store::clear_product(tx, product.name))?;
        self.forget_seeded(product.name);
        Ok(n)
    }

    fn forget_seeded(&self, product: &str) {
        self.inner
            .seeded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|s| s.product != product);
    }

    /// The scope `sandbox seed` fills by default for a product.
    pub fn demo_scope(product: &Product) -> Scope {
        Scope {
            product: product.name.to_string(),
            organization: DEMO_ORGANIZATION.to_string(),
            workspace: if product.policy.workspaced {
                DEMO_WORKSPACE.to_string()
            } else {
                String::new()
            },
        }
    }

    /// Every record of one type in `scope`, newest first, seeding the scope on first use (for
    /// tests and tools that need real ids of a type that has no list tool).
    pub fn records_blocking(
        &self,
        product: &'static Product,
        scope: &Scope,
        record: &str,
    ) -> Result<Vec<store::Row>, StoreError> {
        self.ensure_seeded(product, scope)?;
        self.inner.store.read(|tx| store::list(tx, scope, record))
    }

    /// Loads one record (for signed downloads).
    pub fn record_blocking(
        &self,
        scope: &Scope,
        record: &str,
        id: &str,
    ) -> Result<Option<store::Row>, StoreError> {
        self.inner
            .store
            .read(|tx| store::get(tx, scope, record, id))
    }
}

/// Refuses a create or update whose reference fields (`seed: ref:<record>` in the catalog) name a
/// record that does not exist for the caller — unknown, or of another organization or workspace —
/// as the Kobana API does, naming the field. The reference is read with the record type's own get
/// tool in the same transaction, so scoping is the sandbox's and nothing is written on refusal.
/// Both the embedded backend and `serve-api` go through it.
fn check_references(
    product: &'static Product,
    tool: &'static Tool,
    args: &Map<String, Value>,
    get: impl Fn(&'static Tool, &Map<String, Value>) -> Result<Output, BackendError>,
) -> Result<(), BackendError> {
    // An update's own id argument names the record it changes (not found if it does not
    // exist), not a reference.
    let (record, own_id) = match tool.operation {
        Operation::Create { record } => (record, None),
        Operation::Update { record, id_arg } => (record, Some(id_arg)),
        _ => return Ok(()),
    };
    let Some(rt) = product.record(record) else {
        return Ok(());
    };
    for field in rt.fields {
        if own_id == Some(field.name) {
            continue;
        }
        let Some(target) = field.seed.strip_prefix("ref:") else {
            continue;
        };
        let Some(Value::String(id)) = args.get(field.name) else {
            continue;
        };
        if id.is_empty() {
            continue;
        }
        let getter = product.tools.iter().find_map(|t| match t.operation {
            Operation::Get { record: r, id_arg } if r == target => Some((t, id_arg)),
            _ => None,
        });
        let Some((get_tool, id_arg)) = getter else {
            continue;
        };
        let mut get_args = Map::new();
        get_args.insert(id_arg.to_string(), Value::String(id.clone()));
        if let Some(ws) = args.get("workspace_id") {
            get_args.insert("workspace_id".into(), ws.clone());
        }
        match get(get_tool, &get_args) {
            Ok(_) => {}
            Err(BackendError::NotFound(_)) => {
                return Err(BackendError::Invalid(Text::SandboxNamesMissing.fill(
                    Locale::En,
                    &[("argument", &field.name), ("target", &target), ("id", &id)],
                )))
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The progress a task tool reports while it runs (a task's `statusMessage`), in the
/// request's locale; the tool's name stays as it is.
pub fn progress_message(tool: &str, done: f64, locale: runtime_model::locale::Locale) -> String {
    runtime_model::texts::Text::TaskProgress.fill(locale, &[("tool", &tool), ("done", &done)])
}

impl Sandbox {
    /// [`Backend::address_of_own_uid`], on the calling thread: the stored records of the tool's
    /// type in the call's scope, read until the one whose own uid is `own_uid`. Exact (uids are
    /// unique) and cheap (a type holds its seeds and what was created since, tens of records).
    pub fn address_of_own_uid_blocking(
        &self,
        ctx: &CallContext,
        tool: &'static Tool,
        args: &Map<String, Value>,
        own_uid: &str,
    ) -> Option<String> {
        let product = ctx.product;
        let rt = tool.record_type().and_then(|r| product.record(r))?;
        let key = rt.keyed_by_owner?;
        let scope = Self::scope_of(product, ctx, args).ok()?;
        self.ensure_seeded(product, &scope).ok()?;
        let rows = self
            .inner
            .store
            .read(|tx| store::list(tx, &scope, rt.name))
            .ok()?;
        rows.into_iter()
            .find(|r| r.json.get(key.own_uid_field).and_then(Value::as_str) == Some(own_uid))
            .map(|r| r.id)
    }

    /// A call on a blocking thread, after the task delay of a `task:` tool; `as_text` lets a
    /// list page come as [`Output::JsonText`].
    fn call_async(
        &self,
        ctx: &CallContext,
        tool: &'static Tool,
        args: &Map<String, Value>,
        as_text: bool,
    ) -> BoxFuture<'static, Result<Output, BackendError>> {
        let this = self.clone();
        let ctx = ctx.clone();
        let args = args.clone();
        Box::pin(async move {
            let delay = this.inner.task_delay;
            if tool.task != runtime_model::catalog::TaskSupport::Never && !delay.is_zero() {
                const STEPS: u32 = 4;
                for step in 0..STEPS {
                    let done = f64::from(step * 100 / STEPS);
                    ctx.progress.report(
                        done,
                        Some(100.0),
                        &progress_message(tool.name, done, ctx.locale),
                    );
                    tokio::time::sleep(delay / STEPS).await;
                }
            }
            let worker = this.clone();
            this.blocking(move || {
                if as_text {
                    worker.call_blocking_text(&ctx, tool, &args)
                } else {
                    worker.call_blocking(&ctx, tool, &args)
                }
            })
            .await
            .map_err(|e| BackendError::Storage(format!("sandbox worker failed: {e}")))?
        })
    }
}

impl Backend for Sandbox {
    fn call<'a>(
        &'a self,
        ctx: &'a CallContext,
        tool: &'static Tool,
        args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        self.call_async(ctx, tool, args, false)
    }

    fn call_json_text<'a>(
        &'a self,
        ctx: &'a CallContext,
        tool: &'static Tool,
        args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        self.call_async(ctx, tool, args, true)
    }

    fn executes_operations(&self) -> bool {
        true
    }

    fn address_of_own_uid<'a>(
        &'a self,
        ctx: &'a CallContext,
        tool: &'static Tool,
        args: &'a Map<String, Value>,
        own_uid: &'a str,
    ) -> BoxFuture<'a, Option<String>> {
        let (this, ctx, args, own_uid) =
            (self.clone(), ctx.clone(), args.clone(), own_uid.to_string());
        Box::pin(async move {
            let worker = this.clone();
            this.blocking(move || worker.address_of_own_uid_blocking(&ctx, tool, &args, &own_uid))
                .await
                .ok()
                .flatten()
        })
    }
}

#[cfg(test)]
mod lanes_tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// However many calls arrive at once, no more of them work on the store at the same time than
    /// it has connections (the store's lanes): the others wait for a lane, and every one runs.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn store_work_never_outnumbers_the_store_connections() {
        let dir = tempfile::tempdir().expect("temp dir");
        let sandbox = Sandbox::open(&SandboxConfig::new(dir.path())).expect("sandbox");
        let lanes = sandbox.inner.store.lanes();
        let now = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let calls: Vec<_> = (0..lanes * 4)
            .map(|_| {
                let (sandbox, now, most) = (sandbox.clone(), now.clone(), most.clone());
                tokio::spawn(async move {
                    sandbox
                        .blocking(move || {
                            let at_once = now.fetch_add(1, Ordering::SeqCst) + 1;
                            most.fetch_max(at_once, Ordering::SeqCst);
                            // Long enough for unbounded calls to overlap on their threads.
                            std::thread::sleep(std::time::Duration::from_millis(20));
                            now.fetch_sub(1, Ordering::SeqCst);
                        })
                        .await
                })
            })
            .collect();
        for call in calls {
            call.await.expect("task").expect("blocking call");
        }
        let most = most.load(Ordering::SeqCst);
        assert!(
            most >= 1 && most <= lanes,
            "{most} calls at once for {lanes} lanes"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::data_dir_from_env;
    use std::path::PathBuf;

    /// Windows sets `LOCALAPPDATA` and no `HOME`: the data directory is in the user's profile, not
    /// `.kobana-mcp` in the directory the server was started in; elsewhere `LOCALAPPDATA` means
    /// nothing, and `XDG_DATA_HOME` comes first everywhere.
    #[test]
    fn the_default_data_directory_is_in_the_users_profile_on_windows() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        let windows = env(&[("LOCALAPPDATA", r"C:\Users\ana\AppData\Local")]);
        assert_eq!(
            data_dir_from_env(windows, true),
            PathBuf::from(r"C:\Users\ana\AppData\Local").join("kobana-mcp")
        );
        let both = env(&[("LOCALAPPDATA", "/local"), ("HOME", "/home/ana")]);
        assert_eq!(
            data_dir_from_env(both, false),
            PathBuf::from("/home/ana/.local/share/kobana-mcp")
        );
        let xdg = env(&[("XDG_DATA_HOME", "/xdg"), ("LOCALAPPDATA", "/local")]);
        assert_eq!(
            data_dir_from_env(xdg, true),
            PathBuf::from("/xdg/kobana-mcp")
        );
        let empty = env(&[("LOCALAPPDATA", ""), ("HOME", "")]);
        assert_eq!(data_dir_from_env(empty, true), PathBuf::from(".kobana-mcp"));
    }
}

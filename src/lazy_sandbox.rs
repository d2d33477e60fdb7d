//! The embedded sandbox, opened on the first tool call instead of at startup.
//!
//! Opening creates the SQLite file, switches it to WAL and writes the signing key: several
//! fsyncs, tens of milliseconds on a fresh data directory. A stdio client's first questions
//! (`initialize`, `tools/list`) need none of it, so the stdio server defers it and answers them
//! from the catalog alone. Seeding stays where it was: lazily, per scope, on the first call.

use std::sync::Arc;

use runtime_model::backend::{Backend, BackendError, BoxFuture, CallContext, Output};
use runtime_model::catalog::Tool;
use runtime_sandbox::{Sandbox, SandboxConfig};
use serde_json::{Map, Value};
use tokio::sync::{watch, OnceCell};

/// A [`Backend`] that opens its [`Sandbox`] once, when first called.
#[derive(Clone)]
pub struct LazySandbox {
    inner: Arc<Inner>,
}

struct Inner {
    config: SandboxConfig,
    sandbox: OnceCell<Sandbox>,
    /// Tells [`LazySandbox::opened`] waiters when the sandbox exists.
    opened_tx: watch::Sender<Option<Sandbox>>,
}

impl LazySandbox {
    pub fn new(config: SandboxConfig) -> Self {
        let (opened_tx, _) = watch::channel(None);
        Self {
            inner: Arc::new(Inner {
                config,
                sandbox: OnceCell::new(),
                opened_tx,
            }),
        }
    }

    /// The sandbox, opened now if it is not yet (on a blocking thread: SQLite does file I/O).
    pub async fn get(&self) -> Result<&Sandbox, BackendError> {
        self.inner
            .sandbox
            .get_or_try_init(|| async {
                let config = self.inner.config.clone();
                let sb = tokio::task::spawn_blocking(move || Sandbox::open(&config))
                    .await
                    .map_err(|e| BackendError::Storage(format!("sandbox opener failed: {e}")))?
                    .map_err(|e| {
                        BackendError::Storage(format!(
                            "cannot open the sandbox in {}: {e}",
                            self.inner.config.data_dir.display()
                        ))
                    })?;
                tracing::info!(db = %sb.db_path().display(), seed = self.inner.config.seed, "sandbox opened");
                self.inner.opened_tx.send_replace(Some(sb.clone()));
                Ok(sb)
            })
            .await
    }

    /// Waits until a call has opened the sandbox, without opening it (for the signed-download
    /// server: a link exists only after a call).
    pub async fn opened(&self) -> Option<Sandbox> {
        let mut rx = self.inner.opened_tx.subscribe();
        let sb = rx.wait_for(Option::is_some).await.ok()?.clone();
        sb
    }
}

impl Backend for LazySandbox {
    fn call<'a>(
        &'a self,
        ctx: &'a CallContext,
        tool: &'static Tool,
        args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        Box::pin(async move { self.get().await?.call(ctx, tool, args).await })
    }

    fn call_json_text<'a>(
        &'a self,
        ctx: &'a CallContext,
        tool: &'static Tool,
        args: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Output, BackendError>> {
        Box::pin(async move { self.get().await?.call_json_text(ctx, tool, args).await })
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
        Box::pin(async move {
            self.get()
                .await
                .ok()?
                .address_of_own_uid(ctx, tool, args, own_uid)
                .await
        })
    }
}

//! stdio: one JSON-RPC message per line on stdin, one per line on stdout; logs go to stderr only.
//!
//! This file moves lines; what a message means (era, `initialize`, the call context, the time
//! limit, the answer's bytes) is the connection layer's ([`crate::connection`]), as for HTTP.
//! Requests run concurrently (a 2025 handler waiting for the client's answer to a server→client
//! request must not block the reader). `initialize` makes the process a 2025 session; a request
//! carrying the 2026 `_meta` is served statelessly at any time, before or without `initialize`.
//! On EOF the server stops reading, lets in-flight requests finish, flushes, and returns.
//!
//! A caller the identity service could not tell at start ([`run_pending`]) is asked for again by
//! each request that needs it; until the service answers, the listings are served (they need no
//! data) and every other request is answered with the service's failure, so a client connects and
//! sees the tools of a server whose identity service is down.

use std::sync::Arc;

use axum::body::Bytes;
use runtime_model::locale::Locale;
use runtime_model::texts::Text;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::auth::http::AUTH_RPC_CODE;
use crate::auth::stdio::PendingCaller;
use crate::connection::{self, Caller, Outer, SessionRef, Step};
use crate::contract::call::{Call, Session};
use crate::contract::error::RpcError;
use crate::rpc::jsonrpc;
use crate::server::{Server, ServerError};

/// Serves `product` on the process's stdin/stdout until EOF.
pub async fn run(server: Arc<Server>, product: &str) -> Result<(), StdioError> {
    serve(
        server,
        product,
        tokio::io::stdin(),
        Sink::<tokio::io::Stdout>::ProcessStdout,
        None,
    )
    .await
}

/// [`run`] for a caller still unknown (module docs): the server's default identity answers the
/// listings until `pending` resolves.
pub async fn run_pending(
    server: Arc<Server>,
    product: &str,
    pending: Arc<PendingCaller>,
) -> Result<(), StdioError> {
    serve(
        server,
        product,
        tokio::io::stdin(),
        Sink::<tokio::io::Stdout>::ProcessStdout,
        Some(pending),
    )
    .await
}

/// The methods a caller not yet known is answered: what the server offers, the same for everyone
/// it serves, and nothing read from data.
fn needs_no_caller(method: &str) -> bool {
    matches!(
        method,
        "tools/list"
            | "prompts/list"
            | "resources/templates/list"
            | "server/discover"
            | "ping"
            | "logging/setLevel"
    )
}

/// Puts the pending caller, once known, into `call`; the error to answer while it is not (the
/// listings go on with the server's default identity).
async fn with_caller(
    pending: &PendingCaller,
    method: &str,
    call: &mut Call,
    locale: Locale,
) -> Result<(), RpcError> {
    match pending.resolve().await {
        Ok(who) => {
            call.identity = who.identity;
            call.bearer_token = Some(who.token);
            Ok(())
        }
        Err(_) if needs_no_caller(method) => Ok(()),
        // In the request's language: its own, else the server's, else the product's.
        Err(e) => Err(RpcError::new(
            AUTH_RPC_CODE,
            Text::StdioRequestNotRun.fill(locale, &[("why", &e.message(locale))]),
        )),
    }
}

/// Where answers are written.
enum Sink<W> {
    /// Any async writer (tests use in-memory pipes).
    Async(W),
    /// The process's stdout, written from a blocking thread straight from our buffers: tokio's
    /// `Stdout` would first copy each write into a buffer of its own (a 900 KB listing is a few
    /// hundred fresh pages to fault in on a cold start).
    ProcessStdout,
}

impl<W: AsyncWrite + Unpin> Sink<W> {
    /// Writes one message (its parts, then a newline) and flushes it.
    async fn send(&mut self, parts: Vec<Bytes>) -> std::io::Result<()> {
        match self {
            Sink::Async(w) => {
                for part in &parts {
                    w.write_all(part).await?;
                }
                w.write_all(b"\n").await?;
                w.flush().await
            }
            Sink::ProcessStdout => {
                let written = tokio::task::spawn_blocking(move || {
                    use std::io::Write;
                    let mut out = std::io::stdout().lock();
                    for part in &parts {
                        out.write_all(part)?;
                    }
                    out.write_all(b"\n")?;
                    out.flush()
                })
                .await;
                written.map_err(|e| std::io::Error::other(e.to_string()))?
            }
        }
    }
}

/// Why the stdio loop stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum StdioError {
    #[error(transparent)]
    Server(#[from] ServerError),
    #[error("stdio failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Serves on any reader/writer pair (tests use in-memory pipes).
pub async fn run_io<R, W>(
    server: Arc<Server>,
    product: &str,
    reader: R,
    writer: W,
) -> Result<(), StdioError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve(server, product, reader, Sink::Async(writer), None).await
}

/// [`run_pending`] on any reader/writer pair.
pub async fn run_io_pending<R, W>(
    server: Arc<Server>,
    product: &str,
    reader: R,
    writer: W,
    pending: Arc<PendingCaller>,
) -> Result<(), StdioError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve(server, product, reader, Sink::Async(writer), Some(pending)).await
}

async fn serve<R, W>(
    server: Arc<Server>,
    product: &str,
    reader: R,
    mut sink: Sink<W>,
    pending: Option<Arc<PendingCaller>>,
) -> Result<(), StdioError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let engine = server.engine(product)?.clone();
    // Two queues to stdout: messages (notifications, server→client requests, parse errors) and
    // answers, as byte segments so that a pre-serialized listing is written without a copy. A
    // handler queues its messages before its answer, and the writer drains messages first, so
    // they always precede the answer they belong to.
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let (answer_tx, mut answer_rx) = mpsc::unbounded_channel::<Vec<Bytes>>();
    let writer_task = tokio::spawn(async move {
        let (mut messages_open, mut answers_open) = (true, true);
        loop {
            tokio::select! {
                biased;
                m = out_rx.recv(), if messages_open => match m {
                    Some(line) => sink.send(vec![Bytes::from(line)]).await?,
                    None => messages_open = false,
                },
                a = answer_rx.recv(), if answers_open => match a {
                    Some(parts) => sink.send(parts).await?,
                    None => answers_open = false,
                },
                else => break,
            }
        }
        Ok::<(), std::io::Error>(())
    });
    // stdio has no per-request credentials: every call carries the process's identity and token.
    let caller = Caller {
        identity: server.config.default_identity.clone(),
        bearer: server.config.default_bearer_token.clone(),
        // stdio has no per-request selection: the server's own (its engine's default) applies.
        selection: None,
        names_selection: false,
        accept_language: None,
        client_ip: None,
    };
    let limit = server.config.request_timeout;
    let bounds = server.config.batch_bounds();
    let mut session: Option<Arc<Session>> = None;
    let mut tasks = JoinSet::new();
    // Lines are read as bytes: a line that is not UTF-8 is a message like any other that fails to
    // parse (-32700, id null), never a reason to stop serving the ones around it.
    let mut reader = BufReader::new(reader);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).await? == 0 {
            break;
        }
        let line = buf.trim_ascii();
        if line.is_empty() {
            continue;
        }
        let named = match &session {
            Some(s) => SessionRef::Found(s.clone()),
            None => SessionRef::None,
        };
        if connection::is_batch(line) {
            let (engine, mut caller, out) = (engine.clone(), caller.clone(), answer_tx.clone());
            let (line, bounds, pending) = (line.to_vec(), bounds.clone(), pending.clone());
            tasks.spawn(async move {
                // A batch runs as one caller: known, or refused whole (its members may need it).
                if let Some(pending) = pending {
                    match pending.resolve().await {
                        Ok(who) => {
                            caller.identity = who.identity;
                            caller.bearer = Some(who.token);
                        }
                        Err(e) => {
                            let locale = engine.locale_for(caller.accept_language.as_deref());
                            let error = RpcError::new(AUTH_RPC_CODE, e.message(locale));
                            let reply = jsonrpc::encode_error(&serde_json::Value::Null, &error);
                            let _ = out.send(vec![Bytes::from(reply)]);
                            return;
                        }
                    }
                }
                let answer = connection::batches::batch(
                    &engine,
                    &line,
                    named,
                    Outer::NotCarried,
                    &caller,
                    &bounds,
                )
                .await;
                let reply = match answer {
                    Ok(Some(bytes)) => bytes,
                    Ok(None) => return, // only notifications and responses: nothing to say
                    Err(e) => jsonrpc::encode_error(&serde_json::Value::Null, &e),
                };
                let _ = out.send(vec![Bytes::from(reply)]);
            });
            continue;
        }
        let (req, mut call) = match connection::route_bytes(line, named, Outer::NotCarried, &caller)
        {
            Step::Serve(req, call) => (req, call),
            Step::Notification | Step::Response { .. } => continue,
            Step::Initialize(handshake) => {
                let started = std::time::Instant::now();
                session = Some(handshake.session("stdio".into()));
                let _ = out_tx.send(handshake.answer(&engine));
                crate::telemetry::request_log::log_initialize(started, None, None);
                continue;
            }
            Step::Refused { id, error, .. } => {
                let _ = out_tx.send(jsonrpc::encode_error(&id, &error));
                continue;
            }
        };
        connection::attach(&mut call, out_tx.clone());
        let engine = engine.clone();
        let out = answer_tx.clone();
        let pending = pending.clone();
        tasks.spawn(async move {
            if let Some(pending) = pending {
                let locale = engine.locale(&call);
                if let Err(e) = with_caller(&pending, &req.method, &mut call, locale).await {
                    let _ = out.send(vec![Bytes::from(jsonrpc::encode_error(&req.id, &e))]);
                    return;
                }
            }
            let reply = connection::answer(&engine, &req, &call, limit).await;
            let _ = out.send(connection::encode(&req.id, reply).into_segments());
        });
        // Reap finished tasks so the set does not grow without bound.
        while tasks.try_join_next().is_some() {}
    }
    while tasks.join_next().await.is_some() {}
    drop(out_tx);
    drop(answer_tx);
    match writer_task.await {
        Ok(r) => r?,
        Err(e) => return Err(StdioError::Io(std::io::Error::other(e.to_string()))),
    }
    Ok(())
}

//! stdio: one JSON-RPC message per line on stdin, one per line on stdout; logs go to stderr only.
//!
//! Requests run concurrently (a 2025 handler waiting for the client's answer to a server→client
//! request must not block the reader). `initialize` makes the process a 2025 session; a request
//! carrying the 2026 `_meta` is served statelessly at any time, before or without `initialize`.
//! On EOF the server stops reading, lets in-flight requests finish, flushes, and returns.

use std::sync::Arc;

use axum::body::Bytes;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::contract::call::{Call, Peer, Session};
use crate::contract::era::{self, Era};
use crate::protocol::jsonrpc::{self, Incoming, RpcError};
use crate::protocol::modern;
use crate::protocol::reply::Reply;
use crate::server::{Server, ServerError};

/// Serves `product` on the process's stdin/stdout until EOF.
pub async fn run(server: Arc<Server>, product: &str) -> Result<(), StdioError> {
    serve(
        server,
        product,
        tokio::io::stdin(),
        Sink::<tokio::io::Stdout>::ProcessStdout,
    )
    .await
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
    serve(server, product, reader, Sink::Async(writer)).await
}

async fn serve<R, W>(
    server: Arc<Server>,
    product: &str,
    reader: R,
    mut sink: Sink<W>,
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
    let identity = server.config.default_identity.clone();
    // stdio has no per-request credentials: every call carries the process's token.
    let bearer = server.config.default_bearer_token.clone();
    let mut session: Option<Arc<Session>> = None;
    let mut tasks = JoinSet::new();
    let mut lines = BufReader::new(reader).lines();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        let msg = match jsonrpc::parse_bytes(line.as_bytes()) {
            Ok(m) => m,
            Err(rej) => {
                let _ = out_tx.send(jsonrpc::encode_error(&rej.id, &rej.error));
                continue;
            }
        };
        let req = match msg {
            Incoming::Notification { .. } => continue,
            Incoming::Response { id, outcome } => {
                if let Some(s) = &session {
                    s.requests.resolve(&id, outcome);
                }
                continue;
            }
            Incoming::Request(r) => r,
        };
        if req.method == "initialize" && !modern::has_modern_meta(&req.params) {
            let version =
                era::negotiate_legacy(req.params.get("protocolVersion").and_then(Value::as_str));
            let caps = req
                .params
                .get("capabilities")
                .filter(|c| c.is_object())
                .cloned()
                .unwrap_or_else(|| json!({}));
            session = Some(Arc::new(Session::new("stdio".into(), version, caps)));
            let _ = out_tx.send(jsonrpc::encode_result(
                &req.id,
                &engine.initialize_result(version),
            ));
            continue;
        }
        let call = if modern::has_modern_meta(&req.params) || req.method == "server/discover" {
            let meta = match modern::read_meta(&req.params)
                .and_then(|m| modern::check_version(&m.version).map(|_| m))
            {
                Ok(m) => m,
                Err(e) => {
                    let _ = out_tx.send(jsonrpc::encode_error(&req.id, &e));
                    continue;
                }
            };
            Call {
                era: Era::Modern,
                identity: identity.clone(),
                bearer_token: bearer.clone(),
                client_caps: Arc::new(meta.client_caps),
                progress_token: modern::progress_token(&req.params),
                log_level: meta.log_level,
                peer: Peer::notifications(out_tx.clone()),
                session: None,
            }
        } else {
            let (version, caps, level, peer) = match &session {
                Some(s) => (
                    s.version,
                    s.client_caps.clone(),
                    s.log_level(),
                    Peer::with_requests(out_tx.clone(), s.requests.clone()),
                ),
                None => (
                    era::LEGACY[0],
                    Arc::new(json!({})),
                    None,
                    Peer::notifications(out_tx.clone()),
                ),
            };
            Call {
                era: Era::Legacy(version),
                identity: identity.clone(),
                bearer_token: bearer.clone(),
                client_caps: caps,
                progress_token: modern::progress_token(&req.params),
                log_level: level,
                peer,
                session: session.clone(),
            }
        };
        let engine = engine.clone();
        let out = answer_tx.clone();
        let limit = server.config.request_timeout;
        tasks.spawn(async move {
            let reply = match tokio::time::timeout(limit, engine.handle(&req, &call)).await {
                Ok(r) => r,
                Err(_) => Reply::Error(RpcError::internal(format!(
                    "Request timed out after {} s",
                    limit.as_secs()
                ))),
            };
            let parts = match &reply {
                Reply::Value(v) => vec![Bytes::from(jsonrpc::encode_result(&req.id, v))],
                Reply::Raw(page) => {
                    let mut head = Vec::with_capacity(48);
                    jsonrpc::open_result(&mut head, &req.id);
                    let mut parts = Vec::with_capacity(page.segments().len() + 2);
                    parts.push(Bytes::from(head));
                    parts.extend(page.segments().iter().cloned());
                    parts.push(Bytes::from_static(b"}"));
                    parts
                }
                Reply::Error(e) => vec![Bytes::from(jsonrpc::encode_error(&req.id, e))],
            };
            let _ = out.send(parts);
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

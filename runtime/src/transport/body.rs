//! Response bodies: a few shared byte chunks sent with an exact length (a pre-serialized listing is
//! spliced between the JSON-RPC envelope's head and tail without copying it), and an SSE stream fed
//! by a channel.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::sync::mpsc;

/// Chunks with a known total length (sent with `Content-Length`).
pub struct Chunks {
    parts: VecDeque<Bytes>,
    remaining: u64,
}

impl Chunks {
    /// Takes the parts' buffer over as it is (no copy of the list, no new allocation).
    pub fn new(parts: Vec<Bytes>) -> Self {
        let mut parts = VecDeque::from(parts);
        parts.retain(|b| !b.is_empty());
        let remaining = parts.iter().map(|b| b.len() as u64).sum();
        Self { parts, remaining }
    }
}

impl Body for Chunks {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.parts.pop_front() {
            Some(b) => {
                self.remaining -= b.len() as u64;
                Poll::Ready(Some(Ok(Frame::data(b))))
            }
            None => Poll::Ready(None),
        }
    }
    fn is_end_stream(&self) -> bool {
        self.parts.is_empty()
    }
    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.remaining)
    }
}

/// A streamed body (SSE events) fed by a channel; ends when every sender is gone.
pub struct Channel {
    rx: mpsc::Receiver<Bytes>,
}

impl Channel {
    pub fn new(rx: mpsc::Receiver<Bytes>) -> Self {
        Self { rx }
    }
}

impl Body for Channel {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(b)) => Poll::Ready(Some(Ok(Frame::data(b)))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// One SSE `message` event carrying a JSON-RPC message.
pub fn sse_event(json: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(json.len() + 24);
    out.extend_from_slice(b"event: message\ndata: ");
    out.extend_from_slice(json);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// A request body, whole, up to `limit` bytes; `None` when it is longer or cannot be read (the
/// client went away). The usual body (one frame, as hyper reads a small request) is returned as
/// it came, without the collector's queue and copy that `axum::body::to_bytes` costs.
pub async fn read_limited(mut body: axum::body::Body, limit: usize) -> Option<Bytes> {
    let mut first: Option<Bytes> = None;
    let mut more: Vec<u8> = Vec::new();
    let mut total = 0usize;
    loop {
        let frame = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await;
        let data = match frame {
            None => break,
            Some(Err(_)) => return None,
            // Trailers carry no body bytes.
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) => data,
                Err(_) => continue,
            },
        };
        total = total.checked_add(data.len())?;
        if total > limit {
            return None;
        }
        match &first {
            None => first = Some(data),
            Some(f) => {
                if more.is_empty() {
                    more.extend_from_slice(f);
                }
                more.extend_from_slice(&data);
            }
        }
    }
    Some(match first {
        None => Bytes::new(),
        Some(_) if !more.is_empty() => Bytes::from(more),
        Some(f) => f,
    })
}

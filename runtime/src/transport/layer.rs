//! The future of the transport's hand-written `tower` layers ([`super::client::Client`],
//! [`super::guard::Guard`], the auth layer): an answer the layer already has, the inner service's
//! own future, or (only where the layer must wait itself, e.g. on a rate limiter or a token
//! resolver) a boxed one. Unlike axum's `from_fn` layers, a layer that lets the request through
//! costs no allocation and no copy of the request's future.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::response::Response;

/// See the module documentation.
pub enum LayerFuture<F> {
    /// Answered by the layer itself (a refusal); taken on the first poll.
    Ready(Option<Response>),
    /// The inner service's answer.
    Inner(F),
    /// The layer waits on something before (perhaps) calling the inner service.
    Boxed(Pin<Box<dyn Future<Output = Response> + Send>>),
}

impl<F> Future for LayerFuture<F>
where
    F: Future<Output = Result<Response, Infallible>> + Unpin,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            LayerFuture::Ready(r) => match r.take() {
                Some(r) => Poll::Ready(Ok(r)),
                // Polled again after it answered: a caller's bug, never the client's.
                None => panic!("a layer's answer was polled after it completed"),
            },
            LayerFuture::Inner(f) => Pin::new(f).poll(cx),
            LayerFuture::Boxed(f) => f.as_mut().poll(cx).map(Ok),
        }
    }
}

//! The HTTP auth layer: every request's bearer resolved to its caller ([`crate::auth::http::HttpAuth`])
//! before any other work, its [`Authenticated`](crate::auth::Authenticated) stored in the request's extensions for the engine;
//! a refusal answered and logged here.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::response::Response;

use super::layer::LayerFuture;
use crate::auth::http::HttpAuth;

/// The origin a request's trusted proxy headers name ([`super::peer::PublicOrigin`]), if any: what
/// the auth answers address the client's metadata URL on.
pub fn public_origin(ext: &axum::http::Extensions) -> Option<&str> {
    ext.get::<super::peer::PublicOrigin>().map(|o| o.0.as_str())
}

/// The auth layer ([`Authenticate`]); `None` lets every request through unauthenticated (a
/// server without auth, such as stdio's or a test's).
#[derive(Clone)]
pub struct AuthLayer {
    auth: Option<Arc<HttpAuth>>,
    server: Option<Arc<crate::server::Server>>,
}

impl AuthLayer {
    pub fn new(auth: Option<Arc<HttpAuth>>) -> Self {
        Self { auth, server: None }
    }

    /// The layer of `server`'s routes: a refusal speaks the request's language, else the
    /// server's `--locale`, else the default of the product the path names.
    pub fn for_server(server: Arc<crate::server::Server>) -> Self {
        Self {
            auth: server.config.auth.clone(),
            server: Some(server),
        }
    }
}

impl<S> tower::Layer<S> for AuthLayer {
    type Service = Authenticate<S>;
    fn layer(&self, inner: S) -> Authenticate<S> {
        Authenticate {
            auth: self.auth.clone(),
            server: self.server.clone(),
            inner,
        }
    }
}

/// Authenticates the request, storing its [`Authenticated`](crate::auth::Authenticated) in the request's extensions, or
/// answers 401/403/503. A hand-written `tower` service: it waits (boxed) only when there is a
/// token to resolve.
#[derive(Clone)]
pub struct Authenticate<S> {
    auth: Option<Arc<HttpAuth>>,
    server: Option<Arc<crate::server::Server>>,
    inner: S,
}

impl<S, B> tower::Service<axum::http::Request<B>> for Authenticate<S>
where
    S: tower::Service<axum::http::Request<B>, Response = Response, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + Unpin + 'static,
    B: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = LayerFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: axum::http::Request<B>) -> Self::Future {
        let Some(auth) = self.auth.clone() else {
            return LayerFuture::Inner(self.inner.call(req));
        };
        // The instance that was readied answers; a fresh clone takes its place (tower's rule).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let server = self.server.clone();
        LayerFuture::Boxed(Box::pin(async move {
            match auth.authenticate_parts(req.headers(), req.uri()).await {
                Ok(who) => {
                    req.extensions_mut().insert(who);
                    match inner.call(req).await {
                        Ok(r) => r,
                        Err(e) => match e {},
                    }
                }
                Err(err) => {
                    tracing::debug!(error = %err, "request refused by the auth layer");
                    // The words in the language the request asks for, else the product's.
                    let locale = match &server {
                        Some(server) => {
                            super::client::path_locale(server, req.headers(), req.uri().path())
                        }
                        None => req
                            .headers()
                            .get(axum::http::header::ACCEPT_LANGUAGE)
                            .and_then(|v| v.to_str().ok())
                            .and_then(runtime_model::locale::Locale::negotiate)
                            .unwrap_or(runtime_model::locale::Locale::En),
                    };
                    let resp = auth.refusal_for(&err, public_origin(req.extensions()));
                    let resp = crate::auth::http::in_locale(resp, &err, locale);
                    let ip = super::peer::ClientAddr::of(req.extensions());
                    crate::telemetry::request_log::log_refused("", "", resp.status().as_u16(), ip);
                    resp
                }
            }
        }))
    }
}

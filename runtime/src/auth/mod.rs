//! Who is calling: bearer tokens → identities, and the connection's default workspace.
//!
//! - [`Resolver`] turns a token into an identity. Two implementations: [`EmbeddedResolver`]
//!   (the identities file that ships with the project, the default, with demo tokens) and
//!   [`UpstreamResolver`] (the Kobana API's `GET /v2/me`, cached briefly).
//! - [`http`]: the axum layer that authenticates every HTTP request (401 + RFC 9728
//!   `WWW-Authenticate` when the bearer is missing or invalid) and the
//!   `/.well-known/oauth-protected-resource` document.
//! - [`stdio`]: the token and default workspace of a stdio connection, from the environment.
//!
//! - [`resolver`]: what every resolver and both connection kinds share (the trait, its error,
//!   the default-workspace rule), re-exported here.
//!
//! The resolved identity, with the connection's default workspace applied, is what every
//! permission check ([`Identity::can_call`](runtime_model::identity::Identity::can_call)) sees,
//! on every request.

pub mod embedded;
pub mod http;
pub mod resolver;
pub mod stdio;
pub mod upstream;

pub use embedded::EmbeddedResolver;
pub use resolver::{
    with_default_workspace, AuthError, Authenticated, Resolver, TOKEN_ENV, WORKSPACE_ENV,
    WORKSPACE_HEADER, WORKSPACE_QUERY_PARAM,
};
pub use upstream::UpstreamResolver;

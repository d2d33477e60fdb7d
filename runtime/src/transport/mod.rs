//! Transports: stdio (newline-delimited JSON) and Streamable HTTP (axum). They move bytes; what a
//! message means is the connection layer's ([`crate::connection`]).

pub mod auth;
pub mod body;
pub mod client;
pub mod compress;
pub mod encoding;
pub mod guard;
pub mod headers;
pub mod health;
pub mod http;
pub mod layer;
pub mod peer;
pub(crate) mod response;
pub mod selection;
pub mod stdio;
pub mod step_up;

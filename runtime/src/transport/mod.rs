//! Transports: stdio (newline-delimited JSON) and Streamable HTTP (axum). They move bytes; what a
//! message means is the connection layer's ([`crate::connection`]).

pub mod body;
pub mod encoding;
pub mod guard;
pub mod headers;
pub mod http;
pub(crate) mod response;
pub mod stdio;

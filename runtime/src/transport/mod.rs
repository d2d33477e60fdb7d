//! Transports: stdio (newline-delimited JSON) and Streamable HTTP (axum).

pub mod body;
pub mod headers;
pub mod http;
pub mod stdio;

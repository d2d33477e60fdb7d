//! What the HTTP layers learn about a request's client and keep in its extensions: a leaf module
//! (std only), so the auth layer can read it without importing the transport's layers. (The
//! client address itself travels in the request's task-local scope, set once by the outermost
//! layer: `telemetry::request_log::with_client_ip`.)

/// The origin (`scheme://host[:port]`) the client used, from trusted proxy headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicOrigin(pub String);

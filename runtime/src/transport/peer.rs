//! What the HTTP layers learn about a request's client and keep in its extensions: a leaf module
//! (it imports nothing of the runtime), so the auth layer can read it without importing the transport's layers. The
//! outermost layer (`transport::client`) sets both; the layers below read them from the request,
//! and the client address goes on into the request's [`crate::contract::Call`] and its log line.

/// The client address of a request: its TCP peer, or the one trusted proxy headers name. Every
/// request the client layer passed carries it (`None` only when neither is known).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub Option<std::net::IpAddr>);

impl ClientAddr {
    /// The client address a request's extensions carry; `None` when the client layer did not run
    /// (a router served without it) or knew none.
    pub fn of(ext: &axum::http::Extensions) -> Option<std::net::IpAddr> {
        ext.get::<ClientAddr>().and_then(|c| c.0)
    }
}

/// The origin (`scheme://host[:port]`) the client used, from trusted proxy headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicOrigin(pub String);

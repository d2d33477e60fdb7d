//! What the HTTP layers learn about a request's client, stored in its extensions: a leaf module
//! (std only), so the auth layer can read it without importing the transport's layers.

use std::net::{IpAddr, SocketAddr};

/// The TCP peer of a connection (set by the accept loop).
#[derive(Debug, Clone, Copy)]
pub struct PeerAddr(pub SocketAddr);

/// The client's address, as rate limits and logs see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIp(pub IpAddr);

/// The origin (`scheme://host[:port]`) the client used, from trusted proxy headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicOrigin(pub String);

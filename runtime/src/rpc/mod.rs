//! JSON-RPC framing, below every MCP method: parsing a message and its params and `_meta`, the
//! protocol's own errors, and what a method answers ([`Reply`], a [`page::Page`] of pre-serialized
//! result bytes) before the connection layer encodes it. Nothing here knows a method's meaning.

pub mod json_text;
pub mod jsonrpc;
pub mod meta;
pub mod page;
pub mod params;
pub mod protocol_errors;
pub mod reply;

pub use reply::Reply;

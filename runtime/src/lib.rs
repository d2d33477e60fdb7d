//! The kobana-mcp runtime: serves any generated catalog over MCP.
//!
//! Module map (one job each):
//! - `protocol`: JSON-RPC, the two protocol eras, method handlers over the catalog tables.
//! - `server`: the configured server (catalogs, backend, resolver, ledger, keys) that transports drive.
//! - `transport`: stdio and Streamable HTTP (axum), with origin/auth/limit layers.
//! - `auth`: bearer tokens → identities (embedded file, upstream resolver), RFC 9728 metadata.
//! - `state`: sealed `requestState` (HMAC-SHA256, rotating keys) for multi round-trip requests.
//! - `confirm`: server-side confirmation of destructive tools and the single-use ledger.
//! - `extensions`: hand-written tool handler bodies, looked up by the name the catalog gives.
//! - `backend`: the upstream Kobana API proxy and the concurrent `resources/list` fan-out (the
//!   sandbox backend lives in the `runtime-sandbox` crate).

pub use runtime_model::{backend as backend_api, catalog, errors, identity};

pub mod auth;
pub mod backend;
pub mod confirm;
pub mod extensions;
pub mod protocol;
pub mod server;
pub mod state;
pub mod transport;

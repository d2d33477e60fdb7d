//! The kobana-mcp runtime: serves any generated catalog over MCP.
//!
//! Module map (one job each):
//! - `protocol`: JSON-RPC, the two protocol eras, method handlers over the catalog tables.
//! - `transport`: stdio and Streamable HTTP (axum), with origin/auth/limit layers.
//! - `auth`: bearer tokens → identities (embedded file, upstream resolver), RFC 9728 metadata.
//! - `confirm`: server-side confirmation of destructive tools and the single-use ledger.
//! - `extensions`: hand-written tool handler bodies, looked up by the name the catalog gives.
//! - `backend`: the upstream Kobana API proxy (the sandbox lives in `runtime-sandbox`).

pub use runtime_model::{backend as backend_api, catalog, identity};

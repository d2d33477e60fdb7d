//! The kobana-mcp runtime: serves any generated catalog over MCP.
//!
//! Module map (one job each). Imports go one way, down this list (`runtime/tests/architecture.rs` fails
//! on any circle):
//! - `transport`: stdio and Streamable HTTP (axum): bytes, headers, status codes, SSE.
//! - `connection`: what both transports share: era choice, `initialize` and sessions, the call
//!   context, time limits, batches and answer encoding.
//! - `server`: the configured server (catalogs, backend, resolver, ledger, keys, extensions).
//! - `protocol`: JSON-RPC, method handlers over the catalog tables, in either era.
//! - `extensions`: hand-written tool handler bodies, looked up by the name the catalog gives.
//! - `contract`: the handler contract both `protocol` and `extensions` import: the request's
//!   `Call`, its era, `RpcError`, and what a handler receives and answers.
//! - `record_schemas`: the schemas catalog JSON of a product (resource and tool alike).
//! - `auth`: bearer tokens → identities (embedded file, upstream resolver), RFC 9728 metadata.
//! - `state`: sealed `requestState` (HMAC-SHA256, rotating keys) for multi round-trip requests.
//! - `tasks`: task records of the Tasks extension (2026-07-28), kept in the confirmation ledger
//!   so every instance sees them.
//! - `confirm`: server-side confirmation of destructive tools and the single-use ledger.
//! - `backend`: the upstream Kobana API proxy and the concurrent `resources/list` fan-out (the
//!   sandbox backend lives in the `runtime-sandbox` crate).
//! - `telemetry`: metrics and traces (OpenTelemetry, Prometheus text, OTLP), the audit trail of
//!   writes, readiness probes. The layers above note what they learn into the request's facts
//!   (`telemetry::facts`); it imports only the ledger interface it times.

pub use runtime_model::{backend as backend_api, catalog, errors, identity};

pub mod auth;
pub mod backend;
pub mod confirm;
pub mod connection;
pub mod contract;
pub mod extensions;
pub mod limits;
pub mod protocol;
pub mod record_schemas;
pub mod server;
pub mod state;
pub mod tasks;
pub mod telemetry;
pub mod transport;

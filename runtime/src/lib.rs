//! The kobana-mcp runtime: serves any generated catalog over MCP.
//!
//! Module map, one job each, in layer order: a module imports only the modules listed below it
//! (`runtime/tests/architecture.rs` checks every import between these folders against this list,
//! and that no files import each other in a circle). `ARCHITECTURE.md` is the map of the whole
//! repository.
//! - `transport`: stdio and Streamable HTTP (axum): bytes, headers, status codes, SSE, content
//!   codings, the HTTP layers (client address, rate limit per IP, auth, Host/Origin guards).
//! - `server`: the configured server (catalogs, backend, resolver, ledger, keys, extensions).
//! - `connection`: what both transports share: era choice, `initialize` and sessions, the call
//!   context, time limits, batches and answer encoding.
//! - `tasks`: the Tasks extension (2026-07-28) on the protocol's extension seam: `tasks/*`, tool
//!   calls run in the background, and their records, kept in the confirmation ledger so every
//!   instance sees them.
//! - `views`: interactive views, the MCP Apps extension, on the protocol's extension seam: its
//!   capability, `_meta.ui` on tools, the views' pages as resources, codes drawn into results.
//! - `protocol`: the MCP methods over the catalog tables, in either era; `Engine` dispatches.
//! - `extensions`: hand-written tool handler bodies, looked up by the name the catalog gives.
//! - `limits`: rate limits per identity, per client IP and per tool class.
//! - `confirm`: server-side confirmation of destructive tools, idempotency keys and the
//!   single-use ledger (memory or Redis).
//! - `backend`: the upstream Kobana API proxy and the concurrent `resources/list` fan-out (the
//!   sandbox backend lives in the `runtime-sandbox` crate).
//! - `auth`: bearer tokens → identities (embedded file, upstream resolver), RFC 9728 metadata.
//! - `state`: sealed `requestState` (HMAC-SHA256, rotating keys) for multi round-trip requests.
//! - `telemetry`: metrics and traces (OpenTelemetry, Prometheus text, OTLP), the request log
//!   line, the audit trail of writes, readiness probes. The layers above note what they learn into
//!   the request's facts through the handle its call carries (`contract::facts::Notes`): a
//!   request's context travels as values, not task-locals.
//! - `rpc`: JSON-RPC framing: messages, params, `_meta`, protocol errors, replies and pages.
//! - `record_schemas`: the schemas catalog JSON of a product (resource and tool alike).
//! - `contract`: the handler contract both `protocol` and `extensions` import: the request's
//!   `Call` (with its client address and the handle its facts are noted through), its era,
//!   `RpcError`, and what a handler receives and answers.

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
pub mod rpc;
pub mod server;
pub mod state;
pub mod tasks;
pub mod telemetry;
pub mod transport;
pub mod views;

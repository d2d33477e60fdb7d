//! MCP over JSON-RPC, in both protocol eras, served from the generated tables.
//!
//! - [`jsonrpc`]: framing and error codes.
//! - [`era`]: revisions, `_meta` keys, log levels.
//! - [`context`]: one request's caller, capabilities and channel back ([`context::Call`]).
//! - [`engine`]: method dispatch of one product ([`engine::Engine`]).
//! - [`listing`], [`tools`], [`resources`], [`prompts`], [`completion`]: the methods.
//! - [`mrtr`]: multi round-trip requests (sealed `requestState`).
//! - [`modern`]: validation of a 2026 request's `_meta`.
//! - [`output_schema`]: a tool's declared `outputSchema` enforced on its answers.
//! - [`request_log`]: the one log line of each request.

pub mod completion;
pub mod context;
pub mod dates;
pub mod engine;
pub mod era;
pub mod jsonrpc;
pub mod listing;
pub mod modern;
pub mod mrtr;
pub mod output_schema;
pub mod prompts;
pub mod request_log;
pub mod resources;
pub(crate) mod schemas;
pub mod tools;

pub use context::{Call, Peer, Session};
pub use engine::{Engine, EngineOptions, Reply};
pub use era::Era;

#[cfg(test)]
mod tests;

//! MCP over JSON-RPC, in both protocol eras, served from the generated tables.
//!
//! What a request carries (its [`Call`](crate::contract::Call), its era, its error type) and what handlers receive and
//! answer is the handler contract, [`crate::contract`]; this module implements the methods on it.
//!
//! - [`jsonrpc`]: framing (parsing messages, encoding answers).
//! - [`engine`]: method dispatch of one product ([`engine::Engine`]), built with its extensions.
//! - [`reply`]: what the engine answers ([`Reply`]), before the connection layer encodes it.
//! - [`compress`]: content codings (listings compressed once per page, large answers on the fly).
//! - [`listing`], [`tools`], [`resources`], [`prompts`], [`completion`]: the methods.
//! - [`mrtr`]: multi round-trip requests (sealed `requestState`).
//! - [`output_schema`]: a tool's declared `outputSchema` enforced on its answers.
//! - [`request_log`]: the one log line of each request.

pub mod completion;
pub mod compress;
pub mod dates;
pub mod engine;
pub mod jsonrpc;
pub mod listing;
pub mod mrtr;
pub mod output_schema;
pub mod prompts;
pub mod reply;
pub mod request_log;
pub mod resources;
pub(crate) mod schemas;
pub mod tools;

pub use engine::{Engine, EngineOptions};
pub use reply::Reply;

#[cfg(test)]
mod tests;

//! MCP over JSON-RPC, in both protocol eras, served from the generated tables.
//!
//! What a request carries (its [`Call`](crate::contract::Call), its era, its error type) and what handlers receive and
//! answer is the handler contract, [`crate::contract`]; this module implements the methods on it.
//!
//! - [`jsonrpc`]: framing (parsing messages, encoding answers); [`meta`]: a request's `_meta`.
//! - [`engine`]: method dispatch of one product ([`engine::Engine`]), built with its extensions.
//! - [`reply`]: what the engine answers ([`Reply`]), before the connection layer encodes it.
//! - [`compress`]: content codings (listings compressed once per page, large answers on the fly).
//! - [`listing`], [`tools`], [`resources`], [`prompts`], [`completion`]: the methods.
//! - [`mrtr`]: multi round-trip requests (sealed `requestState`).
//! - [`tasks`]: the Tasks extension (`tasks/*`, tool calls run as tasks).
//! - [`output_schema`]: a tool's declared `outputSchema` enforced on its answers.
//! - [`result_budget`]: a JSON answer larger than the result budget cut at a record boundary.
//! - [`request_log`]: the one log line of each request.
//! - [`rate`]: the per-identity rate limits of tool calls and resource reads.

pub mod completion;
pub mod compress;
pub mod dates;
pub mod discovery;
pub mod discovery_tools;
pub mod engine;
mod json_answer;
mod json_text;
pub mod jsonrpc;
pub mod language;
pub mod listing;
pub mod meta;
pub mod mrtr;
mod observe;
pub mod output_schema;
pub mod params;
pub mod prompt_env;
pub mod prompts;
pub mod protocol_errors;
pub mod rate;
pub mod reply;
pub mod request_log;
pub mod resources;
pub mod result_budget;
pub(crate) mod schemas;
pub mod task_follow;
pub mod tasks;
pub mod tools;

pub use engine::{Engine, EngineOptions};
pub use reply::Reply;

#[cfg(test)]
mod tests;

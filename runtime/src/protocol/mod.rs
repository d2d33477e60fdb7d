//! MCP over JSON-RPC, in both protocol eras, served from the generated tables.
//!
//! What a request carries (its [`Call`](crate::contract::Call), its era, its error type) and what handlers receive and
//! answer is the handler contract, [`crate::contract`]; this module implements the methods on it.
//!
//! JSON-RPC framing (messages, params, `_meta`, protocol errors, replies) is [`crate::rpc`]'s.
//! - [`engine`]: method dispatch of one product ([`engine::Engine`]), built with its extensions.
//! - [`listing`], [`tools`], [`resources`], [`prompts`], [`completion`]: the methods.
//! - [`mrtr`]: multi round-trip requests (sealed `requestState`).
//! - [`engine::ProtocolExtension`]: the seam protocol extensions (the Tasks extension, `crate::tasks`)
//!   plug into.
//! - [`output_schema`]: a tool's declared `outputSchema` enforced on its answers.
//! - [`result_budget`]: a JSON answer larger than the result budget cut at a record boundary.

pub mod completion;
pub mod dates;
pub mod discovery;
pub mod discovery_tools;
pub mod engine;
mod json_answer;
pub mod language;
pub mod listing;
pub mod mrtr;
pub mod output_schema;
mod owner_key;
pub mod prompt_env;
pub mod prompts;
pub mod resources;
pub mod result_budget;
pub(crate) mod schemas;
pub mod tools;
mod validation_words;

pub use engine::{Engine, EngineOptions};

#[cfg(test)]
mod tests;

//! The contract between generated catalogs and the runtime.
//!
//! Kept in its own small crate so that the `generated` tables depend only on these types (no
//! tokio, no axum), and so that the runtime, the sandbox and the generator agree on one shape.

pub mod backend;
pub mod canonical;
pub mod catalog;
pub mod errors;
pub mod identity;
pub mod locale;
pub mod record_facts;
pub mod schema_lint;
pub mod secrets;
pub mod selection;
pub mod texts;
pub mod upload;
pub mod uri_template;
pub mod views;

//! One translation of each catalog type into what the runtime reads.
//!
//! The catalog model (`crate::model`) says what people write; the runtime reads the types of
//! `runtime_model::catalog`. Each model type is lowered once, here, into its runtime type, and
//! both emitters work from that one value: the Rust emitter (`crate::rust`) prints it as a literal
//! of the generated tables, the docs emitter (`crate::docs`) describes it. So a new field of, say,
//! the policy is parsed in `model.rs` and lowered, printed and described in `lower/policy.rs`,
//! and neither emitter changes.

pub mod completion;
pub mod content;
pub mod policy;
pub mod prompt;
pub mod upload;

//! The Tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663): the state
//! of a tool call that outlives its request, kept where every instance can read it.
//!
//! A task is one record in the confirmation [`Ledger`](crate::confirm::Ledger) (memory for one process, Redis for
//! several), under `task:<id>`, expiring with the task's TTL. So a client may create a task on
//! one instance and poll, answer or cancel it on any other; a task whose TTL ran out is gone, and
//! is answered like an unknown one.
//!
//! Every change is a compare-and-set of the whole record ([`TaskStore::update`]): the worker
//! that runs the call and a `tasks/cancel` on another instance never overwrite each other, and a
//! terminal status (`completed`, `failed`, `cancelled`) never changes again.
//!
//! A task belongs to the caller that created it: person, organization and workspace
//! ([`TaskStore::get`] answers `None` to anybody else, exactly as for an id that does not exist,
//! so an id reveals nothing). Ids are 128 random bits.
//!
//! The protocol side (`tasks/get`, `tasks/update`, `tasks/cancel`, and creating a task from
//! `tools/call`) is `crate::protocol::tasks`; this module knows nothing of JSON-RPC.

mod options;
mod record;
mod store;

pub use options::TaskOptions;
pub use record::{unix_now, Status, TaskRecord};
pub use store::{TaskStore, TaskStoreError};

/// The extension's identifier, in `capabilities.extensions` of both sides.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/tasks";

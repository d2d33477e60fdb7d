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
//! `tools/call`) is [`extension`], on the protocol's extension seam; the records below know nothing
//! of JSON-RPC.

pub mod extension;
pub mod follow;
mod options;
mod record;
mod store;

pub use extension::TasksExtension;
pub use options::{TaskOptions, EXTENSION_ID};
pub use record::{unix_now, Status, TaskRecord};
pub use store::{TaskStore, TaskStoreError};

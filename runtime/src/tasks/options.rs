//! Tunables of tasks: TTL and polling.

use std::time::Duration;

/// Tunables of tasks.
#[derive(Debug, Clone)]
pub struct TaskOptions {
    /// How long a task (and its result) stays readable after it is created: `ttlMs`.
    pub ttl: Duration,
    /// How often a client should poll: `pollIntervalMs`.
    pub poll_interval: Duration,
    /// How often a running task looks at its record for a cancellation made on any instance,
    /// and a task waiting for input for the answers (`tasks/update`).
    pub watch_every: Duration,
    /// How often a task re-reads a record the Kobana API is still working on (an import, a
    /// sync: `protocol::task_follow`).
    pub follow_every: Duration,
    /// How long a task follows such a record before it answers with the last state read.
    pub follow_for: Duration,
    /// How often the instance running a task records that it is alive.
    pub heartbeat_every: Duration,
    /// A task not finished whose heartbeat is older than this lost its instance (a crash, a
    /// restart): the next `tasks/get` ends it, saying so.
    pub stale_after: Duration,
}

impl Default for TaskOptions {
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(60 * 60),
            poll_interval: Duration::from_secs(1),
            watch_every: Duration::from_millis(200),
            follow_every: Duration::from_secs(5),
            follow_for: Duration::from_secs(30 * 60),
            heartbeat_every: Duration::from_secs(5),
            stale_after: Duration::from_secs(60),
        }
    }
}

/// The extension's identifier, in `capabilities.extensions` of both sides.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/tasks";

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
}

impl Default for TaskOptions {
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(60 * 60),
            poll_interval: Duration::from_secs(1),
            watch_every: Duration::from_millis(200),
        }
    }
}

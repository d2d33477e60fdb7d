//! GCRA, the generic cell rate algorithm: one timestamp per key (its theoretical arrival time).

use std::time::Duration;

/// The parameters of one limit: a request every `interval` on average, `tolerance` ahead of
/// that schedule allowed (a burst of `limit`).
#[derive(Debug, Clone, Copy)]
pub struct Gcra {
    pub interval: Duration,
    pub tolerance: Duration,
}

impl Gcra {
    pub fn new(limit: u32, window: Duration) -> Self {
        let interval = window / limit.max(1);
        Self {
            interval,
            tolerance: window.saturating_sub(interval),
        }
    }
}

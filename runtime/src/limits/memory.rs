//! GCRA timestamps in this process.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::gcra::Gcra;

/// Past this many keys, a request first drops the keys whose bucket is full again (their
/// timestamp is in the past: forgetting them changes nothing).
const PRUNE_AT: usize = 10_000;

/// Theoretical arrival times, in microseconds since `base`.
pub struct MemoryStore {
    base: Instant,
    tats: Mutex<HashMap<String, u64>>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryStore {
    pub fn new() -> Self {
        Self {
            base: Instant::now(),
            tats: Mutex::new(HashMap::new()),
        }
    }

    /// `None` when admitted (and counted); else how long to wait.
    pub fn admit(&self, key: &str, g: Gcra) -> Option<Duration> {
        let now = u64::try_from(self.base.elapsed().as_micros()).unwrap_or(u64::MAX);
        let interval = u64::try_from(g.interval.as_micros()).unwrap_or(u64::MAX);
        let tolerance = u64::try_from(g.tolerance.as_micros()).unwrap_or(u64::MAX);
        // A poisoned lock only means another request panicked mid-update of a timestamp.
        let mut tats = self.tats.lock().unwrap_or_else(|p| p.into_inner());
        if tats.len() >= PRUNE_AT {
            tats.retain(|_, tat| *tat > now);
        }
        let tat = tats.get(key).copied().unwrap_or(now).max(now);
        let ahead = tat - now;
        if ahead > tolerance {
            return Some(Duration::from_micros(ahead - tolerance));
        }
        tats.insert(key.to_string(), tat.saturating_add(interval));
        None
    }
}

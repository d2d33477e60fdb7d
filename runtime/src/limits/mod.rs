//! Rate limits: how many requests one identity, one client IP and one tool class may make.
//!
//! Three limits, each a number of requests per window (a minute unless configured), 0 = off:
//! - **reads**: calls of read-only tools (`readOnlyHint`) and resource reads, per identity
//!   (person in an organization);
//! - **writes**: calls of every other tool, per identity — tighter than reads, since writes move
//!   money and each one is a confirmation a person answers;
//! - **ip**: every HTTP request of one client address, before its body is read (the transport's
//!   [`crate::transport::client`] layer).
//!
//! The algorithm is GCRA (a token bucket kept as one timestamp per key): a limit of N per window
//! allows a burst of N, then one more every window / N. The state is in memory, or in Redis when
//! the confirmation ledger is a Redis one ([`RateLimiter::from_ledger_setting`]), so every
//! instance behind one load balancer counts together. A Redis that cannot answer lets requests
//! through (with a warning): a limit is protection, and refusing every call while Redis is down
//! would turn an outage of Redis into an outage of the server.
//!
//! A refused request is answered with [`RATE_LIMITED`] naming the limit, with the seconds to
//! wait in `data.retryAfterSecs`; HTTP also answers 429 with `Retry-After`.

mod gcra;
mod memory;
mod redis;

use std::time::Duration;

use runtime_model::locale::Locale;
use runtime_model::texts::Text;
use serde_json::json;

use crate::contract::error::RATE_LIMITED;
use crate::contract::RpcError;

pub use gcra::Gcra;
pub use memory::MemoryStore;
pub use redis::RedisStore;

/// Default reads per identity per minute: ten a second, more than an agent paging through
/// lists needs, few enough that a runaway loop is stopped within a minute.
pub const DEFAULT_READS_PER_MINUTE: u32 = 600;
/// Default writes per identity per minute: one a second; a person confirming each payment
/// never reaches it, a script creating records in a loop does.
pub const DEFAULT_WRITES_PER_MINUTE: u32 = 60;
/// Default requests per client IP per minute: room for a few dozen people behind one NAT
/// (every request counts: lists, pings, notifications), before any token is checked.
pub const DEFAULT_IP_PER_MINUTE: u32 = 1200;

/// The configured limits (0 = that limit is off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimits {
    /// Calls of read-only tools and resource reads, per identity per window.
    pub reads: u32,
    /// Calls of other tools, per identity per window.
    pub writes: u32,
    /// HTTP requests per client IP per window.
    pub ip: u32,
    /// The window the numbers are counted in (a minute; tests use less).
    pub window: Duration,
}

impl Default for RateLimits {
    fn default() -> Self {
        Self {
            reads: DEFAULT_READS_PER_MINUTE,
            writes: DEFAULT_WRITES_PER_MINUTE,
            ip: DEFAULT_IP_PER_MINUTE,
            window: Duration::from_secs(60),
        }
    }
}

impl RateLimits {
    /// No limit at all.
    pub fn off() -> Self {
        Self {
            reads: 0,
            writes: 0,
            ip: 0,
            window: Duration::from_secs(60),
        }
    }

    fn of(&self, class: Class) -> u32 {
        match class {
            Class::Reads => self.reads,
            Class::Writes => self.writes,
            Class::Ip => self.ip,
        }
    }
}

/// Which limit a request counts against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Reads,
    Writes,
    Ip,
}

impl Class {
    /// The limit a call of `tool` counts against: `reads` for a read-only tool (`readOnlyHint`),
    /// `writes` for any other, however the call reaches it (directly or through discovery).
    pub fn of_tool(tool: &runtime_model::catalog::Tool) -> Class {
        if tool.annotations.read_only {
            Class::Reads
        } else {
            Class::Writes
        }
    }

    /// The limit's name in errors and `data.limit`.
    pub fn name(self) -> &'static str {
        match self {
            Class::Reads => "reads",
            Class::Writes => "writes",
            Class::Ip => "ip",
        }
    }

    /// The flag that sets it.
    pub fn flag(self) -> &'static str {
        match self {
            Class::Reads => "--rate-limit-reads",
            Class::Writes => "--rate-limit-writes",
            Class::Ip => "--rate-limit-ip",
        }
    }
}

/// A refused request: which limit, and how long to wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limited {
    pub class: Class,
    /// The limit (requests per window).
    pub limit: u32,
    pub window: Duration,
    /// When the next request of this key would be accepted.
    pub retry_after: Duration,
}

impl Limited {
    /// Whole seconds to wait (at least 1), as `Retry-After` carries them.
    pub fn retry_after_secs(&self) -> u64 {
        let ms = self.retry_after.as_millis();
        u64::try_from(ms.div_ceil(1000)).unwrap_or(u64::MAX).max(1)
    }

    /// The JSON-RPC error of a refused request, its message in `locale` (the limit's name and
    /// flag stay as they are).
    pub fn rpc_error(&self, locale: Locale) -> RpcError {
        let secs = self.retry_after_secs();
        let (name, max, window, flag) = (
            self.class.name(),
            self.limit,
            self.window.as_secs_f64(),
            self.class.flag(),
        );
        let who = match self.class {
            Class::Ip => Text::RateLimitedIp,
            Class::Reads => Text::RateLimitedReads,
            Class::Writes => Text::RateLimitedWrites,
        };
        let message = Text::RateLimited.fill(
            locale,
            &[
                ("name", &name),
                ("max", &max),
                ("who", &who.get(locale)),
                ("window", &window),
                ("flag", &flag),
                ("secs", &secs),
            ],
        );
        RpcError::new(RATE_LIMITED, message).with_data(json!({
            "limit": self.class.name(),
            "max": self.limit,
            "windowSecs": self.window.as_secs_f64(),
            "retryAfterSecs": secs,
            "retryAfterMs": u64::try_from(self.retry_after.as_millis()).unwrap_or(u64::MAX),
        }))
    }
}

/// Where the GCRA timestamps live.
enum Store {
    Memory(MemoryStore),
    Redis(RedisStore),
}

/// The limits and their counters; one per server, shared by its products and transports.
pub struct RateLimiter {
    limits: RateLimits,
    store: Store,
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let store = match self.store {
            Store::Memory(_) => "memory",
            Store::Redis(_) => "redis",
        };
        f.debug_struct("RateLimiter")
            .field("limits", &self.limits)
            .field("store", &store)
            .finish()
    }
}

impl RateLimiter {
    /// Counters in this process.
    pub fn memory(limits: RateLimits) -> Self {
        Self {
            limits,
            store: Store::Memory(MemoryStore::new()),
        }
    }

    /// Counters in Redis at `url` (shared by every instance using it).
    pub fn redis(limits: RateLimits, url: &str) -> Result<Self, String> {
        Ok(Self {
            limits,
            store: Store::Redis(RedisStore::new(url)?),
        })
    }

    /// Counters where the confirmation ledger is: Redis when its setting is a `redis://` URL
    /// (the instances sharing confirmations share limits too), memory otherwise.
    pub fn from_ledger_setting(limits: RateLimits, setting: Option<&str>) -> Result<Self, String> {
        match setting.map(str::trim) {
            Some(url) if url.starts_with("redis://") || url.starts_with("rediss://") => {
                Self::redis(limits, url)
            }
            _ => Ok(Self::memory(limits)),
        }
    }

    pub fn limits(&self) -> RateLimits {
        self.limits
    }

    /// Whether `class` is limited at all.
    pub fn enabled(&self, class: Class) -> bool {
        self.limits.of(class) > 0
    }

    /// Counts one request of `who` (organization and person: one person's tokens and sessions
    /// share a bucket, two people never do) against `class`; `Some(error)`, in `locale`, when it
    /// is over the limit. The engine calls it before a tool call or resource read does any work.
    pub async fn check_identity(
        &self,
        class: Class,
        who: &runtime_model::identity::Identity,
        locale: Locale,
    ) -> Option<RpcError> {
        if !self.enabled(class) {
            return None;
        }
        let key = json!([who.organization, who.person]).to_string();
        match self.check(class, &key).await {
            Ok(()) => None,
            Err(limited) => {
                tracing::info!(
                    limit = class.name(),
                    retry_after_secs = limited.retry_after_secs(),
                    person = %who.person,
                    "rate limit reached"
                );
                Some(limited.rpc_error(locale))
            }
        }
    }

    /// Counts one request of `key` against `class`; `Err` when it is over the limit (and then
    /// it is not counted).
    pub async fn check(&self, class: Class, key: &str) -> Result<(), Limited> {
        let limit = self.limits.of(class);
        if limit == 0 {
            return Ok(());
        }
        let window = self.limits.window.max(Duration::from_millis(1));
        let gcra = Gcra::new(limit, window);
        let key = format!("{}:{key}", class.name());
        let wait = match &self.store {
            Store::Memory(m) => m.admit(&key, gcra),
            // Boxed: the Redis round trip's future is kilobytes, and inline it would size (and
            // be copied with) every request's future, limited or not, Redis or not.
            Store::Redis(r) => match Box::pin(r.admit(&key, gcra)).await {
                Ok(w) => w,
                Err(e) => {
                    tracing::warn!(error = %e, limit = class.name(), "rate limit not checked (Redis unavailable); request let through");
                    None
                }
            },
        };
        match wait {
            None => Ok(()),
            Some(retry_after) => Err(Limited {
                class,
                limit,
                window,
                retry_after,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_burst_of_the_limit_passes_then_the_next_waits_one_interval() {
        let l = RateLimiter::memory(RateLimits {
            reads: 3,
            writes: 1,
            ip: 0,
            window: Duration::from_secs(3),
        });
        for _ in 0..3 {
            assert_eq!(l.check(Class::Reads, "a").await, Ok(()));
        }
        let refused = l.check(Class::Reads, "a").await.unwrap_err();
        assert_eq!(refused.class, Class::Reads);
        assert!(refused.retry_after <= Duration::from_secs(1), "{refused:?}");
        assert!(
            refused.retry_after > Duration::from_millis(900),
            "{refused:?}"
        );
        assert_eq!(refused.retry_after_secs(), 1);
        // Other keys and classes count apart; a limit of 0 is off.
        assert_eq!(l.check(Class::Reads, "b").await, Ok(()));
        assert_eq!(l.check(Class::Writes, "a").await, Ok(()));
        assert!(l.check(Class::Writes, "a").await.is_err());
        for _ in 0..100 {
            assert_eq!(l.check(Class::Ip, "a").await, Ok(()));
        }
    }

    #[test]
    fn the_error_names_the_limit_and_the_wait() {
        let e = Limited {
            class: Class::Writes,
            limit: 60,
            window: Duration::from_secs(60),
            retry_after: Duration::from_millis(1200),
        }
        .rpc_error(Locale::En);
        assert_eq!(e.code, RATE_LIMITED);
        assert!(e.message.contains("--rate-limit-writes"), "{}", e.message);
        let data = e.data.unwrap();
        assert_eq!(data["limit"], "writes");
        assert_eq!(data["retryAfterSecs"], 2);
        assert_eq!(data["retryAfterMs"], 1200);
    }
}

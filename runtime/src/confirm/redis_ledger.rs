//! The Redis confirmation ledger, for several server instances.
//!
//! Each operation is one Lua script, atomic on the Redis server: of all instances that record
//! one confirmation exactly one succeeds; the others see the record (a replay). Records expire
//! with the confirmation (or the idempotency window); each owner's live records are counted in
//! a sorted set scored by expiry, for the per-owner quota.
//!
//! Single use holds only while Redis keeps the keys: [`RedisLedger::durability_problems`] checks
//! persistence and the eviction policy, and the CLI refuses to start on a volatile Redis unless
//! told otherwise (`--allow-volatile-ledger`).
//!
//! The connection is a multiplexed one (one TCP connection shared by all requests), opened on
//! first use and re-opened after an error, with short timeouts: a ledger that cannot answer
//! quickly answers [`LedgerError::Unavailable`]. The server may therefore start while Redis is
//! down; confirmations are refused (`confirmation_unavailable`, nothing runs) until it is back,
//! and what runs without one still runs (`idempotency::Claimed::during_outage`).

use std::time::Duration;

use redis::aio::MultiplexedConnection;
use redis::AsyncConnectionConfig;
use runtime_model::backend::BoxFuture;
use tokio::sync::Mutex;

use super::ledger::{Ledger, LedgerError};

/// Timeout to open a connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// Timeout of one command.
pub const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);
/// Prefix of every record this ledger writes.
pub const KEY_PREFIX: &str = "kobana-mcp:confirmation:";
/// Prefix of the per-owner sets that count an owner's live records (the quota).
pub const OWNER_PREFIX: &str = "kobana-mcp:owner:";

/// A ledger kept in Redis.
pub struct RedisLedger {
    client: redis::Client,
    /// Where the URL points, without credentials (for error messages).
    display: String,
    conn: Mutex<Option<MultiplexedConnection>>,
    owner_quota: usize,
}

impl RedisLedger {
    /// Parses the URL (`redis://host:port/db`, `rediss://…`); does not connect yet.
    pub fn new(url: &str) -> Result<Self, LedgerError> {
        let client = redis::Client::open(url)
            .map_err(|e| LedgerError::Unavailable(format!("invalid Redis URL: {e}")))?;
        let info = client.get_connection_info();
        Ok(Self {
            display: format!("{}", info.addr),
            client,
            conn: Mutex::new(None),
            owner_quota: super::ledger::DEFAULT_OWNER_QUOTA,
        })
    }

    /// The most live records one owner may hold (see [`super::Ledger`]).
    pub fn with_owner_quota(mut self, quota: usize) -> Self {
        self.owner_quota = quota.max(1);
        self
    }

    /// Connects now (to fail fast at start-up when wanted).
    pub async fn check(&self) -> Result<(), LedgerError> {
        self.connection().await.map(|_| ())
    }

    async fn connection(&self) -> Result<MultiplexedConnection, LedgerError> {
        let mut slot = self.conn.lock().await;
        if let Some(c) = slot.as_ref() {
            return Ok(c.clone());
        }
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(CONNECT_TIMEOUT)
            .set_response_timeout(RESPONSE_TIMEOUT);
        let fut = self
            .client
            .get_multiplexed_async_connection_with_config(&config);
        let conn = tokio::time::timeout(CONNECT_TIMEOUT + Duration::from_millis(500), fut)
            .await
            .map_err(|_| self.unavailable("connection timed out"))?
            .map_err(|e| self.unavailable(&e.to_string()))?;
        *slot = Some(conn.clone());
        Ok(conn)
    }

    async fn forget_connection(&self) {
        *self.conn.lock().await = None;
    }

    fn unavailable(&self, why: &str) -> LedgerError {
        LedgerError::Unavailable(format!("Redis at {}: {why}", self.display))
    }

    /// Runs one of the ledger's scripts; a broken connection is re-opened on the next call.
    pub(crate) async fn run<T: redis::FromRedisValue>(
        &self,
        script: &redis::Script,
        keys: &[&str],
        args: &[String],
    ) -> Result<T, LedgerError> {
        let mut conn = self.connection().await?;
        let mut inv = script.prepare_invoke();
        for k in keys {
            inv.key(*k);
        }
        for a in args {
            inv.arg(a);
        }
        let result = tokio::time::timeout(RESPONSE_TIMEOUT, inv.invoke_async(&mut conn)).await;
        match result {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => {
                // Timeouts and errors leave the connection in an unknown state: start afresh.
                self.forget_connection().await;
                Err(self.unavailable(&e.to_string()))
            }
            Err(_) => {
                self.forget_connection().await;
                Err(self.unavailable("command timed out"))
            }
        }
    }

    /// Checks that Redis keeps the ledger's keys: persistence on (AOF, or RDB snapshots) and
    /// an eviction policy that never evicts them. Answers the problems found (empty = durable).
    ///
    /// Eviction: our keys all carry a TTL, so `volatile-*` policies could evict them as readily
    /// as `allkeys-*`; only `noeviction` is accepted (Redis then refuses writes when full, which
    /// the ledger reports as unavailable and nothing runs).
    pub async fn durability_problems(&self) -> Result<Vec<String>, LedgerError> {
        let conn = self.connection().await?;
        let get = |name: &'static str| {
            let mut conn = conn.clone();
            async move {
                let r: Result<Vec<String>, _> = tokio::time::timeout(
                    RESPONSE_TIMEOUT,
                    redis::cmd("CONFIG")
                        .arg("GET")
                        .arg(name)
                        .query_async(&mut conn),
                )
                .await
                .map_err(|_| format!("CONFIG GET {name} timed out"))?;
                r.map_err(|e| format!("CONFIG GET {name}: {e}"))
                    .map(|v| v.get(1).cloned().unwrap_or_default())
            }
        };
        let appendonly = get("appendonly").await.map_err(|e| self.unavailable(&e))?;
        let save = get("save").await.map_err(|e| self.unavailable(&e))?;
        let policy = get("maxmemory-policy")
            .await
            .map_err(|e| self.unavailable(&e))?;
        Ok(durability_verdict(&appendonly, &save, &policy))
    }
}

/// The problems of a Redis configuration for the ledger (see
/// [`RedisLedger::durability_problems`]).
pub fn durability_verdict(appendonly: &str, save: &str, policy: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if !appendonly.eq_ignore_ascii_case("yes") && save.trim().is_empty() {
        problems.push(
            "persistence is off (appendonly no and no save points): a restart forgets every used confirmation; set `appendonly yes` (with `appendfsync everysec` or `always`)".to_string(),
        );
    } else if !appendonly.eq_ignore_ascii_case("yes") {
        problems.push(format!(
            "only RDB snapshots (save \"{save}\"): a crash loses the confirmations used since the last snapshot; set `appendonly yes`"
        ));
    }
    if !policy.eq_ignore_ascii_case("noeviction") {
        problems.push(format!(
            "maxmemory-policy is `{policy}`: Redis may evict used confirmations when memory runs short; set `maxmemory-policy noeviction`"
        ));
    }
    problems
}

/// `put_new`: KEYS[1] record, KEYS[2] the owner's set (unused when ARGV[3] is 0);
/// ARGV value, ttl seconds, quota, now (unix seconds).
const PUT_NEW: &str = r#"
local existing = redis.call('GET', KEYS[1])
if existing then return {1, existing} end
local quota = tonumber(ARGV[3])
local ttl = tonumber(ARGV[2])
if quota > 0 then
  local now = tonumber(ARGV[4])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if redis.call('ZCARD', KEYS[2]) >= quota then return {2, ''} end
  redis.call('ZADD', KEYS[2], now + ttl, KEYS[1])
  if redis.call('TTL', KEYS[2]) < ttl then redis.call('EXPIRE', KEYS[2], ttl) end
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ttl)
return {0, ''}
"#;

const COMPARE_AND_SET: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  return 1
end
return 0
"#;

const GET: &str = r#"
return redis.call('GET', KEYS[1])
"#;

const REMOVE_IF: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
"#;

/// `release`: KEYS[1] the owner's set, ARGV[1] the record's key.
const RELEASE: &str = r#"
return redis.call('ZREM', KEYS[1], ARGV[1])
"#;

fn script(src: &'static str) -> &'static redis::Script {
    use std::sync::OnceLock;
    static PUT: OnceLock<redis::Script> = OnceLock::new();
    static CAS: OnceLock<redis::Script> = OnceLock::new();
    static DEL: OnceLock<redis::Script> = OnceLock::new();
    static READ: OnceLock<redis::Script> = OnceLock::new();
    static FREE: OnceLock<redis::Script> = OnceLock::new();
    let cell = match src {
        RELEASE => &FREE,
        PUT_NEW => &PUT,
        COMPARE_AND_SET => &CAS,
        GET => &READ,
        _ => &DEL,
    };
    cell.get_or_init(|| redis::Script::new(src))
}

fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl Ledger for RedisLedger {
    fn release<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<(), LedgerError>> {
        Box::pin(async move {
            if owner.is_empty() {
                return Ok(());
            }
            let _: i64 = self
                .run(
                    script(RELEASE),
                    &[&format!("{OWNER_PREFIX}{owner}")],
                    &[format!("{KEY_PREFIX}{key}")],
                )
                .await?;
            Ok(())
        })
    }
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, LedgerError>> {
        Box::pin(async move {
            self.run(script(GET), &[&format!("{KEY_PREFIX}{key}")], &[])
                .await
        })
    }
    fn put_new<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
        ttl: Duration,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, LedgerError>> {
        Box::pin(async move {
            let record = format!("{KEY_PREFIX}{key}");
            let owner_set = format!("{OWNER_PREFIX}{owner}");
            let quota = if owner.is_empty() {
                0
            } else {
                self.owner_quota
            };
            let (tag, existing): (u8, String) = self
                .run(
                    script(PUT_NEW),
                    &[&record, &owner_set],
                    &[
                        value.to_string(),
                        ttl.as_secs().max(1).to_string(),
                        quota.to_string(),
                        now_unix().to_string(),
                    ],
                )
                .await?;
            match tag {
                0 => Ok(None),
                1 => Ok(Some(existing)),
                _ => Err(LedgerError::QuotaExceeded(self.owner_quota)),
            }
        })
    }

    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: &'a str,
        new: &'a str,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        Box::pin(async move {
            let n: i64 = self
                .run(
                    script(COMPARE_AND_SET),
                    &[&format!("{KEY_PREFIX}{key}")],
                    &[expected.to_string(), new.to_string()],
                )
                .await?;
            Ok(n == 1)
        })
    }

    fn remove_if<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        Box::pin(async move {
            let n: i64 = self
                .run(
                    script(REMOVE_IF),
                    &[&format!("{KEY_PREFIX}{key}")],
                    &[value.to_string()],
                )
                .await?;
            Ok(n == 1)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::confirm::ledger::suite;
    use std::sync::Arc;

    /// `REDIS_URL`, default `redis://127.0.0.1:6379`.
    pub(crate) fn redis_url() -> String {
        std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
    }

    /// The Redis tests need a running Redis (scripts/test.sh starts one). Without one they fail
    /// with a message saying how to start it, unless `KOBANA_TEST_SKIP=redis` (the tests' one
    /// opt-out, see tests/support/skip.rs) says to skip them, which they then say.
    pub(super) async fn ledger_or_skip() -> Option<RedisLedger> {
        let skip = std::env::var("KOBANA_TEST_SKIP").unwrap_or_default();
        if skip.split(',').any(|w| w.trim() == "redis") {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED Redis ledger test: needs Redis (REDIS_URL) (KOBANA_TEST_SKIP={skip})"
            );
            return None;
        }
        let l = RedisLedger::new(&redis_url()).unwrap();
        match l.check().await {
            Ok(()) => Some(l),
            Err(e) => panic!(
                "Redis ledger tests need Redis at {} ({e}); start one with `redis-server --port 6379 --daemonize yes`, or set KOBANA_TEST_SKIP=redis",
                redis_url()
            ),
        }
    }

    #[tokio::test]
    async fn redis_ledger_passes_the_suite() {
        if let Some(l) = ledger_or_skip().await {
            suite::run_all(Arc::new(l)).await;
            let small = RedisLedger::new(&redis_url()).unwrap().with_owner_quota(5);
            suite::owners_have_a_quota(&small, 5).await;
        }
    }

    #[test]
    fn only_a_persistent_noeviction_redis_is_durable() {
        assert!(durability_verdict("yes", "", "noeviction").is_empty());
        assert!(durability_verdict("yes", "3600 1", "noeviction").is_empty());
        let v = durability_verdict("no", "", "noeviction");
        assert!(v.len() == 1 && v[0].contains("persistence is off"), "{v:?}");
        let v = durability_verdict("no", "3600 1", "noeviction");
        assert!(v.len() == 1 && v[0].contains("appendonly yes"), "{v:?}");
        for policy in [
            "allkeys-lru",
            "volatile-lru",
            "volatile-ttl",
            "allkeys-random",
        ] {
            let v = durability_verdict("yes", "", policy);
            assert!(v.len() == 1 && v[0].contains(policy), "{v:?}");
        }
    }

    #[tokio::test]
    async fn two_instances_sharing_one_redis_see_each_others_records() {
        let Some(a) = ledger_or_skip().await else {
            return;
        };
        let b = RedisLedger::new(&redis_url()).unwrap();
        let key = format!("shared:{}", crate::state::new_nonce().unwrap());
        assert_eq!(a.record_once(&key, Duration::from_secs(30)).await, Ok(true));
        assert_eq!(
            b.record_once(&key, Duration::from_secs(30)).await,
            Ok(false)
        );
    }

    #[tokio::test]
    async fn a_refusing_redis_is_unavailable() {
        // Port 1 on localhost refuses connections.
        let l = RedisLedger::new("redis://127.0.0.1:1").unwrap();
        let r = l.record_once("k", Duration::from_secs(5)).await;
        assert!(
            matches!(&r, Err(LedgerError::Unavailable(m)) if m.contains("127.0.0.1:1")),
            "{r:?}"
        );
        assert!(RedisLedger::new("not a url").is_err());
    }
}

#[cfg(test)]
#[path = "redis_ledger_tests.rs"]
mod failure_tests;

//! The Redis confirmation ledger, for several server instances: `SET <key> 1 NX EX <ttl>`.
//!
//! `SET … NX` is atomic on the Redis server, so of all instances that record one confirmation
//! exactly one gets `OK`; the others get nil (a replay). Keys expire with the confirmation.
//!
//! The connection is a multiplexed one (one TCP connection shared by all requests), opened on
//! first use and re-opened after an error, with short timeouts: a ledger that cannot answer
//! quickly answers [`LedgerError::Unavailable`] and nothing runs. The server may therefore start
//! while Redis is down; destructive tools are refused (`confirmation_unavailable`) until it is back.

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
/// Prefix of every key this ledger writes.
pub const KEY_PREFIX: &str = "kobana-mcp:confirmation:";

/// A ledger kept in Redis.
pub struct RedisLedger {
    client: redis::Client,
    /// Where the URL points, without credentials (for error messages).
    display: String,
    conn: Mutex<Option<MultiplexedConnection>>,
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
        })
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

    async fn set_nx(&self, key: &str, ttl: Duration) -> Result<bool, LedgerError> {
        let mut conn = self.connection().await?;
        let secs = ttl.as_secs().max(1);
        let cmd = redis::cmd("SET")
            .arg(format!("{KEY_PREFIX}{key}"))
            .arg(1)
            .arg("NX")
            .arg("EX")
            .arg(secs)
            .to_owned();
        let result: Result<Option<String>, _> =
            tokio::time::timeout(RESPONSE_TIMEOUT, cmd.query_async(&mut conn))
                .await
                .map_err(|_| self.unavailable("command timed out"))?;
        match result {
            Ok(Some(ok)) if ok == "OK" => Ok(true),
            Ok(Some(other)) => {
                Err(self.unavailable(&format!("unexpected answer {other:?} to SET NX")))
            }
            Ok(None) => Ok(false),
            Err(e) => {
                // A broken connection is re-opened on the next call.
                if e.is_io_error() || e.is_connection_dropped() || e.is_timeout() {
                    self.forget_connection().await;
                }
                Err(self.unavailable(&e.to_string()))
            }
        }
    }
}

impl Ledger for RedisLedger {
    fn record_once<'a>(
        &'a self,
        key: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        Box::pin(async move {
            let r = self.set_nx(key, ttl).await;
            if r.is_err() {
                // Timeouts leave the connection in an unknown state: start afresh next time.
                self.forget_connection().await;
            }
            r
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
    async fn ledger_or_skip() -> Option<RedisLedger> {
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

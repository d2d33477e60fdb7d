//! GCRA timestamps in Redis, shared by every instance: one Lua script per request, atomic on
//! the Redis server, timed by the Redis clock (instances' clocks need not agree). The connection
//! handling (lazy, timeouts, re-opened after an error) is the confirmation ledger's.

use std::time::Duration;

use super::gcra::Gcra;
use crate::confirm::RedisLedger;

/// Prefix of every key the limiter writes.
pub const KEY_PREFIX: &str = "kobana-mcp:rate:";

/// KEYS[1] the key's timestamp; ARGV interval and tolerance in microseconds. Answers 0 when
/// admitted, else the microseconds to wait. The key expires when its bucket is full again.
const ADMIT: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local ahead = tat - now
if ahead > tolerance then return ahead - tolerance end
local new = tat + interval
redis.call('SET', KEYS[1], string.format('%.0f', new), 'PX', math.floor((new - now) / 1000) + 1)
return 0
"#;

pub struct RedisStore {
    conn: RedisLedger,
    script: ::redis::Script,
}

impl RedisStore {
    /// Parses the URL; connects on first use.
    pub fn new(url: &str) -> Result<Self, String> {
        Ok(Self {
            conn: RedisLedger::new(url).map_err(|e| e.to_string())?,
            script: ::redis::Script::new(ADMIT),
        })
    }

    /// `Ok(None)` when admitted (and counted); `Ok(Some(wait))` when over the limit.
    pub async fn admit(&self, key: &str, g: Gcra) -> Result<Option<Duration>, String> {
        let key = format!("{KEY_PREFIX}{key}");
        let args = [
            g.interval.as_micros().max(1).to_string(),
            g.tolerance.as_micros().to_string(),
        ];
        let wait: i64 = self
            .conn
            .run(&self.script, &[&key], &args)
            .await
            .map_err(|e| e.to_string())?;
        Ok((wait > 0).then(|| Duration::from_micros(wait.unsigned_abs())))
    }
}

//! The Redis ledger's own ways of failing, against a running Redis (issue 42: each test fails on
//! some change cargo-mutants makes to `redis_ledger.rs`): the start-up check, a connection the
//! server dropped, the owner quota's expiry, and the durability read from Redis itself.

use super::tests::{ledger_or_skip, redis_url};
use super::*;

fn unique(prefix: &str) -> String {
    format!(
        "test:{prefix}:{}",
        crate::state::new_nonce().expect("randomness")
    )
}

async fn plain_connection() -> MultiplexedConnection {
    redis::Client::open(redis_url())
        .expect("the test Redis URL")
        .get_multiplexed_async_connection()
        .await
        .expect("a connection to the test Redis")
}

/// The start-up check connects: a Redis that is not there fails it (and the server does not
/// start on it), rather than at the first confirmation.
#[tokio::test]
async fn the_start_up_check_connects() {
    let l = RedisLedger::new("redis://127.0.0.1:1").expect("a URL");
    let r = l.check().await;
    assert!(
        matches!(&r, Err(LedgerError::Unavailable(m)) if m.contains("127.0.0.1:1")),
        "{r:?}"
    );
}

/// A connection the server dropped (Redis restarted, a proxy timed out) is opened again: the
/// call that meets the broken connection is unavailable, the calls after it work.
#[tokio::test]
async fn a_dropped_connection_is_opened_again() {
    let Some(l) = ledger_or_skip().await else {
        return;
    };
    let mut conn = l.connection().await.expect("connected");
    let id: i64 = redis::cmd("CLIENT")
        .arg("ID")
        .query_async(&mut conn)
        .await
        .expect("CLIENT ID");
    let killed: i64 = redis::cmd("CLIENT")
        .arg("KILL")
        .arg("ID")
        .arg(id)
        .query_async(&mut plain_connection().await)
        .await
        .expect("CLIENT KILL");
    assert_eq!(killed, 1);
    let key = unique("reconnect");
    let first = l.get(&key).await;
    assert!(
        matches!(first, Ok(None) | Err(LedgerError::Unavailable(_))),
        "{first:?}"
    );
    assert_eq!(l.get(&key).await, Ok(None));
    assert_eq!(
        l.put_new(&key, "v", Duration::from_secs(30), "").await,
        Ok(None)
    );
    assert_eq!(l.get(&key).await, Ok(Some("v".into())));
}

/// An owner's expired records leave its quota while its other records live on: the owner's set
/// (which lives as long as its longest record) is trimmed by the time now.
#[tokio::test]
async fn expired_records_give_an_owner_its_room_back() {
    if ledger_or_skip().await.is_none() {
        return;
    }
    let l = RedisLedger::new(&redis_url())
        .expect("a URL")
        .with_owner_quota(2);
    let owner = unique("expiring-owner");
    let (long, short, next) = (unique("long"), unique("short"), unique("next"));
    let second = Duration::from_secs(1);
    assert_eq!(
        l.put_new(&long, "x", Duration::from_secs(60), &owner).await,
        Ok(None)
    );
    assert_eq!(l.put_new(&short, "x", second, &owner).await, Ok(None));
    assert_eq!(
        l.put_new(&next, "x", second, &owner).await,
        Err(LedgerError::QuotaExceeded(2))
    );
    // Redis counts expiry in whole seconds: past two of them the short record is gone.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(l.get(&short).await, Ok(None));
    assert_eq!(l.get(&long).await, Ok(Some("x".into())));
    assert_eq!(l.put_new(&next, "x", second, &owner).await, Ok(None));
}

/// The durability verdict is about the Redis the ledger uses, read from its configuration: the
/// test Redis as it runs, then made to evict (and put back).
#[tokio::test]
async fn durability_is_read_from_the_redis_itself() {
    let Some(l) = ledger_or_skip().await else {
        return;
    };
    let mut c = plain_connection().await;
    let mut config = Vec::new();
    for name in ["appendonly", "save", "maxmemory-policy"] {
        let v: Vec<String> = redis::cmd("CONFIG")
            .arg("GET")
            .arg(name)
            .query_async(&mut c)
            .await
            .expect("CONFIG GET");
        config.push(v.get(1).cloned().unwrap_or_default());
    }
    assert_eq!(
        l.durability_problems().await,
        Ok(durability_verdict(&config[0], &config[1], &config[2]))
    );
    let set = |policy: String| {
        let mut c = c.clone();
        async move {
            let _: () = redis::cmd("CONFIG")
                .arg("SET")
                .arg("maxmemory-policy")
                .arg(policy)
                .query_async(&mut c)
                .await
                .expect("CONFIG SET");
        }
    };
    set("allkeys-lru".into()).await;
    let evicting = l.durability_problems().await;
    set(config[2].clone()).await;
    let evicting = evicting.expect("read");
    assert!(
        evicting.iter().any(|p| p.contains("`allkeys-lru`")),
        "{evicting:?}"
    );
}

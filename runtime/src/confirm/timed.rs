//! The ledger, timed: every operation's duration goes to `kobana.ledger.operation.duration`.
//! Installed once around whichever ledger the server has (`Server::new`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use runtime_model::backend::BoxFuture;

use super::{Ledger, LedgerError};
use crate::telemetry::Telemetry;

/// A [`Ledger`] that times the one it wraps.
pub struct TimedLedger {
    inner: Arc<dyn Ledger>,
    telemetry: Telemetry,
}

impl TimedLedger {
    pub fn wrap(inner: Arc<dyn Ledger>, telemetry: Telemetry) -> Arc<dyn Ledger> {
        Arc::new(Self { inner, telemetry })
    }

    async fn timed<T>(
        &self,
        op: &'static str,
        fut: impl std::future::Future<Output = Result<T, LedgerError>>,
    ) -> Result<T, LedgerError> {
        let started = Instant::now();
        let out = fut.await;
        let failed = matches!(out, Err(LedgerError::Unavailable(_)));
        self.telemetry
            .instruments()
            .ledger_op(op, started.elapsed(), failed);
        out
    }
}

impl Ledger for TimedLedger {
    fn put_new<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
        ttl: Duration,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, LedgerError>> {
        Box::pin(self.timed("put_new", self.inner.put_new(key, value, ttl, owner)))
    }

    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: &'a str,
        new: &'a str,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        Box::pin(self.timed(
            "compare_and_set",
            self.inner.compare_and_set(key, expected, new),
        ))
    }

    fn remove_if<'a>(
        &'a self,
        key: &'a str,
        value: &'a str,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        Box::pin(self.timed("remove_if", self.inner.remove_if(key, value)))
    }

    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, LedgerError>> {
        Box::pin(self.timed("get", self.inner.get(key)))
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<(), LedgerError>> {
        Box::pin(self.timed("release", self.inner.release(key, owner)))
    }

    fn record_once<'a>(
        &'a self,
        key: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, LedgerError>> {
        Box::pin(self.timed("record_once", self.inner.record_once(key, ttl)))
    }
}

//! Readiness: the dependencies a server needs before it can serve a call, each probed on demand.
//!
//! `/readyz` (transport) runs every probe, each within a time limit, and answers 200 only when
//! all pass, with one line per dependency saying what is (not) ready. Nothing is cached, so a
//! dependency that goes away turns the answer to 503 at the next probe, and back when it returns.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use runtime_model::backend::BoxFuture;

/// The longest one probe may take before it counts as not ready.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

type Check = dyn Fn() -> BoxFuture<'static, Result<String, String>> + Send + Sync;

/// One dependency's check: `Ok(detail)` when ready, `Err(why)` when not.
#[derive(Clone)]
pub struct Probe {
    pub name: String,
    check: Arc<Check>,
}

impl std::fmt::Debug for Probe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probe").field("name", &self.name).finish()
    }
}

impl Probe {
    pub fn new<F, Fut>(name: impl Into<String>, check: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, String>> + Send + 'static,
    {
        Self {
            name: name.into(),
            check: Arc::new(move || Box::pin(check())),
        }
    }

    /// An HTTP service answers at `url` (any HTTP status: it is reachable).
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> Self {
        let url = url.into();
        let client = reqwest::Client::builder()
            .timeout(PROBE_TIMEOUT)
            .build()
            .unwrap_or_default();
        Self::new(name, move || {
            let (client, url) = (client.clone(), url.clone());
            async move {
                match client.get(&url).send().await {
                    Ok(r) => Ok(format!("{url} answers (HTTP {})", r.status().as_u16())),
                    Err(e) if e.is_timeout() => Err(format!("{url} did not answer in time")),
                    Err(e) if e.is_connect() => Err(format!("cannot connect to {url}")),
                    Err(e) => Err(format!("{url}: {e}")),
                }
            }
        })
    }

    /// Runs the check within [`PROBE_TIMEOUT`].
    pub async fn run(&self) -> Result<String, String> {
        match tokio::time::timeout(PROBE_TIMEOUT, (self.check)()).await {
            Ok(r) => r,
            Err(_) => Err(format!("no answer within {} ms", PROBE_TIMEOUT.as_millis())),
        }
    }
}

/// Runs every probe (concurrently); `(all ready, one line per probe)`.
pub async fn check_all(probes: &[Probe]) -> (bool, String) {
    let mut tasks = tokio::task::JoinSet::new();
    for (i, p) in probes.iter().enumerate() {
        let p = p.clone();
        tasks.spawn(async move { (i, p.run().await) });
    }
    let mut results: Vec<Option<Result<String, String>>> = vec![None; probes.len()];
    while let Some(done) = tasks.join_next().await {
        if let Ok((i, r)) = done {
            results[i] = Some(r);
        }
    }
    let mut ready = true;
    let mut body = String::new();
    for (p, r) in probes.iter().zip(results) {
        let r = r.unwrap_or_else(|| Err("the probe failed".to_string()));
        match r {
            Ok(detail) => body.push_str(&format!("{}: ready ({detail})\n", p.name)),
            Err(why) => {
                ready = false;
                body.push_str(&format!("{}: not ready: {why}\n", p.name));
            }
        }
    }
    (ready, body)
}

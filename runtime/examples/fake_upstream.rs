//! A stand-in for Kobana's API in `scripts/bench_proxy.sh`: it answers after a set latency, as
//! the real API does (tens of milliseconds), and counts what it receives, so that a benchmark of
//! `serve --upstream` measures the proxy's own cost and behaviour rather than an upstream on the
//! same machine answering in microseconds.
//!
//! Answers come from an origin (`--origin`, normally `kobana-mcp sandbox serve-api`): the first
//! GET of a path and query is fetched from it, then served from memory, so every record type and
//! answer shape is the sandbox's own and the origin's cost stays out of the figures. Other methods
//! are passed to the origin every time. Without an origin every answer is `[]`.
//!
//! Each answer waits `--latency-ms` ± `--jitter-ms` (uniform), or `--slow-ms` for a path (without
//! its query) that ends with one of the `--slow` texts; a path ending with a `--fail` text is answered
//! `--fail-status` after the latency. `GET /_fake/stats` gives the requests and TCP connections
//! accepted, the most requests in flight at once, and the delays applied (p50, p99, max) since the
//! start or the last `POST /_fake/reset`.
//!
//! `fake_upstream --listen 127.0.0.1:9100 [--origin URL] [--latency-ms 50] [--jitter-ms 10]
//!  [--slow TEXT]… [--slow-ms 2000] [--fail TEXT]… [--fail-status 503]`

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use axum::Router;

#[derive(Debug, Clone)]
struct Options {
    listen: SocketAddr,
    origin: Option<String>,
    latency: Duration,
    jitter: Duration,
    slow: Vec<String>,
    slow_delay: Duration,
    fail: Vec<String>,
    fail_status: StatusCode,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        listen: SocketAddr::from(([127, 0, 0, 1], 9100)),
        origin: None,
        latency: Duration::from_millis(50),
        jitter: Duration::from_millis(10),
        slow: Vec::new(),
        slow_delay: Duration::from_millis(2000),
        fail: Vec::new(),
        fail_status: StatusCode::SERVICE_UNAVAILABLE,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let ms = |v: &str| {
            v.parse::<u64>()
                .map(Duration::from_millis)
                .map_err(|e| format!("{flag} {v}: {e}"))
        };
        match flag.as_str() {
            "--listen" => o.listen = value.parse().map_err(|e| format!("--listen: {e}"))?,
            "--origin" => o.origin = Some(value.trim_end_matches('/').to_string()),
            "--latency-ms" => o.latency = ms(&value)?,
            "--jitter-ms" => o.jitter = ms(&value)?,
            "--slow" => o.slow.push(value),
            "--slow-ms" => o.slow_delay = ms(&value)?,
            "--fail" => o.fail.push(value),
            "--fail-status" => {
                o.fail_status = value
                    .parse::<u16>()
                    .ok()
                    .and_then(|s| StatusCode::from_u16(s).ok())
                    .ok_or_else(|| format!("--fail-status {value}: not an HTTP status"))?
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(o)
}

/// One answer as the origin gave it.
#[derive(Clone)]
struct Answer {
    status: StatusCode,
    content_type: Option<HeaderValue>,
    body: Bytes,
}

#[derive(Default)]
struct Stats {
    requests: AtomicU64,
    connections: AtomicU64,
    in_flight: AtomicU64,
    max_in_flight: AtomicU64,
    /// The delay applied to each request since the last reset, in microseconds.
    delays_us: Mutex<Vec<u32>>,
}

struct Shared {
    options: Options,
    client: reqwest::Client,
    cache: Mutex<HashMap<String, Answer>>,
    stats: Stats,
    /// xorshift state for the jitter (no cryptographic need; seeded from the clock).
    seed: AtomicU64,
}

impl Shared {
    fn jitter(&self) -> Duration {
        let j = self.options.jitter.as_micros() as u64;
        if j == 0 {
            return self.options.latency;
        }
        let mut x = self
            .seed
            .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        // Uniform in [latency − jitter, latency + jitter].
        let base = self.options.latency.as_micros() as u64;
        Duration::from_micros((base + x % (2 * j + 1)).saturating_sub(j))
    }

    fn delay_for(&self, path: &str) -> Duration {
        if self.options.slow.iter().any(|s| path.ends_with(s.as_str())) {
            self.options.slow_delay
        } else {
            self.jitter()
        }
    }

    async fn fetch_origin(
        &self,
        method: Method,
        key: &str,
        headers: &HeaderMap,
        body: Bytes,
    ) -> Answer {
        let Some(origin) = &self.options.origin else {
            return Answer {
                status: StatusCode::OK,
                content_type: Some(HeaderValue::from_static("application/json")),
                body: Bytes::from_static(b"[]"),
            };
        };
        let mut req = self
            .client
            .request(method, format!("{origin}{key}"))
            .body(body);
        for name in [header::AUTHORIZATION, header::CONTENT_TYPE, header::ACCEPT] {
            if let Some(v) = headers.get(&name) {
                req = req.header(name, v);
            }
        }
        for (name, value) in headers {
            if name.as_str().starts_with("kobana-") || name.as_str().contains("idempotency") {
                req = req.header(name, value);
            }
        }
        match req.send().await {
            Ok(r) => {
                let status =
                    StatusCode::from_u16(r.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
                let content_type = r.headers().get(header::CONTENT_TYPE).cloned();
                let body = r.bytes().await.unwrap_or_default();
                Answer {
                    status,
                    content_type,
                    body,
                }
            }
            Err(e) => Answer {
                status: StatusCode::BAD_GATEWAY,
                content_type: Some(HeaderValue::from_static("application/json")),
                body: Bytes::from(format!("{{\"error\":\"origin unreachable: {e}\"}}")),
            },
        }
    }
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    f64::from(sorted[i.min(sorted.len() - 1)]) / 1000.0
}

async fn stats(State(s): State<Arc<Shared>>) -> Response {
    let mut delays = s
        .stats
        .delays_us
        .lock()
        .map(|d| d.clone())
        .unwrap_or_default();
    delays.sort_unstable();
    let body = serde_json::json!({
        "requests": s.stats.requests.load(Ordering::Relaxed),
        "connections": s.stats.connections.load(Ordering::Relaxed),
        "in_flight": s.stats.in_flight.load(Ordering::Relaxed),
        "max_in_flight": s.stats.max_in_flight.load(Ordering::Relaxed),
        "delay_ms": {
            "count": delays.len(),
            "p50": percentile(&delays, 0.50),
            "p99": percentile(&delays, 0.99),
            "max": percentile(&delays, 1.0),
        },
    });
    (
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

async fn reset(State(s): State<Arc<Shared>>) -> StatusCode {
    s.stats.requests.store(0, Ordering::Relaxed);
    s.stats.connections.store(0, Ordering::Relaxed);
    s.stats
        .max_in_flight
        .store(s.stats.in_flight.load(Ordering::Relaxed), Ordering::Relaxed);
    if let Ok(mut d) = s.stats.delays_us.lock() {
        d.clear();
    }
    StatusCode::NO_CONTENT
}

async fn answer(State(s): State<Arc<Shared>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let key = parts.uri.path_and_query().map_or_else(
        || parts.uri.path().to_string(),
        |pq| pq.as_str().to_string(),
    );
    s.stats.requests.fetch_add(1, Ordering::Relaxed);
    let now = s.stats.in_flight.fetch_add(1, Ordering::Relaxed) + 1;
    s.stats.max_in_flight.fetch_max(now, Ordering::Relaxed);
    let delay = s.delay_for(parts.uri.path());
    if let Ok(mut d) = s.stats.delays_us.lock() {
        d.push(u32::try_from(delay.as_micros()).unwrap_or(u32::MAX));
    }
    let body = axum::body::to_bytes(body, 64 << 20)
        .await
        .unwrap_or_default();
    let cached = (parts.method == Method::GET)
        .then(|| s.cache.lock().ok().and_then(|c| c.get(&key).cloned()))
        .flatten();
    let fetched = async {
        match cached {
            Some(a) => a,
            None => {
                let a = s
                    .fetch_origin(parts.method.clone(), &key, &parts.headers, body)
                    .await;
                if parts.method == Method::GET {
                    if let Ok(mut c) = s.cache.lock() {
                        c.insert(key.clone(), a.clone());
                    }
                }
                a
            }
        }
    };
    // The delay runs beside the first fetch from the origin, so the first answer of a path is
    // not slower than the later ones (unless the origin itself is slower than the delay).
    let (a, ()) = tokio::join!(fetched, tokio::time::sleep(delay));
    s.stats.in_flight.fetch_sub(1, Ordering::Relaxed);
    let a = if s
        .options
        .fail
        .iter()
        .any(|f| parts.uri.path().ends_with(f.as_str()))
    {
        Answer {
            status: s.options.fail_status,
            content_type: Some(HeaderValue::from_static("application/json")),
            body: Bytes::from_static(b"{\"message\":\"injected failure (fake_upstream --fail)\"}"),
        }
    } else {
        a
    };
    let mut r = Response::new(Body::from(a.body));
    *r.status_mut() = a.status;
    if let Some(ct) = a.content_type {
        r.headers_mut().insert(header::CONTENT_TYPE, ct);
    }
    r
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = options()?;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    let shared = Arc::new(Shared {
        options: options.clone(),
        client,
        cache: Mutex::new(HashMap::new()),
        stats: Stats::default(),
        seed: AtomicU64::new(seed),
    });
    let app = Router::new()
        .route("/_fake/stats", get(stats))
        .route("/_fake/reset", post(reset))
        .fallback(answer)
        .with_state(shared.clone());
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(async move {
            let listener = tokio::net::TcpListener::bind(options.listen).await?;
            let counted = listener.tap_io(move |tcp| {
                shared.stats.connections.fetch_add(1, Ordering::Relaxed);
                let _ = tcp.set_nodelay(true);
            });
            axum::serve(counted, app).await
        })?;
    Ok(())
}

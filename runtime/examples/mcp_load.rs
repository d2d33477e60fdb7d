//! The many-clients load of `scripts/bench_proxy.sh`: N MCP clients at once, each calling one
//! tool in a loop over HTTP, in either era, with latency per tool.
//!
//! oha sends one request with one set of headers on every connection, which fits the 2026 era
//! (stateless: every request carries its version and `_meta`) but not 2025's sessions, where each
//! client opens its own: `initialize`, which answers an `Mcp-Session-Id`, then
//! `notifications/initialized`, then every call with that session id (one session per client and
//! product, as a real client connected to one server URL). Both eras go through this client so
//! that their figures are measured alike.
//!
//! Client `i` calls the `i mod K`-th of the K `--call` tools, so that clients of a slow tool do
//! not slow down the others' request rate; `/<product>/mcp` under `--url` is the endpoint (the
//! product is the tool name's first word, as `serve all` lays them out). A call counts as an
//! error unless it is HTTP 200 with a JSON-RPC `result` that is not `isError`. Clients start
//! spread over `--ramp-ms`; calls that end within the `--warmup-s` after the ramp are not
//! counted; then `--duration-s` are. Prints one JSON object.
//!
//! `mcp_load --url http://127.0.0.1:8080 --clients 1000 --duration-s 10 --era 2025-11-25
//!  --token demo-full --call billing_invoices_list={} [--call tool=ARGS]… [--warmup-s 2]
//!  [--ramp-ms 2000]`

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[derive(Debug, Clone)]
struct Options {
    url: String,
    clients: usize,
    duration: Duration,
    warmup: Duration,
    ramp: Duration,
    era: String,
    token: String,
    calls: Vec<(String, Value)>,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        url: "http://127.0.0.1:8080".into(),
        clients: 100,
        duration: Duration::from_secs(10),
        warmup: Duration::from_secs(2),
        ramp: Duration::from_secs(2),
        era: "2026-07-28".into(),
        token: "demo-full".into(),
        calls: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let num = |v: &str| v.parse::<u64>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--url" => o.url = value.trim_end_matches('/').to_string(),
            "--clients" => o.clients = num(&value)? as usize,
            "--duration-s" => o.duration = Duration::from_secs(num(&value)?),
            "--warmup-s" => o.warmup = Duration::from_secs(num(&value)?),
            "--ramp-ms" => o.ramp = Duration::from_millis(num(&value)?),
            "--era" => o.era = value,
            "--token" => o.token = value,
            "--call" => {
                let (tool, args) = value.split_once('=').unwrap_or((value.as_str(), "{}"));
                let args: Value =
                    serde_json::from_str(args).map_err(|e| format!("--call {value}: {e}"))?;
                o.calls.push((tool.to_string(), args));
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if o.calls.is_empty() {
        return Err("at least one --call TOOL=ARGS is needed".into());
    }
    if o.era != "2025-11-25" && o.era != "2026-07-28" {
        return Err(format!("--era {}: 2025-11-25 or 2026-07-28", o.era));
    }
    Ok(o)
}

/// What one client saw.
#[derive(Default)]
struct Seen {
    /// Latency of each counted call, in microseconds, by call index.
    latencies_us: HashMap<usize, Vec<u32>>,
    errors: u64,
    samples: Vec<String>,
    sessions: u64,
}

impl Seen {
    fn error(&mut self, what: String) {
        self.errors += 1;
        if self.samples.len() < 3 {
            self.samples.push(what);
        }
    }
}

struct Client {
    http: reqwest::Client,
    options: Arc<Options>,
}

impl Client {
    fn endpoint(&self, tool: &str) -> String {
        let product = tool.split('_').next().unwrap_or(tool);
        format!("{}/{product}/mcp", self.options.url)
    }

    fn request(&self, url: &str, body: &Value) -> reqwest::RequestBuilder {
        self.http
            .post(url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Authorization", format!("Bearer {}", self.options.token))
            .body(body.to_string())
    }

    /// A 2025 session on `url`: its id, after `initialize` and `notifications/initialized`.
    async fn open_session(&self, url: &str) -> Result<String, String> {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "mcp_load", "version": "0"}}});
        let r = self
            .request(url, &init)
            .send()
            .await
            .map_err(|e| format!("initialize: {e}"))?;
        let status = r.status();
        let id = r
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let _ = r.bytes().await;
        let id = id.ok_or_else(|| format!("initialize: HTTP {status}, no Mcp-Session-Id"))?;
        let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let r = self
            .request(url, &done)
            .header("Mcp-Session-Id", &id)
            .header("MCP-Protocol-Version", "2025-11-25")
            .send()
            .await
            .map_err(|e| format!("notifications/initialized: {e}"))?;
        if !r.status().is_success() {
            return Err(format!("notifications/initialized: HTTP {}", r.status()));
        }
        let _ = r.bytes().await;
        Ok(id)
    }

    async fn call(
        &self,
        url: &str,
        session: Option<&str>,
        tool: &str,
        body: &Value,
    ) -> Result<(), String> {
        let mut req = self
            .request(url, body)
            .header("MCP-Protocol-Version", self.options.era.as_str());
        if let Some(id) = session {
            req = req.header("Mcp-Session-Id", id);
        } else {
            req = req
                .header("Mcp-Method", "tools/call")
                .header("Mcp-Name", tool);
        }
        let r = req.send().await.map_err(|e| format!("{tool}: {e}"))?;
        let status = r.status();
        let bytes = r.bytes().await.map_err(|e| format!("{tool}: {e}"))?;
        let has = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
        if status != reqwest::StatusCode::OK || !has(b"\"result\"") || has(b"\"isError\":true") {
            let head = String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned();
            return Err(format!("{tool}: HTTP {status}: {head}"));
        }
        Ok(())
    }

    async fn run(self, index: usize, counted_from: Instant, until: Instant) -> Seen {
        let mut seen = Seen::default();
        let options = self.options.clone();
        let call_index = index % options.calls.len();
        let (tool, args) = &options.calls[call_index];
        let url = self.endpoint(tool);
        let mut params = json!({"name": tool, "arguments": args});
        if options.era == "2026-07-28" {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}});
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        let mut session = None;
        while Instant::now() < until {
            if options.era == "2025-11-25" && session.is_none() {
                match self.open_session(&url).await {
                    Ok(id) => {
                        seen.sessions += 1;
                        session = Some(id);
                    }
                    Err(e) => {
                        seen.error(e);
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                }
            }
            let started = Instant::now();
            let result = self.call(&url, session.as_deref(), tool, &body).await;
            let ended = Instant::now();
            // Errors count wherever they happen (warm-up too); latencies only in the window.
            if let Err(e) = result {
                seen.error(e);
                // A session the server ended is opened again.
                session = None;
                continue;
            }
            if started >= counted_from && ended <= until {
                seen.latencies_us.entry(call_index).or_default().push(
                    u32::try_from(ended.duration_since(started).as_micros()).unwrap_or(u32::MAX),
                );
            }
        }
        seen
    }
}

fn percentile_ms(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    f64::from(sorted[i.min(sorted.len() - 1)]) / 1000.0
}

fn figures(sorted: &[u32], seconds: f64) -> Value {
    json!({
        "calls": sorted.len(),
        "rps": sorted.len() as f64 / seconds,
        "p50_ms": percentile_ms(sorted, 0.50),
        "p99_ms": percentile_ms(sorted, 0.99),
        "max_ms": percentile_ms(sorted, 1.0),
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = Arc::new(options()?);
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .tcp_nodelay(true)
        .build()?;
    let seen = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(async {
            let start = Instant::now();
            let counted_from = start + options.ramp + options.warmup;
            let until = counted_from + options.duration;
            let mut tasks = tokio::task::JoinSet::new();
            for i in 0..options.clients {
                let client = Client {
                    http: http.clone(),
                    options: options.clone(),
                };
                let offset = options
                    .ramp
                    .mul_f64(i as f64 / options.clients.max(1) as f64);
                tasks.spawn(async move {
                    tokio::time::sleep_until((start + offset).into()).await;
                    client.run(i, counted_from, until).await
                });
            }
            let mut all = Vec::new();
            while let Some(r) = tasks.join_next().await {
                if let Ok(s) = r {
                    all.push(s);
                }
            }
            all
        });
    let seconds = options.duration.as_secs_f64();
    let mut every: Vec<u32> = Vec::new();
    let mut by_tool = serde_json::Map::new();
    for (i, (tool, _)) in options.calls.iter().enumerate() {
        let mut lat: Vec<u32> = seen
            .iter()
            .filter_map(|s| s.latencies_us.get(&i))
            .flatten()
            .copied()
            .collect();
        lat.sort_unstable();
        every.extend_from_slice(&lat);
        by_tool.insert(tool.clone(), figures(&lat, seconds));
    }
    every.sort_unstable();
    let mut out = figures(&every, seconds);
    out["clients"] = json!(options.clients);
    out["era"] = json!(options.era);
    out["errors"] = json!(seen.iter().map(|s| s.errors).sum::<u64>());
    out["error_samples"] = json!(seen
        .iter()
        .flat_map(|s| s.samples.iter().cloned())
        .take(5)
        .collect::<Vec<_>>());
    out["sessions_opened"] = json!(seen.iter().map(|s| s.sessions).sum::<u64>());
    out["by_tool"] = Value::Object(by_tool);
    println!("{out}");
    Ok(())
}

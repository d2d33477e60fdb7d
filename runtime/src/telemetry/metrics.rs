//! The instruments, and the Prometheus text a scrape of them renders.
//!
//! Names follow the OpenTelemetry semantic conventions where they define one
//! (`mcp.server.operation.duration`, `http.client.request.duration`); the server's own are under
//! `kobana.`. The Prometheus names are the usual translation: dots become underscores, the unit
//! is appended (`_seconds`), counters end in `_total`.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry::metrics::{Counter, Histogram, Meter, ObservableGauge};
use opentelemetry::KeyValue;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData, ResourceMetrics};
use opentelemetry_sdk::metrics::reader::MetricReader;
use opentelemetry_sdk::metrics::{InstrumentKind, ManualReader, Pipeline, Temporality};

/// Counts the open sessions of one session table (`None` once it is gone).
pub type SessionSource = Box<dyn Fn() -> Option<usize> + Send + Sync>;

/// Bucket bounds (seconds) of the duration histograms: the MCP conventions' advice.
const SECONDS_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];
/// Bucket bounds (seconds) of ledger operations: Redis round trips are sub-millisecond.
const LEDGER_BUCKETS: [f64; 12] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0,
];

/// What the server measures.
pub struct Instruments {
    /// `mcp.server.operation.duration` (s): by `mcp.method.name`, `gen_ai.tool.name`,
    /// `mcp.protocol.version`, `error.type`.
    pub operation: Histogram<f64>,
    /// `kobana.confirmations`: by `kobana.confirmation.outcome` (asked, accepted, declined,
    /// replayed, unavailable) and `gen_ai.tool.name`.
    pub confirmations: Counter<u64>,
    /// `http.client.request.duration` (s) of upstream attempts: by `http.request.method`,
    /// `http.response.status_code` or `error.type`, and `kobana.product`.
    pub upstream: Histogram<f64>,
    /// `kobana.ledger.operation.duration` (s): by `kobana.ledger.operation`, `error.type`.
    pub ledger: Histogram<f64>,
    /// `kobana.audit.records`: by `kobana.audit.outcome`.
    pub audit_records: Counter<u64>,
    /// `kobana.resources.listings_left_out`: by `kobana.product` and `kobana.resource.template`
    /// (the URI template of a type whose records a `resources/list` answered without).
    pub listings_left_out: Counter<u64>,
    _sessions: ObservableGauge<u64>,
}

impl Instruments {
    /// One HTTP attempt to the upstream: its duration and status (`None`: no answer, `error`
    /// says why) go to the `http.client.request.duration` histogram. (Its status and request id
    /// go to the request's facts: `contract::facts::Notes::attempts`.)
    pub(super) fn upstream_attempt(&self, a: &runtime_model::backend::HttpAttempt<'_>) {
        let mut attrs = vec![
            KeyValue::new("http.request.method", a.method.to_string()),
            KeyValue::new("kobana.product", a.product),
        ];
        if let Some(s) = a.status {
            attrs.push(KeyValue::new("http.response.status_code", i64::from(s)));
            if s >= 500 {
                attrs.push(KeyValue::new("error.type", s.to_string()));
            }
        }
        if let Some(e) = a.error {
            attrs.push(KeyValue::new("error.type", e));
        }
        self.upstream.record(a.took.as_secs_f64(), &attrs);
    }

    pub(super) fn new(meter: &Meter, sessions: Arc<Mutex<Vec<SessionSource>>>) -> Self {
        Self {
            operation: meter
                .f64_histogram("mcp.server.operation.duration")
                .with_unit("s")
                .with_description("MCP request duration as observed on the server, from receipt until the result is sent")
                .with_boundaries(SECONDS_BUCKETS.to_vec())
                .build(),
            confirmations: meter
                .u64_counter("kobana.confirmations")
                .with_description("Confirmation gate verdicts of destructive tools")
                .build(),
            upstream: meter
                .f64_histogram("http.client.request.duration")
                .with_unit("s")
                .with_description("Duration of each HTTP request to the Kobana API (proxy mode)")
                .with_boundaries(SECONDS_BUCKETS.to_vec())
                .build(),
            ledger: meter
                .f64_histogram("kobana.ledger.operation.duration")
                .with_unit("s")
                .with_description("Duration of confirmation ledger operations (memory or Redis)")
                .with_boundaries(LEDGER_BUCKETS.to_vec())
                .build(),
            audit_records: meter
                .u64_counter("kobana.audit.records")
                .with_description("Audit records written, by outcome of the write")
                .build(),
            listings_left_out: meter
                .u64_counter("kobana.resources.listings_left_out")
                .with_description("resources/list listings that failed or timed out, their type's records left out of the answer")
                .build(),
            _sessions: meter
                .u64_observable_gauge("mcp.server.sessions.open")
                .with_unit("{session}")
                .with_description("Open 2025-era MCP sessions (Streamable HTTP)")
                .with_callback(move |obs| {
                    let n: usize = sessions
                        .lock()
                        .map(|s| s.iter().filter_map(|f| f()).sum())
                        .unwrap_or(0);
                    obs.observe(n as u64, &[]);
                })
                .build(),
        }
    }

    /// Records one ledger operation.
    pub fn ledger_op(&self, op: &'static str, took: Duration, failed: bool) {
        let mut attrs = vec![KeyValue::new("kobana.ledger.operation", op)];
        if failed {
            attrs.push(KeyValue::new("error.type", "ledger_unavailable"));
        }
        self.ledger.record(took.as_secs_f64(), &attrs);
    }
}

/// The reader a scrape collects through: the SDK's manual reader, shared between the meter
/// provider (which owns its reader) and the scrape.
#[derive(Clone, Debug)]
pub(super) struct Scrape(Arc<ManualReader>);

impl Scrape {
    pub(super) fn new() -> Self {
        Self(Arc::new(
            ManualReader::builder()
                .with_temporality(Temporality::Cumulative)
                .build(),
        ))
    }

    pub(super) fn reader(&self) -> Self {
        self.clone()
    }

    pub(super) fn render(&self) -> String {
        let mut rm = ResourceMetrics::default();
        if let Err(e) = self.0.collect(&mut rm) {
            return format!("# metrics unavailable: {e}\n");
        }
        render(&rm)
    }
}

impl MetricReader for Scrape {
    fn register_pipeline(&self, pipeline: std::sync::Weak<Pipeline>) {
        self.0.register_pipeline(pipeline)
    }
    fn collect(&self, rm: &mut ResourceMetrics) -> opentelemetry_sdk::error::OTelSdkResult {
        self.0.collect(rm)
    }
    fn force_flush(&self) -> opentelemetry_sdk::error::OTelSdkResult {
        self.0.force_flush()
    }
    fn shutdown_with_timeout(&self, timeout: Duration) -> opentelemetry_sdk::error::OTelSdkResult {
        self.0.shutdown_with_timeout(timeout)
    }
    fn temporality(&self, kind: InstrumentKind) -> Temporality {
        self.0.temporality(kind)
    }
}

/// A Prometheus metric or label name: every character outside `[a-zA-Z0-9_:]` becomes `_`.
fn prom_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == ':' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The metric name with its unit suffix (`s` → `_seconds`; annotations like `{session}` add none).
fn full_name(name: &str, unit: &str) -> String {
    let base = prom_name(name);
    let suffix = match unit {
        "s" => "_seconds",
        "ms" => "_milliseconds",
        "By" => "_bytes",
        _ => "",
    };
    if suffix.is_empty() || base.ends_with(suffix) {
        base
    } else {
        format!("{base}{suffix}")
    }
}

fn escape_value(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// `{a="x",b="y"}` (with `extra` last), or nothing when there are no labels.
fn labels<'a>(attrs: impl Iterator<Item = &'a KeyValue>, extra: Option<(&str, &str)>) -> String {
    let mut pairs: Vec<(String, String)> = attrs
        .map(|kv| (prom_name(kv.key.as_str()), escape_value(&kv.value.as_str())))
        .collect();
    pairs.sort();
    if let Some((k, v)) = extra {
        pairs.push((k.to_string(), v.to_string()));
    }
    if pairs.is_empty() {
        return String::new();
    }
    let inner: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}=\"{v}\"")).collect();
    format!("{{{}}}", inner.join(","))
}

fn number(v: f64) -> String {
    if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.to_string()
    } else {
        format!("{v}")
    }
}

/// Renders collected metrics in the Prometheus text format.
fn render(rm: &ResourceMetrics) -> String {
    let mut out = String::new();
    for scope in rm.scope_metrics() {
        for m in scope.metrics() {
            match m.data() {
                AggregatedMetrics::F64(d) => {
                    write_metric(&mut out, m.name(), m.unit(), m.description(), d, |v| *v)
                }
                AggregatedMetrics::U64(d) => {
                    write_metric(&mut out, m.name(), m.unit(), m.description(), d, |v| {
                        *v as f64
                    })
                }
                AggregatedMetrics::I64(d) => {
                    write_metric(&mut out, m.name(), m.unit(), m.description(), d, |v| {
                        *v as f64
                    })
                }
            }
        }
    }
    out
}

fn write_metric<T: Copy>(
    out: &mut String,
    name: &str,
    unit: &str,
    help: &str,
    data: &MetricData<T>,
    f: impl Fn(&T) -> f64,
) {
    let base = full_name(name, unit);
    let help = help.replace('\\', "\\\\").replace('\n', "\\n");
    match data {
        MetricData::Gauge(g) => {
            let _ = writeln!(out, "# HELP {base} {help}\n# TYPE {base} gauge");
            for p in g.data_points() {
                let _ = writeln!(
                    out,
                    "{base}{} {}",
                    labels(p.attributes(), None),
                    number(f(&p.value()))
                );
            }
        }
        MetricData::Sum(s) => {
            let (name, kind) = if s.is_monotonic() {
                (format!("{base}_total"), "counter")
            } else {
                (base.clone(), "gauge")
            };
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
            for p in s.data_points() {
                let _ = writeln!(
                    out,
                    "{name}{} {}",
                    labels(p.attributes(), None),
                    number(f(&p.value()))
                );
            }
        }
        MetricData::Histogram(h) => {
            let _ = writeln!(out, "# HELP {base} {help}\n# TYPE {base} histogram");
            for p in h.data_points() {
                let mut cumulative = 0u64;
                let bounds: Vec<f64> = p.bounds().collect();
                for (i, count) in p.bucket_counts().enumerate() {
                    cumulative += count;
                    let le = bounds.get(i).copied().unwrap_or(f64::INFINITY);
                    let _ = writeln!(
                        out,
                        "{base}_bucket{} {cumulative}",
                        labels(p.attributes(), Some(("le", &number(le))))
                    );
                }
                let l = labels(p.attributes(), None);
                let _ = writeln!(out, "{base}_sum{l} {}", number(f(&p.sum())));
                let _ = writeln!(out, "{base}_count{l} {}", p.count());
            }
        }
        // Not configured anywhere in this server.
        MetricData::ExponentialHistogram(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_prometheus_translation() {
        assert_eq!(
            full_name("mcp.server.operation.duration", "s"),
            "mcp_server_operation_duration_seconds"
        );
        assert_eq!(
            full_name("mcp.server.sessions.open", "{session}"),
            "mcp_server_sessions_open"
        );
        assert_eq!(escape_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}

//! Operating the server: metrics and traces after the OpenTelemetry semantic conventions for MCP,
//! the audit trail of writes, and readiness probes.
//!
//! One [`Telemetry`] per server. Instrumentation has few homes, each a layer every request
//! crosses: the engine's request wrapper (`observe`) times every request, opens its
//! span and writes the audit record of a write, from the [`facts`] the layers below note while
//! the request runs, through the handle in its call (the confirmation gate's verdict, the
//! upstream's status and request id, the idempotency key); the ledger is wrapped once
//! (`crate::confirm::timed::TimedLedger`); the upstream proxy reports each HTTP attempt to its
//! call's `CallContext::attempts`, which times it ([`Telemetry::attempts`]).
//!
//! Metrics always live in the process (a Prometheus scrape renders them: [`Telemetry::prometheus`]);
//! with an OTLP endpoint they and the spans are also exported (HTTP, protobuf). Without one no
//! span is built at all.

pub mod audit;
pub mod facts;
pub mod health;
mod metrics;
pub(crate) mod observe;
mod otlp;
pub mod request_log;
pub mod trace;

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use opentelemetry::metrics::MeterProvider as _;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;

pub use audit::{AuditSink, AuditTarget};
pub use metrics::Instruments;
use metrics::SessionSource;

pub use otlp::SERVICE_NAME;

/// What to build a [`Telemetry`] with.
#[derive(Debug, Clone, Default)]
pub struct TelemetryConfig {
    /// OTLP/HTTP base URL (`http://collector:4318`): metrics go to `/v1/metrics`, spans to
    /// `/v1/traces`. A URL already ending in one of those paths is used for that signal as is.
    pub otlp_endpoint: Option<String>,
    /// How often metrics are pushed over OTLP (default 60 s).
    pub otlp_interval: Option<Duration>,
    /// Where audit records of writes go; `None`: nowhere.
    pub audit: Option<AuditTarget>,
}

/// Why telemetry could not start.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error("OTLP exporter: {0}")]
    Otlp(String),
    #[error("{0}")]
    Audit(String),
}

/// The metrics, tracer and audit sink of one server. Cheap to clone.
#[derive(Clone)]
pub struct Telemetry {
    inner: Arc<Inner>,
}

struct Inner {
    meters: SdkMeterProvider,
    scrape: metrics::Scrape,
    instruments: Instruments,
    tracing: Option<(SdkTracerProvider, opentelemetry_sdk::trace::Tracer)>,
    audit: Option<AuditSink>,
    sessions: Arc<Mutex<Vec<SessionSource>>>,
}

impl runtime_model::backend::AttemptSink for Inner {
    fn attempt(&self, attempt: &runtime_model::backend::HttpAttempt<'_>) {
        self.instruments.upstream_attempt(attempt);
    }
}

impl Telemetry {
    /// Where a measured call's HTTP attempts are timed (`http.client.request.duration`).
    pub fn attempts(&self) -> runtime_model::backend::Attempts {
        runtime_model::backend::Attempts::to(self.inner.clone())
    }
}

impl Default for Telemetry {
    /// Metrics in the process only: no export, no audit.
    fn default() -> Self {
        match Self::new(TelemetryConfig::default()) {
            Ok(t) => t,
            // Nothing that can fail is configured.
            Err(e) => unreachable!("telemetry without exporters cannot fail: {e}"),
        }
    }
}

impl Telemetry {
    pub fn new(config: TelemetryConfig) -> Result<Self, TelemetryError> {
        let scrape = metrics::Scrape::new();
        let mut builder = SdkMeterProvider::builder()
            .with_resource(otlp::resource())
            .with_reader(scrape.reader());
        let mut tracing = None;
        if let Some(endpoint) = &config.otlp_endpoint {
            builder = builder.with_reader(
                otlp::metric_reader(
                    endpoint,
                    config.otlp_interval.unwrap_or(Duration::from_secs(60)),
                )
                .map_err(TelemetryError::Otlp)?,
            );
            let provider = otlp::tracer_provider(endpoint).map_err(TelemetryError::Otlp)?;
            let tracer = opentelemetry::trace::TracerProvider::tracer(&provider, SERVICE_NAME);
            tracing = Some((provider, tracer));
        }
        let meters = builder.build();
        let meter = meters.meter(SERVICE_NAME);
        let sessions: Arc<Mutex<Vec<SessionSource>>> = Arc::default();
        let instruments = Instruments::new(&meter, sessions.clone());
        let audit = match config.audit {
            None => None,
            Some(target) => Some(AuditSink::open(target).map_err(TelemetryError::Audit)?),
        };
        Ok(Self {
            inner: Arc::new(Inner {
                meters,
                scrape,
                instruments,
                tracing,
                audit,
                sessions,
            }),
        })
    }

    pub fn instruments(&self) -> &Instruments {
        &self.inner.instruments
    }

    /// The tracer, when spans are exported.
    pub fn tracer(&self) -> Option<&opentelemetry_sdk::trace::Tracer> {
        self.inner.tracing.as_ref().map(|(_, t)| t)
    }

    pub fn audit(&self) -> Option<&AuditSink> {
        self.inner.audit.as_ref()
    }

    /// Counts the open sessions of `table` in the open-sessions gauge for as long as it lives.
    pub fn count_sessions<T: Send + Sync + 'static>(&self, table: &Arc<T>, len: fn(&T) -> usize) {
        let weak: Weak<T> = Arc::downgrade(table);
        if let Ok(mut s) = self.inner.sessions.lock() {
            s.push(Box::new(move || weak.upgrade().map(|t| len(&t))));
        }
    }

    /// Every metric, in the Prometheus text exposition format (0.0.4).
    pub fn prometheus(&self) -> String {
        self.inner.scrape.render()
    }

    /// Exports what is pending (spans, metrics) now. Blocks: call it off the async runtime.
    pub fn flush(&self) {
        if let Some((p, _)) = &self.inner.tracing {
            if let Err(e) = p.force_flush() {
                tracing::warn!(error = %e, "flushing spans failed");
            }
        }
        if let Err(e) = self.inner.meters.force_flush() {
            tracing::warn!(error = %e, "flushing metrics failed");
        }
    }

    /// Exports what is pending and stops the exporters. Blocks: call it off the async runtime.
    pub fn shutdown(&self) {
        if let Some((p, _)) = &self.inner.tracing {
            let _ = p.shutdown();
        }
        let _ = self.inner.meters.shutdown();
    }
}

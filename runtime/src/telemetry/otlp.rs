//! OTLP export (HTTP, protobuf) of metrics and spans, when an endpoint is configured.
//!
//! The SDK exports from its own threads (the batch span processor, the periodic metric reader),
//! so the exporters use reqwest's blocking client; the async runtime never waits on an export.

use std::time::Duration;

use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::metrics::PeriodicReader;
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;

/// The name this server reports itself as (`service.name`, the meter and tracer scope).
pub const SERVICE_NAME: &str = "kobana-mcp";

/// `service.name` and `service.version` of everything exported.
pub(super) fn resource() -> Resource {
    Resource::builder()
        .with_service_name(SERVICE_NAME)
        .with_attribute(opentelemetry::KeyValue::new(
            "service.version",
            env!("CARGO_PKG_VERSION"),
        ))
        .build()
}

/// The URL of one signal: `base` + `/v1/<signal>`, unless `base` already names a signal path.
pub(crate) fn signal_url(base: &str, signal: &str) -> String {
    let base = base.trim_end_matches('/');
    if base.ends_with("/v1/traces") || base.ends_with("/v1/metrics") {
        let cut = base.rfind("/v1/").unwrap_or(base.len());
        return format!("{}/v1/{signal}", &base[..cut]);
    }
    format!("{base}/v1/{signal}")
}

pub(super) fn metric_reader(
    endpoint: &str,
    interval: Duration,
) -> Result<PeriodicReader<opentelemetry_otlp::MetricExporter>, String> {
    let exporter = opentelemetry_otlp::MetricExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(signal_url(endpoint, "metrics"))
        .build()
        .map_err(|e| e.to_string())?;
    Ok(PeriodicReader::builder(exporter)
        .with_interval(interval)
        .build())
}

pub(super) fn tracer_provider(endpoint: &str) -> Result<SdkTracerProvider, String> {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(signal_url(endpoint, "traces"))
        .build()
        .map_err(|e| e.to_string())?;
    Ok(SdkTracerProvider::builder()
        .with_resource(resource())
        .with_batch_exporter(exporter)
        .build())
}

#[cfg(test)]
mod tests {
    use super::signal_url;

    #[test]
    fn signal_paths() {
        assert_eq!(
            signal_url("http://c:4318", "traces"),
            "http://c:4318/v1/traces"
        );
        assert_eq!(
            signal_url("http://c:4318/", "metrics"),
            "http://c:4318/v1/metrics"
        );
        assert_eq!(
            signal_url("http://c:4318/v1/traces", "metrics"),
            "http://c:4318/v1/metrics"
        );
    }
}

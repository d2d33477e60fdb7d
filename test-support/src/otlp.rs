//! An OTLP/HTTP collector for the telemetry tests: it keeps the protobuf bodies the server
//! exports, for the test to decode.

use std::sync::{Arc, Mutex};

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::metrics::v1::Metric;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

/// What the OTLP receiver got, raw protobuf bodies by path.
#[derive(Clone, Default)]
pub struct Received(Arc<Mutex<Vec<Post>>>);

/// One body posted to the collector, with its path.
type Post = (String, Vec<u8>);

impl Received {
    pub fn bodies(&self, path: &str) -> Vec<Vec<u8>> {
        self.0
            .lock()
            .map(|v| {
                v.iter()
                    .filter(|(p, _)| p == path)
                    .map(|(_, b)| b.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every span of every trace export, decoded (a body that is no OTLP export fails the test).
    pub fn spans(&self) -> Vec<Span> {
        self.bodies("/v1/traces")
            .iter()
            .map(|b| ExportTraceServiceRequest::decode(b.as_slice()).expect("an OTLP trace export"))
            .flat_map(|r| r.resource_spans)
            .flat_map(|rs| rs.scope_spans)
            .flat_map(|ss| ss.spans)
            .collect()
    }

    /// Every metric of every metrics export, decoded.
    pub fn metrics(&self) -> Vec<Metric> {
        self.bodies("/v1/metrics")
            .iter()
            .map(|b| {
                ExportMetricsServiceRequest::decode(b.as_slice()).expect("an OTLP metrics export")
            })
            .flat_map(|r| r.resource_metrics)
            .flat_map(|rm| rm.scope_metrics)
            .flat_map(|sm| sm.metrics)
            .collect()
    }
}

/// An OTLP/HTTP collector on 127.0.0.1: keeps every body posted to `/v1/traces` and `/v1/metrics`.
pub async fn collector() -> (String, Received) {
    use axum::body::Bytes;
    use axum::extract::State;
    use axum::routing::post;
    let received = Received::default();
    let keep = |path: &'static str| {
        move |State(r): State<Received>, body: Bytes| async move {
            if let Ok(mut v) = r.0.lock() {
                v.push((path.to_string(), body.to_vec()));
            }
            axum::http::StatusCode::OK
        }
    };
    let app = axum::Router::new()
        .route("/v1/traces", post(keep("/v1/traces")))
        .route("/v1/metrics", post(keep("/v1/metrics")))
        .with_state(received.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), received)
}

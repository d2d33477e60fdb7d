//! An OTLP/HTTP collector for the telemetry tests: it keeps the protobuf bodies the server
//! exports, for the test to decode.

use std::sync::{Arc, Mutex};

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

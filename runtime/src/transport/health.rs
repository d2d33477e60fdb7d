//! `/healthz`, `/readyz` and `/metrics`: unauthenticated, outside the Origin/Host guard (probes
//! and scrapers send neither an Origin nor a loopback Host), and never MCP; counted by the per-IP
//! limit like every request ([`super::http::router`]).
//!
//! - `/healthz`: 200 `ok` while the process answers; calls nothing.
//! - `/readyz`: runs the server's readiness probes ([`crate::telemetry::health`]); 200 when all
//!   pass, else 503; one line per dependency either way.
//! - `/metrics`: the Prometheus text of the server's metrics (unless served on a separate
//!   listener: [`metrics_router`]).

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::server::Server;
use crate::telemetry::health::check_all;
use crate::telemetry::Telemetry;

/// The probe routes of `server` (and `/metrics` when [`crate::server::ServerConfig::metrics_route`]).
pub fn router(server: Arc<Server>) -> Router {
    let mut r = Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz).with_state(server.clone()));
    if server.config.metrics_route {
        r = r.merge(metrics_router(server.telemetry().clone()));
    }
    r
}

/// `/metrics` alone, for a separate metrics listener (`--metrics-addr`).
pub fn metrics_router(telemetry: Telemetry) -> Router {
    Router::new().route("/metrics", get(metrics).with_state(telemetry))
}

fn text(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        body,
    )
        .into_response()
}

async fn healthz() -> Response {
    text(StatusCode::OK, "ok\n".to_string())
}

async fn readyz(State(server): State<Arc<Server>>) -> Response {
    let (ready, body) = check_all(server.readiness()).await;
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    text(status, body)
}

async fn metrics(State(telemetry): State<Telemetry>) -> Response {
    let body = tokio::task::spawn_blocking(move || telemetry.prometheus())
        .await
        .unwrap_or_else(|e| format!("# metrics unavailable: {e}\n"));
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        body,
    )
        .into_response()
}

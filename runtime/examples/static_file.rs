//! A static-bytes server for benchmarks: answers any POST with the bytes of one file, as
//! `shared/bench-peers`' `static_bytes` does (axum, defaults), optionally with a
//! `Content-Encoding`. `scripts/bench_http.sh` serves our own compressed `tools/list` answer with
//! it, the limit a server sending those same compressed bytes can reach.
//!
//! `static_file <file> <port> [content-encoding]`

use axum::body::Bytes;
use axum::http::{header, HeaderValue};
use axum::response::IntoResponse;
use axum::routing::post;
use axum::Router;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(file), Some(port)) = (args.get(1), args.get(2)) else {
        return Err("usage: static_file <file> <port> [content-encoding]".into());
    };
    let port: u16 = port.parse()?;
    let body = Bytes::from(std::fs::read(file)?);
    let encoding = args.get(3).map(|e| HeaderValue::from_str(e)).transpose()?;
    let answer = move || {
        let body = body.clone();
        let encoding = encoding.clone();
        async move {
            let mut r = ([(header::CONTENT_TYPE, "application/json")], body).into_response();
            if let Some(e) = encoding {
                r.headers_mut().insert(header::CONTENT_ENCODING, e);
            }
            r
        }
    };
    let app = Router::new().fallback(post(answer));
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(async move {
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
            axum::serve(listener, app).await
        })?;
    Ok(())
}
